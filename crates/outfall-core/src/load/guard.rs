//! The guards every upload format passes, kept apart from the readers so that `upload`,
//! `archive` and `gpkg` all depend on this file and never on one another: the limits of one
//! upload, the WKT a file may name, and the refusal of projected coordinates read as lon/lat.

use super::LoadProblem;
use crate::error::{Error, Result};

/// Most members an uploaded zip may hold (a shapefile is 3–8 files).
pub const MAX_ZIP_MEMBERS: usize = 32;

/// What one upload may hold. The server sets them; `DEFAULT` is what it serves with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UploadLimits {
    /// Bytes of the upload, and of what a zip unpacks to.
    pub max_bytes: usize,
    /// Features in one upload.
    pub max_features: usize,
    /// Coordinates (vertices), over every ring and feature.
    pub max_vertices: usize,
    /// Members of an uploaded zip.
    pub max_zip_members: usize,
}

impl UploadLimits {
    pub const DEFAULT: UploadLimits = UploadLimits {
        max_bytes: 2 * 1024 * 1024,
        max_features: 1000,
        max_vertices: 20_000,
        max_zip_members: MAX_ZIP_MEMBERS,
    };

    /// The features and vertices of a read upload against the limits. The messages name
    /// the counts and say "in one check"; the caller adds the upload's name.
    pub fn check_counts(&self, features: usize, vertices: usize) -> Result<()> {
        if features > self.max_features {
            return Err(Error::Input(format!(
                "{features} features; at most {} are accepted in one check",
                self.max_features
            )));
        }
        self.check_vertices(vertices)
    }

    pub fn check_vertices(&self, vertices: usize) -> Result<()> {
        if vertices > self.max_vertices {
            return Err(Error::Input(format!(
                "{vertices} vertices; at most {} coordinates are accepted in one check",
                self.max_vertices
            )));
        }
        Ok(())
    }
}

impl Default for UploadLimits {
    fn default() -> Self {
        UploadLimits::DEFAULT
    }
}

/// Only the byte bound, the others at their defaults: what a caller that reads one file
/// (a test, the CLI) needs to say.
impl From<usize> for UploadLimits {
    fn from(max_bytes: usize) -> Self {
        UploadLimits {
            max_bytes,
            ..UploadLimits::DEFAULT
        }
    }
}

/// The positions (vertices) of a GeoJSON text: every `[` directly followed by a number. A
/// byte scan, cheap enough to run before any parsing (numbers in bracketed arrays under
/// `properties` count too, which only errs on the safe side).
pub fn count_vertices(text: &[u8]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while let Some(off) = text[i..].iter().position(|&b| b == b'[') {
        i += off + 1;
        let next = text[i..].iter().find(|b| !b.is_ascii_whitespace());
        if next.is_some_and(|&b| b.is_ascii_digit() || b == b'-' || b == b'+' || b == b'.') {
            n += 1;
        }
    }
    n
}

/// Coordinates read as lon/lat that are not: the file is in a projected CRS (State Plane
/// feet, UTM metres) that it does not name. Answering with "choose the coordinate system"
/// beats a report of a polygon somewhere else on Earth.
pub(crate) fn refuse_projected(name: &str, problems: &[LoadProblem]) -> Result<()> {
    let Some(p) = problems
        .iter()
        .find(|p| p.reason.contains("not longitude/latitude"))
    else {
        return Ok(());
    };
    let example = p
        .reason
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(c, _)| format!(" (feature {}: {c})", p.feature))
        .unwrap_or_default();
    Err(Error::MissingCrs {
        path: name.into(),
        reason: format!(
            "the coordinates look projected{example}, not longitude/latitude: choose the coordinate system (for example EPSG:2261, NY State Plane Central, US feet)"
        ),
    })
}

/// A CRS read from a file (a `.prj`, a GeoPackage's definition): WKT only, without PROJ
/// extensions that could name files on the server.
pub(crate) fn checked_wkt(name: &str, wkt: &str) -> Result<String> {
    let w = wkt.trim();
    let upper = w.to_ascii_uppercase();
    let known = [
        "PROJCS[",
        "GEOGCS[",
        "PROJCRS[",
        "GEOGCRS[",
        "GEODCRS[",
        "COMPD_CS[",
        "COMPOUNDCRS[",
    ];
    if !known.iter().any(|k| upper.starts_with(k))
        || upper.contains("EXTENSION[")
        || w.contains('+')
    {
        return Err(Error::MissingCrs {
            path: name.into(),
            reason: "its coordinate system is not WKT this service accepts: choose the coordinate system".into(),
        });
    }
    Ok(w.to_string())
}
