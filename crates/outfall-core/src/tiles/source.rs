//! The tile source: one collection's features in one tile, with the properties the other
//! resources serve (`presentation`), read from the layer's R-tree.

use super::cache::CachedTile;
use super::{encode_indexed_layer, TileId, BUFFER_PX, EXTENT};
use crate::presentation::Presentation;
use geo_types::Rect;
use serde_json::{Map, Value};

/// The encoded tile `tid` of collection `id`, empty (no bytes) when it holds no feature or
/// the collection does not exist. CPU work: a server runs it off its async threads.
pub fn collection_tile(p: &Presentation, id: &str, tid: TileId) -> CachedTile {
    let Some(layer) = p.catalog.collection(id) else {
        return CachedTile::new(None);
    };
    let rect = tid.bounds_with_buffer_lonlat(BUFFER_PX, EXTENT);
    let hits: Vec<(usize, Rect<f64>)> = layer.query_envelopes(rect).collect();
    let props: Vec<Map<String, Value>> = hits
        .iter()
        .map(|&(i, _)| p.served_properties(layer, i))
        .collect();
    let encoded = encode_indexed_layer(
        tid,
        id,
        hits.iter()
            .zip(&props)
            .map(|(&(i, b), p)| (i as u64, &layer.features[i].geometry, p, b)),
    );
    CachedTile::new(encoded)
}
