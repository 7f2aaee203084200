//! Reading a prepared file back: its bytes on every core, then each feature decoded and put
//! back in layer order.

use super::columns::{column_type, CachedColumn};
use super::Sidecar;
use crate::attributes::Properties;
use crate::error::{Error, Result};
use crate::load::fgb as fgbread;
use crate::load::Feature;
use flatgeobuf::ColumnType;
use geo::CoordsIter;
use geo_types::{Coord, Geometry, Rect};
use rayon::prelude::*;
use serde_json::Value;
use std::path::Path;

/// A whole file, read in 8 MiB pieces on every core: one thread copying from the page cache
/// (and faulting in the buffer) was two fifths of a 100k-parcel cache load.
pub(super) fn read_parallel(path: &Path) -> Result<Vec<u8>> {
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
pub(super) type Decoded = (Vec<Feature>, Vec<Option<Rect<f64>>>);

/// Every feature of a prepared file, decoded on every core and put back in layer order, with
/// its bounding box found while its coordinates are at hand.
pub(super) fn decode(bytes: &[u8], path: &Path, side: &Sidecar) -> Result<Decoded> {
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
