//! The site registry in PostgreSQL with PostGIS, kept apart from `outfall-core` because the
//! `postgres` client runs on tokio, and the core builds without an async runtime.

mod listen;
mod rows;
mod store;
mod tx;

pub use listen::CHANNEL;
pub use store::PostGis;

use outfall_core::claims::Vocabulary;
use outfall_core::registry::{self, Registry};
use outfall_core::Result;
use std::path::Path;

/// Opens the registry named by `--registry`: `postgres://...` or `postgresql://...` for
/// PostGIS, a path to a `.gpkg` file, or (None) `registry.gpkg` in the data folder. `words`
/// (the manifest's vocabularies) convert rows written before the typed record, once.
pub fn open(spec: Option<&str>, data_dir: &Path, words: &Vocabulary) -> Result<Box<dyn Registry>> {
    match spec {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            Ok(Box::new(PostGis::open(url, words)?))
        }
        Some(path) => registry::open_file(Some(Path::new(path)), data_dir, words),
        None => registry::open_file(None, data_dir, words),
    }
}
