//! The one-glance summary on top of the printed report (issue 23): Condition A with a
//! one-line reason, the first receiving water and how it was found, the first impaired water
//! (PWL ID, causes, category in words, list year) and the duties that follow. Each line is
//! what the report says; an undecided value reads "needs data" with what is missing.

use crate::html_text::{category_words, esc};
use outfall_core::config::Rules;
use outfall_core::law::RuleId;
use outfall_core::report::{Finding, Report};
use std::fmt::Write as _;

/// The entry rule in words, as the viewer shows it.
pub(crate) fn entry_words(rule: &str) -> &'static str {
    match rule {
        "outfall_point" => "outfall point given by the applicant",
        "storm_sewer" => "through the storm sewer to its outfall",
        "catchment" => "the catchment the site lies in",
        "nearest" => "assumed: the water nearest the site",
        "unreadable_outfall" => "the outfall given cannot be read",
        _ => "no water found",
    }
}

fn tri(v: Option<bool>, yes: &'static str, no: &'static str) -> &'static str {
    match v {
        Some(true) => yes,
        Some(false) => no,
        None => "needs data",
    }
}

fn finding(r: &Report, rule: RuleId) -> Option<&Finding> {
    r.findings.iter().find(|f| f.rule == rule)
}

/// Condition A's reason in one line: what is missing when undecided, else the first sentence
/// of the finding's reason (the findings table keeps it whole).
fn condition_a_line(f: Option<&Finding>) -> String {
    let Some(f) = f else {
        return String::new();
    };
    if f.met.is_none() {
        if let Some(m) = f.missing.first() {
            return format!("needs {m}.");
        }
    }
    let end = f.reason.find(". ").map(|i| i + 1).unwrap_or(f.reason.len());
    f.reason[..end].to_string()
}

fn first_impaired(r: &Report) -> String {
    let Some(w) = &r.first_impaired else {
        return "none found downstream".into();
    };
    let category = w
        .category
        .as_deref()
        .map(|c| format!("category {}: {}", esc(c), category_words(c)))
        .unwrap_or_else(|| "category not given".into());
    format!(
        "<strong>{}</strong> · PWL {} · {} · {category} · {}",
        esc(&w.name),
        esc(&w.id),
        esc(&w.causes.join(", ")),
        w.list_year
            .as_deref()
            .map(|y| format!("{} list", esc(y)))
            .unwrap_or_else(|| "list year not given".into())
    )
}

/// The summary box, printed before the detail.
pub(crate) fn summary(r: &Report, rules: &Rules) -> String {
    let mut h =
        String::from("<section class=\"summary\" aria-label=\"Summary\"><h2>Summary</h2><table>");
    let a = finding(r, RuleId::ConditionA);
    write!(
        h,
        "<tr><th>Condition A</th><td data-summary=\"a\"><strong>{}</strong> — {}</td></tr>",
        tri(r.conditions.a, "yes", "no"),
        esc(&condition_a_line(a))
    )
    .ok();
    write!(
        h,
        "<tr><th>First receiving water</th><td data-summary=\"receiving\">{} ({})</td></tr>",
        esc(r
            .receiving_water_names
            .first()
            .map_or("none found", String::as_str)),
        entry_words(&r.entry.rule)
    )
    .ok();
    write!(
        h,
        "<tr><th>First impaired water</th><td data-summary=\"impaired\">{}</td></tr><tr><th>Duties</th><td data-summary=\"duties\">",
        first_impaired(r)
    )
    .ok();
    // The inspections' schedule is the rulebook's.
    let days = rules.inspection_interval_days;
    let inspections = format!(
        "inspections every {days} day{} and after {} in storms",
        if days == 1 { "" } else { "s" },
        rules.storm_threshold_in
    );
    let duties = [
        (RuleId::SwpppRequired, "SWPPP"),
        (RuleId::SwpppFull, "post-construction controls in the SWPPP"),
        (RuleId::SwpppPreparer, "SWPPP by a licensed professional"),
        (RuleId::Inspections, inspections.as_str()),
    ];
    let words: Vec<String> = duties
        .iter()
        .filter_map(|(rule, label)| {
            let f = finding(r, *rule)?;
            Some(format!(
                "{label}: {}",
                tri(f.met, "required", "not required")
            ))
        })
        .collect();
    h.push_str(&esc(&words.join(" · ")));
    h.push_str("</td></tr></table></section>");
    h
}

/// The TMDLs whose watershed holds a listed water: a watershed given by the network holds
/// every reach on the path up to its outlet reach. A category 5 water in one is flagged, as
/// the viewer flags it: the list says a TMDL is still needed, the TMDL layer says one exists.
pub(crate) fn tmdl_cell(r: &Report, w: &outfall_core::report::ImpairedWater) -> String {
    let at = |id: &str| r.downstream.iter().position(|x| x.id == id);
    let Some(here) = at(&w.reach_id) else {
        return "none recorded".into();
    };
    let covering: Vec<String> = r
        .tmdl_watersheds
        .iter()
        .filter(|t| {
            t.outlet_reach
                .as_deref()
                .and_then(at)
                .is_some_and(|out| out >= here)
        })
        .map(|t| match &t.pollutant {
            Some(p) => format!("{} ({p})", t.name),
            None => t.name.clone(),
        })
        .collect();
    if covering.is_empty() {
        return "none recorded".into();
    }
    let mut cell = esc(&covering.join("; "));
    if w.category.as_deref().map(str::trim) == Some("5") {
        cell.push_str(" <strong class=\"yes\">⚑ the list says a TMDL is still needed (category 5), yet one covers this water: check DEC's current listing</strong>");
    }
    cell
}
