//! `retro`: solve, analyse and benchmark Mill games, Dara and Ô Ăn Quan from the command line.

mod error;
mod mill_cmd;

use clap::{Args, Parser, Subcommand, ValueEnum};
use error::CliError;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "retro",
    version,
    about = "Game-solving engine for Mill games, Dara and Ô Ăn Quan",
    long_about = "Game-solving engine for Mill games (Nine Men's Morris and its family), Dara and \
Ô Ăn Quan: bitboard move generation, perft, and (in progress) retrograde endgame databases.\n\n\
Examples:\n  retro variants\n  retro moves mill\n  retro moves mill --variant morabaraba --fen \
'********/********/******** w p p 0 12 0 12 0 0 0 0 0 0 0 0 1'\n  retro perft mill --depth 6 \
--split --threads 2\n\nExit codes: 0 success, 2 bad input (malformed position, illegal move, unknown \
variant), 1 other failures."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the rule presets (variants) and every field of their rule profiles.
    Variants {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// List the legal moves and the game state of a position.
    #[command(
        long_about = "List the legal moves of a position, sorted, and its state (side to \
move, phase, whether the game is over and why). Without --fen: the variant's start position.\n\n\
Moves are in the compound form (a move with its removal is one ply: `a1-a4xg7`) unless --split \
is given (the reference app's form: `a1-a4`, then `xg7` as its own step).\n\n\
--batch FILE (or - for stdin) reads one FEN per line and prints one JSON object per line, in \
order; a bad line prints {\"error\": ...} for that line and the run goes on."
    )]
    Moves {
        /// The game.
        game: GameKind,
        #[command(flatten)]
        rules: RuleArgs,
        /// The position (the reference app's FEN). Default: the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Split form: a removal is its own step.
        #[arg(long)]
        split: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Read FENs from a file (one per line; `-` for stdin) and print JSON lines.
        #[arg(long, conflicts_with = "fen")]
        batch: Option<String>,
    },
    /// Count the leaves of the move tree to a given depth (move-generator test and benchmark).
    #[command(
        long_about = "Count the leaves of the move tree to a given depth: a standard test \
of a move generator and a benchmark of its speed. A position whose game is over counts 1 whatever \
depth is left.\n\nWith --split a removal is a ply of its own (how the reference app's perft \
numbers are counted: nine-mens-morris 24, 552, 12144, 255024, 5100480); without, a move with its \
removal is one ply. --divide prints the count below each root move."
    )]
    Perft {
        /// The game.
        game: GameKind,
        #[command(flatten)]
        rules: RuleArgs,
        /// The root position (FEN). Default: the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Depth in plies.
        #[arg(long, short)]
        depth: u32,
        /// Split form: a removal is its own ply.
        #[arg(long)]
        split: bool,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
        /// Worker threads (default: all cores).
        #[arg(long, short)]
        threads: Option<usize>,
        /// Print JSON: {"nodes":N,"seconds":S,"nps":R}.
        #[arg(long)]
        json: bool,
    },
}

/// The game families.
#[derive(Clone, Copy, ValueEnum)]
enum GameKind {
    /// Nine Men's Morris and its family (see `retro variants`).
    Mill,
}

/// Which rules: a preset and field overrides.
#[derive(Args, Clone)]
struct RuleArgs {
    /// Rule preset (see `retro variants`).
    #[arg(long, short, default_value = "nine-mens-morris")]
    variant: String,
    /// Override one rule field, e.g. `--rule flying=false` (repeatable).
    #[arg(long = "rule", value_name = "FIELD=VALUE")]
    rules: Vec<String>,
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Variants { json } => mill_cmd::variants(json),
        Command::Moves {
            game: GameKind::Mill,
            rules,
            fen,
            split,
            json,
            batch,
        } => mill_cmd::moves(&rules, fen.as_deref(), split, json, batch.as_deref()),
        Command::Perft {
            game: GameKind::Mill,
            rules,
            fen,
            depth,
            split,
            divide,
            threads,
            json,
        } => mill_cmd::perft(&rules, fen.as_deref(), depth, split, divide, threads, json),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
