//! The store's guards: the triggers (in PostGIS also their functions; in a GeoPackage also
//! the view they read) that audit edits made outside the service, refuse a token change that
//! would grant access, and keep the audit append-only. They live in the file or the database,
//! where another program can drop or change them, so the service puts them back: at every
//! open (`migrate::run`) and whenever `Live` notices they differ from what it made. Each one
//! put back is logged and leaves an audit row by `outfall`, action `restore`.
//!
//! A program that may change the schema can still drop a guard, edit and put it back in one
//! transaction; no trigger can see that. What the guards promise is that an edit made by
//! plain DML (QGIS, sqlite3, psql) is audited, and that the service's own marker, which
//! makes them stand aside, cannot be imitated that way (see each store).

pub use super::store::Guards;
use super::store::{audit, Tx};
use crate::error::Result;
use serde_json::Value;

/// The action of a token change made outside the service and refused (the guards' SQL
/// writes it).
pub const REFUSED: &str = "outside edit refused";

/// Who the audit names for a guard put back, and the action.
pub const WHO: &str = "outfall";
pub const RESTORE: &str = "restore";

/// The names of the objects `sql` creates: each `CREATE [OR REPLACE] TRIGGER|FUNCTION|VIEW
/// <name>`, in order.
pub fn names(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in sql.lines() {
        let rest = line.trim_start();
        let Some(rest) = rest.strip_prefix("CREATE ") else {
            continue;
        };
        let rest = rest.strip_prefix("OR REPLACE ").unwrap_or(rest);
        let Some(rest) = ["TRIGGER ", "FUNCTION ", "VIEW "]
            .iter()
            .find_map(|kind| rest.strip_prefix(kind))
        else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Creates every guard of `sql` again in `tx` and gives the names of those that were missing
/// or different before. When `report`, each of them is logged and audited; a migration in
/// the same transaction (`report` false) replaces old definitions on purpose.
pub fn restore(tx: &mut dyn Tx, sql: &str, report: bool) -> Result<Vec<String>> {
    let names = names(sql);
    let before = tx.guards(&names)?;
    tx.run_sql(sql)?;
    let after = tx.guards(&names)?;
    let changed: Vec<String> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(v))
        .map(|(k, _)| k.clone())
        .collect();
    if !report || changed.is_empty() {
        return Ok(changed);
    }
    let rows: Vec<_> = changed
        .iter()
        .map(|name| {
            let was = if before.contains_key(name) {
                "changed"
            } else {
                "missing"
            };
            tracing::warn!(guard = %name, was, "a registry trigger was {was}; restored it");
            (
                format!("guard {name}"),
                Value::String(was.into()),
                Value::String("restored".into()),
            )
        })
        .collect();
    audit(tx, WHO, RESTORE, None, &rows)?;
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_from_the_create_statements() {
        let sql = "-- a comment naming CREATE TRIGGER nothing\n\
                   DROP TRIGGER IF EXISTS a_trigger;\n\
                   CREATE TRIGGER a_trigger AFTER UPDATE ON sites\n\
                   CREATE VIEW a_view AS SELECT 1;\n\
                   CREATE OR REPLACE FUNCTION f_1(x TEXT) RETURNS void\n\
                   CREATE OR REPLACE TRIGGER t2 BEFORE INSERT ON tokens\n\
                   CREATE TABLE not_a_guard (x INT);\n";
        assert_eq!(names(sql), ["a_trigger", "a_view", "f_1", "t2"]);
    }
}
