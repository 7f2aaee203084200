//! What `outfall validate` says about a storm network: evidence that disagrees, cycles,
//! dangling ends, structures on no pipe, and pipes nothing directs.

use super::direction::Evidence;
use super::pipe_read::PipeRead;
use super::StormNetwork;
use crate::layer::Layer;
use crate::load::LoadProblem;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct StormProblem {
    /// `ids_against_inverts`, `adverse_slope`, `cycle`, `dangling_end`,
    /// `unconnected_structure` or `undecided`.
    pub kind: &'static str,
    /// The layer's file.
    pub path: String,
    /// The pipe's or the structure's id.
    pub feature: String,
    pub reason: String,
}

impl StormProblem {
    pub fn to_load_problem(&self) -> LoadProblem {
        LoadProblem {
            path: self.path.clone(),
            feature: self.feature.clone(),
            reason: format!("storm {}: {}", self.kind, self.reason),
            site: None,
        }
    }
}

pub(super) fn find(net: &StormNetwork, layers: &[Layer], read: &[PipeRead]) -> Vec<StormProblem> {
    let mut out = Vec::new();
    let path = |layer: usize| layers[layer].source.path.clone();
    for (p, r) in net.pipes.iter().zip(read) {
        let mut say = |kind, reason: String| {
            out.push(StormProblem {
                kind,
                path: path(p.layer),
                feature: p.id.clone(),
                reason,
            })
        };
        let inverts = r.up_invert_m.zip(r.down_invert_m);
        match (p.evidence, inverts) {
            (Evidence::Ids, Some((u, d))) if u < d => say(
                "ids_against_inverts",
                format!("its ids run from {} to {}, but its up invert {u} is below its down invert {d}", r.up_id.as_deref().unwrap_or("?"), r.down_id.as_deref().unwrap_or("?")),
            ),
            (Evidence::Inverts, Some((u, d))) if u < d => say(
                "adverse_slope",
                format!("its up invert {u} is below its down invert {d}; the flow is taken downhill, from its last vertex to its first"),
            ),
            (Evidence::Undecided, _) => say(
                "undecided",
                "no ids, no two inverts that differ, and the manifest does not let vertex order decide; traces stop here".into(),
            ),
            _ => {}
        }
        if p.from == p.to {
            say("cycle", "both its ends join the same node".into());
        }
    }
    out.extend(cycles(net, layers));
    out.extend(loose_ends(net, layers));
    out
}

/// Pipes on a cycle: both ends stay after peeling off, again and again, every node no
/// decided pipe enters and every node no decided pipe leaves.
fn cycles(net: &StormNetwork, layers: &[Layer]) -> Vec<StormProblem> {
    let n = net.nodes.len();
    let mut alive = vec![true; n];
    let mut ins: Vec<usize> = net.incoming.iter().map(Vec::len).collect();
    let mut outs: Vec<usize> = net.outgoing.iter().map(Vec::len).collect();
    let mut stack: Vec<usize> = (0..n).filter(|&i| ins[i] == 0 || outs[i] == 0).collect();
    while let Some(v) = stack.pop() {
        if !alive[v] {
            continue;
        }
        alive[v] = false;
        for &p in &net.outgoing[v] {
            let w = net.pipes[p].to;
            ins[w] -= 1;
            if alive[w] && ins[w] == 0 {
                stack.push(w);
            }
        }
        for &p in &net.incoming[v] {
            let w = net.pipes[p].from;
            outs[w] -= 1;
            if alive[w] && outs[w] == 0 {
                stack.push(w);
            }
        }
    }
    net.pipes
        .iter()
        .filter(|p| p.evidence != Evidence::Undecided && p.from != p.to)
        .filter(|p| alive[p.from] && alive[p.to])
        .map(|p| StormProblem {
            kind: "cycle",
            path: layers[p.layer].source.path.clone(),
            feature: p.id.clone(),
            reason: format!(
                "on a cycle of pipes ({} -> {}): water would come back to where it started",
                net.nodes[p.from].id, net.nodes[p.to].id
            ),
        })
        .collect()
}

/// Bare pipe ends that join nothing, and structures no pipe reaches.
fn loose_ends(net: &StormNetwork, layers: &[Layer]) -> Vec<StormProblem> {
    let mut degree = vec![0usize; net.nodes.len()];
    let mut a_pipe = vec![usize::MAX; net.nodes.len()];
    for (i, p) in net.pipes.iter().enumerate() {
        for n in [p.from, p.to] {
            degree[n] += 1;
            a_pipe[n] = i;
        }
    }
    let mut out = Vec::new();
    for (n, node) in net.nodes.iter().enumerate() {
        match (node.structure, degree[n]) {
            (Some(s), 0) => {
                let s = &net.structures[s];
                out.push(StormProblem {
                    kind: "unconnected_structure",
                    path: layers[s.layer].source.path.clone(),
                    feature: s.id.clone(),
                    reason: format!("the {} is on no pipe", s.kind.as_str()),
                });
            }
            (None, 1) => {
                let p = &net.pipes[a_pipe[n]];
                let snap_m = layers[p.layer]
                    .config
                    .storm
                    .as_ref()
                    .map_or(1.0, |c| c.snap_m);
                out.push(StormProblem {
                    kind: "dangling_end",
                    path: layers[p.layer].source.path.clone(),
                    feature: p.id.clone(),
                    reason: format!(
                        "its end at ({:.6}, {:.6}) joins no structure or other pipe within {snap_m} m",
                        node.at[0], node.at[1]
                    ),
                });
            }
            _ => {}
        }
    }
    out
}
