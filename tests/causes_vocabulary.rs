//! The causes vocabulary (issue 18, class 5): cause names matched as whole terms, on ATTAINS
//! names, on every cause name in the real lists in ../shared/data/real, and end to end on
//! Condition A.

mod common;

use common::{dataset, real};
use outfall_core::report::Report;
use outfall_core::screening::check_site;
use outfall_core::vocabulary::causes::{table, CauseVocabulary};
use outfall_core::{Catalog, Rules};
use std::collections::BTreeSet;

fn matched(cause: &str) -> bool {
    let rules = Rules::default();
    !CauseVocabulary::with_extra(&rules.construction_pollutants)
        .matches(cause)
        .is_empty()
}

#[test]
fn attains_names_are_pollutants_of_concern() {
    for cause in [
        "SOLIDS (SUSPENDED/BEDLOAD)",
        "SEDIMENTATION/SILTATION",
        "TURBIDITY",
        "PHOSPHORUS, TOTAL",
        "NUTRIENTS",
        "NITROGEN, TOTAL",
        "TOTAL SUSPENDED SOLIDS (TSS)",
        "SEDIMENT",
    ] {
        assert!(matched(cause), "{cause} should match");
    }
}

#[test]
fn fragments_and_other_causes_are_not() {
    for cause in [
        "NITROGEN, AMMONIA",
        "MERCURY",
        "Chlorpyrifos",
        "Glasses",
        "Silty loam",
        "AMMONIA-NITROGEN",
        "SEDIMENT TOXICITY",
        "OXYGEN, DISSOLVED",
        "Cadmium (sediment)",
    ] {
        assert!(!matched(cause), "{cause} should not match");
    }
}

#[test]
fn a_match_says_which_term_group_and_source() {
    let rules = Rules::default();
    let m = CauseVocabulary::with_extra(&rules.construction_pollutants)
        .matches("SOLIDS (SUSPENDED/BEDLOAD)");
    assert_eq!(
        m[0].describe(),
        "SOLIDS (SUSPENDED/BEDLOAD) — EPA ATTAINS parameter, sediment group"
    );
    let rows = table(&rules.construction_pollutants).expect("shipped vocabulary");
    assert!(rows
        .iter()
        .any(|r| r.term == "SOLIDS (SUSPENDED/BEDLOAD)" && r.group == "sediment"));
    assert!(rows.iter().any(|r| r.group == "nutrients"));
    // The default rules' keywords the shipped terms do not cover are listed as manifest terms.
    assert!(rows
        .iter()
        .any(|r| r.group == "manifest" && r.term == "silt"));
}

/// Every distinct cause name in the real lists, by file.
fn real_cause_names() -> Option<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    for rel in [
        "ca-303d-2014-2016/ca_303d_2014_2016_lines.geojson",
        "ca-303d-2014-2016/ca_303d_2014_2016_polygons.geojson",
    ] {
        for f in features(rel)? {
            if let Some(p) = f["properties"]["pollutant"].as_str() {
                names.extend(outfall_core::waters::split_causes(p));
            }
        }
    }
    for rel in [
        "epa-attains-tada-examples/potomac_wv_md_pa_attains_lines.geojson",
        "epa-attains-tada-examples/potomac_wv_md_pa_attains_polygons.geojson",
        "epa-attains-tada-examples/poudre_co_attains_lines.geojson",
        "epa-attains-tada-examples/poudre_co_attains_polygons.geojson",
    ] {
        names.extend(attains_cause_columns(&features(rel)?));
    }
    let path = real("nysdec-303d-onondaga/ny_303d_onondaga.csv")?;
    let mut rd = csv::Reader::from_path(path).expect("NY 303(d) table");
    let headers = rd.headers().expect("header").clone();
    let col = headers
        .iter()
        .position(|h| h == "pollutant")
        .expect("pollutant column");
    for row in rd.records() {
        let row = row.expect("row");
        names.extend(row.get(col).map(str::to_string));
    }
    Some(names)
}

fn features(rel: &str) -> Option<Vec<serde_json::Value>> {
    let text = std::fs::read_to_string(real(rel)?).expect("read");
    let v: serde_json::Value = serde_json::from_str(&text).expect("GeoJSON");
    Some(v["features"].as_array().cloned().unwrap_or_default())
}

/// ATTAINS cause-group columns (the value is "Cause", "Meeting Criteria" or "Observed
/// effect"), named as the loader names them: underscores to spaces.
fn attains_cause_columns(features: &[serde_json::Value]) -> BTreeSet<String> {
    let status = ["Cause", "Meeting Criteria", "Observed effect"];
    let mut out = BTreeSet::new();
    for f in features {
        if let Some(props) = f["properties"].as_object() {
            for (k, v) in props {
                if v.as_str().is_some_and(|s| status.contains(&s)) {
                    out.insert(k.replace('_', " "));
                }
            }
        }
    }
    out
}

/// The construction-related cause names among the real ones: sediment and its measures,
/// phosphorus, nitrogen (total, not its ammonia, nitrate or nitrite forms) and nutrients.
const CONSTRUCTION_RELATED: [&str; 15] = [
    // California 303(d) 2014/2016
    "Nitrogen",
    "Nutrients",
    "Nutrients (Algae)",
    "Phosphate",
    "Phosphorus",
    "Sediment",
    "Sedimentation/Siltation",
    "Solids",
    "Total Nitrogen as N",
    "Total Suspended Solids (TSS)",
    "Turbidity",
    // EPA ATTAINS cause-group columns
    "nutrients",
    "sediment",
    "turbidity",
    // NYS 303(d) 2012 (OEI table)
    "nutrients (phosphorus)",
    // (and "Turbidity", as in California)
];

#[test]
fn every_real_cause_name_is_classified_as_expected() {
    let Some(names) = real_cause_names() else {
        return;
    };
    assert!(names.len() > 200, "{} distinct cause names", names.len());
    let expected: BTreeSet<&str> = CONSTRUCTION_RELATED.into_iter().collect();
    for e in &expected {
        assert!(names.contains(*e), "{e} is in the real data");
    }
    let got: BTreeSet<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| matched(n))
        .collect();
    let missed: Vec<_> = expected.difference(&got).collect();
    let extra: Vec<_> = got.difference(&expected).collect();
    assert!(
        missed.is_empty() && extra.is_empty(),
        "missed {missed:?}, wrongly matched {extra:?}"
    );
    // Names the old substring matching took and the whole-term rule refuses.
    for not in [
        "Nitrogen, ammonia (Total Ammonia)",
        "Nitrogen, Nitrate",
        "Total Kjeldahl Nitrogen (TKN)",
        "Cadmium (sediment)",
        "Sediment Toxicity",
        "ammonia",
    ] {
        assert!(names.contains(not), "{not} is in the real data");
    }
}

// ---- end to end: a first receiving water listed for one cause ----

const LAT: f64 = 43.15;
const M_PER_DEG_LAT: f64 = 111_000.0;

fn m_per_deg_lon() -> f64 {
    M_PER_DEG_LAT * LAT.to_radians().cos()
}

fn lonlat(dx_m: f64, dy_m: f64) -> [f64; 2] {
    [-76.2 + dx_m / m_per_deg_lon(), LAT + dy_m / M_PER_DEG_LAT]
}

/// A square `side_m` wide with its south-west corner at (dx_m, dy_m), as a GeoJSON feature.
fn square_feature(props: &str, dx_m: f64, dy_m: f64, side_m: f64) -> String {
    let [x0, y0] = lonlat(dx_m, dy_m);
    let [x1, y1] = lonlat(dx_m + side_m, dy_m + side_m);
    format!(
        r#"{{"type":"FeatureCollection","features":[{{"type":"Feature","properties":{props},"geometry":{{"type":"Polygon","coordinates":[[[{x0},{y0}],[{x1},{y0}],[{x1},{y1}],[{x0},{y1}],[{x0},{y0}]]]}}}}]}}"#
    )
}

/// A 2-acre site 300 m west of Mud Creek (joined to the list by `pwl`), a TMDL watershed
/// far away (so the TMDL prong is decided), and a 303(d) table listing Mud Creek for `cause`.
fn first_water_listed_for(cause: &str) -> Report {
    let pts: Vec<String> = [(300.0, -500.0), (300.0, 0.0), (300.0, 600.0)]
        .iter()
        .map(|(x, y)| format!("{:?}", lonlat(*x, *y)))
        .collect();
    let flow = format!(
        r#"{{"type":"FeatureCollection","features":[{{"type":"Feature","properties":{{"id":"R1","name":"Mud Creek","pwl":"MUD-1"}},"geometry":{{"type":"LineString","coordinates":[{}]}}}}]}}"#,
        pts.join(",")
    );
    let m = "[[layer]]\nrole = \"sites\"\npath = \"sites.geojson\"\nid_field = \"id\"\n\
[[layer]]\nrole = \"disturbance\"\npath = \"dist.geojson\"\nsite_field = \"site\"\n\
[[layer]]\nrole = \"flowlines\"\npath = \"flow.geojson\"\nid_field = \"id\"\nname_field = \"name\"\njoin_field = \"pwl\"\n\
[[layer]]\nrole = \"tmdl\"\npath = \"tmdl.geojson\"\nid_field = \"id\"\nstormwater_field = \"storm\"\n\
[[layer]]\nrole = \"impaired\"\npath = \"l.csv\"\nid_field = \"pwl\"\ncauses_field = \"pollutant\"\n";
    let list = format!("pwl,pollutant\nMUD-1,\"{cause}\"\n");
    let files = [
        (
            "sites.geojson",
            square_feature(r#"{"id":"S"}"#, 0.0, 0.0, 90.0),
        ),
        (
            "dist.geojson",
            square_feature(r#"{"site":"S"}"#, 0.0, 0.0, 90.0),
        ),
        ("flow.geojson", flow),
        (
            "tmdl.geojson",
            square_feature(r#"{"id":"T1","storm":true}"#, 20000.0, 0.0, 500.0),
        ),
        ("l.csv", list),
    ];
    let owned: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    let dir = dataset(m, &owned);
    let cat = Catalog::open(dir.path()).expect("data set loads");
    assert!(cat.problems().is_empty(), "{:?}", cat.problems());
    check_site(&cat, "S").expect("report")
}

fn condition_a_reason(r: &Report) -> String {
    r.findings
        .iter()
        .find(|f| f.rule == outfall_core::law::RuleId::ConditionA)
        .map(|f| f.reason.clone())
        .unwrap_or_default()
}

#[test]
fn a_first_receiving_water_listed_for_suspended_solids_triggers_condition_a() {
    let r = first_water_listed_for("SOLIDS (SUSPENDED/BEDLOAD)");
    assert_eq!(
        r.first_impaired.as_ref().map(|f| f.id.as_str()),
        Some("MUD-1")
    );
    assert_eq!(r.conditions.a, Some(true), "{}", condition_a_reason(&r));
}

#[test]
fn a_first_receiving_water_listed_for_ammonia_does_not() {
    let r = first_water_listed_for("NITROGEN, AMMONIA");
    assert_eq!(
        r.first_impaired.as_ref().map(|f| f.id.as_str()),
        Some("MUD-1"),
        "the water is listed, only not for a pollutant of concern"
    );
    assert_eq!(r.conditions.a, Some(false), "{}", condition_a_reason(&r));
}
