//! What every handler reads: the catalog, the sites' reports, the tile cache, the registry
//! (when one is open) and the limits. Cloned per request; everything in it is shared.

use crate::client::TrustedProxies;
use crate::gate::{AuthGate, AuthPolicy};
use crate::health::Health;
use crate::limits::Limits;
use crate::metrics::Metrics;
use outfall_core::catalog::Catalog;
use outfall_core::report::Report;
use outfall_core::screening;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

/// Largest accepted `POST /check` body.
pub const MAX_UPLOAD_BYTES: usize = outfall_core::load::UploadLimits::DEFAULT.max_bytes;
/// Largest number of features in one uploaded check.
pub const MAX_UPLOAD_FEATURES: usize = outfall_core::load::UploadLimits::DEFAULT.max_features;

#[derive(Clone)]
pub struct AppState {
    pub catalog: Arc<Catalog>,
    pub web_dir: PathBuf,
    /// Site reports, computed once at start-up: the data do not change while serving.
    pub reports: Arc<HashMap<String, Report>>,
    pub tile_cache: Arc<Mutex<outfall_core::tiles::TileCache>>,
    pub limits: Limits,
    /// Scheme, host and optional path prefix of absolute links (`--public-url`); never
    /// taken from a request's Host header.
    pub public_url: Arc<str>,
    pub(crate) checks: Arc<Semaphore>,
    /// The site registry, when sites are edited live; `None` serves the file layers
    /// read-only. With it, each request sees its current snapshot (`live::Served`).
    pub registry: Option<Arc<outfall_core::registry::Live>>,
    /// The bounds of token checking (`gate`), shared by every request.
    pub auth: Arc<AuthGate>,
    /// The proxies whose `X-Forwarded-For` names the client the gate counts (`client`).
    pub trusted_proxies: Arc<TrustedProxies>,
    /// What `/metrics` reports, shared by every request.
    pub metrics: Arc<Metrics>,
    /// Whether the server is draining, for `/readyz`.
    pub health: Arc<Health>,
}

impl AppState {
    /// The state with default limits and links under `http://localhost`.
    pub fn new(catalog: Arc<Catalog>, web_dir: PathBuf) -> AppState {
        let reports = catalog
            .sites
            .iter()
            .filter_map(|s| {
                screening::check_site(&catalog, &s.id)
                    .ok()
                    .map(|r| (s.id.clone(), r))
            })
            .collect();
        let limits = Limits::default();
        AppState {
            catalog,
            web_dir,
            reports: Arc::new(reports),
            tile_cache: Arc::new(Mutex::new(outfall_core::tiles::TileCache::default())),
            limits,
            public_url: Arc::from("http://localhost"),
            checks: Arc::new(Semaphore::new(limits.max_concurrent_checks.max(1))),
            registry: None,
            auth: Arc::new(AuthGate::new(AuthPolicy::default())),
            trusted_proxies: Arc::default(),
            metrics: Arc::default(),
            health: Arc::default(),
        }
    }

    /// The state over a live registry: its sites, already checked, replace the file layers'.
    pub fn with_registry(web_dir: PathBuf, live: Arc<outfall_core::registry::Live>) -> AppState {
        let snap = live.snapshot();
        let limits = Limits::default();
        AppState {
            catalog: snap.catalog.clone(),
            web_dir,
            reports: snap.reports.clone(),
            tile_cache: Arc::new(Mutex::new(outfall_core::tiles::TileCache::default())),
            limits,
            public_url: Arc::from("http://localhost"),
            checks: Arc::new(Semaphore::new(limits.max_concurrent_checks.max(1))),
            registry: Some(live),
            auth: Arc::new(AuthGate::new(AuthPolicy::default())),
            trusted_proxies: Arc::default(),
            metrics: Arc::default(),
            health: Arc::default(),
        }
    }

    /// How this state's layers are presented: its catalog with its reports.
    pub fn presentation(&self) -> outfall_core::presentation::Presentation<'_> {
        outfall_core::presentation::Presentation::new(&self.catalog, &self.reports)
    }

    /// The state with these bounds on token checking (a fresh gate: nothing remembered).
    pub fn with_auth_policy(mut self, policy: AuthPolicy) -> AppState {
        self.auth = Arc::new(AuthGate::new(policy));
        self
    }

    /// The state believing `X-Forwarded-For` from these proxies (`--trusted-proxy`).
    pub fn with_trusted_proxies(mut self, proxies: TrustedProxies) -> AppState {
        self.trusted_proxies = Arc::new(proxies);
        self
    }

    pub fn with_limits(mut self, limits: Limits) -> AppState {
        self.checks = Arc::new(Semaphore::new(limits.max_concurrent_checks.max(1)));
        self.limits = limits;
        self
    }

    /// Absolute links start with `url` (`http://` or `https://`, a host, an optional path
    /// prefix; a trailing `/` is dropped).
    pub fn with_public_url(mut self, url: &str) -> Result<AppState, String> {
        let url = url.trim().trim_end_matches('/');
        let uri: axum::http::Uri = url
            .parse()
            .map_err(|e| format!("public URL '{url}' is not a URL: {e}"))?;
        let scheme_ok = matches!(uri.scheme_str(), Some("http") | Some("https"));
        if !scheme_ok || uri.authority().is_none() || uri.query().is_some() {
            return Err(format!(
                "public URL '{url}' must be http(s)://host[:port][/prefix]"
            ));
        }
        self.public_url = Arc::from(url);
        Ok(self)
    }
}
