//! The `outfall` command as a user runs it: reports, JSON keys, ad-hoc geometry, batches and errors.

mod common;

use std::process::Command;

fn outfall(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_outfall"))
        .args(args)
        .output()
        .expect("run outfall");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn demo() -> String {
    common::demo_dir().display().to_string()
}

#[test]
fn json_report_has_the_stable_keys() {
    let (ok, out, err) = outfall(&["check", "--data", &demo(), "--site", "S03", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for ptr in [
        "/site/id",
        "/disturbance/total_acres",
        "/disturbance/peak_acres",
        "/disturbance/peak_date",
        "/disturbance/phases",
        "/disturbance/outside_parcels_acres",
        "/conditions/land_development_activity",
        "/conditions/A",
        "/conditions/B",
        "/conditions/C",
        "/conditions/five_acre_limit_exceeded",
        "/receiving_waters",
        "/entry/rule",
        "/downstream",
        "/first_impaired",
        "/tmdl_watersheds",
        "/findings/0/rule",
        "/findings/0/clause",
        "/findings/0/met",
        "/findings/0/reason",
        "/data/layers/0/path",
        "/data/layers/0/sha256",
        "/data/layers/0/features",
    ] {
        assert!(v.pointer(ptr).is_some(), "missing {ptr}");
    }
    assert_eq!(v["site"]["id"], "S03");
    // S03: 7.3 ac in three phases that never exceed 5 ac at once.
    assert_eq!(v["conditions"]["B"], true);
    assert_eq!(v["conditions"]["five_acre_limit_exceeded"], false);
    assert_eq!(v["disturbance"]["phases"].as_array().unwrap().len(), 3);
}

#[test]
fn text_report_reads_as_a_path_downstream() {
    let (ok, out, _) = outfall(&["check", "--data", &demo(), "--site", "S14"]);
    assert!(ok);
    assert!(
        out.contains("Sawmill Creek (segment 0702-0022, not listed) → Onondaga Lake ("),
        "{out}"
    );
    assert!(
        out.contains("Onondaga Lake (") && out.contains("impaired:"),
        "{out}"
    );
    assert!(
        out.contains("Discharge enters TMDL watershed: Onondaga Lake phosphorus TMDL"),
        "{out}"
    );
    assert!(out.contains("Condition A: YES"), "{out}");
}

#[test]
fn ad_hoc_geometry_and_outfall_point() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("plan.geojson");
    // A 2-acre pad near S06, nearest to Beartrap Creek; its outfall is given on Sawmill Creek.
    std::fs::write(&f, r#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"phase":"1","start":"2026-06-01","end":"2026-09-30"},"geometry":{"type":"Polygon","coordinates":[[[-76.1636,43.1312],[-76.1618,43.1312],[-76.1618,43.1325],[-76.1636,43.1325],[-76.1636,43.1312]]]}}]}"#).unwrap();
    let (ok, out, err) = outfall(&[
        "check",
        "--data",
        &demo(),
        "--geometry",
        f.to_str().unwrap(),
        "--outfall",
        "-76.1950,43.1392",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["entry"]["rule"], "outfall_point");
    assert_eq!(v["receiving_water_names"][0], "Sawmill Creek");
    assert_eq!(v["disturbance"]["peak_date"], "2026-06-01");
    let (ok, _, err) = outfall(&[
        "check",
        "--data",
        &demo(),
        "--geometry",
        f.to_str().unwrap(),
        "--outfall",
        "east of here",
    ]);
    assert!(!ok && err.contains("--outfall"), "{err}");
}

#[test]
fn batch_writes_one_row_per_site_and_keeps_going_past_bad_ids() {
    let dir = tempfile::tempdir().unwrap();
    let ids = dir.path().join("ids.csv");
    std::fs::write(&ids, "site_id\nS01\nS04\nS99\nS10\nS02\nS14\n").unwrap();
    let (ok, out, err) = outfall(&["check", "--data", &demo(), "--batch", ids.to_str().unwrap()]);
    assert!(ok, "{err}");
    let mut rdr = csv::Reader::from_reader(out.as_bytes());
    let headers = rdr.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 6);
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    assert_eq!(&rows[1][col("id")], "S04");
    assert_eq!(&rows[1][col("condition_a")], "true");
    assert_eq!(&rows[1][col("five_acre_limit_exceeded")], "true");
    assert!(rows[2][col("error")].contains("site 'S99' not found"));
    assert_eq!(&rows[3][col("condition_a")], "undetermined");

    // The typed site record, one column per field (data/clay/README.md, "Site columns").
    let (s01, s04, s99, s10, s02, s14) =
        (&rows[0], &rows[1], &rows[2], &rows[3], &rows[4], &rows[5]);
    assert_eq!(&s01[col("status")], "under_construction");
    assert_eq!(
        &s02[col("status")],
        "under_construction",
        "'active' read as a code"
    );
    assert_eq!(
        &s02[col("status_recorded")],
        "active",
        "the word as recorded"
    );
    assert_eq!(&s01[col("swppp_decision")], "approved");
    assert_eq!(&s01[col("swppp_approval_date")], "2026-03-20");
    assert_eq!(&s01[col("swppp_reference")], "SWPPP-2026-009");
    assert_eq!(&s01[col("swppp_approved_by")], "officer");
    assert_eq!(&s01[col("swppp_source")], "swppp_approval");
    assert_eq!(
        &s10[col("swppp_source")],
        "approved_swppp text 'SWPPP-2026-047'",
        "the legacy text column, converted"
    );
    assert_eq!(
        &s10[col("swppp_approval_date")],
        "",
        "a reference alone has no date"
    );
    assert_eq!(&s02[col("active_without_approval")], "true");
    assert_eq!(&s14[col("exemption_codes")], "c;k");
    assert_eq!(
        &s14[col("exemptions_verified")],
        "c:unverified;k:unverified"
    );
    assert_eq!(&s02[col("single_family")], "true");
    assert_eq!(&s02[col("single_family_source")], "site record: land_use");
    assert_eq!(
        &s04[col("agricultural_source")],
        "parcel class 449",
        "no statement: the parcel class"
    );
    assert_eq!(
        &s14[col("single_family_source")],
        "site record: single_family",
        "the older flag"
    );
    // The sources that decided each finding.
    assert!(
        s04[col("condition_c_sources")].contains("parcel class 449"),
        "{:?}",
        &s04[col("condition_c_sources")]
    );
    assert_eq!(&s04[col("condition_b_sources")], "disturbance polygons");
    // S04 drains through the demo's (illustrative) storm sewer; S14 to its nearest water.
    assert!(s04[col("condition_a_sources")].contains("the storm-sewer trace to the outfall"));
    assert!(s14[col("condition_a_sources")].contains("assumed from the nearest water"));
    assert!(s04[col("five_acre_limit_sources")].contains("swppp_approval"));
    assert!(s04[col("land_development_activity_sources")].contains("disturbance polygons"));
    assert!(s02[col("active_without_approval_sources")].contains("site record: status 'active'"));
    assert!(s14[col("exemption_sources")].contains("site record: exemption 'routine maintenance'"));
    assert_eq!(
        &s99[col("status")],
        "",
        "an error row leaves the record empty"
    );
    let (ok, out, _) = outfall(&[
        "check",
        "--data",
        &demo(),
        "--batch",
        ids.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 6);
    // The JSON batch is the reports: the typed record and each finding's sources.
    let s14 = &v[5];
    assert_eq!(s14["site"]["status"], "under_construction");
    assert_eq!(s14["site"]["exemption_claims"][1]["code"], "k");
    let sources = |rule: &str| {
        s14["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == rule)
            .map(|f| f["sources"].clone())
            .unwrap()
    };
    assert!(sources("condition_c")
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("site record: single_family")));
    assert_eq!(v[0]["site"]["swppp_approval"]["date"], "2026-03-20");
}

#[test]
fn unknown_site_and_missing_data_are_clear_errors() {
    let (ok, _, err) = outfall(&["check", "--data", &demo(), "--site", "S99"]);
    assert!(!ok && err.contains("site 'S99' not found"), "{err}");
    let (ok, _, err) = outfall(&["check", "--data", "/nonexistent/town", "--site", "S01"]);
    assert!(
        !ok && err.contains("/nonexistent/town") && !err.contains("panicked"),
        "{err}"
    );
}

/// Clay's Mud Creek is unnamed in NHDPlusV2: the report gives the local name, where it comes
/// from and the national name, and says the 303(d) list loaded does not cover it.
#[test]
fn a_local_name_is_shown_with_its_source_and_the_nhd_name() {
    let (ok, out, _) = outfall(&["check", "--data", &demo(), "--site", "S01"]);
    assert!(ok);
    assert!(
        out.contains("(Mud Creek: name from DEC monitoring site 07-MUDE-4.4 (PWL 0703-0046 'Mud Creek and tribs'); NHD: unnamed tributary to Oneida River)"),
        "{out}"
    );
    assert!(
        out.contains("Mud Creek (segment 0703-0046, not covered by the list loaded)"),
        "{out}"
    );
    assert!(out.contains("Condition A: NEEDS DATA"), "{out}");
}
