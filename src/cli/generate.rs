//! `histoplay generate`: the manual pages, the manual's reference pages and the shells'
//! completions, written from these very options (scripts/package and the docs test run it).

use super::Cli;
use anyhow::{Context, Result};
use clap::Subcommand;
use std::path::PathBuf;

/// Write the manual pages or a shell's completions, from these very options (for
/// packagers: scripts/package runs it).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: Generated,
}

/// What `histoplay generate` writes.
#[derive(Subcommand)]
enum Generated {
    /// histoplay.1, and histoplay-SUBCOMMAND.1 for each subcommand, into DIR.
    Man { dir: PathBuf },
    /// The manual's reference pages, keys.md and commands.md, into DIR (docs/reference).
    Reference { dir: PathBuf },
    /// SHELL's completion script, on stdout.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

pub fn run(args: Args) -> Result<()> {
    let mut command = <Cli as clap::CommandFactory>::command();
    match args.what {
        Generated::Man { dir } => {
            std::fs::create_dir_all(&dir).with_context(|| format!("'{}' can't be made", dir.display()))?;
            clap_mangen::generate_to(command, &dir)
                .with_context(|| format!("the manual pages can't be written in '{}'", dir.display()))?;
        }
        Generated::Reference { dir } => {
            std::fs::create_dir_all(&dir).with_context(|| format!("'{}' can't be made", dir.display()))?;
            for (name, text) in [
                ("keys.md", super::reference::keys_page()),
                ("commands.md", super::reference::commands_page(&command)),
            ] {
                let path = dir.join(name);
                std::fs::write(&path, text).with_context(|| format!("'{}' can't be written", path.display()))?;
            }
        }
        Generated::Completions { shell } => {
            clap_complete::generate(shell, &mut command, "histoplay", &mut std::io::stdout());
        }
    }
    Ok(())
}
