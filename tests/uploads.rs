//! Uploads in the formats engineers export (GeoJSON in any CRS, zipped Shapefile, KML,
//! GeoPackage) and the exports of a site or a check, through the HTTP app. The fixtures in
//! tests/fixtures/uploads/ are the demo's site S01 written by GDAL's ogr2ogr: in NY State Plane
//! Central feet (EPSG:2261), UTM 18N (EPSG:26918) and lon/lat.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use outfall_server::{app, AppState};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::PathBuf;
use tower::ServiceExt;

/// S01 (Route 31 retail pad) in data/clay/README.md: 3.864 acres, first receiving water Mud Creek.
const S01_ACRES: f64 = 3.864;

fn state() -> AppState {
    common::demo_state()
}

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/uploads")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

struct Resp {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    fn detail(&self) -> String {
        self.json()["detail"].as_str().unwrap_or("").to_string()
    }
}

async fn send(req: Request<Body>) -> Resp {
    let res = app(state()).oneshot(req).await.expect("response");
    let status = res.status();
    let headers = res.headers().clone();
    let body = res
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec();
    Resp {
        status,
        headers,
        body,
    }
}

async fn post(uri: &str, content_type: &str, body: Vec<u8>) -> Resp {
    send(
        Request::post(uri)
            .header(header::CONTENT_TYPE, content_type)
            .body(Body::from(body))
            .unwrap(),
    )
    .await
}

async fn get(uri: &str) -> Resp {
    send(Request::get(uri).body(Body::empty()).unwrap()).await
}

fn acres(r: &Resp) -> f64 {
    r.json()["disturbance"]["total_acres"]
        .as_f64()
        .expect("total_acres")
}

/// A zip's members: (name, bytes).
type Members<'a> = Vec<(&'a str, Vec<u8>)>;

/// A zip of (member name, bytes).
fn zip_of(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut out);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in members {
        z.start_file(*name, opts).unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap();
    out.into_inner()
}

/// The members of a zip.
fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    (0..z.len())
        .map(|i| {
            let mut f = z.by_index(i).unwrap();
            let mut b = Vec::new();
            f.read_to_end(&mut b).unwrap();
            (f.name().to_string(), b)
        })
        .collect()
}

#[tokio::test]
async fn every_format_in_its_own_crs_gives_the_same_report_as_the_site() {
    let site = get("/sites/S01/report").await.json();
    let site_acres = site["disturbance"]["total_acres"].as_f64().unwrap();
    assert!((site_acres - S01_ACRES).abs() < 0.001);
    for (file, ct) in [
        ("s01_stateplane.geojson", "application/geo+json"),
        ("s01_plan.zip", "application/zip"),
        ("s01.kml", "application/vnd.google-earth.kml+xml"),
        ("s01_utm.gpkg", "application/octet-stream"),
    ] {
        let r = post(&format!("/check?name={file}"), ct, fixture(file)).await;
        assert_eq!(
            r.status,
            StatusCode::OK,
            "{file}: {}",
            String::from_utf8_lossy(&r.body)
        );
        let rep = r.json();
        assert_eq!(rep["site"]["id"], file, "the report names the file");
        assert!(
            (acres(&r) - site_acres).abs() < 0.005,
            "{file}: {} acres, the site has {site_acres}",
            acres(&r)
        );
        assert_eq!(
            rep["receiving_water_names"], site["receiving_water_names"],
            "{file}"
        );
        assert_eq!(rep["conditions"]["C"], site["conditions"]["C"], "{file}");
    }
}

#[tokio::test]
async fn projected_coordinates_without_a_crs_ask_for_one_and_the_choice_is_used() {
    let mut doc: Value = serde_json::from_slice(&fixture("s01_stateplane.geojson")).unwrap();
    doc.as_object_mut().unwrap().remove("crs");
    let body = serde_json::to_vec(&doc).unwrap();
    let r = post("/check", "application/geo+json", body.clone()).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.json()["crs_required"], true);
    let d = r.detail();
    assert!(
        d.contains("look projected") && d.contains("choose the coordinate system"),
        "{d}"
    );
    let r = post("/check?crs=EPSG:2261", "application/geo+json", body.clone()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.detail());
    assert!((acres(&r) - S01_ACRES).abs() < 0.01);
    // A wrong choice puts the site far from the data set: refused, not silently checked.
    let r = post(
        "/check?crs=EPSG:32618",
        "application/geo+json",
        body.clone(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.detail());
    // Only authority codes: a PROJ string could make PROJ open files.
    let r = post(
        "/check?crs=%2Binit%3D%2Fetc%2Fpasswd",
        "application/geo+json",
        body,
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.detail().contains("EPSG:n"), "{}", r.detail());
}

#[tokio::test]
async fn a_zipped_shapefile_without_prj_asks_for_its_coordinate_system() {
    let members: Vec<(String, Vec<u8>)> = unzip(&fixture("s01_plan.zip"))
        .into_iter()
        .filter(|(n, _)| !n.ends_with(".prj"))
        .collect();
    let refs: Vec<(&str, Vec<u8>)> = members
        .iter()
        .map(|(n, b)| (n.as_str(), b.clone()))
        .collect();
    let body = zip_of(&refs);
    let r = post("/check?name=plan.zip", "application/zip", body.clone()).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.json()["crs_required"], true);
    assert_eq!(
        r.detail(),
        "plan.zip/s01_plan.shp: no coordinate reference system: this file has no .prj: choose its coordinate system"
    );
    let r = post(
        "/check?name=plan.zip&crs=EPSG:2261",
        "application/zip",
        body,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.detail());
    assert!((acres(&r) - S01_ACRES).abs() < 0.01);
}

#[tokio::test]
async fn hostile_or_broken_zips_are_refused_by_name() {
    let parts = unzip(&fixture("s01_plan.zip"));
    let part = |ext: &str| {
        parts
            .iter()
            .find(|(n, _)| n.ends_with(ext))
            .unwrap()
            .1
            .clone()
    };
    let cases: Vec<(Members, &str)> = vec![
        (vec![("../../etc/evil.shp", part(".shp"))], "leaves the zip"),
        (
            // 3 MiB of zeros compress to a few KiB: the unpacked size is what counts.
            vec![
                ("s.shp", part(".shp")),
                ("pad.txt", vec![0u8; 3 * 1024 * 1024]),
            ],
            "unpacks to more than the 2 MiB upload limit",
        ),
        (
            (0..40).map(|_| ("x.txt", vec![1u8])).collect(),
            "at most 32 are accepted",
        ),
        (
            vec![("a.shp", part(".shp")), ("b.shp", part(".shp"))],
            "holds 2 shapefiles (a.shp, b.shp)",
        ),
        (
            vec![
                ("s.shp", part(".shp")),
                ("s.shx", part(".shx")),
                ("s.prj", part(".prj")),
            ],
            "no s.dbf",
        ),
        (
            vec![("readme.txt", b"hello".to_vec())],
            "the zip holds no .shp (it holds: readme.txt)",
        ),
    ];
    for (members, want) in cases {
        let body = if members.len() == 40 {
            // ZipWriter refuses duplicate names; 40 distinct ones.
            let names: Vec<String> = (0..40).map(|i| format!("f{i}.txt")).collect();
            zip_of(
                &names
                    .iter()
                    .map(|n| (n.as_str(), vec![1u8]))
                    .collect::<Vec<_>>(),
            )
        } else {
            zip_of(&members)
        };
        let r = post("/check?name=plan.zip", "application/zip", body).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{want}");
        assert!(
            r.detail().contains(want),
            "wanted '{want}' in: {}",
            r.detail()
        );
        assert!(
            r.detail().starts_with("plan.zip"),
            "names the upload: {}",
            r.detail()
        );
    }
    // A bare .shp, without its sidecars.
    let r = post(
        "/check?name=s.shp",
        "application/octet-stream",
        part(".shp"),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.detail().contains("zip them together"), "{}", r.detail());
    // KML cut off (the kml crate would loop forever on it), KML without a Placemark, and
    // bytes that are no format.
    let r = post(
        "/check?name=x.kml",
        "application/vnd.google-earth.kml+xml",
        b"<kml><Document>".to_vec(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.detail().contains("is the file cut off?"),
        "{}",
        r.detail()
    );
    let r = post(
        "/check?name=x.kml",
        "application/vnd.google-earth.kml+xml",
        b"<kml><Document></Document></kml>".to_vec(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.detail().starts_with("x.kml: the KML has no Placemark"),
        "{}",
        r.detail()
    );
    let r = post(
        "/check?name=x.bin",
        "application/octet-stream",
        vec![7u8; 64],
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.detail().contains("zipped Shapefile"), "{}", r.detail());
}

#[tokio::test]
async fn a_site_exports_as_a_zipped_shapefile_that_reads_back_and_rechecks_the_same() {
    let site = get("/sites/S03/report").await.json();
    let r = get("/sites/S03/export.zip").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers[header::CONTENT_TYPE], "application/zip");
    assert!(r.headers[header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .contains("S03-disturbance.zip"));
    let members = unzip(&r.body);
    let names: Vec<&str> = members.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["S03.shp", "S03.shx", "S03.dbf", "S03.prj", "S03.cpg"]
    );

    // Read it back with the shapefile crate.
    let dir = tempfile::tempdir().unwrap();
    for (n, b) in &members {
        std::fs::write(dir.path().join(n), b).unwrap();
    }
    let mut reader = shapefile::Reader::from_path(dir.path().join("S03.shp")).unwrap();
    let rows: Vec<(shapefile::Shape, shapefile::dbase::Record)> = reader
        .iter_shapes_and_records()
        .map(|r| r.unwrap())
        .collect();
    let phases = site["disturbance"]["phases"].as_array().unwrap();
    assert_eq!(rows.len(), phases.len(), "one feature per phase");
    for (shape, record) in &rows {
        let text = |k: &str| match record.get(k) {
            Some(shapefile::dbase::FieldValue::Character(Some(s))) => s.clone(),
            other => panic!("{k}: {other:?}"),
        };
        let num = |k: &str| match record.get(k) {
            Some(shapefile::dbase::FieldValue::Numeric(Some(n))) => *n,
            other => panic!("{k}: {other:?}"),
        };
        assert_eq!(text("site_id"), "S03");
        assert_eq!(text("cond_b"), "true", "S03 is Condition B");
        assert_eq!(text("five_acre"), "false", "S03's peak is 4.81 ac");
        // The typed site record and the sources of the findings (data/clay/README.md).
        assert_eq!(text("status"), "under_construction");
        assert_eq!(text("status_rec"), "under_construction");
        assert_eq!(text("swppp_dec"), "approved");
        assert_eq!(text("swppp_date"), "2026-03-25");
        assert_eq!(text("swppp_ref"), "SWPPP-2026-014");
        assert_eq!(text("swppp_by"), "planning_board");
        assert_eq!(text("sf_source"), "site record: single_family");
        assert_eq!(text("ag_source"), "site record: agricultural");
        assert!(text("lda_src").contains("site record: common_plan"));
        assert_eq!(text("b_src"), "disturbance polygons");
        assert!(text("c_src").contains("site record: single_family"));
        assert!(text("a_src").contains("receiving water: assumed from the nearest water"));
        assert!(text("five_src").contains("swppp_approval"));
        assert!(text("awa_src").contains("site record: status 'under_construction'"));
        let phase = phases
            .iter()
            .find(|p| p["phase"] == text("phase"))
            .expect("a phase of the report");
        assert!((num("acres") - phase["acres"].as_f64().unwrap()).abs() < 0.001);
        assert_eq!(text("start"), phase["start"].as_str().unwrap());
        assert!(
            (num("total_ac") - site["disturbance"]["total_acres"].as_f64().unwrap()).abs() < 0.001
        );
        let shapefile::Shape::Polygon(p) = shape else {
            panic!("polygon shapes")
        };
        let mp: geo_types::MultiPolygon<f64> = p.clone().try_into().unwrap();
        assert!((outfall_core::area::area_acres(&mp) - num("acres")).abs() < 0.001);
    }
    assert!(String::from_utf8_lossy(&members[3].1).contains("WGS_1984"));

    // The export is itself an upload: checked again, it gives the site's acreage and peak.
    let again = post("/check?name=S03.zip", "application/zip", r.body.clone()).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.detail());
    let rep = again.json();
    for k in ["total_acres", "peak_acres"] {
        let (a, b) = (
            rep["disturbance"][k].as_f64().unwrap(),
            site["disturbance"][k].as_f64().unwrap(),
        );
        assert!((a - b).abs() < 0.001, "{k}: {a} vs {b}");
    }
    assert_eq!(rep["conditions"]["B"], true);
}

#[tokio::test]
async fn a_check_exports_its_disturbance_in_wgs84() {
    let r = post(
        "/check/export.geojson?name=plan.geojson",
        "application/geo+json",
        fixture("s01_stateplane.geojson"),
    )
    .await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&r.body)
    );
    assert_eq!(r.headers[header::CONTENT_TYPE], "application/geo+json");
    let fc = r.json();
    let f = &fc["features"][0];
    assert_eq!(f["properties"]["site_id"], "plan.geojson");
    assert!((f["properties"]["acres"].as_f64().unwrap() - S01_ACRES).abs() < 0.01);
    assert_eq!(f["properties"]["receiving"], "Mud Creek");
    let ring = f["geometry"]["coordinates"][0][0].as_array().unwrap();
    for p in ring {
        let (x, y) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
        assert!(
            (-76.2..-76.1).contains(&x) && (43.1..43.2).contains(&y),
            "lon/lat in Clay: {x},{y}"
        );
    }
    let z = post(
        "/check/export.zip",
        "application/geo+json",
        fixture("s01_stateplane.geojson"),
    )
    .await;
    assert_eq!(z.status, StatusCode::OK);
    assert_eq!(unzip(&z.body).len(), 5);
    assert_eq!(
        get("/sites/NOPE/export.geojson").await.status,
        StatusCode::NOT_FOUND
    );
}

/// The GeoPackage fixture after `sql`, as bytes.
fn gpkg_with(sql: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plan.gpkg");
    std::fs::write(&path, fixture("s01_utm.gpkg")).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(sql).unwrap();
    drop(conn);
    std::fs::read(&path).unwrap()
}

#[tokio::test]
async fn a_geopackage_without_a_defined_srs_asks_and_one_with_two_tables_is_refused() {
    let undefined = gpkg_with(
        "UPDATE gpkg_geometry_columns SET srs_id = 0; UPDATE gpkg_contents SET srs_id = 0;",
    );
    let r = post(
        "/check?name=plan.gpkg",
        "application/geopackage+sqlite3",
        undefined.clone(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.json()["crs_required"], true);
    assert!(
        r.detail()
            .starts_with("plan.gpkg/disturbance: no coordinate reference system")
            && r.detail().contains("choose its coordinate system"),
        "{}",
        r.detail()
    );
    let r = post(
        "/check?name=plan.gpkg&crs=EPSG:26918",
        "application/geopackage+sqlite3",
        undefined,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.detail());
    assert!((acres(&r) - S01_ACRES).abs() < 0.01);

    let two = gpkg_with(
        "CREATE TABLE other AS SELECT * FROM disturbance;
         INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id)
           VALUES ('other', 'features', 'other', 26918);
         INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name, srs_id, z, m)
           SELECT 'other', column_name, geometry_type_name, srs_id, z, m FROM gpkg_geometry_columns
           WHERE table_name = 'disturbance';",
    );
    let r = post("/check?name=plan.gpkg", "application/octet-stream", two).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.detail().contains("2 feature tables (disturbance, other)"),
        "{}",
        r.detail()
    );
    // Not a GeoPackage at all, though SQLite.
    let r = post(
        "/check?name=plan.gpkg",
        "application/octet-stream",
        gpkg_with("DROP TABLE gpkg_contents;"),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.detail()
            .starts_with("plan.gpkg: not a readable GeoPackage"),
        "{}",
        r.detail()
    );
}

#[test]
fn truncated_uploads_of_every_format_are_errors_naming_the_file_never_panics() {
    for file in [
        "s01_stateplane.geojson",
        "s01_plan.zip",
        "s01.kml",
        "s01_utm.gpkg",
    ] {
        let bytes = fixture(file);
        let step = (bytes.len() / 60).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            match outfall_core::load::read_upload(&bytes[..cut], file, None, 2 * 1024 * 1024) {
                Err(e) => {
                    let m = e.to_string();
                    assert!(m.starts_with(file), "{file} cut at {cut}: {m}");
                }
                // A cut inside trailing whitespace or SQLite's free pages can still hold
                // the whole plan; then it must be the whole plan.
                Ok(u) => assert!(
                    u.features.len() == 1 || !u.problems.is_empty(),
                    "{file} cut at {cut}: {} features, {} problems",
                    u.features.len(),
                    u.problems.len()
                ),
            }
        }
    }
}

/// The GeoJSON export carries the same record: the status word as recorded, the (5) letters
/// claimed and each one's outcome, and the sources that decided them.
#[tokio::test]
async fn a_site_export_carries_the_typed_record_and_the_sources() {
    let r = get("/sites/S14/export.geojson").await;
    assert_eq!(r.status, StatusCode::OK);
    let p = &r.json()["features"][0]["properties"];
    assert_eq!(p["exemptions"], "c;k", "the letters claimed");
    assert_eq!(p["exempt_ver"], "c:unverified;k:unverified");
    assert!(p["exempt_src"]
        .as_str()
        .unwrap()
        .contains("site record: exemption 'routine maintenance'"));
    assert_eq!(
        p["swppp_dec"],
        serde_json::Value::Null,
        "no decision recorded"
    );
    let r = get("/sites/S02/export.geojson").await;
    let p = &r.json()["features"][0]["properties"];
    assert_eq!(p["status"], "under_construction");
    assert_eq!(p["status_rec"], "active", "the older word, as recorded");
    assert_eq!(p["sf_source"], "site record: land_use");
    let r = get("/sites/S12/export.geojson").await;
    let p = &r.json()["features"][0]["properties"];
    assert_eq!(p["swppp_dec"], "denied");
    assert_eq!(
        p["ag_source"], "parcel class 449",
        "no statement: the parcel class"
    );
}

/// Issue 22, attack 2: a small GeoPackage whose generated column builds a huge text value
/// on every row read is refused (422) naming the column, before any row is read; views and
/// triggers of the file's own are refused by name too, while a writer's standard ones pass.
#[tokio::test]
async fn a_geopackage_that_computes_as_it_is_read_is_refused_naming_what() {
    let generated = gpkg_with(
        "ALTER TABLE disturbance ADD COLUMN notes TEXT \
         GENERATED ALWAYS AS (printf('%.*c', 100000000, 'x')) VIRTUAL;",
    );
    assert!(generated.len() < 200 * 1024, "{} bytes", generated.len());
    let r = post(
        "/check?name=plan.gpkg",
        "application/octet-stream",
        generated,
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.detail());
    assert!(
        r.detail()
            .contains("plan.gpkg/disturbance: column 'notes' is a generated column"),
        "{}",
        r.detail()
    );
    let view = gpkg_with("CREATE VIEW everything AS SELECT * FROM disturbance;");
    let r = post("/check?name=plan.gpkg", "application/octet-stream", view).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.detail());
    assert!(
        r.detail()
            .contains("plan.gpkg: the GeoPackage holds a view 'everything'"),
        "{}",
        r.detail()
    );
    let trigger = gpkg_with("CREATE TRIGGER grow AFTER INSERT ON disturbance BEGIN SELECT 1; END;");
    let r = post("/check?name=plan.gpkg", "application/octet-stream", trigger).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.detail());
    assert!(r.detail().contains("a trigger 'grow'"), "{}", r.detail());
    let plain = post(
        "/check?name=plan.gpkg",
        "application/octet-stream",
        fixture("s01_utm.gpkg"),
    )
    .await;
    assert_eq!(plain.status, StatusCode::OK, "{}", plain.detail());
}

/// Reading stops at the feature limit: 1,001 rows are refused by the limit, named.
#[tokio::test]
async fn a_geopackage_over_the_feature_limit_is_refused_by_it() {
    let many = gpkg_with(
        "DROP TRIGGER rtree_disturbance_geom_insert;
         INSERT INTO disturbance (geom) SELECT d.geom FROM disturbance d,
           (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000)
            SELECT n FROM c);",
    );
    let r = post("/check?name=plan.gpkg", "application/octet-stream", many).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.detail());
    assert!(
        r.detail()
            .contains("more than 1000 features; at most 1000 are accepted in one check"),
        "{}",
        r.detail()
    );
}

/// A plan near S06 of the demo with extra features (issue 23): `extra` is added to its one
/// polygon, `site` becomes the collection's `site` member.
fn plan_with(extra: Vec<Value>, site: Option<Value>) -> Vec<u8> {
    let ring = serde_json::json!([[
        [-76.2, 43.14],
        [-76.198, 43.14],
        [-76.198, 43.1412],
        [-76.2, 43.1412],
        [-76.2, 43.14]
    ]]);
    let mut features = vec![
        serde_json::json!({"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": ring}}),
    ];
    features.extend(extra);
    let mut doc = serde_json::json!({"type": "FeatureCollection", "features": features});
    if let Some(s) = site {
        doc["site"] = s;
    }
    serde_json::to_vec(&doc).unwrap()
}

fn point(id: &str, lon: f64, lat: f64) -> Value {
    serde_json::json!({"type": "Feature", "id": id, "properties": {}, "geometry": {"type": "Point", "coordinates": [lon, lat]}})
}

#[tokio::test]
async fn a_point_feature_is_the_outfall_and_nothing_is_dropped_silently() {
    // Without a point the water is assumed; with S06's outfall as a Point it is the outfall's.
    let plain = post("/check", "application/geo+json", plan_with(vec![], None)).await;
    assert_eq!(plain.json()["entry"]["rule"], "nearest");
    let r = post(
        "/check",
        "application/geo+json",
        plan_with(vec![point("out", -76.195, 43.1392)], None),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.detail());
    let rep = r.json();
    assert_eq!(rep["entry"]["rule"], "outfall_point");
    assert_eq!(
        rep["entry"]["outfall"],
        serde_json::json!([-76.195, 43.1392])
    );
    assert_eq!(
        rep["receiving_water_names"],
        serde_json::json!(["Sawmill Creek"])
    );
    // The same from site.outfall.
    let by_site = post(
        "/check",
        "application/geo+json",
        plan_with(
            vec![],
            Some(serde_json::json!({"outfall": "-76.195,43.1392"})),
        ),
    )
    .await;
    assert_eq!(by_site.json()["entry"]["rule"], "outfall_point");

    // Two outfalls, two points, or a line: refused by name, never ignored.
    let twice = post(
        "/check",
        "application/geo+json",
        plan_with(
            vec![point("out", -76.195, 43.1392)],
            Some(serde_json::json!({"outfall": "-76.195,43.1392"})),
        ),
    )
    .await;
    assert_eq!(twice.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        twice.detail().contains("the outfall is given twice"),
        "{}",
        twice.detail()
    );
    let two = post(
        "/check",
        "application/geo+json",
        plan_with(
            vec![point("a", -76.195, 43.1392), point("b", -76.196, 43.1392)],
            None,
        ),
    )
    .await;
    assert_eq!(two.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        two.detail().contains("features a and b are both points"),
        "{}",
        two.detail()
    );
    let line = serde_json::json!({"type": "Feature", "id": "ditch", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[-76.2, 43.14], [-76.19, 43.14]]}});
    let l = post(
        "/check",
        "application/geo+json",
        plan_with(vec![line], None),
    )
    .await;
    assert_eq!(l.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        l.detail()
            .contains("feature ditch: a line is neither a disturbed area"),
        "{}",
        l.detail()
    );
}
