//! The subcommands of `outfall`, one module each, and what they share: loading a data set
//! with a progress bar, opening its registry, and writing to standard output.

pub mod check;
mod data;
pub mod inspections;
pub mod prepare;
pub mod rules;
pub mod serve;
pub mod sewer;
pub mod sites;
pub mod token;
pub mod validate;

use clap::{Parser, Subcommand};
use std::io::Write;

pub use data::{load, load_current, open_registry};

#[derive(Parser)]
#[command(
    name = "outfall",
    version,
    about = "Stormwater review: disturbed acreage, receiving waters by downstream trace, Conditions A/B/C"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Check one site, parcel or ad-hoc polygon, or a batch of them.
    Check(check::Args),
    /// Print the rulebook: every rule, its clause, the law's words and the settings it reads.
    Rules(rules::Args),
    /// Write every geometry layer, loaded and checked, to DATA/.prepared/ as FlatGeobuf, so
    /// later loads (serve, check, validate) read it instead of the sources while they are
    /// unchanged.
    Prepare(prepare::Args),
    /// Load a data set and list every error and problem in it; exits non-zero on an error.
    Validate(validate::Args),
    /// The inspection due list of (9)(a)[2]: 7-day and storm inspections owed as of a date.
    Inspections(inspections::Args),
    /// List the sites of a data set.
    Sites(sites::Args),
    /// The storm-sewer trace of a site or point to its outfalls, or what drains to an outfall.
    Sewer(sewer::Args),
    /// Serve the map, OGC API Features, tiles and site reports over HTTP.
    Serve(serve::Args),
    /// Manage the access tokens of the site registry's writes.
    Token {
        #[command(subcommand)]
        action: token::Action,
    },
}

/// The library's warnings (a stale prepared cache) on standard error, so that standard
/// output holds only the command's output. `serve` logs its own way.
pub fn log_to_stderr() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "outfall=warn".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .init();
}

/// Writes to standard output; a reader that closed early (`| head`) is not an error.
pub fn emit(text: &str) -> anyhow::Result<()> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}
