//! Vector tiles (pure, synchronous): XYZ tile math on the WebMercatorQuad grid, projection of
//! WGS84 geometries to tile pixels, clipping to the tile plus a buffer, MVT ring winding,
//! quantization, and Mapbox Vector Tile (MVT 2.1) encoding through geozero.
//!
//! Pipeline for one feature in [`encode_layer`]:
//! 1. project lon/lat (degrees) to tile pixels, y axis pointing down (WebMercator, latitude
//!    clamped to ±[`MAX_LATITUDE_DEG`]);
//! 2. clip to the tile rectangle grown by the buffer (`crate::clip`): polygon rings by
//!    Sutherland–Hodgman, lines by Liang–Barsky, points by a containment filter (geometries
//!    whose bounding box is already inside the buffered tile are not clipped); features whose
//!    pixel box is under half a pixel both ways are dropped before any work;
//! 3. quantize to integer pixels, remove repeated vertices, drop lines with fewer than 2
//!    vertices and rings with zero area;
//! 4. orient rings for MVT: with y down, exterior rings have a positive surveyor's-formula
//!    area (clockwise on screen) and interior rings a negative one (MVT 2.1 §4.3.4.4);
//! 5. encode with geozero (`ToMvt::to_mvt_unscaled`, `TagsBuilder`) and prost.

use crate::clip;
use geo::{BoundingRect, CoordsIter, MapCoords};
use geo_types::{
    coord, Coord, Geometry, LineString, MultiLineString, MultiPoint, MultiPolygon, Point, Polygon,
    Rect,
};
use geozero::mvt::{tile, Message, TagsBuilder, Tile, TileValue};
use geozero::ToMvt;
use serde_json::{Map, Value};
use std::f64::consts::PI;

/// Tile coordinate space of every encoded layer (pixels per tile side).
pub const EXTENT: u32 = 4096;
/// Clip buffer around the tile, in tile pixels (of [`EXTENT`]).
pub const BUFFER_PX: u32 = 64;
/// Deepest zoom accepted by [`TileId::new`].
pub const MAX_ZOOM: u8 = 24;
/// Latitude limit of WebMercatorQuad (the square world), in degrees.
pub const MAX_LATITUDE_DEG: f64 = 85.051_128_779_806_59;
/// Half the side of the Web Mercator square (EPSG:3857 x at 180°), metres.
pub const WEB_MERCATOR_HALF_SIDE_M: f64 = 20_037_508.342_789_244;
/// Tile side in pixels of OGC's WebMercatorQuad tile matrix set.
pub const WEB_MERCATOR_TILE_PX: u32 = 256;

/// One level of OGC's WebMercatorQuad: (cell size in metres per pixel, scale denominator at
/// the standard 0.28 mm pixel, tiles per side).
pub fn web_mercator_matrix(z: u8) -> (f64, f64, u32) {
    let tiles = 1u32 << z.min(31);
    let cell_m =
        2.0 * WEB_MERCATOR_HALF_SIDE_M / (f64::from(WEB_MERCATOR_TILE_PX) * f64::from(tiles));
    (cell_m, cell_m / 0.000_28, tiles)
}

/// One tile of the XYZ / OGC WebMercatorQuad grid: `x` from the west, `y` from the top (north).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileId {
    pub z: u8,
    pub x: u32,
    pub y: u32,
}

impl TileId {
    /// A tile id, or `None` when `z > MAX_ZOOM` or `x`/`y` is outside `0..2^z`.
    pub fn new(z: u8, x: u32, y: u32) -> Option<TileId> {
        if z > MAX_ZOOM {
            return None;
        }
        let tiles_per_side = 1u32 << z;
        (x < tiles_per_side && y < tiles_per_side).then_some(TileId { z, x, y })
    }

    /// The tile at zoom `z` that contains a WGS84 position (degrees). Latitudes beyond
    /// ±[`MAX_LATITUDE_DEG`] fall in the first / last row. `None` for a non-finite position,
    /// a longitude outside -180..=180, or `z > MAX_ZOOM`.
    pub fn from_lonlat(lon_deg: f64, lat_deg: f64, z: u8) -> Option<TileId> {
        if z > MAX_ZOOM || !lat_deg.is_finite() || !(-180.0..=180.0).contains(&lon_deg) {
            return None;
        }
        let tiles_per_side = 1u32 << z;
        let world = lonlat_to_world(lon_deg, lat_deg);
        let last = f64::from(tiles_per_side - 1);
        let x = (world.x * f64::from(tiles_per_side))
            .floor()
            .clamp(0.0, last) as u32;
        let y = (world.y * f64::from(tiles_per_side))
            .floor()
            .clamp(0.0, last) as u32;
        TileId::new(z, x, y)
    }

    /// Number of tiles along one side of the grid at this zoom (`2^z`).
    pub fn tiles_per_side(&self) -> u32 {
        1u32 << self.z
    }

    /// The tile's bounds in WGS84 degrees: min = (west, south), max = (east, north).
    pub fn bounds_lonlat(&self) -> Rect<f64> {
        self.bounds_with_buffer_lonlat(0, EXTENT)
    }

    /// The tile's bounds grown by `buffer_px` pixels of a tile of `extent` pixels, in WGS84
    /// degrees. Use it to query the features that can reach the encoded tile. The result is
    /// not clamped: at the edges of the world it extends past ±180° / ±[`MAX_LATITUDE_DEG`].
    pub fn bounds_with_buffer_lonlat(&self, buffer_px: u32, extent: u32) -> Rect<f64> {
        let tiles_per_side = f64::from(self.tiles_per_side());
        let buffer_tiles = f64::from(buffer_px) / f64::from(extent.max(1));
        let west_world = (f64::from(self.x) - buffer_tiles) / tiles_per_side;
        let east_world = (f64::from(self.x) + 1.0 + buffer_tiles) / tiles_per_side;
        let north_world = (f64::from(self.y) - buffer_tiles) / tiles_per_side;
        let south_world = (f64::from(self.y) + 1.0 + buffer_tiles) / tiles_per_side;
        Rect::new(
            coord! { x: world_x_to_lon(west_world), y: world_y_to_lat(south_world) },
            coord! { x: world_x_to_lon(east_world), y: world_y_to_lat(north_world) },
        )
    }
}

impl std::fmt::Display for TileId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.z, self.x, self.y)
    }
}

/// WGS84 degrees to the unit WebMercator square: x east from 0 (180°W) to 1, y south from 0
/// (top, [`MAX_LATITUDE_DEG`]) to 1.
fn lonlat_to_world(lon_deg: f64, lat_deg: f64) -> Coord<f64> {
    let lat_rad = lat_deg
        .clamp(-MAX_LATITUDE_DEG, MAX_LATITUDE_DEG)
        .to_radians();
    coord! {
        x: (lon_deg + 180.0) / 360.0,
        y: (1.0 - (lat_rad.tan() + 1.0 / lat_rad.cos()).ln() / PI) / 2.0,
    }
}

fn world_x_to_lon(world_x: f64) -> f64 {
    world_x * 360.0 - 180.0
}

fn world_y_to_lat(world_y: f64) -> f64 {
    (PI * (1.0 - 2.0 * world_y)).sinh().atan().to_degrees()
}

/// Maps WGS84 degrees to the pixels of one tile (y down), as floats.
#[derive(Debug, Clone, Copy)]
struct TileProjection {
    pixels_per_world: f64,
    origin_x_px: f64,
    origin_y_px: f64,
}

impl TileProjection {
    fn new(tile: TileId, extent: u32) -> Self {
        let extent = f64::from(extent);
        TileProjection {
            pixels_per_world: f64::from(tile.tiles_per_side()) * extent,
            origin_x_px: f64::from(tile.x) * extent,
            origin_y_px: f64::from(tile.y) * extent,
        }
    }

    fn project(&self, lonlat: Coord<f64>) -> Coord<f64> {
        let world = lonlat_to_world(lonlat.x, lonlat.y);
        coord! {
            x: world.x * self.pixels_per_world - self.origin_x_px,
            y: world.y * self.pixels_per_world - self.origin_y_px,
        }
    }
}

/// Encode one MVT layer from WGS84 features at [`EXTENT`] with a [`BUFFER_PX`] clip buffer.
/// See [`encode_layer_with`].
pub fn encode_layer<'a>(
    tile: TileId,
    layer_name: &str,
    features: impl IntoIterator<Item = (u64, &'a Geometry<f64>, &'a Map<String, Value>)>,
) -> Option<Vec<u8>> {
    encode_layer_with(tile, layer_name, EXTENT, BUFFER_PX, features)
}

/// Encode one MVT layer (a whole tile holding one layer) from WGS84 features `(id, geometry,
/// properties)`.
///
/// Geometries are projected to tile pixels, clipped to the tile plus `buffer_px`, quantized,
/// and oriented for MVT (see the module docs). Features that end up empty are dropped. A
/// `GeometryCollection` is encoded as its polygons, else its lines, else its points (an MVT
/// feature has a single geometry type).
///
/// Properties: strings, numbers and booleans become tags (non-negative integers as
/// `uint_value`, negative integers as `sint_value`, other numbers as `double_value`); `null`,
/// arrays and objects are skipped.
///
/// Returns `None` when no feature remains (the server answers 204 No Content).
pub fn encode_layer_with<'a>(
    tile: TileId,
    layer_name: &str,
    extent: u32,
    buffer_px: u32,
    features: impl IntoIterator<Item = (u64, &'a Geometry<f64>, &'a Map<String, Value>)>,
) -> Option<Vec<u8>> {
    let extent = extent.max(1);
    let projection = TileProjection::new(tile, extent);
    let buffer = f64::from(buffer_px);
    let clip_rect = Rect::new(
        coord! { x: -buffer, y: -buffer },
        coord! { x: f64::from(extent) + buffer, y: f64::from(extent) + buffer },
    );
    let clip = Clip { rect: clip_rect };

    let mut tags = TagsBuilder::new();
    let mut mvt_features = Vec::new();
    for (id, geometry, properties) in features {
        let Some(tile_geometry) = to_tile_geometry(geometry, &projection, &clip) else {
            continue;
        };
        // Coordinates are already integral pixels: the unscaled writer only delta-encodes.
        let Ok(mut feature) = tile_geometry.to_mvt_unscaled() else {
            continue;
        };
        feature.id = Some(id);
        for (key, value) in properties {
            if let Some(tile_value) = json_to_tile_value(value) {
                let (key_idx, value_idx) = tags.insert_ref(key, tile_value);
                feature.tags.push(key_idx);
                feature.tags.push(value_idx);
            }
        }
        mvt_features.push(feature);
    }
    if mvt_features.is_empty() {
        return None;
    }

    let (keys, values) = tags.into_tags();
    let layer = tile::Layer {
        version: 2,
        name: layer_name.to_string(),
        features: mvt_features,
        keys,
        values: values.into_iter().map(tile::Value::from).collect(),
        extent: Some(extent),
    };
    Some(
        Tile {
            layers: vec![layer],
        }
        .encode_to_vec(),
    )
}

fn json_to_tile_value(value: &Value) -> Option<TileValue> {
    match value {
        Value::String(s) => Some(TileValue::Str(s.clone())),
        Value::Bool(b) => Some(TileValue::Bool(*b)),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Some(TileValue::Uint(u))
            } else if let Some(i) = n.as_i64() {
                Some(TileValue::Sint(i))
            } else {
                n.as_f64().map(TileValue::Double)
            }
        }
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// The buffered tile in pixels.
struct Clip {
    rect: Rect<f64>,
}

enum Relation {
    Outside,
    Inside,
    Crossing,
}

impl Clip {
    fn relation(&self, bbox: Option<Rect<f64>>) -> Relation {
        let Some(bbox) = bbox else {
            return Relation::Outside;
        };
        let (clip_min, clip_max) = (self.rect.min(), self.rect.max());
        let (min, max) = (bbox.min(), bbox.max());
        if max.x < clip_min.x || max.y < clip_min.y || min.x > clip_max.x || min.y > clip_max.y {
            Relation::Outside
        } else if min.x >= clip_min.x
            && min.y >= clip_min.y
            && max.x <= clip_max.x
            && max.y <= clip_max.y
        {
            Relation::Inside
        } else {
            Relation::Crossing
        }
    }

    fn contains(&self, c: Coord<f64>) -> bool {
        let (min, max) = (self.rect.min(), self.rect.max());
        c.x >= min.x && c.x <= max.x && c.y >= min.y && c.y <= max.y
    }
}

/// The parts of a geometry, by dimension (collections flattened).
#[derive(Default)]
struct Parts {
    polygons: Vec<Polygon<f64>>,
    lines: Vec<LineString<f64>>,
    points: Vec<Point<f64>>,
}

impl Parts {
    fn collect(&mut self, geometry: &Geometry<f64>) {
        match geometry {
            Geometry::Point(p) => self.points.push(*p),
            Geometry::MultiPoint(mp) => self.points.extend(mp.iter().copied()),
            Geometry::Line(l) => self.lines.push(LineString::from(vec![l.start, l.end])),
            Geometry::LineString(ls) => self.lines.push(ls.clone()),
            Geometry::MultiLineString(mls) => self.lines.extend(mls.iter().cloned()),
            Geometry::Polygon(p) => self.polygons.push(p.clone()),
            Geometry::MultiPolygon(mp) => self.polygons.extend(mp.iter().cloned()),
            Geometry::Rect(r) => self.polygons.push(r.to_polygon()),
            Geometry::Triangle(t) => self.polygons.push(t.to_polygon()),
            Geometry::GeometryCollection(gc) => gc.iter().for_each(|g| self.collect(g)),
        }
    }
}

/// Project, clip, quantize and orient one WGS84 geometry; `None` when nothing remains.
fn to_tile_geometry(
    geometry: &Geometry<f64>,
    projection: &TileProjection,
    clip: &Clip,
) -> Option<Geometry<f64>> {
    // Decide from the box first: the projection is monotonic (x east, y south), so the
    // lon/lat box maps to the pixel box, and no vertex is projected for a feature that
    // misses the tile or would quantize to nothing (under half a pixel both ways).
    if let Some(b) = geometry.bounding_rect() {
        let (nw, se) = (
            projection.project(coord! { x: b.min().x, y: b.max().y }),
            projection.project(coord! { x: b.max().x, y: b.min().y }),
        );
        let px = Rect::new(nw, se);
        if matches!(clip.relation(Some(px)), Relation::Outside) {
            return None;
        }
        let extended = !matches!(geometry, Geometry::Point(_) | Geometry::MultiPoint(_));
        if extended && px.width() < 0.5 && px.height() < 0.5 {
            return None;
        }
    }
    let mut parts = Parts::default();
    parts.collect(geometry);
    let project = |c: Coord<f64>| projection.project(c);

    if !parts.polygons.is_empty() {
        let polygons = MultiPolygon::new(parts.polygons).map_coords(project);
        if let Some(tiled) = clip_polygons(polygons, clip) {
            return Some(Geometry::MultiPolygon(tiled));
        }
    }
    if !parts.lines.is_empty() {
        let lines = MultiLineString::new(parts.lines).map_coords(project);
        if let Some(tiled) = clip_lines(lines, clip) {
            return Some(Geometry::MultiLineString(tiled));
        }
    }
    let points: Vec<Point<f64>> = parts
        .points
        .into_iter()
        .map(|p| projection.project(p.0))
        .filter(|&c| clip.contains(c))
        .map(|c| Point(quantize(c)))
        .collect();
    (!points.is_empty()).then(|| Geometry::MultiPoint(MultiPoint::new(points)))
}

fn clip_polygons(polygons_px: MultiPolygon<f64>, clip: &Clip) -> Option<MultiPolygon<f64>> {
    if !all_finite(&polygons_px) {
        return None;
    }
    let clipped = match clip.relation(polygons_px.bounding_rect()) {
        Relation::Outside => return None,
        Relation::Inside => polygons_px,
        Relation::Crossing => polygons_px
            .iter()
            .filter_map(|p| clip::clip_polygon(p, clip.rect))
            .collect(),
    };
    let tiled: Vec<Polygon<f64>> = clipped
        .into_iter()
        .filter_map(|polygon| {
            let (exterior, interiors) = polygon.into_inner();
            let exterior = quantized_ring(&exterior, RingRole::Exterior)?;
            let interiors = interiors
                .iter()
                .filter_map(|ring| quantized_ring(ring, RingRole::Interior))
                .collect();
            Some(Polygon::new(exterior, interiors))
        })
        .collect();
    (!tiled.is_empty()).then(|| MultiPolygon::new(tiled))
}

fn clip_lines(lines_px: MultiLineString<f64>, clip: &Clip) -> Option<MultiLineString<f64>> {
    if !all_finite(&lines_px) {
        return None;
    }
    let clipped = match clip.relation(lines_px.bounding_rect()) {
        Relation::Outside => return None,
        Relation::Inside => lines_px,
        Relation::Crossing => lines_px
            .iter()
            .flat_map(|l| clip::clip_line(l, clip.rect))
            .collect(),
    };
    let tiled: Vec<LineString<f64>> = clipped
        .into_iter()
        .filter_map(|line| {
            let coords = quantized_coords(&line);
            (coords.len() >= 2).then(|| LineString::new(coords))
        })
        .collect();
    (!tiled.is_empty()).then(|| MultiLineString::new(tiled))
}

/// A NaN or infinite coordinate makes the boolean operations panic: such geometries are skipped.
fn all_finite(geometry: &impl CoordsIter<Scalar = f64>) -> bool {
    geometry
        .coords_iter()
        .all(|c| c.x.is_finite() && c.y.is_finite())
}

fn quantize(c: Coord<f64>) -> Coord<f64> {
    coord! { x: c.x.round(), y: c.y.round() }
}

/// Rounded coordinates with consecutive repeats removed.
fn quantized_coords(line: &LineString<f64>) -> Vec<Coord<f64>> {
    let mut coords: Vec<Coord<f64>> = Vec::with_capacity(line.0.len());
    for c in line.coords().map(|&c| quantize(c)) {
        if coords.last() != Some(&c) {
            coords.push(c);
        }
    }
    coords
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RingRole {
    Exterior,
    Interior,
}

/// Quantize a ring and orient it for MVT (pixel y down): exterior rings get a positive
/// surveyor's-formula area, interior rings a negative one. `None` for a degenerate ring
/// (fewer than 3 distinct vertices or zero area after rounding).
fn quantized_ring(ring: &LineString<f64>, role: RingRole) -> Option<LineString<f64>> {
    let mut coords = quantized_coords(ring);
    if coords.len() > 1 && coords.first() == coords.last() {
        coords.pop();
    }
    if coords.len() < 3 {
        return None;
    }
    let doubled_area = surveyor_doubled_area(&coords);
    if doubled_area == 0.0 {
        return None;
    }
    let wants_positive = role == RingRole::Exterior;
    if (doubled_area > 0.0) != wants_positive {
        coords.reverse();
    }
    coords.push(coords[0]);
    Some(LineString::new(coords))
}

/// Twice the signed area of an open ring by the surveyor's (shoelace) formula. On integral
/// pixel coordinates the sum is exact in f64.
fn surveyor_doubled_area(open_ring: &[Coord<f64>]) -> f64 {
    let n = open_ring.len();
    (0..n)
        .map(|i| {
            let (a, b) = (open_ring[i], open_ring[(i + 1) % n]);
            a.x * b.y - b.x * a.y
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_orientation_follows_mvt_y_down() {
        // Clockwise on screen (y down) = positive surveyor area = MVT exterior.
        let screen_ccw = LineString::from(vec![(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0)]);
        let exterior = quantized_ring(&screen_ccw, RingRole::Exterior).unwrap();
        let open = &exterior.0[..exterior.0.len() - 1];
        assert!(surveyor_doubled_area(open) > 0.0);
        let interior = quantized_ring(&screen_ccw, RingRole::Interior).unwrap();
        let open = &interior.0[..interior.0.len() - 1];
        assert!(surveyor_doubled_area(open) < 0.0);
    }

    #[test]
    fn degenerate_rings_are_dropped() {
        let sliver = LineString::from(vec![(0.1, 0.1), (0.2, 0.3), (0.4, 0.2), (0.1, 0.1)]);
        assert!(quantized_ring(&sliver, RingRole::Exterior).is_none());
        let collinear = LineString::from(vec![(0.0, 0.0), (5.0, 5.0), (10.0, 10.0), (0.0, 0.0)]);
        assert!(quantized_ring(&collinear, RingRole::Exterior).is_none());
    }
}
