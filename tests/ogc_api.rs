//! OGC API conformance details a client relies on: JSON unless HTML is asked for first,
//! 400 for unknown parameters and bad datetimes, datetime on dated layers, the Tiles
//! resources, CORS for reads only, no caching of errors, and the OpenAPI route table.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use outfall_core::Catalog;
use outfall_server::{app, AppState};
use serde_json::Value;
use std::sync::{Arc, OnceLock};
use tower::ServiceExt;

fn state() -> AppState {
    static CAT: OnceLock<Arc<Catalog>> = OnceLock::new();
    let cat = CAT
        .get_or_init(|| Arc::new(Catalog::open(&common::demo_dir()).unwrap()))
        .clone();
    AppState::new(cat, concat!(env!("CARGO_MANIFEST_DIR"), "/web").into())
}

struct Resp {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
    fn header(&self, h: header::HeaderName) -> &str {
        self.headers
            .get(h)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

async fn send(req: Request<Body>) -> Resp {
    let res = app(state()).oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    Resp {
        status,
        headers,
        body,
    }
}

async fn get(uri: &str) -> Resp {
    send(Request::get(uri).body(Body::empty()).unwrap()).await
}

async fn get_accept(uri: &str, accept: &str) -> Resp {
    send(
        Request::get(uri)
            .header(header::ACCEPT, accept)
            .body(Body::empty())
            .unwrap(),
    )
    .await
}

fn ids(v: &Value) -> Vec<String> {
    v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn landing_is_json_unless_html_comes_first() {
    for accept in ["*/*", "application/json", ""] {
        let r = get_accept("/", accept).await;
        let v = r.json();
        let rels: Vec<&str> = v["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["rel"].as_str().unwrap())
            .collect();
        for rel in ["service-desc", "service-doc", "conformance", "data"] {
            assert!(rels.contains(&rel), "{accept}: no {rel} in {rels:?}");
        }
    }
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let r = get_accept("/", browser).await;
    assert!(r.header(header::CONTENT_TYPE).starts_with("text/html"));
    let r = get_accept("/?f=json", browser).await;
    assert!(r
        .header(header::CONTENT_TYPE)
        .starts_with("application/json"));
    // The service-doc is HTML for a browser and lists the items operation.
    let doc = get_accept("/api", browser).await;
    assert!(doc.header(header::CONTENT_TYPE).starts_with("text/html"));
    assert!(String::from_utf8_lossy(&doc.body).contains("/collections/{collectionId}/items"));
    let api = get("/api").await;
    assert!(api.header(header::CONTENT_TYPE).contains("openapi+json"));
    assert_eq!(api.json()["openapi"], "3.0.3");
}

#[tokio::test]
async fn unknown_query_parameters_are_400_naming_them() {
    let r = get("/collections/parcels/items?limit=2&colour=red").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.json()["detail"].as_str().unwrap().contains("'colour'"));
    assert_eq!(
        r.header(header::CACHE_CONTROL),
        "no-store",
        "4xx is never cached"
    );
    // What the viewer and the clients send stays accepted.
    for ok in [
        "/collections/parcels/items?limit=10000",
        "/collections/parcels/items?f=json&limit=5&offset=3",
        "/collections/sites/items?bbox=-76.3,43.1,-76.1,43.2&datetime=2026-01-01/..",
        "/collections/?f=json",
    ] {
        assert_eq!(get(ok).await.status, StatusCode::OK, "{ok}");
    }
    let a = get("/collections").await.json();
    let b = get("/collections/").await.json();
    assert_eq!(a, b);
}

#[tokio::test]
async fn datetime_filters_dated_layers_and_refuses_bad_values() {
    let cat = Catalog::open(&common::demo_dir()).unwrap();
    let layer = cat.collection("disturbance").unwrap();
    let all = get("/collections/disturbance/items?limit=10000")
        .await
        .json();
    let n_all = all["numberMatched"].as_u64().unwrap();
    // Every phase active on a day, computed from the demo's own start/end columns.
    let day = "2026-06-15";
    let want: Vec<String> = layer
        .features
        .iter()
        .filter(|f| {
            let d = |k: &str| {
                f.properties
                    .get(k)
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            };
            let (s, e) = (d("start"), d("end"));
            (!s.is_empty() || !e.is_empty())
                && (s.is_empty() || s.as_str() <= day)
                && (e.is_empty() || e.as_str() >= day)
        })
        .map(|f| f.id.clone())
        .collect();
    let on_day = get(&format!(
        "/collections/disturbance/items?limit=10000&datetime={day}"
    ))
    .await
    .json();
    assert_eq!(ids(&on_day), want);
    assert!(
        !want.is_empty() && (want.len() as u64) < n_all,
        "the filter selects"
    );
    // Open intervals: before and after the day together cover every dated phase.
    let upto = get(&format!(
        "/collections/disturbance/items?limit=10000&datetime=../{day}"
    ))
    .await
    .json();
    let from = get(&format!(
        "/collections/disturbance/items?limit=10000&datetime={day}/.."
    ))
    .await
    .json();
    assert!(upto["numberMatched"].as_u64() <= Some(n_all));
    assert!(from["numberMatched"].as_u64() >= on_day["numberMatched"].as_u64());
    // The next link keeps the filter.
    let page = get(&format!(
        "/collections/disturbance/items?limit=1&datetime={day}"
    ))
    .await
    .json();
    let next = page["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["rel"] == "next")
        .unwrap();
    assert!(next["href"]
        .as_str()
        .unwrap()
        .contains("datetime=2026-06-15"));
    // Sites by their phases' dates; the collection says its temporal extent.
    let sites = get("/collections/sites/items?datetime=1990-01-01")
        .await
        .json();
    assert_eq!(sites["numberMatched"], 0);
    let col = get("/collections/sites").await.json();
    assert!(col["extent"]["temporal"]["interval"][0][0].is_string());
    for bad in ["yesterday", "2026-13-01", "2026-06-01/2026-05-01", "../.."] {
        let r = get(&format!("/collections/disturbance/items?datetime={bad}")).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(r.header(header::CONTENT_TYPE), "application/problem+json");
    }
    let r = get("/collections/parcels/items?datetime=2026-06-15").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "parcels carry no dates");
}

#[tokio::test]
async fn tiles_resources_chain_from_collection_to_tile() {
    let col = get("/collections/parcels").await.json();
    let tilesets = col["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["rel"] == "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector")
        .unwrap();
    assert!(tilesets["href"]
        .as_str()
        .unwrap()
        .ends_with("/collections/parcels/tiles"));
    let list = get("/collections/parcels/tiles").await.json();
    let ts = &list["tilesets"][0];
    assert_eq!(ts["dataType"], "vector");
    let tms_uri = ts["tileMatrixSetURI"].as_str().unwrap();
    let sets = get("/tileMatrixSets").await.json();
    assert_eq!(sets["tileMatrixSets"][0]["uri"], tms_uri);
    let meta = get("/collections/parcels/tiles/WebMercatorQuad")
        .await
        .json();
    let item = meta["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["rel"] == "item")
        .unwrap();
    assert!(item["href"]
        .as_str()
        .unwrap()
        .ends_with("/{tileMatrix}/{tileRow}/{tileCol}"));
    assert_eq!(meta["tilejson"], "3.0.0", "TileJSON stays for MapLibre");
    let tms = get("/tileMatrixSets/WebMercatorQuad").await.json();
    let m = tms["tileMatrices"].as_array().unwrap();
    assert_eq!(m[0]["matrixWidth"], 1);
    assert_eq!(m[16]["matrixWidth"], 65536);
    let ratio =
        m[0]["scaleDenominator"].as_f64().unwrap() / m[1]["scaleDenominator"].as_f64().unwrap();
    assert!((ratio - 2.0).abs() < 1e-12);
    assert!((m[0]["scaleDenominator"].as_f64().unwrap() - 559_082_264.028_717_8).abs() < 1e-3);
    assert_eq!(
        get("/tileMatrixSets/WorldCRS84Quad").await.status,
        StatusCode::NOT_FOUND
    );
    let conf = get("/conformance").await.json();
    assert!(conf["conformsTo"]
        .to_string()
        .contains("ogcapi-tiles-1/1.0/conf/tileset"));
}

#[tokio::test]
async fn cors_opens_reads_to_any_origin_but_not_writes() {
    let r = send(
        Request::get("/collections/sites/items")
            .header(header::ORIGIN, "https://another-town.example")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), "*");
    let pre = send(
        Request::options("/check")
            .header(header::ORIGIN, "https://another-town.example")
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(!pre
        .header(header::ACCESS_CONTROL_ALLOW_METHODS)
        .contains("POST"));
    let post = send(
        Request::post("/check")
            .header(header::ORIGIN, "https://another-town.example")
            .header(header::CONTENT_TYPE, "text/plain")
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(post.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), "");
}

#[tokio::test]
async fn impaired_table_is_a_collection_of_matched_waters() {
    let v = get("/collections/impaired/items?limit=10000").await.json();
    let feats = v["features"].as_array().unwrap();
    assert!(!feats.is_empty());
    let table = std::fs::read_to_string(common::demo_dir().join("impaired_303d.csv")).unwrap();
    for f in feats {
        let p = &f["properties"];
        let id = p["id"].as_str().unwrap();
        assert!(table.contains(id), "{id} is a listed PWL id");
        assert_eq!(p["list_year"], 2012);
        assert!(!p["causes"].as_str().unwrap().is_empty());
        assert!(p["category"].is_string() && p["name"].is_string());
        assert!(matches!(
            p["water_kind"].as_str(),
            Some("reach" | "waterbody")
        ));
    }
    // Onondaga Lake's northern end (0702-0003) is listed for mercury among others.
    let lake = feats
        .iter()
        .find(|f| f["properties"]["id"] == "0702-0003")
        .expect("Onondaga Lake's listing is served");
    assert!(lake["properties"]["causes"]
        .as_str()
        .unwrap()
        .to_lowercase()
        .contains("mercury"));
}

/// Every route is registered through `routes!`, so `/api` describes it: a plain `.route(`
/// in the route table is a route the OpenAPI document does not know.
#[test]
fn the_route_table_documents_every_route() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/outfall-server/src/lib.rs"
    ))
    .unwrap();
    let undocumented: Vec<&str> = src
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with(".route(\""))
        // A trailing-slash alias of a documented resource is the same resource.
        .filter(|l| !l.starts_with(".route(\"/collections/\""))
        .collect();
    assert!(
        undocumented.is_empty(),
        "routes outside routes!(): {undocumented:?}"
    );
}

/// A sites feature carries the typed record beside the town's own columns: the status code
/// (`status` stays the word the file records), the SWPPP decision, the claims and their
/// outcomes, the land use's source and the sources of each finding.
#[tokio::test]
async fn site_features_carry_the_typed_record_and_the_sources() {
    let s02 = get("/collections/sites/items/S02").await.json();
    let p = &s02["properties"];
    assert_eq!(p["status"], "active", "the file's own column is unchanged");
    assert_eq!(p["status_code"], "under_construction");
    assert_eq!(p["status_recorded"], "active");
    assert_eq!(p["active_without_approval"], true);
    assert_eq!(p["single_family_source"], "site record: land_use");
    let s04 = get("/collections/sites/items/S04").await.json();
    let p = &s04["properties"];
    assert_eq!(p["swppp_decision"], "approved");
    assert_eq!(p["swppp_approval_date"], "2026-09-15");
    assert_eq!(p["swppp_reference"], "SWPPP-2026-022");
    assert_eq!(p["swppp_approved_by"], "planning_board");
    assert_eq!(p["swppp_source"], "swppp_approval");
    assert_eq!(p["agricultural_source"], "parcel class 449");
    assert!(p["condition_c_sources"]
        .as_str()
        .unwrap()
        .contains("parcel class 449"));
    assert_eq!(p["condition_b_sources"], "disturbance polygons");
    assert!(p["condition_a_sources"]
        .as_str()
        .unwrap()
        .contains("receiving water"));
    assert!(p["five_acre_limit_sources"]
        .as_str()
        .unwrap()
        .contains("swppp_approval"));
    assert!(p["land_development_activity_sources"]
        .as_str()
        .unwrap()
        .contains("disturbance polygons"));
    assert!(
        p["swppp_approval"].is_object(),
        "the typed object is served as the file has it"
    );
    let s14 = get("/collections/sites/items/S14").await.json();
    let p = &s14["properties"];
    assert_eq!(p["exemption_codes"], "c;k");
    assert_eq!(p["exemptions_verified"], "c:unverified;k:unverified");
    assert!(p["exemption_sources"]
        .as_str()
        .unwrap()
        .contains("site record: exemption 'k'"));
    assert!(p["active_without_approval_sources"]
        .as_str()
        .unwrap()
        .contains("site record: status"));
    // The items page writes the same properties.
    let page = get("/collections/sites/items?limit=100").await.json();
    let f = page["features"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "S14")
        .unwrap();
    assert_eq!(f["properties"], s14["properties"]);
}
