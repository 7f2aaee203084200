//! Encoded tiles kept for the next request, bounded by count and by bytes, evicting the
//! least recently used. Dense parcel tiles run to 100 KB each, so a count alone would not
//! bound memory; emptying the whole cache when full (as it once did) made every map pan
//! after that re-encode the tiles in view.

use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Most tiles kept.
pub const CACHE_MAX_TILES: usize = 20_000;
/// Most encoded bytes kept.
pub const CACHE_MAX_BYTES: usize = 256 << 20;

/// A tile of one collection: (collection, zoom, column x, row y).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TileKey {
    pub collection: String,
    pub z: u8,
    pub x: u32,
    pub y: u32,
}

/// An encoded tile and its ETag; `None` bytes is a tile that holds nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedTile {
    pub bytes: Option<Arc<[u8]>>,
    /// A weak entity tag (`W/"…"`) from a hash of the bytes: the same tile encoded again
    /// (after a restart, or by another snapshot with the same features) keeps its tag, and
    /// a compressed answer of the same bytes may carry it too.
    pub etag: Option<String>,
}

impl CachedTile {
    pub fn new(bytes: Option<Vec<u8>>) -> CachedTile {
        let etag = bytes.as_ref().map(|b| {
            let digest = Sha256::digest(b);
            format!("W/\"{}\"", hex::encode(&digest[..12]))
        });
        CachedTile {
            bytes: bytes.map(Arc::from),
            etag,
        }
    }

    fn len(&self) -> usize {
        self.bytes.as_ref().map_or(0, |b| b.len())
    }

    /// Whether an `If-None-Match` header value names this tile (weak comparison, as
    /// RFC 9110 asks for GET; `*` matches any tile that exists).
    pub fn matches(&self, if_none_match: &str) -> bool {
        let Some(etag) = &self.etag else {
            return false;
        };
        let mine = opaque_tag(etag);
        if_none_match
            .split(',')
            .any(|t| t.trim() == "*" || opaque_tag(t) == mine)
    }
}

/// An entity tag without its weak marker (`W/"x"` and `"x"` compare equal, weakly).
fn opaque_tag(tag: &str) -> &str {
    tag.trim().trim_start_matches("W/")
}

struct Entry {
    tile: CachedTile,
    /// The tick of its last use: the key of `TileCache::recency`.
    used: u64,
}

/// The tiles, each with the tick of its last use; `recency` orders the ticks, so the
/// least recently used tile is its first entry.
pub struct TileCache {
    tiles: HashMap<TileKey, Entry>,
    recency: BTreeMap<u64, TileKey>,
    tick: u64,
    bytes: usize,
    max_tiles: usize,
    max_bytes: usize,
}

impl Default for TileCache {
    fn default() -> Self {
        TileCache::with_limits(CACHE_MAX_TILES, CACHE_MAX_BYTES)
    }
}

impl TileCache {
    pub fn with_limits(max_tiles: usize, max_bytes: usize) -> TileCache {
        TileCache {
            tiles: HashMap::new(),
            recency: BTreeMap::new(),
            tick: 0,
            bytes: 0,
            max_tiles,
            max_bytes,
        }
    }

    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// Bytes of the tiles held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// The tile, now the most recently used.
    pub fn get(&mut self, key: &TileKey) -> Option<CachedTile> {
        let tick = self.next_tick();
        let entry = self.tiles.get_mut(key)?;
        self.recency.remove(&entry.used);
        entry.used = tick;
        self.recency.insert(tick, key.clone());
        Some(entry.tile.clone())
    }

    /// Keeps `tile`, evicting the least recently used tiles until both bounds hold. A tile
    /// larger than the byte bound on its own is not kept.
    pub fn insert(&mut self, key: TileKey, tile: CachedTile) {
        self.remove(&key);
        let size = tile.len();
        if size > self.max_bytes || self.max_tiles == 0 {
            return;
        }
        while self.tiles.len() >= self.max_tiles || self.bytes + size > self.max_bytes {
            let Some((_, oldest)) = self.recency.pop_first() else {
                break;
            };
            if let Some(e) = self.tiles.remove(&oldest) {
                self.bytes -= e.tile.len();
            }
        }
        let used = self.next_tick();
        self.recency.insert(used, key.clone());
        self.bytes += size;
        self.tiles.insert(key, Entry { tile, used });
    }

    /// A new cache with the same bounds holding the tiles `keep` accepts, in their order of
    /// use. A new registry snapshot starts from this rather than from its predecessor's
    /// cache itself, into which a request still reading the old snapshot may yet put a
    /// tile.
    pub fn carried_over(&self, keep: impl Fn(&TileKey) -> bool) -> TileCache {
        let mut out = TileCache::with_limits(self.max_tiles, self.max_bytes);
        for key in self.recency.values().filter(|k| keep(k)) {
            if let Some(e) = self.tiles.get(key) {
                out.insert(key.clone(), e.tile.clone());
            }
        }
        out
    }

    fn remove(&mut self, key: &TileKey) {
        if let Some(e) = self.tiles.remove(key) {
            self.recency.remove(&e.used);
            self.bytes -= e.tile.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(x: u32) -> TileKey {
        TileKey {
            collection: "parcels".into(),
            z: 14,
            x,
            y: 1,
        }
    }

    fn tile(len: usize) -> CachedTile {
        CachedTile::new(Some(vec![7; len]))
    }

    #[test]
    fn the_least_recently_used_tile_goes_first() {
        let mut c = TileCache::with_limits(3, 1 << 20);
        for x in 0..3 {
            c.insert(key(x), tile(10));
        }
        // Using tile 0 makes tile 1 the least recently used.
        assert!(c.get(&key(0)).is_some());
        c.insert(key(3), tile(10));
        assert_eq!(c.len(), 3);
        assert!(c.get(&key(1)).is_none(), "tile 1 was least recently used");
        for x in [0, 2, 3] {
            assert!(c.get(&key(x)).is_some(), "tile {x} kept");
        }
        // Now 0 is the oldest use (0, 2, 3 were read in that order).
        c.insert(key(4), tile(10));
        assert!(c.get(&key(0)).is_none());
        assert!(c.get(&key(2)).is_some());
    }

    #[test]
    fn a_carried_over_cache_keeps_what_it_is_told_in_the_order_of_use() {
        let mut c = TileCache::with_limits(3, 1 << 20);
        for x in 0..3 {
            c.insert(key(x), tile(10));
        }
        assert!(c.get(&key(0)).is_some());
        let mut next = c.carried_over(|k| k.x != 2);
        assert_eq!((next.len(), next.bytes()), (2, 20));
        assert!(next.get(&key(2)).is_none(), "tile 2 was not kept");
        // Tile 1 is still the least recently used: the next two insertions evict it first.
        next.insert(key(3), tile(10));
        next.insert(key(4), tile(10));
        assert!(next.get(&key(1)).is_none());
        assert!(next.get(&key(0)).is_some());
        assert_eq!(c.len(), 3, "the old cache is left as it was");
    }

    #[test]
    fn the_bytes_bound_holds_and_evicts_only_what_it_must() {
        let mut c = TileCache::with_limits(100, 100);
        for x in 0..4 {
            c.insert(key(x), tile(30));
            assert!(c.bytes() <= 100);
        }
        // 4 × 30 > 100: only tile 0 had to go.
        assert_eq!(c.bytes(), 90);
        assert!(c.get(&key(0)).is_none());
        assert_eq!(c.len(), 3);
        // A tile over the bound alone is not kept, and evicts nothing.
        c.insert(key(9), tile(101));
        assert!(c.get(&key(9)).is_none());
        assert_eq!(c.len(), 3);
        // Replacing a tile counts its bytes once.
        c.insert(key(1), tile(5));
        assert_eq!(c.bytes(), 65);
    }

    #[test]
    fn empty_tiles_are_kept_without_an_etag() {
        let mut c = TileCache::with_limits(2, 10);
        c.insert(key(0), CachedTile::new(None));
        let t = c.get(&key(0)).expect("kept");
        assert!(t.bytes.is_none() && t.etag.is_none());
        assert!(!t.matches("*"));
    }

    #[test]
    fn etags_follow_the_bytes() {
        let a = CachedTile::new(Some(b"abc".to_vec()));
        let b = CachedTile::new(Some(b"abc".to_vec()));
        let c = CachedTile::new(Some(b"abd".to_vec()));
        assert_eq!(a.etag, b.etag);
        assert_ne!(a.etag, c.etag);
        let tag = a.etag.clone().unwrap();
        assert!(tag.starts_with("W/\""));
        assert!(a.matches(&tag));
        assert!(a.matches(tag.trim_start_matches("W/")));
        assert!(a.matches(&format!("\"x\", {tag}")));
        assert!(!a.matches(c.etag.as_deref().unwrap()));
        assert!(a.matches("*"));
    }
}
