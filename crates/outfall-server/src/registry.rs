//! The registry's routes: create, change, retire and inspect sites, record rainfall, and
//! read a site's record, inspections and history. Writes need a bearer token whose role
//! allows them (401 without one, 403 with the wrong role); edits of an existing site need
//! `If-Match` with the version read (428 without, 412 when stale). Every write answers the
//! site's new report, checked by the same rules as `POST /check`.

use crate::access::{authorize, etag, if_match, live, off_thread, Peer};
use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::limits::{bounded, read_upload, Limits, Task};
use crate::params::{JsonOnly, ListQuery, Params};
use crate::service::timed_write;
use crate::state::AppState;
use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use outfall_core::bounds;
use outfall_core::record::{Inspection, InspectionQuery, RainfallDay};
use outfall_core::registry::{self, AccessRole, Caller, DisturbanceRecord, Live, SiteRecord};
use outfall_core::report::Report;
use serde::Deserialize;
use serde_json::{json, Map, Value};

fn record_json(st: &AppState, s: &SiteRecord) -> Value {
    let base = crate::features::base_url(st);
    json!({
        "site_id": s.site_id,
        "properties": s.properties,
        "version": s.version,
        "retired": s.retired,
        "submitted_by": s.submitted_by,
        "links": [
            {"rel": "report", "href": format!("{base}/sites/{}/report", s.site_id)},
            {"rel": "history", "href": format!("{base}/sites/{}/history", s.site_id)},
        ],
    })
}

/// A write's answer: the record (with its ETag) and the site's new report.
fn written(st: &AppState, status: StatusCode, s: &SiteRecord, report: Option<Report>) -> Response {
    let mut res = (
        status,
        Json(json!({"site": record_json(st, s), "report": report})),
    )
        .into_response();
    res.headers_mut().insert(header::ETAG, etag(s.version));
    res
}

fn find(live: &Live, id: &str) -> ApiResult<SiteRecord> {
    live.registry
        .sites()?
        .into_iter()
        .find(|s| s.site_id == id)
        .ok_or_else(|| ApiError::NotFound(format!("site '{id}' not found")))
}

/// The report of `id` in the newest snapshot (after `refresh`).
fn report_after(live: &Live, id: &str) -> ApiResult<Option<Report>> {
    Ok(live.refresh()?.reports.get(id).cloned())
}

/// `GET /sites/{id}`: the registry record, with its version as the ETag.
#[utoipa::path(get, path = "/sites/{id}", tag = "registry", params(("id" = String, Path, description = "A site id")),
    responses((status = 200, description = "The site's registry record; its version is the ETag", content_type = "application/json"),
              (status = 404, description = "No such site, or no registry", content_type = "application/problem+json")))]
pub async fn get(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<JsonOnly>,
) -> ApiResult<Response> {
    let live = live(&st).map_err(|_| {
        ApiError::NotFound(format!(
            "site '{id}' has no registry record (this server reads files)"
        ))
    })?;
    let site = off_thread(move || find(&live, &id)).await?;
    let mut res = Json(record_json(&st, &site)).into_response();
    res.headers_mut().insert(header::ETAG, etag(site.version));
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(res)
}

/// `POST /sites`: a new application. The body is a GeoJSON FeatureCollection of
/// disturbance polygons (`phase`, `start`, `end` properties) with a `site` member: `site_id`
/// (optional), `name`, `applicant`, `address`, `parcel_ids`, `outfall` ("lon,lat") and the
/// typed fields `PATCH` takes (`land_use`, `exemption_claims`, `common_plan`, ...), checked
/// the same way. Applicants may not set the status, an approval, or the officer's findings
/// and confirmations of an exemption.
#[utoipa::path(post, path = "/sites", tag = "registry",
    request_body(content = String, content_type = "application/geo+json", description = "A FeatureCollection of disturbance polygons (phase, start, end) with the application's fields"),
    responses((status = 201, description = "The new record and its report", content_type = "application/json"),
              (status = 401, description = "No or unknown bearer token", content_type = "application/problem+json"),
              (status = 403, description = "The token's role may not do this", content_type = "application/problem+json"),
              (status = 409, description = "The site id exists", content_type = "application/problem+json"),
              (status = 422, description = "Not a usable application", content_type = "application/problem+json")))]
pub async fn create(
    State(st): State<AppState>,
    headers: HeaderMap,
    peer: Peer,
    body: Body,
) -> ApiResult<Response> {
    let caller = authorize(&st, &headers, peer, &[AccessRole::Applicant]).await?;
    let live = live(&st)?;
    let body = read_upload(&headers, body, &st.limits).await?;
    let limits = st.limits;
    // An applicant over the cap is refused before the check is paid for, and again when the
    // site is stored (two applications may pass here together).
    let (applicant, reader) = (caller.clone(), live.clone());
    off_thread(move || pending_within(&reader, &applicant, limits.max_pending_submissions)).await?;
    let catalog = st.catalog.clone();
    let (applicant, checker) = (caller.clone(), live.clone());
    // Read and checked as `POST /check` is: its slots, its deadline, its budget; the
    // refresh after the write takes this check instead of making its own.
    let (site, disturbance) = bounded(
        &st.checks,
        &st.limits,
        Task::named("the application"),
        move |budget| {
            let (site, disturbance) = application(&catalog, &body, &applicant, &limits)?;
            budget.check("checking the site")?;
            checker.check_records(site.clone(), disturbance.clone(), budget)?;
            Ok((site, disturbance))
        },
    )
    .await?;
    let (site, report) = timed_write(
        &st,
        "create",
        off_thread(move || {
            let id = site.site_id.clone();
            let stored =
                pending_within(&live, &caller, limits.max_pending_submissions).and_then(|_| {
                    Ok(live
                        .registry
                        .create_site(&site, &disturbance, &caller.name)?)
                });
            let stored = stored.inspect_err(|_| live.forget_check(&id))?;
            let report = report_after(&live, &stored.site_id)?;
            Ok((stored, report))
        }),
    )
    .await?;
    let mut res = written(&st, StatusCode::CREATED, &site, report);
    if let Ok(loc) = HeaderValue::from_str(&format!("/sites/{}", site.site_id)) {
        res.headers_mut().insert(header::LOCATION, loc);
    }
    Ok(res)
}

/// Reads and checks an application (`registry::read_application`): the same upload checks
/// as `POST /check`, then the site's own fields. An applicant who sets what only the
/// officer records is refused (403) before any field is checked.
fn application(
    catalog: &outfall_core::Catalog,
    body: &[u8],
    caller: &Caller,
    limits: &Limits,
) -> ApiResult<(SiteRecord, Vec<DisturbanceRecord>)> {
    let bad = |e: outfall_core::Error| match e {
        outfall_core::Error::Input(m) => ApiError::Unprocessable(format!("application: {m}")),
        other => other.into(),
    };
    let app = registry::read_application(body, &limits.upload()).map_err(bad)?;
    if let Some(k) = app.forbidden_field(caller.role, &catalog.manifest.words) {
        return Err(ApiError::Forbidden(format!(
            "the role {} may not state '{k}' (or not this value of it); only the officer records it (docs/site-record.md, who may state which fact)", caller.role.as_str()
        )));
    }
    // The submission belongs to the token's id: a name can be given again, an id cannot.
    app.into_records(catalog, &caller.token_id).map_err(bad)
}

/// The applicant's pending applications (planned, not retired) under the cap, so that
/// one account cannot fill the registry (and the start-up check) with sites.
fn pending_within(live: &Live, caller: &Caller, max_pending: usize) -> ApiResult<()> {
    if caller.role == AccessRole::Officer {
        return Ok(());
    }
    let pending = live
        .registry
        .sites()?
        .iter()
        .filter(|s| s.retired.is_none() && s.submitted_by.as_deref() == Some(&caller.token_id))
        .filter(|s| s.properties.get("status").and_then(Value::as_str) == Some("planned"))
        .count();
    if pending >= max_pending {
        return Err(ApiError::Conflict(format!(
            "{pending} applications of this applicant are pending; at most {max_pending} may be (max_pending_submissions) until the officer decides one"
        )));
    }
    Ok(())
}

/// `PATCH /sites/{id}` (officer): the typed fields of the site record (docs/site-record.md):
/// `status` (a status code or a word of the status vocabulary, stored as its code),
/// `swppp_approval` `{decision, date, reference, body}` or null, `exemption_claims`
/// `[{code, <evidence>, verified_by, verified_on}]`, `land_use`, `common_plan`,
/// `common_plan_acres`, the (5) evidence fields and the text columns. A value no vocabulary
/// knows is refused (422) naming the field and the values it allows.
#[utoipa::path(patch, path = "/sites/{id}", tag = "registry", params(("id" = String, Path, description = "A site id"), ("If-Match" = String, Header, description = "The ETag of the version being edited")),
    request_body(content = String, content_type = "application/json", description = "The fields to change"),
    responses((status = 200, description = "The new record and its report", content_type = "application/json"),
              (status = 401, description = "No or unknown bearer token", content_type = "application/problem+json"),
              (status = 403, description = "The token's role may not do this", content_type = "application/problem+json"),
              (status = 412, description = "Someone else edited the site since that ETag", content_type = "application/problem+json"),
              (status = 422, description = "A field or value the site record does not take; the detail names the field and the allowed values", content_type = "application/problem+json"),
              (status = 428, description = "If-Match is missing", content_type = "application/problem+json")))]
pub async fn patch(
    State(st): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    peer: Peer,
    body: Body,
) -> ApiResult<Response> {
    let caller = authorize(&st, &headers, peer, &[]).await?;
    let version = if_match(&headers)?;
    let live = live(&st)?;
    let body = read_upload(&headers, body, &st.limits).await?;
    let change: Map<String, Value> = serde_json::from_slice(&body)
        .map_err(|e| ApiError::Unprocessable(format!("the change must be a JSON object: {e}")))?;
    let catalog = st.catalog.clone();
    let (checker, site_id, edit, vocabulary) =
        (live.clone(), id.clone(), change.clone(), catalog.clone());
    // The edited site is checked in a check slot under the work deadline before it is
    // stored; the refresh after the write takes that check.
    bounded(
        &st.checks,
        &st.limits,
        Task::named("the edit"),
        move |budget| {
            let words = &vocabulary.manifest.words;
            Ok(checker.check_change(&site_id, version, &edit, words, budget)?)
        },
    )
    .await?;
    let (site, report) = timed_write(
        &st,
        "patch",
        off_thread(move || {
            let site = live
                .registry
                .update_site(&id, version, &change, &catalog.manifest.words, &caller.name)
                .inspect_err(|_| live.forget_check(&id))?;
            let report = report_after(&live, &id)?;
            Ok((site, report))
        }),
    )
    .await?;
    Ok(written(&st, StatusCode::OK, &site, report))
}

/// `DELETE /sites/{id}` (officer): retires the site; its row and history are kept.
#[utoipa::path(delete, path = "/sites/{id}", tag = "registry", params(("id" = String, Path, description = "A site id"), ("If-Match" = String, Header, description = "The ETag of the version being retired")),
    responses((status = 200, description = "The retired record", content_type = "application/json"),
              (status = 401, description = "No or unknown bearer token", content_type = "application/problem+json"),
              (status = 403, description = "The token's role may not do this", content_type = "application/problem+json"),
              (status = 412, description = "Someone else edited the site since that ETag", content_type = "application/problem+json"),
              (status = 428, description = "If-Match is missing", content_type = "application/problem+json")))]
pub async fn retire(
    State(st): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    peer: Peer,
) -> ApiResult<Response> {
    let caller = authorize(&st, &headers, peer, &[]).await?;
    let version = if_match(&headers)?;
    let live = live(&st)?;
    let site = timed_write(
        &st,
        "retire",
        off_thread(move || {
            let site = live.registry.retire_site(&id, version, &caller.name)?;
            live.refresh()?;
            Ok(site)
        }),
    )
    .await?;
    Ok(written(&st, StatusCode::OK, &site, None))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InspectionBody {
    // Dates as text, read by the one parser of every reader (`bounds::parse_day`), so a
    // refusal names its field and no reader later meets a day it cannot read.
    date: String,
    inspector: Option<String>,
    findings: String,
    #[serde(default)]
    corrective_actions: String,
    corrective_due: Option<String>,
}

/// `POST /sites/{id}/inspections` (inspector, officer): one logbook entry.
#[utoipa::path(post, path = "/sites/{id}/inspections", tag = "registry", params(("id" = String, Path, description = "A site id")),
    request_body(content = String, content_type = "application/json", description = "date, inspector, findings, corrective_actions, corrective_due"),
    responses((status = 201, description = "The recorded inspection", content_type = "application/json"),
              (status = 401, description = "No or unknown bearer token", content_type = "application/problem+json"),
              (status = 403, description = "The token's role may not do this", content_type = "application/problem+json"),
              (status = 422, description = "Not a usable inspection", content_type = "application/problem+json")))]
pub async fn inspect(
    State(st): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    peer: Peer,
    body: Body,
) -> ApiResult<Response> {
    let caller = authorize(&st, &headers, peer, &[AccessRole::Inspector]).await?;
    let live = live(&st)?;
    let body = read_upload(&headers, body, &st.limits).await?;
    let b: InspectionBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::Unprocessable(format!("inspection: {e}")))?;
    let date = bounds::parse_day("inspection: date", &b.date)?;
    let corrective_due = b
        .corrective_due
        .as_deref()
        .map(|d| bounds::parse_day("inspection: corrective_due", d))
        .transpose()?;
    let today = chrono::Utc::now().date_naive();
    if date > today + chrono::Days::new(1) {
        return Err(ApiError::Unprocessable(format!(
            "inspection: date {date} is in the future"
        )));
    }
    if b.findings.trim().is_empty() {
        return Err(ApiError::Unprocessable(
            "inspection: findings are required".into(),
        ));
    }
    let inspection = Inspection {
        site_id: id.clone(),
        date,
        inspector: b
            .inspector
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| caller.name.clone()),
        findings: b.findings.trim().to_string(),
        corrective_actions: b.corrective_actions.trim().to_string(),
        corrective_due,
    };
    bounds::check_inspection(&inspection)?;
    let (site, report, inspection) = timed_write(
        &st,
        "inspect",
        off_thread(move || {
            let site = find(&live, &id)?;
            if site.retired.is_some() {
                return Err(ApiError::Unprocessable(format!("site '{id}' is retired")));
            }
            live.registry.add_inspection(&inspection, &caller.name)?;
            let report = live.snapshot().reports.get(&id).cloned();
            Ok((site, report, inspection))
        }),
    )
    .await?;
    let mut res = (
        StatusCode::CREATED,
        Json(json!({"site": record_json(&st, &site), "report": report, "inspection": inspection})),
    )
        .into_response();
    res.headers_mut().insert(header::ETAG, etag(site.version));
    Ok(res)
}

/// `GET /sites/{id}/inspections?limit=&offset=`: a page of the site's logbook, oldest
/// first, read by site in the store; rows that cannot be read are named in `problems`.
#[utoipa::path(get, path = "/sites/{id}/inspections", tag = "registry",
    params(("id" = String, Path, description = "A site id"),
           ("limit" = Option<u32>, Query, description = "Inspections per page: 1..10000, default 100"),
           ("offset" = Option<u32>, Query, description = "Inspections to skip")),
    responses((status = 200, description = "A page of the site's inspection logbook, oldest first", content_type = "application/json")))]
pub async fn inspections(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Params(page): Params<ListQuery>,
) -> ApiResult<Json<Value>> {
    let live = live(&st)?;
    let (limit, offset) = (page.limit, page.offset);
    let site = id.clone();
    let list = off_thread(move || {
        Ok(live.registry.inspections(&InspectionQuery {
            site_id: Some(&site),
            limit: Some(limit),
            offset,
        })?)
    })
    .await?;
    let base = crate::features::base_url(&st);
    let href = |off: usize| format!("{base}/sites/{id}/inspections?limit={limit}&offset={off}");
    let mut links = vec![json!({"rel": "self", "href": href(offset)})];
    // A full page may have more after it; a short one is the last.
    if list.rows.len() + list.problems.len() == limit {
        links.push(json!({"rel": "next", "href": href(offset + limit)}));
    }
    if offset > 0 {
        links.push(json!({"rel": "prev", "href": href(offset.saturating_sub(limit))}));
    }
    Ok(Json(json!({
        "inspections": list.rows,
        "problems": list.problems,
        "links": links,
    })))
}

/// `GET /sites/{id}/history`: who changed what, when, from what to what.
#[utoipa::path(get, path = "/sites/{id}/history", tag = "registry", params(("id" = String, Path, description = "A site id")),
    responses((status = 200, description = "The append-only audit trail of the site", content_type = "application/json")))]
pub async fn history(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<JsonOnly>,
) -> ApiResult<Response> {
    let live = live(&st)?;
    let entries = off_thread(move || {
        let entries = live.registry.history(&id)?;
        if entries.is_empty() {
            return Err(ApiError::NotFound(format!("site '{id}' has no history")));
        }
        Ok(entries)
    })
    .await?;
    let mut res = Json(json!({ "history": entries })).into_response();
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(res)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RainfallBody {
    date: String,
    rain_in: f64,
    source: Option<String>,
}

/// `POST /rainfall` (officer): the rain of one day, entered by hand.
#[utoipa::path(post, path = "/rainfall", tag = "registry",
    request_body(content = String, content_type = "application/json", description = "date and rain_in"),
    responses((status = 201, description = "The recorded day", content_type = "application/json"),
              (status = 401, description = "No or unknown bearer token", content_type = "application/problem+json"),
              (status = 403, description = "The token's role may not do this", content_type = "application/problem+json"),
              (status = 422, description = "Not a usable entry", content_type = "application/problem+json")))]
pub async fn add_rainfall(
    State(st): State<AppState>,
    headers: HeaderMap,
    peer: Peer,
    body: Body,
) -> ApiResult<Response> {
    let caller = authorize(&st, &headers, peer, &[]).await?;
    let live = live(&st)?;
    let body = read_upload(&headers, body, &st.limits).await?;
    let b: RainfallBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::Unprocessable(format!("rainfall: {e}")))?;
    if !(b.rain_in.is_finite() && (0.0..=40.0).contains(&b.rain_in)) {
        return Err(ApiError::Unprocessable(format!(
            "rainfall: rain_in {} must be between 0 and 40 inches",
            b.rain_in
        )));
    }
    let day = RainfallDay {
        date: bounds::parse_day("rainfall: date", &b.date)?,
        rain_in: b.rain_in,
        source: b
            .source
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| format!("entered by {}", caller.name)),
    };
    bounds::check_rainfall(&day)?;
    let stored = day.clone();
    timed_write(
        &st,
        "rainfall",
        off_thread(move || Ok(live.registry.add_rainfall(&stored, &caller.name)?)),
    )
    .await?;
    Ok((StatusCode::CREATED, Json(json!({ "rainfall": day }))).into_response())
}

/// `GET /rainfall`: the rainfall entered by hand.
#[utoipa::path(get, path = "/rainfall", tag = "registry",
    responses((status = 200, description = "The rainfall entered by hand", content_type = "application/json")))]
pub async fn rainfall(State(st): State<AppState>, _: Params<JsonOnly>) -> ApiResult<Json<Value>> {
    let live = live(&st)?;
    let days = off_thread(move || Ok(live.registry.rainfall()?)).await?;
    Ok(Json(
        json!({ "rainfall": days.rows, "problems": days.problems }),
    ))
}

/// `GET /auth/whoami`: the token's holder and role (the viewer's login check).
#[utoipa::path(get, path = "/auth/whoami", tag = "registry",
    responses((status = 200, description = "The token's holder and role", content_type = "application/json"),
              (status = 401, description = "No or unknown bearer token", content_type = "application/problem+json")))]
pub async fn whoami(
    State(st): State<AppState>,
    headers: HeaderMap,
    peer: Peer,
    _: Params<JsonOnly>,
) -> ApiResult<Json<Caller>> {
    Ok(Json(
        authorize(
            &st,
            &headers,
            peer,
            &[AccessRole::Applicant, AccessRole::Inspector],
        )
        .await?,
    ))
}

/// `GET /submissions` (applicant, officer): the applications the caller submitted (an
/// officer sees every submitted application).
#[utoipa::path(get, path = "/submissions", tag = "registry",
    responses((status = 200, description = "The applications the caller submitted", content_type = "application/json"),
              (status = 401, description = "No or unknown bearer token", content_type = "application/problem+json"),
              (status = 403, description = "The token's role may not do this", content_type = "application/problem+json")))]
pub async fn submissions(
    State(st): State<AppState>,
    headers: HeaderMap,
    peer: Peer,
    _: Params<JsonOnly>,
) -> ApiResult<Json<Value>> {
    let caller = authorize(&st, &headers, peer, &[AccessRole::Applicant]).await?;
    let live = live(&st)?;
    let st2 = st.clone();
    let list = off_thread(move || {
        Ok(live
            .registry
            .sites()?
            .into_iter()
            .filter(|s| match &s.submitted_by {
                Some(by) => caller.role == AccessRole::Officer || *by == caller.token_id,
                None => false,
            })
            .map(|s| record_json(&st2, &s))
            .collect::<Vec<_>>())
    })
    .await?;
    Ok(Json(json!({ "submissions": list })))
}
