//! How the entry reach is picked on real NHDPlus data: the catchment a site lies in drains to
//! its own flowline even when another flowline is nearer; cycles and empty networks are handled.

mod common;

use common::{dataset, real};
use geo::{Distance, Euclidean, InteriorPoint};
use geo_types::{polygon, Geometry};
use outfall_core::load::Feature;
use outfall_core::measure::LocalFrame;
use outfall_core::screening::{check, Subject};
use outfall_core::{Catalog, Role};
use serde_json::Map;

fn tiny_site(x: f64, y: f64) -> Subject {
    let d = 0.0002;
    let p = polygon![(x: x - d, y: y - d), (x: x + d, y: y - d), (x: x + d, y: y + d), (x: x - d, y: y + d)];
    Subject::ad_hoc(
        "probe",
        &[Feature {
            id: "probe".into(),
            geometry: Geometry::Polygon(p),
            properties: Map::new().into(),
        }],
        None,
        &Default::default(),
    )
}

#[test]
fn catchment_entry_follows_the_flow_not_the_nearest_line() {
    let Some(fl) = real("nhdplusv2-new-hope-nc/new_hope_flowlines.geojson") else {
        return;
    };
    let Some(ca) = real("nhdplusv2-new-hope-nc/new_hope_catchments.geojson") else {
        return;
    };
    let m = format!(
        "allow_outside_paths = true\n[rules]\ntrace_limit_km = 500.0\n[[layer]]\nrole = \"flowlines\"\npath = {:?}\nid_field = \"COMID\"\nname_field = \"GNIS_NAME\"\n\
         [[layer]]\nrole = \"catchments\"\npath = {:?}\nid_field = \"FEATUREID\"\n",
        fl.display().to_string(),
        ca.display().to_string()
    );
    let dir = dataset(&m, &[]);
    let cat = Catalog::open(dir.path()).unwrap();
    let flow = cat.layer(Role::Flowlines).unwrap();
    let catchments = cat.layer(Role::Catchments).unwrap();
    let mut checked = 0;
    let mut nearest_differs = 0;
    for c in catchments.features.iter().step_by(7) {
        if flow.get(&c.id).is_none() {
            continue;
        }
        let p = c.geometry.interior_point().unwrap();
        let r = check(&cat, &tiny_site(p.x(), p.y()));
        if r.entry.rule != "catchment" {
            continue; // the tiny site's interior point fell just outside (thin catchments)
        }
        checked += 1;
        assert_eq!(r.entry.reach_id.as_deref(), Some(c.id.as_str()));
        // Is another flowline nearer than the catchment's own? Then the nearest-water tools would be wrong here.
        let frame = LocalFrame::around(p.x(), p.y());
        let pm = frame.project(&Geometry::Point(p));
        let nearest = flow
            .features
            .iter()
            .min_by(|a, b| {
                Euclidean
                    .distance(&pm, &frame.project(&a.geometry))
                    .total_cmp(&Euclidean.distance(&pm, &frame.project(&b.geometry)))
            })
            .unwrap();
        if nearest.id != c.id {
            nearest_differs += 1;
        }
        // The trace starts on the catchment's flowline and ends at the basin outlet.
        assert_eq!(
            r.downstream.first().map(|d| d.id.as_str()),
            Some(c.id.as_str())
        );
        assert_eq!(r.downstream.last().map(|d| d.id.as_str()), Some("8897784"));
    }
    eprintln!("{checked} catchment entries checked; in {nearest_differs} the nearest flowline is a different one");
    assert!(checked >= 80, "only {checked} catchments checked");
    assert!(
        nearest_differs > 0,
        "expected some catchments where the nearest line is not the receiving one"
    );
}

#[test]
fn flowlines_forming_a_cycle_end_the_trace_without_hanging() {
    let gj = r#"{"type":"FeatureCollection","features":[
      {"type":"Feature","properties":{"id":"a","name":"Loop Creek"},"geometry":{"type":"LineString","coordinates":[[-76.20,43.10],[-76.19,43.10]]}},
      {"type":"Feature","properties":{"id":"b","name":"Loop Creek"},"geometry":{"type":"LineString","coordinates":[[-76.19,43.10],[-76.19,43.11]]}},
      {"type":"Feature","properties":{"id":"c","name":"Loop Creek"},"geometry":{"type":"LineString","coordinates":[[-76.19,43.11],[-76.20,43.10]]}}
    ]}"#;
    let dir = dataset("[[layer]]\nrole = \"flowlines\"\npath = \"f.geojson\"\nid_field = \"id\"\nname_field = \"name\"\n", &[("f.geojson", gj.as_bytes())]);
    let cat = Catalog::open(dir.path()).unwrap();
    let mut site = tiny_site(-76.195, 43.1003);
    // A lot in a larger common plan, so the law asks the Condition A question of it.
    std::sync::Arc::make_mut(&mut site.record).common_plan = Some(true);
    let r = check(&cat, &site);
    let ids: Vec<&str> = r.downstream.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(r.receiving_water_names, ["Loop Creek"]);
    assert_eq!(r.trace_end.as_deref(), Some("cycle (back to reach a)"));
    // No impaired list is loaded, so Condition A cannot be decided, and the finding says why.
    assert_eq!(r.conditions.a, None);
    let a = r.findings.iter().find(|f| f.rule == "condition_a").unwrap();
    assert!(
        a.missing.iter().any(|m| m.contains("303(d)")),
        "{:?}",
        a.missing
    );
}

#[test]
fn an_empty_network_file_is_a_clear_error() {
    let dir = dataset(
        "[[layer]]\nrole = \"flowlines\"\npath = \"f.geojson\"\nid_field = \"id\"\n",
        &[(
            "f.geojson",
            br#"{"type":"FeatureCollection","features":[]}"#,
        )],
    );
    let err = Catalog::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("f.geojson") && err.contains("no features"),
        "{err}"
    );
}
