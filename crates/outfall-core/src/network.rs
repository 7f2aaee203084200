//! Flow network of stream reaches and the downstream trace.
//!
//! A [`Network`] is built once from flowlines (WGS84 lon/lat `LineString`s digitized in flow
//! direction) and, when present, NHDPlus network attributes:
//!
//! 1. `Hydroseq` / `DnHydroseq` (+ `DnMinorHyd`) when every reach has both `Hydroseq` and
//!    `DnHydroseq` ([`BuildMode::Hydroseq`]);
//! 2. else `FromNode` / `ToNode` when every reach has both ([`BuildMode::Nodes`]);
//! 3. else geometry: a reach's last vertex snaps to the first vertex of other reaches
//!    ([`BuildMode::Geometry`], see [`Network::from_geometry`]).
//!
//! The downstream adjacency lists the main branch first. [`Network::trace`] follows main
//! branches from a start reach, reports every divergence it passes, and never loops: a reach met
//! twice ends the trace with [`TraceEnd::Cycle`].
//!
//! Pure and synchronous: no I/O. Lengths are geodesic metres on WGS84 (`geo::Geodesic`).

mod geometry;
mod trace;

use std::collections::HashMap;

use geo::{Geodesic, Length};
use geo_types::LineString;

pub use geometry::DEFAULT_SNAP_TOLERANCE_M;
pub use trace::{
    display_names, step_names, Divergence, Step, StepName, Trace, TraceEnd, UNNAMED_TRIBUTARY,
};

/// One stream reach (flowline).
#[derive(Debug, Clone, PartialEq)]
pub struct Reach {
    pub id: String,
    /// `None` when unnamed (NHDPlus writes `GNIS_NAME` = `" "`; use [`clean_name`]).
    pub name: Option<String>,
    /// WGS84 lon/lat, digitized downstream (first vertex upstream, last vertex downstream).
    pub line: LineString<f64>,
}

/// NHDPlus network attributes of one reach, as read from the source (0 is kept as `Some(0)`;
/// [`Network::build`] treats `DnHydroseq` / `DnMinorHyd` = 0 as "none").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetworkAttrs {
    pub from_node: Option<i64>,
    pub to_node: Option<i64>,
    pub hydroseq: Option<i64>,
    pub dn_hydroseq: Option<i64>,
    pub dn_minor_hyd: Option<i64>,
}

impl NetworkAttrs {
    /// Reads `FromNode`, `ToNode`, `Hydroseq`, `DnHydroseq`, `DnMinorHyd` (names matched
    /// case-insensitively) from GeoJSON properties. Values may be integers, floats with no
    /// fraction (NHDPlus GeoJSON writes `250031721.0`) or numeric strings; anything else is `None`.
    pub fn from_properties(props: &geojson::JsonObject) -> NetworkAttrs {
        let get = |key: &str| {
            props
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .and_then(|(_, v)| json_i64(v))
        };
        NetworkAttrs {
            from_node: get("FromNode"),
            to_node: get("ToNode"),
            hydroseq: get("Hydroseq"),
            dn_hydroseq: get("DnHydroseq"),
            dn_minor_hyd: get("DnMinorHyd"),
        }
    }
}

fn json_i64(v: &serde_json::Value) -> Option<i64> {
    let f = match v {
        serde_json::Value::Number(n) => n.as_i64().map(|i| i as f64).or_else(|| n.as_f64())?,
        serde_json::Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
}

/// Trims a source name; empty or blank (NHDPlus `" "`) becomes `None`.
pub fn clean_name(raw: Option<&str>) -> Option<String> {
    raw.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// How the downstream links were made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BuildMode {
    /// `Hydroseq` == upstream `DnHydroseq` (main) / `DnMinorHyd` (minor); further minor branches
    /// from `FromNode` == upstream `ToNode` when the nodes are known.
    Hydroseq,
    /// `FromNode` == upstream `ToNode`.
    Nodes,
    /// End vertex within `snap_tolerance_m` of a start vertex (or, failing that, of the interior
    /// of another reach).
    Geometry { snap_tolerance_m: f64 },
}

/// A downstream link from one reach to another.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// Index of the downstream reach.
    pub reach: usize,
    /// Where the flow enters that reach, in metres along it from its start: 0 except for a
    /// tributary that joins the interior of a reach (geometry mode only).
    pub entry_m: f64,
}

impl Link {
    fn to(reach: usize) -> Link {
        Link {
            reach,
            entry_m: 0.0,
        }
    }
}

/// Reaches, their geodesic lengths and the downstream adjacency (main branch first).
#[derive(Debug, Clone)]
pub struct Network {
    reaches: Vec<Reach>,
    length_m: Vec<f64>,
    downstream: Vec<Vec<Link>>,
    mode: BuildMode,
}

impl Network {
    /// Builds the network from attributes when they are complete, else from geometry.
    ///
    /// `attrs`, when given, must have one entry per reach (same order); otherwise it is ignored.
    /// Uses `Hydroseq`/`DnHydroseq` (+ `DnMinorHyd`) when every reach has `Hydroseq` and
    /// `DnHydroseq`, else `FromNode`/`ToNode` when every reach has both, else geometry with
    /// `snap_tolerance_m`.
    pub fn build(
        reaches: Vec<Reach>,
        attrs: Option<Vec<NetworkAttrs>>,
        snap_tolerance_m: f64,
    ) -> Network {
        let attrs = attrs.filter(|a| a.len() == reaches.len() && !a.is_empty());
        match attrs {
            Some(a)
                if a.iter()
                    .all(|x| x.hydroseq.is_some() && x.dn_hydroseq.is_some()) =>
            {
                Network::with_links(reaches, BuildMode::Hydroseq, |r, l| {
                    links_by_hydroseq(&a, r, l)
                })
            }
            Some(a)
                if a.iter()
                    .all(|x| x.from_node.is_some() && x.to_node.is_some()) =>
            {
                Network::with_links(reaches, BuildMode::Nodes, |r, l| links_by_nodes(&a, r, l))
            }
            _ => Network::from_geometry(reaches, snap_tolerance_m),
        }
    }

    /// Builds the links from geometry only; see the `geometry` submodule docs for the rules.
    pub fn from_geometry(reaches: Vec<Reach>, snap_tolerance_m: f64) -> Network {
        let length_m = lengths(&reaches);
        let downstream = geometry::links(&reaches, &length_m, snap_tolerance_m);
        Network {
            reaches,
            length_m,
            downstream,
            mode: BuildMode::Geometry { snap_tolerance_m },
        }
    }

    fn with_links(
        reaches: Vec<Reach>,
        mode: BuildMode,
        links: impl FnOnce(&[Reach], &[f64]) -> Vec<Vec<Link>>,
    ) -> Network {
        let length_m = lengths(&reaches);
        let downstream = links(&reaches, &length_m);
        Network {
            reaches,
            length_m,
            downstream,
            mode,
        }
    }

    pub fn len(&self) -> usize {
        self.reaches.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reaches.is_empty()
    }

    pub fn reaches(&self) -> &[Reach] {
        &self.reaches
    }

    pub fn reach(&self, i: usize) -> &Reach {
        &self.reaches[i]
    }

    /// Geodesic length of reach `i` in metres.
    pub fn length_m(&self, i: usize) -> f64 {
        self.length_m[i]
    }

    /// Downstream links of reach `i`, main branch first; empty at an outlet.
    pub fn downstream(&self, i: usize) -> &[Link] {
        &self.downstream[i]
    }

    pub fn mode(&self) -> BuildMode {
        self.mode
    }

    /// Index of the first reach with this id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.reaches.iter().position(|r| r.id == id)
    }
}

/// Geodesic lengths on every core: at 151,080 flowlines they were half of building the
/// network, on one core.
fn lengths(reaches: &[Reach]) -> Vec<f64> {
    use rayon::prelude::*;
    reaches
        .par_iter()
        .with_min_len(1024)
        .map(|r| Geodesic.length(&r.line))
        .collect()
}

/// Main = reach whose `Hydroseq` is my `DnHydroseq`; minor = reach whose `Hydroseq` is my
/// `DnMinorHyd`, then any other reach starting at my `ToNode` (NHDPlus has 3-way divergences
/// where `DnMinorHyd` is 0, e.g. New Hope COMID 8893632). 0 or an unknown value means no link
/// (e.g. the outlet, whose `DnHydroseq` lies outside the subset). Duplicate `Hydroseq` values:
/// the first reach wins.
fn links_by_hydroseq(
    attrs: &[NetworkAttrs],
    reaches: &[Reach],
    length_m: &[f64],
) -> Vec<Vec<Link>> {
    let by_node = links_by_nodes(attrs, reaches, length_m);
    let mut by_hs: HashMap<i64, usize> = HashMap::with_capacity(attrs.len());
    for (i, a) in attrs.iter().enumerate() {
        if let Some(h) = a.hydroseq {
            by_hs.entry(h).or_insert(i);
        }
    }
    let find = |h: Option<i64>| h.filter(|&h| h != 0).and_then(|h| by_hs.get(&h).copied());
    attrs
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut out = Vec::new();
            let by_attr = [find(a.dn_hydroseq), find(a.dn_minor_hyd)];
            let by_node = by_node[i].iter().map(|l| Some(l.reach));
            // Node successors count only when there is a main link to hang them on.
            let by_node = by_node.filter(|_| by_attr[0].is_some());
            for j in by_attr.into_iter().chain(by_node).flatten() {
                if j != i && !out.iter().any(|l: &Link| l.reach == j) {
                    out.push(Link::to(j));
                }
            }
            out
        })
        .collect()
}

/// Successors = reaches whose `FromNode` is my `ToNode`. Main branch: the one whose `Hydroseq`
/// is my `DnHydroseq` if both are known, else the geometry-mode guess (same name, named,
/// shorter, file order; see the `geometry` submodule). Smallest `Hydroseq` is NOT the NHDPlus
/// main path: at the 84 New Hope divergences the main branch has the larger `Hydroseq` 68 times.
fn links_by_nodes(attrs: &[NetworkAttrs], reaches: &[Reach], length_m: &[f64]) -> Vec<Vec<Link>> {
    let mut by_from: HashMap<i64, Vec<usize>> = HashMap::new();
    for (i, a) in attrs.iter().enumerate() {
        if let Some(f) = a.from_node {
            by_from.entry(f).or_default().push(i);
        }
    }
    attrs
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut succ: Vec<usize> = a
                .to_node
                .and_then(|t| by_from.get(&t))
                .map(|v| v.iter().copied().filter(|&j| j != i).collect())
                .unwrap_or_default();
            geometry::order_branches(i, &mut succ, reaches, length_m);
            // Stable: the DnHydroseq reach first, the guessed order after it.
            succ.sort_by_key(|&j| {
                let h = attrs[j].hydroseq;
                !(h.is_some() && h == a.dn_hydroseq.filter(|&d| d != 0))
            });
            succ.into_iter().map(Link::to).collect()
        })
        .collect()
}
