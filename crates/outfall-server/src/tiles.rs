//! Vector tiles per collection, encoded from the R-tree on first request and cached.

use super::extract::{Path, Query};
use super::features::{base_url, layer, served_properties};
use super::limits::{blocking, secs};
use super::negotiate::check_query;
use super::{ApiError, ApiResult, AppState};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use geo_types::Rect;
use outfall_core::tiles::{self as mvt, TileId};
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

/// One Mapbox Vector Tile (204 when the tile holds nothing).
#[utoipa::path(get, path = "/collections/{collectionId}/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}", tag = "tiles",
    params(("collectionId" = String, Path, description = "A collection id"),
           ("tileMatrix" = u8, Path, description = "Zoom level, 0..22"),
           ("tileRow" = u32, Path, description = "Row (y), from the top"),
           ("tileCol" = String, Path, description = "Column (x); a .pbf or .mvt suffix is accepted")),
    responses((status = 200, description = "The tile", content_type = "application/vnd.mapbox-vector-tile"),
              (status = 204, description = "The tile holds no feature"),
              (status = 404, description = "No such collection, or the tile lies outside the matrix", content_type = "application/problem+json")))]
pub async fn tile(
    State(st): State<AppState>,
    Path((id, z, y, x)): Path<(String, u8, u32, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    check_query(&q, &[], &["mvt"])?;
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
    let hits: Vec<(usize, Rect<f64>)> = layer.query_envelopes(rect).collect();
    let props: Vec<Map<String, Value>> = hits
        .iter()
        .map(|&(i, _)| served_properties(st, layer, i))
        .collect();
    let encoded = mvt::encode_indexed_layer(
        tid,
        id,
        hits.iter()
            .zip(&props)
            .map(|(&(i, b), p)| (i as u64, &layer.features[i].geometry, p, b)),
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

const TMS_ID: &str = "WebMercatorQuad";
const TMS_URI: &str = "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad";
const CRS_3857: &str = "http://www.opengis.net/def/crs/EPSG/0/3857";
const CRS84: &str = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
const REL_TILING_SCHEME: &str = "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme";
const MVT: &str = "application/vnd.mapbox-vector-tile";

/// `/tileMatrixSets`: the one tiling scheme served.
#[utoipa::path(get, path = "/tileMatrixSets", tag = "tiles",
    params(("f" = Option<String>, Query, description = "json")),
    responses((status = 200, description = "The tile matrix sets (OGC API – Tiles)", content_type = "application/json")))]
pub async fn tile_matrix_sets(
    State(st): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    check_query(&q, &[], &["json"])?;
    let base = base_url(&st);
    Ok(Json(json!({
        "links": [{"href": format!("{base}/tileMatrixSets"), "rel": "self", "type": "application/json"}],
        "tileMatrixSets": [{
            "id": TMS_ID,
            "title": "Google Maps Compatible for the World",
            "uri": TMS_URI,
            "crs": CRS_3857,
            "links": [{"href": format!("{base}/tileMatrixSets/{TMS_ID}"), "rel": "self", "type": "application/json"}]
        }]
    })))
}

/// `/tileMatrixSets/WebMercatorQuad`: the definition (OGC 2D Tile Matrix Set 2.0, JSON),
/// every level computed from the Web Mercator square.
#[utoipa::path(get, path = "/tileMatrixSets/{tileMatrixSetId}", tag = "tiles",
    params(("tileMatrixSetId" = String, Path, description = "WebMercatorQuad"),
           ("f" = Option<String>, Query, description = "json")),
    responses((status = 200, description = "The tile matrix set definition", content_type = "application/json"),
              (status = 404, description = "Not a tile matrix set served here", content_type = "application/problem+json")))]
pub async fn tile_matrix_set(
    Path(tms): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    check_query(&q, &[], &["json"])?;
    if tms != TMS_ID {
        return Err(ApiError::NotFound(format!(
            "tile matrix set '{tms}' not found; only {TMS_ID} is served"
        )));
    }
    let half = mvt::WEB_MERCATOR_HALF_SIDE_M;
    let matrices: Vec<Value> = (0..=MAX_ZOOM)
        .map(|z| {
            let (cell_m, scale, tiles) = mvt::web_mercator_matrix(z);
            let px = mvt::WEB_MERCATOR_TILE_PX;
            json!({
                "id": z.to_string(), "scaleDenominator": scale, "cellSize": cell_m,
                "cornerOfOrigin": "topLeft", "pointOfOrigin": [-half, half],
                "tileWidth": px, "tileHeight": px, "matrixWidth": tiles, "matrixHeight": tiles
            })
        })
        .collect();
    Ok(Json(json!({
        "id": TMS_ID,
        "title": "Google Maps Compatible for the World",
        "uri": TMS_URI,
        "crs": CRS_3857,
        "orderedAxes": ["X", "Y"],
        "wellKnownScaleSet": "http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible",
        "tileMatrices": matrices
    })))
}

/// The summary of a collection's one tileset, as listed and as its own document.
fn tileset_summary(id: &str, base: &str) -> Value {
    json!({
        "title": format!("{id} vector tiles"),
        "dataType": "vector",
        "crs": CRS_3857,
        "tileMatrixSetURI": TMS_URI,
        "links": [
            {"href": format!("{base}/collections/{id}/tiles/{TMS_ID}"), "rel": "self", "type": "application/json", "title": "Tileset metadata (also TileJSON)"},
            {"href": format!("{base}/tileMatrixSets/{TMS_ID}"), "rel": REL_TILING_SCHEME, "type": "application/json"}
        ]
    })
}

/// `/collections/{id}/tiles`: the collection's tilesets (one, in WebMercatorQuad).
#[utoipa::path(get, path = "/collections/{collectionId}/tiles", tag = "tiles",
    params(("collectionId" = String, Path, description = "A collection id"),
           ("f" = Option<String>, Query, description = "json")),
    responses((status = 200, description = "The collection's vector tilesets", content_type = "application/json"),
              (status = 404, description = "No such collection", content_type = "application/problem+json")))]
pub async fn tilesets(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    check_query(&q, &[], &["json"])?;
    layer(&st, &id)?;
    let base = base_url(&st);
    Ok(Json(json!({
        "links": [
            {"href": format!("{base}/collections/{id}/tiles"), "rel": "self", "type": "application/json"},
            {"href": format!("{base}/collections/{id}"), "rel": "collection", "type": "application/json"}
        ],
        "tilesets": [tileset_summary(&id, &base)]
    })))
}

/// `/collections/{id}/tiles/WebMercatorQuad`: OGC API – Tiles tileset metadata, which is
/// also a TileJSON 3.0 document (the two share no member names), so MapLibre and OGC
/// clients read the same URL.
#[utoipa::path(get, path = "/collections/{collectionId}/tiles/{tileMatrixSetId}", tag = "tiles",
    params(("collectionId" = String, Path, description = "A collection id"),
           ("tileMatrixSetId" = String, Path, description = "WebMercatorQuad"),
           ("f" = Option<String>, Query, description = "json (also tilejson)")),
    responses((status = 200, description = "Tileset metadata and TileJSON", content_type = "application/json"),
              (status = 404, description = "No such collection or tile matrix set", content_type = "application/problem+json")))]
pub async fn tileset(
    State(st): State<AppState>,
    Path((id, tms)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    check_query(&q, &[], &["json", "tilejson"])?;
    if tms != TMS_ID {
        return Err(ApiError::NotFound(format!(
            "tile matrix set '{tms}' not found; only {TMS_ID} is served"
        )));
    }
    let layer = layer(&st, &id)?;
    let base = base_url(&st);
    let bounds = layer
        .bbox()
        .map(|r| vec![r.min().x, r.min().y, r.max().x, r.max().y]);
    let fields: Map<String, Value> = layer
        .features
        .first()
        .map(|f| {
            served_properties(&st, layer, 0)
                .keys()
                .map(String::as_str)
                .chain(f.properties.keys())
                .map(|k| (k.to_string(), Value::String("".into())))
                .collect()
        })
        .unwrap_or_default();
    let template = format!("{base}/collections/{id}/tiles/{TMS_ID}/{{z}}/{{y}}/{{x}}");
    let mut doc = tileset_summary(&id, &base);
    if let Some(links) = doc["links"].as_array_mut() {
        links.push(json!({
            "href": format!("{base}/collections/{id}/tiles/{TMS_ID}/{{tileMatrix}}/{{tileRow}}/{{tileCol}}"),
            "rel": "item", "type": MVT, "templated": true, "title": "Mapbox Vector Tiles"
        }));
        links.push(json!({"href": format!("{base}/collections/{id}"), "rel": "collection", "type": "application/json"}));
    }
    if let Some(b) = &bounds {
        doc["boundingBox"] =
            json!({"lowerLeft": [b[0], b[1]], "upperRight": [b[2], b[3]], "crs": CRS84});
    }
    doc["layers"] = json!([{"id": id, "dataType": "vector", "propertiesSchema": {
        "type": "object",
        "properties": fields.keys().map(|k| (k.clone(), json!({}))).collect::<Map<String, Value>>()
    }}]);
    doc["minTileMatrix"] = json!("0");
    doc["maxTileMatrix"] = json!(MAX_ZOOM.to_string());
    // TileJSON 3.0, for MapLibre.
    doc["tilejson"] = json!("3.0.0");
    doc["name"] = json!(id);
    doc["scheme"] = json!("xyz");
    doc["tiles"] = json!([template]);
    doc["minzoom"] = json!(0);
    doc["maxzoom"] = json!(MAX_ZOOM);
    doc["bounds"] = json!(bounds);
    doc["vector_layers"] = json!([{"id": id, "fields": fields}]);
    Ok(Json(doc))
}
