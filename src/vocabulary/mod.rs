//! Vocabularies: published term lists that data values are matched against as whole terms.

pub mod causes;

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
