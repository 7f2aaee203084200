//! The storm sewer on a made-up town: exact paths, each piece of direction evidence, the
//! entry rule `storm_sewer` ahead of the nearest water, two outfalls, an undecided pipe
//! that leaves the receiving water unknown, and each problem `outfall validate` reports.

mod common;

use common::town::{fc, lonlat, rect, Town};
use outfall_core::storm::Evidence;

fn point(id: &str, extra: &str, dx: f64, dy: f64) -> String {
    let (x, y) = lonlat(dx, dy);
    format!(
        r#"{{"type":"Feature","properties":{{"id":"{id}"{extra}}},"geometry":{{"type":"Point","coordinates":[{x},{y}]}}}}"#
    )
}

fn pipe(props: &str, pts: &[(f64, f64)]) -> String {
    let coords: Vec<String> = pts
        .iter()
        .map(|&(dx, dy)| {
            let (x, y) = lonlat(dx, dy);
            format!("[{x},{y}]")
        })
        .collect();
    format!(
        r#"{{"type":"Feature","properties":{props},"geometry":{{"type":"LineString","coordinates":[{}]}}}}"#,
        coords.join(",")
    )
}

const STRUCTURES: &str =
    "[[layer]]\nrole = \"storm_structures\"\npath = \"structures.geojson\"\nid_field = \"id\"\n\
[layer.storm]\ntype_field = \"type\"\nreceiving_water_field = \"water\"\n\
type_values = { CB = \"inlet\", MH = \"manhole\", OF = \"outfall\" }\n";
const PIPES: &str =
    "[[layer]]\nrole = \"storm_pipes\"\npath = \"pipes.geojson\"\nid_field = \"id\"\n\
[layer.storm]\nup_id_field = \"up\"\ndown_id_field = \"down\"\nup_invert_field = \"up_inv\"\n\
down_invert_field = \"down_inv\"\nmissing = [\"-1\", \"0\"]\nsnap_m = 1.0\nvertex_order = true\n";
const LOOSE: &str =
    "[[layer]]\nrole = \"storm_pipes\"\npath = \"loose.geojson\"\nid_field = \"id\"\n\
[layer.storm]\nsnap_m = 1.0\n";
const FAR_BROOK: &str = "[[layer]]\nrole = \"flowlines\"\npath = \"far.geojson\"\nid_field = \"id\"\nname_field = \"name\"\n";

fn structures() -> String {
    let t = |k: &str| format!(r#","type":"{k}""#);
    fc(&[
        point("CB1", &t("CB"), 25.0, 25.0),
        point("MH1", &t("MH"), 25.0, 200.0),
        point("MH2", &t("MH"), 800.0, 200.0),
        point("OF1", &t("OF"), 1490.0, 200.0),
        // Site S3's two inlets: one to OF1, one to OF2 whose record names its water.
        point("CB3", &t("CB"), 10.0, 610.0),
        point("CB4", &t("CB"), 50.0, 610.0),
        point(
            "OF2",
            &format!(r#"{},"water":"Named Creek""#, t("OF")),
            10.0,
            900.0,
        ),
        // Site S2's inlet drains through a pipe nothing directs.
        point("CB2", &t("CB"), -575.0, -575.0),
        // The problems.
        point("MH3", &t("MH"), -800.0, 500.0),
        point("MH4", &t("MH"), -800.0, 600.0),
        point("MH5", &t("MH"), -700.0, 600.0),
        point("MH9", &t("MH"), -900.0, 900.0),
        // Site S4's inlet drains to a manhole where the data stop (an extract's edge).
        point("CB5", &t("CB"), 300.0, -300.0),
        point("MH6", &t("MH"), 300.0, -450.0),
    ])
}

fn pipes() -> String {
    fc(&[
        pipe(
            r#"{"id":"P1","up":"CB1","down":"MH1"}"#,
            &[(25.0, 25.0), (25.0, 200.0)],
        ),
        // Digitised from MH2 to MH1; the inverts say MH1 (99) runs to MH2 (98).
        pipe(
            r#"{"id":"P2","up":"-1","down":"-1","up_inv":98.0,"down_inv":99.0}"#,
            &[(800.0, 200.0), (25.0, 200.0)],
        ),
        pipe(
            r#"{"id":"P3","up_inv":0,"down_inv":0}"#,
            &[(800.0, 200.0), (1490.0, 200.0)],
        ),
        pipe(
            r#"{"id":"P9","up":"CB3","down":"OF2"}"#,
            &[(10.0, 610.0), (10.0, 900.0)],
        ),
        pipe(
            r#"{"id":"P10","up":"CB4","down":"MH1"}"#,
            &[(50.0, 610.0), (25.0, 200.0)],
        ),
        // Ids say MH3 -> MH4, but MH3's invert is the lower.
        pipe(
            r#"{"id":"P4","up":"MH3","down":"MH4","up_inv":95.0,"down_inv":96.0}"#,
            &[(-800.0, 500.0), (-800.0, 600.0)],
        ),
        pipe(
            r#"{"id":"P5","up":"MH4","down":"MH5"}"#,
            &[(-800.0, 600.0), (-700.0, 600.0)],
        ),
        pipe(
            r#"{"id":"P6","up":"MH5","down":"MH4"}"#,
            &[(-700.0, 600.0), (-800.0, 600.0)],
        ),
        pipe(
            r#"{"id":"P11","up":"CB5","down":"MH6"}"#,
            &[(300.0, -300.0), (300.0, -450.0)],
        ),
        // From MH3 to a bare end that joins nothing.
        pipe(r#"{"id":"P7"}"#, &[(-800.0, 500.0), (-800.0, 400.0)]),
    ])
}

fn loose() -> String {
    fc(&[pipe(
        r#"{"id":"P8"}"#,
        &[(-575.0, -575.0), (-400.0, -575.0)],
    )])
}

fn town() -> Town {
    let far = fc(&[format!(
        r#"{{"type":"Feature","properties":{{"id":"R2","name":"Far Brook"}},"geometry":{{"type":"LineString","coordinates":[[{},{}],[{},{}]]}}}}"#,
        lonlat(1500.0, -500.0).0,
        lonlat(1500.0, -500.0).1,
        lonlat(1500.0, 1500.0).0,
        lonlat(1500.0, 1500.0).1
    )]);
    Town::new()
        .layer(FAR_BROOK, "far.geojson", far)
        .layer(STRUCTURES, "structures.geojson", structures())
        .layer(PIPES, "pipes.geojson", pipes())
        .layer(LOOSE, "loose.geojson", loose())
        .sites(&[
            ("", vec![("1", "", "", rect(0.0, 0.0, 50.0, 50.0))]),
            ("", vec![("1", "", "", rect(-600.0, -600.0, 50.0, 50.0))]),
            ("", vec![("1", "", "", rect(0.0, 600.0, 60.0, 20.0))]),
            ("", vec![("1", "", "", rect(290.0, -310.0, 20.0, 20.0))]),
        ])
}

#[test]
fn each_pipe_records_the_evidence_that_directed_it() {
    let (_dir, cat) = town().open();
    let net = cat.storm.as_ref().expect("storm layers build a network");
    let by = |id: &str| net.pipes.iter().find(|p| p.id == id).expect(id);
    let ends = |id: &str| {
        let p = by(id);
        (
            net.nodes[p.from].id.clone(),
            net.nodes[p.to].id.clone(),
            p.evidence,
        )
    };
    assert_eq!(ends("P1"), ("CB1".into(), "MH1".into(), Evidence::Ids));
    assert_eq!(ends("P2"), ("MH1".into(), "MH2".into(), Evidence::Inverts));
    assert_eq!(
        ends("P3"),
        ("MH2".into(), "OF1".into(), Evidence::VertexOrder)
    );
    assert_eq!(by("P8").evidence, Evidence::Undecided);
    // 690 m as the made-up town lays it out (its degrees are rounder than the metric frame's).
    assert!(
        (by("P3").length_m - 690.0).abs() < 690.0 * 0.01,
        "{}",
        by("P3").length_m
    );
}

#[test]
fn a_site_drains_through_the_pipes_to_a_farther_stream_than_the_nearest() {
    let r = town().report("S1");
    assert_eq!(r.entry.rule, "storm_sewer", "{}", r.entry.reason);
    assert_eq!(r.receiving_water_names, vec!["Far Brook".to_string()]);
    let s = r
        .entry
        .sewer
        .as_ref()
        .expect("the sewer trace is in the report");
    let path: Vec<(&str, Evidence)> = s
        .trace
        .pipes
        .iter()
        .map(|p| (p.id.as_str(), p.evidence))
        .collect();
    assert_eq!(
        path,
        vec![
            ("P1", Evidence::Ids),
            ("P2", Evidence::Inverts),
            ("P3", Evidence::VertexOrder)
        ]
    );
    assert_eq!(s.trace.inlets[0].inlet, "CB1");
    assert_eq!(s.trace.inlets[0].outfalls, vec!["OF1".to_string()]);
    assert_eq!(s.outfalls[0].source, Some("water at the outfall"));
    assert!(r.entry.reason.contains("CB1"), "{}", r.entry.reason);
    // Without the sewer, Mud Creek, 250 m east of the site, is the guess.
    let plain = Town::new()
        .sites(&[("", vec![("1", "", "", rect(0.0, 0.0, 50.0, 50.0))])])
        .report("S1");
    assert_eq!(plain.entry.rule, "nearest");
    assert_eq!(plain.receiving_water_names, vec!["Mud Creek".to_string()]);
}

#[test]
fn a_site_reaching_two_outfalls_has_two_receiving_waters() {
    let r = town().report("S3");
    assert_eq!(r.entry.rule, "storm_sewer", "{}", r.entry.reason);
    let s = r.entry.sewer.as_ref().expect("sewer");
    let mut outfalls: Vec<&str> = s.outfalls.iter().map(|o| o.id.as_str()).collect();
    outfalls.sort();
    assert_eq!(outfalls, vec!["OF1", "OF2"]);
    let names = &r.receiving_water_names;
    assert!(names.contains(&"Named Creek".to_string()), "{names:?}");
    assert!(names.contains(&"Far Brook".to_string()), "{names:?}");
    let named = s.outfalls.iter().find(|o| o.id == "OF2").expect("OF2");
    assert_eq!(named.source, Some("outfall record"));
}

#[test]
fn an_undecided_pipe_leaves_the_receiving_water_unknown_rather_than_guessed() {
    let r = town().report("S2");
    assert_eq!(r.entry.rule, "none", "no fall back to the nearest water");
    assert!(
        r.receiving_water_names.is_empty(),
        "{:?}",
        r.receiving_water_names
    );
    let s = r.entry.sewer.as_ref().expect("sewer");
    assert_eq!(s.trace.undecided, vec!["P8".to_string()]);
    assert!(s.unknown.as_deref().unwrap_or("").contains("P8"));
    assert!(r.entry.reason.contains("P8"), "{}", r.entry.reason);
}

#[test]
fn pipes_that_end_at_a_manhole_leave_the_receiving_water_unknown() {
    let r = town().report("S4");
    assert_eq!(
        r.entry.rule, "none",
        "a manhole is no outfall: {}",
        r.entry.reason
    );
    assert!(
        r.receiving_water_names.is_empty(),
        "no water is taken where the data stop: {:?}",
        r.receiving_water_names
    );
    let s = r.entry.sewer.as_ref().expect("sewer");
    assert_eq!(s.trace.pipes.len(), 1);
    let why = s.unknown.as_deref().unwrap_or("");
    assert!(why.contains("MH6 (a manhole)"), "{why}");
    assert!(r.entry.reason.contains("MH6"), "{}", r.entry.reason);
}

#[test]
fn upstream_of_an_outfall_is_everything_draining_to_it() {
    let (_dir, cat) = town().open();
    let net = cat.storm.as_ref().expect("network");
    let up = net.upstream("OF1").expect("OF1 is a node");
    let mut ids: Vec<&str> = up.structures.iter().map(|s| s.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, vec!["CB1", "CB4", "MH1", "MH2", "OF1"]);
    let mut pipes: Vec<&str> = up.pipes.iter().map(|p| p.id.as_str()).collect();
    pipes.sort();
    assert_eq!(pipes, vec!["P1", "P10", "P2", "P3"]);
    assert!(net.upstream("nowhere").is_none());
}

#[test]
fn validate_names_each_storm_problem() {
    let (_dir, cat) = town().open();
    let net = cat.storm.as_ref().expect("network");
    let found = |kind: &str, id: &str| {
        net.problems
            .iter()
            .any(|p| p.kind == kind && p.feature == id)
    };
    assert!(found("ids_against_inverts", "P4"), "{:#?}", net.problems);
    assert!(found("adverse_slope", "P2"), "{:#?}", net.problems);
    assert!(
        found("cycle", "P5") && found("cycle", "P6"),
        "{:#?}",
        net.problems
    );
    assert!(
        !found("cycle", "P4"),
        "P4 leads into the cycle but is not on it"
    );
    assert!(found("dangling_end", "P7"), "{:#?}", net.problems);
    assert!(found("unconnected_structure", "MH9"), "{:#?}", net.problems);
    assert!(found("undecided", "P8"), "{:#?}", net.problems);
    assert!(!found("dangling_end", "P3"), "P3 ends at an outfall");
    let text: Vec<String> = cat.problems().iter().map(|p| p.reason.clone()).collect();
    assert!(
        text.iter().any(|t| t.starts_with("storm cycle")),
        "{text:?}"
    );
}

#[test]
fn a_storm_column_missing_from_the_file_is_an_error_naming_it() {
    let bad = PIPES.replace("up_id_field = \"up\"", "up_id_field = \"UPSTREAM\"");
    let t = Town::new()
        .layer(STRUCTURES, "structures.geojson", structures())
        .layer(&bad, "pipes.geojson", pipes())
        .sites(&[("", vec![("1", "", "", rect(0.0, 0.0, 50.0, 50.0))])]);
    let owned: Vec<(&str, &[u8])> = t
        .files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_bytes()))
        .collect();
    let dir = common::dataset(&t.manifest, &owned);
    let e = outfall_core::Catalog::open(dir.path()).expect_err("a missing column refuses the load");
    let msg = e.to_string();
    assert!(
        msg.contains("pipes.geojson") && msg.contains("UPSTREAM"),
        "{msg}"
    );
}

async fn http_get(state: outfall_server::AppState, uri: &str) -> (u16, serde_json::Value) {
    use axum::body::Body;
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let req = axum::http::Request::get(uri)
        .body(Body::empty())
        .expect("request");
    let res = outfall_server::app(state)
        .oneshot(req)
        .await
        .expect("response");
    let status = res.status().as_u16();
    let body = res.into_body().collect().await.expect("body").to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or_default())
}

#[tokio::test]
async fn http_serves_an_outfalls_upstream_network_and_the_storm_collections() {
    let (_dir, cat) = town().open();
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let state = outfall_server::AppState::new(std::sync::Arc::new(cat), web);
    let (status, v) = http_get(state.clone(), "/outfalls/OF1/upstream").await;
    assert_eq!(status, 200, "{v}");
    let features = v["features"].as_array().expect("features");
    let kinds = |k: &str| {
        features
            .iter()
            .filter(|f| f["properties"]["kind"] == k)
            .count()
    };
    assert_eq!((kinds("pipe"), features.len()), (4, 9), "{v}");
    assert!(features
        .iter()
        .any(|f| f["id"] == "P2" && f["properties"]["evidence"] == "inverts"));
    let (status, _) = http_get(state.clone(), "/outfalls/NOPE/upstream").await;
    assert_eq!(status, 404);
    for c in ["storm_pipes", "storm_structures"] {
        let (status, v) = http_get(state.clone(), &format!("/collections/{c}/items")).await;
        assert_eq!(status, 200, "{c}: {v}");
    }
    // What a map draws arrows and symbols from: P2 is digitised from MH2 to MH1, but its
    // inverts run it from MH1 to MH2; P8 nothing directs.
    let (_, v) = http_get(state.clone(), "/collections/storm_pipes/items?limit=100").await;
    let flow = |id: &str| {
        let f = v["features"]
            .as_array()
            .expect("pipes")
            .iter()
            .find(|f| f["id"] == id);
        f.map(|f| f["properties"]["flow"].clone())
    };
    assert_eq!(flow("P2"), Some(serde_json::json!("against")), "{v}");
    assert_eq!(flow("P1"), Some(serde_json::json!("along")), "{v}");
    // P8 is the second pipes layer's.
    let (_, v) = http_get(state.clone(), "/collections/storm_pipes-2/items").await;
    assert_eq!(v["features"][0]["id"], "P8", "{v}");
    assert_eq!(v["features"][0]["properties"]["flow"], "undecided", "{v}");
    let (_, v) = http_get(state, "/collections/storm_structures/items?limit=100").await;
    let kind = |id: &str| {
        let f = v["features"]
            .as_array()
            .expect("structures")
            .iter()
            .find(|f| f["id"] == id);
        f.map(|f| f["properties"]["kind"].clone())
    };
    assert_eq!(kind("CB1"), Some(serde_json::json!("inlet")), "{v}");
    assert_eq!(kind("OF2"), Some(serde_json::json!("outfall")), "{v}");
}

#[test]
fn the_sewer_command_traces_a_site_down_and_an_outfall_up() {
    let t = town();
    let owned: Vec<(&str, &[u8])> = t
        .files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_bytes()))
        .collect();
    let dir = common::dataset(&t.manifest, &owned);
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_outfall"))
            .arg("sewer")
            .arg("--data")
            .arg(dir.path())
            .args(args)
            .output()
            .expect("outfall runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (ok, out, err) = run(&["--site", "S1", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["entry_rule"], "storm_sewer");
    assert_eq!(v["receiving_waters"][0], "Far Brook");
    assert_eq!(
        v["sewer"]["trace"]["pipes"].as_array().map(Vec::len),
        Some(3)
    );
    let (ok, out, err) = run(&["--outfall", "OF1"]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with("outfall OF1: 5 structure(s), 4 pipe(s)"),
        "{out}"
    );
    let (ok, _, err) = run(&["--outfall", "NOPE"]);
    assert!(!ok && err.contains("NOPE"), "{err}");
}
