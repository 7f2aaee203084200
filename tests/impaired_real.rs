//! Receiving waters and the first impaired water on real NHDPlus + California 303(d) data,
//! EPA ATTAINS layers with per-cause columns, and cause matching on real cause strings.

mod common;

use common::{dataset, real};
use geo_types::{polygon, Geometry, Point};
use outfall_core::load::Feature;
use outfall_core::screening::{check, Subject};
use outfall_core::waters::causes_matching;
use outfall_core::{Catalog, Role, Rules};
use serde_json::Map;

fn walker_catalog(rules: &str) -> Option<Catalog> {
    let fl = real("nhdplusv2-walker-creek-ca/walker_flowlines.geojson")?;
    let wb = real("nhdplusv2-walker-creek-ca/walker_waterbodies.geojson")?;
    let lines = real("ca-303d-2014-2016/ca_303d_2014_2016_lines.geojson")?;
    let polys = real("ca-303d-2014-2016/ca_303d_2014_2016_polygons.geojson")?;
    let m = format!(
        "allow_outside_paths = true\n[rules]\n{rules}\n\
[[layer]]\nrole = \"flowlines\"\npath = {:?}\nid_field = \"COMID\"\nname_field = \"GNIS_NAME\"\n\
[[layer]]\nrole = \"waterbodies\"\npath = {:?}\nid_field = \"COMID\"\nname_field = \"GNIS_NAME\"\n\
[[layer]]\nrole = \"impaired\"\npath = {:?}\nid_field = \"wbid\"\nname_field = \"wbname\"\ncauses_field = \"pollutant\"\ncategory_field = \"int_report\"\n\
[[layer]]\nrole = \"impaired\"\npath = {:?}\nid_field = \"wbid\"\nname_field = \"wbname\"\ncauses_field = \"pollutant\"\ncategory_field = \"int_report\"\n",
        fl.display().to_string(),
        wb.display().to_string(),
        lines.display().to_string(),
        polys.display().to_string()
    );
    let dir = dataset(&m, &[]);
    Some(Catalog::open(dir.path()).expect("Walker Creek + CA 303(d) load"))
}

/// A ~40 m square site a few metres off the first vertex of a headwater flowline.
fn site_at_headwater(cat: &Catalog, comid: &str) -> Subject {
    let fl = cat.layer(Role::Flowlines).unwrap();
    let f = fl.get(comid).expect("headwater flowline");
    let Geometry::LineString(l) = &f.geometry else {
        panic!("not a line")
    };
    let p = l.0[0];
    let (dx, dy) = (0.0004, 0.0003);
    let poly = polygon![(x: p.x - dx, y: p.y - dy), (x: p.x + dx * 0.2, y: p.y - dy), (x: p.x + dx * 0.2, y: p.y + dy * 0.2), (x: p.x - dx, y: p.y + dy * 0.2)];
    let feat = Feature {
        id: format!("site-{comid}"),
        geometry: Geometry::Polygon(poly),
        properties: Map::new().into(),
    };
    Subject::ad_hoc(&format!("site-{comid}"), &[feat], None, &Default::default())
}

#[test]
fn walker_creek_first_impaired_waters_match_the_worked_examples() {
    let Some(cat) = walker_catalog("") else {
        return;
    };
    // nhdplusv2-walker-creek-ca/SOURCE.md, "First impaired water downstream".
    let cases = [
        (
            "5329435",
            "5329847",
            "CAL2011201220050602211738",
            15.10,
            &["PCBs (Polychlorinated biphenyls)", "Mercury"][..],
        ),
        (
            "5329291",
            "5329293",
            "CAR2011201319980928173807",
            5.30,
            &[
                "Mercury",
                "Nutrients",
                "Sedimentation/Siltation",
                "Pathogens",
            ][..],
        ),
        (
            "5329359",
            "5329363",
            "CAR2011201319980928173807",
            7.03,
            &[
                "Mercury",
                "Nutrients",
                "Sedimentation/Siltation",
                "Pathogens",
            ][..],
        ),
    ];
    for (head, reach, wbid, km, causes) in cases {
        let r = check(&cat, &site_at_headwater(&cat, head));
        assert_eq!(
            r.entry.reach_id.as_deref(),
            Some(head),
            "entry for {head}: {}",
            r.entry.reason
        );
        let fi = r
            .first_impaired
            .as_ref()
            .unwrap_or_else(|| panic!("no impaired water below {head}"));
        assert_eq!(fi.reach_id, reach, "first impaired reach below {head}");
        assert_eq!(fi.id, wbid);
        for c in causes {
            assert!(
                fi.causes.iter().any(|x| x == c),
                "{head}: cause {c} missing from {:?}",
                fi.causes
            );
        }
        assert!(
            (fi.distance_m / 1000.0 - km).abs() < 0.35,
            "{head}: {} km vs {km} km",
            fi.distance_m / 1000.0
        );
        // The trace reaches the network outlet.
        assert_eq!(r.downstream.last().map(|d| d.id.as_str()), Some("5329303"));
        assert_eq!(r.trace_end.as_deref(), Some("outlet"));
    }
}

#[test]
fn condition_a_scope_rule_changes_the_decision_and_the_report_shows_both_facts() {
    // Keys Creek headwater: Walker Creek (sediment, nutrients) is 5.3 km downstream.
    let Some(cat) = walker_catalog("") else {
        return;
    };
    let mut s = site_at_headwater(&cat, "5329291");
    std::sync::Arc::make_mut(&mut s.record).common_plan = Some(true);
    let r = check(&cat, &s);
    let f = r.findings.iter().find(|f| f.rule == "condition_a").unwrap();
    assert_eq!(
        f.facts.get("list_prong"),
        Some(&serde_json::Value::Bool(false)),
        "default rule: first water + 1 mile"
    );
    // No TMDL layer is loaded, so the other prong cannot be ruled out.
    assert_eq!(r.conditions.a, None, "{}", f.reason);
    assert!(
        f.reason.contains("Walker Creek") && f.reason.contains("5.3 km"),
        "{}",
        f.reason
    );

    let Some(wide) = walker_catalog("condition_a_downstream_km = 10.0") else {
        return;
    };
    let mut s = site_at_headwater(&wide, "5329291");
    // A small lot that is part of a larger common plan is a land development activity.
    std::sync::Arc::make_mut(&mut s.record).common_plan = Some(true);
    let r = check(&wide, &s);
    assert_eq!(r.conditions.land_development_activity, Some(true));
    assert_eq!(r.conditions.a, Some(true));
    let f = r.findings.iter().find(|f| f.rule == "condition_a").unwrap();
    assert!(
        f.reason.contains("Sedimentation/Siltation") || f.reason.contains("Nutrients"),
        "{}",
        f.reason
    );
    assert!(r
        .findings
        .iter()
        .any(|f| f.rule == "swppp_preparer" && f.met == Some(true)));

    // Arroyo Sausal: the first impaired water (Soulajule Reservoir) is listed for PCBs and
    // mercury only, which are not construction pollutants; Walker Creek lies further down.
    let r = check(&wide, &site_at_headwater(&wide, "5329435"));
    assert_eq!(
        r.first_impaired.as_ref().map(|f| f.id.as_str()),
        Some("CAL2011201220050602211738")
    );
    assert!(r
        .first_impaired
        .as_ref()
        .unwrap()
        .construction_causes
        .is_empty());
}

#[test]
fn a_site_far_from_any_water_gets_a_finding_not_an_error() {
    let Some(cat) = walker_catalog("") else {
        return;
    };
    let far = polygon![(x: -122.4, y: 38.6), (x: -122.399, y: 38.6), (x: -122.399, y: 38.601), (x: -122.4, y: 38.601)];
    let s = Subject::ad_hoc(
        "far",
        &[Feature {
            id: "far".into(),
            geometry: Geometry::Polygon(far),
            properties: Map::new().into(),
        }],
        None,
        &Default::default(),
    );
    let r = check(&cat, &s);
    assert_eq!(r.entry.rule, "none");
    assert!(
        r.entry.reason.contains("No receiving water within 1000 m"),
        "{}",
        r.entry.reason
    );
    assert!(r.receiving_water_names.is_empty() && r.downstream.is_empty());
    assert_eq!(r.conditions.a, None);
}

#[test]
fn outfall_point_overrides_the_nearest_water() {
    let Some(cat) = walker_catalog("") else {
        return;
    };
    // Site at the Keys Creek headwater, but its storm sewer is said to outfall on the Salmon Creek headwater.
    let fl = cat.layer(Role::Flowlines).unwrap();
    let Geometry::LineString(l) = &fl.get("5329359").unwrap().geometry else {
        panic!()
    };
    let mut s = site_at_headwater(&cat, "5329291");
    std::sync::Arc::make_mut(&mut s.record).outfall =
        outfall_core::record::Stated::Known(Point::from(l.0[1]));
    let r = check(&cat, &s);
    assert_eq!(r.entry.rule, "outfall_point");
    assert_eq!(r.entry.reach_id.as_deref(), Some("5329359"));
}

#[test]
fn attains_layers_load_with_causes_from_per_cause_columns() {
    let files = [
        (
            "epa-attains-tada-examples/potomac_wv_md_pa_attains_lines.geojson",
            62,
            30,
        ),
        (
            "epa-attains-tada-examples/poudre_co_attains_lines.geojson",
            13,
            12,
        ),
        (
            "epa-attains-tada-examples/poudre_co_attains_polygons.geojson",
            4,
            1,
        ),
    ];
    for (rel, total, impaired) in files {
        let Some(path) = real(rel) else { return };
        let m = format!(
            "allow_outside_paths = true\n[[layer]]\nrole = \"impaired\"\npath = {:?}\nid_field = \"assessmentunitidentifier\"\nname_field = \"assessmentunitname\"\ncauses_fields = [\"*\"]\ncause_value = \"Cause\"\ncategory_field = \"ircategory\"\n",
            path.display().to_string()
        );
        let dir = dataset(&m, &[]);
        let cat = Catalog::open(dir.path()).expect("ATTAINS loads");
        let layer = cat.layer(Role::Impaired).unwrap();
        assert_eq!(layer.features.len(), total, "{rel}");
        let with_causes: Vec<_> = layer
            .features
            .iter()
            .filter(|f| !outfall_core::waters::causes_in(&f.properties, &layer.config).is_empty())
            .collect();
        assert_eq!(with_causes.len(), impaired, "{rel}: features with a cause");
        // Exactly the units ATTAINS flags as impaired.
        for f in &with_causes {
            assert_eq!(
                f.properties.text("isimpaired").as_deref(),
                Some("Y"),
                "{}",
                f.id
            );
        }
    }
    // A Potomac unit impaired by sediment is construction-related.
    let Some(path) = real("epa-attains-tada-examples/potomac_wv_md_pa_attains_lines.geojson")
    else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let kw = Rules::default().construction_pollutants;
    let sediment_units = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["properties"]["sediment"] == "Cause" || f["properties"]["turbidity"] == "Cause"
        })
        .count();
    assert!(sediment_units >= 9);
    assert_eq!(
        causes_matching(&["sediment".into(), "pathogens".into()], &kw),
        vec!["sediment".to_string()]
    );
}

#[test]
fn construction_cause_matching_on_the_real_california_pollutant_names() {
    let Some(path) = real("ca-303d-2014-2016/ca_303d_2014_2016_lines.geojson") else {
        return;
    };
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut names = std::collections::BTreeSet::new();
    for f in v["features"].as_array().unwrap() {
        if let Some(p) = f["properties"]["pollutant"].as_str() {
            names.extend(outfall_core::waters::split_causes(p));
        }
    }
    assert!(names.len() > 100, "{} distinct causes", names.len());
    let all: Vec<String> = names.into_iter().collect();
    let kw = Rules::default().construction_pollutants;
    let hits = causes_matching(&all, &kw);
    for must in [
        "Sedimentation/Siltation",
        "Turbidity",
        "Nutrients",
        "Phosphorus",
    ] {
        assert!(
            hits.iter().any(|h| h == must),
            "{must} should match: {hits:?}"
        );
    }
    for must_not in [
        "Mercury",
        "Indicator Bacteria",
        "Toxicity",
        "Chlorpyrifos",
        "Oxygen, Dissolved",
        "PCBs (Polychlorinated biphenyls)",
    ] {
        assert!(
            all.iter().any(|a| a == must_not),
            "{must_not} is in the data"
        );
        assert!(
            !hits.iter().any(|h| h == must_not),
            "{must_not} should not match"
        );
    }
    eprintln!(
        "{} of {} real CA cause names are construction-related: {hits:?}",
        hits.len(),
        all.len()
    );
}
