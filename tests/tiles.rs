//! Vector tiles: tile math, clipping, MVT ring winding and encoding, checked by decoding the
//! produced bytes with geozero's prost types.

use geo_types::{coord, Geometry, LineString, MultiPolygon, Point, Polygon, Rect};
use geozero::mvt::{tile, Message, Tile};
use outfall_core::tiles::{
    encode_indexed_layer, encode_layer, TileId, BUFFER_PX, EXTENT, MAX_LATITUDE_DEG,
};
use serde_json::{json, Map, Value};

const SYRACUSE_LONLAT: (f64, f64) = (-76.15, 43.05);

fn syracuse_tile() -> TileId {
    TileId::from_lonlat(SYRACUSE_LONLAT.0, SYRACUSE_LONLAT.1, 14).expect("tile at z14")
}

fn props(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// Linear interpolation inside the tile's lon/lat bounds: (0, 0) = north-west corner,
/// (1, 1) = south-east corner. Fractions outside 0..1 reach past the tile.
fn lonlat_in(bounds: Rect<f64>, fx: f64, fy: f64) -> (f64, f64) {
    let (min, max) = (bounds.min(), bounds.max());
    (min.x + fx * (max.x - min.x), max.y - fy * (max.y - min.y))
}

fn square(bounds: Rect<f64>, fx0: f64, fy0: f64, fx1: f64, fy1: f64) -> Polygon<f64> {
    let ring: Vec<(f64, f64)> = vec![
        lonlat_in(bounds, fx0, fy0),
        lonlat_in(bounds, fx0, fy1),
        lonlat_in(bounds, fx1, fy1),
        lonlat_in(bounds, fx1, fy0),
        lonlat_in(bounds, fx0, fy0),
    ];
    Polygon::new(LineString::from(ring), vec![])
}

fn decode(bytes: &[u8]) -> tile::Layer {
    let mut tile = Tile::decode(bytes).expect("valid MVT protobuf");
    assert_eq!(tile.layers.len(), 1);
    tile.layers.remove(0)
}

/// One decoded geometry: MoveTo/LineTo runs as absolute tile coordinates, with whether each
/// run was closed by ClosePath.
#[derive(Debug)]
struct Path {
    coords: Vec<(i64, i64)>,
    closed: bool,
}

fn decode_commands(geometry: &[u32]) -> Vec<Path> {
    fn zigzag(p: u32) -> i64 {
        i64::from(p >> 1) ^ -i64::from(p & 1)
    }
    let mut paths: Vec<Path> = Vec::new();
    let (mut x, mut y) = (0i64, 0i64);
    let mut i = 0;
    while i < geometry.len() {
        let (id, count) = (geometry[i] & 7, geometry[i] >> 3);
        i += 1;
        match id {
            1 | 2 => {
                for _ in 0..count {
                    x += zigzag(geometry[i]);
                    y += zigzag(geometry[i + 1]);
                    i += 2;
                    if id == 1 {
                        paths.push(Path {
                            coords: vec![],
                            closed: false,
                        });
                    }
                    paths.last_mut().expect("MoveTo first").coords.push((x, y));
                }
            }
            7 => paths.last_mut().expect("MoveTo first").closed = true,
            other => panic!("unknown command {other}"),
        }
    }
    paths
}

/// Twice the surveyor's-formula area in tile coordinates (y down). MVT 2.1 §4.3.4.4: exterior
/// rings are positive (clockwise on screen), interior rings negative.
fn doubled_area(ring: &[(i64, i64)]) -> i64 {
    (0..ring.len())
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum()
}

fn tag_map(layer: &tile::Layer, feature: &tile::Feature) -> Map<String, Value> {
    feature
        .tags
        .chunks(2)
        .map(|kv| {
            let key = layer.keys[kv[0] as usize].clone();
            let v = &layer.values[kv[1] as usize];
            let value = if let Some(s) = &v.string_value {
                json!(s)
            } else if let Some(b) = v.bool_value {
                json!(b)
            } else if let Some(u) = v.uint_value {
                json!(u)
            } else if let Some(i) = v.sint_value.or(v.int_value) {
                json!(i)
            } else if let Some(d) = v.double_value {
                json!(d)
            } else if let Some(f) = v.float_value {
                json!(f)
            } else {
                panic!("empty value")
            };
            (key, value)
        })
        .collect()
}

fn assert_within_buffer(paths: &[Path]) {
    let (lo, hi) = (-i64::from(BUFFER_PX), i64::from(EXTENT + BUFFER_PX));
    for path in paths {
        for &(x, y) in &path.coords {
            assert!(
                (lo..=hi).contains(&x) && (lo..=hi).contains(&y),
                "({x}, {y}) outside the buffered tile"
            );
        }
    }
}

#[test]
fn z0_covers_the_world() {
    let world = TileId::new(0, 0, 0).unwrap().bounds_lonlat();
    assert!((world.min().x + 180.0).abs() < 1e-9);
    assert!((world.max().x - 180.0).abs() < 1e-9);
    assert!((world.min().y + MAX_LATITUDE_DEG).abs() < 1e-9);
    assert!((world.max().y - MAX_LATITUDE_DEG).abs() < 1e-9);
    assert_eq!(TileId::from_lonlat(0.0, 0.0, 0), TileId::new(0, 0, 0));
    assert_eq!(TileId::from_lonlat(179.9, -89.0, 0), TileId::new(0, 0, 0));
}

#[test]
fn syracuse_tile_round_trips() {
    let tile = syracuse_tile();
    // Independently computed: x = 4726.33, y = 6017.18 tiles at z14.
    assert_eq!(
        tile,
        TileId {
            z: 14,
            x: 4726,
            y: 6017
        }
    );
    assert_eq!(TileId::new(14, 4726, 6017), Some(tile));
    assert_eq!(tile.to_string(), "14/4726/6017");

    let bounds = tile.bounds_lonlat();
    let (lon, lat) = SYRACUSE_LONLAT;
    assert!(bounds.min().x <= lon && lon < bounds.max().x);
    assert!(bounds.min().y < lat && lat <= bounds.max().y);
    // Tile at z14 is 360/16384 degrees wide.
    assert!((bounds.width() - 360.0 / 16384.0).abs() < 1e-12);
    let center = bounds.center();
    assert_eq!(TileId::from_lonlat(center.x, center.y, 14), Some(tile));

    // Neighbours share edges; y grows southwards.
    let east = TileId::new(14, 4727, 6017).unwrap().bounds_lonlat();
    let south = TileId::new(14, 4726, 6018).unwrap().bounds_lonlat();
    assert!((east.min().x - bounds.max().x).abs() < 1e-12);
    assert!((south.max().y - bounds.min().y).abs() < 1e-12);

    // The buffered bounds grow by BUFFER_PX / EXTENT of a tile on each side.
    let buffered = tile.bounds_with_buffer_lonlat(BUFFER_PX, EXTENT);
    let growth = f64::from(EXTENT + 2 * BUFFER_PX) / f64::from(EXTENT);
    assert!((buffered.width() - bounds.width() * growth).abs() < 1e-12);
    assert!(buffered.min().y < bounds.min().y && buffered.max().y > bounds.max().y);
    assert_eq!(tile.bounds_with_buffer_lonlat(0, EXTENT), bounds);
}

#[test]
fn out_of_range_ids_are_rejected() {
    assert_eq!(TileId::new(0, 1, 0), None);
    assert_eq!(TileId::new(0, 0, 1), None);
    assert_eq!(TileId::new(14, 16384, 0), None);
    assert_eq!(TileId::new(14, 0, 16384), None);
    assert_eq!(TileId::new(25, 0, 0), None);
    assert!(TileId::new(14, 16383, 16383).is_some());
    assert!(TileId::new(24, (1 << 24) - 1, (1 << 24) - 1).is_some());
    assert_eq!(TileId::from_lonlat(f64::NAN, 0.0, 3), None);
    assert_eq!(TileId::from_lonlat(181.0, 0.0, 3), None);
    assert_eq!(TileId::from_lonlat(0.0, 0.0, 25), None);
}

#[test]
fn layer_name_extent_features_and_tags() {
    let tile = syracuse_tile();
    let b = tile.bounds_lonlat();
    let site = Geometry::Polygon(square(b, 0.2, 0.2, 0.4, 0.4));
    let (lon, lat) = lonlat_in(b, 0.5, 0.5);
    let outfall_point = Geometry::Point(Point::new(lon, lat));
    let site_props = props(json!({
        "id": "S01", "acres": 2.5, "parcels": 3, "offset": -2, "active": true,
        "note": null, "list": [1, 2], "nested": {"a": 1}
    }));
    let outfall_props = props(json!({"id": "O1", "active": false}));

    let bytes = encode_layer(
        tile,
        "sites",
        [(7, &site, &site_props), (8, &outfall_point, &outfall_props)],
    )
    .expect("features in the tile");
    let layer = decode(&bytes);
    assert_eq!(layer.name, "sites");
    assert_eq!(layer.version, 2);
    assert_eq!(layer.extent, Some(EXTENT));
    assert_eq!(layer.features.len(), 2);

    let polygon = &layer.features[0];
    assert_eq!(polygon.id, Some(7));
    assert_eq!(polygon.r#type(), tile::GeomType::Polygon);
    assert_eq!(
        tag_map(&layer, polygon),
        props(json!({"id": "S01", "acres": 2.5, "parcels": 3, "offset": -2, "active": true}))
    );

    let point = &layer.features[1];
    assert_eq!(point.id, Some(8));
    assert_eq!(point.r#type(), tile::GeomType::Point);
    assert_eq!(tag_map(&layer, point), outfall_props);
    // Keys are shared across features: "id" and "active" appear once.
    assert_eq!(layer.keys.iter().filter(|k| *k == "id").count(), 1);
    assert_eq!(layer.keys.iter().filter(|k| *k == "active").count(), 1);
}

#[test]
fn tile_corners_map_to_tile_pixels() {
    let tile = syracuse_tile();
    let b = tile.bounds_lonlat();
    let nw = Geometry::Point(Point::new(b.min().x, b.max().y));
    let se = Geometry::Point(Point::new(b.max().x, b.min().y));
    let empty = Map::new();
    let layer = decode(&encode_layer(tile, "p", [(1, &nw, &empty), (2, &se, &empty)]).unwrap());
    let nw_px = decode_commands(&layer.features[0].geometry);
    let se_px = decode_commands(&layer.features[1].geometry);
    assert_eq!(nw_px[0].coords, vec![(0, 0)]);
    let e = i64::from(EXTENT);
    assert_eq!(se_px[0].coords, vec![(e, e)]);
}

#[test]
fn polygon_crossing_the_tile_edge_is_clipped() {
    let tile = syracuse_tile();
    let b = tile.bounds_lonlat();
    // Reaches 3 tiles west and 2 tiles north of the tile.
    let polygon = Geometry::Polygon(square(b, -3.0, -2.0, 0.5, 0.5));
    let empty = Map::new();
    let layer = decode(&encode_layer(tile, "parcels", [(1, &polygon, &empty)]).unwrap());
    assert_eq!(layer.features.len(), 1);
    let paths = decode_commands(&layer.features[0].geometry);
    assert_eq!(paths.len(), 1);
    assert!(paths[0].closed);
    assert_within_buffer(&paths);
    let xs: Vec<i64> = paths[0].coords.iter().map(|c| c.0).collect();
    let ys: Vec<i64> = paths[0].coords.iter().map(|c| c.1).collect();
    // Clipped exactly at the buffer line on the west and north, untouched inside.
    assert_eq!(xs.iter().min(), Some(&-i64::from(BUFFER_PX)));
    assert_eq!(ys.iter().min(), Some(&-i64::from(BUFFER_PX)));
    let half = i64::from(EXTENT / 2);
    assert!((xs.iter().max().unwrap() - half).abs() <= 1);
    assert!((ys.iter().max().unwrap() - half).abs() <= 1);
    assert!(doubled_area(&paths[0].coords) > 0);
}

#[test]
fn exterior_rings_are_positive_and_holes_negative_in_tile_coordinates() {
    let tile = syracuse_tile();
    let b = tile.bounds_lonlat();
    let empty = Map::new();
    let outer = square(b, 0.1, 0.1, 0.9, 0.9).exterior().clone();
    let hole = square(b, 0.4, 0.4, 0.6, 0.6).exterior().clone();
    let reversed = |ls: &LineString<f64>| LineString::new(ls.0.iter().rev().copied().collect());
    // Both winding conventions on input (GeoJSON RFC 7946 and shapefile) give the same output,
    // and so does a polygon crossing the tile edge (which goes through the boolean clip).
    let inputs = [
        Polygon::new(outer.clone(), vec![hole.clone()]),
        Polygon::new(reversed(&outer), vec![reversed(&hole)]),
        Polygon::new(outer.clone(), vec![reversed(&hole)]),
        {
            let big = square(b, -0.5, 0.1, 0.9, 0.9).exterior().clone();
            Polygon::new(big, vec![hole.clone()])
        },
    ];
    let geometries: Vec<Geometry<f64>> = inputs.into_iter().map(Geometry::Polygon).collect();
    let bytes = encode_layer(
        tile,
        "waterbodies",
        geometries
            .iter()
            .enumerate()
            .map(|(i, g)| (i as u64, g, &empty)),
    )
    .unwrap();
    let layer = decode(&bytes);
    assert_eq!(layer.features.len(), 4);
    for feature in layer.features.iter() {
        let rings = decode_commands(&feature.geometry);
        assert_eq!(
            rings.len(),
            2,
            "exterior + hole for feature {:?}",
            feature.id
        );
        assert!(rings.iter().all(|r| r.closed));
        assert!(
            doubled_area(&rings[0].coords) > 0,
            "exterior must be positive"
        );
        assert!(doubled_area(&rings[1].coords) < 0, "hole must be negative");
        assert_within_buffer(&rings);
    }
}

#[test]
fn feature_fully_outside_gives_none() {
    let tile = syracuse_tile();
    let b = tile.bounds_lonlat();
    let empty = Map::new();
    // Entirely east of the tile, beyond the buffer (one tile = 4096 px; 0.2 tile >> 64 px).
    let polygon = Geometry::Polygon(square(b, 1.2, 0.2, 1.6, 0.6));
    let line = Geometry::LineString(LineString::from(vec![
        lonlat_in(b, -0.5, -0.5),
        lonlat_in(b, -0.1, -0.5),
    ]));
    let (lon, lat) = lonlat_in(b, 0.5, 1.3);
    let point = Geometry::Point(Point::new(lon, lat));
    assert_eq!(encode_layer(tile, "x", [(1, &polygon, &empty)]), None);
    assert_eq!(encode_layer(tile, "x", [(2, &line, &empty)]), None);
    assert_eq!(encode_layer(tile, "x", [(3, &point, &empty)]), None);
    assert_eq!(encode_layer(tile, "x", std::iter::empty()), None);
    // A feature smaller than a pixel disappears too.
    let (lon, lat) = lonlat_in(b, 0.5, 0.5);
    let speck = Geometry::Polygon(Polygon::new(
        LineString::from(vec![
            (lon, lat),
            (lon + 1e-8, lat),
            (lon + 1e-8, lat + 1e-8),
            (lon, lat),
        ]),
        vec![],
    ));
    assert_eq!(encode_layer(tile, "x", [(4, &speck, &empty)]), None);
    // A broken geometry (NaN coordinate) is skipped, not a panic.
    let mut broken = square(b, -0.5, 0.2, 0.5, 0.6);
    broken.exterior_mut(|ring| ring.0[1].x = f64::NAN);
    let broken = Geometry::Polygon(broken);
    assert_eq!(encode_layer(tile, "x", [(5, &broken, &empty)]), None);
}

/// A polygon with a broken ring (a NaN in its hole) is left out whole, never drawn without
/// the hole; the good polygons beside it in the same multipolygon are drawn, and the box
/// the index gives changes none of it.
#[test]
fn a_polygon_with_a_broken_hole_is_left_out_and_its_neighbours_kept() {
    let tile = syracuse_tile();
    let b = tile.bounds_lonlat();
    let empty = Map::new();
    let mut holed = Polygon::new(
        square(b, 0.1, 0.1, 0.4, 0.4).exterior().clone(),
        vec![square(b, 0.2, 0.2, 0.3, 0.3).exterior().clone()],
    );
    holed.interiors_mut(|holes| holes[0].0[2].y = f64::NAN);
    let good = square(b, 0.6, 0.6, 0.9, 0.9);
    let both = Geometry::MultiPolygon(MultiPolygon::new(vec![holed, good]));
    let envelope = Rect::new(
        coord! { x: lonlat_in(b, 0.1, 0.0).0, y: lonlat_in(b, 0.0, 0.9).1 },
        coord! { x: lonlat_in(b, 0.9, 0.0).0, y: lonlat_in(b, 0.0, 0.1).1 },
    );
    let scanned = encode_layer(tile, "x", [(1, &both, &empty)]).unwrap();
    let indexed = encode_indexed_layer(tile, "x", [(1, &both, &empty, envelope)]).unwrap();
    assert_eq!(scanned, indexed);
    let layer = decode(&scanned);
    let rings = decode_commands(&layer.features[0].geometry);
    assert_eq!(rings.len(), 1, "only the good polygon: {rings:?}");
    // The good square spans 0.6..0.9 of the tile: 2458..3686 pixels.
    let xs: Vec<i64> = rings[0].coords.iter().map(|c| c.0).collect();
    assert!(xs.iter().all(|&x| (2456..=3687).contains(&x)), "{xs:?}");
}

#[test]
fn linestring_crossing_the_tile_is_clipped() {
    let tile = syracuse_tile();
    let b = tile.bounds_lonlat();
    let empty = Map::new();
    // West to east straight through the tile, from 2 tiles west to 2 tiles east.
    let line = Geometry::LineString(LineString::from(vec![
        lonlat_in(b, -2.0, 0.25),
        lonlat_in(b, 0.5, 0.25),
        lonlat_in(b, 3.0, 0.75),
    ]));
    let layer = decode(&encode_layer(tile, "flowlines", [(11, &line, &empty)]).unwrap());
    assert_eq!(layer.features.len(), 1);
    let feature = &layer.features[0];
    assert_eq!(feature.r#type(), tile::GeomType::Linestring);
    let paths = decode_commands(&feature.geometry);
    assert_eq!(paths.len(), 1);
    assert!(!paths[0].closed);
    assert_within_buffer(&paths);
    let xs: Vec<i64> = paths[0].coords.iter().map(|c| c.0).collect();
    assert_eq!(xs.iter().min(), Some(&-i64::from(BUFFER_PX)));
    assert_eq!(xs.iter().max(), Some(&i64::from(EXTENT + BUFFER_PX)));
    // Digitized direction (flow direction for flowlines) is kept: west end first.
    assert_eq!(paths[0].coords.first().unwrap().0, -i64::from(BUFFER_PX));
    assert_eq!(
        paths[0].coords.last().unwrap().0,
        i64::from(EXTENT + BUFFER_PX)
    );
    let mut reversed = line.clone();
    if let Geometry::LineString(ls) = &mut reversed {
        ls.0.reverse();
    }
    let layer = decode(&encode_layer(tile, "flowlines", [(12, &reversed, &empty)]).unwrap());
    let back = decode_commands(&layer.features[0].geometry);
    assert_eq!(
        back[0].coords.first().unwrap().0,
        i64::from(EXTENT + BUFFER_PX)
    );
    assert_eq!(back[0].coords.last().unwrap().0, -i64::from(BUFFER_PX));
    // The interior vertex survives.
    let mid = (i64::from(EXTENT / 2), i64::from(EXTENT / 4));
    assert!(paths[0]
        .coords
        .iter()
        .any(|c| (c.0 - mid.0).abs() <= 1 && (c.1 - mid.1).abs() <= 1));
}

/// 40 x 25 = 1,000 square parcels laid out inside the tile, at least 100 px from its edges.
fn parcel_grid(tile: TileId) -> Vec<(u64, Geometry<f64>, Map<String, Value>)> {
    let b = tile.bounds_lonlat();
    let (cols, rows) = (40u32, 25u32);
    let margin = 100.0 / f64::from(EXTENT);
    let cell_w = (1.0 - 2.0 * margin) / f64::from(cols);
    let cell_h = (1.0 - 2.0 * margin) / f64::from(rows);
    let mut features = Vec::new();
    for row in 0..rows {
        for col in 0..cols {
            let fx = margin + f64::from(col) * cell_w;
            let fy = margin + f64::from(row) * cell_h;
            let polygon = square(b, fx, fy, fx + 0.8 * cell_w, fy + 0.8 * cell_h);
            let id = u64::from(row * cols + col);
            let p = props(json!({"id": format!("P{id:04}"), "class": "210", "acres": 0.25}));
            features.push((id, Geometry::Polygon(polygon), p));
        }
    }
    features
}

#[test]
fn thousand_polygon_layer_encodes_at_z14() {
    let tile = syracuse_tile();
    let grid = parcel_grid(tile);
    assert_eq!(grid.len(), 1000);
    // Its speed is measured by `cargo bench -- tiles` (benches/check.rs), not here.
    let bytes = encode_layer(tile, "parcels", grid.iter().map(|(id, g, p)| (*id, g, p)))
        .expect("1,000 parcels");
    let layer = decode(&bytes);
    assert_eq!(layer.features.len(), 1000);
    let mut ids: Vec<u64> = layer.features.iter().map(|f| f.id.unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..1000).collect::<Vec<u64>>());
    for feature in layer.features.iter() {
        let rings = decode_commands(&feature.geometry);
        assert_eq!(rings.len(), 1);
        assert_eq!(rings[0].coords.len(), 4);
        assert!(doubled_area(&rings[0].coords) > 0);
    }
    // The grid keeps 100 px from the edges: the east neighbour (64 px buffer) gets nothing.
    let east = TileId::new(tile.z, tile.x + 1, tile.y).unwrap();
    assert_eq!(
        encode_layer(east, "parcels", grid.iter().map(|(id, g, p)| (*id, g, p))),
        None
    );
}

#[test]
fn geometry_collection_keeps_its_polygons() {
    let tile = syracuse_tile();
    let b = tile.bounds_lonlat();
    let empty = Map::new();
    let (lon, lat) = lonlat_in(b, 0.5, 0.5);
    let gc = Geometry::GeometryCollection(geo_types::GeometryCollection::new_from(vec![
        Geometry::Point(Point::new(lon, lat)),
        Geometry::Polygon(square(b, 0.1, 0.1, 0.2, 0.2)),
        Geometry::Rect(Rect::new(
            coord! { x: lonlat_in(b, 0.3, 0.3).0, y: lonlat_in(b, 0.3, 0.3).1 },
            coord! { x: lonlat_in(b, 0.4, 0.4).0, y: lonlat_in(b, 0.4, 0.4).1 },
        )),
    ]));
    let layer = decode(&encode_layer(tile, "mixed", [(1, &gc, &empty)]).unwrap());
    assert_eq!(layer.features[0].r#type(), tile::GeomType::Polygon);
    let rings = decode_commands(&layer.features[0].geometry);
    assert_eq!(rings.len(), 2);
    assert!(rings.iter().all(|r| doubled_area(&r.coords) > 0));
}
