//! The PostGIS store's write transaction: the core's primitives (`Tx`) as SQL. Its errors
//! name the database as the store's reads do.

use crate::rows::{db_error, site_of, to_wkb, token_of, STYLE};
use outfall_core::error::{Error, Result};
use outfall_core::record::{Inspection, RainfallDay};
use outfall_core::registry::rows::{SiteRow, TOKEN_SELECT};
use outfall_core::registry::store::{AuditRow, Guards, Tx};
use outfall_core::registry::{stored_geometry, DisturbanceRecord, SiteRecord, TokenRecord};
use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{GenericClient, Transaction};

type Param<'a> = &'a (dyn ToSql + Sync);

/// The definitions of the guard triggers and functions named `names`: each trigger as
/// PostgreSQL prints it with whether it is enabled, each function (every overload) whole.
pub(crate) fn read_guards(
    client: &mut impl GenericClient,
    names: &[String],
) -> std::result::Result<Guards, postgres::Error> {
    let rows = client.query(
        "SELECT t.tgname::text, pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text \
         FROM pg_trigger t WHERE NOT t.tgisinternal AND t.tgname = ANY($1) \
         UNION ALL SELECT p.oid::regprocedure::text, pg_get_functiondef(p.oid) \
         FROM pg_proc p WHERE p.proname = ANY($1)",
        &[&names],
    )?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

pub(crate) struct PgTx<'a, 'c> {
    tx: &'a mut Transaction<'c>,
    label: &'a str,
}

impl<'a, 'c> PgTx<'a, 'c> {
    pub(crate) fn new(tx: &'a mut Transaction<'c>, label: &'a str) -> Self {
        PgTx { tx, label }
    }

    fn execute(&mut self, sql: &str, params: &[Param]) -> Result<()> {
        self.tx
            .execute(sql, params)
            .map(drop)
            .map_err(|e| db_error(self.label, e))
    }

    fn query(&mut self, sql: &str, params: &[Param]) -> Result<Vec<postgres::Row>> {
        self.tx
            .query(sql, params)
            .map_err(|e| db_error(self.label, e))
    }

    /// The site row's values, as `STYLE`'s statements take them: `tail` adds the submitter.
    fn values(row: &SiteRow, tail: bool) -> Vec<Param<'_>> {
        let mut values: Vec<Param> = vec![&row.site_id];
        values.extend(row.columns.iter().map(|c| c as Param));
        values.extend([&row.attributes as Param, &row.version, &row.retired]);
        if tail {
            values.push(&row.submitted_by);
        }
        values
    }
}

impl Tx for PgTx<'_, '_> {
    fn site_for_update(&mut self, id: &str) -> Result<Option<SiteRecord>> {
        let sql = format!("{} WHERE site_id = $1 FOR UPDATE", STYLE.select_sites(true));
        let rows = self.query(&sql, &[&id])?;
        rows.first().map(|r| site_of(r, true)).transpose()
    }

    fn site_rows(&mut self) -> Result<Vec<SiteRecord>> {
        let sql = format!("{} ORDER BY fid FOR UPDATE", STYLE.select_sites(false));
        let rows = self.query(&sql, &[])?;
        rows.iter().map(|r| site_of(r, false)).collect()
    }

    fn insert_site(&mut self, site: &SiteRecord) -> Result<()> {
        let row = SiteRow::of(site);
        let wkb = site
            .boundary
            .as_ref()
            .map(|g| to_wkb(stored_geometry("site", &site.site_id, g)?))
            .transpose()?;
        let mut values = PgTx::values(&row, true);
        values.push(&wkb);
        match self.tx.execute(&STYLE.insert_site(), &values) {
            // The unique index decides a race between two servers creating the same id.
            Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => Err(Error::Exists {
                kind: "site",
                id: site.site_id.clone(),
            }),
            Err(e) => Err(db_error(self.label, e)),
            Ok(_) => Ok(()),
        }
    }

    fn write_site(&mut self, site: &SiteRecord) -> Result<()> {
        let row = SiteRow::of(site);
        let values = PgTx::values(&row, false);
        self.execute(&STYLE.update_site(), &values)
    }

    fn insert_disturbance(&mut self, d: &DisturbanceRecord) -> Result<()> {
        let attributes = serde_json::Value::Object(d.properties.clone()).to_string();
        self.execute(
            "INSERT INTO disturbance (site_id, dist_id, phase, start_date, end_date, attributes, geom) \
             VALUES ($1, $2, $3, $4, $5, $6, ST_GeomFromWKB($7, 4326))",
            &[
                &d.site_id,
                &d.dist_id,
                &d.phase,
                &d.start,
                &d.end,
                &attributes,
                &to_wkb(stored_geometry("disturbance", &d.dist_id, &d.geometry)?)?,
            ],
        )
    }

    fn insert_inspection(&mut self, i: &Inspection, who: &str, at: &str) -> Result<()> {
        self.execute(
            "INSERT INTO inspections (site_id, date, inspector, findings, corrective_actions, \
             corrective_due, recorded_by, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &i.site_id,
                &i.date.to_string(),
                &i.inspector,
                &i.findings,
                &i.corrective_actions,
                &i.corrective_due.map(|d| d.to_string()),
                &who,
                &at,
            ],
        )
    }

    fn rain_for_update(&mut self, day: &RainfallDay) -> Result<Option<f64>> {
        let rows = self.query(
            "SELECT rain_in FROM rainfall WHERE date = $1 AND source = $2 FOR UPDATE",
            &[&day.date.to_string(), &day.source],
        )?;
        Ok(rows.first().map(|r| r.get(0)))
    }

    fn put_rainfall(&mut self, day: &RainfallDay, who: &str, at: &str) -> Result<()> {
        self.execute(
            "INSERT INTO rainfall (date, rain_in, source, recorded_by, recorded_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (date, source) DO UPDATE \
             SET rain_in = excluded.rain_in, recorded_by = excluded.recorded_by, \
             recorded_at = excluded.recorded_at",
            &[&day.date.to_string(), &day.rain_in, &day.source, &who, &at],
        )
    }

    fn insert_token(&mut self, t: &TokenRecord) -> Result<()> {
        let role = t.role.as_str();
        self.execute(
            &STYLE.insert_token(),
            &[
                &t.token_id,
                &t.name,
                &role,
                &t.hash,
                &t.created_at,
                &t.expires_at,
                &t.revoked,
            ],
        )
    }

    fn token_rows(&mut self) -> Result<Vec<TokenRecord>> {
        let sql = format!("{TOKEN_SELECT} ORDER BY created_at, token_id FOR UPDATE");
        // Locking every row does not stop a new one: the table lock does, so two servers
        // cannot both find a name free and both take it (the unique index would refuse
        // the second with a less helpful message).
        self.execute("LOCK TABLE tokens IN SHARE ROW EXCLUSIVE MODE", &[])?;
        self.query(&sql, &[])?.iter().map(token_of).collect()
    }

    fn write_token(&mut self, t: &TokenRecord) -> Result<()> {
        self.execute(
            &STYLE.update_token(),
            &[&t.hash, &t.expires_at, &t.revoked, &t.token_id],
        )
    }

    fn insert_meta(&mut self, key: &str, value: &str) -> Result<()> {
        self.execute(
            "INSERT INTO outfall_meta (key, value) VALUES ($1, $2)",
            &[&key, &value],
        )
    }

    fn audit(&mut self, a: &AuditRow) -> Result<()> {
        self.execute(
            "INSERT INTO audit (at, who, action, site_id, field, old_value, new_value) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                &a.at,
                &a.who,
                &a.action,
                &a.site_id,
                &a.field,
                &a.old_value,
                &a.new_value,
            ],
        )
    }

    fn schema_version(&mut self) -> Result<i64> {
        // Two servers starting together must not both apply a migration.
        self.tx
            .batch_execute(
                "SELECT pg_advisory_xact_lock(7411); \
                 CREATE TABLE IF NOT EXISTS outfall_migrations \
                 (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL)",
            )
            .map_err(|e| db_error(self.label, e))?;
        let rows = self.query(
            "SELECT coalesce(max(version), 0)::BIGINT FROM outfall_migrations",
            &[],
        )?;
        Ok(rows.first().map_or(0, |r| r.get(0)))
    }

    fn run_sql(&mut self, sql: &str) -> Result<()> {
        self.tx
            .batch_execute(sql)
            .map_err(|e| db_error(self.label, e))
    }

    fn guards(&mut self, names: &[String]) -> Result<Guards> {
        read_guards(&mut *self.tx, names).map_err(|e| db_error(self.label, e))
    }

    fn record_version(&mut self, version: i64, at: &str) -> Result<()> {
        self.execute(
            "INSERT INTO outfall_migrations (version, applied_at) VALUES ($1, $2)",
            &[&version, &at],
        )
    }
}
