//! Outfall: municipal stormwater review. Loads a town's layers, computes disturbed acreage,
//! follows the flow to the receiving waters, and decides the conditions of the local law.
#![forbid(unsafe_code)]

pub mod area;
pub mod attributes;
pub mod batch;
pub mod bounds;
pub mod budget;
pub mod calendar;
pub mod catalog;
pub mod claims;
pub mod clip;
pub mod config;
pub mod dem;
pub mod error;
pub mod export;
pub mod facts;
pub mod frame;
pub mod law;
pub mod layer;
pub mod layer_properties;
pub mod load;
pub mod measure;
pub mod names;
pub mod network;
pub mod period;
pub mod prepared;
pub mod presentation;
pub mod record;
pub mod registry;
pub mod report;
pub mod screening;
pub mod search;
pub mod storm;
pub mod subject;
pub mod tiles;
pub mod vocabulary;
pub mod waters;

pub use catalog::Catalog;
pub use config::{Manifest, Role, Rules};
pub use error::{Error, Result};

/// A real data file beside the repository (`../shared/data/real/REL`), for unit tests: its
/// path, or None with a SKIP line when it is missing outside CI; missing in CI fails, as the
/// integration tests' `common::real` does.
#[cfg(test)]
pub(crate) fn real_data(rel: &str) -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/real")
        .join(rel);
    if p.exists() {
        return Some(p);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "real data missing in CI: {}",
        p.display()
    );
    eprintln!("SKIP: real data missing at {}", p.display());
    None
}
