//! The one pass over a GeoJSON document: its top-level members kept, and its `features`
//! array handed to the converters in batches as it is scanned, never held whole.

use super::{is_safe_crs_name, legacy_crs_name, Batch, RawFeature, BATCH_BYTES, BATCH_FEATURES};
use crate::config::LayerConfig;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::sync::mpsc::SyncSender;

pub(super) struct TopVisitor<'a, T> {
    pub(super) tx: Option<SyncSender<Batch<T>>>,
    pub(super) cfg: &'a LayerConfig,
    pub(super) upload: bool,
    pub(super) forced: Option<Option<String>>,
    pub(super) top: Map<String, Value>,
    pub(super) is_object: bool,
    pub(super) features_array: bool,
    pub(super) features_crs: Option<Option<String>>,
}

/// The CRS to convert the features with when their array starts: the second pass's, else the
/// manifest's, else a legacy `crs` member among those read before it (`top`).
pub(super) fn start_crs(
    forced: &Option<Option<String>>,
    top: &Map<String, Value>,
    cfg: &LayerConfig,
    upload: bool,
) -> Option<String> {
    if let Some(forced) = forced {
        return forced.clone();
    }
    let legacy = legacy_crs_name(top).filter(|c| !upload || is_safe_crs_name(c));
    cfg.crs.clone().or(legacy)
}

impl<'de, T: RawFeature<'de>> Visitor<'de> for &mut TopVisitor<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a GeoJSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        self.is_object = true;
        while let Some(key) = map.next_key::<String>()? {
            if key == "features" {
                let crs = start_crs(&self.forced, &self.top, self.cfg, self.upload);
                let tx = self.tx.clone();
                let array = map.next_value_seed(FeaturesSeed {
                    tx,
                    crs: crs.clone(),
                })?;
                self.features_array = array;
                self.features_crs = array.then_some(crs);
                if !array {
                    // A later non-array replaces an earlier array, as in a JSON map.
                    self.top.remove("features");
                }
            } else {
                let v: Value = map.next_value()?;
                self.top.insert(key, v);
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.not_object();
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<(), E> {
        self.not_object();
        Ok(())
    }
}

impl<T> TopVisitor<'_, T> {
    fn not_object(&mut self) {
        self.is_object = false;
    }
}

/// The `features` member: an array is streamed to the converters in batches; anything else
/// is read and ignored (the caller names it). Gives whether it was an array.
struct FeaturesSeed<T> {
    tx: Option<SyncSender<Batch<T>>>,
    crs: Option<String>,
}

impl<'de, T: RawFeature<'de>> DeserializeSeed<'de> for FeaturesSeed<T> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: RawFeature<'de>> Visitor<'de> for FeaturesSeed<T> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a features array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<bool, A::Error> {
        let send = |b: Batch<T>| {
            if let Some(tx) = &self.tx {
                // The converter only stops early when the process is going down.
                let _ = tx.send(b);
            }
        };
        send(Batch::Start(self.crs.clone()));
        let mut batch = Vec::new();
        let mut bytes = 0;
        let mut first = 0;
        while let Some(raw) = seq.next_element::<T>()? {
            bytes += raw.text().map_or(0, str::len);
            batch.push(raw);
            if batch.len() >= BATCH_FEATURES || bytes >= BATCH_BYTES {
                let n = batch.len();
                send(Batch::Features(first, std::mem::take(&mut batch)));
                first += n;
                bytes = 0;
            }
        }
        if !batch.is_empty() {
            send(Batch::Features(first, batch));
        }
        Ok(true)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<bool, E> {
        Ok(false)
    }
}
