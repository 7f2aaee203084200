//! GeoJSON (RFC 7946) layers. A legacy `crs` member is honoured, and the manifest's `crs`
//! overrides it. Positions are checked on the raw JSON (2 or 3 finite numbers) before the
//! geojson crate sees them, so a malformed position is a problem naming its feature, not a
//! panic.

use super::{check_geometry, feature_id, Feature, Raw, Refused, Reprojector};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use geojson::GeometryValue;
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

pub(super) fn read(path: &Path, cfg: &LayerConfig) -> Result<Raw> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse(&text, path, cfg, false)
}

/// Parses GeoJSON text (a file's, or an uploaded body's) into checked WGS84 features. An
/// upload (`upload`) may name its legacy `crs` only as an EPSG code or an OGC URN.
pub(super) fn parse(text: &str, path: &Path, cfg: &LayerConfig, upload: bool) -> Result<Raw> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| Error::format(path, format!("not valid GeoJSON: {e}")))?;
    let Value::Object(mut top) = doc else {
        return Err(Error::format(
            path,
            "not valid GeoJSON: the top level is not an object",
        ));
    };
    let kind = top
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let features: Vec<Value> = match kind.as_str() {
        "FeatureCollection" => match top.remove("features") {
            Some(Value::Array(a)) => a,
            _ => {
                return Err(Error::format(
                    path,
                    "not valid GeoJSON: a FeatureCollection needs a `features` array",
                ))
            }
        },
        "Feature" => vec![Value::Object(top.clone())],
        "Point" | "MultiPoint" | "LineString" | "MultiLineString" | "Polygon" | "MultiPolygon"
        | "GeometryCollection" => {
            vec![
                serde_json::json!({"type": "Feature", "properties": {}, "geometry": Value::Object(top.clone())}),
            ]
        }
        other => {
            return Err(Error::format(
                path,
                format!("not valid GeoJSON: unknown type '{other}'"),
            ))
        }
    };
    let legacy_crs = legacy_crs_name(&top);
    if upload {
        if let Some(c) = &legacy_crs {
            if !is_safe_crs_name(c) {
                return Err(Error::format(
                    path,
                    format!(
                        "the `crs` '{}' is not accepted; name it as EPSG:n or urn:ogc:def:crs:EPSG::n, or send RFC 7946 lon/lat without a `crs`",
                        c.chars().take(80).collect::<String>()
                    ),
                ));
            }
        }
    }
    let crs = cfg.crs.clone().or(legacy_crs);
    let reproject = match &crs {
        Some(c) => Reprojector::new(path, c)?,
        None => Reprojector::lonlat(),
    };
    let mut columns = BTreeSet::new();
    for f in &features {
        if let Some(props) = f.get("properties").and_then(Value::as_object) {
            columns.extend(props.keys().cloned());
        }
    }
    let items = convert_all(features, path, cfg, &reproject)?;
    Ok(Raw {
        items,
        crs: reproject.crs.clone(),
        area_of_use: reproject.area_of_use,
        columns: columns.into_iter().collect(),
    })
}

/// Converts every feature on every core, in file order (an indexed collect keeps it). Each
/// worker builds its own reprojector: a PROJ handle cannot cross threads.
fn convert_all(
    features: Vec<Value>,
    path: &Path,
    cfg: &LayerConfig,
    reproject: &Reprojector,
) -> Result<Vec<std::result::Result<Feature, Refused>>> {
    let recipe = reproject.recipe();
    features
        .into_par_iter()
        .enumerate()
        // Long runs per worker, so few reprojectors are built.
        .with_min_len(1024)
        .map_init(
            || Reprojector::from_recipe(path, recipe.as_deref()),
            |r, (i, f)| match r {
                Ok(r) => Ok(convert(f, i, cfg, r)),
                // The same CRS was built once already; should PROJ refuse it again, say so.
                Err(e) => Err(Error::format(path, e.to_string())),
            },
        )
        .collect()
}

/// Only authority codes and OGC URNs: anything else (a PROJ string like `+init=FILE`) could
/// make PROJ open files.
pub(super) fn is_safe_crs_name(c: &str) -> bool {
    let c = c.trim();
    let digits = |s: &str| !s.is_empty() && s.len() <= 6 && s.bytes().all(|b| b.is_ascii_digit());
    let lower = c.to_ascii_lowercase();
    if let Some(code) = lower.strip_prefix("epsg:") {
        return digits(code);
    }
    if lower == "urn:ogc:def:crs:ogc:1.3:crs84" || lower == "urn:ogc:def:crs:ogc::crs84" {
        return true;
    }
    if let Some(rest) = lower.strip_prefix("urn:ogc:def:crs:epsg:") {
        // "urn:ogc:def:crs:EPSG::2261" or with a version, "urn:ogc:def:crs:EPSG:6.3:2261"
        let mut parts = rest.splitn(2, ':');
        let version = parts.next().unwrap_or("");
        let code = parts.next().unwrap_or("");
        return version.bytes().all(|b| b.is_ascii_digit() || b == b'.') && digits(code);
    }
    false
}

fn legacy_crs_name(top: &Map<String, Value>) -> Option<String> {
    top.get("crs")?
        .get("properties")?
        .get("name")?
        .as_str()
        .map(String::from)
}

fn convert(
    f: Value,
    index: usize,
    cfg: &LayerConfig,
    reproject: &Reprojector,
) -> std::result::Result<Feature, Refused> {
    let properties = match f.get("properties") {
        Some(Value::Object(p)) => p.clone(),
        _ => Map::new(),
    };
    let native = match f.get("id") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let id = feature_id(&properties, cfg.id_field.as_deref(), native, index);
    let refuse = |reason: String| Refused {
        feature: id.clone(),
        reason,
        properties: Some(properties.clone()),
    };
    let geometry = match f.get("geometry") {
        None | Some(Value::Null) => return Err(refuse("no geometry (null)".into())),
        Some(g) => g,
    };
    if let Err(r) = check_positions(geometry, 0) {
        return Err(refuse(r));
    }
    let geometry = match serde_json::from_value::<geojson::Geometry>(geometry.clone()) {
        Ok(g) => g,
        Err(e) => return Err(refuse(format!("unreadable geometry: {e}"))),
    };
    if let Some(reason) = unclosed_ring(&geometry.value) {
        return Err(refuse(reason));
    }
    let mut geom: geo_types::Geometry<f64> = match (&geometry.value).try_into() {
        Ok(g) => g,
        Err(e) => return Err(refuse(format!("unreadable geometry: {e}"))),
    };
    if let Err(r) = reproject.apply(&mut geom) {
        return Err(refuse(r));
    }
    match check_geometry(geom) {
        Ok(geometry) => Ok(Feature {
            id,
            geometry,
            properties,
        }),
        Err(r) => Err(refuse(r)),
    }
}

/// Every position of a raw geometry is an array of 2 or 3 finite numbers, nested as deep as
/// its type says.
fn check_positions(g: &Value, depth: usize) -> std::result::Result<(), String> {
    if depth > 8 {
        return Err("geometry nested too deeply".into());
    }
    let kind = g.get("type").and_then(Value::as_str).unwrap_or("");
    if kind == "GeometryCollection" {
        let Some(Value::Array(parts)) = g.get("geometries") else {
            return Err("a GeometryCollection needs a `geometries` array".into());
        };
        return parts.iter().try_for_each(|p| check_positions(p, depth + 1));
    }
    let nesting = match kind {
        "Point" => 0,
        "MultiPoint" | "LineString" => 1,
        "MultiLineString" | "Polygon" => 2,
        "MultiPolygon" => 3,
        other => return Err(format!("unknown geometry type '{other}'")),
    };
    let Some(coords) = g.get("coordinates") else {
        return Err(format!("a {kind} needs `coordinates`"));
    };
    check_nested(coords, nesting, kind)
}

fn check_nested(v: &Value, nesting: usize, kind: &str) -> std::result::Result<(), String> {
    let Value::Array(items) = v else {
        return Err(format!("{kind} coordinates are not nested arrays"));
    };
    if nesting > 0 {
        return items
            .iter()
            .try_for_each(|i| check_nested(i, nesting - 1, kind));
    }
    let ok = (2..=3).contains(&items.len())
        && items.iter().all(|n| n.as_f64().is_some_and(f64::is_finite));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "a position must be 2 or 3 finite numbers, got {}",
            serde_json::to_string(v)
                .unwrap_or_default()
                .chars()
                .take(60)
                .collect::<String>()
        ))
    }
}

/// geo-types closes rings silently, so an unclosed ring is caught on the raw coordinates.
fn unclosed_ring(v: &GeometryValue) -> Option<String> {
    let check = |rings: &Vec<Vec<geojson::Position>>| {
        rings.iter().enumerate().find_map(|(i, r)| {
            let closed = r.len() >= 4 && r.first().map(|p| p.as_slice()) == r.last().map(|p| p.as_slice());
            (!closed).then(|| {
                format!(
                    "polygon ring {i} is not closed (a ring needs 4+ positions, first == last; it has {})",
                    r.len()
                )
            })
        })
    };
    match v {
        GeometryValue::Polygon { coordinates } => check(coordinates),
        GeometryValue::MultiPolygon { coordinates } => coordinates.iter().find_map(check),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_crs_names_are_codes_only() {
        assert!(is_safe_crs_name("EPSG:2261"));
        assert!(is_safe_crs_name("urn:ogc:def:crs:EPSG::2261"));
        assert!(is_safe_crs_name("urn:ogc:def:crs:EPSG:6.3:2261"));
        assert!(is_safe_crs_name("urn:ogc:def:crs:OGC:1.3:CRS84"));
        assert!(!is_safe_crs_name("+init=/etc/passwd:root"));
        assert!(!is_safe_crs_name("EPSG:2261 +init=x"));
        assert!(!is_safe_crs_name("urn:ogc:def:crs:EPSG::../../x"));
    }

    #[test]
    fn positions_need_two_or_three_finite_numbers() {
        let p = |c: &str| {
            check_positions(
                &serde_json::from_str(&format!(r#"{{"type":"LineString","coordinates":{c}}}"#))
                    .unwrap(),
                0,
            )
        };
        assert!(p("[[-76.18,43.1],[-76.17,43.1,2]]").is_ok());
        assert!(p("[[-76.18],[-76.17,43.1]]").is_err());
        assert!(p(r#"[[-76.18,"x"],[-76.17,43.1]]"#).is_err());
        assert!(p("[-76.18,43.1]").is_err());
    }
}
