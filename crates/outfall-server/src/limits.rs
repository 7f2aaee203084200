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
    /// Deadline of CPU work: checks, sewersheds, searches, tile encoding, items pages
    /// (`--check-timeout-secs`).
    pub work_timeout: Duration,
    /// Deadline for an upload's body to arrive (`--body-timeout-secs`).
    pub body_timeout: Duration,
    /// Most `POST /check` computing at once (`--max-checks`); more answer 503. Writes
    /// that check a site (`POST /sites`, `PATCH`) and sewersheds share these slots.
    pub max_concurrent_checks: usize,
    /// Most applications one applicant may have pending (planned, not retired); one more
    /// is refused (409) until the officer decides one.
    pub max_pending_submissions: usize,
    /// Most DEM cells one sewershed may hold (`--max-catchment-cells`); a larger one is
    /// refused (422) naming the cap.
    pub max_catchment_cells: usize,
}

/// The default of `Limits::max_catchment_cells`: 0.98 km² on Johnson's 0.7 m DEM (its
/// largest catchment, 1.45M cells, fits), 2 km² on a 1 m one; a request at the cap holds
/// about 50 MB while it works (34 MB measured for 1.45M cells).
pub const MAX_CATCHMENT_CELLS: usize = 2_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            work_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(30),
            max_concurrent_checks: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            max_pending_submissions: 20,
            max_catchment_cells: MAX_CATCHMENT_CELLS,
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

/// What a piece of bounded work is called in its 503 ("the check"), and what may explain
/// its passing the deadline ("; the polygon may be too complex (N vertices)").
pub(super) struct Task {
    name: &'static str,
    hint: String,
}

impl Task {
    pub(super) fn named(name: &'static str) -> Task {
        Task {
            name,
            hint: String::new(),
        }
    }

    pub(super) fn hint(mut self, hint: String) -> Task {
        self.hint = hint;
        self
    }

    fn too_late(&self, deadline: Duration) -> ApiError {
        ApiError::Unavailable {
            detail: format!(
                "{} did not finish within {}{}",
                self.name,
                secs(deadline),
                self.hint
            ),
            retry_after_secs: None,
        }
    }
}

/// Cancels its budget when dropped. It lives in the request's future, which ends when the
/// answer is made and which axum drops when the client goes away: either way the work
/// still running for it stops at its next poll instead of running on to its deadline.
struct CancelOnDrop(Budget);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Runs `work` on the blocking pool with `budget` entered on its thread (the geometry loops
/// poll it), until the work ends or `deadline` passes (then `on_timeout()`); the budget is
/// cancelled once nobody waits for the work. A panic in the work is a logged 500.
async fn run<T, F>(
    budget: Budget,
    deadline: Duration,
    work: F,
    on_timeout: impl FnOnce() -> ApiError,
) -> ApiResult<T>
where
    F: FnOnce(&Budget) -> ApiResult<T> + Send + 'static,
    T: Send + 'static,
{
    let _cancel = CancelOnDrop(budget.clone());
    let handle = tokio::task::spawn_blocking(move || {
        let _entered = budget.enter();
        work(&budget)
    });
    match tokio::time::timeout(deadline, handle).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => Err(ApiError::Internal(format!("blocking task failed: {e}"))),
        Err(_) => Err(on_timeout()),
    }
}

/// Runs CPU work on the blocking pool under `deadline`. Past the deadline, or when the
/// client goes away, the answer is `on_timeout()` (or none) and the work's loops stop at
/// their next poll of the budget, which only cancellation spends: work that does not check
/// the budget between its steps never sees it spent while its answer is awaited. Whatever
/// the work holds, such as a slot, is released when it ends.
pub(super) async fn blocking<T, F>(
    deadline: Duration,
    work: F,
    on_timeout: impl FnOnce() -> ApiError,
) -> ApiResult<T>
where
    F: FnOnce() -> ApiResult<T> + Send + 'static,
    T: Send + 'static,
{
    run(Budget::unlimited(), deadline, move |_| work(), on_timeout).await
}

/// Runs the CPU work of a request that checks a plan, reads a site or delineates a
/// sewershed: in one of the `checks` slots (503 with Retry-After when none is free), under
/// the work deadline, with a `Budget` that the work's steps and loops poll. The budget is
/// spent at the deadline and cancelled when the client goes away, so abandoned work stops
/// at its next step and frees its slot.
pub(super) async fn bounded<T, F>(
    checks: &Arc<Semaphore>,
    limits: &Limits,
    task: Task,
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
    run(
        Budget::within(deadline),
        deadline,
        move |budget| {
            let _permit = permit;
            let out = work(budget)?;
            budget.check("answering")?;
            Ok(out)
        },
        move || task.too_late(deadline),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// What `rx` gets, waiting at most long enough to end a hung run.
    fn wait<T: Send + 'static>(
        rx: mpsc::Receiver<T>,
    ) -> tokio::task::JoinHandle<Result<T, mpsc::RecvTimeoutError>> {
        tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(120)))
    }

    /// Issue 40, item 6: a client that goes away takes its check with it. axum drops the
    /// request's future; the work polling the budget sees it cancelled long before its
    /// deadline (an hour here) and its slot is free again. The waits are bounds on a hung
    /// run, never what is asserted.
    #[tokio::test]
    async fn work_whose_client_went_away_stops_and_frees_its_slot() {
        let checks = Arc::new(Semaphore::new(1));
        let limits = Limits {
            work_timeout: Duration::from_secs(3600),
            max_concurrent_checks: 1,
            ..Limits::default()
        };
        let (started, has_started) = mpsc::channel();
        let (stopped, has_stopped) = mpsc::channel();
        let slots = checks.clone();
        let request = tokio::spawn(async move {
            bounded(&slots, &limits, Task::named("the test"), move |budget| {
                let _ = started.send(());
                // Polls as a check's loops do; gives up (and says so) only to end a hung run.
                let bound = std::time::Instant::now() + Duration::from_secs(120);
                while !budget.expired() && std::time::Instant::now() < bound {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let _ = stopped.send(budget.check("its next step").is_err());
                Ok(())
            })
            .await
        });
        wait(has_started)
            .await
            .expect("waited")
            .expect("the work starts");
        assert_eq!(checks.available_permits(), 0, "the work holds the slot");
        request.abort();
        let saw = wait(has_stopped).await.expect("waited");
        assert_eq!(saw, Ok(true), "the work saw its budget cancelled");
        let slot = tokio::time::timeout(Duration::from_secs(120), checks.acquire()).await;
        assert!(slot.is_ok(), "the slot is free again");
    }

    #[tokio::test]
    async fn a_blocking_answer_awaited_is_never_cut_short() {
        // Cancelled only once nobody waits: the work sees an unspent budget to its end.
        let spent = blocking(
            Duration::from_secs(3600),
            || Ok(outfall_core::budget::spent()),
            || ApiError::Internal("late".into()),
        )
        .await
        .expect("answers");
        assert!(!spent);
    }
}
