//! Attributes survive the compact per-layer storage exactly: every value, every key, in the
//! order and bytes the source's sorted JSON object gives, and a missing key is not a null.

mod common;

use common::{dataset, layer_toml, real};
use outfall_core::{Catalog, Role};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

#[test]
fn bellingham_parcels_keep_every_attribute_exactly() {
    let Some(path) = real("massgis-bellingham-parcels/bellingham_ma_parcels_fy2026.geojson") else {
        return;
    };
    let dir = dataset(
        &format!(
            "allow_outside_paths = true\n{}",
            layer_toml("parcels", &path, "id_field = \"LOC_ID\"")
        ),
        &[],
    );
    let cat = Catalog::open(dir.path()).expect("Bellingham parcels load");
    let layer = cat.layer(Role::Parcels).expect("parcels layer");
    let source: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("source JSON");
    let by_id: HashMap<String, &Map<String, Value>> = source["features"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| {
            let props = f["properties"].as_object()?;
            Some((outfall_core::load::value_text(&props["LOC_ID"])?, props))
        })
        .collect();
    assert!(layer.features.len() > 6_000, "{}", layer.features.len());
    let schema = layer.features[0].properties.schema();
    for f in layer.features.iter() {
        let want = by_id[&f.id];
        // One key list for the whole layer.
        assert!(std::sync::Arc::ptr_eq(schema, f.properties.schema()));
        assert_eq!(&f.properties.to_map(), want, "{}", f.id);
        let text = serde_json::to_string(want).unwrap();
        assert_eq!(serde_json::to_string(&f.properties).unwrap(), text);
        let mut written = Vec::new();
        f.properties.write_json(&Map::new(), &mut written);
        assert_eq!(String::from_utf8(written).unwrap(), text, "{}", f.id);
        assert!(f.properties.keys().eq(want.keys().map(String::as_str)));
        for (k, v) in want {
            assert_eq!(f.properties.get(k).as_ref(), Some(v), "{} {k}", f.id);
        }
    }
}

#[test]
fn features_with_different_keys_share_the_union_and_absent_is_not_null() {
    // A repeated key keeps its last value, as a JSON map does.
    let text = r#"{"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"id": "a", "b": null, "n": 1.5},
         "geometry": {"type": "Point", "coordinates": [-76.2, 43.1]}},
        {"type": "Feature", "properties": {"id": "b", "n": 2, "c": "x", "n": 3},
         "geometry": {"type": "Point", "coordinates": [-76.2, 43.1]}}
    ]}"#;
    let (features, problems) = outfall_core::load::parse_geojson(text, "two.geojson").unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let (a, b) = (&features[0].properties, &features[1].properties);
    assert!(std::sync::Arc::ptr_eq(a.schema(), b.schema()));
    assert_eq!(a.schema().len(), 4, "id, b, c, n");
    assert_eq!(a.get("b"), Some(Value::Null));
    assert_eq!(a.get("c"), None);
    assert_eq!(b.get("b"), None);
    assert!(!b.contains_key("b") && a.contains_key("b"));
    assert_eq!(b.get("n"), Some(json!(3)));
    assert_eq!(
        serde_json::to_string(a).unwrap(),
        r#"{"b":null,"id":"a","n":1.5}"#
    );
    assert_eq!(
        serde_json::to_string(b).unwrap(),
        r#"{"c":"x","id":"b","n":3}"#
    );
}
