//! (7)(b)[2] Conditions A, B and C.

mod water;

pub use water::{construction_causes, water_test};

use super::{acres, and3, assumed, or3, refused, refused_note, Decision, Decisions, RuleId};
use crate::config::Rules;
use crate::facts::Facts;
use crate::law::prose::prose;
use crate::record::{Sourced, SITE};

/// Condition A: a land development activity discharging a pollutant of concern to a listed
/// water or a TMDL watershed where stormwater is a source.
pub fn condition_a(x: &Decisions) -> Decision {
    let (f, r) = (x.f, x.r);
    let lda = x.get(RuleId::LandDevelopmentActivity);
    let mut d = water_test(f, r);
    let met = and3(lda.met, d.met);
    if outside_town(f) {
        d.reason = prose!("{OUTSIDE} For information: {}", d.reason);
        d.missing.clear();
        d.met = Some(false);
        return d
            .fact("land_development_activity", lda.met)
            .fact("in_jurisdiction", false);
    }
    if lda.met == Some(false) {
        d.reason = prose!(
            "Not a land development activity, so Condition A does not apply. For information: {}",
            d.reason
        );
        d.missing.clear();
    } else if lda.met.is_none() && d.met == Some(true) {
        d.missing.extend(lda.missing.clone());
        d.reason = prose!(
            "Whether this is a land development activity is undetermined, so Condition A is too. {}",
            d.reason
        );
    }
    d.met = met;
    d.fact("land_development_activity", lda.met)
}

/// Outside the Town the conditions are not `true`: the law does not apply there (4)(a).
const OUTSIDE: &str = "The site lies outside the Town, where this local law does not apply (4)(a), so the condition does not apply to it.";

fn outside_town(f: &Facts) -> bool {
    f.jurisdiction.inside == Some(false)
}

/// The acreage Conditions B and C read: the larger common plan's when the site gives it.
fn plan_acres(f: &Facts) -> (f64, bool) {
    match (f.record.common_plan, f.record.common_plan_acres) {
        (Some(true), Some(p)) => (p, true),
        _ => (f.acreage.total_acres, false),
    }
}

/// Condition B: five acres or more.
///
/// The threshold is the setting `condition_b_acres` (5 acres in the Town of Clay). Site S03 of
/// the demo data, a phased subdivision, disturbs 7.31 acres over the whole project:
///
/// ```
/// use outfall_core::{facts, law, screening::Subject, Catalog, Rules};
///
/// let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/clay");
/// let catalog = Catalog::open(&demo)?;
/// let s03 = Subject::from_site(&catalog, catalog.site("S03")?);
/// let facts = facts::gather(&catalog, &s03);
/// assert_eq!(format!("{:.2}", facts.acreage.total_acres), "7.31");
///
/// let clay = Rules::default();
/// assert_eq!(clay.condition_b_acres, 5.0);
/// let b = law::decision(law::RuleId::ConditionB, &facts, &clay);
/// assert_eq!(b.met, Some(true));
/// assert_eq!(b.facts["threshold_acres"], 5.0);
///
/// // A town whose threshold is 10 acres: the same 7.31 acres fall under it.
/// let ten = Rules { condition_b_acres: 10.0, ..Rules::default() };
/// assert_eq!(law::decision(law::RuleId::ConditionB, &facts, &ten).met, Some(false));
/// # Ok::<(), outfall_core::Error>(())
/// ```
pub fn condition_b(x: &Decisions) -> Decision {
    let (f, r) = (x.f, x.r);
    let lda = x.get(RuleId::LandDevelopmentActivity);
    let (a, plan) = plan_acres(f);
    let whose = if plan {
        "the larger common plan disturbs"
    } else {
        "disturbed"
    };
    let unrecorded = !plan && !f.acreage.recorded;
    let short = !plan && !f.acreage.refused.is_empty();
    let over = if unrecorded {
        None
    } else if a >= r.condition_b_acres {
        Some(true)
    } else if short {
        None
    } else {
        Some(false)
    };
    let met = if outside_town(f) {
        Some(false)
    } else {
        and3(lda.met, over)
    };
    let reason = match met {
        _ if outside_town(f) => OUTSIDE.to_string(),
        Some(true) => prose!(
            "{}{} {whose}: Condition B applies at {} acres or more.",
            assumed(f),
            acres(a),
            r.condition_b_acres
        ),
        Some(false) => prose!(
            "{}{} {whose}, under the {} acres of Condition B.",
            assumed(f),
            acres(a),
            r.condition_b_acres
        ),
        None if unrecorded => "No disturbance is recorded, so the disturbed area is not known.".into(),
        None if short => prose!(
            "{}{} {whose}, under {} acres.{}",
            assumed(f),
            acres(a),
            r.condition_b_acres,
            refused_note(f)
        ),
        None => prose!(
            "{}{} {whose}, at or above {} acres, but whether this is a land development activity is undetermined.",
            assumed(f),
            acres(a),
            r.condition_b_acres
        ),
    };
    let mut missing = if met.is_none() {
        lda.missing.clone()
    } else {
        Vec::new()
    };
    if short && over.is_none() {
        for m in refused(f) {
            if !missing.contains(&m) {
                missing.push(m);
            }
        }
    }
    Decision::new(met, reason)
        .missing(missing)
        .fact("acres", (!unrecorded).then_some(a))
        .fact("common_plan_acres_used", plan)
        .fact("threshold_acres", r.condition_b_acres)
}

/// Condition C: one to five acres, except the construction of single-family residences and
/// construction activities at agricultural properties. The site record's statement of its
/// land use decides; the parcel class only when the record is silent.
pub fn condition_c(x: &Decisions) -> Decision {
    let (f, r) = (x.f, x.r);
    let lda = x.get(RuleId::LandDevelopmentActivity);
    let v = RangeView::of(f, r);
    let (met, reason) = range_outcome(f, r, &v);
    // A "no" from the acres, the land use or the boundary stands whatever the activity.
    let met = and3(lda.met, met);
    let missing = if met.is_none() {
        range_missing(f, &v, lda.missing.clone())
    } else {
        Vec::new()
    };
    Decision::new(met, reason)
        .missing(missing)
        .fact("acres", (!v.unrecorded).then_some(v.acres))
        .fact("common_plan_acres_used", v.plan)
        .fact("single_family", v.sf.value)
        .fact("single_family_source", &v.sf.source)
        .fact("agricultural", v.ag.value)
        .fact("agricultural_source", &v.ag.source)
}

/// What Condition C reads of a subject, worked out once for its outcome and what it misses.
struct RangeView<'a> {
    acres: f64,
    /// The acres are the larger common plan's.
    plan: bool,
    unrecorded: bool,
    in_range: bool,
    /// Refused disturbance may hide acres, and no exclusion settles it anyway.
    short: bool,
    /// A parcel the site names but the data lacks could change a class-based answer.
    class_open: bool,
    /// The exclusion: true when either holds, false when both are known not to, else unknown.
    excluded: Option<bool>,
    sf: &'a Sourced,
    ag: &'a Sourced,
}

impl<'a> RangeView<'a> {
    fn of(f: &'a Facts, r: &Rules) -> RangeView<'a> {
        let (acres, plan) = plan_acres(f);
        let (sf, ag) = (&f.land.single_family, &f.land.agricultural);
        let excluded = or3(sf.value, ag.value);
        let from_class = |s: &Sourced| {
            s.source
                .as_deref()
                .is_some_and(|x| x.starts_with("parcel class"))
        };
        RangeView {
            acres,
            plan,
            unrecorded: !plan && !f.acreage.recorded,
            in_range: acres >= r.land_development_acres && acres < r.condition_b_acres,
            short: !plan && !f.acreage.refused.is_empty() && excluded != Some(true),
            class_open: !f.parcels.unknown.is_empty()
                && (from_class(sf) || from_class(ag) || excluded.is_none()),
            excluded,
            sf,
            ag,
        }
    }
}

/// Condition C's answer from the acres and the land use alone, and its reason.
fn range_outcome(f: &Facts, r: &Rules, v: &RangeView) -> (Option<bool>, String) {
    let pre = assumed(f);
    let range = prose!(
        "{} to {} acres",
        r.land_development_acres,
        r.condition_b_acres
    );
    let whose = if v.plan {
        prose!("{} disturbed by the larger common plan", acres(v.acres))
    } else {
        prose!("{} disturbed", acres(v.acres))
    };
    let (sf, ag) = (v.sf, v.ag);
    if outside_town(f) {
        (Some(false), OUTSIDE.to_string())
    } else if v.unrecorded {
        (
            None,
            "No disturbance is recorded, so the disturbed area is not known.".into(),
        )
    } else if v.short {
        (None, prose!("{pre}{whose}.{}", refused_note(f)))
    } else if !v.in_range {
        let note = if f.record.common_plan == Some(true)
            && !v.plan
            && v.acres < r.land_development_acres
        {
            prose!(" The site is part of a larger common plan whose acreage is not recorded ({}); with it, the plan's acreage would decide this.", SITE.common_plan_acres.name)
        } else {
            String::new()
        };
        (
            Some(false),
            prose!("{pre}{whose}; Condition C covers {range}.{note}"),
        )
    } else if v.class_open {
        (None, prose!(
            "{pre}{whose}, within {range}, but the site names parcels the data lacks ({}), and their property class could exclude it as a single-family residence or agricultural property.",
            f.parcels.unknown.join(", ")
        ))
    } else if sf.value == Some(true) {
        (Some(false), prose!("{pre}{whose}, but the work is the construction of a single-family residence ({}), which Condition C excludes.", sf.source.as_deref().unwrap_or("site record")))
    } else if ag.value == Some(true) {
        (Some(false), prose!(
            "{pre}{whose}, but the work is at an agricultural property ({}), which Condition C excludes.",
            ag.source.as_deref().unwrap_or("site record")
        ))
    } else if v.excluded.is_none() {
        (None, prose!("{pre}{whose}, within {range}; whether the work is the construction of a single-family residence or at an agricultural property, which Condition C excludes, is not recorded."))
    } else {
        let by: Vec<&str> = [sf.source.as_deref(), ag.source.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        (Some(true), prose!("{pre}{whose}, within {range}, and not a single-family residence or agricultural property ({}).", by.join("; ")))
    }
}

/// What an undecided Condition C lacks: the activity's missing facts, then the parcels, land
/// use or refused disturbance that leave it open.
fn range_missing(f: &Facts, v: &RangeView, mut missing: Vec<String>) -> Vec<String> {
    if v.in_range && !v.unrecorded && !v.short {
        if v.class_open {
            missing.extend(
                f.parcels
                    .unknown
                    .iter()
                    .map(|p| prose!("parcel {p} (named in parcel_ids, not in any parcels layer)")),
            );
        }
        if v.sf.value.is_none() && v.excluded.is_none() {
            missing.push(prose!(
                "whether the work is the construction of a single-family residence ({})",
                SITE.land_use.name
            ));
        }
        if v.ag.value.is_none() && v.excluded.is_none() {
            missing.push(prose!(
                "whether the work is at an agricultural property ({})",
                SITE.land_use.name
            ));
        }
    }
    if v.short {
        missing.extend(
            refused(f)
                .into_iter()
                .filter(|m| !missing.contains(m))
                .collect::<Vec<_>>(),
        );
    }
    missing
}
