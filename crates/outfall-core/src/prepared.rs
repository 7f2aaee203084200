//! The prepared cache (`outfall prepare`): each geometry layer as it stands after load
//! (reprojected to WGS84, validated, oriented, ids resolved) written to
//! `DATA/.prepared/` as FlatGeobuf, with a JSON sidecar saying what it was made from.
//! A later load takes a layer from the cache only when the sidecar's stamp (the source
//! files' sizes and modification times, the layer's manifest section, the rejected-share
//! limit, the outfall version and cache format) matches the current ones; otherwise the
//! source is read. A stale or damaged cache therefore never changes an answer.
//!
//! A feature's attributes are stored as the layer holds them in memory (see
//! [`crate::attributes::Properties::stored`]: end offsets over the layer's key list, then the
//! values' compact JSON text), in one binary column behind a CRC-32 of them, with the key list
//! in the sidecar. A load copies them back and checks the CRC and the offsets, instead of
//! writing every value's JSON text again from typed columns (a third of a start from the
//! cache). So attributes round-trip byte for byte; other tools see the geometry, the id and
//! an opaque column. Two more columns carry each feature's id and its position in the layer,
//! because the file is in Hilbert order for its spatial index.

mod decode;
mod geometry_type;
mod stamp;
mod write;

use crate::attributes::{Keys, Properties};
use crate::config::{LayerConfig, Manifest};
use crate::error::{Error, Result};
use crate::load::{LoadProblem, LoadedLayer, SourceInfo};
use decode::read_decoded;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use stamp::{stale_reason, stamp_now, Stamp};
use std::path::{Path, PathBuf};
use write::write;

/// The cache folder inside the data folder.
pub const DIR: &str = ".prepared";
/// Bumped whenever what is written changes meaning (2: attributes stored as held).
const FORMAT: u32 = 2;
/// The cache's columns: each feature's id, its position in the layer, its attributes.
const ID_COLUMN: &str = "outfall_id";
const ORDER_COLUMN: &str = "outfall_order";
const PROPERTIES_COLUMN: &str = "outfall_properties";

/// A feature's attributes as the cache stores them, into `out`: a CRC-32 of their stored form
/// (little-endian), then that form. [`properties_from_stored`] reads it back.
fn stored_properties(p: &Properties, out: &mut Vec<u8>) {
    let data = p.stored();
    out.clear();
    out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
    out.extend_from_slice(data);
}

/// The attributes [`stored_properties`] wrote, over the layer's `keys`, once their checksum
/// and offsets are checked.
fn properties_from_stored(keys: &Keys, bytes: &[u8]) -> std::result::Result<Properties, String> {
    let (crc, data) = bytes
        .split_first_chunk::<4>()
        .ok_or("the attributes are cut short")?;
    if crc32fast::hash(data) != u32::from_le_bytes(*crc) {
        return Err("the attributes do not match their checksum".into());
    }
    Properties::from_stored(keys.clone(), data)
        .ok_or_else(|| "the attributes do not fit the layer's key list".into())
}

/// The sidecar `NAME.json` beside `NAME.fgb`.
#[derive(Debug, Serialize, Deserialize)]
struct Sidecar {
    stamp: Stamp,
    source: SourceInfo,
    problems: Vec<LoadProblem>,
    /// The layer's attribute names, sorted: the key list of every feature's attributes.
    /// Absent in sidecars of format 1, whose stamp then says the cache is out of date.
    #[serde(default)]
    keys: Vec<String>,
    fgb_bytes: u64,
    /// Feature positions sorted by id ([`crate::layer::id_order`]), so a load need not sort
    /// (a tenth of loading 100k parcels); checked, not trusted. Absent in older sidecars.
    #[serde(default)]
    by_id: Vec<u32>,
}

/// One layer `outfall prepare` wrote, or left out and why.
#[derive(Debug, Clone, Serialize)]
pub struct PreparedLayer {
    pub role: String,
    pub path: String,
    pub features: usize,
    pub file: PathBuf,
    pub bytes: u64,
    /// Why the layer was not written (it then loads from its source).
    pub skipped: Option<String>,
}

/// The cache files of a layer: `DIR/.prepared/ROLE-STEM-HASH.{fgb,json}`. The hash is of
/// the layer's manifest section, so a changed section finds no cache.
fn files_of(dir: &Path, cfg: &LayerConfig) -> (PathBuf, PathBuf) {
    let section = serde_json::to_string(cfg).unwrap_or_default();
    let hash = hex::encode(Sha256::digest(section.as_bytes()));
    let stem: String = cfg
        .path
        .file_stem()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = format!("{}-{stem}-{}", cfg.role.as_str(), &hash[..12]);
    let base = dir.join(DIR).join(name);
    (base.with_extension("fgb"), base.with_extension("json"))
}

/// A layer from the cache when its copy is current: `Ok(None)` when there is no copy (or a
/// source is missing, which the source load then reports); an error naming the cache file
/// when the copy is stale or damaged, which the caller reports before reading the source.
pub fn read(dir: &Path, cfg: &LayerConfig, share: f64) -> Result<Option<LoadedLayer>> {
    let (fgb, json) = files_of(dir, cfg);
    if !json.exists() {
        return Ok(None);
    }
    let Some(now) = stamp_now(dir, cfg, share) else {
        return Ok(None);
    };
    let text = std::fs::read(&json).map_err(|e| Error::io(&json, e))?;
    let side: Sidecar = serde_json::from_slice(&text)
        .map_err(|e| Error::format(&json, format!("prepared cache sidecar is damaged: {e}")))?;
    if side.stamp != now {
        return Err(Error::format(
            &json,
            format!(
                "prepared cache is out of date: {}",
                stale_reason(&side.stamp, &now)
            ),
        ));
    }
    let (features, entries) = read_decoded(&fgb, side.fgb_bytes, &side)?;
    if features.len() != side.source.features {
        return Err(Error::format(
            &fgb,
            format!(
                "prepared cache is damaged: {} features where {} were written",
                features.len(),
                side.source.features
            ),
        ));
    }
    let by_id = (!side.by_id.is_empty()).then_some(side.by_id);
    Ok(Some(LoadedLayer {
        source: side.source,
        features,
        problems: side.problems,
        hints: crate::load::IndexHints {
            entries: Some(entries),
            by_id,
        },
    }))
}

/// `outfall prepare`: loads every geometry layer of the data set in `dir` exactly as a
/// server would (from its source, never from an older cache) and writes it to the cache.
/// A layer that fails to load fails the whole command, as it would fail `serve`. Cache
/// files no current layer owns are removed.
pub fn prepare(dir: &Path) -> Result<Vec<PreparedLayer>> {
    let manifest = Manifest::read(dir)?;
    let cache = manifest.dir.join(DIR);
    std::fs::create_dir_all(&cache).map_err(|e| Error::io(&cache, e))?;
    // A data folder kept in git should not pick up the cache.
    let ignore = cache.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "*\n").map_err(|e| Error::io(&ignore, e))?;
    }
    let mut out = Vec::new();
    let mut owned: Vec<PathBuf> = Vec::new();
    for cfg in manifest.layers.iter().filter(|c| is_geometry_layer(c)) {
        crate::config::check_inside(&manifest, cfg)?;
        let share = manifest.max_rejected_share_of(cfg);
        let loaded = crate::load::load_layer(&manifest.dir, cfg, share)?;
        let (fgb, json) = files_of(&manifest.dir, cfg);
        let mut row = PreparedLayer {
            role: cfg.role.as_str().into(),
            path: cfg.path.display().to_string(),
            features: loaded.features.len(),
            file: fgb.clone(),
            bytes: 0,
            skipped: None,
        };
        match write(&manifest.dir, cfg, share, &loaded)? {
            Ok((_, bytes)) => {
                row.bytes = bytes;
                owned.extend([fgb, json]);
            }
            Err(why) => row.skipped = Some(why),
        }
        out.push(row);
    }
    if let Ok(entries) = std::fs::read_dir(&cache) {
        for e in entries.flatten() {
            let p = e.path();
            let ours = p
                .extension()
                .is_some_and(|x| x == "fgb" || x == "json" || x == "tmp");
            if ours && !owned.contains(&p) {
                let _ = std::fs::remove_file(&p);
            }
        }
    }
    Ok(out)
}

/// Layers with geometry: not rainfall records, not impaired lists given as tables.
pub fn is_geometry_layer(cfg: &LayerConfig) -> bool {
    let is_table = cfg
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    !matches!(
        cfg.role,
        crate::config::Role::Rainfall | crate::config::Role::Dem
    ) && !is_table
}
