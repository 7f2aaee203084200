//! "No guesses": a fact is never guessed from free text, and a missing fact is never read as
//! "no". One test per class of error, at the edges the law's words draw, on a made-up town.

mod common;

use common::town::{phase, rect, Town};
use outfall_core::law::RuleId;
use outfall_core::report::Report;

fn finding(r: &Report, id: RuleId) -> &outfall_core::law::Finding {
    r.findings
        .iter()
        .find(|f| f.rule == id)
        .expect("every rule has a finding")
}

fn met(r: &Report, id: RuleId) -> Option<bool> {
    finding(r, id).met
}

/// A 6-acre site under construction since 2026-04-01, with `attrs`.
fn six_acres(attrs: &str) -> Report {
    Town::new()
        .sites(&[(
            attrs,
            vec![phase("1", "2026-04-01", "2026-09-30", 0.0, 0.0, 6.0)],
        )])
        .report("S1")
}

// Class 1: free text read by loose matching.

#[test]
fn only_an_approved_decision_waives_the_five_acre_limit() {
    for (approval, limit, active) in [
        (r#""approved_swppp":"denied""#, Some(true), Some(true)),
        (r#""approved_swppp":"no approval""#, Some(true), Some(true)),
        (r#""approved_swppp":"under review""#, Some(true), Some(true)),
        (r#""approved_swppp":"Pending""#, Some(true), Some(true)),
        (
            r#""swppp_approval":{"decision":"withdrawn"}"#,
            Some(true),
            Some(true),
        ),
        (
            r#""swppp_approval":{"decision":"denied","date":"2026-03-01"}"#,
            Some(true),
            Some(true),
        ),
        (r#""approved_swppp":"2026-03-20""#, Some(false), Some(false)),
        (
            r#""swppp_approval":{"decision":"approved","date":"2026-03-20","body":"planning board"}"#,
            Some(false),
            Some(false),
        ),
        // Free text no vocabulary knows decides nothing.
        (r#""approved_swppp":"ok per Bob""#, None, None),
        (r#""swppp_approval":{"decision":"maybe"}"#, None, None),
    ] {
        let r = six_acres(&format!(
            r#""status":"under construction","common_plan":false,{approval}"#
        ));
        assert_eq!(
            met(&r, RuleId::FiveAcreLimit),
            limit,
            "{approval}: {}",
            finding(&r, RuleId::FiveAcreLimit).reason
        );
        assert_eq!(
            met(&r, RuleId::ActiveWithoutApproval),
            active,
            "{approval}: {}",
            finding(&r, RuleId::ActiveWithoutApproval).reason
        );
        let reason = &finding(&r, RuleId::ActiveWithoutApproval).reason;
        assert!(
            !reason.contains("The SWPPP approval is recorded: denied"),
            "{reason}"
        );
        if limit.is_none() {
            assert!(!finding(&r, RuleId::FiveAcreLimit).missing.is_empty());
            assert!(
                !r.site.record_problems().is_empty(),
                "the unknown word is a problem"
            );
        }
    }
}

#[test]
fn an_exemption_is_named_by_a_whole_code_or_phrase_never_a_fragment() {
    for (claim, exempt) in [
        // "assignment" holds "sign", "preplatted" holds "plat", "regraves" holds "grave".
        ("signage assignment", None),
        ("repairs to the parking lot driveway", None),
        ("fencing", None),
        ("(5)(e)", None),
        ("5e", None),
    ] {
        let r = six_acres(&format!(
            r#""status":"planned","common_plan":false,"exemptions":"{claim}""#
        ));
        assert_eq!(
            met(&r, RuleId::Exemption),
            exempt,
            "{claim}: {}",
            finding(&r, RuleId::Exemption).reason
        );
        assert_eq!(
            met(&r, RuleId::SwpppRequired),
            Some(true),
            "{claim}: an unverified claim changes no requirement"
        );
        assert_eq!(met(&r, RuleId::SwpppFull), Some(true), "{claim}");
    }
    let r = six_acres(r#""exemptions":"signage assignment","common_plan":false"#);
    assert!(finding(&r, RuleId::Exemption)
        .missing
        .iter()
        .any(|m| m.contains("signage assignment")));
    assert!(r
        .site
        .record_problems()
        .iter()
        .any(|p| p.contains("signage assignment")));
}

#[test]
fn conditional_exemptions_need_the_officers_finding_not_the_claim() {
    for (code, field) in [
        ("i", "immediately_necessary"),
        ("j", "personal_use"),
        ("k", "existing_structure"),
        ("d", "repair_deemed_necessary"),
        ("h", "activity_only"),
    ] {
        let claimed = six_acres(&format!(r#""common_plan":false,"exemptions":"{code}""#));
        assert_eq!(
            met(&claimed, RuleId::Exemption),
            None,
            "({code}) on the claim alone"
        );
        assert!(
            finding(&claimed, RuleId::Exemption)
                .missing
                .iter()
                .any(|m| m.contains(field)),
            "{code}: {:?}",
            finding(&claimed, RuleId::Exemption).missing
        );
        assert_eq!(met(&claimed, RuleId::SwpppRequired), Some(true));
        let found = six_acres(&format!(
            r#""common_plan":false,"exemptions":"{code}","{field}":true"#
        ));
        assert_eq!(
            met(&found, RuleId::Exemption),
            Some(true),
            "({code}) with the finding"
        );
        assert_eq!(met(&found, RuleId::SwpppRequired), Some(false));
        let refuted = six_acres(&format!(
            r#""common_plan":false,"exemptions":"{code}","{field}":false"#
        ));
        assert_eq!(
            met(&refuted, RuleId::Exemption),
            Some(false),
            "({code}) refuted"
        );
    }
}

#[test]
fn every_word_for_construction_under_way_keeps_a_site_on_the_calendar() {
    for (status, code) in [
        ("active", Some("under_construction")),
        ("Under construction", Some("under_construction")),
        ("in progress", Some("under_construction")),
        ("stabilised", Some("stabilized")),
        ("demolished", None),
    ] {
        let r = six_acres(&format!(r#""status":"{status}","common_plan":false"#));
        assert_eq!(r.site.status(), code, "{status}");
        assert_eq!(r.site.status_recorded(), Some(status));
        let due = outfall_core::calendar::CalendarSite::from_report(&r);
        let as_of = chrono::NaiveDate::from_ymd_opt(2026, 5, 1).unwrap();
        let list = outfall_core::calendar::due_list(
            &[due],
            &[],
            &[],
            &outfall_core::Rules::default(),
            as_of,
        );
        let needs_data = list.needs_data.iter().any(|s| s.site_id == "S1");
        let owed = list.sites.iter().any(|s| s.site_id == "S1");
        match code {
            Some("under_construction") => assert!(owed, "{status}: owed during construction"),
            Some(_) => assert!(!owed && !needs_data, "{status}"),
            None => assert!(
                needs_data,
                "{status}: an unknown word is needs-data, never dropped"
            ),
        }
    }
}

/// A town's column names are its own files': a site of its sites layer is read through
/// them, a drawn plan (or a batch item) by the record's own names.
#[test]
fn a_towns_renamed_columns_apply_to_its_sites_never_to_a_drawn_plan() {
    let mut town = Town::new().sites(&[(
        r#""STAT":"active""#,
        vec![phase("1", "2026-04-01", "2026-09-30", 0.0, 0.0, 6.0)],
    )]);
    town.manifest = town.manifest.replacen(
        "id_field = \"id\"\n",
        "id_field = \"id\"\nfields = { status = \"STAT\" }\n",
        1,
    );
    let (_dir, cat) = town.open();
    let site = outfall_core::screening::check_site(&cat, "S1").expect("report");
    assert_eq!(site.site.status(), Some("under_construction"));
    let plan = outfall_core::load::Feature {
        id: "plan".into(),
        geometry: cat.site("S1").unwrap().boundary.clone().unwrap(),
        properties: serde_json::json!({"status": "active"})
            .as_object()
            .cloned()
            .unwrap_or_default()
            .into(),
    };
    let drawn = outfall_core::screening::check_drawn(&cat, "plan", &[plan], None).unwrap();
    assert_eq!(drawn.site.status(), Some("under_construction"));
    assert_eq!(drawn.site.status_recorded(), Some("active"));
}

// Class 2: unknown read as "no".

#[test]
fn no_disturbance_recorded_leaves_every_acreage_rule_undetermined() {
    let r = Town::new()
        .sites(&[
            (r#""common_plan":false"#, vec![]),
            (
                r#""common_plan":false"#,
                vec![phase("1", "", "", 0.0, 900.0, 1.0)],
            ),
        ])
        .report("S1");
    for id in [
        RuleId::LandDevelopmentActivity,
        RuleId::ConditionB,
        RuleId::ConditionC,
        RuleId::SwpppFull,
        RuleId::FiveAcreLimit,
    ] {
        assert_eq!(met(&r, id), None, "{id:?}: {}", finding(&r, id).reason);
        assert!(
            !finding(&r, id).missing.is_empty(),
            "{id:?} names what is missing"
        );
    }
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains("-0.0"), "no negative zero acres");
    assert!(!r.to_text().contains("-0.00"));
}

#[test]
fn a_tmdl_whose_stormwater_source_is_blank_leaves_condition_a_undetermined() {
    let tmdl = |storm: &str| {
        Town::new()
            .layer(
                "[[layer]]\nrole = \"tmdl\"\npath = \"tmdl.geojson\"\nid_field = \"id\"\nname_field = \"name\"\nstormwater_field = \"storm\"\n",
                "tmdl.geojson",
                common::town::fc(&[common::town::feature(
                    &format!(r#"{{"id":"T1","name":"Lake TMDL"{storm}}}"#),
                    &rect(-800.0, -800.0, 2500.0, 2500.0),
                )]),
            )
            .sites(&[(r#""common_plan":false"#, vec![phase("1", "", "", 0.0, 0.0, 2.0)])])
            .report("S1")
    };
    let blank = tmdl(r#","storm":"""#);
    let a = finding(&blank, RuleId::ConditionA);
    assert_eq!(a.met, None, "{}", a.reason);
    assert!(
        a.missing
            .iter()
            .any(|m| m.contains("Lake TMDL") && m.contains("stormwater")),
        "{:?}",
        a.missing
    );
    assert_eq!(
        tmdl(r#","storm":null"#).conditions.a,
        None,
        "null attribute"
    );
    assert_eq!(tmdl(r#","storm":true"#).conditions.a, Some(true));
}

#[test]
fn condition_c_needs_a_land_use_from_some_source() {
    let with = |attrs: &str| six_acres_at(attrs, 2.0);
    let unknown = with(r#""common_plan":false"#);
    assert_eq!(
        unknown.conditions.c,
        None,
        "{}",
        finding(&unknown, RuleId::ConditionC).reason
    );
    assert!(finding(&unknown, RuleId::ConditionC)
        .missing
        .iter()
        .any(|m| m.contains("single-family")));
    assert_eq!(
        with(r#""common_plan":false,"single_family":false,"agricultural":false"#)
            .conditions
            .c,
        Some(true)
    );
    assert_eq!(
        with(r#""common_plan":false,"land_use":"commercial""#)
            .conditions
            .c,
        Some(true)
    );
    assert_eq!(
        with(r#""common_plan":false,"land_use":"single family residence""#)
            .conditions
            .c,
        Some(false)
    );
    assert_eq!(
        with(r#""common_plan":false,"land_use":"Agricultural""#)
            .conditions
            .c,
        Some(false)
    );
    let odd = with(r#""common_plan":false,"land_use":"mixed bag""#);
    assert_eq!(odd.conditions.c, None);
    assert!(odd
        .site
        .record_problems()
        .iter()
        .any(|p| p.contains("mixed bag")));
}

fn six_acres_at(attrs: &str, acres: f64) -> Report {
    Town::new()
        .sites(&[(
            attrs,
            vec![phase("1", "2026-04-01", "2026-09-30", 0.0, 0.0, acres)],
        )])
        .report("S1")
}

#[test]
fn an_agricultural_claim_without_farm_status_is_unverified() {
    let r = six_acres(r#""common_plan":false,"exemptions":"agriculture","new_structures":false"#);
    assert_eq!(
        met(&r, RuleId::Exemption),
        None,
        "{}",
        finding(&r, RuleId::Exemption).reason
    );
    let farm = six_acres(
        r#""common_plan":false,"exemptions":"agriculture","new_structures":false,"agricultural":true"#,
    );
    assert_eq!(met(&farm, RuleId::Exemption), Some(true));
    let barn = six_acres(
        r#""common_plan":false,"exemptions":"agriculture","new_structures":true,"agricultural":true"#,
    );
    assert_eq!(met(&barn, RuleId::Exemption), Some(false));
}

#[test]
fn a_small_site_with_no_common_plan_record_is_undetermined() {
    let r = six_acres_at("", 0.5);
    assert_eq!(r.conditions.land_development_activity, None);
    assert!(finding(&r, RuleId::LandDevelopmentActivity)
        .missing
        .iter()
        .any(|m| m.contains("common_plan")));
    assert_eq!(
        six_acres_at(r#""common_plan":false"#, 0.5)
            .conditions
            .land_development_activity,
        Some(false)
    );
    assert_eq!(
        six_acres_at(r#""common_plan":true"#, 0.5)
            .conditions
            .land_development_activity,
        Some(true)
    );
}

// Class 3: a weaker fact never overrides a stronger one.

#[test]
fn the_site_record_decides_land_use_before_the_parcel_class() {
    let parcels = |class: &str| {
        common::town::fc(&[common::town::feature(
            &format!(r#"{{"pid":"P1","class":"{class}"}}"#),
            &rect(-50.0, -50.0, 300.0, 300.0),
        )])
    };
    let town = |class: &str, attrs: &str| {
        Town::new()
            .layer("[[layer]]\nrole = \"parcels\"\npath = \"parcels.geojson\"\nid_field = \"pid\"\nclass_field = \"class\"\n", "parcels.geojson", parcels(class))
            .sites(&[(attrs, vec![phase("1", "2026-04-01", "2026-09-30", 0.0, 0.0, 2.0)])])
            .report("S1")
    };
    let record_no = town(
        "210",
        r#""common_plan":false,"single_family":false,"agricultural":false"#,
    );
    assert_eq!(
        record_no.conditions.c,
        Some(true),
        "{}",
        finding(&record_no, RuleId::ConditionC).reason
    );
    assert_eq!(
        record_no.site.single_family_source(),
        Some("site record: single_family")
    );
    let silent = town("210", r#""common_plan":false"#);
    assert_eq!(silent.conditions.c, Some(false));
    assert_eq!(silent.site.single_family_source(), Some("parcel class 210"));
    assert!(finding(&silent, RuleId::ConditionC)
        .reason
        .contains("parcel class 210"));
    // Class 330 is neither 210 nor agricultural (1xx): the fallback decides, and says so.
    let commercial = town("330", r#""common_plan":false"#);
    assert_eq!(commercial.conditions.c, Some(true));
    assert!(finding(&commercial, RuleId::ConditionC)
        .reason
        .contains("parcel class 330"));
    // No class and no statement: nothing decides.
    let blank = town("", r#""common_plan":false"#);
    assert_eq!(
        blank.conditions.c,
        None,
        "{}",
        finding(&blank, RuleId::ConditionC).reason
    );
}

// Class 4: dates.

#[test]
fn disturbance_before_the_approval_date_is_not_pursuant_to_it() {
    let r = |approved: &str| {
        six_acres(&format!(
            r#""status":"active","common_plan":false,"swppp_approval":{{"decision":"approved","date":"{approved}"}}"#
        ))
    };
    let late = r("2026-05-15");
    assert_eq!(
        met(&late, RuleId::FiveAcreLimit),
        Some(true),
        "{}",
        finding(&late, RuleId::FiveAcreLimit).reason
    );
    assert!(finding(&late, RuleId::FiveAcreLimit)
        .reason
        .contains("2026-05-15"));
    assert_eq!(
        met(&r("2026-04-01"), RuleId::FiveAcreLimit),
        Some(false),
        "approved the day it began"
    );
    assert_eq!(met(&r("2026-03-01"), RuleId::FiveAcreLimit), Some(false));
    let undated =
        six_acres(r#""status":"active","common_plan":false,"approved_swppp":"SWPPP-2026-014""#);
    assert_eq!(
        met(&undated, RuleId::FiveAcreLimit),
        None,
        "an approval with no date"
    );
    assert!(finding(&undated, RuleId::FiveAcreLimit)
        .missing
        .iter()
        .any(|m| m.contains("date")));
}

// Class 6: jurisdiction.

#[test]
fn a_site_sharing_only_an_edge_with_the_town_is_outside_and_no_condition_applies() {
    // The boundary's west edge is at x = -1000; the site lies west of it, touching it.
    let s = common::town::side_m(6.0);
    let r = Town::new()
        .sites(&[(
            r#""common_plan":false,"land_use":"commercial""#,
            vec![(
                "1",
                "2026-04-01",
                "2026-09-30",
                rect(-1000.0 - s, 0.0, s, s),
            )],
        )])
        .report("S1");
    assert_eq!(
        r.conditions.in_jurisdiction,
        Some(false),
        "{}",
        finding(&r, RuleId::Jurisdiction).reason
    );
    assert!(!finding(&r, RuleId::Jurisdiction)
        .reason
        .contains("Part of it lies outside"));
    for id in [
        RuleId::ConditionA,
        RuleId::ConditionB,
        RuleId::ConditionC,
        RuleId::SwpppRequired,
    ] {
        assert_ne!(met(&r, id), Some(true), "{id:?} outside the town");
    }
    assert_eq!(r.conditions.b, Some(false));
    assert!(r.disturbance.total_acres > 5.9, "the facts stay visible");
    let inside = Town::new()
        .sites(&[(
            r#""common_plan":false"#,
            vec![phase(
                "1",
                "2026-04-01",
                "2026-09-30",
                -1000.0 - s / 2.0,
                0.0,
                6.0,
            )],
        )])
        .report("S1");
    assert_eq!(
        inside.conditions.in_jurisdiction,
        Some(true),
        "half inside is inside"
    );
}

#[test]
fn a_parcel_checked_without_a_plan_cannot_decide_the_limit_at_one_time() {
    let parcels = common::town::fc(&[common::town::feature(
        r#"{"pid":"P9","class":"330"}"#,
        &rect(0.0, 0.0, 200.0, 200.0),
    )]);
    let town = Town::new()
        .layer("[[layer]]\nrole = \"parcels\"\npath = \"parcels.geojson\"\nid_field = \"pid\"\nclass_field = \"class\"\n", "parcels.geojson", parcels)
        .sites(&[(r#""common_plan":false"#, vec![phase("1", "", "", 900.0, 900.0, 1.0)])]);
    let (_dir, cat) = town.open();
    let r = outfall_core::screening::check_parcel(&cat, "P9").unwrap();
    assert!(r.disturbance.total_acres > 9.0);
    assert_eq!(
        met(&r, RuleId::FiveAcreLimit),
        None,
        "{}",
        finding(&r, RuleId::FiveAcreLimit).reason
    );
}

// A report never contradicts itself.

#[test]
fn no_decided_finding_of_any_demo_site_says_it_is_undetermined() {
    let cat = outfall_core::Catalog::open(&common::demo_dir()).expect("the demo loads");
    let mut checked = 0;
    for site in &cat.sites {
        let r = outfall_core::screening::check_site(&cat, &site.id).expect("report");
        for f in &r.findings {
            checked += 1;
            let words = f.reason.to_lowercase();
            if f.met.is_some() {
                for w in [
                    "undetermined",
                    "unknown",
                    "cannot be told",
                    "cannot decide",
                    "not recorded, and that decides",
                ] {
                    assert!(
                        !words.contains(w),
                        "{} {}: {:?} but says '{w}': {}",
                        site.id,
                        f.rule.as_str(),
                        f.met,
                        f.reason
                    );
                }
                assert!(
                    f.missing.is_empty(),
                    "{} {}: decided but missing {:?}",
                    site.id,
                    f.rule.as_str(),
                    f.missing
                );
            } else {
                assert!(
                    !f.missing.is_empty(),
                    "{} {}: null without naming what is missing",
                    site.id,
                    f.rule.as_str()
                );
            }
            assert!(!f.reason.contains("-0.00"), "{}", f.reason);
        }
        let c = &r.conditions;
        // Outside the town nothing applies; inside, the summary agrees with the findings.
        if c.in_jurisdiction == Some(false) {
            assert!(
                ![c.a, c.b, c.c].contains(&Some(true)),
                "{}: a condition outside the town",
                site.id
            );
        }
    }
    assert!(checked >= 14 * 14);
}
