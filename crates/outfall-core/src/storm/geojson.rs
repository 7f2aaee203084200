//! An upstream network as GeoJSON: its pipes (lines, with the evidence that directed each)
//! and its structures (points, with their kind), for the map and the HTTP API.

use super::{StormNetwork, Upstream};
use crate::layer::Layer;
use serde_json::{json, Value};

impl StormNetwork {
    /// A FeatureCollection of the pipes and structures draining to an outfall.
    pub fn upstream_geojson(&self, layers: &[Layer], up: &Upstream) -> Value {
        let mut features = Vec::new();
        for step in &up.pipes {
            let Some((li, fi)) = self.pipe_feature(&step.id) else {
                continue;
            };
            features.push(json!({
                "type": "Feature",
                "id": step.id,
                "geometry": geojson::Geometry::from(&layers[li].features[fi].geometry),
                "properties": {
                    "kind": "pipe",
                    "from": step.from,
                    "to": step.to,
                    "evidence": step.evidence,
                    "length_m": step.length_m,
                },
            }));
        }
        for s in &up.structures {
            features.push(json!({
                "type": "Feature",
                "id": s.id,
                "geometry": {"type": "Point", "coordinates": s.at},
                "properties": {"kind": s.kind},
            }));
        }
        json!({
            "type": "FeatureCollection",
            "outfall": up.outfall,
            "length_m": up.length_m,
            "undecided": up.undecided,
            "features": features,
        })
    }
}
