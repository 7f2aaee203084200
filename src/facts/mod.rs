//! The facts of one subject, computed once, with no legal judgement and no prose: acreage
//! and phases, jurisdiction, the waters that receive the discharge, and the attributes the
//! site claims. The law reads only these.

mod nearest;
pub mod water;

use crate::area::{self, PhaseAcres, PhaseOverlap};
use crate::catalog::Catalog;
use crate::config::Role;
use crate::load::{value_text, Feature};
use crate::subject::{split_list, Subject, SubjectKind, WHOLE_PARCEL};
use chrono::NaiveDate;
use geo::{BoundingRect, Contains, Intersects};
use geo_types::Geometry;
use serde::Serialize;
use serde_json::Value;

pub use water::{
    DivergenceInfo, EntryFacts, EntryRule, Impaired, Reach, ReceivingWater, TmdlWatershed,
    WaterFacts,
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

/// What the site's record says about itself. Tri-state where the law needs to tell
/// "recorded as no" from "not recorded".
#[derive(Debug, Clone, Serialize)]
pub struct Claims {
    pub status: Option<String>,
    pub address: Option<String>,
    pub applicant: Option<String>,
    pub single_family: bool,
    /// "site record" or "parcel class 210".
    pub single_family_source: Option<String>,
    pub agricultural: bool,
    pub agricultural_source: Option<String>,
    pub common_plan: bool,
    pub common_plan_acres: Option<f64>,
    /// The recorded SWPPP approval: a date or a reference (a bare "yes" is kept as said).
    pub swppp_approval: Option<String>,
    pub exemptions: Vec<String>,
    pub new_structures: Option<bool>,
    pub landing_or_haul_road: Option<bool>,
    pub maintains_original: Option<bool>,
    pub repair_deemed_necessary: Option<bool>,
    pub plat_approved: Option<NaiveDate>,
    pub building_permit_approved: Option<NaiveDate>,
    pub parcel_ids: Vec<String>,
    /// Ids in the site's `parcel_ids` that no parcels layer holds: a parcel-class exclusion
    /// (single-family, agricultural) cannot be settled without them.
    pub unknown_parcels: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Facts {
    pub kind: SubjectKind,
    pub acreage: Acreage,
    pub jurisdiction: Jurisdiction,
    pub water: WaterFacts,
    pub claims: Claims,
    /// [min lon, min lat, max lon, max lat] of the footprint.
    pub bbox: Option<[f64; 4]>,
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

/// A recorded approval: any value except blank, "no", "false", "0" or "none".
fn approval_text(v: Option<&Value>) -> Option<String> {
    let t = v.and_then(value_text)?;
    let negative = matches!(
        t.to_ascii_lowercase().as_str(),
        "no" | "n" | "false" | "f" | "0" | "none" | "pending"
    );
    (!negative).then_some(t)
}

fn parse_acres(v: Option<&Value>) -> Option<f64> {
    let f = match v? {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    (f.is_finite() && f >= 0.0).then_some(f)
}

/// Column names of the site record: the first sites layer's renames, else the plain names.
fn column<'a>(catalog: &'a Catalog, key: &'a str) -> &'a str {
    catalog
        .layer(Role::Sites)
        .map_or(key, |l| l.config.field(key))
}

/// The parcels a subject covers: those it names, else those its disturbance (or footprint)
/// meets, from every parcels layer.
fn subject_parcels<'a>(
    catalog: &'a Catalog,
    subject: &Subject,
    probe: Option<&Geometry<f64>>,
) -> Vec<(&'a crate::layer::Layer, &'a Feature)> {
    let layers = catalog.layers_of(Role::Parcels);
    if !subject.parcel_ids.is_empty() {
        let layers: Vec<_> = layers.collect();
        return subject
            .parcel_ids
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

/// Every covered parcel's class starts with one of the prefixes: which class, if so.
fn class_of_all(
    parcels: &[(&crate::layer::Layer, &Feature)],
    prefixes: &[String],
) -> Option<String> {
    let classes: Vec<String> = parcels
        .iter()
        .map(|(l, p)| l.text(p, l.config.class_field.as_deref()))
        .collect::<Option<_>>()?;
    let all = !classes.is_empty()
        && !prefixes.is_empty()
        && classes
            .iter()
            .all(|c| prefixes.iter().any(|pre| c.starts_with(pre.as_str())));
    all.then(|| classes[0].clone())
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
        .filter(|(_, f)| f.geometry.intersects(fp))
        .collect();
    j.inside = Some(!meeting.is_empty());
    j.wholly_inside = Some(meeting.iter().any(|(_, f)| f.geometry.contains(fp)));
    j.boundary_name = meeting
        .first()
        .map(|(l, f)| l.name_of(f).unwrap_or_else(|| f.id.clone()));
    j
}

/// The site's disturbance features that the loaders refused, with why.
fn refused_inputs(catalog: &Catalog, subject: &Subject) -> Vec<String> {
    if subject.kind != SubjectKind::Site {
        return Vec::new();
    }
    catalog
        .layers_of(Role::Disturbance)
        .flat_map(|l| &l.problems)
        .filter(|p| p.site.as_deref() == Some(subject.id.as_str()))
        .map(|p| format!("disturbance {} ({}): {}", p.feature, p.path, p.reason))
        .collect()
}

/// Gathers the facts of a subject from the loaded data set.
pub fn gather(catalog: &Catalog, subject: &Subject) -> Facts {
    let rules = &catalog.manifest.rules;
    let polys = subject.all_polygons();
    let plan = area::plan_acres(&subject.phases);
    let (disturbed, total, peak) = (plan.union, plan.total_acres, plan.peak);
    let footprint: Option<Geometry<f64>> = if disturbed.0.is_empty() {
        subject.footprint.clone()
    } else {
        Some(Geometry::MultiPolygon(disturbed.clone()))
    };
    let parcels = subject_parcels(catalog, subject, footprint.as_ref());
    let parcel_union = area::union(
        parcels
            .iter()
            .flat_map(|(_, p)| area::polygons_of(&p.geometry))
            .collect::<Vec<_>>()
            .iter(),
    );
    let outside = if catalog.layer(Role::Parcels).is_some() {
        area::difference_acres(&disturbed, &parcel_union).clamp(0.0, total)
    } else {
        0.0
    };
    let attr = |key: &'static str| subject.attributes.get(column(catalog, key));
    let text = |key: &'static str| attr(key).and_then(value_text);
    let date = |key: &'static str| text(key).and_then(|s| area::parse_date(&s));
    let flag = |key: &'static str| value_tristate(attr(key));
    let sf_class = class_of_all(&parcels, &rules.single_family_classes);
    let ag_class = class_of_all(&parcels, &rules.agricultural_classes);
    let source = |flagged: bool, class: &Option<String>| {
        if flagged {
            Some("site record".to_string())
        } else {
            class.as_ref().map(|c| format!("parcel class {c}"))
        }
    };
    let sf_flag = flag("single_family") == Some(true);
    let ag_flag = flag("agricultural") == Some(true);
    let claims = Claims {
        status: text("status"),
        address: text("address"),
        applicant: text("applicant"),
        single_family: sf_flag || sf_class.is_some(),
        single_family_source: source(sf_flag, &sf_class),
        agricultural: ag_flag || ag_class.is_some(),
        agricultural_source: source(ag_flag, &ag_class),
        common_plan: flag("common_plan") == Some(true),
        common_plan_acres: parse_acres(attr("common_plan_acres")),
        swppp_approval: approval_text(attr("approved_swppp")),
        exemptions: split_list(attr("exemptions")),
        new_structures: flag("new_structures"),
        landing_or_haul_road: flag("landing_or_haul_road"),
        maintains_original: flag("maintains_original"),
        repair_deemed_necessary: flag("repair_deemed_necessary"),
        plat_approved: date("plat_approved"),
        building_permit_approved: date("building_permit_approved"),
        parcel_ids: parcels.iter().map(|(_, p)| p.id.clone()).collect(),
        unknown_parcels: subject
            .parcel_ids
            .iter()
            .filter(|id| !parcels.iter().any(|(_, p)| &p.id == *id))
            .cloned()
            .collect(),
    };
    let acreage = Acreage {
        recorded: !polys.is_empty(),
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
        outside_parcels_acres: outside,
        polygons: polys.len(),
        refused: refused_inputs(catalog, subject),
    };
    let water = water::gather(catalog, footprint.as_ref(), subject.outfall);
    Facts {
        kind: subject.kind,
        jurisdiction: jurisdiction(catalog, footprint.as_ref()),
        bbox: footprint
            .as_ref()
            .and_then(|g| g.bounding_rect())
            .map(|r| [r.min().x, r.min().y, r.max().x, r.max().y]),
        acreage,
        water,
        claims,
    }
}
