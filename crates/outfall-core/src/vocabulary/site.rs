//! The word tables of the typed site record: the shipped `site.toml` plus a data set's own
//! words from its manifest (`[vocabulary.status]`, ...). A word is looked up whole after
//! `normalize`, never by a fragment.

pub use super::normalize;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const SHIPPED: &str = include_str!("site.toml");

/// Declares the word tables once: each table's name (the manifest's `[vocabulary.<name>]`
/// and `outfall rules`' first column) comes from its field with `stringify!`, never a second
/// string, and each is checked against its closed list of codes.
macro_rules! tables {
    ($($(#[doc = $d:literal])* $t:ident: $codes:ident,)*) => {
        /// A data set's own words, from the manifest's `[vocabulary]` table: word = code.
        #[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
        #[serde(default, deny_unknown_fields)]
        pub struct VocabularyConfig {
            $($(#[doc = $d])* pub $t: BTreeMap<String, String>,)*
        }

        /// The tables as used: every word normalized once, the data set's words over the
        /// shipped.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Vocabulary {
            $($(#[doc = $d])* pub $t: BTreeMap<String, String>,)*
        }

        impl Vocabulary {
            /// The shipped tables with a data set's words added. The error names a word whose
            /// code is not in the closed list.
            pub fn with(extra: &VocabularyConfig) -> Result<Vocabulary, String> {
                let shipped: VocabularyConfig =
                    toml::from_str(SHIPPED).map_err(|e| e.to_string())?;
                Ok(Vocabulary {
                    $($t: table(stringify!($t), &shipped.$t, &extra.$t, &$codes)?,)*
                })
            }

            /// Every table as rows (table, word, code), for `outfall rules`.
            pub fn rows(&self) -> Vec<(&'static str, &str, &str)> {
                [$((stringify!($t), &self.$t)),*]
                    .into_iter()
                    .flat_map(|(name, t)| t.iter().map(move |(w, c)| (name, w.as_str(), c.as_str())))
                    .collect()
            }
        }
    };
}

tables! {
    /// Where a site's work stands.
    status: STATUS_CODES,
    /// The decision on a SWPPP.
    approval: APPROVAL_CODES,
    /// Who approved a SWPPP.
    approving_body: BODY_CODES,
    /// What the work is.
    land_use: LAND_USE_CODES,
    /// The (5) exemption a claim names.
    exemption: EXEMPTION_CODES,
}

/// The codes each table may map to: a manifest word mapped to anything else is refused.
pub const STATUS_CODES: [&str; 6] = [
    "planned",
    "approved",
    "under_construction",
    "stabilized",
    "closed",
    "withdrawn",
];
pub const APPROVAL_CODES: [&str; 5] = ["approved", "denied", "pending", "withdrawn", "none"];
pub const BODY_CODES: [&str; 3] = ["planning_board", "town_board", "officer"];
pub const LAND_USE_CODES: [&str; 3] = ["single_family_residence", "agricultural", "other"];
pub const EXEMPTION_CODES: [&str; 11] = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"];

impl Default for Vocabulary {
    fn default() -> Self {
        Vocabulary::with(&VocabularyConfig::default()).unwrap_or_else(|e| {
            unreachable!("the shipped site.toml is checked by a unit test: {e}")
        })
    }
}

/// One table: the shipped words, then the data set's, each normalized and mapped to one of
/// `codes`.
fn table(
    name: &str,
    base: &BTreeMap<String, String>,
    own: &BTreeMap<String, String>,
    codes: &[&str],
) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for (word, code) in base.iter().chain(own) {
        if !codes.contains(&code.as_str()) {
            return Err(format!(
                "vocabulary.{name}: '{word}' maps to '{code}', which is not one of {}",
                codes.join(", ")
            ));
        }
        out.insert(normalize(word), code.clone());
    }
    Ok(out)
}

/// Looks a word up whole in one table.
pub fn lookup<'a>(table: &'a BTreeMap<String, String>, word: &str) -> Option<&'a str> {
    table.get(&normalize(word)).map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_words_parse_and_map_to_closed_codes() {
        let v = Vocabulary::with(&VocabularyConfig::default()).unwrap();
        assert_eq!(
            lookup(&v.status, "Under-Construction"),
            Some("under_construction")
        );
        assert_eq!(lookup(&v.status, "constructions"), None);
        assert_eq!(lookup(&v.approval, "Under review"), Some("pending"));
        assert_eq!(lookup(&v.exemption, "Routine maintenance"), Some("c"));
        assert_eq!(lookup(&v.exemption, "assignment"), None);
    }

    #[test]
    fn a_manifest_word_with_an_unknown_code_is_refused_by_name() {
        let mut extra = VocabularyConfig::default();
        extra.status.insert("demolished".into(), "gone".into());
        let e = Vocabulary::with(&extra).unwrap_err();
        assert!(
            e.contains("demolished") && e.contains("under_construction"),
            "{e}"
        );
    }

    #[test]
    fn normalize_keeps_words_whole() {
        assert_eq!(
            normalize("  SOLIDS (SUSPENDED/BEDLOAD) "),
            "solids suspended bedload"
        );
        assert_eq!(normalize("(5)(c)"), "5 c");
    }
}
