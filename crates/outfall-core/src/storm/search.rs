//! The inlets that take a site's runoff: those inside its footprint or within a distance.

use super::StormNetwork;
use geo::{BoundingRect, Distance, Euclidean, Intersects};
use geo_types::{Geometry, Point};
use rstar::AABB;

impl StormNetwork {
    /// Structures taking runoff (inlets, culvert inlets) inside `g` (lon/lat) or within
    /// `within_m` of it, nearest first, then by id. An inlet on no pipe is left out: where
    /// its water goes is not in the data (`outfall validate` names it).
    pub fn inlets_near(&self, g: &Geometry<f64>, within_m: f64) -> Vec<usize> {
        let g_m = self.frame.project(g);
        let Some(r) = g_m.bounding_rect() else {
            return Vec::new();
        };
        let aabb = AABB::from_corners(
            [r.min().x - within_m, r.min().y - within_m],
            [r.max().x + within_m, r.max().y + within_m],
        );
        let mut hits: Vec<(f64, usize)> = self
            .inlet_index
            .locate_in_envelope(&aabb)
            .filter(|e| self.on_a_pipe(self.structure_node[e.data]))
            .filter_map(|e| {
                let p = Point::new(e.geom()[0], e.geom()[1]);
                let d = if g_m.intersects(&p) {
                    0.0
                } else {
                    Euclidean.distance(&g_m, &p)
                };
                (d <= within_m).then_some((d, e.data))
            })
            .collect();
        hits.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then_with(|| self.structures[a.1].id.cmp(&self.structures[b.1].id))
        });
        hits.into_iter().map(|h| h.1).collect()
    }
}
