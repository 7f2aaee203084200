//! `outfall serve`: the map, OGC API Features, tiles and site reports over HTTP.

use super::{load, open_registry};
use anyhow::{bail, Context};
use outfall_core::registry::Checking;
use outfall_server::{AppState, IpRange, Limits, ServeOptions, TrustedProxies};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    data: PathBuf,
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: String,
    /// Folder of the web viewer
    #[arg(long, default_value = "web")]
    web: PathBuf,
    /// Start of absolute links in API answers, e.g. https://maps.example.org/outfall
    /// (default: http://<bind address>); the Host header is never used
    #[arg(long)]
    public_url: Option<String>,
    /// Deadline of one check, tile or items page, in seconds (503 past it)
    #[arg(long, default_value_t = 5.0)]
    check_timeout_secs: f64,
    /// Time a client has to send a request's headers, in seconds (then the connection
    /// is closed); also the idle keep-alive time
    #[arg(long, default_value_t = 10.0)]
    header_timeout_secs: f64,
    /// Time a client has to send an upload's body, in seconds (then 408)
    #[arg(long, default_value_t = 30.0)]
    body_timeout_secs: f64,
    /// Most connections served at once; more wait until one closes
    #[arg(long, default_value_t = 512)]
    max_connections: usize,
    /// Most connections open at once from one address; more are closed at once
    #[arg(long, default_value_t = 64)]
    max_connections_per_client: usize,
    /// Most connections waiting for their first request's headers; past it, the one that
    /// has waited longest is closed
    #[arg(long, default_value_t = 128)]
    max_waiting_connections: usize,
    /// Most POST /check computing at once; more answer 503 with Retry-After
    /// (default: the number of CPUs)
    #[arg(long)]
    max_checks: Option<usize>,
    /// Most DEM cells one sewershed may hold; a larger one is refused (422)
    #[arg(long, default_value_t = outfall_server::MAX_CATCHMENT_CELLS)]
    max_catchment_cells: usize,
    /// The site registry: a .gpkg path, postgres://user@host/db (PostGIS), or "none"
    /// for the file layers, read-only (default: registry.gpkg in the data folder)
    #[arg(long)]
    registry: Option<String>,
    /// A balancer or reverse proxy (an address or a network, e.g. 10.0.0.0/8; repeat for
    /// several) whose X-Forwarded-For names the client that failed token checks are
    /// counted by, and whose connections are not held to --max-connections-per-client.
    /// Give every proxy between the clients and this server; the header of any other peer
    /// is ignored
    #[arg(long = "trusted-proxy", value_name = "IP[/BITS]", value_parser = parse_range)]
    trusted_proxies: Vec<IpRange>,
    /// On SIGTERM or Ctrl-C, answer /readyz with 503 for this many seconds while still
    /// serving, so a balancer moves requests away before the listener closes
    #[arg(long, default_value_t = 0.0)]
    drain_secs: f64,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "outfall=info,tower_http=warn".into()),
        )
        .init();
    // The flags are checked before the data set loads, which can take a while.
    let (limits, options) = limits(&args)?;
    let started = std::time::Instant::now();
    let catalog = Arc::new(load(&args.data)?);
    // Pending applications are checked by the watcher once the server listens, so a start
    // does not wait for them.
    let registry = open_registry(
        &args.data,
        args.registry.as_deref(),
        catalog.clone(),
        Checking::PendingLater,
    )?;
    let state = match registry {
        Some(live) => {
            // PostGIS wakes the watcher at each commit (LISTEN/NOTIFY); a GeoPackage is
            // polled this often. It checks the waiting applications first.
            outfall_core::registry::Live::watch(&live, Duration::from_secs(1));
            AppState::with_registry(args.web.clone(), live)
        }
        None => AppState::new(catalog, args.web.clone()),
    }
    .with_limits(limits)
    .with_trusted_proxies(TrustedProxies::new(args.trusted_proxies.clone()));
    state.metrics.set_load_time(started.elapsed());
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(listen(args, state, options))
}

/// The server's time and size limits from the flags.
fn limits(args: &Args) -> anyhow::Result<(Limits, ServeOptions)> {
    let mut limits = Limits {
        work_timeout: secs("check-timeout-secs", args.check_timeout_secs)?,
        body_timeout: secs("body-timeout-secs", args.body_timeout_secs)?,
        max_catchment_cells: args.max_catchment_cells.max(1),
        ..Default::default()
    };
    if args.drain_secs != 0.0 {
        secs("drain-secs", args.drain_secs)?;
    }
    if let Some(n) = args.max_checks {
        limits.max_concurrent_checks = n.max(1);
    }
    let options = ServeOptions {
        header_read_timeout: secs("header-timeout-secs", args.header_timeout_secs)?,
        max_connections: args.max_connections.max(1),
        max_connections_per_client: args.max_connections_per_client.max(1),
        max_waiting_connections: args.max_waiting_connections.max(1),
        trusted_proxies: Arc::new(TrustedProxies::new(args.trusted_proxies.clone())),
        ..Default::default()
    };
    Ok((limits, options))
}

fn parse_range(text: &str) -> Result<IpRange, String> {
    text.parse()
}

/// A flag's seconds as a duration; zero, negative, not finite or over a day is refused.
fn secs(name: &str, v: f64) -> anyhow::Result<Duration> {
    if !(v.is_finite() && v > 0.0 && v <= 86_400.0) {
        bail!("--{name} must be a number of seconds between 0 and 86400, not {v}");
    }
    Ok(Duration::from_secs_f64(v))
}

/// Binds, names the links' base and serves until Ctrl-C.
async fn listen(args: Args, state: AppState, options: ServeOptions) -> anyhow::Result<()> {
    let bind = &args.bind;
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("cannot bind {bind}"))?;
    let addr = listener.local_addr()?;
    let public = public_url(args.public_url, addr);
    let state = state
        .with_public_url(&public)
        .map_err(|e| anyhow::anyhow!("--public-url: {e}"))?;
    println!(
        "Outfall is serving {} at http://{addr}/ (links: {})",
        args.data.display(),
        state.public_url
    );
    let health = state.health.clone();
    let drain = if args.drain_secs == 0.0 {
        Duration::ZERO
    } else {
        secs("drain-secs", args.drain_secs)?
    };
    outfall_server::serve(listener, outfall_server::app(state), options, async move {
        stop_signal().await;
        health.start_draining();
        if !drain.is_zero() {
            tracing::info!(
                seconds = drain.as_secs_f64(),
                "draining: /readyz answers 503"
            );
            tokio::time::sleep(drain).await;
        }
    })
    .await?;
    Ok(())
}

/// Ctrl-C, or SIGTERM (what a service manager or a rolling restart sends).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                tokio::signal::ctrl_c().await.ok();
            }
        }
    }
    #[cfg(not(unix))]
    tokio::signal::ctrl_c().await.ok();
}

/// The start of absolute links: the flag's, else the bound address. An unspecified address
/// (0.0.0.0) is no address a client can use, so links then name localhost, with a warning.
fn public_url(flag: Option<String>, addr: SocketAddr) -> String {
    match flag {
        Some(u) => u,
        None if addr.ip().is_unspecified() => {
            eprintln!(
                "warning: bound to {addr}; links name http://localhost:{} — set --public-url to the address clients use",
                addr.port()
            );
            format!("http://localhost:{}", addr.port())
        }
        None => format!("http://{addr}"),
    }
}
