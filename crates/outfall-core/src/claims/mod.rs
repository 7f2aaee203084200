//! The record's value types and word tables under their older path, for the registry and
//! the other crates until they name `record` and `vocabulary` themselves.

pub use crate::record::code_of;
pub use crate::record::{
    ApprovingBody, Decision, Evidence, ExemptionClaim, SiteStatus, Sourced, Stated, SwpppApproval,
};
pub use crate::vocabulary::site::{
    lookup, normalize, Vocabulary, VocabularyConfig, APPROVAL_CODES, BODY_CODES, EXEMPTION_CODES,
    LAND_USE_CODES, STATUS_CODES,
};
