//! The report's `site` block: who and what the subject is, what its record states, and what
//! the check concluded about the record's own fields (the land use after the parcel-class
//! fallback, each claim's outcome). The record is the one its edge built, shared, not copied
//! into fields of its own; its keys come from the declaration, in its order.

use crate::record::{ExemptionClaim, Outcomes, Site, SwpppApproval};
use crate::subject::SubjectKind;
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct SiteInfo {
    pub id: String,
    /// "site", "parcel" or "drawn".
    pub kind: SubjectKind,
    /// What the subject's record states.
    pub record: Arc<Site>,
    /// What the check concluded about the record's fields.
    pub outcomes: Outcomes,
    /// The parcels the subject covers: those it names, else those its disturbance meets.
    pub parcel_ids: Vec<String>,
    /// [min lon, min lat, max lon, max lat]
    pub bbox: Option<[f64; 4]>,
}

/// `id`, `kind`, the record's block (`Site::report_block`), `record_problems`, `parcel_ids`,
/// `bbox`, in that order: a stable contract that a `serde_json::Map` (sorted) would break.
impl Serialize for SiteInfo {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("kind", &self.kind)?;
        self.record.report_block(&self.outcomes, &mut map)?;
        map.serialize_entry("record_problems", &self.record.problems)?;
        map.serialize_entry("parcel_ids", &self.parcel_ids)?;
        map.serialize_entry("bbox", &self.bbox)?;
        map.end()
    }
}

/// The block's values, for the readers that show them (calendar, text and HTML reports,
/// lists).
impl SiteInfo {
    pub fn name(&self) -> Option<&str> {
        self.record.name.as_deref()
    }

    /// The status code of the closed list (planned, approved, under_construction,
    /// stabilized, closed, withdrawn); None when not recorded or in words no vocabulary knows.
    pub fn status(&self) -> Option<&'static str> {
        self.record.status.code()
    }

    /// The status as the record words it ("active", "in progress").
    pub fn status_recorded(&self) -> Option<&str> {
        self.record.status.recorded.as_deref()
    }

    pub fn address(&self) -> Option<&str> {
        self.record.address.as_deref()
    }

    pub fn applicant(&self) -> Option<&str> {
        self.record.applicant.as_deref()
    }

    /// The work is the construction of a single-family residence; None when no source says.
    pub fn single_family(&self) -> Option<bool> {
        self.outcomes.single_family.value
    }

    /// Which source decided it: "site record: land_use", "parcel class 210".
    pub fn single_family_source(&self) -> Option<&str> {
        self.outcomes.single_family.source.as_deref()
    }

    pub fn agricultural(&self) -> Option<bool> {
        self.outcomes.agricultural.value
    }

    pub fn agricultural_source(&self) -> Option<&str> {
        self.outcomes.agricultural.source.as_deref()
    }

    pub fn common_plan(&self) -> Option<bool> {
        self.record.common_plan
    }

    pub fn common_plan_acres(&self) -> Option<f64> {
        self.record.common_plan_acres
    }

    /// The recorded decision on the SWPPP, when one can be read.
    pub fn swppp_approval(&self) -> Option<&SwpppApproval> {
        self.record.swppp_approval.known()
    }

    /// An approved SWPPP is recorded.
    pub fn approved_swppp(&self) -> bool {
        self.swppp_approval().is_some_and(|a| a.approved())
    }

    /// The claimed (5) exemptions, typed: code, evidence, who verified them and when.
    pub fn exemption_claims(&self) -> &[ExemptionClaim] {
        &self.record.exemption_claims
    }

    /// Values of the site record that cannot be read, each naming its field.
    pub fn record_problems(&self) -> &[String] {
        &self.record.problems
    }
}
