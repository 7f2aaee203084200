//! What `/search` looks parcels and waters up in, built once at load: the distinct words of
//! their normalized ids, names and addresses with the features holding each, and the
//! parcels in the order of their ids' numbers. A query then reads the few features that
//! may match instead of normalizing every text of every layer.

use super::{each_word, normalize, parcel_key_into};
use crate::config::Role;
use crate::layer::Layer;
use hashbrown::{DefaultHashBuilder, HashTable};
use rayon::prelude::*;
use std::hash::BuildHasher;

/// The indexed features of some layers, numbered in layer order, then feature order: the
/// order a scan of the layers would meet them in.
#[derive(Debug, Default)]
pub(crate) struct Numbering {
    /// (layer index in the catalog, number of its first feature).
    layers: Vec<(usize, u32)>,
}

impl Numbering {
    fn of(layers: &[Layer], roles: &[Role]) -> Numbering {
        let mut next = 0u32;
        let mut out = Vec::new();
        for (li, l) in layers.iter().enumerate() {
            if roles.contains(&l.config.role) {
                out.push((li, next));
                next += l.features.len() as u32;
            }
        }
        Numbering { layers: out }
    }

    /// Every (entry, (layer, feature)).
    fn each<'a>(&'a self, layers: &'a [Layer]) -> impl Iterator<Item = (u32, (usize, usize))> + 'a {
        self.layers.iter().flat_map(move |&(li, first)| {
            (0..layers[li].features.len()).map(move |fi| (first + fi as u32, (li, fi)))
        })
    }

    /// The (layer, feature) of an entry.
    pub(crate) fn locate(&self, entry: u32) -> (usize, usize) {
        let at = self
            .layers
            .partition_point(|&(_, first)| first <= entry)
            .saturating_sub(1);
        let (li, first) = self.layers.get(at).copied().unwrap_or_default();
        (li, (entry - first) as usize)
    }
}

/// The distinct words of the entries' normalized texts and the entries holding each. The
/// words are stored end to end, each after a '\n' (never in a normalized word), so one
/// pass of `memmem` over them finds a whole word ("\nword\n"), the words a part starts
/// ("\npart") or the words holding a part anywhere: a look at the vocabulary, not at
/// every feature's text.
#[derive(Debug, Default)]
pub(crate) struct Words {
    text: String,
    /// Where word i starts in `text` (after its '\n'); one more at the end.
    starts: Vec<u32>,
    /// The entries holding word i: `entries[postings[i]..postings[i + 1]]`, ascending.
    postings: Vec<u32>,
    entries: Vec<u32>,
}

impl Words {
    /// From the entries, in order, and for each the raw texts whose words it holds
    /// (`search::each_word`), which `texts` hands to its visitor. The texts are read in
    /// parallel a batch at a time, and each word is stored once: what a build holds besides
    /// the index is a word id per word read and a batch's texts.
    fn build<T: Sync>(
        entries: &[(u32, T)],
        texts: impl Fn(&T, &mut dyn FnMut(&str)) + Sync,
    ) -> Words {
        let mut w = Words::default();
        let mut table: HashTable<u32> = HashTable::new();
        let hasher = DefaultHashBuilder::default();
        // Each entry's word ids, end to end, and where each entry's end.
        let mut word_ids: Vec<u32> = Vec::new();
        let mut ends: Vec<u32> = Vec::with_capacity(entries.len());
        for batch in entries.chunks(65_536) {
            let read: Vec<(String, Vec<u32>)> = batch
                .par_chunks(4_096)
                .map(|chunk| {
                    let (mut text, mut word_ends) = (String::new(), Vec::new());
                    for (_, at) in chunk {
                        texts(at, &mut |t: &str| {
                            each_word(t, |word| {
                                text.push_str(word);
                                word_ends.push(text.len() as u32);
                            })
                        });
                        // An entry's last word ends where the next entry's first starts:
                        // u32::MAX marks the end of an entry.
                        word_ends.push(u32::MAX);
                    }
                    (text, word_ends)
                })
                .collect();
            for (text, word_ends) in &read {
                let mut start = 0;
                for &end in word_ends {
                    if end == u32::MAX {
                        ends.push(word_ids.len() as u32);
                        continue;
                    }
                    let word = &text[start as usize..end as usize];
                    start = end;
                    if !word.is_empty() {
                        word_ids.push(w.intern(&mut table, &hasher, word));
                    }
                }
            }
        }
        w.text.push('\n');
        w.starts.push(w.text.len() as u32);
        w.text.shrink_to_fit();
        drop(table);
        w.post(entries, &mut word_ids, &ends);
        w
    }

    /// The id of `word`, stored at the end of the text when it is new.
    fn intern(
        &mut self,
        table: &mut HashTable<u32>,
        hasher: &DefaultHashBuilder,
        word: &str,
    ) -> u32 {
        let Words { text, starts, .. } = self;
        let stored = |id: u32| {
            let s = starts[id as usize] as usize;
            let e = starts
                .get(id as usize + 1)
                .map_or(text.len(), |&n| n as usize - 1);
            &text[s..e]
        };
        let hash = hasher.hash_one(word);
        if let Some(&id) = table.find(hash, |&id| stored(id) == word) {
            return id;
        }
        let id = starts.len() as u32;
        text.push('\n');
        starts.push(text.len() as u32);
        text.push_str(word);
        let (text, starts) = (&*text, &*starts);
        let rehash = |&id: &u32| {
            let s = starts[id as usize] as usize;
            let e = starts
                .get(id as usize + 1)
                .map_or(text.len(), |&n| n as usize - 1);
            hasher.hash_one(&text[s..e])
        };
        table.insert_unique(hash, id, rehash);
        id
    }

    /// The entries holding each word, from each entry's word ids (`ends[k]` is where the
    /// ids of `entries[k]` end), ascending, each once.
    fn post<T>(&mut self, entries: &[(u32, T)], word_ids: &mut [u32], ends: &[u32]) {
        let mut counts = vec![0u32; self.len() + 1];
        let mut start = 0usize;
        for &end in ends {
            let ids = &mut word_ids[start..end as usize];
            ids.sort_unstable();
            let mut last = None;
            for &id in ids.iter() {
                if last != Some(id) {
                    counts[id as usize + 1] += 1;
                }
                last = Some(id);
            }
            start = end as usize;
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        self.entries = vec![0; counts.last().copied().unwrap_or(0) as usize];
        let mut next = counts.clone();
        let mut start = 0usize;
        for ((entry, _), &end) in entries.iter().zip(ends) {
            let mut last = None;
            for &id in &word_ids[start..end as usize] {
                if last != Some(id) {
                    self.entries[next[id as usize] as usize] = *entry;
                    next[id as usize] += 1;
                }
                last = Some(id);
            }
            start = end as usize;
        }
        self.postings = counts;
    }

    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    fn bytes(&self) -> usize {
        self.text.capacity()
            + 4 * (self.starts.capacity() + self.postings.capacity() + self.entries.capacity())
    }

    fn holding(&self, i: usize) -> &[u32] {
        &self.entries[self.postings[i] as usize..self.postings[i + 1] as usize]
    }

    /// The words where `needle` occurs in the stored text, each once.
    fn found(&self, needle: &str) -> Vec<usize> {
        let mut out: Vec<usize> = memchr::memmem::find_iter(self.text.as_bytes(), needle)
            .map(|at| self.starts[1..].partition_point(|&end| end as usize <= at + 1))
            .collect();
        out.dedup();
        out
    }

    /// The entries whose texts may hold the normalized `query`, ascending: every entry
    /// that does, and maybe some that do not (the caller ranks each).
    pub(crate) fn candidates(&self, query: &str) -> Vec<u32> {
        let parts: Vec<&str> = query.split(' ').filter(|p| !p.is_empty()).collect();
        let words: Vec<usize> = match parts.as_slice() {
            [] => Vec::new(),
            // A query without a space lies inside one word of the text.
            [one] => self.found(one),
            // Between the first and last, a query's words are whole words of the text,
            // and the last starts one: whichever holds the fewest entries is read.
            [_, middle @ .., last] => middle
                .iter()
                .map(|m| self.found(&format!("\n{m}\n")))
                .chain(std::iter::once(self.found(&format!("\n{last}"))))
                .min_by_key(|ws| ws.iter().map(|&i| self.holding(i).len()).sum::<usize>())
                .unwrap_or_default(),
        };
        let mut out: Vec<u32> = words
            .iter()
            .flat_map(|&i| self.holding(i).iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The entries whose id is a tax map number, in the order of its numbers (`parcel_key`).
/// The keys are written end to end, in parallel, and sorted as slices of that text.
fn key_order<'a, T: Sync>(entries: &[(u32, T)], id_of: impl Fn(&T) -> &'a str + Sync) -> Vec<u32> {
    // Per chunk: its keys end to end, and each key's entry and end.
    type Keys = (String, Vec<(u32, u32)>);
    let chunks: Vec<Keys> = entries
        .par_chunks(16_384)
        .map(|chunk| {
            let (mut text, mut ends) = (String::new(), Vec::new());
            for (entry, at) in chunk {
                if parcel_key_into(id_of(at), &mut text) {
                    ends.push((*entry, text.len() as u32));
                }
            }
            (text, ends)
        })
        .collect();
    let mut keyed: Vec<(&str, u32)> = Vec::new();
    for (text, ends) in &chunks {
        let mut start = 0;
        for &(entry, end) in ends {
            keyed.push((&text[start..end as usize], entry));
            start = end as usize;
        }
    }
    keyed.par_sort_unstable();
    keyed.into_iter().map(|(_, e)| e).collect()
}

/// The parcels and waters of a catalog as `/search` looks them up.
#[derive(Debug, Default)]
pub struct SearchIndex {
    pub(crate) parcels: Numbering,
    /// Words of each parcel's id and name (its address).
    pub(crate) parcel_words: Words,
    /// Parcels whose id is a tax map number, in the order of its numbers (`parcel_key`),
    /// which a lookup computes again for the few it compares.
    pub(crate) parcel_keys: Vec<u32>,
    pub(crate) waters: Numbering,
    /// Words of each water's name.
    pub(crate) water_words: Words,
    /// Waters by their normalized PWL id (the layer's join field), sorted.
    pub(crate) water_ids: Vec<(String, u32)>,
}

impl SearchIndex {
    pub fn build(layers: &[Layer]) -> SearchIndex {
        let started = std::time::Instant::now();
        let parcels = Numbering::of(layers, &[Role::Parcels]);
        let waters = Numbering::of(layers, &[Role::Flowlines, Role::Waterbodies]);
        let parcel_entries: Vec<(u32, (usize, usize))> = parcels.each(layers).collect();
        let parcel_words = Words::build(&parcel_entries, |&(li, fi), visit| {
            let (l, f) = (&layers[li], &layers[li].features[fi]);
            visit(&f.id);
            visit(&l.name_of(f).unwrap_or_default());
        });
        let parcel_keys = key_order(&parcel_entries, |&(li, fi)| &layers[li].features[fi].id);
        let water_entries: Vec<(u32, (usize, usize))> = waters.each(layers).collect();
        let water_words = Words::build(&water_entries, |&(li, fi), visit| {
            let l = &layers[li];
            visit(&l.name_of(&l.features[fi]).unwrap_or_default());
        });
        let mut water_ids: Vec<(String, u32)> = waters
            .each(layers)
            .filter_map(|(e, (li, fi))| {
                let l = &layers[li];
                let id = l.text(&l.features[fi], l.config.join_field.as_deref())?;
                Some((normalize(&id), e))
            })
            .collect();
        water_ids.sort_unstable();
        tracing::info!(
            parcels = parcel_entries.len(),
            words = parcel_words.len() + water_words.len(),
            mib = (parcel_words.bytes() + water_words.bytes() + 4 * parcel_keys.capacity()) as f64
                / 1048576.0,
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "search index built"
        );
        SearchIndex {
            parcels,
            parcel_words,
            parcel_keys,
            waters,
            water_words,
            water_ids,
        }
    }

    /// Parcels whose id's numbers are `key` or start with it ("55-1" holds "55-1-7"),
    /// ascending; `key_of` gives an entry's key.
    pub(crate) fn parcels_by_key(
        &self,
        key: &str,
        key_of: impl Fn(u32) -> Option<String>,
    ) -> Vec<u32> {
        let keys = &self.parcel_keys;
        let below =
            |bound: &str| keys.partition_point(|&e| key_of(e).is_some_and(|k| k.as_str() < bound));
        // After `key` come the keys that continue it with '-' and then '.' (the next
        // character), so `key`'s parts are the keys from `key` up to `key` + ".".
        let (lo, hi) = (below(key), below(&format!("{key}.")));
        let mut out: Vec<u32> = keys[lo..hi]
            .iter()
            .copied()
            .filter(|&e| key_of(e).is_some_and(|k| k == key || k.starts_with(&format!("{key}-"))))
            .collect();
        out.sort_unstable();
        out
    }

    /// Waters whose PWL id is the normalized `query`, ascending.
    pub(crate) fn waters_by_id(&self, query: &str) -> Vec<u32> {
        let ids = &self.water_ids;
        let lo = ids.partition_point(|(id, _)| id.as_str() < query);
        let mut out: Vec<u32> = ids[lo..]
            .iter()
            .take_while(|(id, _)| id == query)
            .map(|&(_, e)| e)
            .collect();
        out.sort_unstable();
        out
    }
}
