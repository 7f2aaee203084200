//! The query parameters of every route family, parsed in one place. Each family is a type
//! that names the parameters it takes and the formats (`f`) it offers; the `Params`
//! extractor refuses any other parameter with a 400 naming it (OGC API – Features Part 1,
//! /req/core/query-param-unknown, applied to every resource), then parses the values, so a
//! bad value answers a 400 that names its parameter before the handler runs.

use crate::error::ApiError;
use crate::extract::Query;
use crate::negotiate::{check_query, wants_html};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::HeaderMap;
use chrono::NaiveDate;
use geo_types::Rect;
use outfall_core::period::Period;
use std::collections::HashMap;

/// A route family's query: the parameters it takes besides `f`, the formats it offers,
/// and how its values are read.
pub trait FromQuery: Sized {
    const KNOWN: &'static [&'static str];
    const FORMATS: &'static [&'static str];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError>;
}

/// A family's parsed query, or the 400 that names what is wrong with it.
pub struct Params<T>(pub T);

impl<S, T> FromRequestParts<S> for Params<T>
where
    T: FromQuery,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(q) = Query::<HashMap<String, String>>::from_request_parts(parts, state).await?;
        check_query(&q, T::KNOWN, T::FORMATS)?;
        T::from_query(&q).map(Params)
    }
}

/// Declares a family that takes `f` alone, among `formats`.
macro_rules! format_only {
    ($(#[$doc:meta])* $name:ident, [$($format:literal),+]) => {
        $(#[$doc])*
        pub struct $name;

        impl FromQuery for $name {
            const KNOWN: &'static [&'static str] = &[];
            const FORMATS: &'static [&'static str] = &[$($format),+];
            fn from_query(_: &HashMap<String, String>) -> Result<Self, ApiError> {
                Ok($name)
            }
        }
    };
}

format_only!(
    /// The JSON resources with nothing to choose: conformance, collections, a collection,
    /// the tile matrix sets, a collection's tilesets, and the review's reports and records.
    JsonOnly,
    ["json"]
);
format_only!(
    /// One feature.
    ItemQuery,
    ["json", "geojson"]
);
format_only!(
    /// A tileset's metadata, which is also its TileJSON.
    TilesetQuery,
    ["json", "tilejson"]
);
format_only!(
    /// The printable reports.
    HtmlOnly,
    ["html"]
);
format_only!(
    /// A site's disturbance as GeoJSON.
    GeoJsonDownload,
    ["geojson"]
);
/// A site's disturbance as a zipped Shapefile: `crs` is the system to write it in
/// ("source", "wgs84" or an EPSG code), WGS84 when absent.
pub struct ZipDownload {
    pub crs: Option<String>,
}

impl FromQuery for ZipDownload {
    const KNOWN: &'static [&'static str] = &["crs"];
    const FORMATS: &'static [&'static str] = &["zip"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        Ok(ZipDownload {
            crs: given(q, "crs"),
        })
    }
}

/// A trimmed parameter, `None` when absent or blank.
fn given(q: &HashMap<String, String>, key: &str) -> Option<String> {
    q.get(key)
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
}
format_only!(
    /// One vector tile.
    TileQuery,
    ["mvt"]
);
format_only!(
    /// The Prometheus metrics.
    MetricsQuery,
    ["text"]
);

/// The landing page and `/api`: JSON, or HTML for `?f=html` and browsers.
pub struct PageQuery {
    f: HashMap<String, String>,
}

impl PageQuery {
    pub fn wants_html(&self, headers: &HeaderMap) -> bool {
        wants_html(headers, &self.f)
    }
}

impl FromQuery for PageQuery {
    const KNOWN: &'static [&'static str] = &[];
    const FORMATS: &'static [&'static str] = &["json", "html"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        Ok(PageQuery { f: q.clone() })
    }
}

pub const DEFAULT_LIMIT: usize = 100;
pub const MAX_LIMIT: usize = 10_000;

/// `/collections/{id}/items`: OGC API – Features Part 1 core, no more.
pub struct ItemsQuery {
    /// Features per page, 1..=`MAX_LIMIT` (a larger one is cut to it).
    pub limit: usize,
    pub offset: usize,
    /// One rectangle, or two when the bbox crosses the antimeridian.
    pub rects: Option<Vec<Rect<f64>>>,
    pub period: Option<Period>,
    /// `bbox` and `datetime` as the client sent them, for the page links.
    pub bbox_text: Option<String>,
    pub datetime_text: Option<String>,
}

impl FromQuery for ItemsQuery {
    const KNOWN: &'static [&'static str] = &["limit", "offset", "bbox", "datetime"];
    const FORMATS: &'static [&'static str] = &["json", "geojson"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        let limit = parse_count(q, "limit", DEFAULT_LIMIT)?;
        if limit == 0 {
            return Err(ApiError::BadRequest("limit must be at least 1".into()));
        }
        let offset = parse_count(q, "offset", 0)?;
        let rects = q.get("bbox").map(|b| parse_bbox(b)).transpose()?;
        let period = q
            .get("datetime")
            .map(|d| Period::parse_datetime(d).map_err(ApiError::BadRequest))
            .transpose()?;
        Ok(ItemsQuery {
            limit: limit.min(MAX_LIMIT),
            offset,
            rects,
            period,
            bbox_text: q.get("bbox").cloned(),
            datetime_text: q.get("datetime").cloned(),
        })
    }
}

fn parse_count(q: &HashMap<String, String>, key: &str, default: usize) -> Result<usize, ApiError> {
    match q.get(key) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<usize>()
            .map_err(|_| ApiError::BadRequest(format!("{key} '{v}' must be a whole number"))),
    }
}

/// A bbox as one rectangle, or two when it crosses the antimeridian (minlon > maxlon, as
/// OGC API – Features says).
fn parse_bbox(s: &str) -> Result<Vec<Rect<f64>>, ApiError> {
    let nums: Result<Vec<f64>, _> = s.split(',').map(|p| p.trim().parse::<f64>()).collect();
    let nums = nums.map_err(|_| {
        ApiError::BadRequest(format!("bbox '{s}' must be 4 comma-separated numbers"))
    })?;
    let (x0, y0, x1, y1) = match nums[..] {
        [a, b, c, d] => (a, b, c, d),
        [a, b, _, c, d, _] => (a, b, c, d),
        _ => {
            return Err(ApiError::BadRequest(format!(
                "bbox '{s}' must have 4 (or 6) numbers"
            )))
        }
    };
    if !(x0.is_finite() && y0.is_finite() && x1.is_finite() && y1.is_finite())
        || y0 > y1
        || y0 < -90.0
        || y1 > 90.0
    {
        return Err(ApiError::BadRequest(format!(
            "bbox '{s}' is not minlon,minlat,maxlon,maxlat"
        )));
    }
    let rect = |a: f64, b: f64| {
        Rect::new(
            geo_types::coord! { x: a, y: y0 },
            geo_types::coord! { x: b, y: y1 },
        )
    };
    Ok(if x0 > x1 {
        vec![rect(x0, 180.0_f64.max(x0)), rect((-180.0_f64).min(x1), x1)]
    } else {
        vec![rect(x0, x1)]
    })
}

/// `/sites`: the sites of one status (a code, or a word of the status vocabulary).
pub struct SitesQuery {
    pub status: Option<String>,
}

impl FromQuery for SitesQuery {
    const KNOWN: &'static [&'static str] = &["status"];
    const FORMATS: &'static [&'static str] = &["json"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        Ok(SitesQuery {
            status: q.get("status").cloned(),
        })
    }
}

/// `/search`: the text looked for, required, at most `search::MAX_QUERY_CHARS` characters.
pub struct SearchQuery {
    /// Normalized once, never empty.
    pub q: outfall_core::search::Query,
}

impl FromQuery for SearchQuery {
    const KNOWN: &'static [&'static str] = &["q"];
    const FORMATS: &'static [&'static str] = &["json"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        use outfall_core::search::{Query, MAX_QUERY_CHARS};
        let typed = q.get("q").map(String::as_str).unwrap_or_default();
        let chars = typed.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(ApiError::BadRequest(format!(
                "q has {chars} characters; at most {MAX_QUERY_CHARS} are searched"
            )));
        }
        let query = Query::new(typed);
        if query.text().is_empty() {
            return Err(ApiError::BadRequest("q is required".into()));
        }
        Ok(SearchQuery { q: query })
    }
}

/// A registry list (a site's inspections): a page of it, as items are paged.
pub struct ListQuery {
    /// Rows per page, 1..=`MAX_LIMIT` (a larger one is cut to it).
    pub limit: usize,
    pub offset: usize,
}

impl FromQuery for ListQuery {
    const KNOWN: &'static [&'static str] = &["limit", "offset"];
    const FORMATS: &'static [&'static str] = &["json"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        let limit = parse_count(q, "limit", DEFAULT_LIMIT)?;
        if limit == 0 {
            return Err(ApiError::BadRequest("limit must be at least 1".into()));
        }
        Ok(ListQuery {
            limit: limit.min(MAX_LIMIT),
            offset: parse_count(q, "offset", 0)?,
        })
    }
}

/// `/inspections/due` and its day sheet: the day to schedule for, default today.
pub struct DueQuery {
    pub as_of: NaiveDate,
}

impl FromQuery for DueQuery {
    const KNOWN: &'static [&'static str] = &["as_of"];
    const FORMATS: &'static [&'static str] = &["json", "html"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        let as_of = match q.get("as_of").map(|s| s.trim()).filter(|s| !s.is_empty()) {
            Some(s) => outfall_core::calendar::parse_as_of(s)
                .map_err(|e| ApiError::BadRequest(e.to_string()))?,
            None => chrono::Local::now().date_naive(),
        };
        Ok(DueQuery { as_of })
    }
}

/// `POST /check` and its exports: the coordinate system the user chose and the upload's
/// name.
pub struct CheckQuery {
    /// Trimmed; `None` when absent or blank.
    pub crs: Option<String>,
    pub name: Option<String>,
}

impl FromQuery for CheckQuery {
    const KNOWN: &'static [&'static str] = &["crs", "name"];
    const FORMATS: &'static [&'static str] = &["json"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        Ok(CheckQuery {
            crs: given(q, "crs"),
            name: q.get("name").cloned(),
        })
    }
}

/// `POST /check/export.zip`: the check's query, and `export_crs`, the system to write the
/// Shapefile in (`crs` already names the upload's own system).
pub struct CheckZipQuery {
    pub check: CheckQuery,
    pub export_crs: Option<String>,
}

impl FromQuery for CheckZipQuery {
    const KNOWN: &'static [&'static str] = &["crs", "name", "export_crs"];
    const FORMATS: &'static [&'static str] = &["json"];
    fn from_query(q: &HashMap<String, String>) -> Result<Self, ApiError> {
        Ok(CheckZipQuery {
            check: CheckQuery::from_query(q)?,
            export_crs: given(q, "export_crs"),
        })
    }
}
