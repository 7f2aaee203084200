//! The connection loop: hyper's HTTP/1 server (with hyper-util's tokio glue) over a
//! `TcpListener`, instead of `axum::serve`, so that a client that
//! is slow to send its headers is cut off (`header_read_timeout`, which also bounds an idle
//! keep-alive connection), and at most `max_connections` are served at once (the next waits
//! in the listen backlog until one closes).

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// Connection limits, set by `outfall serve` flags.
#[derive(Clone, Copy, Debug)]
pub struct ServeOptions {
    /// Time a client has to send a request's headers, from the connection's start or the end
    /// of its previous request (`--header-timeout-secs`).
    pub header_read_timeout: Duration,
    /// Most connections served at once (`--max-connections`).
    pub max_connections: usize,
    /// How long open connections may finish their requests after shutdown is asked.
    pub shutdown_grace: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 512,
            shutdown_grace: Duration::from_secs(10),
        }
    }
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
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little, do not spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let conn = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(opts.shutdown_grace) => {
            tracing::warn!("connections still open after the shutdown grace period");
        }
    }
    Ok(())
}
