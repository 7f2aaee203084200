//! The local law as code: one small pure function per rule, each reading the subject's facts
//! and the `[rules]` settings and returning a decision that cites its clause. A rule never
//! reads geometry, files or HTTP. `RULEBOOK` lists every rule, the law's words and the
//! settings it reads; `outfall rules` and `GET /rules` print it.

mod applicability;
mod conditions;
pub mod exemptions;
mod fact_map;
mod plan;
mod prose;

pub use applicability::{
    active_without_approval, exemption, jurisdiction, land_development_activity, swppp_required,
};
pub use conditions::{condition_a, condition_b, condition_c, construction_causes, water_test};
pub use plan::{
    describe_entry, five_acre_limit, inspections, phasing, receiving_waters, swppp_full,
    swppp_preparer,
};

use crate::config::{settings, Clauses, Rules};
use crate::facts::Facts;
use crate::record::{Stated, SITE};
pub use fact_map::FactMap;
pub use prose::number_words;
use prose::prose;
use serde::Serialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::Arc;

/// Stable rule ids, as in `findings[].rule`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleId {
    Jurisdiction,
    Exemption,
    LandDevelopmentActivity,
    SwpppRequired,
    ActiveWithoutApproval,
    ReceivingWaters,
    FiveAcreLimit,
    Phasing,
    ConditionA,
    ConditionB,
    ConditionC,
    SwpppFull,
    SwpppPreparer,
    Inspections,
}

impl RuleId {
    pub fn as_str(self) -> &'static str {
        spec(self).name
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A rule's outcome for one subject. `met` reads as the rule id says: `true` always means
/// "this applies to the site"; `None` means the data cannot decide, and `missing` says why.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Finding {
    pub rule: RuleId,
    pub clause: Arc<str>,
    pub met: Option<bool>,
    pub missing: Vec<String>,
    pub reason: String,
    /// The facts the rule used.
    pub facts: FactMap,
    /// Where those facts came from: "site record: land_use", "parcel class 210",
    /// "approved_swppp text '2026-03-20'", "disturbance polygons", "the applicant's outfall
    /// point". Most are fixed words, borrowed rather than copied for every check.
    pub sources: Vec<Cow<'static, str>>,
}

/// What a rule function returns; `evaluate` adds the id and the configured clause label.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub met: Option<bool>,
    pub missing: Vec<String>,
    pub reason: String,
    pub facts: FactMap,
}

impl Decision {
    fn new(met: Option<bool>, reason: impl Into<String>) -> Decision {
        Decision {
            met,
            missing: Vec::new(),
            reason: reason.into(),
            facts: FactMap::default(),
        }
    }

    fn missing(mut self, what: impl IntoIterator<Item = String>) -> Decision {
        if self.met.is_none() {
            self.missing.extend(what);
        }
        self
    }

    fn fact(mut self, key: &'static str, v: impl Serialize) -> Decision {
        self.facts
            .insert(key, serde_json::to_value(v).unwrap_or(Value::Null));
        self
    }
}

/// One row of the rulebook.
#[derive(Debug, Clone, Serialize)]
pub struct RuleSpec {
    #[serde(rename = "id")]
    pub name: &'static str,
    #[serde(skip)]
    pub rule: RuleId,
    pub title: &'static str,
    /// The law's words.
    pub law: &'static str,
    /// The `[rules]` settings it reads, by their declared names (`config::SETTINGS`).
    pub settings: &'static [&'static str],
    #[serde(skip)]
    decide: fn(&Decisions) -> Decision,
}

/// The rules decided for one subject, each at most once. A rule that builds on others (the
/// SWPPP's contents on Conditions A to C, everything on whether a SWPPP is required) reads
/// their decisions here: before, Condition A was decided six times per check.
pub struct Decisions<'a> {
    pub f: &'a Facts,
    pub r: &'a Rules,
    memo: [OnceCell<Decision>; RULEBOOK.len()],
}

impl<'a> Decisions<'a> {
    pub fn new(f: &'a Facts, r: &'a Rules) -> Decisions<'a> {
        Decisions {
            f,
            r,
            memo: Default::default(),
        }
    }

    /// A rule's decision, decided on first use. The rulebook has no cycle (a rule reads only
    /// rules it builds on), so no decision waits on itself.
    pub fn get(&self, id: RuleId) -> &Decision {
        self.memo[id as usize].get_or_init(|| (spec(id).decide)(self))
    }

    /// Every decision, in rulebook order.
    fn into_all(self) -> impl Iterator<Item = (RuleId, Decision)> {
        for s in &RULEBOOK {
            self.get(s.rule);
        }
        RULEBOOK
            .iter()
            .zip(self.memo)
            .filter_map(|(s, d)| d.into_inner().map(|d| (s.rule, d)))
    }
}

macro_rules! spec {
    ($rule:ident, $name:literal, $f:path, $title:literal, $law:literal, [$($s:literal),*]) => {
        RuleSpec { name: $name, rule: RuleId::$rule, title: $title, law: $law, settings: &[$($s),*], decide: $f }
    };
}

/// Every rule, in the order a report lists them.
pub const RULEBOOK: [RuleSpec; 14] = [
    spec!(Jurisdiction, "jurisdiction", jurisdiction, "The law applies here (inside the Town)",
        "(4)(a) This local law shall be applicable to all land development activities as defined in §230-20 D (6). Outfall's reading, which the law does not state: a town's law applies within the town, so a site applies when its interior overlaps the `boundary` layer (an edge or corner shared is outside); without a boundary layer it is null and the review proceeds as if inside.", []),
    spec!(Exemption, "exemption", exemption, "A verified exemption applies (verified: the record shows the condition the clause names; (d), (g)-(k) need the officer's finding)",
        "(5) The following activities may be exempt from review under this law. (a) Agricultural activity ... (k) Landscaping and horticultural activities in connection with an existing structure.",
        ["maintenance_max_acres", "effective_date"]),
    spec!(LandDevelopmentActivity, "land_development_activity", land_development_activity, "Land development activity",
        "(6) Land Development Activity - construction activity including clearing, grading, excavating, soil disturbance or placement of fill that results in land disturbance of equal to or greater than one acre or activities disturbing less than one acre of total land area that is part of a larger common plan of development or sale.",
        ["land_development_acres"]),
    spec!(SwpppRequired, "swppp_required", swppp_required, "A SWPPP is required",
        "(7)(a) No application for approval of a land development activity shall be reviewed until the appropriate board has received a Stormwater Pollution Prevention Plan (SWPPP) prepared in accordance with the specifications in this local law.",
        ["land_development_acres"]),
    spec!(ActiveWithoutApproval, "active_without_approval", active_without_approval, "Active without a recorded SWPPP approval",
        "(4)(d) ... shall be required to submit a Stormwater Pollution Prevention Plan (SWPPP) to the Stormwater Management Officer who shall approve the SWPPP if it complies with the requirements of this law.",
        []),
    spec!(ReceivingWaters, "receiving_waters", receiving_waters, "The SWPPP names the receiving waters",
        "(7)(b)[1][m] Name(s) of the receiving water(s);", ["search_radius_m", "trace_limit_km"]),
    spec!(FiveAcreLimit, "five_acre_limit", five_acre_limit, "More than five acres disturbed at one time without an approved SWPPP",
        "(7)(b)[1][d] ... not more than five (5) acres shall be disturbed at any one time unless pursuant to an approved SWPPP.",
        ["max_disturbed_at_once_acres"]),
    spec!(Phasing, "phasing", phasing, "Phased as the law defines it",
        "(6) Phasing - clearing a parcel of land in distinct pieces or parts, with the stabilization of each piece completed before the clearing of the next.", []),
    spec!(ConditionA, "condition_a", condition_a, "Condition A: discharge of a pollutant of concern to an impaired water or TMDL watershed",
        "(7)(b)[2] Condition A - Stormwater runoff from land development activities discharging a pollutant of concern to either an impaired water identified on the Department's 303(d) list of impaired waters or a Total Maximum Daily Load (TMDL) designated watershed for which pollutants in stormwater have been identified as a source of the impairment. (6) Pollutant of Concern - sediment or a water quality measurement that addresses sediment (such as total suspended solids, turbidity or siltation) and any other pollutant that has been identified as a cause of impairment of any water body that will receive a discharge from the land development activity. Outfall's readings, which the law does not state: which receiving waters count is the setting condition_a_downstream_km (the first receiving water and listed waters within 1 mile downstream by default), and with condition_a_causes = \"construction\" the pollutants of concern are the sediment and nutrient terms of the cause vocabulary (construction_pollutants adds terms), matched as whole terms.",
        ["condition_a_causes", "construction_pollutants", "condition_a_downstream_km", "search_radius_m", "impaired_match_m", "impaired_match_share"]),
    spec!(ConditionB, "condition_b", condition_b, "Condition B: five acres or more",
        "(7)(b)[2] Condition B - Stormwater runoff from land development activities disturbing five (5) or more acres.",
        ["condition_b_acres"]),
    spec!(ConditionC, "condition_c", condition_c, "Condition C: one to five acres",
        "(7)(b)[2] Condition C - Stormwater runoff from land development activity disturbing between one (1) and five (5) acres of land during the course of the project, exclusive of the construction of single family residences and construction activities at agricultural properties.",
        ["land_development_acres", "condition_b_acres", "single_family_classes", "agricultural_classes"]),
    spec!(SwpppFull, "swppp_full", swppp_full, "Full SWPPP with post-construction controls",
        "(7)(b)[2] Land development activities as defined in §230-20 D. (6) of this Article and meeting Condition \"A\", \"B\" or \"C\" below shall also include water quantity and water quality controls (post-construction stormwater runoff controls) as set forth in [3] below as applicable.",
        []),
    spec!(SwpppPreparer, "swppp_preparer", swppp_preparer, "SWPPP prepared by a licensed professional",
        "(7)(b)[3][j] For Condition A, the SWPPP shall be prepared by a landscape architect, certified professional or professional engineer and must be signed by the professional preparing the plan, who shall certify that the design of all stormwater management practices meet the requirements in this local law.",
        []),
    spec!(Inspections, "inspections", inspections, "Inspections every 7 days and after storms",
        "(9)(a)[2] For land development activities as defined in §230-20 D. (6) of this Article and meeting Condition A, B or C in §230-20 D 7(b)(2), the applicant shall have a qualified professional conduct site inspections and document the effectiveness of all erosion and sediment control practices every 7 days and within 24 hours of any storm event producing 0.5 inches of precipitation or more. Inspection reports shall be maintained in a site logbook.",
        ["inspection_interval_days", "storm_threshold_in", "storm_inspection_hours"]),
];

pub fn spec(id: RuleId) -> &'static RuleSpec {
    // RULEBOOK is in enum order.
    &RULEBOOK[id as usize]
}

/// The clause label a town configured for a rule.
pub fn clause(c: &Clauses, id: RuleId) -> &Arc<str> {
    match id {
        RuleId::Jurisdiction => &c.jurisdiction,
        RuleId::Exemption => &c.exemption,
        RuleId::LandDevelopmentActivity => &c.land_development_activity,
        RuleId::SwpppRequired => &c.swppp_required,
        RuleId::ActiveWithoutApproval => &c.active_without_approval,
        RuleId::ReceivingWaters => &c.receiving_waters,
        RuleId::FiveAcreLimit => &c.five_acre_limit,
        RuleId::Phasing => &c.phasing,
        RuleId::ConditionA => &c.condition_a,
        RuleId::ConditionB => &c.condition_b,
        RuleId::ConditionC => &c.condition_c,
        RuleId::SwpppFull => &c.swppp_full,
        RuleId::SwpppPreparer => &c.swppp_preparer,
        RuleId::Inspections => &c.inspections,
    }
}

/// One rule's decision, with those it builds on.
pub fn decision(id: RuleId, f: &Facts, r: &Rules) -> Decision {
    Decisions::new(f, r).get(id).clone()
}

/// Decides one rule.
pub fn decide(id: RuleId, f: &Facts, r: &Rules, c: &Clauses) -> Finding {
    finding(id, decision(id, f, r), f, c)
}

fn finding(id: RuleId, d: Decision, f: &Facts, c: &Clauses) -> Finding {
    Finding {
        rule: id,
        clause: clause(c, id).clone(),
        met: d.met,
        missing: d.missing,
        reason: d.reason,
        facts: d.facts,
        sources: sources(id, f),
    }
}

/// The sources a rule reads, as the subject's facts record them.
fn sources(id: RuleId, f: &Facts) -> Vec<Cow<'static, str>> {
    use RuleId::*;
    let c = &f.record;
    let acres = || match (c.common_plan, c.common_plan_acres) {
        (Some(true), Some(_)) => SITE.common_plan_acres.source.into(),
        _ if f.acreage.whole_parcel => "the parcel, as if wholly disturbed".into(),
        _ => "disturbance polygons".into(),
    };
    let approval = || match &c.swppp_approval {
        Stated::Known(a) => Some(a.source.clone().into()),
        Stated::Unreadable(w) => Some(prose!("site record: approval '{w}'").into()),
        Stated::NotRecorded => None,
    };
    let status = || {
        c.status
            .recorded
            .as_ref()
            .map(|w| prose!("site record: status '{w}'").into())
    };
    let entry = || -> Cow<'static, str> {
        use crate::facts::EntryRule;
        match f.water.entry.rule {
            EntryRule::OutfallPoint => "receiving water: the applicant's outfall point",
            EntryRule::Catchment => "receiving water: the catchment the site lies in",
            EntryRule::StormSewer => "receiving water: the storm-sewer trace to the outfall",
            EntryRule::Nearest => "receiving water: assumed from the nearest water",
            EntryRule::UnreadableOutfall => "receiving water: the record's outfall cannot be read",
            EntryRule::None => "receiving water: not found",
        }
        .into()
    };
    let out: Vec<Option<Cow<'static, str>>> = match id {
        Jurisdiction => vec![Some(match &f.jurisdiction.boundary_name {
            Some(n) => prose!("boundary layer: {n}").into(),
            None if f.jurisdiction.boundary_loaded => "boundary layer".into(),
            None => "no boundary layer".into(),
        })],
        Exemption => c
            .exemption_claims
            .iter()
            .map(|e| Some(prose!("site record: exemption '{}'", e.stated).into()))
            .collect(),
        LandDevelopmentActivity => vec![
            Some(acres()),
            c.common_plan.map(|_| SITE.common_plan.source.into()),
        ],
        ActiveWithoutApproval => vec![status(), approval()],
        FiveAcreLimit => vec![
            Some("disturbance phases and their dates".into()),
            approval(),
        ],
        Phasing => vec![Some("disturbance phases and their dates".into())],
        ReceivingWaters => vec![Some(entry())],
        ConditionA => vec![
            Some(entry()),
            Some("303(d) list and TMDL watersheds".into()),
        ],
        ConditionB => vec![Some(acres())],
        ConditionC => vec![
            Some(acres()),
            f.land.single_family.source.clone().map(Cow::Owned),
            f.land.agricultural.source.clone().map(Cow::Owned),
        ],
        SwpppRequired | SwpppFull | SwpppPreparer | Inspections => {
            vec![Some("the findings above".into())]
        }
    };
    // Deduplicated in place: the list of options becomes the list, without a second one.
    let mut seen: Vec<Cow<'static, str>> = out.into_iter().flatten().collect();
    let mut i = 0;
    while i < seen.len() {
        if seen[..i].contains(&seen[i]) {
            seen.remove(i);
        } else {
            i += 1;
        }
    }
    seen
}

/// Every rule of the rulebook for one subject.
pub fn evaluate(f: &Facts, r: &Rules, c: &Clauses) -> Vec<Finding> {
    Decisions::new(f, r)
        .into_all()
        .map(|(id, d)| finding(id, d, f, c))
        .collect()
}

/// A rulebook row as served: the town's clause label and the current values of the
/// settings the rule reads.
#[derive(Debug, Clone, Serialize)]
pub struct RuleRow {
    pub id: &'static str,
    pub title: &'static str,
    pub clause: String,
    pub law: &'static str,
    pub settings: Map<String, Value>,
}

/// The rulebook with a data set's clause labels and settings.
pub fn rulebook(r: &Rules, c: &Clauses) -> Vec<RuleRow> {
    let value = |name: &str| settings::find(name).map_or(Value::Null, |s| s.value(r));
    RULEBOOK
        .iter()
        .map(|s| RuleRow {
            id: s.name,
            title: s.title,
            clause: clause(c, s.rule).to_string(),
            law: s.law,
            settings: s
                .settings
                .iter()
                .map(|k| (k.to_string(), value(k)))
                .collect(),
        })
        .collect()
}

/// Kleene and: false wins, then unknown.
pub fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// Kleene or: true wins, then unknown.
pub fn or3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// "2.00 acres"; never "-0.00" (a difference of unions can come out a hair below zero).
fn acres(a: f64) -> String {
    prose!("{:.2} acres", a.max(0.0))
}

/// What a refused disturbance feature leaves unknown, as missing facts.
fn refused(f: &Facts) -> Vec<String> {
    f.acreage
        .refused
        .iter()
        .map(|r| prose!("a valid {r}"))
        .collect()
}

/// Why the acreage may be short, for a reason.
fn refused_note(f: &Facts) -> String {
    if f.acreage.refused.is_empty() {
        String::new()
    } else {
        prose!(
            " Cannot decide from the acres alone: {} refused at load, so the disturbed area may be larger.",
            f.acreage.refused.len()
        )
    }
}

/// "If the whole parcel were disturbed: " for a parcel checked before any plan exists.
fn assumed(f: &Facts) -> &'static str {
    if f.acreage.whole_parcel {
        "If the whole parcel were disturbed: "
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_a_rule_reads_exists() {
        let rows = rulebook(&Rules::default(), &Clauses::default());
        for row in rows {
            for (k, v) in &row.settings {
                assert!(!v.is_null(), "{}: unknown setting {k}", row.id);
            }
        }
    }

    #[test]
    fn every_setting_a_rule_lists_is_declared() {
        for s in &RULEBOOK {
            for name in s.settings {
                assert!(
                    settings::find(name).is_some(),
                    "rule {} lists the setting {name}, which config::SETTINGS does not declare",
                    s.name
                );
            }
        }
    }

    /// The law's own numbers, quoted in the rulebook, are the Town of Clay defaults: a
    /// changed default that no longer implements the quoted words fails here.
    #[test]
    fn the_numbers_the_law_quotes_are_the_defaults() {
        let d = Rules::default();
        let law = |id: RuleId| spec(id).law;
        let inspections = law(RuleId::Inspections);
        for words in [
            format!("every {} days", d.inspection_interval_days),
            format!("within {} hours", d.storm_inspection_hours),
            format!("producing {} inches", d.storm_threshold_in),
        ] {
            assert!(inspections.contains(&words), "inspections: {words}");
        }
        assert!(spec(RuleId::Inspections)
            .title
            .contains(&format!("every {} days", d.inspection_interval_days)));
        let five = format!("({}) or more acres", d.condition_b_acres);
        assert!(law(RuleId::ConditionB).contains(&five), "{five}");
        let at_once = format!(
            "({}) acres shall be disturbed",
            d.max_disturbed_at_once_acres
        );
        assert!(law(RuleId::FiveAcreLimit).contains(&at_once), "{at_once}");
        assert!(law(RuleId::ConditionA).contains("within 1 mile downstream by default"));
        assert!((d.condition_a_downstream_km - 1.609344).abs() < 1e-12);
    }

    #[test]
    fn rulebook_is_in_enum_order() {
        for (i, s) in RULEBOOK.iter().enumerate() {
            assert_eq!(s.rule as usize, i, "{}", s.name);
            assert_eq!(serde_json::to_value(s.rule).unwrap(), s.name);
        }
    }
}
