//! An items page written straight from the stored geometry and attributes into one buffer.
//!
//! Building a `serde_json::Value` tree per feature (a cloned attribute map, a `geojson`
//! position vector per vertex) cost about 6 ms per 100-feature page of parcels; here the
//! features are written by reference, the frame and the coordinates by hand and the
//! attributes through serde. The bytes are the ones the tree gave: serde_json's maps are
//! sorted by key (no `preserve_order`), so every object below writes its keys in sorted
//! order, and numbers get serde_json's digits (the shortest that read back, `null` when not finite).

use crate::state::AppState;
use geo_types::{Coord, Geometry, LineString, Polygon};
use outfall_core::attributes::Properties;
use outfall_core::catalog::Layer;
use serde::ser::Serializer;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// What goes around the features of an items page.
pub(super) struct PageMeta<'a> {
    pub links: &'a [Value],
    pub number_matched: usize,
    pub time_stamp: &'a str,
}

/// The GeoJSON FeatureCollection text of `page` (feature indices into `layer`), its keys in
/// the order a sorted map writes them: `features`, `links`, `numberMatched`,
/// `numberReturned`, `timeStamp`, `type`. The buffer is sized from the page's vertices up
/// front (growing it by doubling cost a copy of most of the page), and handed to the
/// response as it is.
pub(super) fn write_page(st: &AppState, layer: &Layer, page: &[usize], meta: PageMeta) -> Vec<u8> {
    let mut out = Vec::with_capacity(page_capacity(layer, page));
    out.extend_from_slice(b"{\"features\":[");
    for (k, &index) in page.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        FeatureRef { st, layer, index }.write(&mut out);
    }
    out.extend_from_slice(b"],\"links\":");
    json_into(&mut out, &meta.links);
    out.extend_from_slice(b",\"numberMatched\":");
    out.extend_from_slice(itoa::Buffer::new().format(meta.number_matched).as_bytes());
    out.extend_from_slice(b",\"numberReturned\":");
    out.extend_from_slice(itoa::Buffer::new().format(page.len()).as_bytes());
    out.extend_from_slice(b",\"timeStamp\":");
    json_into(&mut out, &meta.time_stamp);
    out.extend_from_slice(b",\"type\":\"FeatureCollection\"}");
    out
}

/// A guess at a page's size that is seldom short: a 7-decimal position takes 25 bytes,
/// and a parcel's attributes and framing well under 1 KB.
fn page_capacity(layer: &Layer, page: &[usize]) -> usize {
    use geo::CoordsIter;
    let coords: usize = page
        .iter()
        .map(|&i| layer.features[i].geometry.coords_count())
        .sum();
    2048 + coords * 28 + page.len() * 1024
}

/// Serializes a value into the buffer. Writing into a Vec cannot fail, and every key here
/// is a string.
fn json_into<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// One feature as `features::feature_json` gives it.
pub(super) struct FeatureRef<'a> {
    pub st: &'a AppState,
    pub layer: &'a Layer,
    pub index: usize,
}

impl FeatureRef<'_> {
    /// `{"geometry":...,"id":...,"properties":...,"type":"Feature"}`.
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        let f = &self.layer.features[self.index];
        let derived = self
            .st
            .presentation()
            .derived_properties(self.layer, self.index);
        out.extend_from_slice(b"{\"geometry\":");
        write_geometry(out, &f.geometry);
        out.extend_from_slice(b",\"id\":");
        json_into(out, &f.id);
        out.extend_from_slice(b",\"properties\":");
        json_into(
            out,
            &MergedProps {
                stored: &f.properties,
                derived: &derived,
            },
        );
        out.extend_from_slice(b",\"type\":\"Feature\"}");
    }
}

/// The stored attributes with the derived ones laid over them, in sorted key order: the
/// stored values are already compact JSON, so the object is written as bytes and handed to
/// serde_json as a raw value.
struct MergedProps<'a> {
    stored: &'a Properties,
    derived: &'a Map<String, Value>,
}

impl Serialize for MergedProps<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut text = Vec::with_capacity(1024);
        self.stored.write_json(self.derived, &mut text);
        let text = String::from_utf8(text).map_err(serde::ser::Error::custom)?;
        RawValue::from_string(text)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }
}

/// A geometry as the `geojson` crate writes it: `{"coordinates": ..., "type": ...}`.
fn write_geometry(out: &mut Vec<u8>, g: &Geometry<f64>) {
    let kind = match g {
        Geometry::Point(p) => {
            out.extend_from_slice(b"{\"coordinates\":");
            write_position(out, p.0);
            "Point"
        }
        Geometry::MultiPoint(mp) => {
            out.extend_from_slice(b"{\"coordinates\":");
            write_list(out, &mp.0, |out, p| write_position(out, p.0));
            "MultiPoint"
        }
        Geometry::LineString(l) => {
            out.extend_from_slice(b"{\"coordinates\":");
            write_line(out, l);
            "LineString"
        }
        Geometry::MultiLineString(ml) => {
            out.extend_from_slice(b"{\"coordinates\":");
            write_list(out, &ml.0, write_line);
            "MultiLineString"
        }
        Geometry::Polygon(p) => {
            out.extend_from_slice(b"{\"coordinates\":");
            write_polygon(out, p);
            "Polygon"
        }
        Geometry::MultiPolygon(mp) => {
            out.extend_from_slice(b"{\"coordinates\":");
            write_list(out, &mp.0, write_polygon);
            "MultiPolygon"
        }
        // Rare in stored layers (collections, rects, triangles, lines): the crate's own
        // conversion, through a sorted `Value` as the tree wrote it.
        other => {
            let value = serde_json::to_value(geojson::Geometry::from(other)).unwrap_or_default();
            json_into(out, &value);
            return;
        }
    };
    out.extend_from_slice(b",\"type\":\"");
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(b"\"}");
}

fn write_list<T>(out: &mut Vec<u8>, items: &[T], mut write: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        write(out, item);
    }
    out.push(b']');
}

fn write_line(out: &mut Vec<u8>, l: &LineString<f64>) {
    write_list(out, &l.0, |out, c| write_position(out, *c));
}

fn write_polygon(out: &mut Vec<u8>, p: &Polygon<f64>) {
    // An empty exterior is `[]`, not `[[]]`, as the geojson crate writes it.
    if p.exterior().0.is_empty() {
        out.extend_from_slice(b"[]");
        return;
    }
    out.push(b'[');
    write_line(out, p.exterior());
    for ring in p.interiors() {
        out.push(b',');
        write_line(out, ring);
    }
    out.push(b']');
}

/// `[x,y]`, each number as serde_json writes an f64; formatted on the stack and copied
/// once when both take the fast path.
fn write_position(out: &mut Vec<u8>, c: Coord<f64>) {
    let mut buf = [0u8; 40];
    buf[0] = b'[';
    if let Some(n) = fast_f64(&mut buf[1..], c.x) {
        let mut len = 1 + n;
        buf[len] = b',';
        len += 1;
        if let Some(m) = fast_f64(&mut buf[len..], c.y) {
            len += m;
            buf[len] = b']';
            out.extend_from_slice(&buf[..=len]);
            return;
        }
    }
    out.push(b'[');
    write_f64(out, c.x);
    out.push(b',');
    write_f64(out, c.y);
    out.push(b']');
}

/// An f64 as serde_json writes it: `null` when not finite, else the shortest digits that
/// read back as the same number, by serde_json's own formatter. Most stored coordinates
/// have at most 7 decimals (a survey's centimetres in degrees): for those the shortest
/// digits are the 7-decimal integer with its zeros trimmed, written without the
/// shortest-digits search (see `fast_f64` for why the digits are the same).
fn write_f64(out: &mut Vec<u8>, v: f64) {
    use serde_json::ser::Formatter;
    let mut buf = [0u8; 16];
    if !v.is_finite() {
        out.extend_from_slice(b"null");
    } else if let Some(n) = fast_f64(&mut buf, v) {
        out.extend_from_slice(&buf[..n]);
    } else {
        let _ = serde_json::ser::CompactFormatter.write_f64(out, v);
    }
}

/// Writes `v` into `buf` (16 bytes are enough) when it is the double nearest a decimal
/// `n / 10^7` with 1e-3 <= |v| < 1e6, and gives the length. The digits are serde_json's:
/// it writes the shortest decimal that reads back as `v`; `n / 10^7` reads back as `v` (the
/// division is correctly rounded), no other decimal with at most 7 decimals does (doubles
/// below 1e6 are under 1.2e-10 apart), and a shorter decimal would be one of those. In that
/// range serde_json writes plain decimals, with `.0` for whole numbers.
fn fast_f64(buf: &mut [u8], v: f64) -> Option<usize> {
    const SCALE: f64 = 1e7;
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        return None;
    }
    // Truncating `+ 0.5` rounds without a libm call; a wrong `n` fails the check below.
    let n = (a * SCALE + 0.5) as u64;
    if n as f64 / SCALE != a {
        return None;
    }
    let (whole, mut frac) = ((n / 10_000_000) as u32, (n % 10_000_000) as u32);
    let mut len = usize::from(v < 0.0);
    buf[0] = b'-';
    let digits = match whole {
        0..=9 => 1,
        10..=99 => 2,
        100..=999 => 3,
        1000..=9999 => 4,
        10_000..=99_999 => 5,
        _ => 6,
    };
    let mut w = whole;
    for d in buf[len..len + digits].iter_mut().rev() {
        *d = b'0' + (w % 10) as u8;
        w /= 10;
    }
    len += digits;
    buf[len] = b'.';
    len += 1;
    if frac == 0 {
        buf[len] = b'0';
        return Some(len + 1);
    }
    let mut width = 7;
    while frac % 10 == 0 {
        frac /= 10;
        width -= 1;
    }
    for d in buf[len..len + width].iter_mut().rev() {
        *d = b'0' + (frac % 10) as u8;
        frac /= 10;
    }
    Some(len + width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use outfall_core::catalog::Catalog;
    use std::path::Path;
    use std::sync::Arc;

    /// Every feature of every demo collection, written by reference, is the same text as
    /// the `Value` tree the single-item route builds (derived site, disturbance, water and
    /// basemap properties included).
    #[test]
    fn written_features_match_the_value_tree_byte_for_byte() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/clay");
        let catalog = Catalog::open(&root).expect("demo data loads");
        let st = AppState::new(Arc::new(catalog), root.join("web"));
        let mut seen = 0;
        for layer in st.catalog.layers.iter() {
            for index in 0..layer.features.len() {
                let tree = crate::features::feature_json(&st, layer, index).to_string();
                let mut written = Vec::new();
                FeatureRef {
                    st: &st,
                    layer,
                    index,
                }
                .write(&mut written);
                let written = String::from_utf8(written).unwrap();
                assert_eq!(written, tree, "{} #{index}", layer.collection_id);
                seen += 1;
            }
        }
        assert!(seen > 100, "only {seen} demo features compared");
    }

    /// The hand-written digits are serde_json's for every kind of value: 7-decimal
    /// coordinates (the fast path), full-precision ones, whole numbers, tiny, huge and
    /// negative values, and the edges of the fast path's range.
    #[test]
    fn numbers_have_serde_json_digits() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.001,
            0.000_999_999_9,
            1e-7,
            999_999.999_999_9,
            1e6,
            -71.501_027_5,
            42.251_492_5,
            42.25,
            0.1,
            0.2 + 0.1,
            1.5e-5,
            123_456.7,
            1e300,
            -76.148_764_3 - 1e-14,
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
        ];
        // A deterministic sweep: 7-decimal lon/lat in the demo's and the anchors' ranges,
        // the same plus a last-place nudge, and numbers of every magnitude.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 3_600_000_000) as f64 - 1_800_000_000.0;
            let v = n / 1e7;
            values.push(v);
            values.push(f64::from_bits(v.to_bits() + 1));
            values.push(f64::from_bits(x >> 2));
        }
        for pair in values.chunks(2) {
            for &v in pair {
                let mut ours = Vec::new();
                write_f64(&mut ours, v);
                let theirs = serde_json::to_string(&v).unwrap();
                assert_eq!(String::from_utf8(ours).unwrap(), theirs, "{v:e}");
            }
            let c = Coord {
                x: pair[0],
                y: *pair.last().unwrap(),
            };
            let mut ours = Vec::new();
            write_position(&mut ours, c);
            let theirs = serde_json::to_string(&[c.x, c.y]).unwrap();
            assert_eq!(String::from_utf8(ours).unwrap(), theirs, "{c:?}");
        }
    }

    #[test]
    fn odd_geometries_are_written_as_the_geojson_crate_writes_them() {
        use geo_types::{line_string, point, polygon, GeometryCollection, MultiPolygon};
        let cases: Vec<Geometry<f64>> = vec![
            point!(x: -76.1, y: 43.2).into(),
            line_string![(x: 0.1, y: 0.2), (x: 1e-9, y: -3.5e20)].into(),
            Polygon::new(LineString::new(vec![]), vec![]).into(),
            MultiPolygon(vec![
                polygon![(x: 0., y: 0.), (x: 1., y: 0.), (x: 1., y: 1.)],
            ])
            .into(),
            Geometry::GeometryCollection(GeometryCollection(vec![point!(x: 1.0, y: 2.0).into()])),
            geo_types::Rect::new((0., 0.), (1., 2.)).into(),
            point!(x: f64::NAN, y: 1.0).into(),
        ];
        for g in &cases {
            let tree = serde_json::to_value(geojson::Geometry::from(g))
                .unwrap()
                .to_string();
            let mut written = Vec::new();
            write_geometry(&mut written, g);
            let written = String::from_utf8(written).unwrap();
            assert_eq!(written, tree, "{g:?}");
        }
    }
}
