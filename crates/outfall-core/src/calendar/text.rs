//! The due list as plain text, for the CLI: the rules and the rain it was worked out from,
//! then the sites by urgency, then those it cannot schedule or that owe nothing.

use super::{day, DueList, SiteDue, Unscheduled, Urgency};
use std::fmt::Write;

impl DueList {
    /// The list as plain text, for the CLI.
    /// `clause` is the data set's label for (9)(a)[2].
    pub fn to_text(&self, clause: &str) -> String {
        let mut t = String::new();
        self.write_header(&mut t, clause);
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
                write_site(&mut t, s);
            }
        }
        for (title, list) in [("NEEDS DATA", &self.needs_data), ("NOT DUE", &self.not_due)] {
            if !list.is_empty() {
                write_unscheduled(&mut t, title, list);
            }
        }
        if !self.problems.is_empty() {
            let _ = writeln!(t, "\nRECORDS SKIPPED");
            for p in &self.problems {
                let _ = writeln!(t, "  {p}");
            }
        }
        t
    }

    /// The date, the inspection rules, the rainfall read and the counts per urgency.
    fn write_header(&self, t: &mut String, clause: &str) {
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
    }
}

/// One site: its name and conditions, each inspection owed, each storm inspected late and
/// the notes.
fn write_site(t: &mut String, s: &SiteDue) {
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

/// The sites under `title` with why, and what data is missing.
fn write_unscheduled(t: &mut String, title: &str, list: &[Unscheduled]) {
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
