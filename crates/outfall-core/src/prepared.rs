//! The prepared cache (`outfall prepare`): each geometry layer as it stands after load
//! (reprojected to WGS84, validated, oriented, ids resolved) written to
//! `DATA/.prepared/` as FlatGeobuf, with a JSON sidecar saying what it was made from.
//! A later load takes a layer from the cache only when the sidecar's stamp (the source
//! files' sizes and modification times, the layer's manifest section, the rejected-share
//! limit, the outfall version) matches the current ones; otherwise the source is read. A
//! stale or damaged cache therefore never changes an answer.
//!
//! Attributes round-trip exactly. A column whose values are all of one JSON kind (bool,
//! integer, unsigned integer beyond i64, float, string) is a typed FlatGeobuf column, and when
//! every feature has the key, a JSON null is stored as no value (`absent_is_null`). Any other
//! column (mixed kinds, arrays, objects, nulls where some features lack the key) is a `Json`
//! column holding each value's JSON text; a value whose text would not parse back to the very
//! same value keeps the layer out of the cache. Two extra columns carry each feature's id and
//! its position in the layer, because the file is in Hilbert order for its spatial index.

use crate::attributes::Properties;
use crate::config::{LayerConfig, Manifest};
use crate::error::{Error, Result};
use crate::load::fgb as fgbread;
use crate::load::{Feature, LoadProblem, LoadedLayer, SourceInfo};
use flatgeobuf::geozero::{ColumnValue, PropertyProcessor};
use flatgeobuf::{ColumnType, FgbCrs, FgbWriter, FgbWriterOptions, GeometryType};
use geo::CoordsIter;
use geo_types::{Coord, Geometry, Rect};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The cache folder inside the data folder.
pub const DIR: &str = ".prepared";
/// Bumped whenever what is written changes meaning.
const FORMAT: u32 = 1;

/// What a prepared layer was made from; all of it must match for the cache to be used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Stamp {
    format: u32,
    outfall_version: String,
    /// The layer's manifest section.
    layer: Value,
    max_rejected_share: f64,
    files: Vec<FileStamp>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct FileStamp {
    path: String,
    bytes: u64,
    modified_ns: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Bool,
    Long,
    ULong,
    Double,
    String,
    Json,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct CachedColumn {
    name: String,
    kind: Kind,
    /// Every feature has this key; a feature without a value had JSON null.
    absent_is_null: bool,
}

/// The sidecar `NAME.json` beside `NAME.fgb`.
#[derive(Debug, Serialize, Deserialize)]
struct Sidecar {
    stamp: Stamp,
    source: SourceInfo,
    problems: Vec<LoadProblem>,
    id_column: String,
    order_column: String,
    columns: Vec<CachedColumn>,
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
fn stamp_now(dir: &Path, cfg: &LayerConfig, share: f64) -> Option<Stamp> {
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
fn stale_reason(cached: &Stamp, now: &Stamp) -> String {
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
    let bytes = read_parallel(&fgb)?;
    if bytes.len() as u64 != side.fgb_bytes {
        return Err(Error::format(
            &fgb,
            format!(
                "prepared cache is damaged: {} bytes where {} were written",
                bytes.len(),
                side.fgb_bytes
            ),
        ));
    }
    let (features, envelopes) = decode(&bytes, &fgb, &side)?;
    // Unmapping 100 MB takes 10 ms that nothing waits for.
    rayon::spawn(move || drop(bytes));
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
            envelopes: Some(envelopes),
            by_id,
        },
    }))
}

/// A whole file, read in 8 MiB pieces on every core: one thread copying from the page cache
/// (and faulting in the buffer) was two fifths of a 100k-parcel cache load.
fn read_parallel(path: &Path) -> Result<Vec<u8>> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    const PIECE: usize = 8 << 20;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len() as usize;
    let mut bytes = vec![0u8; len];
    bytes
        .par_chunks_mut(PIECE)
        .enumerate()
        .try_for_each(|(i, piece)| file.read_exact_at(piece, (i * PIECE) as u64))
        .map_err(|e| Error::io(path, e))?;
    Ok(bytes)
}

/// A decoded layer: features in layer order, and each one's bounding box.
type Decoded = (Vec<Feature>, Vec<Option<Rect<f64>>>);

/// Every feature of a prepared file, decoded on every core and put back in layer order, with
/// its bounding box found while its coordinates are at hand.
fn decode(bytes: &[u8], path: &Path, side: &Sidecar) -> Result<Decoded> {
    let damaged = |why: String| Error::format(path, format!("prepared cache is damaged: {why}"));
    let parsed = fgbread::parse(bytes, path).map_err(|e| match e {
        Error::Format { reason, .. } => damaged(reason),
        other => other,
    })?;
    let expected: Vec<(&str, ColumnType)> = [
        (side.id_column.as_str(), ColumnType::String),
        (side.order_column.as_str(), ColumnType::Long),
    ]
    .into_iter()
    .chain(
        side.columns
            .iter()
            .map(|c| (c.name.as_str(), column_type(c.kind))),
    )
    .collect();
    let found: Vec<(&str, ColumnType)> = parsed
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect();
    if found != expected {
        return Err(damaged(
            "its columns are not the ones its sidecar lists".into(),
        ));
    }
    // The columns are the layer's keys in sorted order, so every feature shares one list.
    let keys: crate::attributes::Keys = side
        .columns
        .iter()
        .map(|c| c.name.as_str().into())
        .collect();
    // Collected in file order straight into place (an indexed collect), then moved once
    // into layer order by each feature's position.
    type One = std::result::Result<(usize, Feature, Option<Rect<f64>>), String>;
    let decoded: Vec<One> = parsed
        .features
        .par_iter()
        .with_min_len(256)
        .map(|buf| decode_one(buf, &parsed, side, &keys))
        .collect();
    let n = decoded.len();
    let mut file_index = vec![usize::MAX; n];
    let mut items = Vec::with_capacity(n);
    for (i, one) in decoded.into_iter().enumerate() {
        let (order, f, r) = one.map_err(|why| damaged(format!("feature {}: {why}", i + 1)))?;
        match file_index.get_mut(order) {
            Some(slot) if *slot == usize::MAX => *slot = i,
            _ => {
                return Err(damaged(format!(
                    "position {order} is out of range or repeated"
                )))
            }
        }
        items.push(Some((f, r)));
    }
    // n distinct positions below n: every one is filled.
    let (mut features, mut envelopes) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in file_index {
        let (f, r) = items
            .get_mut(i)
            .and_then(Option::take)
            .ok_or_else(|| damaged("a position is missing".into()))?;
        features.push(f);
        envelopes.push(r);
    }
    Ok((features, envelopes))
}

/// One cached feature: its position, id, geometry and properties.
fn decode_one(
    buf: &[u8],
    parsed: &fgbread::Parsed,
    side: &Sidecar,
    keys: &crate::attributes::Keys,
) -> std::result::Result<(usize, Feature, Option<Rect<f64>>), String> {
    let (geometry, props) = fgbread::decode_feature(buf, parsed)?;
    let bounds = finite_bounds(&geometry).ok_or("a coordinate is not finite")?;
    let (mut id, mut order) = (None, None);
    // Columns are written in key order, so the values come sorted and are encoded straight
    // into the feature's attributes over the shared key list.
    let columns = &side.columns;
    // All values' JSON text in one buffer, with each column's span: one allocation per
    // feature rather than one per value.
    let mut text: Vec<u8> = Vec::with_capacity(buf.len());
    let mut values: Vec<(usize, std::ops::Range<usize>)> = Vec::with_capacity(columns.len());
    let mut next = 0usize;
    for (i, v) in props {
        match (i, v) {
            (0, fgbread::Prop::Text(s)) => id = Some(s.into_owned()),
            (1, fgbread::Prop::Value(Value::Number(n))) => order = n.as_u64(),
            (0 | 1, _) => return Err("the id or position column holds the wrong kind".into()),
            (i, v) => {
                let c = i - 2;
                if c < next || c >= columns.len() {
                    return Err("the properties are out of column order".into());
                }
                nulls_between(columns, next, c, &mut text, &mut values);
                let start = text.len();
                match v {
                    fgbread::Prop::Text(t) => serde_json::to_writer(&mut text, &*t),
                    fgbread::Prop::Value(v) => serde_json::to_writer(&mut text, &v),
                }
                .map_err(|e| e.to_string())?;
                values.push((c, start..text.len()));
                next = c + 1;
            }
        }
    }
    nulls_between(columns, next, columns.len(), &mut text, &mut values);
    let properties = Properties::from_encoded(
        keys.clone(),
        values.iter().map(|(i, span)| (*i, &text[span.clone()])),
    );
    let id = id.ok_or("no id")?;
    let order = order.ok_or("no position")? as usize;
    Ok((
        order,
        Feature {
            id,
            geometry,
            properties,
        },
        bounds,
    ))
}

/// The geometry's bounding box (`Some(None)` when it has no coordinate), in one pass that
/// also checks every coordinate is finite (`None` when one is not).
fn finite_bounds(g: &Geometry<f64>) -> Option<Option<Rect<f64>>> {
    let mut lo = Coord {
        x: f64::INFINITY,
        y: f64::INFINITY,
    };
    let mut hi = Coord {
        x: f64::NEG_INFINITY,
        y: f64::NEG_INFINITY,
    };
    let mut any = false;
    for c in g.coords_iter() {
        if !c.x.is_finite() || !c.y.is_finite() {
            return None;
        }
        (lo.x, lo.y, hi.x, hi.y) = (lo.x.min(c.x), lo.y.min(c.y), hi.x.max(c.x), hi.y.max(c.y));
        any = true;
    }
    Some(any.then(|| Rect::new(lo, hi)))
}

/// A null for each column in `from..to` that stores a null as no value.
fn nulls_between(
    columns: &[CachedColumn],
    from: usize,
    to: usize,
    text: &mut Vec<u8>,
    values: &mut Vec<(usize, std::ops::Range<usize>)>,
) {
    for (i, c) in columns.iter().enumerate().take(to).skip(from) {
        if c.absent_is_null {
            let start = text.len();
            text.extend_from_slice(b"null");
            values.push((i, start..text.len()));
        }
    }
}

fn column_type(kind: Kind) -> ColumnType {
    match kind {
        Kind::Bool => ColumnType::Bool,
        Kind::Long => ColumnType::Long,
        Kind::ULong => ColumnType::ULong,
        Kind::Double => ColumnType::Double,
        Kind::String => ColumnType::String,
        Kind::Json => ColumnType::Json,
    }
}

fn kind_of(v: &Value) -> Option<Kind> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(_) => Kind::Bool,
        Value::Number(n) if n.is_i64() => Kind::Long,
        Value::Number(n) if n.is_u64() => Kind::ULong,
        Value::Number(_) => Kind::Double,
        Value::String(_) => Kind::String,
        _ => Kind::Json,
    })
}

/// The column scheme of a layer's properties (see the module notes).
fn columns_of(features: &[Feature]) -> Vec<CachedColumn> {
    // key -> (features having it, nulls, the one kind so far, mixed)
    let mut stats: BTreeMap<&str, (usize, usize, Option<Kind>, bool)> = BTreeMap::new();
    for f in features {
        for (k, v) in f.properties.iter() {
            let s = stats.entry(k).or_insert((0, 0, None, false));
            s.0 += 1;
            match kind_of(&v) {
                None => s.1 += 1,
                Some(kind) => match s.2 {
                    None => s.2 = Some(kind),
                    Some(k) if k != kind => s.3 = true,
                    Some(_) => {}
                },
            }
        }
    }
    stats
        .into_iter()
        .map(|(name, (count, nulls, kind, mixed))| {
            let dense = count == features.len();
            let kind = if mixed || (nulls > 0 && !dense) {
                Kind::Json
            } else {
                kind.unwrap_or(Kind::String)
            };
            CachedColumn {
                name: name.to_string(),
                kind,
                absent_is_null: kind != Kind::Json && nulls > 0,
            }
        })
        .collect()
}

/// A name for an extra column that no property uses.
fn free_name(base: &str, columns: &[CachedColumn]) -> String {
    let mut name = base.to_string();
    while columns.iter().any(|c| c.name == name) {
        name.insert(0, '_');
    }
    name
}

/// The one geometry type of every feature, else Unknown (each feature then says its own).
/// A geometry collection cannot be cached.
fn geometry_type_of(features: &[Feature]) -> std::result::Result<GeometryType, String> {
    use geo_types::Geometry as G;
    let mut kinds = features.iter().map(|f| match &f.geometry {
        G::Point(_) => Ok(GeometryType::Point),
        G::MultiPoint(_) => Ok(GeometryType::MultiPoint),
        G::LineString(_) => Ok(GeometryType::LineString),
        G::MultiLineString(_) => Ok(GeometryType::MultiLineString),
        G::Polygon(_) => Ok(GeometryType::Polygon),
        G::MultiPolygon(_) => Ok(GeometryType::MultiPolygon),
        _ => Err(format!(
            "feature {} is a geometry collection (or a line, rect or triangle), which the cache does not store",
            f.id
        )),
    });
    let first = kinds.next().transpose()?.unwrap_or(GeometryType::Unknown);
    let mut out = first;
    for k in kinds {
        if k? != first {
            out = GeometryType::Unknown;
        }
    }
    Ok(out)
}

/// Writes one loaded layer to the cache. `Ok(Err(reason))` when the layer cannot be cached
/// exactly (it then keeps loading from its source).
fn write(
    dir: &Path,
    cfg: &LayerConfig,
    share: f64,
    loaded: &LoadedLayer,
) -> Result<std::result::Result<(PathBuf, u64), String>> {
    let (fgb_path, json_path) = files_of(dir, cfg);
    let Some(stamp) = stamp_now(dir, cfg, share) else {
        return Ok(Err("a source file could not be read for its stamp".into()));
    };
    let geometry_type = match geometry_type_of(&loaded.features) {
        Ok(t) => t,
        Err(why) => return Ok(Err(why)),
    };
    let columns = columns_of(&loaded.features);
    let id_column = free_name("outfall_id", &columns);
    let order_column = free_name("outfall_order", &columns);
    let title = format!(
        "{} ({}), prepared by outfall",
        cfg.path.display(),
        cfg.role.as_str()
    );
    let options = FgbWriterOptions {
        write_index: true,
        detect_type: false,
        promote_to_multi: false,
        crs: FgbCrs {
            code: 4326,
            ..Default::default()
        },
        title: Some(&title),
        ..Default::default()
    };
    let fail = |e: &dyn std::fmt::Display| Error::format(&fgb_path, format!("cannot write: {e}"));
    let mut fgb = FgbWriter::create_with_options(cfg.role.as_str(), geometry_type, options)
        .map_err(|e| fail(&e))?;
    fgb.add_column(&id_column, ColumnType::String, |_, _| {});
    fgb.add_column(&order_column, ColumnType::Long, |_, _| {});
    for c in &columns {
        fgb.add_column(&c.name, column_type(c.kind), |_, col| col.nullable = true);
    }
    let index: BTreeMap<&str, (usize, Kind)> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), (i + 2, c.kind)))
        .collect();
    for (order, f) in loaded.features.iter().enumerate() {
        let mut texts: Vec<(usize, &str, String)> = Vec::new();
        for (k, v) in f.properties.iter() {
            let (i, kind) = index[k];
            if kind == Kind::Json {
                let text = serde_json::to_string(&v).map_err(|e| fail(&e))?;
                if serde_json::from_str::<Value>(&text).ok().as_ref() != Some(&v) {
                    return Ok(Err(format!(
                        "feature {}: the value of '{k}' does not read back exactly from JSON text",
                        f.id
                    )));
                }
                texts.push((i, k, text));
            }
        }
        let mut failed = None;
        fgb.add_feature_geom(f.geometry.clone(), |w| {
            let mut put = |i: usize, name: &str, v: &ColumnValue| {
                if let Err(e) = w.property(i, name, v) {
                    failed.get_or_insert(e.to_string());
                }
            };
            put(0, &id_column, &ColumnValue::String(&f.id));
            put(1, &order_column, &ColumnValue::Long(order as i64));
            let mut texts = texts.iter().peekable();
            for (k, v) in f.properties.iter() {
                let (i, kind) = index[k];
                let value = match (kind, &v) {
                    (Kind::Json, _) => match texts.next() {
                        Some((_, _, t)) => ColumnValue::Json(t),
                        None => continue,
                    },
                    (_, Value::Null) => continue,
                    (_, Value::Bool(b)) => ColumnValue::Bool(*b),
                    (Kind::Long, Value::Number(n)) => ColumnValue::Long(n.as_i64().unwrap_or(0)),
                    (Kind::ULong, Value::Number(n)) => ColumnValue::ULong(n.as_u64().unwrap_or(0)),
                    (_, Value::Number(n)) => ColumnValue::Double(n.as_f64().unwrap_or(f64::NAN)),
                    (_, Value::String(s)) => ColumnValue::String(s),
                    _ => continue,
                };
                put(i, k, &value);
            }
        })
        .map_err(|e| fail(&e))?;
        if let Some(e) = failed {
            return Err(fail(&e));
        }
    }
    let tmp = fgb_path.with_extension("fgb.tmp");
    let file = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    fgb.write(std::io::BufWriter::new(file))
        .map_err(|e| fail(&e))?;
    let fgb_bytes = std::fs::metadata(&tmp)
        .map_err(|e| Error::io(&tmp, e))?
        .len();
    std::fs::rename(&tmp, &fgb_path).map_err(|e| Error::io(&fgb_path, e))?;
    let side = Sidecar {
        stamp,
        source: loaded.source.clone(),
        problems: loaded.problems.clone(),
        id_column,
        order_column,
        columns,
        fgb_bytes,
        by_id: crate::layer::id_order(&loaded.features),
    };
    let text = serde_json::to_vec_pretty(&side).map_err(|e| fail(&e))?;
    std::fs::write(&json_path, text).map_err(|e| Error::io(&json_path, e))?;
    Ok(Ok((fgb_path, fgb_bytes)))
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
        crate::catalog::check_inside(&manifest, cfg)?;
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
    cfg.role != crate::config::Role::Rainfall && !is_table
}
