//! The `[rules]` settings of the manifest, each declared once: its name, type, default,
//! bounds and words. `Rules` (the struct serde reads), `Rules::default()`, the manifest's
//! validation, the values the rulebook serves and the table in `docs/manifest.md` all come
//! from the one declaration below, so a threshold cannot drift between them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which values a setting accepts beyond its type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bounds {
    /// A finite number at least this.
    AtLeast(f64),
    /// A finite number from the first to the second, both included.
    Within(f64, f64),
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// Any value of the setting's type.
    Any,
}

impl Bounds {
    /// The bounds in words, as a refusal and the docs table say them.
    pub fn describe(&self) -> String {
        match self {
            Bounds::AtLeast(min) => format!("a number >= {min}"),
            Bounds::Within(min, max) if *min == 0.0 && *max == 1.0 => "a share within 0..1".into(),
            Bounds::Within(min, max) => format!("a number within {min}..{max}"),
            Bounds::OneOf(words) => format!("one of {}", quoted(words)),
            Bounds::Any => "any".into(),
        }
    }

    /// Whether `v`, a setting's value as served, lies within the bounds.
    fn admits(&self, v: &Value) -> bool {
        // serde_json writes a NaN or an infinity as null, which no numeric bound admits.
        match (self, v) {
            (Bounds::Any, _) => true,
            (Bounds::AtLeast(min), Value::Number(n)) => n.as_f64().is_some_and(|x| x >= *min),
            (Bounds::Within(min, max), Value::Number(n)) => {
                n.as_f64().is_some_and(|x| (*min..=*max).contains(&x))
            }
            (Bounds::OneOf(words), Value::String(s)) => words.contains(&s.as_str()),
            _ => false,
        }
    }
}

fn quoted(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One `[rules]` setting as declared.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    /// The key in `[rules]`, the `Rules` field and the rulebook's settings; its unit is in it.
    pub name: &'static str,
    /// The value's type as the manifest writes it ("number", "list of text", ...).
    pub kind: &'static str,
    pub bounds: Bounds,
    /// The clause of the law the setting serves.
    pub clause: &'static str,
    /// What the setting means, with its units.
    pub words: &'static str,
    value: fn(&Rules) -> Value,
    number: fn(&Rules) -> Option<f64>,
    toml: fn(&Rules) -> String,
}

impl Setting {
    /// The setting's value in `r`, as `GET /rules` serves it.
    pub fn value(&self, r: &Rules) -> Value {
        (self.value)(r)
    }

    /// The Town of Clay default, as the manifest would write it (`1.0`, `["210"]`, `2008-02-19`).
    pub fn default_toml(&self) -> String {
        (self.toml)(&Rules::default())
    }

    /// A refusal naming the setting and its bounds when `r`'s value lies outside them.
    pub fn check(&self, r: &Rules) -> std::result::Result<(), String> {
        if self.bounds.admits(&self.value(r)) {
            return Ok(());
        }
        // The number itself, so "NaN" and "inf" read as written rather than as null.
        let got = match (self.number)(r) {
            Some(x) => x.to_string(),
            None => self.value(r).to_string(),
        };
        Err(format!(
            "rules.{} must be {}, got {got}",
            self.name,
            self.bounds.describe()
        ))
    }
}

/// How a type of setting is written, shown and bounded.
trait SettingValue: Serialize {
    const KIND: &'static str;
    fn number(&self) -> Option<f64> {
        None
    }
    fn toml(&self) -> String;
}

impl SettingValue for f64 {
    const KIND: &'static str = "number";
    fn number(&self) -> Option<f64> {
        Some(*self)
    }
    fn toml(&self) -> String {
        // Debug keeps the ".0" TOML needs to read a whole number back as a float.
        format!("{self:?}")
    }
}

impl SettingValue for u32 {
    const KIND: &'static str = "whole number";
    fn number(&self) -> Option<f64> {
        Some(f64::from(*self))
    }
    fn toml(&self) -> String {
        self.to_string()
    }
}

impl SettingValue for Vec<String> {
    const KIND: &'static str = "list of text";
    fn toml(&self) -> String {
        format!("{self:?}")
    }
}

impl SettingValue for chrono::NaiveDate {
    const KIND: &'static str = "date";
    fn toml(&self) -> String {
        self.to_string()
    }
}

impl SettingValue for CauseReading {
    const KIND: &'static str = "text";
    fn toml(&self) -> String {
        format!("\"{}\"", self.as_str())
    }
}

/// Declares `Rules`, its `Default` and `SETTINGS` from one list, so that a setting's name,
/// type, default, bounds and words are written once.
macro_rules! settings {
    ($(
        $(#[$serde:meta])*
        $name:ident: $ty:ty = $default:expr, $bounds:expr, $clause:literal,
        $words:literal;
    )*) => {
        /// Thresholds and reading choices of the local law (Town of Clay defaults); one field
        /// per row of [`SETTINGS`].
        #[derive(Debug, Clone, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Rules {
            $( #[doc = $words] $(#[$serde])* pub $name: $ty, )*
        }

        impl Default for Rules {
            fn default() -> Self {
                Rules { $( $name: $default, )* }
            }
        }

        /// Every `[rules]` setting, in the manifest's order.
        pub const SETTINGS: &[Setting] = &[$(
            Setting {
                name: stringify!($name),
                kind: <$ty as SettingValue>::KIND,
                bounds: $bounds,
                clause: $clause,
                words: $words,
                value: |r| serde_json::to_value(&r.$name).unwrap_or(Value::Null),
                number: |r| SettingValue::number(&r.$name),
                toml: |r| SettingValue::toml(&r.$name),
            },
        )*];
    };
}

use Bounds::{Any, AtLeast, OneOf, Within};

settings! {
    land_development_acres: f64 = 1.0, AtLeast(0.0), "(6) \"Land Development Activity\"",
        "Acres disturbed at or above which the work is a land development activity.";
    condition_b_acres: f64 = 5.0, AtLeast(0.0), "(7)(b)[2] Condition B",
        "Acres disturbed at or above which Condition B applies; Condition C ends below it.";
    max_disturbed_at_once_acres: f64 = 5.0, AtLeast(0.0), "(7)(b)[1][d]",
        "Acres that may be disturbed at any one time without an approved SWPPP.";
    search_radius_m: f64 = 1000.0, AtLeast(0.0), "(7)(b)[1][m]",
        "Metres from the site within which the nearest water is taken as the receiving water.";
    storm_inlet_search_m: f64 = 30.0, AtLeast(0.0), "(7)(b)[1][m]",
        "Metres around a site within which a storm-sewer inlet takes its runoff (inlets inside it always do).";
    dem_snap_threshold_cells: u32 = 1000, AtLeast(0.0), "(7)(b)[1][m]",
        "DEM cells that must drain through a cell before a sewershed's pour point snaps to it (stormcatchments' and pysheds' `acc_thresh`, 1000 cells = 490 m² on a 0.7 m DEM).";
    trace_limit_km: f64 = 50.0, AtLeast(0.0), "(7)(b)[1][m]",
        "Kilometres the downstream trace follows the flow before it stops.";
    impaired_match_m: f64 = 100.0, AtLeast(0.0), "(7)(b)[2] Condition A",
        "Metres within which a reach lies along an impaired line to be that listed water.";
    impaired_match_share: f64 = 0.5, Within(0.0, 1.0), "(7)(b)[2] Condition A",
        "Share of a reach's length that must lie within `impaired_match_m` of an impaired line.";
    condition_a_downstream_km: f64 = 1.609344, AtLeast(0.0), "(7)(b)[2] Condition A",
        "Kilometres downstream within which a listed water also triggers Condition A (0: the first receiving water only; default 1 mile).";
    construction_pollutants: Vec<String> = terms(&[
        "sediment", "silt", "siltation", "turbidity", "total suspended solids", "tss",
        "phosphorus", "nutrient", "nitrogen",
    ]), Any, "(6) \"Pollutant of Concern\"",
        "Cause terms added to the shipped causes vocabulary that make an impairment construction-related, matched as whole terms after normalising case and punctuation.";
    single_family_classes: Vec<String> = terms(&["210"]), Any, "(7)(b)[2] Condition C",
        "Parcel property-class prefixes meaning a single-family residence (NY RPS 210 = one-family).";
    agricultural_classes: Vec<String> = terms(&["1"]), Any, "(7)(b)[2] Condition C",
        "Parcel property-class prefixes meaning agricultural property (NY RPS 100s).";
    snap_tolerance_m: f64 = 1.0, AtLeast(0.0), "(7)(b)[1][m]",
        "Metres within which line ends join when a stream network is built from geometry alone.";
    condition_a_causes: CauseReading = CauseReading::Construction,
        OneOf(&["construction", "any"]), "(6) \"Pollutant of Concern\"",
        "How a pollutant of concern is read: \"construction\" (the causes vocabulary's sediment and nutrient terms and `construction_pollutants`, DEC's practice) or \"any\" (the definition read literally: every cause of a listed water in scope).";
    maintenance_max_acres: f64 = 5.0, AtLeast(0.0), "(5)(c)",
        "Routine maintenance is exempt only when it disturbs fewer acres than this.";
    #[serde(deserialize_with = "date_or_toml_date")]
    effective_date: chrono::NaiveDate = date(2008, 2, 19), Any, "(5)(e), (5)(f), (10)(b)",
        "The law's effective date (filed with the Secretary of State), for the plat and building-permit exemptions.";
    inspection_interval_days: u32 = 7, AtLeast(0.0), "(9)(a)[2]",
        "Days between the routine site inspections.";
    storm_threshold_in: f64 = 0.5, AtLeast(0.0), "(9)(a)[2]",
        "Inches of precipitation in a day at or above which a storm calls for an inspection.";
    storm_inspection_hours: u32 = 24, AtLeast(0.0), "(9)(a)[2]",
        "Hours after such a storm within which the inspection is due.";
}

fn terms(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn date(y: i32, m: u32, d: u32) -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default()
}

/// The declared setting called `name`.
pub fn find(name: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.name == name)
}

/// The first setting of `r` outside its bounds, as a refusal naming it and its bounds.
pub fn check(r: &Rules) -> std::result::Result<(), String> {
    SETTINGS.iter().try_for_each(|s| s.check(r))
}

/// The settings table of `docs/manifest.md`, generated from the declaration (a test keeps
/// the page equal to it).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| Setting | Type | Default | Bounds | Clause | Meaning |\n|---|---|---|---|---|---|\n",
    );
    for s in SETTINGS {
        out += &format!(
            "| `{}` | {} | `{}` | {} | {} | {} |\n",
            s.name,
            s.kind,
            s.default_toml(),
            s.bounds.describe(),
            s.clause,
            s.words
        );
    }
    out
}

/// Which causes of a listed water count as a pollutant of concern for Condition A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CauseReading {
    /// Causes matching `construction_pollutants`: DEC's practice of naming the segments
    /// impaired by construction-related pollutants (sediment, its measures, nutrients).
    Construction,
    /// The definition in (6) read literally: sediment always, plus any cause of impairment of
    /// a receiving water, so every listed water in scope counts.
    Any,
}

impl CauseReading {
    pub const ALL: [CauseReading; 2] = [CauseReading::Construction, CauseReading::Any];

    pub fn as_str(self) -> &'static str {
        match self {
            CauseReading::Construction => "construction",
            CauseReading::Any => "any",
        }
    }
}

/// A date written as TOML's own date (`2008-02-19`) or as a string (`"2008-02-19"`).
fn date_or_toml_date<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<chrono::NaiveDate, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Toml(toml::value::Datetime),
    }
    let text = match Either::deserialize(d)? {
        Either::Text(s) => s,
        Either::Toml(t) => t.to_string(),
    };
    text.parse()
        .map_err(|_| serde::de::Error::custom(format!("'{text}' is not a date (YYYY-MM-DD)")))
}

#[cfg(test)]
mod tests;
