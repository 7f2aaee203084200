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
                boundary: s.boundary.clone(),
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
                geometry: f.geometry.clone(),
            });
        }
    }
    (sites, disturbance)
}

/// The `sites` and `disturbance` layers built from the registry (retired sites left out),
/// with the data set's column names. A geometry that fails the loader's checks (an edit in
/// QGIS can make one) is left out and reported, as a file layer's would be.
pub fn site_layers(
    catalog: &Catalog,
    store: &str,
    sites: &[SiteRecord],
    disturbance: &[DisturbanceRecord],
) -> ((LayerConfig, LoadedLayer), (LayerConfig, LoadedLayer)) {
    let scfg = sites_config(catalog);
    let dcfg = disturbance_config(catalog);
    let live: std::collections::HashSet<&str> = sites
        .iter()
        .filter(|s| s.retired.is_none())
        .map(|s| s.site_id.as_str())
        .collect();
    let mut site_features = Vec::new();
    let mut site_problems = Vec::new();
    let sites_path = format!("{store} (sites)");
    for s in sites.iter().filter(|s| s.retired.is_none()) {
        let mut properties = Map::new();
        for (k, v) in &s.properties {
            properties.insert(column_of(&scfg, k).to_string(), v.clone());
        }
        properties.insert(
            scfg.id_field.clone().unwrap_or_else(|| "site_id".into()),
            Value::String(s.site_id.clone()),
        );
        let Some(boundary) = &s.boundary else {
            // A site without a drawn boundary still exists; its polygons are its extent.
            site_features.push(boundaryless(s, properties));
            continue;
        };
        match crate::load::check_geometry(boundary.clone()) {
            Ok(geometry) => site_features.push(Feature {
                id: s.site_id.clone(),
                geometry,
                properties: properties.into(),
            }),
            Err(reason) => site_problems.push(problem(&sites_path, &s.site_id, &s.site_id, reason)),
        }
    }
    let dist_path = format!("{store} (disturbance)");
    let mut dist_features = Vec::new();
    let mut dist_problems = Vec::new();
    for d in disturbance
        .iter()
        .filter(|d| live.contains(d.site_id.as_str()))
    {
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
        match crate::load::check_geometry(d.geometry.clone()) {
            Ok(geometry) => dist_features.push(Feature {
                id: d.dist_id.clone(),
                geometry,
                properties: properties.into(),
            }),
            Err(reason) => dist_problems.push(problem(&dist_path, &d.dist_id, &d.site_id, reason)),
        }
    }
    (
        (
            scfg,
            loaded("sites", sites_path, site_features, site_problems),
        ),
        (
            dcfg,
            loaded("disturbance", dist_path, dist_features, dist_problems),
        ),
    )
}

/// A site feature with an empty geometry collection: it has no boundary of its own.
fn boundaryless(s: &SiteRecord, properties: Map<String, Value>) -> Feature {
    Feature {
        id: s.site_id.clone(),
        geometry: geo_types::Geometry::GeometryCollection(Default::default()),
        properties: properties.into(),
    }
}

fn problem(path: &str, feature: &str, site: &str, reason: String) -> LoadProblem {
    LoadProblem {
        path: path.to_string(),
        feature: feature.to_string(),
        reason,
        site: Some(site.to_string()),
    }
}

fn loaded(
    role: &str,
    path: String,
    mut features: Vec<Feature>,
    problems: Vec<LoadProblem>,
) -> LoadedLayer {
    crate::attributes::share_keys(&mut features, |f| &mut f.properties);
    // The layer's fingerprint: what a report cites so it can be reproduced.
    let mut h = sha2::Sha256::new();
    for f in &features {
        h.update(f.id.as_bytes());
        h.update(format!("{:?}", f.geometry).as_bytes());
        h.update(
            serde_json::to_string(&f.properties)
                .unwrap_or_default()
                .as_bytes(),
        );
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
