//! Daily precipitation records in the forms people download from NOAA, for the inspection
//! calendar: GHCN-Daily CSV (the by-year / by-station long form without a header, and NCEI's
//! "access" wide form with one), and Climate Data Online's CSV export. The format is sniffed
//! from the first line and decides the unit (GHCN: tenths of mm; CDO standard units: inches)
//! unless the layer's `units` says otherwise. A value that cannot be in that unit is an error
//! naming the line, so a mis-read file never passes for a dry one.

use super::{LoadProblem, SourceInfo};
use crate::config::LayerConfig;
use crate::error::{Error, Result};
use crate::logbook::RainfallDay;
use chrono::NaiveDate;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// No daily total above this many inches is believed (the world record is about 72 in): a
/// larger one means the unit is wrong.
const MAX_PLAUSIBLE_IN: f64 = 40.0;
const MM_PER_IN: f64 = 25.4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RainFormat {
    /// `ID,YYYYMMDD,ELEMENT,VALUE,MFLAG,QFLAG,SFLAG,OBS-TIME`, no header (by_year, by_station).
    GhcnDaily,
    /// `STATION,DATE,LATITUDE,LONGITUDE,ELEVATION,NAME,PRCP,PRCP_ATTRIBUTES,...` (NCEI access).
    GhcnAccess,
    /// `STATION,NAME,DATE,PRCP,...` (Climate Data Online export).
    CdoExport,
}

impl RainFormat {
    pub fn label(self) -> &'static str {
        match self {
            RainFormat::GhcnDaily => "GHCN-Daily CSV",
            RainFormat::GhcnAccess => "GHCN-Daily access CSV",
            RainFormat::CdoExport => "Climate Data Online CSV export",
        }
    }

    fn default_units(self) -> RainUnits {
        match self {
            RainFormat::GhcnDaily | RainFormat::GhcnAccess => RainUnits::TenthsMm,
            RainFormat::CdoExport => RainUnits::Inches,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RainUnits {
    Inches,
    Mm,
    TenthsMm,
}

impl RainUnits {
    pub fn parse(s: &str) -> Option<RainUnits> {
        match s.trim().to_ascii_lowercase().as_str() {
            "in" | "inch" | "inches" => Some(RainUnits::Inches),
            "mm" => Some(RainUnits::Mm),
            "tenths_mm" | "0.1mm" | "tenths of mm" => Some(RainUnits::TenthsMm),
            _ => None,
        }
    }

    fn to_inches(self, v: f64) -> f64 {
        match self {
            RainUnits::Inches => v,
            RainUnits::Mm => v / MM_PER_IN,
            RainUnits::TenthsMm => v / 10.0 / MM_PER_IN,
        }
    }

    fn words(self) -> &'static str {
        match self {
            RainUnits::Inches => "inches",
            RainUnits::Mm => "mm",
            RainUnits::TenthsMm => "tenths of mm",
        }
    }
}

/// One station's days in a file.
#[derive(Debug, Clone, Serialize)]
pub struct Station {
    pub id: String,
    pub name: Option<String>,
    pub days: usize,
}

/// A rainfall layer as loaded: the days of the station used, in inches, oldest first.
#[derive(Debug, Clone, Serialize)]
pub struct Rainfall {
    pub source: SourceInfo,
    pub format: RainFormat,
    pub units: RainUnits,
    /// The station whose days are used.
    pub station: String,
    pub stations: Vec<Station>,
    pub days: Vec<RainfallDay>,
    /// Rows left out because NOAA's quality check failed them (a QFLAG): those days are unknown.
    pub quality_flagged: usize,
    pub problems: Vec<LoadProblem>,
}

/// Reads the layer's file (relative to the data folder `dir`).
pub fn read(dir: &Path, cfg: &LayerConfig) -> Result<Rainfall> {
    let label = cfg.path.display().to_string();
    read_file(
        &dir.join(&cfg.path),
        &label,
        cfg.station.as_deref(),
        cfg.units.as_deref(),
    )
}

/// Reads a rainfall file. `label` names it in problems and sources; `station` picks one
/// station of several; `units` overrides the format's unit.
pub fn read_file(
    path: &Path,
    label: &str,
    station: Option<&str>,
    units: Option<&str>,
) -> Result<Rainfall> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = String::from_utf8(bytes.clone())
        .map_err(|_| Error::format(path, "rainfall layer: the file is not UTF-8 text"))?;
    use sha2::Digest;
    let sha256 = hex::encode(sha2::Sha256::digest(&bytes));
    let units = match units {
        Some(u) => Some(RainUnits::parse(u).ok_or_else(|| {
            Error::layer(
                path,
                "rainfall",
                format!("units '{u}' is not one of in, mm, tenths_mm"),
            )
        })?),
        None => None,
    };
    let parsed = parse(&text, path, units)?;
    let (chosen, problems) = choose_station(&parsed, path, label, station)?;
    let record = &parsed.stations[chosen];
    let source = format!("{}, {label}", record.id);
    let days: Vec<RainfallDay> = record
        .days
        .iter()
        .map(|(&date, &rain_in)| RainfallDay {
            date,
            rain_in,
            source: source.clone(),
        })
        .collect();
    Ok(Rainfall {
        source: SourceInfo {
            role: "rainfall".into(),
            path: label.to_string(),
            sha256,
            features: days.len(),
            crs: String::new(),
        },
        format: parsed.format,
        units: parsed.units,
        station: record.id.clone(),
        stations: parsed
            .stations
            .iter()
            .map(|s| Station {
                id: s.id.clone(),
                name: s.name.clone(),
                days: s.days.len(),
            })
            .collect(),
        days,
        quality_flagged: parsed.quality_flagged,
        problems,
    })
}

struct StationDays {
    id: String,
    name: Option<String>,
    /// Inches by date, with the line each came from.
    days: BTreeMap<NaiveDate, f64>,
    lines: BTreeMap<NaiveDate, u64>,
}

struct Parsed {
    format: RainFormat,
    units: RainUnits,
    stations: Vec<StationDays>,
    quality_flagged: usize,
}

/// Where the needed columns are in a row.
struct Columns {
    station: Option<usize>,
    name: Option<usize>,
    date: usize,
    prcp: usize,
    /// GHCN long form: the ELEMENT column (only PRCP rows are read).
    element: Option<usize>,
    /// The QFLAG: its own column (long form) or the second part of PRCP_ATTRIBUTES.
    qflag: Option<usize>,
    attributes: Option<usize>,
}

fn is_ghcn_id(s: &str) -> bool {
    s.len() == 11 && s.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Works out the format from the first row: a header naming DATE and PRCP, or a GHCN row.
fn sniff(first: &csv::StringRecord, path: &Path) -> Result<(RainFormat, Columns)> {
    let cells: Vec<String> = first
        .iter()
        .map(|c| c.trim().trim_start_matches('\u{feff}').to_ascii_uppercase())
        .collect();
    let find = |name: &str| cells.iter().position(|c| c == name);
    if cells.len() >= 4
        && is_ghcn_id(&cells[0])
        && cells[1].len() == 8
        && cells[1].chars().all(|c| c.is_ascii_digit())
    {
        return Ok((
            RainFormat::GhcnDaily,
            Columns {
                station: Some(0),
                name: None,
                date: 1,
                prcp: 3,
                element: Some(2),
                qflag: Some(5),
                attributes: None,
            },
        ));
    }
    let Some(date) = find("DATE") else {
        return Err(Error::layer(
            path,
            "rainfall",
            format!(
                "line 1 is neither a header with DATE and PRCP (GHCN-Daily access or CDO export) nor a GHCN-Daily row ID,YYYYMMDD,ELEMENT,VALUE,...; it reads '{}'",
                cells.join(",")
            ),
        ));
    };
    let Some(prcp) = find("PRCP") else {
        return Err(Error::layer(
            path,
            "rainfall",
            format!(
                "the header has no PRCP column (columns: {}); download the daily summaries with precipitation",
                cells.join(", ")
            ),
        ));
    };
    let format = if cells.len() >= 3
        && cells[0] == "STATION"
        && cells[1] == "DATE"
        && cells[2] == "LATITUDE"
    {
        RainFormat::GhcnAccess
    } else {
        RainFormat::CdoExport
    };
    Ok((
        format,
        Columns {
            station: find("STATION"),
            name: find("NAME"),
            date,
            prcp,
            element: None,
            qflag: None,
            attributes: find("PRCP_ATTRIBUTES"),
        },
    ))
}

fn parse_date(s: &str) -> Option<NaiveDate> {
    crate::bounds::parse_iso(s, true)
}

fn parse(text: &str, path: &Path, units: Option<RainUnits>) -> Result<Parsed> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut records = rdr.records();
    let first = match records.next() {
        None => return Err(Error::layer(path, "rainfall", "the file is empty")),
        Some(r) => r.map_err(|e| Error::format(path, format!("line 1: {e}")))?,
    };
    let (format, cols) = sniff(&first, path)?;
    let units = units.unwrap_or(format.default_units());
    let mut parsed = Parsed {
        format,
        units,
        stations: Vec::new(),
        quality_flagged: 0,
    };
    let data_rows = std::iter::once(Ok(first))
        .filter(|_| format == RainFormat::GhcnDaily)
        .chain(records);
    for rec in data_rows {
        let rec = rec.map_err(|e| Error::format(path, format!("{e}")))?;
        let line = rec.position().map_or(1, |p| p.line());
        if rec.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        read_row(&mut parsed, &cols, &rec, line, path)?;
    }
    if parsed.stations.iter().all(|s| s.days.is_empty()) {
        return Err(Error::layer(
            path,
            "rainfall",
            format!("no PRCP values in this {}", format.label()),
        ));
    }
    Ok(parsed)
}

/// Reads one row: a PRCP value with no quality flag becomes its station's day; other
/// elements, blank values, flagged values and GHCN's missing marker are passed over.
fn read_row(
    parsed: &mut Parsed,
    cols: &Columns,
    rec: &csv::StringRecord,
    line: u64,
    path: &Path,
) -> Result<()> {
    let cell = |i: usize| rec.get(i).map(str::trim).unwrap_or("");
    if let Some(e) = cols.element {
        if !cell(e).eq_ignore_ascii_case("PRCP") {
            return Ok(());
        }
    }
    let date = parse_date(cell(cols.date)).ok_or_else(|| {
        Error::format(
            path,
            format!(
                "line {line}, column DATE ({}): '{}' is not a date (YYYY-MM-DD or YYYYMMDD)",
                cols.date + 1,
                cell(cols.date)
            ),
        )
    })?;
    let raw = cell(cols.prcp);
    if raw.is_empty() {
        return Ok(());
    }
    let qflag = match (cols.qflag, cols.attributes) {
        (Some(q), _) => cell(q).to_string(),
        (None, Some(a)) => cell(a).split(',').nth(1).unwrap_or("").trim().to_string(),
        _ => String::new(),
    };
    if !qflag.is_empty() {
        parsed.quality_flagged += 1;
        return Ok(());
    }
    let prcp_error = |reason: String| {
        Error::format(
            path,
            format!("line {line}, column PRCP ({}): {reason}", cols.prcp + 1),
        )
    };
    let Some(rain_in) = rain_inches(parsed, raw, date).map_err(prcp_error)? else {
        return Ok(());
    };
    let id = cols.station.map(cell).unwrap_or("").to_string();
    let name = cols
        .name
        .map(cell)
        .filter(|n| !n.is_empty())
        .map(String::from);
    let st = station(parsed, id, name);
    if let Some(first) = st.lines.get(&date) {
        return Err(Error::format(
            path,
            format!(
                "line {line}: a second PRCP for station {} on {date} (the first is on line {first})",
                st.id
            ),
        ));
    }
    st.days.insert(date, rain_in);
    st.lines.insert(date, line);
    Ok(())
}

/// A PRCP value in inches; None for GHCN's missing marker. A value that cannot be a day's
/// rain in the layer's unit is refused rather than read as a storm.
fn rain_inches(
    parsed: &Parsed,
    raw: &str,
    date: NaiveDate,
) -> std::result::Result<Option<f64>, String> {
    let value: f64 = raw
        .parse()
        .map_err(|_| format!("'{raw}' is not a number"))?;
    if parsed.format == RainFormat::GhcnDaily && value == -9999.0 {
        return Ok(None);
    }
    if !value.is_finite() || value < 0.0 {
        return Err(format!("{raw} is not a precipitation amount"));
    }
    if parsed.units == RainUnits::TenthsMm && value.fract() != 0.0 {
        return Err(format!("{raw} is not a whole number of tenths of mm (GHCN's unit); if the file is in inches or mm, set `units` on the layer"));
    }
    let rain_in = parsed.units.to_inches(value);
    if rain_in > MAX_PLAUSIBLE_IN {
        return Err(format!(
            "{raw} {} on {date} is {rain_in:.1} inches, more than any day's rain; is the unit right? (set `units` on the layer)",
            parsed.units.words()
        ));
    }
    Ok(Some(rain_in))
}

/// The station's days, added on its first row.
fn station(parsed: &mut Parsed, id: String, name: Option<String>) -> &mut StationDays {
    let idx = match parsed.stations.iter().position(|s| s.id == id) {
        Some(i) => i,
        None => {
            parsed.stations.push(StationDays {
                id,
                name,
                days: BTreeMap::new(),
                lines: BTreeMap::new(),
            });
            parsed.stations.len() - 1
        }
    };
    &mut parsed.stations[idx]
}

/// The station to use: the configured one, the only one, or else the one with the most days
/// (and a problem saying so, so the choice is never silent).
fn choose_station(
    parsed: &Parsed,
    path: &Path,
    label: &str,
    wanted: Option<&str>,
) -> Result<(usize, Vec<LoadProblem>)> {
    let list = || {
        parsed
            .stations
            .iter()
            .map(|s| format!("{} ({} days)", s.id, s.days.len()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(w) = wanted {
        return parsed
            .stations
            .iter()
            .position(|s| s.id.eq_ignore_ascii_case(w.trim()))
            .map(|i| (i, Vec::new()))
            .ok_or_else(|| {
                Error::layer(
                    path,
                    "rainfall",
                    format!(
                        "station '{w}' has no PRCP values in the file (it holds: {})",
                        list()
                    ),
                )
            });
    }
    let best = (0..parsed.stations.len())
        .max_by_key(|&i| (parsed.stations[i].days.len(), std::cmp::Reverse(i)))
        .unwrap_or(0);
    let mut problems = Vec::new();
    if parsed.stations.len() > 1 {
        problems.push(LoadProblem {
            path: label.to_string(),
            feature: "station".into(),
            reason: format!(
                "the file holds {} stations: {}; using {}, the one with the most days; set `station` on the rainfall layer to choose",
                parsed.stations.len(),
                list(),
                parsed.stations[best].id
            ),
            site: None,
        });
    }
    Ok((best, problems))
}
