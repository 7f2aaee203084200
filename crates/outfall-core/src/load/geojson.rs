//! GeoJSON (RFC 7946) layers. A legacy `crs` member is honoured, and the manifest's `crs`
//! overrides it. Positions are checked on the raw JSON (2 or 3 finite numbers) before the
//! geojson crate sees them, so a malformed position is a problem naming its feature, not a
//! panic.
//!
//! serde_json scans the file (read whole, or streamed through a buffer when it is over 256 MiB)
//! and hands over each feature's text, and batches of features are converted on every core
//! while the next batch is scanned. No value tree of the whole file is built.

mod fast;

use super::{check_geometry, feature_id_from, Feature, Raw, Refused, Reprojector};
use crate::attributes::{encode_raw, Keys, Properties};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use fast::{fast_geometry, FastFeature};
use geojson::GeometryValue;
use rayon::prelude::*;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

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
        || Ok(serde_json::Deserializer::from_slice(bytes)),
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
    parse_with(open, path, cfg, false)
}

/// Parses GeoJSON text (a file's, or an uploaded body's) into checked WGS84 features. An
/// upload (`upload`) may name its legacy `crs` only as an EPSG code or an OGC URN.
pub(super) fn parse(text: &str, path: &Path, cfg: &LayerConfig, upload: bool) -> Result<Raw> {
    parse_with(
        || Ok(serde_json::Deserializer::from_str(text)),
        path,
        cfg,
        upload,
    )
}

/// Reads the document once, converting features with the CRS known when the `features`
/// array starts; should a legacy `crs` member come after the features and name another
/// CRS, the document is read again with it.
fn parse_with<'de, R: serde_json::de::Read<'de>>(
    open: impl Fn() -> Result<serde_json::Deserializer<R>>,
    path: &Path,
    cfg: &LayerConfig,
    upload: bool,
) -> Result<Raw> {
    let mut doc = stream(open()?, path, cfg, upload, None)?;
    let kind = doc
        .top
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let single = match kind.as_str() {
        "FeatureCollection" => {
            if !doc.features_array {
                return Err(Error::format(
                    path,
                    "not valid GeoJSON: a FeatureCollection needs a `features` array",
                ));
            }
            None
        }
        "Feature" => Some(Value::Object(doc.top.clone())),
        "Point" | "MultiPoint" | "LineString" | "MultiLineString" | "Polygon" | "MultiPolygon"
        | "GeometryCollection" => Some(
            serde_json::json!({"type": "Feature", "properties": {}, "geometry": Value::Object(doc.top.clone())}),
        ),
        other => {
            return Err(Error::format(
                path,
                format!("not valid GeoJSON: unknown type '{other}'"),
            ))
        }
    };
    let legacy_crs = legacy_crs_name(&doc.top);
    if upload {
        if let Some(c) = &legacy_crs {
            if !is_safe_crs_name(c) {
                return Err(Error::format(
                    path,
                    format!(
                        "the `crs` '{}' is not accepted; name it as EPSG:n or urn:ogc:def:crs:EPSG::n, or send RFC 7946 lon/lat without a `crs`",
                        c.chars().take(80).collect::<String>()
                    ),
                ));
            }
        }
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
            let item = convert(&raw, 0, cfg, &reproject, &mut keys);
            let mut out = Converted::default();
            out.add(vec![item]);
            out
        }
        None => {
            // A legacy `crs` after the features: they were read before it was known.
            if doc.features_crs.as_ref() != Some(&crs) {
                doc = stream(open()?, path, cfg, upload, Some(crs.clone()))?;
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

/// A batch of raw features for the converters, or the start of a new `features` array
/// (a repeated member replaces the earlier one, as in a JSON map).
enum Batch {
    Start(Option<String>),
    Features(usize, Vec<Box<RawValue>>),
}

/// One pass over the document. `crs`: the CRS to convert with (the second pass), else the
/// manifest's or a legacy `crs` member seen before the features.
fn stream<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
    path: &Path,
    cfg: &LayerConfig,
    upload: bool,
    crs: Option<Option<String>>,
) -> Result<Doc> {
    std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<Batch>(1);
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
fn convert_batches(rx: Receiver<Batch>, path: &Path, cfg: &LayerConfig) -> Option<Converted> {
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
                            Ok(r) => Some(convert(raw, first + i, cfg, r, keys)),
                            // The caller builds the same CRS and reports why it fails.
                            Err(_) => None,
                        },
                    )
                    .collect();
                match items {
                    Some(items) => done.add(items),
                    None => out = None,
                }
            }
        }
    }
    out
}

struct TopVisitor<'a> {
    tx: Option<SyncSender<Batch>>,
    cfg: &'a LayerConfig,
    upload: bool,
    forced: Option<Option<String>>,
    top: Map<String, Value>,
    is_object: bool,
    features_array: bool,
    features_crs: Option<Option<String>>,
}

impl TopVisitor<'_> {
    /// The CRS to convert the features with when their array starts.
    fn features_start_crs(&self) -> Option<String> {
        if let Some(forced) = &self.forced {
            return forced.clone();
        }
        let legacy = legacy_crs_name(&self.top).filter(|c| !self.upload || is_safe_crs_name(c));
        self.cfg.crs.clone().or(legacy)
    }
}

impl<'de> Visitor<'de> for &mut TopVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a GeoJSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        self.is_object = true;
        while let Some(key) = map.next_key::<String>()? {
            if key == "features" {
                let crs = self.features_start_crs();
                let tx = self.tx.clone();
                let array = map.next_value_seed(FeaturesSeed {
                    tx,
                    crs: crs.clone(),
                })?;
                self.features_array = array;
                self.features_crs = array.then_some(crs);
                if !array {
                    // A later non-array replaces an earlier array, as in a JSON map.
                    self.top.remove("features");
                }
            } else {
                let v: Value = map.next_value()?;
                self.top.insert(key, v);
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.not_object();
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
}

impl TopVisitor<'_> {
    fn not_object(&mut self) {
        self.is_object = false;
    }
}

/// The `features` member: an array is streamed to the converters in batches; anything else
/// is read and ignored (the caller names it). Gives whether it was an array.
struct FeaturesSeed {
    tx: Option<SyncSender<Batch>>,
    crs: Option<String>,
}

impl<'de> DeserializeSeed<'de> for FeaturesSeed {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FeaturesSeed {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a features array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<bool, A::Error> {
        let send = |b: Batch| {
            if let Some(tx) = &self.tx {
                // The converter only stops early when the process is going down.
                let _ = tx.send(b);
            }
        };
        send(Batch::Start(self.crs.clone()));
        let mut batch = Vec::new();
        let mut bytes = 0;
        let mut first = 0;
        while let Some(raw) = seq.next_element::<Box<RawValue>>()? {
            bytes += raw.get().len();
            batch.push(raw);
            if batch.len() >= BATCH_FEATURES || bytes >= BATCH_BYTES {
                let n = batch.len();
                send(Batch::Features(first, std::mem::take(&mut batch)));
                first += n;
                bytes = 0;
            }
        }
        if !batch.is_empty() {
            send(Batch::Features(first, batch));
        }
        Ok(true)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<bool, E> {
        Ok(false)
    }
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

/// A feature's members as read from its text (a repeated member: the last one).
#[derive(Default)]
struct RawFeature<'a> {
    properties: Option<&'a RawValue>,
    geometry: Option<&'a RawValue>,
    id: Option<Value>,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for RawFeature<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = RawFeature<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a feature")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<RawFeature<'a>, A::Error> {
                let mut f = RawFeature::default();
                while let Some(key) = map.next_key::<Key>()? {
                    match &*key.0 {
                        "properties" => f.properties = Some(map.next_value()?),
                        "geometry" => f.geometry = Some(map.next_value()?),
                        "id" => f.id = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(f)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A member name, borrowed from the text unless it has escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                s: &'de str,
            ) -> std::result::Result<Key<'a>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Key<'a>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

/// A properties object's entries in file order; anything but an object has none.
struct Entries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("properties")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Entries<'a>, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    out.push((key.0, map.next_value()?));
                }
                Ok(Entries(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Entries<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Entries(Vec::new()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// The last feature's member names in file order, and what they sort into: every feature of
/// a file usually has the same ones, so a feature is sorted only when its names differ.
#[derive(Default)]
struct KeyOrder {
    file_order: Vec<Box<str>>,
    /// Positions in file order, sorted by name; of a repeated name, the last.
    sorted: Vec<usize>,
    keys: Option<Keys>,
}

impl KeyOrder {
    fn learn(&mut self, names: &[(Cow<str>, &RawValue)]) {
        let same = self.keys.is_some()
            && self.file_order.len() == names.len()
            && self
                .file_order
                .iter()
                .zip(names)
                .all(|(a, (b, _))| **a == **b);
        if same {
            return;
        }
        let mut sorted: Vec<usize> = (0..names.len()).rev().collect();
        sorted.sort_by(|&a, &b| names[a].0.cmp(&names[b].0));
        sorted.dedup_by(|later, earlier| names[*later].0 == names[*earlier].0);
        let keys: Vec<Box<str>> = sorted.iter().map(|&i| Box::from(&*names[i].0)).collect();
        // The same sorted names (in another file order) keep sharing one key list.
        if self.keys.as_deref() != Some(&keys[..]) {
            self.keys = Some(Keys::from(keys));
        }
        self.file_order = names.iter().map(|(k, _)| Box::from(&**k)).collect();
        self.sorted = sorted;
    }
}

/// The attributes of `raw` (a properties member), sorted by name (of a repeated name, the
/// last, as a JSON map keeps it), over the key list of the feature before when the names are
/// the same.
fn properties_of(raw: Option<&RawValue>, order: &mut KeyOrder) -> Properties {
    let entries = raw
        .and_then(|r| serde_json::from_str::<Entries>(r.get()).ok())
        .map(|e| e.0)
        .unwrap_or_default();
    order.learn(&entries);
    let keys = order.keys.clone().unwrap_or_else(|| Keys::from(Vec::new()));
    let mut text = Vec::with_capacity(entries.iter().map(|(_, v)| v.get().len()).sum());
    let mut ends = Vec::with_capacity(order.sorted.len());
    for &i in &order.sorted {
        encode_raw(entries[i].1, &mut text);
        ends.push(text.len());
    }
    let mut start = 0;
    let spans = ends.iter().enumerate().map(|(i, &end)| {
        let s = &text[start..end];
        start = end;
        (i, s)
    });
    Properties::from_encoded(keys, spans)
}

fn convert(
    raw: &RawValue,
    index: usize,
    cfg: &LayerConfig,
    reproject: &Reprojector,
    keys: &mut KeyOrder,
) -> std::result::Result<Feature, Refused> {
    // The usual feature in one pass; anything else split into its members first, for the
    // checked geometry path. A feature that is not an object has no members (as
    // `Value::get` sees it).
    let (f, read) = match serde_json::from_str::<FastFeature>(raw.get()) {
        Ok(f) => (
            RawFeature {
                properties: f.properties,
                geometry: None,
                id: f.id,
            },
            Some(f.geometry),
        ),
        Err(_) => (serde_json::from_str(raw.get()).unwrap_or_default(), None),
    };
    let properties = properties_of(f.properties, keys);
    let native = match &f.id {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let id_value = cfg.id_field.as_deref().and_then(|k| properties.get(k));
    let id = feature_id_from(id_value.as_ref(), native, index);
    let refuse = |reason: String| Refused {
        feature: id.clone(),
        reason,
        properties: Some(properties.to_map()),
    };
    let mut geom = match (read, f.geometry) {
        (Some(g), _) => g,
        (None, Some(g)) if g.get().trim() != "null" => match fast_geometry(g) {
            Some(g) => g,
            None => match slow_geometry(g) {
                Ok(g) => g,
                Err(r) => return Err(refuse(r)),
            },
        },
        (None, _) => return Err(refuse("no geometry (null)".into())),
    };
    if let Err(r) = reproject.apply(&mut geom) {
        return Err(refuse(r));
    }
    match check_geometry(geom) {
        Ok(geometry) => Ok(Feature {
            id,
            geometry,
            properties,
        }),
        Err(r) => Err(refuse(r)),
    }
}

/// The checked path, through a value tree, that names what is wrong with a geometry.
fn slow_geometry(raw: &RawValue) -> std::result::Result<geo_types::Geometry<f64>, String> {
    let geometry: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
    check_positions(&geometry, 0)?;
    let geometry = serde_json::from_value::<geojson::Geometry>(geometry)
        .map_err(|e| format!("unreadable geometry: {e}"))?;
    if let Some(reason) = unclosed_ring(&geometry.value) {
        return Err(reason);
    }
    (&geometry.value)
        .try_into()
        .map_err(|e| format!("unreadable geometry: {e}"))
}

/// Every position of a raw geometry is an array of 2 or 3 finite numbers, nested as deep as
/// its type says.
fn check_positions(g: &Value, depth: usize) -> std::result::Result<(), String> {
    if depth > 8 {
        return Err("geometry nested too deeply".into());
    }
    let kind = g.get("type").and_then(Value::as_str).unwrap_or("");
    if kind == "GeometryCollection" {
        let Some(Value::Array(parts)) = g.get("geometries") else {
            return Err("a GeometryCollection needs a `geometries` array".into());
        };
        return parts.iter().try_for_each(|p| check_positions(p, depth + 1));
    }
    let nesting = match kind {
        "Point" => 0,
        "MultiPoint" | "LineString" => 1,
        "MultiLineString" | "Polygon" => 2,
        "MultiPolygon" => 3,
        other => return Err(format!("unknown geometry type '{other}'")),
    };
    let Some(coords) = g.get("coordinates") else {
        return Err(format!("a {kind} needs `coordinates`"));
    };
    check_nested(coords, nesting, kind)
}

fn check_nested(v: &Value, nesting: usize, kind: &str) -> std::result::Result<(), String> {
    let Value::Array(items) = v else {
        return Err(format!("{kind} coordinates are not nested arrays"));
    };
    if nesting > 0 {
        return items
            .iter()
            .try_for_each(|i| check_nested(i, nesting - 1, kind));
    }
    let ok = (2..=3).contains(&items.len())
        && items.iter().all(|n| n.as_f64().is_some_and(f64::is_finite));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "a position must be 2 or 3 finite numbers, got {}",
            serde_json::to_string(v)
                .unwrap_or_default()
                .chars()
                .take(60)
                .collect::<String>()
        ))
    }
}

/// geo-types closes rings silently, so an unclosed ring is caught on the raw coordinates.
fn unclosed_ring(v: &GeometryValue) -> Option<String> {
    let check = |rings: &Vec<Vec<geojson::Position>>| {
        rings.iter().enumerate().find_map(|(i, r)| {
            let closed = r.len() >= 4 && r.first().map(|p| p.as_slice()) == r.last().map(|p| p.as_slice());
            (!closed).then(|| {
                format!(
                    "polygon ring {i} is not closed (a ring needs 4+ positions, first == last; it has {})",
                    r.len()
                )
            })
        })
    };
    match v {
        GeometryValue::Polygon { coordinates } => check(coordinates),
        GeometryValue::MultiPolygon { coordinates } => coordinates.iter().find_map(check),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_crs_names_are_codes_only() {
        assert!(is_safe_crs_name("EPSG:2261"));
        assert!(is_safe_crs_name("urn:ogc:def:crs:EPSG::2261"));
        assert!(is_safe_crs_name("urn:ogc:def:crs:EPSG:6.3:2261"));
        assert!(is_safe_crs_name("urn:ogc:def:crs:OGC:1.3:CRS84"));
        assert!(!is_safe_crs_name("+init=/etc/passwd:root"));
        assert!(!is_safe_crs_name("EPSG:2261 +init=x"));
        assert!(!is_safe_crs_name("urn:ogc:def:crs:EPSG::../../x"));
    }

    #[test]
    fn positions_need_two_or_three_finite_numbers() {
        let p = |c: &str| {
            check_positions(
                &serde_json::from_str(&format!(r#"{{"type":"LineString","coordinates":{c}}}"#))
                    .unwrap(),
                0,
            )
        };
        assert!(p("[[-76.18,43.1],[-76.17,43.1,2]]").is_ok());
        assert!(p("[[-76.18],[-76.17,43.1]]").is_err());
        assert!(p(r#"[[-76.18,"x"],[-76.17,43.1]]"#).is_err());
        assert!(p("[-76.18,43.1]").is_err());
    }

    #[test]
    fn the_fast_geometry_path_agrees_with_the_checked_one() {
        for g in [
            r#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[[0.1,0.1],[0.2,0.1],[0.2,0.2],[0.1,0.1]]]}"#,
            r#"{"coordinates":[[[[0,0,5],[1,0],[1,1],[0,0,5]]]],"type":"MultiPolygon"}"#,
        ] {
            let raw: Box<RawValue> = serde_json::from_str(g).unwrap();
            assert_eq!(
                fast_geometry(&raw),
                Some(slow_geometry(&raw).unwrap()),
                "{g}"
            );
        }
        // Unclosed (a z on one end only), short, bad or extra members: the checked path.
        for g in [
            r#"{"type":"Polygon","coordinates":[[[0,0,1],[1,0],[1,1],[0,0]]]}"#,
            r#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#,
            r#"{"type":"Polygon","coordinates":[[[0],[1,0],[1,1],[0]]]}"#,
            r#"{"type":"Polygon","coordinates":[]}"#,
            r#"{"type":"Polygon","bbox":[0,0,1,1],"coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#,
            r#"{"type":"Polygon","type":"Point","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#,
        ] {
            let raw: Box<RawValue> = serde_json::from_str(g).unwrap();
            assert_eq!(fast_geometry(&raw), None, "{g}");
        }
    }
}

#[cfg(test)]
mod one_pass_tests {
    use super::*;
    use geo_types::{Geometry, LineString, Point, Polygon};

    fn load(features: &str) -> Vec<std::result::Result<Feature, Refused>> {
        let text = format!(r#"{{"type":"FeatureCollection","features":[{features}]}}"#);
        let cfg = super::super::upload_config("t.geojson", None);
        parse(&text, Path::new("t.geojson"), &cfg, false)
            .unwrap()
            .items
    }

    /// Rings read through the per-thread buffer keep their own positions: a hole after its
    /// exterior, and a small ring after one large enough for the buffer to be dropped.
    #[test]
    fn each_ring_keeps_its_own_positions() {
        let big: Vec<String> = (0..70_000)
            .map(|i| {
                let a = i as f64 / 70_000.0 * std::f64::consts::TAU;
                format!("[{},{}]", a.cos(), a.sin())
            })
            .chain(std::iter::once("[1,0]".to_string()))
            .collect();
        let items = load(&format!(
            r#"{{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[[{}]]}}}},
               {{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]],[[1,1],[2,2],[1,2],[1,1]]]}}}}"#,
            big.join(",")
        ));
        let rings = |i: usize| match &items[i].as_ref().unwrap().geometry {
            Geometry::Polygon(p) => std::iter::once(p.exterior().0.len())
                .chain(p.interiors().iter().map(|r| r.0.len()))
                .collect::<Vec<_>>(),
            g => panic!("{g:?}"),
        };
        assert_eq!(rings(0), vec![70_001]);
        assert_eq!(rings(1), vec![5, 4]);
        let Geometry::Polygon(p) = &items[1].as_ref().unwrap().geometry else {
            unreachable!()
        };
        assert_eq!(
            p.interiors()[0].0[1],
            geo_types::Coord { x: 1., y: 2. },
            "the hole, turned clockwise"
        );
    }

    /// Attributes are sorted by name whatever their order in the file, a repeated name keeps
    /// its last value, and features with the same names share one key list.
    #[test]
    fn attribute_names_are_sorted_once_per_new_order() {
        let geometry = r#""geometry":{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[0,0]]]}"#;
        let items = load(
            &[
                r#""properties":{"b":1,"a":2}"#,
                r#""properties":{"b":3,"a":4}"#,
                r#""properties":{"a":5,"b":6}"#,
                r#""properties":{"b":7,"a":8,"b":9}"#,
                r#""properties":{"c":10,"a":11}"#,
            ]
            .map(|p| format!(r#"{{"type":"Feature",{p},{geometry}}}"#))
            .join(","),
        );
        let f: Vec<&Feature> = items.iter().map(|i| i.as_ref().unwrap()).collect();
        let pairs = |i: usize| -> Vec<(String, String)> {
            f[i].properties
                .raw_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let kv = |a: &str, b: &str, x: &str, y: &str| {
            vec![
                (a.to_string(), x.to_string()),
                (b.to_string(), y.to_string()),
            ]
        };
        assert_eq!(pairs(0), kv("a", "b", "2", "1"));
        assert_eq!(pairs(1), kv("a", "b", "4", "3"));
        assert_eq!(pairs(2), kv("a", "b", "5", "6"));
        assert_eq!(pairs(3), kv("a", "b", "8", "9"));
        assert_eq!(pairs(4), kv("a", "c", "11", "10"));
        for i in 1..4 {
            assert!(std::sync::Arc::ptr_eq(
                f[0].properties.schema(),
                f[i].properties.schema()
            ));
        }
    }

    /// The one-pass reading and the member-by-member one give the same features, and what
    /// the first cannot read goes to the second, which names the problem.
    #[test]
    fn usual_features_read_in_one_pass_and_the_rest_as_before() {
        let square = |d: f64| {
            Polygon::new(
                LineString::from(vec![
                    (d, 0.0),
                    (d, 1.0),
                    (d + 1.0, 1.0),
                    (d + 1.0, 0.0),
                    (d, 0.0),
                ]),
                vec![],
            )
        };
        let items = load(concat!(
            r#"{"type":"Feature","id":7,"properties":{"a":1},"geometry":{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[1,0],[0,0]]]}},"#,
            r#"{"geometry":{"coordinates":[[[[2,0],[2,1],[3,1],[3,0],[2,0]]]],"type":"MultiPolygon"},"properties":{"a":1},"properties":{"a":2}},"#,
            r#"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[4,5]}},"#,
            r#"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0,1],[0,1],[1,1],[1,0],[0,0]]]}},"#,
            r#"{"type":"Feature","properties":{},"geometry":null}"#
        ));
        let ok = |i: usize| items[i].as_ref().unwrap();
        assert_eq!(ok(0).id, "7");
        assert_eq!(ok(0).properties.text("a").as_deref(), Some("1"));
        let checked = |g: Geometry<f64>| check_geometry(g).unwrap();
        assert_eq!(ok(0).geometry, checked(Geometry::Polygon(square(0.0))));
        // A repeated member: the last, as a JSON map keeps it.
        assert_eq!(ok(1).properties.text("a").as_deref(), Some("2"));
        let multi = geo_types::MultiPolygon(vec![square(2.0)]);
        assert_eq!(ok(1).geometry, checked(Geometry::MultiPolygon(multi)));
        assert_eq!(ok(2).geometry, Geometry::Point(Point::new(4.0, 5.0)));
        let refused = |i: usize| items[i].as_ref().unwrap_err().reason.clone();
        assert!(refused(3).contains("closed"), "{}", refused(3));
        assert!(refused(4).contains("no geometry"), "{}", refused(4));
    }
}
