//! The site registry: the town's live record of its sites, their disturbance polygons,
//! inspections, manual rainfall, the audit trail and the access tokens. One trait, two
//! stores: a GeoPackage file (the default, which QGIS opens and edits) and PostgreSQL with
//! PostGIS (shared by many editors). Both keep the same tables; the rules that decide what a
//! change means (`apply_change`) live here, once, so the two stores cannot drift apart.

mod convert;
mod gpkg;
mod live;
mod postgis;
pub mod token;

pub use convert::{records_from_catalog, site_layers};
pub use gpkg::GeoPackage;
pub use live::{Live, Snapshot};
pub use postgis::PostGis;
pub use token::{AccessRole, Caller, TokenRecord};

use crate::error::{Error, Result};
use crate::record::{Inspection, RainfallDay};
use geo_types::Geometry;
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::Path;

/// The registry file in a data folder.
pub const GPKG_FILE: &str = "registry.gpkg";

/// Site attributes stored in their own columns, so GIS staff can edit them in QGIS; any
/// other attribute of a site is kept in the `attributes` JSON column.
pub const SITE_COLUMNS: [&str; 8] = [
    "name",
    "status",
    "approved_swppp",
    "applicant",
    "address",
    "parcel_ids",
    "outfall",
    "exemptions",
];

/// The statuses a site can have, in the order a site goes through them.
pub const STATUSES: [&str; 4] = ["planned", "active", "stabilized", "closed"];

/// Attributes a `PATCH` may set besides the columns: the flags and the facts that decide a
/// claimed exemption ((5)), read by `facts` under these names.
const FLAG_FIELDS: [&str; 5] = [
    "single_family",
    "agricultural",
    "common_plan",
    "new_structures",
    "landing_or_haul_road",
];
const EXEMPTION_FIELDS: [&str; 5] = [
    "maintains_original",
    "repair_deemed_necessary",
    "plat_approved",
    "building_permit_approved",
    "common_plan_acres",
];

/// A site as the registry holds it. `properties` uses the semantic names (`status`,
/// `approved_swppp`, ...), whatever the town's file layer called its columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteRecord {
    pub site_id: String,
    pub properties: Map<String, Value>,
    #[serde(skip)]
    pub boundary: Option<Geometry<f64>>,
    /// Bumped by every change; the `ETag` of the site.
    pub version: i64,
    /// The date the site was retired (`DELETE`); the row is kept.
    pub retired: Option<String>,
    /// The name of the token that submitted it (an applicant's own submissions).
    pub submitted_by: Option<String>,
}

/// One disturbance polygon of a site, with its phase and dates.
#[derive(Debug, Clone, PartialEq)]
pub struct DisturbanceRecord {
    pub site_id: String,
    pub dist_id: String,
    pub phase: Option<String>,
    pub start: Option<String>,
    pub end: Option<String>,
    pub properties: Map<String, Value>,
    pub geometry: Geometry<f64>,
}

/// One row of the audit trail: who changed what, when, from which value to which.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditEntry {
    pub at: String,
    pub who: String,
    pub action: String,
    pub site_id: Option<String>,
    pub field: Option<String>,
    pub old_value: Option<Value>,
    pub new_value: Option<Value>,
}

/// One field a change sets: (field, old value, new value).
pub type FieldChange = (String, Value, Value);

/// The store of the registry. Every write is one transaction, durable when it returns.
pub trait Registry: Send + Sync {
    /// Where the registry is, for messages (a file path, or a database without its password).
    fn describe(&self) -> String;
    /// A number that changes whenever another writer (QGIS, another server) commits.
    fn change_stamp(&self) -> Result<i64>;
    /// Whether the sites were seeded (or created) already.
    fn is_seeded(&self) -> Result<bool>;
    /// Fills an empty registry from the file layers, in one transaction.
    fn seed(&self, sites: &[SiteRecord], disturbance: &[DisturbanceRecord]) -> Result<()>;
    /// Every site, retired ones included.
    fn sites(&self) -> Result<Vec<SiteRecord>>;
    fn disturbance(&self) -> Result<Vec<DisturbanceRecord>>;
    /// Stores a new site with its polygons; `Error::Exists` when the id is taken.
    fn create_site(
        &self,
        site: &SiteRecord,
        disturbance: &[DisturbanceRecord],
        who: &str,
    ) -> Result<SiteRecord>;
    /// Applies `change` (checked by `apply_change`) if the site is still at `if_version`;
    /// `Error::Conflict` when it is not.
    fn update_site(
        &self,
        id: &str,
        if_version: i64,
        change: &Map<String, Value>,
        who: &str,
    ) -> Result<SiteRecord>;
    /// Marks the site retired (kept, no longer on the map) if it is still at `if_version`.
    fn retire_site(&self, id: &str, if_version: i64, who: &str) -> Result<SiteRecord>;
    fn add_inspection(&self, inspection: &Inspection, who: &str) -> Result<()>;
    /// Every recorded inspection, of every site.
    fn inspections(&self) -> Result<Vec<Inspection>>;
    /// Records (or corrects) the rain of one day from one source.
    fn add_rainfall(&self, day: &RainfallDay, who: &str) -> Result<()>;
    /// The rainfall entered by hand.
    fn rainfall(&self) -> Result<Vec<RainfallDay>>;
    /// The audit trail of one site, oldest first.
    fn history(&self, site_id: &str) -> Result<Vec<AuditEntry>>;
    fn add_token(&self, token: &TokenRecord) -> Result<()>;
    fn token(&self, token_id: &str) -> Result<Option<TokenRecord>>;
}

/// Opens the registry named by `--registry`: `postgres://...` or `postgresql://...` for
/// PostGIS, a path to a `.gpkg` file, or (None) `registry.gpkg` in the data folder.
pub fn open(spec: Option<&str>, data_dir: &Path) -> Result<Box<dyn Registry>> {
    match spec {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            Ok(Box::new(PostGis::open(url)?))
        }
        Some(path) => Ok(Box::new(GeoPackage::open(Path::new(path))?)),
        None => Ok(Box::new(GeoPackage::open(&data_dir.join(GPKG_FILE))?)),
    }
}

/// Checks a `PATCH` body and works out what it changes on `site`: the new record (version
/// not yet bumped) and each field's old and new value. Unknown fields and bad values are
/// refused with a message naming the field.
pub fn apply_change(
    site: &SiteRecord,
    change: &Map<String, Value>,
) -> Result<(SiteRecord, Vec<FieldChange>)> {
    let mut next = site.clone();
    let mut changes = Vec::new();
    for (key, value) in change {
        let value = normalize(key, value)?;
        let (field, value) = match key.as_str() {
            "swppp_approval" => ("approved_swppp".to_string(), value),
            k => (k.to_string(), value),
        };
        let old = next.properties.get(&field).cloned().unwrap_or(Value::Null);
        if old == value {
            continue;
        }
        if value.is_null() {
            next.properties.remove(&field);
        } else {
            next.properties.insert(field.clone(), value.clone());
        }
        changes.push((field, old, value));
    }
    Ok((next, changes))
}

/// A `PATCH` value in the form the site keeps: text for the columns, true/false/null for
/// the flags, a date for the (5)(e)/(f) dates, a number of acres.
fn normalize(key: &str, value: &Value) -> Result<Value> {
    let bad = |why: &str| Err(Error::Input(format!("{key}: {why}")));
    let text = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => Some(s.trim().to_string()),
            _ => None,
        }
    };
    match key {
        "status" => match text(value) {
            Some(s) if STATUSES.contains(&s.to_ascii_lowercase().as_str()) => {
                Ok(Value::String(s.to_ascii_lowercase()))
            }
            _ => bad(&format!("must be one of {}", STATUSES.join(", "))),
        },
        "swppp_approval" => {
            let Value::Object(o) = value else {
                return if value.is_null() {
                    Ok(Value::Null)
                } else {
                    bad("must be {\"date\": \"YYYY-MM-DD\", \"reference\": \"...\"} or null")
                };
            };
            let date = o.get("date").and_then(text).unwrap_or_default();
            let reference = o.get("reference").and_then(text).unwrap_or_default();
            if crate::area::parse_date(&date).is_none() {
                return bad("date must be YYYY-MM-DD");
            }
            Ok(Value::String(
                format!("{date} {reference}").trim().to_string(),
            ))
        }
        "plat_approved" | "building_permit_approved" => match value {
            Value::Null => Ok(Value::Null),
            v => match text(v) {
                Some(s) if crate::area::parse_date(&s).is_some() => Ok(Value::String(s)),
                _ => bad("must be a date YYYY-MM-DD or null"),
            },
        },
        "common_plan_acres" => match value {
            Value::Null => Ok(Value::Null),
            Value::Number(n) if n.as_f64().is_some_and(|a| a.is_finite() && a >= 0.0) => {
                Ok(value.clone())
            }
            _ => bad("must be a number of acres, at least 0, or null"),
        },
        k if FLAG_FIELDS.contains(&k)
            || k == "maintains_original"
            || k == "repair_deemed_necessary" =>
        {
            match value {
                Value::Bool(_) | Value::Null => Ok(value.clone()),
                _ => bad("must be true, false or null"),
            }
        }
        "outfall" => match value {
            Value::Null => Ok(Value::Null),
            v => match text(v) {
                Some(s) if s.is_empty() || crate::load::parse_point(&s).is_some() => {
                    Ok(Value::String(s))
                }
                _ => bad("must be \"lon,lat\" (WGS84 degrees)"),
            },
        },
        k if SITE_COLUMNS.contains(&k) => match value {
            Value::Null => Ok(Value::Null),
            v => text(v)
                .map(Value::String)
                .map_or_else(|| bad("must be text or null"), Ok),
        },
        _ => Err(Error::Input(format!(
            "'{key}' cannot be changed; the fields are: status, swppp_approval, {}, {}, {}",
            SITE_COLUMNS[..].join(", "),
            FLAG_FIELDS.join(", "),
            EXEMPTION_FIELDS.join(", ")
        ))),
    }
}

/// Now, in UTC, as the audit trail writes it.
pub(crate) fn now_utc() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Today's date (UTC), for a retirement.
pub(crate) fn today() -> String {
    chrono::Utc::now().date_naive().to_string()
}

/// The audit rows of a new site: one row per attribute set, and one for its polygons.
pub(crate) fn creation_changes(site: &SiteRecord, polygons: usize) -> Vec<FieldChange> {
    let mut out: Vec<FieldChange> = site
        .properties
        .iter()
        .map(|(k, v)| (k.clone(), Value::Null, v.clone()))
        .collect();
    out.push((
        "disturbance".into(),
        Value::Null,
        Value::String(format!("{polygons} polygon(s)")),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn site() -> SiteRecord {
        SiteRecord {
            site_id: "S1".into(),
            properties: json!({"status": "planned", "name": "x"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            boundary: None,
            version: 1,
            retired: None,
            submitted_by: None,
        }
    }

    #[test]
    fn a_change_records_old_and_new_values_and_skips_what_is_unchanged() {
        let change = json!({"status": "Active", "name": "x",
            "swppp_approval": {"date": "2026-05-01", "reference": "SW-14"}});
        let (next, changes) = apply_change(&site(), change.as_object().unwrap()).unwrap();
        assert_eq!(next.properties["status"], "active");
        assert_eq!(next.properties["approved_swppp"], "2026-05-01 SW-14");
        let fields: Vec<&str> = changes.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(fields, ["status", "approved_swppp"]);
        assert_eq!(changes[0].1, json!("planned"));
    }

    #[test]
    fn bad_values_and_unknown_fields_are_refused_by_name() {
        for (body, word) in [
            (json!({"status": "demolished"}), "status"),
            (
                json!({"swppp_approval": {"date": "soon"}}),
                "swppp_approval",
            ),
            (json!({"single_family": "yes"}), "single_family"),
            (json!({"owner": "me"}), "'owner'"),
            (json!({"outfall": "north of here"}), "outfall"),
        ] {
            let e = apply_change(&site(), body.as_object().unwrap()).unwrap_err();
            assert!(e.to_string().contains(word), "{e}");
        }
    }
}
