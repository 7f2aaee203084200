//! Vector tiles per collection, encoded from the R-tree on first request and cached.

use super::extract::Path;
use super::features::{base_url, layer, served_properties};
use super::limits::{blocking, secs};
use super::{ApiError, ApiResult, AppState};
use crate::tiles::{self as mvt, TileId};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Encoded tiles by (collection, z, x, y); `None` remembers an empty tile. Cleared when full
/// (by count or by bytes), which is cheap and keeps memory bounded without an LRU.
#[derive(Default)]
pub struct TileCache {
    tiles: HashMap<(String, u8, u32, u32), Option<Bytes>>,
    bytes: usize,
}

const CACHE_MAX_TILES: usize = 20_000;
/// Dense parcel tiles run to 100 KB each: bound the cache by what it holds, not only by count.
const CACHE_MAX_BYTES: usize = 256 << 20;
const MAX_ZOOM: u8 = 22;

pub async fn tile(
    State(st): State<AppState>,
    Path((id, z, y, x)): Path<(String, u8, u32, String)>,
) -> ApiResult<Response> {
    let x: u32 = x
        .trim_end_matches(".pbf")
        .trim_end_matches(".mvt")
        .parse()
        .map_err(|_| ApiError::BadRequest(format!("tile column '{x}' is not a number")))?;
    layer(&st, &id)?;
    let tid = TileId::new(z.min(MAX_ZOOM + 1), x, y)
        .filter(|_| z <= MAX_ZOOM)
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "tile {z}/{y}/{x} is outside the WebMercatorQuad matrix (zoom 0..{MAX_ZOOM})"
            ))
        })?;
    let key = (id.clone(), z, x, y);
    let cached = st
        .tile_cache
        .lock()
        .ok()
        .and_then(|c| c.tiles.get(&key).cloned());
    let bytes = match cached {
        Some(b) => b,
        None => {
            let deadline = st.limits.work_timeout;
            blocking(
                deadline,
                move || Ok(encode_and_cache(&st, &id, tid, key)),
                || ApiError::Unavailable {
                    detail: format!(
                        "tile {z}/{y}/{x} did not finish within {}; zoom in",
                        secs(deadline)
                    ),
                    retry_after_secs: None,
                },
            )
            .await?
        }
    };
    Ok(match bytes {
        Some(b) => (
            [(header::CONTENT_TYPE, "application/vnd.mapbox-vector-tile")],
            b,
        )
            .into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    })
}

/// Encodes a tile (CPU work: run on the blocking pool) and caches it, empty or not.
fn encode_and_cache(
    st: &AppState,
    id: &str,
    tid: TileId,
    key: (String, u8, u32, u32),
) -> Option<Bytes> {
    let layer = st.catalog.collection(id)?;
    let rect = tid.bounds_with_buffer_lonlat(mvt::BUFFER_PX, mvt::EXTENT);
    let hits: Vec<usize> = layer.query(rect).collect();
    let props: Vec<Map<String, Value>> = hits
        .iter()
        .map(|&i| served_properties(st, layer, i))
        .collect();
    let encoded = mvt::encode_layer(
        tid,
        id,
        hits.iter()
            .zip(&props)
            .map(|(&i, p)| (i as u64, &layer.features[i].geometry, p)),
    )
    .map(Bytes::from);
    if let Ok(mut c) = st.tile_cache.lock() {
        let size = encoded.as_ref().map_or(0, Bytes::len);
        if c.tiles.len() >= CACHE_MAX_TILES || c.bytes + size > CACHE_MAX_BYTES {
            c.tiles.clear();
            c.bytes = 0;
        }
        if let Some(old) = c.tiles.insert(key, encoded.clone()) {
            c.bytes -= old.map_or(0, |b| b.len());
        }
        c.bytes += size;
    }
    encoded
}

pub async fn tilejson(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let layer = layer(&st, &id)?;
    let base = base_url(&st);
    let bounds = layer
        .bbox()
        .map(|r| vec![r.min().x, r.min().y, r.max().x, r.max().y]);
    let fields: Map<String, Value> = layer
        .features
        .first()
        .map(|f| {
            f.properties
                .keys()
                .map(|k| (k.clone(), Value::String("".into())))
                .collect()
        })
        .unwrap_or_default();
    Ok(Json(json!({
        "tilejson": "3.0.0",
        "name": id,
        "scheme": "xyz",
        "tiles": [format!("{base}/collections/{id}/tiles/WebMercatorQuad/{{z}}/{{y}}/{{x}}")],
        "minzoom": 0,
        "maxzoom": MAX_ZOOM,
        "bounds": bounds,
        "vector_layers": [{"id": id, "fields": fields}]
    })))
}
