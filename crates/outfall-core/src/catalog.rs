//! The loaded data set: every layer read once, reprojected, checked and indexed in an
//! R-tree, then shared immutably (`Arc<Catalog>`) by the CLI and the server.

mod read;
mod sites;
mod validate;

pub use validate::{validate, Validation};

use crate::config::{check_inside, LayerConfig, Manifest, Role};
use crate::error::{Error, Result};
pub use crate::layer::{ImpairedTable, IndexEntry, Layer};
use crate::load::{self, LoadProblem, SourceInfo};
use geo_types::{Geometry, Rect};
use read::{log_origins, read_impaired_table, read_layer};
use serde_json::{Map, Value};
use sites::{check_sites, collect_sites};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// A construction site: a feature of the sites layer, or a distinct `site_field` value of the
/// disturbance layer when there is no sites layer.
#[derive(Debug, Clone)]
pub struct Site {
    pub id: String,
    /// What its record states, read once at load and shared by every check of the site.
    pub record: Arc<crate::record::Site>,
    /// The feature's own columns, as the file names them (what seeding the registry copies).
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
    pub hydro: Option<Arc<crate::waters::Hydro>>,
    /// Listings matched to waterbodies, keyed by (layer, feature), with or without a network.
    pub waterbody_impairments: HashMap<(usize, usize), Vec<crate::waters::ImpairmentHit>>,
    /// Problems with a site's own attributes found after every layer is read: a parcel id
    /// no parcels layer holds, an outfall point outside the data set. Each names its site.
    pub site_problems: Vec<LoadProblem>,
    /// Daily precipitation records (`rainfall` layers) for the inspection calendar.
    pub rainfall: Vec<load::rainfall::Rainfall>,
    /// The storm-sewer network, when storm pipes are loaded.
    pub storm: Option<Arc<crate::storm::StormNetwork>>,
    /// The conditioned DEM of a `dem` layer, shared by the copies of a catalog.
    pub dem: Option<std::sync::Arc<crate::dem::Dem>>,
    /// The parcels' and waters' words for `/search`, built once at load and shared by the
    /// copies of a catalog (their layers are shared too).
    pub search: Arc<crate::names::SearchIndex>,
    site_index: HashMap<String, usize>,
    /// `sources()` and `problems()` as every report shows them, made once per catalog: a
    /// report used to copy them, which was most of a check at 1.2M parcels (784 refused).
    shown: Shown,
}

#[derive(Debug, Clone, Default)]
struct Shown {
    sources: Arc<[SourceInfo]>,
    problems: Arc<[LoadProblem]>,
}

impl Catalog {
    pub fn open(dir: &Path) -> Result<Catalog> {
        Catalog::load(Manifest::read(dir)?, &mut |_, _, _| {})
    }

    pub fn load(manifest: Manifest, progress: Progress) -> Result<Catalog> {
        // The compiled-in causes vocabulary decides Condition A: refuse to load without it.
        crate::vocabulary::causes::shipped()?;
        let Read {
            mut layers,
            impaired_tables,
            rainfall,
            dem,
        } = read_all(&manifest, progress)?;
        let total = manifest.layers.len();
        progress("stream network", total, total);
        let started = std::time::Instant::now();
        let waterbody_impairments =
            crate::waters::waterbody_impairments(&layers, &impaired_tables, &manifest.rules);
        let hydro = crate::waters::Hydro::build(
            &layers,
            &impaired_tables,
            &waterbody_impairments,
            &manifest.rules,
        );
        let storm = crate::storm::build(&layers)?;
        let sites = collect_sites(&layers, &manifest.words)?;
        // A table list has no geometry of its own: serve the waters it lists, after every
        // match above so the derived layer never matches itself.
        for table in &impaired_tables {
            let collection_id = collection_id(&layers, Role::Impaired);
            layers.extend(crate::waters::listed_waters_layer(
                &layers,
                table,
                collection_id,
            ));
        }
        let site_index = index_of(&sites);
        let search = Arc::new(crate::names::SearchIndex::build(&layers));
        let mut catalog = Catalog {
            manifest,
            layers,
            impaired_tables,
            sites,
            hydro: hydro.map(Arc::new),
            waterbody_impairments,
            site_problems: Vec::new(),
            rainfall,
            storm: storm.map(Arc::new),
            dem,
            search,
            site_index,
            shown: Shown::default(),
        };
        catalog.site_problems = check_sites(&catalog);
        catalog.show();
        tracing::info!(
            "networks, sites and listings built in {:.2} s",
            started.elapsed().as_secs_f64()
        );
        Ok(catalog)
    }

    /// A copy whose sites and disturbance come from elsewhere (the site registry): the first
    /// layer of each role is replaced (or added) and any other of that role is emptied, so
    /// every layer keeps its index and the stream network built from the others stays valid.
    /// The other layers' features and indexes and the networks are shared with `self`, not
    /// copied: the registry makes one of these after every edit.
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
        c.sites = collect_sites(&c.layers, &c.manifest.words)?;
        c.site_index = index_of(&c.sites);
        c.site_problems = check_sites(&c);
        c.show();
        Ok(c)
    }

    fn show(&mut self) {
        self.shown = Shown {
            sources: self.sources().into(),
            problems: self.problems().into(),
        };
    }

    /// `sources()`, shared by every report of this catalog.
    pub fn shown_sources(&self) -> Arc<[SourceInfo]> {
        self.shown.sources.clone()
    }

    /// `problems()`, shared by every report of this catalog.
    pub fn shown_problems(&self) -> Arc<[LoadProblem]> {
        self.shown.problems.clone()
    }

    /// Listings matched to a flowline (by its reach) or a waterbody feature, as matched at
    /// load: borrowed, since a check reads them for twenty candidate waters and a page of
    /// items for every water on it.
    pub fn impairments_of_feature(
        &self,
        layer: usize,
        feature: usize,
    ) -> &[crate::waters::ImpairmentHit] {
        if let Some(hits) = self.waterbody_impairments.get(&(layer, feature)) {
            return hits;
        }
        self.hydro
            .as_ref()
            .and_then(|h| h.reach_of(layer, feature).map(|r| h.impairments(r)))
            .unwrap_or(&[])
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
            .chain(
                self.storm
                    .iter()
                    .flat_map(|s| s.problems.iter().map(|p| p.to_load_problem())),
            )
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

/// The layers of a manifest as read, before anything is built across them.
struct Read {
    layers: Vec<Layer>,
    impaired_tables: Vec<ImpairedTable>,
    rainfall: Vec<load::rainfall::Rainfall>,
    dem: Option<std::sync::Arc<crate::dem::Dem>>,
}

/// Reads every layer of the manifest in its order, each checked to lie where the manifest
/// allows, and logs which came from the prepared cache.
fn read_all(manifest: &Manifest, progress: Progress) -> Result<Read> {
    let mut read = Read {
        layers: Vec::new(),
        impaired_tables: Vec::new(),
        rainfall: Vec::new(),
        dem: None,
    };
    let total = manifest.layers.len();
    let mut origins: Vec<(String, bool)> = Vec::new();
    for (n, cfg) in manifest.layers.iter().enumerate() {
        progress(&cfg.path.display().to_string(), n, total);
        if cfg.role == Role::Rainfall {
            check_inside(manifest, cfg)?;
            read.rainfall
                .push(load::rainfall::read(&manifest.dir, cfg)?);
            continue;
        }
        if cfg.role == Role::Dem {
            check_inside(manifest, cfg)?;
            read.dem = Some(read_dem(manifest, cfg, read.dem.is_some())?);
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
            check_inside(manifest, cfg)?;
            read.impaired_tables
                .push(read_impaired_table(&manifest.dir, cfg)?);
            continue;
        }
        check_inside(manifest, cfg)?;
        let started = std::time::Instant::now();
        let (loaded, cached) = read_layer(manifest, cfg)?;
        let read_s = started.elapsed().as_secs_f64();
        origins.push((cfg.path.display().to_string(), cached));
        let collection_id = collection_id(&read.layers, cfg.role);
        let layer = Layer::new(cfg.clone(), collection_id, loaded);
        // Start time is an operator's figure at a state's scale: say where it went.
        tracing::info!(
            "{}: {} features read in {read_s:.2} s, indexed in {:.2} s",
            cfg.path.display(),
            layer.features.len(),
            started.elapsed().as_secs_f64() - read_s
        );
        read.layers.push(layer);
    }
    log_origins(&manifest.dir, &origins);
    Ok(read)
}

/// The one DEM of a data set, read and conditioned once.
fn read_dem(
    manifest: &Manifest,
    cfg: &LayerConfig,
    second: bool,
) -> Result<std::sync::Arc<crate::dem::Dem>> {
    if second {
        return Err(Error::Manifest {
            path: manifest.dir.join(crate::config::MANIFEST_FILE),
            reason: format!(
                "{}: a second dem layer; a data set has one DEM",
                cfg.path.display()
            ),
        });
    }
    let dem = crate::dem::Dem::load(&manifest.dir, cfg, manifest.rules.dem_snap_threshold_cells)?;
    Ok(std::sync::Arc::new(dem))
}

/// The collection id of the next layer of `role`: the role, then `role-2`, `role-3`, ...
fn collection_id(layers: &[Layer], role: Role) -> String {
    match layers.iter().filter(|l| l.config.role == role).count() {
        0 => role.as_str().to_string(),
        k => format!("{}-{}", role.as_str(), k + 1),
    }
}

fn index_of(sites: &[Site]) -> HashMap<String, usize> {
    sites
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.clone(), i))
        .collect()
}
