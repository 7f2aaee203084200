//! Water facts of one subject: the first receiving water and how it was chosen, the
//! downstream path with distances, the listed (impaired) waters that receive the discharge,
//! and the TMDL watersheds the discharge enters. No judgement: the law reads these.

use super::nearest::PreparedProbe;
use crate::catalog::Catalog;
use crate::config::Role;
use crate::measure::LocalFrame;
use crate::network::TraceEnd;
use crate::waters::{all_causes, ImpairmentHit};
use geo::{BoundingRect, Centroid, Intersects, LineLocatePoint};
use geo_types::{Geometry, Point, Rect};
use serde::Serialize;

/// How the first receiving water was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryRule {
    /// The applicant's storm-sewer outfall point.
    OutfallPoint,
    /// The catchment the site lies in drains to its own flowline (NHDPlus FEATUREID = COMID).
    Catchment,
    /// The water nearest the site within the search radius: a guess, not a fact of drainage.
    Nearest,
    None,
}

impl EntryRule {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryRule::OutfallPoint => "outfall_point",
            EntryRule::Catchment => "catchment",
            EntryRule::Nearest => "nearest",
            EntryRule::None => "none",
        }
    }
}

/// Where the discharge enters the waters.
#[derive(Debug, Clone, Serialize)]
pub struct EntryFacts {
    pub rule: EntryRule,
    /// The reach the trace starts on.
    pub reach_id: Option<String>,
    /// The first receiving water: a flowline or waterbody feature id.
    pub water_id: Option<String>,
    /// "flowline" or "waterbody".
    pub water_kind: Option<String>,
    /// Its SWPPP name.
    pub water_name: Option<String>,
    /// From the site (or the outfall point) to that water.
    pub distance_m: Option<f64>,
    pub catchment_id: Option<String>,
    pub outfall: Option<[f64; 2]>,
    /// With an outfall point: the water nearest the site itself, and how far.
    pub nearest_to_site: Option<(String, f64)>,
    /// A waterbody with no flowline leaving it: the only receiving water.
    pub isolated: bool,
    pub search_radius_m: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReceivingWater {
    pub id: String,
    pub name: String,
    /// "flowline" or "waterbody"
    pub kind: String,
    pub distance_m: f64,
    pub impaired: bool,
    pub causes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Reach {
    pub id: String,
    pub name: String,
    pub length_m: f64,
    /// Along the path from where the discharge enters to the start of this reach.
    pub distance_m: f64,
    pub impaired: bool,
    pub causes: Vec<String>,
    pub impaired_ids: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DivergenceInfo {
    pub at_reach: String,
    pub main: String,
    pub minor: Vec<String>,
}

/// A listed (303(d)) water that receives the discharge.
#[derive(Debug, Clone, Serialize)]
pub struct Impaired {
    /// The listing's id (PWL ID, WBID, ATTAINS unit).
    pub id: String,
    pub name: String,
    /// The reach where the path meets it, or the waterbody id for a pond with no outlet.
    pub reach_id: String,
    pub distance_m: f64,
    pub causes: Vec<String>,
    pub category: Option<String>,
    /// The list's year (303(d) cycle), when the data say.
    pub list_year: Option<String>,
    /// Causes matching the construction list (whatever reading the law uses).
    pub construction_causes: Vec<String>,
    /// It is the first receiving water.
    pub first_receiving: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct TmdlWatershed {
    pub id: String,
    pub name: String,
    pub pollutant: Option<String>,
    /// Stormwater is identified as a source of the impairment; None when the layer's
    /// stormwater-source attribute is blank or not configured.
    pub stormwater_source: Option<bool>,
    /// Where the discharge enters it: "outfall point", "entry reach R1", "reach R9", "waterbody W3".
    pub via: Option<String>,
    /// Along the path from the entry to where it enters (0 at the outfall or entry reach).
    pub distance_m: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct WaterFacts {
    pub waters_loaded: bool,
    pub impaired_list_loaded: bool,
    pub tmdl_loaded: bool,
    /// The subject has a place (geometry or outfall point).
    pub located: bool,
    pub entry: EntryFacts,
    pub candidates: Vec<ReceivingWater>,
    /// The names an applicant writes in the SWPPP.
    pub names: Vec<String>,
    pub downstream: Vec<Reach>,
    pub trace_end: Option<String>,
    pub divergences: Vec<DivergenceInfo>,
    /// Listed waters receiving the discharge, nearest first.
    pub listed: Vec<Impaired>,
    /// TMDL watersheds the discharge enters (outfall, entry or path).
    pub tmdl_entered: Vec<TmdlWatershed>,
    /// TMDL watersheds the site's footprint meets; shown, never decisive.
    pub tmdl_footprint: Vec<TmdlWatershed>,
}

const MAX_CANDIDATES: usize = 20;

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn expanded(r: Rect<f64>, frame: &LocalFrame, m: f64) -> Rect<f64> {
    let (dx, dy) = frame.degrees_for_m(m);
    Rect::new(
        geo_types::coord! { x: r.min().x - dx, y: r.min().y - dy },
        geo_types::coord! { x: r.max().x + dx, y: r.max().y + dy },
    )
}

/// A water near the subject, with its metric distance.
struct Candidate {
    waterbody: bool,
    layer: usize,
    feature: usize,
    distance_m: f64,
}

/// The water nearest a footprint (or point) within `radius_m`, as (layer, feature, metres):
/// the check's first candidate, found the same way but without the other 19.
pub fn nearest_water(
    catalog: &Catalog,
    probe: &Geometry<f64>,
    radius_m: f64,
) -> Option<(usize, usize, f64)> {
    candidates_near(catalog, probe, radius_m, 1)
        .first()
        .map(|c| (c.layer, c.feature, c.distance_m))
}

/// The `k` waters nearest the probe within `radius_m`, nearest first (ties in layer and
/// index order). Waters are visited nearest bounding box first, and the exact distance is
/// computed only while a water can still be among them.
fn candidates_near(
    catalog: &Catalog,
    probe: &Geometry<f64>,
    radius_m: f64,
    k: usize,
) -> Vec<Candidate> {
    let Some(rect) = probe.bounding_rect() else {
        return Vec::new();
    };
    let c = probe.centroid().unwrap_or_else(|| rect.center().into());
    let frame = LocalFrame::around(c.x(), c.y());
    let Some(prepared) = PreparedProbe::new(probe, frame) else {
        return Vec::new();
    };
    let search = expanded(rect, &frame, radius_m);
    // (lower bound in metres, visiting order, waterbody, layer, feature)
    let mut queue: Vec<(f64, usize, bool, usize, usize)> = Vec::new();
    for (li, layer) in catalog.layers.iter().enumerate() {
        let waterbody = match layer.config.role {
            Role::Flowlines => false,
            Role::Waterbodies => true,
            _ => continue,
        };
        for (fi, r) in layer.query_envelopes(search) {
            let lb = prepared.lower_bound_m(r);
            if lb <= radius_m {
                queue.push((lb, queue.len(), waterbody, li, fi));
            }
        }
    }
    queue.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<(usize, Candidate)> = Vec::new();
    let mut kth = radius_m;
    for (lb, order, waterbody, li, fi) in queue {
        if lb > kth {
            break;
        }
        let d = prepared.distance_m(&catalog.layers[li].features[fi].geometry);
        if d <= radius_m {
            out.push((
                order,
                Candidate {
                    waterbody,
                    layer: li,
                    feature: fi,
                    distance_m: d,
                },
            ));
            if out.len() >= k.max(1) {
                out.sort_by(|a, b| {
                    a.1.distance_m
                        .total_cmp(&b.1.distance_m)
                        .then(a.0.cmp(&b.0))
                });
                out.truncate(k.max(1));
                kth = out[k.max(1) - 1].1.distance_m;
            }
        }
    }
    out.sort_by(|a, b| {
        a.1.distance_m
            .total_cmp(&b.1.distance_m)
            .then(a.0.cmp(&b.0))
    });
    out.into_iter().map(|(_, c)| c).collect()
}

/// Where along the entry reach the water enters (0 = its start), so distances downstream
/// are measured from the site, not from the top of the reach.
fn entry_fraction(line: &geo_types::LineString<f64>, at: Point<f64>) -> f64 {
    let frame = LocalFrame::around(at.x(), at.y());
    let l = frame.project(line);
    let p = frame.project(&at);
    l.line_locate_point(&p).unwrap_or(0.0)
}

fn hits_of(catalog: &Catalog, c: &Candidate) -> Vec<ImpairmentHit> {
    catalog.impairments_of_feature(c.layer, c.feature)
}

fn name_of(catalog: &Catalog, c: &Candidate) -> String {
    let layer = &catalog.layers[c.layer];
    let f = &layer.features[c.feature];
    catalog
        .hydro
        .as_ref()
        .and_then(|h| h.reach_of(c.layer, c.feature).map(|r| h.display_name(r)))
        .or_else(|| layer.name_of(f))
        .unwrap_or_else(|| {
            if c.waterbody {
                "unnamed pond".into()
            } else {
                "unnamed stream".into()
            }
        })
}

fn listed_from(
    hits: &[ImpairmentHit],
    at: &str,
    distance_m: f64,
    first: bool,
    kw: &[String],
) -> Impaired {
    let causes = all_causes(hits);
    Impaired {
        id: hits[0].id.clone(),
        name: hits[0].name.clone(),
        reach_id: at.to_string(),
        distance_m,
        construction_causes: crate::vocabulary::causes::CauseVocabulary::with_extra(kw)
            .causes_matching(&causes),
        causes,
        category: hits[0].category.clone(),
        list_year: hits[0].list_year.clone(),
        first_receiving: first,
    }
}

/// Gathers the water facts of a footprint (the union of the disturbance, or a parcel) and
/// the applicant's outfall point.
pub fn gather(
    catalog: &Catalog,
    footprint: Option<&Geometry<f64>>,
    outfall: Option<Point<f64>>,
) -> WaterFacts {
    let rules = &catalog.manifest.rules;
    let has = |role| catalog.layers_of(role).next().is_some();
    let mut out = WaterFacts {
        waters_loaded: has(Role::Flowlines) || has(Role::Waterbodies),
        impaired_list_loaded: has(Role::Impaired) || !catalog.impaired_tables.is_empty(),
        tmdl_loaded: has(Role::Tmdl),
        located: false,
        entry: EntryFacts {
            rule: EntryRule::None,
            reach_id: None,
            water_id: None,
            water_kind: None,
            water_name: None,
            distance_m: None,
            catchment_id: None,
            outfall: outfall.map(|p| [p.x(), p.y()]),
            nearest_to_site: None,
            isolated: false,
            search_radius_m: rules.search_radius_m,
        },
        candidates: Vec::new(),
        names: Vec::new(),
        downstream: Vec::new(),
        trace_end: None,
        divergences: Vec::new(),
        listed: Vec::new(),
        tmdl_entered: Vec::new(),
        tmdl_footprint: footprint
            .map(|fp| tmdl_meeting(catalog, fp))
            .unwrap_or_default(),
    };
    let Some(probe) = outfall.map(Geometry::Point).or_else(|| footprint.cloned()) else {
        return out;
    };
    out.located = true;
    if !out.waters_loaded {
        return out;
    }
    let cands = candidates_near(catalog, &probe, rules.search_radius_m, MAX_CANDIDATES);
    out.candidates = cands
        .iter()
        .take(MAX_CANDIDATES)
        .map(|c| {
            let hits = hits_of(catalog, c);
            ReceivingWater {
                id: catalog.layers[c.layer].features[c.feature].id.clone(),
                name: name_of(catalog, c),
                kind: if c.waterbody { "waterbody" } else { "flowline" }.into(),
                distance_m: round1(c.distance_m),
                impaired: !hits.is_empty(),
                causes: all_causes(&hits),
            }
        })
        .collect();
    if let (Some(_), Some(fp)) = (outfall, footprint) {
        out.entry.nearest_to_site = candidates_near(catalog, fp, rules.search_radius_m, 1)
            .first()
            .map(|c| (name_of(catalog, c), round1(c.distance_m)));
    }

    let hydro = catalog.hydro.as_ref();
    let mut entry_reach: Option<usize> = None;
    let mut entry_point: Option<Point<f64>> = None;
    let mut entry_water: Option<&Candidate> = None;
    if outfall.is_none() {
        // The catchment rule needs a catchments layer: without one, skip its interior point.
        let catchments = catalog.layers_of(Role::Catchments).next().is_some();
        if let (Some(h), Some(fp), true) = (hydro, footprint, catchments) {
            if let Some((reach, catchment_id)) = h.catchment_reach(&catalog.layers, fp) {
                entry_reach = Some(reach);
                entry_point = fp.centroid();
                out.entry.rule = EntryRule::Catchment;
                out.entry.catchment_id = Some(catchment_id);
            }
        }
    }
    if entry_reach.is_none() {
        if let Some(c) = cands.first() {
            entry_water = Some(c);
            out.entry.rule = if outfall.is_some() {
                EntryRule::OutfallPoint
            } else {
                EntryRule::Nearest
            };
            entry_point = outfall.or_else(|| probe.centroid());
            entry_reach = match (hydro, c.waterbody) {
                (Some(h), false) => h.reach_of(c.layer, c.feature),
                // A lake or pond: enter the network on the reach through it nearest the site.
                (Some(h), true) => h.reach_in_waterbody_nearest(c.layer, c.feature, &probe),
                (None, _) => None,
            };
            out.entry.isolated = c.waterbody && entry_reach.is_none();
        }
    }
    if let Some(c) = entry_water {
        out.entry.water_id = Some(catalog.layers[c.layer].features[c.feature].id.clone());
        out.entry.water_kind = Some(if c.waterbody { "waterbody" } else { "flowline" }.into());
        out.entry.water_name = Some(name_of(catalog, c));
        out.entry.distance_m = Some(round1(c.distance_m));
    }
    if let (Some(h), Some(start)) = (hydro, entry_reach) {
        out.entry.reach_id = Some(h.reach_id(&catalog.layers, start).to_string());
        let frac = entry_point.map_or(0.0, |p| entry_fraction(h.line(start), p));
        let (trace, divs, end) = h.trace(start, rules.trace_limit_km * 1000.0);
        out.trace_end = Some(match end {
            TraceEnd::Outlet => "outlet".to_string(),
            TraceEnd::Limit => format!("limit ({} km)", rules.trace_limit_km),
            TraceEnd::Cycle { reach } => {
                format!(
                    "cycle (back to reach {})",
                    h.reach_id(&catalog.layers, reach)
                )
            }
        });
        let offset = frac * h.length_m(start);
        out.downstream = trace
            .iter()
            .map(|s| Reach {
                id: h.reach_id(&catalog.layers, s.reach).to_string(),
                name: s.name.clone(),
                length_m: round1(s.length_m),
                distance_m: round1((s.distance_m - offset).max(0.0)),
                impaired: !s.impairments.is_empty(),
                causes: all_causes(&s.impairments),
                impaired_ids: s.impairments.iter().map(|i| i.id.clone()).collect(),
            })
            .collect();
        out.divergences = h
            .divergence_info(&catalog.layers, &divs)
            .into_iter()
            .map(|(at_reach, main, minor)| DivergenceInfo {
                at_reach,
                main,
                minor,
            })
            .collect();
        out.names = h.receiving_names(&trace);
        if out.entry.water_kind.as_deref() != Some("waterbody") {
            out.entry.water_name = trace.first().map(|s| s.name.clone());
        }
        for (i, (s, r)) in trace.iter().zip(&out.downstream).enumerate() {
            // A listing spans several reaches: it is met where the path first reaches it.
            let seen = |id: &str| out.listed.iter().any(|l| l.id == id);
            if !s.impairments.is_empty() && !seen(&s.impairments[0].id) {
                out.listed.push(listed_from(
                    &s.impairments,
                    &r.id,
                    r.distance_m,
                    i == 0,
                    &rules.construction_pollutants,
                ));
            }
        }
    } else if let (Some(c), true) = (entry_water, out.entry.isolated) {
        let name = name_of(catalog, c);
        out.names = vec![name];
        let hits = hits_of(catalog, c);
        if !hits.is_empty() {
            let id = &catalog.layers[c.layer].features[c.feature].id;
            out.listed.push(listed_from(
                &hits,
                id,
                0.0,
                true,
                &rules.construction_pollutants,
            ));
        }
    }
    out.tmdl_entered = tmdl_entered(catalog, &out, outfall, entry_water);
    out
}

/// The TMDL watersheds the discharge enters: at the outfall point, in the isolated pond, or
/// where the path first meets the watershed, with the distance along the path.
fn tmdl_entered(
    catalog: &Catalog,
    w: &WaterFacts,
    outfall: Option<Point<f64>>,
    entry_water: Option<&Candidate>,
) -> Vec<TmdlWatershed> {
    let mut out = Vec::new();
    if w.entry.rule == EntryRule::None && outfall.is_none() {
        return out;
    }
    let pond = entry_water
        .filter(|_| w.entry.isolated)
        .map(|c| &catalog.layers[c.layer].features[c.feature]);
    let path: Vec<(&crate::load::Feature, f64)> = w
        .downstream
        .iter()
        .filter_map(|r| {
            catalog
                .layers_of(Role::Flowlines)
                .find_map(|l| l.get(&r.id))
                .map(|f| (f, r.distance_m))
        })
        .collect();
    for layer in catalog.layers_of(Role::Tmdl) {
        for f in &layer.features {
            let hit = if outfall.is_some_and(|p| f.geometry.intersects(&p)) {
                Some(("outfall point".to_string(), 0.0))
            } else if let Some(p) = pond.filter(|p| f.geometry.intersects(&p.geometry)) {
                Some((format!("waterbody {}", p.id), 0.0))
            } else {
                path.iter().enumerate().find_map(|(i, (r, d))| {
                    f.geometry.intersects(&r.geometry).then(|| {
                        let at = if i == 0 { "entry reach" } else { "reach" };
                        (format!("{at} {}", r.id), *d)
                    })
                })
            };
            if let Some((via, d)) = hit {
                let mut t = tmdl_of(layer, f);
                t.via = Some(via);
                t.distance_m = Some(d);
                out.push(t);
            }
        }
    }
    out.sort_by(|a, b| {
        a.distance_m
            .unwrap_or(0.0)
            .total_cmp(&b.distance_m.unwrap_or(0.0))
    });
    out
}

fn tmdl_of(layer: &crate::layer::Layer, f: &crate::load::Feature) -> TmdlWatershed {
    TmdlWatershed {
        id: f.id.clone(),
        name: layer.name_of(f).unwrap_or_else(|| f.id.clone()),
        pollutant: layer.text(f, layer.config.pollutant_field.as_deref()),
        stormwater_source: super::value_tristate(
            layer
                .config
                .stormwater_field
                .as_deref()
                .and_then(|s| f.properties.get(s))
                .as_ref(),
        ),
        via: None,
        distance_m: None,
    }
}

fn tmdl_meeting(catalog: &Catalog, fp: &Geometry<f64>) -> Vec<TmdlWatershed> {
    let Some(rect) = fp.bounding_rect() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for layer in catalog.layers_of(Role::Tmdl) {
        for i in layer.query(rect) {
            let f = &layer.features[i];
            if f.geometry.intersects(fp) {
                out.push(tmdl_of(layer, f));
            }
        }
    }
    out
}
