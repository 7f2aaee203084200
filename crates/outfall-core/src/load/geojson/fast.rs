//! The usual GeoJSON feature read in one pass: its members split, its geometry's positions
//! parsed straight into geo types. Anything unusual (a null or unknown geometry, an unclosed
//! ring, a bad position, a repeated or extra geometry member) is an error here, and the
//! caller takes the checked path, which names the problem. Reading the text once instead of
//! splitting it into raw members first and parsing each again took a third off the
//! converters' time on 100k parcels.

use super::props::Entries;
use super::Key;
use geo_types::{Coord, Geometry, LineString, MultiPolygon, Polygon};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::marker::PhantomData;

/// A position of 2 or 3 numbers (a third is kept only to compare ring ends).
#[derive(Clone, Copy, PartialEq)]
struct Position([f64; 3], bool);

impl<'de> serde::Deserialize<'de> for Position {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Position;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("2 or 3 numbers")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Position, A::Error> {
                let x: f64 = s
                    .next_element()?
                    .ok_or_else(|| de::Error::custom("short"))?;
                let y: f64 = s
                    .next_element()?
                    .ok_or_else(|| de::Error::custom("short"))?;
                let z: Option<f64> = s.next_element()?;
                if z.is_some() && s.next_element::<IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom("long"));
                }
                Ok(Position([x, y, z.unwrap_or(0.0)], z.is_some()))
            }
        }
        d.deserialize_seq(V)
    }
}

/// A closed ring of 4 or more positions (ends equal, a third number included), read into
/// coordinates without a list of positions first.
struct Ring(LineString<f64>);

impl<'de> serde::Deserialize<'de> for Ring {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ring;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a closed ring")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Ring, A::Error> {
                // JSON gives no length ahead, so the positions go to a buffer kept per
                // thread and the ring is allocated once at its length, instead of growing
                // a vector by doubling and trimming it after.
                thread_local! {
                    static SCRATCH: std::cell::RefCell<Vec<Coord<f64>>> =
                        const { std::cell::RefCell::new(Vec::new()) };
                }
                SCRATCH.with_borrow_mut(|coords| {
                    coords.clear();
                    let (mut first, mut last) = (None, None);
                    let read = (|| {
                        while let Some(p) = s.next_element::<Position>()? {
                            first.get_or_insert(p);
                            last = Some(p);
                            coords.push(Coord {
                                x: p.0[0],
                                y: p.0[1],
                            });
                        }
                        Ok(coords.to_vec())
                    })();
                    // A huge ring's buffer is not kept for the rest of the thread's life,
                    // whether or not the ring was well formed.
                    if coords.capacity() > 1 << 16 {
                        *coords = Vec::new();
                    }
                    let ring = read?;
                    if ring.len() < 4 || first != last {
                        return Err(de::Error::custom("not a closed ring"));
                    }
                    Ok(Ring(LineString(ring)))
                })
            }
        }
        d.deserialize_seq(V)
    }
}

/// A polygon's rings: an exterior and its holes.
struct Rings(Polygon<f64>);

impl<'de> serde::Deserialize<'de> for Rings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut rings = Vec::<Ring>::deserialize(d)?.into_iter();
        let exterior = rings.next().ok_or_else(|| de::Error::custom("no rings"))?;
        Ok(Rings(Polygon::new(
            exterior.0,
            rings.map(|r| r.0).collect(),
        )))
    }
}

/// Polygon and MultiPolygon coordinates of the named type.
fn coordinates<'de, D: Deserializer<'de>>(kind: &str, d: D) -> Result<Geometry<f64>, D::Error> {
    use serde::Deserialize;
    match kind {
        "Polygon" => Rings::deserialize(d).map(|r| Geometry::Polygon(r.0)),
        "MultiPolygon" => Vec::<Rings>::deserialize(d)
            .map(|ps| Geometry::MultiPolygon(MultiPolygon(ps.into_iter().map(|r| r.0).collect()))),
        _ => Err(de::Error::custom("not a polygon type")),
    }
}

/// A Polygon or MultiPolygon with closed, well-formed rings and no other members.
pub(super) struct FastGeometry(pub Geometry<f64>);

impl<'de> serde::Deserialize<'de> for FastGeometry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FastGeometry;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a polygon geometry")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastGeometry, A::Error> {
                let mut kind: Option<Cow<'de, str>> = None;
                let mut read: Option<Geometry<f64>> = None;
                let mut early: Option<&'de RawValue> = None;
                while let Some(key) = map.next_key::<Key>()? {
                    match (&*key.0, &kind) {
                        ("type", None) => kind = Some(map.next_value::<Key<'de>>()?.0),
                        ("coordinates", Some(k)) if read.is_none() && early.is_none() => {
                            read = Some(map.next_value_seed(Coordinates(k))?)
                        }
                        // Coordinates before the type: kept as text until the type is known.
                        ("coordinates", None) if early.is_none() => early = Some(map.next_value()?),
                        _ => return Err(de::Error::custom("not the usual geometry")),
                    }
                }
                match (kind, read, early) {
                    (Some(_), Some(g), None) => Ok(FastGeometry(g)),
                    (Some(k), None, Some(text)) => {
                        let mut de = serde_json::Deserializer::from_str(text.get());
                        coordinates(&k, &mut de)
                            .map(FastGeometry)
                            .map_err(de::Error::custom)
                    }
                    _ => Err(de::Error::custom("no type or no coordinates")),
                }
            }
        }
        d.deserialize_map(V)
    }
}

/// The coordinates member, read as the type already seen says.
struct Coordinates<'k>(&'k str);

impl<'de> de::DeserializeSeed<'de> for Coordinates<'_> {
    type Value = Geometry<f64>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Geometry<f64>, D::Error> {
        coordinates(self.0, d)
    }
}

/// A feature whose geometry is a [`FastGeometry`]; each member at most once. Its properties
/// are split into their entries in the same pass (taken as one raw value first, their text
/// was scanned twice).
pub(super) struct FastFeature<'a> {
    pub properties: Option<Entries<'a>>,
    pub id: Option<Value>,
    pub geometry: Geometry<f64>,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for FastFeature<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = FastFeature<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a feature")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastFeature<'a>, A::Error> {
                let (mut properties, mut id, mut geometry) = (None, None, None);
                let repeated = || de::Error::custom("a repeated member");
                while let Some(key) = map.next_key::<Key>()? {
                    match &*key.0 {
                        "properties" if properties.is_none() => {
                            properties = Some(map.next_value::<Entries<'de>>()?)
                        }
                        "id" if id.is_none() => id = Some(map.next_value::<Value>()?),
                        "geometry" if geometry.is_none() => {
                            geometry = Some(map.next_value::<FastGeometry>()?.0)
                        }
                        "properties" | "id" | "geometry" => return Err(repeated()),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(FastFeature {
                    properties,
                    id,
                    geometry: geometry.ok_or_else(|| de::Error::custom("no geometry"))?,
                })
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// A geometry's text through [`FastGeometry`]; None for anything unusual.
pub(super) fn fast_geometry(raw: &RawValue) -> Option<Geometry<f64>> {
    serde_json::from_str::<FastGeometry>(raw.get())
        .ok()
        .map(|g| g.0)
}
