//! The facts of one subject, computed once, with no legal judgement and no prose: acreage
//! and phases, jurisdiction, the waters that receive the discharge, and the attributes the
//! site claims. The law reads only these.

mod nearest;
pub mod water;

use crate::area::{self, PhaseAcres, PhaseOverlap};
use crate::catalog::Catalog;
use crate::config::Role;
use crate::load::Feature;
use crate::record::{self, Sourced};
use crate::subject::{Subject, SubjectKind, WHOLE_PARCEL};
use chrono::NaiveDate;
use geo::{BoundingRect, Contains, Intersects};
use geo_types::{Geometry, MultiPolygon};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

pub use water::{
    DivergenceInfo, EntryFacts, EntryRule, Impaired, NotCovered, Reach, ReceivingWater,
    TmdlWatershed, WaterFacts,
};

#[derive(Debug, Clone, Serialize)]
pub struct Acreage {
    /// Any disturbance polygon is recorded for the subject.
    pub recorded: bool,
    /// A parcel checked as if all of it were disturbed: the acres are an upper bound.
    pub whole_parcel: bool,
    pub total_acres: f64,
    pub peak_acres: f64,
    pub peak_date: Option<NaiveDate>,
    pub phases: Vec<PhaseAcres>,
    /// Phases with no start date: counted as disturbed throughout.
    pub undated_phases: Vec<String>,
    pub overlaps: Vec<PhaseOverlap>,
    /// The peak at one time on the days before the SWPPP approval's date, when the approval
    /// is dated and some phase is: disturbance then was not "pursuant to an approved SWPPP".
    pub before_approval: Option<area::Peak>,
    pub outside_parcels_acres: f64,
    pub polygons: usize,
    /// Disturbance features of this site refused at load ("D04-2: self-intersection ..."):
    /// the acres above may be short by their area.
    pub refused: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Jurisdiction {
    pub boundary_loaded: bool,
    /// The subject meets the boundary; None without a boundary layer or a place.
    pub inside: Option<bool>,
    /// All of the subject lies within the boundary.
    pub wholly_inside: Option<bool>,
    pub boundary_name: Option<String>,
}

/// The land use the law reads: the record's own statement, else the covered parcels'
/// class, each with the source that decided it ("site record: land_use", "parcel class
/// 210"). Tri-state: "recorded as no" is not "not recorded".
#[derive(Debug, Clone, Serialize)]
pub struct LandFacts {
    /// The work is the construction of a single-family residence.
    pub single_family: Sourced,
    /// The work is at an agricultural property.
    pub agricultural: Sourced,
}

/// The parcels the subject covers, and those its record names that no layer holds.
#[derive(Debug, Clone, Serialize)]
pub struct ParcelFacts {
    /// Those it names, else those its disturbance (or footprint) meets.
    pub covered: Vec<String>,
    /// Ids in the record's `parcel_ids` that no parcels layer holds: a parcel-class fallback
    /// (single-family, agricultural) cannot be settled without them.
    pub unknown: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Facts {
    pub kind: SubjectKind,
    pub acreage: Acreage,
    pub jurisdiction: Jurisdiction,
    pub water: WaterFacts,
    /// What the subject's record states about itself, as its edge read it.
    pub record: Arc<record::Site>,
    pub land: LandFacts,
    pub parcels: ParcelFacts,
    /// [min lon, min lat, max lon, max lat] of the footprint.
    pub bbox: Option<[f64; 4]>,
}

impl Facts {
    /// The officer's findings ((5)(d), (g)-(k)) count: false for a plan checked by its
    /// applicant before filing, whose statements are claims only.
    pub fn officer_record(&self) -> bool {
        self.kind != SubjectKind::Drawn
    }
}

/// A yes/no/unrecorded attribute: blank or absent is None.
pub fn value_tristate(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_f64().map(|f| f != 0.0),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "" => None,
            "true" | "t" | "y" | "yes" | "1" => Some(true),
            "false" | "f" | "n" | "no" | "0" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// The parcels a subject covers: those it names, else those its disturbance (or footprint)
/// meets, from every parcels layer.
fn subject_parcels<'a>(
    catalog: &'a Catalog,
    subject: &Subject,
    probe: Option<&Geometry<f64>>,
) -> Vec<(&'a crate::layer::Layer, &'a Feature)> {
    let layers = catalog.layers_of(Role::Parcels);
    if !subject.parcel_ids().is_empty() {
        let layers: Vec<_> = layers.collect();
        return subject
            .parcel_ids()
            .iter()
            .filter_map(|id| layers.iter().find_map(|l| l.get(id).map(|f| (*l, f))))
            .collect();
    }
    let Some(probe) = probe else {
        return Vec::new();
    };
    let Some(rect) = probe.bounding_rect() else {
        return Vec::new();
    };
    layers
        .flat_map(|l| {
            l.query(rect)
                .map(move |i| (l, &l.features[i]))
                .filter(|(_, f)| f.geometry.intersects(probe))
        })
        .collect()
}

/// The parcel-class fallback for a land use: `Some(true)` when every covered parcel's class
/// starts with one of the prefixes, `Some(false)` when every one has a class and not all do,
/// and `None` when a class is missing or no parcel is known. The source names the class.
fn class_fallback(parcels: &[(&crate::layer::Layer, &Feature)], prefixes: &[String]) -> Sourced {
    let classes: Option<Vec<String>> = parcels
        .iter()
        .map(|(l, p)| l.text(p, l.config.class_field.as_deref()))
        .collect();
    let unknown = Sourced {
        value: None,
        source: None,
    };
    let Some(classes) = classes.filter(|c| !c.is_empty()) else {
        return unknown;
    };
    if prefixes.is_empty() {
        return unknown;
    }
    let matches = |c: &String| prefixes.iter().any(|pre| c.starts_with(pre.as_str()));
    let all = classes.iter().all(matches);
    let shown = if all {
        classes[0].clone()
    } else {
        classes
            .iter()
            .find(|c| !matches(c))
            .cloned()
            .unwrap_or_default()
    };
    Sourced {
        value: Some(all),
        source: Some(format!("parcel class {shown}")),
    }
}

/// The site record's statement when it has one, else the parcel class.
fn record_or_class(record: Sourced, class: Sourced) -> Sourced {
    if record.value.is_some() {
        record
    } else {
        class
    }
}

fn jurisdiction(catalog: &Catalog, footprint: Option<&Geometry<f64>>) -> Jurisdiction {
    let boundaries: Vec<_> = catalog.layers_of(Role::Boundary).collect();
    let mut j = Jurisdiction {
        boundary_loaded: !boundaries.is_empty(),
        inside: None,
        wholly_inside: None,
        boundary_name: None,
    };
    let Some(fp) = footprint.filter(|_| j.boundary_loaded) else {
        return j;
    };
    let meeting: Vec<(&crate::layer::Layer, &Feature)> = boundaries
        .iter()
        .flat_map(|l| l.features.iter().map(move |f| (*l, f)))
        .filter(|(_, f)| interiors_meet(&f.geometry, fp))
        .collect();
    j.inside = Some(!meeting.is_empty());
    j.wholly_inside = Some(meeting.iter().any(|(_, f)| f.geometry.contains(fp)));
    j.boundary_name = meeting
        .first()
        .map(|(l, f)| l.name_of(f).unwrap_or_else(|| f.id.clone()));
    j
}

/// "Inside" means the interiors overlap: a site that only shares an edge or a corner with
/// the town lies wholly outside it.
fn interiors_meet(boundary: &Geometry<f64>, fp: &Geometry<f64>) -> bool {
    use geo::Relate;
    if !boundary.intersects(fp) {
        return false;
    }
    let m = boundary.relate(fp);
    m.is_intersects() && !m.is_touches()
}

/// The site's disturbance features that the loaders refused, with why.
fn refused_inputs(catalog: &Catalog, subject: &Subject) -> Vec<String> {
    if subject.kind != SubjectKind::Site {
        return Vec::new();
    }
    catalog
        .layers_of(Role::Disturbance)
        .flat_map(|l| &l.problems)
        .filter(|p| p.site.as_deref() == Some(subject.id()))
        .map(|p| format!("disturbance {} ({}): {}", p.feature, p.path, p.reason))
        .collect()
}

/// Gathers the facts of a subject from the loaded data set.
pub fn gather(catalog: &Catalog, subject: &Subject) -> Facts {
    let mut plan = area::plan_acres(&subject.phases);
    // The union becomes the footprint (moved, not copied) and is read back from it.
    let union = std::mem::replace(&mut plan.union, MultiPolygon(Vec::new()));
    let from_union = !union.0.is_empty();
    let footprint: Option<Geometry<f64>> = if from_union {
        Some(Geometry::MultiPolygon(union))
    } else {
        subject.footprint.clone()
    };
    let no_union = MultiPolygon(Vec::new());
    let disturbed = match &footprint {
        Some(Geometry::MultiPolygon(mp)) if from_union => mp,
        _ => &no_union,
    };
    let parcels = subject_parcels(catalog, subject, footprint.as_ref());
    let acreage = acreage_of(catalog, subject, plan, disturbed, &parcels);
    let water = if subject.outfall_unreadable() {
        water::gather_unreadable_outfall(catalog, footprint.as_ref())
    } else {
        water::gather(catalog, footprint.as_ref(), subject.outfall())
    };
    Facts {
        kind: subject.kind,
        jurisdiction: jurisdiction(catalog, footprint.as_ref()),
        bbox: footprint
            .as_ref()
            .and_then(|g| g.bounding_rect())
            .map(|r| [r.min().x, r.min().y, r.max().x, r.max().y]),
        acreage,
        water,
        record: subject.record.clone(),
        land: land_of(catalog, subject, &parcels),
        parcels: parcels_of(subject, &parcels),
    }
}

/// The land use: the record's statement, else the class of the parcels covered.
fn land_of(
    catalog: &Catalog,
    subject: &Subject,
    parcels: &[(&crate::layer::Layer, &Feature)],
) -> LandFacts {
    let rules = &catalog.manifest.rules;
    let (single_family, agricultural) = subject.record.land_use_said();
    LandFacts {
        single_family: record_or_class(
            single_family,
            class_fallback(parcels, &rules.single_family_classes),
        ),
        agricultural: record_or_class(
            agricultural,
            class_fallback(parcels, &rules.agricultural_classes),
        ),
    }
}

fn parcels_of(subject: &Subject, parcels: &[(&crate::layer::Layer, &Feature)]) -> ParcelFacts {
    ParcelFacts {
        covered: parcels.iter().map(|(_, p)| p.id.clone()).collect(),
        unknown: subject
            .parcel_ids()
            .iter()
            .filter(|id| !parcels.iter().any(|(_, p)| &p.id == *id))
            .cloned()
            .collect(),
    }
}

/// The acres of the plan: in all, at the peak, per phase, outside the covered parcels, and
/// at the peak before the SWPPP's approval day.
fn acreage_of(
    catalog: &Catalog,
    subject: &Subject,
    plan: area::PlanAcres,
    disturbed: &MultiPolygon<f64>,
    parcels: &[(&crate::layer::Layer, &Feature)],
) -> Acreage {
    let (total, peak) = (plan.total_acres, plan.peak);
    let polygons = subject.all_polygons().len();
    let parcel_union = area::union(
        parcels
            .iter()
            .flat_map(|(_, p)| area::polygons_of(&p.geometry))
            .collect::<Vec<_>>()
            .iter(),
    );
    let outside = if catalog.layer(Role::Parcels).is_some() {
        // `+ 0.0`: clamp keeps a -0.0 (an exact cancellation), which JSON and text would
        // show as "-0.0" and "-0.00 ac".
        area::difference_acres(disturbed, &parcel_union).clamp(0.0, total) + 0.0
    } else {
        0.0
    };
    let approval_day = subject
        .record
        .swppp_approval
        .known()
        .filter(|a| a.approved())
        .and_then(|a| a.date);
    Acreage {
        recorded: polygons > 0,
        whole_parcel: subject.phases.len() == 1 && subject.phases[0].name == WHOLE_PARCEL,
        total_acres: total,
        peak_acres: peak.acres.min(total),
        peak_date: peak.date,
        phases: plan.phases,
        undated_phases: subject
            .phases
            .iter()
            .filter(|p| p.start.is_none())
            .map(|p| p.name.clone())
            .collect(),
        overlaps: area::overlapping_phases(&subject.phases),
        before_approval: approval_day
            .filter(|_| subject.phases.iter().any(|p| p.start.is_some()))
            .map(|day| area::peak_before(&subject.phases, day)),
        outside_parcels_acres: outside,
        polygons,
        refused: refused_inputs(catalog, subject),
    }
}
