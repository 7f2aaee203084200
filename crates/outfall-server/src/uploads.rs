//! Uploaded checks and exports. `POST /check` takes a GeoJSON, a zipped Shapefile, a KML or a
//! GeoPackage (told by its bytes), with `?crs=EPSG:n` when the user chose a coordinate system
//! and `?name=` naming the file (or "drawn polygon") in the report. The exports give a site's
//! or a check's disturbance, one feature per phase, as GeoJSON or a zipped Shapefile.

use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::limits::{bounded, read_upload, Task};
use crate::params::{CheckQuery, CheckZipQuery, GeoJsonDownload, Params, ZipDownload};
use crate::state::AppState;
use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use outfall_core::budget::Budget;
use outfall_core::export;
use outfall_core::load::UploadFormat;
use outfall_core::report::Report;
use outfall_core::screening::{self, Subject};

/// What a check names its subject when the client gives no `name`.
const DEFAULT_NAME: &str = "upload";

/// The upload's name: `?name=`, else the `filename*=UTF-8''…` or `filename="…"` of a
/// `Content-Disposition` request header (how the viewer names a file while posting to the
/// plain `/check`), else "upload". Printable, at most 100 characters.
fn upload_name(q: &impl GivenName, headers: &HeaderMap) -> String {
    let from_header = || {
        let v = headers.get(header::CONTENT_DISPOSITION)?.to_str().ok()?;
        v.split(';').map(str::trim).find_map(|part| {
            if let Some(enc) = part.strip_prefix("filename*=UTF-8''") {
                percent_decode(enc)
            } else {
                part.strip_prefix("filename=")
                    .map(|n| n.trim_matches('"').to_string())
            }
        })
    };
    let given = q
        .given_name()
        .map(str::to_string)
        .or_else(from_header)
        .unwrap_or_default();
    let name: String = given
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(100)
        .collect();
    if name.trim().is_empty() {
        DEFAULT_NAME.into()
    } else {
        name
    }
}

/// Where a check's `name` parameter is read: the parsed query, or a raw one in the tests.
trait GivenName {
    fn given_name(&self) -> Option<&str>;
}

impl GivenName for CheckQuery {
    fn given_name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

#[cfg(test)]
impl GivenName for std::collections::HashMap<String, String> {
    fn given_name(&self) -> Option<&str> {
        self.get("name").map(String::as_str)
    }
}

/// `%XX` escapes decoded as UTF-8; None when malformed.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Reads, parses and checks an upload under the limits (`Limits::upload`: bytes, also
/// unpacked, features and coordinates), at most
/// `limits.max_concurrent_checks` at once (503 with Retry-After beyond), under the work
/// deadline. Gives the report and the subject it checked.
async fn run_check(
    st: &AppState,
    q: &CheckQuery,
    headers: &HeaderMap,
    body: Body,
) -> ApiResult<(Report, Subject)> {
    let body = read_upload(headers, body, &st.limits).await?;
    let name = upload_name(q, headers);
    let crs = q.crs.clone();
    // GeoJSON's size in vertices is known before parsing; other formats are counted after.
    let upload_limits = st.limits.upload();
    let sniffed = outfall_core::load::sniff_format(&body, &name).ok();
    let geojson_vertices =
        (sniffed == Some(UploadFormat::GeoJson)).then(|| outfall_core::load::count_vertices(&body));
    if let Some(vertices) = geojson_vertices {
        upload_limits
            .check_vertices(vertices)
            .map_err(|e| unusable(&name, e))?;
    }
    let catalog = st.catalog.clone();
    let hint = geojson_vertices
        .map(|v| format!("; the polygon may be too complex ({v} vertices)"))
        .unwrap_or_else(|| "; the polygon may be too complex".into());
    let started = std::time::Instant::now();
    let checked = bounded(
        &st.checks,
        &st.limits,
        Task::named("the check").hint(hint),
        move |budget| -> ApiResult<(Report, Subject)> {
            let upload =
                outfall_core::load::read_upload(&body, &name, crs.as_deref(), upload_limits)
                    .map_err(|e| unusable(&name, e))?;
            if let Some(p) = upload.problems.first() {
                return Err(ApiError::Unprocessable(format!(
                    "{}: feature {}: {}",
                    p.path, p.feature, p.reason
                )));
            }
            budget.check("checking the plan")?;
            check_plan(&catalog, &name, &upload, budget)
        },
    )
    .await;
    st.metrics.observe_check(started.elapsed());
    checked
}

/// Checks an upload that passed the limits: the core refuses what no site can be (no
/// polygon, a polygon across the antimeridian, a place far from the data set), and the
/// plan's record is checked as a `PATCH` is, so an unknown code is refused by name.
fn check_plan(
    catalog: &outfall_core::Catalog,
    name: &str,
    upload: &outfall_core::load::Upload,
    budget: &Budget,
) -> ApiResult<(Report, Subject)> {
    let unusable = |e| unusable(name, e);
    let (areas, outfall) = outfall_feature(&upload.features, &upload.site).map_err(unusable)?;
    screening::refuse_impossible(catalog, &areas, outfall).map_err(unusable)?;
    let first = areas.first().map(|f| f.properties.to_map());
    let record = outfall_core::registry::drawn_fields(
        &upload.site,
        first.unwrap_or_default(),
        &catalog.manifest.words,
    )
    .map_err(unusable)?;
    let subject = Subject::drawn(name, &areas, outfall, record, &catalog.manifest.words);
    Ok((screening::check_within(catalog, &subject, budget)?, subject))
}

/// Splits an upload into its disturbed areas and its outfall: one Point feature is the
/// applicant's outfall point (how a plan drawn in CAD or GIS marks it). Anything else that is
/// not an area is refused by name rather than dropped, so no fact given is silently ignored:
/// a line, a second point, or a point beside a `site.outfall` that already names one.
fn outfall_feature(
    features: &[outfall_core::load::Feature],
    site: &serde_json::Map<String, serde_json::Value>,
) -> outfall_core::Result<(
    Vec<outfall_core::load::Feature>,
    Option<geo_types::Point<f64>>,
)> {
    use geo_types::Geometry;
    let refuse = |m: String| Err(outfall_core::Error::Input(m));
    let mut areas = Vec::with_capacity(features.len());
    let mut point: Option<(&str, geo_types::Point<f64>)> = None;
    for f in features {
        match &f.geometry {
            Geometry::Polygon(_) | Geometry::MultiPolygon(_) => areas.push(f.clone()),
            Geometry::Point(p) => {
                if let Some((first, _)) = point {
                    return refuse(format!("features {first} and {} are both points; give one outfall point (the place the site's runoff leaves it)", f.id));
                }
                point = Some((&f.id, *p));
            }
            other => {
                return refuse(format!("feature {}: a {} is neither a disturbed area (Polygon) nor the outfall point (Point); remove it or draw it as one of those", f.id, geometry_words(other)));
            }
        }
    }
    let given = site.get("outfall").is_some_and(|v| !v.is_null());
    if let (true, Some((id, _))) = (given, point) {
        return refuse(format!(
            "the outfall is given twice: by site.outfall and by the point feature {id}; keep one"
        ));
    }
    Ok((areas, point.map(|(_, p)| p)))
}

fn geometry_words(g: &geo_types::Geometry<f64>) -> &'static str {
    use geo_types::Geometry;
    match g {
        Geometry::LineString(_) | Geometry::Line(_) => "line",
        Geometry::MultiLineString(_) => "set of lines",
        Geometry::MultiPoint(_) => "set of points",
        Geometry::GeometryCollection(_) => "geometry collection",
        _ => "shape",
    }
}

/// A refusal of the upload `name` by the core: its input errors are 422s that name it.
fn unusable(name: &str, e: outfall_core::Error) -> ApiError {
    match e {
        outfall_core::Error::Input(m) => ApiError::Unprocessable(format!("{name}: {m}")),
        other => other.into(),
    }
}

/// The OpenAPI description of an upload route, written once for `/check` and its two
/// exports: the same query, body and refusals; only the path and the 200 answer differ.
macro_rules! upload_route {
    ($path:literal, $ok:literal, $ok_type:literal, $handler:item) => {
        #[utoipa::path(post, path = $path, tag = "review",
            params(("crs" = Option<String>, Query, description = "The file's coordinate system when it does not say (e.g. EPSG:2261)"),
                   ("name" = Option<String>, Query, description = "What the report calls the upload")),
            request_body(content = String, content_type = "application/octet-stream", description = "GeoJSON (any CRS), a zipped Shapefile, KML or a GeoPackage (at most 2 MiB, also unpacked; 1,000 features; 20,000 coordinates)"),
            responses((status = 200, description = $ok, content_type = $ok_type),
                      (status = 413, description = "Over a size limit", content_type = "application/problem+json"),
                      (status = 422, description = "Not a usable upload, or its coordinate system must be chosen", content_type = "application/problem+json"),
                      (status = 503, description = "Busy, or the check did not finish in time", content_type = "application/problem+json")))]
        $handler
    };
}

upload_route!(
    "/check",
    "The review report",
    "application/json",
    /// `POST /check`: an uploaded or drawn disturbance → its report.
    pub async fn check(
        State(st): State<AppState>,
        Params(q): Params<CheckQuery>,
        headers: HeaderMap,
        body: Body,
    ) -> ApiResult<Json<Report>> {
        let (report, _) = run_check(&st, &q, &headers, body).await?;
        Ok(Json(report))
    }
);

upload_route!(
    "/check/export.geojson",
    "The checked disturbance, one feature per phase, with the findings",
    "application/geo+json",
    /// `POST /check/export.geojson`: the same body as `/check` → its phases with the findings.
    pub async fn check_export_geojson(
        State(st): State<AppState>,
        Params(q): Params<CheckQuery>,
        headers: HeaderMap,
        body: Body,
    ) -> ApiResult<Response> {
        let (report, subject) = run_check(&st, &q, &headers, body).await?;
        Ok(geojson_download(&subject, &report))
    }
);

/// `POST /check/export.zip`: the same as a zipped Shapefile, in `export_crs` when given.
#[utoipa::path(post, path = "/check/export.zip", tag = "review",
    params(("crs" = Option<String>, Query, description = "The file's coordinate system when it does not say (e.g. EPSG:2261)"),
           ("name" = Option<String>, Query, description = "What the report calls the upload"),
           ("export_crs" = Option<String>, Query, description = "The Shapefile's system: 'source' (the data set's own), 'wgs84' (the default) or an EPSG code")),
    request_body(content = String, content_type = "application/octet-stream", description = "As for /check"),
    responses((status = 200, description = "The checked disturbance as a zipped Shapefile", content_type = "application/zip"),
              (status = 400, description = "An unknown export_crs, named", content_type = "application/problem+json"),
              (status = 413, description = "Over a size limit", content_type = "application/problem+json"),
              (status = 422, description = "Not a usable upload, or its coordinate system must be chosen", content_type = "application/problem+json"),
              (status = 503, description = "Busy, or the check did not finish in time", content_type = "application/problem+json")))]
pub async fn check_export_zip(
    State(st): State<AppState>,
    Params(q): Params<CheckZipQuery>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    // A wrong name is refused before the check runs. The system is built again after it: a
    // PROJ handle is not `Send`, so it may not live across the check's await.
    export_crs(&st, q.export_crs.as_deref())?;
    let (report, subject) = run_check(&st, &q.check, &headers, body).await?;
    zip_download(
        &subject,
        &report,
        &export_crs(&st, q.export_crs.as_deref())?,
    )
}

/// The export's system, or a 400 naming the one asked for.
fn export_crs(st: &AppState, asked: Option<&str>) -> ApiResult<export::ExportCrs> {
    match asked {
        None => Ok(export::ExportCrs::wgs84()),
        Some(a) => export::ExportCrs::resolve(a, &st.catalog).map_err(|e| match e {
            outfall_core::Error::Input(m) => ApiError::BadRequest(m),
            other => other.into(),
        }),
    }
}

fn site_subject(st: &AppState, id: &str) -> ApiResult<(Report, Subject)> {
    let report = st
        .reports
        .get(id)
        .cloned()
        .ok_or_else(|| ApiError::NotFound(format!("site '{id}' not found")))?;
    let site = st.catalog.site(id)?;
    Ok((report, Subject::from_site(&st.catalog, site)))
}

/// `GET /sites/{id}/export.geojson`.
#[utoipa::path(get, path = "/sites/{id}/export.geojson", tag = "review", params(("id" = String, Path, description = "A site id")),
    responses((status = 200, description = "The site's disturbance, one feature per phase, with the findings", content_type = "application/geo+json"),
              (status = 404, description = "No such site", content_type = "application/problem+json")))]
pub async fn site_export_geojson(
    State(st): State<AppState>,
    Path(id): Path<String>,
    _: Params<GeoJsonDownload>,
) -> ApiResult<Response> {
    let (report, subject) = site_subject(&st, &id)?;
    Ok(geojson_download(&subject, &report))
}

/// `GET /sites/{id}/export.zip`.
#[utoipa::path(get, path = "/sites/{id}/export.zip", tag = "review",
    params(("id" = String, Path, description = "A site id"),
           ("crs" = Option<String>, Query, description = "The Shapefile's system: 'source' (the data set's own), 'wgs84' (the default) or an EPSG code")),
    responses((status = 200, description = "The site's disturbance as a zipped Shapefile", content_type = "application/zip"),
              (status = 400, description = "An unknown crs, named", content_type = "application/problem+json"),
              (status = 404, description = "No such site", content_type = "application/problem+json")))]
pub async fn site_export_zip(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Params(q): Params<ZipDownload>,
) -> ApiResult<Response> {
    let crs = export_crs(&st, q.crs.as_deref())?;
    let (report, subject) = site_subject(&st, &id)?;
    zip_download(&subject, &report, &crs)
}

fn attachment(file: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("attachment; filename=\"{file}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"))
}

fn geojson_download(subject: &Subject, report: &Report) -> Response {
    let fc = export::to_geojson(&export::phase_features(subject, report));
    let file = format!("{}-disturbance.geojson", export::file_stem(&report.site.id));
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/geo+json"),
            ),
            (header::CONTENT_DISPOSITION, attachment(&file)),
        ],
        fc.to_string(),
    )
        .into_response()
}

fn zip_download(
    subject: &Subject,
    report: &Report,
    crs: &export::ExportCrs,
) -> ApiResult<Response> {
    let stem = export::file_stem(&report.site.id);
    let mut features = export::phase_features(subject, report);
    crs.apply(&mut features)
        .map_err(|e| ApiError::Unprocessable(e.to_string()))?;
    let bytes = export::to_zipped_shapefile(&stem, &features, crs)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/zip"),
            ),
            (
                header::CONTENT_DISPOSITION,
                // Named for what it holds and whose it is: "S06-disturbance.zip".
                attachment(&format!("{stem}-disturbance.zip")),
            ),
        ],
        bytes,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn the_name_comes_from_the_query_or_content_disposition() {
        let mut h = HeaderMap::new();
        let q = HashMap::new();
        assert_eq!(upload_name(&q, &h), "upload");
        h.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment; filename*=UTF-8''plan%20%C3%A9.zip"),
        );
        assert_eq!(upload_name(&q, &h), "plan é.zip");
        h.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment; filename=\"site.kml\""),
        );
        assert_eq!(upload_name(&q, &h), "site.kml");
        let q = HashMap::from([("name".to_string(), "drawn polygon".to_string())]);
        assert_eq!(upload_name(&q, &h), "drawn polygon");
    }
}
