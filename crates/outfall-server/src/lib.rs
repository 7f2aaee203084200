//! The HTTP server: a thin router over the core. `app(state)` is built once and used by both
//! `main` (through `serve`) and the tests. Every route is listed here, in one place.

mod access;
mod client;
mod error;
mod extract;
mod features;
mod gate;
mod geojson_write;
mod health;
mod html;
mod html_summary;
mod html_text;
mod inset_labels;
mod inspections;
mod limits;
mod live;
mod metrics;
mod negotiate;
mod openapi;
mod params;
mod registry;
mod serve;
mod service;
mod sewer;
mod sites;
mod state;
mod tiles;
mod uploads;

pub use client::{IpRange, TrustedProxies};
pub use error::{ApiError, ApiResult};
pub use gate::{AuthGate, AuthPolicy, Refusal};
pub use health::Health;
pub use limits::{
    Limits, DRAIN_MAX_BYTES, DRAIN_MAX_TIME, MAX_CATCHMENT_CELLS, MAX_UPLOAD_VERTICES, UPLOAD_TYPES,
};
pub use metrics::Metrics;
pub use serve::{serve, ServeOptions};
pub use state::{AppState, MAX_UPLOAD_BYTES, MAX_UPLOAD_FEATURES};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Extension;
use axum::Router;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tower::ServiceExt;
use tower_http::compression::CompressionLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The viewer's Content-Security-Policy: its own scripts and styles (inline styles for the
/// printable report), MapLibre's blob: workers, data:/blob: images, a basemap over https:,
/// and no framing by other sites.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
worker-src 'self' blob:; child-src 'self' blob:; style-src 'self' 'unsafe-inline'; \
img-src 'self' data: blob: https:; font-src 'self' data:; connect-src 'self' https:; \
object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

/// Cache lifetime of a successful GET; errors and POST answers are never cached.
const CACHE_OK: &str = "public, max-age=300";
/// An answer that depends on the caller's token: no cache may keep it, a shared one least.
const CACHE_PRIVATE: &str = "private, no-store";

tokio::task_local! {
    /// While a request is answered: whether its handler looked for its bearer token.
    static READS_TOKEN: Arc<AtomicBool>;
}

/// Marks the request being answered as depending on its token (`access::bearer` calls it,
/// the one place the Authorization header is read), so `response_headers` keeps every cache
/// from storing the answer, whatever the route.
pub(crate) fn reads_token() {
    let _ = READS_TOKEN.try_with(|r| r.store(true, Ordering::Relaxed));
}

/// Every route of the service. Each `routes!` line registers a handler and its OpenAPI
/// description together (the handler's `#[utoipa::path]` gives path and method), so `/api`
/// is generated from this table.
pub fn app(state: AppState) -> Router {
    let vendor = ServeDir::new(state.web_dir.join("node_modules/maplibre-gl/dist"));
    let served = live::Served::new(state);
    let (routes, doc) = OpenApiRouter::<live::Served>::with_openapi(openapi::ApiDoc::openapi())
        .routes(routes!(features::landing))
        .routes(routes!(openapi::document))
        .routes(routes!(features::conformance))
        .routes(routes!(features::config))
        .routes(routes!(features::collections))
        .routes(routes!(features::collection))
        .routes(routes!(features::items))
        .routes(routes!(features::item))
        .routes(routes!(tiles::tilesets))
        .routes(routes!(tiles::tileset))
        .routes(routes!(tiles::tile))
        .routes(routes!(tiles::tile_matrix_sets))
        .routes(routes!(tiles::tile_matrix_set))
        .routes(routes!(sites::list))
        .routes(routes!(sites::report))
        .routes(routes!(sites::report_html))
        .routes(routes!(sites::trace))
        .routes(routes!(sites::parcel_waters))
        .routes(routes!(sites::parcel_report_html))
        .routes(routes!(sewer::upstream))
        .routes(routes!(sewer::outfall_sewershed))
        .routes(routes!(sewer::point_sewershed))
        .routes(routes!(uploads::check))
        .routes(routes!(uploads::check_export_geojson))
        .routes(routes!(uploads::check_export_zip))
        .routes(routes!(uploads::site_export_geojson))
        .routes(routes!(uploads::site_export_zip))
        .routes(routes!(sites::search))
        .routes(routes!(sites::rules))
        .routes(routes!(inspections::due))
        .routes(routes!(inspections::day_sheet))
        .routes(routes!(registry::create))
        .routes(routes!(registry::get, registry::patch, registry::retire))
        .routes(routes!(registry::inspect, registry::inspections))
        .routes(routes!(registry::history))
        .routes(routes!(registry::add_rainfall, registry::rainfall))
        .routes(routes!(registry::whoami))
        .routes(routes!(registry::submissions))
        .routes(routes!(service::healthz))
        .routes(routes!(service::readyz))
        .routes(routes!(service::metrics))
        .split_for_parts();
    let api = routes
        // Only routed requests are counted, under their pattern (`MatchedPath`).
        .route_layer(middleware::from_fn_with_state(
            served.clone(),
            service::track,
        ))
        // The same resource with a trailing slash, as some clients build the URL.
        .route("/collections/", get(features::collections))
        .nest_service("/vendor/maplibre-gl", vendor)
        .fallback(viewer_file)
        .layer(Extension(Arc::new(doc)))
        .with_state(served.clone());
    api.layer(middleware::from_fn_with_state(
        served,
        live::revalidate_sites,
    ))
    .layer(cors())
    .layer(middleware::from_fn(response_headers))
    // Fastest gzip: with Accept-Encoding (browsers, QGIS) the default level made compressing
    // a 144 KB items page cost more than building it: 500 pages/s against 2,000 here, for
    // 33 KB instead of 25 KB (wrk, 100k parcels; README, issue #10).
    .layer(CompressionLayer::new().quality(tower_http::CompressionLevel::Fastest))
    .layer(TraceLayer::new_for_http())
}

/// Reading is open to any origin, so another town's page can use the layers; writing
/// (`POST /check`) is not: its answers never carry `Access-Control-Allow-Origin` (see
/// `response_headers`), and a preflight offers only GET and HEAD.
fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::any())
        .allow_methods([Method::GET, Method::HEAD])
        .allow_headers([header::ACCEPT, header::IF_NONE_MATCH, header::RANGE])
        .max_age(std::time::Duration::from_secs(3600))
}

/// A file of the viewer itself: one name directly in `web/` with a web extension — never
/// `node_modules/`, `package*.json`, dot files or anything in a subfolder.
fn is_viewer_file(name: &str) -> bool {
    const EXTENSIONS: [&str; 8] = ["html", "js", "mjs", "css", "svg", "png", "ico", "woff2"];
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name
            .rsplit_once('.')
            .is_some_and(|(_, ext)| EXTENSIONS.contains(&ext))
}

/// Everything no route claims: the viewer's own files, else a problem+json 404.
async fn viewer_file(State(st): State<AppState>, req: Request) -> Response {
    let name = req.uri().path().trim_start_matches('/').to_string();
    if !is_viewer_file(&name) || !matches!(*req.method(), Method::GET | Method::HEAD) {
        return ApiError::NotFound(format!("no resource at {}", req.uri().path())).into_response();
    }
    match ServeFile::new(st.web_dir.join(&name)).oneshot(req).await {
        Ok(res) => res.map(Body::new),
        Err(never) => match never {},
    }
}

/// Headers on every answer: nosniff, the CSP, caching for successful GETs only (errors,
/// 4xx included, and POST answers are `no-store`; an answer whose handler read the token is
/// `private, no-store` and varies by `Authorization`), CORS only on reads. Bare error
/// answers (an unknown path, a wrong method, a missing static file) become problem+json.
async fn response_headers(req: Request, next: Next) -> Response {
    let get_like = matches!(*req.method(), Method::GET | Method::HEAD);
    let readable_elsewhere = get_like || req.method() == Method::OPTIONS;
    let read_token = Arc::new(AtomicBool::new(false));
    let mut res = READS_TOKEN.scope(read_token.clone(), next.run(req)).await;
    if !readable_elsewhere {
        res.headers_mut()
            .remove(header::ACCESS_CONTROL_ALLOW_ORIGIN);
    }
    let status = res.status();
    if (status.is_client_error() || status.is_server_error())
        && !res.headers().contains_key(header::CONTENT_TYPE)
    {
        let allow = res.headers().get(header::ALLOW).cloned();
        let problem = match status {
            StatusCode::NOT_FOUND => Some(ApiError::NotFound("no such resource".into())),
            StatusCode::METHOD_NOT_ALLOWED => Some(ApiError::MethodNotAllowed(format!(
                "this resource answers {}",
                allow
                    .as_ref()
                    .and_then(|a| a.to_str().ok())
                    .unwrap_or("other methods")
            ))),
            _ => None,
        };
        if let Some(p) = problem {
            res = p.into_response();
            if let Some(a) = allow {
                res.headers_mut().insert(header::ALLOW, a);
            }
        }
    }
    let ok = res.status().is_success() || res.status() == StatusCode::NOT_MODIFIED;
    let h = res.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    if read_token.load(Ordering::Relaxed) {
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_PRIVATE),
        );
        h.append(header::VARY, HeaderValue::from_static("authorization"));
    } else if get_like && ok {
        if !h.contains_key(header::CACHE_CONTROL) {
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static(CACHE_OK));
        }
    } else {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}
