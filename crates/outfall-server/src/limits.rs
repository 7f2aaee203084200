//! What keeps one request from pinning a core or holding a connection: CPU work runs on
//! tokio's blocking pool under a deadline, uploads are read under a deadline and a size
//! limit, and an oversized upload is drained (boundedly) so the client reads its 413.

use crate::error::{ApiError, ApiResult};
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap};
use http_body_util::BodyExt;
use outfall_core::budget::Budget;
use outfall_core::load::UploadLimits;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// Most coordinates (vertices, over every ring and feature) accepted in one uploaded check.
pub const MAX_UPLOAD_VERTICES: usize = UploadLimits::DEFAULT.max_vertices;
/// After refusing an upload, the server reads and discards at most this much of its body
/// (or for at most `DRAIN_MAX_TIME`) so that a client that sends its whole body before
/// reading still reads the answer instead of a reset connection.
pub const DRAIN_MAX_BYTES: u64 = 128 * 1024 * 1024;
pub const DRAIN_MAX_TIME: Duration = Duration::from_secs(2);

/// Per-request limits, set by `outfall serve` flags.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deadline of CPU work: checks, tile encoding, items pages (`--check-timeout-secs`).
    pub work_timeout: Duration,
    /// Deadline for an upload's body to arrive (`--body-timeout-secs`).
    pub body_timeout: Duration,
    /// Most `POST /check` computing at once (`--max-checks`); more answer 503. Writes
    /// that check a site (`POST /sites`, `PATCH`) share these slots.
    pub max_concurrent_checks: usize,
    /// Most applications one applicant may have pending (planned, not retired); one more
    /// is refused (409) until the officer decides one.
    pub max_pending_submissions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            work_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(30),
            max_concurrent_checks: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            max_pending_submissions: 20,
        }
    }
}

impl Limits {
    /// What one upload may hold, as the core's readers take it.
    pub fn upload(&self) -> UploadLimits {
        UploadLimits::DEFAULT
    }
}

/// "5 s", "0.3 s".
pub fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// Runs CPU work on the blocking pool under `deadline`. Past the deadline the answer is
/// `on_timeout()`; the work cannot be interrupted, so it finishes in the background and its
/// result is dropped with the task (whatever it holds, such as a concurrency permit, is
/// released then). A panic in the work is a logged 500, never a crash.
pub(super) async fn blocking<T, F>(
    deadline: Duration,
    work: F,
    on_timeout: impl FnOnce() -> ApiError,
) -> ApiResult<T>
where
    F: FnOnce() -> ApiResult<T> + Send + 'static,
    T: Send + 'static,
{
    let handle = tokio::task::spawn_blocking(work);
    match tokio::time::timeout(deadline, handle).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => Err(ApiError::Internal(format!("blocking task failed: {e}"))),
        Err(_) => Err(on_timeout()),
    }
}

/// Runs the CPU work of a write (reading and checking a site) as `POST /check` runs its
/// check: in one of the `checks` slots (503 with Retry-After when none is free), under the
/// work deadline, with a `Budget` that the work's loops poll and that is cancelled when the
/// deadline answers, so abandoned work stops at its next step.
pub(super) async fn bounded<T, F>(
    checks: &Arc<Semaphore>,
    limits: &Limits,
    what: &'static str,
    work: F,
) -> ApiResult<T>
where
    F: FnOnce(&Budget) -> ApiResult<T> + Send + 'static,
    T: Send + 'static,
{
    let permit = checks
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::Unavailable {
            detail: format!(
                "the server is computing its limit of {} checks at once; try again shortly",
                limits.max_concurrent_checks
            ),
            retry_after_secs: Some(1),
        })?;
    let deadline = limits.work_timeout;
    let budget = Budget::within(deadline);
    let cancel = budget.clone();
    blocking(
        deadline,
        move || {
            let _permit = permit;
            let _entered = budget.enter();
            let out = work(&budget)?;
            budget.check("answering")?;
            Ok(out)
        },
        move || {
            cancel.cancel();
            ApiError::Unavailable {
                detail: format!("{what} did not finish within {}", secs(deadline)),
                retry_after_secs: None,
            }
        },
    )
    .await
}

fn too_large(max_bytes: usize) -> ApiError {
    ApiError::TooLarge(format!(
        "the upload is larger than the {} MiB limit",
        max_bytes / (1024 * 1024)
    ))
}

/// The accepted upload media types (parameters such as `charset` are ignored). The format
/// itself is told by the bytes (`load::sniff_format`); browsers often send `.gpkg`, `.kml`
/// and `.zip` files as application/octet-stream.
pub const UPLOAD_TYPES: [&str; 10] = [
    "application/geo+json",
    "application/json",
    "text/plain",
    "application/zip",
    "application/x-zip-compressed",
    "application/vnd.google-earth.kml+xml",
    "application/xml",
    "text/xml",
    "application/geopackage+sqlite3",
    "application/octet-stream",
];

fn check_content_type(headers: &HeaderMap) -> ApiResult<()> {
    let given = headers
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).to_string());
    let essence = given
        .as_deref()
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase());
    match essence {
        Some(t) if UPLOAD_TYPES.contains(&t.as_str()) => Ok(()),
        _ => Err(ApiError::UnsupportedMediaType(format!(
            "the upload's Content-Type is {}; send GeoJSON as application/geo+json (or application/json, text/plain), a zipped Shapefile as application/zip, KML as application/vnd.google-earth.kml+xml, a GeoPackage as application/geopackage+sqlite3",
            given.map(|g| format!("'{g}'")).unwrap_or_else(|| "missing".into())
        ))),
    }
}

/// Reads and discards what is left of a refused body, boundedly.
async fn drain(mut body: Body) {
    let until = Instant::now() + DRAIN_MAX_TIME;
    let mut read = 0u64;
    while read < DRAIN_MAX_BYTES {
        match tokio::time::timeout_at(until, body.frame()).await {
            Ok(Some(Ok(frame))) => {
                read += frame.data_ref().map_or(0, |d| d.len() as u64);
            }
            _ => break,
        }
    }
}

/// The body of an upload: the right media type, at most `limits.upload().max_bytes`, arrived within
/// `limits.body_timeout`. A refused body is drained first (unless the client asked
/// `Expect: 100-continue` and so has not sent it).
pub(super) async fn read_upload(
    headers: &HeaderMap,
    body: Body,
    limits: &Limits,
) -> ApiResult<Bytes> {
    let waits_for_continue = headers
        .get(header::EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let refuse = |body: Body, e: ApiError| async move {
        if !waits_for_continue {
            drain(body).await;
        }
        Err(e)
    };
    let max_bytes = limits.upload().max_bytes;
    if let Err(e) = check_content_type(headers) {
        return refuse(body, e).await;
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > max_bytes as u64) {
        return refuse(body, too_large(max_bytes)).await;
    }
    let deadline = Instant::now() + limits.body_timeout;
    let mut body = body;
    let mut buf = Vec::with_capacity(declared.unwrap_or(0) as usize);
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => {
                return Err(ApiError::RequestTimeout(format!(
                    "the upload did not arrive within {} ({} bytes received)",
                    secs(limits.body_timeout),
                    buf.len()
                )))
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(ApiError::BadRequest(format!(
                    "the upload could not be read: {e}"
                )))
            }
            Ok(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    if buf.len() + data.len() > max_bytes {
                        return refuse(body, too_large(max_bytes)).await;
                    }
                    buf.extend_from_slice(data);
                }
            }
        }
    }
    Ok(Bytes::from(buf))
}
