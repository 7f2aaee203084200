//! Each request sees one consistent version of the sites. The router's state is `Served`;
//! the handlers' `AppState` is taken from it per request (`FromRef`): with a registry, the
//! catalog and reports of its current snapshot, and a tile cache that is new whenever the
//! snapshot is (so the map's tiles show an edit at once).

use super::{tiles::TileCache, AppState};
use axum::extract::FromRef;
use std::sync::{Arc, Mutex};

#[derive(Clone)]
pub struct Served {
    base: AppState,
    /// The tile cache of the snapshot generation it was made for.
    tiles: Arc<Mutex<(u64, Arc<Mutex<TileCache>>)>>,
}

impl Served {
    pub fn new(base: AppState) -> Served {
        let tiles = Arc::new(Mutex::new((0, base.tile_cache.clone())));
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
        if tiles.0 != snap.generation {
            *tiles = (snap.generation, Arc::new(Mutex::new(TileCache::default())));
        }
        st.tile_cache = tiles.1.clone();
        st
    }
}
