//! Reading a prepared file back in pieces: its header first, then its features a piece at a
//! time (each piece read and decoded on every core), each feature put straight into its place
//! in layer order. The file is never held whole beside the decoded layer: at New York's scale
//! that was gigabytes of peak memory the steady server does not need.

use super::{properties_from_stored, Sidecar, ID_COLUMN, ORDER_COLUMN, PROPERTIES_COLUMN};
use crate::attributes::Keys;
use crate::error::{Error, Result};
use crate::load::fgb as fgbread;
use crate::load::Feature;
use crate::load::IndexEntry;
use flatgeobuf::ColumnType;
use geo::CoordsIter;
use geo_types::{Coord, Geometry, Rect};
use rayon::prelude::*;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Bytes of features read and decoded at once: large enough to keep every core busy, small
/// beside any layer worth caching. The unit tests use small pieces, so that features cross
/// piece boundaries.
#[cfg(not(test))]
const PIECE: usize = 64 << 20;
#[cfg(test)]
const PIECE: usize = 4096;

/// A decoded layer: features in layer order, and the index entry of each that has a
/// coordinate (in file order).
pub(super) type Decoded = (Vec<Feature>, Vec<IndexEntry>);

/// `into.len()` bytes of `file` from `at`, read in 8 MiB parts on every core: one thread
/// copying from the page cache (and faulting in the buffer) was two fifths of a 100k-parcel
/// load.
fn read_at(file: &File, path: &Path, at: u64, into: &mut [u8]) -> Result<()> {
    const PART: usize = 8 << 20;
    into.par_chunks_mut(PART)
        .enumerate()
        .try_for_each(|(i, part)| file.read_exact_at(part, at + (i * PART) as u64))
        .map_err(|e| Error::io(path, e))
}

/// Every feature of the prepared file at `path` (`file_len` bytes, as its sidecar says),
/// decoded and put back in layer order, with its bounding box.
pub(super) fn read_decoded(path: &Path, file_len: u64, side: &Sidecar) -> Result<Decoded> {
    let damaged = |why: String| Error::format(path, format!("prepared cache is damaged: {why}"));
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len != file_len {
        return Err(damaged(format!(
            "{len} bytes where {file_len} were written"
        )));
    }
    let len = usize::try_from(len).map_err(|_| damaged("too large for this machine".into()))?;
    let (parsed, start, count) = read_header(&file, path, len)?;
    let keys = read_keys(path, side)?;
    // Features are kept in file order and moved to their places at the end, and their
    // envelopes become index entries at once: at New York's scale a second copy of the layer
    // in slots was 0.7 GB of fresh pages, and fresh pages are most of a large start.
    let mut features: Vec<Feature> = Vec::with_capacity(count);
    let mut places: Vec<u32> = Vec::with_capacity(count);
    let mut entries: Vec<IndexEntry> = Vec::with_capacity(count);
    let mut taken = vec![false; count];
    let (mut at, mut seen) = (start, 0usize);
    // A piece ends inside a feature; its tail (the first `kept` bytes) starts the next
    // piece. The buffer keeps its length from piece to piece and is read over, so it is
    // zeroed only where it grows, not a piece's worth per piece (5 GB at New York's scale).
    let (mut buf, mut kept): (Vec<u8>, usize) = (Vec::new(), 0);
    while at < len {
        let take = PIECE.min(len - at);
        if buf.len() < kept + take {
            buf.resize(kept + take, 0);
        }
        read_at(&file, path, at as u64, &mut buf[kept..kept + take])?;
        at += take;
        let filled = kept + take;
        let (pieces, whole) = complete_features(&buf[..filled]);
        let decoded: Vec<_> = pieces
            .par_iter()
            .with_min_len(256)
            .map(|f| decode_one(f, &parsed, &keys))
            .collect();
        for one in decoded {
            seen += 1;
            let (place, f, r) = one.map_err(|why| damaged(format!("feature {seen}: {why}")))?;
            match taken.get_mut(place) {
                Some(t @ false) => *t = true,
                _ => {
                    return Err(damaged(format!(
                        "position {place} is out of range or repeated"
                    )))
                }
            }
            entries.extend(r.map(|r| IndexEntry::new(crate::load::rectangle(r), place)));
            features.push(f);
            places.push(place as u32);
        }
        buf.copy_within(whole..filled, 0);
        kept = filled - whole;
    }
    if kept > 0 {
        return Err(damaged(format!("it ends inside feature {}", seen + 1)));
    }
    if seen != count {
        return Err(damaged(format!(
            "the header counts {count} features, the file holds {seen}"
        )));
    }
    // `count` distinct positions below `count`: a permutation.
    move_to_places(&mut features, &mut places);
    Ok((features, entries))
}

/// The prepared file's FlatGeobuf header (its columns checked): the parsed header, where
/// the features start, and how many there are.
fn read_header(
    file: &File,
    path: &Path,
    len: usize,
) -> Result<(fgbread::Parsed<'static>, usize, usize)> {
    let damaged = |why: String| Error::format(path, format!("prepared cache is damaged: {why}"));
    let mut head = vec![0; 12.min(len)];
    read_at(file, path, 0, &mut head)?;
    let head_len = fgbread::header_bytes(&head).min(len);
    head.resize(head_len, 0);
    read_at(file, path, 0, &mut head)?;
    let (parsed, start, count) = fgbread::parse_header(&head, path, len).map_err(|e| match e {
        Error::Format { reason, .. } => damaged(reason),
        other => other,
    })?;
    check_columns(&parsed).map_err(damaged)?;
    Ok((parsed, start, count))
}

/// The sidecar's attribute names as the features' keys.
fn read_keys(path: &Path, side: &Sidecar) -> Result<Keys> {
    // Attributes find their values by binary search over the key list.
    if !side.keys.windows(2).all(|w| w[0] < w[1]) {
        return Err(Error::format(
            path,
            "prepared cache is damaged: the sidecar's attribute names are not sorted",
        ));
    }
    Ok(side.keys.iter().map(|k| k.as_str().into()).collect())
}

/// Moves `items[k]` to position `places[k]` for every k, in place (`places` is a
/// permutation); each swap puts one item where it belongs.
fn move_to_places<T>(items: &mut [T], places: &mut [u32]) {
    for i in 0..items.len() {
        while places[i] as usize != i {
            let j = places[i] as usize;
            items.swap(i, j);
            places.swap(i, j);
        }
    }
}

/// The whole size-prefixed features at the start of `buf`, and the bytes they take (the rest
/// is the start of a feature the next piece completes).
fn complete_features(buf: &[u8]) -> (Vec<&[u8]>, usize) {
    let (mut features, mut at) = (Vec::new(), 0usize);
    while at + 4 <= buf.len() {
        let size = u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]]) as usize;
        let end = (at + 4).saturating_add(size);
        if end > buf.len() {
            break;
        }
        features.push(&buf[at..end]);
        at = end;
    }
    (features, at)
}

/// The file's columns are the cache's three, each of its kind.
fn check_columns(parsed: &fgbread::Parsed) -> std::result::Result<(), String> {
    let expected = [
        (ID_COLUMN, ColumnType::String),
        (ORDER_COLUMN, ColumnType::Long),
        (PROPERTIES_COLUMN, ColumnType::Binary),
    ];
    let found: Vec<(&str, ColumnType)> = parsed
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect();
    if found != expected {
        return Err("its columns are not the cache's".into());
    }
    Ok(())
}

/// One cached feature: its position, id, geometry and attributes.
fn decode_one(
    buf: &[u8],
    parsed: &fgbread::Parsed,
    keys: &Keys,
) -> std::result::Result<(usize, Feature, Option<Rect<f64>>), String> {
    let (geometry, props) = fgbread::decode_feature_raw(buf, parsed)?;
    let bounds = finite_bounds(&geometry).ok_or("a coordinate is not finite")?;
    let [id, order, stored] = columns_of(props)?;
    let id = std::str::from_utf8(id).map_err(|_| "the id is not UTF-8")?;
    let order = u64::from_le_bytes(order.try_into().map_err(|_| "the position is cut short")?);
    let properties = properties_from_stored(keys, stored)?;
    Ok((
        order as usize,
        Feature {
            id: id.to_string(),
            geometry,
            properties,
        },
        bounds,
    ))
}

/// A cached feature's property buffer as its three values' bytes, in column order: the id's
/// text, the position's eight bytes and the stored attributes. Each column appears once, in
/// that order, as the cache writes them.
fn columns_of(buf: &[u8]) -> std::result::Result<[&[u8]; 3], String> {
    let short = || "the properties are cut short".to_string();
    let mut at = 0usize;
    let mut take = |n: usize| -> std::result::Result<&[u8], String> {
        let end = at.checked_add(n).ok_or_else(short)?;
        let s = buf.get(at..end).ok_or_else(short)?;
        at = end;
        Ok(s)
    };
    let mut out: [&[u8]; 3] = [&[]; 3];
    for (column, slot) in out.iter_mut().enumerate() {
        let idx = u16::from_le_bytes(take(2)?.try_into().map_err(|_| short())?);
        if idx as usize != column {
            return Err("the properties are out of column order".into());
        }
        *slot = if column == 1 {
            take(8)?
        } else {
            let n = u32::from_le_bytes(take(4)?.try_into().map_err(|_| short())?);
            take(n as usize)?
        };
    }
    if at != buf.len() {
        return Err("the properties hold more than the cache's columns".into());
    }
    Ok(out)
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

#[cfg(test)]
mod tests {
    use crate::config::Manifest;
    use std::path::Path;

    /// Every item lands at its place, for every permutation of four and a long shuffle.
    #[test]
    fn items_move_to_their_places() {
        let check = |places: Vec<u32>| {
            let mut items: Vec<u32> = places.clone();
            let mut scratch = places.clone();
            super::move_to_places(&mut items, &mut scratch);
            let expected: Vec<u32> = (0..places.len() as u32).collect();
            assert_eq!(items, expected, "places {places:?}");
        };
        for a in 0..4u32 {
            for b in 0..4u32 {
                for c in 0..4u32 {
                    for d in 0..4u32 {
                        let p = vec![a, b, c, d];
                        let mut sorted = p.clone();
                        sorted.sort_unstable();
                        if sorted == [0, 1, 2, 3] {
                            check(p);
                        }
                    }
                }
            }
        }
        // A multiplicative shuffle of 0..10007 (10007 is prime).
        check(
            (0..10_007u64)
                .map(|i| (i * 7_919 % 10_007) as u32)
                .collect(),
        );
    }

    /// The demo's parcels read back in 4 KiB pieces (features cross every boundary) are the
    /// layer loaded from its source: the same features, in the same order, bit for bit,
    /// attributes included.
    #[test]
    fn a_layer_read_in_pieces_is_the_layer() {
        let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/clay");
        let dir = tempfile::tempdir().expect("temp dir");
        for e in std::fs::read_dir(&demo).expect("demo") {
            let e = e.expect("entry");
            let name = e.file_name();
            if e.path().is_file() && !name.to_string_lossy().starts_with("registry.gpkg") {
                std::fs::copy(e.path(), dir.path().join(name)).expect("copy");
            }
        }
        let written = super::super::prepare(dir.path()).expect("prepare");
        let manifest = Manifest::read(dir.path()).expect("manifest");
        let cfg = manifest
            .layers
            .iter()
            .find(|c| c.role.as_str() == "parcels")
            .expect("parcels layer");
        let row = written
            .iter()
            .find(|r| r.role == "parcels")
            .expect("written");
        assert!(row.bytes > 10 * super::PIECE as u64, "{} bytes", row.bytes);
        let share = manifest.max_rejected_share_of(cfg);
        let cached = super::super::read(dir.path(), cfg, share)
            .expect("cache reads")
            .expect("cache is current");
        let source = crate::load::load_layer(dir.path(), cfg, share).expect("source");
        assert_eq!(cached.features.len(), source.features.len());
        for (a, b) in cached.features.iter().zip(&source.features) {
            assert_eq!(a.id, b.id);
            assert_eq!(a.geometry, b.geometry, "{}", a.id);
            assert_eq!(a.properties.stored(), b.properties.stored(), "{}", a.id);
            assert_eq!(a.properties.schema(), b.properties.schema(), "{}", a.id);
        }
    }
}
