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
