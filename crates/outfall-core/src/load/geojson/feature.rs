//! One GeoJSON feature converted: its id and attributes, its geometry read in one pass when
//! it is the usual kind (else through a checked path that names what is wrong), reprojected
//! and checked.

use super::fast::{fast_geometry, FastFeature};
use super::props::{properties_from, properties_of, Key, KeyOrder};
use crate::config::LayerConfig;
use crate::load::{check_geometry, feature_id_from, Feature, Refused, Reprojector};
use geojson::GeometryValue;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

/// A feature's members as read from its text (a repeated member: the last one).
#[derive(Default)]
struct RawFeature<'a> {
    properties: Option<&'a RawValue>,
    geometry: Option<&'a RawValue>,
    id: Option<Value>,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for RawFeature<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = RawFeature<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a feature")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<RawFeature<'a>, A::Error> {
                let mut f = RawFeature::default();
                while let Some(key) = map.next_key::<Key>()? {
                    match &*key.0 {
                        "properties" => f.properties = Some(map.next_value()?),
                        "geometry" => f.geometry = Some(map.next_value()?),
                        "id" => f.id = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(f)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// One feature from its text. `checked`: the scan found the text to be one JSON value;
/// else a text that is not gives None (read in one pass, it is; only an unusual one is
/// read again to find out).
pub(super) fn convert(
    raw: &str,
    index: usize,
    cfg: &LayerConfig,
    reproject: &Reprojector,
    keys: &mut KeyOrder,
    checked: bool,
) -> Option<std::result::Result<Feature, Refused>> {
    // The usual feature in one pass; anything else split into its members first, for the
    // checked geometry path. A feature that is not an object has no members (as
    // `Value::get` sees it).
    let (f, read, properties) = match serde_json::from_str::<FastFeature>(raw) {
        Ok(f) => {
            let entries = f.properties.map(|e| e.0).unwrap_or_default();
            let properties = properties_from(&entries, keys);
            (
                RawFeature {
                    properties: None,
                    geometry: None,
                    id: f.id,
                },
                Some(f.geometry),
                properties,
            )
        }
        Err(_) => {
            if !checked && serde_json::from_str::<IgnoredAny>(raw).is_err() {
                return None;
            }
            let f: RawFeature = serde_json::from_str(raw).unwrap_or_default();
            let properties = properties_of(f.properties, keys);
            (f, None, properties)
        }
    };
    let native = match &f.id {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let id_value = cfg.id_field.as_deref().and_then(|k| properties.get(k));
    let id = feature_id_from(id_value.as_ref(), native, index);
    let refuse = |reason: String| Refused {
        feature: id.clone(),
        reason,
        properties: Some(properties.to_map()),
    };
    let mut geom = match (read, f.geometry) {
        (Some(g), _) => g,
        (None, Some(g)) if g.get().trim() != "null" => match fast_geometry(g) {
            Some(g) => g,
            None => match slow_geometry(g) {
                Ok(g) => g,
                Err(r) => return Some(Err(refuse(r))),
            },
        },
        (None, _) => return Some(Err(refuse("no geometry (null)".into()))),
    };
    if let Err(r) = reproject.apply(&mut geom) {
        return Some(Err(refuse(r)));
    }
    Some(match check_geometry(geom) {
        Ok(geometry) => Ok(Feature {
            id,
            geometry,
            properties,
        }),
        Err(r) => Err(refuse(r)),
    })
}

/// The checked path, through a value tree, that names what is wrong with a geometry.
pub(super) fn slow_geometry(
    raw: &RawValue,
) -> std::result::Result<geo_types::Geometry<f64>, String> {
    let geometry: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
    check_positions(&geometry, 0)?;
    let geometry = serde_json::from_value::<geojson::Geometry>(geometry)
        .map_err(|e| format!("unreadable geometry: {e}"))?;
    if let Some(reason) = unclosed_ring(&geometry.value) {
        return Err(reason);
    }
    (&geometry.value)
        .try_into()
        .map_err(|e| format!("unreadable geometry: {e}"))
}

/// Every position of a raw geometry is an array of 2 or 3 finite numbers, nested as deep as
/// its type says.
pub(super) fn check_positions(g: &Value, depth: usize) -> std::result::Result<(), String> {
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
