//! Between the registry's records and the catalog's layers: seeding the registry from the
//! `sites` and `disturbance` file layers, and building those two layers back from the
//! registry, under the town's own column names, so every rule reads a site the same way
//! whether it came from a file or from the registry.

use super::{DisturbanceRecord, SiteRecord, SITE_COLUMNS};
use crate::catalog::Catalog;
use crate::config::{LayerConfig, Role};
use crate::load::{value_text, Feature, LoadProblem, LoadedLayer, SourceInfo};
use serde_json::{json, Map, Value};
use sha2::Digest;

/// The sites layer's settings: the data set's own, or plain names when it has none.
pub fn sites_config(catalog: &Catalog) -> LayerConfig {
    catalog
        .layer(Role::Sites)
        .map(|l| l.config.clone())
        .unwrap_or_else(|| {
            config(json!({"role": "sites", "path": super::GPKG_FILE,
                "id_field": "site_id", "name_field": "name"}))
        })
}

/// The disturbance layer's settings: the data set's own, or plain names when it has none.
pub fn disturbance_config(catalog: &Catalog) -> LayerConfig {
    catalog
        .layer(Role::Disturbance)
        .map(|l| l.config.clone())
        .unwrap_or_else(|| {
            config(json!({"role": "disturbance", "path": super::GPKG_FILE,
                "id_field": "dist_id", "site_field": "site_id", "phase_field": "phase",
                "start_field": "start", "end_field": "end"}))
        })
}

fn config(v: Value) -> LayerConfig {
    // The literal above always has the required keys; the fallback is never taken.
    serde_json::from_value(v).unwrap_or_else(|e| unreachable!("layer config literal: {e}"))
}

/// The file column that holds a semantic site attribute.
fn column_of<'a>(cfg: &'a LayerConfig, semantic: &'a str) -> &'a str {
    if semantic == "name" {
        return cfg.name_field.as_deref().unwrap_or("name");
    }
    cfg.field(semantic)
}

/// The semantic name of a file column (the reverse of `column_of`).
fn semantic_of(cfg: &LayerConfig, column: &str) -> String {
    if cfg.name_field.as_deref() == Some(column) {
        return "name".into();
    }
    cfg.fields
        .iter()
        .find(|(_, c)| c.as_str() == column)
        .map(|(s, _)| s.clone())
        .unwrap_or_else(|| column.to_string())
}

/// The registry's first content: every site of the file layers, and every polygon of the
/// disturbance layers that names a site.
pub fn records_from_catalog(catalog: &Catalog) -> (Vec<SiteRecord>, Vec<DisturbanceRecord>) {
    let scfg = sites_config(catalog);
    let sites = catalog
        .sites
        .iter()
        .map(|s| {
            let mut properties = Map::new();
            for (col, v) in &s.attributes {
                if Some(col.as_str()) == scfg.id_field.as_deref() || v.is_null() {
                    continue;
                }
                let key = semantic_of(&scfg, col);
                let v = if SITE_COLUMNS.contains(&key.as_str()) {
                    value_text(v).map(Value::String).unwrap_or(Value::Null)
                } else {
                    v.clone()
                };
                if !v.is_null() {
                    properties.insert(key, v);
                }
            }
            if let (Some(n), false) = (&s.record.name, properties.contains_key("name")) {
                properties.insert("name".into(), Value::String(n.clone()));
            }
            SiteRecord {
                site_id: s.id.clone(),
                properties,
                boundary: s.boundary.clone().map(Ok),
                version: 1,
                retired: None,
                submitted_by: None,
            }
        })
        .collect();
    let mut disturbance = Vec::new();
    for layer in catalog.layers_of(Role::Disturbance) {
        let c = &layer.config;
        let Some(site_field) = c.site_field.as_deref() else {
            continue;
        };
        let named = [
            Some(site_field),
            c.id_field.as_deref(),
            c.phase_field.as_deref(),
            c.start_field.as_deref(),
            c.end_field.as_deref(),
        ];
        for f in layer.features.iter() {
            let text = |col: Option<&str>| col.and_then(|n| f.properties.text(n));
            let Some(site_id) = text(Some(site_field)) else {
                continue;
            };
            let properties = f
                .properties
                .iter()
                .filter(|(k, _)| !named.contains(&Some(*k)))
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            disturbance.push(DisturbanceRecord {
                site_id,
                dist_id: f.id.clone(),
                phase: text(c.phase_field.as_deref()),
                start: text(c.start_field.as_deref()),
                end: text(c.end_field.as_deref()),
                properties,
                geometry: Ok(f.geometry.clone()),
            });
        }
    }
    (sites, disturbance)
}

/// One site's records as features of the two site layers, each checked as the loader
/// checks a file's. A stored geometry that cannot be read, or fails the loader's checks (an
/// edit in QGIS or sqlite3 can make either), is a problem of its site, logged: the site keeps
/// its place without that boundary, a polygon is left out (its site's report then says its
/// acres may be short). Made once per version of the records and kept by the registry's
/// snapshots, so an edit checks only what changed (and a bad row is logged once per change).
#[derive(Debug, Clone)]
pub struct SiteFeatures {
    /// The site, always present.
    pub site: Fingerprinted,
    /// Why its boundary was left out, if it was.
    pub site_problem: Option<LoadProblem>,
    /// Its polygons, in the order of its records.
    pub disturbance: Vec<std::result::Result<Fingerprinted, LoadProblem>>,
}

/// A feature with the digest its layer's fingerprint is made of.
#[derive(Debug, Clone)]
pub struct Fingerprinted {
    pub feature: Feature,
    digest: [u8; 32],
}

impl Fingerprinted {
    fn new(feature: Feature) -> Fingerprinted {
        let mut h = sha2::Sha256::new();
        h.update(feature.id.as_bytes());
        h.update(format!("{:?}", feature.geometry).as_bytes());
        h.update(
            serde_json::to_string(&feature.properties)
                .unwrap_or_default()
                .as_bytes(),
        );
        Fingerprinted {
            feature,
            digest: h.finalize().into(),
        }
    }
}

/// The features of one site (not retired) and its polygons, under the data set's column
/// names; `store` names the registry in a problem.
pub fn site_features(
    catalog: &Catalog,
    store: &str,
    s: &SiteRecord,
    polygons: &[DisturbanceRecord],
) -> SiteFeatures {
    let scfg = sites_config(catalog);
    let dcfg = disturbance_config(catalog);
    let mut properties = Map::new();
    for (k, v) in &s.properties {
        properties.insert(column_of(&scfg, k).to_string(), v.clone());
    }
    properties.insert(
        scfg.id_field.clone().unwrap_or_else(|| "site_id".into()),
        Value::String(s.site_id.clone()),
    );
    let (site, site_problem) = match s.boundary.as_ref().map(checked) {
        // A site without a drawn boundary still exists; its polygons are its extent.
        None => (boundaryless(s, properties), None),
        Some(Ok(geometry)) => (
            Feature {
                id: s.site_id.clone(),
                geometry,
                properties: properties.into(),
            },
            None,
        ),
        Some(Err(reason)) => {
            let reason = format!("{reason}; the site is kept without its boundary");
            let path = format!("{store} (sites)");
            let p = problem(&path, &s.site_id, &s.site_id, reason);
            (boundaryless(s, properties), Some(p))
        }
    };
    let disturbance = polygons
        .iter()
        .map(|d| {
            let mut properties = d.properties.clone();
            let mut put = |col: Option<&str>, v: &Option<String>| {
                if let (Some(c), Some(v)) = (col, v) {
                    properties.insert(c.to_string(), Value::String(v.clone()));
                }
            };
            put(dcfg.id_field.as_deref(), &Some(d.dist_id.clone()));
            put(dcfg.site_field.as_deref(), &Some(d.site_id.clone()));
            put(dcfg.phase_field.as_deref(), &d.phase);
            put(dcfg.start_field.as_deref(), &d.start);
            put(dcfg.end_field.as_deref(), &d.end);
            checked(&d.geometry)
                .map(|geometry| {
                    Fingerprinted::new(Feature {
                        id: d.dist_id.clone(),
                        geometry,
                        properties: properties.into(),
                    })
                })
                .map_err(|reason| {
                    problem(
                        &format!("{store} (disturbance)"),
                        &d.dist_id,
                        &d.site_id,
                        reason,
                    )
                })
        })
        .collect();
    SiteFeatures {
        site: Fingerprinted::new(site),
        site_problem,
        disturbance,
    }
}

/// The `sites` and `disturbance` layers of the sites' checked features: the sites in the
/// given order, and the polygons in the registry's order, `polygon_sites` naming the site of
/// each (its k-th mention is that site's k-th polygon).
pub fn site_layers(
    catalog: &Catalog,
    store: &str,
    sites: &[&SiteFeatures],
    polygon_sites: &[(&str, &SiteFeatures)],
) -> ((LayerConfig, LoadedLayer), (LayerConfig, LoadedLayer)) {
    let (mut site_features, mut site_problems) = (Vec::new(), Vec::new());
    for s in sites {
        site_features.push(&s.site);
        site_problems.extend(s.site_problem.clone());
    }
    let (mut dist_features, mut dist_problems) = (Vec::new(), Vec::new());
    let mut next: std::collections::HashMap<&str, usize> = Default::default();
    for (site, features) in polygon_sites {
        let k = next.entry(site).or_default();
        match features.disturbance.get(*k) {
            Some(Ok(f)) => dist_features.push(f),
            Some(Err(p)) => dist_problems.push(p.clone()),
            None => {}
        }
        *k += 1;
    }
    (
        (
            sites_config(catalog),
            loaded(
                "sites",
                format!("{store} (sites)"),
                &site_features,
                site_problems,
            ),
        ),
        (
            disturbance_config(catalog),
            loaded(
                "disturbance",
                format!("{store} (disturbance)"),
                &dist_features,
                dist_problems,
            ),
        ),
    )
}

/// A stored geometry read and passed by the loader's checks, or why not.
fn checked(
    stored: &super::Stored<geo_types::Geometry<f64>>,
) -> Result<geo_types::Geometry<f64>, String> {
    match stored {
        Ok(g) => crate::load::check_geometry(g.clone()),
        Err(e) => Err(format!("unreadable geometry: {e}")),
    }
}

/// A site feature with an empty geometry collection: it has no boundary of its own.
fn boundaryless(s: &SiteRecord, properties: Map<String, Value>) -> Feature {
    Feature {
        id: s.site_id.clone(),
        geometry: geo_types::Geometry::GeometryCollection(Default::default()),
        properties: properties.into(),
    }
}

/// A row's problem, logged as it is found: the store was written by another program, and
/// whoever runs the service should hear of it as well as the site's officer.
fn problem(path: &str, feature: &str, site: &str, reason: String) -> LoadProblem {
    tracing::warn!(site, row = feature, "{path}: {reason}");
    LoadProblem {
        path: path.to_string(),
        feature: feature.to_string(),
        reason,
        site: Some(site.to_string()),
    }
}

/// A layer of checked features. Its fingerprint, what a report cites so it can be
/// reproduced, is made of the features' digests, computed once per feature.
fn loaded(
    role: &str,
    path: String,
    checked: &[&Fingerprinted],
    problems: Vec<LoadProblem>,
) -> LoadedLayer {
    let mut features: Vec<Feature> = checked.iter().map(|c| c.feature.clone()).collect();
    crate::attributes::share_keys(&mut features, |f| &mut f.properties);
    let mut h = sha2::Sha256::new();
    for c in checked {
        h.update(c.digest);
    }
    LoadedLayer {
        source: SourceInfo {
            role: role.to_string(),
            path,
            sha256: hex::encode(h.finalize()),
            features: features.len(),
            crs: "EPSG:4326".into(),
        },
        features,
        problems,
        hints: Default::default(),
    }
}
