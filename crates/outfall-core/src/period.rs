//! Time periods of dated features (disturbance phases, sites) and the OGC API `datetime`
//! filter: an instant, a closed interval or a half-open one (`..`). Dates are days: the
//! data carry dates, so a date-time is read as its UTC day.

use chrono::{DateTime, NaiveDate, Utc};

/// A span of days, both ends inclusive; `None` is open on that side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start: Option<NaiveDate>,
    pub end: Option<NaiveDate>,
}

impl Period {
    /// Parses a `datetime` value: `2026-05-01`, `2026-05-01T12:00:00Z`, `a/b`, `../b`, `a/..`
    /// (an empty side is open too). The error says what is wrong, for a 400.
    pub fn parse_datetime(s: &str) -> Result<Period, String> {
        let s = s.trim();
        let Some((a, b)) = s.split_once('/') else {
            let day = instant(s)?;
            return Ok(Period {
                start: Some(day),
                end: Some(day),
            });
        };
        let side = |t: &str| -> Result<Option<NaiveDate>, String> {
            match t.trim() {
                "" | ".." => Ok(None),
                t => instant(t).map(Some),
            }
        };
        let p = Period {
            start: side(a)?,
            end: side(b)?,
        };
        match (p.start, p.end) {
            (None, None) => Err(format!("datetime '{s}' is open at both ends")),
            (Some(x), Some(y)) if x > y => Err(format!("datetime '{s}' ends before it starts")),
            _ => Ok(p),
        }
    }

    /// Whether two periods share at least one day.
    pub fn overlaps(&self, other: &Period) -> bool {
        let starts_before_other_ends = match (self.start, other.end) {
            (Some(s), Some(e)) => s <= e,
            _ => true,
        };
        let ends_after_other_starts = match (self.end, other.start) {
            (Some(e), Some(s)) => e >= s,
            _ => true,
        };
        starts_before_other_ends && ends_after_other_starts
    }

    /// The smallest period covering both (an open side stays open).
    pub fn cover(&self, other: &Period) -> Period {
        Period {
            start: self.start.zip(other.start).map(|(a, b)| a.min(b)),
            end: self.end.zip(other.end).map(|(a, b)| a.max(b)),
        }
    }
}

fn instant(t: &str) -> Result<NaiveDate, String> {
    let day = match crate::bounds::parse_iso(t, false) {
        Some(d) => Ok(d),
        None => DateTime::parse_from_rfc3339(t)
            .map(|dt| dt.with_timezone(&Utc).date_naive())
            .map_err(|_| {
                format!("datetime '{t}' is not an RFC 3339 date (2026-05-01) or date-time (2026-05-01T12:00:00Z)")
            }),
    }?;
    if crate::bounds::in_range(day) {
        Ok(day)
    } else {
        Err(format!(
            "datetime '{t}' is not a day {}",
            crate::bounds::range_text()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Option<NaiveDate> {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
    }

    #[test]
    fn parses_instants_and_intervals() {
        let p = Period::parse_datetime("2026-05-01").unwrap();
        assert_eq!((p.start, p.end), (d("2026-05-01"), d("2026-05-01")));
        let p = Period::parse_datetime("2026-05-01T23:30:00-05:00").unwrap();
        assert_eq!(p.start, d("2026-05-02"), "read as its UTC day");
        let p = Period::parse_datetime("../2026-05-01").unwrap();
        assert_eq!((p.start, p.end), (None, d("2026-05-01")));
        let p = Period::parse_datetime("2026-05-01/").unwrap();
        assert_eq!((p.start, p.end), (d("2026-05-01"), None));
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "../..",
            "2026-06-01/2026-05-01",
            "2026-05-01/x",
            "9999-12-31",
            "-0001-01-01",
        ] {
            assert!(Period::parse_datetime(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn overlap_counts_shared_end_days() {
        let may = Period::parse_datetime("2026-05-01/2026-05-31").unwrap();
        let june = Period::parse_datetime("2026-06-01/2026-06-30").unwrap();
        let may31 = Period::parse_datetime("2026-05-31").unwrap();
        assert!(!may.overlaps(&june));
        assert!(may.overlaps(&may31) && may31.overlaps(&may));
        let open = Period::parse_datetime("2026-06-15/..").unwrap();
        assert!(open.overlaps(&june) && !open.overlaps(&may));
        assert_eq!(
            may.cover(&june),
            Period::parse_datetime("2026-05-01/2026-06-30").unwrap()
        );
    }
}
