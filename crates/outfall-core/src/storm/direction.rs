//! Which way a pipe flows, and the evidence that says so.

use serde::Serialize;

/// The evidence that decided a pipe's direction, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// The pipe names its upstream and downstream structures.
    Ids,
    /// Its inverts: water runs from the higher to the lower.
    Inverts,
    /// The manifest allows the digitised order (first vertex upstream), and nothing else said.
    VertexOrder,
    /// Nothing decided it: no trace follows it.
    Undecided,
}

impl Evidence {
    pub const ALL: [Evidence; 4] = [
        Evidence::Ids,
        Evidence::Inverts,
        Evidence::VertexOrder,
        Evidence::Undecided,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Evidence::Ids => "ids",
            Evidence::Inverts => "inverts",
            Evidence::VertexOrder => "vertex_order",
            Evidence::Undecided => "undecided",
        }
    }
}

/// The inverts' word on a pipe whose up-labelled invert is at its first vertex: `Some(true)`
/// first -> last, `Some(false)` last -> first, None when either is missing or they are level.
pub(crate) fn by_inverts(up_m: Option<f64>, down_m: Option<f64>) -> Option<bool> {
    let (u, d) = (up_m?, down_m?);
    (u != d).then_some(u > d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverts_run_downhill_and_level_or_missing_decide_nothing() {
        assert_eq!(by_inverts(Some(101.2), Some(100.9)), Some(true));
        assert_eq!(by_inverts(Some(99.0), Some(100.0)), Some(false));
        assert_eq!(by_inverts(Some(100.0), Some(100.0)), None);
        assert_eq!(by_inverts(None, Some(100.0)), None);
    }
}
