//! A feature's source attributes, stored compactly: the layer's sorted key list is shared by
//! every feature (one `Arc`), and each feature keeps one allocation holding its values
//! pre-encoded as compact JSON. A `serde_json::Map` per feature (a B-tree of owned keys and
//! value trees) cost several KB per parcel, more than its coordinates; this is the values'
//! JSON text plus 2 bytes of offset per key (4 past 64 KiB of text).
//!
//! A value is stored exactly as serde_json writes it, so the object serializes byte for byte
//! as the sorted `Map` did. A key a feature lacks (a layer whose features differ in their
//! keys shares the union) is an empty span: absent, which is not `null`.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A sorted list of unique attribute names, shared by the features of a layer.
pub type Keys = Arc<[Box<str>]>;

/// One feature's attributes: `keys` (shared) and, in `data`, one little-endian end offset
/// per key (`u16`, or `u32` when the text passes 64 KiB) followed by the values' JSON text;
/// value `i` spans from the end of value `i - 1` to its own end, and an empty span is an
/// absent key.
#[derive(Clone)]
pub struct Properties {
    keys: Keys,
    data: Box<[u8]>,
}

impl Default for Properties {
    fn default() -> Self {
        Properties {
            keys: Arc::from(Vec::<Box<str>>::new()),
            data: Box::default(),
        }
    }
}

impl Properties {
    /// Attributes over `keys` (sorted, unique) from `values`: for each key's position, its
    /// compact JSON text, in increasing position order. Positions not given are absent.
    pub fn from_encoded<'a>(
        keys: Keys,
        values: impl IntoIterator<Item = (usize, &'a [u8])>,
    ) -> Self {
        let values: Vec<(usize, &[u8])> = values.into_iter().collect();
        debug_assert!(values.windows(2).all(|w| w[0].0 < w[1].0));
        let text_len: usize = values.iter().map(|(_, t)| t.len()).sum();
        let mut end = 0usize;
        let ends = values.iter().map(|(i, t)| {
            end += t.len();
            (*i, end)
        });
        let mut data = offsets(keys.len(), text_len, ends);
        for (_, t) in &values {
            data.extend_from_slice(t);
        }
        Properties {
            keys,
            data: data.into_boxed_slice(),
        }
    }

    /// The stored form over the key list: the end offsets, then the values' JSON text (see
    /// the type's notes). [`Properties::from_stored`] takes it back.
    pub fn stored(&self) -> &[u8] {
        &self.data
    }

    /// Attributes over `keys` from their stored form ([`Properties::stored`]), checked so
    /// that every value's span lies within the text and follows the one before: `None` when
    /// it does not, or when a span does not cut the text between characters.
    pub fn from_stored(keys: Keys, data: &[u8]) -> Option<Properties> {
        let p = Properties {
            keys,
            data: data.into(),
        };
        let n = p.keys.len();
        let w = offset_width(data.len().checked_sub(2 * n)?);
        let text = std::str::from_utf8(data.get(w * n..)?).ok()?;
        let mut last = 0usize;
        for i in 0..n {
            let end = p.end(i, w);
            if end < last || !text.is_char_boundary(end) {
                return None;
            }
            last = end;
        }
        (last == text.len()).then_some(p)
    }

    /// The shared key list (every key of the layer, present here or not).
    pub fn schema(&self) -> &Keys {
        &self.keys
    }

    /// The width of each end offset: 2 bytes when the values' text fits in 64 KiB (a
    /// parcel's is about 300 bytes), else 4. The data's length tells which (see [`offset_width`]).
    fn width(&self) -> usize {
        let n = self.keys.len();
        offset_width(self.data.len().saturating_sub(2 * n))
    }

    fn end(&self, i: usize, w: usize) -> usize {
        let mut b = [0u8; 4];
        b[..w].copy_from_slice(&self.data[w * i..w * i + w]);
        u32::from_le_bytes(b) as usize
    }

    /// The JSON text of the value at key position `i`, or None when absent.
    fn raw_at(&self, i: usize) -> Option<&str> {
        let w = self.width();
        let base = w * self.keys.len();
        let start = if i == 0 { 0 } else { self.end(i - 1, w) };
        let end = self.end(i, w);
        // The text was written from `&str`s, so it is UTF-8; an empty span is absent.
        (end > start)
            .then(|| std::str::from_utf8(&self.data[base + start..base + end]).ok())
            .flatten()
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.keys.binary_search_by(|k| (**k).cmp(key)).ok()
    }

    /// The value's compact JSON text.
    pub fn raw(&self, key: &str) -> Option<&str> {
        self.raw_at(self.position(key)?)
    }

    pub fn get(&self, key: &str) -> Option<Value> {
        self.raw(key).map(value_of)
    }

    /// The value as text ([`value_text`]): None when absent, null or blank.
    pub fn text(&self, key: &str) -> Option<String> {
        self.get(key).as_ref().and_then(value_text)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.raw(key).is_some()
    }

    /// Each present key with its value's JSON text, in key order.
    pub fn raw_iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        (0..self.keys.len()).filter_map(|i| self.raw_at(i).map(|t| (&*self.keys[i], t)))
    }

    /// Each present key with its value, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Value)> + '_ {
        self.raw_iter().map(|(k, t)| (k, value_of(t)))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.raw_iter().map(|(k, _)| k)
    }

    pub fn len(&self) -> usize {
        self.raw_iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.raw_iter().next().is_none()
    }

    pub fn to_map(&self) -> Map<String, Value> {
        self.iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    /// The same attributes over `keys`, a sorted superset of this feature's key list.
    pub fn with_keys(&self, keys: &Keys) -> Properties {
        let mut values = Vec::with_capacity(keys.len());
        let mut mine = self.raw_iter().peekable();
        for (i, k) in keys.iter().enumerate() {
            if let Some(&(mk, text)) = mine.peek() {
                if mk == &**k {
                    values.push((i, text.as_bytes()));
                    mine.next();
                }
            }
        }
        Properties::from_encoded(keys.clone(), values)
    }

    /// Writes the attributes as a JSON object, with `derived` laid over them (a derived value
    /// replaces a stored one of the same key), keys in sorted order as a `Map` writes them.
    pub fn write_json(&self, derived: &Map<String, Value>, out: &mut Vec<u8>) {
        out.push(b'{');
        let mut first = true;
        let mut key = |out: &mut Vec<u8>, k: &str| {
            if !std::mem::take(&mut first) {
                out.push(b',');
            }
            // Writing a string into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *out, k);
            out.push(b':');
        };
        let mut a = self.raw_iter().peekable();
        let mut b = derived.iter().peekable();
        loop {
            let take_stored = match (a.peek(), b.peek()) {
                (Some((ka, _)), Some((kb, _))) => match (*ka).cmp(kb.as_str()) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Greater => false,
                    std::cmp::Ordering::Equal => {
                        a.next();
                        false
                    }
                },
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_stored {
                if let Some((k, text)) = a.next() {
                    key(out, k);
                    out.extend_from_slice(text.as_bytes());
                }
            } else if let Some((k, v)) = b.next() {
                key(out, k);
                let _ = serde_json::to_writer(&mut *out, v);
            }
        }
        out.push(b'}');
    }
}

/// The offset table of `n` keys over `text_len` bytes of values, from each given value's
/// (key position, end) in increasing position order, with room for the text after it. A key
/// not given is absent: it ends where the value before it ended.
fn offsets(n: usize, text_len: usize, ends: impl Iterator<Item = (usize, usize)>) -> Vec<u8> {
    let w = offset_width(text_len);
    let mut data = Vec::with_capacity(w * n + text_len);
    data.resize(w * n, 0);
    let (mut end, mut given) = (0usize, ends.peekable());
    for i in 0..n {
        if let Some((_, e)) = given.next_if(|(j, _)| *j == i) {
            end = e;
        }
        data[w * i..w * i + w].copy_from_slice(&(end as u32).to_le_bytes()[..w]);
    }
    data
}

/// Bytes per end offset for values' text of `text_len` bytes. With two-byte offsets the data
/// is `2n + text_len` bytes; with four, `4n + text_len` where `text_len > u16::MAX`, so
/// `data.len() - 2n` exceeds `u16::MAX` exactly when the offsets are four bytes wide.
fn offset_width(text_len: usize) -> usize {
    if text_len <= u16::MAX as usize {
        2
    } else {
        4
    }
}

/// The value a stored text stands for. A float is read with the standard library's correctly
/// rounded parser: the text is the shortest one that reads back as the value, but serde_json's
/// own fast parser can miss it by an ulp past 15 significant digits.
fn value_of(text: &str) -> Value {
    let float = text.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
        && text.contains(['.', 'e', 'E']);
    if float {
        if let Some(v) = text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
        {
            return Value::Number(v);
        }
    }
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// Appends `raw` (one JSON value's text) as serde_json would write the value it parses to:
/// strings without escapes, literals and plain integers are already in that form; anything
/// else (floats, escapes, arrays, objects) goes through a `Value`.
pub fn encode_raw(raw: &RawValue, out: &mut Vec<u8>) {
    let t = raw.get().trim();
    let b = t.as_bytes();
    let verbatim = match b.first() {
        Some(b'"') => !b.contains(&b'\\'),
        Some(b't' | b'f' | b'n') => matches!(t, "true" | "false" | "null"),
        Some(b'-' | b'0'..=b'9') => {
            let digits = t.strip_prefix('-').unwrap_or(t);
            // i64/u64 print back as written; "-0" and long runs become floats.
            !digits.is_empty()
                && digits.len() <= 18
                && digits.bytes().all(|c| c.is_ascii_digit())
                && t != "-0"
        }
        _ => false,
    };
    if verbatim {
        out.extend_from_slice(b);
    } else {
        let v: Value = serde_json::from_str(t).unwrap_or(Value::Null);
        let _ = serde_json::to_writer(&mut *out, &v);
    }
}

impl From<Map<String, Value>> for Properties {
    fn from(map: Map<String, Value>) -> Self {
        let keys: Keys = map.keys().map(|k| Box::from(k.as_str())).collect();
        let texts: Vec<Vec<u8>> = map
            .values()
            .map(|v| serde_json::to_vec(v).unwrap_or_default())
            .collect();
        Properties::from_encoded(keys, texts.iter().map(Vec::as_slice).enumerate())
    }
}

impl From<&Properties> for Map<String, Value> {
    fn from(p: &Properties) -> Self {
        p.to_map()
    }
}

impl PartialEq for Properties {
    fn eq(&self, other: &Self) -> bool {
        self.raw_iter().eq(other.raw_iter())
    }
}

impl std::fmt::Debug for Properties {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.raw_iter()).finish()
    }
}

impl Serialize for Properties {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, v) in self.iter() {
            m.serialize_entry(k, &v)?;
        }
        m.end()
    }
}

/// The union of some attributes' key lists, sorted: the one list itself when they all share
/// it (the usual case: one schema per file); `None` for no attributes.
pub fn union_keys<'a>(all: impl IntoIterator<Item = &'a Properties>) -> Option<Keys> {
    let mut distinct: Vec<Keys> = Vec::new();
    for p in all {
        if !distinct
            .iter()
            .any(|k| Arc::ptr_eq(k, &p.keys) || **k == *p.keys)
        {
            distinct.push(p.keys.clone());
        }
    }
    match distinct.as_slice() {
        [] => None,
        [only] => Some(only.clone()),
        many => {
            let mut u: Vec<Box<str>> = many.iter().flat_map(|k| k.iter().cloned()).collect();
            u.sort();
            u.dedup();
            Some(u.into())
        }
    }
}

/// Gives every feature of a layer one shared key list: the union of their keys. Features
/// whose list is already that one (the usual case: one schema per file) are left as they are.
pub fn share_keys<T>(items: &mut [T], props: impl Fn(&mut T) -> &mut Properties) {
    let Some(union) = union_keys(items.iter_mut().map(|i| &*props(i))) else {
        return;
    };
    for p in items.iter_mut().map(&props) {
        if Arc::ptr_eq(&p.keys, &union) {
            continue;
        }
        if *p.keys == *union {
            p.keys = union.clone();
        } else {
            *p = p.with_keys(&union);
        }
    }
}

/// A property value as text, or None when null or blank.
pub fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => {
            let t = s.trim();
            (!t.is_empty()).then(|| t.to_string())
        }
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        }),
        Value::Bool(b) => Some(b.to_string()),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn props(v: Value) -> Properties {
        match v {
            Value::Object(m) => m.into(),
            _ => unreachable!(),
        }
    }

    /// The stored form reads back as the same attributes, a long text's four-byte offsets
    /// included; a stored form that does not fit its key list is refused, never read out
    /// of range.
    #[test]
    fn the_stored_form_reads_back_and_a_broken_one_is_refused() {
        let mut layer = [
            props(json!({"a": 1, "b": null, "c": "é x"})),
            props(json!({"a": 2.5, "d": [1, {"y": "z"}]})),
            props(json!({"c": "x".repeat(70_000)})),
        ];
        share_keys(&mut layer, |p| p);
        for p in &layer {
            let back = Properties::from_stored(p.schema().clone(), p.stored()).expect("reads back");
            assert_eq!(back.to_map(), p.to_map());
            assert_eq!(back.stored(), p.stored());
        }
        let keys = layer[0].schema().clone();
        let good = layer[0].stored().to_vec();
        // Cut short, one byte too many, an offset past the text, offsets out of order, a
        // span that cuts "é" in two, and a key list longer than the offsets.
        let n = keys.len();
        let text_len = good.len() - 2 * n;
        let mut past = good.clone();
        past[2 * n - 2..2 * n].copy_from_slice(&((text_len + 1) as u16).to_le_bytes());
        let mut backwards = good.clone();
        backwards.swap(0, 2);
        let e_at = good
            .windows(2)
            .position(|w| w == "é".as_bytes())
            .expect("é");
        let mut split = good.clone();
        // `b`'s end moved from after "null" to the middle of "é": still in order.
        split[2..4].copy_from_slice(&((e_at - 2 * n + 1) as u16).to_le_bytes());
        let longer: Keys = ["a", "b", "c", "d", "e", "f", "g", "h"]
            .iter()
            .map(|k| Box::from(*k))
            .collect();
        for (why, keys, data) in [
            ("cut short", keys.clone(), &good[..good.len() - 1]),
            (
                "too long",
                keys.clone(),
                &[good.as_slice(), b"x"].concat()[..],
            ),
            ("past the text", keys.clone(), &past[..]),
            ("out of order", keys.clone(), &backwards[..]),
            ("inside a character", keys.clone(), &split[..]),
            ("more keys than offsets", longer, &good[..]),
        ] {
            assert!(Properties::from_stored(keys, data).is_none(), "{why}");
        }
    }

    #[test]
    fn absent_is_not_null() {
        let mut layer = [
            props(json!({"a": 1, "b": null})),
            props(json!({"a": 2, "c": "x"})),
        ];
        share_keys(&mut layer, |p| p);
        assert!(Arc::ptr_eq(layer[0].schema(), layer[1].schema()));
        assert_eq!(layer[0].schema().len(), 3);
        // The first has `b` as null and no `c`; the second no `b`.
        assert_eq!(layer[0].get("b"), Some(Value::Null));
        assert!(layer[0].contains_key("b"));
        assert_eq!(layer[0].get("c"), None);
        assert!(!layer[0].contains_key("c"));
        assert_eq!(layer[1].get("b"), None);
        assert_eq!(layer[1].get("c"), Some(json!("x")));
        assert_eq!(
            serde_json::to_string(&layer[0]).unwrap(),
            r#"{"a":1,"b":null}"#
        );
        assert_eq!(
            serde_json::to_string(&layer[1]).unwrap(),
            r#"{"a":2,"c":"x"}"#
        );
        assert_eq!(layer[1].keys().collect::<Vec<_>>(), ["a", "c"]);
        assert_eq!(layer[0].len(), 2);
    }

    #[test]
    fn values_write_as_the_sorted_map_wrote_them() {
        let text = r#"{"z":861.53418461700005,"b":"é \u00e9 \"q\"","a":[1,{"y":2,"x":1e2}],"n":-0,"i":-12,"big":123456789012345678901,"t":true,"e":""}"#;
        let map: Map<String, Value> = serde_json::from_str(text).unwrap();
        // Encoded from the raw text, as the GeoJSON reader does.
        let raw: Vec<(String, Box<RawValue>)> = {
            let m: std::collections::BTreeMap<String, Box<RawValue>> =
                serde_json::from_str(text).unwrap();
            m.into_iter().collect()
        };
        let keys: Keys = raw.iter().map(|(k, _)| Box::from(k.as_str())).collect();
        let texts: Vec<Vec<u8>> = raw
            .iter()
            .map(|(_, r)| {
                let mut out = Vec::new();
                encode_raw(r, &mut out);
                out
            })
            .collect();
        let from_raw = Properties::from_encoded(keys, texts.iter().map(Vec::as_slice).enumerate());
        let from_map = Properties::from(map.clone());
        let expected = serde_json::to_string(&map).unwrap();
        assert_eq!(serde_json::to_string(&from_raw).unwrap(), expected);
        assert_eq!(serde_json::to_string(&from_map).unwrap(), expected);
        let mut written = Vec::new();
        from_raw.write_json(&Map::new(), &mut written);
        assert_eq!(String::from_utf8(written).unwrap(), expected);
        assert_eq!(from_raw.to_map(), map);
        // A derived value replaces the stored one of its key and lands in key order.
        let derived: Map<String, Value> =
            serde_json::from_value(json!({"b": 1, "c": 2, "zz": 3})).unwrap();
        let mut merged = map.clone();
        merged.extend(derived.clone());
        let mut written = Vec::new();
        from_raw.write_json(&derived, &mut written);
        assert_eq!(
            String::from_utf8(written).unwrap(),
            serde_json::to_string(&merged).unwrap()
        );
    }

    /// Offsets are two bytes up to 64 KiB of values' text and four past it; values read back
    /// the same on both sides of the line, absent keys included.
    #[test]
    fn long_text_reads_back_across_the_offset_width() {
        for len in [0usize, 10, 65_520, 65_533, 65_534, 65_535, 65_536, 200_000] {
            let long = "x".repeat(len);
            let p = props(json!({"a": 1, "b": long, "d": null}));
            let mut layer = [p, props(json!({"c": "y"}))];
            share_keys(&mut layer, |p| p);
            assert_eq!(layer[0].get("b"), Some(json!(long)), "{len}");
            assert_eq!(layer[0].get("a"), Some(json!(1)), "{len}");
            assert_eq!(layer[0].get("c"), None, "{len}");
            assert_eq!(layer[0].get("d"), Some(Value::Null), "{len}");
            assert_eq!(layer[0].len(), 3, "{len}");
        }
    }

    /// Attributes made value by value read back the same through their stored form, with
    /// absent keys, a null, and text on both sides of the offset width's line.
    #[test]
    fn values_read_back_through_the_stored_form() {
        let keys: Keys = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|k| Box::from(*k))
            .collect();
        for long in [3usize, 70_000] {
            let b = serde_json::to_vec(&"x".repeat(long)).unwrap();
            let values: Vec<(usize, Vec<u8>)> =
                vec![(1, b"12".to_vec()), (2, b"null".to_vec()), (4, b)];
            let made = Properties::from_encoded(
                keys.clone(),
                values.iter().map(|(i, v)| (*i, v.as_slice())),
            );
            let a = Properties::from_stored(keys.clone(), made.stored()).expect("reads back");
            assert_eq!(a.data, made.data, "{long}");
            assert_eq!(a.get("a"), None);
            assert_eq!(a.get("b"), Some(json!(12)));
            assert_eq!(a.get("c"), Some(Value::Null));
            assert_eq!(a.get("d"), None);
            assert_eq!(a.get("e"), Some(json!("x".repeat(long))));
        }
    }
}
