//! What the town records over time beside each site: the logbook's inspections ((9)(a)[2])
//! and the rainfall that makes one due, and how a store hands rows of them back. Plain data,
//! below the loaders (the rainfall CSV reads into it) and the site record (which re-exports it).

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

/// Rows read back from a store, and the rows it skipped because they could not be read (a
/// date out of range typed into QGIS or sqlite3): one bad row is reported, never fatal to
/// the list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Listing<T> {
    pub rows: Vec<T>,
    pub problems: Vec<String>,
}

impl<T> Default for Listing<T> {
    fn default() -> Self {
        Listing {
            rows: Vec::new(),
            problems: Vec::new(),
        }
    }
}

/// Which inspections to read: one site's or every site's, a page of them (oldest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InspectionQuery<'a> {
    pub site_id: Option<&'a str>,
    /// Most rows; `None` reads them all.
    pub limit: Option<usize>,
    pub offset: usize,
}

impl InspectionQuery<'_> {
    /// Every inspection of every site.
    pub const ALL: InspectionQuery<'static> = InspectionQuery {
        site_id: None,
        limit: None,
        offset: 0,
    };
}
