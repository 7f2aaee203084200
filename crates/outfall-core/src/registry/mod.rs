//! The site registry: the town's live record of its sites, their disturbance polygons,
//! inspections, manual rainfall, the audit trail and the access tokens. One trait, two
//! stores: a GeoPackage file (the default, which QGIS opens and edits) and PostgreSQL with
//! PostGIS (shared by many editors). Both keep the same tables and give the same few
//! primitives (`Store`, `Tx`); the rules that decide what a change means (`apply_change`)
//! and what a write does (`versioned`) live here, once, so the two stores cannot drift apart.

mod application;
mod convert;
#[cfg(test)]
mod fake_store;
mod gpkg;
mod gpkg_tx;
pub mod guard;
mod live;
pub mod migrate;
pub mod rows;
pub mod store;
pub mod token;
mod typed;
mod versioned;

pub use application::{read_application, Application};
pub use convert::{records_from_catalog, site_layers};
pub use gpkg::GeoPackage;
pub use live::{CheckCounts, Checking, Live, Snapshot};
pub use token::{AccessRole, Caller, TokenRecord};
pub use typed::{
    drawn_fields, join_parcel_ids, normalize, roles_of, CODED_FIELDS, OFFICER_FINDINGS,
};

use crate::claims::Vocabulary;
use crate::error::Result;
use crate::record::{Inspection, InspectionQuery, Listing, RainfallDay};
use geo_types::Geometry;
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::Path;

/// The registry file in a data folder.
pub const GPKG_FILE: &str = "registry.gpkg";

/// Site attributes stored in their own columns, so GIS staff can edit them in QGIS; any
/// other attribute of a site is kept in the `attributes` JSON column.
pub const SITE_COLUMNS: [&str; 8] = [
    "name",
    "status",
    "approved_swppp",
    "applicant",
    "address",
    "parcel_ids",
    "outfall",
    "exemptions",
];

/// The statuses a site can have: the closed list of the typed record, in the order a site
/// goes through them.
pub const STATUSES: [&str; 6] = crate::claims::STATUS_CODES;

/// A site as the registry holds it. `properties` uses the semantic names (`status`,
/// `approved_swppp`, ...), whatever the town's file layer called its columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteRecord {
    pub site_id: String,
    pub properties: Map<String, Value>,
    /// None when the site has no drawn boundary.
    #[serde(skip)]
    pub boundary: Option<Stored<Geometry<f64>>>,
    /// Bumped by every change; the `ETag` of the site.
    pub version: i64,
    /// The date the site was retired (`DELETE`); the row is kept.
    pub retired: Option<String>,
    /// The id of the token that submitted it (an applicant's own submissions); names were
    /// stored before schema version 3, which turned them into ids.
    pub submitted_by: Option<String>,
}

/// One disturbance polygon of a site, with its phase and dates.
#[derive(Debug, Clone, PartialEq)]
pub struct DisturbanceRecord {
    pub site_id: String,
    pub dist_id: String,
    pub phase: Option<String>,
    pub start: Option<String>,
    pub end: Option<String>,
    pub properties: Map<String, Value>,
    pub geometry: Stored<Geometry<f64>>,
}

/// A geometry as a store read it, or why it could not be read: a row written by another
/// program (QGIS, sqlite3, psql) may hold a blob that is no geometry. Its row still loads,
/// so its site stays listed, and the reason is shown as a problem of that site's record.
pub type Stored<T> = std::result::Result<T, String>;

/// A stored geometry to be written back: one that could not be read cannot be.
pub fn stored_geometry<'a>(
    what: &str,
    id: &str,
    g: &'a Stored<Geometry<f64>>,
) -> Result<&'a Geometry<f64>> {
    g.as_ref().map_err(|e| {
        crate::error::Error::Input(format!(
            "{what} {id}: its stored geometry could not be read ({e}), so it cannot be written"
        ))
    })
}

/// One row of the audit trail: who changed what, when, from which value to which.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditEntry {
    pub at: String,
    pub who: String,
    pub action: String,
    pub site_id: Option<String>,
    pub field: Option<String>,
    pub old_value: Option<Value>,
    pub new_value: Option<Value>,
}

/// One field a change sets: (field, old value, new value).
pub type FieldChange = (String, Value, Value);

/// The registry as the server and the command line use it. Every write is one transaction,
/// durable when it returns. Every `Store` is one, its writes written once in `versioned`.
pub trait Registry: Send + Sync {
    /// Where the registry is, for messages (a file path, or a database without its password).
    fn describe(&self) -> String;
    /// A number that changes whenever another writer (QGIS, another server) commits.
    fn change_stamp(&self) -> Result<i64>;
    /// Waits at most `max` for another writer's commit; true when the sites may have
    /// changed (see `Store::wait_for_change`).
    fn wait_for_change(&self, max: std::time::Duration) -> Result<bool>;
    /// Whether the sites were seeded (or created) already.
    fn is_seeded(&self) -> Result<bool>;
    /// Fills an empty registry from the file layers, in one transaction; their old words
    /// are converted to the typed record as a migration converts a stored row.
    fn seed(
        &self,
        sites: &[SiteRecord],
        disturbance: &[DisturbanceRecord],
        words: &Vocabulary,
    ) -> Result<()>;
    /// Every site, retired ones included.
    fn sites(&self) -> Result<Vec<SiteRecord>>;
    fn disturbance(&self) -> Result<Vec<DisturbanceRecord>>;
    /// Stores a new site with its polygons; `Error::Exists` when the id is taken.
    fn create_site(
        &self,
        site: &SiteRecord,
        disturbance: &[DisturbanceRecord],
        who: &str,
    ) -> Result<SiteRecord>;
    /// Applies `change` (checked by `apply_change` with `words`) if the site is still at
    /// `if_version`; `Error::Conflict` when it is not.
    fn update_site(
        &self,
        id: &str,
        if_version: i64,
        change: &Map<String, Value>,
        words: &Vocabulary,
        who: &str,
    ) -> Result<SiteRecord>;
    /// Marks the site retired (kept, no longer on the map) if it is still at `if_version`.
    fn retire_site(&self, id: &str, if_version: i64, who: &str) -> Result<SiteRecord>;
    fn add_inspection(&self, inspection: &Inspection, who: &str) -> Result<()>;
    /// The recorded inspections `which` asks for (`InspectionQuery::ALL`: every site's),
    /// with the problems of rows that could not be read.
    fn inspections(&self, which: &InspectionQuery) -> Result<Listing<Inspection>>;
    /// Records (or corrects) the rain of one day from one source.
    fn add_rainfall(&self, day: &RainfallDay, who: &str) -> Result<()>;
    /// The rainfall entered by hand, with the problems of rows that could not be read.
    fn rainfall(&self) -> Result<Listing<RainfallDay>>;
    /// The audit trail of one site, oldest first.
    fn history(&self, site_id: &str) -> Result<Vec<AuditEntry>>;
    /// The last audit row's id, and the outside edits audited after row `after` (see
    /// `Store::outside_edits`).
    fn outside_edits(&self, after: i64) -> Result<(i64, Vec<AuditEntry>)>;
    /// Stores a new token; `Error::Exists` when its name is taken (by any token, revoked
    /// ones included).
    fn add_token(&self, token: &TokenRecord) -> Result<()>;
    /// The token with this id, revoked or expired ones included.
    fn token(&self, token_id: &str) -> Result<Option<TokenRecord>>;
    /// Every token, oldest first.
    fn tokens(&self) -> Result<Vec<TokenRecord>>;
    /// Changes the token whose name or id is `name_or_id` by `change`, in one transaction
    /// with an audit row of `action`; `Error::NotFound` when no token has it.
    fn change_token(
        &self,
        name_or_id: &str,
        action: &str,
        change: &mut dyn FnMut(&mut TokenRecord) -> Result<()>,
    ) -> Result<TokenRecord>;
    /// The definitions of the store's guards as they are now (`guard`).
    fn guards(&self) -> Result<guard::Guards>;
    /// Creates the guards again; the names of those that were missing or changed, each
    /// logged and audited.
    fn restore_guards(&self) -> Result<Vec<String>>;
}

/// Opens a GeoPackage registry: `path`, or (None) `registry.gpkg` in the data folder. The
/// PostGIS store lives in its own crate (`outfall-postgis`), whose `open` also takes a
/// `postgres://` URL, so that this crate needs no database client or async runtime.
pub fn open_file(
    path: Option<&Path>,
    data_dir: &Path,
    words: &Vocabulary,
) -> Result<Box<dyn Registry>> {
    let path = path.map_or_else(|| data_dir.join(GPKG_FILE), Path::to_path_buf);
    Ok(Box::new(GeoPackage::open(&path, words)?))
}

/// The schema change to the typed record, the same SQL for every store.
pub const V2_TYPED_RECORD_SQL: &str = include_str!("v2_typed_record.sql");

/// Checks a change (a `PATCH` body, an application's fields) and works out what it does to
/// `site`: the new record (version not yet bumped) and each field's old and new value.
/// Every value goes through `normalize`; a typed field also removes the old columns it
/// replaces. Unknown fields and bad values are refused with a message naming the field and
/// what it allows.
pub fn apply_change(
    site: &SiteRecord,
    change: &Map<String, Value>,
    words: &Vocabulary,
) -> Result<(SiteRecord, Vec<FieldChange>)> {
    let mut next = site.clone();
    let mut changes = Vec::new();
    for (key, value) in change {
        let value = normalize(key, value, words)?;
        set(&mut next, &mut changes, key, value);
        for old in typed::superseded(key) {
            if !change.contains_key(*old) {
                set(&mut next, &mut changes, old, Value::Null);
            }
        }
    }
    Ok((next, changes))
}

/// Sets one field (null removes it), noting the change unless the value is the same.
fn set(next: &mut SiteRecord, changes: &mut Vec<FieldChange>, field: &str, value: Value) {
    let old = next.properties.get(field).cloned().unwrap_or(Value::Null);
    if old == value {
        return;
    }
    if value.is_null() {
        next.properties.remove(field);
    } else {
        next.properties.insert(field.to_string(), value.clone());
    }
    changes.push((field.to_string(), old, value));
}

/// Now, in UTC, as the audit trail writes it.
pub fn now_utc() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Today's date (UTC), for a retirement.
pub fn today() -> String {
    chrono::Utc::now().date_naive().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn site(props: Value) -> SiteRecord {
        SiteRecord {
            site_id: "S1".into(),
            properties: props.as_object().cloned().unwrap_or_default(),
            boundary: None,
            version: 1,
            retired: None,
            submitted_by: None,
        }
    }

    fn change(site: &SiteRecord, body: Value) -> Result<(SiteRecord, Vec<FieldChange>)> {
        apply_change(
            site,
            body.as_object().unwrap_or(&Map::new()),
            &Vocabulary::default(),
        )
    }

    #[test]
    fn a_change_stores_codes_and_objects_and_records_old_and_new_values() {
        let s = site(json!({"status": "planned", "name": "x", "approved_swppp": "see the file"}));
        let body = json!({"status": "Active", "name": "x",
            "swppp_approval": {"decision": "Approved", "date": "2026-05-01",
                "reference": " SW-14 ", "body": "Planning Board"}});
        let (next, changes) = change(&s, body).unwrap();
        assert_eq!(next.properties["status"], "under_construction");
        assert_eq!(
            next.properties["swppp_approval"],
            json!({"decision": "approved", "date": "2026-05-01", "reference": "SW-14",
                "body": "planning_board"})
        );
        assert!(!next.properties.contains_key("approved_swppp"));
        let fields: Vec<&str> = changes.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(fields, ["status", "swppp_approval", "approved_swppp"]);
        assert_eq!(changes[0].1, json!("planned"));
        assert_eq!(changes[2].1, json!("see the file"));
    }

    #[test]
    fn exemption_claims_are_stored_by_letter_with_typed_evidence() {
        let body = json!({"exemption_claims": [
            {"code": "Routine maintenance", "maintains_original": true},
            {"code": "(5)(e)", "plat_approved": "2007-06-01", "verified_by": "Pat",
                "verified_on": "2026-02-03"}],
            "land_use": "farm", "common_plan": false, "activity_only": null});
        let s = site(json!({"exemptions": "c"}));
        let (next, _) = change(&s, body).unwrap();
        assert_eq!(
            next.properties["exemption_claims"],
            json!([{"code": "c", "maintains_original": true},
                {"code": "e", "plat_approved": "2007-06-01", "verified_by": "Pat",
                    "verified_on": "2026-02-03"}])
        );
        assert_eq!(next.properties["land_use"], "agricultural");
        assert!(!next.properties.contains_key("exemptions"));
        let (cleared, _) =
            change(&next, json!({"swppp_approval": null, "land_use": null})).unwrap();
        assert!(!cleared.properties.contains_key("land_use"));
    }

    #[test]
    fn bad_values_and_unknown_fields_are_refused_naming_what_is_allowed() {
        for (body, words) in [
            (json!({"status": "demolished"}), "status: 'demolished' is not a status; use one of planned, approved, under_construction, stabilized, closed, withdrawn"),
            (json!({"status": null}), "status: must be text"),
            (json!({"swppp_approval": {"date": "2026-01-01"}}), "swppp_approval.decision: is required; use one of approved, denied, pending, withdrawn"),
            (json!({"swppp_approval": {"decision": "maybe"}}), "'maybe' is not a decision; use one of approved, denied, pending, withdrawn"),
            (json!({"swppp_approval": {"decision": "none"}}), "null to clear"),
            (json!({"swppp_approval": {"decision": "approved", "date": "soon"}}), "swppp_approval.date: must be a date YYYY-MM-DD"),
            (json!({"swppp_approval": {"decision": "approved", "date": "2026-02-30"}}), "swppp_approval.date"),
            (json!({"swppp_approval": {"decision": "approved", "body": "mayor"}}), "swppp_approval.body: \"mayor\" is not an approving body; use one of planning_board, town_board, officer"),
            (json!({"swppp_approval": {"decision": "approved", "by": "x"}}), "swppp_approval.by: not a field of the approval; the fields are decision, date, reference, body"),
            (json!({"swppp_approval": "2026-01-01"}), "swppp_approval: must be an object"),
            (json!({"approved_swppp": "2026-01-01"}), "approved_swppp: the free-text approval is no longer written"),
            (json!({"exemptions": "c"}), "exemptions: the free-text list is no longer written"),
            (json!({"exemption_claims": [{"code": "signage assignment"}]}), "exemption_claims[0].code: \"signage assignment\" names none of the exemptions; use a letter a to k"),
            (json!({"exemption_claims": [{"code": "z"}]}), "exemption_claims[0].code"),
            (json!({"exemption_claims": [{"code": "c", "owner": "me"}]}), "exemption_claims[0].owner: not a field of a claim; the fields are code, new_structures"),
            (json!({"exemption_claims": [{"code": "c", "maintains_original": "yes"}]}), "exemption_claims[0].maintains_original: must be true, false or null"),
            (json!({"exemption_claims": [{"code": "c"}, {"code": "(5)(c)"}]}), "exemption_claims[1]: (c) is claimed twice"),
            (json!({"exemption_claims": "c"}), "exemption_claims: must be a list"),
            (json!({"land_use": "mall"}), "land_use: 'mall' is not a land use; use one of single_family_residence, agricultural, other"),
            (json!({"single_family": "yes"}), "single_family: must be true, false or null"),
            (json!({"plat_approved": "06/01/2007"}), "plat_approved: must be a date YYYY-MM-DD"),
            (json!({"owner": "me"}), "'owner' cannot be changed; the fields are: status, swppp_approval, exemption_claims, land_use"),
            (json!({"outfall": "north of here"}), "outfall: must be \"lon,lat\""),
        ] {
            let e = change(&site(json!({"status": "planned"})), body.clone()).unwrap_err();
            assert!(matches!(e, crate::Error::Input(_)), "{body}: {e:?}");
            assert!(e.to_string().contains(words), "{body}: {e}");
        }
    }

    #[test]
    fn old_rows_convert_where_certain_and_are_flagged_where_not() {
        let words = Vocabulary::default();
        let cases = [
            (
                json!({"status": "active", "approved_swppp": "2026-03-20"}),
                json!({"status": "under_construction", "swppp_approval": {"decision": "approved", "date": "2026-03-20"}}),
            ),
            (
                json!({"status": "closed", "approved_swppp": "2026-03-20 SW-9"}),
                json!({"status": "closed", "swppp_approval": {"decision": "approved", "date": "2026-03-20", "reference": "SW-9"}}),
            ),
            (
                json!({"approved_swppp": "SWPPP-2026-014"}),
                json!({"swppp_approval": {"decision": "approved", "reference": "SWPPP-2026-014"}}),
            ),
            (
                json!({"approved_swppp": "under review"}),
                json!({"swppp_approval": {"decision": "pending"}}),
            ),
            (json!({"approved_swppp": "no"}), json!({})),
            (
                json!({"status": "demolished", "approved_swppp": "see the file"}),
                json!({"status": "demolished", "approved_swppp": "see the file"}),
            ),
            // A typed approval beside the old text decides; the text is left as it is.
            (
                json!({"approved_swppp": "2026-01-01", "swppp_approval": {"decision": "denied"}}),
                json!({"approved_swppp": "2026-01-01", "swppp_approval": {"decision": "denied"}}),
            ),
        ];
        for (old, want) in cases {
            let (next, notes) = migrate::upgrade_site(&site(old.clone()), &words);
            assert_eq!(Value::Object(next.properties.clone()), want, "{old}");
            let (again, more) = migrate::upgrade_site(&next, &words);
            assert_eq!(again, next, "converting twice changes nothing: {old}");
            let flagged = notes.iter().filter(|n| n.0 == migrate::FLAG).count();
            assert_eq!(more.iter().filter(|n| n.0 == migrate::CONVERT).count(), 0);
            assert_eq!(flagged, more.len(), "only flags repeat: {old}");
        }
    }
}
