//! The listed waters as a map layer when the 303(d) list is a table: the reaches and
//! waterbodies whose join key a table lists, each carrying the listing (id, name, category,
//! causes, list year). A list with geometry is served as it is; a table has nothing to draw
//! until it is joined to the network.

use super::impairment::causes_in;
use crate::config::Role;
use crate::layer::{ImpairedTable, Layer};
use crate::load::{value_text, Feature, LoadedLayer, SourceInfo};
use serde_json::{Map, Value};

/// One layer per impaired table: every flowline and waterbody whose `join_field` value is a
/// key of the table, with the listing's attributes. `None` when nothing matches (a table
/// keyed on something the network does not carry).
pub fn listed_waters_layer(
    layers: &[Layer],
    table: &ImpairedTable,
    collection_id: String,
) -> Option<Layer> {
    let mut features = Vec::new();
    for layer in layers {
        let kind = match layer.config.role {
            Role::Flowlines => "reach",
            Role::Waterbodies => "waterbody",
            _ => continue,
        };
        for f in layer.features.iter() {
            let Some(key) = layer.text(f, layer.config.join_field.as_deref()) else {
                continue;
            };
            let Some(rows) = table.rows.get(&key) else {
                continue;
            };
            let Some(props) = listing_properties(table, &key, rows) else {
                continue;
            };
            let mut props = props;
            props.insert("water_id".into(), Value::String(f.id.clone()));
            props.insert("water_kind".into(), Value::String(kind.into()));
            props.insert(
                "water_name".into(),
                Value::String(layer.name_of(f).unwrap_or_default()),
            );
            // A water id is unique within its layer only; the listing key plus the water id
            // is unique across layers.
            features.push(Feature {
                id: format!("{key}:{}", f.id),
                geometry: f.geometry.clone(),
                properties: props.into(),
            });
        }
    }
    if features.is_empty() {
        return None;
    }
    let source = SourceInfo {
        features: features.len(),
        ..table.source.clone()
    };
    let mut layer = Layer::new(
        table.config.clone(),
        collection_id,
        LoadedLayer {
            source,
            features,
            problems: Vec::new(),
            hints: Default::default(),
        },
    );
    layer.derived = Some(format!(
        "reaches and waterbodies whose join key is listed in {}",
        table.source.path
    ));
    Some(layer)
}

/// The listing of one key: its id, name, category, every cause over its rows (one row per
/// pollutant in DEC's tables) and its list year. `None` when no row names a cause.
fn listing_properties(
    table: &ImpairedTable,
    key: &str,
    rows: &[crate::load::Row],
) -> Option<Map<String, Value>> {
    let mut causes: Vec<String> = Vec::new();
    for r in rows {
        for c in causes_in(&r.clone().into(), &table.config) {
            if !causes.iter().any(|x| x.eq_ignore_ascii_case(&c)) {
                causes.push(c);
            }
        }
    }
    if causes.is_empty() {
        return None;
    }
    let cfg = &table.config;
    let first = &rows[0];
    let text = |f: &Option<String>| f.as_deref().and_then(|n| first.get(n)).and_then(value_text);
    let year: Option<i64> = text(&cfg.year_field)
        .and_then(|y| y.trim().get(..4).and_then(|y| y.parse().ok()))
        .or_else(|| {
            cfg.list_year
                .as_deref()
                .and_then(|y| y.trim().get(..4)?.parse().ok())
        });
    let mut p = Map::new();
    p.insert("id".into(), Value::String(key.to_string()));
    p.insert(
        "name".into(),
        Value::String(text(&cfg.name_field).unwrap_or_else(|| key.to_string())),
    );
    p.insert(
        "category".into(),
        text(&cfg.category_field).map_or(Value::Null, Value::String),
    );
    p.insert("causes".into(), Value::String(causes.join("; ")));
    p.insert("list_year".into(), year.map_or(Value::Null, Value::from));
    Some(p)
}
