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

mod schedule;
mod text;

use schedule::{schedule, Outcome};

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
            name: r.site.name().map(String::from),
            address: r.site.address().map(String::from),
            status: r.site.status().map(String::from),
            status_recorded: r.site.status_recorded().map(String::from),
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
    /// Records the registry holds but could not read (a date out of range typed in by
    /// hand), skipped from this list and named here.
    pub problems: Vec<String>,
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
        problems: Vec::new(),
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
    crate::bounds::parse_iso(s, false).ok_or_else(|| {
        crate::Error::Input(format!(
            "as_of '{s}' is not a date (YYYY-MM-DD) {}",
            crate::bounds::range_text()
        ))
    })
}
