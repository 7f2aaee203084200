//! The checks of a whole layer once its features are read: every column the manifest names
//! exists, the features lie where the CRS puts them, and ids looked up are unique.

use super::Feature;
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use geo::BoundingRect;
use std::path::Path;

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
pub(super) fn check_columns(path: &Path, cfg: &LayerConfig, columns: &[String]) -> Result<()> {
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

/// A wrong but valid CRS puts features somewhere else on Earth, all still lon/lat. When
/// PROJ knows the CRS's area of use, more than `max_rejected_share` of the features lying
/// more than a degree outside it is an error.
pub(super) fn check_area_of_use(
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
pub(super) fn check_unique_ids(path: &Path, cfg: &LayerConfig, features: &[Feature]) -> Result<()> {
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
