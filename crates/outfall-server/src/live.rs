//! Each request sees one consistent version of the sites. The router's state is `Served`;
//! the handlers' `AppState` is taken from it per request (`FromRef`): with a registry, the
//! catalog and reports of its current snapshot, and a tile cache that is new whenever the
//! snapshot is (so the map's tiles show an edit at once). The new cache keeps the tiles of
//! the collections the snapshots share, so an edit does not send every parcel tile of the
//! map to be encoded again.

use crate::state::AppState;
use axum::extract::FromRef;
use outfall_core::catalog::Catalog;
use outfall_core::tiles::TileCache;
use std::sync::{Arc, Mutex};

#[derive(Clone)]
pub struct Served {
    base: AppState,
    tiles: Arc<Mutex<Tiles>>,
}

/// The tile cache of one snapshot generation, with that snapshot's catalog to tell what the
/// next one shares.
struct Tiles {
    generation: u64,
    catalog: Arc<Catalog>,
    cache: Arc<Mutex<TileCache>>,
}

impl Served {
    pub fn new(base: AppState) -> Served {
        let tiles = Arc::new(Mutex::new(Tiles {
            generation: 0,
            catalog: base.catalog.clone(),
            cache: base.tile_cache.clone(),
        }));
        Served { base, tiles }
    }
}

impl FromRef<Served> for AppState {
    fn from_ref(s: &Served) -> AppState {
        let mut st = s.base.clone();
        let Some(live) = &s.base.registry else {
            return st;
        };
        let snap = live.snapshot();
        st.catalog = snap.catalog.clone();
        st.reports = snap.reports.clone();
        let mut tiles = s.tiles.lock().unwrap_or_else(|p| p.into_inner());
        if tiles.generation != snap.generation {
            let keep = outfall_core::tiles::unchanged_collections(&tiles.catalog, &snap.catalog);
            let cache = tiles
                .cache
                .lock()
                .map(|c| c.carried_over(|k| keep.contains(k.collection.as_str())))
                .unwrap_or_default();
            *tiles = Tiles {
                generation: snap.generation,
                catalog: snap.catalog.clone(),
                cache: Arc::new(Mutex::new(cache)),
            };
        }
        st.tile_cache = tiles.cache.clone();
        st
    }
}

/// With a registry, the site resources change while the server runs: a browser must ask
/// again (`no-cache`, answered from the new snapshot) rather than keep an old copy for the
/// usual five minutes, so a planner's map shows the officer's change on the next load.
pub async fn revalidate_sites(
    axum::extract::State(s): axum::extract::State<Served>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    const LIVE: [&str; 5] = [
        "/sites",
        "/collections/sites",
        "/collections/disturbance",
        "/search",
        "/rainfall",
    ];
    let live = s.base.registry.is_some() && LIVE.iter().any(|p| req.uri().path().starts_with(p));
    let mut res = next.run(req).await;
    if live
        && !res
            .headers()
            .contains_key(axum::http::header::CACHE_CONTROL)
    {
        res.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static("no-cache"),
        );
    }
    res
}
