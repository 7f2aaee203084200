//! The registry in a GeoPackage: SQLite in WAL mode with `synchronous=FULL` (a write is on
//! disk when it is acknowledged), with the GeoPackage tables QGIS needs to open `sites` and
//! `disturbance` as layers (geometry as GeoPackage blobs, EPSG:4326). Another program's
//! commit shows in `PRAGMA data_version`, which the server polls.
//!
//! The service's marker, for which the guards' triggers stand aside (`gpkg_guards.sql`), is
//! a SQL function its connection registers (`WRITER_FUNCTION`): the triggers look for it in
//! `pragma_function_list`, which lists the functions of the connection running them. SQL
//! cannot create a function, so no other connection (QGIS, sqlite3) has it, however it
//! writes; a table row or a temporary table, which any connection can make, would not do.

use super::gpkg_tx::{
    geometry_of, read_guards, site_with_blob, token_row, with_geometry, Rows, STYLE,
};
use super::guard::Guards;
use super::rows::{self, InspectionRow, TokenRow, TOKEN_SELECT};
use super::store::{Store, Tx};
use super::{migrate, AuditEntry, DisturbanceRecord, SiteRecord, TokenRecord};
use crate::claims::Vocabulary;
use crate::error::{Error, Result};
use crate::record::{Inspection, InspectionQuery, Listing, RainfallDay};
use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The GeoPackage's own migrations (the shared ones are `migrate`'s).
const SQL: migrate::StoreSql = migrate::StoreSql {
    first: include_str!("gpkg_v1.sql"),
    outside_edits: include_str!("gpkg_v4_outside_edits.sql"),
    // SQLite has no NOTIFY: the server reads `PRAGMA data_version` instead.
    notify: "SELECT 1;",
    // The old marker: a row any connection could insert in its own transaction.
    writer: "DROP TABLE IF EXISTS outfall_writer;",
};

/// The guards as they are now, created again at every open (`guard`).
const GUARDS: &str = include_str!("gpkg_guards.sql");

/// The function only the service's connection has: the guards stand aside for it.
pub const WRITER_FUNCTION: &str = "outfall_service_writer";

/// An audit row as `history` and `outside_edits` select it.
fn audit_entry(r: &rusqlite::Row) -> rusqlite::Result<AuditEntry> {
    Ok(AuditEntry {
        at: r.get(0)?,
        who: r.get(1)?,
        action: r.get(2)?,
        site_id: r.get(3)?,
        field: r.get(4)?,
        old_value: rows::audit_value(r.get(5)?),
        new_value: rows::audit_value(r.get(6)?),
    })
}

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
        // Made before any migration, whose transaction is the service's like any other.
        conn.create_scalar_function(
            WRITER_FUNCTION,
            0,
            FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DIRECTONLY,
            |_| Ok(1),
        )
        .map_err(err)?;
        let g = GeoPackage {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        };
        migrate::run(&g, &SQL, words)?;
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
        Ok(with_geometry(self.query(&sql, [], site_with_blob)?))
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
            let Some(geometry) = geometry_of(blob) else {
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

    fn inspections(&self, which: &InspectionQuery) -> Result<Listing<Inspection>> {
        // SQLite reads a negative limit as none.
        let limit = which
            .limit
            .map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let offset = i64::try_from(which.offset).unwrap_or(i64::MAX);
        let rows = self.query(
            &rows::select_inspections('?'),
            rusqlite::params![which.site_id, limit, offset],
            |r| {
                Ok(InspectionRow {
                    fid: r.get(0)?,
                    site_id: r.get(1)?,
                    date: r.get(2)?,
                    inspector: r.get(3)?,
                    findings: r.get(4)?,
                    corrective_actions: r.get(5)?,
                    corrective_due: r.get(6)?,
                })
            },
        )?;
        Ok(rows::listing(rows.into_iter().map(InspectionRow::read)))
    }

    fn rainfall(&self) -> Result<Listing<RainfallDay>> {
        let rows = self.query(
            "SELECT fid, date, rain_in, source FROM rainfall ORDER BY date, source",
            [],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, f64>(2)?,
                    r.get::<_, String>(3)?,
                ))
            },
        )?;
        Ok(rows::listing(rows.into_iter().map(
            |(fid, date, rain_in, source)| rows::rain_of(fid, &date, rain_in, source),
        )))
    }

    fn history(&self, site_id: &str) -> Result<Vec<AuditEntry>> {
        self.query(
            "SELECT at, who, action, site_id, field, old_value, new_value FROM audit \
             WHERE site_id = ?1 ORDER BY fid",
            [site_id],
            audit_entry,
        )
    }

    fn outside_edits(&self, after: i64) -> Result<(i64, Vec<AuditEntry>)> {
        let last: i64 = self
            .lock()
            .query_row("SELECT coalesce(max(fid), 0) FROM audit", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if last <= after {
            return Ok((last, Vec::new()));
        }
        let sql = rows::select_outside_edits('?');
        Ok((last, self.query(&sql, [after, last], audit_entry)?))
    }

    fn token(&self, token_id: &str) -> Result<Option<TokenRecord>> {
        let sql = format!("{TOKEN_SELECT} WHERE token_id = ?1");
        let rows = self.query(&sql, [token_id], token_row)?;
        rows.into_iter().next().map(TokenRow::record).transpose()
    }

    fn tokens(&self) -> Result<Vec<TokenRecord>> {
        let sql = format!("{TOKEN_SELECT} ORDER BY created_at, token_id");
        let rows = self.query(&sql, [], token_row)?;
        rows.into_iter().map(TokenRow::record).collect()
    }

    fn guard_sql(&self) -> &str {
        GUARDS
    }

    fn guards(&self, names: &[String]) -> Result<Guards> {
        read_guards(&self.lock(), names).map_err(|e| self.err(e))
    }

    /// One IMMEDIATE transaction: the write lock is taken at the start, so two writers
    /// never both read a version and then both write it. The connection's `WRITER_FUNCTION`
    /// is the service's marker.
    fn transaction(&self, work: &mut dyn FnMut(&mut dyn Tx) -> Result<()>) -> Result<()> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        work(&mut Rows(&tx))?;
        tx.commit().map_err(|e| self.err(e))
    }
}
