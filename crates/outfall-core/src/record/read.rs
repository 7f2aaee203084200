//! The plain readings every field of the record shares (a text, an approval's decision
//! word, an exemption claim and its letter), below both the fields and the older columns
//! that read through them.

use super::types::{Decision, ExemptionClaim};
use super::{Evidence, Get};
use crate::load::value_text;
use crate::vocabulary::normalize;
use crate::vocabulary::site::{lookup, Vocabulary};
use chrono::NaiveDate;

/// A field's value as text: trimmed, blank as absent.
pub(super) fn text(get: Get, at: &str) -> Option<String> {
    get(at).as_ref().and_then(value_text)
}

/// The decision words of the approval vocabulary; "none" means no approval is recorded.
pub(super) fn decision_of(words: &Vocabulary, word: &str) -> Option<Option<Decision>> {
    Some(match lookup(&words.approval, word)? {
        "approved" => Some(Decision::Approved),
        "denied" => Some(Decision::Denied),
        "pending" => Some(Decision::Pending),
        "withdrawn" => Some(Decision::Withdrawn),
        _ => None,
    })
}

/// The (5) letter a claim names: the letter in any of its written forms ("c", "(c)", "5c",
/// "(5)(c)", "§230-20 D(5)(c)"), or a whole phrase of the exemption vocabulary.
pub fn code_of(claim: &str, words: &Vocabulary) -> Option<char> {
    let n = normalize(claim);
    let bare = n.strip_prefix("230 20 d ").unwrap_or(&n);
    let bare = bare
        .strip_prefix("5 ")
        .or_else(|| bare.strip_prefix('5'))
        .unwrap_or(bare);
    if bare.len() == 1 {
        return bare.chars().next().filter(|c| ('a'..='k').contains(c));
    }
    lookup(&words.exemption, claim).and_then(|c| c.chars().next())
}

/// A claim as stated, with its (5) letter when a written form or a vocabulary word names one.
pub(super) fn claim(
    stated: String,
    evidence: Evidence,
    verified: (Option<String>, Option<NaiveDate>),
    words: &Vocabulary,
    problems: &mut Vec<String>,
) -> ExemptionClaim {
    let code = code_of(&stated, words);
    if code.is_none() {
        problems.push(format!(
            "exemption '{stated}' names none of the exemptions (5)(a)-(k); write the letter or a word of [vocabulary.exemption]"
        ));
    }
    ExemptionClaim {
        stated,
        code,
        evidence,
        verified_by: verified.0,
        verified_on: verified.1,
    }
}
