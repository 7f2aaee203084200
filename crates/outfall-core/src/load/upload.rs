//! An uploaded file in the formats engineers export: GeoJSON (RFC 7946, a legacy `crs`
//! member, or a CRS the user chose), a zipped Shapefile, KML and GeoPackage. The format is
//! told by the bytes themselves, never by a name or a media type a browser guessed. Every
//! format ends in the same checked WGS84 features as a data set's layers.

use super::guard::{refuse_projected, UploadLimits};
use super::{archive, geojson, gpkg, kml, sort_upload, upload_config, Feature, LoadProblem};
use crate::error::{Error, Result};
use geo::CoordsIter;
use serde_json::{Map, Value};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadFormat {
    GeoJson,
    ZippedShapefile,
    Kml,
    GeoPackage,
}

impl UploadFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            UploadFormat::GeoJson => "GeoJSON",
            UploadFormat::ZippedShapefile => "zipped Shapefile",
            UploadFormat::Kml => "KML",
            UploadFormat::GeoPackage => "GeoPackage",
        }
    }
}

/// What an upload held: its checked features and the features it refused.
#[derive(Debug)]
pub struct Upload {
    pub format: UploadFormat,
    pub features: Vec<Feature>,
    pub problems: Vec<LoadProblem>,
    /// A GeoJSON's top-level `site` object: the plan's own record (status, approval,
    /// exemption claims, land use ...), as `POST /sites` takes it. Empty for other formats.
    pub site: Map<String, Value>,
}

const SHP_MAGIC: [u8; 4] = [0x00, 0x00, 0x27, 0x0a];

/// The format of an upload from its first bytes: a zip (`PK\x03\x04`), an SQLite database
/// (`SQLite format 3\0`), XML with a `<kml` element, or JSON. `name` only words the error.
pub fn sniff_format(bytes: &[u8], name: &str) -> Result<UploadFormat> {
    if bytes.starts_with(b"PK\x03\x04") {
        return Ok(UploadFormat::ZippedShapefile);
    }
    if bytes.starts_with(b"SQLite format 3\0") {
        return Ok(UploadFormat::GeoPackage);
    }
    if bytes.starts_with(&SHP_MAGIC) {
        return Err(Error::format(
            name,
            "this is a bare .shp: a shapefile needs its .shx, .dbf and .prj beside it; zip them together and upload the .zip",
        ));
    }
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let start = text.iter().position(|b| !b.is_ascii_whitespace());
    match start.map(|i| text[i]) {
        Some(b'{') => Ok(UploadFormat::GeoJson),
        Some(b'<') => {
            let head = &text[..text.len().min(4096)];
            let head = String::from_utf8_lossy(head).to_ascii_lowercase();
            if head.contains("<kml") {
                Ok(UploadFormat::Kml)
            } else {
                Err(Error::format(
                    name,
                    "this XML file is not KML (no <kml> element); upload GeoJSON, KML, a GeoPackage or a zipped Shapefile",
                ))
            }
        }
        _ => Err(Error::format(
            name,
            "not a file this service reads; upload GeoJSON (.geojson), KML (.kml), a GeoPackage (.gpkg) or a zipped Shapefile (.zip with .shp, .shx, .dbf, .prj)",
        )),
    }
}

/// Reads an upload named `name` (its file name, or "drawn polygon"). `crs` is the user's
/// choice ("EPSG:2261"); it overrides a `.prj`, a GeoPackage's SRS, a legacy `crs` member and
/// the RFC 7946 default. `limits` bound what a zip may unpack to and how many members it
/// has, and the features and vertices of a file that read whole (a file with refused
/// features comes back with its problems, which say more than its size).
pub fn read_upload(
    bytes: &[u8],
    name: &str,
    crs: Option<&str>,
    limits: impl Into<UploadLimits>,
) -> Result<Upload> {
    let limits = limits.into();
    if let Some(c) = crs {
        if !geojson::is_safe_crs_name(c) {
            return Err(Error::Input(format!(
                "the coordinate system '{}' is not accepted; choose it as EPSG:n (for example EPSG:2261, NY State Plane Central, US feet)",
                c.chars().take(80).collect::<String>()
            )));
        }
    }
    let format = sniff_format(bytes, name)?;
    let site = match format {
        UploadFormat::GeoJson => site_member(bytes)?,
        _ => Map::new(),
    };
    let (features, problems) = match format {
        UploadFormat::GeoJson => read_geojson(bytes, name, crs)?,
        UploadFormat::ZippedShapefile => archive::read(bytes, name, crs, &limits)?,
        UploadFormat::Kml => kml::read(bytes, name)?,
        UploadFormat::GeoPackage => gpkg::read(bytes, name, crs, &limits)?,
    };
    if problems.is_empty() {
        let vertices = features.iter().map(|f| f.geometry.coords_count()).sum();
        limits.check_counts(features.len(), vertices)?;
    }
    Ok(Upload {
        format,
        features,
        problems,
        site,
    })
}

/// The `site` member of a GeoJSON document (a foreign member the GeoJSON reader skips).
/// Every other member is skipped unread, so this costs one pass over the bytes.
fn site_member(bytes: &[u8]) -> Result<Map<String, Value>> {
    #[derive(serde::Deserialize)]
    struct Doc {
        #[serde(default)]
        site: Option<Value>,
    }
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    // A document that is not JSON is refused by the GeoJSON reader, which says why.
    let Ok(doc) = serde_json::from_slice::<Doc>(text) else {
        return Ok(Map::new());
    };
    match doc.site {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(Error::Input(
            "\"site\" must be an object of the plan's fields (status, swppp_approval, exemption_claims, land_use, ...)".into(),
        )),
    }
}

fn read_geojson(
    bytes: &[u8],
    name: &str,
    crs: Option<&str>,
) -> Result<(Vec<Feature>, Vec<LoadProblem>)> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Error::format(name, "the file is not UTF-8 text"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let cfg = upload_config(name, crs);
    let raw = geojson::parse(text, Path::new(name), &cfg, true)?;
    let lonlat = raw.crs == "EPSG:4326";
    let (features, problems) = sort_upload(raw, &cfg, name)?;
    if lonlat {
        refuse_projected(name, &problems)?;
    }
    Ok((features, problems))
}
