//! Writing one loaded layer to the cache: a FlatGeobuf file and its JSON sidecar.

use super::columns::{column_type, columns_of, free_name, geometry_type_of, CachedColumn, Kind};
use super::stamp::stamp_now;
use super::{files_of, Sidecar};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use crate::load::{Feature, LoadedLayer};
use flatgeobuf::geozero::{ColumnValue, PropertyProcessor};
use flatgeobuf::{ColumnType, FgbCrs, FgbWriter, FgbWriterOptions, GeometryType};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The columns of a cached layer: each feature's id and position, then its properties'.
struct Scheme {
    id_column: String,
    order_column: String,
    columns: Vec<CachedColumn>,
    /// Each property's column number and kind.
    index: BTreeMap<String, (usize, Kind)>,
}

impl Scheme {
    fn of(loaded: &LoadedLayer) -> Scheme {
        let columns = columns_of(&loaded.features);
        let index = columns
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.clone(), (i + 2, c.kind)))
            .collect();
        Scheme {
            id_column: free_name("outfall_id", &columns),
            order_column: free_name("outfall_order", &columns),
            columns,
            index,
        }
    }
}

/// What stops one layer from being written: an error, or a reason the layer cannot be
/// cached exactly (it then keeps loading from its source).
enum Refused {
    /// The writer failed, in its words.
    Failed(String),
    Inexact(String),
}

/// Writes one loaded layer to the cache. `Ok(Err(reason))` when the layer cannot be cached
/// exactly (it then keeps loading from its source).
pub(super) fn write(
    dir: &Path,
    cfg: &LayerConfig,
    share: f64,
    loaded: &LoadedLayer,
) -> Result<std::result::Result<(PathBuf, u64), String>> {
    let (fgb_path, json_path) = files_of(dir, cfg);
    let Some(stamp) = stamp_now(dir, cfg, share) else {
        return Ok(Err("a source file could not be read for its stamp".into()));
    };
    let geometry_type = match geometry_type_of(&loaded.features) {
        Ok(t) => t,
        Err(why) => return Ok(Err(why)),
    };
    let scheme = Scheme::of(loaded);
    let fail = |e: &dyn std::fmt::Display| Error::format(&fgb_path, format!("cannot write: {e}"));
    let mut fgb = new_writer(cfg, geometry_type, &scheme).map_err(|e| fail(&e))?;
    for (order, f) in loaded.features.iter().enumerate() {
        match add_feature(&mut fgb, &scheme, order, f) {
            Ok(()) => {}
            Err(Refused::Inexact(why)) => return Ok(Err(why)),
            Err(Refused::Failed(e)) => return Err(fail(&e)),
        }
    }
    let fgb_bytes = finish(fgb, &fgb_path)?;
    let side = Sidecar {
        stamp,
        source: loaded.source.clone(),
        problems: loaded.problems.clone(),
        id_column: scheme.id_column,
        order_column: scheme.order_column,
        columns: scheme.columns,
        fgb_bytes,
        by_id: crate::layer::id_order(&loaded.features),
    };
    let text = serde_json::to_vec_pretty(&side).map_err(|e| fail(&e))?;
    std::fs::write(&json_path, text).map_err(|e| Error::io(&json_path, e))?;
    Ok(Ok((fgb_path, fgb_bytes)))
}

/// A FlatGeobuf writer in WGS84 with a spatial index and the scheme's columns.
fn new_writer<'a>(
    cfg: &LayerConfig,
    geometry_type: GeometryType,
    scheme: &Scheme,
) -> flatgeobuf::Result<FgbWriter<'a>> {
    let title = format!(
        "{} ({}), prepared by outfall",
        cfg.path.display(),
        cfg.role.as_str()
    );
    let options = FgbWriterOptions {
        write_index: true,
        detect_type: false,
        promote_to_multi: false,
        crs: FgbCrs {
            code: 4326,
            ..Default::default()
        },
        title: Some(&title),
        ..Default::default()
    };
    let mut fgb = FgbWriter::create_with_options(cfg.role.as_str(), geometry_type, options)?;
    fgb.add_column(&scheme.id_column, ColumnType::String, |_, _| {});
    fgb.add_column(&scheme.order_column, ColumnType::Long, |_, _| {});
    for c in &scheme.columns {
        fgb.add_column(&c.name, column_type(c.kind), |_, col| col.nullable = true);
    }
    Ok(fgb)
}

/// Adds one feature with its id, its position in the layer and its properties.
fn add_feature(
    fgb: &mut FgbWriter,
    scheme: &Scheme,
    order: usize,
    f: &Feature,
) -> std::result::Result<(), Refused> {
    let texts = json_texts(scheme, f)?;
    let mut error = None;
    fgb.add_feature_geom(f.geometry.clone(), |w| {
        let mut put = |i: usize, name: &str, v: &ColumnValue| {
            if let Err(e) = w.property(i, name, v) {
                error.get_or_insert(e.to_string());
            }
        };
        put(0, &scheme.id_column, &ColumnValue::String(&f.id));
        put(1, &scheme.order_column, &ColumnValue::Long(order as i64));
        let mut texts = texts.iter();
        for (k, v) in f.properties.iter() {
            let (i, kind) = scheme.index[k];
            let value = match (kind, &v) {
                (Kind::Json, _) => match texts.next() {
                    Some(t) => ColumnValue::Json(t),
                    None => continue,
                },
                (_, Value::Null) => continue,
                (_, Value::Bool(b)) => ColumnValue::Bool(*b),
                (Kind::Long, Value::Number(n)) => ColumnValue::Long(n.as_i64().unwrap_or(0)),
                (Kind::ULong, Value::Number(n)) => ColumnValue::ULong(n.as_u64().unwrap_or(0)),
                (_, Value::Number(n)) => ColumnValue::Double(n.as_f64().unwrap_or(f64::NAN)),
                (_, Value::String(s)) => ColumnValue::String(s),
                _ => continue,
            };
            put(i, k, &value);
        }
    })
    .map_err(|e| Refused::Failed(e.to_string()))?;
    match error {
        Some(e) => Err(Refused::Failed(e)),
        None => Ok(()),
    }
}

/// The JSON text of each of a feature's values kept in a `Json` column, in key order;
/// refused as inexact when a value would not read back as the very same value.
fn json_texts(scheme: &Scheme, f: &Feature) -> std::result::Result<Vec<String>, Refused> {
    let mut texts = Vec::new();
    for (k, v) in f.properties.iter() {
        if scheme.index[k].1 != Kind::Json {
            continue;
        }
        let text = serde_json::to_string(&v).map_err(|e| Refused::Failed(e.to_string()))?;
        if serde_json::from_str::<Value>(&text).ok().as_ref() != Some(&v) {
            return Err(Refused::Inexact(format!(
                "feature {}: the value of '{k}' does not read back exactly from JSON text",
                f.id
            )));
        }
        texts.push(text);
    }
    Ok(texts)
}

/// Writes the file beside its final name and moves it into place, so a reader never sees
/// half a file; returns its size in bytes.
fn finish(fgb: FgbWriter, fgb_path: &Path) -> Result<u64> {
    let fail = |e: &dyn std::fmt::Display| Error::format(fgb_path, format!("cannot write: {e}"));
    let tmp = fgb_path.with_extension("fgb.tmp");
    let file = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    fgb.write(std::io::BufWriter::new(file))
        .map_err(|e| fail(&e))?;
    let fgb_bytes = std::fs::metadata(&tmp)
        .map_err(|e| Error::io(&tmp, e))?
        .len();
    std::fs::rename(&tmp, fgb_path).map_err(|e| Error::io(fgb_path, e))?;
    Ok(fgb_bytes)
}
