//! Following the pipes: downstream from a site's inlets to the outfalls where the water
//! leaves the system, and upstream from an outfall to everything that drains to it. Only
//! decided pipes are followed; an undecided pipe met on the way is named, never guessed.

use super::direction::Evidence;
use super::StormNetwork;
use crate::config::StructureKind;
use serde::Serialize;
use std::collections::{BTreeSet, VecDeque};

/// A pipe on a trace, with the evidence that set its direction.
#[derive(Debug, Clone, Serialize)]
pub struct PipeStep {
    pub id: String,
    pub evidence: Evidence,
    pub length_m: f64,
    /// The upstream and downstream node ids.
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct StructureRef {
    pub id: String,
    pub kind: StructureKind,
    /// Lon/lat.
    pub at: [f64; 2],
}

/// Where a trace leaves the pipes: a node no decided pipe leaves.
#[derive(Debug, Clone, Serialize)]
pub struct OutfallReached {
    pub id: String,
    /// The structure's kind; None for a bare pipe end with no structure.
    pub kind: Option<StructureKind>,
    /// Lon/lat.
    pub at: [f64; 2],
    /// The outfall's named receiving water, when its layer maps one.
    pub receiving_water: Option<String>,
}

/// One inlet's way down: the pipes it reaches, their length, and where they end.
#[derive(Debug, Clone, Serialize)]
pub struct InletTrace {
    pub inlet: String,
    /// Pipe ids, nearest the inlet first.
    pub pipes: Vec<String>,
    pub length_m: f64,
    pub outfalls: Vec<String>,
    /// Undecided pipes that touch this inlet's path: where it goes past them is unknown.
    pub undecided: Vec<String>,
}

/// The downstream trace of a set of inlets.
#[derive(Debug, Clone, Serialize)]
pub struct Downstream {
    pub inlets: Vec<InletTrace>,
    /// Every pipe reached, once.
    pub pipes: Vec<PipeStep>,
    pub outfalls: Vec<OutfallReached>,
    /// Undecided pipes the trace met; when any, the outfalls found may not be all.
    pub undecided: Vec<String>,
}

impl Downstream {
    /// No undecided pipe was met, so the outfalls found are every one the inlets reach.
    pub fn complete(&self) -> bool {
        self.undecided.is_empty()
    }
}

/// Everything that drains to an outfall.
#[derive(Debug, Clone, Serialize)]
pub struct Upstream {
    pub outfall: String,
    pub structures: Vec<StructureRef>,
    pub pipes: Vec<PipeStep>,
    pub length_m: f64,
    /// Undecided pipes at the edge of the network found: more may drain through them.
    pub undecided: Vec<String>,
}

/// Pipes reached from `start` (breadth first), nodes where they end, undecided pipes met.
struct Walk {
    pipes: Vec<usize>,
    ends: Vec<usize>,
    undecided: BTreeSet<usize>,
}

impl StormNetwork {
    fn walk(&self, start: usize, downstream: bool) -> Walk {
        let mut seen = vec![false; self.nodes.len()];
        let mut w = Walk {
            pipes: Vec::new(),
            ends: Vec::new(),
            undecided: BTreeSet::new(),
        };
        let mut queue = VecDeque::from([start]);
        seen[start] = true;
        while let Some(v) = queue.pop_front() {
            w.undecided.extend(self.undecided[v].iter().copied());
            let next = if downstream {
                &self.outgoing[v]
            } else {
                &self.incoming[v]
            };
            // A structure on no pipe at all is not where water leaves the pipes.
            if next.is_empty() && self.undecided[v].is_empty() && self.on_a_pipe(v) {
                w.ends.push(v);
            }
            for &p in next {
                w.pipes.push(p);
                let n = if downstream {
                    self.pipes[p].to
                } else {
                    self.pipes[p].from
                };
                if !seen[n] {
                    seen[n] = true;
                    queue.push_back(n);
                }
            }
        }
        w
    }

    /// The trace from these structures (indices into `structures`) down to the outfalls.
    pub fn downstream(&self, inlets: &[usize]) -> Downstream {
        let mut out = Downstream {
            inlets: Vec::new(),
            pipes: Vec::new(),
            outfalls: Vec::new(),
            undecided: Vec::new(),
        };
        let (mut pipes, mut ends, mut undecided) = (BTreeSet::new(), Vec::new(), BTreeSet::new());
        for &s in inlets {
            let w = self.walk(self.structure_node[s], true);
            out.inlets.push(InletTrace {
                inlet: self.structures[s].id.clone(),
                pipes: w.pipes.iter().map(|&p| self.pipes[p].id.clone()).collect(),
                length_m: round1(w.pipes.iter().map(|&p| self.pipes[p].length_m).sum()),
                outfalls: w.ends.iter().map(|&n| self.nodes[n].id.clone()).collect(),
                undecided: w
                    .undecided
                    .iter()
                    .map(|&p| self.pipes[p].id.clone())
                    .collect(),
            });
            for &p in &w.pipes {
                if pipes.insert(p) {
                    out.pipes.push(self.step(p));
                }
            }
            for n in w.ends {
                if !ends.contains(&n) {
                    ends.push(n);
                }
            }
            undecided.extend(w.undecided);
        }
        out.outfalls = ends.iter().map(|&n| self.reached(n)).collect();
        out.undecided = undecided
            .iter()
            .map(|&p| self.pipes[p].id.clone())
            .collect();
        out
    }

    /// Everything upstream of the node with this id (an outfall's structure id, or any
    /// node's), or None when no node has it.
    pub fn upstream(&self, id: &str) -> Option<Upstream> {
        let start = self.nodes.iter().position(|n| n.id == id)?;
        let w = self.walk(start, false);
        let mut nodes = BTreeSet::from([start]);
        nodes.extend(w.pipes.iter().map(|&p| self.pipes[p].from));
        let structures = nodes
            .iter()
            .filter_map(|&n| self.nodes[n].structure)
            .map(|s| {
                let s = &self.structures[s];
                StructureRef {
                    id: s.id.clone(),
                    kind: s.kind,
                    at: s.at,
                }
            })
            .collect();
        Some(Upstream {
            outfall: id.to_string(),
            structures,
            length_m: round1(w.pipes.iter().map(|&p| self.pipes[p].length_m).sum()),
            pipes: w.pipes.iter().map(|&p| self.step(p)).collect(),
            undecided: w
                .undecided
                .iter()
                .map(|&p| self.pipes[p].id.clone())
                .collect(),
        })
    }

    pub(super) fn on_a_pipe(&self, node: usize) -> bool {
        !(self.outgoing[node].is_empty()
            && self.incoming[node].is_empty()
            && self.undecided[node].is_empty())
    }

    fn step(&self, p: usize) -> PipeStep {
        let pipe = &self.pipes[p];
        PipeStep {
            id: pipe.id.clone(),
            evidence: pipe.evidence,
            length_m: round1(pipe.length_m),
            from: self.nodes[pipe.from].id.clone(),
            to: self.nodes[pipe.to].id.clone(),
        }
    }

    fn reached(&self, n: usize) -> OutfallReached {
        let node = &self.nodes[n];
        let s = node.structure.map(|s| &self.structures[s]);
        OutfallReached {
            id: node.id.clone(),
            kind: s.map(|s| s.kind),
            at: node.at,
            receiving_water: s.and_then(|s| s.receiving_water.clone()),
        }
    }

    /// The pipe with this index: its (layer, feature) for drawing it.
    pub fn pipe_feature(&self, id: &str) -> Option<(usize, usize)> {
        self.pipes
            .iter()
            .find(|p| p.id == id)
            .map(|p| (p.layer, p.feature))
    }
}

/// To 0.1 m; an empty sum (-0.0) reads 0.
fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0 + 0.0
}
