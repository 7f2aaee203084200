//! The waters near a subject, nearest first, found through the layers' indexes with a
//! metric distance.

use crate::catalog::Catalog;
use crate::config::Role;
use crate::facts::nearest::PreparedProbe;
use crate::measure::LocalFrame;
use crate::waters::ImpairmentHit;
use geo::{BoundingRect, Centroid};
use geo_types::{Geometry, Rect};

fn expanded(r: Rect<f64>, frame: &LocalFrame, m: f64) -> Rect<f64> {
    let (dx, dy) = frame.degrees_for_m(m);
    Rect::new(
        geo_types::coord! { x: r.min().x - dx, y: r.min().y - dy },
        geo_types::coord! { x: r.max().x + dx, y: r.max().y + dy },
    )
}

/// A water near the subject, with its metric distance.
pub(super) struct Candidate {
    pub waterbody: bool,
    pub layer: usize,
    pub feature: usize,
    pub distance_m: f64,
}

/// The water nearest a footprint (or point) within `radius_m`, as (layer, feature, metres):
/// the check's first candidate, found the same way but without the other 19.
pub fn nearest_water(
    catalog: &Catalog,
    probe: &Geometry<f64>,
    radius_m: f64,
) -> Option<(usize, usize, f64)> {
    candidates_near(catalog, probe, radius_m, 1)
        .first()
        .map(|c| (c.layer, c.feature, c.distance_m))
}

/// The `k` waters nearest the probe within `radius_m`, nearest first (ties in layer and
/// index order). Waters are visited nearest bounding box first, and the exact distance is
/// computed only while a water can still be among them.
pub(super) fn candidates_near(
    catalog: &Catalog,
    probe: &Geometry<f64>,
    radius_m: f64,
    k: usize,
) -> Vec<Candidate> {
    let Some(rect) = probe.bounding_rect() else {
        return Vec::new();
    };
    let c = probe.centroid().unwrap_or_else(|| rect.center().into());
    let frame = LocalFrame::around(c.x(), c.y());
    let Some(prepared) = PreparedProbe::new(probe, frame) else {
        return Vec::new();
    };
    let search = expanded(rect, &frame, radius_m);
    // The thread's queue from its last check, emptied: hundreds of waters lie within the
    // radius, and growing a new queue to hold them was most of a check's large allocations.
    let mut queue = QUEUE.take();
    queue.clear();
    for (li, layer) in catalog.layers.iter().enumerate() {
        let waterbody = match layer.config.role {
            Role::Flowlines => false,
            Role::Waterbodies => true,
            _ => continue,
        };
        for (fi, r) in layer.query_envelopes(search) {
            let lb = prepared.lower_bound_m(r);
            if lb <= radius_m {
                queue.push((lb, queue.len(), waterbody, li, fi));
            }
        }
    }
    queue.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<(usize, Candidate)> = Vec::with_capacity(k.max(1) + 1);
    let mut kth = radius_m;
    for &(lb, order, waterbody, li, fi) in &queue {
        // A spent budget ends the search; the check then stops before its next step, so the
        // shortened list is never reported.
        if lb > kth || crate::budget::spent() {
            break;
        }
        // Only a water no farther than the k-th so far can be among the k.
        let geometry = &catalog.layers[li].features[fi].geometry;
        let Some(d) = prepared.distance_within_m(geometry, kth) else {
            continue;
        };
        if d <= radius_m {
            out.push((
                order,
                Candidate {
                    waterbody,
                    layer: li,
                    feature: fi,
                    distance_m: d,
                },
            ));
            if out.len() >= k.max(1) {
                out.sort_by(nearest_first);
                out.truncate(k.max(1));
                kth = out[k.max(1) - 1].1.distance_m;
            }
        }
    }
    QUEUE.set(queue);
    out.sort_by(nearest_first);
    out.into_iter().map(|(_, c)| c).collect()
}

/// A water to visit: (lower bound in metres, visiting order, waterbody, layer, feature).
type Visit = (f64, usize, bool, usize, usize);

thread_local! {
    static QUEUE: std::cell::Cell<Vec<Visit>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Nearest first; an exact tie goes to the earlier layer, then the earlier feature, so the
/// answer follows the data's order and not the index's.
fn nearest_first(a: &(usize, Candidate), b: &(usize, Candidate)) -> std::cmp::Ordering {
    a.1.distance_m
        .total_cmp(&b.1.distance_m)
        .then((a.1.layer, a.1.feature).cmp(&(b.1.layer, b.1.feature)))
}

pub(super) fn hits_of<'a>(catalog: &'a Catalog, c: &Candidate) -> &'a [ImpairmentHit] {
    catalog.impairments_of_feature(c.layer, c.feature)
}

pub(super) fn name_of(catalog: &Catalog, c: &Candidate) -> String {
    let layer = &catalog.layers[c.layer];
    let f = &layer.features[c.feature];
    catalog
        .hydro
        .as_ref()
        .and_then(|h| h.reach_of(c.layer, c.feature).map(|r| h.display_name(r)))
        .or_else(|| layer.name_of(f))
        .unwrap_or_else(|| {
            if c.waterbody {
                "unnamed waterbody".into()
            } else {
                "unnamed stream".into()
            }
        })
}
