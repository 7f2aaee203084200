//! When each site owes its next inspections: the 7-day cycle from the last logged one, and
//! each storm no inspection answered in time.

use super::{
    day, weekday, CalendarSite, DueItem, ItemKind, LateStorm, SiteDue, Storm, Unscheduled, Urgency,
};
use crate::config::Rules;
use crate::record::{Inspection, RainfallDay};
use chrono::NaiveDate;
use std::collections::BTreeMap;

pub(super) enum Outcome {
    Due(SiteDue),
    NeedsData(Unscheduled),
    NotDue(Unscheduled),
}

fn unscheduled(site: &CalendarSite, reason: String, missing: Vec<String>) -> Unscheduled {
    Unscheduled {
        site_id: site.id.clone(),
        name: site.name.clone(),
        reason,
        missing,
    }
}

pub(super) fn schedule(
    site: &CalendarSite,
    inspections: &[Inspection],
    by_day: &BTreeMap<NaiveDate, &RainfallDay>,
    storms: &[Storm],
    rules: &Rules,
    as_of: NaiveDate,
) -> Outcome {
    let phase_start = match owed_since_phase_start(site, as_of) {
        Ok(start) => start,
        Err(outcome) => return *outcome,
    };
    let logged = logged_days(site, inspections, phase_start, as_of);
    let last = logged.last().copied();
    let Some(since) = last.or(phase_start) else {
        return Outcome::NeedsData(unscheduled(
            site,
            "no phase start date and no recorded inspection, so the 7-day cycle has no start"
                .into(),
            vec!["a start date on the site's disturbance phases".into()],
        ));
    };
    let mut items = vec![cycle_item(last, since, rules, as_of)];
    let in_phase: Vec<&Storm> = storms
        .iter()
        .filter(|s| phase_start.is_none_or(|p| s.date >= p))
        .collect();
    let late_storms = storm_items(&in_phase, &logged, rules, as_of, &mut items);
    items.sort_by_key(|i| (i.due, i.kind == ItemKind::Cycle));
    let unrecorded_rain_days = since
        .iter_days()
        .take_while(|d| *d <= as_of)
        .filter(|d| !by_day.contains_key(d))
        .count();
    let notes = schedule_notes(site, since, unrecorded_rain_days, as_of);
    let urgency = items
        .iter()
        .map(|i| i.urgency)
        .min()
        .unwrap_or(Urgency::Upcoming);
    Outcome::Due(SiteDue {
        site_id: site.id.clone(),
        name: site.name.clone(),
        address: site.address.clone(),
        conditions: site.conditions.clone(),
        urgency,
        last_inspection: last,
        phase_start,
        since,
        items,
        late_storms,
        unrecorded_rain_days,
        notes,
    })
}

/// Whether the site owes inspections on `as_of` (active, the rule holds, its first phase has
/// started): its first phase start (None when no phase is dated), or the outcome that says why
/// nothing is owed or what the data lacks.
fn owed_since_phase_start(
    site: &CalendarSite,
    as_of: NaiveDate,
) -> Result<Option<NaiveDate>, Box<Outcome>> {
    let not_due = |reason: String| Box::new(Outcome::NotDue(unscheduled(site, reason, Vec::new())));
    let needs = |reason: String, missing: Vec<String>| {
        Box::new(Outcome::NeedsData(unscheduled(site, reason, missing)))
    };
    // (9)(a) "Maintenance and Inspection During Construction": owed while under construction.
    match (site.status.as_deref(), site.status_recorded.as_deref()) {
        (None, None) => {
            return Err(needs(
                "no status is recorded, so whether construction is under way is unknown".into(),
                vec!["the site's status".into()],
            ))
        }
        (None, Some(word)) => {
            return Err(needs(
                format!("the status '{word}' is not a word the status vocabulary knows, so whether construction is under way is unknown"),
                vec![format!("a status the vocabulary knows (got '{word}')")],
            ))
        }
        (Some(s), _) if s != "under_construction" => {
            return Err(not_due(format!(
                "status {}: inspections are owed only during construction",
                s.replace('_', " ")
            )))
        }
        (Some(_), _) => {}
    }
    match site.inspections_required {
        Some(false) => return Err(not_due(site.reason.clone())),
        None => return Err(needs(site.reason.clone(), site.missing.clone())),
        Some(true) => {}
    }
    let phase_start = site.phases.iter().filter_map(|p| p.1).min();
    if let Some(start) = phase_start.filter(|s| *s > as_of) {
        let phase = site
            .phases
            .iter()
            .find(|p| p.1 == Some(start))
            .map(|p| p.0.as_str())
            .unwrap_or("");
        return Err(not_due(format!(
            "not started: phase {phase} starts on {}; inspections begin then",
            day(start)
        )));
    }
    Ok(phase_start)
}

/// The days the site's logbook has an inspection, in order, from its phase start to `as_of`.
fn logged_days(
    site: &CalendarSite,
    inspections: &[Inspection],
    phase_start: Option<NaiveDate>,
    as_of: NaiveDate,
) -> Vec<NaiveDate> {
    let mut logged: Vec<NaiveDate> = inspections
        .iter()
        .filter(|i| i.site_id == site.id && i.date <= as_of)
        .filter(|i| phase_start.is_none_or(|s| i.date >= s))
        .map(|i| i.date)
        .collect();
    logged.sort();
    logged.dedup();
    logged
}

/// The next 7-day inspection, counted from the last one logged, else from `since`.
fn cycle_item(
    last: Option<NaiveDate>,
    since: NaiveDate,
    rules: &Rules,
    as_of: NaiveDate,
) -> DueItem {
    let interval = chrono::Days::new(u64::from(rules.inspection_interval_days));
    let reason = match last {
        Some(l) => format!(
            "{}-day inspection: the last recorded inspection was on {}",
            rules.inspection_interval_days,
            day(l)
        ),
        None => format!(
            "{}-day inspection: no inspection recorded since the phase start on {}",
            rules.inspection_interval_days,
            day(since)
        ),
    };
    item(ItemKind::Cycle, since + interval, None, reason, as_of)
}

/// Each storm no logged inspection answered becomes an item; a storm answered after its
/// deadline is returned as late.
fn storm_items(
    storms: &[&Storm],
    logged: &[NaiveDate],
    rules: &Rules,
    as_of: NaiveDate,
    items: &mut Vec<DueItem>,
) -> Vec<LateStorm> {
    let mut late = Vec::new();
    for s in storms {
        // The first inspection on or after the storm day.
        match logged.iter().find(|&&d| d >= s.date) {
            Some(&d) if d <= s.deadline => {}
            Some(&d) => late.push(LateStorm {
                storm: (*s).clone(),
                inspected: d,
            }),
            None => {
                let reason = format!(
                    "storm of {:.2} in on {} ({}): inspect within {} hours",
                    s.rain_in,
                    day(s.date),
                    s.source,
                    rules.storm_inspection_hours
                );
                items.push(item(
                    ItemKind::Storm,
                    s.deadline,
                    Some((*s).clone()),
                    reason,
                    as_of,
                ));
            }
        }
    }
    late
}

/// What the officer should know beside the items: days with no rainfall record, and a site
/// still active after every phase was planned to end.
fn schedule_notes(
    site: &CalendarSite,
    since: NaiveDate,
    unrecorded_rain_days: usize,
    as_of: NaiveDate,
) -> Vec<String> {
    let mut notes = Vec::new();
    if unrecorded_rain_days > 0 {
        notes.push(format!(
            "no rainfall record for {unrecorded_rain_days} day(s) since {}: a storm on those days would not show here",
            day(since)
        ));
    }
    let last_end = site
        .phases
        .iter()
        .map(|p| p.2)
        .collect::<Option<Vec<_>>>()
        .and_then(|e| e.into_iter().max());
    if let Some(end) = last_end.filter(|end| *end < as_of) {
        notes.push(format!(
            "every phase was planned to end by {}, but the site is still recorded active: record its stabilization to end inspections",
            day(end)
        ));
    }
    notes
}

fn item(
    kind: ItemKind,
    due: NaiveDate,
    storm: Option<Storm>,
    reason: String,
    as_of: NaiveDate,
) -> DueItem {
    DueItem {
        kind,
        due,
        due_weekday: weekday(due),
        urgency: Urgency::of(due, as_of),
        days_overdue: (as_of - due).num_days().max(0),
        storm,
        reason,
    }
}
