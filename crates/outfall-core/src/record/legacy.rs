//! The older columns of a site record, read at the file and registry edges only, and only by
//! the types whose fields replaced them: the `approved_swppp` text and the flat `swppp_*`
//! columns (the approval), the `exemptions` text with the evidence in the site's own columns
//! (the claims), and the `single_family` / `agricultural` flags (the land use). Each is
//! converted only where the conversion is certain.

use super::declare::{FlatShape, Get, Name};
use super::read::{claim, decision_of, text};
use super::types::{Decision, ExemptionClaim, Stated, SwpppApproval};
use super::Evidence;
use crate::load::{split_list, value_text};
use crate::record::FieldType;
use crate::vocabulary::site::Vocabulary;
use chrono::NaiveDate;
use serde_json::{Map, Value};

pub use super::types::{AGRICULTURAL, SINGLE_FAMILY};
/// The old free-text approval ("the approval's date or reference").
pub const APPROVAL_TEXT: &str = "approved_swppp";
/// The old free-text list of claimed exemptions; also the report's list of claims as written.
pub const CLAIMS_TEXT: &str = "exemptions";
/// Who confirmed the claims of the old text, and when, stated on the site.
pub const VERIFIED_BY: &str = "exemption_verified_by";
pub const VERIFIED_ON: &str = "exemption_verified_on";

const fn column(csv: &'static str, dbf: Option<&'static str>, long_text: bool) -> FlatShape {
    FlatShape {
        csv: Name::Exact(csv),
        dbf: match dbf {
            Some(d) => Some(Name::Exact(d)),
            None => None,
        },
        served: Some(Name::Exact(csv)),
        long_text,
    }
}

/// The approval as flat columns: the files without objects write these, and the flat
/// outputs list them, with where the approval was read.
pub const APPROVAL_FLAT: [FlatShape; 5] = [
    column("swppp_decision", Some("swppp_dec"), false),
    column("swppp_approval_date", Some("swppp_date"), false),
    column("swppp_reference", Some("swppp_ref"), false),
    column("swppp_approved_by", Some("swppp_by"), false),
    column("swppp_source", None, false),
];

/// The claims as flat columns: the letters claimed and each claim's outcome.
pub const CLAIMS_FLAT: [FlatShape; 2] = [
    column("exemption_codes", Some("exemptions"), true),
    column("exemptions_verified", Some("exempt_ver"), true),
];

/// The approval's flat columns, as the object's keys, when any holds a value.
pub(super) fn approval_columns(get: Get) -> Option<Map<String, Value>> {
    let keys = ["decision", "date", "reference", "body"];
    let m: Map<String, Value> = keys
        .iter()
        .zip(&APPROVAL_FLAT)
        .filter_map(|(k, shape)| match shape.csv {
            Name::Exact(col) => get(col).map(|v| (k.to_string(), v)),
            _ => None,
        })
        .filter(|(_, v)| value_text(v).is_some())
        .collect();
    (!m.is_empty()).then_some(m)
}

/// The old `approved_swppp` text, documented as "the approval's date or reference". Converted
/// when certain: a date (with an optional reference after it), a single reference token with
/// a digit in it, or a decision word; anything else is unreadable, and the problem says how
/// to record it as the field `at`.
pub(super) fn approval_text(
    at: &str,
    t: &str,
    words: &Vocabulary,
    problems: &mut Vec<String>,
) -> Stated<SwpppApproval> {
    let source = format!("{APPROVAL_TEXT} text '{t}'");
    let approved = |date: Option<NaiveDate>, reference: Option<String>| {
        Stated::Known(SwpppApproval {
            decision: Decision::Approved,
            date,
            reference,
            body: None,
            source: source.clone(),
        })
    };
    let (head, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    if let Some(d) = crate::area::parse_date(head).filter(|_| head.len() >= 8) {
        let rest = rest.trim();
        return approved(Some(d), (!rest.is_empty()).then(|| rest.to_string()));
    }
    if let Some(d) = decision_of(words, t) {
        return match d {
            None => Stated::NotRecorded,
            Some(decision) => Stated::Known(SwpppApproval {
                decision,
                date: None,
                reference: None,
                body: None,
                source,
            }),
        };
    }
    let token = !t.contains(char::is_whitespace)
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars().any(|c| c.is_ascii_alphabetic() || c == '#');
    if token {
        return approved(None, Some(t.to_string()));
    }
    problems.push(format!(
        "{APPROVAL_TEXT} '{t}' is neither a date, a reference nor a decision word (approved, denied, pending, withdrawn); record the approval as {at} {{decision, date, reference, body}}"
    ));
    Stated::Unreadable(t.to_string())
}

/// The evidence and confirmation stated on the site itself, for claims that carry none.
pub(super) struct SiteEvidence {
    pub evidence: Evidence,
    verified_by: Option<String>,
    verified_on: Option<NaiveDate>,
}

impl SiteEvidence {
    pub fn verified(&self) -> (Option<String>, Option<NaiveDate>) {
        (self.verified_by.clone(), self.verified_on)
    }
}

/// Read whether or not any claim uses it, so that its problems are always listed.
pub(super) fn site_evidence(
    get: Get,
    words: &Vocabulary,
    problems: &mut Vec<String>,
) -> SiteEvidence {
    let evidence = Evidence::read(get, words, problems);
    SiteEvidence {
        evidence,
        verified_by: text(get, VERIFIED_BY),
        verified_on: Option::<NaiveDate>::read(VERIFIED_ON, get, words, problems),
    }
}

/// The old `exemptions` text ("c; k", "(5)(c)", "routine maintenance"), each claim with the
/// site's evidence.
pub(super) fn claims_text(
    get: Get,
    site: &SiteEvidence,
    words: &Vocabulary,
    problems: &mut Vec<String>,
) -> Vec<ExemptionClaim> {
    split_list(get(CLAIMS_TEXT).as_ref())
        .into_iter()
        .map(|s| claim(s, site.evidence.clone(), site.verified(), words, problems))
        .collect()
}
