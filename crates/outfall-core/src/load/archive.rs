//! A zipped Shapefile upload: the .shp, .shx, .dbf and .prj of one shapefile in one zip.
//! The zip is read in memory under limits that hold whatever its headers claim: at most
//! `limits.max_zip_members` members, at most `limits.max_bytes` unpacked in all (counted while reading,
//! so a member that lies about its size is cut off), and no member path that leaves the
//! archive (`..`, absolute paths).

use super::guard::{checked_wkt, refuse_projected, UploadLimits};
use super::{shapefile, sort_upload, upload_config, Feature, LoadProblem, Reprojector};
use crate::error::{Error, Result};
use std::io::Read;
use std::path::Path;

/// One unpacked member: its path inside the zip and its bytes.
struct Member {
    path: String,
    bytes: Vec<u8>,
}

pub(super) fn read(
    bytes: &[u8],
    name: &str,
    crs: Option<&str>,
    limits: &UploadLimits,
) -> Result<(Vec<Feature>, Vec<LoadProblem>)> {
    let members = unpack(bytes, name, limits)?;
    let shp = the_one_shp(&members, name)?;
    let stem = &shp.path[..shp.path.len() - 4];
    let label = format!("{name}/{}", shp.path);
    let sidecar = |ext: &str| {
        members.iter().find(|m| {
            m.path.len() == stem.len() + 4
                && m.path.get(..stem.len()) == Some(stem)
                && ext_of(&m.path) == ext
        })
    };
    let part = |ext: &str| {
        sidecar(ext).ok_or_else(|| {
            Error::format(
                &label,
                format!(
                    "the zip has {} but no {stem}.{ext}; a shapefile needs its .shp, .shx and .dbf (and its .prj)",
                    shp.path
                ),
            )
        })
    };
    let (shx, dbf) = (part("shx")?, part("dbf")?);
    let crs_text = match (crs, sidecar("prj")) {
        (Some(c), _) => c.to_string(),
        (None, Some(prj)) => {
            let text = String::from_utf8_lossy(&prj.bytes);
            checked_wkt(&label, &text)?
        }
        (None, None) => {
            return Err(Error::MissingCrs {
                path: label.into(),
                reason: "this file has no .prj: choose its coordinate system".into(),
            })
        }
    };
    let cfg = upload_config(&label, crs);
    let path = Path::new(&label);
    let reproject = Reprojector::new(path, &crs_text)?;
    let raw = shapefile::read_bytes(path, &cfg, &reproject, &shp.bytes, &shx.bytes, &dbf.bytes)?;
    let lonlat = raw.crs == "EPSG:4326";
    let (features, problems) = sort_upload(raw, &cfg, &label)?;
    if lonlat {
        refuse_projected(&label, &problems)?;
    }
    Ok((features, problems))
}

/// The one `.shp` of the zip; a zip with none or several is refused, naming what it holds.
fn the_one_shp<'a>(members: &'a [Member], name: &str) -> Result<&'a Member> {
    let shps: Vec<&Member> = members
        .iter()
        .filter(|m| ext_of(&m.path) == "shp")
        .collect();
    match shps.as_slice() {
        [one] => Ok(*one),
        [] => {
            let held: Vec<&str> = members.iter().map(|m| m.path.as_str()).collect();
            Err(Error::format(
                name,
                format!(
                    "the zip holds no .shp (it holds: {}); zip a shapefile's .shp, .shx, .dbf and .prj together",
                    if held.is_empty() { "nothing".into() } else { held.join(", ") }
                ),
            ))
        }
        many => {
            let names: Vec<&str> = many.iter().map(|m| m.path.as_str()).collect();
            Err(Error::format(
                name,
                format!(
                    "the zip holds {} shapefiles ({}); upload one shapefile per zip",
                    many.len(),
                    names.join(", ")
                ),
            ))
        }
    }
}

/// A member path's extension, lower case ("" without one).
fn ext_of(p: &str) -> String {
    Path::new(p)
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Every file member of the zip, checked and unpacked under the limits. Folders and the
/// `__MACOSX/` resource forks that macOS adds are skipped.
fn unpack(bytes: &[u8], name: &str, limits: &UploadLimits) -> Result<Vec<Member>> {
    let max_bytes = limits.max_bytes;
    let mut zip = ::zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| Error::format(name, format!("not a readable zip: {e}")))?;
    if zip.len() > limits.max_zip_members {
        return Err(Error::format(
            name,
            format!(
                "the zip has {} members; at most {} are accepted (a shapefile is its .shp, .shx, .dbf, .prj and .cpg)",
                zip.len(),
                limits.max_zip_members
            ),
        ));
    }
    let too_big = || {
        Error::format(
            name,
            format!(
                "the zip unpacks to more than the {} MiB upload limit",
                max_bytes / (1024 * 1024)
            ),
        )
    };
    let mut members = Vec::new();
    let mut total = 0usize;
    for i in 0..zip.len() {
        let mut file = zip
            .by_index(i)
            .map_err(|e| Error::format(name, format!("member {} is unreadable: {e}", i + 1)))?;
        let raw_name = file.name().to_string();
        let Some(path) = file.enclosed_name() else {
            return Err(Error::format(
                name,
                format!(
                    "member '{}' has a path that leaves the zip; refused",
                    raw_name.chars().take(80).collect::<String>()
                ),
            ));
        };
        if file.is_dir() || raw_name.starts_with("__MACOSX/") {
            continue;
        }
        if file.size() > (max_bytes - total) as u64 {
            return Err(too_big());
        }
        let mut buf = Vec::new();
        let limit = (max_bytes - total) as u64 + 1;
        (&mut file)
            .take(limit)
            .read_to_end(&mut buf)
            .map_err(|e| Error::format(name, format!("member '{raw_name}' is corrupt: {e}")))?;
        if buf.len() as u64 >= limit {
            return Err(too_big());
        }
        total += buf.len();
        members.push(Member {
            path: path.to_string_lossy().replace('\\', "/"),
            bytes: buf,
        });
    }
    Ok(members)
}
