use super::*;
use crate::vocabulary::site::Vocabulary;
use serde_json::{json, Map, Value};
use std::path::Path;

fn features(rel: &str) -> Vec<Map<String, Value>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    let text = std::fs::read_to_string(&path).expect("the file is in the repository");
    let v: Value = serde_json::from_str(&text).expect("GeoJSON");
    v["features"]
        .as_array()
        .expect("features")
        .iter()
        .map(|f| f["properties"].as_object().cloned().unwrap_or_default())
        .collect()
}

/// Tables a file may hold, one odd value each, beyond the demo's and the batch fixture's
/// (kept in a fixture, so that only the declaration names the record's fields in code).
fn odd_tables() -> Vec<Map<String, Value>> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/record_tables.json");
    let text = std::fs::read_to_string(&path).expect("the file is in the repository");
    let v: Value = serde_json::from_str(&text).expect("JSON");
    v["tables"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_object().cloned())
        .collect()
}

/// The record `Site::read` makes of every table agrees with `claims::read_claims`, value for
/// value and problem for problem, in the same order.
#[test]
fn the_typed_record_reads_what_read_claims_read() {
    let words = Vocabulary::default();
    let tables = features("data/clay/sites.geojson")
        .into_iter()
        .chain(features("tests/fixtures/batch_records.geojson"))
        .chain(odd_tables());
    let mut with_problems = 0;
    for table in tables {
        let get = |k: &str| table.get(k).cloned();
        let old = crate::claims::read_claims(&get, &words);
        let new = Site::read("S", &get, &words);
        let ctx = Value::Object(table.clone());
        assert_eq!(new.status.value, old.status, "{ctx}");
        assert_eq!(new.swppp_approval, old.approval, "{ctx}");
        assert_eq!(new.exemption_claims, old.exemptions, "{ctx}");
        assert_eq!(
            new.land_use_said(),
            (old.single_family, old.agricultural),
            "{ctx}"
        );
        assert_eq!(new.common_plan, old.common_plan, "{ctx}");
        assert_eq!(new.common_plan_acres, old.common_plan_acres, "{ctx}");
        assert_eq!(new.problems, old.problems, "{ctx}");
        with_problems += usize::from(!new.problems.is_empty());
    }
    assert!(with_problems >= 15, "the tables hold bad values");
}

/// Problems are listed status, approval, the site's evidence, the claims, land use, then the
/// common plan, each naming its field and value.
#[test]
fn problems_name_their_field_in_a_fixed_order() {
    let table = json!({
        SITE.common_plan.name: "sometimes", SITE.land_use.name: "circus",
        SITE.exemption_claims.name: [{"code": "zz", "plat_approved": "2026-02-30"}],
        "personal_use": "dunno", SITE.swppp_approval.name: {"decision": "maybe"},
        "status": "banana", "name": "Problems in every group", "outfall": "inf,43.1"
    });
    let get = |k: &str| table.get(k).cloned();
    let site = Site::read("B03", &get, &Vocabulary::default());
    assert_eq!(
        site.problems,
        [
            "status 'banana' is not a word the status vocabulary knows; map it in [vocabulary.status] to one of planned, approved, under_construction, stabilized, closed, withdrawn",
            "swppp_approval.decision 'maybe' is not a word the approval vocabulary knows (approved, denied, pending, withdrawn)",
            "personal_use 'dunno' is not yes or no (true/false)",
            "plat_approved '2026-02-30' is not a date (YYYY-MM-DD)",
            "exemption 'zz' names none of the exemptions (5)(a)-(k); write the letter or a word of [vocabulary.exemption]",
            "land_use 'circus' is not a word the land-use vocabulary knows; map it in [vocabulary.land_use] to single_family_residence, agricultural or other",
            "common_plan 'sometimes' is not yes or no (true/false)",
        ]
    );
    assert_eq!(site.status.recorded.as_deref(), Some("banana"));
    assert_eq!(site.outfall, Stated::Unreadable("inf,43.1".into()));
    assert_eq!(site.name.as_deref(), Some("Problems in every group"));
}

/// Who may state each declared field is who the registry lets state it today.
#[test]
fn the_declared_roles_are_the_registrys() {
    use crate::registry::{roles_of, AccessRole};
    for field in SITE.all().into_iter().chain(EVIDENCE.all()) {
        let applicant = roles_of(field.name).contains(&AccessRole::Applicant);
        assert_eq!(field.may == May::Applicant, applicant, "{}", field.name);
    }
}
