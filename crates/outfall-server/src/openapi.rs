//! The OpenAPI document at `/api` (`rel=service-desc`) and its HTML rendering
//! (`rel=service-doc`). Both come from the route table: each handler's `#[utoipa::path]`
//! gives its path, method and parameters, and `app()` registers the handler and its
//! description in one `routes!` call, so the document cannot list a route the server lacks.

use crate::error::ApiResult;
use crate::params::{PageQuery, Params};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde_json::{json, Value};
use std::sync::Arc;
use utoipa::OpenApi;

/// The media type of an OpenAPI 3.0 document in JSON.
pub const OPENAPI_JSON: &str = "application/vnd.oai.openapi+json;version=3.0";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Outfall",
        description = "Stormwater review: OGC API – Features and Tiles for the data set's layers, and the review of construction sites under the local law."
    ),
    tags(
        (name = "ogc", description = "OGC API – Features Part 1"),
        (name = "tiles", description = "OGC API – Tiles: Mapbox Vector Tiles in WebMercatorQuad"),
        (name = "review", description = "Site review: reports, traces, checks, the rulebook"),
        (name = "registry", description = "The site registry: applications, approvals, inspections, history (writes need a bearer token)"),
        (name = "inspections", description = "The inspection calendar of (9)(a)[2]"),
        (name = "viewer", description = "The map viewer's own resources"),
        (name = "service", description = "For balancers and operators: liveness, readiness, metrics")
    )
)]
pub struct ApiDoc;

/// The route table's document as OpenAPI 3.0. utoipa writes 3.1; every construct used here
/// (plain string and integer parameters, media types without schemas) means the same in
/// 3.0, which `openapi-spec-validator` checks in `make test`. The one 3.1-only member it
/// writes, the license's SPDX `identifier`, becomes the 3.0 license `url`.
pub fn document_json(doc: &utoipa::openapi::OpenApi, public_url: &str) -> Value {
    let mut v = serde_json::to_value(doc).unwrap_or_else(|_| json!({}));
    v["openapi"] = json!("3.0.3");
    if let Some(license) = v["info"]["license"].as_object_mut() {
        if let Some(Value::String(spdx)) = license.remove("identifier") {
            license.insert(
                "url".into(),
                json!(format!("https://spdx.org/licenses/{spdx}.html")),
            );
        }
    }
    v["info"]["version"] = json!(env!("CARGO_PKG_VERSION"));
    v["servers"] = json!([{"url": public_url}]);
    v
}

/// `/api`: the OpenAPI document (JSON), or its HTML page for browsers and `?f=html`.
#[utoipa::path(get, path = "/api", tag = "ogc",
    params(("f" = Option<String>, Query, description = "json or html")),
    responses((status = 200, description = "The OpenAPI 3.0 document, or its HTML page", content_type = "application/vnd.oai.openapi+json;version=3.0")))]
pub async fn document(
    State(st): State<AppState>,
    Extension(doc): Extension<Arc<utoipa::openapi::OpenApi>>,
    headers: HeaderMap,
    Params(q): Params<PageQuery>,
) -> ApiResult<Response> {
    let v = document_json(&doc, &st.public_url);
    let mut res = if q.wants_html(&headers) {
        (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            render_html(&v),
        )
            .into_response()
    } else {
        ([(header::CONTENT_TYPE, OPENAPI_JSON)], v.to_string()).into_response()
    };
    res.headers_mut()
        .insert(header::VARY, header::HeaderValue::from_static("Accept"));
    Ok(res)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A plain page listing every operation with its parameters and answers; no script, so
/// the Content-Security-Policy needs nothing more.
fn render_html(doc: &Value) -> String {
    let text = |v: &Value| v.as_str().map(esc).unwrap_or_default();
    let mut out = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} API</title>\
<style>body{{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}\
code{{background:#f2f2f2;padding:0 .2em}}h2{{margin-top:2rem;font-size:1.1rem}}td,th{{text-align:left;padding:.1rem .6rem .1rem 0;vertical-align:top}}</style>\
</head><body><h1>{} API</h1><p>{}</p><p>OpenAPI 3.0 document: <a href=\"api?f=json\"><code>/api</code></a></p>",
        text(&doc["info"]["title"]),
        text(&doc["info"]["title"]),
        text(&doc["info"]["description"]),
    );
    if let Some(paths) = doc["paths"].as_object() {
        for (path, ops) in paths {
            for (method, op) in ops.as_object().into_iter().flatten() {
                out.push_str(&format!(
                    "<h2><code>{} {}</code></h2><p>{}</p>",
                    esc(&method.to_uppercase()),
                    esc(path),
                    [text(&op["summary"]), text(&op["description"])]
                        .into_iter()
                        .find(|t| !t.is_empty())
                        .unwrap_or_default()
                ));
                let params = op["parameters"].as_array().cloned().unwrap_or_default();
                if !params.is_empty() {
                    out.push_str("<table><tr><th>parameter</th><th>in</th><th>what</th></tr>");
                    for p in &params {
                        out.push_str(&format!(
                            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                            text(&p["name"]),
                            text(&p["in"]),
                            text(&p["description"])
                        ));
                    }
                    out.push_str("</table>");
                }
                out.push_str("<ul>");
                for (status, r) in op["responses"].as_object().into_iter().flatten() {
                    out.push_str(&format!(
                        "<li><code>{}</code> {}</li>",
                        esc(status),
                        text(&r["description"])
                    ));
                }
                out.push_str("</ul>");
            }
        }
    }
    out.push_str("</body></html>");
    out
}
