//! The registry in a GeoPackage: SQLite in WAL mode with `synchronous=FULL` (a write is on
//! disk when it is acknowledged), with the GeoPackage tables QGIS needs to open `sites` and
//! `disturbance` as layers (geometry as GeoPackage blobs, EPSG:4326). Another program's
//! commit shows in `PRAGMA data_version`, which the server polls.

use super::migrate::{self, RowWriter};
use super::{
    apply_change, creation_changes, now_utc, today, AuditEntry, DisturbanceRecord, FieldChange,
    Registry, SiteRecord, TokenRecord, SITE_COLUMNS,
};
use crate::claims::Vocabulary;
use crate::error::{Error, Result};
use crate::record::{Inspection, RainfallDay};
use geo::BoundingRect;
use geo_types::Geometry;
use geozero::{CoordDimensions, ToGeo, ToWkb};
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The schema, one migration per version; applied in order at start, each recorded in
/// `outfall_migrations`. Never edit a released migration: add the next one. Version 2 (the
/// typed record) also converts the rows (`migrate::convert_rows`).
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("gpkg_v1.sql")),
    (2, include_str!("v2_typed_record.sql")),
];

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
        g.migrate(words)?;
        Ok(g)
    }

    fn migrate(&self, words: &Vocabulary) -> Result<()> {
        self.write(|tx| {
            tx.execute_batch(
                "CREATE TABLE IF NOT EXISTS outfall_migrations \
                 (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
            )?;
            let done: i64 = tx.query_row(
                "SELECT coalesce(max(version), 0) FROM outfall_migrations",
                [],
                |r| r.get(0),
            )?;
            for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > done) {
                tx.execute_batch(sql)?;
                if *version == migrate::TYPED_RECORD_VERSION {
                    migrate::convert_rows(&mut Rows(tx), words)?;
                }
                tx.execute(
                    "INSERT INTO outfall_migrations (version, applied_at) VALUES (?1, ?2)",
                    params![version, now_utc()],
                )?;
            }
            Ok(())
        })
    }

    /// Runs `f` in one IMMEDIATE transaction (the write lock is taken at the start, so two
    /// writers never both read a version and then both write it).
    fn write<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| registry_error(&self.path, e))?;
        let out = f(&tx)?;
        tx.commit().map_err(|e| registry_error(&self.path, e))?;
        Ok(out)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a half-done transaction (it rolls back
        // on drop), so the connection is still good.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        registry_error(&self.path, e)
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
        .map_err(|e| Error::Registry {
            store: format!("GeoPackage table {table}"),
            reason: format!("feature {id}: unreadable geometry: {e}"),
        })
}

fn text_of(v: Option<&Value>) -> Option<String> {
    v.and_then(crate::load::value_text)
}

fn json_text(m: &Map<String, Value>) -> String {
    Value::Object(m.clone()).to_string()
}

fn parse_json(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// The `attributes` column: everything that has no column of its own.
fn extra_attributes(site: &SiteRecord) -> Map<String, Value> {
    site.properties
        .iter()
        .filter(|(k, _)| !SITE_COLUMNS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

const SITE_SELECT: &str = "SELECT site_id, name, status, approved_swppp, applicant, address, \
    parcel_ids, outfall, exemptions, attributes, version, retired, submitted_by, geom FROM sites";

fn site_row(r: &rusqlite::Row) -> rusqlite::Result<(SiteRecord, Option<Vec<u8>>)> {
    let mut properties = parse_json(&r.get::<_, Option<String>>(9)?.unwrap_or_default());
    for (i, col) in SITE_COLUMNS.iter().enumerate() {
        if let Some(v) = r.get::<_, Option<String>>(i + 1)? {
            properties.insert(col.to_string(), Value::String(v));
        }
    }
    Ok((
        SiteRecord {
            site_id: r.get(0)?,
            properties,
            boundary: None,
            version: r.get(10)?,
            retired: r.get(11)?,
            submitted_by: r.get(12)?,
        },
        r.get(13)?,
    ))
}

fn with_geometry(rows: Vec<(SiteRecord, Option<Vec<u8>>)>) -> Result<Vec<SiteRecord>> {
    rows.into_iter()
        .map(|(mut s, blob)| {
            s.boundary = match blob {
                Some(b) if !b.is_empty() => Some(from_blob("sites", &s.site_id, &b)?),
                _ => None,
            };
            Ok(s)
        })
        .collect()
}

fn site_in(tx: &Transaction, id: &str) -> Result<Option<SiteRecord>> {
    let row = tx
        .query_row(&format!("{SITE_SELECT} WHERE site_id = ?1"), [id], site_row)
        .optional()?;
    Ok(with_geometry(row.into_iter().collect())?.pop())
}

fn insert_site(tx: &Transaction, s: &SiteRecord) -> Result<()> {
    let p = &s.properties;
    let blob = s.boundary.as_ref().map(to_blob).transpose()?;
    tx.execute(
        "INSERT INTO sites (site_id, name, status, approved_swppp, applicant, address, parcel_ids, \
         outfall, exemptions, attributes, version, retired, submitted_by, geom) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        params![
            s.site_id,
            text_of(p.get("name")),
            text_of(p.get("status")),
            text_of(p.get("approved_swppp")),
            text_of(p.get("applicant")),
            text_of(p.get("address")),
            text_of(p.get("parcel_ids")),
            text_of(p.get("outfall")),
            text_of(p.get("exemptions")),
            json_text(&extra_attributes(s)),
            s.version,
            s.retired,
            s.submitted_by,
            blob
        ],
    )?;
    Ok(())
}

fn insert_disturbance(tx: &Transaction, d: &DisturbanceRecord) -> Result<()> {
    tx.execute(
        "INSERT INTO disturbance (site_id, dist_id, phase, start_date, end_date, attributes, geom) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            d.site_id,
            d.dist_id,
            d.phase,
            d.start,
            d.end,
            json_text(&d.properties),
            to_blob(&d.geometry)?
        ],
    )?;
    Ok(())
}

/// Writes a changed site row in place, one version up.
fn update_row(tx: &Transaction, s: &SiteRecord) -> Result<()> {
    let p = &s.properties;
    tx.execute(
        "UPDATE sites SET name=?2, status=?3, approved_swppp=?4, applicant=?5, address=?6, \
         parcel_ids=?7, outfall=?8, exemptions=?9, attributes=?10, version=?11, retired=?12 \
         WHERE site_id=?1",
        params![
            s.site_id,
            text_of(p.get("name")),
            text_of(p.get("status")),
            text_of(p.get("approved_swppp")),
            text_of(p.get("applicant")),
            text_of(p.get("address")),
            text_of(p.get("parcel_ids")),
            text_of(p.get("outfall")),
            text_of(p.get("exemptions")),
            json_text(&extra_attributes(s)),
            s.version,
            s.retired,
        ],
    )?;
    Ok(())
}

fn audit(
    tx: &Transaction,
    who: &str,
    action: &str,
    site: Option<&str>,
    changes: &[FieldChange],
) -> Result<()> {
    let at = now_utc();
    let mut stmt = tx.prepare_cached(
        "INSERT INTO audit (at, who, action, site_id, field, old_value, new_value) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    if changes.is_empty() {
        stmt.execute(params![
            at,
            who,
            action,
            site,
            None::<String>,
            None::<String>,
            None::<String>
        ])?;
    }
    for (field, old, new) in changes {
        stmt.execute(params![
            at,
            who,
            action,
            site,
            field,
            old.to_string(),
            new.to_string()
        ])?;
    }
    Ok(())
}

/// The current row of `id` if it is still at `if_version`.
fn current(tx: &Transaction, id: &str, if_version: i64) -> Result<SiteRecord> {
    let site = site_in(tx, id)?.ok_or_else(|| Error::NotFound {
        kind: "site",
        id: id.to_string(),
    })?;
    if site.version != if_version {
        return Err(Error::Conflict {
            kind: "site",
            id: id.to_string(),
            current: site.version,
        });
    }
    Ok(site)
}

/// The migration's transaction, for the shared conversion step.
struct Rows<'a, 'c>(&'a Transaction<'c>);

impl RowWriter for Rows<'_, '_> {
    fn site_rows(&mut self) -> Result<Vec<SiteRecord>> {
        let mut stmt = self.0.prepare(SITE_SELECT)?;
        let rows = stmt
            .query_map([], site_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        // The conversion never touches the geometry, so it is not decoded.
        Ok(rows.into_iter().map(|(s, _)| s).collect())
    }

    fn rewrite(&mut self, site: &SiteRecord) -> Result<()> {
        update_row(self.0, site)
    }

    fn note(&mut self, site_id: &str, action: &str, change: &FieldChange) -> Result<()> {
        audit(
            self.0,
            migrate::WHO,
            action,
            Some(site_id),
            std::slice::from_ref(change),
        )
    }
}

/// Inserts a site from the file layers, converted to the typed record, with its audit rows.
fn seed_site(tx: &Transaction, s: &SiteRecord, words: &Vocabulary) -> Result<()> {
    let (typed, notes) = migrate::upgrade_site(s, words);
    insert_site(tx, &typed)?;
    let from = Value::String("the file layers".into());
    audit(
        tx,
        "outfall",
        "seed",
        Some(&s.site_id),
        &[("source".into(), Value::Null, from)],
    )?;
    for (action, change) in &notes {
        Rows(tx).note(&s.site_id, action, change)?;
    }
    Ok(())
}

impl Registry for GeoPackage {
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

    fn seed(
        &self,
        sites: &[SiteRecord],
        disturbance: &[DisturbanceRecord],
        words: &Vocabulary,
    ) -> Result<()> {
        self.write(|tx| {
            for s in sites {
                seed_site(tx, s, words)?;
            }
            for d in disturbance {
                insert_disturbance(tx, d)?;
            }
            tx.execute(
                "INSERT INTO outfall_meta (key, value) VALUES ('seeded', ?1)",
                [now_utc()],
            )?;
            audit(
                tx,
                "outfall",
                "seed",
                None,
                &[(
                    "sites".into(),
                    Value::Null,
                    Value::String(format!("{} sites from the file layers", sites.len())),
                )],
            )
        })
    }

    fn sites(&self) -> Result<Vec<SiteRecord>> {
        let rows = {
            let conn = self.lock();
            let mut stmt = conn
                .prepare_cached(&format!("{SITE_SELECT} ORDER BY fid"))
                .map_err(|e| self.err(e))?;
            let rows = stmt
                .query_map([], site_row)
                .and_then(|r| r.collect::<rusqlite::Result<Vec<_>>>())
                .map_err(|e| self.err(e))?;
            rows
        };
        with_geometry(rows)
    }

    fn disturbance(&self) -> Result<Vec<DisturbanceRecord>> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(
                "SELECT site_id, dist_id, phase, start_date, end_date, attributes, geom \
                 FROM disturbance ORDER BY fid",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, Option<Vec<u8>>>(6)?,
                ))
            })
            .and_then(|r| r.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .filter_map(|(site_id, dist_id, phase, start, end, attrs, blob)| {
                // A polygon whose geometry was cleared (in QGIS) has nothing to measure.
                let blob = blob.filter(|b| !b.is_empty())?;
                Some(
                    from_blob("disturbance", &dist_id, &blob).map(|geometry| DisturbanceRecord {
                        site_id,
                        dist_id,
                        phase,
                        start,
                        end,
                        properties: parse_json(&attrs.unwrap_or_default()),
                        geometry,
                    }),
                )
            })
            .collect()
    }

    fn create_site(
        &self,
        site: &SiteRecord,
        disturbance: &[DisturbanceRecord],
        who: &str,
    ) -> Result<SiteRecord> {
        self.write(|tx| {
            if site_in(tx, &site.site_id)?.is_some() {
                return Err(Error::Exists {
                    kind: "site",
                    id: site.site_id.clone(),
                });
            }
            insert_site(tx, site)?;
            for d in disturbance {
                insert_disturbance(tx, d)?;
            }
            audit(
                tx,
                who,
                "create",
                Some(&site.site_id),
                &creation_changes(site, disturbance.len()),
            )?;
            Ok(site.clone())
        })
    }

    fn update_site(
        &self,
        id: &str,
        if_version: i64,
        change: &Map<String, Value>,
        words: &Vocabulary,
        who: &str,
    ) -> Result<SiteRecord> {
        self.write(|tx| {
            let site = current(tx, id, if_version)?;
            let (mut next, changes) = apply_change(&site, change, words)?;
            if changes.is_empty() {
                return Ok(site);
            }
            next.version += 1;
            update_row(tx, &next)?;
            audit(tx, who, "update", Some(id), &changes)?;
            Ok(next)
        })
    }

    fn retire_site(&self, id: &str, if_version: i64, who: &str) -> Result<SiteRecord> {
        self.write(|tx| {
            let site = current(tx, id, if_version)?;
            let mut next = site.clone();
            next.retired = Some(today());
            next.version += 1;
            update_row(tx, &next)?;
            let change = (
                "retired".to_string(),
                site.retired.map(Value::String).unwrap_or(Value::Null),
                Value::String(today()),
            );
            audit(tx, who, "retire", Some(id), &[change])?;
            Ok(next)
        })
    }

    fn add_inspection(&self, i: &Inspection, who: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
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
                    now_utc()
                ],
            )?;
            let value = serde_json::to_value(i).unwrap_or(Value::Null);
            audit(
                tx,
                who,
                "inspect",
                Some(&i.site_id),
                &[("inspection".into(), Value::Null, value)],
            )
        })
    }

    fn inspections(&self) -> Result<Vec<Inspection>> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(
                "SELECT site_id, date, inspector, findings, corrective_actions, corrective_due \
                 FROM inspections ORDER BY date, fid",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                ))
            })
            .and_then(|r| r.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
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

    fn add_rainfall(&self, day: &RainfallDay, who: &str) -> Result<()> {
        self.write(|tx| {
            let old: Option<f64> = tx
                .query_row(
                    "SELECT rain_in FROM rainfall WHERE date = ?1 AND source = ?2",
                    params![day.date.to_string(), day.source],
                    |r| r.get(0),
                )
                .optional()?;
            tx.execute(
                "INSERT INTO rainfall (date, rain_in, source, recorded_by, recorded_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (date, source) DO UPDATE \
                 SET rain_in = excluded.rain_in, recorded_by = excluded.recorded_by, \
                 recorded_at = excluded.recorded_at",
                params![
                    day.date.to_string(),
                    day.rain_in,
                    day.source,
                    who,
                    now_utc()
                ],
            )?;
            let field = format!("rainfall {} ({})", day.date, day.source);
            let old = old.map(Value::from).unwrap_or(Value::Null);
            audit(
                tx,
                who,
                "rainfall",
                None,
                &[(field, old, Value::from(day.rain_in))],
            )
        })
    }

    fn rainfall(&self) -> Result<Vec<RainfallDay>> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached("SELECT date, rain_in, source FROM rainfall ORDER BY date, source")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, f64>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .and_then(|r| r.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
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
        let conn = self.lock();
        let mut stmt = conn
            .prepare_cached(
                "SELECT at, who, action, site_id, field, old_value, new_value FROM audit \
                 WHERE site_id = ?1 ORDER BY fid",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([site_id], |r| {
                let json = |i: usize| -> rusqlite::Result<Option<Value>> {
                    Ok(r.get::<_, Option<String>>(i)?
                        .map(|t| serde_json::from_str(&t).unwrap_or(Value::String(t))))
                };
                Ok(AuditEntry {
                    at: r.get(0)?,
                    who: r.get(1)?,
                    action: r.get(2)?,
                    site_id: r.get(3)?,
                    field: r.get(4)?,
                    old_value: json(5)?,
                    new_value: json(6)?,
                })
            })
            .and_then(|r| r.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    fn add_token(&self, t: &TokenRecord) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO tokens (token_id, name, role, hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![t.token_id, t.name, t.role.as_str(), t.hash, t.created_at],
            )?;
            audit(
                tx,
                "outfall token create",
                "token",
                None,
                &[("token".into(), Value::Null, Value::String(format!("{} ({})", t.name, t.role.as_str())))],
            )
        })
    }

    fn token(&self, token_id: &str) -> Result<Option<TokenRecord>> {
        let conn = self.lock();
        let row = conn
            .query_row(
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
            )
            .optional()
            .map_err(|e| self.err(e))?;
        row.map(|(token_id, name, role, hash, created_at)| {
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
}

pub fn parse_date(table: &str, id: &str, text: &str) -> Result<chrono::NaiveDate> {
    crate::area::parse_date(text).ok_or_else(|| Error::Registry {
        store: format!("table {table}"),
        reason: format!("{id}: '{text}' is not a date (YYYY-MM-DD)"),
    })
}
