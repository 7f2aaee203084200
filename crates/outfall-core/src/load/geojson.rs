//! GeoJSON (RFC 7946) layers. A legacy `crs` member is honoured, and the manifest's `crs`
//! overrides it. Positions are checked on the raw JSON (2 or 3 finite numbers) before the
//! geojson crate sees them, so a malformed position is a problem naming its feature, not a
//! panic.
//!
//! A file read whole is cut into its features' texts by the splitter (`split`), or, when it
//! is not the plain case, scanned by serde_json, which also streams files over 256 MiB
//! through a buffer. Either way batches of features are converted on every core while the
//! next batch is found. No value tree of the whole file is built.

mod fast;
mod feature;
mod props;
mod scan;
mod split;
#[cfg(test)]
mod tests;

use super::{Feature, Raw, Refused, Reprojector};
use crate::attributes::Keys;
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use feature::convert;
use props::{Key, KeyOrder};
use rayon::prelude::*;
use scan::TopVisitor;
use serde::Deserializer;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver};

/// Files up to this size are read whole: serde_json scans text in memory faster than through
/// a reader, and the scan is the one part of a load on a single core (193 MB: 1.24-1.41 s
/// whole against 1.46-1.60 s streamed). Larger files are streamed, which was also faster
/// beyond it (770 MB: 5.8 s streamed against 8.5 s whole) and keeps the peak memory near
/// the loaded layer's instead of adding the file's size.
const WHOLE_FILE_MAX_BYTES: u64 = 256 << 20;

/// Features read before a batch is handed to the converters: large enough to keep both cores
/// busy, small enough that the raw text in flight stays a few MB.
const BATCH_FEATURES: usize = 4096;
const BATCH_BYTES: usize = 16 << 20;

/// The whole file, when it is small enough to be read whole (else None: stream it with `read`).
pub(super) fn read_whole(path: &Path) -> Result<Option<Vec<u8>>> {
    let len = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .len();
    if len > WHOLE_FILE_MAX_BYTES {
        return Ok(None);
    }
    std::fs::read(path)
        .map(Some)
        .map_err(|e| Error::io(path, e))
}

/// A file's bytes, as `read_whole` gave them.
pub(super) fn read_slice(bytes: &[u8], path: &Path, cfg: &LayerConfig) -> Result<Raw> {
    parse_with(
        |forced| in_memory(bytes, path, cfg, false, forced),
        path,
        cfg,
        false,
    )
}

/// Streams the file through a buffer.
pub(super) fn read(path: &Path, cfg: &LayerConfig) -> Result<Raw> {
    let open = || -> Result<_> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(serde_json::Deserializer::from_reader(
            std::io::BufReader::with_capacity(1 << 20, file),
        ))
    };
    parse_with(
        |forced| stream::<_, Box<RawValue>>(open()?, path, cfg, false, forced),
        path,
        cfg,
        false,
    )
}

/// Parses GeoJSON text (a file's, or an uploaded body's) into checked WGS84 features. An
/// upload (`upload`) may name its legacy `crs` only as an EPSG code or an OGC URN.
pub(super) fn parse(text: &str, path: &Path, cfg: &LayerConfig, upload: bool) -> Result<Raw> {
    parse_with(
        |forced| in_memory(text.as_bytes(), path, cfg, upload, forced),
        path,
        cfg,
        upload,
    )
}

/// One reading of a document in memory: split by its structure when it is the plain case,
/// else scanned by serde, which also names what is wrong with one that is not JSON.
fn in_memory(
    bytes: &[u8],
    path: &Path,
    cfg: &LayerConfig,
    upload: bool,
    forced: Option<Option<String>>,
) -> Result<Doc> {
    if let Some(doc) = split_doc(bytes, path, cfg, upload, &forced) {
        return Ok(doc);
    }
    let de = serde_json::Deserializer::from_slice(bytes);
    stream::<_, &RawValue>(de, path, cfg, upload, forced)
}

/// The splitter's reading, its features converted on every core as they are cut out; None
/// when the splitter or a converter gave up.
fn split_doc(
    bytes: &[u8],
    path: &Path,
    cfg: &LayerConfig,
    upload: bool,
    forced: &Option<Option<String>>,
) -> Option<Doc> {
    std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<Batch<&[u8]>>(1);
        let converter = scope.spawn(move || convert_batches(rx, path, cfg));
        let found = split::split(bytes, &tx, cfg, upload, forced);
        // Closing the channel ends the converter.
        drop(tx);
        let converted = converter.join().ok().flatten();
        let found = found?;
        if converted.as_ref().is_some_and(|c| c.not_json) {
            return None;
        }
        Some(Doc {
            top: found.top,
            features_array: true,
            features_crs: Some(found.features_crs),
            converted,
        })
    })
}

/// Reads the document once (`read_doc(None)`), converting features with the CRS known when
/// the `features` array starts; should a legacy `crs` member come after the features and
/// name another CRS, the document is read again with it (`read_doc(Some(crs))`).
fn parse_with(
    read_doc: impl Fn(Option<Option<String>>) -> Result<Doc>,
    path: &Path,
    cfg: &LayerConfig,
    upload: bool,
) -> Result<Raw> {
    let mut doc = read_doc(None)?;
    let single = single_feature(&doc, path)?;
    let legacy_crs = legacy_crs_name(&doc.top);
    if let Some(c) = legacy_crs
        .as_ref()
        .filter(|c| upload && !is_safe_crs_name(c))
    {
        return Err(Error::format(
            path,
            format!(
                "the `crs` '{}' is not accepted; name it as EPSG:n or urn:ogc:def:crs:EPSG::n, or send RFC 7946 lon/lat without a `crs`",
                c.chars().take(80).collect::<String>()
            ),
        ));
    }
    let crs = cfg.crs.clone().or(legacy_crs);
    let reproject = match &crs {
        Some(c) => Reprojector::new(path, c)?,
        None => Reprojector::lonlat(),
    };
    let converted = match single {
        Some(f) => {
            let text = f.to_string();
            let raw: Box<RawValue> = serde_json::from_str(&text)
                .map_err(|e| Error::format(path, format!("not valid GeoJSON: {e}")))?;
            let mut keys = KeyOrder::default();
            let item = convert(raw.get(), 0, cfg, &reproject, &mut keys, true)
                .ok_or_else(|| Error::format(path, "not valid GeoJSON"))?;
            let mut out = Converted::default();
            out.add(vec![item]);
            out
        }
        None => {
            // A legacy `crs` after the features: they were read before it was known.
            if doc.features_crs.as_ref() != Some(&crs) {
                doc = read_doc(Some(crs.clone()))?;
            }
            doc.converted.ok_or_else(|| {
                Error::format(
                    path,
                    format!(
                        "the CRS of {} could not be built on every core",
                        reproject.crs
                    ),
                )
            })?
        }
    };
    Ok(Raw {
        items: converted.items,
        crs: reproject.crs.clone(),
        area_of_use: reproject.area_of_use,
        columns: converted.columns.into_iter().collect(),
    })
}

/// A document that is one Feature or one bare geometry, as a Feature; None for a
/// FeatureCollection, whose features were converted as they were read.
fn single_feature(doc: &Doc, path: &Path) -> Result<Option<Value>> {
    let kind = doc.top.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "FeatureCollection" if doc.features_array => Ok(None),
        "FeatureCollection" => Err(Error::format(
            path,
            "not valid GeoJSON: a FeatureCollection needs a `features` array",
        )),
        "Feature" => Ok(Some(Value::Object(doc.top.clone()))),
        "Point" | "MultiPoint" | "LineString" | "MultiLineString" | "Polygon" | "MultiPolygon"
        | "GeometryCollection" => Ok(Some(
            serde_json::json!({"type": "Feature", "properties": {}, "geometry": Value::Object(doc.top.clone())}),
        )),
        other => Err(Error::format(
            path,
            format!("not valid GeoJSON: unknown type '{other}'"),
        )),
    }
}

/// What one reading of the document gave.
struct Doc {
    /// Every top-level member but `features`.
    top: Map<String, Value>,
    /// Whether `features` was an array.
    features_array: bool,
    /// The CRS the features were converted with (None: none known when they started);
    /// None when there was no `features` array.
    features_crs: Option<Option<String>>,
    /// The converted features; None when a worker could not build the CRS.
    converted: Option<Converted>,
}

#[derive(Default)]
struct Converted {
    items: Vec<std::result::Result<Feature, Refused>>,
    /// A feature's text the splitter cut out is not one JSON value: the serde scan must
    /// read the document and say where.
    not_json: bool,
    /// Every attribute name of every feature (loaded or refused).
    columns: BTreeSet<String>,
}

impl Converted {
    fn add(&mut self, items: Vec<std::result::Result<Feature, Refused>>) {
        let mut last: Option<Keys> = None;
        for item in &items {
            match item {
                Ok(f) => {
                    let keys = f.properties.schema();
                    if last
                        .as_ref()
                        .is_some_and(|l| std::sync::Arc::ptr_eq(l, keys))
                    {
                        continue;
                    }
                    self.columns.extend(f.properties.keys().map(String::from));
                    last = Some(keys.clone());
                }
                Err(r) => {
                    if let Some(p) = &r.properties {
                        self.columns.extend(p.keys().cloned());
                    }
                }
            }
        }
        self.items.extend(items);
    }
}

/// A feature text that is not JSON (only the splitter's texts can be).
struct NotJson;

/// A batch of raw features for the converters, or the start of a new `features` array
/// (a repeated member replaces the earlier one, as in a JSON map).
enum Batch<T> {
    Start(Option<String>),
    Features(usize, Vec<T>),
}

/// A feature's text as the converters receive it: borrowed from a document in memory (no
/// copy of the file's text, which was most of the scan's own work), boxed when the document
/// is streamed through a reader, or cut out by the splitter and not yet checked.
pub(super) trait FeatureText: Send + Sync {
    /// The text; None when it is not UTF-8.
    fn text(&self) -> Option<&str>;
    /// Whether the scan already found it to be one JSON value.
    const CHECKED: bool;
}

impl FeatureText for &RawValue {
    fn text(&self) -> Option<&str> {
        Some(self.get())
    }
    const CHECKED: bool = true;
}

impl FeatureText for Box<RawValue> {
    fn text(&self) -> Option<&str> {
        Some(self.get())
    }
    const CHECKED: bool = true;
}

impl FeatureText for &[u8] {
    fn text(&self) -> Option<&str> {
        std::str::from_utf8(self).ok()
    }
    const CHECKED: bool = false;
}

/// A feature's text as the serde scan reads it.
pub(super) trait RawFeature<'de>: serde::Deserialize<'de> + FeatureText {}

impl<'de> RawFeature<'de> for &'de RawValue {}
impl<'de> RawFeature<'de> for Box<RawValue> {}

/// One pass over the document. `crs`: the CRS to convert with (the second pass), else the
/// manifest's or a legacy `crs` member seen before the features.
fn stream<'de, R: serde_json::de::Read<'de>, T: RawFeature<'de>>(
    mut de: serde_json::Deserializer<R>,
    path: &Path,
    cfg: &LayerConfig,
    upload: bool,
    crs: Option<Option<String>>,
) -> Result<Doc> {
    std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<Batch<T>>(1);
        let converter = scope.spawn(move || convert_batches(rx, path, cfg));
        let mut top = TopVisitor {
            tx: Some(tx),
            cfg,
            upload,
            forced: crs,
            top: Map::new(),
            is_object: false,
            features_array: false,
            features_crs: None,
        };
        let parsed = (&mut de).deserialize_any(&mut top).and_then(|_| de.end());
        // Closing the channel ends the converter.
        top.tx = None;
        let converted = converter.join().ok().flatten();
        parsed.map_err(|e| Error::format(path, format!("not valid GeoJSON: {e}")))?;
        if !top.is_object {
            return Err(Error::format(
                path,
                "not valid GeoJSON: the top level is not an object",
            ));
        }
        Ok(Doc {
            top: top.top,
            features_array: top.features_array,
            features_crs: top.features_crs,
            converted,
        })
    })
}

/// Converts each batch as it comes, on every core, keeping file order.
fn convert_batches<T: FeatureText>(
    rx: Receiver<Batch<T>>,
    path: &Path,
    cfg: &LayerConfig,
) -> Option<Converted> {
    let mut out: Option<Converted> = None;
    let mut recipe: Option<String> = None;
    for batch in rx {
        match batch {
            Batch::Start(crs) => {
                out = Some(Converted::default());
                recipe = crs;
            }
            Batch::Features(first, raws) => {
                let Some(done) = out.as_mut() else {
                    continue;
                };
                let items: Option<Vec<_>> = raws
                    .par_iter()
                    .enumerate()
                    // Long runs per worker, so few reprojectors are built.
                    .with_min_len(512)
                    .map_init(
                        || {
                            let r = Reprojector::from_recipe(path, recipe.as_deref());
                            (r, KeyOrder::default())
                        },
                        |(r, keys), (i, raw)| match r {
                            Ok(r) => Some(
                                raw.text()
                                    .and_then(|t| convert(t, first + i, cfg, r, keys, T::CHECKED))
                                    .ok_or(NotJson),
                            ),
                            // The caller builds the same CRS and reports why it fails.
                            Err(_) => None,
                        },
                    )
                    .collect();
                match items {
                    Some(items) => {
                        if items.iter().any(|i| i.is_err()) {
                            done.not_json = true;
                        }
                        done.add(items.into_iter().filter_map(|i| i.ok()).collect())
                    }
                    None => out = None,
                }
            }
        }
    }
    out
}

/// Only authority codes and OGC URNs: anything else (a PROJ string like `+init=FILE`) could
/// make PROJ open files.
pub(super) fn is_safe_crs_name(c: &str) -> bool {
    let c = c.trim();
    let digits = |s: &str| !s.is_empty() && s.len() <= 6 && s.bytes().all(|b| b.is_ascii_digit());
    let lower = c.to_ascii_lowercase();
    if let Some(code) = lower.strip_prefix("epsg:") {
        return digits(code);
    }
    if lower == "urn:ogc:def:crs:ogc:1.3:crs84" || lower == "urn:ogc:def:crs:ogc::crs84" {
        return true;
    }
    if let Some(rest) = lower.strip_prefix("urn:ogc:def:crs:epsg:") {
        // "urn:ogc:def:crs:EPSG::2261" or with a version, "urn:ogc:def:crs:EPSG:6.3:2261"
        let mut parts = rest.splitn(2, ':');
        let version = parts.next().unwrap_or("");
        let code = parts.next().unwrap_or("");
        return version.bytes().all(|b| b.is_ascii_digit() || b == b'.') && digits(code);
    }
    false
}

fn legacy_crs_name(top: &Map<String, Value>) -> Option<String> {
    top.get("crs")?
        .get("properties")?
        .get("name")?
        .as_str()
        .map(String::from)
}
