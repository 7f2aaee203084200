//! A feature's attributes read from its raw text: member names borrowed where they can be,
//! sorted by name once per new order of names, over a key list features share.

use crate::attributes::{encode_raw, Keys, Properties};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A member name, borrowed from the text unless it has escapes.
pub(super) struct Key<'a>(pub(super) Cow<'a, str>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                s: &'de str,
            ) -> std::result::Result<Key<'a>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Key<'a>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

/// A properties object's entries in file order; anything but an object has none.
pub(super) struct Entries<'a>(pub(super) Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("properties")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Entries<'a>, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    out.push((key.0, map.next_value()?));
                }
                Ok(Entries(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Entries<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Entries(Vec::new()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Entries<'a>, E> {
                Ok(Entries(Vec::new()))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// The last feature's member names in file order, and what they sort into: every feature of
/// a file usually has the same ones, so a feature is sorted only when its names differ.
#[derive(Default)]
pub(super) struct KeyOrder {
    file_order: Vec<Box<str>>,
    /// Positions in file order, sorted by name; of a repeated name, the last.
    sorted: Vec<usize>,
    keys: Option<Keys>,
}

impl KeyOrder {
    fn learn(&mut self, names: &[(Cow<str>, &RawValue)]) {
        let same = self.keys.is_some()
            && self.file_order.len() == names.len()
            && self
                .file_order
                .iter()
                .zip(names)
                .all(|(a, (b, _))| **a == **b);
        if same {
            return;
        }
        let mut sorted: Vec<usize> = (0..names.len()).rev().collect();
        sorted.sort_by(|&a, &b| names[a].0.cmp(&names[b].0));
        sorted.dedup_by(|later, earlier| names[*later].0 == names[*earlier].0);
        let keys: Vec<Box<str>> = sorted.iter().map(|&i| Box::from(&*names[i].0)).collect();
        // The same sorted names (in another file order) keep sharing one key list.
        if self.keys.as_deref() != Some(&keys[..]) {
            self.keys = Some(Keys::from(keys));
        }
        self.file_order = names.iter().map(|(k, _)| Box::from(&**k)).collect();
        self.sorted = sorted;
    }
}

/// The attributes of `raw` (a properties member), sorted by name (of a repeated name, the
/// last, as a JSON map keeps it), over the key list of the feature before when the names are
/// the same.
pub(super) fn properties_of(raw: Option<&RawValue>, order: &mut KeyOrder) -> Properties {
    let entries = raw
        .and_then(|r| serde_json::from_str::<Entries>(r.get()).ok())
        .map(|e| e.0)
        .unwrap_or_default();
    properties_from(&entries, order)
}

/// The attributes of a properties member already split into its entries, as
/// [`properties_of`] gives them.
pub(super) fn properties_from(
    entries: &[(Cow<str>, &RawValue)],
    order: &mut KeyOrder,
) -> Properties {
    order.learn(entries);
    let keys = order.keys.clone().unwrap_or_else(|| Keys::from(Vec::new()));
    let mut text = Vec::with_capacity(entries.iter().map(|(_, v)| v.get().len()).sum());
    let mut ends = Vec::with_capacity(order.sorted.len());
    for &i in &order.sorted {
        encode_raw(entries[i].1, &mut text);
        ends.push(text.len());
    }
    let mut start = 0;
    let spans = ends.iter().enumerate().map(|(i, &end)| {
        let s = &text[start..end];
        start = end;
        (i, s)
    });
    Properties::from_encoded(keys, spans)
}
