//! Where a manifest's layer files may lie: inside the data folder unless the manifest says
//! `allow_outside_paths = true`. A manifest rule, read by the loader and by `outfall prepare`.

use super::{LayerConfig, Manifest, MANIFEST_FILE};
use crate::error::{Error, Result};
use std::path::Path;

/// True when `path` (a manifest layer path) stays inside the data folder: relative, and
/// never climbing above its start with `..`.
pub fn path_stays_inside(path: &Path) -> bool {
    use std::path::Component;
    let mut depth: i64 = 0;
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => return false,
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
        }
    }
    true
}

/// Unless the manifest allows it, a layer's file must lie inside the data folder, also after
/// following symbolic links.
pub(crate) fn check_inside(manifest: &Manifest, cfg: &LayerConfig) -> Result<()> {
    if manifest.allow_outside_paths {
        return Ok(());
    }
    let path = manifest.dir.join(&cfg.path);
    let outside = !path_stays_inside(&cfg.path)
        || match (path.canonicalize(), manifest.dir.canonicalize()) {
            (Ok(file), Ok(dir)) => !file.starts_with(dir),
            _ => false, // a missing file is reported by the loader
        };
    if outside {
        return Err(Error::Manifest {
            path: manifest.dir.join(MANIFEST_FILE),
            reason: format!(
                "layer {} ({}): the path points outside the data folder; set `allow_outside_paths = true` at the top of the manifest to allow it",
                cfg.role.as_str(),
                cfg.path.display()
            ),
        });
    }
    Ok(())
}
