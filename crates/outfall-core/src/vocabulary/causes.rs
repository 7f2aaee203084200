//! The causes vocabulary: the cause names that make a listed water's impairment a pollutant
//! of concern under the construction reading of Condition A, each with its group (sediment,
//! nutrients) and the published vocabularies that use it (`causes.toml`, compiled in).
//!
//! # Matching rule
//! A cause and a term are compared after [`normalize`](super::normalize) (lowercase, every
//! run of other characters than letters and digits to one space, trimmed). A cause matches a
//! term when one of these parts of the cause equals the term; never a piece of a word, never
//! a prefix:
//! 1. the whole cause ("Sedimentation/Siltation" = "SEDIMENTATION/SILTATION");
//! 2. when it has parentheses, the text outside them ("Nutrients (Algae)" -> "nutrients");
//! 3. the text inside each pair of parentheses ("nutrients (phosphorus)" -> "phosphorus"),
//!    except a medium alone ("sediment", "tissue", "water", "fish"): California writes
//!    "Cadmium (sediment)" for cadmium measured in the bed sediment, which is not sediment
//!    pollution;
//! 4. when the text outside parentheses ends in ", TOTAL", the text before that comma
//!    ("PHOSPHORUS, TOTAL" -> "phosphorus"). Only "total": in ATTAINS the part after the
//!    comma otherwise names a form with other effects ("NITROGEN, AMMONIA", "NITROGEN,
//!    NITRATE", "COPPER, DISSOLVED"), so "NITROGEN, AMMONIA" never matches "nitrogen".
//!
//! The shipped terms are parsed and normalised once per process; the manifest's extra terms
//! (`rules.construction_pollutants`) are compared character by character without building
//! anything, so a check rebuilds nothing.

use super::{normalize, normalized_chars};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::OnceLock;

const SHIPPED_TOML: &str = include_str!("causes.toml");
const SHIPPED_PATH: &str = "src/vocabulary/causes.toml";

/// Group of a term that comes from the manifest rather than the shipped file.
pub const MANIFEST_GROUP: &str = "manifest";
/// Source of a term that comes from the manifest.
pub const MANIFEST_SOURCE: &str = "manifest rules.construction_pollutants";

/// Words that, alone in parentheses, name where a contaminant was measured (rule 3).
const MEDIA: [&str; 5] = ["sediment", "sediments", "tissue", "water", "fish"];

/// One term of the vocabulary, as `outfall rules` and `GET /rules` print it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    pub group: String,
    pub term: String,
    /// Labels of the published vocabularies that use the term ("EPA ATTAINS parameter").
    pub sources: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Which part of a cause equalled the term (see the module's matching rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Whole,
    OutsideParentheses,
    InsideParentheses,
    BeforeTotal,
}

/// A cause that matched a term, with the term's group and sources.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CauseMatch {
    pub cause: String,
    pub term: String,
    pub group: String,
    pub sources: Vec<String>,
    pub part: Part,
}

impl CauseMatch {
    /// "SOLIDS (SUSPENDED/BEDLOAD) — EPA ATTAINS parameter, sediment group".
    pub fn describe(&self) -> String {
        let as_term = if self.part == Part::Whole {
            String::new()
        } else {
            format!(" (as \"{}\")", self.term)
        };
        format!(
            "{}{as_term} — {}, {} group",
            self.cause,
            self.sources.join(" / "),
            self.group
        )
    }
}

/// The shipped terms, normalised once.
#[derive(Debug)]
pub struct Shipped {
    terms: Vec<Term>,
    /// Normalised term -> index in `terms`.
    index: HashMap<String, usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShippedFile {
    groups: BTreeMap<String, String>,
    sources: BTreeMap<String, String>,
    term: Vec<ShippedTerm>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShippedTerm {
    term: String,
    group: String,
    sources: Vec<String>,
    #[serde(default)]
    note: Option<String>,
}

/// Parses and checks a vocabulary file: known groups and sources, each normalised term once.
fn parse(text: &str) -> std::result::Result<Shipped, String> {
    let file: ShippedFile = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut terms = Vec::with_capacity(file.term.len());
    let mut index = HashMap::with_capacity(file.term.len());
    for t in file.term {
        let key = normalize(&t.term);
        if key.is_empty() {
            return Err(format!("term '{}' is empty", t.term));
        }
        if !file.groups.contains_key(&t.group) {
            return Err(format!("term '{}': unknown group '{}'", t.term, t.group));
        }
        let sources = source_labels(&t, &file.sources)?;
        if index.insert(key, terms.len()).is_some() {
            return Err(format!(
                "term '{}' is listed twice (after normalising)",
                t.term
            ));
        }
        terms.push(Term {
            group: t.group,
            term: t.term,
            sources,
            note: t.note,
        });
    }
    Ok(Shipped { terms, index })
}

fn source_labels(
    t: &ShippedTerm,
    known: &BTreeMap<String, String>,
) -> std::result::Result<Vec<String>, String> {
    if t.sources.is_empty() {
        return Err(format!("term '{}' has no source", t.term));
    }
    t.sources
        .iter()
        .map(|s| {
            known
                .get(s)
                .cloned()
                .ok_or_else(|| format!("term '{}': unknown source '{s}'", t.term))
        })
        .collect()
}

/// The shipped vocabulary, parsed on first use. The file is compiled in, so an error here is
/// a broken build: `Catalog::open` and `outfall rules` report it, and a unit test pins it.
pub fn shipped() -> Result<&'static Shipped> {
    static SHIPPED: OnceLock<std::result::Result<Shipped, String>> = OnceLock::new();
    SHIPPED
        .get_or_init(|| parse(SHIPPED_TOML))
        .as_ref()
        .map_err(|reason| Error::Format {
            path: PathBuf::from(SHIPPED_PATH),
            reason: reason.clone(),
        })
}

/// Where a part's term was found: a shipped term, or a manifest's extra term (made into a
/// term only when a match is built).
enum Found<'a> {
    Shipped(&'static Term),
    Extra(&'a str),
}

/// The shipped terms plus a manifest's extra terms: a view, free to make for every check.
#[derive(Debug, Clone, Copy)]
pub struct CauseVocabulary<'a> {
    /// None only if the compiled-in file is broken, which `shipped()` reports at load.
    shipped: Option<&'static Shipped>,
    extra: &'a [String],
}

impl<'a> CauseVocabulary<'a> {
    pub fn with_extra(extra: &'a [String]) -> Self {
        CauseVocabulary {
            shipped: shipped().ok(),
            extra,
        }
    }

    /// Every term one cause matches, each once, in the order of the rule's parts.
    pub fn matches(&self, cause: &str) -> Vec<CauseMatch> {
        let mut out: Vec<CauseMatch> = Vec::new();
        for (part, text) in candidate_parts(cause) {
            if let Some(m) = self.term_for(cause, part, &text) {
                if !out.iter().any(|o| o.term == m.term) {
                    out.push(m);
                }
            }
        }
        out
    }

    /// The matches of several causes, in order.
    pub fn matching(&self, causes: &[String]) -> Vec<CauseMatch> {
        causes.iter().flat_map(|c| self.matches(c)).collect()
    }

    /// The causes that match at least one term, in order. Only whether a part matches is
    /// asked, so no match is built (each copied its term, group and sources, for every
    /// listed water of every check).
    pub fn causes_matching(&self, causes: &[String]) -> Vec<String> {
        causes
            .iter()
            .filter(|c| {
                candidate_parts(c)
                    .iter()
                    .any(|(_, text)| self.find(text).is_some())
            })
            .cloned()
            .collect()
    }

    /// The shipped term, else the first extra term, equal to one normalised part of a cause.
    fn term_for(&self, cause: &str, part: Part, text: &str) -> Option<CauseMatch> {
        let found = |t: &Term| CauseMatch {
            cause: cause.to_string(),
            term: t.term.clone(),
            group: t.group.clone(),
            sources: t.sources.clone(),
            part,
        };
        match self.find(text)? {
            Found::Shipped(t) => Some(found(t)),
            Found::Extra(k) => Some(found(&extra_term(k))),
        }
    }

    /// The one lookup both use: the shipped index first, then the extra terms in order.
    fn find(&self, text: &str) -> Option<Found<'a>> {
        if let Some(s) = self.shipped {
            if let Some(&i) = s.index.get(text) {
                return s.terms.get(i).map(Found::Shipped);
            }
        }
        self.extra
            .iter()
            .find(|k| normalized_chars(k).eq(text.chars()))
            .map(|k| Found::Extra(k))
    }

    /// The rows `outfall rules` prints: the shipped terms, then the manifest's extra terms
    /// that the shipped ones do not already cover.
    pub fn table(&self) -> Vec<Term> {
        let mut rows: Vec<Term> = self.shipped.map(|s| s.terms.clone()).unwrap_or_default();
        for k in self.extra {
            let key = normalize(k);
            let covered = key.is_empty()
                || self.shipped.is_some_and(|s| s.index.contains_key(&key))
                || rows
                    .iter()
                    .any(|r| r.group == MANIFEST_GROUP && normalize(&r.term) == key);
            if !covered {
                rows.push(extra_term(k));
            }
        }
        rows
    }
}

fn extra_term(k: &str) -> Term {
    Term {
        group: MANIFEST_GROUP.to_string(),
        term: k.to_string(),
        sources: vec![MANIFEST_SOURCE.to_string()],
        note: None,
    }
}

/// The vocabulary rows with a manifest's extra terms (`rules.construction_pollutants`, so
/// manifests written for the old keyword list keep working), or the error of a broken
/// shipped file.
pub fn table(extra: &[String]) -> Result<Vec<Term>> {
    shipped()?;
    Ok(CauseVocabulary::with_extra(extra).table())
}

/// The normalised parts of a cause that may each equal a term, whole first, each once.
fn candidate_parts(cause: &str) -> Vec<(Part, String)> {
    let mut out = vec![(Part::Whole, normalize(cause))];
    let (outside, inside) = split_parentheses(cause);
    if !inside.is_empty() {
        out.push((Part::OutsideParentheses, normalize(&outside)));
        for text in inside {
            let n = normalize(text);
            if !is_medium(&n) {
                out.push((Part::InsideParentheses, n));
            }
        }
    }
    if let Some(before) = before_total(&outside) {
        out.push((Part::BeforeTotal, normalize(before)));
    }
    let mut seen: Vec<String> = Vec::with_capacity(out.len());
    out.retain(|(_, t)| {
        let keep = !t.is_empty() && !seen.contains(t);
        if keep {
            seen.push(t.clone());
        }
        keep
    });
    out
}

/// The text outside parentheses (each group replaced by a space) and the text inside each
/// outermost pair; an unclosed "(" runs to the end.
fn split_parentheses(text: &str) -> (String, Vec<&str>) {
    let mut outside = String::with_capacity(text.len());
    let mut inside = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    start = i + 1;
                    outside.push(' ');
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    inside.push(&text[start..i]);
                }
            }
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    if depth > 0 {
        inside.push(&text[start..]);
    }
    (outside, inside)
}

/// "PHOSPHORUS, TOTAL" -> "PHOSPHORUS": the text before a last comma followed by "total".
fn before_total(outside: &str) -> Option<&str> {
    let (before, after) = outside.rsplit_once(',')?;
    normalized_chars(after)
        .eq("total".chars())
        .then_some(before)
}

/// True when a normalised parenthesised text only names a medium ("tissue sediment").
fn is_medium(normalized: &str) -> bool {
    normalized.split(' ').all(|w| MEDIA.contains(&w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary() -> CauseVocabulary<'static> {
        CauseVocabulary::with_extra(&[])
    }

    fn terms(cause: &str) -> Vec<String> {
        vocabulary()
            .matches(cause)
            .into_iter()
            .map(|m| m.term)
            .collect()
    }

    /// The quick test of `causes_matching` keeps exactly the causes `matches` finds a term
    /// in, on every cause California's 303(d) lines list (and a manifest's extra terms).
    #[test]
    fn causes_matching_keeps_the_causes_with_a_match() {
        let Some(path) = crate::real_data("ca-303d-2014-2016/ca_303d_2014_2016_lines.geojson")
        else {
            return;
        };
        let text = std::fs::read_to_string(&path).expect("read");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
        let mut causes: Vec<String> = doc["features"]
            .as_array()
            .expect("features")
            .iter()
            .filter_map(|f| f["properties"]["pollutant"].as_str())
            .flat_map(|p| p.split(" | ").map(str::to_string))
            .collect();
        causes.sort();
        causes.dedup();
        let extra = vec!["Trash".to_string(), "turbidity".to_string()];
        let v = CauseVocabulary::with_extra(&extra);
        let want: Vec<String> = causes
            .iter()
            .filter(|c| !v.matches(c).is_empty())
            .cloned()
            .collect();
        let got = v.causes_matching(&causes);
        assert_eq!(got, want);
        assert!(got.len() >= 5 && got.len() + 50 < causes.len(), "{got:?}");
        assert!(got.iter().any(|c| c == "Trash"), "an extra term matches");
    }

    #[test]
    fn the_shipped_file_parses_and_has_both_groups() {
        let s = shipped().expect("causes.toml parses");
        assert!(s.terms.iter().any(|t| t.group == "sediment"));
        assert!(s.terms.iter().any(|t| t.group == "nutrients"));
        assert!(s.terms.iter().all(|t| !t.sources.is_empty()));
    }

    #[test]
    fn a_broken_file_is_refused_with_the_reason() {
        let head = "[groups]\nsediment = \"s\"\n[sources]\nx = \"X\"\n";
        let bad_group =
            format!("{head}[[term]]\nterm = \"A\"\ngroup = \"other\"\nsources = [\"x\"]\n");
        assert!(parse(&bad_group).is_err());
        let bad_source =
            format!("{head}[[term]]\nterm = \"A\"\ngroup = \"sediment\"\nsources = [\"y\"]\n");
        assert!(parse(&bad_source).is_err());
        let twice = format!("{head}[[term]]\nterm = \"A-B\"\ngroup = \"sediment\"\nsources = [\"x\"]\n[[term]]\nterm = \"a b\"\ngroup = \"sediment\"\nsources = [\"x\"]\n");
        assert!(parse(&twice).is_err());
    }

    #[test]
    fn parts_follow_the_rule() {
        let p =
            |c: &str| -> Vec<String> { candidate_parts(c).into_iter().map(|(_, t)| t).collect() };
        assert_eq!(
            p("Nutrients (phosphorus)"),
            ["nutrients phosphorus", "nutrients", "phosphorus"]
        );
        assert_eq!(p("PHOSPHORUS, TOTAL"), ["phosphorus total", "phosphorus"]);
        assert_eq!(p("NITROGEN, AMMONIA"), ["nitrogen ammonia"]);
        assert_eq!(p("Cadmium (sediment)"), ["cadmium sediment", "cadmium"]);
        assert_eq!(
            p("Chlordane (tissue & sediment)"),
            ["chlordane tissue sediment", "chlordane"]
        );
        assert_eq!(p("Odd (unclosed"), ["odd unclosed", "odd", "unclosed"]);
    }

    #[test]
    fn attains_names_match_with_group_and_source() {
        let m = vocabulary().matches("SOLIDS (SUSPENDED/BEDLOAD)");
        // The whole name first; the text outside the parentheses is California's "Solids".
        assert_eq!(m.len(), 2);
        assert_eq!(
            (m[1].term.as_str(), m[1].part),
            ("Solids", Part::OutsideParentheses)
        );
        assert_eq!(
            m[0].describe(),
            "SOLIDS (SUSPENDED/BEDLOAD) — EPA ATTAINS parameter, sediment group"
        );
        assert_eq!(
            terms("PHOSPHORUS, TOTAL"),
            ["PHOSPHORUS, TOTAL", "PHOSPHORUS"]
        );
        assert_eq!(terms("Nitrogen, Total"), ["NITROGEN, TOTAL", "NITROGEN"]);
        assert_eq!(
            terms("nutrients (phosphorus)"),
            ["nutrients (phosphorus)", "NUTRIENTS", "PHOSPHORUS"]
        );
        assert_eq!(
            terms("Total Suspended Solids (TSS)"),
            [
                "TOTAL SUSPENDED SOLIDS (TSS)",
                "TOTAL SUSPENDED SOLIDS",
                "TSS"
            ]
        );
    }

    #[test]
    fn fragments_forms_and_media_do_not_match() {
        for cause in [
            "Glasses",
            "Silty clay",
            "Siltstone",
            "NITROGEN, AMMONIA",
            "Nitrogen, Nitrate",
            "Ammonia as Nitrogen",
            "Total Kjeldahl Nitrogen (TKN)",
            "Cadmium (sediment)",
            "Sediment Toxicity",
            "MERCURY IN SEDIMENT",
            "Total Dissolved Solids",
            "Chlorpyrifos",
            "Oxygen, Dissolved",
        ] {
            assert!(terms(cause).is_empty(), "{cause}: {:?}", terms(cause));
        }
    }

    #[test]
    fn extra_terms_from_the_manifest_match_whole_and_are_listed() {
        let extra = vec!["Silt".to_string(), "TURBIDITY".to_string(), " ".to_string()];
        let v = CauseVocabulary::with_extra(&extra);
        let m = v.matches("silt");
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].group.as_str(), m[0].sources[0].as_str()),
            (MANIFEST_GROUP, MANIFEST_SOURCE)
        );
        assert!(v.matches("Siltation of the bed").is_empty());
        // An extra term the shipped file already has is matched and listed once, as shipped.
        assert_eq!(v.matches("Turbidity")[0].group, "sediment");
        let rows = v.table();
        assert_eq!(rows.iter().filter(|r| r.group == MANIFEST_GROUP).count(), 1);
    }
}
