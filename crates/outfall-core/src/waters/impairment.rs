//! Impairments: reading causes from the list's own fields, matching impaired lines and
//! polygons to reaches with a buffer, joining tables by id, and telling construction-related
//! causes from the rest.

use crate::config::{Role, Rules};
use crate::layer::{ImpairedTable, Layer};
use crate::load::{value_text, Feature};
use crate::measure::LocalFrame;
use geo::{BoundingRect, Densify, Distance, Euclidean, InteriorPoint, Length};
use geo_types::{Geometry, LineString, Point, Rect};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// A reach's (or waterbody's) match to one listed impaired water.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ImpairmentHit {
    pub id: String,
    pub name: String,
    pub causes: Vec<String>,
    pub category: Option<String>,
    /// The year of the list (303(d) cycle) the listing comes from, when the data say.
    pub list_year: Option<String>,
    /// How it matched, e.g. "line within 100 m along 87% of the reach" or "table pwl_id = 0702-0001".
    pub via: String,
}

/// Splits one cause cell. "|" or ";" separate causes; commas do not, because real cause names
/// contain them ("Oxygen, Dissolved").
pub fn split_causes(s: &str) -> Vec<String> {
    let sep = if s.contains('|') { '|' } else { ';' };
    s.split(sep)
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

fn humanize(column: &str) -> String {
    column.replace('_', " ")
}

/// The causes a listed feature or row gives, from one column or from per-cause columns
/// (ATTAINS: a column per cause group whose value is "Cause" when it impairs the water).
pub fn causes_in(
    props: &crate::attributes::Properties,
    layer: &crate::config::LayerConfig,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(field) = &layer.causes_field {
        if let Some(v) = props.text(field) {
            out.extend(split_causes(&v));
        }
    }
    if let Some(fields) = &layer.causes_fields {
        let wanted = layer.cause_value.as_deref().unwrap_or("Cause");
        let is_cause = |v: &Value| value_text(v).is_some_and(|t| t.eq_ignore_ascii_case(wanted));
        if fields.iter().any(|f| f == "*") {
            for (k, v) in props.iter() {
                if is_cause(&v) {
                    out.push(humanize(k));
                }
            }
        } else {
            for f in fields {
                if props.get(f).as_ref().is_some_and(is_cause) {
                    out.push(humanize(f));
                }
            }
        }
    }
    out
}

/// The causes that match a term of the causes vocabulary or one of `keywords` (the manifest's
/// `rules.construction_pollutants`), as whole terms: see `crate::vocabulary::causes` for the
/// rule. "TSS" matches, "Glasses" and "NITROGEN, AMMONIA" do not.
pub fn causes_matching(causes: &[String], keywords: &[String]) -> Vec<String> {
    crate::vocabulary::causes::CauseVocabulary::with_extra(keywords).causes_matching(causes)
}

/// Distinct causes over several hits, in order of first appearance.
pub fn all_causes(hits: &[ImpairmentHit]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in hits.iter().flat_map(|h| &h.causes) {
        if !out.iter().any(|o| o.eq_ignore_ascii_case(c)) {
            out.push(c.clone());
        }
    }
    out
}

fn hit_from_feature(layer: &Layer, f: &Feature, via: String) -> Option<ImpairmentHit> {
    let causes = causes_in(&f.properties, &layer.config);
    // A feature listing no cause (e.g. an ATTAINS unit in category 1-3) is not impaired.
    (!causes.is_empty()).then(|| ImpairmentHit {
        id: f.id.clone(),
        name: layer.name_of(f).unwrap_or_else(|| f.id.clone()),
        causes,
        category: layer.text(f, layer.config.category_field.as_deref()),
        list_year: layer
            .text(f, layer.config.year_field.as_deref())
            .or_else(|| layer.config.list_year.clone()),
        via,
    })
}

/// Impaired features a reach runs along: the share of its length lying within
/// `impaired_match_m` of the feature must reach `impaired_match_share`. Real 303(d) lines sit
/// 30-50 m off NHDPlus lines, so a touch test would miss them and a bare distance test would
/// catch every tributary that merely joins a listed river.
pub fn match_line(line: &LineString<f64>, layers: &[&Layer], rules: &Rules) -> Vec<ImpairmentHit> {
    let Some(first) = line.0.first() else {
        return Vec::new();
    };
    let Some(rect) = line.bounding_rect() else {
        return Vec::new();
    };
    let frame = LocalFrame::around(first.x, first.y);
    let (dx, dy) = frame.degrees_for_m(rules.impaired_match_m);
    let search = Rect::new(
        geo_types::coord! { x: rect.min().x - dx, y: rect.min().y - dy },
        geo_types::coord! { x: rect.max().x + dx, y: rect.max().y + dy },
    );
    // Most reaches of a large network have no listed water near them: sample the line only
    // for those that do (at 151,080 reaches the sampling was most of building the network).
    let candidates: Vec<(&Layer, usize)> = layers
        .iter()
        .flat_map(|l| l.query(search).map(move |i| (*l, i)))
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let line_m = frame.project(line);
    let total = Euclidean.length(&line_m);
    if total <= 0.0 {
        return Vec::new();
    }
    let samples = weighted_samples(&Euclidean.densify(&line_m, 20.0));
    let mut hits = Vec::new();
    for (layer, i) in candidates {
        let f = &layer.features[i];
        let g_m: Geometry<f64> = frame.project(&f.geometry);
        let near: f64 = samples
            .iter()
            .filter(|(p, _)| {
                Euclidean.distance(&Geometry::Point(*p), &g_m) <= rules.impaired_match_m
            })
            .map(|(_, w)| w)
            .sum();
        let share = near / total;
        if share >= rules.impaired_match_share {
            let kind = if matches!(f.geometry, Geometry::Polygon(_) | Geometry::MultiPolygon(_)) {
                "polygon"
            } else {
                "line"
            };
            let via = format!(
                "{kind} within {:.0} m along {:.0}% of the reach",
                rules.impaired_match_m,
                share * 100.0
            );
            hits.extend(hit_from_feature(layer, f, via));
        }
    }
    hits
}

/// Sample points along a line with the length each stands for (half of each adjoining segment).
fn weighted_samples(line: &LineString<f64>) -> Vec<(Point<f64>, f64)> {
    let pts: Vec<Point<f64>> = line.points().collect();
    let seg = |i: usize| Euclidean.distance(&pts[i], &pts[i + 1]);
    (0..pts.len())
        .map(|i| {
            let before = if i > 0 { seg(i - 1) / 2.0 } else { 0.0 };
            let after = if i + 1 < pts.len() { seg(i) / 2.0 } else { 0.0 };
            (pts[i], before + after)
        })
        .collect()
}

/// Listings in tables whose key equals a reach's or waterbody's join value.
pub fn table_hits(key: &str, tables: &[ImpairedTable]) -> Vec<ImpairmentHit> {
    let mut hits = Vec::new();
    for t in tables {
        let Some(rows) = t.rows.get(key) else {
            continue;
        };
        let mut causes: Vec<String> = Vec::new();
        for r in rows {
            for c in causes_in(&r.clone().into(), &t.config) {
                if !causes.iter().any(|x| x.eq_ignore_ascii_case(&c)) {
                    causes.push(c);
                }
            }
        }
        if causes.is_empty() {
            continue;
        }
        let first = &rows[0];
        let text =
            |f: &Option<String>| f.as_deref().and_then(|n| first.get(n)).and_then(value_text);
        hits.push(ImpairmentHit {
            id: key.to_string(),
            name: text(&t.config.name_field).unwrap_or_else(|| key.to_string()),
            causes,
            category: text(&t.config.category_field),
            list_year: text(&t.config.year_field).or_else(|| t.config.list_year.clone()),
            via: format!(
                "table {} {} = {key}",
                t.source.path,
                t.config.id_field.as_deref().unwrap_or("id")
            ),
        });
    }
    hits
}

/// Listings of every waterbody of every waterbody layer, keyed by (layer, feature): joined
/// by key from tables, and matched from impaired layers when the listed feature lies within
/// `impaired_match_m` of the waterbody's interior point (a listed lake polygon contains it;
/// real lists sit a little off the NHD outlines, so containment alone would miss some).
pub fn waterbody_impairments(
    layers: &[Layer],
    tables: &[ImpairedTable],
    rules: &Rules,
) -> HashMap<(usize, usize), Vec<ImpairmentHit>> {
    let impaired: Vec<&Layer> = layers
        .iter()
        .filter(|l| l.config.role == Role::Impaired)
        .collect();
    let mut out = HashMap::new();
    for (li, layer) in layers.iter().enumerate() {
        if layer.config.role != Role::Waterbodies {
            continue;
        }
        for (fi, f) in layer.features.iter().enumerate() {
            let mut hits = layer
                .text(f, layer.config.join_field.as_deref())
                .map(|k| table_hits(&k, tables))
                .unwrap_or_default();
            if let Some(p) = f.geometry.interior_point() {
                for h in match_point(p, &impaired, rules) {
                    if !hits.iter().any(|x| x.id == h.id) {
                        hits.push(h);
                    }
                }
            }
            if !hits.is_empty() {
                out.insert((li, fi), hits);
            }
        }
    }
    out
}

/// Impaired features within `impaired_match_m` of a point.
fn match_point(p: Point<f64>, layers: &[&Layer], rules: &Rules) -> Vec<ImpairmentHit> {
    let frame = LocalFrame::around(p.x(), p.y());
    let (dx, dy) = frame.degrees_for_m(rules.impaired_match_m);
    let search = Rect::new(
        geo_types::coord! { x: p.x() - dx, y: p.y() - dy },
        geo_types::coord! { x: p.x() + dx, y: p.y() + dy },
    );
    let p_m = Geometry::Point(frame.project(&p));
    let mut hits = Vec::new();
    for layer in layers {
        for i in layer.query(search) {
            let f = &layer.features[i];
            let d = Euclidean.distance(&p_m, &frame.project(&f.geometry));
            if d <= rules.impaired_match_m {
                let via = format!("listed feature within {d:.0} m of the waterbody");
                hits.extend(hit_from_feature(layer, f, via));
            }
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn cause_matching_is_whole_terms() {
        let kw = crate::config::Rules::default().construction_pollutants;
        let causes = s(&[
            "Sedimentation/Siltation",
            "Nutrients",
            "nutrients (phosphorus)",
            "Mercury",
            "PCBs",
            "Turbidity",
            "Oxygen, Dissolved",
            "TSS",
            "Total Suspended Solids (TSS)",
        ]);
        let m = causes_matching(&causes, &kw);
        assert_eq!(
            m,
            s(&[
                "Sedimentation/Siltation",
                "Nutrients",
                "nutrients (phosphorus)",
                "Turbidity",
                "TSS",
                "Total Suspended Solids (TSS)"
            ])
        );
        assert!(causes_matching(&s(&["Chlorpyrifos", "Glasses"]), &kw).is_empty());
        // Whole terms: no word piece, and a comma part other than "total" names another form.
        assert_eq!(
            causes_matching(
                &s(&[
                    "NITROGEN, AMMONIA",
                    "Siltstone",
                    "SOLIDS (SUSPENDED/BEDLOAD)"
                ]),
                &kw
            ),
            s(&["SOLIDS (SUSPENDED/BEDLOAD)"])
        );
    }

    #[test]
    fn separators() {
        assert_eq!(
            split_causes("Mercury | Nutrients | Sedimentation/Siltation"),
            s(&["Mercury", "Nutrients", "Sedimentation/Siltation"])
        );
        assert_eq!(split_causes("Oxygen, Dissolved"), s(&["Oxygen, Dissolved"]));
    }
}
