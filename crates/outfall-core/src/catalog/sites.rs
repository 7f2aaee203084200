//! The sites of a loaded data set, and the checks of their own attributes against it.

use super::{Catalog, Site};
use crate::config::Role;
use crate::error::{Error, Result};
use crate::layer::Layer;
use crate::load::LoadProblem;
use crate::record;
use crate::vocabulary::site::Vocabulary;
use geo_types::Rect;
use serde_json::Map;
use std::collections::HashMap;
use std::sync::Arc;

/// Checks each site's own attributes against the loaded data: every `parcel_ids` entry must
/// be a parcel of some parcels layer, and an `outfall` must be a "lon,lat" point within
/// `outfall_max_km` of the data set's extent.
pub(super) fn check_sites(catalog: &Catalog) -> Vec<LoadProblem> {
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
        // The outfall as written: the problems quote it.
        let outfall_col = sl.config.field(record::SITE.outfall.name);
        for f in sl.features.iter() {
            // Site ids are unique across sites layers (`collect_sites`), so each feature is
            // the site of its id.
            let Ok(site) = catalog.site(&f.id) else {
                continue;
            };
            out.extend(
                site.record
                    .problems
                    .iter()
                    .map(|p| problem(&f.id, p.clone())),
            );
            if site.boundary.is_none() {
                continue;
            }
            if !parcels.is_empty() {
                for pid in &site.record.parcel_ids {
                    if !parcels.iter().any(|l| l.get(pid).is_some()) {
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
pub(super) fn collect_sites(layers: &[Layer], words: &Vocabulary) -> Result<Vec<Site>> {
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
        for f in sl.features.iter() {
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
                    record: Arc::new(with_row_problems(
                        record::Site::from_feature(f, &sl.config, words),
                        sl,
                    )),
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
            record: Arc::new(record::Site::bare(id.clone())),
            id,
            attributes: Map::new(),
            boundary: None,
        })
        .collect())
}

/// The record with what the loader found wrong with its own row of the sites layer (a
/// boundary the registry could not read or use) added to its problems: the site stays listed
/// and its report says why its boundary is missing.
fn with_row_problems(mut record: record::Site, layer: &Layer) -> record::Site {
    let id = record.id.clone();
    record.problems.extend(
        layer
            .problems
            .iter()
            .filter(|p| p.site.as_deref() == Some(id.as_str()))
            .map(|p| format!("{} row {}: {}", p.path, p.feature, p.reason)),
    );
    record
}
