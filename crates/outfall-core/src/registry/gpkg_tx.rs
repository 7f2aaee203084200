//! The GeoPackage's rows: a site row and a geometry blob read and written, and the store's
//! write transaction, the core's primitives (`Tx`) as SQLite statements inside the
//! IMMEDIATE transaction `GeoPackage` opens.

use super::rows::{self, SiteRow, SqlStyle, TokenRow, TOKEN_SELECT};
use super::store::{AuditRow, Guards, Tx};
use super::{stored_geometry, DisturbanceRecord, SiteRecord, Stored, TokenRecord};
use crate::error::{Error, Result};
use crate::record::{Inspection, RainfallDay};
use geo::BoundingRect;
use geo_types::Geometry;
use geozero::{CoordDimensions, ToWkb};
use rusqlite::{params, Connection, OptionalExtension, ToSql, Transaction};

/// A geometry as a GeoPackage blob (header with SRS 4326 and the envelope, then WKB).
fn to_blob(g: &Geometry<f64>) -> Result<Vec<u8>> {
    let envelope = g
        .bounding_rect()
        .map(|r| vec![r.min().x, r.max().x, r.min().y, r.max().y])
        .unwrap_or_default();
    g.to_gpkg_wkb(CoordDimensions::xy(), Some(4326), envelope)
        .map_err(|e| Error::Input(format!("cannot encode a geometry: {e}")))
}

/// A geometry column's blob, decoded: None when there is none (NULL, an empty blob as QGIS
/// clears one, a blob whose header says empty); a blob that is no geometry is kept as why.
pub(super) fn geometry_of(blob: Option<Vec<u8>>) -> Option<Stored<Geometry<f64>>> {
    match blob {
        Some(b) if !b.is_empty() => crate::load::wkb::from_gpkg(&b).transpose(),
        _ => None,
    }
}

pub(super) const STYLE: SqlStyle = SqlStyle {
    marker: '?',
    geom_in: |param| param,
    geom_out: "geom",
};

pub(super) fn site_row(r: &rusqlite::Row) -> rusqlite::Result<SiteRow> {
    Ok(SiteRow {
        site_id: r.get(0)?,
        columns: (1..rows::ATTRIBUTES_AT)
            .map(|i| r.get(i))
            .collect::<rusqlite::Result<_>>()?,
        attributes: r
            .get::<_, Option<String>>(rows::ATTRIBUTES_AT)?
            .unwrap_or_default(),
        version: r.get(rows::VERSION_AT)?,
        retired: r.get(rows::RETIRED_AT)?,
        submitted_by: r.get(rows::SUBMITTED_BY_AT)?,
    })
}

/// The definitions of the guards named `names`, as `sqlite_master` holds them (the text
/// they were created with).
pub(super) fn read_guards(conn: &Connection, names: &[String]) -> rusqlite::Result<Guards> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, type || ': ' || coalesce(sql, '') FROM sqlite_master \
         WHERE type IN ('trigger', 'view')",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get(1)?)))?;
    let mut out = Guards::new();
    for row in rows {
        let (name, sql) = row?;
        if names.contains(&name) {
            out.insert(name, sql);
        }
    }
    Ok(out)
}

/// A token row as `TOKEN_SELECT` reads it.
pub(super) fn token_row(r: &rusqlite::Row) -> rusqlite::Result<TokenRow> {
    Ok(TokenRow {
        text: [r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?],
        expires_at: r.get(5)?,
        revoked: r.get(6)?,
    })
}

/// A site row with its geometry blob, decoded after the statement is done.
pub(super) fn site_with_blob(r: &rusqlite::Row) -> rusqlite::Result<(SiteRow, Option<Vec<u8>>)> {
    Ok((site_row(r)?, r.get(rows::GEOM_AT)?))
}

pub(super) fn with_geometry(rows: Vec<(SiteRow, Option<Vec<u8>>)>) -> Vec<SiteRecord> {
    rows.into_iter()
        .map(|(row, blob)| {
            let mut site = row.record();
            site.boundary = geometry_of(blob);
            site
        })
        .collect()
}

/// An open transaction. Its errors name the GeoPackage (`From<rusqlite::Error>`), as a
/// write's always have.
pub(super) struct Rows<'a, 'c>(pub(super) &'a Transaction<'c>);

impl Rows<'_, '_> {
    /// The site row's values, as `STYLE`'s statements take them: `tail` adds the submitter.
    fn values(row: &SiteRow, tail: bool) -> Vec<&dyn ToSql> {
        let mut values: Vec<&dyn ToSql> = vec![&row.site_id];
        values.extend(row.columns.iter().map(|c| c as &dyn ToSql));
        values.extend([&row.attributes as &dyn ToSql, &row.version, &row.retired]);
        if tail {
            values.push(&row.submitted_by);
        }
        values
    }
}

impl Tx for Rows<'_, '_> {
    fn site_for_update(&mut self, id: &str) -> Result<Option<SiteRecord>> {
        let sql = format!("{} WHERE site_id = ?1", STYLE.select_sites(true));
        let row = self.0.query_row(&sql, [id], site_with_blob).optional()?;
        Ok(with_geometry(row.into_iter().collect()).pop())
    }

    fn site_rows(&mut self) -> Result<Vec<SiteRecord>> {
        let sql = format!("{} ORDER BY fid", STYLE.select_sites(false));
        let mut stmt = self.0.prepare(&sql)?;
        let rows = stmt
            .query_map([], site_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows.into_iter().map(SiteRow::record).collect())
    }

    fn insert_site(&mut self, site: &SiteRecord) -> Result<()> {
        let row = SiteRow::of(site);
        let blob = site
            .boundary
            .as_ref()
            .map(|g| to_blob(stored_geometry("site", &site.site_id, g)?))
            .transpose()?;
        let mut values = Rows::values(&row, true);
        values.push(&blob);
        match self.0.execute(&STYLE.insert_site(), values.as_slice()) {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE =>
            {
                Err(Error::Exists {
                    kind: "site",
                    id: site.site_id.clone(),
                })
            }
            r => Ok(r.map(drop)?),
        }
    }

    fn write_site(&mut self, site: &SiteRecord) -> Result<()> {
        let row = SiteRow::of(site);
        let values = Rows::values(&row, false);
        self.0.execute(&STYLE.update_site(), values.as_slice())?;
        Ok(())
    }

    fn insert_disturbance(&mut self, d: &DisturbanceRecord) -> Result<()> {
        self.0.execute(
            "INSERT INTO disturbance (site_id, dist_id, phase, start_date, end_date, attributes, geom) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                d.site_id,
                d.dist_id,
                d.phase,
                d.start,
                d.end,
                serde_json::Value::Object(d.properties.clone()).to_string(),
                to_blob(stored_geometry("disturbance", &d.dist_id, &d.geometry)?)?
            ],
        )?;
        Ok(())
    }

    fn insert_inspection(&mut self, i: &Inspection, who: &str, at: &str) -> Result<()> {
        self.0.execute(
            "INSERT INTO inspections (site_id, date, inspector, findings, corrective_actions, \
             corrective_due, recorded_by, recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                i.site_id,
                i.date.to_string(),
                i.inspector,
                i.findings,
                i.corrective_actions,
                i.corrective_due.map(|d| d.to_string()),
                who,
                at
            ],
        )?;
        Ok(())
    }

    fn rain_for_update(&mut self, day: &RainfallDay) -> Result<Option<f64>> {
        Ok(self
            .0
            .query_row(
                "SELECT rain_in FROM rainfall WHERE date = ?1 AND source = ?2",
                params![day.date.to_string(), day.source],
                |r| r.get(0),
            )
            .optional()?)
    }

    fn put_rainfall(&mut self, day: &RainfallDay, who: &str, at: &str) -> Result<()> {
        self.0.execute(
            "INSERT INTO rainfall (date, rain_in, source, recorded_by, recorded_at) \
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (date, source) DO UPDATE \
             SET rain_in = excluded.rain_in, recorded_by = excluded.recorded_by, \
             recorded_at = excluded.recorded_at",
            params![day.date.to_string(), day.rain_in, day.source, who, at],
        )?;
        Ok(())
    }

    fn insert_token(&mut self, t: &TokenRecord) -> Result<()> {
        self.0.execute(
            &STYLE.insert_token(),
            params![
                t.token_id,
                t.name,
                t.role.as_str(),
                t.hash,
                t.created_at,
                t.expires_at,
                t.revoked
            ],
        )?;
        Ok(())
    }

    fn token_rows(&mut self) -> Result<Vec<TokenRecord>> {
        let sql = format!("{TOKEN_SELECT} ORDER BY created_at, token_id");
        let mut stmt = self.0.prepare(&sql)?;
        let rows = stmt
            .query_map([], token_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.into_iter().map(TokenRow::record).collect()
    }

    fn write_token(&mut self, t: &TokenRecord) -> Result<()> {
        self.0.execute(
            &STYLE.update_token(),
            params![t.hash, t.expires_at, t.revoked, t.token_id],
        )?;
        Ok(())
    }

    fn insert_meta(&mut self, key: &str, value: &str) -> Result<()> {
        self.0.execute(
            "INSERT INTO outfall_meta (key, value) VALUES (?1, ?2)",
            [key, value],
        )?;
        Ok(())
    }

    fn audit(&mut self, a: &AuditRow) -> Result<()> {
        let mut stmt = self.0.prepare_cached(
            "INSERT INTO audit (at, who, action, site_id, field, old_value, new_value) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        stmt.execute(params![
            a.at,
            a.who,
            a.action,
            a.site_id,
            a.field,
            a.old_value,
            a.new_value
        ])?;
        Ok(())
    }

    fn schema_version(&mut self) -> Result<i64> {
        self.0.execute_batch(
            "CREATE TABLE IF NOT EXISTS outfall_migrations \
             (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
        )?;
        Ok(self.0.query_row(
            "SELECT coalesce(max(version), 0) FROM outfall_migrations",
            [],
            |r| r.get(0),
        )?)
    }

    fn run_sql(&mut self, sql: &str) -> Result<()> {
        Ok(self.0.execute_batch(sql)?)
    }

    fn guards(&mut self, names: &[String]) -> Result<Guards> {
        Ok(read_guards(self.0, names)?)
    }

    fn record_version(&mut self, version: i64, at: &str) -> Result<()> {
        self.0.execute(
            "INSERT INTO outfall_migrations (version, applied_at) VALUES (?1, ?2)",
            params![version, at],
        )?;
        Ok(())
    }
}
