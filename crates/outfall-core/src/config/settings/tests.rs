use super::*;
use crate::config::Manifest;
use std::collections::BTreeSet;
use std::path::Path;

fn parse(rules: &str) -> crate::Result<Manifest> {
    Manifest::parse(&format!("[rules]\n{rules}\n"), Path::new("outfall.toml"))
}

#[test]
fn every_rules_field_is_declared_once_and_every_declared_setting_is_a_field() {
    let fields: BTreeSet<String> = match serde_json::to_value(Rules::default()) {
        Ok(Value::Object(m)) => m.keys().cloned().collect(),
        other => panic!("Rules serialized to {other:?}"),
    };
    let declared: BTreeSet<String> = SETTINGS.iter().map(|s| s.name.to_string()).collect();
    assert_eq!(
        declared.len(),
        SETTINGS.len(),
        "a setting is declared twice"
    );
    assert_eq!(fields, declared);
}

#[test]
fn the_defaults_lie_within_their_bounds() {
    assert_eq!(check(&Rules::default()), Ok(()));
}

#[test]
fn each_default_as_the_docs_write_it_reads_back_as_the_default() {
    let d = Rules::default();
    for s in SETTINGS {
        let m = parse(&format!("{} = {}", s.name, s.default_toml()))
            .unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(s.value(&m.rules), s.value(&d), "{}", s.name);
    }
}

#[test]
fn a_number_outside_its_bounds_is_refused_naming_the_setting_and_its_bounds() {
    let mut tried = 0;
    for s in SETTINGS.iter().filter(|s| s.kind == "number") {
        let outside: &[(&str, &str)] = match s.bounds {
            Bounds::AtLeast(_) => &[("-1.0", "-1"), ("nan", "NaN"), ("inf", "inf")],
            Bounds::Within(..) => &[("-0.5", "-0.5"), ("1.5", "1.5"), ("nan", "NaN")],
            _ => &[],
        };
        for (written, shown) in outside {
            let err = parse(&format!("{} = {written}", s.name))
                .err()
                .unwrap_or_else(|| panic!("{} = {written} was accepted", s.name))
                .to_string();
            let want = format!(
                "rules.{} must be {}, got {shown}",
                s.name,
                s.bounds.describe()
            );
            assert!(err.contains(&want), "{err}\n  wanted: {want}");
            tried += 1;
        }
    }
    assert!(tried >= 30, "only {tried} refusals tried");
}

#[test]
fn the_share_bound_is_said_as_a_share() {
    let err = parse("impaired_match_share = 1.5")
        .err()
        .map(|e| e.to_string());
    assert!(err.is_some_and(
        |e| e.contains("rules.impaired_match_share must be a share within 0..1, got 1.5")
    ));
}

#[test]
fn the_readings_the_declaration_allows_are_the_ones_serde_reads() {
    let Some(Setting {
        bounds: Bounds::OneOf(words),
        ..
    }) = find("condition_a_causes")
    else {
        panic!("condition_a_causes is not declared as one of a list");
    };
    let readings: Vec<&str> = CauseReading::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(*words, readings.as_slice());
    for w in *words {
        let m = parse(&format!("condition_a_causes = \"{w}\"")).unwrap();
        assert_eq!(m.rules.condition_a_causes.as_str(), *w);
    }
    assert!(parse("condition_a_causes = \"some\"").is_err());
}

#[test]
fn an_unknown_rules_key_is_still_refused() {
    let err = parse("condition_b_acre = 5.0").err().map(|e| e.to_string());
    assert!(err.is_some_and(|e| e.contains("condition_b_acre")));
}

#[test]
fn the_manifest_docs_list_exactly_the_declared_settings_with_their_defaults() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/manifest.md");
    let page = std::fs::read_to_string(path).unwrap();
    let table = markdown_table();
    assert!(
        page.contains(&table),
        "docs/manifest.md does not hold the settings table as declared; paste this:\n{table}"
    );
    for s in SETTINGS {
        let row = format!("| `{}` |", s.name);
        let rows = page.lines().filter(|l| l.starts_with(&row)).count();
        assert_eq!(rows, 1, "docs/manifest.md lists {} {rows} times", s.name);
    }
}
