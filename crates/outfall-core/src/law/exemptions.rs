//! §230-20 D(5): the closed list of exemptions (a)–(k), each with the law's own conditions.
//! A claim is verified only when the record shows the condition its clause names; otherwise
//! it stays "claimed, unverified" and changes no requirement. What "verified" means for each
//! code is in `CODES[..].verified_by`.

use crate::config::Rules;
use crate::facts::Facts;
use crate::law::prose::prose;
use crate::record::{Evidence, ExemptionClaim, SITE};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub letter: char,
    /// The law's words.
    pub words: &'static str,
    /// What the record must show for the claim to be verified.
    pub verified_by: &'static str,
}

pub const CODES: [Code; 11] = [
    Code { letter: 'a', words: "Agricultural activity as defined in this local law", verified_by: "the site is recorded as an active farm (land use agricultural) and new_structures = no: \"Agricultural Activity\" (6) excludes \"the construction of new structures associated with agricultural activities\"" },
    Code { letter: 'b', words: "Silvicultural activity except that landing areas and log haul roads are subject to this law", verified_by: "landing_or_haul_road = no" },
    Code { letter: 'c', words: "Routine maintenance activities that disturb less than five acres and are performed to maintain the original line and grade, hydraulic capacity or original purpose of a facility", verified_by: "the disturbed acres are under maintenance_max_acres and maintains_original = yes" },
    Code { letter: 'd', words: "Repairs to any stormwater management practice or facility deemed necessary by the Stormwater Management Officer", verified_by: "the officer's finding repair_deemed_necessary = yes" },
    Code { letter: 'e', words: "Any part of a subdivision if a plat for the subdivision has been approved by the Town of Clay on or before the effective date of this law", verified_by: "plat_approved is a date on or before effective_date" },
    Code { letter: 'f', words: "Land development activities for which a building permit has been approved on or before the effective date of this law", verified_by: "building_permit_approved is a date on or before effective_date" },
    Code { letter: 'g', words: "Cemetery graves", verified_by: "the officer's finding activity_only = yes (the work is only the graves)" },
    Code { letter: 'h', words: "Installation of fence, sign, telephone, and electric poles and other kinds of posts or poles", verified_by: "the officer's finding activity_only = yes (the work is only the posts or poles)" },
    Code { letter: 'i', words: "Emergency activity immediately necessary to protect life, property or natural resources", verified_by: "the officer's finding immediately_necessary = yes" },
    Code { letter: 'j', words: "Activities of an individual engaging in home gardening by growing flowers, vegetable and other plants primarily for use by that person and his or her family", verified_by: "the officer's finding personal_use = yes" },
    Code { letter: 'k', words: "Landscaping and horticultural activities in connection with an existing structure", verified_by: "the officer's finding existing_structure = yes" },
];

pub fn code(letter: char) -> Option<&'static Code> {
    CODES.iter().find(|c| c.letter == letter)
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

/// A yes/no fact the clause needs, with `want` the value that verifies the claim.
fn needs(v: Option<bool>, want: bool, fact: &str) -> (Option<bool>, Option<String>) {
    match v {
        Some(x) => (Some(x == want), None),
        None => (None, Some(fact.to_string())),
    }
}

fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "not recorded",
    }
}

/// An officer's finding: it counts only in the town's own record, never in a plan an
/// applicant checks on its own.
fn finding(
    f: &Facts,
    v: Option<bool>,
    field: &str,
    what: &str,
) -> (Option<bool>, Option<String>, String) {
    let fact = prose!("the Stormwater Management Officer's finding that {what} ({field})");
    if !f.officer_record() {
        return (
            None,
            Some(fact),
            prose!("{what} is the officer's finding, which an applicant's own check cannot record"),
        );
    }
    let (ok, miss) = needs(v, true, &fact);
    (
        ok,
        miss,
        prose!("the officer's finding that {what}: {}", yes_no(v)),
    )
}

type Outcome = (Option<bool>, Option<String>, String);

fn agricultural(f: &Facts, e: &Evidence) -> Outcome {
    let farm = f.land.agricultural.value;
    let (structures, miss) = needs(
        e.new_structures,
        false,
        "whether new structures are built (new_structures)",
    );
    let why = match (e.new_structures, farm) {
        (Some(true), _) => "the work includes new structures, and \"Agricultural Activity\" (6) \"shall not include ... the construction of new structures associated with agricultural activities\"".to_string(),
        (_, Some(false)) => prose!("the site is not recorded as an active farm ({})", f.land.agricultural.source.as_deref().unwrap_or("site record")),
        (None, _) => "the record does not say whether new structures are built, which the definition of \"Agricultural Activity\" excludes".to_string(),
        (Some(false), None) => "no new structures, but whether the site is an active farm is not recorded".to_string(),
        (Some(false), Some(true)) => "an active farm's work with no new structures".to_string(),
    };
    let miss = miss.or_else(|| {
        farm.is_none().then(|| {
            prose!(
                "whether the site is an active farm ({} agricultural)",
                SITE.land_use.name
            )
        })
    });
    (crate::law::and3(structures, farm), miss, why)
}

fn maintenance(f: &Facts, r: &Rules, e: &Evidence) -> Outcome {
    let small = f.acreage.total_acres < r.maintenance_max_acres;
    let why = prose!(
        "{:.2} acres disturbed ({} the {} acre limit); original line, grade, capacity or purpose maintained: {}",
        f.acreage.total_acres.max(0.0),
        if small { "under" } else { "not under" },
        r.maintenance_max_acres,
        yes_no(e.maintains_original)
    );
    if !f.acreage.recorded {
        return (
            None,
            Some("the disturbance polygons (areas to be cleared, graded or filled)".into()),
            why,
        );
    }
    if !small {
        return (Some(false), None, why);
    }
    let (ok, miss) = needs(e.maintains_original, true, "whether the work maintains the original line and grade, hydraulic capacity or original purpose (maintains_original)");
    (ok, miss, why)
}

fn dated(r: &Rules, date: Option<chrono::NaiveDate>, field: &str) -> Outcome {
    match date {
        Some(d) => (
            Some(d <= r.effective_date),
            None,
            prose!("approved {d}; the law took effect {}", r.effective_date),
        ),
        None => (
            None,
            Some(prose!("the approval date ({field})")),
            prose!(
                "no approval date is recorded to compare with the effective date {}",
                r.effective_date
            ),
        ),
    }
}

/// Checks one claim against the law's conditions for its code.
pub fn check_claim(claim: &ExemptionClaim, f: &Facts, r: &Rules) -> ClaimCheck {
    let stated = claim.stated.clone();
    let Some(code) = claim.code.and_then(code) else {
        return ClaimCheck {
            claim: stated.clone(),
            code: None,
            applies: None,
            why: prose!("'{stated}' names none of the exemptions (5)(a)–(k): claimed, unverified; the officer must confirm which exemption is meant."),
            missing: Some(prose!("which (5) exemption is claimed ('{stated}' is not an exemption code or phrase)")),
        };
    };
    let e = &claim.evidence;
    let label = prose!("(5)({}) \"{}\"", code.letter, code.words);
    let (applies, missing, why): Outcome = match code.letter {
        'a' => agricultural(f, e),
        'b' => {
            let (ok, miss) = needs(
                e.landing_or_haul_road,
                false,
                "whether the work includes landing areas or log haul roads (landing_or_haul_road)",
            );
            (ok, miss, prose!("landing areas and log haul roads remain subject to the law; the work includes them: {}", yes_no(e.landing_or_haul_road)))
        }
        'c' => maintenance(f, r, e),
        'd' => finding(
            f,
            e.repair_deemed_necessary,
            "repair_deemed_necessary",
            "the repair is necessary",
        ),
        'e' => dated(r, e.plat_approved, "plat_approved"),
        'f' => dated(r, e.building_permit_approved, "building_permit_approved"),
        'i' => finding(
            f,
            e.immediately_necessary,
            "immediately_necessary",
            "the activity is immediately necessary to protect life, property or natural resources",
        ),
        'j' => finding(
            f,
            e.personal_use,
            "personal_use",
            "the gardening is primarily for use by that person and his or her family",
        ),
        'k' => finding(
            f,
            e.existing_structure,
            "existing_structure",
            "the work is in connection with an existing structure",
        ),
        _ => finding(
            f,
            e.activity_only,
            "activity_only",
            "the work is only the activity the exemption names",
        ),
    };
    let verified = match (&claim.verified_by, claim.verified_on) {
        (Some(by), Some(on)) => prose!(" Verified by {by} on {on}."),
        (Some(by), None) => prose!(" Verified by {by}."),
        _ => String::new(),
    };
    let lead = match applies {
        Some(true) => prose!("{label} applies: {why}.{verified}"),
        Some(false) => prose!("{label} does not apply: {why}."),
        None => prose!("{label} is claimed, unverified: {why}; the officer must confirm."),
    };
    ClaimCheck {
        claim: stated,
        code: Some(code.letter),
        applies,
        why: lead,
        missing,
    }
}
