//! `retro`: solve, analyse and benchmark Mill games, Dara and Ô Ăn Quan from the command line.
//!
//! One module per command (`variants`, `moves`, `perft`, `solve`, `analyse`, `play`, `verify`,
//! `bench`, `compress`, `sample`, `serve`), each with a `run` that hands the arguments to the game's code; `args` is the
//! command line, `games` the per-game setup they share, `referee` the game records of `play`
//! and `analyse --moves`, `output` the shared printing helpers.

mod analyse;
mod args;
mod bench;
mod compress;
mod derive;
mod error;
mod games;
mod moves;
mod output;
mod perft;
mod play;
mod probe_times;
mod referee;
mod rewrite;
mod sample;
mod serve;
mod solve;
mod variants;
mod verify;

use args::{Cli, Command};
use clap::Parser;
use error::CliError;
use std::process::ExitCode;

fn run(cli: Cli) -> Result<(), CliError> {
    // A --dir that names a file would read as a folder without tables ("no table ..., build
    // it with --dir FILE"): said as what it is. A missing folder is each command's to handle.
    if let Some(dir) = cli.command.dir().filter(|d| d.exists() && !d.is_dir()) {
        return Err(CliError::input(format!(
            "--dir {}: a file, not a folder of tables",
            dir.display()
        )));
    }
    match cli.command {
        Command::Variants(a) => variants::run(a.json),
        Command::Moves(a) => moves::run(&a),
        Command::Perft(a) => perft::run(&a),
        Command::Solve(a) => solve::run(&a),
        Command::Analyse(a) => analyse::run(&a),
        Command::Play(a) => play::run(&a),
        Command::Verify(a) => verify::run(&a.dir, a.json, a.upgrade),
        Command::Bench(a) => bench::bench(!a.no_bulk, a.threads, a.json),
        Command::Compress(a) => compress::run(&a),
        Command::Sample(a) => sample::run(&a),
        Command::Serve(a) => serve::run(&a),
    }
}

fn main() -> ExitCode {
    // SAFETY: called first thing in main, before any other thread exists; SIG_DFL is a valid
    // action for SIGPIPE. A closed output pipe then ends the process like any Unix tool instead
    // of making println! panic.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
