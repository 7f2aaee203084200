//! FlatGeobuf layers, and the decoding the prepared cache shares with them. A file is read
//! whole, its header and feature buffers are located once, then every feature's geometry
//! (straight from its `xy` and `ends` arrays) and properties are decoded on every core.
//! Each flatbuffer is verified before it is read, so a damaged file is an error naming it,
//! never a panic.

use super::{check_geometry, feature_id, Feature, Raw, Refused, Reprojector};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use flatgeobuf::packed_r_tree::PackedRTree;
use flatgeobuf::{ColumnType, GeometryType};
use geo_types::{
    Coord, Geometry, GeometryCollection, LineString, MultiLineString, MultiPoint, MultiPolygon,
    Point, Polygon,
};
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::path::Path;

/// The FlatGeobuf magic bytes, without the version byte (index 3).
const MAGIC: [u8; 8] = *b"fgb\x03fgb\x00";

/// One attribute column of a FlatGeobuf file.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    pub name: String,
    pub kind: ColumnType,
}

/// A FlatGeobuf file located in memory: what its header says and each feature's bytes.
pub(crate) struct Parsed<'a> {
    pub geometry_type: GeometryType,
    pub columns: Vec<Column>,
    /// The header's CRS as a name PROJ reads ("EPSG:2261"), or its WKT; None when unset.
    pub crs: Option<String>,
    /// Each feature's size-prefixed flatbuffer, in file order.
    pub features: Vec<&'a [u8]>,
}

/// Locates the header, the index and every feature of a FlatGeobuf file's bytes.
pub(crate) fn parse<'a>(bytes: &'a [u8], path: &Path) -> Result<Parsed<'a>> {
    let (head, start, count) = parse_header(bytes, path, bytes.len())?;
    let bad = |why: String| Error::format(path, format!("not a readable FlatGeobuf file: {why}"));
    let features = feature_buffers(bytes, start, count).map_err(bad)?;
    if features.len() != count && count != 0 {
        return Err(bad(format!(
            "the header counts {count} features, the file holds {}",
            features.len()
        )));
    }
    Ok(Parsed {
        geometry_type: head.geometry_type,
        columns: head.columns,
        crs: head.crs,
        features,
    })
}

/// The bytes of a file's magic and header alone (`header_bytes` says how many), so a large
/// file can be read in pieces after them.
pub(crate) fn header_bytes(first12: &[u8]) -> usize {
    12usize.saturating_add(u32_at(first12, 8) as usize)
}

/// What a file's header says (no features yet), where its features start, and how many the
/// header counts. `bytes` holds at least the magic and the header; `file_len` is the whole
/// file's length.
pub(crate) fn parse_header(
    bytes: &[u8],
    path: &Path,
    file_len: usize,
) -> Result<(Parsed<'static>, usize, usize)> {
    let bad = |why: String| Error::format(path, format!("not a readable FlatGeobuf file: {why}"));
    if bytes.len() < 12 || bytes[0..3] != MAGIC[0..3] || bytes[4..7] != MAGIC[4..7] {
        return Err(bad(
            "it does not start with the FlatGeobuf magic bytes".into()
        ));
    }
    if bytes[3] > MAGIC[3] {
        return Err(bad(format!("format version {} is newer than 3", bytes[3])));
    }
    let header_len = u32_at(bytes, 8) as usize;
    let header_end = 12usize.saturating_add(header_len);
    if header_len < 8 || header_end > bytes.len() {
        return Err(bad(format!(
            "the header says it is {header_len} bytes, but the file is {file_len} bytes"
        )));
    }
    let header = flatgeobuf::size_prefixed_root_as_header(&bytes[8..header_end])
        .map_err(|e| bad(format!("the header is damaged: {e}")))?;
    let count = header.features_count() as usize;
    if count > file_len / 4 {
        return Err(bad(format!(
            "the header counts {count} features, more than {file_len} bytes can hold"
        )));
    }
    let index_len = match (header.index_node_size(), count) {
        (0, _) | (_, 0) => 0,
        (1, _) => return Err(bad("the index node size is 1 (at least 2)".into())),
        (n, c) => PackedRTree::index_size(c, n),
    };
    let start = header_end.saturating_add(index_len);
    if start > file_len {
        return Err(bad("it ends inside its spatial index".into()));
    }
    let columns = header
        .columns()
        .map(|cols| {
            cols.iter()
                .map(|c| Column {
                    name: c.name().to_string(),
                    kind: c.type_(),
                })
                .collect()
        })
        .unwrap_or_default();
    let head = Parsed {
        geometry_type: header.geometry_type(),
        columns,
        crs: header.crs().and_then(crs_name),
        features: Vec::new(),
    };
    Ok((head, start, count))
}

/// Each size-prefixed feature buffer from `at` to the end of the file (`count` expected), or
/// why the file is cut short.
fn feature_buffers(
    bytes: &[u8],
    mut at: usize,
    count: usize,
) -> std::result::Result<Vec<&[u8]>, String> {
    let mut features = Vec::with_capacity(count);
    while at < bytes.len() {
        if at + 4 > bytes.len() {
            return Err(format!("it ends inside feature {}", features.len() + 1));
        }
        let end = (at + 4).saturating_add(u32_at(bytes, at) as usize);
        if end > bytes.len() {
            return Err(format!(
                "it ends inside feature {} (cut short?)",
                features.len() + 1
            ));
        }
        features.push(&bytes[at..end]);
        at = end;
    }
    Ok(features)
}

/// The header's CRS as a name PROJ reads: an authority code when it has one, else its WKT.
fn crs_name(c: flatgeobuf::Crs) -> Option<String> {
    let org = c.org().unwrap_or("EPSG");
    if c.code() > 0 {
        Some(format!("{org}:{}", c.code()))
    } else if let Some(code) = c.code_string().filter(|s| !s.is_empty()) {
        Some(format!("{org}:{code}"))
    } else {
        c.wkt().filter(|w| !w.trim().is_empty()).map(String::from)
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// A feature's properties as (column index, value), in buffer order.
pub(crate) type Props<'a> = Vec<(usize, Prop<'a>)>;

/// One decoded property. Text borrows the feature's buffer, because a cached load encodes it
/// straight back to JSON and a `String` per value was most of that load's allocation.
#[derive(Debug, PartialEq)]
pub(crate) enum Prop<'a> {
    Text(std::borrow::Cow<'a, str>),
    Value(Value),
}

impl Prop<'_> {
    pub(crate) fn into_value(self) -> Value {
        match self {
            Prop::Text(t) => Value::String(t.into_owned()),
            Prop::Value(v) => v,
        }
    }
}

/// One feature's verified flatbuffer, geometry (in the file's coordinates) and properties.
pub(crate) fn decode_feature<'a>(
    buf: &'a [u8],
    parsed: &Parsed,
) -> std::result::Result<(Geometry<f64>, Props<'a>), String> {
    let (geometry, props) = decode_feature_raw(buf, parsed)?;
    Ok((geometry, decode_properties(props, &parsed.columns)?))
}

/// One feature's verified flatbuffer: its geometry, and its property buffer undecoded (for
/// [`for_each_property`]).
pub(crate) fn decode_feature_raw<'a>(
    buf: &'a [u8],
    parsed: &Parsed,
) -> std::result::Result<(Geometry<f64>, &'a [u8]), String> {
    let f = flatgeobuf::size_prefixed_root_as_feature(buf)
        .map_err(|e| format!("damaged feature: {e}"))?;
    let props = f.properties().map(|p| p.bytes()).unwrap_or_default();
    let g = f.geometry().ok_or("no geometry (null)")?;
    Ok((decode_geometry(&g, parsed.geometry_type)?, props))
}

/// A FlatGeobuf geometry as geo-types. `kind` is the header's type; `Unknown` means each
/// geometry carries its own.
pub(crate) fn decode_geometry(
    g: &flatgeobuf::Geometry,
    kind: GeometryType,
) -> std::result::Result<Geometry<f64>, String> {
    let kind = if kind == GeometryType::Unknown {
        g.type_()
    } else {
        kind
    };
    let parts = || -> std::result::Result<Vec<Geometry<f64>>, String> {
        let parts = g.parts().ok_or("a multi-part geometry has no parts")?;
        parts
            .iter()
            .map(|p| decode_geometry(&p, GeometryType::Unknown))
            .collect()
    };
    Ok(match kind {
        GeometryType::Point => match coords(g)?.as_slice() {
            [c] => Geometry::Point(Point(*c)),
            [] => return Err("empty geometry".into()),
            _ => return Err("a point with more than one position".into()),
        },
        GeometryType::MultiPoint => {
            Geometry::MultiPoint(MultiPoint(coords(g)?.into_iter().map(Point).collect()))
        }
        GeometryType::LineString => Geometry::LineString(LineString(coords(g)?)),
        GeometryType::MultiLineString => {
            Geometry::MultiLineString(MultiLineString(rings(g)?.into_iter().collect()))
        }
        GeometryType::Polygon => Geometry::Polygon(polygon(g)?),
        GeometryType::MultiPolygon if g.parts().is_none() => {
            Geometry::MultiPolygon(MultiPolygon(vec![polygon(g)?]))
        }
        // The parts of a multipolygon are polygons whatever type they carry.
        GeometryType::MultiPolygon => Geometry::MultiPolygon(MultiPolygon(
            g.parts()
                .ok_or("a multipolygon has no parts")?
                .iter()
                .map(|p| polygon(&p))
                .collect::<std::result::Result<_, _>>()?,
        )),
        GeometryType::GeometryCollection => {
            Geometry::GeometryCollection(GeometryCollection(parts()?))
        }
        other => {
            return Err(format!(
                "unsupported geometry type {}",
                other.variant_name().unwrap_or("(unknown)")
            ))
        }
    })
}

/// Positions from the little-endian bytes of (part of) an `xy` array.
fn run(xy: &[u8]) -> Vec<Coord<f64>> {
    let f = |b: &[u8]| f64::from_le_bytes(b.try_into().unwrap_or_default());
    xy.chunks_exact(16)
        .map(|c| Coord {
            x: f(&c[..8]),
            y: f(&c[8..]),
        })
        .collect()
}

/// The `xy` array's bytes, 16 per position.
fn xy_bytes<'a>(g: &flatgeobuf::Geometry<'a>) -> std::result::Result<&'a [u8], String> {
    match g.xy() {
        None => Ok(&[]),
        Some(xy) if xy.len() % 2 != 0 => Err("the coordinate array has an odd length".into()),
        Some(xy) => Ok(xy.bytes()),
    }
}

/// Every position of the `xy` array.
fn coords(g: &flatgeobuf::Geometry) -> std::result::Result<Vec<Coord<f64>>, String> {
    Ok(run(xy_bytes(g)?))
}

/// The `xy` positions split at `ends` (one run when there are no ends), each read once
/// straight into its ring.
fn rings(g: &flatgeobuf::Geometry) -> std::result::Result<Vec<LineString<f64>>, String> {
    let xy = xy_bytes(g)?;
    let Some(ends) = g.ends() else {
        return Ok(vec![LineString(run(xy))]);
    };
    let n = xy.len() / 16;
    let mut out = Vec::with_capacity(ends.len());
    let mut start = 0usize;
    for end in ends.iter() {
        let end = end as usize;
        if end < start || end > n {
            return Err(format!("a part ends at position {end}, outside 0..{n}"));
        }
        out.push(LineString(run(&xy[start * 16..end * 16])));
        start = end;
    }
    Ok(out)
}

/// A polygon from its rings; an unclosed ring is refused, as in GeoJSON (geo-types would
/// close it silently).
fn polygon(g: &flatgeobuf::Geometry) -> std::result::Result<Polygon<f64>, String> {
    let mut rings = rings(g)?.into_iter();
    let exterior = rings.next().unwrap_or_else(|| LineString(Vec::new()));
    let interiors: Vec<LineString<f64>> = rings.collect();
    for (i, r) in std::iter::once(&exterior).chain(&interiors).enumerate() {
        if !r.0.is_empty() && (r.0.len() < 4 || r.0.first() != r.0.last()) {
            return Err(format!(
                "polygon ring {i} is not closed (a ring needs 4+ positions, first == last; it has {})",
                r.0.len()
            ));
        }
    }
    Ok(Polygon::new(exterior, interiors))
}

/// A feature's property buffer: (column index, value) in buffer order.
pub(crate) fn decode_properties<'a>(
    buf: &'a [u8],
    columns: &[Column],
) -> std::result::Result<Props<'a>, String> {
    let mut out = Vec::with_capacity(columns.len());
    for_each_property(buf, columns, |idx, value| {
        out.push((idx, value));
        Ok(())
    })?;
    Ok(out)
}

/// Each (column index, value) of a feature's property buffer, in buffer order, handed to
/// `f` (a cached load keeps no list of them). Numbers keep their kind (an integer column
/// gives integers, a double column floats); a Json column's text is parsed back to its value.
pub(crate) fn for_each_property<'a>(
    buf: &'a [u8],
    columns: &[Column],
    mut f: impl FnMut(usize, Prop<'a>) -> std::result::Result<(), String>,
) -> std::result::Result<(), String> {
    let short = || "the properties are cut short".to_string();
    let mut at = 0usize;
    while at < buf.len() {
        let idx = u16::from_le_bytes(
            buf.get(at..at + 2)
                .ok_or_else(short)?
                .try_into()
                .unwrap_or_default(),
        ) as usize;
        at += 2;
        let col = columns
            .get(idx)
            .ok_or_else(|| format!("a property names column {idx}, which the header lacks"))?;
        let mut take = |n: usize| -> std::result::Result<&'a [u8], String> {
            let s = buf.get(at..at + n).ok_or_else(short)?;
            at += n;
            Ok(s)
        };
        macro_rules! num {
            ($t:ty) => {
                <$t>::from_le_bytes(
                    take(std::mem::size_of::<$t>())?
                        .try_into()
                        .unwrap_or_default(),
                )
            };
        }
        let value = Prop::Value(match col.kind {
            ColumnType::Bool => Value::Bool(num!(u8) != 0),
            ColumnType::Byte => Value::from(num!(i8)),
            ColumnType::UByte => Value::from(num!(u8)),
            ColumnType::Short => Value::from(num!(i16)),
            ColumnType::UShort => Value::from(num!(u16)),
            ColumnType::Int => Value::from(num!(i32)),
            ColumnType::UInt => Value::from(num!(u32)),
            ColumnType::Long => Value::from(num!(i64)),
            ColumnType::ULong => Value::from(num!(u64)),
            ColumnType::Float => Value::from(f64::from(num!(f32))),
            ColumnType::Double => Value::from(num!(f64)),
            kind => {
                let n = num!(u32) as usize;
                let bytes = take(n)?;
                match kind {
                    ColumnType::Json => serde_json::from_slice(bytes)
                        .map_err(|e| format!("column {}: not JSON: {e}", col.name))?,
                    ColumnType::Binary => Value::String(hex::encode(bytes)),
                    _ => {
                        f(idx, Prop::Text(String::from_utf8_lossy(bytes)))?;
                        continue;
                    }
                }
            }
        });
        f(idx, value)?;
    }
    Ok(())
}

/// Reads a `.fgb` layer named in the manifest: the manifest's `crs` wins over the header's,
/// no CRS at all means lon/lat (as in GeoJSON). Every feature is reprojected and checked like
/// a Shapefile's or GeoJSON's.
pub(super) fn read(path: &Path, cfg: &LayerConfig) -> Result<Raw> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let parsed = parse(&bytes, path)?;
    let crs = cfg.crs.clone().or(parsed.crs.clone());
    let reproject = match &crs {
        Some(c) => Reprojector::new(path, c)?,
        None => Reprojector::lonlat(),
    };
    let recipe = reproject.recipe();
    let items = parsed
        .features
        .par_iter()
        .enumerate()
        .with_min_len(1024)
        .map_init(
            || Reprojector::from_recipe(path, recipe.as_deref()),
            |r, (i, buf)| match r {
                Ok(r) => Ok(convert(buf, i, &parsed, cfg, r)),
                Err(e) => Err(Error::format(path, e.to_string())),
            },
        )
        .collect::<Result<Vec<_>>>()?;
    Ok(Raw {
        items,
        crs: reproject.crs.clone(),
        area_of_use: reproject.area_of_use,
        columns: parsed.columns.iter().map(|c| c.name.clone()).collect(),
    })
}

fn convert(
    buf: &[u8],
    index: usize,
    parsed: &Parsed,
    cfg: &LayerConfig,
    reproject: &Reprojector,
) -> std::result::Result<Feature, Refused> {
    let (geometry, props) = match decode_feature(buf, parsed) {
        Ok(d) => d,
        Err(reason) => return Err(Refused::new(format!("#{}", index + 1), reason)),
    };
    let map: Map<String, Value> = props
        .into_iter()
        .map(|(i, v)| (parsed.columns[i].name.clone(), v.into_value()))
        .collect();
    let id = feature_id(&map, cfg.id_field.as_deref(), None, index);
    let mut geom = geometry;
    let checked = reproject
        .apply(&mut geom)
        .and_then(|_| check_geometry(geom));
    match checked {
        Ok(geometry) => Ok(Feature {
            id,
            geometry,
            properties: to_properties(map),
        }),
        Err(reason) => Err(Refused {
            feature: id,
            reason,
            properties: Some(map),
        }),
    }
}

/// The one place a FlatGeobuf reader (a `.fgb` layer, the prepared cache) makes a feature's
/// properties, so a change of the properties type is made here alone.
pub(crate) fn to_properties(map: Map<String, Value>) -> crate::attributes::Properties {
    map.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_or_foreign_bytes_are_errors_not_panics() {
        let cols = vec![
            Column {
                name: "n".into(),
                kind: ColumnType::Long,
            },
            Column {
                name: "s".into(),
                kind: ColumnType::String,
            },
        ];
        let mut buf = 0u16.to_le_bytes().to_vec();
        buf.extend(42i64.to_le_bytes());
        buf.extend(1u16.to_le_bytes());
        buf.extend(3u32.to_le_bytes());
        buf.extend(b"abc");
        let props = decode_properties(&buf, &cols).expect("whole buffer");
        let props: Vec<(usize, Value)> = props
            .into_iter()
            .map(|(i, p)| (i, p.into_value()))
            .collect();
        assert_eq!(props, vec![(0, Value::from(42)), (1, Value::from("abc"))]);
        // Any cut but the one between the two properties leaves one unfinished.
        for cut in (1..buf.len()).filter(|&c| c != 10) {
            assert!(
                decode_properties(&buf[..cut], &cols).is_err(),
                "cut at {cut}"
            );
        }
        assert!(decode_properties(&7u16.to_le_bytes(), &cols).is_err());
        let path = Path::new("x.fgb");
        for bytes in [
            &b""[..],
            b"fgb\x03fgb\x00",
            b"fgb\x03fgb\x00\xff\xff\xff\x7f",
            b"PK\x03\x04 not it",
        ] {
            let e = parse(bytes, path).err().expect("refused");
            assert!(e.to_string().contains("x.fgb"), "{e}");
        }
    }
}
