//! What a map of a report shows (the viewer and the printed inset use the same frame), the
//! printable pages, the basemap layer and search ranking, on the demo data set.

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use outfall_core::{screening, Role};
use outfall_server::{app, AppState};
use serde_json::Value;
use tower::ServiceExt;

fn state() -> AppState {
    common::demo_state()
}

async fn get(uri: &str) -> (StatusCode, String) {
    let res = app(state())
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .expect("response");
    let status = res.status();
    let body = res.into_body().collect().await.expect("body").to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

fn contains(b: [f64; 4], lon: f64, lat: f64) -> bool {
    b[0] <= lon && lon <= b[2] && b[1] <= lat && lat <= b[3]
}

#[test]
fn an_outfall_site_is_framed_with_its_outfall_entry_reach_and_listed_water() {
    let st = state();
    let r = &st.reports["S06"];
    assert_eq!(r.entry.rule, "outfall_point");
    let [lon, lat] = r.entry.outfall.expect("S06 has an outfall point");
    let frame = r.frame_bbox.expect("a frame");
    let site = r.site.bbox.expect("a site bbox");
    assert!(contains(frame, site[0], site[1]) && contains(frame, site[2], site[3]));
    assert!(contains(frame, lon, lat), "outfall in {frame:?}");
    // The entry reach (the receiving water through the outfall) lies wholly in the frame.
    let reach = r.entry.reach_id.as_deref().expect("an entry reach");
    let flowlines = st.catalog.layer(Role::Flowlines).unwrap();
    let g = &flowlines.features[flowlines.position(reach).unwrap()].geometry;
    let rb = geo::BoundingRect::bounding_rect(g).unwrap();
    assert!(contains(frame, rb.min().x, rb.min().y) && contains(frame, rb.max().x, rb.max().y));
    // The frame is more than the site: the stream next to the site is not what it shows.
    assert!(
        frame[1] < site[1] - 0.01,
        "{frame:?} reaches south to the outfall's stream"
    );
    // The sewer runs from the site's edge to the outfall.
    let [from, to] = r.outfall_path.expect("a path to the outfall");
    assert_eq!(to, [lon, lat]);
    assert!(contains(site, from[0], from[1]));
    // A site without an outfall has no path, and its frame still holds the site.
    let s01 = &st.reports["S01"];
    assert!(s01.outfall_path.is_none() && s01.entry.outfall.is_none());
    let f = s01.frame_bbox.unwrap();
    let b = s01.site.bbox.unwrap();
    assert!(contains(f, b[0], b[1]) && contains(f, b[2], b[3]));
}

#[test]
fn listed_waters_carry_their_list_year() {
    let r = &state().reports["S06"];
    let fi = r
        .first_impaired
        .as_ref()
        .expect("S06 drains to a listed water");
    assert_eq!(fi.id, "0702-0003");
    assert_eq!(fi.category.as_deref(), Some("5"));
    assert_eq!(fi.list_year.as_deref(), Some("2012"));
}

#[tokio::test]
async fn the_printed_page_frames_like_the_viewer_and_has_the_officers_blocks() {
    let st = state();
    let r = &st.reports["S06"];
    let (status, html) = get("/sites/S06/report.html").await;
    assert_eq!(status, StatusCode::OK);
    let f = r.frame_bbox.unwrap();
    let want = format!(
        "data-frame=\"{:.6},{:.6},{:.6},{:.6}\"",
        f[0], f[1], f[2], f[3]
    );
    assert!(html.contains(&want), "inset frame {want}");
    assert!(html.contains("data-outfall"), "outfall point drawn");
    assert!(html.contains("Storm sewer from the site to the outfall"));
    assert!(html.contains("data-pwl-id=\"0702-0003\""));
    assert!(html.contains("impaired; a TMDL (pollution budget) is still needed"));
    assert!(html.contains("<td>2012</td>"));
    assert!(html.contains("Reviewed by") && html.contains("Date"));
    assert!(
        html.contains("src=\"/print.js\""),
        "the Print button works under the CSP"
    );
}

/// The printed page's thresholds are the rulebook's: a town whose outfall.toml sets Condition B
/// and the limit at one time to 4 acres, and inspections every 3 days, reads its own numbers.
#[tokio::test]
async fn the_printed_page_writes_the_rulebooks_thresholds() {
    let dir = common::demo_copy();
    let toml = dir.path().join("outfall.toml");
    let text = std::fs::read_to_string(&toml).expect("demo manifest");
    let changed = text
        .replace(
            "[rules]\n",
            "[rules]\ninspection_interval_days = 3\nstorm_threshold_in = 0.25\n",
        )
        .replace("condition_b_acres = 5.0", "condition_b_acres = 4")
        .replace(
            "max_disturbed_at_once_acres = 5.0",
            "max_disturbed_at_once_acres = 4",
        );
    assert_eq!(
        changed.matches(" = 4\n").count(),
        2,
        "both settings changed"
    );
    std::fs::write(&toml, changed).expect("write manifest");
    let cat = outfall_core::Catalog::open(dir.path()).expect("the changed copy loads");
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let st = AppState::new(std::sync::Arc::new(cat), web);
    let res = app(st)
        .oneshot(
            Request::get("/sites/S06/report.html")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .expect("response");
    assert_eq!(res.status(), StatusCode::OK);
    let body = res.into_body().collect().await.expect("body").to_bytes();
    let html = String::from_utf8_lossy(&body);
    for want in [
        "Condition B: 4 acres or more disturbed",
        "Condition C: 1 to 4 acres, not a single-family home or farm",
        "Over four acres at one time without approval",
        "inspections every 3 days and after 0.25 in storms",
    ] {
        assert!(html.contains(want), "{want}");
    }
    // The rulebook's rule titles ("Condition B: five acres or more") name the law's rules and
    // stay; the labels written from the settings no longer say 5.
    for gone in [
        "5 acres or more disturbed",
        "1 to 5 acres, not",
        "Over five acres at one",
    ] {
        assert!(!html.contains(gone), "{gone}");
    }
}

#[tokio::test]
async fn a_parcel_has_a_printable_page() {
    let st = state();
    let parcel = st.reports["S04"].site.parcel_ids[0].clone();
    let (status, html) = get(&format!("/parcels/{parcel}/report.html")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(&format!("Parcel {parcel}")));
    assert!(html.contains("<svg") && html.contains("Reviewed by"));
    let report = screening::check_parcel(&st.catalog, &parcel).unwrap();
    for w in &report.impaired_waters {
        assert!(html.contains(&format!("data-pwl-id=\"{}\"", w.id)));
    }
    let (status, _) = get("/parcels/nope/report.html").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn search_ranks_whole_words_first_and_reads_road_as_rd() {
    let (_, body) = get("/search?q=Ley").await;
    let v: Value = serde_json::from_str(&body).unwrap();
    let labels: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels[0], "Ley Creek", "{labels:?}");
    let buckley = labels.iter().position(|l| l.contains("Buckley"));
    assert!(buckley.is_none_or(|i| i > 0));
    let (_, body) = get("/search?q=Buckley%20Road").await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["label"].as_str().unwrap().contains("Buckley Rd")));
}

#[tokio::test]
async fn the_basemap_is_served_as_tiles_and_items_but_is_not_the_data_sets_extent() {
    let st = state();
    let roads = st.catalog.layer(Role::Basemap).expect("the demo has roads");
    assert!(roads.features.len() > 500);
    let (status, _) = get("/collections/basemap").await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = get("/collections/basemap/items?limit=1").await;
    assert_eq!(status, StatusCode::OK);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["features"][0]["properties"]["display_name"].is_string());
    // The z14 tile around S06 holds roads.
    let res = app(state())
        .oneshot(
            Request::get("/collections/basemap/tiles/WebMercatorQuad/14/6014/4725")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    // The extent (and where an outfall may lie) is the data layers' alone, never the roads':
    // a road far past the county, added to a copy, moves the roads' box but not the extent.
    let extent = st.catalog.bbox().unwrap();
    let copy = common::demo_copy();
    let path = copy.path().join("roads.geojson");
    let mut fc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    fc["features"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "type": "Feature",
            "properties": {"LINEARID": "far", "FULLNAME": "Far Rd", "MTFCC": "S1400"},
            "geometry": {"type": "LineString", "coordinates": [[-75.0, 44.5], [-74.99, 44.51]]}
        }));
    std::fs::write(&path, fc.to_string()).unwrap();
    let far = outfall_core::Catalog::open(copy.path()).expect("copy loads");
    let far_roads = far.layer(Role::Basemap).unwrap().bbox().unwrap();
    assert!(far_roads.max().y > extent.max().y, "the far road is loaded");
    assert_eq!(far.bbox().unwrap(), extent, "roads do not move the extent");
}
