//! Bad input gets a clear error naming the file and the feature, never a panic, and one bad
//! feature does not stop the rest from loading.

mod common;

use common::{dataset, write_shp};
use geo_types::polygon;
use outfall_core::{Catalog, Error};

fn square(x: f64) -> geo_types::Polygon<f64> {
    polygon![(x: x, y: 43.0), (x: x + 0.001, y: 43.0), (x: x + 0.001, y: 43.001), (x: x, y: 43.001)]
}

fn parcels_manifest(path: &str, extra: &str) -> String {
    format!("[[layer]]\nrole = \"parcels\"\npath = \"{path}\"\nid_field = \"ID\"\n{extra}\n")
}

fn open_err(dir: &tempfile::TempDir) -> String {
    match Catalog::open(dir.path()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn manifest_pointing_at_no_file() {
    let dir = dataset(&parcels_manifest("nowhere.geojson", ""), &[]);
    let msg = open_err(&dir);
    assert!(
        msg.contains("nowhere.geojson") && msg.contains("not found"),
        "{msg}"
    );
}

#[test]
fn manifest_with_unknown_role_or_key_is_rejected_with_the_file() {
    let dir = dataset(
        "[[layer]]\nrole = \"rivers\"\npath = \"x.geojson\"\nid_field = \"ID\"\n",
        &[],
    );
    let msg = open_err(&dir);
    assert!(
        msg.contains("outfall.toml") && msg.contains("rivers"),
        "{msg}"
    );
}

#[test]
fn empty_feature_collection() {
    let dir = dataset(
        &parcels_manifest("p.geojson", ""),
        &[(
            "p.geojson",
            br#"{"type":"FeatureCollection","features":[]}"#,
        )],
    );
    let msg = open_err(&dir);
    assert!(
        msg.contains("p.geojson") && msg.contains("no features"),
        "{msg}"
    );
}

#[test]
fn self_intersecting_polygon_is_reported_and_the_rest_load() {
    let gj = r#"{"type":"FeatureCollection","features":[
      {"type":"Feature","properties":{"ID":"good"},"geometry":{"type":"Polygon","coordinates":[[[-76.2,43.1],[-76.199,43.1],[-76.199,43.101],[-76.2,43.101],[-76.2,43.1]]]}},
      {"type":"Feature","properties":{"ID":"bowtie"},"geometry":{"type":"Polygon","coordinates":[[[-76.2,43.1],[-76.199,43.101],[-76.199,43.1],[-76.2,43.101],[-76.2,43.1]]]}},
      {"type":"Feature","properties":{"ID":"open"},"geometry":{"type":"Polygon","coordinates":[[[-76.2,43.1],[-76.199,43.1],[-76.199,43.101]]]}},
      {"type":"Feature","properties":{"ID":"nothing"},"geometry":null}
    ]}"#;
    // Three of four refused is far over the default max_rejected_share (5%): allow it here.
    let dir = dataset(
        &parcels_manifest("p.geojson", "max_rejected_share = 1.0"),
        &[("p.geojson", gj.as_bytes())],
    );
    let cat = Catalog::open(dir.path()).expect("the good feature loads");
    let layer = cat.layer(outfall_core::Role::Parcels).expect("parcels");
    assert_eq!(layer.features.len(), 1);
    assert_eq!(layer.features[0].id, "good");
    let probs: Vec<String> = layer
        .problems
        .iter()
        .map(|p| format!("{} {} {}", p.path, p.feature, p.reason))
        .collect();
    assert_eq!(probs.len(), 3, "{probs:?}");
    assert!(
        probs[0].contains("p.geojson bowtie") && probs[0].contains("invalid polygon"),
        "{}",
        probs[0]
    );
    assert!(
        probs[1].contains("open") && probs[1].contains("not closed"),
        "{}",
        probs[1]
    );
    assert!(
        probs[2].contains("nothing") && probs[2].contains("no geometry"),
        "{}",
        probs[2]
    );
}

#[test]
fn nan_coordinates_in_a_shapefile_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut bad = square(-76.2);
    bad.exterior_mut(|r| r.0[1].x = f64::NAN);
    write_shp(
        &dir.path().join("p.shp"),
        &[("ok".into(), square(-76.3)), ("nan".into(), bad)],
        None,
    );
    std::fs::write(
        dir.path().join("outfall.toml"),
        parcels_manifest("p.shp", "crs = \"EPSG:4326\"\nmax_rejected_share = 0.5"),
    )
    .unwrap();
    let cat = Catalog::open(dir.path()).expect("loads the good one");
    let layer = cat.layer(outfall_core::Role::Parcels).unwrap();
    assert_eq!(layer.features.len(), 1);
    let p = &layer.problems[0];
    assert_eq!(p.feature, "nan");
    assert!(p.reason.contains("non-finite"), "{}", p.reason);
}

#[test]
fn nan_in_geojson_text_is_a_parse_error_naming_the_file() {
    let gj = r#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"ID":"x"},"geometry":{"type":"Point","coordinates":[NaN, 43.0]}}]}"#;
    let dir = dataset(
        &parcels_manifest("p.geojson", ""),
        &[("p.geojson", gj.as_bytes())],
    );
    let msg = open_err(&dir);
    assert!(
        msg.contains("p.geojson") && msg.contains("not valid GeoJSON"),
        "{msg}"
    );
}

#[test]
fn shapefile_without_prj_or_crs_override() {
    let dir = tempfile::tempdir().unwrap();
    write_shp(
        &dir.path().join("p.shp"),
        &[("a".into(), square(-76.2))],
        None,
    );
    std::fs::write(
        dir.path().join("outfall.toml"),
        parcels_manifest("p.shp", ""),
    )
    .unwrap();
    match Catalog::open(dir.path()) {
        Err(e @ Error::MissingCrs { .. }) => {
            let m = e.to_string();
            assert!(m.contains("p.shp") && m.contains(".prj"), "{m}");
        }
        other => panic!("expected MissingCrs, got {other:?}"),
    }
}

#[test]
fn shapefile_missing_its_dbf() {
    let dir = tempfile::tempdir().unwrap();
    write_shp(
        &dir.path().join("p.shp"),
        &[("a".into(), square(-76.2))],
        Some("GEOGCS[\"WGS 84\"]"),
    );
    std::fs::remove_file(dir.path().join("p.dbf")).unwrap();
    std::fs::write(
        dir.path().join("outfall.toml"),
        parcels_manifest("p.shp", "crs = \"EPSG:4326\""),
    )
    .unwrap();
    let msg = open_err(&dir);
    assert!(msg.contains("p.shp") && msg.contains(".dbf"), "{msg}");
}

#[test]
fn truncated_shapefile() {
    let dir = tempfile::tempdir().unwrap();
    let polys: Vec<_> = (0..20)
        .map(|i| (format!("p{i}"), square(-76.3 + i as f64 * 0.002)))
        .collect();
    write_shp(&dir.path().join("p.shp"), &polys, None);
    let shp = dir.path().join("p.shp");
    let bytes = std::fs::read(&shp).unwrap();
    std::fs::write(&shp, &bytes[..bytes.len() * 2 / 3]).unwrap();
    std::fs::write(
        dir.path().join("outfall.toml"),
        parcels_manifest("p.shp", "crs = \"EPSG:4326\""),
    )
    .unwrap();
    // A truncated file is refused whole: loading the records before the cut would change
    // findings silently.
    let msg = open_err(&dir);
    assert!(msg.contains("p.shp") && msg.contains("truncated"), "{msg}");
}

#[test]
fn projected_coordinates_without_a_crs_are_caught() {
    // EPSG:2261 feet mislabelled as lon/lat: the classic wrong-CRS mistake.
    let gj = r#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"ID":"x"},"geometry":{"type":"Polygon","coordinates":[[[920000,1130000],[920100,1130000],[920100,1130100],[920000,1130100],[920000,1130000]]]}}]}"#;
    let dir = dataset(
        &parcels_manifest("p.geojson", ""),
        &[("p.geojson", gj.as_bytes())],
    );
    // Every feature refused for its coordinates fails the load, naming the CRS.
    let msg = open_err(&dir);
    assert!(
        msg.contains("p.geojson") && msg.contains("not where EPSG:4326 puts them"),
        "{msg}"
    );
    // The same file with the right `crs` override loads near Syracuse.
    let dir = dataset(
        &parcels_manifest("p.geojson", "crs = \"EPSG:2261\""),
        &[("p.geojson", gj.as_bytes())],
    );
    let cat = Catalog::open(dir.path()).unwrap();
    let f = &cat.layer(outfall_core::Role::Parcels).unwrap().features[0];
    let c = geo::Centroid::centroid(&f.geometry).unwrap();
    assert!(
        (c.x() - -76.1).abs() < 0.5 && (c.y() - 43.1).abs() < 0.5,
        "{c:?}"
    );
}

#[test]
fn impaired_layer_without_causes_is_a_manifest_error() {
    let m = "[[layer]]\nrole = \"impaired\"\npath = \"i.geojson\"\nid_field = \"wbid\"\n";
    let dir = dataset(m, &[]);
    let msg = open_err(&dir);
    assert!(
        msg.contains("outfall.toml") && msg.contains("causes_field"),
        "{msg}"
    );
}
