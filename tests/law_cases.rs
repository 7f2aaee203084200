//! Each determination the law-as-code issue found wrong, on a small data set made here: an
//! impaired pond as the first receiving water, listings on waterbody polygons, every layer of
//! a role, no 303(d) list, the TMDL prong at the outfall, jurisdiction, approvals recorded as
//! text, and inspections for a small common-plan lot.

mod common;

use common::dataset;
use outfall_core::law::RuleId;
use outfall_core::report::Report;
use outfall_core::screening::check_site;
use outfall_core::Catalog;

const LAT: f64 = 43.15;
const M_PER_DEG_LAT: f64 = 111_000.0;

fn m_per_deg_lon() -> f64 {
    M_PER_DEG_LAT * LAT.to_radians().cos()
}

/// A square polygon `side_m` wide with its south-west corner `dx_m`, `dy_m` east and north
/// of (-76.2, 43.15), as GeoJSON coordinates.
fn square(dx_m: f64, dy_m: f64, side_m: f64) -> String {
    let x0 = -76.2 + dx_m / m_per_deg_lon();
    let y0 = LAT + dy_m / M_PER_DEG_LAT;
    let (x1, y1) = (x0 + side_m / m_per_deg_lon(), y0 + side_m / M_PER_DEG_LAT);
    format!("[[[{x0},{y0}],[{x1},{y0}],[{x1},{y1}],[{x0},{y1}],[{x0},{y0}]]]")
}

fn point(dx_m: f64, dy_m: f64) -> String {
    format!(
        "[{},{}]",
        -76.2 + dx_m / m_per_deg_lon(),
        LAT + dy_m / M_PER_DEG_LAT
    )
}

fn polygon_fc(features: &[(&str, String)]) -> String {
    let f: Vec<String> = features
        .iter()
        .map(|(props, coords)| {
            format!(r#"{{"type":"Feature","properties":{props},"geometry":{{"type":"Polygon","coordinates":{coords}}}}}"#)
        })
        .collect();
    format!(
        r#"{{"type":"FeatureCollection","features":[{}]}}"#,
        f.join(",")
    )
}

fn line_fc(features: &[(&str, Vec<(f64, f64)>)]) -> String {
    let f: Vec<String> = features
        .iter()
        .map(|(props, pts)| {
            let c: Vec<String> = pts.iter().map(|(x, y)| point(*x, *y)).collect();
            format!(r#"{{"type":"Feature","properties":{props},"geometry":{{"type":"LineString","coordinates":[{}]}}}}"#, c.join(","))
        })
        .collect();
    format!(
        r#"{{"type":"FeatureCollection","features":[{}]}}"#,
        f.join(",")
    )
}

const SITES: &str = "[[layer]]\nrole = \"sites\"\npath = \"sites.geojson\"\nid_field = \"id\"\n\
[[layer]]\nrole = \"disturbance\"\npath = \"dist.geojson\"\nsite_field = \"site\"\n";
const STREAM: &str = "[[layer]]\nrole = \"flowlines\"\npath = \"flow.geojson\"\nid_field = \"id\"\nname_field = \"name\"\njoin_field = \"pwl\"\n";
const PONDS: &str = "[[layer]]\nrole = \"waterbodies\"\npath = \"ponds.geojson\"\nid_field = \"id\"\nname_field = \"name\"\njoin_field = \"pwl\"\n";

/// One site "S" of `side_m` square at (0, 0) with the given attributes.
fn site(attrs: &str, side_m: f64) -> (String, String) {
    let sites = polygon_fc(&[(&format!(r#"{{"id":"S"{attrs}}}"#), square(0.0, 0.0, side_m))]);
    let dist = polygon_fc(&[(r#"{"site":"S"}"#, square(0.0, 0.0, side_m))]);
    (sites, dist)
}

/// A stream 200 m east of the site, flowing north, named Mud Creek.
fn stream(pwl: &str) -> String {
    line_fc(&[(
        &format!(r#"{{"id":"R1","name":"Mud Creek","pwl":"{pwl}"}}"#),
        vec![(300.0, -500.0), (300.0, 0.0), (300.0, 600.0)],
    )])
}

fn report(manifest: &str, files: &[(&str, String)]) -> Report {
    let owned: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    let dir = dataset(manifest, &owned);
    let cat = Catalog::open(dir.path()).expect("data set loads");
    assert!(cat.problems().is_empty(), "{:?}", cat.problems());
    check_site(&cat, "S").expect("report")
}

fn finding(r: &Report, id: RuleId) -> &outfall_core::law::Finding {
    r.findings.iter().find(|f| f.rule == id).unwrap()
}

/// A pond 60 m north of a 2-acre site, with no flowline leaving it; a listed polygon over it.
fn pond_case(with_stream_far_away: bool) -> Report {
    let (sites, dist) = site("", 90.0);
    let ponds = polygon_fc(&[(
        r#"{"id":"P1","name":"Lily Pond","pwl":""}"#,
        square(0.0, 150.0, 80.0),
    )]);
    let listed = polygon_fc(&[(
        r#"{"id":"L-9","name":"Lily Pond (listed)","causes":"Sedimentation/Siltation"}"#,
        square(-5.0, 145.0, 90.0),
    )]);
    let mut m = format!("{SITES}{PONDS}[[layer]]\nrole = \"impaired\"\npath = \"listed.geojson\"\nid_field = \"id\"\nname_field = \"name\"\ncauses_field = \"causes\"\n");
    let mut files = vec![
        ("sites.geojson", sites),
        ("dist.geojson", dist),
        ("ponds.geojson", ponds),
        ("listed.geojson", listed),
    ];
    if with_stream_far_away {
        m += STREAM;
        files.push((
            "flow.geojson",
            line_fc(&[(
                r#"{"id":"R1","name":"Far Creek","pwl":""}"#,
                vec![(5000.0, 0.0), (5000.0, 900.0)],
            )]),
        ));
    }
    report(&m, &files)
}

#[test]
fn an_impaired_pond_that_is_the_first_receiving_water_triggers_condition_a() {
    for far_stream in [false, true] {
        let r = pond_case(far_stream);
        assert_eq!(
            r.entry.water_id.as_deref(),
            Some("P1"),
            "{}",
            r.entry.reason
        );
        assert_eq!(r.entry.water_kind.as_deref(), Some("waterbody"));
        assert_eq!(r.receiving_water_names, ["Lily Pond"]);
        let fi = r.first_impaired.as_ref().expect("the pond is listed");
        assert_eq!(fi.id, "L-9");
        assert!(fi.first_receiving);
        assert_eq!(
            r.conditions.a,
            Some(true),
            "{}",
            finding(&r, RuleId::ConditionA).reason
        );
        assert!(finding(&r, RuleId::ConditionA)
            .reason
            .contains("Sedimentation/Siltation"));
        let pond = r.receiving_waters.iter().find(|w| w.id == "P1").unwrap();
        assert!(pond.impaired && pond.causes == ["Sedimentation/Siltation"]);
    }
}

#[test]
fn a_pond_listed_in_a_table_by_its_id_is_impaired_too() {
    let (sites, dist) = site("", 90.0);
    let ponds = polygon_fc(&[(
        r#"{"id":"P1","name":"Lily Pond","pwl":"0702-9999"}"#,
        square(0.0, 150.0, 80.0),
    )]);
    let table = "pwl_id,name,pollutant\n0702-9999,Lily Pond,phosphorus\n".to_string();
    let m = format!("{SITES}{PONDS}[[layer]]\nrole = \"impaired\"\npath = \"list.csv\"\nid_field = \"pwl_id\"\nname_field = \"name\"\ncauses_field = \"pollutant\"\n");
    let r = report(
        &m,
        &[
            ("sites.geojson", sites),
            ("dist.geojson", dist),
            ("ponds.geojson", ponds),
            ("list.csv", table),
        ],
    );
    assert_eq!(
        r.first_impaired.as_ref().map(|f| f.id.as_str()),
        Some("0702-9999")
    );
    assert_eq!(r.conditions.a, Some(true));
}

#[test]
fn every_layer_of_a_role_is_read() {
    // Two disturbance layers and two impaired lists: the second of each decides.
    let (sites, dist) = site("", 90.0);
    let more = polygon_fc(&[(r#"{"site":"S"}"#, square(0.0, 100.0, 90.0))]);
    let list1 = "pwl,pollutant\nOTHER,mercury\n".to_string();
    let list2 = "pwl,pollutant\nMUD-1,Turbidity\n".to_string();
    let m = format!(
        "{SITES}[[layer]]\nrole = \"disturbance\"\npath = \"more.geojson\"\nsite_field = \"site\"\n{STREAM}\
         [[layer]]\nrole = \"impaired\"\npath = \"l1.csv\"\nid_field = \"pwl\"\ncauses_field = \"pollutant\"\n\
         [[layer]]\nrole = \"impaired\"\npath = \"l2.csv\"\nid_field = \"pwl\"\ncauses_field = \"pollutant\"\n"
    );
    let r = report(
        &m,
        &[
            ("sites.geojson", sites),
            ("dist.geojson", dist),
            ("more.geojson", more),
            ("flow.geojson", stream("MUD-1")),
            ("l1.csv", list1),
            ("l2.csv", list2),
        ],
    );
    assert!(
        (r.disturbance.total_acres - 4.0).abs() < 0.1,
        "{}",
        r.disturbance.total_acres
    );
    assert_eq!(
        r.conditions.a,
        Some(true),
        "{}",
        finding(&r, RuleId::ConditionA).reason
    );
}

#[test]
fn with_no_303d_list_condition_a_needs_data() {
    let (sites, dist) = site("", 90.0);
    let tmdl = polygon_fc(&[(
        r#"{"id":"T1","name":"Far TMDL","storm":true}"#,
        square(20000.0, 0.0, 500.0),
    )]);
    let m = format!("{SITES}{STREAM}[[layer]]\nrole = \"tmdl\"\npath = \"tmdl.geojson\"\nid_field = \"id\"\nname_field = \"name\"\nstormwater_field = \"storm\"\n");
    let r = report(
        &m,
        &[
            ("sites.geojson", sites),
            ("dist.geojson", dist),
            ("flow.geojson", stream("")),
            ("tmdl.geojson", tmdl),
        ],
    );
    assert_eq!(r.conditions.a, None);
    let a = finding(&r, RuleId::ConditionA);
    assert!(
        a.missing.iter().any(|m| m.contains("303(d)")),
        "{:?}",
        a.missing
    );
    assert_eq!(finding(&r, RuleId::SwpppPreparer).met, None);
}

/// A stream 300 m east, listed for nothing; a TMDL watershed with stormwater a source; the
/// outfall and footprint placed by the caller.
fn tmdl_case(outfall: &str, tmdl_square: String) -> Report {
    let (sites, dist) = site(&format!(r#","outfall":"{outfall}""#), 90.0);
    let flows = line_fc(&[
        (
            r#"{"id":"R1","name":"Mud Creek","pwl":""}"#,
            vec![(300.0, -500.0), (300.0, 0.0), (300.0, 600.0)],
        ),
        (
            r#"{"id":"R2","name":"Ley Creek","pwl":""}"#,
            vec![(3000.0, -500.0), (3000.0, 0.0), (3000.0, 600.0)],
        ),
    ]);
    let tmdl = polygon_fc(&[(
        r#"{"id":"T1","name":"Lake phosphorus TMDL","pollutant":"phosphorus","storm":"yes"}"#,
        tmdl_square,
    )]);
    let list = "pwl,pollutant\nNONE,mercury\n".to_string();
    let m = format!(
        "{SITES}{STREAM}[[layer]]\nrole = \"tmdl\"\npath = \"tmdl.geojson\"\nid_field = \"id\"\nname_field = \"name\"\npollutant_field = \"pollutant\"\nstormwater_field = \"storm\"\n\
         [[layer]]\nrole = \"impaired\"\npath = \"l.csv\"\nid_field = \"pwl\"\ncauses_field = \"pollutant\"\n"
    );
    report(
        &m,
        &[
            ("sites.geojson", sites),
            ("dist.geojson", dist),
            ("flow.geojson", flows),
            ("tmdl.geojson", tmdl),
            ("l.csv", list),
        ],
    )
}

fn lonlat(dx_m: f64, dy_m: f64) -> String {
    point(dx_m, dy_m).trim_matches(['[', ']']).to_string()
}

#[test]
fn the_tmdl_prong_is_decided_where_the_site_discharges() {
    // The outfall and Ley Creek lie in the watershed; the site's footprint does not.
    let r = tmdl_case(&lonlat(2990.0, 50.0), square(2500.0, -800.0, 1500.0));
    assert_eq!(r.entry.rule, "outfall_point");
    assert_eq!(
        r.conditions.a,
        Some(true),
        "{}",
        finding(&r, RuleId::ConditionA).reason
    );
    assert_eq!(r.tmdl_watersheds[0].via.as_deref(), Some("outfall point"));
    // The footprint lies in the watershed, but the outfall drains to Mud Creek outside it.
    let r = tmdl_case(&lonlat(300.0, 50.0), square(-100.0, -100.0, 300.0));
    assert_eq!(
        r.conditions.a,
        Some(false),
        "{}",
        finding(&r, RuleId::ConditionA).reason
    );
    assert!(finding(&r, RuleId::ConditionA)
        .reason
        .contains("footprint does not decide"));
}

#[test]
fn a_site_outside_the_town_gets_its_facts_and_no_requirement() {
    let (sites, dist) = site("", 120.0);
    let town = polygon_fc(&[(
        r#"{"name":"Town of Clay"}"#,
        square(-3000.0, -3000.0, 2500.0),
    )]);
    let m = format!("{SITES}{STREAM}[[layer]]\nrole = \"boundary\"\npath = \"town.geojson\"\nid_field = \"name\"\nname_field = \"name\"\n");
    let r = report(
        &m,
        &[
            ("sites.geojson", sites),
            ("dist.geojson", dist),
            ("flow.geojson", stream("")),
            ("town.geojson", town),
        ],
    );
    assert_eq!(r.conditions.in_jurisdiction, Some(false));
    assert_eq!(r.receiving_water_names, ["Mud Creek"], "facts still shown");
    for id in [
        RuleId::SwpppRequired,
        RuleId::SwpppFull,
        RuleId::Inspections,
        RuleId::ReceivingWaters,
    ] {
        assert_eq!(finding(&r, id).met, Some(false), "{}", id.as_str());
    }
    assert!(r.findings.iter().all(|f| !f.reason.contains(" must ")));
    assert!(r.to_text().contains("OUTSIDE THE TOWN"));
}

#[test]
fn an_approval_recorded_as_text_is_an_approval() {
    // 6.6 acres at once, on no recorded dates: over the limit unless pursuant to an approved
    // SWPPP. An approval whose date cannot be set against the disturbance's leaves it open.
    for (value, approved, exceeded, active) in [
        ("Approved", true, None, Some(false)),
        ("SWPPP-2026-014", true, None, Some(false)),
        ("2026-03-20", true, None, Some(false)),
        ("no", false, Some(true), Some(true)),
        ("denied", false, Some(true), Some(true)),
    ] {
        let (sites, dist) = site(
            &format!(r#","approved_swppp":"{value}","status":"active""#),
            165.0,
        );
        let r = report(
            &format!("{SITES}{STREAM}"),
            &[
                ("sites.geojson", sites),
                ("dist.geojson", dist),
                ("flow.geojson", stream("")),
            ],
        );
        assert!(r.disturbance.peak_acres > 6.0);
        assert_eq!(r.conditions.five_acre_limit_exceeded, exceeded, "{value}");
        assert_eq!(r.site.approved_swppp(), approved, "{value}");
        assert_eq!(
            finding(&r, RuleId::ActiveWithoutApproval).met,
            active,
            "{value}"
        );
    }
}

/// A data set with a stream, a 303(d) list and a TMDL layer, none of which touch the site,
/// so Condition A is decided (no).
fn unlisted(attrs: &str, side_m: f64) -> Report {
    let (sites, dist) = site(attrs, side_m);
    let tmdl = polygon_fc(&[(r#"{"id":"T1","storm":true}"#, square(20000.0, 0.0, 500.0))]);
    let m = format!(
        "{SITES}{STREAM}[[layer]]\nrole = \"tmdl\"\npath = \"tmdl.geojson\"\nid_field = \"id\"\nstormwater_field = \"storm\"\n\
         [[layer]]\nrole = \"impaired\"\npath = \"l.csv\"\nid_field = \"pwl\"\ncauses_field = \"pollutant\"\n"
    );
    let list = "pwl,pollutant\nNONE,mercury\n".to_string();
    report(
        &m,
        &[
            ("sites.geojson", sites),
            ("dist.geojson", dist),
            ("flow.geojson", stream("")),
            ("tmdl.geojson", tmdl),
            ("l.csv", list),
        ],
    )
}

#[test]
fn a_small_common_plan_lot_needs_a_swppp_but_no_inspections() {
    let r = unlisted(r#","common_plan":"yes""#, 50.0);
    assert_eq!(r.conditions.a, Some(false));
    assert!(r.disturbance.total_acres < 1.0);
    assert_eq!(r.conditions.land_development_activity, Some(true));
    assert_eq!(finding(&r, RuleId::SwpppRequired).met, Some(true));
    assert_eq!(finding(&r, RuleId::Inspections).met, Some(false));
    assert!(!finding(&r, RuleId::Inspections)
        .reason
        .contains("every 7 days"));
    // The plan's own acreage, when given, decides Condition C and so the inspections.
    let r = unlisted(
        r#","common_plan":"yes","common_plan_acres":3.2,"land_use":"commercial""#,
        50.0,
    );
    assert_eq!(r.conditions.c, Some(true));
    assert_eq!(finding(&r, RuleId::Inspections).met, Some(true));
}

#[test]
fn a_report_is_dated_the_day_of_the_check() {
    let (sites, dist) = site("", 90.0);
    let r = report(
        &format!("{SITES}{STREAM}"),
        &[
            ("sites.geojson", sites),
            ("dist.geojson", dist),
            ("flow.geojson", stream("")),
        ],
    );
    assert_eq!(r.data.generated, chrono::Local::now().date_naive());
}
