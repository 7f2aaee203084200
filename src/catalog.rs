//! The loaded data set: every layer read once, reprojected, checked and indexed in an
//! R-tree, then shared immutably (`Arc<Catalog>`) by the CLI and the server.

use crate::config::{LayerConfig, Manifest, Role};
use crate::error::{Error, Result};
pub use crate::layer::{ImpairedTable, IndexEntry, Layer};
use crate::load::{self, value_text, LoadProblem, Row, SourceInfo};
use geo_types::{Geometry, Rect};
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

#[derive(Debug)]
pub struct Catalog {
    pub manifest: Manifest,
    pub layers: Vec<Layer>,
    pub impaired_tables: Vec<ImpairedTable>,
    pub sites: Vec<Site>,
    /// The stream network and its impairments, when flowlines are loaded.
    pub hydro: Option<crate::waters::Hydro>,
    /// Listings matched to waterbodies, keyed by (layer, feature), with or without a network.
    pub waterbody_impairments: HashMap<(usize, usize), Vec<crate::waters::ImpairmentHit>>,
    site_index: HashMap<String, usize>,
}

impl Catalog {
    pub fn open(dir: &Path) -> Result<Catalog> {
        Catalog::load(Manifest::read(dir)?, &mut |_, _, _| {})
    }

    pub fn load(manifest: Manifest, progress: Progress) -> Result<Catalog> {
        let mut layers: Vec<Layer> = Vec::new();
        let mut impaired_tables = Vec::new();
        let total = manifest.layers.len();
        for (n, cfg) in manifest.layers.iter().enumerate() {
            progress(&cfg.path.display().to_string(), n, total);
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
                impaired_tables.push(read_impaired_table(&manifest.dir, cfg)?);
                continue;
            }
            let loaded = load::load_layer(&manifest.dir, cfg)?;
            let same = layers.iter().filter(|l| l.config.role == cfg.role).count();
            let collection_id = match same {
                0 => cfg.role.as_str().to_string(),
                k => format!("{}-{}", cfg.role.as_str(), k + 1),
            };
            layers.push(Layer::new(cfg.clone(), collection_id, loaded));
        }
        progress("stream network", total, total);
        let waterbody_impairments =
            crate::waters::waterbody_impairments(&layers, &impaired_tables, &manifest.rules);
        let hydro = crate::waters::Hydro::build(
            &layers,
            &impaired_tables,
            &waterbody_impairments,
            &manifest.rules,
        );
        let sites = collect_sites(&layers);
        let site_index = sites
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.clone(), i))
            .collect();
        Ok(Catalog {
            manifest,
            layers,
            impaired_tables,
            sites,
            hydro,
            waterbody_impairments,
            site_index,
        })
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
                    .find(|s| s.path == cfg.path.display().to_string())
                    .cloned()
            })
            .collect()
    }

    pub fn problems(&self) -> Vec<LoadProblem> {
        self.layers
            .iter()
            .flat_map(|l| l.problems.iter().cloned())
            .collect()
    }

    /// The extent of all loaded layers (lon/lat).
    pub fn bbox(&self) -> Option<Rect<f64>> {
        self.layers.iter().filter_map(Layer::bbox).reduce(|a, b| {
            Rect::new(
                geo_types::coord! { x: a.min().x.min(b.min().x), y: a.min().y.min(b.min().y) },
                geo_types::coord! { x: a.max().x.max(b.max().x), y: a.max().y.max(b.max().y) },
            )
        })
    }
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
    let mut columns: Vec<&str> = vec![key];
    columns.extend(cfg.causes_field.as_deref());
    if let Some(first) = rows.first() {
        for c in columns {
            if !first.contains_key(c) {
                return Err(Error::MissingField {
                    path: path.clone(),
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

/// Sites from every sites layer (the first of a duplicated id wins), else the distinct
/// `site_field` values of the disturbance layers; each with its polygons from every
/// disturbance layer.
fn collect_sites(layers: &[Layer]) -> Vec<Site> {
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
            if let Some(s) = f.properties.get(sf).and_then(value_text) {
                if !by_site.contains_key(&s) {
                    order.push(s.clone());
                }
                by_site.entry(s).or_default().push((li, i));
            }
        }
    }
    let mut sites: Vec<Site> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for sl in layers.iter().filter(|l| l.config.role == Role::Sites) {
        for f in &sl.features {
            if seen.insert(f.id.clone()) {
                sites.push(Site {
                    id: f.id.clone(),
                    name: sl.name_of(f),
                    attributes: f.properties.clone(),
                    boundary: Some(f.geometry.clone()),
                    disturbance: by_site.get(&f.id).cloned().unwrap_or_default(),
                });
            }
        }
    }
    if !sites.is_empty() {
        return sites;
    }
    order
        .into_iter()
        .map(|id| Site {
            disturbance: by_site.remove(&id).unwrap_or_default(),
            id,
            name: None,
            attributes: Map::new(),
            boundary: None,
        })
        .collect()
}
