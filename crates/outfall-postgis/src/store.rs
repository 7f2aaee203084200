//! The registry in PostgreSQL with PostGIS, for a town (or several) that outgrows one
//! machine: the same tables as the GeoPackage, geometry in `geometry(Geometry, 4326)`, edits
//! serialized by row locks (`SELECT ... FOR UPDATE`), and a change stamp bumped by triggers.
//! The client is synchronous; the server calls it off the async threads. What a write means
//! is the core's (`outfall_core::registry::Store`); this file only moves rows.

use crate::listen::Listener;
use crate::rows::{db_error, from_wkb, site_of, token_of, STYLE};
use crate::tx::PgTx;
use outfall_core::claims::Vocabulary;
use outfall_core::error::{Error, Result};
use outfall_core::record::{Inspection, InspectionQuery, Listing, RainfallDay};
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
};

pub struct PostGis {
    /// The URL without its password, for messages.
    label: String,
    /// The connection URL, password included: never shown.
    url: String,
    client: Mutex<Client>,
    /// Its own connection, which waits for other writers' commits.
    listener: Listener,
}

impl PostGis {
    /// Connects and brings the schema and rows up to date; `words` convert the rows written
    /// before the typed record.
    pub fn open(url: &str, words: &Vocabulary) -> Result<PostGis> {
        let label = redact(url);
        let client = Client::connect(url, NoTls).map_err(|e| Error::Registry {
            store: label.clone(),
            reason: format!("cannot connect: {e}"),
        })?;
        let pg = PostGis {
            listener: Listener::new(url, &label),
            label,
            url: url.to_string(),
            client: Mutex::new(client),
        };
        migrate::run(&pg, &SQL, words)?;
        Ok(pg)
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
        Ok(rows
            .iter()
            .map(|r| AuditEntry {
                at: r.get(0),
                who: r.get(1),
                action: r.get(2),
                site_id: r.get(3),
                field: r.get(4),
                old_value: rows::audit_value(r.get(5)),
                new_value: rows::audit_value(r.get(6)),
            })
            .collect())
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

    /// One transaction at READ COMMITTED: what a write reads it locks (`FOR UPDATE`), so
    /// two servers never both read a version and then both write it.
    fn transaction(&self, work: &mut dyn FnMut(&mut dyn Tx) -> Result<()>) -> Result<()> {
        let mut client = self.lock();
        let mut tx = client.transaction().map_err(|e| db_error(&self.label, e))?;
        // What the outside-edit triggers look for, for this transaction only: the service's
        // writes audit themselves and must not be audited twice.
        tx.batch_execute("SET LOCAL outfall.service = 'on'")
            .map_err(|e| db_error(&self.label, e))?;
        work(&mut PgTx::new(&mut tx, &self.label))?;
        tx.commit().map_err(|e| db_error(&self.label, e))
    }
}
