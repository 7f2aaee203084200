//! Reading layers from Shapefile, GeoJSON and CSV into WGS84 features. Each feature is
//! checked (empty, non-finite, unclosed, self-intersecting) and oriented here, once, so
//! everything downstream can trust it. One bad feature is reported and skipped; the rest load.

mod archive;
mod checks;
mod crs;
pub(crate) mod fgb;
mod geojson;
mod geometry;
mod gpkg;
mod guard;
mod kml;
mod layer_file;
pub mod rainfall;
mod shapefile;
mod sort;
mod table;
mod upload;
mod valid;
pub mod wkb;

pub use crs::{identify, CrsIdentity, Reprojector};
pub(crate) use geometry::check_geometry;
pub use guard::{count_vertices, UploadLimits, MAX_ZIP_MEMBERS};
pub use layer_file::load_layer;
pub use table::read_table;
pub use upload::{read_upload, sniff_format, Upload, UploadFormat};

use crate::attributes::Properties;
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use geo_types::{Geometry, Rect};
use rstar::primitives::{GeomWithData, Rectangle};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// A feature in WGS84 lon/lat with its source attributes.
#[derive(Debug, Clone)]
pub struct Feature {
    pub id: String,
    pub geometry: Geometry<f64>,
    pub properties: Properties,
}

/// Where a layer came from, so a report can be reproduced.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourceInfo {
    pub role: String,
    pub path: String,
    pub sha256: String,
    pub features: usize,
    pub crs: String,
}

/// A feature that could not be loaded, named so a user can find and fix it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoadProblem {
    pub path: String,
    pub feature: String,
    pub reason: String,
    /// For a disturbance feature: the site it belongs to (its `site_field` value), so the
    /// site's report can say which of its inputs was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
}

impl From<&Error> for LoadProblem {
    fn from(e: &Error) -> Self {
        match e {
            Error::Feature {
                path,
                feature,
                reason,
            } => LoadProblem {
                path: path.display().to_string(),
                feature: feature.clone(),
                reason: reason.clone(),
                site: None,
            },
            other => LoadProblem {
                path: String::new(),
                feature: String::new(),
                reason: other.to_string(),
                site: None,
            },
        }
    }
}

#[derive(Debug, Clone)]
pub struct LoadedLayer {
    pub source: SourceInfo,
    pub features: Vec<Feature>,
    pub problems: Vec<LoadProblem>,
    /// What a reader already knows of the layer's index (the prepared cache), so that
    /// building the layer does not work it out again.
    pub hints: IndexHints,
}

/// Index inputs a reader may hand over; each is checked or ignored, never trusted blindly.
#[derive(Debug, Clone, Default)]
pub struct IndexHints {
    /// The R-tree's entries (each feature's bounding box and position), in any order.
    pub entries: Option<Vec<IndexEntry>>,
    /// Feature positions sorted by (id, position): the layer's id order, as a reader knows it.
    pub by_id: Option<Vec<u32>>,
}

/// One R-tree entry of a layer: a feature's bounding box (lon/lat) and its position. Defined
/// here, below the layer, because a reader may hand a layer its entries ready made.
pub type IndexEntry = GeomWithData<Rectangle<[f64; 2]>, usize>;

/// The R-tree rectangle of a lon/lat bounding box.
pub(crate) fn rectangle(r: Rect<f64>) -> Rectangle<[f64; 2]> {
    Rectangle::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y])
}

/// A table row (CSV) for impaired lists published without geometry.
pub type Row = Map<String, Value>;

/// A feature a reader refused, with its attributes when they could be read (so a
/// disturbance feature's site can be named).
#[derive(Debug)]
pub(crate) struct Refused {
    pub feature: String,
    pub reason: String,
    pub properties: Option<Map<String, Value>>,
}

impl Refused {
    pub(crate) fn new(feature: impl Into<String>, reason: impl Into<String>) -> Self {
        Refused {
            feature: feature.into(),
            reason: reason.into(),
            properties: None,
        }
    }
}

/// What a reader gives back: every feature in file order (loaded or refused), the CRS it was
/// read in, and the file's columns.
pub(crate) struct Raw {
    pub items: Vec<std::result::Result<Feature, Refused>>,
    pub crs: String,
    /// The CRS's area of use (west, south, east, north), when known.
    pub area_of_use: Option<[f64; 4]>,
    pub columns: Vec<String>,
}

/// Picks the feature id: the configured id field, else the file's own id, else `#n` (1-based).
pub(crate) fn feature_id(
    props: &Map<String, Value>,
    id_field: Option<&str>,
    native: Option<String>,
    index: usize,
) -> String {
    feature_id_from(id_field.and_then(|f| props.get(f)), native, index)
}

/// `feature_id` given the id field's value.
pub(crate) fn feature_id_from(
    value: Option<&Value>,
    native: Option<String>,
    index: usize,
) -> String {
    value
        .and_then(value_text)
        .or(native)
        .unwrap_or_else(|| format!("#{}", index + 1))
}

// An attribute-value helper, kept at this path for the callers that read it here.
pub use crate::attributes::value_text;

/// A property read as a yes/no flag ("true", "Y", "yes", 1).
pub fn value_flag(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => matches!(
            s.trim().to_ascii_lowercase().as_str(),
            "true" | "t" | "y" | "yes" | "1"
        ),
        _ => false,
    }
}

/// Parses uploaded or ad-hoc GeoJSON (RFC 7946, WGS84) into checked features. `label` names
/// the input in errors. Bad features (and unreadable or reversed dates) come back as
/// problems; no features at all is an error. A legacy `crs` member may only be an EPSG code
/// or an OGC URN.
pub fn parse_geojson(text: &str, label: &str) -> Result<(Vec<Feature>, Vec<LoadProblem>)> {
    let cfg = upload_config(label, None);
    let raw = geojson::parse(text, Path::new(label), &cfg, true)?;
    sort_upload(raw, &cfg, label)
}

/// How an uploaded or ad-hoc file is read: a disturbance layer whose features may carry
/// `id`, `name`, `phase`, `start` and `end`, in `crs` when the user chose one.
pub(crate) fn upload_config(label: &str, crs: Option<&str>) -> LayerConfig {
    LayerConfig {
        role: crate::config::Role::Disturbance,
        path: PathBuf::from(label),
        id_field: Some("id".into()),
        name_field: Some("name".into()),
        crs: crs.map(String::from),
        class_field: None,
        site_field: None,
        phase_field: Some("phase".into()),
        start_field: Some("start".into()),
        end_field: Some("end".into()),
        join_field: None,
        causes_field: None,
        causes_fields: None,
        cause_value: None,
        category_field: None,
        year_field: None,
        list_year: None,
        pollutant_field: None,
        stormwater_field: None,
        covers: None,
        max_rejected_share: None,
        station: None,
        units: None,
        fields: Default::default(),
        storm: None,
    }
}

/// An upload's features and problems; no features at all is an error.
pub(crate) fn sort_upload(
    raw: Raw,
    cfg: &LayerConfig,
    label: &str,
) -> Result<(Vec<Feature>, Vec<LoadProblem>)> {
    if raw.items.is_empty() {
        return Err(Error::format(label, "the file has no features"));
    }
    let (features, problems, _) = sort::sort_items(raw.items, cfg, label);
    Ok((features, problems))
}

/// A list cell: values separated by `;` or `,`, trimmed, blanks dropped.
pub fn split_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(value_text)
        .map(|s| {
            s.split([';', ','])
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// "lon,lat" (WGS84).
pub fn parse_point(s: &str) -> Option<geo_types::Point<f64>> {
    let mut it = s.split([',', ' ']).filter(|p| !p.is_empty());
    let x: f64 = it.next()?.trim().parse().ok()?;
    let y: f64 = it.next()?.trim().parse().ok()?;
    ((-180.0..=180.0).contains(&x) && (-90.0..=90.0).contains(&y))
        .then(|| geo_types::Point::new(x, y))
}
