//! The service's own endpoints, for balancers and operators: `/healthz` (the process
//! answers), `/readyz` (it should be sent requests: the data set is loaded, the registry
//! answers, and it is not shutting down) and `/metrics`; and the middleware and helper that
//! feed the metrics. The types they read (`Health`, `Metrics`) live below the app state, in
//! `health.rs` and `metrics.rs`.

use crate::error::{ApiError, ApiResult};
use crate::params::{JsonOnly, MetricsQuery, Params};
use crate::state::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::time::{Duration, Instant};

/// How long `/readyz` waits for the registry before calling it unreachable.
const REGISTRY_PROBE: Duration = Duration::from_secs(2);

/// `GET /healthz`: 200 while the process answers at all.
#[utoipa::path(get, path = "/healthz", tag = "service",
    responses((status = 200, description = "The process is alive", content_type = "application/json")))]
pub async fn healthz(_: Params<JsonOnly>) -> Response {
    no_store(StatusCode::OK, json!({"status": "alive"}))
}

/// `GET /readyz`: 200 when the data set is loaded (always, once the server listens), the
/// registry answers within two seconds, and the server is not draining; else 503 saying which.
#[utoipa::path(get, path = "/readyz", tag = "service",
    responses((status = 200, description = "Ready for requests", content_type = "application/json"),
              (status = 503, description = "Draining, or the registry does not answer", content_type = "application/json")))]
pub async fn readyz(State(st): State<AppState>, _: Params<JsonOnly>) -> ApiResult<Response> {
    // What the registry answered, and whether that lets the server take requests.
    let (registry, reachable) = match &st.registry {
        None => ("none (the file layers, read-only)", true),
        Some(live) => {
            let live = live.clone();
            let probe = tokio::task::spawn_blocking(move || live.registry.change_stamp());
            match tokio::time::timeout(REGISTRY_PROBE, probe).await {
                Ok(Ok(Ok(_))) => ("reachable", true),
                Ok(Ok(Err(e))) => {
                    tracing::warn!(error = %e, "readiness: the registry does not answer");
                    ("unreachable", false)
                }
                Ok(Err(e)) => return Err(ApiError::Internal(format!("readiness probe: {e}"))),
                Err(_) => ("no answer within 2 s", false),
            }
        }
    };
    let draining = st.health.is_draining();
    let ready = !draining && reachable;
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    Ok(no_store(
        status,
        json!({
            "ready": ready,
            "data": "loaded",
            "sources": st.catalog.sources().len(),
            "sites_checked": st.reports.len(),
            "registry": registry,
            "draining": draining,
        }),
    ))
}

fn no_store(status: StatusCode, body: serde_json::Value) -> Response {
    (status, [(header::CACHE_CONTROL, "no-store")], Json(body)).into_response()
}

/// Runs one registry write and times it under `op`.
pub(crate) async fn timed_write<T>(
    st: &AppState,
    op: &str,
    write: impl std::future::Future<Output = ApiResult<T>>,
) -> ApiResult<T> {
    let started = Instant::now();
    let out = write.await;
    st.metrics.observe_write(op, started.elapsed());
    out
}

/// Counts and times every routed request under its route's pattern.
pub async fn track(State(st): State<AppState>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |m| m.as_str())
        .to_string();
    let method = req.method().to_string();
    let started = Instant::now();
    let res = next.run(req).await;
    let took = started.elapsed().as_secs_f64();
    let status = res.status().as_u16().to_string();
    st.metrics.observe_request(method, route, status, took);
    res
}

/// `GET /metrics`: every metric in the Prometheus text format.
#[utoipa::path(get, path = "/metrics", tag = "service",
    responses((status = 200, description = "The metrics, Prometheus text format", content_type = "application/openmetrics-text")))]
pub async fn metrics(State(st): State<AppState>, _: Params<MetricsQuery>) -> ApiResult<Response> {
    let generation = st
        .registry
        .as_ref()
        .map_or(0, |live| live.snapshot().generation);
    let body = st.metrics.encode(generation)?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            ),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response())
}
