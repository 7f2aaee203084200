//! How a layer's properties and geometry map onto FlatGeobuf columns and a geometry type
//! (see the module notes of `prepared`).

use crate::load::Feature;
use flatgeobuf::{ColumnType, GeometryType};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Kind {
    Bool,
    Long,
    ULong,
    Double,
    String,
    Json,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct CachedColumn {
    pub(super) name: String,
    pub(super) kind: Kind,
    /// Every feature has this key; a feature without a value had JSON null.
    pub(super) absent_is_null: bool,
}

pub(super) fn column_type(kind: Kind) -> ColumnType {
    match kind {
        Kind::Bool => ColumnType::Bool,
        Kind::Long => ColumnType::Long,
        Kind::ULong => ColumnType::ULong,
        Kind::Double => ColumnType::Double,
        Kind::String => ColumnType::String,
        Kind::Json => ColumnType::Json,
    }
}

fn kind_of(v: &Value) -> Option<Kind> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(_) => Kind::Bool,
        Value::Number(n) if n.is_i64() => Kind::Long,
        Value::Number(n) if n.is_u64() => Kind::ULong,
        Value::Number(_) => Kind::Double,
        Value::String(_) => Kind::String,
        _ => Kind::Json,
    })
}

/// The column scheme of a layer's properties (see the module notes).
pub(super) fn columns_of(features: &[Feature]) -> Vec<CachedColumn> {
    // key -> (features having it, nulls, the one kind so far, mixed)
    let mut stats: BTreeMap<&str, (usize, usize, Option<Kind>, bool)> = BTreeMap::new();
    for f in features {
        for (k, v) in f.properties.iter() {
            let s = stats.entry(k).or_insert((0, 0, None, false));
            s.0 += 1;
            match kind_of(&v) {
                None => s.1 += 1,
                Some(kind) => match s.2 {
                    None => s.2 = Some(kind),
                    Some(k) if k != kind => s.3 = true,
                    Some(_) => {}
                },
            }
        }
    }
    stats
        .into_iter()
        .map(|(name, (count, nulls, kind, mixed))| {
            let dense = count == features.len();
            let kind = if mixed || (nulls > 0 && !dense) {
                Kind::Json
            } else {
                kind.unwrap_or(Kind::String)
            };
            CachedColumn {
                name: name.to_string(),
                kind,
                absent_is_null: kind != Kind::Json && nulls > 0,
            }
        })
        .collect()
}

/// A name for an extra column that no property uses.
pub(super) fn free_name(base: &str, columns: &[CachedColumn]) -> String {
    let mut name = base.to_string();
    while columns.iter().any(|c| c.name == name) {
        name.insert(0, '_');
    }
    name
}

/// The one geometry type of every feature, else Unknown (each feature then says its own).
/// A geometry collection cannot be cached.
pub(super) fn geometry_type_of(features: &[Feature]) -> std::result::Result<GeometryType, String> {
    use geo_types::Geometry as G;
    let mut kinds = features.iter().map(|f| match &f.geometry {
        G::Point(_) => Ok(GeometryType::Point),
        G::MultiPoint(_) => Ok(GeometryType::MultiPoint),
        G::LineString(_) => Ok(GeometryType::LineString),
        G::MultiLineString(_) => Ok(GeometryType::MultiLineString),
        G::Polygon(_) => Ok(GeometryType::Polygon),
        G::MultiPolygon(_) => Ok(GeometryType::MultiPolygon),
        _ => Err(format!(
            "feature {} is a geometry collection (or a line, rect or triangle), which the cache does not store",
            f.id
        )),
    });
    let first = kinds.next().transpose()?.unwrap_or(GeometryType::Unknown);
    let mut out = first;
    for k in kinds {
        if k? != first {
            out = GeometryType::Unknown;
        }
    }
    Ok(out)
}
