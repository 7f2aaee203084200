//! The storm sewer over HTTP: everything that drains to an outfall, and with a DEM its
//! sewershed (the surface and the network-aware catchment).

use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::limits::{bounded, Task};
use crate::params::{FromQuery, JsonOnly, Params};
use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use outfall_core::screening::parse_point;
use serde_json::Value;
use std::collections::HashMap;

#[utoipa::path(get, path = "/outfalls/{id}/upstream", tag = "review",
    params(("id" = String, Path, description = "A storm outfall's (or any storm structure's) id")),
    responses((status = 200, description = "The pipes and structures draining to the outfall, as GeoJSON", content_type = "application/geo+json"),
              (status = 404, description = "No storm network, or no structure with that id", content_type = "application/problem+json")))]
pub async fn upstream(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<JsonOnly>,
) -> ApiResult<Json<Value>> {
    let net = network(&st)?;
    let up = net
        .upstream(&id)
        .ok_or_else(|| ApiError::NotFound(format!("storm structure '{id}' not found")))?;
    Ok(Json(net.upstream_geojson(&st.catalog.layers, &up)))
}

fn network(st: &AppState) -> ApiResult<&outfall_core::storm::StormNetwork> {
    st.catalog
        .storm
        .as_deref()
        .ok_or_else(|| ApiError::NotFound("no storm network is loaded".into()))
}

/// `?point=LON,LAT`, the pour point of `/sewershed`.
pub struct PointQuery {
    pub point: [f64; 2],
}

impl FromQuery for PointQuery {
    const KNOWN: &'static [&'static str] = &["point"];
    const FORMATS: &'static [&'static str] = &["json"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        let text = q
            .get("point")
            .ok_or_else(|| ApiError::BadRequest("point=LON,LAT is required".into()))?;
        let p = parse_point(text)
            .ok_or_else(|| ApiError::BadRequest(format!("point '{text}' is not LON,LAT")))?;
        Ok(PointQuery {
            point: [p.x(), p.y()],
        })
    }
}

#[utoipa::path(get, path = "/outfalls/{id}/sewershed", tag = "review",
    params(("id" = String, Path, description = "A storm outfall's (or any storm structure's) id: the pour point")),
    responses((status = 200, description = "The surface and the network-aware catchment of the outfall (MultiPolygons with area_m2 and area_acres) and the inlets whose land was added or removed, as GeoJSON", content_type = "application/geo+json"),
              (status = 404, description = "No dem layer loaded, no storm network, or no structure with that id", content_type = "application/problem+json"),
              (status = 422, description = "The catchment is larger than max_catchment_cells", content_type = "application/problem+json"),
              (status = 503, description = "Every check slot is busy, or the sewershed did not finish in time", content_type = "application/problem+json")))]
pub async fn outfall_sewershed(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<JsonOnly>,
) -> ApiResult<Json<Value>> {
    let net = network(&st)?;
    let s = net
        .structure(&id)
        .ok_or_else(|| ApiError::NotFound(format!("storm structure '{id}' not found")))?;
    let at = net.structures[s].at;
    sewershed_of(st, at).await
}

#[utoipa::path(get, path = "/sewershed", tag = "review",
    params(("point" = String, Query, description = "The pour point, LON,LAT")),
    responses((status = 200, description = "The surface and the network-aware catchment of the point, as GeoJSON", content_type = "application/geo+json"),
              (status = 404, description = "No dem layer loaded", content_type = "application/problem+json"),
              (status = 422, description = "The point is off the DEM, or its catchment is larger than max_catchment_cells", content_type = "application/problem+json"),
              (status = 503, description = "Every check slot is busy, or the sewershed did not finish in time", content_type = "application/problem+json")))]
pub async fn point_sewershed(
    State(st): State<AppState>,
    Params(q): Params<PointQuery>,
) -> ApiResult<Json<Value>> {
    sewershed_of(st, q.point).await
}

/// The sewershed of a lon/lat pour point, computed as a check is: in one of its slots,
/// under its deadline, stopped when the client goes away, and refused past
/// `max_catchment_cells`.
async fn sewershed_of(st: AppState, at: [f64; 2]) -> ApiResult<Json<Value>> {
    if st.catalog.dem.is_none() {
        return Err(ApiError::NotFound(
            "no dem layer loaded: a sewershed needs a DEM (a `dem` layer in the manifest)".into(),
        ));
    }
    let catalog = st.catalog.clone();
    let max_cells = st.limits.max_catchment_cells;
    bounded(
        &st.checks,
        &st.limits,
        Task::named("the sewershed"),
        move |_| {
            let dem = catalog
                .dem
                .as_ref()
                .ok_or_else(|| ApiError::NotFound("no dem layer loaded".into()))?;
            let s = dem.sewershed_within(catalog.storm.as_deref(), at, max_cells)?;
            Ok(Json(dem.sewershed_geojson(&s)?))
        },
    )
    .await
}
