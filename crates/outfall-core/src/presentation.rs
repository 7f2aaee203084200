//! How each layer is presented to a client: the source attributes of a feature plus what
//! Outfall worked out about it (a reach's impairment, a site's findings, a disturbance
//! polygon's site status). The items pages, the single features and the vector tiles all
//! serve these same properties, so they are decided here, once, without HTTP.

use crate::catalog::{Catalog, Layer};
use crate::config::Role;
use crate::load::Feature;
use crate::report::Report;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// What presenting a feature reads: the catalog it belongs to and the site reports of the
/// same snapshot.
#[derive(Clone, Copy)]
pub struct Presentation<'a> {
    pub catalog: &'a Catalog,
    pub reports: &'a HashMap<String, Report>,
}

impl<'a> Presentation<'a> {
    pub fn new(catalog: &'a Catalog, reports: &'a HashMap<String, Report>) -> Self {
        Presentation { catalog, reports }
    }

    /// Properties served for a feature: the source attributes plus what Outfall worked out
    /// (a reach's impairment, a disturbance polygon's site status). Sites and disturbance
    /// carry `status_code`, the site's status from the closed list (under_construction, ...)
    /// read from its typed record, or null; the source's own `status` word ("active") stays
    /// as it is.
    pub fn served_properties(&self, layer: &Layer, index: usize) -> Map<String, Value> {
        let mut props = layer.features[index].properties.to_map();
        props.extend(self.derived_properties(layer, index));
        props
    }

    /// What `served_properties` lays over the source attributes (a derived value replaces a
    /// source one of the same name), kept apart so the items writer need not clone the
    /// source.
    pub fn derived_properties(&self, layer: &Layer, index: usize) -> Map<String, Value> {
        let f = &layer.features[index];
        let mut props = crate::layer_properties::derived_properties(self.catalog, layer, index);
        match layer.config.role {
            Role::Sites => {
                if let Some(r) = self.reports.get(&f.id) {
                    site_properties(f, r, &mut props);
                }
            }
            Role::Disturbance => {
                let site = layer
                    .config
                    .site_field
                    .as_deref()
                    .and_then(|s| f.properties.text(s));
                if let Some(r) = site.and_then(|s| self.reports.get(&s)) {
                    if let Some(status) = r.site.status() {
                        props.insert("status".into(), Value::String(status.into()));
                    }
                    props.insert("status_code".into(), json!(r.site.status()));
                }
            }
            _ => {}
        }
        props
    }
}

/// What the review found about a site, so a client of the sites collection needs no
/// second call.
fn site_properties(f: &Feature, r: &Report, props: &mut Map<String, Value>) {
    props.insert("status_code".into(), json!(r.site.status()));
    props.insert("total_acres".into(), json!(r.disturbance.total_acres));
    props.insert("peak_acres".into(), json!(r.disturbance.peak_acres));
    props.insert("peak_date".into(), json!(r.disturbance.peak_date));
    props.insert(
        "outside_parcels_acres".into(),
        json!(r.disturbance.outside_parcels_acres),
    );
    for (k, v) in [
        (
            "land_development_activity",
            r.conditions.land_development_activity,
        ),
        ("condition_a", r.conditions.a),
        ("condition_b", r.conditions.b),
        ("condition_c", r.conditions.c),
        (
            "five_acre_limit_exceeded",
            r.conditions.five_acre_limit_exceeded,
        ),
        ("exempt", r.conditions.exempt),
        ("in_jurisdiction", r.conditions.in_jurisdiction),
    ] {
        props.insert(k.into(), json!(v));
    }
    props.insert(
        "receiving_waters".into(),
        json!(r.receiving_water_names.join("; ")),
    );
    // Added beside the town's own columns, never over them: the status code is
    // `status_code` (`status` is the word as the file records it), and a key the file
    // already has keeps the file's value.
    for (k, v) in record_properties(r) {
        if !f.properties.contains_key(&k) {
            props.insert(k, v);
        }
    }
}

/// The typed site record and the sources that decided each finding.
fn record_properties(r: &Report) -> Map<String, Value> {
    let mut record = Map::new();
    record.insert(
        "active_without_approval".into(),
        json!(r
            .finding(crate::law::RuleId::ActiveWithoutApproval)
            .and_then(|f| f.met)),
    );
    for (field, shape, v) in r.flat_record() {
        if let Some(name) = shape.served {
            record.insert(name.of(field).into_owned(), json!(v));
        }
    }
    for (rule, column) in crate::report::SOURCE_COLUMNS {
        record.insert(column.into(), json!(r.sources_text(rule)));
    }
    record
}
