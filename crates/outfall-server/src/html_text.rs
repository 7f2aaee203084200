//! The text helpers the printable report's modules share (`html.rs`, `html_summary.rs`,
//! `inset_labels.rs`), kept below all three.

/// The text with HTML's special characters escaped, for an element's text or a quoted attribute.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The 303(d) / Integrated Report category in plain words (EPA's categories, used by NYSDEC).
pub fn category_words(category: &str) -> &'static str {
    match category.trim().to_ascii_lowercase().as_str() {
        "5" => "impaired; a TMDL (pollution budget) is still needed",
        "4a" => "impaired; a TMDL is in place",
        "4b" => "impaired; other required controls are expected to fix it",
        "4c" => "impaired by something that is not a pollutant (e.g. flow or habitat)",
        "4" => "impaired; no TMDL needed or one is in place",
        "3" => "not enough data to tell",
        "2" => "some uses met, others not assessed",
        "1" => "all uses met",
        _ => "category as given by the list",
    }
}
