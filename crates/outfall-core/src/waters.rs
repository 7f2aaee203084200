//! Receiving waters: the stream network built once at load from the flowline layers, and
//! the impairments matched to its reaches and to waterbodies. Built from layers alone; the
//! per-subject facts (entry, trace, listed waters) are gathered in `facts::water`.

mod hydro;
mod impairment;
mod listed;

pub use hydro::Hydro;
pub use impairment::{
    all_causes, causes_in, causes_matching, split_causes, waterbody_impairments, ImpairmentHit,
};
pub use listed::listed_waters_layer;

/// Causes of several hits as one label, e.g. for map labels.
pub fn all_causes_text(hits: &[ImpairmentHit]) -> String {
    all_causes(hits).join(", ")
}
