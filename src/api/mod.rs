//! The HTTP server: a thin router over the core. `app(state)` is built once and used by both
//! `main` and the tests. Every route is listed here, in one place.

mod error;
mod features;
mod html;
mod sites;
mod tiles;

pub use error::{ApiError, ApiResult};

use crate::catalog::Catalog;
use crate::report::Report;
use crate::screening;
use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderValue};
use axum::routing::{get, post};
use axum::Router;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

/// Largest accepted `POST /check` body.
pub const MAX_UPLOAD_BYTES: usize = 2 * 1024 * 1024;
/// Largest number of features in one uploaded check.
pub const MAX_UPLOAD_FEATURES: usize = 1000;

#[derive(Clone)]
pub struct AppState {
    pub catalog: Arc<Catalog>,
    pub web_dir: PathBuf,
    /// Site reports, computed once at start-up: the data do not change while serving.
    pub reports: Arc<HashMap<String, Report>>,
    pub tile_cache: Arc<Mutex<tiles::TileCache>>,
}

impl AppState {
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
        AppState {
            catalog,
            web_dir,
            reports: Arc::new(reports),
            tile_cache: Arc::new(Mutex::new(tiles::TileCache::default())),
        }
    }
}

/// Every route of the service.
pub fn app(state: AppState) -> Router {
    let vendor = ServeDir::new(state.web_dir.join("node_modules/maplibre-gl/dist"));
    let web = ServeDir::new(&state.web_dir);
    let api = Router::new()
        .route("/", get(features::landing))
        .route("/conformance", get(features::conformance))
        .route("/config", get(features::config))
        .route("/collections", get(features::collections))
        .route("/collections/{id}", get(features::collection))
        .route("/collections/{id}/items", get(features::items))
        .route("/collections/{id}/items/{fid}", get(features::item))
        .route(
            "/collections/{id}/tiles/WebMercatorQuad",
            get(tiles::tilejson),
        )
        .route(
            "/collections/{id}/tiles/WebMercatorQuad/{z}/{y}/{x}",
            get(tiles::tile),
        )
        .route("/sites", get(sites::list))
        .route("/sites/{id}/report", get(sites::report))
        .route("/sites/{id}/report.html", get(sites::report_html))
        .route("/sites/{id}/trace", get(sites::trace))
        .route("/parcels/{id}/receiving-waters", get(sites::parcel_waters))
        .route(
            "/check",
            post(sites::check).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .route("/search", get(sites::search))
        .route("/rules", get(sites::rules))
        .nest_service("/vendor/maplibre-gl", vendor)
        .fallback_service(web)
        .with_state(state);
    api.layer(SetResponseHeaderLayer::if_not_present(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=300"),
    ))
    .layer(CompressionLayer::new())
    .layer(TraceLayer::new_for_http())
}
