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
    st.reports
        .get(id)
        .ok_or_else(|| ApiError::NotFound(format!("site '{id}' not found")))
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
/// Buckley Rd), and "Road" matches "Rd".
#[utoipa::path(get, path = "/search", tag = "review",
    params(("q" = String, Query, description = "Part of a parcel id, address, site or water name")),
    responses((status = 200, description = "Matching parcels, sites and waters", content_type = "application/json")))]
pub async fn search(
    State(st): State<AppState>,
    Params(SearchQuery { q: query }): Params<SearchQuery>,
) -> ApiResult<Json<Value>> {
    use outfall_core::search::rank;
    const MAX: usize = 25;
    // (how well, kind order, label, result)
    let mut hits: Vec<(outfall_core::search::Match, u8, String, Value)> = Vec::new();
    let bbox = |g: &geo_types::Geometry<f64>| {
        geo::BoundingRect::bounding_rect(g)
            .map(|r| vec![r.min().x, r.min().y, r.max().x, r.max().y])
    };
    let best = |texts: &[&str]| texts.iter().filter_map(|t| rank(&query, t)).min();
    // A street in the query finds a site by its own address, not by a name naming a street.
    let street = outfall_core::search::names_street(&query);
    for r in st.reports.values() {
        let name = r.site.name().unwrap_or("");
        let address = r.site.address().unwrap_or("");
        let texts: &[&str] = if street {
            &[address]
        } else {
            &[&r.site.id, name, address]
        };
        if let Some(m) = best(texts) {
            let label = format!("{} — {}", r.site.id, name);
            hits.push((
                m,
                0,
                label.clone(),
                json!({"kind": "site", "id": r.site.id, "label": label, "bbox": r.site.bbox}),
            ));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for layer in st
        .catalog
        .layers
        .iter()
        .filter(|l| matches!(l.config.role, Role::Flowlines | Role::Waterbodies))
    {
        for f in layer.features.iter() {
            if let Some(name) = layer.name_of(f) {
                if let Some(m) = rank(&query, &name) {
                    if seen.insert(name.clone()) {
                        hits.push((m, 1, name.clone(), json!({"kind": "water", "id": f.id, "label": name, "bbox": bbox(&f.geometry)})));
                    }
                }
            }
            // A PWL ID ("0702-0001") finds the segment's water by the layer's join field.
            let pwl = layer.text(f, layer.config.join_field.as_deref());
            if let Some(pwl) =
                pwl.filter(|p| rank(&query, p) == Some(outfall_core::search::Match::Exact))
            {
                if seen.insert(format!("pwl {pwl}")) {
                    let label = format!("PWL {pwl} — {}", layer.name_of(f).unwrap_or_default());
                    hits.push((outfall_core::search::Match::Exact, 1, label.clone(), json!({"kind": "water", "id": f.id, "label": label, "pwl_id": pwl, "bbox": bbox(&f.geometry)})));
                }
            }
        }
    }
    for parcels in st.catalog.layers_of(Role::Parcels) {
        for f in parcels.features.iter() {
            let name = parcels.name_of(f).unwrap_or_default();
            let by_id = outfall_core::search::parcel_rank(&query, &f.id);
            if let Some(m) = best(&[&f.id, &name]).into_iter().chain(by_id).min() {
                let label = format!("{} {}", f.id, name);
                hits.push((m, 2, label.clone(), json!({"kind": "parcel", "id": f.id, "label": label, "bbox": bbox(&f.geometry)})));
            }
        }
    }
    hits.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
    let results: Vec<Value> = hits.into_iter().take(MAX).map(|h| h.3).collect();
    Ok(Json(json!({ "results": results })))
}
