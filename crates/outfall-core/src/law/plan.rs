//! What the SWPPP must contain and what follows from the conditions: receiving waters
//! [1][m], the five-acre limit [1][d] and phasing, the full SWPPP [3], its preparer [3][j],
//! and inspections (9)(a)[2].

use super::{acres, and3, assumed, or3, refused, refused_note, Decision, Decisions, RuleId};
use crate::config::Rules;
use crate::facts::{EntryRule, Facts};
use crate::law::prose::prose;
use crate::record::SITE;

/// How the first receiving water was found, in words. A nearest-water pick is said to be a
/// guess that an outfall point would settle.
pub fn describe_entry(f: &Facts) -> String {
    let e = &f.water.entry;
    let name = e.water_name.as_deref().unwrap_or("an unnamed water");
    let id = e
        .water_id
        .as_deref()
        .or(e.reach_id.as_deref())
        .unwrap_or("?");
    let dist = e.distance_m.unwrap_or(0.0);
    let lake = if e.water_kind.as_deref() == Some("waterbody") {
        if e.isolated {
            "; no flowline leaves it, so it is the only receiving water"
        } else {
            "; the trace follows the flow path through it"
        }
    } else {
        ""
    };
    match e.rule {
        EntryRule::OutfallPoint => {
            let o = e.outfall.unwrap_or_default();
            let other = e
                .nearest_to_site
                .as_ref()
                .filter(|(n, _)| n != name)
                .map(|(n, d)| prose!("; the water nearest the site itself is {n}, {d:.0} m away, but the outfall decides"))
                .unwrap_or_default();
            prose!("The applicant's outfall point ({:.5}, {:.5}) discharges to {name} ({id}), {dist:.0} m from it{lake}{other}.", o[0], o[1])
        }
        EntryRule::Catchment => prose!(
            "The site lies in catchment {}, which drains to its own flowline, {name} ({id}).",
            e.catchment_id.as_deref().unwrap_or("?")
        ),
        EntryRule::StormSewer | EntryRule::None if f.water.sewer.is_some() => f
            .water
            .sewer
            .as_ref()
            .map(|s| s.describe())
            .unwrap_or_default(),
        EntryRule::StormSewer => String::new(),
        EntryRule::Nearest => prose!(
            "Assumed from the nearest water: {name} ({id}), {dist:.0} m from the site{lake}. The drainage path is not known; the applicant's outfall point would make it certain."
        ),
        EntryRule::UnreadableOutfall => "The site's record states an outfall that cannot be read as longitude,latitude (see the record's problems); no water is assumed in its place, so the entry and Condition A are unknown until the outfall is corrected.".into(),
        EntryRule::None if !f.water.waters_loaded => "No flowlines or waterbodies are loaded, so no receiving water can be found.".into(),
        EntryRule::None if !f.water.located => "The subject has no geometry to locate it.".into(),
        EntryRule::None => prose!(
            "No receiving water within {:.0} m (the search radius). Identify the discharge point and give it as an outfall.",
            e.search_radius_m
        ),
    }
}

/// [1][m]: the SWPPP names the receiving waters.
pub fn receiving_waters(x: &Decisions) -> Decision {
    let f = x.f;
    let names = &f.water.names;
    let required = x.get(RuleId::SwpppRequired).met;
    let identified = (!names.is_empty()).then_some(true);
    let met = and3(required, identified);
    let sources = if f.water.name_notes.is_empty() {
        String::new()
    } else {
        prose!(
            " Where the names come from: {}.",
            f.water.name_notes.join("; ")
        )
    };
    let entry = prose!("{}{sources}", describe_entry(f));
    let reason = match (required, names.is_empty()) {
        (Some(true), false) => prose!("The SWPPP must name the receiving waters: {}. {entry}", names.join("; ")),
        (Some(true), true) => prose!("The SWPPP must name the receiving waters, but none was found. {entry}"),
        (Some(false), false) => prose!("Receiving waters: {}. No SWPPP is required of this site by this law, so naming them is not required. {entry}", names.join("; ")),
        (Some(false), true) => prose!("No SWPPP is required of this site by this law. {entry}"),
        (None, false) => prose!("Receiving waters: {}. Whether a SWPPP is required, and so whether they must be named in it, is undetermined. {entry}", names.join("; ")),
        (None, true) => prose!("Whether a SWPPP is required is undetermined. {entry}"),
    };
    let mut missing = x.get(RuleId::SwpppRequired).missing.clone();
    if names.is_empty() {
        missing.push(
            "a receiving water within the search radius, or the applicant's outfall point"
                .to_string(),
        );
    }
    Decision::new(met, reason)
        .missing(missing)
        .fact("names", names)
        .fact("name_sources", &f.water.name_notes)
        .fact("entry_rule", f.water.entry.rule.as_str())
        .fact("entry_water", &f.water.entry.water_id)
}

/// [1][d]: no more than five acres disturbed at one time unless under an approved SWPPP.
/// Disturbance before the approval's date was not "pursuant to an approved SWPPP".
pub fn five_acre_limit(x: &Decisions) -> Decision {
    let (f, r) = (x.f, x.r);
    let a = &f.acreage;
    let limit = r.max_disturbed_at_once_acres;
    let required = x.get(RuleId::SwpppRequired);
    let approval = f.record.swppp_approval.known().filter(|x| x.approved());
    let over = a.peak_acres > limit + 1e-9;
    let when = a.peak_date.map(|d| prose!(" from {d}")).unwrap_or_default();
    let pre = assumed(f);
    let undated = !a.undated_phases.is_empty() && a.phases.len() > 1;
    let short = !a.refused.is_empty() && approval.is_none() && required.met != Some(false);
    let d = if !a.recorded {
        Decision::new(
            None,
            "No disturbance is recorded, so how much is disturbed at one time is not known.",
        )
        .missing(["the disturbance polygons (areas to be cleared, graded or filled)".to_string()])
    } else if !over && short {
        Decision::new(
            None,
            prose!(
                "{pre}Peak disturbed at one time is {}{when}, within the {limit} acre limit.{}",
                acres(a.peak_acres),
                refused_note(f)
            ),
        )
        .missing(refused(f))
    } else if !over {
        Decision::new(
            Some(false),
            prose!(
                "{pre}Peak disturbed at one time is {}{when}, within the {limit} acre limit.",
                acres(a.peak_acres)
            ),
        )
    } else if required.met == Some(false) {
        Decision::new(Some(false), prose!("{pre}Peak disturbed at one time is {}, but this law requires no SWPPP of the site, so the limit does not apply.", acres(a.peak_acres)))
    } else if a.whole_parcel {
        Decision::new(None, prose!("The parcel is {}; how much of it is disturbed \"at any one time\" depends on a disturbance plan with dates, which a parcel alone does not give.", acres(a.peak_acres)))
            .missing(["a disturbance plan with its phases and dates".to_string()])
    } else if let Some(ap) = approval {
        with_approval(f, r, ap)
    } else if let crate::record::Stated::Unreadable(w) = &f.record.swppp_approval {
        Decision::new(None, prose!("{pre}Peak disturbed at one time is {}{when}, over the {limit} acre limit; the SWPPP approval is recorded as '{w}', which the approval vocabulary does not know, so whether the disturbance is \"pursuant to an approved SWPPP\" cannot be told.", acres(a.peak_acres)))
            .missing([prose!("the SWPPP approval's decision (got '{w}')")])
    } else if undated {
        Decision::new(None, prose!("{pre}Counting the undated phases ({}) as disturbed throughout, {} could be disturbed at once, over the {limit} acre limit; their dates decide it.", a.undated_phases.join(", "), acres(a.peak_acres)))
            .missing(a.undated_phases.iter().map(|p| prose!("start and end dates of phase {p}")))
    } else {
        let recorded = f
            .record
            .swppp_approval
            .known()
            .map(|x| prose!(" (recorded: {})", x.describe()))
            .unwrap_or_default();
        let d = Decision::new(
            and3(required.met, Some(true)),
            prose!("{pre}Peak disturbed at one time is {}{when}, over the {limit} acre limit, and no approved SWPPP is recorded{recorded}: \"not more than five (5) acres shall be disturbed at any one time unless pursuant to an approved SWPPP\".", acres(a.peak_acres)),
        );
        d.missing(required.missing.clone())
    };
    d.fact("peak_acres", a.peak_acres)
        .fact("peak_date", a.peak_date)
        .fact(
            SITE.swppp_approval.name,
            f.record.swppp_approval.known().map(|x| x.describe()),
        )
        .fact(
            "before_approval_acres",
            a.before_approval.as_ref().map(|p| p.acres),
        )
        .fact("limit_acres", limit)
}

/// Over the limit with an approved SWPPP: only the disturbance before its date counts.
fn with_approval(f: &Facts, r: &Rules, ap: &crate::record::SwpppApproval) -> Decision {
    let a = &f.acreage;
    let limit = r.max_disturbed_at_once_acres;
    let pre = assumed(f);
    let peak = acres(a.peak_acres);
    match (ap.date, &a.before_approval) {
        (None, _) => Decision::new(None, prose!("{pre}Peak disturbed at one time is {peak}, over {limit} acres, and an approved SWPPP is recorded ({}), but not its date, so whether the disturbance over {limit} acres came after the approval cannot be told.", ap.describe()))
            .missing(["the date of the SWPPP approval".to_string()]),
        (Some(day), None) => Decision::new(None, prose!("{pre}Peak disturbed at one time is {peak}, over {limit} acres; the SWPPP was approved {day}, but no phase is dated, so whether the disturbance began before the approval cannot be told."))
            .missing(["the start and end dates of the phases".to_string()]),
        (Some(day), Some(before)) if before.acres > limit + 1e-9 => Decision::new(Some(true), prose!(
            "{pre}Before the SWPPP approval of {day}, {} were disturbed at one time{}, over the {limit} acre limit: disturbance before the approval was not \"pursuant to an approved SWPPP\".",
            acres(before.acres),
            before.date.map(|d| prose!(" from {d}")).unwrap_or_default()
        )),
        (Some(day), Some(before)) => Decision::new(Some(false), prose!(
            "{pre}Peak disturbed at one time is {peak}, over {limit} acres, \"pursuant to an approved SWPPP\" ({}); before the approval of {day}, at most {} were disturbed at one time.",
            ap.describe(),
            acres(before.acres)
        )),
    }
}

/// (6) "Phasing": distinct pieces, each stabilised before the next is cleared. A phase's end
/// date is read as the date it is stabilised.
pub fn phasing(x: &Decisions) -> Decision {
    let f = x.f;
    let a = &f.acreage;
    let d = if !a.refused.is_empty() {
        Decision::new(
            None,
            prose!("The phases cannot be checked.{}", refused_note(f)),
        )
        .missing(refused(f))
    } else if a.phases.len() < 2 {
        Decision::new(
            Some(false),
            if a.phases.is_empty() {
                "No phases are recorded."
            } else {
                "One phase: the site is not phased."
            },
        )
    } else if !a.undated_phases.is_empty() {
        Decision::new(None, prose!("Phases {} have no dates, so whether each piece is stabilised before the next is cleared cannot be checked.", a.undated_phases.join(", ")))
            .missing(a.undated_phases.iter().map(|p| prose!("start and end dates of phase {p}")))
    } else if a.overlaps.is_empty() {
        Decision::new(Some(true), prose!("{} phases, each ending (stabilised) before the next is cleared, as \"Phasing\" is defined in (6).", a.phases.len()))
    } else {
        let list: Vec<String> = a
            .overlaps
            .iter()
            .map(|o| {
                prose!(
                    "phase {} starts {} while phase {} is open until {}",
                    o.later,
                    o.from,
                    o.earlier,
                    o.to
                )
            })
            .collect();
        Decision::new(Some(false), prose!("Not phasing as (6) defines it (\"the stabilization of each piece completed before the clearing of the next\"): {}.", list.join("; ")))
    };
    d.fact("phases", a.phases.len())
        .fact("overlaps", &a.overlaps)
}

fn any_condition(x: &Decisions) -> (Option<bool>, Vec<&'static str>) {
    let (a, b, c) = (
        x.get(RuleId::ConditionA).met,
        x.get(RuleId::ConditionB).met,
        x.get(RuleId::ConditionC).met,
    );
    let which = [(a, "A"), (b, "B"), (c, "C")]
        .iter()
        .filter(|x| x.0 == Some(true))
        .map(|x| x.1)
        .collect();
    (or3(a, or3(b, c)), which)
}

fn conditions_words(which: &[&str]) -> String {
    match which {
        [one] => prose!("Condition {one} applies"),
        [init @ .., last] => prose!("Conditions {} and {last} apply", init.join(", ")),
        [] => String::new(),
    }
}

/// [2]/[3]: a SWPPP with post-construction controls when Condition A, B or C holds.
pub fn swppp_full(x: &Decisions) -> Decision {
    let req = x.get(RuleId::SwpppRequired);
    let (any, which) = any_condition(x);
    let met = and3(req.met, any);
    let reason = match (req.met, met) {
        (_, Some(true)) => prose!("{}: the SWPPP must also include the post-construction stormwater management practices of (7)(b)[3] ([a] to [j]).", conditions_words(&which)),
        (Some(false), _) => "No SWPPP is required of this site by this law.".into(),
        (Some(true), Some(false)) => "A land development activity without Condition A, B or C: the basic SWPPP of (7)(b)[1] with erosion and sediment controls suffices.".into(),
        _ => "Whether Condition A, B or C holds is undetermined, so whether post-construction controls are required is too.".into(),
    };
    let missing = conditions_missing(x);
    Decision::new(met, reason)
        .missing(missing)
        .fact("conditions_met", which)
        .fact("swppp_required", req.met)
}

fn conditions_missing(x: &Decisions) -> Vec<String> {
    let mut m: Vec<String> = x.get(RuleId::SwpppRequired).missing.clone();
    for d in [
        x.get(RuleId::ConditionA),
        x.get(RuleId::ConditionB),
        x.get(RuleId::ConditionC),
    ] {
        for w in &d.missing {
            if !m.contains(w) {
                m.push(w.clone());
            }
        }
    }
    m
}

/// [3][j]: under Condition A a licensed professional prepares and signs the SWPPP.
pub fn swppp_preparer(x: &Decisions) -> Decision {
    let req = x.get(RuleId::SwpppRequired);
    let a = x.get(RuleId::ConditionA);
    let met = and3(req.met, a.met);
    let reason = match met {
        Some(true) => "Condition A applies: the SWPPP must be prepared by a landscape architect, certified professional or professional engineer, and signed by that professional, who certifies that the design of all stormwater management practices meets the requirements of this law.".to_string(),
        Some(false) if req.met == Some(false) => "No SWPPP is required of this site by this law.".into(),
        Some(false) => "Condition A does not apply, so this clause sets no requirement on who prepares the SWPPP.".into(),
        None => "Condition A is undetermined, so whether a licensed professional must prepare the SWPPP is too.".into(),
    };
    let mut missing = req.missing.clone();
    missing.extend(a.missing.iter().cloned());
    Decision::new(met, reason)
        .missing(missing)
        .fact("condition_a", a.met)
        .fact("swppp_required", req.met)
}

/// (9)(a)[2]: inspections every 7 days and within 24 hours of a 0.5 inch storm, for land
/// development activities meeting Condition A, B or C.
pub fn inspections(x: &Decisions) -> Decision {
    let r = x.r;
    let req = x.get(RuleId::SwpppRequired);
    let (any, which) = any_condition(x);
    let met = and3(req.met, any);
    let reason = match met {
        Some(true) => prose!(
            "{}: the applicant must have a qualified professional inspect the site and document the effectiveness of all erosion and sediment control practices every {} days and within {} hours of any storm of {} inches of precipitation or more, and keep the inspection reports in a site logbook.",
            conditions_words(&which), r.inspection_interval_days, r.storm_inspection_hours, r.storm_threshold_in
        ),
        Some(false) if req.met == Some(false) => "No inspection schedule is required of this site by this law.".into(),
        Some(false) => "Neither Condition A, B nor C applies, so (9)(a)[2] requires no inspection schedule.".into(),
        None => "Whether Condition A, B or C holds is undetermined, so whether inspections are required is too.".into(),
    };
    Decision::new(met, reason)
        .missing(conditions_missing(x))
        .fact("interval_days", r.inspection_interval_days)
        .fact("storm_threshold_in", r.storm_threshold_in)
        .fact("within_hours", r.storm_inspection_hours)
}
