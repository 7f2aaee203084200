//! The registry in a GeoPackage: SQLite in WAL mode with `synchronous=FULL` (a write is on
//! disk when it is acknowledged), with the GeoPackage tables QGIS needs to open `sites` and
//! `disturbance` as layers (geometry as GeoPackage blobs, EPSG:4326). Another program's
//! commit shows in `PRAGMA data_version`, which the server polls.

use super::rows::{self, parse_date, SiteRow, SqlStyle};
use super::store::{AuditRow, Store, Tx};
use super::{migrate, AuditEntry, DisturbanceRecord, SiteRecord, TokenRecord};
use crate::claims::Vocabulary;
use crate::error::{Error, Result};
use crate::record::{Inspection, RainfallDay};
use geo::BoundingRect;
use geo_types::Geometry;
use geozero::{CoordDimensions, ToGeo, ToWkb};
use rusqlite::{params, Connection, OptionalExtension, ToSql, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub struct GeoPackage {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl GeoPackage {
    /// Opens (or creates) the file and brings its schema and rows up to date; `words`
    /// convert the rows written before the typed record.
    pub fn open(path: &Path, words: &Vocabulary) -> Result<GeoPackage> {
        let err = |e: rusqlite::Error| registry_error(path, e);
        let conn = Connection::open(path).map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(err)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::Registry {
                store: path.display().to_string(),
                reason: format!("cannot use WAL mode (the file system gave '{mode}')"),
            });
        }
        conn.execute_batch(
            "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; \
             PRAGMA application_id=1196444487; PRAGMA user_version=10300;",
        )
        .map_err(err)?;
        let g = GeoPackage {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        };
        migrate::run(&g, include_str!("gpkg_v1.sql"), words)?;
        Ok(g)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a half-done transaction (it rolls back
        // on drop), so the connection is still good.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        registry_error(&self.path, e)
    }

    /// Every row `read` makes of the statement's rows; errors name the file.
    fn query<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        read: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params, read)
            .and_then(|r| r.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e));
        rows
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Registry {
            store: "GeoPackage".into(),
            reason: e.to_string(),
        }
    }
}

fn registry_error(path: &Path, e: rusqlite::Error) -> Error {
    Error::Registry {
        store: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// A geometry as a GeoPackage blob (header with SRS 4326 and the envelope, then WKB).
fn to_blob(g: &Geometry<f64>) -> Result<Vec<u8>> {
    let envelope = g
        .bounding_rect()
        .map(|r| vec![r.min().x, r.max().x, r.min().y, r.max().y])
        .unwrap_or_default();
    g.to_gpkg_wkb(CoordDimensions::xy(), Some(4326), envelope)
        .map_err(|e| Error::Input(format!("cannot encode a geometry: {e}")))
}

fn from_blob(table: &str, id: &str, blob: &[u8]) -> Result<Geometry<f64>> {
    geozero::wkb::GpkgWkb(blob.to_vec())
        .to_geo()
        .map_err(|e| rows::bad_geometry("GeoPackage", table, id, e))
}

/// A geometry column's blob, decoded; an empty blob (cleared in QGIS) is no geometry.
fn geometry_of(table: &str, id: &str, blob: Option<Vec<u8>>) -> Result<Option<Geometry<f64>>> {
    match blob {
        Some(b) if !b.is_empty() => Ok(Some(from_blob(table, id, &b)?)),
        _ => Ok(None),
    }
}

const STYLE: SqlStyle = SqlStyle {
    marker: '?',
    geom_in: |param| param,
    geom_out: "geom",
};

fn site_row(r: &rusqlite::Row) -> rusqlite::Result<SiteRow> {
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

/// A site row with its geometry blob, decoded after the statement is done.
fn site_with_blob(r: &rusqlite::Row) -> rusqlite::Result<(SiteRow, Option<Vec<u8>>)> {
    Ok((site_row(r)?, r.get(rows::GEOM_AT)?))
}

fn with_geometry(rows: Vec<(SiteRow, Option<Vec<u8>>)>) -> Result<Vec<SiteRecord>> {
    rows.into_iter()
        .map(|(row, blob)| {
            let mut site = row.record();
            site.boundary = geometry_of("sites", &site.site_id, blob)?;
            Ok(site)
        })
        .collect()
}

impl Store for GeoPackage {
    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    fn change_stamp(&self) -> Result<i64> {
        self.lock()
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    fn is_seeded(&self) -> Result<bool> {
        let n: i64 = self
            .lock()
            .query_row(
                "SELECT count(*) FROM outfall_meta WHERE key = 'seeded'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        Ok(n > 0)
    }

    fn sites(&self) -> Result<Vec<SiteRecord>> {
        let sql = format!("{} ORDER BY fid", STYLE.select_sites(true));
        with_geometry(self.query(&sql, [], site_with_blob)?)
    }

    fn disturbance(&self) -> Result<Vec<DisturbanceRecord>> {
        let rows = self.query(
            "SELECT site_id, dist_id, phase, start_date, end_date, attributes, geom \
             FROM disturbance ORDER BY fid",
            [],
            |r| {
                let ids: (String, String) = (r.get(0)?, r.get(1)?);
                let phase_dates: [Option<String>; 3] = [r.get(2)?, r.get(3)?, r.get(4)?];
                let attributes: Option<String> = r.get(5)?;
                Ok((
                    ids,
                    phase_dates,
                    attributes,
                    r.get::<_, Option<Vec<u8>>>(6)?,
                ))
            },
        )?;
        let mut out = Vec::with_capacity(rows.len());
        for ((site_id, dist_id), [phase, start, end], attributes, blob) in rows {
            // A polygon whose geometry was cleared (in QGIS) has nothing to measure.
            let Some(geometry) = geometry_of("disturbance", &dist_id, blob)? else {
                continue;
            };
            out.push(DisturbanceRecord {
                site_id,
                dist_id,
                phase,
                start,
                end,
                properties: rows::parse_json(&attributes.unwrap_or_default()),
                geometry,
            });
        }
        Ok(out)
    }

    fn inspections(&self) -> Result<Vec<Inspection>> {
        let rows = self.query(
            "SELECT site_id, date, inspector, findings, corrective_actions, corrective_due \
             FROM inspections ORDER BY date, fid",
            [],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                ))
            },
        )?;
        rows.into_iter()
            .map(
                |(site_id, date, inspector, findings, corrective_actions, due)| {
                    Ok(Inspection {
                        date: parse_date("inspections", &site_id, &date)?,
                        corrective_due: due
                            .map(|d| parse_date("inspections", &site_id, &d))
                            .transpose()?,
                        site_id,
                        inspector,
                        findings,
                        corrective_actions,
                    })
                },
            )
            .collect()
    }

    fn rainfall(&self) -> Result<Vec<RainfallDay>> {
        let rows = self.query(
            "SELECT date, rain_in, source FROM rainfall ORDER BY date, source",
            [],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, f64>(1)?,
                    r.get::<_, String>(2)?,
                ))
            },
        )?;
        rows.into_iter()
            .map(|(date, rain_in, source)| {
                Ok(RainfallDay {
                    date: parse_date("rainfall", &source, &date)?,
                    rain_in,
                    source,
                })
            })
            .collect()
    }

    fn history(&self, site_id: &str) -> Result<Vec<AuditEntry>> {
        self.query(
            "SELECT at, who, action, site_id, field, old_value, new_value FROM audit \
             WHERE site_id = ?1 ORDER BY fid",
            [site_id],
            |r| {
                Ok(AuditEntry {
                    at: r.get(0)?,
                    who: r.get(1)?,
                    action: r.get(2)?,
                    site_id: r.get(3)?,
                    field: r.get(4)?,
                    old_value: rows::audit_value(r.get(5)?),
                    new_value: rows::audit_value(r.get(6)?),
                })
            },
        )
    }

    fn token(&self, token_id: &str) -> Result<Option<TokenRecord>> {
        let rows = self.query(
            "SELECT token_id, name, role, hash, created_at FROM tokens \
             WHERE token_id = ?1 AND revoked IS NULL",
            [token_id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                ))
            },
        )?;
        rows.into_iter()
            .next()
            .map(|(token_id, name, role, hash, created_at)| {
                Ok(TokenRecord {
                    role: role.parse()?,
                    token_id,
                    name,
                    hash,
                    created_at,
                })
            })
            .transpose()
    }

    /// One IMMEDIATE transaction: the write lock is taken at the start, so two writers
    /// never both read a version and then both write it.
    fn transaction(&self, work: &mut dyn FnMut(&mut dyn Tx) -> Result<()>) -> Result<()> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        work(&mut Rows(&tx))?;
        tx.commit().map_err(|e| self.err(e))
    }
}

/// An open transaction. Its errors name the GeoPackage (`From<rusqlite::Error>`), as a
/// write's always have.
struct Rows<'a, 'c>(&'a Transaction<'c>);

impl Rows<'_, '_> {
    /// The site row's values, as `STYLE`'s statements take them: `tail` adds the submitter.
    fn values<'v>(row: &'v SiteRow, tail: bool) -> Vec<&'v dyn ToSql> {
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
        Ok(with_geometry(row.into_iter().collect())?.pop())
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
        let blob = site.boundary.as_ref().map(to_blob).transpose()?;
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
                to_blob(&d.geometry)?
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
            "INSERT INTO tokens (token_id, name, role, hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![t.token_id, t.name, t.role.as_str(), t.hash, t.created_at],
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

    fn record_version(&mut self, version: i64, at: &str) -> Result<()> {
        self.0.execute(
            "INSERT INTO outfall_migrations (version, applied_at) VALUES (?1, ?2)",
            params![version, at],
        )?;
        Ok(())
    }
}
