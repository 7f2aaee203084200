//! Downstream trace along main branches, and SWPPP display names.

use super::Network;

/// The reaches downstream of a start reach, in flow order (the start reach first).
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub steps: Vec<Step>,
    /// Every place where the trace had more than one way to go.
    pub divergences: Vec<Divergence>,
    pub end: TraceEnd,
}

/// One reach on a trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Reach index in the network.
    pub reach: usize,
    /// Cumulative distance in metres from the start of the entry (first) reach to where the trace
    /// enters this reach: its start, or the junction point for a tributary joining mid-reach.
    pub distance_m: f64,
    /// Metres travelled in this reach: its whole geodesic length, or the part below the junction.
    pub length_m: f64,
}

/// The trace left step `at_step` by `main` while the flow also splits into `minor`.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    pub at_step: usize,
    pub main: usize,
    pub minor: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceEnd {
    /// The last step has no downstream reach.
    Outlet,
    /// The cumulative distance at the end of the last step exceeds the limit.
    Limit,
    /// The next main reach (`reach`) is already on the trace; it is not repeated.
    Cycle { reach: usize },
}

impl Network {
    /// Follows main branches from reach `start` until an outlet, a cycle, or until the distance
    /// from the start of `start` to the end of the current reach exceeds `limit_m` (the reach in
    /// which the limit falls is included). Runs in O(steps). Panics if `start` is out of range.
    pub fn trace(&self, start: usize, limit_m: f64) -> Trace {
        assert!(start < self.len(), "trace start {start} out of range");
        let mut on_trace = vec![false; self.len()];
        let mut steps = Vec::new();
        let mut divergences = Vec::new();
        let (mut cur, mut entry_m, mut distance_m) = (start, 0.0_f64, 0.0_f64);
        let end = loop {
            if on_trace[cur] {
                break TraceEnd::Cycle { reach: cur };
            }
            on_trace[cur] = true;
            let length_m = (self.length_m(cur) - entry_m).max(0.0);
            steps.push(Step {
                reach: cur,
                distance_m,
                length_m,
            });
            let links = self.downstream(cur);
            let Some(main) = links.first() else {
                break TraceEnd::Outlet;
            };
            if links.len() > 1 {
                divergences.push(Divergence {
                    at_step: steps.len() - 1,
                    main: main.reach,
                    minor: links[1..].iter().map(|l| l.reach).collect(),
                });
            }
            distance_m += length_m;
            if distance_m > limit_m {
                break TraceEnd::Limit;
            }
            cur = main.reach;
            entry_m = main.entry_m;
        };
        Trace {
            steps,
            divergences,
            end,
        }
    }
}

/// SWPPP names, one per step: a named reach keeps its name; an unnamed reach is
/// "unnamed tributary to X", X being the first named reach further down the trace, or plain
/// "unnamed tributary" when none is named before the trace ends. `name_of` gives a reach's own
/// name (a caller may also name lake paths after their lake). Consecutive duplicates are kept
/// (one entry per step); dedupe for a receiving-water list.
pub fn display_names<'a>(trace: &Trace, name_of: impl Fn(usize) -> Option<&'a str>) -> Vec<String> {
    let mut out = vec![String::new(); trace.steps.len()];
    let mut next_named: Option<&str> = None;
    for (i, step) in trace.steps.iter().enumerate().rev() {
        out[i] = match name_of(step.reach) {
            Some(name) => {
                next_named = Some(name);
                name.to_owned()
            }
            None => match next_named {
                Some(x) => format!("unnamed tributary to {x}"),
                None => UNNAMED_TRIBUTARY.to_owned(),
            },
        };
    }
    out
}

/// The name of an unnamed reach with no named water below it.
pub const UNNAMED_TRIBUTARY: &str = "unnamed tributary";
