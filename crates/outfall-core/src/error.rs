//! One error type for the library. Every variant carries the context a user needs to
//! find the problem: the file, the layer role and, where there is one, the feature id.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: manifest error: {reason}")]
    Manifest { path: PathBuf, reason: String },
    #[error("{path}: {reason}")]
    Format { path: PathBuf, reason: String },
    #[error("{path}: no coordinate reference system: {reason}")]
    MissingCrs { path: PathBuf, reason: String },
    #[error("{path}: cannot reproject from {crs}: {reason}")]
    Projection {
        path: PathBuf,
        crs: String,
        reason: String,
    },
    #[error("{path}: feature {feature}: {reason}")]
    Feature {
        path: PathBuf,
        feature: String,
        reason: String,
    },
    #[error("{path}: {role} layer: {key} '{field}' is not a column of the file (available: {available})")]
    MissingField {
        path: PathBuf,
        /// The layer's role ("parcels").
        role: String,
        /// The manifest key that names the column ("site_field").
        key: String,
        field: String,
        available: String,
    },
    #[error("{kind} '{id}' not found")]
    NotFound { kind: &'static str, id: String },
    #[error("invalid input: {0}")]
    Input(String),
    /// The site registry (a GeoPackage file or a PostGIS database) failed.
    #[error("site registry {store}: {reason}")]
    Registry { store: String, reason: String },
    /// An edit made against an older version of a record.
    #[error("{kind} '{id}' has changed since it was read (it is now version {current}); read it again and redo the edit")]
    Conflict {
        kind: &'static str,
        id: String,
        current: i64,
    },
    #[error("{kind} '{id}' already exists")]
    Exists { kind: &'static str, id: String },
    /// Work that ran out of its time (`budget::Budget`) and stopped before a step.
    #[error("the work passed its deadline before {step}")]
    Deadline { step: String },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub fn format(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Error::Format {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// A structural problem with a whole layer: "FILE: ROLE layer: REASON".
    pub fn layer(path: impl Into<PathBuf>, role: &str, reason: impl std::fmt::Display) -> Self {
        Error::Format {
            path: path.into(),
            reason: format!("{role} layer: {reason}"),
        }
    }

    /// A problem with one feature that makes the whole layer unusable (a duplicate id):
    /// "FILE: feature ID: ROLE layer: REASON".
    pub fn layer_feature(
        path: impl Into<PathBuf>,
        role: &str,
        feature: impl Into<String>,
        reason: impl std::fmt::Display,
    ) -> Self {
        Error::Feature {
            path: path.into(),
            feature: feature.into(),
            reason: format!("{role} layer: {reason}"),
        }
    }

    pub fn feature(
        path: impl Into<PathBuf>,
        feature: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Error::Feature {
            path: path.into(),
            feature: feature.into(),
            reason: reason.into(),
        }
    }
}
