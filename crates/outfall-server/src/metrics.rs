//! What an operator watches (`GET /metrics`, Prometheus text): requests and their latency by
//! route, check durations, registry write latency, the tile cache's hits and misses, the
//! load time and the registry's snapshot generation. Labels are the route's pattern
//! (`/sites/{id}`), never the raw path, so a client cannot make the series grow without end.

use crate::error::{ApiError, ApiResult};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: String,
    route: String,
    status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteKey {
    method: String,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OpLabels {
    op: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheLabels {
    result: String,
}

/// Seconds, from 0.1 ms to about 15 s.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0001, 2.5, 14))
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RouteLabels, Counter>,
    latency: Family<RouteKey, Histogram, fn() -> Histogram>,
    checks: Histogram,
    writes: Family<OpLabels, Histogram, fn() -> Histogram>,
    tiles: Family<CacheLabels, Counter>,
    load_seconds: Gauge<f64, AtomicU64>,
    generation: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("outfall");
        let requests = Family::<RouteLabels, Counter>::default();
        let latency = Family::new_with_constructor(latency_histogram as fn() -> Histogram);
        let checks = latency_histogram();
        let writes = Family::new_with_constructor(latency_histogram as fn() -> Histogram);
        let tiles = Family::<CacheLabels, Counter>::default();
        let load_seconds = Gauge::<f64, AtomicU64>::default();
        let generation = Gauge::default();
        registry.register(
            "http_requests",
            "Requests answered, by method, route pattern and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer a request, by method and route pattern",
            latency.clone(),
        );
        registry.register(
            "check_duration_seconds",
            "Time of one POST /check: reading the upload, the trace and the rules",
            checks.clone(),
        );
        registry.register(
            "registry_write_duration_seconds",
            "Time of one registry write, from the commit to the new snapshot, by operation",
            writes.clone(),
        );
        registry.register(
            "tile_cache_lookups",
            "Vector tile requests answered from the cache (hit) or encoded (miss)",
            tiles.clone(),
        );
        registry.register(
            "load_duration_seconds",
            "Time to load the data set (and check the registry's sites) at start",
            load_seconds.clone(),
        );
        registry.register(
            "registry_generation",
            "Snapshots of the registry published since start; rises with every edit seen",
            generation.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            checks,
            writes,
            tiles,
            load_seconds,
            generation,
        }
    }
}

impl Metrics {
    pub fn set_load_time(&self, took: Duration) {
        self.load_seconds.set(took.as_secs_f64());
    }

    pub(crate) fn observe_check(&self, took: Duration) {
        self.checks.observe(took.as_secs_f64());
    }

    pub(crate) fn observe_write(&self, op: &str, took: Duration) {
        let op = op.to_string();
        self.writes
            .get_or_create(&OpLabels { op })
            .observe(took.as_secs_f64());
    }

    /// Counts one answered request and its latency under its route's pattern.
    pub(crate) fn observe_request(&self, method: String, route: String, status: String, took: f64) {
        let key = RouteKey { method, route };
        self.latency.get_or_create(&key).observe(took);
        self.requests
            .get_or_create(&RouteLabels {
                method: key.method,
                route: key.route,
                status,
            })
            .inc();
    }

    pub(crate) fn count_tile(&self, hit: bool) {
        let result = if hit { "hit" } else { "miss" }.to_string();
        self.tiles.get_or_create(&CacheLabels { result }).inc();
    }

    pub(crate) fn encode(&self, generation: u64) -> ApiResult<String> {
        self.generation
            .set(i64::try_from(generation).unwrap_or(i64::MAX));
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .map_err(|e| ApiError::Internal(format!("cannot write the metrics: {e}")))?;
        Ok(out)
    }
}
