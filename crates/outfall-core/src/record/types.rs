//! The values of the site record, typed: its status, the SWPPP approval, the (5) exemptions
//! it claims with the evidence each clause names, and the land use of the work. Free text is
//! read only through the vocabularies, whole words at a time; a value no vocabulary knows is
//! kept as `Stated::Unreadable` with a problem naming it, so a rule that needs it answers
//! `null` instead of guessing.

use super::Evidence;
use crate::vocabulary::site::{APPROVAL_CODES, STATUS_CODES};
use chrono::NaiveDate;
use serde::Serialize;

/// The older land-use flags; also the names of the outcomes the report shows.
pub const SINGLE_FAMILY: &str = "single_family";
/// The older agricultural flag (see [`SINGLE_FAMILY`]).
pub const AGRICULTURAL: &str = "agricultural";

/// A fact of the record: known, not recorded, or recorded in words no vocabulary knows.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stated<T> {
    Known(T),
    #[default]
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

/// A value of a closed list, and the word the record used for it ("active" for
/// under_construction).
#[derive(Debug, Clone, PartialEq)]
pub struct Coded<T> {
    pub value: Stated<T>,
    pub recorded: Option<String>,
}

impl<T> Default for Coded<T> {
    fn default() -> Self {
        Coded {
            value: Stated::NotRecorded,
            recorded: None,
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

/// What the work is, as the record's land-use code says (`LAND_USE_CODES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LandUse {
    SingleFamilyResidence,
    Agricultural,
    Other,
}

impl LandUse {
    pub fn parse(code: &str) -> Option<LandUse> {
        match code {
            "single_family_residence" => Some(LandUse::SingleFamilyResidence),
            "agricultural" => Some(LandUse::Agricultural),
            "other" => Some(LandUse::Other),
            _ => None,
        }
    }
}

/// The record's statement of land use, and which column made it: the findings' sources
/// ("site record: land_use" or "site record: single_family") depend on it.
#[derive(Debug, Clone, PartialEq)]
pub enum LandUseStatement {
    /// The land-use code (or a word for it).
    Code(Coded<LandUse>),
    /// The older yes/no columns, read when no land use is recorded.
    Flags {
        single_family: Option<bool>,
        agricultural: Option<bool>,
    },
}

impl Default for LandUseStatement {
    fn default() -> Self {
        LandUseStatement::Flags {
            single_family: None,
            agricultural: None,
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

    /// The code ("planning_board").
    pub fn as_str(self) -> &'static str {
        crate::vocabulary::site::BODY_CODES[self as usize]
    }
}

/// The recorded decision on the site's SWPPP.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwpppApproval {
    pub decision: Decision,
    pub date: Option<NaiveDate>,
    pub reference: Option<String>,
    pub body: Option<ApprovingBody>,
    /// Where it was read from: the field's name, or "approved_swppp text '...'" for a row
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
            .chain(self.body.map(|b| b.as_str().replace('_', " ")))
            .collect();
        if !extra.is_empty() {
            s += &format!(" ({})", extra.join(", "));
        }
        s
    }
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

impl Sourced {
    /// Nothing says.
    pub const UNKNOWN: Sourced = Sourced {
        value: None,
        source: None,
    };
}

impl LandUseStatement {
    /// The statement as two yes/no facts (a single-family residence; agricultural), each
    /// with the column that made it: `field` (the land use) or the older flag. An unreadable
    /// land use states neither.
    pub fn said(&self, field: &super::Field) -> (Sourced, Sourced) {
        let said = |value: Option<bool>, column: &str| Sourced {
            value,
            source: value.map(|_| format!("site record: {column}")),
        };
        match self {
            LandUseStatement::Code(c) => match c.value.known() {
                Some(u) => (
                    said(Some(*u == LandUse::SingleFamilyResidence), field.name),
                    said(Some(*u == LandUse::Agricultural), field.name),
                ),
                None => (Sourced::UNKNOWN, Sourced::UNKNOWN),
            },
            LandUseStatement::Flags {
                single_family,
                agricultural,
            } => (
                said(*single_family, SINGLE_FAMILY),
                said(*agricultural, AGRICULTURAL),
            ),
        }
    }
}
