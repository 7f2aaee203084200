//! The storm sewer over HTTP: everything that drains to an outfall.

use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::params::{JsonOnly, Params};
use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use serde_json::Value;

#[utoipa::path(get, path = "/outfalls/{id}/upstream", tag = "review",
    params(("id" = String, Path, description = "A storm outfall's (or any storm structure's) id")),
    responses((status = 200, description = "The pipes and structures draining to the outfall, as GeoJSON", content_type = "application/geo+json"),
              (status = 404, description = "No storm network, or no structure with that id", content_type = "application/problem+json")))]
pub async fn upstream(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<JsonOnly>,
) -> ApiResult<Json<Value>> {
    let net = st
        .catalog
        .storm
        .as_ref()
        .ok_or_else(|| ApiError::NotFound("no storm network is loaded".into()))?;
    let up = net
        .upstream(&id)
        .ok_or_else(|| ApiError::NotFound(format!("storm structure '{id}' not found")))?;
    Ok(Json(net.upstream_geojson(&st.catalog.layers, &up)))
}
