//! The screening API: site lists, reports, traces, a parcel's receiving waters, ad-hoc checks
//! of uploaded polygons, and search.

use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::features::feature_json;
use crate::limits::{blocking, secs};
use crate::params::{HtmlOnly, JsonOnly, Params, SearchQuery, SitesQuery};
use crate::state::AppState;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use outfall_core::config::Role;
use outfall_core::report::Report;
use outfall_core::screening;
use serde_json::{json, Value};

fn site_report<'a>(st: &'a AppState, id: &str) -> ApiResult<&'a Report> {
    st.reports.get(id).ok_or_else(|| {
        // A pending application read at start is checked in the background (`Live::
        // check_waiting`): it has a report soon, not never.
        let waiting = st.registry.as_ref().is_some_and(|l| l.snapshot().is_waiting(id));
        if waiting {
            ApiError::Unavailable {
                detail: format!("site '{id}' is a pending application being checked since the server started; try again shortly"),
                retry_after_secs: Some(2),
            }
        } else {
            ApiError::NotFound(format!("site '{id}' not found"))
        }
    })
}

#[utoipa::path(get, path = "/sites", tag = "review",
    params(("status" = Option<String>, Query, description = "Only sites with this status: a code (planned, approved, under_construction, stabilized, closed, withdrawn) or a word of the status vocabulary, e.g. active")),
    responses((status = 200, description = "Sites with acres, peak and conditions", content_type = "application/json")))]
pub async fn list(State(st): State<AppState>, Params(q): Params<SitesQuery>) -> Json<Value> {
    // Reports carry the status code; a word of the vocabulary ("active") filters by its code.
    let words = &st.catalog.manifest.words.status;
    let want = q.status.map(|s| {
        outfall_core::claims::lookup(words, &s)
            .map(str::to_string)
            .unwrap_or_else(|| s.to_ascii_lowercase())
    });
    let sites: Vec<Value> = st
        .catalog
        .sites
        .iter()
        .filter_map(|s| st.reports.get(&s.id))
        .filter(|r| {
            want.as_deref()
                .is_none_or(|w| r.site.status().is_some_and(|s| s.eq_ignore_ascii_case(w)))
        })
        .map(|r| {
            json!({
                "id": r.site.id,
                "name": r.site.name(),
                "status": r.site.status(),
                "address": r.site.address(),
                "total_acres": r.disturbance.total_acres,
                "peak_acres": r.disturbance.peak_acres,
                "peak_date": r.disturbance.peak_date,
                "conditions": r.conditions,
                "receiving_water_names": r.receiving_water_names,
                "bbox": r.site.bbox,
            })
        })
        .collect();
    Json(json!({ "sites": sites }))
}

/// A stored report, dated today: the facts do not change while serving, but the report is
/// the check of the day it is asked for.
fn dated(r: &Report) -> Report {
    let mut r = r.clone();
    r.data.generated = chrono::Local::now().date_naive();
    r
}

#[utoipa::path(get, path = "/sites/{id}/report", tag = "review", params(("id" = String, Path, description = "A site id")),
    responses((status = 200, description = "The site's review report", content_type = "application/json"),
              (status = 404, description = "No such site", content_type = "application/problem+json")))]
pub async fn report(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<JsonOnly>,
) -> ApiResult<Json<Report>> {
    Ok(Json(dated(site_report(&st, &id)?)))
}

/// `GET /rules`: the rulebook with this data set's clause labels and settings.
#[utoipa::path(get, path = "/rules", tag = "review",
    responses((status = 200, description = "The rulebook with this data set's clause labels and settings", content_type = "application/json")))]
pub async fn rules(State(st): State<AppState>, _: Params<JsonOnly>) -> Json<Value> {
    let m = &st.catalog.manifest;
    Json(json!({
        "law": m.clauses.law,
        "rules": outfall_core::law::rulebook(&m.rules, &m.clauses),
        "vocabularies": outfall_core::vocabulary::tables(&m.rules.construction_pollutants, &m.words),
    }))
}

#[utoipa::path(get, path = "/sites/{id}/report.html", tag = "review", params(("id" = String, Path, description = "A site id")),
    responses((status = 200, description = "The printable report", content_type = "text/html"),
              (status = 404, description = "No such site", content_type = "application/problem+json")))]
pub async fn report_html(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<HtmlOnly>,
) -> ApiResult<Html<String>> {
    let r = dated(site_report(&st, &id)?);
    Ok(Html(crate::html::render(&st, &r)))
}

/// `GET /parcels/{id}/report.html`: the printable page of a parcel's check.
#[utoipa::path(get, path = "/parcels/{id}/report.html", tag = "review", params(("id" = String, Path, description = "A parcel id")),
    responses((status = 200, description = "The printable report of the parcel's check", content_type = "text/html"),
              (status = 404, description = "No such parcel", content_type = "application/problem+json")))]
pub async fn parcel_report_html(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<HtmlOnly>,
) -> ApiResult<Html<String>> {
    let Json(r) = parcel_waters(State(st.clone()), Path(id), Params(JsonOnly)).await?;
    Ok(Html(crate::html::render(&st, &r)))
}

/// The downstream reaches of a site's trace as GeoJSON, for highlighting on the map.
#[utoipa::path(get, path = "/sites/{id}/trace", tag = "review", params(("id" = String, Path, description = "A site id")),
    responses((status = 200, description = "The downstream path as GeoJSON", content_type = "application/geo+json"),
              (status = 404, description = "No such site", content_type = "application/problem+json")))]
pub async fn trace(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<JsonOnly>,
) -> ApiResult<Response> {
    let r = site_report(&st, &id)?;
    Ok(trace_geojson(&st, r))
}

pub(super) fn trace_geojson(st: &AppState, r: &Report) -> Response {
    let mut features = Vec::new();
    for layer in st.catalog.layers_of(Role::Flowlines) {
        for (order, reach) in r.downstream.iter().enumerate() {
            if let Some(i) = layer.position(&reach.id) {
                let mut f = feature_json(st, layer, i);
                f["properties"] = json!({
                    "id": reach.id, "name": reach.name, "order": order,
                    "distance_m": reach.distance_m, "length_m": reach.length_m,
                    "impaired": reach.impaired, "causes": reach.causes.join(", "),
                    "first_impaired": r.first_impaired.as_ref().is_some_and(|fi| fi.reach_id == reach.id),
                });
                features.push(f);
            }
        }
    }
    (
        [(header::CONTENT_TYPE, "application/geo+json")],
        json!({"type": "FeatureCollection", "features": features}).to_string(),
    )
        .into_response()
}

#[utoipa::path(get, path = "/parcels/{id}/receiving-waters", tag = "review",
    params(("id" = String, Path, description = "A parcel id")),
    responses((status = 200, description = "The review report of the parcel as a site", content_type = "application/json"),
              (status = 404, description = "No such parcel", content_type = "application/problem+json"),
              (status = 503, description = "The check did not finish in time", content_type = "application/problem+json")))]
pub async fn parcel_waters(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<JsonOnly>,
) -> ApiResult<Json<Report>> {
    let catalog = st.catalog.clone();
    let deadline = st.limits.work_timeout;
    let report = blocking(
        deadline,
        move || Ok(screening::check_parcel(&catalog, &id)?),
        || ApiError::Unavailable {
            detail: format!("the check did not finish within {}", secs(deadline)),
            retry_after_secs: None,
        },
    )
    .await?;
    Ok(Json(report))
}

/// `GET /search?q=`: sites, parcels and waters whose id, name or address matches; whole
/// words first, then word starts, then letters inside a word (so "Ley" finds Ley Creek before
/// Buckley Rd), and "Road" matches "Rd". Looked up in the catalog's search index, off the
/// async threads and under the work deadline.
#[utoipa::path(get, path = "/search", tag = "review",
    params(("q" = String, Query, description = "Part of a parcel id, address, site or water name; at most 200 characters")),
    responses((status = 200, description = "Matching parcels, sites and waters", content_type = "application/json"),
              (status = 400, description = "q is missing or longer than 200 characters", content_type = "application/problem+json"),
              (status = 503, description = "The search did not finish in time", content_type = "application/problem+json")))]
pub async fn search(
    State(st): State<AppState>,
    Params(SearchQuery { q }): Params<SearchQuery>,
) -> ApiResult<Json<Value>> {
    let deadline = st.limits.work_timeout;
    let results = blocking(
        deadline,
        move || Ok(outfall_core::search::find(&st.catalog, &st.reports, &q)),
        || ApiError::Unavailable {
            detail: format!("the search did not finish within {}", secs(deadline)),
            retry_after_secs: None,
        },
    )
    .await?;
    Ok(Json(json!({ "results": results })))
}
