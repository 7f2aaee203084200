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
    check_xml(text).map_err(|r| Error::format(name, r))?;
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
            properties: properties.into(),
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

/// Well-formed XML nested at most `MAX_DEPTH` deep, checked with quick-xml before the kml
/// crate reads it: the kml crate loops forever on a file cut off inside an element (found by
/// `truncated_uploads_of_every_format_are_errors_naming_the_file_never_panics`).
fn check_xml(text: &str) -> std::result::Result<(), String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut depth = 0usize;
    loop {
        match reader.read_event() {
            Ok(Event::Start(_)) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!("the KML nests elements more than {MAX_DEPTH} deep"));
                }
            }
            Ok(Event::End(_)) => depth = depth.saturating_sub(1),
            Ok(Event::Eof) if depth > 0 => {
                return Err("the KML ends inside an element; is the file cut off?".into())
            }
            Ok(Event::Eof) => return Ok(()),
            Ok(_) => {}
            Err(e) => {
                return Err(format!(
                    "not well-formed XML near byte {}: {e}",
                    reader.buffer_position()
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_must_be_whole_and_shallow() {
        assert!(check_xml("<?xml version=\"1.0\"?><kml><a><b/></a><c></c></kml>").is_ok());
        assert!(check_xml("<kml><Placemark><name>x</name>")
            .unwrap_err()
            .contains("cut off"));
        assert!(check_xml(&"<f>".repeat(100))
            .unwrap_err()
            .contains("64 deep"));
        assert!(check_xml("<kml></x>").is_err());
    }
}
