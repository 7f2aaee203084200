//! The connection loop: hyper's HTTP/1 server (with hyper-util's tokio glue) over a
//! `TcpListener`, instead of `axum::serve`, so that a client that
//! is slow to send its headers is cut off (`header_read_timeout`, which also bounds an idle
//! keep-alive connection), and at most `max_connections` are served at once (the next waits
//! in the listen backlog until one closes). Slow clients cannot fill those slots: one
//! address holds at most `max_connections_per_client` (more are closed at once), and at most
//! `max_waiting_connections` may wait for their first request's headers (a new connection
//! past that closes the one that has waited longest). A trusted proxy (`--trusted-proxy`)
//! carries many clients, so its connections are not held to one address's share. Each
//! request carries its peer's address (`ConnectInfo`), from which the token checks find the
//! client they count failures by (`client`).

use crate::client::TrustedProxies;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore};
use tower::ServiceExt;

/// Connection limits, set by `outfall serve` flags.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Time a client has to send a request's headers, from the connection's start or the end
    /// of its previous request (`--header-timeout-secs`).
    pub header_read_timeout: Duration,
    /// Most connections served at once (`--max-connections`).
    pub max_connections: usize,
    /// How long open connections may finish their requests after shutdown is asked.
    pub shutdown_grace: Duration,
    /// Most connections open at once from one address (`--max-connections-per-client`).
    pub max_connections_per_client: usize,
    /// Most connections that have not yet sent their first request's headers.
    pub max_waiting_connections: usize,
    /// Proxies, each the one address of many clients: not held to
    /// `max_connections_per_client` (`--trusted-proxy`).
    pub trusted_proxies: Arc<TrustedProxies>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 512,
            shutdown_grace: Duration::from_secs(10),
            max_connections_per_client: 64,
            max_waiting_connections: 128,
            trusted_proxies: Arc::default(),
        }
    }
}

/// The connections still waiting for their first request, oldest first, each with what
/// closes it.
#[derive(Default)]
struct Waiting {
    next_id: u64,
    queue: VecDeque<(u64, Arc<Notify>)>,
}

/// Open connections per address; a `ClientSlot` gives its place back when dropped.
type PerClient = Arc<Mutex<HashMap<IpAddr, usize>>>;

struct ClientSlot {
    counts: PerClient,
    ip: IpAddr,
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut counts = lock(&self.counts);
        if let Some(n) = counts.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.ip);
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Counters only: a panic cannot leave them half-changed.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A place for one more connection from `ip`, or `None` when it holds its share.
fn client_slot(counts: &PerClient, ip: IpAddr, max: usize) -> Option<ClientSlot> {
    let mut map = lock(counts);
    let n = map.entry(ip).or_insert(0);
    if *n >= max {
        return None;
    }
    *n += 1;
    Some(ClientSlot {
        counts: counts.clone(),
        ip,
    })
}

/// Registers a new waiting connection, closing the longest-waiting one past `max`.
fn wait_in_line(waiting: &Mutex<Waiting>, max: usize) -> (u64, Arc<Notify>) {
    let mut w = lock(waiting);
    while w.queue.len() >= max.max(1) {
        if let Some((_, oldest)) = w.queue.pop_front() {
            oldest.notify_one();
        }
    }
    w.next_id += 1;
    let entry = (w.next_id, Arc::new(Notify::new()));
    w.queue.push_back(entry.clone());
    entry
}

fn leave_line(waiting: &Mutex<Waiting>, id: u64) {
    lock(waiting).queue.retain(|(i, _)| *i != id);
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets open connections finish
/// (up to `shutdown_grace`).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    opts: ServeOptions,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(opts.max_connections.max(1)));
    let per_client: PerClient = Arc::default();
    let waiting = Arc::new(Mutex::new(Waiting::default()));
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(opts.header_read_timeout)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        // A slot first: past the limit, connections wait in the kernel's backlog.
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(s) => s,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little, do not spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let share = if opts.trusted_proxies.contains(peer.ip()) {
            usize::MAX
        } else {
            opts.max_connections_per_client
        };
        let Some(client) = client_slot(&per_client, peer.ip(), share) else {
            tracing::debug!(peer = %peer.ip(), "connection refused: too many from this address");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let (id, evict) = wait_in_line(&waiting, opts.max_waiting_connections);
        let started = Arc::new(AtomicBool::new(false));
        let line = waiting.clone();
        let service = TowerToHyperService::new(app.clone().map_request(
            move |mut req: axum::extract::Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                if !started.swap(true, Ordering::Relaxed) {
                    leave_line(&line, id);
                }
                req
            },
        ));
        let conn = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        let line = waiting.clone();
        tokio::spawn(async move {
            tokio::select! {
                r = conn => if let Err(e) = r {
                    tracing::debug!(error = %e, "connection ended with an error");
                },
                // Dropping the connection closes its socket.
                _ = evict.notified() => tracing::debug!("closed a connection that sent no request while others waited"),
            }
            leave_line(&line, id);
            drop((permit, client));
        });
    }
    drop(listener);
    let_finish(graceful, opts.shutdown_grace).await;
    Ok(())
}

/// Waits for the open connections to finish, for at most `grace`.
async fn let_finish(graceful: GracefulShutdown, grace: Duration) {
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(grace) => {
            tracing::warn!("connections still open after the shutdown grace period");
        }
    }
}
