//! The water half of Condition A: the 303(d) prong and the TMDL prong, each decided by where
//! the site discharges.

use crate::config::{CauseReading, Rules};
use crate::facts::{EntryRule, Facts, Impaired, NotCovered, TmdlWatershed};
use crate::law::prose::prose;
use crate::law::{or3, Decision};
use crate::vocabulary::causes::CauseVocabulary;

/// The causes of a listed water that are pollutants of concern under the construction
/// reading: the cause vocabulary's sediment and nutrient terms and `construction_pollutants`,
/// matched as whole terms. The report lists them beside each listed water whatever reading
/// the rules choose; the judgement is made here only.
pub fn construction_causes(causes: &[String], r: &Rules) -> Vec<String> {
    CauseVocabulary::with_extra(&r.construction_pollutants).causes_matching(causes)
}

/// The pollutants of concern among a listed water's causes, under the configured reading.
fn pollutants_of_concern(w: &Impaired, r: &Rules) -> Vec<String> {
    match r.condition_a_causes {
        CauseReading::Construction => construction_causes(&w.causes, r),
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
    let known = w.entry.rule.known();
    let in_scope = |first: bool, d: f64| first || d <= scope_m + 1e-6;
    let (inside, outside): (Vec<&Impaired>, Vec<&Impaired>) = w
        .listed
        .iter()
        .partition(|l| in_scope(l.first_receiving, l.distance_m));
    let hit = inside
        .iter()
        .find_map(|l| Some((*l, pollutants_of_concern(l, r))).filter(|(_, p)| !p.is_empty()));
    let mut missing = Vec::new();
    let silent: Vec<&NotCovered> = w
        .not_covered
        .iter()
        .filter(|n| in_scope(n.first_receiving, n.distance_m))
        .collect();
    let list_prong = list_prong(f, hit.is_some(), known, &silent, &mut missing);
    let (tmdl_prong, storm, blank) = tmdl_prong(f, scope_m, known, &mut missing);
    let met = or3(list_prong, tmdl_prong);
    let mut why = met_reasons(hit.as_ref(), storm, r);
    if met != Some(true) {
        why.extend(unmet_reasons(f, r, (list_prong, tmdl_prong), &blank, known));
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
            "not_covered_in_scope",
            silent.iter().map(|n| &n.segment).collect::<Vec<_>>(),
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

/// The 303(d) prong: `Some(true)` with a listed water in scope impaired by a pollutant of
/// concern; undecided without a list or a known discharge point (what is missing is pushed).
/// A segment in scope that the loaded list does not cover (`silent`) leaves the prong open:
/// its listing is unknown, not "no".
fn list_prong(
    f: &Facts,
    hit: bool,
    known: bool,
    silent: &[&NotCovered],
    missing: &mut Vec<String>,
) -> Option<bool> {
    if hit {
        Some(true)
    } else if !f.water.impaired_list_loaded {
        missing.push("a 303(d) impaired-waters list".to_string());
        None
    } else if !known {
        missing.push(where_missing(f));
        None
    } else if !silent.is_empty() {
        missing.extend(silent.iter().map(|n| {
            prose!(
                "whether {} ({}) is on the 303(d) list: the list loaded does not cover it",
                n.name,
                n.segment
            )
        }));
        None
    } else {
        Some(false)
    }
}

/// Why a prong holds: the listed water hit and the TMDL watershed entered, each in words.
fn met_reasons(
    hit: Option<&(&Impaired, Vec<String>)>,
    storm: Option<&TmdlWatershed>,
    r: &Rules,
) -> Vec<String> {
    let mut why: Vec<String> = Vec::new();
    if let Some((l, poc)) = hit {
        let at = if l.first_receiving {
            "the first receiving water".to_string()
        } else {
            prose!(
                "{:.2} km downstream, within {}",
                l.distance_m / 1000.0,
                scope_words(r)
            )
        };
        why.push(prose!("{} ({}) is on the 303(d) list and is {at}; it is impaired by {}, a pollutant of concern ({}).", l.name, l.id, poc.join(", "), reading_words(r)));
    }
    if let Some(t) = storm {
        why.push(prose!(
            "The discharge enters the {} TMDL watershed ({}) at the {}, and stormwater is identified as a source of the impairment.",
            t.name,
            t.pollutant.as_deref().unwrap_or("pollutant not given"),
            t.via.as_deref().unwrap_or("site")
        ));
    }
    why
}

/// Why neither prong holds, or what leaves them open, given the (303(d), TMDL) prongs.
fn unmet_reasons(
    f: &Facts,
    r: &Rules,
    (list_prong, tmdl_prong): (Option<bool>, Option<bool>),
    blank: &[&TmdlWatershed],
    known: bool,
) -> Vec<String> {
    let w = &f.water;
    let mut why: Vec<String> = Vec::new();
    match list_prong {
        Some(false) => why.push(prose!(
            "No listed water in scope ({}) is impaired by a pollutant of concern ({}).",
            scope_words(r),
            reading_words(r)
        )),
        None if !w.impaired_list_loaded => why.push(
            "No 303(d) impaired-waters list is loaded, so the 303(d) prong cannot be decided."
                .into(),
        ),
        None if known => why.push(prose!(
            "The 303(d) list loaded does not cover {}, which receives the discharge in scope ({}); whether it is listed is not known from the data, so the 303(d) prong is undecided.",
            w.not_covered
                .iter()
                .map(|n| prose!("{} ({}) at {:.2} km", n.name, n.segment, n.distance_m / 1000.0))
                .collect::<Vec<_>>()
                .join(", "),
            scope_words(r)
        )),
        _ => {}
    }
    match tmdl_prong {
        Some(false) => {
            why.push("The discharge enters no TMDL watershed where stormwater is a source.".into())
        }
        None if !w.tmdl_loaded => why.push("No TMDL watershed layer is loaded.".into()),
        None if !blank.is_empty() => why.push(prose!(
            "The discharge enters the {} TMDL watershed, whose record does not say whether stormwater is a source of the impairment.",
            blank.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
        )),
        _ => {}
    }
    if !known {
        why.push(where_missing(f) + " is not known, so where the discharge goes cannot be traced.");
    }
    why
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
            prose!(
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
        CauseReading::Construction => prose!(
            "pollutants of concern read as sediment and the construction-related causes (the causes vocabulary's sediment and nutrients terms, matched as whole terms, plus {}), DEC's practice",
            r.construction_pollutants.join(", ")
        ),
        CauseReading::Any => "pollutants of concern read literally (6): sediment, plus any cause of impairment of a receiving water".into(),
    }
}

/// Which waters Condition A looks at, in words.
fn scope_words(r: &Rules) -> String {
    if r.condition_a_downstream_km > 0.0 {
        prose!(
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
            prose!(
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
                prose!(
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
        notes.push(prose!("The site's footprint meets the {} TMDL watershed, but its discharge does not enter it within scope; the footprint does not decide Condition A.", footprint_only.join(", ")));
    }
    notes
}

/// Which fact would place the discharge.
fn where_missing(f: &Facts) -> String {
    if !f.water.waters_loaded {
        "the stream network or waterbodies".into()
    } else if !f.water.located {
        "the site's location".into()
    } else if f.water.entry.rule == EntryRule::UnreadableOutfall {
        "a readable outfall point (the record's outfall is not longitude,latitude)".into()
    } else {
        prose!(
            "a receiving water within {:.0} m, or the applicant's outfall point",
            f.water.entry.search_radius_m
        )
    }
}
