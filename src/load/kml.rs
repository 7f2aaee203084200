//! KML uploads (Google Earth, QGIS, most CAD and GIS exports): every Placemark becomes a
//! feature with its `name`, `description` and ExtendedData values as properties. KML is
//! WGS84 lon/lat by definition, so a user-chosen CRS does not apply.

use super::{check_geometry, Feature, LoadProblem, Refused};
use crate::error::{Error, Result};
use ::kml::types::{Element, Placemark};
use ::kml::{Kml, KmlReader};
use geo_types::{Geometry, MultiPolygon};
use serde_json::{Map, Value};

/// Deepest element nesting read; the parser recurses, so a hostile file could otherwise
/// exhaust the stack.
const MAX_DEPTH: usize = 64;

pub(super) fn read(bytes: &[u8], name: &str) -> Result<(Vec<Feature>, Vec<LoadProblem>)> {
    let text =
        std::str::from_utf8(bytes).map_err(|_| Error::format(name, "the KML is not UTF-8 text"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if nesting(text) > MAX_DEPTH {
        return Err(Error::format(
            name,
            format!("the KML nests elements more than {MAX_DEPTH} deep"),
        ));
    }
    let doc: Kml<f64> = KmlReader::<_, f64>::from_string(text)
        .read()
        .map_err(|e| Error::format(name, format!("not readable KML: {e}")))?;
    let mut placemarks = Vec::new();
    collect(doc, &mut placemarks);
    if placemarks.is_empty() {
        return Err(Error::format(
            name,
            "the KML has no Placemark; draw the disturbed area as a polygon and save it as KML",
        ));
    }
    let mut features = Vec::new();
    let mut problems = Vec::new();
    for (i, p) in placemarks.into_iter().enumerate() {
        match convert(p, i) {
            Ok(f) => features.push(f),
            Err(r) => problems.push(LoadProblem {
                path: name.into(),
                feature: r.feature,
                reason: r.reason,
                site: None,
            }),
        }
    }
    Ok((features, problems))
}

fn collect(k: Kml<f64>, out: &mut Vec<Placemark<f64>>) {
    match k {
        Kml::KmlDocument(d) => d.elements.into_iter().for_each(|e| collect(e, out)),
        Kml::Document { elements, .. } => elements.into_iter().for_each(|e| collect(e, out)),
        Kml::Folder(f) => f.elements.into_iter().for_each(|e| collect(e, out)),
        Kml::Placemark(p) => out.push(p),
        _ => {}
    }
}

fn convert(p: Placemark<f64>, index: usize) -> std::result::Result<Feature, Refused> {
    let mut properties = Map::new();
    if let Some(n) = &p.name {
        properties.insert("name".into(), Value::String(n.trim().to_string()));
    }
    if let Some(d) = &p.description {
        properties.insert("description".into(), Value::String(d.trim().to_string()));
    }
    for e in p.children.iter().filter(|e| e.name == "ExtendedData") {
        extended_data(e, &mut properties);
    }
    let id = p
        .attrs
        .get("id")
        .cloned()
        .or_else(|| p.name.clone())
        .unwrap_or_else(|| format!("#{}", index + 1));
    let refuse = |reason: String| Refused {
        feature: id.clone(),
        reason,
        properties: Some(properties.clone()),
    };
    let Some(g) = p.geometry else {
        return Err(refuse("a Placemark without geometry".into()));
    };
    let geom: Geometry<f64> = g
        .try_into()
        .map_err(|e| refuse(format!("unreadable geometry: {e}")))?;
    // A MultiGeometry of polygons (how KML writes a multipolygon) is one MultiPolygon.
    let geom = match geom {
        Geometry::GeometryCollection(gc)
            if !gc.0.is_empty() && gc.0.iter().all(|g| matches!(g, Geometry::Polygon(_))) =>
        {
            Geometry::MultiPolygon(MultiPolygon(
                gc.0.into_iter()
                    .filter_map(|g| match g {
                        Geometry::Polygon(p) => Some(p),
                        _ => None,
                    })
                    .collect(),
            ))
        }
        g => g,
    };
    match check_geometry(geom) {
        Ok(geometry) => Ok(Feature {
            id,
            geometry,
            properties,
        }),
        Err(r) => Err(refuse(r)),
    }
}

/// `<Data name="phase"><value>2</value></Data>` and `<SimpleData name="phase">2</SimpleData>`.
fn extended_data(e: &Element, props: &mut Map<String, Value>) {
    for child in &e.children {
        match child.name.as_str() {
            "Data" => {
                let value = child
                    .children
                    .iter()
                    .find(|c| c.name == "value")
                    .and_then(|c| c.content.clone());
                if let (Some(k), Some(v)) = (child.attrs.get("name"), value) {
                    props.insert(k.clone(), Value::String(v.trim().to_string()));
                }
            }
            "SchemaData" => {
                for s in child.children.iter().filter(|c| c.name == "SimpleData") {
                    if let (Some(k), Some(v)) = (s.attrs.get("name"), &s.content) {
                        props.insert(k.clone(), Value::String(v.trim().to_string()));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The deepest element nesting of an XML text, by a byte scan of its tags.
fn nesting(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut depth, mut max) = (0usize, 0usize);
    let mut i = 0;
    while let Some(off) = b[i..].iter().position(|&c| c == b'<') {
        let at = i + off;
        let end = b[at..]
            .iter()
            .position(|&c| c == b'>')
            .map_or(b.len(), |e| at + e);
        match b.get(at + 1) {
            Some(b'/') => depth = depth.saturating_sub(1),
            Some(b'?') | Some(b'!') => {}
            _ if end > 0 && b.get(end - 1) == Some(&b'/') => {}
            _ => {
                depth += 1;
                max = max.max(depth);
            }
        }
        i = end.min(b.len());
        if i >= b.len() {
            break;
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_open_elements() {
        assert_eq!(nesting("<?xml?><kml><a><b/></a><c></c></kml>"), 2);
        assert_eq!(nesting(&"<f>".repeat(100)), 100);
    }
}
