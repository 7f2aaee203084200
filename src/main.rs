//! The `outfall` command: check sites from the command line, or serve the map and API.

use anyhow::{bail, Context};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use outfall_core::batch::{self, Row};
use outfall_core::screening::{self, parse_point};
use outfall_core::{Catalog, Manifest};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Parser)]
#[command(
    name = "outfall",
    version,
    about = "Stormwater review: disturbed acreage, receiving waters by downstream trace, Conditions A/B/C"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Csv,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Check one site, parcel or ad-hoc polygon, or a batch of them.
    Check {
        /// Data folder holding outfall.toml
        #[arg(long)]
        data: PathBuf,
        #[arg(long, group = "subject")]
        site: Option<String>,
        #[arg(long, group = "subject")]
        parcel: Option<String>,
        /// A GeoJSON file with the disturbance polygon(s) of an ad-hoc site
        #[arg(long, group = "subject")]
        geometry: Option<PathBuf>,
        /// CSV of site/parcel ids, or GeoJSON features; writes one row per site
        #[arg(long, group = "subject")]
        batch: Option<PathBuf>,
        /// The known storm-sewer outfall "lon,lat" (WGS84) for an ad-hoc check
        #[arg(long, allow_hyphen_values = true)]
        outfall: Option<String>,
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
        /// Batch output format
        #[arg(long, value_enum, default_value = "csv")]
        format: Format,
        /// Batch output file (default: standard output)
        #[arg(long)]
        out: Option<PathBuf>,
        /// The site registry to read the sites from: a .gpkg file, postgres://..., or none
        /// (default: the data folder's registry.gpkg when it exists, else the site files)
        #[arg(long)]
        registry: Option<String>,
    },
    /// Print the rulebook: every rule, its clause, the law's words and the settings it reads.
    Rules {
        /// Use this data set's clause labels and [rules] settings (default: Town of Clay)
        #[arg(long)]
        data: Option<PathBuf>,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Write every geometry layer, loaded and checked, to DATA/.prepared/ as FlatGeobuf, so
    /// later loads (serve, check, validate) read it instead of the sources while they are
    /// unchanged.
    Prepare {
        /// Data folder holding outfall.toml
        #[arg(long)]
        data: PathBuf,
    },
    /// Load a data set and list every error and problem in it; exits non-zero on an error.
    Validate {
        /// Data folder holding outfall.toml
        #[arg(long)]
        data: PathBuf,
        /// Fail on problems (features refused or flagged) too, not only on errors
        #[arg(long)]
        strict: bool,
    },
    /// The inspection due list of (9)(a)[2]: 7-day and storm inspections owed as of a date.
    Inspections {
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
    },
    /// List the sites of a data set.
    Sites {
        #[arg(long)]
        data: PathBuf,
        /// The site registry to read the sites from: a .gpkg file, postgres://..., or none
        /// (default: the data folder's registry.gpkg when it exists, else the site files)
        #[arg(long)]
        registry: Option<String>,
    },
    /// Serve the map, OGC API Features, tiles and site reports over HTTP.
    Serve {
        #[arg(long)]
        data: PathBuf,
        #[arg(long, default_value = "127.0.0.1:8080")]
        bind: String,
        /// Folder of the web viewer
        #[arg(long, default_value = "web")]
        web: PathBuf,
        /// Start of absolute links in API answers, e.g. https://maps.example.org/outfall
        /// (default: http://<bind address>); the Host header is never used
        #[arg(long)]
        public_url: Option<String>,
        /// Deadline of one check, tile or items page, in seconds (503 past it)
        #[arg(long, default_value_t = 5.0)]
        check_timeout_secs: f64,
        /// Time a client has to send a request's headers, in seconds (then the connection
        /// is closed); also the idle keep-alive time
        #[arg(long, default_value_t = 10.0)]
        header_timeout_secs: f64,
        /// Time a client has to send an upload's body, in seconds (then 408)
        #[arg(long, default_value_t = 30.0)]
        body_timeout_secs: f64,
        /// Most connections served at once; more wait until one closes
        #[arg(long, default_value_t = 512)]
        max_connections: usize,
        /// Most POST /check computing at once; more answer 503 with Retry-After
        /// (default: the number of CPUs)
        #[arg(long)]
        max_checks: Option<usize>,
        /// The site registry: a .gpkg path, postgres://user@host/db (PostGIS), or "none"
        /// for the file layers, read-only (default: registry.gpkg in the data folder)
        #[arg(long)]
        registry: Option<String>,
    },
    /// Manage the access tokens of the site registry's writes.
    Token {
        #[command(subcommand)]
        action: TokenAction,
    },
}

#[derive(Subcommand)]
enum TokenAction {
    /// Issue a token; it is printed once and only its argon2 hash is stored.
    Create {
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
    },
}

fn load(data: &Path) -> anyhow::Result<Catalog> {
    let manifest = Manifest::read(data)?;
    let bar = ProgressBar::new(manifest.layers.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("loading {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let catalog = Catalog::load(manifest, &mut |file, done, _| {
        bar.set_position(done as u64);
        bar.set_message(file.to_string());
    })?;
    bar.finish_and_clear();
    for p in catalog.problems() {
        eprintln!("warning: {}: feature {}: {}", p.path, p.feature, p.reason);
    }
    Ok(catalog)
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Serve { .. }) {
        // The library's warnings (a stale prepared cache) on standard error; stdout is the
        // command's output.
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
    match cli.command {
        Command::Check {
            data,
            site,
            parcel,
            geometry,
            batch,
            outfall,
            json,
            format,
            out,
            registry,
        } => {
            let (catalog, _live) = load_current(&data, registry.as_deref())?;
            let outfall_point = match outfall.as_deref() {
                Some(s) => Some(
                    parse_point(s).with_context(|| format!("--outfall '{s}' is not 'lon,lat'"))?,
                ),
                None => None,
            };
            if let Some(path) = batch {
                return run_batch(&catalog, &path, format, out.as_deref());
            }
            let report = if let Some(id) = site {
                screening::check_site(&catalog, &id)?
            } else if let Some(id) = parcel {
                screening::check_parcel(&catalog, &id)?
            } else if let Some(path) = geometry {
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("reading {}", path.display()))?;
                let (features, problems) =
                    outfall_core::load::parse_geojson(&text, &path.display().to_string())?;
                for p in &problems {
                    eprintln!("warning: {}: feature {}: {}", p.path, p.feature, p.reason);
                }
                if features.is_empty() {
                    bail!("{}: no usable polygon", path.display());
                }
                let id = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("ad-hoc");
                screening::check_drawn(&catalog, id, &features, outfall_point)?
            } else {
                bail!("give one of --site, --parcel, --geometry or --batch");
            };
            if json {
                emit(&(serde_json::to_string_pretty(&report)? + "\n"))
            } else {
                emit(&report.to_text())
            }
        }
        Command::Rules { data, json } => {
            let manifest = match data {
                Some(d) => Manifest::read(&d)?,
                None => Manifest::parse("", Path::new("(defaults)"))?,
            };
            let rows = outfall_core::law::rulebook(&manifest.rules, &manifest.clauses);
            let causes =
                outfall_core::vocabulary::causes::table(&manifest.rules.construction_pollutants)?;
            if json {
                // The same shape as GET /rules.
                let all = serde_json::json!({
                    "law": manifest.clauses.law,
                    "rules": rows,
                    "vocabularies": outfall_core::vocabulary::tables(&manifest.rules.construction_pollutants, &manifest.words),
                });
                return emit(&(serde_json::to_string_pretty(&all)? + "\n"));
            }
            let mut text = format!("RULEBOOK — {}\n", manifest.clauses.law);
            for r in rows {
                text += &format!(
                    "\n{} — {}\n  {}\n  Law: {}\n",
                    r.id, r.clause, r.title, r.law
                );
                if !r.settings.is_empty() {
                    let s: Vec<String> = r
                        .settings
                        .iter()
                        .map(|(k, v)| format!("{k} = {v}"))
                        .collect();
                    text += &format!("  Settings: {}\n", s.join(", "));
                }
            }
            text += &causes_text(&causes);
            text += &outfall_core::vocabulary::site_text(&manifest.words);
            emit(&text)
        }
        Command::Prepare { data } => {
            let started = std::time::Instant::now();
            let layers = outfall_core::prepared::prepare(&data)?;
            let mut text = String::new();
            for l in &layers {
                text += &match &l.skipped {
                    None => format!(
                        "{} ({}): {} features -> {} ({:.1} MiB)\n",
                        l.path,
                        l.role,
                        l.features,
                        l.file.display(),
                        l.bytes as f64 / 1048576.0
                    ),
                    Some(why) => format!(
                        "{} ({}): not prepared, it loads from its source: {why}\n",
                        l.path, l.role
                    ),
                };
            }
            text += &format!(
                "{}: {} layer(s) prepared in {:.1} s\n",
                data.display(),
                layers.iter().filter(|l| l.skipped.is_none()).count(),
                started.elapsed().as_secs_f64()
            );
            emit(&text)
        }
        Command::Validate { data, strict } => {
            let v = outfall_core::catalog::validate(&data);
            emit(&v.to_text(&data, strict))?;
            if !v.passes(strict) {
                bail!("{} is not valid", data.display());
            }
            Ok(())
        }
        Command::Inspections {
            data,
            as_of,
            json,
            registry,
        } => {
            let as_of = match as_of.as_deref() {
                Some(s) => outfall_core::calendar::parse_as_of(s)?,
                None => chrono::Local::now().date_naive(),
            };
            let (catalog, live) = load_current(&data, registry.as_deref())?;
            // The registry's logbook and the officer's hand-entered rain.
            let (inspections, rain) = match &live {
                Some(live) => (live.registry.inspections()?, live.registry.rainfall()?),
                None => (Vec::new(), Vec::new()),
            };
            let reports = catalog
                .sites
                .iter()
                .map(|s| screening::check_site(&catalog, &s.id))
                .collect::<outfall_core::Result<Vec<_>>>()?;
            let list = outfall_core::calendar::due_list_for(
                &catalog,
                &reports,
                &inspections,
                &rain,
                as_of,
            );
            if json {
                emit(&(serde_json::to_string_pretty(&list)? + "\n"))
            } else {
                emit(&list.to_text(&catalog.manifest.clauses.inspections))
            }
        }
        Command::Sites { data, registry } => {
            let (catalog, _live) = load_current(&data, registry.as_deref())?;
            let mut text = String::new();
            for s in &catalog.sites {
                let r = screening::check_site(&catalog, &s.id)?;
                text += &format!(
                    "{:<8} {:<40} {:>8.2} ac  peak {:>6.2}  {}\n",
                    s.id,
                    s.name.as_deref().unwrap_or(""),
                    r.disturbance.total_acres,
                    r.disturbance.peak_acres,
                    r.site.status.as_deref().unwrap_or("")
                );
            }
            // A closed pipe (`outfall sites | head`) ends the listing, not the process.
            emit(&text)
        }
        Command::Serve {
            data,
            bind,
            web,
            public_url,
            check_timeout_secs,
            header_timeout_secs,
            body_timeout_secs,
            max_connections,
            max_checks,
            registry,
        } => {
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| "outfall=info,tower_http=warn".into()),
                )
                .init();
            let secs = |name: &str, v: f64| -> anyhow::Result<std::time::Duration> {
                if !(v.is_finite() && v > 0.0 && v <= 86_400.0) {
                    bail!("--{name} must be a number of seconds between 0 and 86400, not {v}");
                }
                Ok(std::time::Duration::from_secs_f64(v))
            };
            let mut limits = outfall_server::Limits {
                work_timeout: secs("check-timeout-secs", check_timeout_secs)?,
                body_timeout: secs("body-timeout-secs", body_timeout_secs)?,
                ..Default::default()
            };
            if let Some(n) = max_checks {
                limits.max_concurrent_checks = n.max(1);
            }
            let options = outfall_server::ServeOptions {
                header_read_timeout: secs("header-timeout-secs", header_timeout_secs)?,
                max_connections: max_connections.max(1),
                ..Default::default()
            };
            let catalog = Arc::new(load(&data)?);
            let state = match open_registry(&data, registry.as_deref(), catalog.clone())? {
                Some(live) => {
                    outfall_core::registry::Live::watch(&live, std::time::Duration::from_secs(1));
                    outfall_server::AppState::with_registry(web, live)
                }
                None => outfall_server::AppState::new(catalog, web),
            }
            .with_limits(limits);
            let rt = tokio::runtime::Runtime::new()?;
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind(&bind)
                    .await
                    .with_context(|| format!("cannot bind {bind}"))?;
                let addr = listener.local_addr()?;
                let public = match public_url {
                    Some(u) => u,
                    None if addr.ip().is_unspecified() => {
                        eprintln!(
                            "warning: bound to {addr}; links name http://localhost:{} — set --public-url to the address clients use",
                            addr.port()
                        );
                        format!("http://localhost:{}", addr.port())
                    }
                    None => format!("http://{addr}"),
                };
                let state = state
                    .with_public_url(&public)
                    .map_err(|e| anyhow::anyhow!("--public-url: {e}"))?;
                println!(
                    "Outfall is serving {} at http://{addr}/ (links: {})",
                    data.display(),
                    state.public_url
                );
                outfall_server::serve(listener, outfall_server::app(state), options, async {
                    tokio::signal::ctrl_c().await.ok();
                })
                .await?;
                Ok(())
            })
        }
        Command::Token {
            action:
                TokenAction::Create {
                    data,
                    role,
                    name,
                    registry,
                },
        } => {
            let role: outfall_core::registry::AccessRole = role.parse()?;
            let catalog = Arc::new(load(&data)?);
            let live = open_registry(&data, registry.as_deref(), catalog)?
                .context("--registry none has no tokens")?;
            let token = outfall_core::registry::token::create(live.registry.as_ref(), &name, role)?;
            eprintln!(
                "token for {name} ({}) stored in {}; it is shown once, keep it secret:",
                role.as_str(),
                live.registry.describe()
            );
            emit(&format!("{token}\n"))
        }
    }
}

/// The live registry `--registry` names (seeded from the file layers on first run), or
/// `None` to serve the files read-only: when asked (`none`), or when the default file cannot
/// be created because the data folder is read-only.
/// The data set as the town's record has it. With a registry (the one given, else the data
/// folder's registry.gpkg when it exists) its sites and phases replace the site files', so a
/// command sees the officer's edits. Only an existing registry is read; a command never
/// creates one.
fn load_current(
    data: &Path,
    registry: Option<&str>,
) -> anyhow::Result<(Arc<Catalog>, Option<Arc<outfall_core::registry::Live>>)> {
    let files = Arc::new(load(data)?);
    let live = match registry {
        Some(spec) => open_registry(data, Some(spec), files.clone())?,
        None if data.join(outfall_core::registry::GPKG_FILE).exists() => {
            open_registry(data, None, files.clone())?
        }
        None => None,
    };
    let catalog = match &live {
        Some(live) => live.snapshot().catalog.clone(),
        None => files,
    };
    Ok((catalog, live))
}

fn open_registry(
    data: &Path,
    spec: Option<&str>,
    catalog: Arc<Catalog>,
) -> anyhow::Result<Option<Arc<outfall_core::registry::Live>>> {
    if spec.is_some_and(|s| s.eq_ignore_ascii_case("none")) {
        return Ok(None);
    }
    let store = match outfall_postgis::open(spec, data, &catalog.manifest.words) {
        Ok(s) => s,
        Err(e) if spec.is_none() && folder_is_read_only(data) => {
            eprintln!("warning: {e}; the data folder is read-only, so the sites are served from the files, read-only");
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    Ok(Some(Arc::new(outfall_core::registry::Live::start(
        store, catalog,
    )?)))
}

fn folder_is_read_only(dir: &Path) -> bool {
    let probe = dir.join(".outfall-write-probe");
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            false
        }
        Err(_) => true,
    }
}

/// Writes to standard output; a reader that closed early (`| head`) is not an error.
/// The causes vocabulary under the rulebook: one line per term, grouped.
fn causes_text(terms: &[outfall_core::vocabulary::causes::Term]) -> String {
    let mut text = "\nVOCABULARY — causes that are a pollutant of concern (construction reading; whole terms)\n".to_string();
    let mut group = "";
    for t in terms {
        if t.group != group {
            group = &t.group;
            text += &format!("  {group}:\n");
        }
        text += &format!("    {} — {}\n", t.term, t.sources.join(" / "));
    }
    text
}

fn emit(text: &str) -> anyhow::Result<()> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

fn run_batch(
    catalog: &Catalog,
    path: &Path,
    format: Format,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    let items = batch::read_items(path, catalog)?;
    let bar = ProgressBar::new(items.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("checking {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut sink: Box<dyn Write> = match out {
        Some(p) => {
            Box::new(std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?)
        }
        None => Box::new(std::io::stdout().lock()),
    };
    let mut csv_out = matches!(format, Format::Csv).then(|| csv::Writer::from_writer(Vec::new()));
    let mut reports = Vec::new();
    for item in &items {
        bar.set_message(item.id().to_string());
        let result = batch::check_item(catalog, item);
        if let Some(w) = csv_out.as_mut() {
            w.serialize(Row::from_result(item.id(), &result))?;
        } else {
            reports.push(match result {
                Ok(r) => serde_json::to_value(r)?,
                Err(e) => {
                    serde_json::json!({ "site": { "id": item.id() }, "error": e.to_string() })
                }
            });
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    match csv_out {
        Some(w) => sink.write_all(&w.into_inner()?)?,
        None => writeln!(sink, "{}", serde_json::to_string_pretty(&reports)?)?,
    }
    Ok(())
}
