//! Exports of a site or a check: its disturbance polygons, one feature per phase, with the
//! site id, phase, dates, acres and the conditions, as GeoJSON (RFC 7946) or as a zipped
//! Shapefile (.shp, .shx, .dbf, .prj, .cpg) that CAD and GIS tools open: in WGS84 by default,
//! or in the data set's own system (`ExportCrs`), so a surveyor's State Plane feet come back
//! as State Plane feet.

use crate::area;
use crate::catalog::Catalog;
use crate::config::Role;
use crate::error::{Error, Result};
use crate::law::RuleId;
use crate::load::{identify, Reprojector};
use crate::record::SITE;
use crate::report::Report;
use crate::subject::Subject;
use geo_types::{Geometry, MultiPolygon};
use serde_json::{json, Map, Value};
use shapefile::dbase::{self, FieldValue};
use std::io::{Cursor, Write};
use std::path::Path;

/// The `.prj` of the exported shapefile: WGS84 lon/lat, in the ESRI WKT GIS tools expect.
pub const WGS84_PRJ: &str = r#"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#;

/// The coordinate system of an exported Shapefile: its EPSG code and name, the `.prj` text,
/// and the way there from the lon/lat the catalog holds.
pub struct ExportCrs {
    pub code: String,
    pub name: String,
    prj: String,
    to: Reprojector,
}

impl ExportCrs {
    pub fn wgs84() -> ExportCrs {
        ExportCrs {
            code: "EPSG:4326".into(),
            name: "WGS 84".into(),
            prj: WGS84_PRJ.into(),
            to: Reprojector::lonlat(),
        }
    }

    /// `requested`: "source" for the data set's own system (that of its parcels, where
    /// plans are drawn), "wgs84", or an EPSG code PROJ knows ("EPSG:2261"). Anything else
    /// is an input error naming it.
    pub fn resolve(requested: &str, catalog: &Catalog) -> Result<ExportCrs> {
        let asked = requested.trim();
        if asked.eq_ignore_ascii_case("wgs84") {
            return Ok(ExportCrs::wgs84());
        }
        let code = if asked.eq_ignore_ascii_case("source") {
            dataset_crs(catalog)?
        } else if asked.to_ascii_uppercase().starts_with("EPSG:") {
            asked.to_ascii_uppercase()
        } else {
            return Err(Error::Input(format!(
                "unknown coordinate system '{asked}': give 'source', 'wgs84' or an EPSG code such as EPSG:2261"
            )));
        };
        let unknown = || {
            Error::Input(format!(
                "unknown coordinate system '{code}': PROJ does not know it"
            ))
        };
        let id = identify(&code).ok_or_else(unknown)?;
        if id.code == "EPSG:4326" {
            return Ok(ExportCrs::wgs84());
        }
        let to =
            Reprojector::from_lonlat(Path::new("export.zip"), &id.code).map_err(|_| unknown())?;
        Ok(ExportCrs {
            code: id.code,
            name: id.name,
            prj: id.esri_wkt,
            to,
        })
    }

    /// The phases, moved into this system (their acres stay those measured on the ellipsoid).
    pub fn apply(&self, features: &mut [PhaseFeature]) -> Result<()> {
        for f in features {
            let mut g = Geometry::MultiPolygon(std::mem::replace(
                &mut f.geometry,
                MultiPolygon::new(Vec::new()),
            ));
            self.to.apply(&mut g).map_err(|reason| {
                Error::Input(format!(
                    "the export cannot be given in {}: {reason}",
                    self.code
                ))
            })?;
            if let Geometry::MultiPolygon(mp) = g {
                f.geometry = mp;
            }
        }
        Ok(())
    }
}

/// The EPSG code of the data set's own system: its parcels' (where plans are drawn), else
/// the first layer's not in lon/lat, else WGS84. An error names a system PROJ cannot tie to
/// one EPSG code, so the export never pretends to be in it.
pub fn dataset_crs(catalog: &Catalog) -> Result<String> {
    let projected = |l: &&crate::layer::Layer| {
        !l.source.crs.is_empty() && identify(&l.source.crs).is_some_and(|i| i.code != "EPSG:4326")
    };
    let layer = catalog
        .layer(Role::Parcels)
        .or_else(|| catalog.layers.iter().find(projected));
    let Some(layer) = layer else {
        return Ok("EPSG:4326".into());
    };
    identify(&layer.source.crs).map(|i| i.code).ok_or_else(|| {
        Error::Input(format!(
            "the data set's coordinate system '{}' ({}) has no EPSG code PROJ can name",
            layer.source.crs, layer.source.path
        ))
    })
}

/// The columns before the site record's: the phase, its acres, the conditions and the
/// receiving waters. Names fit a .dbf (at most 10 characters).
const LEADING: [&str; 14] = [
    "site_id",
    "phase",
    "start",
    "end",
    "acres",
    "total_ac",
    "peak_ac",
    "lda",
    "cond_a",
    "cond_b",
    "cond_c",
    "five_acre",
    "in_town",
    "receiving",
];

/// The findings whose deciding sources the export carries, under their .dbf names.
const SOURCES: [(RuleId, &str); 7] = [
    (RuleId::LandDevelopmentActivity, "lda_src"),
    (RuleId::FiveAcreLimit, "five_src"),
    (RuleId::ConditionA, "a_src"),
    (RuleId::ConditionB, "b_src"),
    (RuleId::ConditionC, "c_src"),
    (RuleId::Exemption, "exempt_src"),
    (RuleId::ActiveWithoutApproval, "awa_src"),
];

/// The attribute columns, in order: `LEADING`, the typed site record's columns that have a
/// .dbf name (status code and the word recorded, the SWPPP decision, its date, reference
/// and approving body, the (5) letters claimed and each one's outcome, the sources of the
/// land use), then the sources that decided each finding.
pub fn columns() -> Vec<String> {
    let record = SITE.flat().into_iter().flat_map(|f| {
        f.flat
            .iter()
            .filter_map(move |s| s.dbf.map(|n| n.of(f).into_owned()))
    });
    LEADING
        .iter()
        .map(|c| c.to_string())
        .chain(record)
        .chain(SOURCES.iter().map(|(_, c)| c.to_string()))
        .collect()
}

/// Columns holding sources or lists, which may run long.
fn long_text(column: &str) -> bool {
    column == "receiving"
        || column.ends_with("_src")
        || column.ends_with("_source")
        || column == "exemptions"
        || column == "exempt_ver"
}

/// One phase of the disturbance with its attributes (keyed by `columns()`).
pub struct PhaseFeature {
    pub geometry: MultiPolygon<f64>,
    pub properties: Map<String, Value>,
}

/// "true", "false" or "undetermined": the report's three values, as text a .dbf can hold.
fn three_valued(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "true",
        Some(false) => "false",
        None => "undetermined",
    }
}

fn acres(a: f64) -> Value {
    json!((a * 10_000.0).round() / 10_000.0)
}

/// The subject's phases, each with the report's facts. A phase's polygons are unioned, so
/// its acres are the area that phase disturbs.
pub fn phase_features(subject: &Subject, report: &Report) -> Vec<PhaseFeature> {
    let c = &report.conditions;
    let d = &report.disturbance;
    let record: Vec<Value> = report
        .flat_record()
        .into_iter()
        .filter(|(_, shape, _)| shape.dbf.is_some())
        .map(|(_, _, v)| json!(v))
        .collect();
    let sources = SOURCES
        .iter()
        .map(|(rule, _)| json!(report.sources_text(*rule)));
    let tail: Vec<Value> = record.into_iter().chain(sources).collect();
    let columns = columns();
    subject
        .phases
        .iter()
        .filter(|p| !p.polygons.is_empty())
        .map(|p| {
            let geometry = area::union(&p.polygons);
            let leading: [Value; LEADING.len()] = [
                json!(report.site.id),
                json!(p.name),
                json!(p.start.map(|d| d.to_string())),
                json!(p.end.map(|d| d.to_string())),
                acres(area::area_acres(&geometry)),
                acres(d.total_acres),
                acres(d.peak_acres),
                json!(three_valued(c.land_development_activity)),
                json!(three_valued(c.a)),
                json!(three_valued(c.b)),
                json!(three_valued(c.c)),
                json!(three_valued(c.five_acre_limit_exceeded)),
                json!(three_valued(c.in_jurisdiction)),
                json!(report.receiving_water_names.join("; ")),
            ];
            let values = leading.into_iter().chain(tail.iter().cloned());
            PhaseFeature {
                geometry,
                properties: columns.iter().cloned().zip(values).collect(),
            }
        })
        .collect()
}

/// A GeoJSON FeatureCollection of the phases.
pub fn to_geojson(features: &[PhaseFeature]) -> Value {
    let features: Vec<Value> = features
        .iter()
        .map(|f| {
            let geometry = geojson::Geometry::from(&f.geometry);
            json!({"type": "Feature", "properties": f.properties, "geometry": geometry})
        })
        .collect();
    json!({"type": "FeatureCollection", "features": features})
}

/// A zip of `<stem>.shp`, `.shx`, `.dbf`, `.prj` and `.cpg` holding the phases, already in
/// `crs` (see `ExportCrs::apply`); the `.prj` names it.
pub fn to_zipped_shapefile(
    stem: &str,
    features: &[PhaseFeature],
    crs: &ExportCrs,
) -> Result<Vec<u8>> {
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        Error::format(
            format!("{stem}.zip"),
            format!("cannot write the {what}: {e}"),
        )
    };
    let columns = columns();
    let (mut shp, mut shx, mut dbf) = (
        Cursor::new(Vec::new()),
        Cursor::new(Vec::new()),
        Cursor::new(Vec::new()),
    );
    {
        let mut table = dbase::TableWriterBuilder::new().set_encoding(dbase::UnicodeLossy);
        for k in &columns {
            let k = k.as_str();
            let name =
                dbase::FieldName::try_from(k).map_err(|e| fail("table", &format!("{e:?}")))?;
            table = match k {
                "acres" | "total_ac" | "peak_ac" => table.add_numeric_field(name, 16, 4),
                k if long_text(k) => table.add_character_field(name, 254),
                _ => table.add_character_field(name, 40),
            };
        }
        let mut writer = shapefile::Writer::new(
            shapefile::ShapeWriter::with_shx(&mut shp, &mut shx),
            table.build_with_dest(&mut dbf),
        );
        for f in features {
            let shape = shapefile::Polygon::from(f.geometry.clone());
            let mut record = dbase::Record::default();
            for k in &columns {
                let k = k.as_str();
                let v = &f.properties[k];
                let value = match k {
                    "acres" | "total_ac" | "peak_ac" => FieldValue::Numeric(v.as_f64()),
                    _ => FieldValue::Character(v.as_str().map(|s| s.chars().take(254).collect())),
                };
                record.insert(k.to_string(), value);
            }
            writer
                .write_shape_and_record(&shape, &record)
                .map_err(|e| fail("shapefile", &e))?;
        }
        // Dropping the writer finalises the headers (sizes, bounding box, record count).
    }
    let mut out = Cursor::new(Vec::new());
    let mut zip = ::zip::ZipWriter::new(&mut out);
    let options = ::zip::write::SimpleFileOptions::default()
        .compression_method(::zip::CompressionMethod::Deflated);
    let parts: [(&str, &[u8]); 5] = [
        ("shp", shp.get_ref()),
        ("shx", shx.get_ref()),
        ("dbf", dbf.get_ref()),
        ("prj", crs.prj.as_bytes()),
        ("cpg", b"UTF-8"),
    ];
    for (ext, bytes) in parts {
        zip.start_file(format!("{stem}.{ext}"), options)
            .map_err(|e| fail("zip", &e))?;
        zip.write_all(bytes).map_err(|e| fail("zip", &e))?;
    }
    zip.finish().map_err(|e| fail("zip", &e))?;
    Ok(out.into_inner())
}

/// A file stem from a site id or a file name: letters, digits, `-` and `_`, at most 60.
pub fn file_stem(id: &str) -> String {
    let stem: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    let stem = stem.trim_matches('_').to_string();
    if stem.is_empty() {
        "disturbance".into()
    } else {
        stem
    }
}

#[cfg(test)]
mod tests {
    /// The .dbf columns as they were written by hand before the record was declared, each a
    /// .dbf name (at most 10 characters) and none twice.
    #[test]
    fn the_columns_are_the_ones_gis_users_read() {
        let want = "site_id,phase,start,end,acres,total_ac,peak_ac,lda,cond_a,cond_b,cond_c,\
            five_acre,in_town,receiving,status,status_rec,swppp_dec,swppp_date,swppp_ref,\
            swppp_by,exemptions,exempt_ver,sf_source,ag_source,lda_src,five_src,a_src,b_src,\
            c_src,exempt_src,awa_src";
        let columns = super::columns();
        assert_eq!(columns.join(","), want);
        for (i, c) in columns.iter().enumerate() {
            assert!(c.len() <= 10, "{c} is too long for a .dbf");
            assert!(!columns[..i].contains(c), "{c} twice");
        }
    }
}
