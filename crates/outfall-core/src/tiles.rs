//! Vector tiles (pure, synchronous): XYZ tile math on the WebMercatorQuad grid, projection of
//! WGS84 geometries to tile pixels, clipping to the tile plus a buffer, MVT ring winding,
//! quantization, and Mapbox Vector Tile (MVT 2.1) encoding through geozero.
//!
//! Pipeline for one feature in [`encode_layer`]:
//! 1. project lon/lat (degrees) to tile pixels, y axis pointing down (WebMercator, latitude
//!    clamped to ±[`MAX_LATITUDE_DEG`]; see `projection` for the latitudes);
//! 2. clip to the tile rectangle grown by the buffer (`crate::clip`): polygon rings by
//!    Sutherland–Hodgman, lines by Liang–Barsky, points by a containment filter (geometries
//!    whose bounding box is already inside the buffered tile are not clipped); features whose
//!    pixel box is under half a pixel both ways are dropped before any work;
//! 3. quantize to integer pixels, remove repeated vertices, drop lines with fewer than 2
//!    vertices and rings with zero area;
//! 4. orient rings for MVT: with y down, exterior rings have a positive surveyor's-formula
//!    area (clockwise on screen) and interior rings a negative one (MVT 2.1 §4.3.4.4);
//! 5. write the MVT geometry commands straight from the quantized ring, and the tags with
//!    geozero's `TagsBuilder`; prost encodes the tile.
//!
//! All of it runs in one pass per ring over buffers reused for the whole tile
//! (`Encoder`), and latitudes go through a per-tile polynomial instead of the trigonometry
//! (`projection`): what a cold tile costs is the vertices it draws.

pub mod cache;
mod encoder;
mod projection;
mod source;

use crate::clip;
pub use cache::{CachedTile, TileCache, TileKey};
use encoder::Encoder;
use geo::CoordsIter;
use geo_types::{coord, Coord, Geometry, LineString, Polygon, Rect};
use geozero::mvt::{tile, Message, TagsBuilder, Tile, TileValue};
use projection::lonlat_to_world;
pub use projection::TileProjection;
use serde_json::{Map, Value};
pub use source::{collection_tile, unchanged_collections, SiteProperties};
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

fn world_x_to_lon(world_x: f64) -> f64 {
    world_x * 360.0 - 180.0
}

fn world_y_to_lat(world_y: f64) -> f64 {
    (PI * (1.0 - 2.0 * world_y)).sinh().atan().to_degrees()
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
/// feature has a single geometry type). A polygon or line with a non-finite coordinate is
/// skipped.
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
    let boxless = features.into_iter().map(|(id, g, p)| (id, g, p, None));
    encode_features(tile, layer_name, extent, buffer_px, boxless)
}

/// Like [`encode_layer`], for features that come with their lon/lat envelope, as a layer's
/// R-tree holds it (the box of all the geometry's coordinates). The envelope decides whether
/// a feature misses the tile, lies inside it or crosses it, so no vertex of a feature outside
/// the tile or under half a pixel is read; PostGIS's `&&` does the same before `ST_AsMVTGeom`.
pub fn encode_indexed_layer<'a>(
    tile: TileId,
    layer_name: &str,
    features: impl IntoIterator<Item = (u64, &'a Geometry<f64>, &'a Map<String, Value>, Rect<f64>)>,
) -> Option<Vec<u8>> {
    let boxed = features
        .into_iter()
        .map(|(id, g, p, b)| (id, g, p, Some(b)));
    encode_features(tile, layer_name, EXTENT, BUFFER_PX, boxed)
}

type BoxedFeature<'a> = (
    u64,
    &'a Geometry<f64>,
    &'a Map<String, Value>,
    Option<Rect<f64>>,
);

fn encode_features<'a>(
    tile: TileId,
    layer_name: &str,
    extent: u32,
    buffer_px: u32,
    features: impl IntoIterator<Item = BoxedFeature<'a>>,
) -> Option<Vec<u8>> {
    let extent = extent.max(1);
    let buffer = f64::from(buffer_px);
    let mut encoder = Encoder {
        projection: TileProjection::new(tile, extent),
        clip: Rect::new(
            coord! { x: -buffer, y: -buffer },
            coord! { x: f64::from(extent) + buffer, y: f64::from(extent) + buffer },
        ),
        pixels: Vec::new(),
        spare: Vec::new(),
        ring: Vec::new(),
    };
    let mut tags = TagsBuilder::new();
    let mut mvt_features = Vec::new();
    for (id, geometry, properties, envelope) in features {
        let mut feature = tile::Feature {
            id: Some(id),
            ..Default::default()
        };
        let Some(kind) = encoder.encode(geometry, envelope, &mut feature.geometry) else {
            continue;
        };
        feature.set_type(kind);
        push_tags(&mut tags, &mut feature.tags, properties);
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

/// A feature's attributes as MVT tags: the one place tiles read attributes.
fn push_tags(tags: &mut TagsBuilder, out: &mut Vec<u32>, properties: &Map<String, Value>) {
    for (key, value) in properties {
        if let Some(tile_value) = json_to_tile_value(value) {
            let (key_idx, value_idx) = tags.insert_ref(key, tile_value);
            out.push(key_idx);
            out.push(value_idx);
        }
    }
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Relation {
    Outside,
    Inside,
    Crossing,
}

fn relation(clip: &Rect<f64>, bbox: &Rect<f64>) -> Relation {
    let (clip_min, clip_max) = (clip.min(), clip.max());
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

/// Which kinds of part a geometry has (collections flattened; rects and triangles are
/// polygons). Read from the structure alone, no vertex.
#[derive(Default)]
struct Kinds {
    polygons: bool,
    lines: bool,
    points: bool,
}

impl Kinds {
    fn of(geometry: &Geometry<f64>) -> Kinds {
        let mut kinds = Kinds::default();
        kinds.visit(geometry);
        kinds
    }

    fn visit(&mut self, geometry: &Geometry<f64>) {
        match geometry {
            Geometry::Point(_) | Geometry::MultiPoint(_) => self.points = true,
            Geometry::Line(_) | Geometry::LineString(_) | Geometry::MultiLineString(_) => {
                self.lines = true
            }
            Geometry::Polygon(_)
            | Geometry::MultiPolygon(_)
            | Geometry::Rect(_)
            | Geometry::Triangle(_) => self.polygons = true,
            Geometry::GeometryCollection(gc) => gc.iter().for_each(|g| self.visit(g)),
        }
    }
}

/// The lon/lat box of a geometry's finite coordinates; `None` when it has none.
fn finite_bbox(geometry: &Geometry<f64>) -> Option<Rect<f64>> {
    let mut lo = coord! { x: f64::INFINITY, y: f64::INFINITY };
    let mut hi = coord! { x: f64::NEG_INFINITY, y: f64::NEG_INFINITY };
    for c in geometry.coords_iter() {
        if c.x.is_finite() && c.y.is_finite() {
            lo = coord! { x: lo.x.min(c.x), y: lo.y.min(c.y) };
            hi = coord! { x: hi.x.max(c.x), y: hi.y.max(c.y) };
        }
    }
    (lo.x <= hi.x).then(|| Rect::new(lo, hi))
}

/// Calls `f` on every polygon of a geometry (collections flattened, rects and triangles
/// as polygons).
fn for_each_polygon(geometry: &Geometry<f64>, f: &mut impl FnMut(&Polygon<f64>)) {
    match geometry {
        Geometry::Polygon(p) => f(p),
        Geometry::MultiPolygon(mp) => mp.iter().for_each(f),
        Geometry::Rect(r) => f(&r.to_polygon()),
        Geometry::Triangle(t) => f(&t.to_polygon()),
        Geometry::GeometryCollection(gc) => gc.iter().for_each(|g| for_each_polygon(g, f)),
        _ => {}
    }
}

/// Calls `f` on every line of a geometry (collections flattened).
fn for_each_line(geometry: &Geometry<f64>, f: &mut impl FnMut(&[Coord<f64>])) {
    match geometry {
        Geometry::Line(l) => f(&[l.start, l.end]),
        Geometry::LineString(ls) => f(&ls.0),
        Geometry::MultiLineString(mls) => mls.iter().for_each(|l| f(&l.0)),
        Geometry::GeometryCollection(gc) => gc.iter().for_each(|g| for_each_line(g, f)),
        _ => {}
    }
}

/// Calls `f` on every point of a geometry (collections flattened).
fn for_each_point(geometry: &Geometry<f64>, f: &mut impl FnMut(Coord<f64>)) {
    match geometry {
        Geometry::Point(p) => f(p.0),
        Geometry::MultiPoint(mp) => mp.iter().for_each(|p| f(p.0)),
        Geometry::GeometryCollection(gc) => gc.iter().for_each(|g| for_each_point(g, f)),
        _ => {}
    }
}
