//! The facts a finding shows, by name. A rule names its facts with literals, so the names are
//! borrowed rather than copied into a new string per fact and check (a map of owned keys was
//! a third of the law's allocations); kept in name order, so a report lists them as a
//! `serde_json::Map` of the same facts would.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactMap(Vec<(&'static str, Value)>);

impl FactMap {
    /// Sets a fact, replacing an earlier value of the same name.
    pub fn insert(&mut self, name: &'static str, v: Value) {
        match self.0.binary_search_by(|(k, _)| k.cmp(&name)) {
            Ok(i) => self.0[i].1 = v,
            Err(i) => {
                // Most rules record up to eight facts: one allocation instead of two or three.
                if self.0.capacity() == 0 {
                    self.0.reserve_exact(8);
                }
                self.0.insert(i, (name, v))
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0
            .binary_search_by(|(k, _)| (*k).cmp(name))
            .ok()
            .map(|i| &self.0[i].1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `facts["name"]`: `null` for a fact the rule did not record, as `Value`'s own index reads.
impl std::ops::Index<&str> for FactMap {
    type Output = Value;
    fn index(&self, name: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(name).unwrap_or(&NULL)
    }
}

impl Serialize for FactMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    /// The same facts set in any order, some set twice, write the JSON a `serde_json::Map`
    /// of them writes: reports keep their bytes.
    #[test]
    fn writes_what_a_json_map_of_the_same_facts_writes() {
        let sets: [(&'static str, Value); 7] = [
            ("scope_km", json!(1.609344)),
            ("reading", json!("construction")),
            ("list_prong", json!(null)),
            ("Z_upper", json!(true)),
            ("listed_in_scope", json!(["L1", "L2"])),
            ("reading", json!("all")),
            ("a", json!({"b": 1})),
        ];
        for rot in 0..sets.len() {
            let mut facts = FactMap::default();
            let mut map = Map::new();
            for (k, v) in sets.iter().cycle().skip(rot).take(sets.len()) {
                facts.insert(k, v.clone());
                map.insert(k.to_string(), v.clone());
            }
            assert_eq!(
                serde_json::to_string(&facts).unwrap(),
                serde_json::to_string(&map).unwrap()
            );
            assert_eq!(facts.len(), map.len());
            for (k, v) in &map {
                assert_eq!(&facts[k.as_str()], v);
            }
        }
        assert!(FactMap::default()["absent"].is_null());
    }
}
