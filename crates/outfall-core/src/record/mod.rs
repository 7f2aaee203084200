//! What the town records about its sites: the site record itself, one typed value declared
//! once (`site.rs`) and built once at each edge (a file, a registry row, a drawn plan), and
//! what is recorded over time, shared by the site registry (which stores it) and the
//! inspection calendar (which reads it). Plain data: no storage, no judgement.

mod declare;
mod edges;
mod fields;
mod legacy;
mod read;
mod site;
mod types;

pub use crate::logbook::{Inspection, InspectionQuery, Listing, RainfallDay};
pub use declare::{
    problems_in_order, Field, FieldType, FlatShape, Get, May, Name, Outcomes, ReportAs, Store,
};
pub use fields::Code;
pub use read::code_of;
pub use site::{Evidence, EvidenceFields, Site, SiteFields, EVIDENCE, SITE};
pub use types::{
    ApprovingBody, Coded, Decision, ExemptionClaim, LandUse, LandUseStatement, SiteStatus, Sourced,
    Stated, SwpppApproval,
};

impl Site {
    /// The record's own statement of land use, before any parcel-class fallback: whether
    /// the work is a single-family residence and whether it is agricultural, with the column
    /// that said so.
    pub fn land_use_said(&self) -> (Sourced, Sourced) {
        self.land_use.said(&SITE.land_use)
    }
}

#[cfg(test)]
mod tests;
