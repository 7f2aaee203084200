//! Vocabularies: published term lists that data values are matched against as whole terms.

pub mod causes;
pub mod site;

/// Lowercase, every run of characters that are not letters or digits to one space, trimmed:
/// the one form in which terms and data values are compared ("Sedimentation/Siltation" and
/// "SEDIMENTATION / SILTATION" both become "sedimentation siltation").
pub fn normalize(text: &str) -> String {
    normalized_chars(text).collect()
}

/// The characters of `normalize(text)`, without building the string, so a raw text can be
/// compared with a normalised one without allocating.
pub(crate) fn normalized_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .enumerate()
        .flat_map(|(i, word)| {
            let gap = (i > 0).then_some(' ');
            gap.into_iter()
                .chain(word.chars().flat_map(char::to_lowercase))
        })
}

/// Every vocabulary of a data set, as `outfall rules --json` and `GET /rules` print them:
/// the cause terms, then each table of the site record as word -> code.
/// `extra_causes` is the manifest's `rules.construction_pollutants`.
pub fn tables(extra_causes: &[String], words: &site::Vocabulary) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    out.insert(
        "causes".into(),
        serde_json::to_value(causes::CauseVocabulary::with_extra(extra_causes).table())
            .unwrap_or_default(),
    );
    for (table, word, code) in words.rows() {
        let t = out
            .entry(table.to_string())
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
        if let serde_json::Value::Object(o) = t {
            o.insert(word.to_string(), code.into());
        }
    }
    serde_json::Value::Object(out)
}

/// The site-record tables as text, one line per code with its words.
pub fn site_text(words: &site::Vocabulary) -> String {
    let mut text = "\nVOCABULARIES — words of the site record (matched whole; a data set adds its own under [vocabulary])\n".to_string();
    let mut by: std::collections::BTreeMap<(&str, &str), Vec<&str>> = Default::default();
    for (table, word, code) in words.rows() {
        by.entry((table, code)).or_default().push(word);
    }
    let mut last = "";
    for ((table, code), words) in by {
        if table != last {
            text += &format!("  {table}:\n");
            last = table;
        }
        text += &format!("    {code} — {}\n", words.join(", "));
    }
    text
}
