//! What a written value may be, in one place for every writer and reader: dates in one sane
//! range read by one parser, and text of bounded length. A value outside these is refused
//! when written (422 naming the field) and skipped, as a reported problem, when a row
//! written by another program is read back, so that one bad row never fails a whole list.

use crate::error::{Error, Result};
use chrono::NaiveDate;

/// The first day a record may carry: older than any permit this law (2008) could concern.
pub const FIRST_DAY: NaiveDate = match NaiveDate::from_ymd_opt(1900, 1, 1) {
    Some(d) => d,
    None => panic!("1900-01-01 is a date"),
};
/// The last day a record may carry: later than any schedule a plan could state.
pub const LAST_DAY: NaiveDate = match NaiveDate::from_ymd_opt(2100, 12, 31) {
    Some(d) => d,
    None => panic!("2100-12-31 is a date"),
};

/// Whether a day lies in `FIRST_DAY..=LAST_DAY`.
pub fn in_range(day: NaiveDate) -> bool {
    (FIRST_DAY..=LAST_DAY).contains(&day)
}

/// "between 1900-01-01 and 2100-12-31", for messages.
pub fn range_text() -> String {
    format!("between {FIRST_DAY} and {LAST_DAY}")
}

/// Parses the date forms found in real files: ISO "2026-05-01", ISO date-time, "2026/05/01",
/// US "05/01/2026" and DBF "20260501", in the sane range. A sign or a fifth year digit
/// (`-0001-01-01`, `+10000-01-01`) is no date of a record.
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    if s.starts_with(['-', '+']) {
        return None;
    }
    let head = s.get(..10).unwrap_or(s);
    ["%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y"]
        .iter()
        .find_map(|f| NaiveDate::parse_from_str(head, f).ok())
        .or_else(|| NaiveDate::parse_from_str(s, "%Y%m%d").ok())
        .filter(|d| in_range(*d))
}

/// A date written exactly YYYY-MM-DD (or YYYYMMDD when `compact` is allowed), in range:
/// what a stored record, a query parameter and a rainfall file write.
pub fn parse_iso(s: &str, compact: bool) -> Option<NaiveDate> {
    let s = s.trim();
    let iso = s.len() == 10 && s.as_bytes().get(4) == Some(&b'-');
    let short = compact && s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit());
    let day = if iso {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
    } else if short {
        NaiveDate::parse_from_str(s, "%Y%m%d").ok()
    } else {
        None
    };
    day.filter(|d| in_range(*d))
}

/// A day written YYYY-MM-DD in the range, as a write gives it; refused naming `field`.
pub fn parse_day(field: &str, text: &str) -> Result<NaiveDate> {
    parse_iso(text, false).ok_or_else(|| {
        Error::Input(format!(
            "{field}: '{}' is not a date YYYY-MM-DD {}",
            text.chars().take(40).collect::<String>(),
            range_text()
        ))
    })
}

/// A day given to a write, refused naming `field` when outside the range.
pub fn check_day(field: &str, day: NaiveDate) -> Result<NaiveDate> {
    if in_range(day) {
        Ok(day)
    } else {
        Err(Error::Input(format!(
            "{field}: {day} is not a date {}",
            range_text()
        )))
    }
}

/// Most characters of a name (site name, applicant, inspector, a token's name).
pub const NAME_CHARS: usize = 200;
/// Most characters of an address, a reference or a list of parcel ids.
pub const LINE_CHARS: usize = 1_000;
/// Most characters of a free-text entry (findings, corrective actions, notes).
pub const NOTE_CHARS: usize = 10_000;

/// The length cap of a written text field, by its name (the last part of a dotted path).
pub fn text_cap(field: &str) -> usize {
    let leaf = field.rsplit(['.', ' ']).next().unwrap_or(field);
    match leaf {
        "name"
        | "applicant"
        | "inspector"
        | "verified_by"
        | "exemption_verified_by"
        | "source"
        | "phase" => NAME_CHARS,
        "findings" | "corrective_actions" | "notes" | "description" => NOTE_CHARS,
        _ => LINE_CHARS,
    }
}

/// Text given to a write, refused naming `field` when longer than its cap.
pub fn check_text(field: &str, text: &str) -> Result<()> {
    let cap = text_cap(field);
    // Bytes bound characters from above: only a long text is counted.
    if text.len() > cap && text.chars().count() > cap {
        return Err(Error::Input(format!(
            "{field}: {} characters; at most {cap} are accepted",
            text.chars().count()
        )));
    }
    Ok(())
}

/// An inspection as every writer stores it: its days in range, its texts within their caps.
pub fn check_inspection(i: &crate::logbook::Inspection) -> Result<()> {
    check_day("inspection: date", i.date)?;
    if let Some(due) = i.corrective_due {
        check_day("inspection: corrective_due", due)?;
    }
    check_text("inspection: site_id", &i.site_id)?;
    check_text("inspection: inspector", &i.inspector)?;
    check_text("inspection: findings", &i.findings)?;
    check_text("inspection: corrective_actions", &i.corrective_actions)
}

/// A day of rain as every writer stores it: its day in range, its source within its cap.
pub fn check_rainfall(day: &crate::logbook::RainfallDay) -> Result<()> {
    check_day("rainfall: date", day.date)?;
    check_text("rainfall: source", &day.source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_out_of_range_or_signed_are_no_dates() {
        let d = NaiveDate::from_ymd_opt(2026, 5, 1);
        for ok in [
            "2026-05-01",
            "2026-05-01T00:00:00Z",
            "05/01/2026",
            "20260501",
        ] {
            assert_eq!(parse_date(ok), d, "{ok}");
        }
        for bad in [
            "-0001-01-01",
            "+10000-01-01",
            "9999-12-31",
            "1899-12-31",
            "soon",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
            assert_eq!(parse_iso(bad, true), None, "{bad}");
        }
        assert_eq!(parse_iso("2100-12-31", false), Some(LAST_DAY));
        assert_eq!(parse_iso("20260501", false), None);
        assert_eq!(parse_iso("20260501", true), d);
        let far = NaiveDate::from_ymd_opt(9999, 12, 31).unwrap_or(LAST_DAY);
        let e = check_day("start", far).unwrap_err().to_string();
        assert!(e.contains("start: 9999-12-31 is not a date between 1900-01-01 and 2100-12-31"));
    }

    #[test]
    fn text_is_capped_by_field() {
        assert!(check_text("name", &"x".repeat(200)).is_ok());
        let e = check_text("name", &"x".repeat(201))
            .unwrap_err()
            .to_string();
        assert!(e.contains("name: 201 characters; at most 200"), "{e}");
        assert!(check_text("findings", &"é".repeat(10_000)).is_ok());
        assert!(check_text("findings", &"x".repeat(10_001)).is_err());
        assert_eq!(text_cap("swppp_approval.reference"), LINE_CHARS);
    }
}
