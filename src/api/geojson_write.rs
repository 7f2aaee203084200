//! An items page written straight from the stored geometry and attributes into one buffer.
//!
//! Building a `serde_json::Value` tree per feature (a cloned attribute map, a `geojson`
//! position vector per vertex) cost about 6 ms per 100-feature page of parcels; here the
//! features are serialized by reference. The bytes are the ones the tree gave: serde_json's
//! maps are sorted by key (no `preserve_order`), so every object below writes its keys in
//! sorted order, and floats go through the same `serialize_f64`.

use super::features::derived_properties;
use super::AppState;
use crate::attributes::Properties;
use crate::catalog::Layer;
use geo_types::{Coord, Geometry, LineString, Polygon};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The page around the features, its keys in the order a sorted map writes them.
#[derive(Serialize)]
struct Page<'a> {
    features: Features<'a>,
    links: &'a [Value],
    #[serde(rename = "numberMatched")]
    number_matched: usize,
    #[serde(rename = "numberReturned")]
    number_returned: usize,
    #[serde(rename = "timeStamp")]
    time_stamp: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// What goes around the features of an items page.
pub(super) struct PageMeta<'a> {
    pub links: &'a [Value],
    pub number_matched: usize,
    pub time_stamp: &'a str,
}

/// The GeoJSON FeatureCollection text of `page` (feature indices into `layer`).
pub(super) fn write_page(st: &AppState, layer: &Layer, page: &[usize], meta: PageMeta) -> String {
    let body = Page {
        features: Features { st, layer, page },
        links: meta.links,
        number_matched: meta.number_matched,
        number_returned: page.len(),
        time_stamp: meta.time_stamp,
        kind: "FeatureCollection",
    };
    // Writing into a Vec<u8> cannot fail, and every key is a string.
    serde_json::to_string(&body).unwrap_or_default()
}

struct Features<'a> {
    st: &'a AppState,
    layer: &'a Layer,
    page: &'a [usize],
}

impl Serialize for Features<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.page.len()))?;
        for &index in self.page {
            seq.serialize_element(&FeatureRef {
                st: self.st,
                layer: self.layer,
                index,
            })?;
        }
        seq.end()
    }
}

/// One feature as `features::feature_json` gives it.
pub(super) struct FeatureRef<'a> {
    pub st: &'a AppState,
    pub layer: &'a Layer,
    pub index: usize,
}

impl Serialize for FeatureRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = &self.layer.features[self.index];
        let derived = derived_properties(self.st, self.layer, self.index);
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("geometry", &GeometryRef(&f.geometry))?;
        m.serialize_entry("id", &f.id)?;
        m.serialize_entry(
            "properties",
            &MergedProps {
                stored: &f.properties,
                derived: &derived,
            },
        )?;
        m.serialize_entry("type", "Feature")?;
        m.end()
    }
}

/// The stored attributes with the derived ones laid over them, in sorted key order: the
/// stored values are already compact JSON, so the object is written as bytes and handed to
/// serde_json as a raw value.
struct MergedProps<'a> {
    stored: &'a Properties,
    derived: &'a Map<String, Value>,
}

impl Serialize for MergedProps<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut text = Vec::with_capacity(1024);
        self.stored.write_json(self.derived, &mut text);
        let text = String::from_utf8(text).map_err(serde::ser::Error::custom)?;
        RawValue::from_string(text)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }
}

/// A geometry as the `geojson` crate writes it: `{"coordinates": ..., "type": ...}`.
struct GeometryRef<'a>(&'a Geometry<f64>);

impl Serialize for GeometryRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (kind, coords): (&str, Coords) = match self.0 {
            Geometry::Point(p) => ("Point", Coords::Point(p.0)),
            Geometry::MultiPoint(mp) => ("MultiPoint", Coords::Points(&mp.0)),
            Geometry::LineString(l) => ("LineString", Coords::Line(l)),
            Geometry::MultiLineString(ml) => ("MultiLineString", Coords::Lines(&ml.0)),
            Geometry::Polygon(p) => ("Polygon", Coords::Polygon(p)),
            Geometry::MultiPolygon(mp) => ("MultiPolygon", Coords::Polygons(&mp.0)),
            // Rare in stored layers (collections, rects, triangles, lines): the crate's own
            // conversion, through a sorted `Value` as the tree wrote it.
            other => {
                return serde_json::to_value(geojson::Geometry::from(other))
                    .map_err(serde::ser::Error::custom)?
                    .serialize(s)
            }
        };
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("coordinates", &coords)?;
        m.serialize_entry("type", kind)?;
        m.end()
    }
}

enum Coords<'a> {
    Point(Coord<f64>),
    Points(&'a [geo_types::Point<f64>]),
    Line(&'a LineString<f64>),
    Lines(&'a [LineString<f64>]),
    Polygon(&'a Polygon<f64>),
    Polygons(&'a [Polygon<f64>]),
}

impl Serialize for Coords<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Coords::Point(c) => [c.x, c.y].serialize(s),
            Coords::Points(ps) => s.collect_seq(ps.iter().map(|p| [p.0.x, p.0.y])),
            Coords::Line(l) => s.collect_seq(l.0.iter().map(|c| [c.x, c.y])),
            Coords::Lines(ls) => s.collect_seq(ls.iter().map(Coords::Line)),
            Coords::Polygon(p) => {
                // An empty exterior is `[]`, not `[[]]`, as the geojson crate writes it.
                if p.exterior().0.is_empty() {
                    return s.serialize_seq(Some(0))?.end();
                }
                s.collect_seq(
                    std::iter::once(p.exterior())
                        .chain(p.interiors())
                        .map(Coords::Line),
                )
            }
            Coords::Polygons(ps) => s.collect_seq(ps.iter().map(Coords::Polygon)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use std::path::Path;
    use std::sync::Arc;

    /// Every feature of every demo collection, written by reference, is the same text as
    /// the `Value` tree the single-item route builds (derived site, disturbance, water and
    /// basemap properties included).
    #[test]
    fn written_features_match_the_value_tree_byte_for_byte() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/clay");
        let catalog = Catalog::open(&root).expect("demo data loads");
        let st = AppState::new(Arc::new(catalog), root.join("web"));
        let mut seen = 0;
        for layer in st.catalog.layers.iter() {
            for index in 0..layer.features.len() {
                let tree = super::super::features::feature_json(&st, layer, index).to_string();
                let written = serde_json::to_string(&FeatureRef {
                    st: &st,
                    layer,
                    index,
                })
                .unwrap();
                assert_eq!(written, tree, "{} #{index}", layer.collection_id);
                seen += 1;
            }
        }
        assert!(seen > 100, "only {seen} demo features compared");
    }

    #[test]
    fn odd_geometries_are_written_as_the_geojson_crate_writes_them() {
        use geo_types::{line_string, point, polygon, GeometryCollection, MultiPolygon};
        let cases: Vec<Geometry<f64>> = vec![
            point!(x: -76.1, y: 43.2).into(),
            line_string![(x: 0.1, y: 0.2), (x: 1e-9, y: -3.5e20)].into(),
            Polygon::new(LineString::new(vec![]), vec![]).into(),
            MultiPolygon(vec![
                polygon![(x: 0., y: 0.), (x: 1., y: 0.), (x: 1., y: 1.)],
            ])
            .into(),
            Geometry::GeometryCollection(GeometryCollection(vec![point!(x: 1.0, y: 2.0).into()])),
            geo_types::Rect::new((0., 0.), (1., 2.)).into(),
            point!(x: f64::NAN, y: 1.0).into(),
        ];
        for g in &cases {
            let tree = serde_json::to_value(geojson::Geometry::from(g))
                .unwrap()
                .to_string();
            let written = serde_json::to_string(&GeometryRef(g)).unwrap();
            assert_eq!(written, tree, "{g:?}");
        }
    }
}
