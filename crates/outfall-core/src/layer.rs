//! One loaded layer: its features, an R-tree of their envelopes and an id lookup; and an
//! impaired-waters list that is a table. Built once at load, read by every request.

use crate::config::LayerConfig;
pub use crate::load::IndexEntry;
use crate::load::{self, rectangle, Feature, LoadProblem, Row, SourceInfo};
use geo::BoundingRect;
use geo_types::{Geometry, Rect};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};
use std::collections::HashMap;
use std::sync::Arc;

/// One geometry layer with its R-tree of feature envelopes. Its features, index and id order
/// are shared by its clones: a registry's snapshot is a copy of the catalog made after every
/// write, and a copy of a state's parcels would double the memory and take seconds.
#[derive(Debug, Clone)]
pub struct Layer {
    pub config: LayerConfig,
    /// The OGC API collection id: the role, or `role-2`... when several layers share a role.
    pub collection_id: String,
    pub source: SourceInfo,
    pub features: Arc<Vec<Feature>>,
    pub problems: Vec<LoadProblem>,
    pub index: Arc<RTree<IndexEntry>>,
    /// How the layer was made when its features are not a file's own (the listed waters of
    /// a 303(d) table), for the collection's description.
    pub derived: Option<String>,
    /// Feature indices sorted by id, then by position.
    by_id: Arc<Vec<u32>>,
}

impl Layer {
    pub fn new(config: LayerConfig, collection_id: String, loaded: load::LoadedLayer) -> Layer {
        let mut problems = loaded.problems;
        let features = &loaded.features;
        let hints = loaded.hints;
        // Feature indices sorted by id (then position), rather than a map holding a second
        // copy of every id. The id order and the R-tree are independent: built side by side,
        // each on a core (together over half of loading a 100k-parcel cache), or taken from
        // the reader when it knows them (the prepared cache), the order after a check.
        let (by_id, index) = rayon::join(
            || match hints.by_id {
                Some(order) if is_id_order(features, &order) => order,
                _ => id_order(features),
            },
            || {
                use rayon::prelude::*;
                let entries: Vec<IndexEntry> = match hints.entries {
                    Some(entries)
                        if entries.len() <= features.len()
                            && entries.iter().all(|e| e.data < features.len()) =>
                    {
                        entries
                    }
                    _ => features
                        .par_iter()
                        .enumerate()
                        .filter_map(|(i, f)| envelope(&f.geometry).map(|r| GeomWithData::new(r, i)))
                        .collect(),
                };
                RTree::bulk_load(entries)
            },
        );
        let mut repeated: Vec<usize> = by_id
            .windows(2)
            .filter(|w| features[w[0] as usize].id == features[w[1] as usize].id)
            .map(|w| w[1] as usize)
            .collect();
        repeated.sort_unstable();
        for i in repeated {
            problems.push(LoadProblem {
                path: loaded.source.path.clone(),
                feature: features[i].id.clone(),
                reason: "duplicate id; lookups by id return the last one".into(),
                site: None,
            });
        }
        Layer {
            config,
            collection_id,
            source: loaded.source,
            features: Arc::new(loaded.features),
            problems,
            index: Arc::new(index),
            derived: None,
            by_id: Arc::new(by_id),
        }
    }

    pub fn get(&self, id: &str) -> Option<&Feature> {
        self.position(id).map(|i| &self.features[i])
    }

    /// The feature with this id; of repeated ids, the last.
    pub fn position(&self, id: &str) -> Option<usize> {
        let end = self
            .by_id
            .partition_point(|&i| self.features[i as usize].id.as_str() <= id);
        let i = *self.by_id.get(end.checked_sub(1)?)? as usize;
        (self.features[i].id == id).then_some(i)
    }

    /// Indices of features whose envelope meets `rect` (lon/lat degrees).
    pub fn query(&self, rect: Rect<f64>) -> impl Iterator<Item = usize> + '_ {
        let aabb = AABB::from_corners([rect.min().x, rect.min().y], [rect.max().x, rect.max().y]);
        self.index
            .locate_in_envelope_intersecting(&aabb)
            .map(|e| e.data)
    }

    /// Like [`Layer::query`], with each feature's envelope as the index holds it (so a
    /// caller testing the envelope reads no vertex).
    pub fn query_envelopes(
        &self,
        rect: Rect<f64>,
    ) -> impl Iterator<Item = (usize, Rect<f64>)> + '_ {
        let aabb = AABB::from_corners([rect.min().x, rect.min().y], [rect.max().x, rect.max().y]);
        self.index.locate_in_envelope_intersecting(&aabb).map(|e| {
            let (lo, hi) = (e.geom().lower(), e.geom().upper());
            let r = Rect::new(
                geo_types::coord! { x: lo[0], y: lo[1] },
                geo_types::coord! { x: hi[0], y: hi[1] },
            );
            (e.data, r)
        })
    }

    pub fn name_of(&self, f: &Feature) -> Option<String> {
        self.config
            .name_field
            .as_deref()
            .and_then(|n| f.properties.text(n))
    }

    pub fn text(&self, f: &Feature, field: Option<&str>) -> Option<String> {
        field.and_then(|n| f.properties.text(n))
    }

    pub fn bbox(&self) -> Option<Rect<f64>> {
        let env = self.index.root().envelope();
        (self.index.size() > 0).then(|| {
            Rect::new(
                geo_types::coord! { x: env.lower()[0], y: env.lower()[1] },
                geo_types::coord! { x: env.upper()[0], y: env.upper()[1] },
            )
        })
    }
}

fn envelope(g: &Geometry<f64>) -> Option<Rectangle<[f64; 2]>> {
    g.bounding_rect().map(rectangle)
}

/// Feature positions sorted by id, then position (on every core).
pub fn id_order(features: &[Feature]) -> Vec<u32> {
    use rayon::slice::ParallelSliceMut;
    let mut by_id: Vec<u32> = (0..features.len() as u32).collect();
    // (id, position) keys are distinct, so an unstable sort gives the stable order.
    by_id.par_sort_unstable_by(|&a, &b| {
        features[a as usize]
            .id
            .cmp(&features[b as usize].id)
            .then(a.cmp(&b))
    });
    by_id
}

/// `order` is [`id_order`] of `features`: strictly increasing (id, position) pairs, as many
/// as features, every position in range (so each appears once).
fn is_id_order(features: &[Feature], order: &[u32]) -> bool {
    order.len() == features.len()
        && order.iter().all(|&i| (i as usize) < features.len())
        && order.windows(2).all(|w| {
            let (a, b) = (w[0] as usize, w[1] as usize);
            (features[a].id.as_str(), a) < (features[b].id.as_str(), b)
        })
}

/// An impaired-waters list without geometry, grouped by its key.
#[derive(Debug, Clone)]
pub struct ImpairedTable {
    pub config: LayerConfig,
    pub source: SourceInfo,
    pub rows: HashMap<String, Vec<Row>>,
}
