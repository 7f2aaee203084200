//! ESRI Shapefile layers: geometry from .shp/.shx, attributes from .dbf, CRS from .prj
//! (or the manifest's `crs` when the .prj is missing).

use super::{check_geometry, feature_id, Feature, Reprojector};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use shapefile::dbase::FieldValue;
use std::path::Path;

pub(super) fn read(path: &Path, cfg: &LayerConfig) -> Result<(Vec<Result<Feature>>, String)> {
    for ext in ["shx", "dbf"] {
        let side = path.with_extension(ext);
        if !side.exists() {
            return Err(Error::format(
                path,
                format!("the .{ext} file is missing ({} not found)", side.display()),
            ));
        }
    }
    let prj = path.with_extension("prj");
    let crs = match (&cfg.crs, prj.exists()) {
        (Some(c), _) => c.clone(),
        (None, true) => std::fs::read_to_string(&prj).map_err(|e| Error::io(&prj, e))?,
        (None, false) => {
            return Err(Error::MissingCrs {
                path: path.to_path_buf(),
                reason: "no .prj file beside it and no `crs` in the manifest layer".into(),
            })
        }
    };
    let reproject = Reprojector::new(path, &crs)?;
    let mut reader = shapefile::Reader::from_path(path)
        .map_err(|e| Error::format(path, format!("cannot open shapefile: {e}")))?;
    let mut out = Vec::new();
    for (i, item) in reader.iter_shapes_and_records().enumerate() {
        let (shape, record) = match item {
            Ok(pair) => pair,
            Err(e) => {
                // A truncated or corrupt file cannot be read past this point.
                out.push(Err(Error::feature(
                    path,
                    format!("#{}", i + 1),
                    format!("unreadable record, file may be truncated or corrupt: {e}"),
                )));
                break;
            }
        };
        let properties: Map<String, Value> = record
            .into_iter()
            .map(|(k, v)| (k, field_json(v)))
            .collect();
        let id = feature_id(&properties, cfg.id_field.as_deref(), None, i);
        out.push(convert(shape, id, properties, path, &reproject));
    }
    Ok((out, reproject.crs.clone()))
}

fn convert(
    shape: shapefile::Shape,
    id: String,
    properties: Map<String, Value>,
    path: &Path,
    reproject: &Reprojector,
) -> Result<Feature> {
    let bad = |reason: String| Error::feature(path, id.clone(), reason);
    if matches!(shape, shapefile::Shape::NullShape) {
        return Err(bad("null shape (no geometry)".into()));
    }
    let mut geom: geo_types::Geometry<f64> = shape
        .try_into()
        .map_err(|e| bad(format!("unreadable geometry: {e:?}")))?;
    reproject.apply(&mut geom).map_err(&bad)?;
    let geometry = check_geometry(geom).map_err(bad)?;
    Ok(Feature {
        id,
        geometry,
        properties,
    })
}

fn field_json(v: FieldValue) -> Value {
    let num = |f: f64| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number);
    match v {
        FieldValue::Character(s) => s.map_or(Value::Null, Value::String),
        FieldValue::Memo(s) => Value::String(s),
        FieldValue::Numeric(n) => n.map_or(Value::Null, num),
        FieldValue::Float(n) => n.map_or(Value::Null, |f| num(f as f64)),
        FieldValue::Double(f) | FieldValue::Currency(f) => num(f),
        FieldValue::Integer(i) => Value::from(i),
        FieldValue::Logical(b) => b.map_or(Value::Null, Value::Bool),
        FieldValue::Date(d) => d.map_or(Value::Null, |d| {
            Value::String(format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()))
        }),
        FieldValue::DateTime(dt) => {
            let d = dt.date();
            Value::String(format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()))
        }
    }
}
