//! The findings' sentences, written once at their exact length. `format!` sizes its string
//! from the literal text alone, so a reason that starts with an argument (most do) grows from
//! nothing by doubling: five or six reallocations for a 200-character sentence, fourteen
//! findings a check. `prose!` writes into the thread's buffer and copies the sentence out.

use std::cell::Cell;
use std::fmt::{Arguments, Write};

thread_local! {
    static BUFFER: Cell<String> = const { Cell::new(String::new()) };
}

/// `format!`'s text, in a string of its own length.
pub fn write(args: Arguments) -> String {
    if let Some(s) = args.as_str() {
        return s.to_string();
    }
    // Taken, not borrowed: an argument's Display may itself write prose.
    let mut buf = BUFFER.take();
    buf.clear();
    let _ = buf.write_fmt(args);
    let out = String::from(buf.as_str());
    BUFFER.set(buf);
    out
}

/// A number as the law writes it: words for a whole number up to ten ("five acres"), digits
/// otherwise ("12 acres", "2.5 acres"), so a label made from a setting reads as the law's own
/// words at the default.
pub fn number_words(x: f64) -> String {
    const WORDS: [&str; 11] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    match WORDS.get(x as usize) {
        Some(w) if x.fract() == 0.0 && x >= 0.0 => (*w).to_string(),
        _ => format!("{x}"),
    }
}

/// `format!` for the law's sentences: the same text, one allocation.
macro_rules! prose {
    ($($arg:tt)*) => {
        $crate::law::prose::write(format_args!($($arg)*))
    };
}
pub(crate) use prose;

#[cfg(test)]
mod tests {
    struct Nested;
    impl std::fmt::Display for Nested {
        fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(&prose!("{} acres", 2.5))
        }
    }

    #[test]
    fn numbers_up_to_ten_are_words_others_digits() {
        use super::number_words;
        assert_eq!(number_words(5.0), "five");
        assert_eq!(number_words(0.0), "zero");
        assert_eq!(number_words(10.0), "ten");
        assert_eq!(number_words(11.0), "11");
        assert_eq!(number_words(2.5), "2.5");
        assert_eq!(number_words(-1.0), "-1");
    }

    #[test]
    fn writes_what_format_writes_at_its_own_length() {
        let name = "Mud Creek";
        let cases = [
            (prose!("{name} receives it"), format!("{name} receives it")),
            (prose!("plain words"), "plain words".to_string()),
            (
                prose!("{:.2} acres", 1.0 / 3.0),
                format!("{:.2} acres", 1.0 / 3.0),
            ),
            (
                prose!("[{}] then {}", Nested, Nested),
                "[2.5 acres] then 2.5 acres".into(),
            ),
            (prose!("{}", "x".repeat(5000)), "x".repeat(5000)),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
            assert_eq!(got.capacity(), got.len(), "{got:.40}");
        }
    }
}
