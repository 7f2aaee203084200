//! The registry's writes, written once for every store: each is one transaction of the
//! store's primitives (`Tx`), and a site's edit checks the version it was read at (If-Match),
//! applies the change by `apply_change`, writes the row one version up and leaves an audit
//! row per field. A store only moves rows; what the rows must say is decided here.

use super::store::{audit, Store, Tx};
use super::{
    apply_change, now_utc, today, AuditEntry, DisturbanceRecord, FieldChange, Registry, SiteRecord,
    TokenRecord,
};
use super::{guard, migrate};
use crate::claims::Vocabulary;
use crate::error::{Error, Result};
use crate::record::{Inspection, InspectionQuery, Listing, RainfallDay};
use serde_json::{Map, Value};

impl<S: Store> Registry for S {
    fn describe(&self) -> String {
        Store::describe(self)
    }
    fn change_stamp(&self) -> Result<i64> {
        Store::change_stamp(self)
    }
    fn wait_for_change(&self, max: std::time::Duration) -> Result<bool> {
        Store::wait_for_change(self, max)
    }
    fn is_seeded(&self) -> Result<bool> {
        Store::is_seeded(self)
    }
    fn seed(
        &self,
        sites: &[SiteRecord],
        polygons: &[DisturbanceRecord],
        words: &Vocabulary,
    ) -> Result<()> {
        seed(self, sites, polygons, words)
    }
    fn sites(&self) -> Result<Vec<SiteRecord>> {
        Store::sites(self)
    }
    fn disturbance(&self) -> Result<Vec<DisturbanceRecord>> {
        Store::disturbance(self)
    }
    fn create_site(
        &self,
        site: &SiteRecord,
        polygons: &[DisturbanceRecord],
        who: &str,
    ) -> Result<SiteRecord> {
        create_site(self, site, polygons, who)
    }
    fn update_site(
        &self,
        id: &str,
        if_version: i64,
        change: &Map<String, Value>,
        words: &Vocabulary,
        who: &str,
    ) -> Result<SiteRecord> {
        update_site(self, id, if_version, change, words, who)
    }
    fn retire_site(&self, id: &str, if_version: i64, who: &str) -> Result<SiteRecord> {
        retire_site(self, id, if_version, who)
    }
    fn add_inspection(&self, inspection: &Inspection, who: &str) -> Result<()> {
        add_inspection(self, inspection, who)
    }
    fn inspections(&self, which: &InspectionQuery) -> Result<Listing<Inspection>> {
        Store::inspections(self, which)
    }
    fn add_rainfall(&self, day: &RainfallDay, who: &str) -> Result<()> {
        add_rainfall(self, day, who)
    }
    fn rainfall(&self) -> Result<Listing<RainfallDay>> {
        Store::rainfall(self)
    }
    fn history(&self, site_id: &str) -> Result<Vec<AuditEntry>> {
        Store::history(self, site_id)
    }
    fn outside_edits(&self, after: i64) -> Result<(i64, Vec<AuditEntry>)> {
        Store::outside_edits(self, after)
    }
    fn add_token(&self, token: &TokenRecord) -> Result<()> {
        add_token(self, token)
    }
    fn token(&self, token_id: &str) -> Result<Option<TokenRecord>> {
        Store::token(self, token_id)
    }
    fn tokens(&self) -> Result<Vec<TokenRecord>> {
        Store::tokens(self)
    }
    fn change_token(
        &self,
        name_or_id: &str,
        action: &str,
        change: &mut dyn FnMut(&mut TokenRecord) -> Result<()>,
    ) -> Result<TokenRecord> {
        change_token(self, name_or_id, action, change)
    }
    fn guards(&self) -> Result<guard::Guards> {
        Store::guards(self, &guard::names(self.guard_sql()))
    }
    fn restore_guards(&self) -> Result<Vec<String>> {
        let sql = self.guard_sql();
        write(self, |tx| guard::restore(tx, sql, true))
    }
}

/// Runs `work` in one transaction of `store` and gives back what it made.
fn write<T>(store: &dyn Store, mut work: impl FnMut(&mut dyn Tx) -> Result<T>) -> Result<T> {
    let mut out = None;
    store.transaction(&mut |tx| {
        out = Some(work(tx)?);
        Ok(())
    })?;
    out.ok_or_else(|| Error::Registry {
        store: store.describe(),
        reason: "the transaction committed without running".into(),
    })
}

/// The site's row, locked, if it is still at `if_version`.
fn current(tx: &mut dyn Tx, id: &str, if_version: i64) -> Result<SiteRecord> {
    let site = tx.site_for_update(id)?.ok_or_else(|| Error::NotFound {
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

/// Fills an empty registry from the file layers, each site converted to the typed record
/// as a migration converts a stored row, with the audit of where each came from.
pub fn seed(
    store: &dyn Store,
    sites: &[SiteRecord],
    polygons: &[DisturbanceRecord],
    words: &Vocabulary,
) -> Result<()> {
    write(store, |tx| {
        for site in sites {
            let (typed, notes) = migrate::upgrade_site(site, words);
            tx.insert_site(&typed)?;
            let from = Value::String("the file layers".into());
            let source = ("source".into(), Value::Null, from);
            audit(tx, "outfall", "seed", Some(&site.site_id), &[source])?;
            migrate::note(tx, &site.site_id, &notes)?;
        }
        for polygon in polygons {
            tx.insert_disturbance(polygon)?;
        }
        tx.insert_meta("seeded", &now_utc())?;
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

/// Stores a new site with its polygons; `Error::Exists` when the id is taken.
pub fn create_site(
    store: &dyn Store,
    site: &SiteRecord,
    polygons: &[DisturbanceRecord],
    who: &str,
) -> Result<SiteRecord> {
    write(store, |tx| {
        tx.insert_site(site)?;
        for polygon in polygons {
            tx.insert_disturbance(polygon)?;
        }
        let changes = creation_changes(site, polygons.len());
        audit(tx, who, "create", Some(&site.site_id), &changes)?;
        Ok(site.clone())
    })
}

/// Applies `change` if the site is still at `if_version`: the new row one version up and
/// an audit row per field, or nothing at all when the change changes nothing.
pub fn update_site(
    store: &dyn Store,
    id: &str,
    if_version: i64,
    change: &Map<String, Value>,
    words: &Vocabulary,
    who: &str,
) -> Result<SiteRecord> {
    write(store, |tx| {
        let site = current(tx, id, if_version)?;
        let (mut next, changes) = apply_change(&site, change, words)?;
        if changes.is_empty() {
            return Ok(site);
        }
        next.version += 1;
        tx.write_site(&next)?;
        audit(tx, who, "update", Some(id), &changes)?;
        Ok(next)
    })
}

/// Marks the site retired today (the row is kept) if it is still at `if_version`.
pub fn retire_site(store: &dyn Store, id: &str, if_version: i64, who: &str) -> Result<SiteRecord> {
    write(store, |tx| {
        let site = current(tx, id, if_version)?;
        let day = today();
        let mut next = site.clone();
        next.retired = Some(day.clone());
        next.version += 1;
        tx.write_site(&next)?;
        let old = site.retired.map(Value::String).unwrap_or(Value::Null);
        let change = ("retired".to_string(), old, Value::String(day));
        audit(tx, who, "retire", Some(id), &[change])?;
        Ok(next)
    })
}

pub fn add_inspection(store: &dyn Store, inspection: &Inspection, who: &str) -> Result<()> {
    crate::bounds::check_inspection(inspection)?;
    write(store, |tx| {
        tx.insert_inspection(inspection, who, &now_utc())?;
        let value = serde_json::to_value(inspection).unwrap_or(Value::Null);
        let change = ("inspection".into(), Value::Null, value);
        audit(tx, who, "inspect", Some(&inspection.site_id), &[change])
    })
}

/// Records (or corrects) the rain of one day from one source, auditing the old amount.
pub fn add_rainfall(store: &dyn Store, day: &RainfallDay, who: &str) -> Result<()> {
    crate::bounds::check_rainfall(day)?;
    write(store, |tx| {
        let old = tx.rain_for_update(day)?;
        tx.put_rainfall(day, who, &now_utc())?;
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

/// Stores a new token unless its name is taken: the check and the insert in one
/// transaction (and a unique index behind them, from schema version 3).
pub fn add_token(store: &dyn Store, token: &TokenRecord) -> Result<()> {
    write(store, |tx| {
        if let Some(t) = tx.token_rows()?.into_iter().find(|t| t.name == token.name) {
            let state = match &t.revoked {
                Some(at) => format!("revoked {at}"),
                None => "in use".into(),
            };
            return Err(Error::Input(format!(
                "a token named '{}' exists already (id {}, {state}); names are unique so the audit names one holder: choose another name, or rotate that token",
                t.name, t.token_id
            )));
        }
        tx.insert_token(token)?;
        let note = Value::String(format!("{} ({})", token.name, token.role.as_str()));
        let change = ("token".into(), Value::Null, note);
        audit(tx, "outfall token create", "token", None, &[change])
    })
}

/// Changes the token named (or with the id) `name_or_id`, auditing what changed.
pub fn change_token(
    store: &dyn Store,
    name_or_id: &str,
    action: &str,
    change: &mut dyn FnMut(&mut TokenRecord) -> Result<()>,
) -> Result<TokenRecord> {
    let key = name_or_id.trim();
    write(store, |tx| {
        let rows = tx.token_rows()?;
        let found = rows
            .iter()
            .find(|t| t.token_id == key)
            .or_else(|| rows.iter().find(|t| t.name == key));
        let mut token = found.cloned().ok_or_else(|| Error::NotFound {
            kind: "token (by name or id)",
            id: key.to_string(),
        })?;
        let old = token.clone();
        change(&mut token)?;
        if token == old {
            return Ok(token);
        }
        tx.write_token(&token)?;
        let note = |t: &TokenRecord| {
            let expires = t.expires_at.as_deref().unwrap_or("none");
            let revoked = t.revoked.as_deref().unwrap_or("no");
            Value::String(format!("expires {expires}, revoked {revoked}"))
        };
        let field = format!("token {} ({})", token.name, token.token_id);
        let change = (field, note(&old), note(&token));
        audit(
            tx,
            &format!("outfall token {action}"),
            "token",
            None,
            &[change],
        )?;
        Ok(token)
    })
}

/// The audit rows of a new site: one row per attribute set, and one for its polygons.
fn creation_changes(site: &SiteRecord, polygons: usize) -> Vec<FieldChange> {
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
