//! What Outfall worked out about a feature of a layer that is not a site's own (a reach's
//! impairment, a pipe's flow, a street's label), from the catalog alone. The vector tiles
//! of these layers are encoded from here, below the site reports and the law; the sites and
//! their disturbance (`Role::Sites`, `Role::Disturbance`) are presented from their reports
//! (`presentation`), which lays its own properties over these.

use crate::catalog::{Catalog, Layer};
use crate::config::Role;
use crate::load::Feature;
use geo_types::Geometry;
use serde_json::{Map, Value};

/// Whether a layer's features are presented from the sites' reports (the sites and their
/// disturbance polygons), so that their properties change with every registry edit.
pub fn reads_reports(role: Role) -> bool {
    matches!(role, Role::Sites | Role::Disturbance)
}

/// Properties served for a feature of a layer that does not read the reports: the source
/// attributes plus what the catalog worked out.
pub fn served_properties(catalog: &Catalog, layer: &Layer, index: usize) -> Map<String, Value> {
    let mut props = layer.features[index].properties.to_map();
    props.extend(derived_properties(catalog, layer, index));
    props
}

/// What [`served_properties`] lays over the source attributes: the id, and by the layer's
/// role a reach's or waterbody's impairment, a street's label, a pipe's or structure's flow.
pub fn derived_properties(catalog: &Catalog, layer: &Layer, index: usize) -> Map<String, Value> {
    let f = &layer.features[index];
    let mut props = Map::new();
    // The id in the properties too: vector tiles carry no string feature ids.
    if !f.properties.contains_key("id") {
        props.insert("id".into(), Value::String(f.id.clone()));
    }
    match layer.config.role {
        Role::Flowlines | Role::Waterbodies => water_properties(catalog, layer, index, &mut props),
        // Street labels read one key, whatever the source calls its name column.
        Role::Basemap => {
            props.insert(
                "display_name".into(),
                Value::String(layer.name_of(f).unwrap_or_default()),
            );
        }
        Role::StormPipes | Role::StormStructures => {
            storm_properties(catalog, layer, f, index, &mut props)
        }
        _ => {}
    }
    props
}

/// A structure's kind, and a pipe's evidence and whether the water runs along its
/// digitised direction: a map draws flow arrows from these, never from vertex order,
/// which a city may have drawn against the flow.
fn storm_properties(
    catalog: &Catalog,
    layer: &Layer,
    f: &Feature,
    index: usize,
    props: &mut Map<String, Value>,
) {
    let Some(net) = catalog.storm.as_ref() else {
        return;
    };
    let Some(li) = catalog.layers.iter().position(|l| std::ptr::eq(l, layer)) else {
        return;
    };
    if let Some(s) = net.structure_of(li, index) {
        props.insert("kind".into(), Value::String(s.kind.as_str().into()));
    }
    let Some(p) = net.pipe_of(li, index) else {
        return;
    };
    props.insert("evidence".into(), Value::String(p.evidence.as_str().into()));
    let first = match &f.geometry {
        Geometry::LineString(l) => l.0.first().copied(),
        Geometry::MultiLineString(m) => m.0.first().and_then(|l| l.0.first().copied()),
        _ => None,
    };
    let flow = match (p.evidence, first) {
        (crate::storm::Evidence::Undecided, _) | (_, None) => "undecided",
        (_, Some(c)) => {
            let d = |n: usize| {
                let [x, y] = net.nodes[n].at;
                (x - c.x).hypot(y - c.y)
            };
            if d(p.from) <= d(p.to) {
                "along"
            } else {
                "against"
            }
        }
    };
    props.insert("flow".into(), Value::String(flow.into()));
}

/// A reach's or waterbody's impairment (its listings' causes) and its label.
fn water_properties(
    catalog: &Catalog,
    layer: &Layer,
    index: usize,
    props: &mut Map<String, Value>,
) {
    if let Some(li) = catalog.layers.iter().position(|l| std::ptr::eq(l, layer)) {
        let hits = catalog.impairments_of_feature(li, index);
        props.insert("impaired".into(), Value::Bool(!hits.is_empty()));
        props.insert(
            "causes".into(),
            Value::String(crate::waters::all_causes_text(hits)),
        );
    }
    props.insert(
        "display_name".into(),
        Value::String(layer.name_of(&layer.features[index]).unwrap_or_default()),
    );
}
