//! The `outfall` command: check sites from the command line, or serve the map and API.

mod cli;

use clap::Parser;
use cli::{Cli, Command};

fn main() -> anyhow::Result<()> {
    let command = Cli::parse().command;
    if !matches!(command, Command::Serve(_)) {
        cli::log_to_stderr();
    }
    match command {
        Command::Check(args) => cli::check::run(args),
        Command::Rules(args) => cli::rules::run(args),
        Command::Prepare(args) => cli::prepare::run(args),
        Command::Validate(args) => cli::validate::run(args),
        Command::Inspections(args) => cli::inspections::run(args),
        Command::Sites(args) => cli::sites::run(args),
        Command::Sewer(args) => cli::sewer::run(args),
        Command::Serve(args) => cli::serve::run(args),
        Command::Token { action } => cli::token::run(action),
    }
}
