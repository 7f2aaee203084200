//! Matching a typed query against names and addresses: whole words first, then word starts,
//! then anywhere, with street words and their postal abbreviations ("Road" and "Rd") equal.

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
    let lower: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '.' {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect();
    lower
        .split_whitespace()
        .map(|w| {
            let bare = w.trim_end_matches('.');
            ABBREVIATIONS
                .iter()
                .find(|(long, _)| *long == bare)
                .map_or(bare, |(_, short)| short)
        })
        .collect::<Vec<_>>()
        .join(" ")
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
}
