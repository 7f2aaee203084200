//! The site record as it was read before `record::Site`: `read_claims`, kept until every
//! reader takes the typed record. The value types live in `record` and are re-exported here.

mod read;

pub use crate::record::code_of;
pub use crate::vocabulary::site::{
    lookup, normalize, Vocabulary, VocabularyConfig, APPROVAL_CODES, BODY_CODES, EXEMPTION_CODES,
    LAND_USE_CODES, STATUS_CODES,
};
pub use read::{read_claims, SiteColumns};

pub use crate::record::{
    ApprovingBody, Decision, Evidence, ExemptionClaim, SiteStatus, Sourced, Stated, SwpppApproval,
};
use serde::Serialize;

/// The typed record of a site, read from its attributes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteClaims {
    pub status: Stated<SiteStatus>,
    pub approval: Stated<SwpppApproval>,
    pub exemptions: Vec<ExemptionClaim>,
    /// The site record's own statement of the work's land use (single-family residence,
    /// agricultural), before any parcel-class fallback.
    pub single_family: Sourced,
    pub agricultural: Sourced,
    /// Part of a larger common plan of development or sale (6).
    pub common_plan: Option<bool>,
    pub common_plan_acres: Option<f64>,
    /// What could not be read, each naming the field and the value.
    pub problems: Vec<String>,
}
