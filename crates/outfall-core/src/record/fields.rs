//! How each type of field is read from a file or a stored row, shown in the report and
//! listed flat (`FieldType`). A value that cannot be read is a problem naming its field, in
//! the words the record's problems have always used.

use super::declare::{FieldType, FlatShape, Get, Name, Outcomes};
use super::legacy;
use super::read::{claim, decision_of, text};
use super::types::{
    ApprovingBody, Coded, Decision, ExemptionClaim, LandUse, LandUseStatement, SiteStatus, Stated,
    SwpppApproval,
};
use super::Evidence;
use crate::load::{split_list, value_text};
use crate::vocabulary::normalize;
use crate::vocabulary::site::{lookup, Vocabulary, LAND_USE_CODES, STATUS_CODES};
use chrono::NaiveDate;
use geo_types::Point;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

impl FieldType for Option<String> {
    fn read(at: &'static str, get: Get, _: &Vocabulary, _: &mut Vec<String>) -> Self {
        text(get, at)
    }
    fn report<M: SerializeMap>(&self, at: &str, _: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry(at, self)
    }
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
impl FieldType for Option<bool> {
    fn read(at: &'static str, get: Get, _: &Vocabulary, problems: &mut Vec<String>) -> Self {
        match tristate(&get(at)?) {
            Ok(v) => v,
            Err(raw) => {
                problems.push(format!("{at} '{raw}' is not yes or no (true/false)"));
                None
            }
        }
    }
    fn report<M: SerializeMap>(&self, at: &str, _: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry(at, self)
    }
}

impl FieldType for Option<NaiveDate> {
    fn read(at: &'static str, get: Get, _: &Vocabulary, problems: &mut Vec<String>) -> Self {
        let t = text(get, at)?;
        let d = crate::area::parse_date(&t);
        if d.is_none() {
            problems.push(format!("{at} '{t}' is not a date (YYYY-MM-DD)"));
        }
        d
    }
    fn report<M: SerializeMap>(&self, at: &str, _: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry(at, self)
    }
}

/// Acres: a finite number at least 0, else not recorded.
impl FieldType for Option<f64> {
    fn read(at: &'static str, get: Get, _: &Vocabulary, _: &mut Vec<String>) -> Self {
        let f = match get(at)? {
            Value::Number(n) => n.as_f64()?,
            Value::String(s) => s.trim().parse().ok()?,
            _ => return None,
        };
        (f.is_finite() && f >= 0.0).then_some(f)
    }
    fn report<M: SerializeMap>(&self, at: &str, _: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry(at, self)
    }
}

/// Ids, stored "a;b" (or "a, b").
impl FieldType for Vec<String> {
    fn read(at: &'static str, get: Get, _: &Vocabulary, _: &mut Vec<String>) -> Self {
        split_list(get(at).as_ref())
    }
    fn report<M: SerializeMap>(&self, at: &str, _: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry(at, self)
    }
}

/// A point "lon,lat" (WGS84). One that is not a point is unreadable: the place it names is
/// unknown, and nothing may stand in for it.
impl FieldType for Stated<Point<f64>> {
    fn read(at: &'static str, get: Get, _: &Vocabulary, _: &mut Vec<String>) -> Self {
        match text(get, at) {
            None => Stated::NotRecorded,
            Some(t) => match crate::load::parse_point(&t) {
                Some(p) => Stated::Known(p),
                None => Stated::Unreadable(t),
            },
        }
    }
    fn report<M: SerializeMap>(&self, at: &str, _: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry(at, &self.known().map(|p| [p.x(), p.y()]))
    }
}

/// A closed list a record's words are read into through a vocabulary table.
pub trait Code: Copy + std::fmt::Debug + PartialEq + Send + Sync + 'static {
    fn table(words: &Vocabulary) -> &BTreeMap<String, String>;
    fn parse(code: &str) -> Option<Self>;
    fn as_code(self) -> &'static str;
    /// The problem of a word the table does not know, for the field `at`.
    fn unknown(at: &str, word: &str) -> String;
}

impl Code for SiteStatus {
    fn table(words: &Vocabulary) -> &BTreeMap<String, String> {
        &words.status
    }
    fn parse(code: &str) -> Option<Self> {
        SiteStatus::parse(code)
    }
    fn as_code(self) -> &'static str {
        self.as_str()
    }
    fn unknown(at: &str, word: &str) -> String {
        format!(
            "{at} '{word}' is not a word the status vocabulary knows; map it in [vocabulary.{at}] to one of {}",
            STATUS_CODES.join(", ")
        )
    }
}

impl Code for LandUse {
    fn table(words: &Vocabulary) -> &BTreeMap<String, String> {
        &words.land_use
    }
    fn parse(code: &str) -> Option<Self> {
        LandUse::parse(code)
    }
    fn as_code(self) -> &'static str {
        LAND_USE_CODES[self as usize]
    }
    fn unknown(at: &str, word: &str) -> String {
        format!(
            "{at} '{word}' is not a word the land-use vocabulary knows; map it in [vocabulary.{at}] to {}, {} or {}",
            LAND_USE_CODES[0], LAND_USE_CODES[1], LAND_USE_CODES[2]
        )
    }
}

impl<T: Code> FieldType for Coded<T> {
    const FLAT: &'static [FlatShape] = &[
        FlatShape {
            csv: Name::Field,
            dbf: Some(Name::Field),
            served: Some(Name::Suffixed("_code")),
            long_text: false,
        },
        FlatShape {
            csv: Name::Suffixed("_recorded"),
            dbf: Some(Name::Suffixed("_rec")),
            served: Some(Name::Suffixed("_recorded")),
            long_text: false,
        },
    ];

    fn read(at: &'static str, get: Get, words: &Vocabulary, problems: &mut Vec<String>) -> Self {
        let Some(word) = text(get, at) else {
            return Coded::default();
        };
        let value = match lookup(T::table(words), &word).and_then(T::parse) {
            Some(v) => Stated::Known(v),
            None => {
                problems.push(T::unknown(at, &word));
                Stated::Unreadable(word.clone())
            }
        };
        Coded {
            value,
            recorded: Some(word),
        }
    }

    /// The code (null when not recorded or unreadable), then the word as recorded.
    fn report<M: SerializeMap>(&self, at: &str, _: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry(at, &self.code())?;
        map.serialize_entry(&format!("{at}_recorded"), &self.recorded)
    }

    fn flat(&self, _: &Outcomes) -> Vec<Option<String>> {
        vec![self.code().map(String::from), self.recorded.clone()]
    }
}

impl<T: Code> Coded<T> {
    /// The code of a known value.
    pub fn code(&self) -> Option<&'static str> {
        self.value.known().map(|v| v.as_code())
    }
}

/// "true", "false" or "undetermined": a three-valued outcome as a flat cell.
fn three_valued(v: Option<bool>) -> String {
    v.map_or("undetermined".into(), |b| b.to_string())
}

/// `{at}` through the land-use vocabulary, else the older `single_family` and `agricultural`
/// flags. The report and flat columns show the outcome, after the parcel-class fallback.
impl FieldType for LandUseStatement {
    const FLAT: &'static [FlatShape] = &[
        FlatShape {
            csv: Name::Exact(legacy::SINGLE_FAMILY),
            dbf: None,
            served: None,
            long_text: false,
        },
        FlatShape {
            csv: Name::Exact("single_family_source"),
            dbf: Some(Name::Exact("sf_source")),
            served: Some(Name::Exact("single_family_source")),
            long_text: true,
        },
        FlatShape {
            csv: Name::Exact(legacy::AGRICULTURAL),
            dbf: None,
            served: None,
            long_text: false,
        },
        FlatShape {
            csv: Name::Exact("agricultural_source"),
            dbf: Some(Name::Exact("ag_source")),
            served: Some(Name::Exact("agricultural_source")),
            long_text: true,
        },
    ];

    fn read(at: &'static str, get: Get, words: &Vocabulary, problems: &mut Vec<String>) -> Self {
        if text(get, at).is_some() {
            return LandUseStatement::Code(Coded::read(at, get, words, problems));
        }
        LandUseStatement::Flags {
            single_family: Option::<bool>::read(legacy::SINGLE_FAMILY, get, words, problems),
            agricultural: Option::<bool>::read(legacy::AGRICULTURAL, get, words, problems),
        }
    }

    fn report<M: SerializeMap>(&self, _: &str, cx: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry(legacy::SINGLE_FAMILY, &cx.single_family.value)?;
        map.serialize_entry("single_family_source", &cx.single_family.source)?;
        map.serialize_entry(legacy::AGRICULTURAL, &cx.agricultural.value)?;
        map.serialize_entry("agricultural_source", &cx.agricultural.source)
    }

    fn flat(&self, cx: &Outcomes) -> Vec<Option<String>> {
        let (sf, ag) = (&cx.single_family, &cx.agricultural);
        vec![
            Some(three_valued(sf.value)),
            sf.source.clone(),
            Some(three_valued(ag.value)),
            ag.source.clone(),
        ]
    }
}

/// The object `{decision, date, reference, body}` under `at`, else the flat `swppp_*`
/// columns, else the old `approved_swppp` text.
impl FieldType for Stated<SwpppApproval> {
    const FLAT: &'static [FlatShape] = &legacy::APPROVAL_FLAT;

    fn read(at: &'static str, get: Get, words: &Vocabulary, problems: &mut Vec<String>) -> Self {
        let typed = match get(at) {
            Some(Value::Object(o)) => Some(o),
            _ => legacy::approval_columns(get),
        };
        match typed {
            Some(o) => typed_approval(at, &o, words, problems),
            None => match text(get, legacy::APPROVAL_TEXT) {
                Some(t) => legacy::approval_text(at, &t, words, problems),
                None => Stated::NotRecorded,
            },
        }
    }

    /// Whether an approval is recorded, then the decision as recorded.
    fn report<M: SerializeMap>(&self, at: &str, _: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        let known = self.known();
        map.serialize_entry("approved_swppp", &known.is_some_and(|a| a.approved()))?;
        map.serialize_entry(at, &known)
    }

    fn flat(&self, _: &Outcomes) -> Vec<Option<String>> {
        let a = self.known();
        vec![
            a.map(|a| a.decision.as_str().to_string()),
            a.and_then(|a| a.date).map(|d| d.to_string()),
            a.and_then(|a| a.reference.clone()),
            a.and_then(|a| a.body).map(|b| b.as_str().to_string()),
            a.map(|a| a.source.clone()),
        ]
    }
}

fn typed_approval(
    at: &str,
    o: &Map<String, Value>,
    words: &Vocabulary,
    problems: &mut Vec<String>,
) -> Stated<SwpppApproval> {
    let field = |k: &str| o.get(k).and_then(value_text);
    let date_text = field("date");
    let date = date_text.as_deref().map(crate::area::parse_date);
    if let (Some(t), Some(None)) = (&date_text, &date) {
        problems.push(format!("{at}.date '{t}' is not a date (YYYY-MM-DD)"));
        return Stated::Unreadable(t.clone());
    }
    let decision = match field("decision") {
        // A date with no decision word is an approval on that date, as the registry wrote it.
        None if date_text.is_some() => Some(Decision::Approved),
        None => {
            problems.push(format!(
                "{at} has no decision (approved, denied, pending, withdrawn)"
            ));
            return Stated::Unreadable(serde_json::to_string(o).unwrap_or_default());
        }
        Some(w) => match decision_of(words, &w) {
            Some(d) => d,
            None => {
                problems.push(format!(
                    "{at}.decision '{w}' is not a word the approval vocabulary knows (approved, denied, pending, withdrawn)"
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
        Some(w) => match lookup(&words.approving_body, &w).and_then(ApprovingBody::parse) {
            Some(b) => Some(b),
            None => {
                problems.push(format!(
                    "{at}.body '{w}' is not one of the approving bodies (planning board, town board, officer)"
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
        source: at.to_string(),
    })
}

/// The list of claims under `at`, each `{code, <evidence>, verified_by, verified_on}` or a
/// bare code; else the old `exemptions` text. A bare code, and every claim of the old text,
/// takes the evidence and confirmation stated on the site itself, which is always read.
impl FieldType for Vec<ExemptionClaim> {
    const FLAT: &'static [FlatShape] = &legacy::CLAIMS_FLAT;

    fn read(at: &'static str, get: Get, words: &Vocabulary, problems: &mut Vec<String>) -> Self {
        let site = legacy::site_evidence(get, words, problems);
        let Some(Value::Array(items)) = get(at) else {
            return legacy::claims_text(get, &site, words, problems);
        };
        items
            .iter()
            .filter_map(|item| match item {
                Value::Object(o) => {
                    let own = |k: &str| o.get(k).cloned();
                    let stated = own("code").as_ref().and_then(value_text)?;
                    let evidence = Evidence::read(&own, words, problems);
                    let by = Option::<String>::read("verified_by", &own, words, problems);
                    let on = Option::<NaiveDate>::read("verified_on", &own, words, problems);
                    Some(claim(stated, evidence, (by, on), words, problems))
                }
                v => value_text(v)
                    .map(|s| claim(s, site.evidence.clone(), site.verified(), words, problems)),
            })
            .collect()
    }

    /// The claims as written, then the claims typed.
    fn report<M: SerializeMap>(&self, at: &str, _: &Outcomes, map: &mut M) -> Result<(), M::Error> {
        let stated: Vec<&str> = self.iter().map(|c| c.stated.as_str()).collect();
        map.serialize_entry(legacy::CLAIMS_TEXT, &stated)?;
        map.serialize_entry(at, self)
    }

    /// The (5) letters claimed ("c;k"; a claim naming no letter as written), and each
    /// claim's outcome ("c:verified;k:unverified").
    fn flat(&self, cx: &Outcomes) -> Vec<Option<String>> {
        let label = |c: &ExemptionClaim| c.code.map_or_else(|| c.stated.clone(), String::from);
        let outcome = |i: usize| match cx.verified.get(i).copied().flatten() {
            Some(true) => "verified",
            Some(false) => "does_not_apply",
            None => "unverified",
        };
        let joined = |v: Vec<String>| (!v.is_empty()).then(|| v.join(";"));
        vec![
            joined(self.iter().map(label).collect()),
            joined(
                self.iter()
                    .enumerate()
                    .map(|(i, c)| format!("{}:{}", label(c), outcome(i)))
                    .collect(),
            ),
        ]
    }
}
