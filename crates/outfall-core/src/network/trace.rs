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
    ///
    /// Distances are geodesic metres on WGS84. Three reaches, each 0.001° of latitude long
    /// (111.1 m at 43.2° N), digitized downstream and joined end to start:
    ///
    /// ```
    /// use geo_types::line_string;
    /// use outfall_core::network::{display_names, Network, Reach, TraceEnd};
    ///
    /// let reach = |id: &str, name: Option<&str>, north: f64| Reach {
    ///     id: id.into(),
    ///     name: name.map(String::from),
    ///     line: line_string![(x: -76.17, y: north), (x: -76.17, y: north - 0.001)],
    /// };
    /// let net = Network::build(
    ///     vec![
    ///         reach("R1", None, 43.200),
    ///         reach("R2", Some("Mud Creek"), 43.199),
    ///         reach("R3", Some("Oneida River"), 43.198),
    ///     ],
    ///     None, // no NHDPlus attributes: the links come from the geometry
    ///     1.0,  // snap tolerance, metres
    /// );
    /// let trace = net.trace(0, 50_000.0);
    /// assert_eq!(trace.end, TraceEnd::Outlet);
    /// let third = trace.steps[2];
    /// assert_eq!(net.reach(third.reach).id, "R3");
    /// assert!((third.distance_m - 222.2).abs() < 0.5, "{} m", third.distance_m);
    /// let names = display_names(&trace, |i| net.reach(i).name.as_deref());
    /// assert_eq!(names, ["unnamed tributary to Mud Creek", "Mud Creek", "Oneida River"]);
    ///
    /// // A 150 m limit ends the trace in R2, the reach in which the limit falls.
    /// let short = net.trace(0, 150.0);
    /// assert_eq!((short.steps.len(), short.end), (2, TraceEnd::Limit));
    /// ```
    pub fn trace(&self, start: usize, limit_m: f64) -> Trace {
        assert!(start < self.len(), "trace start {start} out of range");
        let mut on_trace = vec![false; self.len()];
        let mut steps = Vec::new();
        let mut divergences = Vec::new();
        let (mut cur, mut entry_m, mut distance_m) = (start, 0.0_f64, 0.0_f64);
        let end = loop {
            // Spent: the check's next step answers the deadline error, never this trace.
            if crate::budget::spent() {
                break TraceEnd::Limit;
            }
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

impl Network {
    /// The name of the first named reach below `r` on the main path (`name_of` names a
    /// reach; `r` itself is not below it), or None at an outlet or once the walk has gone
    /// round a cycle of unnamed reaches. A cycle is noticed without a set of the reaches seen (Brent's method: the walk
    /// is compared with a mark moved at doubling intervals, so it ends within a few rounds
    /// of the cycle), since a check asks this for each of its twenty candidate waters.
    pub fn first_named_below<'a>(
        &self,
        r: usize,
        name_of: impl Fn(usize) -> Option<&'a str>,
    ) -> Option<&'a str> {
        let (mut at, mut mark, mut span, mut walked) = (r, r, 1usize, 0usize);
        while let Some(next) = self.downstream(at).first().map(|l| l.reach) {
            // Back at the start, or at the mark: round a cycle, every reach on it seen.
            if next == r || next == mark {
                return None;
            }
            if let Some(n) = name_of(next) {
                return Some(n);
            }
            at = next;
            walked += 1;
            if walked == span {
                (mark, span, walked) = (at, span * 2, 0);
            }
        }
        None
    }
}

impl Network {
    /// Each step's name as the reach's own would be, walking past the trace's end (for names
    /// a trace limit must not cut short, the national data set's): [`step_names`] within the
    /// trace, and the unnamed steps after its last named one named after the first named
    /// reach below the last step, walked once, since their own walks all pass through it.
    pub fn step_names_beyond<'a>(
        &self,
        trace: &Trace,
        name_of: impl Fn(usize) -> Option<&'a str>,
    ) -> Vec<StepName<'a>> {
        let mut names = step_names(trace, &name_of);
        let Some(last) = trace.steps.last().filter(|_| trace.end != TraceEnd::Outlet) else {
            return names;
        };
        if let Some(x) = self.first_named_below(last.reach, &name_of) {
            let tail = names.iter_mut().rev();
            for name in tail.take_while(|n| **n == StepName::Unnamed) {
                *name = StepName::TributaryTo(x);
            }
        }
        names
    }
}

/// A step's SWPPP name, kept as what it is made of and written out only when shown: most
/// traces are followed for their impairments and never print a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepName<'a> {
    /// The reach's own name.
    Own(&'a str),
    /// "unnamed tributary to X".
    TributaryTo(&'a str),
    /// "unnamed tributary": no named water below it.
    Unnamed,
}

impl StepName<'_> {
    /// The name written out, in a string of its own length (`to_string` writes "unnamed
    /// tributary to X" in two pieces and grows the string between them; a check writes
    /// twenty candidates' names and every step's).
    pub fn text(&self) -> String {
        match self {
            StepName::Own(n) => (*n).to_string(),
            StepName::TributaryTo(x) => {
                let mut s = String::with_capacity(TRIBUTARY_TO.len() + x.len());
                s.push_str(TRIBUTARY_TO);
                s.push_str(x);
                s
            }
            StepName::Unnamed => UNNAMED_TRIBUTARY.to_string(),
        }
    }
}

const TRIBUTARY_TO: &str = "unnamed tributary to ";

impl std::fmt::Display for StepName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepName::Own(n) => f.write_str(n),
            StepName::TributaryTo(x) => write!(f, "{TRIBUTARY_TO}{x}"),
            StepName::Unnamed => f.write_str(UNNAMED_TRIBUTARY),
        }
    }
}

/// Whether the name reads exactly `text`, without writing it out.
impl PartialEq<str> for StepName<'_> {
    fn eq(&self, text: &str) -> bool {
        match self {
            StepName::Own(n) => *n == text,
            StepName::TributaryTo(x) => text.strip_prefix(TRIBUTARY_TO) == Some(*x),
            StepName::Unnamed => text == UNNAMED_TRIBUTARY,
        }
    }
}

/// SWPPP names, one per step: a named reach keeps its name; an unnamed reach is
/// "unnamed tributary to X", X being the first named reach further down the trace, or plain
/// "unnamed tributary" when none is named before the trace ends. `name_of` gives a reach's own
/// name (a caller may also name lake paths after their lake). Consecutive duplicates are kept
/// (one entry per step); dedupe for a receiving-water list.
pub fn display_names<'a>(trace: &Trace, name_of: impl Fn(usize) -> Option<&'a str>) -> Vec<String> {
    step_names(trace, name_of)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// [`display_names`] as [`StepName`]s, nothing written out.
pub fn step_names<'a>(
    trace: &Trace,
    name_of: impl Fn(usize) -> Option<&'a str>,
) -> Vec<StepName<'a>> {
    let mut out = vec![StepName::Unnamed; trace.steps.len()];
    let mut next_named: Option<&str> = None;
    for (i, step) in trace.steps.iter().enumerate().rev() {
        out[i] = match name_of(step.reach) {
            Some(name) => {
                next_named = Some(name);
                StepName::Own(name)
            }
            None => next_named.map_or(StepName::Unnamed, StepName::TributaryTo),
        };
    }
    out
}

/// The name of an unnamed reach with no named water below it.
pub const UNNAMED_TRIBUTARY: &str = "unnamed tributary";
