//! Batch checks: a CSV of site or parcel ids, or a GeoJSON file whose features are ad-hoc
//! sites. One summary row per subject; a subject that fails gets its error in the row and the
//! batch goes on.

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::law::RuleId;
use crate::load::{self, value_text};
use crate::record::SITE;
use crate::report::Report;
use crate::report::SOURCE_COLUMNS;
use crate::screening::{self, Subject};
use std::path::Path;

#[derive(Debug, Clone)]
pub enum Item {
    Site(String),
    Parcel(String),
    AdHoc(String, Box<Subject>),
}

impl Item {
    pub fn id(&self) -> &str {
        match self {
            Item::Site(s) | Item::Parcel(s) | Item::AdHoc(s, _) => s,
        }
    }
}

/// Reads a batch file. CSV: a `site_id` or `parcel_id` column (or `id`, tried as a site, then
/// as a parcel). GeoJSON: each feature is a subject, grouped by its `site_id`/`id` property.
pub fn read_items(path: &Path, catalog: &Catalog) -> Result<Vec<Item>> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ext == "geojson" || ext == "json" {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let (features, problems) = load::parse_geojson(&text, &path.display().to_string())?;
        if let Some(p) = problems.first() {
            return Err(Error::feature(path, p.feature.clone(), p.reason.clone()));
        }
        let mut groups: Vec<(String, Vec<load::Feature>)> = Vec::new();
        for (i, f) in features.into_iter().enumerate() {
            let id = ["site_id", "id"]
                .iter()
                .find_map(|k| f.properties.text(k))
                .unwrap_or_else(|| format!("feature-{}", i + 1));
            match groups.iter_mut().find(|g| g.0 == id) {
                Some(g) => g.1.push(f),
                None => groups.push((id, vec![f])),
            }
        }
        return Ok(groups
            .into_iter()
            .map(|(id, fs)| {
                let s = Subject::ad_hoc(&id, &fs, None, &catalog.manifest.words);
                Item::AdHoc(id, Box::new(s))
            })
            .collect());
    }
    let rows = load::read_table(path)?;
    let mut items = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let get = |k: &str| row.get(k).and_then(value_text);
        let item = if let Some(s) = get("site_id") {
            Item::Site(s)
        } else if let Some(p) = get("parcel_id") {
            Item::Parcel(p)
        } else if let Some(id) = get("id") {
            if catalog.site(&id).is_ok() {
                Item::Site(id)
            } else {
                Item::Parcel(id)
            }
        } else {
            return Err(Error::feature(
                path,
                format!("row {}", i + 2),
                "needs a site_id, parcel_id or id column value",
            ));
        };
        items.push(item);
    }
    Ok(items)
}

pub fn check_item(catalog: &Catalog, item: &Item) -> Result<Report> {
    match item {
        Item::Site(id) => screening::check_site(catalog, id),
        Item::Parcel(id) => screening::check_parcel(catalog, id),
        Item::AdHoc(_, subject) => Ok(screening::check(catalog, subject)),
    }
}

/// The columns of a batch CSV before the site record's: who, the acres, the findings, what
/// is missing, the waters, and the error of a subject that could not be checked.
const LEADING: [&str; 21] = [
    "id",
    "name",
    "total_acres",
    "peak_acres",
    "peak_date",
    "outside_parcels_acres",
    "land_development_activity",
    "condition_a",
    "condition_b",
    "condition_c",
    "five_acre_limit_exceeded",
    "exempt",
    "in_jurisdiction",
    "swppp_required",
    "swppp_full",
    "inspections",
    "needs",
    "receiving_waters",
    "first_impaired",
    "error",
    "active_without_approval",
];

/// The batch CSV's header: `LEADING`, the typed site record flat (its fields' CSV names, in
/// the declaration's `flat(...)` order), then the sources of each finding
/// (`report::SOURCE_COLUMNS`).
pub fn header() -> Vec<String> {
    let record = SITE
        .flat()
        .into_iter()
        .flat_map(|f| f.flat.iter().map(move |s| s.csv.of(f).into_owned()));
    LEADING
        .iter()
        .map(|c| c.to_string())
        .chain(record)
        .chain(SOURCE_COLUMNS.iter().map(|(_, c)| c.to_string()))
        .collect()
}

/// One CSV row of a batch, under `header()`: a subject that fails has its id and its error,
/// and every other cell empty.
pub fn row(id: &str, r: &Result<Report>) -> Vec<String> {
    let rep = match r {
        Ok(rep) => rep,
        Err(e) => {
            let mut cells = vec![String::new(); header().len()];
            for (cell, column) in cells.iter_mut().zip(LEADING) {
                match column {
                    "id" => *cell = id.to_string(),
                    "error" => *cell = e.to_string(),
                    _ => {}
                }
            }
            return cells;
        }
    };
    let c = &rep.conditions;
    let leading = [
        id.to_string(),
        rep.site.name().unwrap_or_default().to_string(),
        format!("{:.3}", rep.disturbance.total_acres),
        format!("{:.3}", rep.disturbance.peak_acres),
        rep.disturbance
            .peak_date
            .map(|d| d.to_string())
            .unwrap_or_default(),
        format!("{:.3}", rep.disturbance.outside_parcels_acres),
        tri(c.land_development_activity),
        tri(c.a),
        tri(c.b),
        tri(c.c),
        tri(c.five_acre_limit_exceeded),
        tri(c.exempt),
        tri(c.in_jurisdiction),
        tri(finding(rep, RuleId::SwpppRequired)),
        tri(finding(rep, RuleId::SwpppFull)),
        tri(finding(rep, RuleId::Inspections)),
        needs(rep),
        rep.receiving_water_names.join("; "),
        rep.first_impaired
            .as_ref()
            .map(|f| f.name.clone())
            .unwrap_or_default(),
        String::new(),
        tri(finding(rep, RuleId::ActiveWithoutApproval)),
    ];
    let record = rep.flat_record().into_iter().map(|(_, _, v)| v);
    let sources = SOURCE_COLUMNS
        .iter()
        .map(|(rule, _)| rep.sources_text(*rule));
    leading
        .into_iter()
        .chain(record.chain(sources).map(Option::unwrap_or_default))
        .collect()
}

/// A tri-state outcome for a CSV cell.
fn tri(v: Option<bool>) -> String {
    v.map_or("undetermined".into(), |b| b.to_string())
}

fn finding(r: &Report, id: RuleId) -> Option<bool> {
    r.findings.iter().find(|f| f.rule == id).and_then(|f| f.met)
}

fn needs(r: &Report) -> String {
    let mut all: Vec<&str> = Vec::new();
    for m in r.findings.iter().flat_map(|f| &f.missing) {
        if !all.contains(&m.as_str()) {
            all.push(m);
        }
    }
    all.join("; ")
}

#[cfg(test)]
mod tests {
    /// The header a town's spreadsheets read, as it was written by hand before the record was
    /// declared: the record's columns now come from the declaration, in the same order.
    #[test]
    fn the_header_is_the_one_towns_read() {
        let want = "id,name,total_acres,peak_acres,peak_date,outside_parcels_acres,\
            land_development_activity,condition_a,condition_b,condition_c,\
            five_acre_limit_exceeded,exempt,in_jurisdiction,swppp_required,swppp_full,\
            inspections,needs,receiving_waters,first_impaired,error,active_without_approval,\
            status,status_recorded,swppp_decision,swppp_approval_date,swppp_reference,\
            swppp_approved_by,swppp_source,exemption_codes,exemptions_verified,single_family,\
            single_family_source,agricultural,agricultural_source,exemption_sources,\
            land_development_activity_sources,active_without_approval_sources,\
            five_acre_limit_sources,condition_a_sources,condition_b_sources,condition_c_sources";
        assert_eq!(super::header().join(","), want);
    }

    /// A subject that cannot be checked is a row with its id and its error under the header.
    #[test]
    fn a_failed_subject_is_a_row_with_its_error() {
        let failed = Err(crate::error::Error::Input("no such site".into()));
        let row = super::row("S99", &failed);
        let header = super::header();
        assert_eq!(row.len(), header.len());
        let cell = |c: &str| &row[header.iter().position(|h| h == c).expect("a column")];
        assert_eq!(cell("id"), "S99");
        assert!(cell("error").contains("no such site"), "{}", cell("error"));
        assert_eq!(cell("status"), "");
    }
}
