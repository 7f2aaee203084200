//! Reading layers from Shapefile, GeoJSON and CSV into WGS84 features. Each feature is
//! checked (empty, non-finite, unclosed, self-intersecting) and oriented here, once, so
//! everything downstream can trust it. One bad feature is reported and skipped; the rest load.

mod crs;
mod geojson;
mod shapefile;
mod table;
mod valid;

pub use crs::Reprojector;
pub use table::read_table;

use crate::config::LayerConfig;
use crate::error::{Error, Result};
use geo::orient::{Direction, Orient};
use geo::BoundingRect;
use geo_types::Geometry;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A feature in WGS84 lon/lat with its source attributes.
#[derive(Debug, Clone)]
pub struct Feature {
    pub id: String,
    pub geometry: Geometry<f64>,
    pub properties: Map<String, Value>,
}

/// Where a layer came from, so a report can be reproduced.
#[derive(Debug, Clone, Serialize)]
pub struct SourceInfo {
    pub role: String,
    pub path: String,
    pub sha256: String,
    pub features: usize,
    pub crs: String,
}

/// A feature that could not be loaded, named so a user can find and fix it.
#[derive(Debug, Clone, Serialize)]
pub struct LoadProblem {
    pub path: String,
    pub feature: String,
    pub reason: String,
    /// For a disturbance feature: the site it belongs to (its `site_field` value), so the
    /// site's report can say which of its inputs was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
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
}

/// A table row (CSV) for impaired lists published without geometry.
pub type Row = Map<String, Value>;

/// Reads one layer of the manifest. `dir` is the manifest's folder.
pub fn load_layer(dir: &Path, cfg: &LayerConfig) -> Result<LoadedLayer> {
    let path = dir.join(&cfg.path);
    if !path.exists() {
        return Err(Error::io(
            &path,
            std::io::Error::new(std::io::ErrorKind::NotFound, "file not found"),
        ));
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let (raw, crs) = match ext.as_str() {
        "shp" => shapefile::read(&path, cfg)?,
        "geojson" | "json" => geojson::read(&path, cfg)?,
        other => {
            return Err(Error::format(
                &path,
                format!(
                    "unsupported file type '.{other}' for a geometry layer (use .shp or .geojson)"
                ),
            ))
        }
    };
    let sha256 = hash_files(&path, &ext)?;
    let mut features = Vec::with_capacity(raw.len());
    let mut problems = Vec::new();
    for item in raw {
        match item {
            Ok(f) => features.push(f),
            Err(e) => problems.push(LoadProblem::from(&e)),
        }
    }
    Ok(LoadedLayer {
        source: SourceInfo {
            role: cfg.role.as_str().into(),
            path: cfg.path.display().to_string(),
            sha256,
            features: features.len(),
            crs,
        },
        features,
        problems,
    })
}

/// Shapefiles hash their .shp, .dbf and .prj together; other files hash alone.
fn hash_files(path: &Path, ext: &str) -> Result<String> {
    let mut hasher = Sha256::new();
    let mut parts: Vec<PathBuf> = vec![path.to_path_buf()];
    if ext == "shp" {
        parts.push(path.with_extension("dbf"));
        parts.push(path.with_extension("prj"));
    }
    for p in parts.iter().filter(|p| p.exists()) {
        let bytes = std::fs::read(p).map_err(|e| Error::io(p, e))?;
        hasher.update(&bytes);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Picks the feature id: the configured id field, else the file's own id, else `#n` (1-based).
pub(crate) fn feature_id(
    props: &Map<String, Value>,
    id_field: Option<&str>,
    native: Option<String>,
    index: usize,
) -> String {
    id_field
        .and_then(|f| props.get(f))
        .and_then(value_text)
        .or(native)
        .unwrap_or_else(|| format!("#{}", index + 1))
}

/// A property value as text, or None when null or blank.
pub fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => {
            let t = s.trim();
            (!t.is_empty()).then(|| t.to_string())
        }
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        }),
        Value::Bool(b) => Some(b.to_string()),
        other => Some(other.to_string()),
    }
}

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

/// Checks and orients a WGS84 geometry. The reason names what is wrong in plain words.
pub(crate) fn check_geometry(geom: Geometry<f64>) -> std::result::Result<Geometry<f64>, String> {
    use geo::CoordsIter;
    if geom.coords_count() == 0 {
        return Err("empty geometry".into());
    }
    if let Some(c) = geom
        .coords_iter()
        .find(|c| !c.x.is_finite() || !c.y.is_finite())
    {
        return Err(format!("non-finite coordinate ({}, {})", c.x, c.y));
    }
    if let Some(r) = geom.bounding_rect() {
        if r.min().x < -180.0 || r.max().x > 180.0 || r.min().y < -90.0 || r.max().y > 90.0 {
            return Err(format!(
                "coordinates ({:.1}, {:.1}) are not longitude/latitude; is the CRS right? (set `crs` in the manifest)",
                r.max().x,
                r.max().y
            ));
        }
    }
    let geom = match geom {
        Geometry::Polygon(p) => Geometry::Polygon(p.orient(Direction::Default)),
        Geometry::MultiPolygon(p) => Geometry::MultiPolygon(p.orient(Direction::Default)),
        g => g,
    };
    let polys: &[geo_types::Polygon<f64>] = match &geom {
        Geometry::Polygon(p) => std::slice::from_ref(p),
        Geometry::MultiPolygon(mp) => &mp.0,
        _ => &[],
    };
    for (i, p) in polys.iter().enumerate() {
        if let Some(reason) = valid::polygon_problem(p) {
            let part = if polys.len() > 1 {
                format!(" (part {})", i + 1)
            } else {
                String::new()
            };
            return Err(format!("invalid polygon{part}: {reason}"));
        }
    }
    match &geom {
        Geometry::LineString(l) if l.0.len() < 2 => {
            return Err("line with fewer than 2 points".into())
        }
        _ => {}
    }
    Ok(geom)
}

/// Parses uploaded or ad-hoc GeoJSON (RFC 7946, WGS84) into checked features. `label` names
/// the input in errors. Bad features come back as problems; no features at all is an error.
pub fn parse_geojson(text: &str, label: &str) -> Result<(Vec<Feature>, Vec<LoadProblem>)> {
    let cfg = LayerConfig {
        role: crate::config::Role::Disturbance,
        path: PathBuf::from(label),
        id_field: Some("id".into()),
        name_field: Some("name".into()),
        crs: None,
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
        pollutant_field: None,
        stormwater_field: None,
        fields: Default::default(),
    };
    let (items, _crs) = geojson::parse(text, Path::new(label), &cfg)?;
    let mut features = Vec::new();
    let mut problems = Vec::new();
    for item in items {
        match item {
            Ok(f) => features.push(f),
            Err(e) => problems.push(LoadProblem::from(&e)),
        }
    }
    Ok((features, problems))
}
