//! Receiving waters: the stream network built once at load, impairments matched to its
//! reaches, and, per subject, the entry reach, the downstream trace, the first impaired
//! water and the Condition A decision. Outfall follows the flow rather than the nearest water.

mod hydro;
mod impairment;

pub use hydro::Hydro;
pub use impairment::{causes_in, causes_matching, split_causes, ImpairmentHit};

use crate::catalog::Catalog;
use crate::config::Role;
use crate::measure::LocalFrame;
use crate::report::{DivergenceInfo, Entry, Impaired, Reach, ReceivingWater, TmdlWatershed};
use geo::{BoundingRect, Centroid, Distance, Euclidean, Intersects, LineLocatePoint};
use geo_types::{Geometry, Point, Rect};

/// Everything the water side contributes to a report.
#[derive(Debug, Clone)]
pub struct WaterAssessment {
    pub names: Vec<String>,
    pub candidates: Vec<ReceivingWater>,
    pub entry: Entry,
    pub downstream: Vec<Reach>,
    /// Why the trace stopped: "outlet", "limit (50 km)" or "cycle (...)".
    pub trace_end: Option<String>,
    pub divergences: Vec<DivergenceInfo>,
    pub first_impaired: Option<Impaired>,
    pub tmdl: Vec<TmdlWatershed>,
    pub condition_a: Option<bool>,
    pub condition_a_reason: String,
}

const MAX_CANDIDATES: usize = 20;
/// Placeholder for an unnamed entry water, replaced by its SWPPP name once traced.
const UNNAMED: &str = "an unnamed water";

fn expanded(r: Rect<f64>, frame: &LocalFrame, m: f64) -> Rect<f64> {
    let (dx, dy) = frame.degrees_for_m(m);
    Rect::new(
        geo_types::coord! { x: r.min().x - dx, y: r.min().y - dy },
        geo_types::coord! { x: r.max().x + dx, y: r.max().y + dy },
    )
}

/// A candidate water near the subject, with its metric distance.
struct Candidate {
    kind: &'static str,
    layer: usize,
    feature: usize,
    distance_m: f64,
}

fn candidates_near(catalog: &Catalog, probe: &Geometry<f64>, radius_m: f64) -> Vec<Candidate> {
    let Some(rect) = probe.bounding_rect() else {
        return Vec::new();
    };
    let c = probe.centroid().unwrap_or_else(|| rect.center().into());
    let frame = LocalFrame::around(c.x(), c.y());
    let probe_m = frame.project(probe);
    let search = expanded(rect, &frame, radius_m);
    let mut out = Vec::new();
    for (li, layer) in catalog.layers.iter().enumerate() {
        let kind = match layer.config.role {
            Role::Flowlines => "flowline",
            Role::Waterbodies => "waterbody",
            _ => continue,
        };
        for fi in layer.query(search) {
            let g = frame.project(&layer.features[fi].geometry);
            let d = Euclidean.distance(&probe_m, &g);
            if d <= radius_m {
                out.push(Candidate {
                    kind,
                    layer: li,
                    feature: fi,
                    distance_m: d,
                });
            }
        }
    }
    out.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
    out
}

/// Where along the entry reach the water enters (0 = its start), so distances downstream
/// are measured from the site, not from the top of the reach.
fn entry_fraction(line: &geo_types::LineString<f64>, at: Point<f64>) -> f64 {
    let frame = LocalFrame::around(at.x(), at.y());
    let l = frame.project(line);
    let p = frame.project(&at);
    l.line_locate_point(&p).unwrap_or(0.0)
}

/// Assesses the receiving waters of a footprint (the union of the disturbance, or a parcel).
pub fn assess(
    catalog: &Catalog,
    footprint: Option<&Geometry<f64>>,
    outfall: Option<Point<f64>>,
) -> WaterAssessment {
    let rules = &catalog.manifest.rules;
    let tmdl = tmdl_containing(catalog, footprint);
    let tmdl_hit = tmdl.iter().find(|t| t.stormwater_source).cloned();
    let mut out = WaterAssessment {
        names: Vec::new(),
        candidates: Vec::new(),
        entry: Entry {
            rule: "none".into(),
            reach_id: None,
            reason: String::new(),
        },
        downstream: Vec::new(),
        trace_end: None,
        divergences: Vec::new(),
        first_impaired: None,
        tmdl,
        condition_a: None,
        condition_a_reason: String::new(),
    };
    let has_water_layers =
        catalog.layer(Role::Flowlines).is_some() || catalog.layer(Role::Waterbodies).is_some();
    let Some(probe) = outfall.map(Geometry::Point).or_else(|| footprint.cloned()) else {
        out.entry.reason = "No disturbance or footprint to locate the site.".into();
        out.condition_a_reason = "Undetermined: the site has no geometry.".into();
        return out;
    };
    if !has_water_layers {
        out.entry.reason =
            "No flowlines or waterbodies are loaded, so no receiving water can be found.".into();
        (out.condition_a, out.condition_a_reason) = match &tmdl_hit {
            Some(t) => (Some(true), tmdl_reason(t)),
            None => (
                None,
                "Undetermined: the data set has no stream network or waterbodies.".into(),
            ),
        };
        return out;
    }
    let cands = candidates_near(catalog, &probe, rules.search_radius_m);
    out.candidates = cands
        .iter()
        .take(MAX_CANDIDATES)
        .map(|c| {
            let layer = &catalog.layers[c.layer];
            let f = &layer.features[c.feature];
            let hits = catalog
                .hydro
                .as_ref()
                .map(|h| h.impairments_of_feature(c.layer, c.feature))
                .unwrap_or_default();
            ReceivingWater {
                id: f.id.clone(),
                name: catalog
                    .hydro
                    .as_ref()
                    .and_then(|h| h.reach_of(c.layer, c.feature).map(|r| h.display_name(r)))
                    .or_else(|| layer.name_of(f))
                    .unwrap_or_else(|| "unnamed".into()),
                kind: c.kind.into(),
                distance_m: round1(c.distance_m),
                impaired: !hits.is_empty(),
                causes: impairment::all_causes(&hits),
            }
        })
        .collect();

    let hydro = catalog.hydro.as_ref();
    // Pick the entry reach, and say which rule picked it.
    let mut entry_reach: Option<usize> = None;
    let mut entry_point: Option<Point<f64>> = None;
    if let (Some(h), Some(p)) = (hydro, outfall) {
        if let Some(c) = cands.iter().find(|c| c.kind == "flowline") {
            entry_reach = h.reach_of(c.layer, c.feature);
            entry_point = Some(p);
            out.entry.rule = "outfall_point".into();
            out.entry.reason = format!(
                "The applicant's outfall point ({:.5}, {:.5}) discharges to the nearest reach to it, {:.0} m away.",
                p.x(),
                p.y(),
                c.distance_m
            );
        }
    }
    if entry_reach.is_none() && outfall.is_none() {
        if let (Some(h), Some(fp)) = (hydro, footprint) {
            if let Some((reach, catchment_id)) = h.catchment_reach(catalog, fp) {
                entry_reach = Some(reach);
                entry_point = fp.centroid();
                out.entry.rule = "catchment".into();
                out.entry.reason = format!(
                    "The site lies in catchment {catchment_id}, which drains to its own flowline."
                );
            }
        }
    }
    if entry_reach.is_none() {
        match cands.first() {
            None => {
                out.entry.reason = format!(
                    "No receiving water within {:.0} m (the search radius). Identify the discharge point and give it as an outfall.",
                    rules.search_radius_m
                );
            }
            Some(c) => {
                let layer = &catalog.layers[c.layer];
                let f = &layer.features[c.feature];
                let name = layer.name_of(f).unwrap_or_else(|| UNNAMED.into());
                out.entry.rule = "nearest".into();
                match c.kind {
                    "flowline" => {
                        entry_reach = hydro.and_then(|h| h.reach_of(c.layer, c.feature));
                        entry_point = probe.centroid();
                        out.entry.reason = format!(
                            "The nearest water to the site is reach {} ({name}), {:.0} m away.",
                            f.id, c.distance_m
                        );
                    }
                    _ => {
                        // A lake or pond: enter the network on the reach through it nearest the site.
                        entry_reach = hydro
                            .and_then(|h| h.reach_in_waterbody_nearest(c.layer, c.feature, &probe));
                        entry_point = probe.centroid();
                        out.entry.reason = match entry_reach {
                            Some(_) => format!("The nearest water to the site is {name} (waterbody {}), {:.0} m away; the trace follows the flow path through it.", f.id, c.distance_m),
                            None => format!("The nearest water to the site is {name} (waterbody {}), {:.0} m away; no flowline leaves it, so it is the only receiving water.", f.id, c.distance_m),
                        };
                        if entry_reach.is_none() {
                            out.names = vec![name];
                        }
                    }
                }
            }
        }
    }
    if let (Some(h), Some(start)) = (hydro, entry_reach) {
        out.entry.reach_id = Some(h.reach_id(catalog, start).to_string());
        let frac = entry_point.map_or(0.0, |p| entry_fraction(h.line(start), p));
        let (trace, divs, end) = h.trace(start, rules.trace_limit_km * 1000.0);
        out.trace_end = Some(match end {
            crate::network::TraceEnd::Outlet => "outlet".to_string(),
            crate::network::TraceEnd::Limit => format!("limit ({} km)", rules.trace_limit_km),
            crate::network::TraceEnd::Cycle { reach } => {
                format!("cycle (back to reach {})", h.reach_id(catalog, reach))
            }
        });
        let offset = frac * h.length_m(start);
        out.downstream = trace
            .iter()
            .map(|s| Reach {
                id: h.reach_id(catalog, s.reach).to_string(),
                name: s.name.clone(),
                length_m: round1(s.length_m),
                distance_m: round1((s.distance_m - offset).max(0.0)),
                impaired: !s.impairments.is_empty(),
                causes: impairment::all_causes(&s.impairments),
                impaired_ids: s.impairments.iter().map(|i| i.id.clone()).collect(),
            })
            .collect();
        out.divergences = h.divergence_info(catalog, &divs);
        out.names = h.receiving_names(&trace);
        // Name an unnamed entry reach the SWPPP way in the explanation too.
        if let Some(first) = trace.first() {
            out.entry.reason = out
                .entry
                .reason
                .replace(UNNAMED, &format!("the {}", first.name));
        }
        out.first_impaired = trace
            .iter()
            .zip(&out.downstream)
            .find(|(s, _)| !s.impairments.is_empty())
            .map(|(s, r)| {
                let hit = &s.impairments[0];
                Impaired {
                    id: hit.id.clone(),
                    name: hit.name.clone(),
                    reach_id: r.id.clone(),
                    distance_m: r.distance_m,
                    causes: impairment::all_causes(&s.impairments),
                    category: hit.category.clone(),
                    construction_causes: causes_matching(
                        &impairment::all_causes(&s.impairments),
                        &rules.construction_pollutants,
                    ),
                }
            });
    }
    decide_condition_a(catalog, &mut out, tmdl_hit);
    out
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn tmdl_reason(t: &TmdlWatershed) -> String {
    format!(
        "The site lies in the {} TMDL watershed ({}), where stormwater is a source of the impairment.",
        t.name,
        t.pollutant.as_deref().unwrap_or("pollutant not given")
    )
}

fn decide_condition_a(
    catalog: &Catalog,
    out: &mut WaterAssessment,
    tmdl_hit: Option<TmdlWatershed>,
) {
    let rules = &catalog.manifest.rules;
    let has_list = catalog.layer(Role::Impaired).is_some() || !catalog.impaired_tables.is_empty();
    let scope_m = rules.condition_a_downstream_km * 1000.0;
    let in_scope = out.downstream.iter().enumerate().find(|(i, r)| {
        r.impaired
            && (*i == 0 || r.distance_m <= scope_m)
            && !causes_matching(&r.causes, &rules.construction_pollutants).is_empty()
    });
    let first_facts = match &out.first_impaired {
        Some(fi) => format!(
            " The first impaired water downstream is {} at {:.1} km ({}).",
            fi.name,
            fi.distance_m / 1000.0,
            fi.causes.join(", ")
        ),
        None if !out.downstream.is_empty() => " No impaired water is on the traced path.".into(),
        None => String::new(),
    };
    let scope_words = if scope_m > 0.0 {
        format!(
            "the first receiving water or a listed water within {:.2} km downstream",
            rules.condition_a_downstream_km
        )
    } else {
        "the first receiving water".into()
    };
    if let Some((i, r)) = in_scope {
        let poc = causes_matching(&r.causes, &rules.construction_pollutants);
        out.condition_a = Some(true);
        out.condition_a_reason = format!(
            "{} ({}) is {} and is impaired by {}, a pollutant of concern for construction stormwater.{}{}",
            r.name,
            r.id,
            if i == 0 { "the first receiving water".to_string() } else { format!("{:.2} km downstream, within {}", r.distance_m / 1000.0, scope_words) },
            poc.join(", "),
            tmdl_hit.as_ref().map(|t| format!(" Also: {}", tmdl_reason(t))).unwrap_or_default(),
            first_facts,
        );
        return;
    }
    if let Some(t) = tmdl_hit {
        out.condition_a = Some(true);
        out.condition_a_reason = format!("{}{}", tmdl_reason(&t), first_facts);
        return;
    }
    if out.downstream.is_empty() && out.names.is_empty() {
        out.condition_a = None;
        out.condition_a_reason = format!("Undetermined: {}", out.entry.reason);
        return;
    }
    if !has_list && catalog.layer(Role::Tmdl).is_none() {
        out.condition_a = None;
        out.condition_a_reason =
            "Undetermined: no 303(d) impaired-waters list or TMDL layer is loaded.".into();
        return;
    }
    out.condition_a = Some(false);
    out.condition_a_reason = format!(
        "No water in scope ({}) is listed as impaired by a construction-related pollutant ({}), and the site is in no TMDL watershed where stormwater is a source.{}",
        scope_words,
        rules.construction_pollutants.join(", "),
        first_facts
    );
}

fn tmdl_containing(catalog: &Catalog, footprint: Option<&Geometry<f64>>) -> Vec<TmdlWatershed> {
    let Some(fp) = footprint else {
        return Vec::new();
    };
    let Some(rect) = fp.bounding_rect() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for layer in catalog.layers_of(Role::Tmdl) {
        for i in layer.query(rect) {
            let f = &layer.features[i];
            if f.geometry.intersects(fp) {
                out.push(TmdlWatershed {
                    id: f.id.clone(),
                    name: layer.name_of(f).unwrap_or_else(|| f.id.clone()),
                    pollutant: layer.text(f, layer.config.pollutant_field.as_deref()),
                    stormwater_source: crate::load::value_flag(
                        layer
                            .config
                            .stormwater_field
                            .as_deref()
                            .and_then(|s| f.properties.get(s)),
                    ),
                });
            }
        }
    }
    out
}

/// Causes of several hits as one label, e.g. for map labels.
pub fn all_causes_text(hits: &[ImpairmentHit]) -> String {
    impairment::all_causes(hits).join(", ")
}
