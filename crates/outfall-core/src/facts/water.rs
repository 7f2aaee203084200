//! Water facts of one subject: the first receiving water and how it was chosen, the
//! downstream path with distances, the listed (impaired) waters that receive the discharge,
//! and the TMDL watersheds the discharge enters. No judgement: the law reads these.

mod candidates;
mod sewer;
mod tmdl;

use crate::catalog::Catalog;
use crate::config::Role;
use crate::measure::LocalFrame;
use crate::network::TraceEnd;
use crate::waters::{all_causes, Hydro, ImpairmentHit};
use candidates::{candidates_near, hits_of, name_of, Candidate};
use geo::{Centroid, LineLocatePoint};
use geo_types::{Geometry, Point};
use serde::Serialize;
use tmdl::{tmdl_entered, tmdl_meeting};

pub use candidates::nearest_water;
pub use sewer::{SewerFacts, SewerOutfall};

/// How the first receiving water was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryRule {
    /// The applicant's storm-sewer outfall point.
    OutfallPoint,
    /// The catchment the site lies in drains to its own flowline (NHDPlus FEATUREID = COMID).
    Catchment,
    /// The site's inlets drain through the storm sewer to its outfall(s).
    StormSewer,
    /// The water nearest the site within the search radius: a guess, not a fact of drainage.
    Nearest,
    /// The record states an outfall that cannot be read as longitude,latitude: the
    /// discharge point is stated but unknown, so no water is assumed in its place.
    UnreadableOutfall,
    None,
}

impl EntryRule {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryRule::OutfallPoint => "outfall_point",
            EntryRule::Catchment => "catchment",
            EntryRule::StormSewer => "storm_sewer",
            EntryRule::Nearest => "nearest",
            EntryRule::UnreadableOutfall => "unreadable_outfall",
            EntryRule::None => "none",
        }
    }

    /// Whether the rule placed the discharge (on a water, or on none within reach).
    pub fn known(self) -> bool {
        !matches!(self, EntryRule::None | EntryRule::UnreadableOutfall)
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
    pub kind: &'static str,
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
    /// Where the reach's name comes from, when the data say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_source: Option<String>,
    /// The national data set's name ("unnamed tributary to the Oneida River"), when loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nhd_name: Option<String>,
    /// The assessment segment (PWL ID, AUID) the reach belongs to; None: no segment claims it.
    pub segment: Option<String>,
    /// "listed", "not listed", "not covered by the list loaded" or "not assessed" (no
    /// segment claims the reach), each different from the others.
    pub assessment: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct DivergenceInfo {
    pub at_reach: String,
    pub main: String,
    pub minor: Vec<String>,
}

/// A segment on the path that the loaded list does not cover: whether it is listed is not
/// known from the data, which is not the same as "not listed".
#[derive(Debug, Clone, Serialize)]
pub struct NotCovered {
    pub segment: String,
    pub name: String,
    pub reach_id: String,
    pub distance_m: f64,
    pub first_receiving: bool,
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
    /// The reach where the water leaves the watershed, for a watershed the layer gives by the
    /// network: every listed water on the path up to it lies inside the TMDL's watershed.
    pub outlet_reach: Option<String>,
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
    /// Segments on the path the loaded list does not cover, nearest first.
    pub not_covered: Vec<NotCovered>,
    /// Where each receiving-water name comes from, when not plainly from the flowlines'
    /// own names: "Mud Creek: local name from ...; NHD: unnamed tributary to Oneida River".
    pub name_notes: Vec<String>,
    /// TMDL watersheds the discharge enters (outfall, entry or path).
    pub tmdl_entered: Vec<TmdlWatershed>,
    /// TMDL watersheds the site's footprint meets; shown, never decisive.
    pub tmdl_footprint: Vec<TmdlWatershed>,
    /// The storm-sewer trace, when the site's runoff enters inlets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sewer: Option<SewerFacts>,
}

const MAX_CANDIDATES: usize = 20;

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Where along the entry reach the water enters (0 = its start), so distances downstream
/// are measured from the site, not from the top of the reach.
fn entry_fraction(line: &geo_types::LineString<f64>, at: Point<f64>) -> f64 {
    let frame = LocalFrame::around(at.x(), at.y());
    let l = frame.project(line);
    let p = frame.project(&at);
    l.line_locate_point(&p).unwrap_or(0.0)
}

fn listed_from(hits: &[ImpairmentHit], at: &str, distance_m: f64, first: bool) -> Impaired {
    Impaired {
        id: hits[0].id.clone(),
        name: hits[0].name.clone(),
        reach_id: at.to_string(),
        distance_m,
        causes: all_causes(hits),
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
    let mut out = unlocated(catalog, footprint, outfall);
    // The footprint is borrowed: it is the site's union, measured against every water.
    let point = outfall.map(Geometry::Point);
    let Some(probe) = point.as_ref().or(footprint) else {
        return out;
    };
    out.located = true;
    // Pipes carry the water past the nearest stream: they decide ahead of every guess, but
    // not over the applicant's own outfall point.
    if let (Some(fp), None) = (footprint, outfall) {
        if let Some(w) = sewer::entry(catalog, fp, &out) {
            return w;
        }
    }
    if !out.waters_loaded {
        return out;
    }
    let radius_m = catalog.manifest.rules.search_radius_m;
    let cands = candidates_near(catalog, probe, radius_m, MAX_CANDIDATES);
    out.candidates = cands
        .iter()
        .take(MAX_CANDIDATES)
        .map(|c| receiving_water(catalog, c))
        .collect();
    if let (Some(_), Some(fp)) = (outfall, footprint) {
        out.entry.nearest_to_site = candidates_near(catalog, fp, radius_m, 1)
            .first()
            .map(|c| (name_of(catalog, c), round1(c.distance_m)));
    }
    let entry = choose_entry(catalog, footprint, outfall, probe, &cands, &mut out.entry);
    if let (Some(h), Some(start)) = (catalog.hydro.as_ref(), entry.reach) {
        follow_downstream(catalog, h, start, entry.point, &mut out);
    } else if let (Some(c), true) = (entry.water, out.entry.isolated) {
        out.names = vec![name_of(catalog, c)];
        let hits = hits_of(catalog, c);
        if !hits.is_empty() {
            let id = &catalog.layers[c.layer].features[c.feature].id;
            out.listed.push(listed_from(hits, id, 0.0, true));
        }
    }
    out.tmdl_entered = tmdl_entered(catalog, &out, outfall, entry.water);
    out
}

/// The water facts of a subject whose record states an outfall that cannot be read: placed
/// (it has a footprint), but with no entry, so the entry and Condition A are unknown rather
/// than assumed from the nearest water.
pub fn gather_unreadable_outfall(
    catalog: &Catalog,
    footprint: Option<&Geometry<f64>>,
) -> WaterFacts {
    let mut out = unlocated(catalog, footprint, None);
    out.located = true;
    out.entry.rule = EntryRule::UnreadableOutfall;
    out
}

/// The facts known before the subject is placed on the waters: which layers are loaded and
/// the TMDL watersheds its footprint meets.
fn unlocated(
    catalog: &Catalog,
    footprint: Option<&Geometry<f64>>,
    outfall: Option<Point<f64>>,
) -> WaterFacts {
    let has = |role| catalog.layers_of(role).next().is_some();
    WaterFacts {
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
            search_radius_m: catalog.manifest.rules.search_radius_m,
        },
        candidates: Vec::new(),
        names: Vec::new(),
        downstream: Vec::new(),
        trace_end: None,
        divergences: Vec::new(),
        listed: Vec::new(),
        not_covered: Vec::new(),
        name_notes: Vec::new(),
        tmdl_entered: Vec::new(),
        tmdl_footprint: footprint
            .map(|fp| tmdl_meeting(catalog, fp))
            .unwrap_or_default(),
        sewer: None,
    }
}

fn receiving_water(catalog: &Catalog, c: &Candidate) -> ReceivingWater {
    let hits = hits_of(catalog, c);
    ReceivingWater {
        id: catalog.layers[c.layer].features[c.feature].id.clone(),
        name: name_of(catalog, c),
        kind: if c.waterbody { "waterbody" } else { "flowline" },
        distance_m: round1(c.distance_m),
        impaired: !hits.is_empty(),
        causes: all_causes(hits),
    }
}

/// Where the discharge enters the waters: the reach a trace starts on, the point it enters
/// at, and the water it enters (None when the catchment rule chose the reach).
struct Entry<'a> {
    reach: Option<usize>,
    point: Option<Point<f64>>,
    water: Option<&'a Candidate>,
}

/// Chooses the entry, recording the rule that chose it in `e`: the catchment the site lies
/// in (without an outfall point), else the outfall point's or the site's nearest water.
fn choose_entry<'a>(
    catalog: &Catalog,
    footprint: Option<&Geometry<f64>>,
    outfall: Option<Point<f64>>,
    probe: &Geometry<f64>,
    cands: &'a [Candidate],
    e: &mut EntryFacts,
) -> Entry<'a> {
    let hydro = catalog.hydro.as_ref();
    let mut entry = Entry {
        reach: None,
        point: None,
        water: None,
    };
    // The catchment rule needs a catchments layer: without one, skip its interior point.
    let catchments = catalog.layers_of(Role::Catchments).next().is_some();
    if let (Some(h), Some(fp), None, true) = (hydro, footprint, outfall, catchments) {
        if let Some((reach, catchment_id)) = h.catchment_reach(&catalog.layers, fp) {
            entry.reach = Some(reach);
            entry.point = fp.centroid();
            e.rule = EntryRule::Catchment;
            e.catchment_id = Some(catchment_id);
        }
    }
    if entry.reach.is_none() {
        if let Some(c) = cands.first() {
            entry.water = Some(c);
            e.rule = if outfall.is_some() {
                EntryRule::OutfallPoint
            } else {
                EntryRule::Nearest
            };
            entry.point = outfall.or_else(|| probe.centroid());
            entry.reach = match (hydro, c.waterbody) {
                (Some(h), false) => h.reach_of(c.layer, c.feature),
                // A lake or pond: enter the network on the reach through it nearest the site.
                (Some(h), true) => h.reach_in_waterbody_nearest(c.layer, c.feature, probe),
                (None, _) => None,
            };
            e.isolated = c.waterbody && entry.reach.is_none();
        }
    }
    if let Some(c) = entry.water {
        e.water_id = Some(catalog.layers[c.layer].features[c.feature].id.clone());
        e.water_kind = Some(if c.waterbody { "waterbody" } else { "flowline" }.into());
        e.water_name = Some(name_of(catalog, c));
        e.distance_m = Some(round1(c.distance_m));
    }
    entry
}

/// Traces from the entry reach: the path with distances from where the discharge enters,
/// where the trace ended, its divergences, the SWPPP names and the listed waters on it.
fn follow_downstream(
    catalog: &Catalog,
    h: &Hydro,
    start: usize,
    entry_point: Option<Point<f64>>,
    out: &mut WaterFacts,
) {
    let rules = &catalog.manifest.rules;
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
            name: s.name.text(),
            length_m: round1(s.length_m),
            distance_m: round1((s.distance_m - offset).max(0.0)),
            impaired: !s.impairments.is_empty(),
            causes: all_causes(s.impairments),
            impaired_ids: s.impairments.iter().map(|i| i.id.clone()).collect(),
            name_source: s.name_source.map(str::to_string),
            nhd_name: s.nhd_name.map(|n| n.text()),
            segment: s.segment.map(str::to_string),
            assessment: s.assessment,
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
    out.name_notes = name_notes(&out.names, &trace);
    if out.entry.water_kind.as_deref() != Some("waterbody") {
        out.entry.water_name = trace.first().map(|s| s.name.text());
    }
    for (i, (s, r)) in trace.iter().zip(&out.downstream).enumerate() {
        let uncovered = r.assessment == crate::waters::NOT_COVERED
            && !out
                .not_covered
                .iter()
                .any(|n| Some(&n.segment) == r.segment.as_ref());
        if let (true, Some(seg)) = (uncovered, &r.segment) {
            out.not_covered.push(NotCovered {
                segment: seg.clone(),
                name: r.name.clone(),
                reach_id: r.id.clone(),
                distance_m: r.distance_m,
                first_receiving: i == 0,
            });
        }
        // A listing spans several reaches: it is met where the path first reaches it.
        let seen = |id: &str| out.listed.iter().any(|l| l.id == id);
        if !s.impairments.is_empty() && !seen(&s.impairments[0].id) {
            out.listed
                .push(listed_from(s.impairments, &r.id, r.distance_m, i == 0));
        }
    }
}

/// One note per receiving-water name whose reach says where its name comes from, unless
/// that is simply the national data set's name.
fn name_notes(names: &[String], trace: &[crate::waters::TraceStep]) -> Vec<String> {
    names
        .iter()
        .filter_map(|n| {
            let s = trace.iter().find(|s| s.name == *n.as_str())?;
            let source = s.name_source?;
            let nhd = s.nhd_name;
            if nhd.is_some_and(|x| x == *n.as_str()) {
                return None;
            }
            let nhd_words = nhd.map(|x| format!("; NHD: {x}")).unwrap_or_default();
            Some(format!("{n}: name from {source}{nhd_words}"))
        })
        .collect()
}
