//! The storm-sewer entry: a site whose runoff enters inlets discharges where the pipes end,
//! not at the nearest water. The trace runs from the inlets inside or near the footprint to
//! the outfalls; each outfall's receiving water is the one its record names, else the water
//! at the outfall, traced on downstream like an applicant's outfall point.

use super::{gather, EntryRule, WaterFacts};
use crate::catalog::Catalog;
use crate::storm::Downstream;
use geo_types::{Geometry, Point};
use serde::Serialize;

/// What the storm-sewer trace found, for the report's entry section.
#[derive(Debug, Clone, Serialize)]
pub struct SewerFacts {
    /// Metres around the footprint searched for inlets (`storm_inlet_search_m`).
    pub inlet_search_m: f64,
    pub trace: Downstream,
    /// One per outfall the pipes reach.
    pub outfalls: Vec<SewerOutfall>,
    /// Why no receiving water is taken from the sewer, when none is.
    pub unknown: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SewerOutfall {
    pub id: String,
    /// Lon/lat.
    pub at: [f64; 2],
    /// The receiving water: the outfall record's named water, else the water at the outfall.
    pub receiving_water: Option<String>,
    /// "outfall record" or "water at the outfall".
    pub source: Option<&'static str>,
}

/// The water facts of a footprint that drains through the storm sewer, or None when no
/// storm network is loaded or no inlet lies within reach (other rules then decide).
pub(super) fn entry(
    catalog: &Catalog,
    footprint: &Geometry<f64>,
    base: &WaterFacts,
) -> Option<WaterFacts> {
    let net = catalog.storm.as_ref()?;
    let search_m = catalog.manifest.rules.storm_inlet_search_m;
    let inlets = net.inlets_near(footprint, search_m);
    if inlets.is_empty() {
        return None;
    }
    let trace = net.downstream(&inlets);
    let mut sewer = SewerFacts {
        inlet_search_m: search_m,
        outfalls: Vec::new(),
        unknown: None,
        trace,
    };
    let mut merged: Option<WaterFacts> = None;
    for o in &sewer.trace.outfalls {
        let mut w = gather(catalog, None, Some(Point::new(o.at[0], o.at[1])));
        let found = w
            .entry
            .water_name
            .clone()
            .filter(|_| w.entry.rule != EntryRule::None);
        let (name, source) = match (&o.receiving_water, found) {
            (Some(n), _) => (Some(n.clone()), Some("outfall record")),
            (None, Some(n)) => (Some(n), Some("water at the outfall")),
            (None, None) => (None, None),
        };
        if let Some(n) = o.receiving_water.clone() {
            w.entry.water_name = Some(n.clone());
            if !w.names.contains(&n) {
                w.names.insert(0, n);
            }
        }
        sewer.outfalls.push(SewerOutfall {
            id: o.id.clone(),
            at: o.at,
            receiving_water: name,
            source,
        });
        merged = Some(match merged {
            None => w,
            Some(m) => merge(m, w),
        });
    }
    sewer.unknown = unknown(&sewer);
    let mut out = match (merged, &sewer.unknown) {
        (Some(m), None) => m,
        _ => base.clone(),
    };
    out.located = true;
    out.entry.rule = if sewer.unknown.is_none() {
        EntryRule::StormSewer
    } else {
        EntryRule::None
    };
    out.tmdl_footprint = base.tmdl_footprint.clone();
    out.sewer = Some(sewer);
    Some(out)
}

/// Why the sewer cannot say where the water goes: an undecided pipe on the way, no outfall
/// reached, pipes that end at a structure that does not discharge, or an outfall whose
/// receiving water is not known.
fn unknown(s: &SewerFacts) -> Option<String> {
    if !s.trace.complete() {
        return Some(format!(
            "the trace from the inlets meets pipe(s) {} whose direction nothing decides",
            s.trace.undecided.join(", ")
        ));
    }
    if s.outfalls.is_empty() {
        return Some("the pipes from the inlets reach no outfall".into());
    }
    // A typed structure that does not discharge (a manhole where an extract ends) is where
    // the data stop, not where the water leaves: the water there is no receiving water.
    let stops: Vec<String> = s
        .trace
        .outfalls
        .iter()
        .filter_map(|o| o.kind.filter(|k| !k.discharges()).map(|k| (o, k)))
        .map(|(o, k)| format!("{} (a {})", o.id, k.as_str().replace('_', " ")))
        .collect();
    if !stops.is_empty() {
        return Some(format!(
            "the pipes end at {}, which is no outfall: the network's data stop there",
            stops.join(", ")
        ));
    }
    let blind: Vec<&str> = s
        .outfalls
        .iter()
        .filter(|o| o.receiving_water.is_none())
        .map(|o| o.id.as_str())
        .collect();
    (!blind.is_empty()).then(|| {
        format!(
            "outfall(s) {} name no receiving water and no water lies within the search radius",
            blind.join(", ")
        )
    })
}

/// Two outfalls' facts as one discharge: the first's entry and path, both outfalls' names,
/// listed waters, segments the list does not cover and TMDL watersheds (each once), so
/// Condition A reads both: a second outfall's unknown water keeps it open.
fn merge(mut a: WaterFacts, b: WaterFacts) -> WaterFacts {
    for n in b.names {
        if !a.names.contains(&n) {
            a.names.push(n);
        }
    }
    for l in b.listed {
        if !a.listed.iter().any(|x| x.id == l.id) {
            a.listed.push(l);
        }
    }
    for t in b.tmdl_entered {
        if !a.tmdl_entered.iter().any(|x| x.id == t.id) {
            a.tmdl_entered.push(t);
        }
    }
    for n in b.not_covered {
        if !a.not_covered.iter().any(|x| x.segment == n.segment) {
            a.not_covered.push(n);
        }
    }
    for n in b.name_notes {
        if !a.name_notes.contains(&n) {
            a.name_notes.push(n);
        }
    }
    a
}

impl SewerFacts {
    /// The trace in words: the inlets, the pipes and their length, each outfall and its
    /// receiving water, and the evidence that directed the pipes; or why it cannot decide.
    pub fn describe(&self) -> String {
        let t = &self.trace;
        let length_m: f64 = t.pipes.iter().map(|p| p.length_m).sum();
        let mut evidence: Vec<String> = crate::storm::Evidence::ALL
            .iter()
            .filter_map(|e| {
                let n = t.pipes.iter().filter(|p| p.evidence == *e).count();
                (n > 0).then(|| format!("{n} by {}", e.as_str()))
            })
            .collect();
        if evidence.is_empty() {
            evidence.push("none".into());
        }
        let inlets: Vec<&str> = t.inlets.iter().map(|i| i.inlet.as_str()).collect();
        let outfalls: Vec<String> = self
            .outfalls
            .iter()
            .map(|o| match (&o.receiving_water, o.source) {
                (Some(w), Some(src)) => format!("{} to {w} ({src})", o.id),
                _ => format!("{} to an unknown water", o.id),
            })
            .collect();
        let mut text = format!(
            "The site's runoff enters storm-sewer inlet(s) {} (within {:.0} m); {} pipe(s), {:.0} m, directed {}, carry it to outfall(s) {}.",
            inlets.join(", "),
            self.inlet_search_m,
            t.pipes.len(),
            length_m,
            evidence.join(", "),
            if outfalls.is_empty() { "none".to_string() } else { outfalls.join("; ") }
        );
        if let Some(why) = &self.unknown {
            text += &format!(" The receiving water is not known: {why}.");
        }
        text
    }
}
