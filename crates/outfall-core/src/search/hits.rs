//! A search over the sites, waters and parcels of a catalog: the query read once, the
//! candidates looked up in the catalog's `SearchIndex`, each ranked as `rank` says, best
//! first.

use crate::catalog::Catalog;
use crate::layer::Layer;
use crate::names::{key_rank, names_street, normalize, parcel_key, rank, Match};
use crate::report::Report;
use geo::BoundingRect;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// The longest query read, in characters: longer than any id, name or address.
pub const MAX_QUERY_CHARS: usize = 200;

/// Results of one search.
const MAX_HITS: usize = 25;

/// A typed query, normalized once.
#[derive(Debug, Clone)]
pub struct Query {
    text: String,
    /// Its numbers when it is a tax map number ("55-1-7").
    key: Option<String>,
    /// It names a street ("Buckley Rd").
    street: bool,
}

impl Query {
    pub fn new(typed: &str) -> Query {
        let text = normalize(typed);
        Query {
            key: parcel_key(&text),
            street: names_street(&text),
            text,
        }
    }

    /// The normalized text; empty when nothing searchable was typed.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// One result. Fields in name order, as the answer has always listed them.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub bbox: Option<[f64; 4]>,
    pub id: String,
    /// "site", "water" or "parcel".
    pub kind: &'static str,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pwl_id: Option<String>,
}

/// A hit before it is written: how well, its kind's order, its label, and where it is.
struct Found {
    how: Match,
    order: u8,
    label: String,
    what: Where,
    pwl_id: Option<String>,
}

enum Where {
    Site {
        id: String,
        bbox: Option<[f64; 4]>,
    },
    Feature {
        kind: &'static str,
        layer: usize,
        feature: usize,
    },
}

/// Sites, waters and parcels whose id, name or address matches: whole words first, then
/// word starts, then letters inside a word; sites, then waters, then parcels; then by label.
/// Sites are read from their reports (they change with the registry); waters and parcels
/// from the catalog's index.
pub fn find(catalog: &Catalog, reports: &HashMap<String, Report>, q: &Query) -> Vec<Hit> {
    let mut found = sites(reports, q);
    found.extend(waters(catalog, q));
    found.extend(parcels(catalog, q));
    found.sort_by(|a, b| (a.how, a.order, &a.label).cmp(&(b.how, b.order, &b.label)));
    found.truncate(MAX_HITS);
    found.into_iter().map(|f| hit(catalog, f)).collect()
}

fn best(q: &Query, texts: &[&str]) -> Option<Match> {
    texts.iter().filter_map(|t| rank(&q.text, t)).min()
}

fn sites(reports: &HashMap<String, Report>, q: &Query) -> Vec<Found> {
    let mut out = Vec::new();
    for r in reports.values() {
        let name = r.site.name().unwrap_or("");
        let address = r.site.address().unwrap_or("");
        // A street in the query finds a site by its own address, not by a name naming one.
        let texts: &[&str] = if q.street {
            &[address]
        } else {
            &[&r.site.id, name, address]
        };
        if let Some(how) = best(q, texts) {
            out.push(Found {
                how,
                order: 0,
                label: format!("{} — {}", r.site.id, name),
                what: Where::Site {
                    id: r.site.id.clone(),
                    bbox: r.site.bbox,
                },
                pwl_id: None,
            });
        }
    }
    out
}

/// Waters by name (each name once, its first feature) and by PWL id ("0702-0001").
fn waters(catalog: &Catalog, q: &Query) -> Vec<Found> {
    let index = &catalog.search;
    let mut entries = index.water_words.candidates(&q.text);
    entries.extend(index.waters_by_id(&q.text));
    entries.sort_unstable();
    entries.dedup();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for e in entries {
        let (li, fi) = index.waters.locate(e);
        let layer = &catalog.layers[li];
        let f = &layer.features[fi];
        let at = |label: String, how, pwl_id| Found {
            how,
            order: 1,
            label,
            what: Where::Feature {
                kind: "water",
                layer: li,
                feature: fi,
            },
            pwl_id,
        };
        if let Some(name) = layer.name_of(f) {
            if let Some(how) = rank(&q.text, &name) {
                if seen.insert(name.clone()) {
                    out.push(at(name, how, None));
                }
            }
        }
        let pwl = layer.text(f, layer.config.join_field.as_deref());
        if let Some(pwl) = pwl.filter(|p| rank(&q.text, p) == Some(Match::Exact)) {
            if seen.insert(format!("pwl {pwl}")) {
                let label = format!("PWL {pwl} — {}", layer.name_of(f).unwrap_or_default());
                out.push(at(label, Match::Exact, Some(pwl)));
            }
        }
    }
    out
}

/// Parcels by id or address, and by the numbers of their id ("55-1" finds every lot of
/// block 1 of section 55).
fn parcels(catalog: &Catalog, q: &Query) -> Vec<Found> {
    let index = &catalog.search;
    let feature = |e: u32| {
        let (li, fi) = index.parcels.locate(e);
        (li, fi, &catalog.layers[li].features[fi])
    };
    let mut entries = index.parcel_words.candidates(&q.text);
    if let Some(key) = &q.key {
        entries.extend(index.parcels_by_key(key, |e| parcel_key(&feature(e).2.id)));
        entries.sort_unstable();
        entries.dedup();
    }
    let mut out = Vec::new();
    for e in entries {
        let (li, fi, f) = feature(e);
        let name = catalog.layers[li].name_of(f).unwrap_or_default();
        let by_id = q.key.as_deref().and_then(|k| key_rank(k, &f.id));
        if let Some(how) = best(q, &[&f.id, &name]).into_iter().chain(by_id).min() {
            out.push(Found {
                how,
                order: 2,
                label: format!("{} {}", f.id, name),
                what: Where::Feature {
                    kind: "parcel",
                    layer: li,
                    feature: fi,
                },
                pwl_id: None,
            });
        }
    }
    out
}

fn hit(catalog: &Catalog, f: Found) -> Hit {
    let (kind, id, bbox) = match f.what {
        Where::Site { id, bbox } => ("site", id, bbox),
        Where::Feature {
            kind,
            layer,
            feature,
        } => {
            let l: &Layer = &catalog.layers[layer];
            let g = &l.features[feature];
            (kind, g.id.clone(), bbox_of(&g.geometry))
        }
    };
    Hit {
        bbox,
        id,
        kind,
        label: f.label,
        pwl_id: f.pwl_id,
    }
}

fn bbox_of(g: &geo_types::Geometry<f64>) -> Option<[f64; 4]> {
    g.bounding_rect()
        .map(|r| [r.min().x, r.min().y, r.max().x, r.max().y])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Role;
    use crate::names::parcel_rank;
    use serde_json::{json, Value};

    /// The search as it was before the index: every text of every water and parcel
    /// normalized and ranked for each query.
    fn scan(catalog: &Catalog, reports: &HashMap<String, Report>, q: &Query) -> Vec<Value> {
        let query = &q.text;
        let mut hits: Vec<(Match, u8, String, Value)> = Vec::new();
        for f in sites(reports, q) {
            let Where::Site { id, bbox } = f.what else {
                continue;
            };
            hits.push((
                f.how,
                0,
                f.label.clone(),
                json!({"kind": "site", "id": id, "label": f.label, "bbox": bbox}),
            ));
        }
        let mut seen = HashSet::new();
        for layer in catalog
            .layers
            .iter()
            .filter(|l| matches!(l.config.role, Role::Flowlines | Role::Waterbodies))
        {
            for f in layer.features.iter() {
                if let Some(name) = layer.name_of(f) {
                    if let Some(m) = rank(query, &name) {
                        if seen.insert(name.clone()) {
                            hits.push((m, 1, name.clone(), json!({"kind": "water", "id": f.id, "label": name, "bbox": bbox_of(&f.geometry)})));
                        }
                    }
                }
                let pwl = layer.text(f, layer.config.join_field.as_deref());
                if let Some(pwl) = pwl.filter(|p| rank(query, p) == Some(Match::Exact)) {
                    if seen.insert(format!("pwl {pwl}")) {
                        let label = format!("PWL {pwl} — {}", layer.name_of(f).unwrap_or_default());
                        hits.push((Match::Exact, 1, label.clone(), json!({"kind": "water", "id": f.id, "label": label, "pwl_id": pwl, "bbox": bbox_of(&f.geometry)})));
                    }
                }
            }
        }
        for parcels in catalog.layers_of(Role::Parcels) {
            for f in parcels.features.iter() {
                let name = parcels.name_of(f).unwrap_or_default();
                let by_id = parcel_rank(query, &f.id);
                if let Some(m) = best(q, &[&f.id, &name]).into_iter().chain(by_id).min() {
                    let label = format!("{} {}", f.id, name);
                    hits.push((m, 2, label.clone(), json!({"kind": "parcel", "id": f.id, "label": label, "bbox": bbox_of(&f.geometry)})));
                }
            }
        }
        hits.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
        hits.into_iter().take(MAX_HITS).map(|h| h.3).collect()
    }

    /// Queries an officer types: whole texts, single words, their starts and middles, pairs
    /// of words, ids and the first parts of tax map numbers.
    fn typed_queries(catalog: &Catalog) -> Vec<String> {
        let mut out: Vec<String> = [
            "Mud Creek",
            "mud",
            "Mud Cr",
            "ley",
            "Ley Creek",
            "Buckley Road",
            "buckley rd",
            "Taft Rd",
            "rd",
            "road",
            "creek",
            "055.-01-07.0",
            "55-1",
            "055-01",
            "01-07",
            "020",
            "S04",
            "s0",
            "0702-0001",
            "0702",
            "Route 31",
            "rte 31",
            "N Main St",
            "lake",
            "onondaga lake",
            "x",
            "e",
            "7",
            "-",
            ".",
            "a b",
            "clay",
        ]
        .map(String::from)
        .to_vec();
        let layers = catalog.layers.iter().filter(|l| {
            matches!(
                l.config.role,
                Role::Parcels | Role::Flowlines | Role::Waterbodies
            )
        });
        for l in layers {
            for f in l.features.iter().step_by(7) {
                let name = l.name_of(f).unwrap_or_default();
                let words: Vec<&str> = name.split_whitespace().collect();
                out.push(f.id.clone());
                out.push(name.clone());
                if let Some(key) = parcel_key(&f.id) {
                    out.push(key.rsplit_once('-').map_or(key.clone(), |(h, _)| h.into()));
                }
                for w in &words {
                    let chars: Vec<char> = w.chars().collect();
                    out.push(chars.iter().take(3).collect());
                    out.push(chars.iter().skip(1).take(3).collect());
                }
                for pair in words.windows(2) {
                    out.push(pair.join(" "));
                }
                for triple in words.windows(3) {
                    let last: String = triple[2].chars().take(2).collect();
                    out.push(format!("{} {} {last}", triple[0], triple[1]));
                }
            }
        }
        out.retain(|q| !normalize(q).is_empty());
        out.sort();
        out.dedup();
        out
    }

    /// Issue 40, item 2: the index finds what the scan of every text found, in the same
    /// order, for every query of the demo's own words.
    #[test]
    fn the_index_finds_what_the_scan_found() {
        let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/clay");
        let catalog = Catalog::open(&demo).expect("the demo data set opens");
        let reports: HashMap<String, Report> = catalog
            .sites
            .iter()
            .filter_map(|s| {
                Some((
                    s.id.clone(),
                    crate::screening::check_site(&catalog, &s.id).ok()?,
                ))
            })
            .collect();
        let queries = typed_queries(&catalog);
        assert!(queries.len() > 300, "{} queries", queries.len());
        let mut found = 0;
        for typed in &queries {
            let q = Query::new(typed);
            let indexed: Vec<Value> = find(&catalog, &reports, &q)
                .iter()
                .map(|h| serde_json::to_value(h).expect("json"))
                .collect();
            assert_eq!(indexed, scan(&catalog, &reports, &q), "query '{typed}'");
            found += indexed.len();
        }
        assert!(found > 1000, "{found} results in all");
    }
}
