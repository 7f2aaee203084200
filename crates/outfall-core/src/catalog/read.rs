//! Reading one layer of the manifest: an impaired list given as a table, or a geometry layer
//! from its prepared copy or its source.

use crate::attributes::value_text;
use crate::config::{LayerConfig, Manifest};
use crate::error::{Error, Result};
use crate::layer::ImpairedTable;
use crate::load::{self, Row, SourceInfo};
use std::collections::HashMap;
use std::path::Path;

pub(super) fn read_impaired_table(dir: &Path, cfg: &LayerConfig) -> Result<ImpairedTable> {
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
pub(super) fn read_layer(
    manifest: &Manifest,
    cfg: &LayerConfig,
) -> Result<(load::LoadedLayer, bool)> {
    let share = manifest.max_rejected_share_of(cfg);
    match crate::prepared::read(&manifest.dir, cfg, share) {
        Ok(Some(loaded)) => return Ok((loaded, true)),
        Ok(None) => {}
        Err(e) => tracing::warn!("{e}; loading the source instead"),
    }
    Ok((load::load_layer(&manifest.dir, cfg, share)?, false))
}

/// One line saying which layers came from the prepared cache, when there is one.
pub(super) fn log_origins(dir: &Path, origins: &[(String, bool)]) {
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
