//! A site as a row of the `sites` table, and the SQL that reads and writes that row, for
//! every store. The columns come from `SITE_COLUMNS` alone, so a new column is one edit here
//! rather than one per store and statement; the stores differ only in `SqlStyle`.

use super::{SiteRecord, SITE_COLUMNS};
use crate::record::{Inspection, Listing, RainfallDay};
use chrono::NaiveDate;
use serde_json::{Map, Value};

/// The columns after a site's own, in the order they are read and written.
const TAIL: [&str; 4] = ["attributes", "version", "retired", "submitted_by"];

/// Where each part of a site row is among the columns of `SqlStyle::select_sites`: the
/// `site_id` first, then `SITE_COLUMNS` from index 1, then these.
pub const ATTRIBUTES_AT: usize = 1 + SITE_COLUMNS.len();
pub const VERSION_AT: usize = ATTRIBUTES_AT + 1;
pub const RETIRED_AT: usize = ATTRIBUTES_AT + 2;
pub const SUBMITTED_BY_AT: usize = ATTRIBUTES_AT + 3;
pub const GEOM_AT: usize = ATTRIBUTES_AT + 4;

/// What a store's SQL writes differently from another's.
pub struct SqlStyle {
    /// The character before a parameter's number: `?` (SQLite), `$` (PostgreSQL).
    pub marker: char,
    /// The geometry parameter as the store takes it, given the parameter's marker.
    pub geom_in: fn(String) -> String,
    /// The geometry column as the store gives it back (GeoPackage blob, or WKB).
    pub geom_out: &'static str,
}

fn row_columns() -> impl Iterator<Item = &'static str> {
    std::iter::once("site_id").chain(SITE_COLUMNS).chain(TAIL)
}

impl SqlStyle {
    fn param(&self, number: usize) -> String {
        format!("{}{number}", self.marker)
    }

    /// Every column of a site row, and its geometry last (at `GEOM_AT`) when asked.
    pub fn select_sites(&self, geometry: bool) -> String {
        let mut columns: Vec<&str> = row_columns().collect();
        if geometry {
            columns.push(self.geom_out);
        }
        format!("SELECT {} FROM sites", columns.join(", "))
    }

    /// A new row: the parameters in `select_sites` order, the geometry last.
    pub fn insert_site(&self) -> String {
        let mut columns: Vec<&str> = row_columns().collect();
        columns.push("geom");
        let n = columns.len();
        let mut params: Vec<String> = (1..n).map(|i| self.param(i)).collect();
        params.push((self.geom_in)(self.param(n)));
        format!(
            "INSERT INTO sites ({}) VALUES ({})",
            columns.join(", "),
            params.join(", ")
        )
    }

    /// A row rewritten in place: `site_id` is the first parameter, then the site's columns,
    /// attributes, version and retirement. The submitter and the geometry never change.
    pub fn update_site(&self) -> String {
        let set: Vec<String> = row_columns()
            .skip(1)
            .take(SITE_COLUMNS.len() + 3)
            .enumerate()
            .map(|(i, c)| format!("{c}={}", self.param(i + 2)))
            .collect();
        format!(
            "UPDATE sites SET {} WHERE site_id={}",
            set.join(", "),
            self.param(1)
        )
    }
}

/// The columns of a token row, in the order `TokenRow` reads them.
pub const TOKEN_SELECT: &str =
    "SELECT token_id, name, role, hash, created_at, expires_at, revoked FROM tokens";

impl SqlStyle {
    /// A new token row, its parameters in `TOKEN_SELECT` order.
    pub fn insert_token(&self) -> String {
        let params: Vec<String> = (1..=7).map(|i| self.param(i)).collect();
        format!(
            "INSERT INTO tokens (token_id, name, role, hash, created_at, expires_at, revoked) \
             VALUES ({})",
            params.join(", ")
        )
    }

    /// A token's hash, expiry and revocation rewritten; the id is the fourth parameter.
    pub fn update_token(&self) -> String {
        format!(
            "UPDATE tokens SET hash={}, expires_at={}, revoked={} WHERE token_id={}",
            self.param(1),
            self.param(2),
            self.param(3),
            self.param(4)
        )
    }
}

/// A token row's values as `TOKEN_SELECT` gives them.
pub struct TokenRow {
    pub text: [String; 5],
    pub expires_at: Option<String>,
    pub revoked: Option<String>,
}

impl TokenRow {
    /// The record; a role no program writes (an edit by hand) is an error naming it.
    pub fn record(self) -> crate::error::Result<super::TokenRecord> {
        let [token_id, name, role, hash, created_at] = self.text;
        Ok(super::TokenRecord {
            role: role.parse()?,
            token_id,
            name,
            hash,
            created_at,
            expires_at: self.expires_at,
            revoked: self.revoked,
        })
    }
}

/// A site's values as its row holds them: each of `SITE_COLUMNS` as text, every other
/// attribute in the `attributes` JSON. The boundary is the store's to encode.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteRow {
    pub site_id: String,
    /// One per `SITE_COLUMNS`, in its order.
    pub columns: Vec<Option<String>>,
    pub attributes: String,
    pub version: i64,
    pub retired: Option<String>,
    pub submitted_by: Option<String>,
}

impl SiteRow {
    pub fn of(site: &SiteRecord) -> SiteRow {
        let p = &site.properties;
        let extra: Map<String, Value> = p
            .iter()
            .filter(|(k, _)| !SITE_COLUMNS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        SiteRow {
            site_id: site.site_id.clone(),
            columns: SITE_COLUMNS
                .iter()
                .map(|c| p.get(*c).and_then(crate::load::value_text))
                .collect(),
            attributes: Value::Object(extra).to_string(),
            version: site.version,
            retired: site.retired.clone(),
            submitted_by: site.submitted_by.clone(),
        }
    }

    /// The record, without its boundary; a column's text wins over the same key in the
    /// JSON (QGIS edits the column).
    pub fn record(self) -> SiteRecord {
        let mut properties = parse_json(&self.attributes);
        for (col, v) in SITE_COLUMNS.iter().zip(self.columns) {
            if let Some(v) = v {
                properties.insert(col.to_string(), Value::String(v));
            }
        }
        SiteRecord {
            site_id: self.site_id,
            properties,
            boundary: None,
            version: self.version,
            retired: self.retired,
            submitted_by: self.submitted_by,
        }
    }
}

/// The audit rows written by the outside-edit triggers with a row id after `{m}1` and up to
/// `{m}2`, oldest first, in `AuditEntry` order.
pub fn select_outside_edits(marker: char) -> String {
    format!(
        "SELECT at, who, action, site_id, field, old_value, new_value FROM audit \
         WHERE fid > {m}1 AND fid <= {m}2 AND who = 'outside the service' ORDER BY fid",
        m = marker
    )
}

/// A JSON object column; anything else (an edit that broke it) reads as empty.
pub fn parse_json(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// An audit value as stored: JSON, or (written by another program) plain text.
pub fn audit_value(text: Option<String>) -> Option<Value> {
    text.map(|t| serde_json::from_str(&t).unwrap_or(Value::String(t)))
}

/// A stored date, or the problem that makes its row unreadable (`bounds::parse_date`: the
/// forms files use, in the sane range).
fn stored_date(table: &str, fid: i64, column: &str, text: &str) -> Result<NaiveDate, String> {
    crate::bounds::parse_date(text).ok_or_else(|| {
        format!(
            "table {table} row {fid}: {column} '{}' is not a date {}; the row is skipped",
            text.chars().take(40).collect::<String>(),
            crate::bounds::range_text()
        )
    })
}

/// The inspection rows of `which`, oldest first, with the row id (`fid`) first: a
/// site's in SQL (never read whole and filtered) and a page of them. The parameters are
/// the site id (or NULL for every site), the page's limit and its offset.
pub fn select_inspections(marker: char) -> String {
    format!(
        "SELECT fid, site_id, date, inspector, findings, corrective_actions, corrective_due \
         FROM inspections WHERE ({m}1 IS NULL OR site_id = {m}1) ORDER BY date, fid \
         LIMIT {m}2 OFFSET {m}3",
        m = marker
    )
}

/// The stored texts of one inspection row, as every store reads them.
pub struct InspectionRow {
    pub fid: i64,
    pub site_id: String,
    pub date: String,
    pub inspector: String,
    pub findings: String,
    pub corrective_actions: String,
    pub corrective_due: Option<String>,
}

impl InspectionRow {
    /// The inspection, or the problem that skips the row.
    pub fn read(self) -> Result<Inspection, String> {
        let date = stored_date("inspections", self.fid, "date", &self.date)?;
        let corrective_due = self
            .corrective_due
            .filter(|d| !d.trim().is_empty())
            .map(|d| stored_date("inspections", self.fid, "corrective_due", &d))
            .transpose()?;
        Ok(Inspection {
            site_id: self.site_id,
            date,
            inspector: self.inspector,
            findings: self.findings,
            corrective_actions: self.corrective_actions,
            corrective_due,
        })
    }
}

/// A day of stored rain, or the problem that skips the row.
pub fn rain_of(fid: i64, date: &str, rain_in: f64, source: String) -> Result<RainfallDay, String> {
    Ok(RainfallDay {
        date: stored_date("rainfall", fid, "date", date)?,
        rain_in,
        source,
    })
}

/// The rows read, and the problems of those skipped.
pub fn listing<T>(read: impl IntoIterator<Item = Result<T, String>>) -> Listing<T> {
    let mut out = Listing::default();
    for r in read {
        match r {
            Ok(row) => out.rows.push(row),
            Err(p) => out.problems.push(p),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQLITE: SqlStyle = SqlStyle {
        marker: '?',
        geom_in: |p| p,
        geom_out: "geom",
    };
    const POSTGRES: SqlStyle = SqlStyle {
        marker: '$',
        geom_in: |p| format!("ST_GeomFromWKB({p}, 4326)"),
        geom_out: "ST_AsBinary(geom)",
    };

    /// The statements the stores ran before they were derived from `SITE_COLUMNS`.
    #[test]
    fn the_statements_are_the_ones_the_stores_wrote_by_hand() {
        let cols = "site_id, name, status, approved_swppp, applicant, address, parcel_ids, \
                    outfall, exemptions, attributes, version, retired, submitted_by";
        assert_eq!(
            SQLITE.select_sites(true),
            format!("SELECT {cols}, geom FROM sites")
        );
        assert_eq!(
            POSTGRES.select_sites(true),
            format!("SELECT {cols}, ST_AsBinary(geom) FROM sites")
        );
        assert_eq!(
            POSTGRES.insert_site(),
            format!(
                "INSERT INTO sites ({cols}, geom) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \
                 $10, $11, $12, $13, ST_GeomFromWKB($14, 4326))"
            )
        );
        assert_eq!(
            SQLITE.update_site(),
            "UPDATE sites SET name=?2, status=?3, approved_swppp=?4, applicant=?5, address=?6, \
             parcel_ids=?7, outfall=?8, exemptions=?9, attributes=?10, version=?11, retired=?12 \
             WHERE site_id=?1"
        );
        assert_eq!(GEOM_AT, 13);
    }

    #[test]
    fn a_row_splits_columns_from_attributes_and_reads_back_the_same() {
        let site = SiteRecord {
            site_id: "S1".into(),
            properties: serde_json::json!({"name": "Lot 4", "status": "planned",
                "land_use": "agricultural", "common_plan": false})
            .as_object()
            .cloned()
            .unwrap_or_default(),
            boundary: None,
            version: 3,
            retired: None,
            submitted_by: Some("app".into()),
        };
        let row = SiteRow::of(&site);
        assert_eq!(row.columns[0].as_deref(), Some("Lot 4"));
        assert_eq!(row.columns[1].as_deref(), Some("planned"));
        assert!(row.columns[2..].iter().all(Option::is_none));
        assert_eq!(
            parse_json(&row.attributes),
            *serde_json::json!({"land_use": "agricultural", "common_plan": false})
                .as_object()
                .unwrap_or(&Map::new())
        );
        assert_eq!(row.record(), site);
    }
}
