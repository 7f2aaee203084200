//! The data-set manifest, `outfall.toml`: which files hold which layer, which fields mean
//! what, and the thresholds of the local law. Absent rules take the Town of Clay defaults,
//! so another town changes numbers and clause labels here, not in code.

mod paths;
pub mod settings;
pub mod storm;

pub(crate) use paths::check_inside;
pub use paths::path_stays_inside;
pub use settings::{Bounds, CauseReading, Rules, Setting, SETTINGS};
pub use storm::{StormConfig, StructureKind};

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const MANIFEST_FILE: &str = "outfall.toml";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Parcels,
    Disturbance,
    Sites,
    Flowlines,
    Waterbodies,
    Catchments,
    Impaired,
    Tmdl,
    Boundary,
    /// Background lines (roads) drawn under everything else; never read by a check.
    Basemap,
    /// A daily precipitation record (GHCN-Daily or CDO CSV) for the inspection calendar.
    Rainfall,
    /// Storm-sewer pipes (lines), with their `[layer.storm]` fields.
    #[serde(rename = "storm_pipes")]
    StormPipes,
    /// Storm-sewer structures (points): inlets, manholes, outfalls, culvert ends.
    #[serde(rename = "storm_structures")]
    StormStructures,
    /// A digital elevation model (single-band GeoTIFF) for the sewershed's surface part.
    Dem,
}

impl Role {
    pub const ALL: [Role; 14] = [
        Role::Parcels,
        Role::Disturbance,
        Role::Sites,
        Role::Flowlines,
        Role::Waterbodies,
        Role::Catchments,
        Role::Impaired,
        Role::Tmdl,
        Role::Boundary,
        Role::Basemap,
        Role::Rainfall,
        Role::StormPipes,
        Role::StormStructures,
        Role::Dem,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Parcels => "parcels",
            Role::Disturbance => "disturbance",
            Role::Sites => "sites",
            Role::Flowlines => "flowlines",
            Role::Waterbodies => "waterbodies",
            Role::Catchments => "catchments",
            Role::Impaired => "impaired",
            Role::Tmdl => "tmdl",
            Role::Boundary => "boundary",
            Role::Basemap => "basemap",
            Role::Rainfall => "rainfall",
            Role::StormPipes => "storm_pipes",
            Role::StormStructures => "storm_structures",
            Role::Dem => "dem",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// An optional value written as TOML text or a number, kept as text.
fn text_or_number<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Int(i64),
    }
    Ok(Option::<Either>::deserialize(d)?.map(|v| match v {
        Either::Text(s) => s,
        Either::Int(n) => n.to_string(),
    }))
}

/// Clause labels cited by each finding. Override in `[clauses]` for another town's law.
/// Shared (`Arc<str>`): every finding of every check cites one.
/// Older manifests' names (`exemptions`, `post_construction`, `licensed_professional`) still read.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Clauses {
    pub law: Arc<str>,
    pub jurisdiction: Arc<str>,
    #[serde(alias = "exemptions")]
    pub exemption: Arc<str>,
    pub land_development_activity: Arc<str>,
    pub swppp_required: Arc<str>,
    pub active_without_approval: Arc<str>,
    pub receiving_waters: Arc<str>,
    pub five_acre_limit: Arc<str>,
    pub phasing: Arc<str>,
    pub condition_a: Arc<str>,
    pub condition_b: Arc<str>,
    pub condition_c: Arc<str>,
    #[serde(alias = "post_construction")]
    pub swppp_full: Arc<str>,
    #[serde(alias = "licensed_professional")]
    pub swppp_preparer: Arc<str>,
    pub inspections: Arc<str>,
}

impl Default for Clauses {
    fn default() -> Self {
        Clauses {
            law: "Town of Clay Local Law 2 of 2008, Zoning §230-20 D".into(),
            jurisdiction: "§230-20 D(4)".into(),
            exemption: "§230-20 D(5)".into(),
            land_development_activity: "§230-20 D(6) \"Land Development Activity\"".into(),
            swppp_required: "§230-20 D(7)(a)".into(),
            active_without_approval: "§230-20 D(4)(d), D(7)(a)".into(),
            receiving_waters: "§230-20 D(7)(b)[1][m]".into(),
            five_acre_limit: "§230-20 D(7)(b)[1][d]".into(),
            phasing: "§230-20 D(6) \"Phasing\"".into(),
            condition_a: "§230-20 D(7)(b)[2] Condition A".into(),
            condition_b: "§230-20 D(7)(b)[2] Condition B".into(),
            condition_c: "§230-20 D(7)(b)[2] Condition C".into(),
            swppp_full: "§230-20 D(7)(b)[3]".into(),
            swppp_preparer: "§230-20 D(7)(b)[3][j]".into(),
            inspections: "§230-20 D(9)(a)[2]".into(),
        }
    }
}

/// One `[[layer]]` entry. Field names default to what the role usually calls them.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerConfig {
    pub role: Role,
    pub path: PathBuf,
    pub id_field: Option<String>,
    pub name_field: Option<String>,
    /// Overrides a missing `.prj` or legacy GeoJSON `crs`, e.g. "EPSG:2261".
    pub crs: Option<String>,
    pub class_field: Option<String>,
    pub site_field: Option<String>,
    pub phase_field: Option<String>,
    pub start_field: Option<String>,
    pub end_field: Option<String>,
    pub join_field: Option<String>,
    pub causes_field: Option<String>,
    pub causes_fields: Option<Vec<String>>,
    pub cause_value: Option<String>,
    pub category_field: Option<String>,
    /// Impaired lists: the column holding the list's year (e.g. the 303(d) cycle), or
    /// `list_year`, one year for the whole layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year_field: Option<String>,
    /// Written as a number (`2012`) or text (`"2012"`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text_or_number"
    )]
    pub list_year: Option<String>,
    pub pollutant_field: Option<String>,
    pub stormwater_field: Option<String>,
    /// Impaired lists: the join keys (prefixes, e.g. "0702-" for DEC's Onondaga Lake
    /// sub-basin) the list is complete for. A water whose key no prefix matches is "not
    /// covered by the list loaded": its listing is unknown, not "no". Absent: the list covers
    /// every water.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covers: Option<Vec<String>>,
    /// This layer's share of features that may be refused before the load fails (default: the
    /// manifest's `max_rejected_share`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rejected_share: Option<f64>,
    /// `rainfall`: the station to use when the file holds several (a GHCN id, e.g. "USW00014771").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub station: Option<String>,
    /// `rainfall`: the unit of PRCP when it is not the format's own ("in", "mm", "tenths_mm"),
    /// e.g. "mm" for a CDO export in metric units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<String>,
    /// Site-attribute column overrides: semantic name -> column (status, single_family, ...).
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    /// `storm_pipes` / `storm_structures`: the city's storm-sewer columns and settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storm: Option<StormConfig>,
}

impl LayerConfig {
    pub fn field<'a>(&'a self, semantic: &'a str) -> &'a str {
        self.fields
            .get(semantic)
            .map(String::as_str)
            .unwrap_or(semantic)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    #[serde(default)]
    pub name: String,
    /// Optional basemap style URL for the viewer; off when absent or unreachable.
    pub basemap: Option<String>,
    #[serde(default)]
    pub rules: Rules,
    #[serde(default)]
    pub clauses: Clauses,
    #[serde(default, rename = "layer")]
    pub layers: Vec<LayerConfig>,
    /// A data set's own words for the typed site record (status, approval, land use,
    /// exemption), added to the shipped `src/vocabulary/site.toml`.
    #[serde(default, skip_serializing_if = "is_default_vocabulary")]
    pub vocabulary: crate::vocabulary::site::VocabularyConfig,
    /// The vocabularies as used, built once from the shipped words and `vocabulary`.
    #[serde(skip)]
    pub words: crate::vocabulary::site::Vocabulary,
    /// Layer paths may point outside the data folder (absolute, or `..`) only when this is true.
    #[serde(default)]
    pub allow_outside_paths: bool,
    /// The share of a layer's features that may be refused (bad geometry, wrong CRS) before
    /// the load fails instead of going on without them. Per layer: `max_rejected_share`.
    #[serde(default = "default_max_rejected_share")]
    pub max_rejected_share: f64,
    /// A site's `outfall` point must lie within this many km of the data set's extent.
    #[serde(default = "default_outfall_max_km")]
    pub outfall_max_km: f64,
    /// The folder the manifest was read from; layer paths are relative to it.
    #[serde(skip)]
    pub dir: PathBuf,
}

fn is_default_vocabulary(v: &crate::vocabulary::site::VocabularyConfig) -> bool {
    *v == crate::vocabulary::site::VocabularyConfig::default()
}

fn default_max_rejected_share() -> f64 {
    0.05
}

fn default_outfall_max_km() -> f64 {
    50.0
}

impl Manifest {
    /// The share of `layer`'s features that may be refused before its load fails.
    pub fn max_rejected_share_of(&self, layer: &LayerConfig) -> f64 {
        layer.max_rejected_share.unwrap_or(self.max_rejected_share)
    }

    /// Reads `DIR/outfall.toml` (or the file itself when given a path to a `.toml`).
    pub fn read(dir_or_file: &Path) -> Result<Manifest> {
        let file = if dir_or_file.is_dir() {
            dir_or_file.join(MANIFEST_FILE)
        } else {
            dir_or_file.to_path_buf()
        };
        let text = std::fs::read_to_string(&file).map_err(|e| Error::io(&file, e))?;
        let mut m = Manifest::parse(&text, &file)?;
        m.dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(m)
    }

    pub fn parse(text: &str, file: &Path) -> Result<Manifest> {
        let mut m: Manifest = toml::from_str(text).map_err(|e| Error::Manifest {
            path: file.to_path_buf(),
            reason: e.to_string(),
        })?;
        m.words = crate::vocabulary::site::Vocabulary::with(&m.vocabulary).map_err(|reason| {
            Error::Manifest {
                path: file.to_path_buf(),
                reason,
            }
        })?;
        m.validate(file)?;
        Ok(m)
    }

    fn validate(&self, file: &Path) -> Result<()> {
        let bad = |reason: String| Error::Manifest {
            path: file.to_path_buf(),
            reason,
        };
        settings::check(&self.rules).map_err(bad)?;
        for (name, v) in [
            ("max_rejected_share", Some(self.max_rejected_share)),
            ("outfall_max_km", Some(self.outfall_max_km)),
        ]
        .into_iter()
        .chain(
            self.layers
                .iter()
                .map(|l| ("layer max_rejected_share", l.max_rejected_share)),
        ) {
            let Some(v) = v else { continue };
            if !v.is_finite() || v < 0.0 || (name.ends_with("share") && v > 1.0) {
                let range = if name.ends_with("share") {
                    "a share within 0..1"
                } else {
                    "a number >= 0"
                };
                return Err(bad(format!("{name} must be {range}, got {v}")));
            }
        }
        for l in &self.layers {
            if !self.allow_outside_paths && !path_stays_inside(&l.path) {
                return Err(bad(format!(
                    "layer {} ({}): the path points outside the data folder; set `allow_outside_paths = true` at the top of the manifest to allow it",
                    l.role.as_str(),
                    l.path.display()
                )));
            }
            let needs_id = !matches!(
                l.role,
                Role::Disturbance | Role::Boundary | Role::Rainfall | Role::Dem
            );
            if needs_id && l.id_field.is_none() {
                return Err(bad(format!(
                    "layer {} ({}): id_field is required",
                    l.role.as_str(),
                    l.path.display()
                )));
            }
            if l.role == Role::Impaired && l.causes_field.is_none() && l.causes_fields.is_none() {
                return Err(bad(format!(
                    "layer impaired ({}): needs causes_field (one column) or causes_fields (per-cause columns)",
                    l.path.display()
                )));
            }
            if l.role != Role::Rainfall && (l.station.is_some() || l.units.is_some()) {
                return Err(bad(format!(
                    "layer {} ({}): `station` and `units` apply only to a rainfall layer",
                    l.role.as_str(),
                    l.path.display()
                )));
            }
            storm::check_layer(l).map_err(bad)?;
            if l.role == Role::Disturbance && l.site_field.is_none() {
                return Err(bad(format!(
                    "layer disturbance ({}): site_field is required",
                    l.path.display()
                )));
            }
        }
        Ok(())
    }

    pub fn layers_of(&self, role: Role) -> impl Iterator<Item = &LayerConfig> {
        self.layers.iter().filter(move |l| l.role == role)
    }
}
