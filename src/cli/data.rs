//! A data set as the commands read it: its layers loaded with a progress bar, and the live
//! registry when there is one.

use indicatif::{ProgressBar, ProgressStyle};
use outfall_core::registry::{Checking, Live};
use outfall_core::{Catalog, Manifest};
use std::path::Path;
use std::sync::Arc;

/// Loads the data set of `data`, with a progress bar, and warns of each feature refused.
pub fn load(data: &Path) -> anyhow::Result<Catalog> {
    let manifest = Manifest::read(data)?;
    let bar = ProgressBar::new(manifest.layers.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("loading {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let catalog = Catalog::load(manifest, &mut |file, done, _| {
        bar.set_position(done as u64);
        bar.set_message(file.to_string());
    })?;
    bar.finish_and_clear();
    for p in catalog.problems() {
        eprintln!("warning: {}: feature {}: {}", p.path, p.feature, p.reason);
    }
    Ok(catalog)
}

/// The data set as the town's record has it. With a registry (the one given, else the data
/// folder's registry.gpkg when it exists) its sites and phases replace the site files', so a
/// command sees the officer's edits. Only an existing registry is read; a command never
/// creates one.
pub fn load_current(
    data: &Path,
    registry: Option<&str>,
) -> anyhow::Result<(Arc<Catalog>, Option<Arc<Live>>)> {
    let files = Arc::new(load(data)?);
    let live = match registry {
        Some(spec) => open_registry(data, Some(spec), files.clone(), Checking::Everything)?,
        None if data.join(outfall_core::registry::GPKG_FILE).exists() => {
            open_registry(data, None, files.clone(), Checking::Everything)?
        }
        None => None,
    };
    let catalog = match &live {
        Some(live) => live.snapshot().catalog.clone(),
        None => files,
    };
    Ok((catalog, live))
}

/// The live registry `--registry` names (seeded from the file layers on first run), or
/// `None` to serve the files read-only: when asked (`none`), or when the default file cannot
/// be created because the data folder is read-only. `checking` says whether pending
/// applications are checked at once or left to the server's watcher.
pub fn open_registry(
    data: &Path,
    spec: Option<&str>,
    catalog: Arc<Catalog>,
    checking: Checking,
) -> anyhow::Result<Option<Arc<Live>>> {
    if spec.is_some_and(|s| s.eq_ignore_ascii_case("none")) {
        return Ok(None);
    }
    let store = match outfall_postgis::open(spec, data, &catalog.manifest.words) {
        Ok(s) => s,
        Err(e) if spec.is_none() && folder_is_read_only(data) => {
            eprintln!("warning: {e}; the data folder is read-only, so the sites are served from the files, read-only");
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    Ok(Some(Arc::new(Live::open(store, catalog, checking)?)))
}

fn folder_is_read_only(dir: &Path) -> bool {
    let probe = dir.join(".outfall-write-probe");
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            false
        }
        Err(_) => true,
    }
}
