//! The typed fields of a site as the registry stores them. Every write (`PATCH /sites/{id}`,
//! `POST /sites`, the `site` object of `POST /check`) goes through `normalize`, so a stored
//! status is a code of the closed list, an approval is a `{decision, date, reference, body}`
//! object and an exemption claim names its (5) letter: the words of the vocabularies are
//! accepted on the way in, and nothing a vocabulary does not know is stored. A refusal is
//! `Error::Input` naming the field and the values it allows.

use crate::claims::{
    self, lookup, Vocabulary, APPROVAL_CODES, BODY_CODES, LAND_USE_CODES, STATUS_CODES,
};
use crate::error::{Error, Result};
use crate::registry::AccessRole;
use serde_json::{Map, Value};

/// Free-text columns a change may set as they are.
const TEXT_FIELDS: [&str; 4] = ["name", "applicant", "address", "parcel_ids"];

/// Yes/no facts of the site itself (older land-use flags and the common plan).
const SITE_FLAGS: [&str; 3] = ["single_family", "agricultural", "common_plan"];

/// The evidence the (5) clauses name, on the site or on one claim (see `claims::Evidence`).
const EVIDENCE_FLAGS: [&str; 8] = [
    "new_structures",
    "landing_or_haul_road",
    "maintains_original",
    "repair_deemed_necessary",
    "immediately_necessary",
    "personal_use",
    "existing_structure",
    "activity_only",
];
const EVIDENCE_DATES: [&str; 2] = ["plat_approved", "building_permit_approved"];

/// What an applicant may state, on the site or in a claim: who and where they are, the
/// larger plan, which exemptions they claim, and the facts of the work only they can tell
/// ((5)(a) no new structures, (5)(b) no landing or haul road, (5)(c) the original line and
/// grade kept), and the land use, except farm status (see `applicant_may_state`).
/// Everything else in the record decides an outcome on the town's authority (status,
/// approval, farm status, plat and permit dates, the (5) findings and any confirmation), so
/// only the officer states it: see `roles_of`.
const APPLICANT_FIELDS: [&str; 14] = [
    "name",
    "applicant",
    "address",
    "parcel_ids",
    "outfall",
    "common_plan",
    "common_plan_acres",
    "exemption_claims",
    "code",
    "new_structures",
    "landing_or_haul_road",
    "maintains_original",
    "land_use",
    "single_family",
];

/// Who may state `field` (a site field, or a key of one exemption claim). The officer may
/// state every field; an inspector, none.
pub fn roles_of(field: &str) -> &'static [AccessRole] {
    const APPLICANT_AND_OFFICER: [AccessRole; 2] = [AccessRole::Applicant, AccessRole::Officer];
    if APPLICANT_FIELDS.contains(&field) {
        &APPLICANT_AND_OFFICER
    } else {
        &[AccessRole::Officer]
    }
}

/// Whether an applicant may give `field` this value: a field of `roles_of`, and for
/// `land_use` not farm status (`agricultural`, in any word of the vocabulary), on which the
/// (5)(a) exemption rests; that is the officer's to record.
pub fn applicant_may_state(field: &str, value: &Value, words: &Vocabulary) -> bool {
    if !roles_of(field).contains(&AccessRole::Applicant) {
        return false;
    }
    let farm = || {
        value
            .as_str()
            .and_then(|w| lookup(&words.land_use, w))
            .is_some_and(|code| code == "agricultural")
    };
    !(field == "land_use" && farm())
}

/// The officer's findings ((d), (g)-(k)) and confirmations: an applicant may claim an
/// exemption, never find or confirm it.
pub const OFFICER_FINDINGS: [&str; 9] = [
    "repair_deemed_necessary",
    "immediately_necessary",
    "personal_use",
    "existing_structure",
    "activity_only",
    "exemption_verified_by",
    "exemption_verified_on",
    "verified_by",
    "verified_on",
];

/// The fields whose values are codes of a vocabulary: what `POST /check` validates in an
/// uploaded feature's properties (the other columns of an engineer's file are its own).
pub const CODED_FIELDS: [&str; 4] = ["status", "swppp_approval", "exemption_claims", "land_use"];

/// The approval as flat columns, for files without objects (read by `claims`).
pub(super) const FLAT_APPROVAL: [&str; 4] = [
    "swppp_decision",
    "swppp_approval_date",
    "swppp_reference",
    "swppp_approved_by",
];

/// The old columns a typed field replaces: writing the typed field removes them, so the
/// record says one thing in one place (the audit keeps what they said).
pub(super) fn superseded(field: &str) -> &'static [&'static str] {
    match field {
        "swppp_approval" => &[
            "approved_swppp",
            "swppp_decision",
            "swppp_approval_date",
            "swppp_reference",
            "swppp_approved_by",
        ],
        "exemption_claims" => &["exemptions"],
        _ => &[],
    }
}

/// Every field a change may set, for the message that refuses an unknown one.
fn all_fields() -> String {
    let mut all = vec![
        "status",
        "swppp_approval",
        "exemption_claims",
        "land_use",
        "common_plan_acres",
        "exemption_verified_by",
        "exemption_verified_on",
        "outfall",
    ];
    all.extend(TEXT_FIELDS);
    all.extend(SITE_FLAGS);
    all.extend(EVIDENCE_FLAGS);
    all.extend(EVIDENCE_DATES);
    all.join(", ")
}

fn refuse<T>(field: &str, why: impl std::fmt::Display) -> Result<T> {
    Err(Error::Input(format!("{field}: {why}")))
}

/// A value in the form the site keeps: a code for a vocabulary field, an object for the
/// approval, a list of claim objects, true/false for a flag, YYYY-MM-DD for a date, a number
/// of acres, trimmed text for the text columns; `null` clears a field.
pub fn normalize(key: &str, value: &Value, words: &Vocabulary) -> Result<Value> {
    if value.is_null() && key != "status" {
        return Ok(Value::Null);
    }
    match key {
        "status" => coded(key, value, &words.status, &STATUS_CODES, "status"),
        "land_use" => coded(key, value, &words.land_use, &LAND_USE_CODES, "land use"),
        "swppp_approval" => approval(value, words),
        "exemption_claims" => exemption_claims(value, words),
        "approved_swppp" => refuse(
            key,
            "the free-text approval is no longer written; record it as swppp_approval {\"decision\": approved|denied|pending|withdrawn, \"date\": \"YYYY-MM-DD\", \"reference\": \"...\", \"body\": planning_board|town_board|officer} (null clears the old text)",
        ),
        "exemptions" => refuse(
            key,
            "the free-text list is no longer written; claim exemptions as exemption_claims [{\"code\": \"a\"..\"k\", <evidence>, \"verified_by\", \"verified_on\"}] (null clears the old text)",
        ),
        "common_plan_acres" => match value.as_f64() {
            Some(a) if a.is_finite() && a >= 0.0 => Ok(value.clone()),
            _ => refuse(key, "must be a number of acres, at least 0, or null"),
        },
        "outfall" => match value.as_str().map(str::trim) {
            Some(s) if s.is_empty() || crate::load::parse_point(s).is_some() => {
                Ok(Value::String(s.to_string()))
            }
            _ => refuse(key, "must be \"lon,lat\" (WGS84 degrees) or null"),
        },
        "exemption_verified_by" => text(key, value),
        "exemption_verified_on" => date(key, value),
        k if SITE_FLAGS.contains(&k) || EVIDENCE_FLAGS.contains(&k) => flag(key, value),
        k if EVIDENCE_DATES.contains(&k) => date(key, value),
        k if TEXT_FIELDS.contains(&k) => text(key, value),
        _ => Err(Error::Input(format!(
            "'{key}' cannot be changed; the fields are: {}",
            all_fields()
        ))),
    }
}

/// A word of a vocabulary table, stored as its code. `null` is refused for the status (a
/// site always has one) and clears the others before this is reached.
fn coded(
    field: &str,
    value: &Value,
    table: &std::collections::BTreeMap<String, String>,
    codes: &[&str],
    what: &str,
) -> Result<Value> {
    let allowed = format!(
        "use one of {} (or a word of [vocabulary.{field}])",
        codes.join(", ")
    );
    let Some(word) = value.as_str() else {
        return refuse(field, format!("must be text; {allowed}"));
    };
    match lookup(table, word) {
        Some(code) => Ok(Value::String(code.to_string())),
        None => refuse(field, format!("'{word}' is not a {what}; {allowed}")),
    }
}

fn flag(field: &str, value: &Value) -> Result<Value> {
    match value {
        Value::Bool(_) => Ok(value.clone()),
        _ => refuse(field, "must be true, false or null"),
    }
}

/// A date written YYYY-MM-DD, nothing looser: a stored date is read back by every rule.
fn date(field: &str, value: &Value) -> Result<Value> {
    let text = value.as_str().map(str::trim).unwrap_or_default();
    match crate::bounds::parse_iso(text, false) {
        Some(d) => Ok(Value::String(d.to_string())),
        None => refuse(
            field,
            format!(
                "must be a date YYYY-MM-DD {} or null",
                crate::bounds::range_text()
            ),
        ),
    }
}

fn text(field: &str, value: &Value) -> Result<Value> {
    match value {
        Value::String(s) => {
            crate::bounds::check_text(field, s.trim())?;
            Ok(Value::String(s.trim().to_string()))
        }
        _ => refuse(field, "must be text or null"),
    }
}

const APPROVAL_KEYS: [&str; 4] = ["decision", "date", "reference", "body"];

/// `{decision, date, reference, body}`: the decision is required and from the approval
/// vocabulary ("none" is not a decision: `null` clears the approval); the rest optional.
fn approval(value: &Value, words: &Vocabulary) -> Result<Value> {
    let Value::Object(o) = value else {
        return refuse(
            "swppp_approval",
            "must be an object {decision, date, reference, body} or null",
        );
    };
    if let Some(k) = o.keys().find(|k| !APPROVAL_KEYS.contains(&k.as_str())) {
        return refuse(
            &format!("swppp_approval.{k}"),
            format!(
                "not a field of the approval; the fields are {}",
                APPROVAL_KEYS.join(", ")
            ),
        );
    }
    let decisions = &APPROVAL_CODES[..4];
    let allowed = format!("use one of {}", decisions.join(", "));
    let field = "swppp_approval.decision";
    let word = match o.get("decision") {
        None | Some(Value::Null) => return refuse(field, format!("is required; {allowed}")),
        Some(Value::String(w)) => w,
        Some(_) => return refuse(field, format!("must be text; {allowed}")),
    };
    let decision = match lookup(&words.approval, word) {
        None => return refuse(field, format!("'{word}' is not a decision; {allowed}")),
        Some("none") => {
            return refuse(
                field,
                format!("'{word}' records no decision; send \"swppp_approval\": null to clear the approval, or {allowed}"),
            )
        }
        Some(code) => code,
    };
    let mut out = Map::new();
    out.insert("decision".into(), Value::String(decision.to_string()));
    if let Some(d) = o.get("date").filter(|d| !d.is_null()) {
        out.insert("date".into(), date("swppp_approval.date", d)?);
    }
    if let Some(r) = o.get("reference").filter(|r| !r.is_null()) {
        let r = text("swppp_approval.reference", r)?;
        if r.as_str().is_some_and(|s| !s.is_empty()) {
            out.insert("reference".into(), r);
        }
    }
    if let Some(b) = o.get("body").filter(|b| !b.is_null()) {
        let body = b.as_str().and_then(|w| lookup(&words.approving_body, w));
        let Some(body) = body else {
            return refuse(
                "swppp_approval.body",
                format!(
                    "{b} is not an approving body; use one of {}",
                    BODY_CODES.join(", ")
                ),
            );
        };
        out.insert("body".into(), Value::String(body.to_string()));
    }
    Ok(Value::Object(out))
}

/// The keys of one claim: its code, the evidence its clause names, and who confirmed it.
fn claim_keys() -> Vec<&'static str> {
    let mut keys = vec!["code"];
    keys.extend(EVIDENCE_FLAGS);
    keys.extend(EVIDENCE_DATES);
    keys.extend(["verified_by", "verified_on"]);
    keys
}

/// A list of `{code, <evidence>, verified_by, verified_on}`; each code a (5) letter in any
/// written form or a phrase of the exemption vocabulary, stored as the letter.
fn exemption_claims(value: &Value, words: &Vocabulary) -> Result<Value> {
    let Value::Array(items) = value else {
        return refuse(
            "exemption_claims",
            "must be a list of {code, <evidence>, verified_by, verified_on} or null",
        );
    };
    let keys = claim_keys();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("exemption_claims[{i}]");
        let Value::Object(o) = item else {
            return refuse(
                &at,
                format!("must be an object with the fields {}", keys.join(", ")),
            );
        };
        if let Some(k) = o.keys().find(|k| !keys.contains(&k.as_str())) {
            return refuse(
                &format!("{at}.{k}"),
                format!("not a field of a claim; the fields are {}", keys.join(", ")),
            );
        }
        let code = o
            .get("code")
            .and_then(Value::as_str)
            .and_then(|c| claims::code_of(c, words));
        let Some(code) = code else {
            let given = o
                .get("code")
                .map_or("nothing".to_string(), Value::to_string);
            return refuse(
                &format!("{at}.code"),
                format!("{given} names none of the exemptions; use a letter a to k of §230-20 D(5) ((5)(c), c) or a word of [vocabulary.exemption] such as 'routine maintenance'"),
            );
        };
        let mut claim = Map::new();
        claim.insert("code".into(), Value::String(code.to_string()));
        for (k, v) in o.iter().filter(|(k, v)| *k != "code" && !v.is_null()) {
            let field = format!("{at}.{k}");
            let v = match k.as_str() {
                "verified_by" => text(&field, v)?,
                "verified_on" => date(&field, v)?,
                k if EVIDENCE_DATES.contains(&k) => date(&field, v)?,
                _ => flag(&field, v)?,
            };
            claim.insert(k.clone(), v);
        }
        if out.iter().any(|c: &Value| c["code"] == claim["code"]) {
            return refuse(
                &at,
                format!("({code}) is claimed twice; claim each exemption once"),
            );
        }
        out.push(Value::Object(claim));
    }
    Ok(Value::Array(out))
}

/// A list of parcel ids (`["020.-01-07.0", ...]`) as the text column keeps it.
pub fn join_parcel_ids(fields: &mut Map<String, Value>) {
    if let Some(Value::Array(ids)) = fields.get("parcel_ids") {
        let joined: Vec<String> = ids.iter().filter_map(crate::load::value_text).collect();
        fields.insert("parcel_ids".into(), Value::String(joined.join(";")));
    }
}

/// The record of a plan checked with `POST /check`: the coded fields of its first feature's
/// `properties` (the other columns of an engineer's file are its own and are read as they
/// are), then its `site` object, checked whole as `PATCH` checks a change and laid over
/// the properties.
pub fn drawn_fields(
    site: &Map<String, Value>,
    properties: Map<String, Value>,
    words: &Vocabulary,
) -> Result<Map<String, Value>> {
    let mut out = properties;
    for key in CODED_FIELDS {
        if let Some(v) = out.get(key) {
            let v = normalize(key, v, words)?;
            out.insert(key.to_string(), v);
        }
    }
    let mut site = site.clone();
    join_parcel_ids(&mut site);
    for (key, value) in &site {
        let value = normalize(key, value, words)?;
        for old in superseded(key) {
            out.remove(*old);
        }
        out.insert(key.clone(), value);
    }
    Ok(out)
}
