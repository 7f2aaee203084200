//! Matching a typed query against names and addresses: whole words first, then word starts,
//! then anywhere, with street words and their postal abbreviations ("Road" and "Rd") equal;
//! and the `SearchIndex` of a catalog's names built at load. Below the catalog, which holds
//! the index; `search::find` (above it) answers a query through both.

mod index;

pub use index::SearchIndex;

/// How well a text matches a query; lower is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Match {
    /// The whole text is the query.
    Exact,
    /// The query's words are whole words of the text ("ley" in "Ley Creek").
    Words,
    /// The query starts a word ("tra" in "Taft Rd").
    Prefix,
    /// The query lies inside a word ("ley" in "Buckley Rd").
    Inside,
}

/// USPS street suffixes and directions people type either way.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("road", "rd"),
    ("street", "st"),
    ("avenue", "ave"),
    ("drive", "dr"),
    ("boulevard", "blvd"),
    ("lane", "ln"),
    ("route", "rte"),
    ("circle", "cir"),
    ("court", "ct"),
    ("place", "pl"),
    ("parkway", "pkwy"),
    ("highway", "hwy"),
    ("terrace", "ter"),
    ("north", "n"),
    ("south", "s"),
    ("east", "e"),
    ("west", "w"),
    ("saint", "st"),
    ("mount", "mt"),
];

/// Lower case, punctuation as spaces, each word in its abbreviated form.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut first = true;
    each_word(text, |w| {
        if !first {
            out.push(' ');
        }
        first = false;
        out.push_str(w);
    });
    out
}

/// The words `normalize` joins, in order, each as `visit` sees it: what the search index
/// reads at load without making a string of each text. A word is a run of letters, digits,
/// '-' and '.', in ASCII lower case, without its last dots, abbreviated.
pub(crate) fn each_word(text: &str, mut visit: impl FnMut(&str)) {
    let mut lower = String::new();
    let kept = |c: char| c.is_alphanumeric() || c == '-' || c == '.';
    for w in text.split(|c: char| !kept(c)).filter(|w| !w.is_empty()) {
        let w = if w.bytes().any(|b| b.is_ascii_uppercase()) {
            lower.clear();
            lower.push_str(w);
            lower.make_ascii_lowercase();
            lower.as_str()
        } else {
            w
        };
        let bare = w.trim_end_matches('.');
        visit(
            ABBREVIATIONS
                .iter()
                .find(|(long, _)| *long == bare)
                .map_or(bare, |(_, short)| short),
        );
    }
}

/// How `text` matches an already normalized `query`, or None.
pub fn rank(query: &str, text: &str) -> Option<Match> {
    if query.is_empty() {
        return None;
    }
    let text = normalize(text);
    if text == query {
        return Some(Match::Exact);
    }
    let mut best: Option<Match> = None;
    for (at, _) in text.match_indices(query) {
        let starts_word = at == 0 || text.as_bytes()[at - 1] == b' ';
        let end = at + query.len();
        let ends_word = end == text.len() || text.as_bytes()[end] == b' ';
        let m = match (starts_word, ends_word) {
            (true, true) => Match::Words,
            (true, false) => Match::Prefix,
            _ => Match::Inside,
        };
        best = Some(best.map_or(m, |b| b.min(m)));
    }
    best
}

/// Street suffixes in their normalized form: a query with one names a street.
const STREET_SUFFIXES: &[&str] = &[
    "rd", "st", "ave", "dr", "blvd", "ln", "rte", "cir", "ct", "pl", "pkwy", "hwy", "ter",
];

/// The (normalized) query names a street ("Buckley Rd", "Rte 31"): a site is then found by
/// its own address only, never by a name that mentions some other street.
pub fn names_street(query: &str) -> bool {
    query.split(' ').count() > 1 && query.split(' ').any(|w| STREET_SUFFIXES.contains(&w))
}

/// A parcel id as its numbers: "055.-01-07.0", "055-01-07" and "55.-1-7" are all "55-1-7".
/// Leading zeros and a zero or empty sub-part go; None when the text is not an id of numbers
/// joined by '-' (a tax map number: section, block, lot).
pub fn parcel_key(text: &str) -> Option<String> {
    let mut out = String::new();
    parcel_key_into(text, &mut out).then_some(out)
}

/// `parcel_key` written at the end of `out`; false, and `out` as it was, when `text` is
/// not a tax map number.
pub(crate) fn parcel_key_into(text: &str, out: &mut String) -> bool {
    let text = text.trim();
    if !text.contains('-')
        || !text
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-' || c == '.')
        || text
            .split('-')
            .any(|part| !part.bytes().any(|b| b.is_ascii_digit()))
    {
        return false;
    }
    for (n, part) in text.split('-').enumerate() {
        if n > 0 {
            out.push('-');
        }
        let pieces = || part.split('.').map(|p| p.trim_start_matches('0'));
        // Zero or empty sub-parts at the end go; the first always stays.
        let kept = pieces()
            .enumerate()
            .filter(|(_, p)| !p.is_empty())
            .map(|(i, _)| i)
            .last()
            .unwrap_or(0);
        for (i, p) in pieces().take(kept + 1).enumerate() {
            if i > 0 {
                out.push('.');
            }
            out.push_str(if i == 0 && p.is_empty() { "0" } else { p });
        }
    }
    true
}

/// How a typed parcel id matches a parcel's id by their numbers: the whole id, or its first
/// parts ("55-1" finds every lot of block 1 of section 55).
pub fn parcel_rank(query: &str, id: &str) -> Option<Match> {
    key_rank(&parcel_key(query)?, id)
}

/// `parcel_rank` with the query's numbers already read (`parcel_key`).
pub(crate) fn key_rank(q: &str, id: &str) -> Option<Match> {
    let id = parcel_key(id)?;
    if q == id {
        Some(Match::Words)
    } else if id.starts_with(&format!("{q}-")) {
        Some(Match::Prefix)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_rank_before_letters_inside_a_word() {
        let q = normalize("Ley");
        assert_eq!(rank(&q, "Ley Creek"), Some(Match::Words));
        assert_eq!(rank(&q, "7900 Buckley Rd"), Some(Match::Inside));
        assert!(rank(&q, "Ley Creek") < rank(&q, "7900 Buckley Rd"));
        assert_eq!(rank(&normalize("Mud"), "Mud Creek"), Some(Match::Words));
        assert_eq!(rank(&normalize("Mud Cr"), "Mud Creek"), Some(Match::Prefix));
        assert_eq!(
            rank(&normalize("mud creek"), "Mud Creek"),
            Some(Match::Exact)
        );
        assert_eq!(rank(&normalize("oneida"), "Mud Creek"), None);
    }

    #[test]
    fn road_matches_rd_both_ways() {
        assert_eq!(
            rank(&normalize("Buckley Road"), "7900 Buckley Rd"),
            Some(Match::Words)
        );
        assert_eq!(
            rank(&normalize("taft rd"), "Taft Road distribution center"),
            Some(Match::Words)
        );
        assert_eq!(normalize("State Route 31"), "state rte 31");
        assert_eq!(normalize("N. Main St."), "n main st");
    }

    #[test]
    fn parcel_ids_match_however_loosely_typed() {
        for typed in ["055-01-07", "55.-1-7", "055.-01-07.0", " 55-01-07.0 "] {
            assert_eq!(rank_id(typed), Some(Match::Words), "{typed}");
        }
        assert_eq!(rank_id("55-1"), Some(Match::Prefix));
        assert_eq!(rank_id("55-1-70"), None);
        assert_eq!(rank_id("Bear Rd"), None);
        assert_eq!(parcel_key("055.-01-07.1").as_deref(), Some("55-1-7.1"));
    }

    fn rank_id(typed: &str) -> Option<Match> {
        parcel_rank(&normalize(typed), "055.-01-07.0")
    }

    #[test]
    fn a_street_query_is_told_from_a_name() {
        assert!(names_street(&normalize("Buckley Road")));
        assert!(names_street(&normalize("Rte 31")));
        assert!(!names_street(&normalize("Buckley")));
        assert!(!names_street(&normalize("Ley Creek")));
    }
}
