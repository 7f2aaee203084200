//! Reprojection to WGS84 lon/lat with PROJ. Built once per layer at load time. The inverse,
//! from lon/lat to a data set's own system, serves exports in that system.

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
        Reprojector::build(path, crs, true)
    }

    /// `with_area`: also ask PROJ where the CRS is meant to be used, which costs a second
    /// PROJ handle and database lookup; a worker's copy never reports it.
    fn build(path: &Path, crs: &str, with_area: bool) -> Result<Self> {
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
        let area_of_use = with_area
            .then(|| Proj::new(&normalized).ok())
            .flatten()
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

    /// From WGS84 lon/lat to `crs` (an authority code or WKT): an export's way back to the
    /// system a data set was drawn in. `what` names the export in an error.
    pub fn from_lonlat(what: &Path, crs: &str) -> Result<Self> {
        let crs = crs.trim();
        if is_lonlat(crs) {
            return Ok(Reprojector::lonlat());
        }
        let normalized = normalize_urn(crs);
        let proj =
            Proj::new_known_crs("EPSG:4326", &normalized, None).map_err(|e| Error::Projection {
                path: what.to_path_buf(),
                crs: short(crs),
                reason: e.to_string(),
            })?;
        Ok(Reprojector {
            crs: short(crs),
            proj: Some(proj),
            area_of_use: None,
            source: None,
        })
    }

    /// What a worker thread needs to build its own copy: a PROJ handle cannot be shared
    /// between threads, so each parallel loader makes one from this.
    pub fn recipe(&self) -> Option<String> {
        self.source.clone()
    }

    /// The reprojector `recipe` describes (`path` names the layer in an error), for a worker:
    /// without the area of use, which only the layer's own reprojector reports.
    pub fn from_recipe(path: &Path, recipe: Option<&str>) -> Result<Self> {
        match recipe {
            None => Ok(Reprojector::lonlat()),
            Some(c) => Reprojector::build(path, c, false),
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

/// A coordinate system as an export writes it: its EPSG code, its name and the ESRI WKT a
/// `.prj` holds.
#[derive(Debug, Clone, PartialEq)]
pub struct CrsIdentity {
    pub code: String,
    pub name: String,
    pub esri_wkt: String,
}

/// The EPSG identity of `crs` (a code, a URN, WKT or a name PROJ's database knows), or
/// `None` when PROJ cannot tie it to one code. An ESRI `.prj` carries no code, but PROJ
/// reads its name into the EPSG name ("NAD83 / New York Central (ftUS)"), which the
/// database then finds; both systems must then put one point in the same place, so a
/// look-alike name never stands in for a different system.
pub fn identify(crs: &str) -> Option<CrsIdentity> {
    let given = normalize_urn(crs.trim());
    let given_proj = Proj::new(&given).ok()?;
    let json = projjson(&given_proj)?;
    let epsg = |j: &serde_json::Value| {
        let id = &j["id"];
        (id["authority"] == "EPSG")
            .then(|| id["code"].as_u64())
            .flatten()
    };
    let (code, named) = match epsg(&json) {
        Some(code) => (code, given_proj),
        None => {
            let named = Proj::new(json["name"].as_str()?).ok()?;
            (epsg(&projjson(&named)?)?, named)
        }
    };
    let code = format!("EPSG:{code}");
    if code != given && !same_place(&given, &code, &named) {
        return None;
    }
    let esri_wkt = named
        .as_wkt(Some(proj::wkt::WktVersion::Wkt1_Esri), None)
        .ok()
        .filter(|w| !w.is_empty())?;
    let name = projjson(&named)?["name"].as_str()?.to_string();
    Some(CrsIdentity {
        code,
        name,
        esri_wkt,
    })
}

fn projjson(p: &Proj) -> Option<serde_json::Value> {
    serde_json::from_str(&p.to_projjson(Some(false), None, None).ok()?).ok()
}

/// Whether `a` and `b` put the middle of `b`'s area of use at the same coordinates (within
/// a thousandth of a unit: well under the 0.1 ft an export must keep).
fn same_place(a: &str, b: &str, b_proj: &Proj) -> bool {
    let Some(area) = b_proj.area_of_use().ok().and_then(|(a, _)| a) else {
        return false;
    };
    let mid = (
        (area.west + area.east) / 2.0,
        (area.south + area.north) / 2.0,
    );
    let to = |crs: &str| {
        Proj::new_known_crs("EPSG:4326", crs, None)
            .ok()
            .and_then(|p| p.convert(mid).ok())
    };
    match (to(a), to(b)) {
        (Some((ax, ay)), Some((bx, by))) => (ax - bx).abs() < 1e-3 && (ay - by).abs() < 1e-3,
        _ => false,
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

    #[test]
    fn an_esri_prj_is_identified_by_its_epsg_code_and_a_stranger_is_not() {
        let prj = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/clay/parcels.prj"),
        )
        .unwrap();
        let id = identify(&prj).expect("the demo parcels' .prj");
        assert_eq!(id.code, "EPSG:2261");
        assert_eq!(id.name, "NAD83 / New York Central (ftUS)");
        assert!(id.esri_wkt.contains("New_York_Central"), "{}", id.esri_wkt);
        assert_eq!(identify("EPSG:26918").unwrap().code, "EPSG:26918");
        assert!(identify("EPSG:99999").is_none());
        assert!(identify("not a system").is_none());
    }
}
