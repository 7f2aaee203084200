//! Writing one loaded layer to the cache: a FlatGeobuf file and its JSON sidecar.

use super::geometry_type::geometry_type_of;
use super::stamp::stamp_now;
use super::{files_of, stored_properties, Sidecar, ID_COLUMN, ORDER_COLUMN, PROPERTIES_COLUMN};
use crate::attributes::{union_keys, Keys};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use crate::load::{Feature, LoadedLayer};
use flatgeobuf::geozero::{ColumnValue, PropertyProcessor};
use flatgeobuf::{ColumnType, FgbCrs, FgbWriter, FgbWriterOptions, GeometryType};
use std::path::{Path, PathBuf};

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
    // One key list for the layer (a load already shares one): each feature's attributes
    // are stored over it, as the layer holds them.
    let keys: Keys = union_keys(loaded.features.iter().map(|f| &f.properties))
        .unwrap_or_else(|| Keys::from(Vec::new()));
    let fail = |e: &dyn std::fmt::Display| Error::format(&fgb_path, format!("cannot write: {e}"));
    let mut fgb = new_writer(cfg, geometry_type).map_err(|e| fail(&e))?;
    let mut blob = Vec::new();
    for (order, f) in loaded.features.iter().enumerate() {
        add_feature(&mut fgb, &keys, order, f, &mut blob).map_err(|e| fail(&e))?;
    }
    let fgb_bytes = finish(fgb, &fgb_path)?;
    let side = Sidecar {
        stamp,
        source: loaded.source.clone(),
        problems: loaded.problems.clone(),
        keys: keys.iter().map(|k| k.to_string()).collect(),
        fgb_bytes,
        by_id: crate::layer::id_order(&loaded.features),
    };
    let text = serde_json::to_vec_pretty(&side).map_err(|e| fail(&e))?;
    std::fs::write(&json_path, text).map_err(|e| Error::io(&json_path, e))?;
    Ok(Ok((fgb_path, fgb_bytes)))
}

/// A FlatGeobuf writer in WGS84 with a spatial index and the cache's three columns.
fn new_writer<'a>(
    cfg: &LayerConfig,
    geometry_type: GeometryType,
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
    fgb.add_column(ID_COLUMN, ColumnType::String, |_, _| {});
    fgb.add_column(ORDER_COLUMN, ColumnType::Long, |_, _| {});
    fgb.add_column(PROPERTIES_COLUMN, ColumnType::Binary, |_, _| {});
    Ok(fgb)
}

/// Adds one feature with its id, its position in the layer and its attributes as stored
/// (`blob` is the caller's buffer, reused from feature to feature).
fn add_feature(
    fgb: &mut FgbWriter,
    keys: &Keys,
    order: usize,
    f: &Feature,
    blob: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    let shared = if std::sync::Arc::ptr_eq(f.properties.schema(), keys) {
        None
    } else {
        Some(f.properties.with_keys(keys))
    };
    stored_properties(shared.as_ref().unwrap_or(&f.properties), blob);
    let mut error = None;
    fgb.add_feature_geom(f.geometry.clone(), |w| {
        let values = [
            (ID_COLUMN, ColumnValue::String(&f.id)),
            (ORDER_COLUMN, ColumnValue::Long(order as i64)),
            (PROPERTIES_COLUMN, ColumnValue::Binary(blob)),
        ];
        for (i, (name, v)) in values.iter().enumerate() {
            if let Err(e) = w.property(i, name, v) {
                error.get_or_insert(e.to_string());
            }
        }
    })
    .map_err(|e| e.to_string())?;
    error.map_or(Ok(()), Err)
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
