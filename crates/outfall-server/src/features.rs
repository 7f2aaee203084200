//! OGC API – Features, Part 1 Core with GeoJSON: landing page, conformance, collections and
//! items, so QGIS and GDAL read every layer with no extra code.

use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::geojson_write::{write_page, PageMeta};
use crate::limits::{blocking, secs};
use crate::params::{ItemQuery, ItemsQuery, JsonOnly, PageQuery, Params};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use geo::Intersects;
use geo_types::Rect;
use outfall_core::catalog::Layer;
use outfall_core::load::Feature;
use outfall_core::period::Period;
use serde_json::{json, Value};

const GEOJSON: &str = "application/geo+json";

/// The start of every absolute link: the configured public URL, never the Host header.
pub(super) fn base_url(st: &AppState) -> String {
    st.public_url.to_string()
}

/// A query value as it goes back into a link.
fn encode_query_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b',' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The OGC API – Features and Tiles conformance classes this service meets.
pub const CONFORMANCE: [&str; 10] = [
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
    "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset",
    "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list",
    "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets",
    "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/mvt",
    "http://www.opengis.net/spec/tms/2.0/conf/tilematrixset",
    "http://www.opengis.net/spec/tms/2.0/conf/json-tilematrixset",
];

/// `/`: the viewer for browsers (HTML first in Accept, or `?f=html`), the OGC landing page
/// for everything else.
#[utoipa::path(get, path = "/", tag = "ogc",
    params(("f" = Option<String>, Query, description = "json or html (the map viewer)")),
    responses((status = 200, description = "The landing page (JSON) or the map viewer (HTML)", content_type = "application/json")))]
pub async fn landing(
    State(st): State<AppState>,
    headers: HeaderMap,
    Params(q): Params<PageQuery>,
) -> ApiResult<Response> {
    if q.wants_html(&headers) {
        return Ok(
            match tokio::fs::read_to_string(st.web_dir.join("index.html")).await {
                Ok(html) => (
                    [
                        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                        (header::VARY, "Accept"),
                    ],
                    html,
                )
                    .into_response(),
                Err(e) => ApiError::Internal(format!("viewer index.html: {e}")).into_response(),
            },
        );
    }
    let base = base_url(&st);
    let mut res = Json(json!({
        "title": format!("Outfall — {}", st.catalog.manifest.name),
        "description": "Stormwater review layers: parcels, disturbance, sites, streams, impaired waters and TMDL watersheds.",
        "links": [
            {"href": format!("{base}/?f=json"), "rel": "self", "type": "application/json", "title": "This document"},
            {"href": format!("{base}/?f=html"), "rel": "alternate", "type": "text/html", "title": "Map viewer"},
            {"href": format!("{base}/api"), "rel": "service-desc", "type": crate::openapi::OPENAPI_JSON, "title": "OpenAPI 3.0 definition"},
            {"href": format!("{base}/api?f=html"), "rel": "service-doc", "type": "text/html", "title": "API documentation"},
            {"href": format!("{base}/conformance"), "rel": "conformance", "type": "application/json", "title": "Conformance classes"},
            {"href": format!("{base}/collections"), "rel": "data", "type": "application/json", "title": "Collections"},
            {"href": format!("{base}/tileMatrixSets"), "rel": "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes", "type": "application/json", "title": "Tile matrix sets"}
        ]
    }))
    .into_response();
    res.headers_mut()
        .insert(header::VARY, header::HeaderValue::from_static("Accept"));
    Ok(res)
}

#[utoipa::path(get, path = "/conformance", tag = "ogc",
    params(("f" = Option<String>, Query, description = "json")),
    responses((status = 200, description = "The conformance classes", content_type = "application/json")))]
pub async fn conformance(_: Params<JsonOnly>) -> ApiResult<Json<Value>> {
    Ok(Json(json!({ "conformsTo": CONFORMANCE })))
}

/// The viewer's start-up facts.
#[utoipa::path(get, path = "/config", tag = "viewer",
    responses((status = 200, description = "Data-set name, extent, optional basemap and collection ids", content_type = "application/json")))]
pub async fn config(State(st): State<AppState>, _: Params<JsonOnly>) -> Json<Value> {
    let bbox = st
        .catalog
        .bbox()
        .map(|r| vec![r.min().x, r.min().y, r.max().x, r.max().y]);
    // The view a town works in: its boundary, when it has one; a network that runs on to a
    // distant outlet (Clay's reaches Lake Ontario) would otherwise open the map far out.
    let home = st
        .catalog
        .layer(outfall_core::Role::Boundary)
        .and_then(|l| l.bbox())
        .map(|r| vec![r.min().x, r.min().y, r.max().x, r.max().y])
        .or_else(|| bbox.clone());
    Json(json!({
        "name": st.catalog.manifest.name,
        "bbox": bbox,
        "home": home,
        "basemap": st.catalog.manifest.basemap,
        "collections": st.catalog.layers.iter().map(|l| l.collection_id.clone()).collect::<Vec<_>>(),
        "max_upload_bytes": crate::state::MAX_UPLOAD_BYTES,
        // The data set's own system, which the export menu offers beside WGS84.
        "export_crs": outfall_core::export::dataset_crs(&st.catalog).ok(),
    }))
}

fn collection_json(st: &AppState, layer: &Layer, base: &str) -> Value {
    let id = &layer.collection_id;
    let description = match &layer.derived {
        Some(how) => format!("{} features: {how}", layer.features.len()),
        None => format!(
            "{} features from {} (source CRS {}, served in WGS84)",
            layer.features.len(),
            layer.source.path,
            layer.source.crs
        ),
    };
    let bbox = layer
        .bbox()
        .map(|r| vec![vec![r.min().x, r.min().y, r.max().x, r.max().y]])
        .unwrap_or_default();
    json!({
        "id": id,
        "title": format!("{} ({})", layer.config.role.as_str(), layer.source.path),
        "description": description,
        "itemType": "feature",
        "crs": ["http://www.opengis.net/def/crs/OGC/1.3/CRS84"],
        "extent": extent(st, layer, bbox),
        "links": [
            {"href": format!("{base}/collections/{id}"), "rel": "self", "type": "application/json"},
            {"href": format!("{base}/collections/{id}/items"), "rel": "items", "type": GEOJSON, "title": "Items"},
            {"href": format!("{base}/collections/{id}/tiles"), "rel": "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector", "type": "application/json", "title": "Vector tilesets"}
        ]
    })
}

/// The spatial extent, and the temporal one for dated layers (first start to last end).
fn extent(st: &AppState, layer: &Layer, bbox: Vec<Vec<f64>>) -> Value {
    let mut e =
        json!({"spatial": {"bbox": bbox, "crs": "http://www.opengis.net/def/crs/OGC/1.3/CRS84"}});
    if st.catalog.is_dated(layer) {
        let span = (0..layer.features.len())
            .filter_map(|i| st.catalog.period_of(layer, i))
            .reduce(|a, b| a.cover(&b));
        if let Some(p) = span {
            let day = |d: Option<chrono::NaiveDate>| d.map(|d| format!("{d}T00:00:00Z"));
            e["temporal"] = json!({"interval": [[day(p.start), day(p.end)]], "trs": "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian"});
        }
    }
    e
}

#[utoipa::path(get, path = "/collections", tag = "ogc",
    params(("f" = Option<String>, Query, description = "json")),
    responses((status = 200, description = "Every collection", content_type = "application/json")))]
pub async fn collections(
    State(st): State<AppState>,
    _: Params<JsonOnly>,
) -> ApiResult<Json<Value>> {
    let base = base_url(&st);
    Ok(Json(json!({
        "links": [{"href": format!("{base}/collections"), "rel": "self", "type": "application/json"}],
        "collections": st.catalog.layers.iter().map(|l| collection_json(&st, l, &base)).collect::<Vec<_>>()
    })))
}

pub(super) fn layer<'a>(st: &'a AppState, id: &str) -> ApiResult<&'a Layer> {
    st.catalog
        .collection(id)
        .ok_or_else(|| ApiError::NotFound(format!("collection '{id}' not found")))
}

#[utoipa::path(get, path = "/collections/{collectionId}", tag = "ogc",
    params(("collectionId" = String, Path, description = "A collection id"),
           ("f" = Option<String>, Query, description = "json")),
    responses((status = 200, description = "One collection", content_type = "application/json"),
              (status = 404, description = "No such collection", content_type = "application/problem+json")))]
pub async fn collection(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<JsonOnly>,
) -> ApiResult<Json<Value>> {
    Ok(Json(collection_json(&st, layer(&st, &id)?, &base_url(&st))))
}

pub(super) fn feature_json(st: &AppState, layer: &Layer, index: usize) -> Value {
    let f: &Feature = &layer.features[index];
    json!({
        "type": "Feature",
        "id": f.id,
        "geometry": geojson::Geometry::from(&f.geometry),
        "properties": st.presentation().served_properties(layer, index),
    })
}

/// What an items request selects, and how it reads back into a page link.
struct Selection {
    rects: Option<Vec<Rect<f64>>>,
    period: Option<Period>,
    /// `&bbox=...&datetime=...` as the client sent them, for next/prev links.
    query_text: String,
}

#[utoipa::path(get, path = "/collections/{collectionId}/items", tag = "ogc",
    params(("collectionId" = String, Path, description = "A collection id"),
           ("limit" = Option<u32>, Query, description = "Features per page: 1..10000, default 100"),
           ("offset" = Option<u32>, Query, description = "Features to skip"),
           ("bbox" = Option<String>, Query, description = "minlon,minlat,maxlon,maxlat (CRS84); minlon > maxlon crosses the antimeridian"),
           ("datetime" = Option<String>, Query, description = "Dated collections (disturbance, sites): an RFC 3339 date or date-time, or an interval a/b with .. for an open end"),
           ("f" = Option<String>, Query, description = "json or geojson")),
    responses((status = 200, description = "A page of features", content_type = "application/geo+json"),
              (status = 400, description = "A bad or unknown query parameter", content_type = "application/problem+json"),
              (status = 404, description = "No such collection", content_type = "application/problem+json")))]
pub async fn items(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Params(q): Params<ItemsQuery>,
) -> ApiResult<Response> {
    let layer = layer(&st, &id)?;
    if q.period.is_some() && !st.catalog.is_dated(layer) {
        return Err(ApiError::BadRequest(format!(
            "collection '{id}' has no dates; datetime applies to the disturbance and sites collections"
        )));
    }
    let (limit, offset, rects, period) = (q.limit, q.offset, q.rects, q.period);
    let query_text: String = [("bbox", &q.bbox_text), ("datetime", &q.datetime_text)]
        .iter()
        .filter_map(|(k, v)| {
            v.as_ref()
                .map(|v| format!("&{k}={}", encode_query_value(v)))
        })
        .collect();
    let sel = Selection {
        rects,
        period,
        query_text,
    };
    let deadline = st.limits.work_timeout;
    let body = blocking(
        deadline,
        move || items_page(&st, &id, sel, limit, offset),
        || ApiError::Unavailable {
            detail: format!(
                "the items page did not finish within {}; ask for a smaller limit or bbox",
                secs(deadline)
            ),
            retry_after_secs: None,
        },
    )
    .await?;
    Ok((
        [(header::CONTENT_TYPE, GEOJSON)],
        axum::body::Body::from(body),
    )
        .into_response())
}

/// A vertex inside the (closed) bbox settles that the feature meets it, with no need for
/// geo's exact test, which walks every segment against the box's edges (over half the CPU
/// of a 100k-parcel items page went there). Polygons, the common case, are scanned ring by
/// ring as plain slices.
fn has_vertex_in(g: &geo_types::Geometry<f64>, rect: &Rect<f64>) -> bool {
    use geo::CoordsIter;
    use geo_types::{Coord, Geometry, Polygon};
    let (lo, hi) = (rect.min(), rect.max());
    let inside = |c: &Coord<f64>| lo.x <= c.x && c.x <= hi.x && lo.y <= c.y && c.y <= hi.y;
    let polygon = |p: &Polygon<f64>| {
        p.exterior().0.iter().any(inside) || p.interiors().iter().any(|r| r.0.iter().any(inside))
    };
    match g {
        Geometry::Polygon(p) => polygon(p),
        Geometry::MultiPolygon(mp) => mp.0.iter().any(polygon),
        other => other.coords_iter().any(|c| inside(&c)),
    }
}

/// One page of items as GeoJSON text (CPU work: run on the blocking pool).
fn items_page(
    st: &AppState,
    id: &str,
    sel: Selection,
    limit: usize,
    offset: usize,
) -> ApiResult<Vec<u8>> {
    let layer = layer(st, id)?;
    let mut matched: Vec<usize> = match sel.rects {
        Some(rects) => {
            let mut v: Vec<usize> = Vec::new();
            for rect in rects {
                // A feature whose envelope lies inside the bbox needs no exact test.
                let inside = |r: Rect<f64>| {
                    r.min().x >= rect.min().x
                        && r.max().x <= rect.max().x
                        && r.min().y >= rect.min().y
                        && r.max().y <= rect.max().y
                };
                // The envelope comes from the index: no vertex is read for it.
                v.extend(layer.query_envelopes(rect).filter_map(|(i, envelope)| {
                    let g = &layer.features[i].geometry;
                    (inside(envelope) || has_vertex_in(g, &rect) || g.intersects(&rect))
                        .then_some(i)
                }));
            }
            v.sort_unstable();
            v.dedup();
            v
        }
        None => (0..layer.features.len()).collect(),
    };
    if let Some(want) = sel.period {
        // A feature with no date at all is left out: nothing says it was active then.
        matched.retain(|&i| {
            st.catalog
                .period_of(layer, i)
                .is_some_and(|p| p.overlaps(&want))
        });
    }
    let page: Vec<usize> = matched.iter().skip(offset).take(limit).copied().collect();
    let base = base_url(st);
    let query_text = &sel.query_text;
    let href = |off: usize| {
        format!("{base}/collections/{id}/items?limit={limit}&offset={off}{query_text}")
    };
    let mut links = vec![
        json!({"href": href(offset), "rel": "self", "type": GEOJSON}),
        json!({"href": format!("{base}/collections/{id}"), "rel": "collection", "type": "application/json"}),
    ];
    if offset + page.len() < matched.len() {
        links.push(json!({"href": href(offset + limit), "rel": "next", "type": GEOJSON}));
    }
    if offset > 0 {
        links.push(
            json!({"href": href(offset.saturating_sub(limit)), "rel": "prev", "type": GEOJSON}),
        );
    }
    let time_stamp = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let meta = PageMeta {
        links: &links,
        number_matched: matched.len(),
        time_stamp: &time_stamp,
    };
    Ok(write_page(st, layer, &page, meta))
}

#[utoipa::path(get, path = "/collections/{collectionId}/items/{featureId}", tag = "ogc",
    params(("collectionId" = String, Path, description = "A collection id"),
           ("featureId" = String, Path, description = "A feature id"),
           ("f" = Option<String>, Query, description = "json or geojson")),
    responses((status = 200, description = "One feature", content_type = "application/geo+json"),
              (status = 404, description = "No such collection or feature", content_type = "application/problem+json")))]
pub async fn item(
    State(st): State<AppState>,
    Path((id, fid)): Path<(String, String)>,
    _: Params<ItemQuery>,
) -> ApiResult<Response> {
    let layer = layer(&st, &id)?;
    let index = layer.position(&fid).ok_or_else(|| {
        ApiError::NotFound(format!("feature '{fid}' not found in collection '{id}'"))
    })?;
    let base = base_url(&st);
    let mut body = feature_json(&st, layer, index);
    let fid_path = encode_query_value(&fid);
    body["links"] = json!([
        {"href": format!("{base}/collections/{id}/items/{fid_path}"), "rel": "self", "type": GEOJSON},
        {"href": format!("{base}/collections/{id}"), "rel": "collection", "type": "application/json"}
    ]);
    Ok(([(header::CONTENT_TYPE, GEOJSON)], body.to_string()).into_response())
}
