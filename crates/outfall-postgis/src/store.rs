//! The registry in PostgreSQL with PostGIS, for a town (or several) that outgrows one
//! machine: the same tables as the GeoPackage, geometry in `geometry(Geometry, 4326)`, edits
//! serialized by row locks (`SELECT ... FOR UPDATE`), and a change stamp bumped by triggers.
//! The client is synchronous; the server calls it off the async threads. What a write means
//! is the core's (`outfall_core::registry::Store`); this file only moves rows.
//!
//! The service's marker, for which the guards' triggers stand aside (`postgis_guards.sql`):
//! each server draws a random writer key at start and registers only its SHA-256 in
//! `outfall_writers`; each of its transactions sets the key itself (`outfall.writer`, local
//! to the transaction, sent as a bind parameter, so `pg_stat_activity` shows `$1`, not the
//! key). Another session can set `outfall.writer` to anything but a key whose hash is listed,
//! which it cannot find from the hashes; listing one of its own is audited.

use crate::listen::Listener;
use crate::rows::{db_error, from_wkb, site_of, token_of, STYLE};
use crate::tx::{read_guards, PgTx};
use outfall_core::claims::Vocabulary;
use outfall_core::error::{Error, Result};
use outfall_core::record::{Inspection, InspectionQuery, Listing, RainfallDay};
use outfall_core::registry::guard::Guards;
use outfall_core::registry::rows::{self, InspectionRow, TOKEN_SELECT};
use outfall_core::registry::store::{Store, Tx};
use outfall_core::registry::{migrate, AuditEntry, DisturbanceRecord, SiteRecord, TokenRecord};
use postgres::{Client, NoTls, Row};
use std::sync::{Mutex, MutexGuard};

/// The URL with any password replaced, so it can be shown and logged.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            let user = creds.split(':').next().unwrap_or("");
            format!("{}{user}:***{}", &url[..s + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

/// The PostGIS store's own migrations (the shared ones are `migrate`'s).
const SQL: migrate::StoreSql = migrate::StoreSql {
    first: include_str!("postgis_v1.sql"),
    outside_edits: include_str!("postgis_v4_outside_edits.sql"),
    notify: include_str!("postgis_v5_notify.sql"),
    writer: include_str!("postgis_v6_writer.sql"),
};

/// The guards as they are now, `@schema@` standing for the registry's schema (`guard`).
const GUARDS: &str = include_str!("postgis_guards.sql");

/// An audit row as `history` and `outside_edits` select it.
fn audit_entry(r: &Row) -> AuditEntry {
    AuditEntry {
        at: r.get(0),
        who: r.get(1),
        action: r.get(2),
        site_id: r.get(3),
        field: r.get(4),
        old_value: rows::audit_value(r.get(5)),
        new_value: rows::audit_value(r.get(6)),
    }
}

/// A new random writer key (64 hex digits).
fn writer_key(label: &str) -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Error::Registry {
        store: label.to_string(),
        reason: format!("no randomness for the writer key: {e}"),
    })?;
    Ok(hex::encode(bytes))
}

pub struct PostGis {
    /// The URL without its password, for messages.
    label: String,
    /// The connection URL, password included: never shown.
    url: String,
    client: Mutex<Client>,
    /// Its own connection, which waits for other writers' commits.
    listener: Listener,
    /// This server's writer key: never stored, shown or logged (only its hash is stored).
    writer_key: String,
    /// `GUARDS` for the registry's schema.
    guard_sql: String,
}

impl PostGis {
    /// Connects and brings the schema and rows up to date; `words` convert the rows written
    /// before the typed record.
    pub fn open(url: &str, words: &Vocabulary) -> Result<PostGis> {
        let label = redact(url);
        let mut client = Client::connect(url, NoTls).map_err(|e| Error::Registry {
            store: label.clone(),
            reason: format!("cannot connect: {e}"),
        })?;
        let schema: Option<String> = client
            .query_one("SELECT quote_ident(current_schema())", &[])
            .map_err(|e| db_error(&label, e))?
            .get(0);
        let schema = schema.ok_or_else(|| Error::Registry {
            store: label.clone(),
            reason: "no schema to keep the registry in: the search_path names none that exists"
                .into(),
        })?;
        let pg = PostGis {
            listener: Listener::new(url, &label),
            writer_key: writer_key(&label)?,
            guard_sql: GUARDS.replace("@schema@", &schema),
            label,
            url: url.to_string(),
            client: Mutex::new(client),
        };
        migrate::run(&pg, &SQL, words)?;
        pg.register_writer()?;
        Ok(pg)
    }

    /// Lists this server's writer key by its hash (hashed by PostgreSQL, as the guards hash
    /// what a transaction sets), so the guards stand aside for its transactions.
    fn register_writer(&self) -> Result<()> {
        let row = self
            .lock()
            .query_one(
                "INSERT INTO outfall_writers (hash, registered_at) \
                 VALUES (encode(sha256(convert_to($1, 'UTF8')), 'hex'), $2) RETURNING left(hash, 12)",
                &[&self.writer_key, &outfall_core::registry::now_utc()],
            )
            .map_err(|e| db_error(&self.label, e))?;
        let short: String = row.get(0);
        tracing::info!(registry = %self.label, key = %short, "registered this server's writer key");
        Ok(())
    }

    /// The connection, made again when the old one closed (the database restarted, or an
    /// administrator ended it): the failed request answered an error, the next one works.
    /// If the database still cannot be reached, the closed client stays and the next
    /// request fails with a clear error, and tries again.
    fn lock(&self) -> MutexGuard<'_, Client> {
        // A panic while holding the lock leaves no open transaction (it rolls back on
        // drop), so the client is still good.
        let mut client = self.client.lock().unwrap_or_else(|p| p.into_inner());
        if client.is_closed() {
            match Client::connect(&self.url, NoTls) {
                Ok(fresh) => {
                    tracing::info!(registry = %self.label, "reconnected to the registry");
                    *client = fresh;
                }
                Err(e) => tracing::warn!(registry = %self.label, error = %e, "cannot reconnect"),
            }
        }
        client
    }

    /// The rows of one read; errors name the database.
    fn query(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<Row>> {
        self.lock()
            .query(sql, params)
            .map_err(|e| db_error(&self.label, e))
    }
}

impl Store for PostGis {
    fn describe(&self) -> String {
        self.label.clone()
    }

    fn change_stamp(&self) -> Result<i64> {
        let row = self
            .lock()
            .query_one("SELECT n FROM outfall_stamp WHERE id = 1", &[]);
        Ok(row.map_err(|e| db_error(&self.label, e))?.get(0))
    }

    fn wait_for_change(&self, max: std::time::Duration) -> Result<bool> {
        self.listener.wait(max)
    }

    fn is_seeded(&self) -> Result<bool> {
        let row = self
            .lock()
            .query_opt("SELECT 1 FROM outfall_meta WHERE key = 'seeded'", &[]);
        Ok(row.map_err(|e| db_error(&self.label, e))?.is_some())
    }

    fn sites(&self) -> Result<Vec<SiteRecord>> {
        let sql = format!("{} ORDER BY fid", STYLE.select_sites(true));
        self.query(&sql, &[])?
            .iter()
            .map(|r| site_of(r, true))
            .collect()
    }

    fn disturbance(&self) -> Result<Vec<DisturbanceRecord>> {
        let rows = self.query(
            "SELECT site_id, dist_id, phase, start_date, end_date, attributes, ST_AsBinary(geom) \
             FROM disturbance WHERE geom IS NOT NULL ORDER BY fid",
            &[],
        )?;
        // A polygon whose geometry was cleared has nothing to measure.
        Ok(rows
            .iter()
            .filter_map(|r| {
                Some(DisturbanceRecord {
                    geometry: from_wkb(r.get(6))?,
                    site_id: r.get(0),
                    dist_id: r.get(1),
                    phase: r.get(2),
                    start: r.get(3),
                    end: r.get(4),
                    properties: rows::parse_json(&r.get::<_, String>(5)),
                })
            })
            .collect())
    }

    fn inspections(&self, which: &InspectionQuery) -> Result<Listing<Inspection>> {
        // PostgreSQL reads a NULL limit as none.
        let limit = which.limit.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        let offset = i64::try_from(which.offset).unwrap_or(i64::MAX);
        let sql = rows::select_inspections('$').replacen("$1 IS NULL", "$1::text IS NULL", 1);
        let found = self.query(&sql, &[&which.site_id, &limit, &offset])?;
        Ok(rows::listing(found.iter().map(|r| {
            InspectionRow {
                fid: r.get(0),
                site_id: r.get(1),
                date: r.get(2),
                inspector: r.get(3),
                findings: r.get(4),
                corrective_actions: r.get(5),
                corrective_due: r.get(6),
            }
            .read()
        })))
    }

    fn rainfall(&self) -> Result<Listing<RainfallDay>> {
        let found = self.query(
            "SELECT fid, date, rain_in, source FROM rainfall ORDER BY date, source",
            &[],
        )?;
        Ok(rows::listing(found.iter().map(|r| {
            rows::rain_of(r.get(0), &r.get::<_, String>(1), r.get(2), r.get(3))
        })))
    }

    fn history(&self, site_id: &str) -> Result<Vec<AuditEntry>> {
        let rows = self.query(
            "SELECT at, who, action, site_id, field, old_value, new_value FROM audit \
             WHERE site_id = $1 ORDER BY fid",
            &[&site_id],
        )?;
        Ok(rows.iter().map(audit_entry).collect())
    }

    fn outside_edits(&self, after: i64) -> Result<(i64, Vec<AuditEntry>)> {
        let last: i64 = self
            .query("SELECT coalesce(max(fid), 0)::BIGINT FROM audit", &[])?
            .first()
            .map_or(0, |r| r.get(0));
        if last <= after {
            return Ok((last, Vec::new()));
        }
        let rows = self.query(&rows::select_outside_edits('$'), &[&after, &last])?;
        Ok((last, rows.iter().map(audit_entry).collect()))
    }

    fn token(&self, token_id: &str) -> Result<Option<TokenRecord>> {
        let sql = format!("{TOKEN_SELECT} WHERE token_id = $1");
        let rows = self.query(&sql, &[&token_id])?;
        rows.first().map(token_of).transpose()
    }

    fn tokens(&self) -> Result<Vec<TokenRecord>> {
        let sql = format!("{TOKEN_SELECT} ORDER BY created_at, token_id");
        self.query(&sql, &[])?.iter().map(token_of).collect()
    }

    fn guard_sql(&self) -> &str {
        &self.guard_sql
    }

    fn guards(&self, names: &[String]) -> Result<Guards> {
        read_guards(&mut *self.lock(), names).map_err(|e| db_error(&self.label, e))
    }

    /// One transaction at READ COMMITTED: what a write reads it locks (`FOR UPDATE`), so
    /// two servers never both read a version and then both write it.
    fn transaction(&self, work: &mut dyn FnMut(&mut dyn Tx) -> Result<()>) -> Result<()> {
        let mut client = self.lock();
        let mut tx = client.transaction().map_err(|e| db_error(&self.label, e))?;
        // The service's marker, for this transaction only: its writes audit themselves and
        // must not be audited twice.
        tx.execute(
            "SELECT set_config('outfall.writer', $1, true)",
            &[&self.writer_key],
        )
        .map_err(|e| db_error(&self.label, e))?;
        work(&mut PgTx::new(&mut tx, &self.label))?;
        tx.commit().map_err(|e| db_error(&self.label, e))
    }
}
