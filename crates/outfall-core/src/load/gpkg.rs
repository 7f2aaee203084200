//! GeoPackage uploads (what QGIS saves by default): the features of its feature tables, each
//! geometry a GeoPackage blob (a small header, then WKB), in the CRS its
//! `gpkg_spatial_ref_sys` names. SQLite reads files, so the upload is written to a temporary
//! file that is deleted when the read ends; the database is opened read-only and only its
//! declared feature tables are read.

use super::guard::{checked_wkt, refuse_projected, UploadLimits};
use super::Reprojector;
use super::{check_geometry, sort_upload, upload_config, Feature, LoadProblem, Raw, Refused};
use crate::error::{Error, Result};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::Path;

/// A feature table: its name, geometry column and SRS.
struct Table {
    name: String,
    column: String,
    srs_id: i64,
}

pub(super) fn read(
    bytes: &[u8],
    name: &str,
    crs: Option<&str>,
    limits: &UploadLimits,
) -> Result<(Vec<Feature>, Vec<LoadProblem>)> {
    let sql_err =
        |e: rusqlite::Error| Error::format(name, format!("not a readable GeoPackage: {e}"));
    let mut tmp = tempfile::Builder::new()
        .prefix("outfall-upload-")
        .suffix(".gpkg")
        .tempfile()
        .map_err(|e| Error::io(name, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(name, e))?;
    tmp.flush().map_err(|e| Error::io(name, e))?;
    let conn = Connection::open_with_flags(
        tmp.path(),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql_err)?;
    // A hostile file's views and triggers run no functions of ours.
    conn.execute_batch("PRAGMA trusted_schema = OFF;")
        .map_err(sql_err)?;
    bound(&conn, limits).map_err(sql_err)?;
    refuse_hostile_schema(&conn, name)?;
    let tables = feature_tables(&conn).map_err(sql_err)?;
    let table = match tables.as_slice() {
        [] => {
            return Err(Error::format(
                name,
                "the GeoPackage has no feature table (gpkg_contents lists none with data_type 'features')",
            ))
        }
        [one] => one,
        many => {
            let names: Vec<&str> = many.iter().map(|t| t.name.as_str()).collect();
            return Err(Error::format(
                name,
                format!(
                    "the GeoPackage has {} feature tables ({}); save the disturbed area alone in a GeoPackage",
                    many.len(),
                    names.join(", ")
                ),
            ));
        }
    };
    let label = format!("{name}/{}", table.name);
    refuse_generated(&conn, table, &label)?;
    let crs_text = match crs {
        Some(c) => c.to_string(),
        None => srs_definition(&conn, table.srs_id, &label)?,
    };
    let cfg = upload_config(&label, crs);
    let reproject = Reprojector::new(Path::new(&label), &crs_text)?;
    let (items, columns) = rows(&conn, table, &reproject, limits.max_features).map_err(sql_err)?;
    if items.len() > limits.max_features {
        return Err(Error::Input(format!(
            "{label}: more than {} features; at most {} are accepted in one check",
            limits.max_features, limits.max_features
        )));
    }
    let raw = Raw {
        items,
        crs: reproject.crs.clone(),
        area_of_use: reproject.area_of_use,
        columns,
    };
    let lonlat = raw.crs == "EPSG:4326";
    let (features, problems) = sort_upload(raw, &cfg, &label)?;
    if lonlat {
        refuse_projected(&label, &problems)?;
    }
    drop(conn);
    tmp.close().map_err(|e| Error::io(name, e))?;
    Ok((features, problems))
}

/// SQLite's own bounds set to the upload's: no value, statement or expression it builds
/// may be larger than the upload may be, so no row can grow into gigabytes as it is read.
fn bound(conn: &Connection, limits: &UploadLimits) -> rusqlite::Result<()> {
    let bytes = i32::try_from(limits.max_bytes).unwrap_or(i32::MAX);
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, bytes)?;
    conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, bytes)?;
    conn.set_limit(Limit::SQLITE_LIMIT_EXPR_DEPTH, 100)?;
    conn.set_limit(Limit::SQLITE_LIMIT_COMPOUND_SELECT, 10)?;
    conn.set_limit(Limit::SQLITE_LIMIT_FUNCTION_ARG, 8)?;
    Ok(())
}

/// The triggers GeoPackage writers add by themselves: the standard's spatial index and
/// metadata checks, and GDAL's feature counts. None fires on a file opened read-only.
const STANDARD_TRIGGERS: [&str; 4] = [
    "rtree_",
    "gpkg_",
    "trigger_insert_feature_count_",
    "trigger_delete_feature_count_",
];

/// A view or a trigger in an upload is code that runs as the file is read or written; an
/// exported drawing needs neither, so any but the writers' own (`STANDARD_TRIGGERS`) is
/// refused by name.
fn refuse_hostile_schema(conn: &Connection, name: &str) -> Result<()> {
    let sql_err =
        |e: rusqlite::Error| Error::format(name, format!("not a readable GeoPackage: {e}"));
    let mut stmt = conn
        .prepare(
            "SELECT type, name FROM sqlite_master WHERE type IN ('view', 'trigger') ORDER BY name",
        )
        .map_err(sql_err)?;
    let found = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .map_err(sql_err)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(sql_err)?;
    let hostile = found.into_iter().find(|(kind, what)| {
        kind == "view" || !STANDARD_TRIGGERS.iter().any(|p| what.starts_with(p))
    });
    match hostile {
        Some((kind, what)) => Err(Error::Input(format!(
            "{name}: the GeoPackage holds a {kind} '{what}'; uploads may not carry views or triggers: export the layer alone (QGIS: Export > Save Features As)"
        ))),
        None => Ok(()),
    }
}

/// A generated (computed) column is code run for every row read, which can build a value
/// of any size; a virtual feature table is a module's code. Both are refused by name.
fn refuse_generated(conn: &Connection, table: &Table, label: &str) -> Result<()> {
    let quoted = table.name.replace('\'', "''");
    let is_virtual: bool = conn
        .query_row(
            &format!("SELECT count(*) FROM sqlite_master WHERE name = '{quoted}' AND sql LIKE 'CREATE VIRTUAL%'"),
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .unwrap_or(true);
    if is_virtual {
        return Err(Error::Input(format!(
            "{label}: the feature table is a virtual table; uploads must hold a plain table"
        )));
    }
    // table_xinfo's `hidden`: 2 a generated virtual column, 3 a generated stored one.
    let generated: Option<String> = conn
        .query_row(
            &format!(
                "SELECT name FROM pragma_table_xinfo('{quoted}') WHERE hidden IN (2, 3) LIMIT 1"
            ),
            [],
            |r| r.get(0),
        )
        .ok();
    match generated {
        Some(column) => Err(Error::Input(format!(
            "{label}: column '{column}' is a generated column; uploads may not compute values as they are read: export the layer with plain columns"
        ))),
        None => Ok(()),
    }
}

fn feature_tables(conn: &Connection) -> rusqlite::Result<Vec<Table>> {
    let mut stmt = conn.prepare(
        "SELECT c.table_name, g.column_name, COALESCE(g.srs_id, c.srs_id, 0)
         FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name
         JOIN sqlite_master m ON m.name = c.table_name AND m.type = 'table'
         WHERE c.data_type = 'features' ORDER BY c.table_name",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Table {
            name: r.get(0)?,
            column: r.get(1)?,
            srs_id: r.get(2)?,
        })
    })?;
    rows.collect()
}

/// "EPSG:n" when the SRS is an EPSG code, else its WKT (checked); an undefined SRS (0, -1)
/// asks the user to choose.
fn srs_definition(conn: &Connection, srs_id: i64, label: &str) -> Result<String> {
    let choose = || Error::MissingCrs {
        path: label.into(),
        reason: format!(
            "its coordinate system (srs_id {srs_id}) is undefined: choose its coordinate system"
        ),
    };
    if srs_id <= 0 {
        return Err(choose());
    }
    let found: Option<(Option<String>, Option<i64>, Option<String>)> = conn
        .query_row(
            "SELECT organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?1",
            [srs_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .ok();
    match found {
        Some((Some(org), Some(code), _)) if org.eq_ignore_ascii_case("epsg") && code > 0 => {
            Ok(format!("EPSG:{code}"))
        }
        Some((_, _, Some(wkt))) if !wkt.trim().is_empty() && wkt.trim() != "undefined" => {
            checked_wkt(label, &wkt)
        }
        _ => Err(choose()),
    }
}

type Rows = (Vec<std::result::Result<Feature, Refused>>, Vec<String>);

/// The table's rows, one more than `max_rows` at most: reading stops there, and the
/// caller refuses the upload by the feature limit.
fn rows(
    conn: &Connection,
    table: &Table,
    reproject: &Reprojector,
    max_rows: usize,
) -> rusqlite::Result<Rows> {
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let sql = format!(
        "SELECT * FROM {} LIMIT {}",
        quote(&table.name),
        max_rows.saturating_add(1)
    );
    let mut stmt = conn.prepare(&sql)?;
    let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let geom_at = names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(&table.column));
    let columns: Vec<String> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != geom_at)
        .map(|(_, n)| n.clone())
        .collect();
    let mut rows = stmt.query([])?;
    let mut items = Vec::new();
    let mut index = 0;
    while let Some(row) = rows.next()? {
        let mut properties = Map::new();
        let mut blob = None;
        for (i, n) in names.iter().enumerate() {
            let v = row.get_ref(i)?;
            if Some(i) == geom_at {
                if let ValueRef::Blob(b) = v {
                    blob = Some(b.to_vec());
                }
                continue;
            }
            properties.insert(n.clone(), json_value(v));
        }
        let id = super::feature_id(
            &properties,
            Some("id"),
            properties.get("fid").and_then(super::value_text),
            index,
        );
        items.push(convert(blob.as_deref(), id, properties, reproject));
        index += 1;
    }
    Ok((items, columns))
}

fn json_value(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null | ValueRef::Blob(_) => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
    }
}

fn convert(
    blob: Option<&[u8]>,
    id: String,
    properties: Map<String, Value>,
    reproject: &Reprojector,
) -> std::result::Result<Feature, Refused> {
    let refuse = |reason: String| Refused {
        feature: id.clone(),
        reason,
        properties: Some(properties.clone()),
    };
    let Some(blob) = blob else {
        return Err(refuse("no geometry (null)".into()));
    };
    let mut geom = match super::wkb::from_gpkg(blob) {
        Ok(Some(g)) => g,
        Ok(None) => return Err(refuse("empty geometry".into())),
        Err(e) => return Err(refuse(format!("unreadable geometry: {e}"))),
    };
    reproject.apply(&mut geom).map_err(refuse)?;
    match check_geometry(geom) {
        Ok(geometry) => Ok(Feature {
            id,
            geometry,
            properties: properties.into(),
        }),
        Err(r) => Err(refuse(r)),
    }
}
