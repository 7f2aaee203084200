//! What the town records about its sites over time, shared by the site registry (which stores
//! it) and the inspection calendar (which reads it). Plain data: no storage, no judgement.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// One site inspection, as the inspector enters it in the site logbook ((9)(a)[2]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inspection {
    pub site_id: String,
    pub date: NaiveDate,
    pub inspector: String,
    pub findings: String,
    pub corrective_actions: String,
    /// When the corrective actions must be done, if any are due.
    pub corrective_due: Option<NaiveDate>,
}

/// Rain that fell on one day, in inches, and where the figure came from (a station id, a file,
/// or the officer who entered it by hand).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RainfallDay {
    pub date: NaiveDate,
    pub rain_in: f64,
    pub source: String,
}
