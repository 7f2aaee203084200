//! Batch checks: a CSV of site or parcel ids, or a GeoJSON file whose features are ad-hoc
//! sites. One summary row per subject; a subject that fails gets its error in the row and the
//! batch goes on.

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::law::RuleId;
use crate::load::{self, value_text};
use crate::report::Report;
use crate::screening::{self, Subject};
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Clone)]
pub enum Item {
    Site(String),
    Parcel(String),
    AdHoc(String, Box<Subject>),
}

impl Item {
    pub fn id(&self) -> &str {
        match self {
            Item::Site(s) | Item::Parcel(s) | Item::AdHoc(s, _) => s,
        }
    }
}

/// Reads a batch file. CSV: a `site_id` or `parcel_id` column (or `id`, tried as a site, then
/// as a parcel). GeoJSON: each feature is a subject, grouped by its `site_id`/`id` property.
pub fn read_items(path: &Path, catalog: &Catalog) -> Result<Vec<Item>> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ext == "geojson" || ext == "json" {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let (features, problems) = load::parse_geojson(&text, &path.display().to_string())?;
        if let Some(p) = problems.first() {
            return Err(Error::feature(path, p.feature.clone(), p.reason.clone()));
        }
        let mut groups: Vec<(String, Vec<load::Feature>)> = Vec::new();
        for (i, f) in features.into_iter().enumerate() {
            let id = ["site_id", "id"]
                .iter()
                .find_map(|k| f.properties.text(k))
                .unwrap_or_else(|| format!("feature-{}", i + 1));
            match groups.iter_mut().find(|g| g.0 == id) {
                Some(g) => g.1.push(f),
                None => groups.push((id, vec![f])),
            }
        }
        return Ok(groups
            .into_iter()
            .map(|(id, fs)| {
                let s = Subject::ad_hoc(&id, &fs, None, &catalog.manifest.words);
                Item::AdHoc(id, Box::new(s))
            })
            .collect());
    }
    let rows = load::read_table(path)?;
    let mut items = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let get = |k: &str| row.get(k).and_then(value_text);
        let item = if let Some(s) = get("site_id") {
            Item::Site(s)
        } else if let Some(p) = get("parcel_id") {
            Item::Parcel(p)
        } else if let Some(id) = get("id") {
            if catalog.site(&id).is_ok() {
                Item::Site(id)
            } else {
                Item::Parcel(id)
            }
        } else {
            return Err(Error::feature(
                path,
                format!("row {}", i + 2),
                "needs a site_id, parcel_id or id column value",
            ));
        };
        items.push(item);
    }
    Ok(items)
}

pub fn check_item(catalog: &Catalog, item: &Item) -> Result<Report> {
    match item {
        Item::Site(id) => screening::check_site(catalog, id),
        Item::Parcel(id) => screening::check_parcel(catalog, id),
        Item::AdHoc(_, subject) => Ok(screening::check(catalog, subject)),
    }
}

/// One CSV row of a batch. The columns after `error` are the typed site record and the
/// sources that decided each finding (empty when not recorded).
#[derive(Debug, Default, Serialize)]
pub struct Row {
    pub id: String,
    pub name: String,
    pub total_acres: String,
    pub peak_acres: String,
    pub peak_date: String,
    pub outside_parcels_acres: String,
    pub land_development_activity: String,
    pub condition_a: String,
    pub condition_b: String,
    pub condition_c: String,
    pub five_acre_limit_exceeded: String,
    pub exempt: String,
    pub in_jurisdiction: String,
    pub swppp_required: String,
    pub swppp_full: String,
    pub inspections: String,
    /// Every fact a null finding is missing, `; `-separated.
    pub needs: String,
    pub receiving_waters: String,
    pub first_impaired: String,
    pub error: String,
    pub active_without_approval: String,
    /// The status code (under_construction, ...) and the word the record uses ("active").
    pub status: Option<String>,
    pub status_recorded: Option<String>,
    pub swppp_decision: Option<String>,
    pub swppp_approval_date: Option<String>,
    pub swppp_reference: Option<String>,
    pub swppp_approved_by: Option<String>,
    pub swppp_source: Option<String>,
    /// "c;k", and each claim's outcome "c:unverified;k:unverified".
    pub exemption_codes: Option<String>,
    pub exemptions_verified: Option<String>,
    pub single_family: String,
    pub single_family_source: Option<String>,
    pub agricultural: String,
    pub agricultural_source: Option<String>,
    /// `report::SOURCE_COLUMNS`: the sources of each finding, `; `-separated.
    pub exemption_sources: Option<String>,
    pub land_development_activity_sources: Option<String>,
    pub active_without_approval_sources: Option<String>,
    pub five_acre_limit_sources: Option<String>,
    pub condition_a_sources: Option<String>,
    pub condition_b_sources: Option<String>,
    pub condition_c_sources: Option<String>,
}

impl Row {
    pub fn from_result(id: &str, r: &Result<Report>) -> Row {
        match r {
            Ok(rep) => {
                let rec = rep.record_columns();
                let sources = |rule: RuleId| rep.sources_text(rule);
                Row {
                    id: id.to_string(),
                    name: rep.site.name().map(String::from).unwrap_or_default(),
                    total_acres: format!("{:.3}", rep.disturbance.total_acres),
                    peak_acres: format!("{:.3}", rep.disturbance.peak_acres),
                    peak_date: rep
                        .disturbance
                        .peak_date
                        .map(|d| d.to_string())
                        .unwrap_or_default(),
                    outside_parcels_acres: format!("{:.3}", rep.disturbance.outside_parcels_acres),
                    land_development_activity: tri(rep.conditions.land_development_activity),
                    condition_a: tri(rep.conditions.a),
                    condition_b: tri(rep.conditions.b),
                    condition_c: tri(rep.conditions.c),
                    five_acre_limit_exceeded: tri(rep.conditions.five_acre_limit_exceeded),
                    exempt: tri(rep.conditions.exempt),
                    in_jurisdiction: tri(rep.conditions.in_jurisdiction),
                    swppp_required: tri(finding(rep, RuleId::SwpppRequired)),
                    swppp_full: tri(finding(rep, RuleId::SwpppFull)),
                    inspections: tri(finding(rep, RuleId::Inspections)),
                    needs: needs(rep),
                    receiving_waters: rep.receiving_water_names.join("; "),
                    first_impaired: rep
                        .first_impaired
                        .as_ref()
                        .map(|f| f.name.clone())
                        .unwrap_or_default(),
                    error: String::new(),
                    active_without_approval: tri(finding(rep, RuleId::ActiveWithoutApproval)),
                    status: rec.status,
                    status_recorded: rec.status_recorded,
                    swppp_decision: rec.swppp_decision,
                    swppp_approval_date: rec.swppp_approval_date,
                    swppp_reference: rec.swppp_reference,
                    swppp_approved_by: rec.swppp_approved_by,
                    swppp_source: rec.swppp_source,
                    exemption_codes: rec.exemption_codes,
                    exemptions_verified: rec.exemptions_verified,
                    single_family: tri(rep.site.single_family()),
                    single_family_source: rec.single_family_source,
                    agricultural: tri(rep.site.agricultural()),
                    agricultural_source: rec.agricultural_source,
                    exemption_sources: sources(RuleId::Exemption),
                    land_development_activity_sources: sources(RuleId::LandDevelopmentActivity),
                    active_without_approval_sources: sources(RuleId::ActiveWithoutApproval),
                    five_acre_limit_sources: sources(RuleId::FiveAcreLimit),
                    condition_a_sources: sources(RuleId::ConditionA),
                    condition_b_sources: sources(RuleId::ConditionB),
                    condition_c_sources: sources(RuleId::ConditionC),
                }
            }
            Err(e) => Row {
                id: id.to_string(),
                error: e.to_string(),
                ..Row::default()
            },
        }
    }
}

/// A tri-state outcome for a CSV cell.
fn tri(v: Option<bool>) -> String {
    v.map_or("undetermined".into(), |b| b.to_string())
}

fn finding(r: &Report, id: RuleId) -> Option<bool> {
    r.findings.iter().find(|f| f.rule == id).and_then(|f| f.met)
}

fn needs(r: &Report) -> String {
    let mut all: Vec<&str> = Vec::new();
    for m in r.findings.iter().flat_map(|f| &f.missing) {
        if !all.contains(&m.as_str()) {
            all.push(m);
        }
    }
    all.join("; ")
}
