//! Building the network from the storm layers: structures become nodes, each pipe's ends
//! are placed on nodes (by id, else by snapping), and its direction is decided.

use super::direction::{by_inverts, Evidence};
use super::junctions::{Junctions, Metres};
use super::pipe_read::PipeRead;
use super::{problems, Pipe, StormNetwork, Structure};
use crate::config::{Role, StormConfig, StructureKind};
use crate::error::{Error, Result};
use crate::layer::Layer;
use crate::measure::LocalFrame;
use geo::BoundingRect;
use geo_types::{Geometry, LineString};
use rstar::primitives::GeomWithData;

/// The storm network of the loaded layers, or None when no storm pipes are loaded.
pub fn build(layers: &[Layer]) -> Result<Option<StormNetwork>> {
    let storm = |l: &&Layer| matches!(l.config.role, Role::StormPipes | Role::StormStructures);
    if !layers.iter().any(|l| l.config.role == Role::StormPipes) {
        return Ok(None);
    }
    for l in layers.iter().filter(storm) {
        check_columns(l)?;
    }
    let frame = frame_over(layers.iter().filter(storm));
    let structures = read_structures(layers);
    let (mut j, structure_node) = Junctions::new(frame, &structures);
    let mut pipes = Vec::new();
    let mut placed = Vec::new();
    for (li, l) in layers.iter().enumerate() {
        if l.config.role != Role::StormPipes {
            continue;
        }
        let cfg = l.config.storm.clone().unwrap_or_default();
        for (fi, f) in l.features.iter().enumerate() {
            let Some(line) = line_of(&f.geometry) else {
                continue;
            };
            let read = PipeRead::of(&cfg, f, &line);
            let (from, to, evidence) = place(&mut j, &cfg, &read);
            pipes.push(Pipe {
                layer: li,
                feature: fi,
                id: f.id.clone(),
                from,
                to,
                evidence,
                length_m: length_m(&frame, &line),
            });
            placed.push(read);
        }
    }
    let inlets = structures
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind.takes_runoff())
        .map(|(i, s)| GeomWithData::new(frame.m(s.at), i))
        .collect();
    let mut net = StormNetwork {
        outgoing: vec![Vec::new(); j.nodes.len()],
        incoming: vec![Vec::new(); j.nodes.len()],
        undecided: vec![Vec::new(); j.nodes.len()],
        structures,
        nodes: j.nodes,
        pipes,
        problems: Vec::new(),
        structure_node,
        frame,
        inlet_index: rstar::RTree::bulk_load(inlets),
    };
    for (i, p) in net.pipes.iter().enumerate() {
        if p.from == p.to {
            continue;
        }
        if p.evidence == Evidence::Undecided {
            net.undecided[p.from].push(i);
            net.undecided[p.to].push(i);
        } else {
            net.outgoing[p.from].push(i);
            net.incoming[p.to].push(i);
        }
    }
    net.problems = problems::find(&net, layers, &placed);
    Ok(Some(net))
}

/// The pipe's upstream node, downstream node and the evidence that ordered them.
fn place(j: &mut Junctions, cfg: &StormConfig, r: &PipeRead) -> (usize, usize, Evidence) {
    let su = r.up_id.as_deref().and_then(|id| j.structure(id));
    let sd = r.down_id.as_deref().and_then(|id| j.structure(id));
    let at = |j: &Junctions, n: usize| j.nodes[n].at;
    let nearer_first =
        |j: &Junctions, n: usize| j.distance_m(at(j, n), r.first) <= j.distance_m(at(j, n), r.last);
    if let (Some(u), Some(d)) = (&r.up_id, &r.down_id) {
        // Which geometric end each id sits at only places a node made for an id no
        // structure carries; the direction is the ids' either way.
        let up_first = match (su, sd) {
            (Some(a), Some(b)) => {
                let (a, b) = (at(j, a), at(j, b));
                j.distance_m(a, r.first) + j.distance_m(b, r.last)
                    <= j.distance_m(a, r.last) + j.distance_m(b, r.first)
            }
            (Some(a), None) => nearer_first(j, a),
            (None, Some(b)) => !nearer_first(j, b),
            (None, None) => true,
        };
        let (ua, da) = if up_first {
            (r.first, r.last)
        } else {
            (r.last, r.first)
        };
        return (j.named(u, ua), j.named(d, da), Evidence::Ids);
    }
    if let Some(n) = su {
        let other = if nearer_first(j, n) { r.last } else { r.first };
        return (n, j.snap(other, cfg.snap_m), Evidence::Ids);
    }
    if let Some(n) = sd {
        let other = if nearer_first(j, n) { r.last } else { r.first };
        return (j.snap(other, cfg.snap_m), n, Evidence::Ids);
    }
    let a = j.snap(r.first, cfg.snap_m);
    let b = j.snap(r.last, cfg.snap_m);
    match by_inverts(r.up_invert_m, r.down_invert_m) {
        Some(true) => (a, b, Evidence::Inverts),
        Some(false) => (b, a, Evidence::Inverts),
        None if cfg.vertex_order => (a, b, Evidence::VertexOrder),
        None => (a, b, Evidence::Undecided),
    }
}

/// Every structure point of every `storm_structures` layer, typed through its value map.
fn read_structures(layers: &[Layer]) -> Vec<Structure> {
    let mut out = Vec::new();
    for (li, l) in layers.iter().enumerate() {
        if l.config.role != Role::StormStructures {
            continue;
        }
        let cfg = l.config.storm.clone().unwrap_or_default();
        for (fi, f) in l.features.iter().enumerate() {
            let Some(p) = point_of(&f.geometry) else {
                continue;
            };
            let typed = cfg
                .type_field
                .as_deref()
                .and_then(|c| f.properties.text(c))
                .and_then(|v| kind_of(&cfg, &v));
            out.push(Structure {
                layer: li,
                feature: fi,
                id: f.id.clone(),
                kind: typed.or(cfg.kind).unwrap_or(StructureKind::Other),
                receiving_water: cfg
                    .receiving_water_field
                    .as_deref()
                    .and_then(|c| f.properties.text(c)),
                at: p,
            });
        }
    }
    out
}

/// A type value through the map, also as a number ("2.0" is "2").
fn kind_of(cfg: &StormConfig, value: &str) -> Option<StructureKind> {
    let v = value.trim();
    cfg.type_values.get(v).copied().or_else(|| {
        let x = v.parse::<f64>().ok()?;
        cfg.type_values
            .iter()
            .find(|(k, _)| k.trim().parse::<f64>().ok() == Some(x))
            .map(|(_, kind)| *kind)
    })
}

/// A column the storm table names must be one of the file's.
fn check_columns(l: &Layer) -> Result<()> {
    let (Some(cfg), Some(f)) = (&l.config.storm, l.features.first()) else {
        return Ok(());
    };
    let keys = f.properties.schema();
    for (key, column) in cfg.columns() {
        if !keys.iter().any(|k| &**k == column) {
            return Err(Error::MissingField {
                path: l.source.path.clone().into(),
                role: l.config.role.as_str().into(),
                key: format!("storm.{key}"),
                field: column.to_string(),
                available: keys.iter().map(|k| &**k).collect::<Vec<_>>().join(", "),
            });
        }
    }
    Ok(())
}

fn frame_over<'a>(layers: impl Iterator<Item = &'a Layer>) -> LocalFrame {
    let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
    for r in layers.filter_map(Layer::bbox) {
        lo = [lo[0].min(r.min().x), lo[1].min(r.min().y)];
        hi = [hi[0].max(r.max().x), hi[1].max(r.max().y)];
    }
    if lo[0] > hi[0] {
        return LocalFrame::around(0.0, 0.0);
    }
    LocalFrame::around((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0)
}

/// A pipe's line: a LineString, or a MultiLineString's parts end to end.
fn line_of(g: &Geometry<f64>) -> Option<LineString<f64>> {
    let line = match g {
        Geometry::LineString(l) => l.clone(),
        Geometry::MultiLineString(m) => LineString(m.0.iter().flat_map(|l| l.0.clone()).collect()),
        _ => return None,
    };
    (line.0.len() >= 2).then_some(line)
}

fn point_of(g: &Geometry<f64>) -> Option<[f64; 2]> {
    match g {
        Geometry::Point(p) => Some([p.x(), p.y()]),
        Geometry::MultiPoint(m) => m.0.first().map(|p| [p.x(), p.y()]),
        other => other.bounding_rect().map(|r| {
            let c = r.center();
            [c.x, c.y]
        }),
    }
}

fn length_m(frame: &LocalFrame, line: &LineString<f64>) -> f64 {
    line.0
        .windows(2)
        .map(|w| {
            let (a, b) = (frame.m([w[0].x, w[0].y]), frame.m([w[1].x, w[1].y]));
            super::junctions::dist2(a, b).sqrt()
        })
        .sum()
}
