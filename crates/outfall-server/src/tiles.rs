//! Vector tiles per collection, encoded by the core's tile source on first request and
//! kept in its cache; each tile carries an ETag and a matching `If-None-Match` answers 304.

use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::features::{base_url, layer};
use crate::limits::{blocking, secs};
use crate::params::{JsonOnly, Params, TileQuery, TilesetQuery};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use outfall_core::tiles::{self as mvt, CachedTile, TileId, TileKey};
use serde_json::{json, Map, Value};

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
    headers: HeaderMap,
    _: Params<TileQuery>,
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
    let key = TileKey {
        collection: id.clone(),
        z,
        x,
        y,
    };
    let cached = st.tile_cache.lock().ok().and_then(|mut c| c.get(&key));
    st.metrics.count_tile(cached.is_some());
    let tile = match cached {
        Some(t) => t,
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
    Ok(tile_response(&tile, &headers))
}

/// The tile with its ETag, 304 when `If-None-Match` names it, 204 when it holds nothing.
fn tile_response(tile: &CachedTile, headers: &HeaderMap) -> Response {
    let (Some(bytes), Some(etag)) = (&tile.bytes, &tile.etag) else {
        return StatusCode::NO_CONTENT.into_response();
    };
    let etag = HeaderValue::from_str(etag).unwrap_or(HeaderValue::from_static("W/\"0\""));
    let seen = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| tile.matches(v));
    if seen {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response();
    }
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(MVT)),
            (header::ETAG, etag),
        ],
        Bytes::from_owner(bytes.clone()),
    )
        .into_response()
}

/// Encodes a tile (CPU work: run on the blocking pool) and caches it, empty or not.
fn encode_and_cache(st: &AppState, id: &str, tid: TileId, key: TileKey) -> CachedTile {
    let p = st.presentation();
    let tile = mvt::collection_tile(&st.catalog, &|l, i| p.served_properties(l, i), id, tid);
    if let Ok(mut c) = st.tile_cache.lock() {
        c.insert(key, tile.clone());
    }
    tile
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
    _: Params<JsonOnly>,
) -> ApiResult<Json<Value>> {
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
    _: Params<JsonOnly>,
) -> ApiResult<Json<Value>> {
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
    _: Params<JsonOnly>,
) -> ApiResult<Json<Value>> {
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
    _: Params<TilesetQuery>,
) -> ApiResult<Json<Value>> {
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
            st.presentation()
                .served_properties(layer, 0)
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
