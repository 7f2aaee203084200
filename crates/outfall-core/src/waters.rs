//! Receiving waters: the stream network built once at load from the flowline layers, and
//! the impairments matched to its reaches and to waterbodies. Built from layers alone; the
//! per-subject facts (entry, trace, listed waters) are gathered in `facts::water`.

mod hydro;
mod impairment;
mod listed;

pub use hydro::{Hydro, TraceStep};
pub use impairment::{
    all_causes, causes_in, causes_matching, split_causes, waterbody_impairments, ImpairmentHit,
};
pub use listed::listed_waters_layer;

/// Causes of several hits as one label, e.g. for map labels.
pub fn all_causes_text(hits: &[ImpairmentHit]) -> String {
    all_causes(hits).join(", ")
}

/// How the loaded list speaks of a reach in its trace.
pub const NOT_COVERED: &str = "not covered by the list loaded";

/// Whether the loaded impaired lists speak for a segment: some list declares no `covers`
/// (it is complete), or one of its `covers` prefixes matches the key.
fn list_covers(
    layers: &[crate::layer::Layer],
    tables: &[crate::layer::ImpairedTable],
    segment: &str,
) -> bool {
    let covers = |c: &crate::config::LayerConfig| {
        c.covers
            .as_ref()
            .is_none_or(|p| p.iter().any(|x| segment.starts_with(x.as_str())))
    };
    tables.iter().any(|t| covers(&t.config))
        || layers
            .iter()
            .filter(|l| l.config.role == crate::config::Role::Impaired)
            .any(|l| covers(&l.config))
}

/// How the loaded list speaks of a reach: listed, not listed, silent (the list does not
/// cover its segment), or no segment claims it ("not assessed").
fn assessment(
    layers: &[crate::layer::Layer],
    tables: &[crate::layer::ImpairedTable],
    segment: Option<&str>,
    listed: bool,
) -> &'static str {
    match segment {
        _ if listed => "listed",
        None => "not assessed",
        Some(seg) if list_covers(layers, tables, seg) => "not listed",
        Some(_) => NOT_COVERED,
    }
}
