//! `outfall validate`: every error and problem of a data set.

use super::emit;
use anyhow::bail;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Data folder holding outfall.toml
    #[arg(long)]
    data: PathBuf,
    /// Fail on problems (features refused or flagged) too, not only on errors
    #[arg(long)]
    strict: bool,
}

/// Lists what is wrong; the exit status is non-zero when the data set does not pass, so a
/// script can stop on it.
pub fn run(args: Args) -> anyhow::Result<()> {
    let v = outfall_core::catalog::validate(&args.data);
    emit(&v.to_text(&args.data, args.strict))?;
    if !v.passes(args.strict) {
        bail!("{} is not valid", args.data.display());
    }
    Ok(())
}
