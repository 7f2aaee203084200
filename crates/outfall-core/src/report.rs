//! The site report: one serde struct whose JSON keys are a stable contract (CLI `--json`,
//! `GET /sites/{id}/report`), plus its plain-text rendering for the CLI.

use crate::area::{PhaseAcres, PhaseOverlap};
pub use crate::facts::{DivergenceInfo, Jurisdiction, Reach, ReceivingWater, TmdlWatershed};
pub use crate::law::Finding;
use crate::load::{LoadProblem, SourceInfo};
use chrono::NaiveDate;
use serde::Serialize;
use std::sync::Arc;

mod site;
mod text;

use crate::record::{Field, FlatShape};

pub use site::SiteInfo;

pub use text::trace_path;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub site: SiteInfo,
    pub disturbance: Disturbance,
    /// The outcomes of the main findings, for lists and maps; the findings say why.
    pub conditions: Conditions,
    /// The names an applicant writes in the SWPPP, (7)(b)[1][m].
    pub receiving_water_names: Vec<String>,
    /// Where a name comes from when it is not the national data set's own: "Mud Creek: name
    /// from DEC monitoring site 07-MUDE-4.4 ...; NHD: unnamed tributary to Oneida River".
    pub receiving_water_sources: Vec<String>,
    pub receiving_waters: Vec<ReceivingWater>,
    pub entry: Entry,
    /// The view a map of this report shows (viewer and printed inset alike): the site, the
    /// outfall point, the entry reach and the path to the first impaired water.
    pub frame_bbox: Option<[f64; 4]>,
    /// From the site's nearest edge to the applicant's outfall point, [[lon, lat], [lon, lat]].
    pub outfall_path: Option<[[f64; 2]; 2]>,
    pub downstream: Vec<Reach>,
    /// Why the trace stopped: "outlet", "limit (50 km)" or "cycle (back to reach X)".
    pub trace_end: Option<String>,
    pub divergences: Vec<DivergenceInfo>,
    pub first_impaired: Option<ImpairedWater>,
    /// Listed waters that receive the discharge (first receiving water and the path).
    pub impaired_waters: Vec<ImpairedWater>,
    /// TMDL watersheds the discharge enters, with where (`via`).
    pub tmdl_watersheds: Vec<TmdlWatershed>,
    pub jurisdiction: Jurisdiction,
    pub findings: Vec<Finding>,
    pub data: DataInfo,
}

/// A listed (303(d)) water that receives the discharge: the facts of `facts::Impaired`, and
/// which of its causes the law counts as pollutants of concern under the construction reading.
#[derive(Debug, Clone, Serialize)]
pub struct ImpairedWater {
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
    /// Causes that are pollutants of concern under the construction reading (whatever
    /// reading the rules choose): `law::construction_causes`.
    pub construction_causes: Vec<String>,
    /// It is the first receiving water.
    pub first_receiving: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Disturbance {
    pub total_acres: f64,
    pub peak_acres: f64,
    pub peak_date: Option<NaiveDate>,
    pub phases: Vec<PhaseAcres>,
    /// Phases disturbed at the same time (the later cleared before the earlier stabilised).
    pub overlaps: Vec<PhaseOverlap>,
    pub outside_parcels_acres: f64,
    pub polygons: usize,
}

/// `null` means the loaded data cannot decide; the finding names the missing facts.
#[derive(Debug, Clone, Serialize)]
pub struct Conditions {
    pub land_development_activity: Option<bool>,
    #[serde(rename = "A")]
    pub a: Option<bool>,
    #[serde(rename = "B")]
    pub b: Option<bool>,
    #[serde(rename = "C")]
    pub c: Option<bool>,
    pub five_acre_limit_exceeded: Option<bool>,
    /// A verified (5) exemption applies.
    pub exempt: Option<bool>,
    /// The law applies where the site lies (4).
    pub in_jurisdiction: Option<bool>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// "storm_sewer", "nearest", "outfall_point", "catchment" or "none"
    pub rule: String,
    pub reach_id: Option<String>,
    /// The first receiving water (flowline or waterbody id) and its kind.
    pub water_id: Option<String>,
    pub water_kind: Option<String>,
    pub distance_m: Option<f64>,
    pub reason: String,
    /// The applicant's outfall point [lon, lat], when given.
    pub outfall: Option<[f64; 2]>,
    /// The storm-sewer trace (inlets, pipes with their evidence, outfalls and their
    /// receiving waters), when the site's runoff enters inlets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sewer: Option<crate::facts::water::SewerFacts>,
}

/// A list shared by every report of a catalog, written as the plain list (serde's `rc`
/// feature would do the same for every `Arc` in the build).
fn shared<T: Serialize, S: serde::Serializer>(v: &Arc<[T]>, s: S) -> Result<S::Ok, S::Error> {
    v.as_ref().serialize(s)
}

#[derive(Debug, Clone, Serialize)]
pub struct DataInfo {
    pub law: std::sync::Arc<str>,
    pub data_set: String,
    #[serde(serialize_with = "shared")]
    pub layers: Arc<[SourceInfo]>,
    #[serde(serialize_with = "shared")]
    pub problems: Arc<[LoadProblem]>,
    /// The date of the check.
    pub generated: NaiveDate,
    pub outfall_version: &'static str,
}

/// The findings whose deciding sources the flat outputs carry, with their column names
/// (`<rule>_sources`).
pub const SOURCE_COLUMNS: [(crate::law::RuleId, &str); 7] = [
    (crate::law::RuleId::Exemption, "exemption_sources"),
    (
        crate::law::RuleId::LandDevelopmentActivity,
        "land_development_activity_sources",
    ),
    (
        crate::law::RuleId::ActiveWithoutApproval,
        "active_without_approval_sources",
    ),
    (crate::law::RuleId::FiveAcreLimit, "five_acre_limit_sources"),
    (crate::law::RuleId::ConditionA, "condition_a_sources"),
    (crate::law::RuleId::ConditionB, "condition_b_sources"),
    (crate::law::RuleId::ConditionC, "condition_c_sources"),
];

impl Report {
    /// The finding of a rule.
    pub fn finding(&self, id: crate::law::RuleId) -> Option<&Finding> {
        self.findings.iter().find(|f| f.rule == id)
    }

    /// The sources that decided a finding, `; `-separated ("disturbance polygons; parcel
    /// class 449"); `None` when the report has no such finding.
    pub fn sources_text(&self, id: crate::law::RuleId) -> Option<String> {
        self.finding(id).map(|f| f.sources.join("; "))
    }

    /// The typed site record flat, one text per column (`None`: an empty CSV cell, a JSON
    /// `null`), for the batch CSV, the disturbance export and the served sites: each column
    /// with its field and its names, in the declaration's `flat(...)` order.
    pub fn flat_record(&self) -> Vec<(&'static Field, &'static FlatShape, Option<String>)> {
        self.site.record.flat(&self.site.outcomes)
    }
}
