//! `outfall token create|list|revoke|rotate`: the access tokens of the registry's writes.

use super::{emit, load, open_registry};
use anyhow::Context;
use clap::Subcommand;
use outfall_core::registry::token::{self, TokenRecord, DEFAULT_EXPIRES_DAYS};
use outfall_core::registry::{AccessRole, Checking, Live};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Subcommand)]
pub enum Action {
    /// Issue a token; it is printed once and only its argon2 hash is stored.
    Create(CreateArgs),
    /// List the tokens: name, role, id, created, expires, revoked (never a secret).
    List(ListArgs),
    /// Revoke a token (by name or id); it is refused from then on and its name stays taken.
    Revoke(ChangeArgs),
    /// Give a token (by name or id) a new secret and expiry; the old secret is refused at
    /// once. The new token is printed once.
    Rotate(ChangeArgs),
}

/// Where the registry is, as for `serve`.
#[derive(clap::Args)]
pub struct Place {
    #[arg(long)]
    data: PathBuf,
    /// The registry, as for `serve` (default: registry.gpkg in the data folder)
    #[arg(long)]
    registry: Option<String>,
}

#[derive(clap::Args)]
pub struct CreateArgs {
    #[command(flatten)]
    place: Place,
    /// public, applicant, inspector or officer
    #[arg(long)]
    role: String,
    /// Who holds it (shown in the audit trail); unique among all tokens
    #[arg(long)]
    name: String,
    /// Days until it is no longer accepted
    #[arg(long, default_value_t = DEFAULT_EXPIRES_DAYS)]
    expires_days: u32,
}

#[derive(clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    place: Place,
    /// JSON lines instead of a table
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct ChangeArgs {
    #[command(flatten)]
    place: Place,
    /// The token's name or id
    token: String,
    /// Days until the new secret is no longer accepted (rotate)
    #[arg(long, default_value_t = DEFAULT_EXPIRES_DAYS)]
    expires_days: u32,
}

pub fn run(action: Action) -> anyhow::Result<()> {
    match action {
        Action::Create(args) => create(args),
        Action::List(args) => list(args),
        Action::Revoke(args) => revoke(args),
        Action::Rotate(args) => rotate(args),
    }
}

fn open(place: &Place) -> anyhow::Result<Arc<Live>> {
    let catalog = Arc::new(load(&place.data)?);
    open_registry(
        &place.data,
        place.registry.as_deref(),
        catalog,
        Checking::Everything,
    )?
    .context("--registry none has no tokens")
}

/// Prints the token on standard output (the only time it is shown) and where it is stored
/// on standard error, so `$(outfall token create ...)` captures the token alone.
pub fn create(args: CreateArgs) -> anyhow::Result<()> {
    let role: AccessRole = args.role.parse()?;
    let live = open(&args.place)?;
    let name = &args.name;
    let token = token::create(live.registry.as_ref(), name, role, args.expires_days)?;
    eprintln!(
        "token for {name} ({}) stored in {}, valid for {} days; it is shown once, keep it secret:",
        role.as_str(),
        live.registry.describe(),
        args.expires_days
    );
    emit(&format!("{token}\n"))
}

fn list(args: ListArgs) -> anyhow::Result<()> {
    let live = open(&args.place)?;
    let tokens = token::list(live.registry.as_ref())?;
    if args.json {
        let lines: Vec<String> = tokens
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()?;
        return emit(&lines.iter().map(|l| format!("{l}\n")).collect::<String>());
    }
    let now = chrono::Utc::now();
    let mut out = format!(
        "{:<24} {:<10} {:<12} {:<24} {:<24} REVOKED\n",
        "NAME", "ROLE", "ID", "CREATED", "EXPIRES"
    );
    for t in &tokens {
        out.push_str(&row(t, now));
    }
    emit(&out)
}

fn row(t: &TokenRecord, now: chrono::DateTime<chrono::Utc>) -> String {
    let expires = match (&t.expires_at, t.expiry()) {
        (Some(e), Some(_)) if t.expired_at(now) => format!("{e} (expired)"),
        (Some(e), Some(_)) => e.clone(),
        // Refused, as an expired token is: there is no "never".
        (Some(e), None) => format!("'{e}' (unreadable: expired)"),
        (None, _) => "none (expired)".into(),
    };
    format!(
        "{:<24} {:<10} {:<12} {:<24} {:<24} {}\n",
        t.name,
        t.role.as_str(),
        t.token_id,
        t.created_at,
        expires,
        t.revoked.as_deref().unwrap_or("-")
    )
}

fn revoke(args: ChangeArgs) -> anyhow::Result<()> {
    let live = open(&args.place)?;
    let t = token::revoke(live.registry.as_ref(), &args.token)?;
    let at = t.revoked.as_deref().unwrap_or("-");
    emit(&format!(
        "revoked {} ({}, {}) at {at}\n",
        t.name,
        t.token_id,
        t.role.as_str()
    ))
}

/// Prints the new token on standard output, as `create` does.
fn rotate(args: ChangeArgs) -> anyhow::Result<()> {
    let live = open(&args.place)?;
    let (t, text) = token::rotate(live.registry.as_ref(), &args.token, args.expires_days)?;
    eprintln!(
        "new secret for {} ({}, {}), valid until {}; the old one is refused from now on; it is shown once, keep it secret:",
        t.name,
        t.token_id,
        t.role.as_str(),
        t.expires_at.as_deref().unwrap_or("-")
    );
    emit(&format!("{text}\n"))
}
