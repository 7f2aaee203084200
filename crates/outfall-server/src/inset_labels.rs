//! Names on the printed inset map (issue 23): each named stream and street in the view is
//! labelled once, at the middle of its longest piece inside the inset, so a reader can find
//! the site on the ground.

use crate::html_text::esc;
use geo::{Coord, CoordsIter, Geometry, Rect};
use outfall_core::Role;
use std::collections::HashMap;
use std::fmt::Write as _;

/// At most this many labels of each kind: a small map stays readable.
const MAX_LABELS: usize = 8;

/// The inset's projection: lon/lat to pixels, and its size.
pub(crate) trait ToPx {
    fn to_px(&self, c: Coord<f64>) -> (f64, f64);
    fn size_px(&self) -> f64;
}

/// Where to write `name`: the pixel middle of the feature's longest run of vertices inside
/// the inset (a margin in), with that run's length in pixels.
fn anchor(g: &Geometry<f64>, inset: &dyn ToPx) -> Option<(f64, (f64, f64))> {
    let size = inset.size_px();
    let inside = |p: (f64, f64)| p.0 > 20.0 && p.0 < size - 60.0 && p.1 > 14.0 && p.1 < size - 28.0;
    let pts: Vec<(f64, f64)> = g.coords_iter().map(|c| inset.to_px(c)).collect();
    let mut best: Option<(f64, (f64, f64))> = None;
    let mut run: Vec<(f64, f64)> = Vec::new();
    for p in pts.into_iter().chain(std::iter::once((f64::NAN, f64::NAN))) {
        if inside(p) {
            run.push(p);
            continue;
        }
        let len: f64 = run
            .windows(2)
            .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
            .sum();
        if len > 30.0 && best.is_none_or(|(l, _)| len > l) {
            best = Some((len, run[run.len() / 2]));
        }
        run.clear();
    }
    best
}

/// The `<text>` labels of the named streams and streets in `view`.
pub(crate) fn labels(cat: &outfall_core::Catalog, inset: &dyn ToPx, view: Rect<f64>) -> String {
    let mut out = String::new();
    for (role, kind, style) in [
        (
            Role::Flowlines,
            "stream",
            "fill=\"#0b4f96\" font-style=\"italic\" font-weight=\"600\"",
        ),
        (Role::Basemap, "street", "fill=\"#5a5246\""),
    ] {
        let mut by_name: HashMap<String, (f64, (f64, f64))> = HashMap::new();
        for layer in cat.layers_of(role) {
            for i in layer.query(view) {
                let f = &layer.features[i];
                let (Some(name), Some(a)) = (layer.name_of(f), anchor(&f.geometry, inset)) else {
                    continue;
                };
                let e = by_name.entry(name).or_insert(a);
                if a.0 > e.0 {
                    *e = a;
                }
            }
        }
        let mut named: Vec<_> = by_name.into_iter().collect();
        named.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0).then_with(|| a.0.cmp(&b.0)));
        for (name, (_, (x, y))) in named.into_iter().take(MAX_LABELS) {
            write!(out, "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"9\" font-family=\"sans-serif\" {style} stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\" data-kind=\"{kind}\" data-label=\"{0}\">{0}</text>", esc(&name)).ok();
        }
    }
    out
}
