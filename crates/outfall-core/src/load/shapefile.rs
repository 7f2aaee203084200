//! ESRI Shapefile layers: geometry from .shp/.shx, attributes from .dbf, CRS from .prj
//! (or the manifest's `crs` when the .prj is missing).
//!
//! The three files are checked against each other before any shape is read: the .shp's
//! length against its header, every record's length against the file, the .shx offsets
//! against the records, and the .dbf record count against the shapes. Any disagreement is
//! an error for the whole layer, because a misaligned file pairs attributes with the wrong
//! shapes. Only then is each record read on its own, so one unreadable shape is refused and
//! named while the rest load.

use super::{check_geometry, feature_id, Feature, Raw, Refused, Reprojector};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde_json::{Map, Value};
use shapefile::dbase::FieldValue;
use shapefile::ReadableShape;
use std::path::Path;

const HEADER: usize = 100;

pub(super) fn read(path: &Path, cfg: &LayerConfig) -> Result<Raw> {
    for ext in ["shx", "dbf"] {
        let side = path.with_extension(ext);
        if !side.exists() {
            return Err(Error::format(
                path,
                format!("the .{ext} file is missing ({} not found)", side.display()),
            ));
        }
    }
    let prj = path.with_extension("prj");
    let crs = match (&cfg.crs, prj.exists()) {
        (Some(c), _) => c.clone(),
        (None, true) => std::fs::read_to_string(&prj).map_err(|e| Error::io(&prj, e))?,
        (None, false) => {
            return Err(Error::MissingCrs {
                path: path.to_path_buf(),
                reason: "no .prj file beside it and no `crs` in the manifest layer".into(),
            })
        }
    };
    let reproject = Reprojector::new(path, &crs)?;

    let shx_path = path.with_extension("shx");
    let dbf_path = path.with_extension("dbf");
    let shp = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let shx = std::fs::read(&shx_path).map_err(|e| Error::io(&shx_path, e))?;
    let dbf = std::fs::read(&dbf_path).map_err(|e| Error::io(&dbf_path, e))?;
    read_bytes(path, cfg, &reproject, &shp, &shx, &dbf)
}

/// Records per worker run.
const RUN: usize = 1024;

/// Reads a shapefile whose three parts are already in memory (a layer's files, or the
/// members of an uploaded zip). `path` names the .shp in messages; its .shx and .dbf are
/// named after it.
pub(super) fn read_bytes(
    path: &Path,
    cfg: &LayerConfig,
    reproject: &Reprojector,
    shp: &[u8],
    shx: &[u8],
    dbf: &[u8],
) -> Result<Raw> {
    let parts = Parts::named_after(path, cfg);
    let (records, table) = parts.cross_check(shp, shx, dbf)?;
    let items = parts.read_records(cfg, &records, shp, dbf)?;
    let one = |item, r: &Reprojector| match item {
        Pending::Done(refused) => Err(refused),
        Pending::Shape(shape, id, properties) => convert(shape, id, properties, r),
    };
    // A layer that one run covers is converted here, with the layer's own reprojector: a
    // worker's copy would cost another PROJ handle and database lookup for nothing.
    let items = if items.len() <= RUN {
        items.into_iter().map(|item| one(item, reproject)).collect()
    } else {
        let recipe = reproject.recipe();
        items
            .into_par_iter()
            // Long runs per worker, so few reprojectors are built.
            .with_min_len(RUN)
            .map_init(
                || Reprojector::from_recipe(path, recipe.as_deref()),
                // The same CRS was built once already; should PROJ refuse it again, say so.
                |r, item| match r {
                    Ok(r) => Ok(one(item, r)),
                    Err(e) => Err(parts.error(e.to_string())),
                },
            )
            .collect::<Result<Vec<_>>>()?
    };
    Ok(Raw {
        items,
        crs: reproject.crs.clone(),
        area_of_use: reproject.area_of_use,
        columns: table.columns,
    })
}

/// The shapefile's three parts as messages name them, and the layer they belong to.
struct Parts<'a> {
    path: &'a Path,
    role: &'a str,
    shp: String,
    shx: String,
    dbf: String,
}

impl<'a> Parts<'a> {
    fn named_after(path: &'a Path, cfg: &'a LayerConfig) -> Parts<'a> {
        let name = |p: &Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        Parts {
            path,
            role: cfg.role.as_str(),
            shp: name(path),
            shx: name(&path.with_extension("shx")),
            dbf: name(&path.with_extension("dbf")),
        }
    }

    fn error(&self, reason: String) -> Error {
        Error::layer(self.path, self.role, reason)
    }

    /// The .shp's records (offset, length), checked against the .shx, and the .dbf's header,
    /// checked to hold one record per shape: a misaligned file would pair attributes with the
    /// wrong shapes.
    fn cross_check(
        &self,
        shp: &[u8],
        shx: &[u8],
        dbf: &[u8],
    ) -> Result<(Vec<(usize, usize)>, DbfHeader)> {
        let records = walk_shp(shp, &self.shp).map_err(|r| self.error(r))?;
        check_shx(shx, &records, &self.shx, &self.shp).map_err(|r| self.error(r))?;
        let table = dbf_header(dbf, &self.dbf).map_err(|r| self.error(r))?;
        if table.records != records.len() {
            return Err(self.error(format!(
                "{} has {} records but {} has {} shapes",
                self.dbf,
                table.records,
                self.shp,
                records.len()
            )));
        }
        Ok((records, table))
    }

    /// Each record's attributes and shape, in file order on this thread; turning shapes into
    /// checked WGS84 geometry (the costly part) is left to run on every core.
    fn read_records(
        &self,
        cfg: &LayerConfig,
        records: &[(usize, usize)],
        shp: &[u8],
        dbf: &[u8],
    ) -> Result<Vec<Pending>> {
        let dbf_name = &self.dbf;
        let mut dbf_reader = shapefile::dbase::Reader::new(std::io::Cursor::new(dbf))
            .map_err(|e| self.error(format!("cannot read {dbf_name}: {e}")))?;
        let mut attributes = dbf_reader.iter_records();
        let mut items: Vec<Pending> = Vec::with_capacity(records.len());
        for (i, &(start, len)) in records.iter().enumerate() {
            let record = match attributes.next() {
                Some(Ok(r)) => r,
                Some(Err(e)) => {
                    items.push(Pending::Done(Refused::new(
                        format!("#{}", i + 1),
                        format!("record {} of {dbf_name} is unreadable: {e}", i + 1),
                    )));
                    continue;
                }
                None => return Err(self.error(format!("{dbf_name} ends before record {}", i + 1))),
            };
            let properties: Map<String, Value> = record
                .into_iter()
                .map(|(k, v)| (k, field_json(v)))
                .collect();
            let id = feature_id(&properties, cfg.id_field.as_deref(), None, i);
            let content = &shp[start + 8..start + 8 + len];
            items.push(self.shape(i, start, content, id, properties));
        }
        Ok(items)
    }

    /// Record `i`'s shape, or its refusal naming the byte where the record starts.
    fn shape(
        &self,
        i: usize,
        start: usize,
        content: &[u8],
        id: String,
        properties: Map<String, Value>,
    ) -> Pending {
        let corrupt = |why: String| {
            format!(
                "record {} of {} (byte {start}) is corrupt: {why}",
                i + 1,
                self.shp
            )
        };
        let read = counts_fit(content).map_err(corrupt).and_then(|()| {
            shapefile::Shape::read_from(&mut std::io::Cursor::new(content), content.len() as i32)
                .map_err(|e| corrupt(plain(&e)))
        });
        match read {
            Ok(shape) => Pending::Shape(shape, id, properties),
            Err(reason) => Pending::Done(Refused {
                feature: id,
                reason,
                properties: Some(properties),
            }),
        }
    }
}

/// A record read in file order: refused already, or a shape still to convert.
enum Pending {
    Done(Refused),
    Shape(shapefile::Shape, String, Map<String, Value>),
}

/// A shapefile crate error in plain words (never Rust debug text).
fn plain(e: &shapefile::Error) -> String {
    use shapefile::Error as E;
    match e {
        E::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "its content is shorter than its shape needs".into()
        }
        E::IoError(io) => io.to_string(),
        E::InvalidShapeType(code) => format!("unknown shape type code {code}"),
        E::MismatchShapeType { requested, actual } => {
            format!("shape type {actual} where {requested} was expected")
        }
        E::InvalidShapeRecordSize => "its declared size is inconsistent".into(),
        E::AllocationLimitExceeded { requested_bytes } => {
            format!("it declares {requested_bytes} bytes of coordinates")
        }
        E::OrphanedInnerRing => "a hole comes before any outer ring".into(),
        E::UnsupportedConversion => "this shape type cannot be used as geometry".into(),
        E::InvalidFileCode(c) => format!("invalid file code {c}"),
        _ => "unreadable shape".into(),
    }
}

fn be_i32(b: &[u8], at: usize) -> Option<i32> {
    b.get(at..at + 4)
        .map(|s| i32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

/// Walks the .shp's records by their headers: (start byte, content bytes) of each. A file
/// shorter than its header says, or a record running past the end, is an error naming it.
fn walk_shp(shp: &[u8], name: &str) -> std::result::Result<Vec<(usize, usize)>, String> {
    if shp.len() < HEADER {
        return Err(format!(
            "{name} is truncated: {} bytes, shorter than the 100-byte header",
            shp.len()
        ));
    }
    if be_i32(shp, 0) != Some(9994) {
        return Err(format!("{name} is not a shapefile (bad file code)"));
    }
    let declared = be_i32(shp, 24).unwrap_or(0).max(0) as usize * 2;
    if declared > shp.len() {
        return Err(format!(
            "{name} is truncated: its header says {declared} bytes but the file has {}",
            shp.len()
        ));
    }
    let end = declared.max(HEADER);
    let mut out = Vec::new();
    let mut pos = HEADER;
    while pos < end {
        let n = out.len() + 1;
        if pos + 8 > end {
            return Err(format!(
                "{name} is truncated: record {n} at byte {pos} has no complete header"
            ));
        }
        let words = be_i32(shp, pos + 4).unwrap_or(-1);
        let len = usize::try_from(words).map(|w| w * 2).map_err(|_| {
            format!("{name}: record {n} at byte {pos} declares a negative length ({words})")
        })?;
        if len < 4 {
            return Err(format!(
                "{name}: record {n} at byte {pos} declares {len} bytes, too short for a shape"
            ));
        }
        if pos + 8 + len > end {
            return Err(format!(
                "{name}: record {n} at byte {pos} claims {len} bytes, which runs past the end of the file ({end} bytes)"
            ));
        }
        out.push((pos, len));
        pos += 8 + len;
    }
    Ok(out)
}

/// The .shx must index exactly the records of the .shp, at the bytes where they start.
fn check_shx(
    shx: &[u8],
    records: &[(usize, usize)],
    name: &str,
    shp_name: &str,
) -> std::result::Result<(), String> {
    if shx.len() < HEADER || !(shx.len() - HEADER).is_multiple_of(8) {
        return Err(format!(
            "{name} is truncated or corrupt ({} bytes is not a 100-byte header plus 8 bytes per record)",
            shx.len()
        ));
    }
    let count = (shx.len() - HEADER) / 8;
    if count != records.len() {
        return Err(format!(
            "{name} indexes {count} records but {shp_name} has {}",
            records.len()
        ));
    }
    for (i, &(start, _)) in records.iter().enumerate() {
        let at = HEADER + i * 8;
        let offset = be_i32(shx, at).unwrap_or(-1) as i64 * 2;
        if offset != start as i64 {
            return Err(format!(
                "{name}: record {} points at byte {offset}, but record {} of {shp_name} starts at byte {start}",
                i + 1,
                i + 1
            ));
        }
    }
    Ok(())
}

struct DbfHeader {
    records: usize,
    columns: Vec<String>,
}

/// The .dbf's record count and column names, read from its header; a file shorter than its
/// header promises is an error.
fn dbf_header(dbf: &[u8], name: &str) -> std::result::Result<DbfHeader, String> {
    let short = || format!("{name} is truncated or not a dBase file");
    if dbf.len() < 32 {
        return Err(short());
    }
    let records = u32::from_le_bytes([dbf[4], dbf[5], dbf[6], dbf[7]]) as usize;
    let header_len = u16::from_le_bytes([dbf[8], dbf[9]]) as usize;
    let record_len = u16::from_le_bytes([dbf[10], dbf[11]]) as usize;
    let needed = header_len as u64 + records as u64 * record_len as u64;
    if header_len < 33 || (dbf.len() as u64) < needed {
        return Err(format!(
            "{name} is truncated: its header promises {records} records ({needed} bytes) but the file has {}",
            dbf.len()
        ));
    }
    let mut columns = Vec::new();
    let mut at = 32;
    while at + 32 <= header_len && dbf.get(at) != Some(&0x0D) {
        let raw = &dbf[at..at + 11];
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        columns.push(String::from_utf8_lossy(&raw[..end]).trim().to_string());
        at += 32;
    }
    Ok(DbfHeader { records, columns })
}

fn convert(
    shape: shapefile::Shape,
    id: String,
    properties: Map<String, Value>,
    reproject: &Reprojector,
) -> std::result::Result<Feature, Refused> {
    let refuse = |reason: String, properties: Map<String, Value>| Refused {
        feature: id.clone(),
        reason,
        properties: Some(properties),
    };
    if matches!(shape, shapefile::Shape::NullShape) {
        return Err(refuse("null shape (no geometry)".into(), properties));
    }
    let geom: std::result::Result<geo_types::Geometry<f64>, _> = shape.try_into();
    let mut geom = match geom {
        Ok(g) => g,
        Err(e) => {
            return Err(refuse(
                format!("unreadable geometry: {}", plain(&e)),
                properties,
            ))
        }
    };
    if let Err(r) = reproject.apply(&mut geom) {
        return Err(refuse(r, properties));
    }
    match check_geometry(geom) {
        Ok(geometry) => Ok(Feature {
            id,
            geometry,
            properties: properties.into(),
        }),
        Err(r) => Err(refuse(r, properties)),
    }
}

fn field_json(v: FieldValue) -> Value {
    let num = |f: f64| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number);
    match v {
        FieldValue::Character(s) => s.map_or(Value::Null, Value::String),
        FieldValue::Memo(s) => Value::String(s),
        FieldValue::Numeric(n) => n.map_or(Value::Null, num),
        FieldValue::Float(n) => n.map_or(Value::Null, |f| num(f as f64)),
        FieldValue::Double(f) | FieldValue::Currency(f) => num(f),
        FieldValue::Integer(i) => Value::from(i),
        FieldValue::Logical(b) => b.map_or(Value::Null, Value::Bool),
        FieldValue::Date(d) => d.map_or(Value::Null, |d| {
            Value::String(format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()))
        }),
        FieldValue::DateTime(dt) => {
            let d = dt.date();
            Value::String(format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()))
        }
    }
}

/// A polyline, polygon or multipoint record states its part and point counts before its
/// arrays; the shapefile crate reserves that much memory before reading. Counts that cannot fit
/// in the record's own bytes are refused first, so a corrupt count cannot ask for gigabytes
/// (found by the `shapefile` fuzz target).
fn counts_fit(content: &[u8]) -> std::result::Result<(), String> {
    let int = |at: usize| {
        content
            .get(at..at + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let Some(kind) = int(0) else {
        return Ok(());
    };
    // Shape types: 3/5 polyline/polygon, 13/15 with Z, 23/25 with M; 8/18/28 multipoint.
    let (parts, points) = match kind {
        3 | 5 | 13 | 15 | 23 | 25 => (int(36), int(40)),
        8 | 18 | 28 => (Some(0), int(36)),
        _ => return Ok(()),
    };
    let (Some(parts), Some(points)) = (parts, points) else {
        return Err("the record ends before its part and point counts".into());
    };
    if parts < 0 || points < 0 {
        return Err(format!("negative counts ({parts} parts, {points} points)"));
    }
    // Each part is a 4-byte index and each point at least 16 bytes of x and y.
    let need = 4 * parts as u64 + 16 * points as u64;
    if need > content.len() as u64 {
        return Err(format!(
            "it claims {parts} parts and {points} points, more than its {} bytes can hold",
            content.len()
        ));
    }
    // Each part's first point index: from 0 up to the point count, never going back. The
    // crate sizes a part from the difference of two indices.
    let mut last = 0;
    for k in 0..parts as usize {
        let first = int(44 + 4 * k).unwrap_or(-1);
        if first < last || first > points {
            return Err(format!(
                "part {} starts at point {first}, outside 0..{points} or before the previous part",
                k + 1
            ));
        }
        last = first;
    }
    Ok(())
}
