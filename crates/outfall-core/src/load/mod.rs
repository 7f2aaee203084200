//! Reading layers from Shapefile, GeoJSON and CSV into WGS84 features. Each feature is
//! checked (empty, non-finite, unclosed, self-intersecting) and oriented here, once, so
//! everything downstream can trust it. One bad feature is reported and skipped; the rest load.

mod archive;
mod crs;
pub(crate) mod fgb;
mod geojson;
mod gpkg;
mod guard;
mod kml;
pub mod rainfall;
mod shapefile;
mod table;
mod upload;
mod valid;

pub use crs::Reprojector;
pub use guard::{count_vertices, UploadLimits, MAX_ZIP_MEMBERS};
pub use table::read_table;
pub use upload::{read_upload, sniff_format, Upload, UploadFormat};

use crate::attributes::Properties;
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use geo::BoundingRect;
use geo_types::Geometry;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
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
    /// Each feature's bounding box, in feature order.
    pub envelopes: Option<Vec<Option<geo_types::Rect<f64>>>>,
    /// Feature positions sorted by (id, position): the layer's id order, as a reader knows it.
    pub by_id: Option<Vec<u32>>,
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

/// The manifest keys that name one column each, with the column they name.
fn named_columns(cfg: &LayerConfig) -> Vec<(String, &str)> {
    let mut out: Vec<(String, &str)> = [
        ("id_field", &cfg.id_field),
        ("name_field", &cfg.name_field),
        ("class_field", &cfg.class_field),
        ("site_field", &cfg.site_field),
        ("phase_field", &cfg.phase_field),
        ("start_field", &cfg.start_field),
        ("end_field", &cfg.end_field),
        ("join_field", &cfg.join_field),
        ("causes_field", &cfg.causes_field),
        ("category_field", &cfg.category_field),
        ("year_field", &cfg.year_field),
        ("pollutant_field", &cfg.pollutant_field),
        ("stormwater_field", &cfg.stormwater_field),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.as_deref().map(|c| (k.to_string(), c)))
    .collect();
    for (semantic, column) in &cfg.fields {
        out.push((format!("fields.{semantic}"), column.as_str()));
    }
    if let Some(cols) = &cfg.causes_fields {
        out.extend(
            cols.iter()
                .filter(|c| c.as_str() != "*")
                .map(|c| ("causes_fields".to_string(), c.as_str())),
        );
    }
    out
}

/// Every column the manifest names must exist in the file (the .dbf header, or some
/// feature's properties): a typo would otherwise read as "no value" for every feature.
fn check_columns(path: &Path, cfg: &LayerConfig, columns: &[String]) -> Result<()> {
    for (key, column) in named_columns(cfg) {
        if !columns.iter().any(|c| c == column) {
            return Err(Error::MissingField {
                path: path.to_path_buf(),
                role: cfg.role.as_str().into(),
                key,
                field: column.to_string(),
                available: if columns.is_empty() {
                    "none".into()
                } else {
                    columns.join(", ")
                },
            });
        }
    }
    Ok(())
}

/// The site a disturbance feature belongs to, when its attributes could be read.
fn site_of(cfg: &LayerConfig, site: Option<Value>) -> Option<String> {
    if cfg.role != crate::config::Role::Disturbance {
        return None;
    }
    site.as_ref().and_then(value_text)
}

/// A start or end date as written, when it is not a date `area::parse_date` reads exactly.
fn date_problem(key: &str, column: &str, v: &Value) -> Option<String> {
    let text = value_text(v)?;
    let trailing = text
        .get(10..)
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with(['T', ' ']));
    let ok = crate::area::parse_date(&text).is_some() && !trailing;
    (!ok).then(|| format!("{key} '{column}' holds '{text}', which is not a date (use YYYY-MM-DD)"))
}

/// Date checks for a disturbance feature that loads: each unreadable start or end, and an
/// end before its start. The feature still loads; its site's findings that depend on dates
/// can then be withheld.
fn date_problems(cfg: &LayerConfig, f: &Feature) -> Vec<String> {
    let mut out = Vec::new();
    let mut dates = [None, None];
    for (slot, (key, column)) in [
        ("start_field", &cfg.start_field),
        ("end_field", &cfg.end_field),
    ]
    .into_iter()
    .enumerate()
    {
        let Some(column) = column.as_deref() else {
            continue;
        };
        let Some(v) = f.properties.get(column) else {
            continue;
        };
        match date_problem(key, column, &v) {
            Some(p) => out.push(p),
            None => dates[slot] = value_text(&v).and_then(|t| crate::area::parse_date(&t)),
        }
    }
    if let [Some(start), Some(end)] = dates {
        if end < start {
            out.push(format!("end {end} is before start {start}"));
        }
    }
    out
}

/// Sorts a reader's items into features and problems. Problems carry `label` (the path
/// relative to the data folder, or an upload's name) and, for disturbance, the site.
fn sort_items(
    raw: Vec<std::result::Result<Feature, Refused>>,
    cfg: &LayerConfig,
    label: &str,
) -> (Vec<Feature>, Vec<LoadProblem>, usize) {
    let mut features = Vec::with_capacity(raw.len());
    let mut problems = Vec::new();
    let mut refused = 0;
    for item in raw {
        match item {
            Ok(f) => {
                let site = site_of(
                    cfg,
                    cfg.site_field.as_deref().and_then(|k| f.properties.get(k)),
                );
                if cfg.role == crate::config::Role::Disturbance {
                    for reason in date_problems(cfg, &f) {
                        problems.push(LoadProblem {
                            path: label.to_string(),
                            feature: f.id.clone(),
                            reason,
                            site: site.clone(),
                        });
                    }
                }
                features.push(f);
            }
            Err(r) => {
                refused += 1;
                problems.push(LoadProblem {
                    path: label.to_string(),
                    site: site_of(
                        cfg,
                        cfg.site_field
                            .as_deref()
                            .and_then(|k| r.properties.as_ref()?.get(k).cloned()),
                    ),
                    feature: r.feature,
                    reason: r.reason,
                });
            }
        }
    }
    crate::attributes::share_keys(&mut features, |f| &mut f.properties);
    (features, problems, refused)
}

/// Reasons that mean the coordinates are not in the CRS the layer says they are.
fn is_crs_reason(reason: &str) -> bool {
    reason.contains("not longitude/latitude") || reason.contains("reprojection from")
}

/// Reads one layer of the manifest. `dir` is the manifest's folder; more than
/// `max_rejected_share` of the layer's features refused is an error, not a warning.
pub fn load_layer(dir: &Path, cfg: &LayerConfig, max_rejected_share: f64) -> Result<LoadedLayer> {
    let path = dir.join(&cfg.path);
    let role = cfg.role.as_str();
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
    // A GeoJSON file small enough to hold is read once, and its fingerprint taken from the
    // very bytes that are parsed.
    let whole = match ext.as_str() {
        "geojson" | "json" => geojson::read_whole(&path)?,
        _ => None,
    };
    // The fingerprint is taken while the features are read: a pass over the file that needs
    // no result of the parse (an eighth of a 100k-parcel GeoJSON load when it came after).
    let (raw, sha256) = std::thread::scope(|scope| {
        let hash = scope.spawn(|| match &whole {
            Some(bytes) => Ok(hex::encode(Sha256::digest(bytes))),
            None => hash_files(&path, &ext),
        });
        let raw = match ext.as_str() {
            "shp" => shapefile::read(&path, cfg),
            "geojson" | "json" => match &whole {
                Some(bytes) => geojson::read_slice(bytes, &path, cfg),
                None => geojson::read(&path, cfg),
            },
            "fgb" => fgb::read(&path, cfg),
            other => Err(Error::format(
                &path,
                format!(
                    "unsupported file type '.{other}' for a geometry layer (use .shp, .geojson or .fgb)"
                ),
            )),
        };
        let sha256 = hash.join().unwrap_or_else(|_| {
            Err(Error::format(
                &path,
                "the file's fingerprint could not be computed",
            ))
        });
        (raw, sha256)
    });
    let raw = raw?;
    if raw.items.is_empty() {
        return Err(Error::layer(&path, role, "the file has no features"));
    }
    check_columns(&path, cfg, &raw.columns)?;
    let sha256 = sha256?;
    let total = raw.items.len();
    let label = cfg.path.display().to_string();
    let (features, problems, refused) = sort_items(raw.items, cfg, &label);
    if refused as f64 > max_rejected_share * total as f64 {
        let refusals: Vec<&LoadProblem> = problems
            .iter()
            .filter(|p| {
                !p.reason.contains("which is not a date") && !p.reason.contains("is before start")
            })
            .collect();
        let crs_refusals = refusals.iter().filter(|p| is_crs_reason(&p.reason)).count();
        let first = refusals
            .first()
            .map(|p| format!("; the first: feature {}: {}", p.feature, p.reason))
            .unwrap_or_default();
        let share = format!(
            "{refused} of {total} features were refused, more than max_rejected_share = {max_rejected_share}"
        );
        let reason = if crs_refusals * 2 > refused {
            format!(
                "the coordinates are not where {} puts them ({share}); is the .prj or `crs` right?{first}",
                raw.crs
            )
        } else {
            format!("{share}{first}")
        };
        return Err(Error::layer(&path, role, reason));
    }
    if let Some(area) = raw.area_of_use {
        check_area_of_use(&path, cfg, &raw.crs, area, &features, max_rejected_share)?;
    }
    check_unique_ids(&path, cfg, &features)?;
    Ok(LoadedLayer {
        source: SourceInfo {
            role: role.into(),
            path: label,
            sha256,
            features: features.len(),
            crs: raw.crs,
        },
        features,
        hints: IndexHints::default(),
        problems,
    })
}

/// A wrong but valid CRS puts features somewhere else on Earth, all still lon/lat. When
/// PROJ knows the CRS's area of use, more than `max_rejected_share` of the features lying
/// more than a degree outside it is an error.
fn check_area_of_use(
    path: &Path,
    cfg: &LayerConfig,
    crs: &str,
    [west, south, east, north]: [f64; 4],
    features: &[Feature],
    max_rejected_share: f64,
) -> Result<()> {
    const MARGIN: f64 = 1.0;
    let outside = features
        .iter()
        .filter_map(|f| f.geometry.bounding_rect())
        .filter(|r| {
            r.max().x < west - MARGIN
                || r.min().x > east + MARGIN
                || r.max().y < south - MARGIN
                || r.min().y > north + MARGIN
        })
        .count();
    if features.is_empty() || outside as f64 <= max_rejected_share * features.len() as f64 {
        return Ok(());
    }
    let at = features
        .iter()
        .filter_map(|f| f.geometry.bounding_rect())
        .next()
        .map(|r| format!(" (the first at lon {:.2}, lat {:.2})", r.min().x, r.min().y))
        .unwrap_or_default();
    Err(Error::layer(
        path,
        cfg.role.as_str(),
        format!(
            "the coordinates are not where {crs} puts them: {outside} of {} features lie outside its area of use (lon {west}..{east}, lat {south}..{north}){at}; is the .prj or `crs` right?",
            features.len()
        ),
    ))
}

/// Features looked up by id (parcels, sites, the network) must have unique ids: a duplicate
/// would make one of them unreachable. Listings, TMDL watersheds and boundaries are matched
/// by geometry and may repeat an id across parts.
fn check_unique_ids(path: &Path, cfg: &LayerConfig, features: &[Feature]) -> Result<()> {
    use crate::config::Role;
    let Some(id_field) = cfg.id_field.as_deref() else {
        return Ok(());
    };
    if matches!(
        cfg.role,
        Role::Impaired | Role::Tmdl | Role::Boundary | Role::Basemap
    ) {
        return Ok(());
    }
    let mut seen: std::collections::HashMap<&str, usize> = Default::default();
    for (i, f) in features.iter().enumerate() {
        if let Some(first) = seen.insert(&f.id, i) {
            return Err(Error::layer_feature(
                path,
                cfg.role.as_str(),
                f.id.clone(),
                format!(
                    "duplicate id: loaded features {} and {} both have {id_field} '{}'; ids must be unique",
                    first + 1,
                    i + 1,
                    f.id
                ),
            ));
        }
    }
    Ok(())
}

/// Shapefiles hash their .shp, .dbf and .prj together; other files hash alone. Read in
/// blocks, so a large file is never held whole.
fn hash_files(path: &Path, ext: &str) -> Result<String> {
    let mut hasher = Sha256::new();
    let mut parts: Vec<PathBuf> = vec![path.to_path_buf()];
    if ext == "shp" {
        parts.push(path.with_extension("dbf"));
        parts.push(path.with_extension("prj"));
    }
    for p in parts.iter().filter(|p| p.exists()) {
        let mut file = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
        std::io::copy(&mut file, &mut hasher).map_err(|e| Error::io(p, e))?;
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
    // One pass: empty, non-finite and out-of-range coordinates; rings are read as slices
    // (geo's coordinate iterator was a tenth of a parcel layer's load).
    let mut scan = CoordScan::default();
    match &geom {
        Geometry::Polygon(p) => scan.polygon(p),
        Geometry::MultiPolygon(mp) => mp.0.iter().for_each(|p| scan.polygon(p)),
        Geometry::LineString(l) => scan.slice(&l.0),
        g => g.coords_iter().for_each(|c| scan.slice(&[c])),
    }
    if let Some(c) = scan.non_finite {
        return Err(format!("non-finite coordinate ({}, {})", c.x, c.y));
    }
    let CoordScan {
        count,
        max_x,
        max_y,
        out_of_range,
        ..
    } = scan;
    if count == 0 {
        return Err("empty geometry".into());
    }
    if out_of_range {
        return Err(format!(
            "coordinates ({max_x:.1}, {max_y:.1}) are not longitude/latitude; is the CRS right? (set `crs` in the manifest)"
        ));
    }
    // Oriented, and with no spare capacity: a layer keeps its coordinates for its lifetime.
    let geom = match geom {
        Geometry::Polygon(p) => Geometry::Polygon(exact(p)),
        Geometry::MultiPolygon(mp) => Geometry::MultiPolygon(geo_types::MultiPolygon(
            mp.0.into_iter().map(exact).collect(),
        )),
        Geometry::LineString(mut l) => {
            l.0.shrink_to_fit();
            Geometry::LineString(l)
        }
        Geometry::MultiLineString(mut ml) => {
            ml.0.iter_mut().for_each(|l| l.0.shrink_to_fit());
            ml.0.shrink_to_fit();
            Geometry::MultiLineString(ml)
        }
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

/// What `check_geometry` learns in its one pass over the coordinates.
struct CoordScan {
    count: usize,
    max_x: f64,
    max_y: f64,
    out_of_range: bool,
    /// The first non-finite coordinate.
    non_finite: Option<geo_types::Coord<f64>>,
}

impl Default for CoordScan {
    fn default() -> Self {
        CoordScan {
            count: 0,
            max_x: f64::NEG_INFINITY,
            max_y: f64::NEG_INFINITY,
            out_of_range: false,
            non_finite: None,
        }
    }
}

impl CoordScan {
    fn polygon(&mut self, p: &geo_types::Polygon<f64>) {
        self.slice(&p.exterior().0);
        p.interiors().iter().for_each(|r| self.slice(&r.0));
    }

    fn slice(&mut self, coords: &[geo_types::Coord<f64>]) {
        if self.non_finite.is_some() {
            return;
        }
        for c in coords {
            if !c.x.is_finite() || !c.y.is_finite() {
                self.non_finite = Some(*c);
                return;
            }
            self.max_x = self.max_x.max(c.x);
            self.max_y = self.max_y.max(c.y);
            self.out_of_range |= c.x < -180.0 || c.x > 180.0 || c.y < -90.0 || c.y > 90.0;
        }
        self.count += coords.len();
    }
}

/// The polygon oriented as geo's `orient(Direction::Default)` leaves it (exterior
/// counter-clockwise, holes clockwise, a ring of no winding as it was), in place rather than
/// cloned, with each ring's vector exactly as long as the ring.
fn exact(p: geo_types::Polygon<f64>) -> geo_types::Polygon<f64> {
    use geo::Winding;
    let (mut exterior, mut interiors) = p.into_inner();
    exterior.make_ccw_winding();
    exterior.0.shrink_to_fit();
    for r in &mut interiors {
        r.make_cw_winding();
        r.0.shrink_to_fit();
    }
    interiors.shrink_to_fit();
    geo_types::Polygon::new(exterior, interiors)
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
        max_rejected_share: None,
        station: None,
        units: None,
        fields: Default::default(),
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
    let (features, problems, _) = sort_items(raw.items, cfg, label);
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

#[cfg(test)]
mod orient_tests {
    use geo::orient::{Direction, Orient};
    use geo_types::{polygon, Geometry, MultiPolygon};

    /// Oriented in place, a layer's polygons come out exactly as geo's `orient` gives them:
    /// either winding in, exterior counter-clockwise and holes clockwise out.
    #[test]
    fn polygons_are_oriented_as_geo_orients_them() {
        let cw_with_ccw_hole = polygon!(
            exterior: [(x: 0., y: 0.), (x: 0., y: 1.), (x: 1., y: 1.), (x: 1., y: 0.)],
            interiors: [[(x: 0.2, y: 0.2), (x: 0.4, y: 0.2), (x: 0.4, y: 0.4), (x: 0.2, y: 0.4)]]
        );
        let ccw = polygon![(x: 2., y: 0.), (x: 3., y: 0.), (x: 3., y: 1.), (x: 2., y: 1.)];
        for g in [
            Geometry::Polygon(cw_with_ccw_hole.clone()),
            Geometry::Polygon(ccw.clone()),
            Geometry::MultiPolygon(MultiPolygon(vec![cw_with_ccw_hole.clone(), ccw.clone()])),
        ] {
            let want = match &g {
                Geometry::Polygon(p) => Geometry::Polygon(p.orient(Direction::Default)),
                Geometry::MultiPolygon(p) => Geometry::MultiPolygon(p.orient(Direction::Default)),
                _ => unreachable!(),
            };
            assert_eq!(super::check_geometry(g.clone()), Ok(want));
        }
        let not_lonlat = polygon![(x: 500000., y: 4700000.), (x: 500100., y: 4700000.), (x: 500100., y: 4700100.)];
        let err = super::check_geometry(Geometry::Polygon(not_lonlat)).unwrap_err();
        assert!(
            err.contains("(500100.0, 4700100.0) are not longitude/latitude"),
            "{err}"
        );
        let mut hole_nan = cw_with_ccw_hole.clone();
        hole_nan.interiors_push(geo_types::LineString::from(vec![
            (0.5, 0.5),
            (0.6, f64::NAN),
            (f64::INFINITY, 0.6),
            (0.5, 0.5),
        ]));
        let err = super::check_geometry(Geometry::Polygon(hole_nan)).unwrap_err();
        assert_eq!(err, "non-finite coordinate (0.6, NaN)");
        let empty = Geometry::MultiPolygon(MultiPolygon(vec![]));
        assert_eq!(super::check_geometry(empty).unwrap_err(), "empty geometry");
        assert_ne!(
            super::check_geometry(Geometry::Polygon(cw_with_ccw_hole.clone())),
            Ok(Geometry::Polygon(cw_with_ccw_hole)),
            "the clockwise exterior must be turned"
        );
    }
}
