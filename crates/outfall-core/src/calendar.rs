//! The inspection calendar of §230-20 D(9)(a)[2]: *when* each site must be inspected. The
//! rulebook's `inspections` rule decides *whether* (Conditions A, B or C); this works out, as
//! of a date, the next 7-day inspection and every storm inspection still owed. A pure function
//! of the sites, the logged inspections, the daily rainfall and the `[rules]` settings.
//!
//! Readings of the law (README, "Inspection calendar"):
//! - the 7-day cycle runs from the last recorded inspection, else from the first phase start;
//! - each day whose rainfall is at or above `storm_threshold_in` is a storm event, and each
//!   needs its own inspection within `storm_inspection_hours`: a daily total is known at the
//!   end of its day, so the deadline is the storm day plus `storm_inspection_hours / 24` whole
//!   days (24 h: the next day). An inspection dated on the storm day or up to the deadline
//!   satisfies it (a logbook date does not say the hour). So for storms on two days in a row,
//!   one inspection on the second day satisfies both; one on the day after the second is late
//!   for the first.

use crate::config::Rules;
use crate::law::RuleId;
use crate::record::{Inspection, RainfallDay};
use crate::report::Report;
use chrono::{Datelike, NaiveDate};
use serde::Serialize;
use std::collections::BTreeMap;

/// What the calendar needs to know of a site (built from its report).
#[derive(Debug, Clone, PartialEq)]
pub struct CalendarSite {
    pub id: String,
    pub name: Option<String>,
    pub address: Option<String>,
    /// The status code (under_construction, ...), None when not recorded or unreadable.
    pub status: Option<String>,
    /// The status as the record words it, to name an unreadable one.
    pub status_recorded: Option<String>,
    /// Phase name, start, end.
    pub phases: Vec<(String, Option<NaiveDate>, Option<NaiveDate>)>,
    /// The `inspections` finding: true = required (Condition A, B or C), None = undetermined.
    pub inspections_required: Option<bool>,
    /// Why, in the finding's words, and what is missing when undetermined.
    pub reason: String,
    pub missing: Vec<String>,
    /// The conditions that hold ("A", "B", "C").
    pub conditions: Vec<String>,
}

impl CalendarSite {
    pub fn from_report(r: &Report) -> CalendarSite {
        let finding = r.findings.iter().find(|f| f.rule == RuleId::Inspections);
        let c = &r.conditions;
        CalendarSite {
            id: r.site.id.clone(),
            name: r.site.name.clone(),
            address: r.site.address.clone(),
            status: r.site.status.clone(),
            status_recorded: r.site.status_recorded.clone(),
            phases: r
                .disturbance
                .phases
                .iter()
                .map(|p| (p.phase.clone(), p.start, p.end))
                .collect(),
            inspections_required: finding.and_then(|f| f.met),
            reason: finding.map(|f| f.reason.clone()).unwrap_or_default(),
            missing: finding.map(|f| f.missing.clone()).unwrap_or_default(),
            conditions: [("A", c.a), ("B", c.b), ("C", c.c)]
                .into_iter()
                .filter(|(_, m)| *m == Some(true))
                .map(|(n, _)| n.to_string())
                .collect(),
        }
    }
}

/// How soon something is due, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Urgency {
    Overdue,
    DueToday,
    /// Due in the seven days starting today (after today).
    DueThisWeek,
    Upcoming,
}

impl Urgency {
    fn of(due: NaiveDate, as_of: NaiveDate) -> Urgency {
        let days = (due - as_of).num_days();
        match days {
            d if d < 0 => Urgency::Overdue,
            0 => Urgency::DueToday,
            1..=6 => Urgency::DueThisWeek,
            _ => Urgency::Upcoming,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Urgency::Overdue => "overdue",
            Urgency::DueToday => "due today",
            Urgency::DueThisWeek => "due this week",
            Urgency::Upcoming => "upcoming",
        }
    }
}

/// A storm: a day at or above the threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Storm {
    pub date: NaiveDate,
    pub weekday: String,
    pub rain_in: f64,
    pub source: String,
    /// The last day an inspection satisfies it.
    pub deadline: NaiveDate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// The 7-day inspection.
    Cycle,
    /// The inspection after a storm.
    Storm,
}

/// One inspection owed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DueItem {
    pub kind: ItemKind,
    /// Inspect on or before this day.
    pub due: NaiveDate,
    pub due_weekday: String,
    pub urgency: Urgency,
    /// Days past `due` (0 unless overdue).
    pub days_overdue: i64,
    /// The storm that triggered it.
    pub storm: Option<Storm>,
    pub reason: String,
}

/// A storm inspection made after its deadline (a past lapse, not owed any more).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LateStorm {
    pub storm: Storm,
    pub inspected: NaiveDate,
}

/// One site's inspections owed as of the date.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteDue {
    pub site_id: String,
    pub name: Option<String>,
    pub address: Option<String>,
    pub conditions: Vec<String>,
    /// The most urgent of its items.
    pub urgency: Urgency,
    pub last_inspection: Option<NaiveDate>,
    /// The first phase start.
    pub phase_start: Option<NaiveDate>,
    /// What the 7-day cycle counts from: the last inspection, or the phase start.
    pub since: NaiveDate,
    pub items: Vec<DueItem>,
    pub late_storms: Vec<LateStorm>,
    /// Days since `since` with no rainfall record: a storm on them would be unknown.
    pub unrecorded_rain_days: usize,
    pub notes: Vec<String>,
}

/// A site the calendar cannot schedule, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unscheduled {
    pub site_id: String,
    pub name: Option<String>,
    pub reason: String,
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub overdue: usize,
    pub due_today: usize,
    pub due_this_week: usize,
    pub upcoming: usize,
}

/// The rainfall the list was worked out from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RainCoverage {
    pub first: Option<NaiveDate>,
    pub last: Option<NaiveDate>,
    pub days: usize,
    pub sources: Vec<String>,
}

/// The due list as of a date.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DueList {
    pub as_of: NaiveDate,
    pub as_of_weekday: String,
    pub interval_days: u32,
    pub storm_threshold_in: f64,
    pub storm_inspection_hours: u32,
    /// Sites by worst urgency, then earliest due.
    pub sites: Vec<SiteDue>,
    /// Sites where the data cannot say whether inspections are required, or from when.
    pub needs_data: Vec<Unscheduled>,
    /// Sites with nothing owed: not active, not started, or no Condition A/B/C.
    pub not_due: Vec<Unscheduled>,
    /// Sites per worst urgency.
    pub counts: Counts,
    pub rainfall: RainCoverage,
    /// Storms up to the date (in the last 60 days), for the record.
    pub recent_storms: Vec<Storm>,
}

fn weekday(d: NaiveDate) -> String {
    d.weekday().to_string()
}

fn day(d: NaiveDate) -> String {
    format!("{} {d}", d.weekday())
}

/// Rain per day up to `as_of`: when two sources give the same day, the larger figure (a storm
/// at any gauge triggers an inspection).
fn daily_rain(rain: &[RainfallDay], as_of: NaiveDate) -> BTreeMap<NaiveDate, &RainfallDay> {
    let mut by_day: BTreeMap<NaiveDate, &RainfallDay> = BTreeMap::new();
    for r in rain
        .iter()
        .filter(|r| r.date <= as_of && r.rain_in.is_finite())
    {
        by_day
            .entry(r.date)
            .and_modify(|cur| {
                if r.rain_in > cur.rain_in {
                    *cur = r;
                }
            })
            .or_insert(r);
    }
    by_day
}

fn storm(r: &RainfallDay, rules: &Rules) -> Storm {
    let grace_days = i64::from(rules.storm_inspection_hours / 24);
    Storm {
        date: r.date,
        weekday: weekday(r.date),
        rain_in: r.rain_in,
        source: r.source.clone(),
        deadline: r.date + chrono::Days::new(grace_days as u64),
    }
}

/// The due list as of `as_of`. Inspections and rainfall after `as_of` are ignored, so a past
/// date shows what was owed then.
pub fn due_list(
    sites: &[CalendarSite],
    inspections: &[Inspection],
    rain: &[RainfallDay],
    rules: &Rules,
    as_of: NaiveDate,
) -> DueList {
    let by_day = daily_rain(rain, as_of);
    let storms: Vec<Storm> = by_day
        .values()
        .filter(|r| r.rain_in >= rules.storm_threshold_in)
        .map(|r| storm(r, rules))
        .collect();
    let mut out = DueList {
        as_of,
        as_of_weekday: weekday(as_of),
        interval_days: rules.inspection_interval_days,
        storm_threshold_in: rules.storm_threshold_in,
        storm_inspection_hours: rules.storm_inspection_hours,
        sites: Vec::new(),
        needs_data: Vec::new(),
        not_due: Vec::new(),
        counts: Counts::default(),
        rainfall: RainCoverage {
            first: by_day.keys().next().copied(),
            last: by_day.keys().next_back().copied(),
            days: by_day.len(),
            sources: {
                let mut s: Vec<String> = by_day.values().map(|r| r.source.clone()).collect();
                s.sort();
                s.dedup();
                s
            },
        },
        recent_storms: storms
            .iter()
            .filter(|s| (as_of - s.date).num_days() < 60)
            .cloned()
            .collect(),
    };
    for site in sites {
        match schedule(site, inspections, &by_day, &storms, rules, as_of) {
            Outcome::Due(d) => out.sites.push(d),
            Outcome::NeedsData(u) => out.needs_data.push(u),
            Outcome::NotDue(u) => out.not_due.push(u),
        }
    }
    out.sites.sort_by(|a, b| {
        let first = |s: &SiteDue| s.items.iter().map(|i| i.due).min();
        (a.urgency, first(a), &a.site_id).cmp(&(b.urgency, first(b), &b.site_id))
    });
    for s in &out.sites {
        match s.urgency {
            Urgency::Overdue => out.counts.overdue += 1,
            Urgency::DueToday => out.counts.due_today += 1,
            Urgency::DueThisWeek => out.counts.due_this_week += 1,
            Urgency::Upcoming => out.counts.upcoming += 1,
        }
    }
    out
}

enum Outcome {
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

fn schedule(
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

impl DueList {
    /// The list as plain text, for the CLI.
    /// `clause` is the data set's label for (9)(a)[2].
    pub fn to_text(&self, clause: &str) -> String {
        use std::fmt::Write;
        let mut t = String::new();
        let _ = writeln!(t, "INSPECTIONS DUE as of {}", day(self.as_of));
        let _ = writeln!(
            t,
            "{clause}: every {} days, and within {} hours of a storm of {} in or more.",
            self.interval_days, self.storm_inspection_hours, self.storm_threshold_in
        );
        match (self.rainfall.first, self.rainfall.last) {
            (Some(f), Some(l)) => {
                let _ = writeln!(
                    t,
                    "Rainfall: {} day(s) from {f} to {l} ({}).",
                    self.rainfall.days,
                    self.rainfall.sources.join("; ")
                );
            }
            _ => {
                let _ = writeln!(
                    t,
                    "Rainfall: none loaded; storm inspections cannot be worked out (add a `rainfall` layer)."
                );
            }
        }
        let c = &self.counts;
        let _ = writeln!(
            t,
            "{} overdue, {} due today, {} due this week, {} upcoming; {} need data.",
            c.overdue,
            c.due_today,
            c.due_this_week,
            c.upcoming,
            self.needs_data.len()
        );
        for urgency in [
            Urgency::Overdue,
            Urgency::DueToday,
            Urgency::DueThisWeek,
            Urgency::Upcoming,
        ] {
            let sites: Vec<&SiteDue> = self.sites.iter().filter(|s| s.urgency == urgency).collect();
            if sites.is_empty() {
                continue;
            }
            let _ = writeln!(t, "\n{}", urgency.label().to_uppercase());
            for s in sites {
                let conds = if s.conditions.is_empty() {
                    String::new()
                } else {
                    format!(" [Condition {}]", s.conditions.join(", "))
                };
                let _ = writeln!(
                    t,
                    "  {} {}{}{}",
                    s.site_id,
                    s.name.as_deref().unwrap_or(""),
                    s.address
                        .as_deref()
                        .map(|a| format!(", {a}"))
                        .unwrap_or_default(),
                    conds
                );
                for i in &s.items {
                    let when = match i.urgency {
                        Urgency::Overdue => format!("{} days overdue", i.days_overdue),
                        u => u.label().to_string(),
                    };
                    let _ = writeln!(t, "    - by {} ({when}): {}", day(i.due), i.reason);
                }
                for l in &s.late_storms {
                    let _ = writeln!(
                        t,
                        "    - late: the storm of {:.2} in on {} was inspected on {}, after its deadline {}",
                        l.storm.rain_in,
                        day(l.storm.date),
                        day(l.inspected),
                        day(l.storm.deadline)
                    );
                }
                for n in &s.notes {
                    let _ = writeln!(t, "    note: {n}");
                }
            }
        }
        for (title, list) in [("NEEDS DATA", &self.needs_data), ("NOT DUE", &self.not_due)] {
            if list.is_empty() {
                continue;
            }
            let _ = writeln!(t, "\n{title}");
            for u in list {
                let _ = writeln!(
                    t,
                    "  {} {}: {}",
                    u.site_id,
                    u.name.as_deref().unwrap_or(""),
                    u.reason
                );
                if !u.missing.is_empty() {
                    let _ = writeln!(t, "    missing: {}", u.missing.join("; "));
                }
            }
        }
        t
    }
}

/// The due list of a loaded data set from its sites' reports, its rainfall layers plus manual
/// rainfall entries, and the logged inspections.
pub fn due_list_for<'a>(
    catalog: &crate::Catalog,
    reports: impl IntoIterator<Item = &'a Report>,
    inspections: &[Inspection],
    manual_rain: &[RainfallDay],
    as_of: NaiveDate,
) -> DueList {
    let sites: Vec<CalendarSite> = reports.into_iter().map(CalendarSite::from_report).collect();
    let mut rain = catalog.rainfall_days();
    rain.extend_from_slice(manual_rain);
    due_list(&sites, inspections, &rain, &catalog.manifest.rules, as_of)
}

/// Parses an `as_of` date (YYYY-MM-DD).
pub fn parse_as_of(s: &str) -> crate::Result<NaiveDate> {
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
        .map_err(|_| crate::Error::Input(format!("as_of '{s}' is not a date (YYYY-MM-DD)")))
}
