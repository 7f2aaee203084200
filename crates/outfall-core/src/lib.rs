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
pub mod load;
pub mod measure;
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
