//! Reading the typed record from a site's attributes: the typed fields when present
//! (`swppp_approval` object, `exemption_claims` list, `land_use`), else the older columns
//! (`approved_swppp` text, `exemptions` text, `single_family`/`agricultural` flags),
//! converted only where the conversion is certain.

use super::{
    ApprovingBody, Decision, Evidence, ExemptionClaim, SiteClaims, SiteStatus, Sourced, Stated,
    SwpppApproval,
};
use crate::load::{split_list, value_text};
use crate::record::code_of;
use crate::vocabulary::normalize;
use crate::vocabulary::site::{lookup, Vocabulary};
use chrono::NaiveDate;
use serde_json::{Map, Value};

/// A site's attribute by its semantic name (the town's column renames already applied).
pub type SiteColumns<'a> = &'a dyn Fn(&str) -> Option<Value>;

/// Reads the typed record; every value that cannot be read is a problem naming the field.
pub fn read_claims(get: SiteColumns, vocab: &Vocabulary) -> SiteClaims {
    let mut problems = Vec::new();
    let status = read_status(get, vocab, &mut problems);
    let approval = read_approval(get, vocab, &mut problems);
    let evidence = read_evidence(&|k| get(k), &mut problems);
    let exemptions = read_exemptions(get, vocab, &evidence, &mut problems);
    let (single_family, agricultural) = read_land_use(get, vocab, &mut problems);
    let common_plan = flag(get, "common_plan", &mut problems);
    let common_plan_acres = get("common_plan_acres").and_then(|v| acres(&v));
    SiteClaims {
        status,
        approval,
        exemptions,
        single_family,
        agricultural,
        common_plan,
        common_plan_acres,
        problems,
    }
}

fn text(get: SiteColumns, key: &str) -> Option<String> {
    get(key).as_ref().and_then(value_text)
}

fn read_status(
    get: SiteColumns,
    vocab: &Vocabulary,
    problems: &mut Vec<String>,
) -> Stated<SiteStatus> {
    let Some(word) = text(get, "status") else {
        return Stated::NotRecorded;
    };
    match lookup(&vocab.status, &word).and_then(SiteStatus::parse) {
        Some(s) => Stated::Known(s),
        None => {
            problems.push(format!(
                "status '{word}' is not a word the status vocabulary knows; map it in [vocabulary.status] to one of {}",
                super::STATUS_CODES.join(", ")
            ));
            Stated::Unreadable(word)
        }
    }
}

/// The decision words of the approval vocabulary; "none" means no approval is recorded.
fn decision_of(vocab: &Vocabulary, word: &str) -> Option<Option<Decision>> {
    Some(match lookup(&vocab.approval, word)? {
        "approved" => Some(Decision::Approved),
        "denied" => Some(Decision::Denied),
        "pending" => Some(Decision::Pending),
        "withdrawn" => Some(Decision::Withdrawn),
        _ => None,
    })
}

fn read_approval(
    get: SiteColumns,
    vocab: &Vocabulary,
    problems: &mut Vec<String>,
) -> Stated<SwpppApproval> {
    let typed: Option<Map<String, Value>> = match get("swppp_approval") {
        Some(Value::Object(o)) => Some(o),
        _ => {
            let flat = [
                ("decision", "swppp_decision"),
                ("date", "swppp_approval_date"),
                ("reference", "swppp_reference"),
                ("body", "swppp_approved_by"),
            ];
            let m: Map<String, Value> = flat
                .iter()
                .filter_map(|(k, col)| get(col).map(|v| (k.to_string(), v)))
                .filter(|(_, v)| value_text(v).is_some())
                .collect();
            (!m.is_empty()).then_some(m)
        }
    };
    match typed {
        Some(o) => typed_approval(&o, vocab, problems),
        None => match text(get, "approved_swppp") {
            Some(t) => legacy_approval(&t, vocab, problems),
            None => Stated::NotRecorded,
        },
    }
}

fn typed_approval(
    o: &Map<String, Value>,
    vocab: &Vocabulary,
    problems: &mut Vec<String>,
) -> Stated<SwpppApproval> {
    let field = |k: &str| o.get(k).and_then(value_text);
    let date_text = field("date");
    let date = date_text.as_deref().map(crate::area::parse_date);
    if let (Some(t), Some(None)) = (&date_text, &date) {
        problems.push(format!(
            "swppp_approval.date '{t}' is not a date (YYYY-MM-DD)"
        ));
        return Stated::Unreadable(t.clone());
    }
    let decision = match field("decision") {
        // A date with no decision word is an approval on that date, as the registry wrote it.
        None if date_text.is_some() => Some(Decision::Approved),
        None => {
            problems.push(
                "swppp_approval has no decision (approved, denied, pending, withdrawn)".into(),
            );
            return Stated::Unreadable(serde_json::to_string(o).unwrap_or_default());
        }
        Some(w) => match decision_of(vocab, &w) {
            Some(d) => d,
            None => {
                problems.push(format!(
                    "swppp_approval.decision '{w}' is not a word the approval vocabulary knows (approved, denied, pending, withdrawn)"
                ));
                return Stated::Unreadable(w);
            }
        },
    };
    let Some(decision) = decision else {
        return Stated::NotRecorded;
    };
    let body = match field("body").or_else(|| field("approved_by")) {
        None => None,
        Some(w) => match lookup(&vocab.approving_body, &w).and_then(ApprovingBody::parse) {
            Some(b) => Some(b),
            None => {
                problems.push(format!(
                    "swppp_approval.body '{w}' is not one of the approving bodies (planning board, town board, officer)"
                ));
                None
            }
        },
    };
    Stated::Known(SwpppApproval {
        decision,
        date: date.flatten(),
        reference: field("reference"),
        body,
        source: "swppp_approval".into(),
    })
}

/// The old `approved_swppp` text, documented as "the approval's date or reference". Converted
/// when certain: a date (with an optional reference after it), a single reference token with
/// a digit in it, or a decision word; anything else is unreadable.
fn legacy_approval(
    t: &str,
    vocab: &Vocabulary,
    problems: &mut Vec<String>,
) -> Stated<SwpppApproval> {
    let source = format!("approved_swppp text '{t}'");
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
    if let Some(d) = decision_of(vocab, t) {
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
        "approved_swppp '{t}' is neither a date, a reference nor a decision word (approved, denied, pending, withdrawn); record the approval as swppp_approval {{decision, date, reference, body}}"
    ));
    Stated::Unreadable(t.to_string())
}

fn tristate(v: &Value) -> Result<Option<bool>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::Number(n) => match n.as_f64() {
            Some(0.0) => Ok(Some(false)),
            Some(1.0) => Ok(Some(true)),
            _ => Err(n.to_string()),
        },
        Value::String(s) => match normalize(s).as_str() {
            "" => Ok(None),
            "true" | "t" | "y" | "yes" | "1" => Ok(Some(true)),
            "false" | "f" | "n" | "no" | "0" => Ok(Some(false)),
            _ => Err(s.clone()),
        },
        other => Err(other.to_string()),
    }
}

/// A yes/no field: blank or absent is not recorded; a word that is not yes or no is a problem.
fn flag(
    get: &dyn Fn(&str) -> Option<Value>,
    key: &str,
    problems: &mut Vec<String>,
) -> Option<bool> {
    match tristate(&get(key)?) {
        Ok(v) => v,
        Err(raw) => {
            problems.push(format!("{key} '{raw}' is not yes or no (true/false)"));
            None
        }
    }
}

fn date(
    get: &dyn Fn(&str) -> Option<Value>,
    key: &str,
    problems: &mut Vec<String>,
) -> Option<NaiveDate> {
    let t = get(key).as_ref().and_then(value_text)?;
    let d = crate::area::parse_date(&t);
    if d.is_none() {
        problems.push(format!("{key} '{t}' is not a date (YYYY-MM-DD)"));
    }
    d
}

fn acres(v: &Value) -> Option<f64> {
    let f = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    (f.is_finite() && f >= 0.0).then_some(f)
}

fn read_evidence(get: &dyn Fn(&str) -> Option<Value>, problems: &mut Vec<String>) -> Evidence {
    Evidence {
        new_structures: flag(get, "new_structures", problems),
        landing_or_haul_road: flag(get, "landing_or_haul_road", problems),
        maintains_original: flag(get, "maintains_original", problems),
        repair_deemed_necessary: flag(get, "repair_deemed_necessary", problems),
        plat_approved: date(get, "plat_approved", problems),
        building_permit_approved: date(get, "building_permit_approved", problems),
        immediately_necessary: flag(get, "immediately_necessary", problems),
        personal_use: flag(get, "personal_use", problems),
        existing_structure: flag(get, "existing_structure", problems),
        activity_only: flag(get, "activity_only", problems),
    }
}

fn read_exemptions(
    get: SiteColumns,
    vocab: &Vocabulary,
    site_evidence: &Evidence,
    problems: &mut Vec<String>,
) -> Vec<ExemptionClaim> {
    let verified_by = text(get, "exemption_verified_by");
    let verified_on = date(&|k| get(k), "exemption_verified_on", problems);
    let claim = |stated: String, evidence: Evidence, by, on, problems: &mut Vec<String>| {
        let code = code_of(&stated, vocab);
        if code.is_none() {
            problems.push(format!(
                "exemption '{stated}' names none of the exemptions (5)(a)-(k); write the letter or a word of [vocabulary.exemption]"
            ));
        }
        ExemptionClaim {
            stated,
            code,
            evidence,
            verified_by: by,
            verified_on: on,
        }
    };
    if let Some(Value::Array(items)) = get("exemption_claims") {
        return items
            .iter()
            .filter_map(|item| match item {
                Value::Object(o) => {
                    let own = |k: &str| o.get(k).cloned();
                    let stated = own("code").as_ref().and_then(value_text)?;
                    let evidence = read_evidence(&own, problems);
                    let by = own("verified_by").as_ref().and_then(value_text);
                    let on = date(&own, "verified_on", problems);
                    Some(claim(stated, evidence, by, on, problems))
                }
                v => value_text(v).map(|s| {
                    claim(
                        s,
                        site_evidence.clone(),
                        verified_by.clone(),
                        verified_on,
                        problems,
                    )
                }),
            })
            .collect();
    }
    split_list(get("exemptions").as_ref())
        .into_iter()
        .map(|s| {
            claim(
                s,
                site_evidence.clone(),
                verified_by.clone(),
                verified_on,
                problems,
            )
        })
        .collect()
}

/// The site record's statement of land use: `land_use` from its vocabulary, else the older
/// `single_family` and `agricultural` flags.
fn read_land_use(
    get: SiteColumns,
    vocab: &Vocabulary,
    problems: &mut Vec<String>,
) -> (Sourced, Sourced) {
    let recorded = |v: Option<bool>, col: &str| Sourced {
        value: v,
        source: v.map(|_| format!("site record: {col}")),
    };
    if let Some(word) = text(get, "land_use") {
        return match lookup(&vocab.land_use, &word) {
            Some(code) => (
                recorded(Some(code == "single_family_residence"), "land_use"),
                recorded(Some(code == "agricultural"), "land_use"),
            ),
            None => {
                problems.push(format!(
                    "land_use '{word}' is not a word the land-use vocabulary knows; map it in [vocabulary.land_use] to single_family_residence, agricultural or other"
                ));
                (recorded(None, ""), recorded(None, ""))
            }
        };
    }
    (
        recorded(flag(get, "single_family", problems), "single_family"),
        recorded(flag(get, "agricultural", problems), "agricultural"),
    )
}
