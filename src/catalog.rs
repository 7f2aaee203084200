//! The loaded data set: every layer read once, reprojected, checked and indexed in an
//! R-tree, then shared immutably (`Arc<Catalog>`) by the CLI and the server.

use crate::config::{LayerConfig, Manifest, Role};
use crate::error::{Error, Result};
use crate::load::{self, value_text, Feature, LoadProblem, Row, SourceInfo};
use geo::BoundingRect;
use geo_types::{Geometry, Rect};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

pub type IndexEntry = GeomWithData<Rectangle<[f64; 2]>, usize>;

/// One geometry layer with its R-tree of feature envelopes.
#[derive(Debug)]
pub struct Layer {
    pub config: LayerConfig,
    /// The OGC API collection id: the role, or `role-2`... when several layers share a role.
    pub collection_id: String,
    pub source: SourceInfo,
    pub features: Vec<Feature>,
    pub problems: Vec<LoadProblem>,
    pub index: RTree<IndexEntry>,
    by_id: HashMap<String, usize>,
}

impl Layer {
    pub fn new(config: LayerConfig, collection_id: String, loaded: load::LoadedLayer) -> Layer {
        let mut problems = loaded.problems;
        let mut by_id = HashMap::with_capacity(loaded.features.len());
        for (i, f) in loaded.features.iter().enumerate() {
            if by_id.insert(f.id.clone(), i).is_some() {
                problems.push(LoadProblem {
                    path: loaded.source.path.clone(),
                    feature: f.id.clone(),
                    reason: "duplicate id; lookups by id return the last one".into(),
                });
            }
        }
        let entries = loaded
            .features
            .iter()
            .enumerate()
            .filter_map(|(i, f)| envelope(&f.geometry).map(|r| GeomWithData::new(r, i)))
            .collect();
        Layer {
            config,
            collection_id,
            source: loaded.source,
            features: loaded.features,
            problems,
            index: RTree::bulk_load(entries),
            by_id,
        }
    }

    pub fn get(&self, id: &str) -> Option<&Feature> {
        self.by_id.get(id).map(|&i| &self.features[i])
    }

    pub fn position(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// Indices of features whose envelope meets `rect` (lon/lat degrees).
    pub fn query(&self, rect: Rect<f64>) -> impl Iterator<Item = usize> + '_ {
        let aabb = AABB::from_corners([rect.min().x, rect.min().y], [rect.max().x, rect.max().y]);
        self.index
            .locate_in_envelope_intersecting(&aabb)
            .map(|e| e.data)
    }

    pub fn name_of(&self, f: &Feature) -> Option<String> {
        self.config
            .name_field
            .as_deref()
            .and_then(|n| f.properties.get(n))
            .and_then(value_text)
    }

    pub fn text(&self, f: &Feature, field: Option<&str>) -> Option<String> {
        field.and_then(|n| f.properties.get(n)).and_then(value_text)
    }

    pub fn bbox(&self) -> Option<Rect<f64>> {
        let env = self.index.root().envelope();
        (self.index.size() > 0).then(|| {
            Rect::new(
                geo_types::coord! { x: env.lower()[0], y: env.lower()[1] },
                geo_types::coord! { x: env.upper()[0], y: env.upper()[1] },
            )
        })
    }
}

fn envelope(g: &Geometry<f64>) -> Option<Rectangle<[f64; 2]>> {
    g.bounding_rect()
        .map(|r| Rectangle::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]))
}

/// An impaired-waters list without geometry, grouped by its key.
#[derive(Debug)]
pub struct ImpairedTable {
    pub config: LayerConfig,
    pub source: SourceInfo,
    pub rows: HashMap<String, Vec<Row>>,
}

/// A construction site: a feature of the sites layer, or a distinct `site_field` value of the
/// disturbance layer when there is no sites layer.
#[derive(Debug, Clone)]
pub struct Site {
    pub id: String,
    pub name: Option<String>,
    pub attributes: Map<String, Value>,
    pub boundary: Option<Geometry<f64>>,
    /// Indices into the disturbance layer.
    pub disturbance: Vec<usize>,
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
        let hydro = crate::waters::Hydro::build(&layers, &impaired_tables, &manifest.rules);
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
            site_index,
        })
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

fn collect_sites(layers: &[Layer]) -> Vec<Site> {
    let dist = layers.iter().find(|l| l.config.role == Role::Disturbance);
    let site_field = dist.and_then(|d| d.config.site_field.clone());
    let mut by_site: HashMap<String, Vec<usize>> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    if let (Some(d), Some(sf)) = (dist, site_field.as_deref()) {
        for (i, f) in d.features.iter().enumerate() {
            if let Some(s) = f.properties.get(sf).and_then(value_text) {
                if !by_site.contains_key(&s) {
                    order.push(s.clone());
                }
                by_site.entry(s).or_default().push(i);
            }
        }
    }
    match layers.iter().find(|l| l.config.role == Role::Sites) {
        Some(sl) => sl
            .features
            .iter()
            .map(|f| Site {
                id: f.id.clone(),
                name: sl.name_of(f),
                attributes: f.properties.clone(),
                boundary: Some(f.geometry.clone()),
                disturbance: by_site.get(&f.id).cloned().unwrap_or_default(),
            })
            .collect(),
        None => order
            .into_iter()
            .map(|id| Site {
                disturbance: by_site.remove(&id).unwrap_or_default(),
                id,
                name: None,
                attributes: Map::new(),
                boundary: None,
            })
            .collect(),
    }
}
