//! Layers large enough that their features are converted on several threads still load in
//! file order, each geometry with its own attributes, and refused features are named in order
//! with the same reasons as a one-thread load gives.

mod common;

use outfall_core::{Catalog, Role};

const COLS: usize = 100;
const ROWS: usize = 60;

/// A 50 m square parcel at grid cell `i`, in UTM zone 18N near Clay, NY.
fn square_utm(i: usize) -> Vec<[f64; 2]> {
    let (x, y) = (
        405_000.0 + 60.0 * (i % COLS) as f64,
        4_779_000.0 + 60.0 * (i / COLS) as f64,
    );
    vec![
        [x, y],
        [x + 50.0, y],
        [x + 50.0, y + 50.0],
        [x, y + 50.0],
        [x, y],
    ]
}

fn centre(layer: &outfall_core::layer::Layer, k: usize) -> (f64, f64) {
    let r = geo::BoundingRect::bounding_rect(&layer.features[k].geometry).expect("a box");
    (r.center().x, r.center().y)
}

/// Each feature's geometry is its own cell's: along a row, east of the one before; a new
/// row, north of the start of the row below (UTM grid north is not true north here, so a
/// row's last cell is not compared with the next row's first).
fn assert_geometry_follows_id(layer: &outfall_core::layer::Layer) {
    let cell = |k: usize| -> usize { layer.features[k].id[1..].parse().expect("P<n> id") };
    let mut row_start = 0;
    for k in 1..layer.features.len() {
        let (a, b) = (cell(k - 1), cell(k));
        let ((xa, ya), (xb, yb)) = (centre(layer, k - 1), centre(layer, k));
        if a / COLS == b / COLS {
            assert!(xb > xa && (yb - ya).abs() < 1e-4, "P{a} then P{b}");
        } else {
            let (_, y0) = centre(layer, row_start);
            // 60 m is about 0.00054° of latitude.
            assert!(yb > y0 + 0.0003, "P{} then P{b}", cell(row_start));
            row_start = k;
        }
    }
}

#[test]
fn a_large_projected_geojson_loads_in_order_with_refusals_named_in_order() {
    let bad = [1_500, 3_001, 4_500];
    let features: Vec<serde_json::Value> = (0..COLS * ROWS)
        .map(|i| {
            let geometry = match i {
                1_500 | 4_500 => serde_json::Value::Null,
                // An unclosed ring.
                3_001 => serde_json::json!({"type": "Polygon", "coordinates": [square_utm(i)[..4].to_vec()]}),
                _ => serde_json::json!({"type": "Polygon", "coordinates": [square_utm(i)]}),
            };
            serde_json::json!({"type": "Feature", "properties": {"PID": format!("P{i}")}, "geometry": geometry})
        })
        .collect();
    let text = serde_json::json!({"type": "FeatureCollection", "features": features}).to_string();
    let dir = common::dataset(
        "[[layer]]\nrole = \"parcels\"\npath = \"parcels.geojson\"\nid_field = \"PID\"\ncrs = \"EPSG:32618\"\n",
        &[("parcels.geojson", text.as_bytes())],
    );
    let cat = Catalog::open(dir.path()).expect("3 refusals of 6,000 are allowed");
    let layer = cat.layer(Role::Parcels).expect("parcels");
    let want: Vec<String> = (0..COLS * ROWS)
        .filter(|i| !bad.contains(i))
        .map(|i| format!("P{i}"))
        .collect();
    let got: Vec<&str> = layer.features.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(got, want);
    assert_geometry_follows_id(layer);
    let problems: Vec<(&str, &str)> = layer
        .problems
        .iter()
        .map(|p| (p.feature.as_str(), p.reason.as_str()))
        .collect();
    assert_eq!(
        problems,
        [
            ("P1500", "no geometry (null)"),
            (
                "P3001",
                "polygon ring 0 is not closed (a ring needs 4+ positions, first == last; it has 4)"
            ),
            ("P4500", "no geometry (null)"),
        ]
    );
    // Reprojected, not left in metres: Clay is near 76.2° W, 43.2° N.
    let (lon, lat) = centre(layer, 0);
    assert!(
        (-76.3..-76.0).contains(&lon) && (43.1..43.3).contains(&lat),
        "{lon},{lat}"
    );
}

#[test]
fn a_large_shapefile_loads_in_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let polys: Vec<(String, geo_types::Polygon<f64>)> = (0..COLS * ROWS)
        .map(|i| {
            let ring: Vec<(f64, f64)> = square_utm(i).iter().map(|c| (c[0], c[1])).collect();
            (
                format!("P{i}"),
                geo_types::Polygon::new(ring.into(), vec![]),
            )
        })
        .collect();
    common::write_shp(&dir.path().join("parcels.shp"), &polys, None);
    std::fs::write(
        dir.path().join("outfall.toml"),
        "[[layer]]\nrole = \"parcels\"\npath = \"parcels.shp\"\nid_field = \"ID\"\ncrs = \"EPSG:32618\"\n",
    )
    .expect("manifest");
    let cat = Catalog::open(dir.path()).expect("loads");
    let layer = cat.layer(Role::Parcels).expect("parcels");
    assert_eq!(layer.features.len(), COLS * ROWS);
    assert!(layer.problems.is_empty());
    for (k, f) in layer.features.iter().enumerate() {
        assert_eq!(f.id, format!("P{k}"));
    }
    assert_geometry_follows_id(layer);
}
