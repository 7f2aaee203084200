//! What a site's record states about itself, typed: its status, the SWPPP approval, the
//! (5) exemptions it claims with the evidence each clause names, and the land use of the
//! work. Free text is read only through the vocabularies, whole words at a time; a value no
//! vocabulary knows is kept as `Stated::Unreadable` with a problem naming it, so a rule that
//! needs it answers `null` instead of guessing.

mod read;

pub use crate::vocabulary::site::{
    lookup, normalize, Vocabulary, VocabularyConfig, APPROVAL_CODES, BODY_CODES, EXEMPTION_CODES,
    LAND_USE_CODES, STATUS_CODES,
};
pub use read::{code_of, read_claims, SiteColumns};

use chrono::NaiveDate;
use serde::Serialize;

/// A fact of the record: known, not recorded, or recorded in words no vocabulary knows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stated<T> {
    Known(T),
    NotRecorded,
    /// The value as written.
    Unreadable(String),
}

impl<T> Stated<T> {
    pub fn known(&self) -> Option<&T> {
        match self {
            Stated::Known(t) => Some(t),
            _ => None,
        }
    }
}

/// The closed list of a site's statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SiteStatus {
    Planned,
    Approved,
    UnderConstruction,
    Stabilized,
    Closed,
    Withdrawn,
}

impl SiteStatus {
    pub fn parse(code: &str) -> Option<SiteStatus> {
        use SiteStatus::*;
        Some(match code {
            "planned" => Planned,
            "approved" => Approved,
            "under_construction" => UnderConstruction,
            "stabilized" => Stabilized,
            "closed" => Closed,
            "withdrawn" => Withdrawn,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        STATUS_CODES[self as usize]
    }

    /// In words, for reasons.
    pub fn words(self) -> &'static str {
        match self {
            SiteStatus::UnderConstruction => "under construction",
            s => s.as_str(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Approved,
    Denied,
    Pending,
    Withdrawn,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        APPROVAL_CODES[self as usize]
    }
}

/// Who approved a SWPPP: (4)(c) the Planning Board or Town Board, (4)(d) the officer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovingBody {
    PlanningBoard,
    TownBoard,
    Officer,
}

impl ApprovingBody {
    pub fn parse(code: &str) -> Option<ApprovingBody> {
        match code {
            "planning_board" => Some(ApprovingBody::PlanningBoard),
            "town_board" => Some(ApprovingBody::TownBoard),
            "officer" => Some(ApprovingBody::Officer),
            _ => None,
        }
    }
}

/// The recorded decision on the site's SWPPP.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwpppApproval {
    pub decision: Decision,
    pub date: Option<NaiveDate>,
    pub reference: Option<String>,
    pub body: Option<ApprovingBody>,
    /// Where it was read from: "swppp_approval", or "approved_swppp text '...'" for a row
    /// converted from the old free-text column.
    pub source: String,
}

impl SwpppApproval {
    pub fn approved(&self) -> bool {
        self.decision == Decision::Approved
    }

    /// "approved 2026-03-20 (SWPPP-2026-014, officer)".
    pub fn describe(&self) -> String {
        let mut s = self.decision.as_str().to_string();
        if let Some(d) = self.date {
            s += &format!(" {d}");
        }
        let extra: Vec<String> = self
            .reference
            .iter()
            .cloned()
            .chain(self.body.map(|b| {
                serde_json::to_value(b)
                    .ok()
                    .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
                    .unwrap_or_default()
            }))
            .collect();
        if !extra.is_empty() {
            s += &format!(" ({})", extra.join(", "));
        }
        s
    }
}

/// The evidence the (5) clauses name, as the record states it. Each is `None` when not
/// recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Evidence {
    /// (a): the work builds new structures, which "Agricultural Activity" excludes.
    pub new_structures: Option<bool>,
    /// (b): the silvicultural work includes landing areas or log haul roads.
    pub landing_or_haul_road: Option<bool>,
    /// (c): performed to maintain the original line and grade, hydraulic capacity or purpose.
    pub maintains_original: Option<bool>,
    /// (d): the officer deemed the repair necessary.
    pub repair_deemed_necessary: Option<bool>,
    /// (e): the date the Town approved the subdivision plat.
    pub plat_approved: Option<NaiveDate>,
    /// (f): the date the building permit was approved.
    pub building_permit_approved: Option<NaiveDate>,
    /// (i): the officer's finding that the work is "immediately necessary to protect life,
    /// property or natural resources".
    pub immediately_necessary: Option<bool>,
    /// (j): the officer's finding that the gardening is "primarily for use by that person
    /// and his or her family".
    pub personal_use: Option<bool>,
    /// (k): the officer's finding that the work is "in connection with an existing structure".
    pub existing_structure: Option<bool>,
    /// (g), (h): the officer's finding that the work is only the activity named.
    pub activity_only: Option<bool>,
}

/// One claimed exemption.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExemptionClaim {
    /// The claim as written.
    pub stated: String,
    /// The (5) letter, or None when no vocabulary word names one.
    pub code: Option<char>,
    pub evidence: Evidence,
    pub verified_by: Option<String>,
    pub verified_on: Option<NaiveDate>,
}

/// A yes/no fact with the source that decided it ("site record: land_use", "parcel class 210").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sourced {
    pub value: Option<bool>,
    pub source: Option<String>,
}

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
