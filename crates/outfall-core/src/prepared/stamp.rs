//! What a prepared layer was made from, and why a cached copy no longer matches.

use super::FORMAT;
use crate::config::LayerConfig;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What a prepared layer was made from; all of it must match for the cache to be used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Stamp {
    format: u32,
    outfall_version: String,
    /// The layer's manifest section.
    layer: Value,
    max_rejected_share: f64,
    files: Vec<FileStamp>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct FileStamp {
    path: String,
    bytes: u64,
    modified_ns: u64,
}

/// The files a layer is read from: a shapefile's .shp, .shx, .dbf, .prj and .cpg (those that
/// exist), else the file itself.
fn source_files(dir: &Path, cfg: &LayerConfig) -> Vec<PathBuf> {
    let path = dir.join(&cfg.path);
    let is_shp = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("shp"));
    if !is_shp {
        return vec![path];
    }
    ["shp", "shx", "dbf", "prj", "cpg"]
        .iter()
        .map(|e| path.with_extension(e))
        .filter(|p| p.exists())
        .collect()
}

/// The stamp of a layer's sources as they are now; None when a source cannot be read.
pub(super) fn stamp_now(dir: &Path, cfg: &LayerConfig, share: f64) -> Option<Stamp> {
    let files = source_files(dir, cfg)
        .iter()
        .map(|p| {
            let meta = std::fs::metadata(p).ok()?;
            let modified = meta.modified().ok()?;
            let ns = modified
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            Some(FileStamp {
                path: p.strip_prefix(dir).unwrap_or(p).display().to_string(),
                bytes: meta.len(),
                modified_ns: ns,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Stamp {
        format: FORMAT,
        outfall_version: env!("CARGO_PKG_VERSION").into(),
        layer: serde_json::to_value(cfg).ok()?,
        max_rejected_share: share,
        files,
    })
}

/// Why a cached stamp no longer matches, in words.
pub(super) fn stale_reason(cached: &Stamp, now: &Stamp) -> String {
    if cached.format != now.format || cached.outfall_version != now.outfall_version {
        return format!(
            "it was made by outfall {} (cache format {}), this is {} (format {})",
            cached.outfall_version, cached.format, now.outfall_version, now.format
        );
    }
    if cached.layer != now.layer || cached.max_rejected_share != now.max_rejected_share {
        return "the layer's manifest section changed since `outfall prepare`".into();
    }
    let changed: Vec<&str> = now
        .files
        .iter()
        .filter(|f| !cached.files.contains(f))
        .map(|f| f.path.as_str())
        .chain(
            cached
                .files
                .iter()
                .filter(|c| !now.files.iter().any(|f| f.path == c.path))
                .map(|c| c.path.as_str()),
        )
        .collect();
    format!(
        "{} changed since `outfall prepare` (size or modification time)",
        changed.join(", ")
    )
}
