//! §230-20 D(5): the closed list of exemptions (a)–(k), each with the law's own conditions.
//! A claim is verified only when the site's record shows its condition; otherwise it stays
//! "claimed, unverified" and changes no requirement.

use crate::config::Rules;
use crate::facts::Facts;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub letter: char,
    pub words: &'static str,
    /// Words that name it in a site record.
    keywords: &'static [&'static str],
}

pub const CODES: [Code; 11] = [
    Code { letter: 'a', words: "Agricultural activity as defined in this local law", keywords: &["agricultur", "farm"] },
    Code { letter: 'b', words: "Silvicultural activity except that landing areas and log haul roads are subject to this law", keywords: &["silvicult", "forestry", "logging", "timber"] },
    Code { letter: 'c', words: "Routine maintenance activities that disturb less than five acres and are performed to maintain the original line and grade, hydraulic capacity or original purpose of a facility", keywords: &["maintenance"] },
    Code { letter: 'd', words: "Repairs to any stormwater management practice or facility deemed necessary by the Stormwater Management Officer", keywords: &["repair"] },
    Code { letter: 'e', words: "Any part of a subdivision if a plat for the subdivision has been approved by the Town of Clay on or before the effective date of this law", keywords: &["plat", "subdivision"] },
    Code { letter: 'f', words: "Land development activities for which a building permit has been approved on or before the effective date of this law", keywords: &["building permit", "permit"] },
    Code { letter: 'g', words: "Cemetery graves", keywords: &["cemetery", "grave"] },
    Code { letter: 'h', words: "Installation of fence, sign, telephone, and electric poles and other kinds of posts or poles", keywords: &["fence", "sign", "pole", "post"] },
    Code { letter: 'i', words: "Emergency activity immediately necessary to protect life, property or natural resources", keywords: &["emergency"] },
    Code { letter: 'j', words: "Activities of an individual engaging in home gardening by growing flowers, vegetable and other plants primarily for use by that person and his or her family", keywords: &["garden"] },
    Code { letter: 'k', words: "Landscaping and horticultural activities in connection with an existing structure", keywords: &["landscap", "horticult"] },
];

/// The (5) code a claim names: a letter ("c", "(c)", "5c", "5(c)", "(5)(c)") or its words.
pub fn code_of(claim: &str) -> Option<&'static Code> {
    let lower = claim.trim().to_ascii_lowercase();
    let bare: String = lower
        .trim_start_matches("§230-20 d")
        .chars()
        .filter(|c| !matches!(c, '(' | ')' | ' ' | '.'))
        .collect();
    let bare = bare.strip_prefix('5').unwrap_or(&bare);
    if bare.len() == 1 {
        let letter = bare.chars().next()?;
        return CODES.iter().find(|c| c.letter == letter);
    }
    CODES
        .iter()
        .find(|c| c.keywords.iter().any(|k| lower.contains(k)))
}

/// The outcome of one claim: verified (Some(true)), refuted by the record (Some(false)),
/// or unverified (None) with the fact the officer must confirm.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimCheck {
    pub claim: String,
    pub code: Option<char>,
    pub applies: Option<bool>,
    pub why: String,
    pub missing: Option<String>,
}

fn yes_no_missing(v: Option<bool>, want: bool, fact: &str) -> (Option<bool>, Option<String>) {
    match v {
        Some(x) => (Some(x == want), None),
        None => (None, Some(fact.to_string())),
    }
}

/// Checks one claim against the law's conditions for its code.
pub fn check_claim(claim: &str, f: &Facts, r: &Rules) -> ClaimCheck {
    let Some(code) = code_of(claim) else {
        return ClaimCheck {
            claim: claim.into(),
            code: None,
            applies: None,
            why: format!("'{claim}' names none of the exemptions (5)(a)–(k): claimed, unverified; the officer must confirm which exemption is meant."),
            missing: Some("which (5) exemption is claimed".into()),
        };
    };
    let c = &f.claims;
    let label = format!("(5)({}) \"{}\"", code.letter, code.words);
    let (applies, missing, why): (Option<bool>, Option<String>, String) = match code.letter {
        'a' => {
            let (ok, miss) = yes_no_missing(c.new_structures, false, "whether new structures are built (site record: new_structures)");
            let why = match c.new_structures {
                Some(true) => "the work includes new structures, and \"Agricultural Activity\" (6) \"shall not include ... the construction of new structures associated with agricultural activities\"".to_string(),
                Some(false) if !c.agricultural => "the site is not recorded as an active farm (agricultural)".to_string(),
                Some(false) => "an active farm's work with no new structures".to_string(),
                None => "the record does not say whether new structures are built, which the definition of \"Agricultural Activity\" excludes".to_string(),
            };
            (ok.map(|v| v && c.agricultural), miss, why)
        }
        'b' => {
            let (ok, miss) = yes_no_missing(c.landing_or_haul_road, false, "whether the work includes landing areas or log haul roads (landing_or_haul_road)");
            (ok, miss, "landing areas and log haul roads remain subject to the law".into())
        }
        'c' => {
            let small = f.acreage.total_acres < r.maintenance_max_acres;
            let (ok, miss) = yes_no_missing(c.maintains_original, true, "whether the work maintains the original line and grade, hydraulic capacity or original purpose (maintains_original)");
            let why = format!(
                "{:.2} acres disturbed ({} the {} acre limit); original line, grade, capacity or purpose maintained: {}",
                f.acreage.total_acres,
                if small { "under" } else { "not under" },
                r.maintenance_max_acres,
                match c.maintains_original { Some(true) => "yes", Some(false) => "no", None => "not recorded" }
            );
            if !small {
                (Some(false), None, why)
            } else {
                (ok, miss, why)
            }
        }
        'd' => {
            let (ok, miss) = yes_no_missing(c.repair_deemed_necessary, true, "the Stormwater Management Officer's finding that the repair is necessary (repair_deemed_necessary)");
            (ok, miss, "the repair must be deemed necessary by the Stormwater Management Officer".into())
        }
        'e' | 'f' => {
            let (date, field) = if code.letter == 'e' {
                (c.plat_approved, "plat_approved")
            } else {
                (c.building_permit_approved, "building_permit_approved")
            };
            match date {
                Some(d) => (
                    Some(d <= r.effective_date),
                    None,
                    format!("approved {d}; the law took effect {}", r.effective_date),
                ),
                None => (
                    None,
                    Some(format!("the approval date ({field})")),
                    format!("no approval date is recorded to compare with the effective date {}", r.effective_date),
                ),
            }
        }
        // The activity itself is the condition: the claim states it.
        _ => (Some(true), None, "the activity named is itself the exemption; the officer should confirm the work is only that".into()),
    };
    let lead = match applies {
        Some(true) => format!("{label} applies: {why}."),
        Some(false) => format!("{label} does not apply: {why}."),
        None => format!("{label} is claimed, unverified: {why}; the officer must confirm."),
    };
    ClaimCheck {
        claim: claim.into(),
        code: Some(code.letter),
        applies,
        why: lead,
        missing,
    }
}
