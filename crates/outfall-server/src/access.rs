//! Who may write to the registry and against which version: the bearer token's caller and
//! role (401 without a valid token, 403 with the wrong role; the argon2 work bounded by
//! `gate`), the version `If-Match` names
//! (428 without it), and the registry's blocking work run off the async threads.

use crate::error::{ApiError, ApiResult};
use crate::gate::{AuthGate, Refusal};
use crate::state::AppState;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue};
use outfall_core::registry::{token, AccessRole, Caller, Live};
use std::net::{IpAddr, SocketAddr};
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

/// The TCP peer's address, when the request came through `serve` (tests that call the router
/// directly have none, and share one count of failures). The client the gate counts is this
/// peer, or whom a trusted proxy names (`client`).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let addr = parts.extensions.get::<ConnectInfo<SocketAddr>>();
        Ok(Peer(addr.map(|c| c.0.ip())))
    }
}

/// The bearer token of the request (never logged or echoed). The answer then depends on it,
/// and no cache may keep it (`crate::reads_token`).
fn bearer(headers: &HeaderMap) -> ApiResult<String> {
    crate::reads_token();
    headers
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
        })
}

/// The caller named by the `Authorization: Bearer` token, who must hold one of `roles`
/// (the officer may do everything).
pub(super) async fn authorize(
    st: &AppState,
    headers: &HeaderMap,
    peer: Peer,
    roles: &[AccessRole],
) -> ApiResult<Caller> {
    let live = live(st)?;
    let token = bearer(headers)?;
    let client = st.trusted_proxies.client(peer.0, headers);
    let caller = authenticate(st, live, token, client).await?;
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

/// Checks the token within the gate's bounds (`gate`): a token verified a moment ago costs
/// one row read (its revocation and expiry, seen at once); otherwise a client or a token id
/// over its failures gets 429 (unless this very token was verified within the holder's
/// time) and, when every argon2 slot is busy, 503, before any argon2 work.
async fn authenticate(
    st: &AppState,
    live: Arc<Live>,
    token: String,
    client: Option<IpAddr>,
) -> ApiResult<Caller> {
    let gate = st.auth.clone();
    let key = AuthGate::key(&token);
    let token_id = token::id_of(&token).map(String::from);
    if let Some(v) = gate.cached(&key) {
        let (id, reg) = (v.caller.token_id.clone(), live.clone());
        let record = off_thread(move || Ok(reg.registry.token(&id)?)).await?;
        match token::recheck(record, &v.hash) {
            Some(Ok(caller)) => return Ok(caller),
            Some(Err(lapsed)) => {
                gate.forget(&key);
                return Err(ApiError::Unauthorized(lapsed.to_string()));
            }
            // Rotated since: the secret is checked against the new hash.
            None => gate.forget(&key),
        }
    }
    if !gate.is_holder(&key) {
        if let Some(refusal) = gate.refused(client, token_id.as_deref()) {
            return Err(too_many(refusal));
        }
    }
    let slot = gate.slot().ok_or_else(|| ApiError::Unavailable {
        detail: "every token-checking slot is busy; try again in a moment".into(),
        retry_after_secs: Some(1),
    })?;
    let checked = off_thread(move || {
        let _slot = slot;
        Ok(token::check(live.registry.as_ref(), &token)?)
    })
    .await?;
    match (checked.caller, checked.matched_hash) {
        (Some(caller), Some(hash)) => {
            gate.remember(key, caller.clone(), hash);
            Ok(caller)
        }
        _ => {
            // A right secret that lapsed proves its holder: not counted as a guess.
            if checked.lapsed.is_none() {
                gate.failed(client, token_id.as_deref());
            }
            let why = checked.lapsed.map(|l| l.to_string());
            Err(ApiError::Unauthorized(
                why.unwrap_or_else(|| "the access token is not valid".into()),
            ))
        }
    }
}

fn too_many(refusal: Refusal) -> ApiError {
    let (whose, secs) = match refusal {
        Refusal::Client(secs) => ("from this address", secs),
        Refusal::TokenId(secs) => ("of this token id", secs),
    };
    ApiError::TooManyRequests {
        detail: format!("too many failed token checks {whose}; try again in {secs} s"),
        retry_after_secs: secs,
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
