//! The registry in PostgreSQL with PostGIS, for a town (or several) that outgrows one
//! machine: the same tables as the GeoPackage, geometry in `geometry(Geometry, 4326)`, edits
//! serialized by row locks (`SELECT ... FOR UPDATE`), and a change stamp bumped by triggers.
//! The client is synchronous; the server calls it off the async threads.

use geo_types::Geometry;
use geozero::{CoordDimensions, ToGeo, ToWkb};
use outfall_core::claims::Vocabulary;
use outfall_core::error::{Error, Result};
use outfall_core::record::{Inspection, RainfallDay};
use outfall_core::registry::migrate::{self, RowWriter};
use outfall_core::registry::{
    apply_change, creation_changes, now_utc, parse_date, today, AuditEntry, DisturbanceRecord,
    FieldChange, Registry, SiteRecord, TokenRecord, SITE_COLUMNS, V2_TYPED_RECORD_SQL,
};
use postgres::{Client, NoTls, Transaction};
use serde_json::{Map, Value};
use std::sync::Mutex;

/// The schema, one migration per version, as in the GeoPackage; version 2 (the typed
/// record) also converts the rows (`migrate::convert_rows`).
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("postgis_v1.sql")),
    (2, V2_TYPED_RECORD_SQL),
];

pub struct PostGis {
    /// The URL without its password, for messages.
    label: String,
    client: Mutex<Client>,
}

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
            label,
            client: Mutex::new(client),
        };
        pg.migrate(words)?;
        Ok(pg)
    }

    fn err(&self, e: postgres::Error) -> Error {
        Error::Registry {
            store: self.label.clone(),
            reason: e
                .as_db_error()
                .map_or_else(|| e.to_string(), |d| d.message().to_string()),
        }
    }

    fn migrate(&self, words: &Vocabulary) -> Result<()> {
        self.write(|tx| {
            // Two servers starting together must not both apply a migration.
            tx.batch_execute(
                "SELECT pg_advisory_xact_lock(7411); \
                 CREATE TABLE IF NOT EXISTS outfall_migrations \
                 (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL)",
            )?;
            let done: i64 = tx
                .query_one(
                    "SELECT coalesce(max(version), 0)::BIGINT FROM outfall_migrations",
                    &[],
                )?
                .get(0);
            for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > done) {
                tx.batch_execute(sql)?;
                if *version == migrate::TYPED_RECORD_VERSION {
                    migrate::convert_rows(&mut Rows(tx), words)?;
                }
                tx.execute(
                    "INSERT INTO outfall_migrations (version, applied_at) VALUES ($1, $2)",
                    &[version, &now_utc()],
                )?;
            }
            Ok(())
        })
    }

    fn write<T>(
        &self,
        f: impl FnOnce(&mut Transaction) -> std::result::Result<T, Fail>,
    ) -> Result<T> {
        let mut client = self.client.lock().unwrap_or_else(|p| p.into_inner());
        let mut tx = client.transaction().map_err(|e| self.err(e))?;
        let out = match f(&mut tx) {
            Ok(v) => v,
            Err(Fail::Db(e)) => return Err(self.err(e)),
            Err(Fail::Core(e)) => return Err(e),
        };
        tx.commit().map_err(|e| self.err(e))?;
        Ok(out)
    }

    fn read<T>(&self, f: impl FnOnce(&mut Client) -> std::result::Result<T, Fail>) -> Result<T> {
        let mut client = self.client.lock().unwrap_or_else(|p| p.into_inner());
        match f(&mut client) {
            Ok(v) => Ok(v),
            Err(Fail::Db(e)) => Err(self.err(e)),
            Err(Fail::Core(e)) => Err(e),
        }
    }
}

/// A failure inside a transaction: the database's, or one of ours (a conflict).
enum Fail {
    Db(postgres::Error),
    Core(Error),
}

impl From<postgres::Error> for Fail {
    fn from(e: postgres::Error) -> Self {
        Fail::Db(e)
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Core(e)
    }
}

fn to_wkb(g: &Geometry<f64>) -> std::result::Result<Vec<u8>, Fail> {
    g.to_wkb(CoordDimensions::xy())
        .map_err(|e| Fail::Core(Error::Input(format!("cannot encode a geometry: {e}"))))
}

fn from_wkb(table: &str, id: &str, wkb: &[u8]) -> std::result::Result<Geometry<f64>, Fail> {
    geozero::wkb::Wkb(wkb.to_vec()).to_geo().map_err(|e| {
        Fail::Core(Error::Registry {
            store: format!("PostGIS table {table}"),
            reason: format!("feature {id}: unreadable geometry: {e}"),
        })
    })
}

fn text_of(v: Option<&Value>) -> Option<String> {
    v.and_then(outfall_core::load::value_text)
}

fn parse_json(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

fn extra(site: &SiteRecord) -> String {
    let m: Map<String, Value> = site
        .properties
        .iter()
        .filter(|(k, _)| !SITE_COLUMNS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Value::Object(m).to_string()
}

const SITE_SELECT: &str = "SELECT site_id, name, status, approved_swppp, applicant, address, \
    parcel_ids, outfall, exemptions, attributes, version, retired, submitted_by, \
    ST_AsBinary(geom) FROM sites";

fn site_of(r: &postgres::Row) -> std::result::Result<SiteRecord, Fail> {
    let mut properties = parse_json(&r.get::<_, String>(9));
    for (i, col) in SITE_COLUMNS.iter().enumerate() {
        if let Some(v) = r.get::<_, Option<String>>(i + 1) {
            properties.insert(col.to_string(), Value::String(v));
        }
    }
    let site_id: String = r.get(0);
    let boundary = match r.get::<_, Option<Vec<u8>>>(13) {
        Some(b) if !b.is_empty() => Some(from_wkb("sites", &site_id, &b)?),
        _ => None,
    };
    Ok(SiteRecord {
        site_id,
        properties,
        boundary,
        version: r.get(10),
        retired: r.get(11),
        submitted_by: r.get(12),
    })
}

fn insert_site(tx: &mut Transaction, s: &SiteRecord) -> std::result::Result<(), Fail> {
    let p = &s.properties;
    let wkb = s.boundary.as_ref().map(to_wkb).transpose()?;
    tx.execute(
        "INSERT INTO sites (site_id, name, status, approved_swppp, applicant, address, parcel_ids, \
         outfall, exemptions, attributes, version, retired, submitted_by, geom) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, ST_GeomFromWKB($14, 4326))",
        &[
            &s.site_id,
            &text_of(p.get("name")),
            &text_of(p.get("status")),
            &text_of(p.get("approved_swppp")),
            &text_of(p.get("applicant")),
            &text_of(p.get("address")),
            &text_of(p.get("parcel_ids")),
            &text_of(p.get("outfall")),
            &text_of(p.get("exemptions")),
            &extra(s),
            &s.version,
            &s.retired,
            &s.submitted_by,
            &wkb,
        ],
    )?;
    Ok(())
}

fn insert_disturbance(
    tx: &mut Transaction,
    d: &DisturbanceRecord,
) -> std::result::Result<(), Fail> {
    tx.execute(
        "INSERT INTO disturbance (site_id, dist_id, phase, start_date, end_date, attributes, geom) \
         VALUES ($1, $2, $3, $4, $5, $6, ST_GeomFromWKB($7, 4326))",
        &[
            &d.site_id,
            &d.dist_id,
            &d.phase,
            &d.start,
            &d.end,
            &Value::Object(d.properties.clone()).to_string(),
            &to_wkb(&d.geometry)?,
        ],
    )?;
    Ok(())
}

fn update_row(tx: &mut Transaction, s: &SiteRecord) -> std::result::Result<(), Fail> {
    let p = &s.properties;
    tx.execute(
        "UPDATE sites SET name=$2, status=$3, approved_swppp=$4, applicant=$5, address=$6, \
         parcel_ids=$7, outfall=$8, exemptions=$9, attributes=$10, version=$11, retired=$12 \
         WHERE site_id=$1",
        &[
            &s.site_id,
            &text_of(p.get("name")),
            &text_of(p.get("status")),
            &text_of(p.get("approved_swppp")),
            &text_of(p.get("applicant")),
            &text_of(p.get("address")),
            &text_of(p.get("parcel_ids")),
            &text_of(p.get("outfall")),
            &text_of(p.get("exemptions")),
            &extra(s),
            &s.version,
            &s.retired,
        ],
    )?;
    Ok(())
}

fn audit(
    tx: &mut Transaction,
    who: &str,
    action: &str,
    site: Option<&str>,
    changes: &[FieldChange],
) -> std::result::Result<(), Fail> {
    let at = now_utc();
    let sql = "INSERT INTO audit (at, who, action, site_id, field, old_value, new_value) \
               VALUES ($1, $2, $3, $4, $5, $6, $7)";
    if changes.is_empty() {
        let none: Option<String> = None;
        tx.execute(sql, &[&at, &who, &action, &site, &none, &none, &none])?;
    }
    for (field, old, new) in changes {
        tx.execute(
            sql,
            &[
                &at,
                &who,
                &action,
                &site,
                field,
                &old.to_string(),
                &new.to_string(),
            ],
        )?;
    }
    Ok(())
}

/// The row of `id`, locked until the transaction ends, if it is still at `if_version`.
fn current(
    tx: &mut Transaction,
    id: &str,
    if_version: i64,
) -> std::result::Result<SiteRecord, Fail> {
    let row = tx.query_opt(
        &format!("{SITE_SELECT} WHERE site_id = $1 FOR UPDATE"),
        &[&id],
    )?;
    let site = match row {
        Some(r) => site_of(&r)?,
        None => {
            return Err(Fail::Core(Error::NotFound {
                kind: "site",
                id: id.to_string(),
            }))
        }
    };
    if site.version != if_version {
        return Err(Fail::Core(Error::Conflict {
            kind: "site",
            id: id.to_string(),
            current: site.version,
        }));
    }
    Ok(site)
}

fn date(table: &str, id: &str, text: &str) -> std::result::Result<chrono::NaiveDate, Fail> {
    parse_date(table, id, text).map_err(Fail::Core)
}

/// The migration's transaction, for the shared conversion step.
struct Rows<'a, 'c>(&'a mut Transaction<'c>);

/// A database error inside the conversion, as the core's error (the store's own label is
/// added by `PostGis::write` only to `Fail::Db`).
fn core(e: Fail) -> Error {
    match e {
        Fail::Db(e) => Error::Registry {
            store: "PostGIS".into(),
            reason: e
                .as_db_error()
                .map_or_else(|| e.to_string(), |d| d.message().to_string()),
        },
        Fail::Core(e) => e,
    }
}

impl RowWriter for Rows<'_, '_> {
    fn site_rows(&mut self) -> Result<Vec<SiteRecord>> {
        let rows = self
            .0
            .query(&format!("{SITE_SELECT} ORDER BY fid FOR UPDATE"), &[])
            .map_err(|e| core(e.into()))?;
        rows.iter().map(|r| site_of(r).map_err(core)).collect()
    }

    fn rewrite(&mut self, site: &SiteRecord) -> Result<()> {
        update_row(self.0, site).map_err(core)
    }

    fn note(&mut self, site_id: &str, action: &str, change: &FieldChange) -> Result<()> {
        let changes = std::slice::from_ref(change);
        audit(self.0, migrate::WHO, action, Some(site_id), changes).map_err(core)
    }
}

/// Inserts a site from the file layers, converted to the typed record, with its audit rows.
fn seed_site(
    tx: &mut Transaction,
    s: &SiteRecord,
    words: &Vocabulary,
) -> std::result::Result<(), Fail> {
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

impl Registry for PostGis {
    fn describe(&self) -> String {
        self.label.clone()
    }

    fn change_stamp(&self) -> Result<i64> {
        self.read(|c| {
            Ok(
                c.query_one("SELECT n FROM outfall_stamp WHERE id = 1", &[])?
                    .get(0),
            )
        })
    }

    fn is_seeded(&self) -> Result<bool> {
        self.read(|c| {
            Ok(
                c.query_opt("SELECT 1 FROM outfall_meta WHERE key = 'seeded'", &[])?
                    .is_some(),
            )
        })
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
                "INSERT INTO outfall_meta (key, value) VALUES ('seeded', $1)",
                &[&now_utc()],
            )?;
            let note = Value::String(format!("{} sites from the file layers", sites.len()));
            audit(
                tx,
                "outfall",
                "seed",
                None,
                &[("sites".into(), Value::Null, note)],
            )
        })
    }

    fn sites(&self) -> Result<Vec<SiteRecord>> {
        self.read(|c| {
            c.query(&format!("{SITE_SELECT} ORDER BY fid"), &[])?
                .iter()
                .map(site_of)
                .collect()
        })
    }

    fn disturbance(&self) -> Result<Vec<DisturbanceRecord>> {
        self.read(|c| {
            let rows = c.query(
                "SELECT site_id, dist_id, phase, start_date, end_date, attributes, ST_AsBinary(geom) \
                 FROM disturbance WHERE geom IS NOT NULL ORDER BY fid",
                &[],
            )?;
            rows.iter()
                .map(|r| {
                    let dist_id: String = r.get(1);
                    Ok(DisturbanceRecord {
                        site_id: r.get(0),
                        geometry: from_wkb("disturbance", &dist_id, &r.get::<_, Vec<u8>>(6))?,
                        dist_id,
                        phase: r.get(2),
                        start: r.get(3),
                        end: r.get(4),
                        properties: parse_json(&r.get::<_, String>(5)),
                    })
                })
                .collect()
        })
    }

    fn create_site(
        &self,
        site: &SiteRecord,
        disturbance: &[DisturbanceRecord],
        who: &str,
    ) -> Result<SiteRecord> {
        self.write(|tx| {
            // The unique index decides a race between two creators; this check names it.
            if tx
                .query_opt("SELECT 1 FROM sites WHERE site_id = $1", &[&site.site_id])?
                .is_some()
            {
                return Err(Fail::Core(Error::Exists {
                    kind: "site",
                    id: site.site_id.clone(),
                }));
            }
            match insert_site(tx, site) {
                // Another server created the same id between the check and the insert.
                Err(Fail::Db(e))
                    if e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) =>
                {
                    return Err(Fail::Core(Error::Exists {
                        kind: "site",
                        id: site.site_id.clone(),
                    }))
                }
                r => r?,
            }
            for d in disturbance {
                insert_disturbance(tx, d)?;
            }
            let changes = creation_changes(site, disturbance.len());
            audit(tx, who, "create", Some(&site.site_id), &changes)?;
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
            let old = site.retired.map(Value::String).unwrap_or(Value::Null);
            audit(
                tx,
                who,
                "retire",
                Some(id),
                &[("retired".into(), old, Value::String(today()))],
            )?;
            Ok(next)
        })
    }

    fn add_inspection(&self, i: &Inspection, who: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
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
                    &now_utc(),
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
        self.read(|c| {
            let rows = c.query(
                "SELECT site_id, date, inspector, findings, corrective_actions, corrective_due \
                 FROM inspections ORDER BY date, fid",
                &[],
            )?;
            rows.iter()
                .map(|r| {
                    let site_id: String = r.get(0);
                    Ok(Inspection {
                        date: date("inspections", &site_id, &r.get::<_, String>(1))?,
                        corrective_due: r
                            .get::<_, Option<String>>(5)
                            .map(|d| date("inspections", &site_id, &d))
                            .transpose()?,
                        site_id,
                        inspector: r.get(2),
                        findings: r.get(3),
                        corrective_actions: r.get(4),
                    })
                })
                .collect()
        })
    }

    fn add_rainfall(&self, day: &RainfallDay, who: &str) -> Result<()> {
        self.write(|tx| {
            let d = day.date.to_string();
            let old: Option<f64> = tx
                .query_opt(
                    "SELECT rain_in FROM rainfall WHERE date = $1 AND source = $2 FOR UPDATE",
                    &[&d, &day.source],
                )?
                .map(|r| r.get(0));
            tx.execute(
                "INSERT INTO rainfall (date, rain_in, source, recorded_by, recorded_at) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (date, source) DO UPDATE \
                 SET rain_in = excluded.rain_in, recorded_by = excluded.recorded_by, \
                 recorded_at = excluded.recorded_at",
                &[&d, &day.rain_in, &day.source, &who, &now_utc()],
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
        self.read(|c| {
            let rows = c.query(
                "SELECT date, rain_in, source FROM rainfall ORDER BY date, source",
                &[],
            )?;
            rows.iter()
                .map(|r| {
                    let source: String = r.get(2);
                    Ok(RainfallDay {
                        date: date("rainfall", &source, &r.get::<_, String>(0))?,
                        rain_in: r.get(1),
                        source,
                    })
                })
                .collect()
        })
    }

    fn history(&self, site_id: &str) -> Result<Vec<AuditEntry>> {
        self.read(|c| {
            let rows = c.query(
                "SELECT at, who, action, site_id, field, old_value, new_value FROM audit \
                 WHERE site_id = $1 ORDER BY fid",
                &[&site_id],
            )?;
            let json =
                |t: Option<String>| t.map(|t| serde_json::from_str(&t).unwrap_or(Value::String(t)));
            Ok(rows
                .iter()
                .map(|r| AuditEntry {
                    at: r.get(0),
                    who: r.get(1),
                    action: r.get(2),
                    site_id: r.get(3),
                    field: r.get(4),
                    old_value: json(r.get(5)),
                    new_value: json(r.get(6)),
                })
                .collect())
        })
    }

    fn add_token(&self, t: &TokenRecord) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO tokens (token_id, name, role, hash, created_at) VALUES ($1, $2, $3, $4, $5)",
                &[&t.token_id, &t.name, &t.role.as_str(), &t.hash, &t.created_at],
            )?;
            let note = Value::String(format!("{} ({})", t.name, t.role.as_str()));
            audit(tx, "outfall token create", "token", None, &[("token".into(), Value::Null, note)])
        })
    }

    fn token(&self, token_id: &str) -> Result<Option<TokenRecord>> {
        let row = self.read(|c| {
            Ok(c.query_opt(
                "SELECT token_id, name, role, hash, created_at FROM tokens \
                 WHERE token_id = $1 AND revoked IS NULL",
                &[&token_id],
            )?)
        })?;
        row.map(|r| {
            Ok(TokenRecord {
                token_id: r.get(0),
                name: r.get(1),
                role: r.get::<_, String>(2).parse()?,
                hash: r.get(3),
                created_at: r.get(4),
            })
        })
        .transpose()
    }
}
