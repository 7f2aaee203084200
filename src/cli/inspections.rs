//! `outfall inspections`: the inspection due list of (9)(a)[2] as of a date.

use super::{emit, load_current};
use outfall_core::screening;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    data: PathBuf,
    /// The day to work the list out for, YYYY-MM-DD (default: today)
    #[arg(long)]
    as_of: Option<String>,
    /// Print as JSON
    #[arg(long)]
    json: bool,
    /// The site registry to read sites, inspections and manual rainfall from: a .gpkg
    /// file or postgres://... (default: the data folder's registry.gpkg when it exists,
    /// else the site files alone)
    #[arg(long)]
    registry: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    // The date is read before the data set is loaded, so a typo fails fast.
    let as_of = match args.as_of.as_deref() {
        Some(s) => outfall_core::calendar::parse_as_of(s)?,
        None => chrono::Local::now().date_naive(),
    };
    let (catalog, live) = load_current(&args.data, args.registry.as_deref())?;
    // The registry's logbook and the officer's hand-entered rain.
    let (inspections, rain) = match &live {
        Some(live) => (
            live.registry
                .inspections(&outfall_core::record::InspectionQuery::ALL)?,
            live.registry.rainfall()?,
        ),
        None => Default::default(),
    };
    let reports = catalog
        .sites
        .iter()
        .map(|s| screening::check_site(&catalog, &s.id))
        .collect::<outfall_core::Result<Vec<_>>>()?;
    let mut list = outfall_core::calendar::due_list_for(
        &catalog,
        &reports,
        &inspections.rows,
        &rain.rows,
        as_of,
    );
    // Rows the registry could not read are named, never fatal to the list.
    list.problems = [inspections.problems, rain.problems].concat();
    if args.json {
        emit(&(serde_json::to_string_pretty(&list)? + "\n"))
    } else {
        emit(&list.to_text(&catalog.manifest.clauses.inspections))
    }
}
