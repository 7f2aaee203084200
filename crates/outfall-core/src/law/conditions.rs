//! (7)(b)[2] Conditions A, B and C.

use super::{
    acres, and3, assumed, land_development_activity, or3, refused, refused_note, Decision,
};
use crate::claims::Sourced;
use crate::config::{CauseReading, Rules};
use crate::facts::{EntryRule, Facts, Impaired, TmdlWatershed};
use crate::vocabulary::causes::CauseVocabulary;

/// The pollutants of concern among a listed water's causes, under the configured reading.
fn pollutants_of_concern(w: &Impaired, r: &Rules) -> Vec<String> {
    match r.condition_a_causes {
        CauseReading::Construction => {
            CauseVocabulary::with_extra(&r.construction_pollutants).causes_matching(&w.causes)
        }
        CauseReading::Any => w.causes.clone(),
    }
}

/// Which vocabulary term each pollutant of concern matched, for the finding's facts
/// ("SOLIDS (SUSPENDED/BEDLOAD) — EPA ATTAINS parameter, sediment group"); none under the
/// literal reading, where every cause counts.
fn pollutant_terms(w: &Impaired, r: &Rules) -> Vec<String> {
    match r.condition_a_causes {
        CauseReading::Construction => CauseVocabulary::with_extra(&r.construction_pollutants)
            .matching(&w.causes)
            .iter()
            .map(|m| m.describe())
            .collect(),
        CauseReading::Any => Vec::new(),
    }
}

/// The water half of Condition A, without the land-development test: the 303(d) prong or
/// the TMDL prong, each decided by where the site discharges.
pub fn water_test(f: &Facts, r: &Rules) -> Decision {
    let w = &f.water;
    let scope_m = r.condition_a_downstream_km * 1000.0;
    let known = w.entry.rule != EntryRule::None;
    let in_scope = |first: bool, d: f64| first || d <= scope_m + 1e-6;
    let (inside, outside): (Vec<&Impaired>, Vec<&Impaired>) = w
        .listed
        .iter()
        .partition(|l| in_scope(l.first_receiving, l.distance_m));
    let hit = inside
        .iter()
        .find_map(|l| Some((l, pollutants_of_concern(l, r))).filter(|(_, p)| !p.is_empty()));
    let reading = reading_words(r);
    let scope_words = scope_words(r);
    let mut missing = Vec::new();
    let list_prong: Option<bool> = if hit.is_some() {
        Some(true)
    } else if !w.impaired_list_loaded {
        missing.push("a 303(d) impaired-waters list".to_string());
        None
    } else if !known {
        missing.push(where_missing(f));
        None
    } else {
        Some(false)
    };
    let (tmdl_prong, storm, blank) = tmdl_prong(f, scope_m, known, &mut missing);
    let met = or3(list_prong, tmdl_prong);
    let mut why: Vec<String> = Vec::new();
    if let Some((l, poc)) = &hit {
        let at = if l.first_receiving {
            "the first receiving water".to_string()
        } else {
            format!(
                "{:.2} km downstream, within {scope_words}",
                l.distance_m / 1000.0
            )
        };
        why.push(format!("{} ({}) is on the 303(d) list and is {at}; it is impaired by {}, a pollutant of concern ({reading}).", l.name, l.id, poc.join(", ")));
    }
    if let Some(t) = storm {
        why.push(format!(
            "The discharge enters the {} TMDL watershed ({}) at the {}, and stormwater is identified as a source of the impairment.",
            t.name,
            t.pollutant.as_deref().unwrap_or("pollutant not given"),
            t.via.as_deref().unwrap_or("site")
        ));
    }
    if met != Some(true) {
        match list_prong {
            Some(false) => why.push(format!("No listed water in scope ({scope_words}) is impaired by a pollutant of concern ({reading}).")),
            None if !w.impaired_list_loaded => why.push("No 303(d) impaired-waters list is loaded, so the 303(d) prong cannot be decided.".into()),
            _ => {}
        }
        match tmdl_prong {
            Some(false) => why.push(
                "The discharge enters no TMDL watershed where stormwater is a source.".into(),
            ),
            None if !w.tmdl_loaded => why.push("No TMDL watershed layer is loaded.".into()),
            None if !blank.is_empty() => why.push(format!(
                "The discharge enters the {} TMDL watershed, whose record does not say whether stormwater is a source of the impairment.",
                blank.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
            )),
            _ => {}
        }
        if !known {
            why.push(
                where_missing(f) + " is not known, so where the discharge goes cannot be traced.",
            );
        }
    }
    let hit_id = hit.as_ref().map(|(h, _)| h.id.as_str());
    why.extend(context_notes(w, &inside, &outside, hit_id));
    Decision::new(met, why.join(" "))
        .missing(missing)
        .fact("reading", r.condition_a_causes.as_str())
        .fact("scope_km", r.condition_a_downstream_km)
        .fact("list_prong", list_prong)
        .fact("tmdl_prong", tmdl_prong)
        .fact(
            "listed_in_scope",
            inside.iter().map(|l| &l.id).collect::<Vec<_>>(),
        )
        .fact(
            "listed_outside_scope",
            outside.iter().map(|l| &l.id).collect::<Vec<_>>(),
        )
        .fact(
            "tmdl_entered",
            w.tmdl_entered.iter().map(|t| &t.id).collect::<Vec<_>>(),
        )
        .fact("entry_rule", w.entry.rule.as_str())
        .fact(
            "pollutant_terms",
            hit.as_ref()
                .map(|(l, _)| pollutant_terms(l, r))
                .unwrap_or_default(),
        )
}

/// The TMDL prong: `Some(true)` when the discharge enters, within scope, a watershed where
/// stormwater is a source (returned with it); entered watersheds whose stormwater-source
/// attribute is blank leave it open (returned too), and what is missing is pushed.
fn tmdl_prong<'a>(
    f: &'a Facts,
    scope_m: f64,
    known: bool,
    missing: &mut Vec<String>,
) -> (
    Option<bool>,
    Option<&'a TmdlWatershed>,
    Vec<&'a TmdlWatershed>,
) {
    let w = &f.water;
    let entered: Vec<&TmdlWatershed> = w
        .tmdl_entered
        .iter()
        .filter(|t| t.distance_m == Some(0.0) || t.distance_m.unwrap_or(0.0) <= scope_m + 1e-6)
        .collect();
    let storm = entered
        .iter()
        .copied()
        .find(|t| t.stormwater_source == Some(true));
    let blank: Vec<&TmdlWatershed> = entered
        .into_iter()
        .filter(|t| t.stormwater_source.is_none())
        .collect();
    let met = if storm.is_some() {
        Some(true)
    } else if !w.tmdl_loaded {
        missing.push("a TMDL watershed layer".to_string());
        None
    } else if !known && w.entry.outfall.is_none() {
        if !missing.contains(&where_missing(f)) {
            missing.push(where_missing(f));
        }
        None
    } else if !blank.is_empty() {
        missing.extend(blank.iter().map(|t| {
            format!(
                "whether stormwater is a source of the {} TMDL ({}): its stormwater-source attribute is blank",
                t.name, t.id
            )
        }));
        None
    } else {
        Some(false)
    };
    (met, storm, blank)
}

/// How "pollutant of concern" is read, in words.
fn reading_words(r: &Rules) -> String {
    match r.condition_a_causes {
        CauseReading::Construction => format!(
            "pollutants of concern read as sediment and the construction-related causes (the causes vocabulary's sediment and nutrients terms, matched as whole terms, plus {}), DEC's practice",
            r.construction_pollutants.join(", ")
        ),
        CauseReading::Any => "pollutants of concern read literally (6): sediment, plus any cause of impairment of a receiving water".into(),
    }
}

/// Which waters Condition A looks at, in words.
fn scope_words(r: &Rules) -> String {
    if r.condition_a_downstream_km > 0.0 {
        format!(
            "the first receiving water or a listed water within {:.2} km downstream",
            r.condition_a_downstream_km
        )
    } else {
        "the first receiving water".into()
    }
}

/// What the officer should also see, whatever the outcome: listed waters beyond the scope,
/// listings in scope whose causes are not pollutants of concern under this reading, and TMDL
/// watersheds the footprint meets but the discharge does not enter.
fn context_notes(
    w: &crate::facts::WaterFacts,
    inside: &[&Impaired],
    outside: &[&Impaired],
    hit_id: Option<&str>,
) -> Vec<String> {
    let mut notes: Vec<String> = outside
        .iter()
        .map(|l| {
            format!(
                "Outside the scope: {} ({}) {:.1} km downstream, listed for {}.",
                l.name,
                l.id,
                l.distance_m / 1000.0,
                l.causes.join(", ")
            )
        })
        .collect();
    notes.extend(
        inside
            .iter()
            .filter(|l| hit_id != Some(l.id.as_str()))
            .map(|l| {
                format!(
            "In scope but not a pollutant of concern under this reading: {} ({}) listed for {}.",
            l.name,
            l.id,
            l.causes.join(", ")
        )
            }),
    );
    let footprint_only: Vec<&str> = w
        .tmdl_footprint
        .iter()
        .filter(|t| !w.tmdl_entered.iter().any(|e| e.id == t.id))
        .map(|t| t.name.as_str())
        .collect();
    if !footprint_only.is_empty() {
        notes.push(format!("The site's footprint meets the {} TMDL watershed, but its discharge does not enter it within scope; the footprint does not decide Condition A.", footprint_only.join(", ")));
    }
    notes
}

/// Which fact would place the discharge.
fn where_missing(f: &Facts) -> String {
    if !f.water.waters_loaded {
        "the stream network or waterbodies".into()
    } else if !f.water.located {
        "the site's location".into()
    } else {
        format!(
            "a receiving water within {:.0} m, or the applicant's outfall point",
            f.water.entry.search_radius_m
        )
    }
}

/// Condition A: a land development activity discharging a pollutant of concern to a listed
/// water or a TMDL watershed where stormwater is a source.
pub fn condition_a(f: &Facts, r: &Rules) -> Decision {
    let lda = land_development_activity(f, r);
    let mut d = water_test(f, r);
    let met = and3(lda.met, d.met);
    if outside_town(f) {
        d.reason = format!("{OUTSIDE} For information: {}", d.reason);
        d.missing.clear();
        d.met = Some(false);
        return d
            .fact("land_development_activity", lda.met)
            .fact("in_jurisdiction", false);
    }
    if lda.met == Some(false) {
        d.reason = format!(
            "Not a land development activity, so Condition A does not apply. For information: {}",
            d.reason
        );
        d.missing.clear();
    } else if lda.met.is_none() && d.met == Some(true) {
        d.missing.extend(lda.missing.clone());
        d.reason = format!(
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
    match (f.claims.common_plan, f.claims.common_plan_acres) {
        (Some(true), Some(p)) => (p, true),
        _ => (f.acreage.total_acres, false),
    }
}

/// Condition B: five acres or more.
pub fn condition_b(f: &Facts, r: &Rules) -> Decision {
    let lda = land_development_activity(f, r);
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
        Some(true) => format!(
            "{}{} {whose}: Condition B applies at {} acres or more.",
            assumed(f),
            acres(a),
            r.condition_b_acres
        ),
        Some(false) => format!(
            "{}{} {whose}, under the {} acres of Condition B.",
            assumed(f),
            acres(a),
            r.condition_b_acres
        ),
        None if unrecorded => "No disturbance is recorded, so the disturbed area is not known.".into(),
        None if short => format!(
            "{}{} {whose}, under {} acres.{}",
            assumed(f),
            acres(a),
            r.condition_b_acres,
            refused_note(f)
        ),
        None => format!(
            "{}{} {whose}, at or above {} acres, but whether this is a land development activity is undetermined.",
            assumed(f),
            acres(a),
            r.condition_b_acres
        ),
    };
    let mut missing = if met.is_none() {
        lda.missing
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
pub fn condition_c(f: &Facts, r: &Rules) -> Decision {
    let lda = land_development_activity(f, r);
    let c = &f.claims;
    let (a, plan) = plan_acres(f);
    let unrecorded = !plan && !f.acreage.recorded;
    let in_range = a >= r.land_development_acres && a < r.condition_b_acres;
    let pre = assumed(f);
    let range = format!(
        "{} to {} acres",
        r.land_development_acres, r.condition_b_acres
    );
    let whose = if plan {
        format!("{} disturbed by the larger common plan", acres(a))
    } else {
        format!("{} disturbed", acres(a))
    };
    let (sf, ag) = (&c.single_family, &c.agricultural);
    // The exclusion: true when either holds, false when both are known not to, else unknown.
    let excluded = or3(sf.value, ag.value);
    let from_class = |s: &Sourced| {
        s.source
            .as_deref()
            .is_some_and(|x| x.starts_with("parcel class"))
    };
    // A parcel the site names but the data lacks could change a class-based answer.
    let class_open =
        !c.unknown_parcels.is_empty() && (from_class(sf) || from_class(ag) || excluded.is_none());
    let short = !plan && !f.acreage.refused.is_empty() && excluded != Some(true);
    let (met, reason): (Option<bool>, String) = if outside_town(f) {
        (Some(false), OUTSIDE.to_string())
    } else if unrecorded {
        (
            None,
            "No disturbance is recorded, so the disturbed area is not known.".into(),
        )
    } else if short {
        (None, format!("{pre}{whose}.{}", refused_note(f)))
    } else if !in_range {
        let note = if c.common_plan == Some(true) && !plan && a < r.land_development_acres {
            " The site is part of a larger common plan whose acreage is not recorded (common_plan_acres); with it, the plan's acreage would decide this."
        } else {
            ""
        };
        (
            Some(false),
            format!("{pre}{whose}; Condition C covers {range}.{note}"),
        )
    } else if class_open {
        (None, format!(
            "{pre}{whose}, within {range}, but the site names parcels the data lacks ({}), and their property class could exclude it as a single-family residence or agricultural property.",
            c.unknown_parcels.join(", ")
        ))
    } else if sf.value == Some(true) {
        (Some(false), format!("{pre}{whose}, but the work is the construction of a single-family residence ({}), which Condition C excludes.", sf.source.as_deref().unwrap_or("site record")))
    } else if ag.value == Some(true) {
        (Some(false), format!(
            "{pre}{whose}, but the work is at an agricultural property ({}), which Condition C excludes.",
            ag.source.as_deref().unwrap_or("site record")
        ))
    } else if excluded.is_none() {
        (None, format!("{pre}{whose}, within {range}; whether the work is the construction of a single-family residence or at an agricultural property, which Condition C excludes, is not recorded."))
    } else {
        let by: Vec<&str> = [sf.source.as_deref(), ag.source.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        (Some(true), format!("{pre}{whose}, within {range}, and not a single-family residence or agricultural property ({}).", by.join("; ")))
    };
    // A "no" from the acres, the land use or the boundary stands whatever the activity.
    let met = and3(lda.met, met);
    let mut missing = if met.is_none() {
        lda.missing
    } else {
        Vec::new()
    };
    if met.is_none() && in_range && !unrecorded && !short {
        if class_open {
            missing.extend(
                c.unknown_parcels
                    .iter()
                    .map(|p| format!("parcel {p} (named in parcel_ids, not in any parcels layer)")),
            );
        }
        if sf.value.is_none() && excluded.is_none() {
            missing.push(
                "whether the work is the construction of a single-family residence (land_use)"
                    .into(),
            );
        }
        if ag.value.is_none() && excluded.is_none() {
            missing.push("whether the work is at an agricultural property (land_use)".into());
        }
    }
    if short {
        missing.extend(
            refused(f)
                .into_iter()
                .filter(|m| !missing.contains(m))
                .collect::<Vec<_>>(),
        );
    }
    Decision::new(met, reason)
        .missing(missing)
        .fact("acres", (!unrecorded).then_some(a))
        .fact("common_plan_acres_used", plan)
        .fact("single_family", sf.value)
        .fact("single_family_source", &sf.source)
        .fact("agricultural", ag.value)
        .fact("agricultural_source", &ag.source)
}
