//! Third-party OGC API clients against the real server on a loopback port: OWSLib (PyPI),
//! @camptocamp/ogc-client (npm), GDAL's OAPIF and OGCAPI drivers, and openapi-spec-validator
//! on `/api`. The tools come from `scripts/ensure-tools.sh test` (`.tools/venv`) and
//! `tests/clients/package.json`; in CI a missing tool fails, elsewhere the test skips saying so.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The tool at `path`, or `None` (a skip) outside CI; in CI its absence fails the test.
fn tool(path: PathBuf, install: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os("CI").is_some() {
        panic!("{} is required in CI ({install})", path.display());
    }
    eprintln!("SKIP: {} not installed ({install})", path.display());
    None
}

fn python() -> Option<PathBuf> {
    tool(
        root().join(".tools/venv/bin/python"),
        "scripts/ensure-tools.sh test",
    )
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run client");
    assert!(
        out.status.success(),
        "{:?} failed:\n{}\n{}",
        cmd,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn demo() -> outfall_core::Catalog {
    outfall_core::Catalog::open(&common::demo_dir()).unwrap()
}

const OWSLIB_SCRIPT: &str = r#"
import json, sys
from owslib.ogcapi.features import Features
w = Features(sys.argv[1])
api = w.api()
cols = w.collections()
page = w.collection_items("parcels", bbox=[-76.19, 43.155, -76.17, 43.17], limit=5)
one = w.collection_item("sites", "S04")
print(json.dumps({
    "openapi": api.get("openapi"),
    "collections": [c["id"] for c in cols["collections"]],
    "conformsTo": w.conformance()["conformsTo"],
    "page_matched": page["numberMatched"],
    "page_ids": [f["id"] for f in page["features"]],
    "site": one["properties"],
}))
"#;

#[test]
fn owslib_reads_landing_api_collections_items_and_one_feature() {
    let Some(py) = python() else { return };
    let server = common::start_demo_server();
    let out = run(Command::new(&py)
        .args(["-c", OWSLIB_SCRIPT])
        .arg(format!("{}/", server.url)));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["openapi"], "3.0.3");
    let cat = demo();
    let ids: Vec<&str> = cat
        .layers
        .iter()
        .map(|l| l.collection_id.as_str())
        .collect();
    assert_eq!(v["collections"], serde_json::json!(ids));
    assert!(ids.contains(&"impaired"), "the table list is a collection");
    let conf = v["conformsTo"].to_string();
    assert!(conf.contains("ogcapi-features-1/1.0/conf/oas30"));
    assert!(conf.contains("ogcapi-tiles-1/1.0/conf/core"));
    // The bbox page: 5 of the parcels the bbox matches, the same count the API reports.
    assert!(v["page_matched"].as_u64().unwrap() > 5);
    assert_eq!(v["page_ids"].as_array().unwrap().len(), 5);
    // S04 is the demo's Condition A site (data/clay/README.md): its acres and conditions
    // come with the feature.
    let s = &v["site"];
    assert_eq!(s["condition_a"], true);
    assert_eq!(s["condition_b"], true);
    assert!(s["total_acres"].as_f64().unwrap() > 5.0);
}

#[test]
fn the_openapi_document_validates() {
    let Some(py) = python() else { return };
    let server = common::start_demo_server();
    let out = run(Command::new(&py).args([
        "-c",
        "import json,sys,urllib.request\n\
from openapi_spec_validator import validate\n\
doc = json.load(urllib.request.urlopen(sys.argv[1]))\n\
validate(doc)\n\
print(json.dumps(sorted(doc['paths'])))",
        &format!("{}/api", server.url),
    ]));
    let paths: Vec<String> = serde_json::from_str(&out).unwrap();
    for p in [
        "/",
        "/api",
        "/collections/{collectionId}/items",
        "/collections/{collectionId}/tiles",
        "/collections/{collectionId}/tiles/{tileMatrixSetId}",
        "/tileMatrixSets",
        "/check",
    ] {
        assert!(paths.contains(&p.to_string()), "{p} missing from {paths:?}");
    }
}

#[test]
fn camptocamp_ogc_client_reads_collections_items_and_the_tileset() {
    let script = root().join("tests/clients/ogc_client.mjs");
    let Some(_) = tool(
        root().join("tests/clients/node_modules/@camptocamp/ogc-client/package.json"),
        "cd tests/clients && npm ci",
    ) else {
        return;
    };
    let server = common::start_demo_server();
    let out = run(Command::new("node").arg(&script).arg(&server.url));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let cat = demo();
    let ids: Vec<&str> = cat
        .layers
        .iter()
        .map(|l| l.collection_id.as_str())
        .collect();
    assert_eq!(v["allCollections"], serde_json::json!(ids));
    assert_eq!(v["featureCollections"], serde_json::json!(ids));
    assert_eq!(v["hasTiles"], true);
    assert_eq!(v["tileMatrixSets"], serde_json::json!(["WebMercatorQuad"]));
    assert_eq!(
        v["sitesInfo"]["vectorTileFormats"],
        serde_json::json!(["application/vnd.mapbox-vector-tile"])
    );
    // getCollectionItems("parcels", limit 7, offset 3): the 4th to 10th parcels in order.
    let parcels = cat.collection("parcels").unwrap();
    let want: Vec<&str> = parcels.features[3..10]
        .iter()
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(v["parcelItems"], serde_json::json!(want));
    let tileset = v["vectorTilesetUrl"].as_str().unwrap();
    assert_eq!(
        tileset,
        format!("{}/collections/parcels/tiles/WebMercatorQuad", server.url)
    );
}

fn gdal_available() -> bool {
    let ok = Command::new("ogrinfo")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!("ogrinfo (Debian gdal-bin) is required in CI");
        }
        eprintln!("SKIP: ogrinfo not installed (apt-get install gdal-bin)");
    }
    ok
}

fn feature_count(info: &str) -> usize {
    info.lines()
        .find_map(|l| l.strip_prefix("Feature Count: "))
        .unwrap_or_else(|| panic!("no feature count: {info}"))
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn gdal_copies_a_collection_to_geopackage_and_opens_one_collection() {
    if !gdal_available() {
        return;
    }
    let server = common::start_demo_server();
    let cat = demo();
    let impaired = cat.collection("impaired").unwrap().features.len();
    assert!(impaired > 0, "the 303(d) table matches demo waters");
    // ogr2ogr to GeoPackage, then read it back.
    let dir = tempfile::tempdir().unwrap();
    let gpkg = dir.path().join("impaired.gpkg");
    run(Command::new("ogr2ogr")
        .args(["-f", "GPKG"])
        .arg(&gpkg)
        .arg(format!("OAPIF:{}/", server.url))
        .arg("impaired"));
    let info = run(Command::new("ogrinfo")
        .args(["-ro", "-so", "-al"])
        .arg(&gpkg));
    assert_eq!(feature_count(&info), impaired);
    for field in ["causes", "category", "list_year", "name"] {
        assert!(
            info.contains(&format!("{field}: ")),
            "{field} missing: {info}"
        );
    }
    // The OGCAPI driver on one collection. GDAL 3.6 (Debian 12) chooses the Tiles API
    // whenever a collection links its vector tilesets and cannot open it (GDAL >= 3.7 can);
    // the items are read with API=ITEMS here. See the README's HTTP section.
    let info = run(Command::new("ogrinfo")
        .args(["-ro", "-so", "-oo", "API=ITEMS"])
        .arg(format!("OGCAPI:{}/collections/sites", server.url))
        .arg("sites"));
    assert_eq!(feature_count(&info), cat.sites.len());
}
