//! The loaded data set: every layer read once, reprojected, checked and indexed in an
//! R-tree, then shared immutably (`Arc<Catalog>`) by the CLI and the server.

use crate::config::{LayerConfig, Manifest, Role};
use crate::error::{Error, Result};
pub use crate::layer::{ImpairedTable, IndexEntry, Layer};
use crate::load::{self, value_text, LoadProblem, Row, SourceInfo};
use geo_types::{Geometry, Rect};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

/// A construction site: a feature of the sites layer, or a distinct `site_field` value of the
/// disturbance layer when there is no sites layer.
#[derive(Debug, Clone)]
pub struct Site {
    pub id: String,
    pub name: Option<String>,
    pub attributes: Map<String, Value>,
    pub boundary: Option<Geometry<f64>>,
    /// (layer, feature) indices of its disturbance polygons, over every disturbance layer.
    pub disturbance: Vec<(usize, usize)>,
}

/// Progress of a load, for a CLI progress bar: (file, layers done, layers in all).
pub type Progress<'a> = &'a mut dyn FnMut(&str, usize, usize);

#[derive(Debug, Clone)]
pub struct Catalog {
    pub manifest: Manifest,
    pub layers: Vec<Layer>,
    pub impaired_tables: Vec<ImpairedTable>,
    pub sites: Vec<Site>,
    /// The stream network and its impairments, when flowlines are loaded.
    pub hydro: Option<crate::waters::Hydro>,
    /// Listings matched to waterbodies, keyed by (layer, feature), with or without a network.
    pub waterbody_impairments: HashMap<(usize, usize), Vec<crate::waters::ImpairmentHit>>,
    /// Problems with a site's own attributes found after every layer is read: a parcel id
    /// no parcels layer holds, an outfall point outside the data set. Each names its site.
    pub site_problems: Vec<LoadProblem>,
    /// Daily precipitation records (`rainfall` layers) for the inspection calendar.
    pub rainfall: Vec<load::rainfall::Rainfall>,
    site_index: HashMap<String, usize>,
}

impl Catalog {
    pub fn open(dir: &Path) -> Result<Catalog> {
        Catalog::load(Manifest::read(dir)?, &mut |_, _, _| {})
    }

    pub fn load(manifest: Manifest, progress: Progress) -> Result<Catalog> {
        // The compiled-in causes vocabulary decides Condition A: refuse to load without it.
        crate::vocabulary::causes::shipped()?;
        let mut layers: Vec<Layer> = Vec::new();
        let mut impaired_tables = Vec::new();
        let mut rainfall = Vec::new();
        let total = manifest.layers.len();
        let mut origins: Vec<(String, bool)> = Vec::new();
        for (n, cfg) in manifest.layers.iter().enumerate() {
            progress(&cfg.path.display().to_string(), n, total);
            if cfg.role == Role::Rainfall {
                check_inside(&manifest, cfg)?;
                rainfall.push(load::rainfall::read(&manifest.dir, cfg)?);
                continue;
            }
            let is_table = cfg
                .path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
            if is_table {
                if cfg.role != Role::Impaired {
                    return Err(Error::Manifest {
                        path: manifest.dir.join(crate::config::MANIFEST_FILE),
                        reason: format!(
                            "{}: only impaired lists may be tables (.csv); a {} layer needs geometry",
                            cfg.path.display(),
                            cfg.role.as_str()
                        ),
                    });
                }
                check_inside(&manifest, cfg)?;
                impaired_tables.push(read_impaired_table(&manifest.dir, cfg)?);
                continue;
            }
            check_inside(&manifest, cfg)?;
            let (loaded, cached) = read_layer(&manifest, cfg)?;
            origins.push((cfg.path.display().to_string(), cached));
            let same = layers.iter().filter(|l| l.config.role == cfg.role).count();
            let collection_id = match same {
                0 => cfg.role.as_str().to_string(),
                k => format!("{}-{}", cfg.role.as_str(), k + 1),
            };
            layers.push(Layer::new(cfg.clone(), collection_id, loaded));
        }
        log_origins(&manifest.dir, &origins);
        progress("stream network", total, total);
        let waterbody_impairments =
            crate::waters::waterbody_impairments(&layers, &impaired_tables, &manifest.rules);
        let hydro = crate::waters::Hydro::build(
            &layers,
            &impaired_tables,
            &waterbody_impairments,
            &manifest.rules,
        );
        let sites = collect_sites(&layers)?;
        // A table list has no geometry of its own: serve the waters it lists, after every
        // match above so the derived layer never matches itself.
        for table in &impaired_tables {
            let same = layers
                .iter()
                .filter(|l| l.config.role == Role::Impaired)
                .count();
            let collection_id = match same {
                0 => Role::Impaired.as_str().to_string(),
                k => format!("{}-{}", Role::Impaired.as_str(), k + 1),
            };
            layers.extend(crate::waters::listed_waters_layer(
                &layers,
                table,
                collection_id,
            ));
        }
        let site_index = sites
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.clone(), i))
            .collect();
        let mut catalog = Catalog {
            manifest,
            layers,
            impaired_tables,
            sites,
            hydro,
            waterbody_impairments,
            site_problems: Vec::new(),
            rainfall,
            site_index,
        };
        catalog.site_problems = check_sites(&catalog);
        Ok(catalog)
    }

    /// A copy whose sites and disturbance come from elsewhere (the site registry): the first
    /// layer of each role is replaced (or added) and any other of that role is emptied, so
    /// every layer keeps its index and the stream network built from the others stays valid.
    pub fn with_site_layers(
        &self,
        sites: (LayerConfig, load::LoadedLayer),
        disturbance: (LayerConfig, load::LoadedLayer),
    ) -> Result<Catalog> {
        let mut c = self.clone();
        for (cfg, loaded) in [sites, disturbance] {
            let role = cfg.role;
            let mut first = true;
            for layer in c.layers.iter_mut().filter(|l| l.config.role == role) {
                let mut empty = loaded.clone();
                empty.features.clear();
                empty.problems.clear();
                let content = if first { loaded.clone() } else { empty };
                *layer = Layer::new(cfg.clone(), layer.collection_id.clone(), content);
                first = false;
            }
            if first {
                c.layers
                    .push(Layer::new(cfg, role.as_str().to_string(), loaded));
            }
        }
        c.sites = collect_sites(&c.layers)?;
        c.site_index = c
            .sites
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.clone(), i))
            .collect();
        c.site_problems = check_sites(&c);
        Ok(c)
    }

    /// Listings matched to a flowline (by its reach) or a waterbody feature.
    pub fn impairments_of_feature(
        &self,
        layer: usize,
        feature: usize,
    ) -> Vec<crate::waters::ImpairmentHit> {
        if let Some(hits) = self.waterbody_impairments.get(&(layer, feature)) {
            return hits.clone();
        }
        self.hydro
            .as_ref()
            .and_then(|h| {
                h.reach_of(layer, feature)
                    .map(|r| h.impairments(r).to_vec())
            })
            .unwrap_or_default()
    }

    /// Whether a layer's features carry dates a `datetime` filter can read: a disturbance
    /// layer with a start or end field, or the sites when their disturbance is dated.
    pub fn is_dated(&self, layer: &Layer) -> bool {
        let dated = |l: &Layer| l.config.start_field.is_some() || l.config.end_field.is_some();
        match layer.config.role {
            Role::Disturbance => dated(layer),
            Role::Sites => self.layers_of(Role::Disturbance).any(dated),
            _ => false,
        }
    }

    /// The days a feature is active: a disturbance phase's start to end, a site's first
    /// start to last end over its dated phases. `None` for a feature with no date at all.
    pub fn period_of(&self, layer: &Layer, index: usize) -> Option<crate::period::Period> {
        let f = layer.features.get(index)?;
        match layer.config.role {
            Role::Disturbance => {
                let date = |field: Option<&str>| {
                    layer
                        .text(f, field)
                        .and_then(|t| crate::area::parse_date(&t))
                };
                let p = crate::period::Period {
                    start: date(layer.config.start_field.as_deref()),
                    end: date(layer.config.end_field.as_deref()),
                };
                (p.start.is_some() || p.end.is_some()).then_some(p)
            }
            Role::Sites => self
                .site(&f.id)
                .ok()?
                .disturbance
                .iter()
                .filter_map(|&(li, fi)| self.period_of(&self.layers[li], fi))
                .reduce(|a, b| a.cover(&b)),
            _ => None,
        }
    }

    pub fn layer(&self, role: Role) -> Option<&Layer> {
        self.layers.iter().find(|l| l.config.role == role)
    }

    pub fn layers_of(&self, role: Role) -> impl Iterator<Item = &Layer> {
        self.layers.iter().filter(move |l| l.config.role == role)
    }

    pub fn collection(&self, id: &str) -> Option<&Layer> {
        self.layers.iter().find(|l| l.collection_id == id)
    }

    pub fn site(&self, id: &str) -> Result<&Site> {
        self.site_index
            .get(id)
            .map(|&i| &self.sites[i])
            .ok_or_else(|| Error::NotFound {
                kind: "site",
                id: id.to_string(),
            })
    }

    /// Every source file, for the report's reproducibility block.
    pub fn sources(&self) -> Vec<SourceInfo> {
        self.manifest
            .layers
            .iter()
            .filter_map(|cfg| {
                self.layers
                    .iter()
                    .map(|l| &l.source)
                    .chain(self.impaired_tables.iter().map(|t| &t.source))
                    .chain(self.rainfall.iter().map(|r| &r.source))
                    .find(|s| s.path == cfg.path.display().to_string())
                    .cloned()
            })
            .collect()
    }

    /// Every feature refused or flagged at load, then every site problem.
    pub fn problems(&self) -> Vec<LoadProblem> {
        self.layers
            .iter()
            .flat_map(|l| l.problems.iter().cloned())
            .chain(
                self.rainfall
                    .iter()
                    .flat_map(|r| r.problems.iter().cloned()),
            )
            .chain(self.site_problems.iter().cloned())
            .collect()
    }

    /// Every day of every rainfall layer, in inches (the calendar merges days given twice).
    pub fn rainfall_days(&self) -> Vec<crate::record::RainfallDay> {
        self.rainfall
            .iter()
            .flat_map(|r| r.days.iter().cloned())
            .collect()
    }

    /// The extent of the loaded layers (lon/lat). A basemap is background, not the data set:
    /// its roads reach past the town and must not widen where an outfall may lie.
    pub fn bbox(&self) -> Option<Rect<f64>> {
        self.layers
            .iter()
            .filter(|l| l.config.role != Role::Basemap)
            .filter_map(Layer::bbox)
            .reduce(|a, b| {
                Rect::new(
                    geo_types::coord! { x: a.min().x.min(b.min().x), y: a.min().y.min(b.min().y) },
                    geo_types::coord! { x: a.max().x.max(b.max().x), y: a.max().y.max(b.max().y) },
                )
            })
    }
}

/// What `outfall validate` found: the errors that stop a load (every layer is tried, so
/// each broken layer is named) and the problems a load would report.
#[derive(Debug, Default, Serialize)]
pub struct Validation {
    pub errors: Vec<String>,
    pub problems: Vec<LoadProblem>,
    pub layers: usize,
    pub features: usize,
}

impl Validation {
    /// No errors (and, when `strict`, no problems either).
    pub fn passes(&self, strict: bool) -> bool {
        self.errors.is_empty() && (!strict || self.problems.is_empty())
    }

    /// One line per error and problem, then a summary line.
    pub fn to_text(&self, data: &Path, strict: bool) -> String {
        let mut out = String::new();
        for e in &self.errors {
            out += &format!("error: {e}\n");
        }
        let level = if strict { "error" } else { "warning" };
        for p in &self.problems {
            let site = p
                .site
                .as_deref()
                .map(|s| format!(" (site {s})"))
                .unwrap_or_default();
            out += &format!(
                "{level}: {}: feature {}{site}: {}\n",
                p.path, p.feature, p.reason
            );
        }
        out += &format!(
            "{}: {} layer(s), {} feature(s) loaded; {} error(s), {} problem(s){}\n",
            data.display(),
            self.layers,
            self.features,
            self.errors.len(),
            self.problems.len(),
            if self.passes(strict) {
                " — valid"
            } else {
                " — NOT valid"
            }
        );
        out
    }
}

/// Loads the data set in `dir` for `outfall validate`: each layer on its own so every
/// broken layer is reported, then the whole catalog for the checks across layers.
pub fn validate(dir: &Path) -> Validation {
    let mut v = Validation::default();
    let manifest = match Manifest::read(dir) {
        Ok(m) => m,
        Err(e) => {
            v.errors.push(e.to_string());
            return v;
        }
    };
    v.layers = manifest.layers.len();
    for cfg in &manifest.layers {
        let is_table = cfg
            .path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let result = check_inside(&manifest, cfg).and_then(|_| {
            if cfg.role == Role::Rainfall {
                load::rainfall::read(&manifest.dir, cfg).map(|_| ())
            } else if is_table {
                read_impaired_table(&manifest.dir, cfg).map(|_| ())
            } else {
                read_layer(&manifest, cfg).map(|_| ())
            }
        });
        if let Err(e) = result {
            v.errors.push(e.to_string());
        }
    }
    if !v.errors.is_empty() {
        return v;
    }
    match Catalog::load(manifest, &mut |_, _, _| {}) {
        Ok(cat) => {
            v.features = cat.layers.iter().map(|l| l.features.len()).sum();
            v.problems = cat.problems();
        }
        Err(e) => v.errors.push(e.to_string()),
    }
    v
}

fn read_impaired_table(dir: &Path, cfg: &LayerConfig) -> Result<ImpairedTable> {
    let path = dir.join(&cfg.path);
    if !path.exists() {
        return Err(Error::io(
            &path,
            std::io::Error::new(std::io::ErrorKind::NotFound, "file not found"),
        ));
    }
    let rows = load::read_table(&path)?;
    let key = cfg.id_field.as_deref().unwrap_or("id");
    let mut columns: Vec<(&str, &str)> = vec![("id_field", key)];
    columns.extend(cfg.causes_field.as_deref().map(|c| ("causes_field", c)));
    columns.extend(cfg.name_field.as_deref().map(|c| ("name_field", c)));
    columns.extend(cfg.category_field.as_deref().map(|c| ("category_field", c)));
    columns.extend(cfg.year_field.as_deref().map(|c| ("year_field", c)));
    if let Some(first) = rows.first() {
        for (k, c) in columns {
            if !first.contains_key(c) {
                return Err(Error::MissingField {
                    path: path.clone(),
                    role: cfg.role.as_str().into(),
                    key: k.into(),
                    field: c.to_string(),
                    available: first.keys().cloned().collect::<Vec<_>>().join(", "),
                });
            }
        }
    }
    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    use sha2::Digest;
    let sha256 = hex::encode(sha2::Sha256::digest(&bytes));
    let count = rows.len();
    let mut grouped: HashMap<String, Vec<Row>> = HashMap::new();
    for row in rows {
        if let Some(k) = row.get(key).and_then(value_text) {
            grouped.entry(k).or_default().push(row);
        }
    }
    Ok(ImpairedTable {
        config: cfg.clone(),
        source: SourceInfo {
            role: cfg.role.as_str().into(),
            path: cfg.path.display().to_string(),
            sha256,
            features: count,
            crs: "none (table)".into(),
        },
        rows: grouped,
    })
}

/// Reads one geometry layer: its prepared copy (`outfall prepare`) when that is current, else
/// its source. A stale or damaged copy is reported and the source read instead, so the cache
/// never changes an answer. The flag says whether the copy was used.
fn read_layer(manifest: &Manifest, cfg: &LayerConfig) -> Result<(load::LoadedLayer, bool)> {
    let share = manifest.max_rejected_share_of(cfg);
    match crate::prepared::read(&manifest.dir, cfg, share) {
        Ok(Some(loaded)) => return Ok((loaded, true)),
        Ok(None) => {}
        Err(e) => tracing::warn!("{e}; loading the source instead"),
    }
    Ok((load::load_layer(&manifest.dir, cfg, share)?, false))
}

/// One line saying which layers came from the prepared cache, when there is one.
fn log_origins(dir: &Path, origins: &[(String, bool)]) {
    let cache = dir.join(crate::prepared::DIR);
    if !cache.is_dir() {
        return;
    }
    let list = |cached: bool| {
        let names: Vec<&str> = origins
            .iter()
            .filter(|o| o.1 == cached)
            .map(|o| o.0.as_str())
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    tracing::info!(
        "prepared cache {}: from the cache: {}; from the source: {}",
        cache.display(),
        list(true),
        list(false)
    );
}

/// Unless the manifest allows it, a layer's file must lie inside the data folder, also after
/// following symbolic links.
pub(crate) fn check_inside(manifest: &Manifest, cfg: &LayerConfig) -> Result<()> {
    if manifest.allow_outside_paths {
        return Ok(());
    }
    let path = manifest.dir.join(&cfg.path);
    let outside = !crate::config::path_stays_inside(&cfg.path)
        || match (path.canonicalize(), manifest.dir.canonicalize()) {
            (Ok(file), Ok(dir)) => !file.starts_with(dir),
            _ => false, // a missing file is reported by the loader
        };
    if outside {
        return Err(Error::Manifest {
            path: manifest.dir.join(crate::config::MANIFEST_FILE),
            reason: format!(
                "layer {} ({}): the path points outside the data folder; set `allow_outside_paths = true` at the top of the manifest to allow it",
                cfg.role.as_str(),
                cfg.path.display()
            ),
        });
    }
    Ok(())
}

/// Checks each site's own attributes against the loaded data: every `parcel_ids` entry must
/// be a parcel of some parcels layer, and an `outfall` must be a "lon,lat" point within
/// `outfall_max_km` of the data set's extent.
fn check_sites(catalog: &Catalog) -> Vec<LoadProblem> {
    let mut out = Vec::new();
    let parcels: Vec<&Layer> = catalog.layers_of(Role::Parcels).collect();
    let extent = catalog.bbox();
    let max_km = catalog.manifest.outfall_max_km;
    for sl in catalog.layers_of(Role::Sites) {
        let problem = |site: &str, reason: String| LoadProblem {
            path: sl.source.path.clone(),
            feature: site.to_string(),
            reason,
            site: Some(site.to_string()),
        };
        let parcel_col = sl.config.field("parcel_ids");
        let outfall_col = sl.config.field("outfall");
        for f in &sl.features {
            let get = |k: &str| f.properties.get(sl.config.field(k));
            let record = crate::claims::read_claims(&get, &catalog.manifest.words);
            out.extend(record.problems.into_iter().map(|p| problem(&f.id, p)));
            if catalog
                .site(&f.id)
                .map(|s| s.boundary.is_none())
                .unwrap_or(true)
            {
                continue;
            }
            if !parcels.is_empty() {
                for pid in crate::load::split_list(f.properties.get(parcel_col).as_ref()) {
                    if !parcels.iter().any(|l| l.get(&pid).is_some()) {
                        out.push(problem(
                            &f.id,
                            format!("parcel_ids names '{pid}', which is not a parcel of any parcels layer"),
                        ));
                    }
                }
            }
            let Some(text) = f.properties.text(outfall_col) else {
                continue;
            };
            let Some(point) = crate::load::parse_point(&text) else {
                out.push(problem(
                    &f.id,
                    format!("outfall '{text}' is not a \"lon,lat\" point (WGS84 degrees)"),
                ));
                continue;
            };
            let Some(extent) = extent else { continue };
            let km = km_outside(extent, point.x(), point.y());
            if km > max_km {
                let swapped = km_outside(extent, point.y(), point.x()) <= max_km;
                out.push(problem(
                    &f.id,
                    if swapped {
                        format!("outfall '{text}' lies outside the data set's extent; are lon and lat swapped?")
                    } else {
                        format!(
                            "outfall '{text}' lies {km:.0} km outside the data set's extent (more than outfall_max_km = {max_km})"
                        )
                    },
                ));
            }
        }
    }
    out
}

/// Great-circle distance in km from (lon, lat) to the nearest point of a lon/lat box (0 inside).
fn km_outside(extent: Rect<f64>, lon: f64, lat: f64) -> f64 {
    if !(-180.0..=180.0).contains(&lon) || !(-90.0..=90.0).contains(&lat) {
        return f64::INFINITY;
    }
    let near_lon = lon.clamp(extent.min().x, extent.max().x);
    let near_lat = lat.clamp(extent.min().y, extent.max().y);
    let (p1, p2) = (lat.to_radians(), near_lat.to_radians());
    let dp = p2 - p1;
    let dl = (near_lon - lon).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * 6_371.008_8 * a.sqrt().min(1.0).asin()
}

/// Sites from every sites layer, else the distinct `site_field` values of the disturbance
/// layers; each with its polygons from every disturbance layer. A site id in two sites
/// layers is an error: which of its records is meant cannot be told.
fn collect_sites(layers: &[Layer]) -> Result<Vec<Site>> {
    let mut by_site: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for (li, d) in layers.iter().enumerate() {
        let Some(sf) = d.config.site_field.as_deref() else {
            continue;
        };
        if d.config.role != Role::Disturbance {
            continue;
        }
        for (i, f) in d.features.iter().enumerate() {
            if let Some(s) = f.properties.text(sf) {
                if !by_site.contains_key(&s) {
                    order.push(s.clone());
                }
                by_site.entry(s).or_default().push((li, i));
            }
        }
    }
    let mut sites: Vec<Site> = Vec::new();
    let mut seen: HashMap<String, &str> = HashMap::new();
    for sl in layers.iter().filter(|l| l.config.role == Role::Sites) {
        for f in &sl.features {
            if let Some(other) = seen.insert(f.id.clone(), &sl.source.path) {
                return Err(Error::layer_feature(
                    &sl.source.path,
                    "sites",
                    f.id.clone(),
                    format!("site id '{}' is also a site of {other}; site ids must be unique across sites layers", f.id),
                ));
            }
            {
                sites.push(Site {
                    id: f.id.clone(),
                    name: sl.name_of(f),
                    attributes: f.properties.to_map(),
                    boundary: Some(f.geometry.clone()),
                    disturbance: by_site.get(&f.id).cloned().unwrap_or_default(),
                });
            }
        }
    }
    if !sites.is_empty() {
        return Ok(sites);
    }
    Ok(order
        .into_iter()
        .map(|id| Site {
            disturbance: by_site.remove(&id).unwrap_or_default(),
            id,
            name: None,
            attributes: Map::new(),
            boundary: None,
        })
        .collect())
}
