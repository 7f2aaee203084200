//! Every rule of the rulebook, decided from facts built by hand (no data set), at its
//! threshold edges, with missing facts, and for each (5) exemption with and without its
//! condition.

use chrono::NaiveDate;
use outfall_core::area::{PhaseAcres, PhaseOverlap};
use outfall_core::config::{CauseReading, Clauses, Rules};
use outfall_core::facts::*;
use outfall_core::law::{self, RuleId};
use outfall_core::record::{Coded, Site, SiteStatus, Sourced, Stated};
use outfall_core::subject::SubjectKind;
use outfall_core::vocabulary::site::Vocabulary;
use std::sync::Arc;

/// A 2-acre site inside the town, entering an unlisted stream 100 m away, with every layer
/// loaded and nothing claimed.
fn base() -> Facts {
    Facts {
        kind: SubjectKind::Site,
        acreage: Acreage {
            recorded: true,
            whole_parcel: false,
            total_acres: 2.0,
            peak_acres: 2.0,
            peak_date: None,
            phases: vec![phase("1", 2.0, None, None)],
            undated_phases: vec![],
            overlaps: vec![],
            before_approval: None,
            outside_parcels_acres: 0.0,
            polygons: 1,
            refused: vec![],
        },
        jurisdiction: Jurisdiction {
            boundary_loaded: true,
            inside: Some(true),
            wholly_inside: Some(true),
            boundary_name: Some("Town of Clay".into()),
        },
        water: WaterFacts {
            waters_loaded: true,
            impaired_list_loaded: true,
            tmdl_loaded: true,
            located: true,
            entry: EntryFacts {
                rule: EntryRule::Nearest,
                reach_id: Some("R1".into()),
                water_id: Some("R1".into()),
                water_kind: Some("flowline".into()),
                water_name: Some("Mud Creek".into()),
                distance_m: Some(100.0),
                catchment_id: None,
                outfall: None,
                nearest_to_site: None,
                isolated: false,
                search_radius_m: 1000.0,
            },
            candidates: vec![],
            names: vec!["Mud Creek".into()],
            downstream: vec![],
            trace_end: Some("outlet".into()),
            divergences: vec![],
            listed: vec![],
            not_covered: vec![],
            name_notes: vec![],
            tmdl_entered: vec![],
            tmdl_footprint: vec![],
            sewer: None,
        },
        record: Arc::new(Site {
            id: "S".into(),
            status: Coded {
                value: Stated::Known(SiteStatus::UnderConstruction),
                recorded: Some("active".into()),
            },
            common_plan: Some(false),
            ..Site::default()
        }),
        land: LandFacts {
            single_family: said(false),
            agricultural: said(false),
        },
        parcels: ParcelFacts {
            covered: vec![],
            unknown: vec![],
        },
        bbox: None,
    }
}

/// A yes/no statement of the site record.
fn said(v: bool) -> Sourced {
    Sourced {
        value: Some(v),
        source: Some("site record: single_family".into()),
    }
}

fn unsaid() -> Sourced {
    Sourced {
        value: None,
        source: None,
    }
}

/// The facts' record, to change by hand (the base's is shared with no one).
fn rec(f: &mut Facts) -> &mut Site {
    Arc::make_mut(&mut f.record)
}

/// Re-reads the typed record from attributes as a data set would give them, keeping the
/// base's facts for the fields the attributes do not mention.
fn record(f: &mut Facts, attrs: serde_json::Value) {
    let m = attrs.as_object().cloned().unwrap_or_default();
    let c = Site::from_properties("S", &m, &Vocabulary::default());
    let (single_family, agricultural) = c.land_use_said();
    let has = |k: &str| m.contains_key(k);
    let r = rec(f);
    if has("status") {
        r.status = c.status;
    }
    if has("approved_swppp") || has("swppp_approval") {
        r.swppp_approval = c.swppp_approval;
    }
    r.exemption_claims = c.exemption_claims;
    r.problems = c.problems;
    if agricultural.value.is_some() {
        f.land.agricultural = agricultural;
    }
    if single_family.value.is_some() {
        f.land.single_family = single_family;
    }
}

fn phase(name: &str, acres: f64, start: Option<&str>, end: Option<&str>) -> PhaseAcres {
    PhaseAcres {
        phase: name.into(),
        acres,
        start: start.map(day),
        end: end.map(day),
    }
}

fn day(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

fn acres(mut f: Facts, a: f64) -> Facts {
    f.acreage.total_acres = a;
    f.acreage.peak_acres = a;
    f
}

fn listed(id: &str, causes: &[&str], distance_m: f64, first: bool) -> Impaired {
    Impaired {
        id: id.into(),
        name: format!("water {id}"),
        reach_id: "R1".into(),
        distance_m,
        causes: causes.iter().map(|c| c.to_string()).collect(),
        category: Some("5".into()),
        list_year: None,
        first_receiving: first,
    }
}

fn tmdl(stormwater: bool, distance_m: f64) -> TmdlWatershed {
    TmdlWatershed {
        id: "T1".into(),
        name: "Lake phosphorus TMDL".into(),
        pollutant: Some("phosphorus".into()),
        stormwater_source: Some(stormwater),
        via: Some("reach R9".into()),
        distance_m: Some(distance_m),
        outlet_reach: None,
    }
}

fn r() -> Rules {
    Rules::default()
}

fn met(id: RuleId, f: &Facts) -> Option<bool> {
    check(id, f, &r()).met
}

/// Decides a rule and checks the invariants every finding keeps.
fn check(id: RuleId, f: &Facts, rules: &Rules) -> law::Finding {
    let d = law::decide(id, f, rules, &Clauses::default());
    assert_eq!(
        d.met.is_none(),
        !d.missing.is_empty(),
        "{}: null exactly when facts are missing: {:?} {}",
        id.as_str(),
        d.missing,
        d.reason
    );
    assert!(!d.clause.is_empty() && !d.reason.is_empty());
    d
}

#[test]
fn land_development_activity_at_one_acre_or_a_common_plan() {
    use RuleId::LandDevelopmentActivity as L;
    assert_eq!(met(L, &acres(base(), 0.99)), Some(false));
    assert_eq!(met(L, &acres(base(), 1.0)), Some(true));
    let mut lot = acres(base(), 0.5);
    rec(&mut lot).common_plan = Some(true);
    assert_eq!(met(L, &lot), Some(true));
    rec(&mut lot).common_plan = None;
    let d = check(L, &lot, &r());
    assert_eq!(
        d.met, None,
        "not recorded whether it is part of a larger plan"
    );
    assert!(d.missing[0].contains("common_plan"), "{:?}", d.missing);
    let mut nothing = acres(base(), 0.0);
    rec(&mut nothing).common_plan = Some(true);
    assert_eq!(met(L, &nothing), Some(false));
    let mut unrecorded = acres(base(), 0.0);
    unrecorded.acreage.recorded = false;
    let d = check(L, &unrecorded, &r());
    assert_eq!(d.met, None);
    assert!(d.missing[0].contains("disturbance"), "{:?}", d.missing);
}

#[test]
fn condition_b_from_five_acres() {
    use RuleId::ConditionB as B;
    assert_eq!(met(B, &acres(base(), 4.99)), Some(false));
    assert_eq!(met(B, &acres(base(), 5.0)), Some(true));
    let mut f = acres(base(), 0.0);
    f.acreage.recorded = false;
    let d = check(B, &f, &r());
    assert_eq!(
        d.met, None,
        "no disturbance recorded: the acres are unknown, not zero"
    );
    assert!(
        d.missing.iter().any(|m| m.contains("disturbance")),
        "{:?}",
        d.missing
    );
    assert_eq!(met(RuleId::ConditionC, &f), None);
    assert_eq!(met(RuleId::SwpppFull, &f), None);
}

#[test]
fn condition_c_from_one_to_under_five_acres_with_its_exclusions() {
    use RuleId::ConditionC as C;
    for (a, want) in [(0.99, false), (1.0, true), (4.99, true), (5.0, false)] {
        assert_eq!(met(C, &acres(base(), a)), Some(want), "{a} acres");
    }
    let mut sf = acres(base(), 2.0);
    sf.land.single_family = said(true);
    assert_eq!(met(C, &sf), Some(false));
    let mut unknown = acres(base(), 2.0);
    unknown.land.single_family = unsaid();
    let d = check(C, &unknown, &r());
    assert_eq!(d.met, None, "no statement of land use: {}", d.reason);
    assert!(d.missing.iter().any(|m| m.contains("single-family")));
    unknown.land.agricultural = unsaid();
    assert_eq!(met(C, &unknown), None);
    let mut ag = acres(base(), 2.0);
    ag.land.agricultural = said(true);
    let d = check(C, &ag, &r());
    assert_eq!(d.met, Some(false));
    assert!(d.reason.contains("agricultural"), "{}", d.reason);
}

#[test]
fn a_common_plan_lot_is_judged_by_the_plans_acreage_when_given() {
    let mut lot = acres(base(), 0.6);
    rec(&mut lot).common_plan = Some(true);
    assert_eq!(met(RuleId::ConditionC, &lot), Some(false));
    let d = check(RuleId::ConditionC, &lot, &r());
    assert!(d.reason.contains("common_plan_acres"), "{}", d.reason);
    rec(&mut lot).common_plan_acres = Some(3.0);
    assert_eq!(met(RuleId::ConditionC, &lot), Some(true));
    rec(&mut lot).common_plan_acres = Some(12.0);
    assert_eq!(met(RuleId::ConditionC, &lot), Some(false));
    assert_eq!(met(RuleId::ConditionB, &lot), Some(true));
}

#[test]
fn five_acres_at_one_time_needs_a_recorded_approval_to_exceed() {
    use RuleId::FiveAcreLimit as F;
    let mut f = acres(base(), 8.0);
    f.acreage.peak_acres = 5.0;
    assert_eq!(met(F, &f), Some(false), "5.00 is within the limit");
    f.acreage.peak_acres = 5.01;
    assert_eq!(met(F, &f), Some(true));
    // An approval dated before any disturbance waives the limit.
    record(&mut f, serde_json::json!({"approved_swppp": "2026-03-20"}));
    f.acreage.before_approval = Some(outfall_core::area::Peak {
        acres: 0.0,
        date: None,
    });
    assert_eq!(met(F, &f), Some(false), "approved before work");
    // Dated after 6 acres were already open: not pursuant to it.
    f.acreage.before_approval = Some(outfall_core::area::Peak {
        acres: 6.0,
        date: Some(day("2026-03-01")),
    });
    assert_eq!(met(F, &f), Some(true), "approved after the peak began");
    // Approved, with no date: whether the peak came first is unknown.
    for recorded in ["SWPPP-2026-014", "Approved", "yes"] {
        record(&mut f, serde_json::json!({"approved_swppp": recorded}));
        let d = check(F, &f, &r());
        assert_eq!(d.met, None, "approval {recorded}");
        assert!(
            d.missing.iter().any(|m| m.contains("date")),
            "{:?}",
            d.missing
        );
    }
    // Not an approval.
    for recorded in [
        "denied",
        "pending",
        "under review",
        "no approval",
        "withdrawn",
    ] {
        record(&mut f, serde_json::json!({"approved_swppp": recorded}));
        assert_eq!(met(F, &f), Some(true), "approval {recorded}");
    }
    record(
        &mut f,
        serde_json::json!({"approved_swppp": "see the file"}),
    );
    assert_eq!(met(F, &f), None, "words no vocabulary knows");
    rec(&mut f).swppp_approval = Stated::NotRecorded;
    f.acreage.before_approval = None;
    f.acreage.phases = vec![phase("1", 4.0, None, None), phase("2", 4.0, None, None)];
    f.acreage.undated_phases = vec!["1".into(), "2".into()];
    let d = check(F, &f, &r());
    assert_eq!(d.met, None, "undated phases decide it");
    assert!(d.missing.iter().any(|m| m.contains("phase 2")));
    let mut outside = acres(base(), 8.0);
    outside.acreage.peak_acres = 8.0;
    outside.jurisdiction.inside = Some(false);
    assert_eq!(
        met(F, &outside),
        Some(false),
        "the law does not apply there"
    );
}

#[test]
fn phasing_means_each_piece_stabilised_before_the_next() {
    use RuleId::Phasing as P;
    let mut f = base();
    assert_eq!(met(P, &f), Some(false), "one phase is not phasing");
    f.acreage.phases = vec![
        phase("1", 2.0, Some("2026-04-01"), Some("2026-06-30")),
        phase("2", 2.0, Some("2026-07-01"), Some("2026-09-30")),
    ];
    assert_eq!(met(P, &f), Some(true));
    f.acreage.overlaps = vec![PhaseOverlap {
        earlier: "1".into(),
        later: "2".into(),
        from: day("2026-06-15"),
        to: day("2026-06-30"),
    }];
    let d = check(P, &f, &r());
    assert_eq!(d.met, Some(false));
    assert!(
        d.reason.contains("phase 2 starts 2026-06-15"),
        "{}",
        d.reason
    );
    f.acreage.undated_phases = vec!["2".into()];
    assert_eq!(met(P, &f), None);
}

#[test]
fn jurisdiction_is_decided_by_the_boundary_and_gates_every_requirement() {
    use RuleId::*;
    let mut out = acres(base(), 9.0);
    out.jurisdiction.inside = Some(false);
    out.water.listed = vec![listed("L1", &["Sedimentation/Siltation"], 0.0, true)];
    assert_eq!(met(Jurisdiction, &out), Some(false));
    for id in [
        SwpppRequired,
        SwpppFull,
        SwpppPreparer,
        Inspections,
        FiveAcreLimit,
    ] {
        assert_eq!(met(id, &out), Some(false), "{}", id.as_str());
    }
    for f in law::evaluate(&out, &r(), &Clauses::default()) {
        assert!(
            !f.reason.contains(" must "),
            "{}: {}",
            f.rule.as_str(),
            f.reason
        );
    }
    let mut none = base();
    none.jurisdiction.boundary_loaded = false;
    none.jurisdiction.inside = None;
    let d = check(Jurisdiction, &none, &r());
    assert_eq!(d.met, None);
    assert!(d.missing[0].contains("boundary"));
    assert_eq!(met(SwpppRequired, &none), Some(true), "the rest proceeds");
}

#[test]
fn a_site_that_is_not_a_land_development_activity_is_told_no_must() {
    let mut f = acres(base(), 0.45);
    f.water.listed = vec![listed("L1", &["Sediment"], 0.0, true)];
    f.water.tmdl_entered = vec![tmdl(true, 0.0)];
    let all = law::evaluate(&f, &r(), &Clauses::default());
    for x in &all {
        assert!(
            !x.reason.contains("must"),
            "{}: {}",
            x.rule.as_str(),
            x.reason
        );
        if x.rule != RuleId::Jurisdiction && x.rule != RuleId::Exemption {
            assert_ne!(x.met, Some(true), "{}", x.rule.as_str());
        }
    }
}

#[test]
fn every_exemption_code_with_and_without_its_condition() {
    let rules = r();
    let eff = rules.effective_date.to_string();
    let after = rules
        .effective_date
        .succ_opt()
        .map(|d| d.to_string())
        .unwrap_or_default();
    let claim = |attrs: serde_json::Value, acres_disturbed: f64| {
        let mut f = acres(base(), acres_disturbed);
        f.land.agricultural = unsaid();
        record(&mut f, attrs);
        check(RuleId::Exemption, &f, &rules).met
    };
    use serde_json::json;
    // (a) agriculture: an active farm, but never new structures.
    assert_eq!(
        claim(
            json!({"exemptions": "agriculture", "agricultural": true, "new_structures": false}),
            2.0
        ),
        Some(true)
    );
    assert_eq!(
        claim(
            json!({"exemptions": "(5)(a)", "agricultural": true, "new_structures": true}),
            2.0
        ),
        Some(false)
    );
    assert_eq!(
        claim(json!({"exemptions": "5a", "agricultural": true}), 2.0),
        None
    );
    assert_eq!(
        claim(json!({"exemptions": "a", "new_structures": false}), 2.0),
        None,
        "farm status not recorded"
    );
    assert_eq!(
        claim(
            json!({"exemptions": "a", "new_structures": false, "agricultural": false}),
            2.0
        ),
        Some(false)
    );
    // (b) silviculture, except landing areas and log haul roads.
    assert_eq!(
        claim(
            json!({"exemptions": "silviculture", "landing_or_haul_road": false}),
            2.0
        ),
        Some(true)
    );
    assert_eq!(
        claim(
            json!({"exemptions": "b", "landing_or_haul_road": true}),
            2.0
        ),
        Some(false)
    );
    assert_eq!(claim(json!({"exemptions": "forestry"}), 2.0), None);
    // (c) routine maintenance: under 5 acres AND the original line, grade, capacity or purpose.
    assert_eq!(
        claim(
            json!({"exemptions": "routine maintenance", "maintains_original": true}),
            4.99
        ),
        Some(true)
    );
    assert_eq!(
        claim(
            json!({"exemptions": "routine maintenance", "maintains_original": true}),
            5.0
        ),
        Some(false)
    );
    assert_eq!(
        claim(
            json!({"exemptions": "routine maintenance", "maintains_original": false}),
            4.99
        ),
        Some(false)
    );
    assert_eq!(claim(json!({"exemptions": "5(c)"}), 2.0), None);
    // (d) repairs the officer deemed necessary.
    assert_eq!(
        claim(
            json!({"exemptions": "repair", "repair_deemed_necessary": true}),
            2.0
        ),
        Some(true)
    );
    assert_eq!(claim(json!({"exemptions": "repair"}), 2.0), None);
    // (e) plat and (f) building permit approved on or before the effective date.
    assert_eq!(
        claim(json!({"exemptions": "e", "plat_approved": eff}), 2.0),
        Some(true)
    );
    assert_eq!(
        claim(
            json!({"exemptions": "subdivision plat", "plat_approved": after}),
            2.0
        ),
        Some(false)
    );
    assert_eq!(claim(json!({"exemptions": "e"}), 2.0), None);
    assert_eq!(
        claim(
            json!({"exemptions": "building permit", "building_permit_approved": eff}),
            2.0
        ),
        Some(true)
    );
    assert_eq!(
        claim(
            json!({"exemptions": "f", "building_permit_approved": after}),
            2.0
        ),
        Some(false)
    );
    assert_eq!(claim(json!({"exemptions": "(f)"}), 2.0), None);
    // (g)-(k): the claim alone is not enough; the officer's finding verifies or refutes it.
    for (c, finding) in [
        ("cemetery graves", "activity_only"),
        ("fence", "activity_only"),
        ("emergency", "immediately_necessary"),
        ("home gardening", "personal_use"),
        ("landscaping", "existing_structure"),
        ("g", "activity_only"),
        ("h", "activity_only"),
        ("i", "immediately_necessary"),
        ("j", "personal_use"),
        ("k", "existing_structure"),
    ] {
        assert_eq!(claim(json!({"exemptions": c}), 2.0), None, "{c} claimed");
        assert_eq!(
            claim(json!({"exemptions": c, finding: true}), 2.0),
            Some(true),
            "{c} found"
        );
        assert_eq!(
            claim(json!({"exemptions": c, finding: false}), 2.0),
            Some(false),
            "{c} refuted"
        );
    }
    // Words that name no code, and fragments of words that would.
    for words in [
        "it is small",
        "(5)(z)",
        "assignment",
        "preplatted",
        "gardenia",
    ] {
        assert_eq!(claim(json!({"exemptions": words}), 2.0), None, "{words}");
    }
}

#[test]
fn only_a_verified_exemption_changes_requirements() {
    let mut f = acres(base(), 3.0);
    record(
        &mut f,
        serde_json::json!({"exemptions": "routine maintenance"}),
    );
    assert_eq!(met(RuleId::Exemption, &f), None);
    assert_eq!(
        met(RuleId::SwpppRequired, &f),
        Some(true),
        "unverified: unchanged"
    );
    assert_eq!(met(RuleId::Inspections, &f), Some(true));
    record(
        &mut f,
        serde_json::json!({"exemptions": "routine maintenance", "maintains_original": true}),
    );
    assert_eq!(met(RuleId::Exemption, &f), Some(true));
    assert_eq!(met(RuleId::SwpppRequired, &f), Some(false));
    assert_eq!(met(RuleId::Inspections, &f), Some(false));
}

#[test]
fn condition_a_by_the_first_receiving_water_and_the_scope_downstream() {
    use RuleId::ConditionA as A;
    let mut f = base();
    f.water.listed = vec![listed("L1", &["Sedimentation/Siltation"], 0.0, true)];
    assert_eq!(met(A, &f), Some(true), "first receiving water");
    f.water.listed = vec![listed("L2", &["Phosphorus"], 1609.344, false)];
    assert_eq!(met(A, &f), Some(true), "at the edge of one mile");
    f.water.listed = vec![listed("L3", &["Phosphorus"], 1700.0, false)];
    let d = check(A, &f, &r());
    assert_eq!(d.met, Some(false));
    assert_eq!(d.facts["listed_outside_scope"][0], "L3");
    assert!(d.reason.contains("Outside the scope"), "{}", d.reason);
    let mut zero = r();
    zero.condition_a_downstream_km = 0.0;
    f.water.listed = vec![listed("L4", &["Turbidity"], 10.0, false)];
    assert_eq!(
        check(A, &f, &zero).met,
        Some(false),
        "0 km = first water only"
    );
}

#[test]
fn pollutant_of_concern_reading_is_explicit() {
    use RuleId::ConditionA as A;
    let mut f = base();
    f.water.listed = vec![listed("L1", &["Mercury", "PCBs"], 0.0, true)];
    let d = check(A, &f, &r());
    assert_eq!(d.met, Some(false));
    assert_eq!(d.facts["reading"], "construction");
    assert!(
        d.reason
            .contains("not a pollutant of concern under this reading"),
        "{}",
        d.reason
    );
    let mut literal = r();
    literal.condition_a_causes = CauseReading::Any;
    let d = check(A, &f, &literal);
    assert_eq!(d.met, Some(true));
    assert!(
        d.reason.contains("Mercury") && d.reason.contains("literally"),
        "{}",
        d.reason
    );
}

#[test]
fn without_a_303d_list_condition_a_needs_data_unless_the_tmdl_prong_decides() {
    use RuleId::ConditionA as A;
    let mut f = base();
    f.water.impaired_list_loaded = false;
    let d = check(A, &f, &r());
    assert_eq!(d.met, None);
    assert!(
        d.missing.iter().any(|m| m.contains("303(d)")),
        "{:?}",
        d.missing
    );
    f.water.tmdl_entered = vec![tmdl(true, 0.0)];
    assert_eq!(met(A, &f), Some(true));
    f.water.tmdl_entered = vec![tmdl(false, 0.0)];
    assert_eq!(
        met(A, &f),
        None,
        "stormwater not a source: the list still decides"
    );
}

#[test]
fn the_tmdl_prong_is_where_the_discharge_enters_not_the_footprint() {
    use RuleId::ConditionA as A;
    let mut f = base();
    f.water.tmdl_footprint = vec![tmdl(true, 0.0)];
    let d = check(A, &f, &r());
    assert_eq!(d.met, Some(false));
    assert!(
        d.reason.contains("footprint does not decide"),
        "{}",
        d.reason
    );
    f.water.tmdl_entered = vec![tmdl(true, 1200.0)];
    assert_eq!(met(A, &f), Some(true), "enters within a mile");
    f.water.tmdl_entered = vec![tmdl(true, 3000.0)];
    assert_eq!(met(A, &f), Some(false), "enters beyond the scope");
}

#[test]
fn an_unknown_receiving_water_leaves_condition_a_and_its_consequences_undetermined() {
    let mut f = base();
    f.water.entry.rule = EntryRule::None;
    f.water.names.clear();
    let a = check(RuleId::ConditionA, &f, &r());
    assert_eq!(a.met, None);
    assert!(
        a.missing.iter().any(|m| m.contains("outfall point")),
        "{:?}",
        a.missing
    );
    assert_eq!(met(RuleId::SwpppPreparer, &f), None);
    assert_eq!(met(RuleId::ReceivingWaters, &f), None);
    // Condition C holds (2 acres), so a full SWPPP and inspections are required regardless.
    assert_eq!(met(RuleId::SwpppFull, &f), Some(true));
    assert_eq!(met(RuleId::Inspections, &f), Some(true));
}

#[test]
fn inspections_only_under_a_b_or_c_and_with_the_laws_schedule() {
    let mut lot = acres(base(), 0.6);
    rec(&mut lot).common_plan = Some(true);
    assert_eq!(met(RuleId::LandDevelopmentActivity, &lot), Some(true));
    assert_eq!(
        met(RuleId::Inspections, &lot),
        Some(false),
        "a 0.6-acre lot: no A/B/C"
    );
    assert_eq!(met(RuleId::SwpppRequired, &lot), Some(true));
    let d = check(RuleId::Inspections, &acres(base(), 1.0), &r());
    assert_eq!(d.met, Some(true));
    for words in [
        "qualified professional",
        "every 7 days",
        "within 24 hours",
        "0.5 inches",
        "site logbook",
    ] {
        assert!(d.reason.contains(words), "{words}: {}", d.reason);
    }
}

#[test]
fn the_preparer_follows_condition_a() {
    let mut f = base();
    assert_eq!(met(RuleId::SwpppPreparer, &f), Some(false));
    f.water.listed = vec![listed("L1", &["Sediment"], 0.0, true)];
    let d = check(RuleId::SwpppPreparer, &f, &r());
    assert_eq!(d.met, Some(true));
    assert!(d
        .reason
        .contains("landscape architect, certified professional or professional engineer"));
}

#[test]
fn an_active_site_without_a_recorded_approval_is_flagged() {
    use RuleId::ActiveWithoutApproval as W;
    let mut f = base();
    assert_eq!(met(W, &f), Some(true));
    record(&mut f, serde_json::json!({"approved_swppp": "2026-03-20"}));
    assert_eq!(met(W, &f), Some(false));
    record(&mut f, serde_json::json!({"approved_swppp": "denied"}));
    let d = check(W, &f, &r());
    assert_eq!(d.met, Some(true), "a denial is no approval: {}", d.reason);
    record(&mut f, serde_json::json!({"approved_swppp": "see file"}));
    assert_eq!(met(W, &f), None, "words no vocabulary knows");
    rec(&mut f).swppp_approval = Stated::NotRecorded;
    for (status, want) in [
        ("planned", Some(false)),
        ("in progress", Some(true)),
        ("stabilized", Some(false)),
        ("razed", None),
    ] {
        record(&mut f, serde_json::json!({"status": status}));
        assert_eq!(met(W, &f), want, "status {status}");
    }
    rec(&mut f).status.value = Stated::NotRecorded;
    let d = check(W, &f, &r());
    assert_eq!(d.met, None, "no status recorded");
    assert!(d.missing.iter().any(|m| m.contains("status")));
}

#[test]
fn receiving_waters_are_named_and_a_nearest_water_is_called_a_guess() {
    let f = base();
    let d = check(RuleId::ReceivingWaters, &f, &r());
    assert_eq!(d.met, Some(true));
    assert!(
        d.reason.contains("Mud Creek") && d.reason.contains("outfall point would make it certain"),
        "{}",
        d.reason
    );
    let mut o = base();
    o.water.entry.rule = EntryRule::OutfallPoint;
    o.water.entry.outfall = Some([-76.1, 43.1]);
    let d = check(RuleId::ReceivingWaters, &o, &r());
    assert!(
        d.reason
            .contains("outfall point (-76.10000, 43.10000) discharges to Mud Creek"),
        "{}",
        d.reason
    );
    assert!(!d.reason.contains("Assumed"));
}

#[test]
fn the_rulebook_lists_every_rule_with_its_settings() {
    let rows = law::rulebook(&r(), &Clauses::default());
    let ids: Vec<&str> = rows.iter().map(|x| x.id).collect();
    for want in [
        "jurisdiction",
        "exemption",
        "land_development_activity",
        "swppp_required",
        "receiving_waters",
        "five_acre_limit",
        "phasing",
        "condition_a",
        "condition_b",
        "condition_c",
        "swppp_full",
        "swppp_preparer",
        "inspections",
    ] {
        assert!(ids.contains(&want), "{want}");
    }
    let a = rows.iter().find(|x| x.id == "condition_a").unwrap();
    assert_eq!(a.settings["condition_a_causes"], "construction");
    assert!(a.law.contains("pollutant of concern"));
    let b = rows.iter().find(|x| x.id == "condition_b").unwrap();
    assert_eq!(b.settings["condition_b_acres"], 5.0);
    assert!(b.clause.contains("(7)(b)[2]"));
}

#[test]
fn a_refused_disturbance_polygon_leaves_acreage_findings_undetermined_not_changed() {
    // 4.6 acres loaded; D04-2 was refused (a bow-tie), so the site may well be over 5 acres.
    let mut f = acres(base(), 4.6);
    f.acreage.refused = vec!["disturbance D04-2 (disturbance.geojson): self-intersection".into()];
    for id in [
        RuleId::ConditionB,
        RuleId::ConditionC,
        RuleId::FiveAcreLimit,
        RuleId::Phasing,
    ] {
        let d = check(id, &f, &r());
        assert_eq!(d.met, None, "{}", id.as_str());
        assert!(
            d.missing.iter().any(|m| m.contains("D04-2")),
            "{}: {:?}",
            id.as_str(),
            d.missing
        );
    }
    assert_eq!(
        met(RuleId::LandDevelopmentActivity, &f),
        Some(true),
        "4.6 acres already decide it"
    );
    // What the refused polygon cannot undo stays decided.
    let mut big = acres(base(), 8.5);
    big.acreage.refused = f.acreage.refused.clone();
    assert_eq!(met(RuleId::ConditionB, &big), Some(true));
    assert_eq!(met(RuleId::FiveAcreLimit, &big), Some(true));
    let mut small = acres(base(), 0.4);
    small.acreage.refused = f.acreage.refused.clone();
    assert_eq!(met(RuleId::LandDevelopmentActivity, &small), None);
}

#[test]
fn a_parcel_the_data_lacks_leaves_a_class_exclusion_open() {
    let mut f = acres(base(), 2.0);
    f.land.single_family = unsaid();
    f.land.agricultural = unsaid();
    f.parcels.unknown = vec!["020.-01-99.0".into()];
    let d = check(RuleId::ConditionC, &f, &r());
    assert_eq!(d.met, None);
    assert!(d.missing[0].contains("020.-01-99.0"), "{:?}", d.missing);
    // The site's own record settles it, whatever the parcels say.
    f.land.single_family = said(true);
    assert_eq!(met(RuleId::ConditionC, &f), Some(false));
}

/// Unknown is never read as "no" (nor as "yes"): blanking any one input fact can only turn a
/// decided finding into `null`, never into the other answer. Checked for every rule, over
/// bases at the thresholds' edges.
#[test]
fn blanking_any_fact_never_flips_a_decided_finding() {
    type Blank = (&'static str, fn(&mut Facts));
    let blanks: [Blank; 10] = [
        ("status", |f| rec(f).status.value = Stated::NotRecorded),
        ("approval", |f| {
            rec(f).swppp_approval = Stated::Unreadable("see file".into())
        }),
        ("common_plan", |f| rec(f).common_plan = None),
        ("single_family", |f| f.land.single_family = unsaid()),
        ("agricultural", |f| f.land.agricultural = unsaid()),
        ("disturbance", |f| {
            f.acreage.recorded = false;
            f.acreage.total_acres = 0.0;
            f.acreage.peak_acres = 0.0;
        }),
        ("tmdl stormwater", |f| {
            for t in &mut f.water.tmdl_entered {
                t.stormwater_source = None;
            }
        }),
        ("receiving water", |f| {
            f.water.entry.rule = EntryRule::None;
            f.water.listed.clear();
            f.water.tmdl_entered.clear();
            f.water.names.clear();
        }),
        ("303(d) list", |f| {
            f.water.impaired_list_loaded = false;
            f.water.listed.clear();
        }),
        ("approval date", |f| {
            if let Stated::Known(a) = &mut rec(f).swppp_approval {
                a.date = None;
            }
        }),
    ];
    let mut bases = Vec::new();
    for a in [0.5, 2.0, 6.0] {
        for approved in [false, true] {
            for listed_hit in [false, true] {
                let mut f = acres(base(), a);
                if approved {
                    record(&mut f, serde_json::json!({"approved_swppp": "2026-03-20"}));
                    f.acreage.before_approval = Some(outfall_core::area::Peak {
                        acres: 0.0,
                        date: None,
                    });
                }
                if listed_hit {
                    f.water.listed = vec![listed("L1", &["Sediment"], 0.0, true)];
                }
                f.water.tmdl_entered = vec![tmdl(!listed_hit, 0.0)];
                bases.push(f);
            }
        }
    }
    for (n, b) in bases.iter().enumerate() {
        let before = law::evaluate(b, &r(), &Clauses::default());
        for (what, blank) in &blanks {
            let mut f = b.clone();
            blank(&mut f);
            let after = law::evaluate(&f, &r(), &Clauses::default());
            for (x, y) in before.iter().zip(&after) {
                if let (Some(p), Some(q)) = (x.met, y.met) {
                    assert_eq!(
                        p,
                        q,
                        "base {n}, {what} blanked: {} flipped: {}",
                        x.rule.as_str(),
                        y.reason
                    );
                }
                if y.met.is_none() {
                    assert!(
                        !y.missing.is_empty(),
                        "base {n}, {what}: {} null names nothing",
                        y.rule.as_str()
                    );
                }
            }
        }
    }
}
