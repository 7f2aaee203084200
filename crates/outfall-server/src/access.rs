//! Who may write to the registry and against which version: the bearer token's caller and
//! role (401 without a valid token, 403 with the wrong role), the version `If-Match` names
//! (428 without it), and the registry's blocking work run off the async threads.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::http::{header, HeaderMap, HeaderValue};
use outfall_core::registry::{token, AccessRole, Caller, Live};
use std::sync::Arc;

pub(super) fn live(st: &AppState) -> ApiResult<Arc<Live>> {
    st.registry.clone().ok_or_else(|| {
        ApiError::MethodNotAllowed(
            "this server reads its sites from files, read-only; serve with a registry to edit them"
                .into(),
        )
    })
}

/// Runs registry work off the async threads. Not cut by a deadline: a write that started
/// finishes, so what is acknowledged is exactly what was stored.
pub(super) async fn off_thread<T: Send + 'static>(
    work: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::Internal(format!("registry task failed: {e}")))?
}

/// The caller named by the `Authorization: Bearer` token (never logged or echoed), who
/// must hold one of `roles`.
pub(super) async fn authorize(
    st: &AppState,
    headers: &HeaderMap,
    roles: &[AccessRole],
) -> ApiResult<Caller> {
    let live = live(st)?;
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(|t| t.trim().to_string())
        .ok_or_else(|| {
            ApiError::Unauthorized(
                "this write needs an access token: Authorization: Bearer <token>".into(),
            )
        })?;
    let caller = off_thread(move || Ok(token::verify(live.registry.as_ref(), &token)?))
        .await?
        .ok_or_else(|| ApiError::Unauthorized("the access token is not valid".into()))?;
    if caller.role == AccessRole::Officer || roles.contains(&caller.role) {
        Ok(caller)
    } else {
        Err(ApiError::Forbidden(format!(
            "the role {} may not do this; it needs {}",
            caller.role.as_str(),
            roles
                .iter()
                .chain([AccessRole::Officer].iter())
                .map(|r| r.as_str())
                .collect::<Vec<_>>()
                .join(" or ")
        )))
    }
}

/// The version `If-Match` names: `"7"`, `W/"7"` or `7`.
pub(super) fn if_match(headers: &HeaderMap) -> ApiResult<i64> {
    let raw = headers
        .get(header::IF_MATCH)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| {
            ApiError::PreconditionRequired(
                "an edit needs If-Match with the site's ETag, so it cannot undo someone else's edit; GET /sites/{id} gives it".into(),
            )
        })?;
    raw.trim()
        .trim_start_matches("W/")
        .trim_matches('"')
        .parse()
        .map_err(|_| ApiError::BadRequest(format!("If-Match '{raw}' is not a site ETag")))
}

pub(super) fn etag(version: i64) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{version}\"")).unwrap_or(HeaderValue::from_static("\"0\""))
}
