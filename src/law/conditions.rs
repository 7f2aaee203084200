//! (7)(b)[2] Conditions A, B and C.

use super::{
    acres, and3, assumed, land_development_activity, or3, refused, refused_note, Decision,
};
use crate::config::{CauseReading, Rules};
use crate::facts::{EntryRule, Facts, Impaired};
use crate::vocabulary::causes::CauseVocabulary;

/// The pollutants of concern among a listed water's causes, under the configured reading.
fn pollutants_of_concern(w: &Impaired, r: &Rules) -> Vec<String> {
    match r.condition_a_causes {
        CauseReading::Construction => CauseVocabulary::for_rules(r).causes_matching(&w.causes),
        CauseReading::Any => w.causes.clone(),
    }
}

/// Which vocabulary term each pollutant of concern matched, for the finding's facts
/// ("SOLIDS (SUSPENDED/BEDLOAD) — EPA ATTAINS parameter, sediment group"); none under the
/// literal reading, where every cause counts.
fn pollutant_terms(w: &Impaired, r: &Rules) -> Vec<String> {
    match r.condition_a_causes {
        CauseReading::Construction => CauseVocabulary::for_rules(r)
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
    let storm = w.tmdl_entered.iter().find(|t| {
        t.stormwater_source && in_scope(t.distance_m == Some(0.0), t.distance_m.unwrap_or(0.0))
    });
    let tmdl_prong: Option<bool> = if storm.is_some() {
        Some(true)
    } else if !w.tmdl_loaded {
        missing.push("a TMDL watershed layer".to_string());
        None
    } else if !known && w.entry.outfall.is_none() {
        if !missing.contains(&where_missing(f)) {
            missing.push(where_missing(f));
        }
        None
    } else {
        Some(false)
    };
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
    if lda.met == Some(false) {
        d.reason = format!(
            "Not a land development activity, so Condition A does not apply. For information: {}",
            d.reason
        );
        d.missing.clear();
    } else if lda.met.is_none() && d.met == Some(true) {
        d.missing.extend(lda.missing.clone());
    }
    d.met = met;
    d.fact("land_development_activity", lda.met)
}

/// The acreage Conditions B and C read: the larger common plan's when the site gives it.
fn plan_acres(f: &Facts) -> (f64, bool) {
    match (f.claims.common_plan, f.claims.common_plan_acres) {
        (true, Some(p)) => (p, true),
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
    let short = !plan && !f.acreage.refused.is_empty();
    let over = if a >= r.condition_b_acres {
        Some(true)
    } else if short {
        None
    } else {
        Some(false)
    };
    let met = and3(lda.met, over);
    let reason = match met {
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
        None if short => format!(
            "{}{} {whose}, under {} acres.{}",
            assumed(f),
            acres(a),
            r.condition_b_acres,
            refused_note(f)
        ),
        None => "The disturbed area is not recorded.".into(),
    };
    let mut missing = lda.missing;
    if short && over.is_none() {
        for m in refused(f) {
            if !missing.contains(&m) {
                missing.push(m);
            }
        }
    }
    Decision::new(met, reason)
        .missing(missing)
        .fact("acres", a)
        .fact("common_plan_acres_used", plan)
        .fact("threshold_acres", r.condition_b_acres)
}

/// Condition C: one to five acres, except single-family residences and agricultural
/// properties.
pub fn condition_c(f: &Facts, r: &Rules) -> Decision {
    let lda = land_development_activity(f, r);
    let c = &f.claims;
    let (a, plan) = plan_acres(f);
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
    let excluded = c.single_family || c.agricultural;
    let short = !plan && !f.acreage.refused.is_empty() && !excluded;
    // A parcel the site names but the data lacks could be the one that makes the site a
    // single-family residence or agricultural property (the class must hold for all parcels).
    let by_flag = |s: &Option<String>| s.as_deref() == Some("site record");
    let class_open = !c.unknown_parcels.is_empty()
        && in_range
        && !by_flag(&c.single_family_source)
        && !by_flag(&c.agricultural_source);
    let met = if short || class_open {
        None
    } else {
        and3(lda.met, Some(in_range && !excluded))
    };
    let reason = if short {
        format!("{pre}{whose}.{}", refused_note(f))
    } else if class_open {
        format!(
            "{pre}{whose}, within {range}, but the site names parcels the data lacks ({}), and their property class could exclude it as a single-family residence or agricultural property.",
            c.unknown_parcels.join(", ")
        )
    } else if met.is_none() {
        "The disturbed area is not recorded.".to_string()
    } else if !in_range {
        let note = if c.common_plan && !plan && a < r.land_development_acres {
            " The site is part of a larger common plan whose acreage is not recorded (common_plan_acres); with it, the plan's acreage would decide this."
        } else {
            ""
        };
        format!("{pre}{whose}; Condition C covers {range}.{note}")
    } else if c.single_family {
        format!("{pre}{whose}, but the site is a single-family residence ({}), which Condition C excludes.", c.single_family_source.as_deref().unwrap_or("site record"))
    } else if c.agricultural {
        format!(
            "{pre}{whose}, but the site is agricultural property ({}), which Condition C excludes.",
            c.agricultural_source.as_deref().unwrap_or("site record")
        )
    } else {
        format!("{pre}{whose}, within {range}, and not a single-family residence or agricultural property.")
    };
    let mut missing = lda.missing;
    if class_open {
        missing.extend(
            c.unknown_parcels
                .iter()
                .map(|p| format!("parcel {p} (named in parcel_ids, not in any parcels layer)")),
        );
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
        .fact("acres", a)
        .fact("common_plan_acres_used", plan)
        .fact("single_family", c.single_family)
        .fact("agricultural", c.agricultural)
}
