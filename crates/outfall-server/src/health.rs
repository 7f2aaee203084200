//! What a balancer asks: `/healthz` (the process answers) and `/readyz` (it should be sent
//! requests: the data set is loaded, the registry answers, and it is not shutting down).
//! A server told to stop first answers "not ready" for a moment while it still serves, so
//! the balancer moves new requests elsewhere before the listener closes (see `outfall serve
//! --drain-secs`).

use crate::error::{ApiError, ApiResult};
use crate::params::{JsonOnly, Params};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long `/readyz` waits for the registry before calling it unreachable.
const REGISTRY_PROBE: Duration = Duration::from_secs(2);

/// Whether this server is on its way out.
#[derive(Default)]
pub struct Health {
    draining: AtomicBool,
}

impl Health {
    /// From now on `/readyz` answers 503; requests are still served.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }
}

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
