//! The screening API: site lists, reports, traces, a parcel's receiving waters, ad-hoc checks
//! of uploaded polygons, and search.

use super::extract::{Path, Query};
use super::features::feature_json;
use super::limits::{blocking, secs};
use super::{ApiError, ApiResult, AppState};
use crate::config::Role;
use crate::report::Report;
use crate::screening;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use std::collections::HashMap;

fn site_report<'a>(st: &'a AppState, id: &str) -> ApiResult<&'a Report> {
    st.reports
        .get(id)
        .ok_or_else(|| ApiError::NotFound(format!("site '{id}' not found")))
}

pub async fn list(
    State(st): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
) -> Json<Value> {
    let want = q.get("status").map(|s| s.to_ascii_lowercase());
    let sites: Vec<Value> = st
        .catalog
        .sites
        .iter()
        .filter_map(|s| st.reports.get(&s.id))
        .filter(|r| {
            want.as_deref().is_none_or(|w| {
                r.site
                    .status
                    .as_deref()
                    .is_some_and(|s| s.eq_ignore_ascii_case(w))
            })
        })
        .map(|r| {
            json!({
                "id": r.site.id,
                "name": r.site.name,
                "status": r.site.status,
                "address": r.site.address,
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

pub async fn report(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Report>> {
    Ok(Json(dated(site_report(&st, &id)?)))
}

/// `GET /rules`: the rulebook with this data set's clause labels and settings.
pub async fn rules(State(st): State<AppState>) -> Json<Value> {
    let m = &st.catalog.manifest;
    Json(json!({
        "law": m.clauses.law,
        "rules": crate::law::rulebook(&m.rules, &m.clauses),
    }))
}

pub async fn report_html(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Html<String>> {
    let r = dated(site_report(&st, &id)?);
    Ok(Html(super::html::render(&st, &r)))
}

/// The downstream reaches of a site's trace as GeoJSON, for highlighting on the map.
pub async fn trace(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult<Response> {
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

pub async fn parcel_waters(
    State(st): State<AppState>,
    Path(id): Path<String>,
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

pub async fn search(
    State(st): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let query = q
        .get("q")
        .map(|s| s.trim().to_lowercase())
        .unwrap_or_default();
    if query.is_empty() {
        return Err(ApiError::BadRequest("q is required".into()));
    }
    const MAX: usize = 25;
    let mut results: Vec<Value> = Vec::new();
    let bbox = |g: &geo_types::Geometry<f64>| {
        geo::BoundingRect::bounding_rect(g)
            .map(|r| vec![r.min().x, r.min().y, r.max().x, r.max().y])
    };
    for r in st.reports.values() {
        let hay = format!(
            "{} {} {}",
            r.site.id,
            r.site.name.as_deref().unwrap_or(""),
            r.site.address.as_deref().unwrap_or("")
        )
        .to_lowercase();
        if hay.contains(&query) {
            results.push(json!({"kind": "site", "id": r.site.id, "label": format!("{} — {}", r.site.id, r.site.name.as_deref().unwrap_or("")), "bbox": r.site.bbox}));
        }
    }
    'parcels: for parcels in st.catalog.layers_of(Role::Parcels) {
        for f in &parcels.features {
            let name = parcels.name_of(f).unwrap_or_default();
            if f.id.to_lowercase().contains(&query) || name.to_lowercase().contains(&query) {
                results.push(json!({"kind": "parcel", "id": f.id, "label": format!("{} {}", f.id, name), "bbox": bbox(&f.geometry)}));
                if results.len() >= MAX {
                    break 'parcels;
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    for layer in st
        .catalog
        .layers
        .iter()
        .filter(|l| matches!(l.config.role, Role::Flowlines | Role::Waterbodies))
    {
        for f in &layer.features {
            if let Some(name) = layer.name_of(f) {
                if name.to_lowercase().contains(&query) && seen.insert(name.clone()) {
                    results.push(json!({"kind": "water", "id": f.id, "label": name, "bbox": bbox(&f.geometry)}));
                }
            }
        }
    }
    results.truncate(MAX);
    Ok(Json(json!({ "results": results })))
}
