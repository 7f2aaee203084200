//! Reprojection to WGS84 lon/lat with PROJ. Built once per layer at load time.

use crate::error::{Error, Result};
use geo::MapCoordsInPlace;
use geo_types::Geometry;
use proj::Proj;
use std::path::Path;

/// A source CRS and the PROJ pipeline that takes it to WGS84 lon/lat, or nothing when the
/// data is already lon/lat.
pub struct Reprojector {
    pub crs: String,
    proj: Option<Proj>,
    /// Where the CRS is meant to be used (west, south, east, north in degrees), when PROJ
    /// knows it (authority codes; an ESRI .prj usually carries none).
    pub area_of_use: Option<[f64; 4]>,
    /// The CRS as PROJ was given it, to build the same pipeline for another thread.
    source: Option<String>,
}

/// Names that mean "already WGS84 lon/lat" (NAD83 geographic is within a metre of it; the
/// static PROJ build has no grids to do better anyway).
fn is_lonlat(crs: &str) -> bool {
    let c = crs.to_ascii_uppercase().replace(' ', "");
    c.ends_with("CRS84")
        || c.ends_with("EPSG::4326")
        || c == "EPSG:4326"
        || c.ends_with("EPSG::4269")
        || c == "EPSG:4269"
}

impl Reprojector {
    pub fn lonlat() -> Self {
        Reprojector {
            crs: "EPSG:4326".into(),
            proj: None,
            area_of_use: None,
            source: None,
        }
    }

    /// `crs` is an authority code ("EPSG:2261", "urn:ogc:def:crs:EPSG::2261") or WKT from a `.prj`.
    pub fn new(path: &Path, crs: &str) -> Result<Self> {
        let crs = crs.trim();
        if is_lonlat(crs) {
            return Ok(Reprojector::lonlat());
        }
        let normalized = normalize_urn(crs);
        let proj =
            Proj::new_known_crs(&normalized, "EPSG:4326", None).map_err(|e| Error::Projection {
                path: path.to_path_buf(),
                crs: short(crs),
                reason: e.to_string(),
            })?;
        let area_of_use = Proj::new(&normalized)
            .ok()
            .and_then(|p| p.area_of_use().ok())
            .and_then(|(a, _)| a)
            .map(|a| [a.west, a.south, a.east, a.north])
            .filter(|a| a.iter().all(|v| v.is_finite()) && a[0] <= a[2] && a[1] <= a[3]);
        Ok(Reprojector {
            crs: short(crs),
            proj: Some(proj),
            area_of_use,
            source: Some(crs.to_string()),
        })
    }

    /// What a worker thread needs to build its own copy: a PROJ handle cannot be shared
    /// between threads, so each parallel loader makes one from this.
    pub fn recipe(&self) -> Option<String> {
        self.source.clone()
    }

    /// The reprojector `recipe` describes (`path` names the layer in an error).
    pub fn from_recipe(path: &Path, recipe: Option<&str>) -> Result<Self> {
        match recipe {
            None => Ok(Reprojector::lonlat()),
            Some(c) => Reprojector::new(path, c),
        }
    }

    /// Reprojects in place; PROJ errors (points outside the CRS's domain) become `Err(reason)`.
    pub fn apply(&self, geom: &mut Geometry<f64>) -> std::result::Result<(), String> {
        let Some(proj) = &self.proj else {
            return Ok(());
        };
        let failure: std::cell::RefCell<Option<String>> = Default::default();
        geom.map_coords_in_place(|c| match proj.convert((c.x, c.y)) {
            Ok((x, y)) => geo_types::Coord { x, y },
            Err(e) => {
                failure.borrow_mut().get_or_insert_with(|| e.to_string());
                geo_types::Coord {
                    x: f64::NAN,
                    y: f64::NAN,
                }
            }
        });
        match failure.into_inner() {
            Some(reason) => Err(format!("reprojection from {} failed: {reason}", self.crs)),
            None => Ok(()),
        }
    }
}

fn normalize_urn(crs: &str) -> String {
    // "urn:ogc:def:crs:EPSG::2261" and "urn:ogc:def:crs:EPSG:6.3:2261" -> "EPSG:2261"
    let lower = crs.to_ascii_lowercase();
    if lower.starts_with("urn:ogc:def:crs:") {
        let parts: Vec<&str> = crs.split(':').collect();
        if parts.len() >= 6 {
            return format!("{}:{}", parts[4], parts[parts.len() - 1]);
        }
    }
    crs.to_string()
}

fn short(crs: &str) -> String {
    // WKT is long; the first quoted name is what a user recognises.
    match (crs.find('"'), crs.get(crs.find('"').map_or(0, |i| i + 1)..)) {
        (Some(_), Some(rest)) => rest.split('"').next().unwrap_or(crs).to_string(),
        _ => crs.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urn_and_wkt_names_are_shortened() {
        assert_eq!(normalize_urn("urn:ogc:def:crs:EPSG::2261"), "EPSG:2261");
        assert_eq!(
            short("PROJCS[\"NAD83 / New York Central\",..."),
            "NAD83 / New York Central"
        );
        assert!(is_lonlat("urn:ogc:def:crs:OGC:1.3:CRS84"));
    }
}
