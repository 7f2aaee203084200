//! The geometry type a layer's cache file declares.

use crate::load::Feature;
use flatgeobuf::GeometryType;

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
