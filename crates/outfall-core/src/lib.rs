//! Outfall: municipal stormwater review. Loads a town's layers, computes disturbed acreage,
//! follows the flow to the receiving waters, and decides the conditions of the local law.
#![forbid(unsafe_code)]

/// Disturbed acreage: overlaps counted once, geodesic area on WGS84, and the peak at one time.
pub mod area;
/// A feature's source attributes, stored compactly (shared keys, pre-encoded values).
pub mod attributes;
/// Batch checks of many sites, parcels or drawn polygons: one summary row each.
pub mod batch;
/// What a written value may be: the range of dates and the length of text.
pub mod bounds;
/// How long a piece of work may run: a deadline and a cancellation flag it polls.
pub mod budget;
/// The inspection calendar of §230-20 D(9)(a)[2]: when each site must be inspected.
pub mod calendar;
/// The loaded data set: every layer read, checked and indexed once, then shared.
pub mod catalog;
/// What a site's record states about itself (status, approval, exemptions), typed.
pub mod claims;
/// Clipping geometries to a rectangle (a tile and its buffer).
pub mod clip;
/// The data set's manifest, `outfall.toml`: its layers, fields and the law's settings.
pub mod config;
/// The terrain under the storm network: a conditioned DEM and the sewersheds drawn on it.
pub mod dem;
/// The library's one error type, naming the file, layer and feature at fault.
pub mod error;
/// A site's or a check's disturbance as GeoJSON or a zipped Shapefile.
pub mod export;
/// The facts of one subject, with no legal judgement: acreage, jurisdiction, waters.
pub mod facts;
/// The view a report is shown in: the site, its outfall and the path to impaired water.
pub mod frame;
/// The local law as code: one pure function per rule, each citing its clause.
pub mod law;
/// One loaded layer with its R-tree and id lookup, and an impaired list that is a table.
pub mod layer;
/// The properties served for a feature of a layer that is not a site's own.
pub mod layer_properties;
/// Reading layers from the formats a town publishes into checked WGS84 features.
pub mod load;
/// What the town records over time beside each site: inspections and rainfall.
pub mod logbook;
/// Metric measurements on lon/lat data at a site's scale (a local frame in metres).
pub mod measure;
/// Matching typed text against names and addresses, and the index of them built at load.
pub mod names;
/// The flow network of stream reaches and the downstream trace.
pub mod network;
/// Time periods of dated features and the OGC API `datetime` filter.
pub mod period;
/// The prepared cache: each layer as loaded, written as FlatGeobuf for a fast start.
pub mod prepared;
/// How each layer is presented to a client, with the sites' reports laid over.
pub mod presentation;
/// The site record: one typed value, declared once, built at each edge.
pub mod record;
/// The site registry: the town's live record of sites, polygons, inspections and tokens.
pub mod registry;
/// The site report: a stable JSON contract and its plain-text rendering.
pub mod report;
/// A check from end to end: the subject's facts, the law's findings, the report.
pub mod screening;
/// Finding what a typed query names in a catalog, ranked, with the sites' reports.
pub mod search;
/// The storm-sewer network of structures and pipes, and the trace through it.
pub mod storm;
/// What is being checked: a site, a parcel, or polygons drawn or uploaded.
pub mod subject;
/// Vector tiles: tile math, projection, clipping and MVT encoding, and the tile cache.
pub mod tiles;
/// Published term lists that data values are matched against as whole terms.
pub mod vocabulary;
/// Receiving waters: the stream network and the impairments matched to its reaches.
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
