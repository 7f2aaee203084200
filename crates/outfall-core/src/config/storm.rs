//! The `[layer.storm]` table of a `storm_pipes` or `storm_structures` layer: which columns
//! hold a city's ids, types and inverts, which values mean "missing", and how far apart
//! two pipe ends may lie and still be one junction. Every city publishes its own schema,
//! so nothing here is guessed from column names.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a storm structure is, as the trace reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructureKind {
    /// A catch basin or curb inlet: where a site's runoff enters the system.
    Inlet,
    Manhole,
    /// Where the water leaves the system for a receiving water.
    Outfall,
    CulvertInlet,
    CulvertOutlet,
    /// A structure the value map does not name; carried through, never an entry or exit.
    Other,
}

impl StructureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StructureKind::Inlet => "inlet",
            StructureKind::Manhole => "manhole",
            StructureKind::Outfall => "outfall",
            StructureKind::CulvertInlet => "culvert_inlet",
            StructureKind::CulvertOutlet => "culvert_outlet",
            StructureKind::Other => "other",
        }
    }

    /// Runoff from the surface enters the pipes here.
    pub fn takes_runoff(self) -> bool {
        matches!(self, StructureKind::Inlet | StructureKind::CulvertInlet)
    }

    /// Water leaves the pipes here.
    pub fn discharges(self) -> bool {
        matches!(self, StructureKind::Outfall | StructureKind::CulvertOutlet)
    }
}

fn default_snap_m() -> f64 {
    1.0
}

/// The storm fields of one layer. Structure ids come from the layer's `id_field`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StormConfig {
    /// Structures: the column holding the type, read through `type_values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_field: Option<String>,
    /// Structures: the value of `type_field` -> its kind (e.g. "2" = "inlet").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub type_values: BTreeMap<String, StructureKind>,
    /// Structures: the kind of every feature, for a layer that holds one kind (a city's
    /// `outfalls` file); `type_field` wins where it names a kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<StructureKind>,
    /// Outfalls: the column naming the receiving water (Calgary's `OUT_INLET`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiving_water_field: Option<String>,
    /// Pipes: the upstream and downstream structure ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up_id_field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down_id_field: Option<String>,
    /// Pipes: the inverts (elevations) at the upstream-labelled (first vertex) and the
    /// downstream-labelled (last vertex) end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up_invert_field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down_invert_field: Option<String>,
    /// Values that mean "none" in the id and invert columns (e.g. "0", "-1").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// Metres within which a pipe end joins a structure or another pipe end.
    #[serde(default = "default_snap_m")]
    pub snap_m: f64,
    /// Pipes: the order of the vertices may decide the direction (first -> last) when
    /// neither ids nor inverts do.
    #[serde(default)]
    pub vertex_order: bool,
}

impl Default for StormConfig {
    fn default() -> Self {
        StormConfig {
            type_field: None,
            type_values: BTreeMap::new(),
            kind: None,
            receiving_water_field: None,
            up_id_field: None,
            down_id_field: None,
            up_invert_field: None,
            down_invert_field: None,
            missing: Vec::new(),
            snap_m: default_snap_m(),
            vertex_order: false,
        }
    }
}

impl StormConfig {
    /// Whether `text` is one of the layer's missing-value sentinels, compared as text and,
    /// when both are numbers, as numbers (so "0" also matches "0.0").
    pub fn is_missing(&self, text: &str) -> bool {
        let t = text.trim();
        t.is_empty()
            || self.missing.iter().any(|m| {
                m == t || matches!((m.parse::<f64>(), t.parse::<f64>()), (Ok(a), Ok(b)) if a == b)
            })
    }

    /// Every column the table names, with its manifest key, for the load's column check.
    pub fn columns(&self) -> Vec<(&'static str, &str)> {
        [
            ("type_field", &self.type_field),
            ("receiving_water_field", &self.receiving_water_field),
            ("up_id_field", &self.up_id_field),
            ("down_id_field", &self.down_id_field),
            ("up_invert_field", &self.up_invert_field),
            ("down_invert_field", &self.down_invert_field),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().map(|c| (k, c)))
        .collect()
    }
}

/// A `[layer.storm]` table belongs on a storm layer only, and its snapping is a distance.
pub(crate) fn check_layer(l: &super::LayerConfig) -> Result<(), String> {
    use super::Role;
    let storm_role = matches!(l.role, Role::StormPipes | Role::StormStructures);
    match &l.storm {
        Some(_) if !storm_role => Err(format!(
            "layer {} ({}): `[layer.storm]` applies only to storm_pipes and storm_structures layers",
            l.role.as_str(),
            l.path.display()
        )),
        Some(s) if !s.snap_m.is_finite() || s.snap_m < 0.0 => Err(format!(
            "layer {} ({}): storm snap_m must be a number >= 0, got {}",
            l.role.as_str(),
            l.path.display(),
            s.snap_m
        )),
        _ => Ok(()),
    }
}
