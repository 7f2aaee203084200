//! What a balancer and an operator see: `/healthz`, `/readyz` (ready, then draining) and
//! `/metrics` (requests by route pattern, checks, registry writes, the tile cache, the
//! registry's generation), over the demo with a GeoPackage registry.

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use common::sample;
use common::town::{fc, feature, rect};
use http_body_util::BodyExt;
use outfall_core::registry::{token, AccessRole, Live};
use outfall_core::Catalog;
use outfall_server::{app, AppState};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use tower::ServiceExt;

struct Env {
    router: Router,
    state: AppState,
    officer: String,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = common::demo_copy();
    let catalog = Arc::new(Catalog::open(dir.path()).expect("demo loads"));
    let store =
        outfall_postgis::open(None, dir.path(), &catalog.manifest.words).expect("registry opens");
    let live = Arc::new(Live::start(store, catalog).expect("registry starts"));
    let officer = token::create(
        live.registry.as_ref(),
        "Pat Officer",
        AccessRole::Officer,
        token::DEFAULT_EXPIRES_DAYS,
    )
    .expect("token");
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let state = AppState::with_registry(web, live);
    Env {
        router: app(state.clone()),
        state,
        officer,
        _dir: dir,
    }
}

async fn call(router: &Router, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, String) {
    let res = router.clone().oneshot(req).await.expect("response");
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = res.into_body().collect().await.expect("body").to_bytes();
    (
        status,
        headers,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

async fn get(router: &Router, uri: &str) -> (StatusCode, String) {
    let req = Request::get(uri).body(Body::empty()).expect("request");
    let (status, _, body) = call(router, req).await;
    (status, body)
}

/// The slippy-map tile of a point at zoom `z`, as (row, column).
fn tile_of(lon: f64, lat: f64, z: u8) -> (u32, u32) {
    let n = f64::from(1u32 << z);
    let col = ((lon + 180.0) / 360.0 * n).floor() as u32;
    let lat = lat.to_radians();
    let row = ((1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n).floor()
        as u32;
    (row, col)
}

#[tokio::test]
async fn a_balancer_sees_ready_then_draining() {
    let e = env();
    let (status, body) = get(&e.router, "/healthz").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = get(&e.router, "/readyz").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let ready: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(ready["ready"], true);
    assert_eq!(ready["registry"], "reachable");
    assert_eq!(ready["sites_checked"], 15, "{ready}");

    e.state.health.start_draining();
    let (status, body) = get(&e.router, "/readyz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    let draining: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(draining["ready"], false);
    assert_eq!(draining["draining"], true);
    // A draining server still answers everything else, so nothing in flight is lost.
    assert_eq!(get(&e.router, "/healthz").await.0, StatusCode::OK);
    assert_eq!(get(&e.router, "/sites/S03").await.0, StatusCode::OK);
}

#[tokio::test]
async fn metrics_count_routes_checks_writes_and_the_tile_cache() {
    let e = env();
    for uri in ["/sites/S03", "/sites/S03", "/sites/S04", "/sites/NOPE"] {
        get(&e.router, uri).await;
    }
    let (row, col) = tile_of(-76.2, 43.15, 14);
    let tile = format!("/collections/parcels/tiles/WebMercatorQuad/14/{row}/{col}");
    get(&e.router, &tile).await;
    get(&e.router, &tile).await;
    let plan = fc(&[feature("{}", &rect(0.0, 0.0, 80.0, 80.0))]);
    let req = Request::post("/check")
        .header("content-type", "application/geo+json")
        .body(Body::from(plan))
        .expect("request");
    let (status, _, body) = call(&e.router, req).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let before = get(&e.router, "/metrics").await.1;
    let generation = sample(&before, "outfall_registry_generation").expect("generation");

    let req = Request::get("/sites/S03")
        .body(Body::empty())
        .expect("request");
    let (_, headers, _) = call(&e.router, req).await;
    let etag = headers["etag"].to_str().expect("etag").to_string();
    let req = Request::patch("/sites/S03")
        .header("authorization", format!("Bearer {}", e.officer))
        .header("if-match", etag)
        .header("content-type", "application/json")
        .body(Body::from(r#"{"status":"closed"}"#))
        .expect("request");
    let (status, _, body) = call(&e.router, req).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, text) = get(&e.router, "/metrics").await;
    assert_eq!(status, StatusCode::OK);
    let count = |series: &str| sample(&text, series).unwrap_or_else(|| panic!("{series}\n{text}"));
    // One series per route pattern, whatever the ids asked for.
    let by_id = r#"outfall_http_requests_total{method="GET",route="/sites/{id}",status="200"}"#;
    assert_eq!(count(by_id), 4.0, "three reads before, one for the ETag");
    let missing = r#"outfall_http_requests_total{method="GET",route="/sites/{id}",status="404"}"#;
    assert_eq!(count(missing), 1.0);
    assert!(!text.contains("S03"), "no id may become a label");
    assert_eq!(
        count(r#"outfall_tile_cache_lookups_total{result="miss"}"#),
        1.0
    );
    assert_eq!(
        count(r#"outfall_tile_cache_lookups_total{result="hit"}"#),
        1.0
    );
    assert_eq!(count("outfall_check_duration_seconds_count"), 1.0);
    assert_eq!(
        count(r#"outfall_registry_write_duration_seconds_count{op="patch"}"#),
        1.0
    );
    assert!(count("outfall_registry_generation") > generation);
}
