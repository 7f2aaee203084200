//! The report as plain text, for the CLI and the file: one writer per section, in the order
//! an officer reads them (the site, its disturbance, where it drains, the conditions, each
//! finding, and the data it was worked out from).

use super::{Disturbance, Reach, Report, SiteInfo};
use std::fmt::Write;

impl Report {
    /// The readable report for the CLI and the file.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        self.write_site(&mut s);
        write_disturbance(&mut s, &self.disturbance);
        self.write_waters(&mut s);
        self.write_conditions(&mut s);
        self.write_findings(&mut s);
        self.write_data(&mut s);
        s
    }

    fn write_site(&self, s: &mut String) {
        let site = &self.site;
        writeln!(s, "OUTFALL SITE REPORT — {}", self.data.law).ok();
        writeln!(
            s,
            "Site {}{}",
            site.id,
            site.name().map(|n| format!(" — {n}")).unwrap_or_default()
        )
        .ok();
        if let Some(a) = site.address() {
            writeln!(s, "Address: {a}").ok();
        }
        s.push_str(&site.record_text());
        if !site.parcel_ids.is_empty() {
            writeln!(s, "Parcels: {}", site.parcel_ids.join(", ")).ok();
        }
    }

    /// The receiving waters, the path downstream and the TMDL watersheds entered.
    fn write_waters(&self, s: &mut String) {
        writeln!(
            s,
            "\nRECEIVING WATERS  [{}]",
            self.findings
                .iter()
                .find(|f| f.rule == "receiving_waters")
                .map(|f| &*f.clause)
                .unwrap_or("")
        )
        .ok();
        if self.receiving_water_names.is_empty() {
            writeln!(s, "  none identified").ok();
        } else {
            writeln!(s, "  {}", self.receiving_water_names.join("; ")).ok();
        }
        for note in &self.receiving_water_sources {
            writeln!(s, "  ({note})").ok();
        }
        writeln!(s, "  Entry: {}", self.entry.reason).ok();
        if !self.downstream.is_empty() {
            self.write_downstream(s);
        }
        if let Some(fi) = &self.first_impaired {
            writeln!(
                s,
                "  First impaired water: {} ({}) {:.1} km downstream — {}",
                fi.name,
                fi.id,
                fi.distance_m / 1000.0,
                fi.causes.join(", ")
            )
            .ok();
        }
        for t in &self.tmdl_watersheds {
            writeln!(
                s,
                "  Discharge enters TMDL watershed: {} ({}; stormwater a source: {}) at the {}",
                t.name,
                t.pollutant.as_deref().unwrap_or("pollutant not given"),
                match t.stormwater_source {
                    Some(true) => "yes",
                    Some(false) => "no",
                    None => "not recorded",
                },
                t.via.as_deref().unwrap_or("site")
            )
            .ok();
        }
    }

    /// The traced path, where the trace ended and each divergence it passed.
    fn write_downstream(&self, s: &mut String) {
        writeln!(s, "  Downstream: {}", trace_path(&self.downstream)).ok();
        if let Some(end) = &self.trace_end {
            writeln!(s, "  Trace ends: {end}").ok();
        }
        for d in &self.divergences {
            writeln!(
                s,
                "  Divergence at {}: followed {}, minor branch {}",
                d.at_reach,
                d.main,
                d.minor.join(", ")
            )
            .ok();
        }
    }

    fn write_conditions(&self, s: &mut String) {
        let c = &self.conditions;
        writeln!(s, "\nCONDITIONS").ok();
        if c.in_jurisdiction == Some(false) {
            writeln!(
                s,
                "  OUTSIDE THE TOWN: the local law does not apply here; facts are for information."
            )
            .ok();
        }
        writeln!(
            s,
            "  Land development activity: {}   Exempt: {}",
            yes_no(c.land_development_activity),
            yes_no(c.exempt)
        )
        .ok();
        writeln!(
            s,
            "  Condition A: {}   Condition B: {}   Condition C: {}",
            yes_no(c.a),
            yes_no(c.b),
            yes_no(c.c)
        )
        .ok();
        writeln!(
            s,
            "  Five acres at one time exceeded: {}",
            yes_no(c.five_acre_limit_exceeded)
        )
        .ok();
    }

    fn write_findings(&self, s: &mut String) {
        writeln!(s, "\nFINDINGS").ok();
        for f in &self.findings {
            writeln!(
                s,
                "  [{}] {} — {}\n      {}",
                yes_no(f.met),
                f.rule.as_str(),
                f.clause,
                f.reason
            )
            .ok();
            if !f.missing.is_empty() {
                writeln!(s, "      Needs: {}", f.missing.join("; ")).ok();
            }
        }
    }

    /// The layers the report was worked out from (so it can be reproduced) and their problems.
    fn write_data(&self, s: &mut String) {
        writeln!(
            s,
            "\nDATA ({}; generated {})",
            self.data.data_set, self.data.generated
        )
        .ok();
        for l in self.data.layers.iter() {
            writeln!(
                s,
                "  {:<12} {} ({} features, sha256 {})",
                l.role,
                l.path,
                l.features,
                &l.sha256[..12.min(l.sha256.len())]
            )
            .ok();
        }
        for p in self.data.problems.iter() {
            writeln!(
                s,
                "  PROBLEM {}: feature {}: {}",
                p.path, p.feature, p.reason
            )
            .ok();
        }
    }
}

fn write_disturbance(s: &mut String, d: &Disturbance) {
    writeln!(s, "\nDISTURBANCE (geodesic acres, overlaps counted once)").ok();
    writeln!(s, "  Total disturbed:         {:.2} ac", d.total_acres).ok();
    writeln!(
        s,
        "  Peak at one time:        {:.2} ac{}",
        d.peak_acres,
        d.peak_date
            .map(|x| format!(" from {x}"))
            .unwrap_or_default()
    )
    .ok();
    writeln!(
        s,
        "  Outside site parcels:    {:.2} ac",
        d.outside_parcels_acres
    )
    .ok();
    for p in &d.phases {
        let dates = match (p.start, p.end) {
            (None, None) => String::new(),
            (a, b) => format!(
                "  {} to {}",
                a.map(|x| x.to_string()).unwrap_or("…".into()),
                b.map(|x| x.to_string()).unwrap_or("…".into())
            ),
        };
        writeln!(s, "  Phase {:<6} {:>8.2} ac{dates}", p.phase, p.acres).ok();
    }
}

impl SiteInfo {
    /// The typed record's lines of the text report: status in words, the SWPPP decision and
    /// its source, and the values no vocabulary knows.
    fn record_text(&self) -> String {
        let mut s = match (self.status(), self.status_recorded()) {
            (Some(st), Some(w)) if w != st => {
                format!("Status: {} (recorded as '{w}')\n", st.replace('_', " "))
            }
            (Some(st), _) => format!("Status: {}\n", st.replace('_', " ")),
            (None, Some(w)) => format!("Status: '{w}' (not a status word this data set knows)\n"),
            (None, None) => String::new(),
        };
        if let Some(a) = self.swppp_approval() {
            s += &format!("SWPPP: {} [{}]\n", a.describe(), a.source);
        }
        for p in self.record_problems() {
            s += &format!("Record problem: {p}\n");
        }
        s
    }
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "YES",
        Some(false) => "no",
        None => "NEEDS DATA",
    }
}

/// "unnamed tributary to Mud Creek → Mud Creek (2.1 km) → Oneida River (5.4 km, impaired: phosphorus)".
/// Consecutive reaches of one water collapse into one step, at the distance where it starts.
pub fn trace_path(reaches: &[Reach]) -> String {
    // Assessment words only where the network carries segments at all.
    let segmented = reaches.iter().any(|r| r.segment.is_some());
    let mut parts: Vec<String> = Vec::new();
    let mut last: Option<&str> = None;
    for r in reaches {
        if last == Some(r.name.as_str()) {
            if r.impaired && !parts.last().is_some_and(|p| p.contains("impaired")) {
                let p = parts.pop().unwrap_or_default();
                parts.push(format!("{p} [impaired: {}]", r.causes.join(", ")));
            }
            continue;
        }
        last = Some(r.name.as_str());
        let mut label = r.name.clone();
        let mut notes = Vec::new();
        if r.distance_m > 0.0 {
            notes.push(format!("{:.1} km", r.distance_m / 1000.0));
        }
        if r.impaired {
            notes.push(format!("impaired: {}", r.causes.join(", ")));
        }
        if segmented {
            notes.extend(assessment_words(r));
        }
        if !notes.is_empty() {
            write!(label, " ({})", notes.join(", ")).ok();
        }
        parts.push(label);
    }
    parts.join(" → ")
}

/// What the list says of a reach's segment, when it is not simply "listed" (shown as impaired).
fn assessment_words(r: &Reach) -> Option<String> {
    match (r.assessment, r.segment.as_deref()) {
        ("listed", _) => None,
        ("not assessed", _) => Some("not assessed: no assessment segment claims it".into()),
        (words, Some(seg)) => Some(format!("segment {seg}, {words}")),
        (words, None) => Some(words.into()),
    }
}
