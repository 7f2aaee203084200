use super::*;
use crate::vocabulary::site::Vocabulary;
use serde_json::{json, Value};
use std::path::Path;

/// The record fixture: site tables with odd values, and what the record reads of each.
fn fixture() -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/record_tables.json");
    let text = std::fs::read_to_string(&path).expect("the file is in the repository");
    serde_json::from_str(&text).expect("JSON")
}

/// Each odd table reads as recorded: the report block's values and the problems, in order
/// (kept in a fixture, so that only the declaration names the record's fields in code).
#[test]
fn odd_tables_read_as_recorded() {
    let words = Vocabulary::default();
    let fixture = fixture();
    let empty = fixture["empty"].as_object().cloned().unwrap_or_default();
    let mut with_problems = 0;
    for t in fixture["tables"].as_array().into_iter().flatten() {
        let table = t["table"].as_object().cloned().unwrap_or_default();
        let site = Site::read("S", &|k: &str| table.get(k).cloned(), &words);
        let mut want = empty.clone();
        want.extend(t["reads"].as_object().cloned().unwrap_or_default());
        let got = serde_json::to_value(Shown(&site)).expect("a block");
        assert_eq!(got, Value::Object(want), "{}", t["table"]);
        with_problems += usize::from(!site.problems.is_empty());
    }
    assert!(with_problems >= 7, "the tables hold bad values");
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

/// The record's report block and problems, as a report shows them (land use as stated).
struct Shown<'a>(&'a Site);

impl serde::Serialize for Shown<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (single_family, agricultural) = self.0.land_use_said();
        let cx = Outcomes {
            single_family,
            agricultural,
            verified: Vec::new(),
        };
        let mut map = s.serialize_map(None)?;
        self.0.report_block(&cx, &mut map)?;
        map.serialize_entry("record_problems", &self.0.problems)?;
        map.end()
    }
}
