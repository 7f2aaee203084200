//! Geometry blobs that claim more than they hold: a count of 0xFFFFFFFF (MultiPolygon,
//! Polygon rings, LineString, MultiPoint) and a GeometryCollection nested 200,000 deep. In
//! an anonymous GeoPackage upload they aborted the server (a 206 GB reservation, a stack
//! overflow); written into the site registry by QGIS or sqlite3 they put it into a crash
//! loop and made `outfall sites` exit 134. Now an upload is a 422 naming the file, layer and
//! feature, and a registry row keeps its site listed, on the map and in its report, with a
//! problem naming the row.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use outfall_core::registry::{token, AccessRole, Live};
use outfall_core::Catalog;
use outfall_server::{app, AppState};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower::ServiceExt;

/// Levels of the deep collection: 1.8 MB of WKB, under the 2 MiB an upload may be.
const DEEP: usize = 200_000;

/// A little-endian WKB header: byte order, type code, and a count.
fn head(kind: u32, count: u32) -> Vec<u8> {
    let mut b = vec![1];
    b.extend(kind.to_le_bytes());
    b.extend(count.to_le_bytes());
    b
}

/// Each hostile WKB, with the words its refusal says.
fn hostile() -> Vec<(Vec<u8>, String)> {
    let claims = |kind: u32, what: &str| {
        let mut b = head(kind, u32::MAX);
        b.extend([0u8; 64]);
        (b, format!("says it holds 4294967295 {what}"))
    };
    let mut deep = head(7, 1).repeat(DEEP);
    deep.extend(&head(1, 0)[..5]);
    deep.extend([0u8; 16]);
    vec![
        claims(6, "polygons"),
        claims(3, "rings"),
        claims(2, "positions"),
        claims(4, "points"),
        (deep, "geometries are nested more than 32 deep".into()),
    ]
}

/// A GeoPackage geometry blob: "GP", version 0, little-endian header, no envelope, SRS 0.
fn gpkg_blob(wkb: &[u8]) -> Vec<u8> {
    let mut b = b"GP\x00\x01\x00\x00\x00\x00".to_vec();
    b.extend(wkb);
    b
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/uploads/s01_utm.gpkg")
}

/// The demo's S01 written by GDAL (tests/fixtures/uploads), its one polygon's geometry
/// replaced by `blob`.
fn plan_with(blob: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("plan.gpkg");
    std::fs::copy(fixture(), &path).expect("copy fixture");
    let conn = rusqlite::Connection::open(&path).expect("open");
    // GDAL's R-tree triggers call its own SQL functions (ST_IsEmpty), which SQLite lacks.
    for n in 1..=4 {
        conn.execute_batch(&format!("DROP TRIGGER rtree_disturbance_geom_update{n}"))
            .expect("drop trigger");
    }
    conn.execute("UPDATE disturbance SET geom = ?1", [blob])
        .expect("write the blob");
    drop(conn);
    std::fs::read(&path).expect("read back")
}

async fn send(router: Router, req: Request<Body>) -> (StatusCode, Value) {
    let res = router.oneshot(req).await.expect("response");
    let status = res.status();
    let bytes = res.into_body().collect().await.expect("body").to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn a_geopackage_upload_with_a_hostile_blob_is_a_422_naming_its_feature() {
    for (wkb, words) in hostile() {
        let body = plan_with(&gpkg_blob(&wkb));
        assert!(
            body.len() < 2 << 20,
            "under the upload limit: {}",
            body.len()
        );
        let req = Request::post("/check?name=plan.gpkg")
            .header(header::CONTENT_TYPE, "application/octet-stream")
            .body(Body::from(body))
            .expect("request");
        let (status, json) = send(app(common::demo_state()), req).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{words}: {json}");
        let detail = json["detail"].as_str().unwrap_or_default();
        assert!(
            detail.starts_with("plan.gpkg/disturbance: feature 1: unreadable geometry: "),
            "{detail}"
        );
        assert!(detail.contains(&words), "{detail}");
    }
    // The process is alive and still checks the file as GDAL wrote it.
    let good = std::fs::read(fixture()).expect("fixture");
    let req = Request::post("/check?name=plan.gpkg")
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .body(Body::from(good))
        .expect("request");
    assert_eq!(send(app(common::demo_state()), req).await.0, StatusCode::OK);
}

/// The sites whose boundary gets each hostile blob, in `hostile()`'s order; S06's and S07's
/// first polygons get the first and the last.
const SITES: [&str; 5] = ["S01", "S02", "S03", "S04", "S05"];

/// Writes the hostile blobs into a registry's rows with `write(table, id, wkb)`.
fn spoil(write: &mut dyn FnMut(&str, &str, &[u8])) {
    let blobs = hostile();
    for (site, (wkb, _)) in SITES.iter().zip(&blobs) {
        write("sites", site, wkb);
    }
    write("disturbance", "D06-1", &blobs[0].0);
    write("disturbance", "D07-1", &blobs[4].0);
}

/// The registry of the demo as the server and the command line open it, over `dir`.
fn start(dir: &Path, spec: Option<&str>) -> outfall_core::Result<Arc<Live>> {
    let catalog = Arc::new(Catalog::open(dir).expect("demo loads"));
    let store = outfall_postgis::open(spec, dir, &catalog.manifest.words)?;
    Live::start(store, catalog).map(Arc::new)
}

fn get(router: &Router, rt: &tokio::runtime::Runtime, uri: &str) -> (StatusCode, Value) {
    let req = Request::get(uri).body(Body::empty()).expect("request");
    rt.block_on(send(router.clone(), req))
}

/// After a restart over the spoiled rows: every site listed and on the map; a spoiled
/// boundary's site reported with a record problem naming its row and what the blob claims
/// (`(site, words)` of `expect`), a spoiled polygon's site with that polygon refused.
fn listed_with_problems(live: Arc<Live>, expect: &[(&str, String)]) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web");
    let officer = token::create(
        live.registry.as_ref(),
        "Pat Officer",
        AccessRole::Officer,
        token::DEFAULT_EXPIRES_DAYS,
    )
    .expect("token");
    let router = app(AppState::with_registry(web, live));
    let (status, list) = get(&router, &rt, "/sites");
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["sites"].as_array().map(Vec::len), Some(15), "{list}");
    for (site, words) in expect {
        let (status, item) = get(&router, &rt, &format!("/collections/sites/items/{site}"));
        assert_eq!(status, StatusCode::OK, "{site} on the map: {item}");
        let (status, report) = get(&router, &rt, &format!("/sites/{site}/report"));
        assert_eq!(status, StatusCode::OK, "{site}: {report}");
        let problems = report["site"]["record_problems"].to_string();
        assert!(
            problems.contains(&format!("(sites) row {site}: "))
                && problems.contains(words.as_str())
                && problems.contains("the site is kept without its boundary"),
            "{site}: {problems}"
        );
    }
    // The officer can still edit such a site: an edit never rewrites its geometry.
    let (_, record) = get(&router, &rt, "/sites/S01");
    let req = Request::patch("/sites/S01")
        .header(header::AUTHORIZATION, format!("Bearer {officer}"))
        .header(header::IF_MATCH, format!("\"{}\"", record["version"]))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(r#"{"status": "closed"}"#))
        .expect("request");
    let (status, patched) = rt.block_on(send(router.clone(), req));
    assert_eq!(status, StatusCode::OK, "{patched}");
    assert_eq!(patched["site"]["properties"]["status"], "closed");
    for (site, polygon) in [("S06", "D06-1"), ("S07", "D07-1")] {
        let (status, report) = get(&router, &rt, &format!("/sites/{site}/report"));
        assert_eq!(status, StatusCode::OK, "{site}: {report}");
        let text = report.to_string();
        assert!(
            text.contains(&format!("disturbance {polygon} ("))
                && text.contains("unreadable geometry"),
            "{site}: {text}"
        );
    }
}

#[test]
fn hostile_blobs_in_a_geopackage_registry_keep_their_sites_listed_with_a_problem() {
    let dir = common::demo_copy();
    drop(start(dir.path(), None).expect("the registry is seeded"));
    let conn = rusqlite::Connection::open(dir.path().join("registry.gpkg")).expect("open");
    spoil(&mut |table, id, wkb| {
        let key = if table == "sites" {
            "site_id"
        } else {
            "dist_id"
        };
        let sql = format!("UPDATE {table} SET geom = ?1 WHERE {key} = ?2");
        let n = conn
            .execute(&sql, rusqlite::params![gpkg_blob(wkb), id])
            .expect("write");
        assert_eq!(n, 1, "{table} {id}");
    });
    // A blob that reads but fails the loader's checks (QGIS saved it in UTM) is kept alike.
    let mut utm = head(3, 1);
    utm.extend(4u32.to_le_bytes());
    for (x, y) in [
        (404_080.0f64, 4_779_869.0f64),
        (404_272.0, 4_779_869.0),
        (404_272.0, 4_779_988.0),
        (404_080.0, 4_779_869.0),
    ] {
        utm.extend(x.to_le_bytes());
        utm.extend(y.to_le_bytes());
    }
    conn.execute(
        "UPDATE sites SET geom = ?1 WHERE site_id = 'S08'",
        [gpkg_blob(&utm)],
    )
    .expect("write");
    drop(conn);
    let live = start(dir.path(), None).expect("the registry loads with the spoiled rows");
    let mut expect: Vec<(&str, String)> = SITES
        .into_iter()
        .zip(hostile().into_iter().map(|(_, w)| w))
        .collect();
    expect.push(("S08", "are not longitude/latitude".into()));
    listed_with_problems(live, &expect);
    // The command line reads the same registry.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_outfall"))
        .args(["sites", "--data"])
        .arg(dir.path())
        .output()
        .expect("outfall runs");
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 15);
}

/// PostGIS checks a geometry as it is stored, so no count can lie there; what it stores that
/// is not read here (a curve, which psql or QGIS can write) took the whole registry down.
#[test]
fn a_curve_in_a_postgis_registry_keeps_its_site_listed_with_a_problem() {
    let Some(url) = common::fresh_database() else {
        return;
    };
    let dir = common::demo_copy();
    drop(start(dir.path(), Some(&url)).expect("the registry is seeded"));
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("PostGIS");
    let curve = "CURVEPOLYGON(CIRCULARSTRING(-76.18 43.17, -76.17 43.18, -76.18 43.17))";
    let write = |db: &mut postgres::Client, table: &str, key: &str, id: &str| {
        let sql = format!("UPDATE {table} SET geom = ST_GeomFromText($1, 4326) WHERE {key} = $2");
        assert_eq!(db.execute(&sql, &[&curve, &id]).expect("write"), 1, "{id}");
    };
    // Written as psql or QGIS would: the outside-edit triggers audit them (a curve has no
    // GeoJSON, so the site's trigger compares its columns without the geometry).
    for site in SITES {
        write(&mut db, "sites", "site_id", site);
    }
    for polygon in ["D06-1", "D07-1"] {
        write(&mut db, "disturbance", "dist_id", polygon);
    }
    drop(db);
    let live = start(dir.path(), Some(&url)).expect("the registry loads with the curves");
    for site in SITES {
        let history = live.registry.history(site).expect("history");
        assert!(
            history
                .iter()
                .any(|h| h.who == "outside the service" && h.field.as_deref() == Some("geom")),
            "{site}: the curve is not audited: {history:?}"
        );
    }
    let words = "unreadable geometry: a CurvePolygon (WKB type 10), which is not read";
    let expect: Vec<(&str, String)> = SITES.into_iter().map(|s| (s, words.into())).collect();
    listed_with_problems(live, &expect);
}
