//! The schema's migrations, run by `run` for every store; and rows written before the typed
//! site record, made typed: schema version 2 converts every existing row once, and seeding
//! converts the file layers' rows the same way, so a registry holds codes and objects
//! whatever wrote it. A value is converted only where `claims::read_claims` reads it with
//! certainty; the rest keep their text and are flagged. Each converted or flagged field
//! leaves an audit row by "migration" with the old value.

use super::guard;
use super::store::{audit, Store, Tx};
use super::{now_utc, FieldChange, SiteRecord, V2_TYPED_RECORD_SQL};
use crate::claims::{self, lookup, Stated, SwpppApproval, Vocabulary};
use crate::error::Result;
use serde_json::{json, Map, Value};

/// The schema version whose step converts the rows (its SQL changes no table).
pub const TYPED_RECORD_VERSION: i64 = 2;

/// Who the audit names for a conversion.
pub const WHO: &str = "migration";

/// The audit's action: a field converted to its typed form, or kept and flagged.
pub const CONVERT: &str = "convert";
pub const FLAG: &str = "flag";

/// One audit note: the action and the field's old and new value.
pub type Note = (&'static str, FieldChange);

/// The row in typed form, and a note per field converted or flagged; no notes when the row
/// is typed already, so converting twice changes nothing.
pub fn upgrade_site(site: &SiteRecord, words: &Vocabulary) -> (SiteRecord, Vec<Note>) {
    let mut next = site.clone();
    let mut notes = Vec::new();
    if let Some(Value::String(word)) = site.properties.get("status") {
        match lookup(&words.status, word) {
            Some(code) if code == word => {}
            Some(code) => {
                let code = Value::String(code.to_string());
                next.properties.insert("status".into(), code.clone());
                notes.push((CONVERT, ("status".into(), json!(word), code)));
            }
            None => notes.push((FLAG, ("status".into(), json!(word), json!(word)))),
        }
    }
    upgrade_approval(&mut next, words, &mut notes);
    (next, notes)
}

/// The old `approved_swppp` text, when no typed approval was recorded beside it: a date, a
/// date and a reference, a reference token or a decision word becomes `swppp_approval`.
fn upgrade_approval(site: &mut SiteRecord, words: &Vocabulary, notes: &mut Vec<Note>) {
    let p = &site.properties;
    let typed = p.get("swppp_approval").is_some_and(Value::is_object)
        || super::typed::FLAT_APPROVAL
            .iter()
            .any(|k| p.get(*k).and_then(crate::load::value_text).is_some());
    let text = p.get("approved_swppp").and_then(crate::load::value_text);
    let (Some(text), false) = (text, typed) else {
        return;
    };
    let old = Value::String(text.clone());
    let get = |k: &str| (k == "approved_swppp").then(|| old.clone());
    match claims::read_claims(&get, words).approval {
        Stated::Known(a) => {
            let object = approval_json(&a);
            site.properties.remove("approved_swppp");
            site.properties
                .insert("swppp_approval".into(), object.clone());
            notes.push((CONVERT, ("approved_swppp".into(), old.clone(), Value::Null)));
            notes.push((CONVERT, ("swppp_approval".into(), Value::Null, object)));
        }
        // A word that means "no approval" ("none", "no"): nothing is recorded.
        Stated::NotRecorded => {
            site.properties.remove("approved_swppp");
            notes.push((CONVERT, ("approved_swppp".into(), old, Value::Null)));
        }
        Stated::Unreadable(_) => notes.push((FLAG, ("approved_swppp".into(), old.clone(), old))),
    }
}

/// The approval as `PATCH` stores it: `{decision, date, reference, body}`, absent parts left
/// out.
fn approval_json(a: &SwpppApproval) -> Value {
    let mut m = Map::new();
    m.insert("decision".into(), json!(a.decision.as_str()));
    if let Some(d) = a.date {
        m.insert("date".into(), json!(d.to_string()));
    }
    if let Some(r) = &a.reference {
        m.insert("reference".into(), json!(r));
    }
    if let Some(b) = a.body {
        m.insert(
            "body".into(),
            serde_json::to_value(b).unwrap_or(Value::Null),
        );
    }
    Value::Object(m)
}

/// The schema version that gives tokens an expiry and unique names, and makes submissions
/// belong to a token's id.
pub const TOKEN_IDS_VERSION: i64 = 3;

/// The schema version whose triggers audit edits made outside the service.
pub const OUTSIDE_EDITS_VERSION: i64 = 4;

/// The schema version whose commits notify listening servers (PostgreSQL's `NOTIFY`; a
/// GeoPackage has none, and its step changes nothing).
pub const NOTIFY_VERSION: i64 = 5;

/// The schema version from which the service's marker cannot be imitated by another
/// connection, and the guards (`guard`) are created again at every open: a GeoPackage
/// drops the `outfall_writer` table any connection could write to, PostGIS makes the table
/// of its servers' writer keys.
pub const WRITER_VERSION: i64 = 6;

/// Version 3, the same SQL for every store: tokens get `expires_at`; each submission's
/// token name becomes the id of the first token given that name (the later ones are the
/// duplicates names allowed then); later duplicates are renamed `name #id`, and a unique
/// index keeps names unique from then on.
const V3_TOKEN_IDS_SQL: &str = include_str!("v3_token_ids.sql");

/// The migrations whose SQL differs by store: its first schema, the triggers of
/// `OUTSIDE_EDITS_VERSION` (SQLite and PL/pgSQL triggers are written differently), the
/// notification of `NOTIFY_VERSION` and the writer marker of `WRITER_VERSION`. The guards
/// as they are now are not a migration: `Store::guard_sql` creates them at every open.
pub struct StoreSql {
    pub first: &'static str,
    pub outside_edits: &'static str,
    pub notify: &'static str,
    pub writer: &'static str,
}

/// Brings a store's schema and rows up to date, in one transaction: each migration not yet
/// recorded in `outfall_migrations`, in order, then recorded; then the guards, created
/// again (`guard::restore`: one found missing or changed where no migration ran is logged
/// and audited). Never edit a released migration: add the next one.
pub fn run(store: &dyn Store, sql: &StoreSql, words: &Vocabulary) -> Result<()> {
    let steps = [
        (1, sql.first),
        (TYPED_RECORD_VERSION, V2_TYPED_RECORD_SQL),
        (TOKEN_IDS_VERSION, V3_TOKEN_IDS_SQL),
        (OUTSIDE_EDITS_VERSION, sql.outside_edits),
        (NOTIFY_VERSION, sql.notify),
        (WRITER_VERSION, sql.writer),
    ];
    store.transaction(&mut |tx| {
        let done = tx.schema_version()?;
        let mut migrated = false;
        for (version, sql) in steps.iter().filter(|(v, _)| *v > done) {
            tx.run_sql(sql)?;
            match *version {
                TYPED_RECORD_VERSION => convert_rows(tx, words)?,
                TOKEN_IDS_VERSION => expire_old_tokens(tx)?,
                _ => {}
            }
            tx.record_version(*version, &now_utc())?;
            migrated = true;
        }
        guard::restore(tx, store.guard_sql(), !migrated)?;
        Ok(())
    })
}

/// The step of `TOKEN_IDS_VERSION` after its SQL: tokens made before expiry existed expire
/// `DEFAULT_EXPIRES_DAYS` after the migration (not at once, which would lock every holder
/// out), and the audit says what changed.
fn expire_old_tokens(tx: &mut dyn Tx) -> Result<()> {
    let days = super::token::DEFAULT_EXPIRES_DAYS;
    let at = (chrono::Utc::now() + chrono::Days::new(u64::from(days)))
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string();
    // `at` is our own timestamp (digits, '-', ':', '.', 'T', 'Z'): nothing to escape.
    tx.run_sql(&format!(
        "UPDATE tokens SET expires_at = '{at}' WHERE expires_at IS NULL"
    ))?;
    let change = (
        "tokens".to_string(),
        json!("no expiry; submissions held by token name"),
        json!(format!(
            "tokens expire (existing ones at {at}); names unique; submissions held by token id"
        )),
    );
    audit(tx, WHO, CONVERT, None, &[change])
}

/// The step of `TYPED_RECORD_VERSION`, inside the migration's transaction: each row that
/// changes is written one version up (an editor holding the old ETag must read it again).
pub fn convert_rows(tx: &mut dyn Tx, words: &Vocabulary) -> Result<()> {
    for site in tx.site_rows()? {
        let (mut next, notes) = upgrade_site(&site, words);
        if next.properties != site.properties {
            next.version += 1;
            tx.write_site(&next)?;
        }
        note(tx, &site.site_id, &notes)?;
    }
    Ok(())
}

/// The audit rows of a conversion, one per field converted or flagged.
pub fn note(tx: &mut dyn Tx, site_id: &str, notes: &[Note]) -> Result<()> {
    for (action, change) in notes {
        audit(tx, WHO, action, Some(site_id), std::slice::from_ref(change))?;
    }
    Ok(())
}
