//! One layer of the manifest read from its file: the reader its extension names, the file's
//! fingerprint taken alongside, and the whole-layer checks after.

use super::checks::{check_area_of_use, check_columns, check_unique_ids};
use super::sort::sort_items;
use super::{fgb, geojson, shapefile};
use super::{IndexHints, LoadProblem, LoadedLayer, Raw, SourceInfo};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

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
    let (raw, sha256) = read_and_hash(&path, cfg)?;
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
        let reason = too_many_refused(&problems, refused, total, max_rejected_share, &raw.crs);
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

/// The file read by the reader its extension names, and its fingerprint. Each is its own
/// result so that a reader's error is reported before a fingerprint's.
fn read_and_hash(path: &Path, cfg: &LayerConfig) -> Result<(Result<Raw>, Result<String>)> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    // A GeoJSON file small enough to hold is read once, and its fingerprint taken from the
    // very bytes that are parsed.
    let whole = match ext.as_str() {
        "geojson" | "json" => geojson::read_whole(path)?,
        _ => None,
    };
    // The fingerprint is taken while the features are read: a pass over the file that needs
    // no result of the parse (an eighth of a 100k-parcel GeoJSON load when it came after).
    Ok(std::thread::scope(|scope| {
        let hash = scope.spawn(|| match &whole {
            Some(bytes) => Ok(hex::encode(Sha256::digest(bytes))),
            None => hash_files(path, &ext),
        });
        let raw = match ext.as_str() {
            "shp" => shapefile::read(path, cfg),
            "geojson" | "json" => match &whole {
                Some(bytes) => geojson::read_slice(bytes, path, cfg),
                None => geojson::read(path, cfg),
            },
            "fgb" => fgb::read(path, cfg),
            other => Err(Error::format(
                path,
                format!(
                    "unsupported file type '.{other}' for a geometry layer (use .shp, .geojson or .fgb)"
                ),
            )),
        };
        let sha256 = hash.join().unwrap_or_else(|_| {
            Err(Error::format(
                path,
                "the file's fingerprint could not be computed",
            ))
        });
        (raw, sha256)
    }))
}

/// Why a layer with too many features refused is an error: when most refusals are about
/// coordinates, the likely cause is the CRS, and the reason says so. The first refusal is
/// named so the user has a feature to look at.
fn too_many_refused(
    problems: &[LoadProblem],
    refused: usize,
    total: usize,
    max_rejected_share: f64,
    crs: &str,
) -> String {
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
    if crs_refusals * 2 > refused {
        format!(
            "the coordinates are not where {crs} puts them ({share}); is the .prj or `crs` right?{first}"
        )
    } else {
        format!("{share}{first}")
    }
}

/// Reasons that mean the coordinates are not in the CRS the layer says they are.
fn is_crs_reason(reason: &str) -> bool {
    reason.contains("not longitude/latitude") || reason.contains("reprojection from")
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
