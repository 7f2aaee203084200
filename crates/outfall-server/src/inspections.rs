//! The inspection calendar over HTTP: `GET /inspections/due` (the due list as JSON) and
//! `GET /inspections/due.html` (the printable day sheet). Both take `?as_of=YYYY-MM-DD`
//! (default: today). The core works the list out; this only picks the records and renders.

use crate::error::{ApiError, ApiResult};
use crate::params::{DueQuery, Params};
use crate::state::AppState;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use chrono::NaiveDate;
use outfall_core::calendar::{self, DueList, SiteDue, Urgency};
use outfall_core::record::{Inspection, InspectionQuery, Listing, RainfallDay};
use std::fmt::Write;

/// The list changes with every logged inspection or rainfall entry: never served stale.
const NO_CACHE: (header::HeaderName, &str) = (header::CACHE_CONTROL, "no-cache");

/// The records the calendar reads besides the data set's rainfall layers: the inspections
/// logged in the site registry and the officer's manual rainfall entries (`POST /rainfall`).
/// Without a registry there are none.
fn records(st: &AppState) -> ApiResult<(Listing<Inspection>, Listing<RainfallDay>)> {
    match &st.registry {
        Some(live) => Ok((
            live.registry.inspections(&InspectionQuery::ALL)?,
            live.registry.rainfall()?,
        )),
        None => Ok(Default::default()),
    }
}

/// Worked out on the blocking pool: the registry's reads (SQLite, PostgreSQL) block.
async fn due_list(st: &AppState, as_of: NaiveDate) -> ApiResult<DueList> {
    let st = st.clone();
    let deadline = st.limits.work_timeout;
    crate::limits::blocking(
        deadline,
        move || {
            let (inspections, manual_rain) = records(&st)?;
            let reports = st
                .catalog
                .sites
                .iter()
                .filter_map(|s| st.reports.get(&s.id));
            let mut list = calendar::due_list_for(
                &st.catalog,
                reports,
                &inspections.rows,
                &manual_rain.rows,
                as_of,
            );
            list.problems = [inspections.problems, manual_rain.problems].concat();
            Ok(list)
        },
        || ApiError::Unavailable {
            detail: "the due list did not finish in time".into(),
            retry_after_secs: Some(1),
        },
    )
    .await
}

/// `GET /inspections/due?as_of=YYYY-MM-DD`
#[utoipa::path(get, path = "/inspections/due", tag = "inspections",
    params(("as_of" = Option<String>, Query, description = "The day to schedule for (YYYY-MM-DD); default today")),
    responses((status = 200, description = "Inspections due under (9)(a)[2]: overdue, due today, this week, and sites the data cannot schedule", content_type = "application/json"),
              (status = 400, description = "A bad date", content_type = "application/problem+json")))]
pub async fn due(State(st): State<AppState>, Params(q): Params<DueQuery>) -> ApiResult<Response> {
    let list = due_list(&st, q.as_of).await?;
    Ok(([NO_CACHE], Json(list)).into_response())
}

/// `GET /inspections/due.html?as_of=YYYY-MM-DD`: the day sheet an inspector takes out.
#[utoipa::path(get, path = "/inspections/due.html", tag = "inspections",
    params(("as_of" = Option<String>, Query, description = "The day of the sheet (YYYY-MM-DD); default today")),
    responses((status = 200, description = "The printable day sheet", content_type = "text/html"),
              (status = 400, description = "A bad date", content_type = "application/problem+json")))]
pub async fn day_sheet(
    State(st): State<AppState>,
    Params(q): Params<DueQuery>,
) -> ApiResult<Response> {
    let list = due_list(&st, q.as_of).await?;
    let m = &st.catalog.manifest;
    Ok((
        [NO_CACHE],
        Html(render(&list, &m.name, &m.clauses.inspections)),
    )
        .into_response())
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn day(d: NaiveDate) -> String {
    format!("{} {d}", d.format("%a"))
}

const STYLE: &str = "body{font:13px/1.4 system-ui,sans-serif;margin:1.5em;color:#111}\
h1{font-size:20px;margin:0}h2{font-size:15px;margin:1.2em 0 .4em;border-bottom:2px solid #333}\
.meta{color:#444;margin:.2em 0}.site{border:1px solid #999;padding:.5em .7em;margin:.6em 0;page-break-inside:avoid;break-inside:avoid}\
.site h3{font-size:14px;margin:0 0 .3em}.overdue{color:#a40000;font-weight:600}.today{color:#8a5a00;font-weight:600}\
ul{margin:.2em 0 .4em 1.2em;padding:0}.sign{display:grid;grid-template-columns:1fr 1fr;gap:.4em 1.5em;margin-top:.5em}\
.sign span{border-bottom:1px solid #555;min-height:1.6em;display:block}.note{color:#555;font-size:12px}\
table{border-collapse:collapse;width:100%}td,th{border:1px solid #aaa;padding:.2em .4em;text-align:left;vertical-align:top}\
@page{margin:14mm}@media print{body{margin:0}a{color:inherit;text-decoration:none}}";

fn when(i: &calendar::DueItem) -> String {
    match i.urgency {
        Urgency::Overdue => format!(
            "<span class=\"overdue\">overdue {} day{}</span>",
            i.days_overdue,
            if i.days_overdue == 1 { "" } else { "s" }
        ),
        Urgency::DueToday => "<span class=\"today\">due today</span>".into(),
        u => u.label().into(),
    }
}

fn site_block(h: &mut String, s: &SiteDue) {
    let conds = if s.conditions.is_empty() {
        String::new()
    } else {
        format!(" — Condition {}", s.conditions.join(", "))
    };
    let _ = write!(
        h,
        "<section class=\"site\" data-site=\"{}\"><h3>{} {}{}</h3><div class=\"meta\">{}</div><ul>",
        esc(&s.site_id),
        esc(&s.site_id),
        esc(s.name.as_deref().unwrap_or("")),
        esc(&conds),
        esc(s.address.as_deref().unwrap_or("")),
    );
    for i in &s.items {
        let _ = write!(
            h,
            "<li>by {} ({}): {}</li>",
            day(i.due),
            when(i),
            esc(&i.reason)
        );
    }
    let _ = write!(h, "</ul>");
    for n in &s.notes {
        let _ = write!(h, "<div class=\"note\">Note: {}</div>", esc(n));
    }
    let _ = write!(
        h,
        "<div class=\"sign\"><label>Inspector (qualified professional)<span></span></label>\
<label>Date and time<span></span></label>\
<label>Erosion and sediment controls effective? yes / no<span></span></label>\
<label>Corrective actions and due date<span></span></label></div></section>"
    );
}

/// The printable day sheet: sites to inspect today (overdue or due today) with a sign-off
/// box each, then the rest of the week, then the sites the data cannot schedule.
pub fn render(list: &DueList, data_set: &str, clause: &str) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>Inspection day sheet {}</title><style>{STYLE}</style></head><body>\
<h1>Inspection day sheet — {}</h1><p class=\"meta\">{}</p>\
<p class=\"meta\">{}: every {} days, and within {} hours of a storm of {} in or more. \
Keep each inspection report in the site logbook.</p>",
        list.as_of,
        day(list.as_of),
        esc(data_set),
        esc(clause),
        list.interval_days,
        list.storm_inspection_hours,
        list.storm_threshold_in
    );
    let rain = match (list.rainfall.first, list.rainfall.last) {
        (Some(f), Some(l)) => format!(
            "Rainfall: {f} to {l}, {}.",
            esc(&list.rainfall.sources.join("; "))
        ),
        _ => "Rainfall: none loaded, so storm inspections are not shown.".into(),
    };
    let _ = write!(h, "<p class=\"meta\">{rain}</p>");
    let today: Vec<&SiteDue> = list
        .sites
        .iter()
        .filter(|s| s.urgency <= Urgency::DueToday)
        .collect();
    let _ = write!(h, "<h2>Inspect today ({})</h2>", today.len());
    if today.is_empty() {
        let _ = write!(h, "<p>Nothing is overdue or due today.</p>");
    }
    for s in today {
        site_block(&mut h, s);
    }
    later_and_unscheduled(&mut h, list);
    for p in &list.problems {
        let _ = write!(h, "<p class=\"note\">Record skipped: {}</p>", esc(p));
    }
    let _ = write!(h, "</body></html>");
    h
}

/// The rest of the week, one row per inspection, and the sites the data cannot schedule.
fn later_and_unscheduled(h: &mut String, list: &DueList) {
    let later: Vec<&SiteDue> = list
        .sites
        .iter()
        .filter(|s| s.urgency > Urgency::DueToday)
        .collect();
    if !later.is_empty() {
        let _ = write!(
            h,
            "<h2>Later ({})</h2><table><tr><th>Site</th><th>Due</th><th>Why</th></tr>",
            later.len()
        );
        for s in later {
            for i in &s.items {
                let _ = write!(
                    h,
                    "<tr><td>{} {}</td><td>{}</td><td>{}</td></tr>",
                    esc(&s.site_id),
                    esc(s.name.as_deref().unwrap_or("")),
                    day(i.due),
                    esc(&i.reason)
                );
            }
        }
        let _ = write!(h, "</table>");
    }
    if !list.needs_data.is_empty() {
        let _ = write!(
            h,
            "<h2>Cannot be scheduled: needs data ({})</h2><ul>",
            list.needs_data.len()
        );
        for u in &list.needs_data {
            let _ = write!(
                h,
                "<li>{} {}: {} {}</li>",
                esc(&u.site_id),
                esc(u.name.as_deref().unwrap_or("")),
                esc(&u.reason),
                esc(&u.missing.join("; "))
            );
        }
        let _ = write!(h, "</ul>");
    }
}
