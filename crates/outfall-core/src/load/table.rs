//! CSV tables without geometry (303(d) lists keyed by PWL ID, COMID or reach code).

use super::Row;
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// Reads a CSV with a header row; every cell is text.
pub fn read_table(path: &Path) -> Result<Vec<Row>> {
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(false)
        .from_path(path)
        .map_err(|e| Error::format(path, format!("cannot read CSV: {e}")))?;
    let headers = rdr
        .headers()
        .map_err(|e| Error::format(path, format!("cannot read CSV header: {e}")))?
        .clone();
    let mut rows = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| Error::feature(path, format!("row {}", i + 2), e.to_string()))?;
        rows.push(
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.trim().to_string(), Value::String(v.to_string())))
                .collect(),
        );
    }
    Ok(rows)
}
