//! The storm-sewer network: structures (inlets, manholes, outfalls, culvert ends) and the
//! pipes between them, built once at load from the `storm_pipes` and `storm_structures`
//! layers. Each pipe's direction comes from the strongest evidence it has, and records
//! which: explicit up/down structure ids, then inverts, then (when the manifest allows)
//! the order of its vertices. A pipe nothing decides is `undecided`, and a trace that meets
//! one says so instead of guessing.

mod build;
mod direction;
mod geojson;
mod junctions;
mod pipe_read;
mod problems;
mod search;
mod trace;

pub use direction::Evidence;
pub use problems::StormProblem;
pub use trace::{Downstream, InletTrace, OutfallReached, PipeStep, StructureRef, Upstream};

use crate::config::StructureKind;
use crate::measure::LocalFrame;

/// A structure point of a `storm_structures` layer.
#[derive(Debug, Clone)]
pub struct Structure {
    pub layer: usize,
    pub feature: usize,
    pub id: String,
    pub kind: StructureKind,
    /// An outfall's named receiving water, when its layer maps one.
    pub receiving_water: Option<String>,
    /// Lon/lat.
    pub at: [f64; 2],
}

/// Where pipes meet: a structure, an id no structure carries, or pipe ends within snapping.
#[derive(Debug, Clone)]
pub struct Node {
    /// The structure id, the pipes' id for it, or `end:LON,LAT` for a bare pipe end.
    pub id: String,
    /// Lon/lat.
    pub at: [f64; 2],
    pub structure: Option<usize>,
}

/// A pipe of a `storm_pipes` layer, from its upstream node to its downstream node. An
/// undecided pipe keeps its vertex order in `from`/`to`, and no trace follows it.
#[derive(Debug, Clone)]
pub struct Pipe {
    pub layer: usize,
    pub feature: usize,
    pub id: String,
    pub from: usize,
    pub to: usize,
    pub evidence: Evidence,
    pub length_m: f64,
}

/// The whole storm network of a data set, with its problems for `outfall validate`.
#[derive(Debug, Clone)]
pub struct StormNetwork {
    pub structures: Vec<Structure>,
    pub nodes: Vec<Node>,
    pub pipes: Vec<Pipe>,
    pub problems: Vec<StormProblem>,
    /// Decided pipes leaving and entering each node; undecided pipes touching it.
    outgoing: Vec<Vec<usize>>,
    incoming: Vec<Vec<usize>>,
    undecided: Vec<Vec<usize>>,
    /// Structure index -> its node.
    structure_node: Vec<usize>,
    frame: LocalFrame,
    /// Structures that take runoff, in metres of `frame`, for the inlet search.
    inlet_index: rstar::RTree<rstar::primitives::GeomWithData<[f64; 2], usize>>,
}

pub use build::build;

impl StormNetwork {
    /// The structure with this id (of a repeated id, the first).
    pub fn structure(&self, id: &str) -> Option<usize> {
        self.structures.iter().position(|s| s.id == id)
    }

    /// The pipe made from this feature of this layer (indices into the catalog's layers).
    /// Pipes are built in layer and feature order, so a binary search finds it.
    pub fn pipe_of(&self, layer: usize, feature: usize) -> Option<&Pipe> {
        let i = self
            .pipes
            .binary_search_by(|p| (p.layer, p.feature).cmp(&(layer, feature)))
            .ok()?;
        Some(&self.pipes[i])
    }

    /// The structure made from this feature of this layer, found as `pipe_of` finds pipes.
    pub fn structure_of(&self, layer: usize, feature: usize) -> Option<&Structure> {
        let i = self
            .structures
            .binary_search_by(|s| (s.layer, s.feature).cmp(&(layer, feature)))
            .ok()?;
        Some(&self.structures[i])
    }

    /// How many pipes each piece of evidence decided, in the order of strength.
    pub fn evidence_counts(&self) -> Vec<(Evidence, usize)> {
        Evidence::ALL
            .iter()
            .map(|&e| (e, self.pipes.iter().filter(|p| p.evidence == e).count()))
            .collect()
    }
}
