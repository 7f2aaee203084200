//! GeoJSON (RFC 7946) layers. A legacy `crs` member is honoured, and the manifest's `crs`
//! overrides it.

use super::{check_geometry, feature_id, Feature, Reprojector};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use geojson::{GeoJson, GeometryValue};
use serde_json::{Map, Value};
use std::path::Path;

pub(super) fn read(path: &Path, cfg: &LayerConfig) -> Result<(Vec<Result<Feature>>, String)> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse(&text, path, cfg)
}

/// Parses GeoJSON text (a file's, or an uploaded body's) into checked WGS84 features.
pub fn parse(text: &str, path: &Path, cfg: &LayerConfig) -> Result<(Vec<Result<Feature>>, String)> {
    let gj: GeoJson = text
        .parse()
        .map_err(|e| Error::format(path, format!("not valid GeoJSON: {e}")))?;
    let (features, foreign) = match gj {
        GeoJson::FeatureCollection(fc) => (fc.features, fc.foreign_members),
        GeoJson::Feature(f) => {
            let foreign = f.foreign_members.clone();
            (vec![f], foreign)
        }
        GeoJson::Geometry(g) => (vec![geojson::Feature::from(g)], None),
    };
    if features.is_empty() {
        return Err(Error::format(path, "the FeatureCollection has no features"));
    }
    let legacy_crs = foreign.as_ref().and_then(legacy_crs_name);
    let crs = cfg.crs.clone().or(legacy_crs);
    let reproject = match &crs {
        Some(c) => Reprojector::new(path, c)?,
        None => Reprojector::lonlat(),
    };
    let out = features
        .into_iter()
        .enumerate()
        .map(|(i, f)| convert(f, i, path, cfg, &reproject))
        .collect();
    Ok((out, reproject.crs.clone()))
}

fn legacy_crs_name(foreign: &Map<String, Value>) -> Option<String> {
    foreign
        .get("crs")?
        .get("properties")?
        .get("name")?
        .as_str()
        .map(String::from)
}

fn convert(
    f: geojson::Feature,
    index: usize,
    path: &Path,
    cfg: &LayerConfig,
    reproject: &Reprojector,
) -> Result<Feature> {
    let properties = f.properties.unwrap_or_default();
    let native = f.id.map(|id| match id {
        geojson::feature::Id::String(s) => s,
        geojson::feature::Id::Number(n) => n.to_string(),
    });
    let id = feature_id(&properties, cfg.id_field.as_deref(), native, index);
    let bad = |reason: String| Error::feature(path, id.clone(), reason);
    let Some(geometry) = f.geometry else {
        return Err(bad("no geometry (null)".into()));
    };
    if let Some(reason) = unclosed_ring(&geometry.value) {
        return Err(bad(reason));
    }
    let mut geom: geo_types::Geometry<f64> = (&geometry.value)
        .try_into()
        .map_err(|e| bad(format!("unreadable geometry: {e}")))?;
    reproject.apply(&mut geom).map_err(&bad)?;
    let geometry = check_geometry(geom).map_err(bad)?;
    Ok(Feature {
        id,
        geometry,
        properties,
    })
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
