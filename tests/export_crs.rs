//! Exports in the data set's own coordinate system (issue 23): `?crs=source` on a site's
//! zipped Shapefile and `?export_crs=` on a check's give the `.prj` and the coordinates of
//! the system the parcels were drawn in (NY State Plane Central, US feet, EPSG:2261 in
//! data/clay), within 0.1 ft of that file's own coordinates; WGS84 stays the default, and an
//! unknown system is a 400 that names it.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use outfall_server::app;
use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use tower::ServiceExt;

/// The tolerance the issue asks of an export in State Plane feet.
const TOLERANCE_FT: f64 = 0.1;

struct Resp {
    status: StatusCode,
    body: Vec<u8>,
}

impl Resp {
    fn detail(&self) -> String {
        let v: Value = serde_json::from_slice(&self.body).unwrap_or(Value::Null);
        v["detail"].as_str().unwrap_or("").to_string()
    }
}

async fn send(req: Request<Body>) -> Resp {
    let res = app(common::demo_state())
        .oneshot(req)
        .await
        .expect("response");
    let status = res.status();
    let body = res.into_body().collect().await.expect("body").to_bytes();
    Resp {
        status,
        body: body.to_vec(),
    }
}

async fn get(uri: &str) -> Resp {
    send(Request::get(uri).body(Body::empty()).unwrap()).await
}

/// The zip's `.prj` text and every polygon vertex of its `.shp`.
fn read_zip(bytes: &[u8]) -> (String, Vec<(f64, f64)>) {
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    let dir = tempfile::tempdir().unwrap();
    let mut prj = String::new();
    let mut shp = None;
    for i in 0..z.len() {
        let mut f = z.by_index(i).unwrap();
        let mut b = Vec::new();
        f.read_to_end(&mut b).unwrap();
        let path = dir.path().join(f.name());
        if f.name().ends_with(".prj") {
            prj = String::from_utf8(b.clone()).unwrap();
        }
        if f.name().ends_with(".shp") {
            shp = Some(path.clone());
        }
        std::fs::write(path, b).unwrap();
    }
    let mut reader = shapefile::Reader::from_path(shp.expect("a .shp")).unwrap();
    let mut vertices = Vec::new();
    for row in reader.iter_shapes_and_records() {
        let shapefile::Shape::Polygon(p) = row.unwrap().0 else {
            panic!("polygon shapes")
        };
        for ring in p.rings() {
            vertices.extend(ring.points().iter().map(|q| (q.x, q.y)));
        }
    }
    (prj, vertices)
}

/// Every vertex of `got` lies within `TOLERANCE_FT` of one of `want`, and the other way
/// round (a union may start a ring elsewhere, but must not move, add or drop a corner).
fn assert_same_vertices(got: &[(f64, f64)], want: &[(f64, f64)]) {
    let nearest = |p: &(f64, f64), set: &[(f64, f64)]| {
        set.iter()
            .map(|q| (p.0 - q.0).hypot(p.1 - q.1))
            .fold(f64::INFINITY, f64::min)
    };
    for p in got {
        let d = nearest(p, want);
        assert!(
            d < TOLERANCE_FT,
            "exported {p:?} is {d:.4} ft from the source's nearest corner"
        );
    }
    for q in want {
        let d = nearest(q, got);
        assert!(
            d < TOLERANCE_FT,
            "source corner {q:?} is {d:.4} ft from the export"
        );
    }
}

fn fixture_vertices() -> Vec<(f64, f64)> {
    // S01 written by GDAL's ogr2ogr in EPSG:2261 (tests/fixtures/uploads).
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/uploads/s01_stateplane.geojson");
    let v: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    v["features"][0]["geometry"]["coordinates"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c[0].as_f64().unwrap(), c[1].as_f64().unwrap()))
        .collect()
}

#[tokio::test]
async fn a_sites_export_in_the_data_sets_crs_is_in_state_plane_feet() {
    let r = get("/sites/S01/export.zip?crs=source").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.detail());
    let (prj, vertices) = read_zip(&r.body);
    assert!(prj.contains("New_York_Central"), "{prj}");
    assert!(prj.contains("US survey foot"), "US survey feet: {prj}");
    assert_same_vertices(&vertices, &fixture_vertices());

    // The code names the same system.
    let by_code = get("/sites/S01/export.zip?crs=EPSG:2261").await;
    assert_eq!(by_code.status, StatusCode::OK, "{}", by_code.detail());
    assert_eq!(read_zip(&by_code.body), (prj, vertices));
}

#[tokio::test]
async fn a_parcel_checked_and_exported_back_keeps_the_parcel_files_own_coordinates() {
    let parcels = common::demo_dir().join("parcels.shp");
    let mut reader = shapefile::Reader::from_path(&parcels).unwrap();
    let first = reader.iter_shapes_and_records().next().unwrap().unwrap().0;
    let shapefile::Shape::Polygon(parcel) = first else {
        panic!("parcels are polygons")
    };
    let ring: Vec<(f64, f64)> = parcel.rings()[0]
        .points()
        .iter()
        .map(|q| (q.x, q.y))
        .collect();
    let coords: Vec<[f64; 2]> = ring.iter().map(|&(x, y)| [x, y]).collect();
    let upload = serde_json::json!({
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2261"}},
        "features": [{"type": "Feature", "properties": {"phase": "1"},
                      "geometry": {"type": "Polygon", "coordinates": [coords]}}]
    });
    let r = send(
        Request::post("/check/export.zip?name=parcel.geojson&export_crs=source")
            .header(header::CONTENT_TYPE, "application/geo+json")
            .body(Body::from(upload.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.detail());
    let (prj, vertices) = read_zip(&r.body);
    assert!(prj.contains("New_York_Central"), "{prj}");
    assert_same_vertices(&vertices, &ring);
}

#[tokio::test]
async fn wgs84_stays_the_default_and_the_viewer_is_told_the_data_sets_code() {
    let (prj, vertices) = read_zip(&get("/sites/S01/export.zip").await.body);
    assert!(prj.contains("WGS_1984"), "{prj}");
    assert!(vertices
        .iter()
        .all(|&(x, y)| (-77.0..-76.0).contains(&x) && (43.0..44.0).contains(&y)));
    let config: Value = serde_json::from_slice(&get("/config").await.body).unwrap();
    assert_eq!(config["export_crs"], "EPSG:2261");
}

#[tokio::test]
async fn an_unknown_crs_is_refused_naming_it() {
    for (uri, named) in [
        ("/sites/S01/export.zip?crs=EPSG:99999", "EPSG:99999"),
        ("/sites/S01/export.zip?crs=mars", "mars"),
    ] {
        let r = get(uri).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{uri}");
        assert!(r.detail().contains(named), "{uri}: {}", r.detail());
    }
    let r = send(
        Request::post("/check/export.zip?export_crs=EPSG:99999")
            .header(header::CONTENT_TYPE, "application/geo+json")
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.detail().contains("EPSG:99999"), "{}", r.detail());
}
