//! The HTTP API through `oneshot`: status codes, content types, paging, tiles, reports,
//! uploads and path confinement.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use outfall_server::{app, AppState};
use serde_json::Value;
use tower::ServiceExt;

fn state() -> AppState {
    common::demo_state()
}

struct Resp {
    status: StatusCode,
    content_type: String,
    body: Vec<u8>,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// The `field` of every object in a JSON array, as text.
fn strings<'a>(array: &'a Value, field: &str) -> Vec<&'a str> {
    array
        .as_array()
        .expect("an array")
        .iter()
        .map(|x| x[field].as_str().expect("a string"))
        .collect()
}

async fn send(req: Request<Body>) -> Resp {
    let res = app(state()).oneshot(req).await.expect("response");
    let status = res.status();
    let content_type = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = res
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec();
    Resp {
        status,
        content_type,
        body,
    }
}

async fn get(uri: &str) -> Resp {
    send(
        Request::get(uri)
            .header(header::HOST, "test.local")
            .body(Body::empty())
            .unwrap(),
    )
    .await
}

async fn post(uri: &str, body: Vec<u8>) -> Resp {
    send(
        Request::post(uri)
            .header(header::CONTENT_TYPE, "application/geo+json")
            .body(Body::from(body))
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn landing_page_negotiates_json_and_html() {
    let r = send(
        Request::get("/")
            .header(header::ACCEPT, "application/json")
            .header(header::HOST, "test.local")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let v = r.json();
    let rels: Vec<&str> = strings(&v["links"], "rel");
    assert!(
        rels.contains(&"conformance") && rels.contains(&"data"),
        "{rels:?}"
    );
    assert_eq!(get("/?f=json").await.json()["links"], v["links"]);
    let html = send(
        Request::get("/")
            .header(header::ACCEPT, "text/html,application/xhtml+xml")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(html.status, StatusCode::OK);
    assert!(html.content_type.starts_with("text/html"));
    assert!(html.text().contains("<html"));
    let conf = get("/conformance").await.json();
    assert!(conf["conformsTo"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c.as_str().unwrap().ends_with("conf/geojson")));
}

#[tokio::test]
async fn collections_list_every_layer_with_extent() {
    let v = get("/collections").await.json();
    let ids: Vec<&str> = strings(&v["collections"], "id");
    for want in [
        "parcels",
        "sites",
        "disturbance",
        "flowlines",
        "waterbodies",
        "tmdl",
        "boundary",
    ] {
        assert!(ids.contains(&want), "{want} missing from {ids:?}");
    }
    let p = get("/collections/parcels").await.json();
    let bbox = p["extent"]["spatial"]["bbox"][0].as_array().unwrap();
    assert!(bbox[0].as_f64().unwrap() > -76.4 && bbox[2].as_f64().unwrap() < -76.0);
    let missing = get("/collections/rivers").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.content_type, "application/problem+json");
    assert_eq!(missing.json()["status"], 404);
}

#[tokio::test]
async fn items_page_with_limits_offsets_and_links() {
    let total = state()
        .catalog
        .collection("parcels")
        .unwrap()
        .features
        .len();
    let r = get("/collections/parcels/items").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.content_type, "application/geo+json");
    let v = r.json();
    assert_eq!(v["numberMatched"], total);
    assert_eq!(v["numberReturned"], 100);
    assert_eq!(v["features"].as_array().unwrap().len(), 100);
    let next = v["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["rel"] == "next")
        .expect("next link");
    assert!(next["href"].as_str().unwrap().contains("offset=100"));

    let last = get(&format!(
        "/collections/parcels/items?limit=100&offset={}",
        total - 10
    ))
    .await
    .json();
    assert_eq!(last["numberReturned"], 10);
    let rels: Vec<&str> = strings(&last["links"], "rel");
    assert!(
        rels.contains(&"prev") && !rels.contains(&"next"),
        "{rels:?}"
    );

    let capped = get("/collections/parcels/items?limit=50000").await.json();
    assert_eq!(capped["numberReturned"], total.min(10_000));
    for bad in [
        "limit=0",
        "limit=abc",
        "limit=-3",
        "offset=x",
        "bbox=1,2,3",
        "bbox=a,b,c,d",
        "bbox=-76,44,-77,43",
    ] {
        let r = get(&format!("/collections/parcels/items?{bad}")).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(r.content_type, "application/problem+json");
    }
}

#[tokio::test]
async fn bbox_returns_exactly_the_intersecting_features() {
    use geo::Intersects;
    let (x0, y0, x1, y1) = (-76.19, 43.155, -76.17, 43.17);
    let rect = geo_types::Rect::new(
        geo_types::coord! {x: x0, y: y0},
        geo_types::coord! {x: x1, y: y1},
    )
    .to_polygon();
    let st = state();
    let layer = st.catalog.collection("parcels").unwrap();
    let want: Vec<&str> = layer
        .features
        .iter()
        .filter(|f| f.geometry.intersects(&rect))
        .map(|f| f.id.as_str())
        .collect();
    assert!(want.len() > 3, "fixture bbox should hold parcels");
    let v = get(&format!(
        "/collections/parcels/items?bbox={x0},{y0},{x1},{y1}&limit=1000"
    ))
    .await
    .json();
    assert_eq!(v["numberMatched"], want.len());
    let mut got: Vec<&str> = strings(&v["features"], "id");
    let mut want = want;
    got.sort();
    want.sort();
    assert_eq!(got, want);
    let one = get(&format!("/collections/parcels/items/{}", want[0])).await;
    assert_eq!(one.status, StatusCode::OK);
    assert_eq!(one.json()["id"], want[0]);
    assert_eq!(
        get("/collections/parcels/items/nope").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn tiles_decode_to_the_layer_and_empty_tiles_are_204() {
    use geozero::mvt::{Message, Tile};
    use outfall_core::tiles::TileId;
    let st = state();
    let s01 = &st.reports["S01"];
    let b = s01.site.bbox.unwrap();
    let t = TileId::from_lonlat((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0, 15).unwrap();
    let r = get(&format!(
        "/collections/parcels/tiles/WebMercatorQuad/{}/{}/{}",
        t.z, t.y, t.x
    ))
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.content_type, "application/vnd.mapbox-vector-tile");
    let tile = Tile::decode(r.body.as_slice()).expect("valid MVT");
    assert_eq!(tile.layers.len(), 1);
    assert_eq!(tile.layers[0].name, "parcels");
    // Parcel ids travel as a tag, so a click on a tile feature finds its parcel.
    assert!(tile.layers[0].keys.iter().any(|k| k == "id"));
    // Every parcel whose envelope meets the buffered tile and that survives clipping is there.
    let layer = st.catalog.collection("parcels").unwrap();
    let candidates = layer.query(t.bounds_lonlat()).count();
    let n = tile.layers[0].features.len();
    assert!(
        n > 0
            && n >= candidates.saturating_sub(2)
            && n <= layer.query(t.bounds_with_buffer_lonlat(64, 4096)).count(),
        "{n} features, {candidates} in tile"
    );
    // The same tile again comes from the cache, byte for byte.
    let again = get(&format!(
        "/collections/parcels/tiles/WebMercatorQuad/{}/{}/{}",
        t.z, t.y, t.x
    ))
    .await;
    assert_eq!(again.body, r.body);
    assert_eq!(
        get("/collections/parcels/tiles/WebMercatorQuad/15/0/0")
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        get("/collections/parcels/tiles/WebMercatorQuad/3/9/9")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    let tj = get("/collections/parcels/tiles/WebMercatorQuad")
        .await
        .json();
    assert_eq!(tj["vector_layers"][0]["id"], "parcels");
    assert!(tj["tiles"][0]
        .as_str()
        .unwrap()
        .ends_with("/collections/parcels/tiles/WebMercatorQuad/{z}/{y}/{x}"));
}

#[tokio::test]
async fn sites_list_filters_by_status_and_reports_match_the_cli() {
    let v = get("/sites?status=active").await.json();
    let ids: Vec<&str> = strings(&v["sites"], "id");
    let st = state();
    let sites_layer = st.catalog.layer(outfall_core::Role::Sites).unwrap();
    // "active" is a word of the status vocabulary: it filters by its code, under_construction,
    // whatever word each site's record uses for it.
    let words = &st.catalog.manifest.words.status;
    let want: Vec<&str> = sites_layer
        .features
        .iter()
        .filter(|f| {
            f.properties
                .get("status")
                .and_then(|s| s.as_str().map(String::from))
                .is_some_and(|s| {
                    outfall_core::claims::lookup(words, &s) == Some("under_construction")
                })
        })
        .map(|f| f.id.as_str())
        .collect();
    assert!(
        want.len() > 2,
        "the demo has sites under construction in several words"
    );
    assert_eq!(ids, want);
    assert!(!ids.contains(&"S09") && !ids.contains(&"S11"));
    let all = get("/sites").await.json();
    assert_eq!(
        all["sites"].as_array().unwrap().len(),
        st.catalog.sites.len()
    );

    let api = get("/sites/S04/report").await.json();
    // Through JSON text both ways, as a client sees it (serde_json's default float parser
    // is not exact in the last digit, so compare like with like).
    let cli: Value = serde_json::from_str(
        &serde_json::to_string(&outfall_core::screening::check_site(&st.catalog, "S04").unwrap())
            .unwrap(),
    )
    .unwrap();
    for key in [
        "site",
        "disturbance",
        "conditions",
        "receiving_water_names",
        "downstream",
        "first_impaired",
        "findings",
    ] {
        assert_eq!(api[key], cli[key], "{key}");
    }
    assert_eq!(api["conditions"]["A"], true);
    // Candidates carry the SWPPP name, not just "unnamed".
    assert_eq!(api["receiving_waters"][0]["name"], "Sawmill Creek");
    assert_eq!(get("/sites/S99/report").await.status, StatusCode::NOT_FOUND);

    let html = get("/sites/S04/report.html").await;
    assert!(html.content_type.starts_with("text/html"));
    let text = html.text();
    let parcels_sha = st
        .catalog
        .collection("parcels")
        .unwrap()
        .source
        .sha256
        .clone();
    assert!(
        text.contains("Condition A")
            && text.contains("§230-20 D(7)(b)[2]")
            && text.contains(&parcels_sha)
            && text.contains("<svg")
    );

    let trace = get("/sites/S04/trace").await.json();
    let n = trace["features"].as_array().unwrap().len();
    assert_eq!(n, api["downstream"].as_array().unwrap().len());
    // Sawmill Creek is not listed; the first listed water on the path is Onondaga Lake.
    assert_eq!(trace["features"][0]["properties"]["first_impaired"], false);
    let flagged: Vec<&Value> = trace["features"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["properties"]["first_impaired"] == true)
        .collect();
    assert_eq!(flagged.len(), 1);
    assert_eq!(api["first_impaired"]["id"], "0702-0003");
}

#[tokio::test]
async fn a_parcel_gets_its_receiving_waters() {
    let st = state();
    let parcel = st.reports["S02"].site.parcel_ids[0].clone();
    let v = get(&format!("/parcels/{parcel}/receiving-waters"))
        .await
        .json();
    assert_eq!(v["site"]["id"], parcel);
    // No plan exists yet: the acreage findings say they assume the whole parcel.
    let lda = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "land_development_activity")
        .unwrap();
    assert!(
        lda["reason"]
            .as_str()
            .unwrap()
            .starts_with("If the whole parcel were disturbed"),
        "{lda}"
    );
    assert!(
        v["receiving_water_names"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "Mud Creek"),
        "{}",
        v["receiving_water_names"]
    );
    assert_eq!(
        get("/parcels/000-nope/receiving-waters").await.status,
        StatusCode::NOT_FOUND
    );
}

fn square_fc(x: f64, y: f64, d: f64) -> String {
    format!(
        r#"{{"type":"FeatureCollection","features":[{{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[[[{x},{y}],[{x2},{y}],[{x2},{y2}],[{x},{y2}],[{x},{y}]]]}}}}]}}"#,
        x2 = x + d,
        y2 = y + d
    )
}

#[tokio::test]
async fn post_check_reports_and_rejects_bad_uploads_clearly() {
    // Near S04 (the unnamed tributary to Ley Creek), about 2.4 acres.
    let b = state().reports["S04"].site.bbox.unwrap();
    let ok = post("/check", square_fc(b[0], b[1], 0.0012).into_bytes()).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text());
    let v = ok.json();
    assert!(v["disturbance"]["total_acres"].as_f64().unwrap() > 1.0);
    assert_eq!(v["conditions"]["C"], true);
    assert!(!v["receiving_water_names"].as_array().unwrap().is_empty());

    let big = post("/check", vec![b' '; outfall_server::MAX_UPLOAD_BYTES + 10]).await;
    assert_eq!(big.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(big.content_type, "application/problem+json");
    assert!(big.json()["detail"].as_str().unwrap().contains("MiB"));

    let cases: Vec<(&str, String)> = vec![
        ("not JSON", "hello".into()),
        ("empty", r#"{"type":"FeatureCollection","features":[]}"#.into()),
        ("point", r#"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[-76.2,43.1]}}"#.into()),
        ("bowtie", r#"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[-76.2,43.1],[-76.19,43.11],[-76.19,43.1],[-76.2,43.11],[-76.2,43.1]]]}}"#.into()),
        ("nested", format!("{}{}", "[".repeat(5000), "]".repeat(5000))),
    ];
    for (what, body) in cases {
        let r = post("/check", body.into_bytes()).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{what}: {}",
            r.text()
        );
        assert_eq!(r.content_type, "application/problem+json", "{what}");
        assert!(
            r.json()["detail"].as_str().unwrap().contains("upload"),
            "{what}: {}",
            r.text()
        );
    }
}

#[tokio::test]
async fn search_finds_parcels_sites_and_waters() {
    let v = get("/search?q=mud").await.json();
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["kind"] == "water" && r["label"] == "Mud Creek"));
    let v = get("/search?q=taft").await.json();
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["kind"] == "site" && r["id"] == "S04"));
    let parcel = state().reports["S01"].site.parcel_ids[0].clone();
    let v = get(&format!("/search?q={parcel}")).await.json();
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["kind"] == "parcel" && r["id"] == parcel.as_str()));
    assert_eq!(get("/search").await.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn static_files_are_confined_to_web() {
    let ok = get("/style.css").await;
    assert_eq!(ok.status, StatusCode::OK);
    for evil in [
        "/../Cargo.toml",
        "/%2e%2e/Cargo.toml",
        "/..%2fCargo.toml",
        "/vendor/maplibre-gl/../../../../Cargo.toml",
        "/%2e%2e%2f%2e%2e%2fetc/passwd",
        "/web/../src/main.rs",
    ] {
        let r = get(evil).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{evil}");
        assert!(!r.text().contains("[package]"), "{evil} leaked a file");
    }
}

#[tokio::test]
async fn the_rulebook_and_tri_state_reports_are_served() {
    let r = get("/rules").await;
    assert_eq!(r.status, StatusCode::OK);
    let v = r.json();
    let ids = strings(&v["rules"], "id");
    assert_eq!(ids.len(), 14);
    assert!(ids.contains(&"condition_a") && ids.contains(&"inspections"));
    assert!(v["rules"][0]["law"].as_str().unwrap().contains("(4)(a)"));

    // S07: no water within the radius, so Condition A needs data, and says which.
    let s07 = get("/sites/S07/report").await.json();
    assert!(s07["conditions"]["A"].is_null());
    let a = s07["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "condition_a")
        .unwrap();
    assert!(a["met"].is_null());
    assert!(a["missing"][0].as_str().unwrap().contains("outfall point"));
    let today = chrono::Local::now().date_naive().to_string();
    assert_eq!(s07["data"]["generated"], today.as_str());

    // S10 drains to Mud Creek, which the 303(d) list loaded does not cover: null, naming it.
    let s10 = get("/sites/S10/report").await.json();
    assert!(s10["conditions"]["A"].is_null());
    let a = s10["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "condition_a")
        .unwrap();
    let missing = a["missing"][0].as_str().unwrap();
    assert!(
        missing.contains("(0703-0046)") && missing.contains("does not cover it"),
        "{missing}"
    );
    let first = &s10["downstream"][0];
    assert_eq!(first["assessment"], "not covered by the list loaded");

    // S13 lies outside the town: the law does not apply, on the JSON and the printed page.
    let s13 = get("/sites/S13/report").await.json();
    assert_eq!(s13["conditions"]["in_jurisdiction"], false);
    let html = get("/sites/S13/report.html").await.text();
    assert!(html.contains("Outside the Town"), "{html}");
    assert!(html.contains(&today));
}

/// A plan checked with `POST /check` may carry its record, in a `site` object or in its
/// first feature's properties; the fields are checked as `PATCH` checks them, so a code no
/// vocabulary knows is a 422 naming the allowed values, and the words are read as codes.
#[tokio::test]
async fn post_check_reads_the_typed_record_and_refuses_unknown_codes() {
    let b = state().reports["S04"].site.bbox.unwrap();
    let with = |site: Value, properties: Value| {
        let mut fc: Value = serde_json::from_str(&square_fc(b[0], b[1], 0.0012)).unwrap();
        fc["features"][0]["properties"] = properties;
        if !site.is_null() {
            fc["site"] = site;
        }
        fc.to_string().into_bytes()
    };
    let cases = [
        (
            serde_json::json!({"exemption_claims": [{"code": "signage assignment"}]}),
            Value::Null,
            "exemption_claims[0].code",
            "a to k",
        ),
        (
            Value::Null,
            serde_json::json!({"exemption_claims": [{"code": "z"}]}),
            "exemption_claims[0].code",
            "a to k",
        ),
        (
            serde_json::json!({"status": "demolished"}),
            Value::Null,
            "status",
            "planned, approved, under_construction, stabilized, closed, withdrawn",
        ),
        (
            Value::Null,
            serde_json::json!({"land_use": "mall"}),
            "land_use",
            "single_family_residence, agricultural, other",
        ),
        (
            serde_json::json!({"swppp_approval": {"decision": "ok per Bob"}}),
            Value::Null,
            "swppp_approval.decision",
            "approved, denied, pending, withdrawn",
        ),
        (
            serde_json::json!("approved"),
            Value::Null,
            "\"site\"",
            "object",
        ),
    ];
    for (site, properties, field, allowed) in cases {
        let r = post("/check", with(site.clone(), properties.clone())).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{site} {properties}: {}",
            r.text()
        );
        assert_eq!(r.content_type, "application/problem+json");
        let detail = r.json()["detail"].as_str().unwrap_or_default().to_string();
        assert!(
            detail.contains(field) && detail.contains(allowed),
            "{detail}"
        );
    }
    // Known words are read as their codes; the site object is laid over the properties.
    let site = serde_json::json!({"status": "in progress", "land_use": "farm",
        "exemption_claims": [{"code": "(5)(i)", "immediately_necessary": true}]});
    let r = post(
        "/check",
        with(site, serde_json::json!({"status": "planned"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    let v = r.json();
    assert_eq!(v["site"]["status"], "under_construction");
    assert_eq!(v["site"]["agricultural"], true);
    assert_eq!(v["site"]["exemption_claims"][0]["code"], "i");
    // An applicant's own plan can claim the emergency exemption, never verify it: that is
    // the officer's finding.
    assert_ne!(v["conditions"]["exempt"], true, "{}", v["conditions"]);
    // The other columns of an uploaded file are the file's own and are not refused.
    let r = post(
        "/check",
        with(
            Value::Null,
            serde_json::json!({"OWNER": "x", "common_plan": "Y"}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
}

/// Issue 23: the printed report starts with its one-glance summary, shows each listed water's
/// TMDL (flagging category 5 inside a TMDL's watershed), names the streams and streets on its
/// inset map, and never prints "-0.00 ac".
#[tokio::test]
async fn the_printed_report_starts_with_the_answer_and_labels_its_map() {
    let text = get("/sites/S06/report.html").await.text();
    let summary = text.find("class=\"summary\"").expect("a summary");
    assert!(
        summary < text.find("<h2>Receiving waters</h2>").unwrap(),
        "the summary comes first"
    );
    assert!(
        text.contains("<td data-summary=\"a\"><strong>yes</strong>"),
        "{text}"
    );
    assert!(text.contains("Sawmill Creek (outfall point given by the applicant)"));
    assert!(text.contains("Onondaga Lake, northern end</strong> · PWL 0702-0003"));
    assert!(text.contains("category 5: impaired"));
    assert!(text.contains("SWPPP: required"));
    // The northern end lies in the phosphorus TMDL's watershed; the outlet's water past it.
    let north = &text[text.find("data-pwl-id=\"0702-0003\"").unwrap()..];
    let row = &north[..north.find("</tr>").unwrap()];
    assert!(
        row.contains("Onondaga Lake phosphorus TMDL (2012) (phosphorus)"),
        "{row}"
    );
    assert!(row
        .contains("the list says a TMDL is still needed (category 5), yet one covers this water"));
    let outlet = &text[text.find("data-pwl-id=\"0702-0020\"").unwrap()..];
    assert!(outlet[..outlet.find("</tr>").unwrap()].contains("none recorded"));
    assert!(
        text.contains("data-kind=\"stream\" data-label=\"Sawmill Creek\""),
        "the stream is named on the inset"
    );
    assert!(
        text.contains("data-kind=\"street\" data-label=\""),
        "streets are named on the inset"
    );
    for id in state().reports.keys() {
        let page = get(&format!("/sites/{id}/report.html")).await.text();
        assert!(!page.contains("-0.00"), "{id}");
    }
}

/// Issue 23: search finds a PWL ID and a loosely typed parcel id, and no site by a street
/// that is not its own (S06, "Buckley Road self-storage", lies on Bear Rd).
#[tokio::test]
async fn search_finds_pwl_ids_loose_parcel_ids_and_sites_by_their_own_street() {
    let first = |v: &Value| v["results"][0].clone();
    let pwl = get("/search?q=0702-0001").await.json();
    assert_eq!(first(&pwl)["kind"], "water");
    assert_eq!(first(&pwl)["pwl_id"], "0702-0001");
    for q in ["055-01-07", "55.-1-7"] {
        let r = get(&format!("/search?q={q}")).await.json();
        assert_eq!(first(&r)["id"], "055.-01-07.0", "{q}: {r}");
    }
    let other = get("/search?q=Buckley%20Rd").await.json();
    assert!(
        !other["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["kind"] == "site"),
        "{other}"
    );
    let own = get("/search?q=Bear%20Rd").await.json();
    assert!(
        own["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "S06"),
        "{own}"
    );
    let by_name = get("/search?q=Buckley").await.json();
    assert!(
        by_name["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "S06"),
        "a name still finds its site"
    );
}
