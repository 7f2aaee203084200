//! `outfall token create`: issue an access token for the registry's writes.

use super::{emit, load, open_registry};
use anyhow::Context;
use clap::Subcommand;
use outfall_core::registry::AccessRole;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Subcommand)]
pub enum Action {
    /// Issue a token; it is printed once and only its argon2 hash is stored.
    Create(CreateArgs),
}

#[derive(clap::Args)]
pub struct CreateArgs {
    #[arg(long)]
    data: PathBuf,
    /// public, applicant, inspector or officer
    #[arg(long)]
    role: String,
    /// Who holds it (shown in the audit trail)
    #[arg(long)]
    name: String,
    /// The registry, as for `serve` (default: registry.gpkg in the data folder)
    #[arg(long)]
    registry: Option<String>,
}

/// Prints the token on standard output (the only time it is shown) and where it is stored
/// on standard error, so `$(outfall token create ...)` captures the token alone.
pub fn create(args: CreateArgs) -> anyhow::Result<()> {
    let role: AccessRole = args.role.parse()?;
    let catalog = Arc::new(load(&args.data)?);
    let live = open_registry(&args.data, args.registry.as_deref(), catalog)?
        .context("--registry none has no tokens")?;
    let name = &args.name;
    let token = outfall_core::registry::token::create(live.registry.as_ref(), name, role)?;
    eprintln!(
        "token for {name} ({}) stored in {}; it is shown once, keep it secret:",
        role.as_str(),
        live.registry.describe()
    );
    emit(&format!("{token}\n"))
}
