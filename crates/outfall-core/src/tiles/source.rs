//! The tile source: one collection's features in one tile, with the properties the other
//! resources serve, read from the layer's R-tree. A layer that is not a site's own is
//! presented from the catalog (`layer_properties`); the sites and their disturbance take
//! their properties from the caller, who holds the reports.

use super::cache::CachedTile;
use super::{encode_indexed_layer, TileId, BUFFER_PX, EXTENT};
use crate::catalog::{Catalog, Layer};
use crate::layer_properties::{reads_reports, served_properties};
use geo_types::Rect;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// A site layer's served properties of one feature (layer, feature index): what the
/// caller, who holds the sites' reports, presents.
pub type SiteProperties<'a> = &'a dyn Fn(&Layer, usize) -> Map<String, Value>;

/// The encoded tile `tid` of collection `id`, empty (no bytes) when it holds no feature or
/// the collection does not exist. `sites` gives the properties of the features of a layer
/// that [`reads_reports`]. CPU work: a server runs it off its async threads.
pub fn collection_tile(
    catalog: &Catalog,
    sites: SiteProperties,
    id: &str,
    tid: TileId,
) -> CachedTile {
    let Some(layer) = catalog.collection(id) else {
        return CachedTile::new(None);
    };
    let rect = tid.bounds_with_buffer_lonlat(BUFFER_PX, EXTENT);
    let hits: Vec<(usize, Rect<f64>)> = layer.query_envelopes(rect).collect();
    let from_reports = reads_reports(layer.config.role);
    let props: Vec<Map<String, Value>> = hits
        .iter()
        .map(|&(i, _)| {
            if from_reports {
                sites(layer, i)
            } else {
                served_properties(catalog, layer, i)
            }
        })
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

/// The collections of `new` whose tiles, encoded from `old`, are still right, so that a new
/// registry snapshot keeps them rather than encoding a state's parcels again after every
/// edit: the layer is the same allocation in both (shared, not rebuilt), and what its tiles
/// present did not change. Never the sites or their disturbance (presented from the sites'
/// reports), and nothing while the stream or storm network (which the waters' and pipes'
/// properties come from) is not the same one.
pub fn unchanged_collections<'a>(old: &Catalog, new: &'a Catalog) -> HashSet<&'a str> {
    fn same<T>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
    if !same(&old.hydro, &new.hydro) || !same(&old.storm, &new.storm) {
        return HashSet::new();
    }
    new.layers
        .iter()
        .filter(|l| !reads_reports(l.config.role))
        .filter(|l| {
            old.collection(&l.collection_id)
                .is_some_and(|o| Arc::ptr_eq(&o.features, &l.features))
        })
        .map(|l| l.collection_id.as_str())
        .collect()
}
