//! The stream network of a data set, built once at load: every flowline layer joined into
//! one graph, each reach's waterbody and impairments resolved, ready for per-site traces.

use super::impairment::{self, ImpairmentHit};
use crate::config::{Role, Rules};
use crate::layer::{ImpairedTable, Layer};
use crate::measure::LocalFrame;
use crate::network::{
    step_names, Network, NetworkAttrs, Reach as NetReach, StepName, Trace, TraceEnd,
};
use geo::{BoundingRect, Contains, Distance, Euclidean, InteriorPoint, InterpolateLine};
use geo_types::{Geometry, LineString, Point};
use std::collections::HashMap;

/// A divergence passed by a trace: (reach where it splits, main branch, minor branches).
pub type Split = (usize, usize, Vec<usize>);

/// One step of a trace, with the names and impairments resolved. What the network holds per
/// reach is borrowed, not copied: the report copies what it shows once.
#[derive(Debug, Clone)]
pub struct TraceStep<'a> {
    pub reach: usize,
    /// The SWPPP name: own name, the lake it runs through, or "unnamed tributary to X".
    pub name: StepName<'a>,
    pub named: bool,
    pub distance_m: f64,
    pub length_m: f64,
    pub impairments: &'a [ImpairmentHit],
    /// Where a reach's own name comes from, when the layer says (`fields.name_source`):
    /// "NHDPlusV2 GNIS_NAME", "DEC monitoring site 07-MUDE-4.4 ...", "Town of Clay ...".
    pub name_source: Option<&'a str>,
    /// The name the national data set gives (`fields.nhd_name`), "unnamed tributary to X"
    /// when it gives none; None when the layer has no such column.
    pub nhd_name: Option<StepName<'a>>,
    /// The assessment segment (the join key) the reach belongs to, its own or its lake's.
    pub segment: Option<&'a str>,
    /// How the loaded list speaks of the reach (`waters::assessment`), decided at load.
    pub assessment: &'static str,
}

const NO_REACH: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct Hydro {
    network: Network,
    /// reach -> (layer index in the catalog, feature index)
    refs: Vec<(usize, usize)>,
    /// [layer][feature] -> reach (`NO_REACH` for none): an array, not a hash map, since a
    /// check asks it for each of its twenty candidate waters, twice.
    by_feature: Vec<Vec<u32>>,
    lines: Vec<LineString<f64>>,
    /// Own name, or the name of the waterbody the reach runs through.
    names: Vec<Option<String>>,
    waterbody_of: Vec<Option<(usize, usize)>>,
    impairments: Vec<Vec<ImpairmentHit>>,
    /// The reach's segment key: its own join key, or its lake's for a path through a lake.
    segments: Vec<Option<String>>,
    /// How the loaded list speaks of each reach: listed, not listed, not covered, not assessed.
    assessments: Vec<&'static str>,
    /// The layer's own statement of where the name comes from (`fields.name_source`).
    name_sources: Vec<Option<String>>,
    /// The national data set's name (`fields.nhd_name`): None when blank; the outer None
    /// when the layer has no such column.
    nhd_names: Option<Vec<Option<String>>>,
}

fn attr_i64(props: &crate::attributes::Properties, key: &str) -> Option<i64> {
    let v = props.get(key).or_else(|| {
        props
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    })?;
    match &v {
        serde_json::Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        serde_json::Value::String(s) => s.trim().parse::<f64>().ok().map(|f| f as i64),
        _ => None,
    }
}

fn line_of(g: &Geometry<f64>) -> Option<LineString<f64>> {
    match g {
        Geometry::LineString(l) => Some(l.clone()),
        // Parts of a multi-part reach are joined in order; NHD reaches are digitized end to end.
        Geometry::MultiLineString(ml) => Some(LineString(
            ml.0.iter().flat_map(|l| l.0.iter().copied()).collect(),
        )),
        _ => None,
    }
}

/// The text of a column the flowline layers name in `fields` (e.g. `name_source`), per reach;
/// None where the layer has no such column or the value is blank.
fn column_of(layers: &[Layer], refs: &[(usize, usize)], semantic: &str) -> Vec<Option<String>> {
    refs.iter()
        .map(|&(li, fi)| {
            let l = &layers[li];
            let col = l.config.fields.get(semantic)?;
            crate::network::clean_name(l.text(&l.features[fi], Some(col)).as_deref())
        })
        .collect()
}

fn mid_point(l: &LineString<f64>) -> Option<Point<f64>> {
    Euclidean.point_at_ratio_from_start(l, 0.5)
}

/// The reaches of every flowline layer, with their network attributes (when any reach has
/// them) and where each came from (layer, feature).
struct Flowlines {
    reaches: Vec<NetReach>,
    attrs: Vec<NetworkAttrs>,
    refs: Vec<(usize, usize)>,
    any_attrs: bool,
}

fn flowlines(layers: &[Layer]) -> Flowlines {
    let mut out = Flowlines {
        reaches: Vec::new(),
        attrs: Vec::new(),
        refs: Vec::new(),
        any_attrs: false,
    };
    for (li, layer) in layers
        .iter()
        .enumerate()
        .filter(|(_, l)| l.config.role == Role::Flowlines)
    {
        for (fi, f) in layer.features.iter().enumerate() {
            let Some(line) = line_of(&f.geometry) else {
                continue;
            };
            let a = NetworkAttrs {
                from_node: attr_i64(&f.properties, "FromNode"),
                to_node: attr_i64(&f.properties, "ToNode"),
                hydroseq: attr_i64(&f.properties, "Hydroseq"),
                dn_hydroseq: attr_i64(&f.properties, "DnHydroseq"),
                dn_minor_hyd: attr_i64(&f.properties, "DnMinorHyd"),
            };
            out.any_attrs |= a.hydroseq.is_some() || a.to_node.is_some();
            out.attrs.push(a);
            out.reaches.push(NetReach {
                id: f.id.clone(),
                name: layer.name_of(f),
                line,
            });
            out.refs.push((li, fi));
        }
    }
    out
}

/// What a reach is beside its line: the waterbody it runs through, its SWPPP name and the
/// listings that apply to it.
struct Resolved {
    name: Option<String>,
    waterbody: Option<(usize, usize)>,
    impairments: Vec<ImpairmentHit>,
    segment: Option<String>,
}

/// The layers a reach is resolved against, gathered once for all reaches.
struct Context<'a> {
    layers: &'a [Layer],
    tables: &'a [ImpairedTable],
    waterbody_impairments: &'a HashMap<(usize, usize), Vec<ImpairmentHit>>,
    rules: &'a Rules,
    impaired_layers: Vec<&'a Layer>,
    waterbody_layers: Vec<(usize, &'a Layer)>,
}

impl Context<'_> {
    fn resolve(
        &self,
        line: &LineString<f64>,
        own_name: Option<String>,
        li: usize,
        fi: usize,
    ) -> Resolved {
        let layers = self.layers;
        let has_waterbodies = !self.waterbody_layers.is_empty();
        let wb = has_waterbodies
            .then(|| mid_point(line))
            .flatten()
            .and_then(|p| {
                self.waterbody_layers.iter().find_map(|(wli, wl)| {
                    wl.query(p.bounding_rect())
                        .find(|&wfi| wl.features[wfi].geometry.contains(&p))
                        .map(|wfi| (*wli, wfi))
                })
            });
        let name = own_name
            .or_else(|| wb.and_then(|(wli, wfi)| layers[wli].name_of(&layers[wli].features[wfi])));
        let flow = &layers[li];
        let mut hits = impairment::match_line(line, &self.impaired_layers, self.rules);
        let own_key = flow.text(&flow.features[fi], flow.config.join_field.as_deref());
        if let Some(k) = &own_key {
            hits.extend(impairment::table_hits(k, self.tables));
        }
        // A path through a lake is the lake, unless the reach carries its own segment id
        // (a creek whose last reach runs a little way into the lake is still the creek).
        let wb_key = wb.and_then(|(wli, wfi)| {
            let wl = &layers[wli];
            wl.text(&wl.features[wfi], wl.config.join_field.as_deref())
        });
        let is_lake_path = own_key.is_none() || own_key == wb_key;
        let segment = if is_lake_path {
            own_key.clone().or(wb_key)
        } else {
            own_key.clone()
        };
        if let (Some(w), true) = (wb, is_lake_path) {
            for h in self.waterbody_impairments.get(&w).into_iter().flatten() {
                if !hits.iter().any(|x| x.id == h.id) {
                    hits.push(h.clone());
                }
            }
        }
        Resolved {
            name,
            waterbody: wb,
            impairments: hits,
            segment,
        }
    }
}

/// Each flowline feature's reach (`NO_REACH` for none), by layer then feature; a layer with
/// no reach keeps an empty list. None past `u32::MAX` reaches.
fn reach_of_feature(layers: &[Layer], refs: &[(usize, usize)]) -> Option<Vec<Vec<u32>>> {
    let mut by_feature: Vec<Vec<u32>> = vec![Vec::new(); layers.len()];
    for (r, &(li, fi)) in refs.iter().enumerate() {
        let of_layer = &mut by_feature[li];
        if of_layer.is_empty() {
            of_layer.resize(layers[li].features.len(), NO_REACH);
        }
        of_layer[fi] = u32::try_from(r).ok()?;
    }
    Some(by_feature)
}

impl Hydro {
    /// Builds the network from every flowline layer, or None when there are none.
    pub fn build(
        layers: &[Layer],
        tables: &[ImpairedTable],
        waterbody_impairments: &HashMap<(usize, usize), Vec<ImpairmentHit>>,
        rules: &Rules,
    ) -> Option<Hydro> {
        let Flowlines {
            reaches,
            attrs,
            refs,
            any_attrs,
        } = flowlines(layers);
        if refs.is_empty() {
            return None;
        }
        let lines: Vec<LineString<f64>> = reaches.iter().map(|r| r.line.clone()).collect();
        let own_names: Vec<Option<String>> = reaches.iter().map(|r| r.name.clone()).collect();
        let network = Network::build(reaches, any_attrs.then_some(attrs), rules.snap_tolerance_m);
        let context = Context {
            layers,
            tables,
            waterbody_impairments,
            rules,
            impaired_layers: layers
                .iter()
                .filter(|l| l.config.role == Role::Impaired)
                .collect(),
            waterbody_layers: layers
                .iter()
                .enumerate()
                .filter(|(_, l)| l.config.role == Role::Waterbodies)
                .collect(),
        };
        // Each reach is resolved on its own (its waterbody, listings, segment): on every core.
        use rayon::prelude::*;
        let resolved: Vec<Resolved> = refs
            .par_iter()
            .zip(own_names)
            .enumerate()
            .map(|(r, (&(li, fi), own_name))| context.resolve(&lines[r], own_name, li, fi))
            .collect();
        let mut names = Vec::with_capacity(refs.len());
        let mut waterbody_of = Vec::with_capacity(refs.len());
        let mut impairments = Vec::with_capacity(refs.len());
        let mut segments = Vec::with_capacity(refs.len());
        for r in resolved {
            names.push(r.name);
            waterbody_of.push(r.waterbody);
            impairments.push(r.impairments);
            segments.push(r.segment);
        }
        let by_feature = reach_of_feature(layers, &refs)?;
        let assessments = segments
            .iter()
            .zip(&impairments)
            .map(|(seg, hits)| super::assessment(layers, tables, seg.as_deref(), !hits.is_empty()))
            .collect();
        Some(Hydro {
            assessments,
            name_sources: column_of(layers, &refs, "name_source"),
            nhd_names: refs
                .iter()
                .any(|&(li, _)| layers[li].config.fields.contains_key("nhd_name"))
                .then(|| column_of(layers, &refs, "nhd_name")),
            network,
            refs,
            by_feature,
            lines,
            names,
            waterbody_of,
            impairments,
            segments,
        })
    }

    /// The reach's assessment segment (its join key, or its lake's).
    pub fn segment(&self, r: usize) -> Option<&str> {
        self.segments[r].as_deref()
    }

    /// The national data set's name of every step of a trace, "unnamed tributary to X" (X
    /// the first name down the main path, past the trace's end too) when it gives none; None
    /// when the layer has no such column.
    fn nhd_step_names(&self, t: &Trace) -> Option<Vec<StepName<'_>>> {
        let nhd = self.nhd_names.as_ref()?;
        Some(self.network.step_names_beyond(t, |x| nhd[x].as_deref()))
    }

    /// A reach's name by `name_of`, or "unnamed tributary to X" after the first named reach
    /// down the main path.
    fn name_down<'a>(
        &'a self,
        r: usize,
        name_of: impl Fn(usize) -> Option<&'a str>,
    ) -> StepName<'a> {
        if let Some(n) = name_of(r) {
            return StepName::Own(n);
        }
        self.network
            .first_named_below(r, name_of)
            .map_or(StepName::Unnamed, StepName::TributaryTo)
    }

    pub fn reach_of(&self, layer: usize, feature: usize) -> Option<usize> {
        let r = *self.by_feature.get(layer)?.get(feature)?;
        (r != NO_REACH).then_some(r as usize)
    }

    pub fn reach_id<'a>(&self, layers: &'a [Layer], r: usize) -> &'a str {
        let (li, fi) = self.refs[r];
        &layers[li].features[fi].id
    }

    /// The waterbody (layer, feature) a reach runs through, if any.
    pub fn waterbody_of(&self, r: usize) -> Option<(usize, usize)> {
        self.waterbody_of[r]
    }

    pub fn line(&self, r: usize) -> &LineString<f64> {
        &self.lines[r]
    }

    pub fn length_m(&self, r: usize) -> f64 {
        self.network.length_m(r)
    }

    /// The SWPPP name of a reach on its own: its name, the lake it runs through, or
    /// "unnamed tributary to X" with X the first named water down the main path.
    pub fn display_name(&self, r: usize) -> String {
        self.name_down(r, |x| self.names[x].as_deref()).text()
    }

    /// Impairments matched to a reach.
    pub fn impairments(&self, r: usize) -> &[ImpairmentHit] {
        &self.impairments[r]
    }

    /// The downstream path from `start`, named the way a SWPPP names waters.
    pub fn trace(&self, start: usize, limit_m: f64) -> (Vec<TraceStep<'_>>, Vec<Split>, TraceEnd) {
        let t = self.network.trace(start, limit_m);
        let names = step_names(&t, |r| self.names[r].as_deref());
        let nhd_names = self.nhd_step_names(&t);
        let steps: Vec<TraceStep> = t
            .steps
            .iter()
            .zip(names)
            .enumerate()
            .map(|(i, (s, name))| TraceStep {
                reach: s.reach,
                name,
                named: self.names[s.reach].is_some(),
                distance_m: s.distance_m,
                length_m: s.length_m,
                impairments: &self.impairments[s.reach],
                name_source: self.name_sources[s.reach].as_deref(),
                nhd_name: nhd_names.as_ref().map(|n| n[i]),
                segment: self.segments[s.reach].as_deref(),
                assessment: self.assessments[s.reach],
            })
            .collect();
        let divs = t
            .divergences
            .iter()
            .map(|d| (t.steps[d.at_step].reach, d.main, d.minor.clone()))
            .collect();
        (steps, divs, t.end)
    }

    /// Divergences by feature id: (reach where it splits, main branch, minor branches).
    pub fn divergence_info(
        &self,
        layers: &[Layer],
        divs: &[Split],
    ) -> Vec<(String, String, Vec<String>)> {
        divs.iter()
            .map(|(at, main, minor)| {
                (
                    self.reach_id(layers, *at).to_string(),
                    self.reach_id(layers, *main).to_string(),
                    minor
                        .iter()
                        .map(|m| self.reach_id(layers, *m).to_string())
                        .collect(),
                )
            })
            .collect()
    }

    /// The names an applicant writes: the unnamed-tributary name when the entry reach is
    /// unnamed, then the first named water downstream.
    pub fn receiving_names(&self, steps: &[TraceStep]) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(first) = steps.first() {
            if !first.named {
                out.push(first.name.to_string());
            }
        }
        if let Some(named) = steps.iter().find(|s| s.named) {
            out.push(named.name.to_string());
        }
        out
    }

    /// Catchment entry: the catchment containing the footprint's interior point drains to the
    /// flowline with the same id (NHDPlus FEATUREID = COMID).
    pub fn catchment_reach(
        &self,
        layers: &[Layer],
        footprint: &Geometry<f64>,
    ) -> Option<(usize, String)> {
        let p = footprint.interior_point()?;
        for layer in layers.iter().filter(|l| l.config.role == Role::Catchments) {
            for i in layer.query(p.bounding_rect()) {
                let f = &layer.features[i];
                if !f.geometry.contains(&p) {
                    continue;
                }
                for (li, fl) in layers
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.config.role == Role::Flowlines)
                {
                    if let Some(fi) = fl.position(&f.id) {
                        if let Some(r) = self.reach_of(li, fi) {
                            return Some((r, f.id.clone()));
                        }
                    }
                }
            }
        }
        None
    }

    /// The reach through a waterbody nearest to the probe (the site's runoff enters the lake
    /// there and leaves by the lake's outlet path).
    pub fn reach_in_waterbody_nearest(
        &self,
        layer: usize,
        feature: usize,
        probe: &Geometry<f64>,
    ) -> Option<usize> {
        let c = geo::Centroid::centroid(probe)?;
        let frame = LocalFrame::around(c.x(), c.y());
        let probe_m = frame.project(probe);
        (0..self.refs.len())
            .filter(|&r| self.waterbody_of[r] == Some((layer, feature)))
            .map(|r| {
                (
                    r,
                    Euclidean.distance(
                        &probe_m,
                        &Geometry::LineString(frame.project(&self.lines[r])),
                    ),
                )
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(r, _)| r)
    }
}
