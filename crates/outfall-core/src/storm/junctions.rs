//! Placing pipe ends on nodes: a structure by id, else the nearest structure within the
//! snapping distance, else another bare pipe end within it, else a new bare end. Distances
//! are metres in one local frame over the network.

use super::{Node, Structure};
use crate::measure::LocalFrame;
use geo_types::Coord;
use rstar::primitives::GeomWithData;
use rstar::RTree;
use std::collections::HashMap;

type Entry = GeomWithData<[f64; 2], usize>;

pub(super) struct Junctions {
    pub frame: LocalFrame,
    pub nodes: Vec<Node>,
    /// Node by id: every structure's, and ids the pipes name that no structure carries.
    by_id: HashMap<String, usize>,
    structures: RTree<Entry>,
    bare: RTree<Entry>,
}

impl Junctions {
    /// One node per structure (a repeated id keeps its first point).
    pub fn new(frame: LocalFrame, structures: &[Structure]) -> (Junctions, Vec<usize>) {
        let mut j = Junctions {
            frame,
            nodes: Vec::new(),
            by_id: HashMap::new(),
            structures: RTree::new(),
            bare: RTree::new(),
        };
        let mut structure_node = Vec::with_capacity(structures.len());
        let mut entries = Vec::new();
        for (i, s) in structures.iter().enumerate() {
            let n = *j.by_id.entry(s.id.clone()).or_insert_with(|| {
                j.nodes.push(Node {
                    id: s.id.clone(),
                    at: s.at,
                    structure: Some(i),
                });
                entries.push(GeomWithData::new(j.frame.m(s.at), j.nodes.len() - 1));
                j.nodes.len() - 1
            });
            structure_node.push(n);
        }
        j.structures = RTree::bulk_load(entries);
        (j, structure_node)
    }

    /// The node of a structure id, if a structure carries it.
    pub fn structure(&self, id: &str) -> Option<usize> {
        self.by_id
            .get(id)
            .copied()
            .filter(|&n| self.nodes[n].structure.is_some())
    }

    /// The node of an id the pipes name: its structure's, or one made at `at` the first time.
    pub fn named(&mut self, id: &str, at: [f64; 2]) -> usize {
        if let Some(&n) = self.by_id.get(id) {
            return n;
        }
        self.nodes.push(Node {
            id: id.to_string(),
            at,
            structure: None,
        });
        self.by_id.insert(id.to_string(), self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    /// The node a bare pipe end at `at` (lon/lat) joins within `snap_m`.
    pub fn snap(&mut self, at: [f64; 2], snap_m: f64) -> usize {
        let p = self.frame.m(at);
        let d2 = snap_m * snap_m;
        let near = |t: &RTree<Entry>| {
            t.nearest_neighbor(&p)
                .filter(|e| dist2(*e.geom(), p) <= d2)
                .map(|e| e.data)
        };
        if let Some(n) = near(&self.structures).or_else(|| near(&self.bare)) {
            return n;
        }
        self.nodes.push(Node {
            id: format!("end:{:.6},{:.6}", at[0], at[1]),
            at,
            structure: None,
        });
        let n = self.nodes.len() - 1;
        self.bare.insert(GeomWithData::new(p, n));
        n
    }

    /// Metres between two lon/lat points.
    pub fn distance_m(&self, a: [f64; 2], b: [f64; 2]) -> f64 {
        dist2(self.frame.m(a), self.frame.m(b)).sqrt()
    }
}

pub(super) fn dist2(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}

/// A lon/lat point in the frame's metres, as an R-tree point.
pub(super) trait Metres {
    fn m(&self, at: [f64; 2]) -> [f64; 2];
}

impl Metres for LocalFrame {
    fn m(&self, at: [f64; 2]) -> [f64; 2] {
        let c = self.to_m(Coord { x: at[0], y: at[1] });
        [c.x, c.y]
    }
}
