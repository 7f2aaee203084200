//! What is being checked: a site of the data set, a parcel taken as wholly disturbed, or
//! polygons drawn or uploaded by a user; with its dated phases and claimed attributes.

use crate::area::{self, Phase};
use crate::catalog::{Catalog, Site};
use crate::config::Role;
use crate::error::{Error, Result};
use crate::load::Feature;
use crate::record::{self, Stated};
use crate::vocabulary::site::Vocabulary;
use geo_types::{Geometry, Point, Polygon};
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SubjectKind {
    Site,
    Parcel,
    Drawn,
}

/// The phase name of a parcel checked as if all of it were disturbed.
pub const WHOLE_PARCEL: &str = "whole parcel";

/// What is being checked, in WGS84.
#[derive(Debug, Clone)]
pub struct Subject {
    pub kind: SubjectKind,
    /// What the subject's record states: its id, name, parcels, outfall and claims. Built
    /// once where the subject came in, shared with the catalog's site.
    pub record: Arc<record::Site>,
    pub phases: Vec<Phase>,
    /// The footprint used to find receiving waters when there is no disturbance (e.g. a parcel).
    pub footprint: Option<Geometry<f64>>,
}

pub use crate::load::{parse_point, split_list};

/// Groups disturbance features into dated phases.
pub fn phases_from_features<'a>(
    features: impl IntoIterator<Item = &'a Feature>,
    phase_field: Option<&str>,
    start_field: Option<&str>,
    end_field: Option<&str>,
) -> Vec<Phase> {
    let mut phases: Vec<Phase> = Vec::new();
    for f in features {
        let text = |field: Option<&str>| field.and_then(|n| f.properties.text(n));
        let name = text(phase_field).unwrap_or_else(|| "1".into());
        let start = text(start_field).and_then(|s| area::parse_date(&s));
        let end = text(end_field).and_then(|s| area::parse_date(&s));
        let polys = area::polygons_of(&f.geometry);
        match phases
            .iter_mut()
            .find(|p| p.name == name && p.start == start && p.end == end)
        {
            Some(p) => p.polygons.extend(polys),
            None => phases.push(Phase {
                name,
                start,
                end,
                polygons: polys,
            }),
        }
    }
    phases
}

impl Subject {
    pub fn from_site(catalog: &Catalog, site: &Site) -> Subject {
        let mut phases = Vec::new();
        for (li, d) in catalog.layers.iter().enumerate() {
            let mine: Vec<&Feature> = site
                .disturbance
                .iter()
                .filter(|(l, _)| *l == li)
                .map(|&(_, i)| &d.features[i])
                .collect();
            if !mine.is_empty() {
                phases.extend(phases_from_features(
                    mine,
                    d.config.phase_field.as_deref(),
                    d.config.start_field.as_deref(),
                    d.config.end_field.as_deref(),
                ));
            }
        }
        Subject {
            kind: SubjectKind::Site,
            record: site.record.clone(),
            footprint: site.boundary.clone(),
            phases,
        }
    }

    pub fn from_parcel(catalog: &Catalog, parcel_id: &str) -> Result<Subject> {
        if catalog.layer(Role::Parcels).is_none() {
            return Err(Error::Input("this data set has no parcels layer".into()));
        }
        let (layer, f) = catalog
            .layers_of(Role::Parcels)
            .find_map(|l| l.get(parcel_id).map(|f| (l, f)))
            .ok_or_else(|| Error::NotFound {
                kind: "parcel",
                id: parcel_id.to_string(),
            })?;
        Ok(Subject {
            kind: SubjectKind::Parcel,
            record: Arc::new(record::Site::parcel(parcel_id, layer.name_of(f))),
            phases: Vec::new(),
            footprint: Some(f.geometry.clone()),
        })
    }

    /// An ad-hoc subject from uploaded or drawn polygons; `phase`, `start`, `end` properties
    /// are honoured when present, so a phasing plan can be checked before it is filed. Its
    /// record is the first feature's properties.
    pub fn ad_hoc(
        id: &str,
        features: &[Feature],
        outfall: Option<Point<f64>>,
        words: &Vocabulary,
    ) -> Subject {
        let attributes = features
            .first()
            .map(|f| f.properties.to_map())
            .unwrap_or_default();
        Subject::drawn(id, features, outfall, attributes, words)
    }

    /// An ad-hoc subject whose record is `attributes`: what `POST /check` made of the
    /// upload's `site` object and its first feature's properties, checked as `PATCH` checks
    /// a change (`registry::drawn_fields`). An outfall point drawn in the upload is the
    /// record's outfall.
    pub fn drawn(
        id: &str,
        features: &[Feature],
        outfall: Option<Point<f64>>,
        attributes: Map<String, Value>,
        words: &Vocabulary,
    ) -> Subject {
        let phases = phases_from_features(features, Some("phase"), Some("start"), Some("end"));
        let mut site = record::Site::from_properties(id, &attributes, words);
        if let Some(p) = outfall {
            site.outfall = Stated::Known(p);
        }
        Subject {
            kind: SubjectKind::Drawn,
            record: Arc::new(site),
            footprint: None,
            phases,
        }
    }

    pub fn id(&self) -> &str {
        &self.record.id
    }

    pub fn name(&self) -> Option<&str> {
        self.record.name.as_deref()
    }

    /// Parcels named by the subject itself; otherwise the parcels its disturbance touches.
    pub fn parcel_ids(&self) -> &[String] {
        &self.record.parcel_ids
    }

    /// The applicant's known storm-sewer outfall.
    pub fn outfall(&self) -> Option<Point<f64>> {
        self.record.outfall.known().copied()
    }

    /// The record states an outfall that is not longitude,latitude (`inf,43.1`): the
    /// discharge point is unknown, and no nearest water may stand in for it.
    pub fn outfall_unreadable(&self) -> bool {
        matches!(self.record.outfall, Stated::Unreadable(_))
    }

    pub fn all_polygons(&self) -> Vec<&Polygon<f64>> {
        self.phases.iter().flat_map(|p| &p.polygons).collect()
    }
}
