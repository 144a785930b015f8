//! The command line as clap reads it: the commands, their arguments, the games and the rule
//! arguments every game command takes.

use crate::error::CliError;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The command line.
#[derive(Parser)]
#[command(
    name = "retro",
    version,
    about = "Game-solving engine for Mill games, Dara and Ô Ăn Quan",
    long_about = "Game-solving engine for Mill games (Nine Men's Morris and its family), Dara and \
Ô Ăn Quan: bitboard move generation, perft, retrograde analysis into solved tables, and \
perfect play from them.\n\n\
Tables are built on your machine with `retro solve`; solved with it so far: the whole of \
six-mens-morris (seconds), nine-mens-morris (placement included: 1.2-2.3 hours on 2 cores, \
55.7 GB of tables or 5.3 GB with --compress), el-filja (1.6 hours, 3.1 GB compressed) and \
morabaraba-malom (9 hours over several resumed runs, 20.4 GB compressed), the Mill and Dara \
moving-phase endgames, and whole small Ô Ăn Quan games (--rule seeds=K,M). Commands: \
variants, moves, perft and bench (positions and move generation), solve, compress and verify \
(tables), analyse, play and sample (perfect play from the tables, search elsewhere), serve (a \
web page and a JSON API). `retro <command> --help` explains each.\n\n\
Examples:\n  retro variants\n  retro moves mill\n  retro moves mill --variant morabaraba --fen \
'********/********/******** w p p 0 12 0 12 0 0 0 0 0 0 0 0 1'\n  retro perft mill --depth 6 \
--split --threads 2\n\nExit codes: 0 success, 2 bad input (malformed position, illegal move, unknown \
variant), 1 other failures."
)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Subcommand)]
pub enum Command {
    /// List the rule presets (variants) and every field of their rule profiles.
    Variants(VariantsArgs),
    /// List the legal moves and the game state of a position.
    #[command(
        long_about = "List the legal moves of a position, sorted, and its state (side to \
move, phase for Mill and Dara, whether the game is over and why; the position itself is \
\"fen\" for Mill, \"position\" for Dara and Ô Ăn Quan). Without --fen: the variant's start \
position.\n\n\
Moves are in the compound form (a move with its removal is one ply: `a1-a4xg7`) unless --split \
is given (the reference app's form: `a1-a4`, then `xg7` as its own step).\n\n\
--batch FILE (or - for stdin) reads one FEN per line and prints one JSON object per line, in \
order; a bad line prints {\"error\": ...} for that line and the run goes on."
    )]
    Moves(MovesArgs),
    /// Count the leaves of the move tree to a given depth (move-generator test and benchmark).
    #[command(
        long_about = "Count the leaves of the move tree to a given depth: a standard test \
of a move generator and a benchmark of its speed. A position whose game is over counts 1 whatever \
depth is left.\n\nWith --split a removal is a ply of its own (how the reference app's perft \
numbers are counted: nine-mens-morris 24, 552, 12144, 255024, 5100480); without, a move with its \
removal is one ply. --divide prints the count below each root move."
    )]
    Perft(PerftArgs),
    /// Solve positions by retrograde analysis and write the tables.
    #[command(
        long_about = "Compute the game-theoretic value (win/draw/loss for the side to move, \
and the distance to the end in plies) of every position of the asked sectors and of every sector \
they depend on, and write one table per sector under --dir.\n\n\
A sector W,B,WF,BF holds the positions where the side to move has W stones on the board and WF \
in hand, the opponent B and BF (Dara: WvB, its movement-phase endgames). Without --sector or \
--max-stones: the whole Mill game from the start (placement included); Dara needs one of them; \
Ô Ăn Quan is solved whole (--rule seeds=K,M). --max-stones N: the moving phase with 3 to N \
stones a side.\n\n\
Sectors whose tables already exist and verify are kept, so a killed solve resumes where it \
stopped. Examples:\n  retro solve mill --variant six-mens-morris\n  retro solve mill --max-stones 4\n  \
retro solve mill --sector 3,3,0,0 --json"
    )]
    Solve(SolveArgs),
    /// Perfect-play analysis of a position from the tables, or a search where none holds it.
    #[command(
        long_about = "Print the value of a position (win/draw/loss for the side to move and \
the distance to the end in plies, winner shortest, loser longest), every legal move with its \
value, and the best moves. --pv adds a principal variation (from tables; an answer by search has \
none). Without --fen: the start position.\n\n\
mill: from the tables; a missing table is an error that names the solve command, or with \
--search (or --time/--depth) a search as Dara's.\n\
dara: from the endgame tables (`retro solve dara`) when they hold the position, else an \
alpha-beta search (iterative deepening, transposition table, --depth/--time, default 2 s, \
no time limit when only --depth is given) \
with the tables at its leaves; \"proven\" says whether the result is exact, \"depth\" how deep \
it searched, and \"result\" is \"unknown\" when no forced result was found.\n\
oaq: from the table of a solved game (`retro solve oaq`) when there is one, else a search; \
scores are future net seeds for the side to move.\n\n\
JSON (--json, and one line per FEN with --batch FILE or - for stdin): {\"fen\":..., \
\"result\":\"win\"|\"draw\"|\"loss\", \"plies\":N or null, \"best\":[...], \"moves\":[{\"move\":..., \
\"result\":..., \"plies\":...}]}, plus \"proven\", \"depth\", \"source\" (tables|search|rules, the last for a finished game: Mill too) and \
\"score\" for Dara and a Mill search; Ô Ăn Quan: {\"fen\", \"score\", \"proven\", \"depth\", \"best\", \"moves\"}."
    )]
    Analyse(AnalyseArgs),
    /// Play a game in the terminal against perfect play (tables) or search.
    #[command(
        long_about = "Play a game against the engine. It answers from the tables where they hold the position (perfect play: the shortest win, the longest loss) and by search elsewhere (--time/--depth). Moves are read one per line from stdin, so a script can play too; the board is printed after every ply.\n\nCommands: a move in the game's notation (mill `d6`, `a1-a4xg7`; dara `c3`, `c3-c4xe2`; oaq `3+`); undo (take back your last move and the engine's reply); hint (every move with its value); moves; board; fen; help; resign (the side to move loses); quit (leave the game unfinished).\n\nThe game ends by its rules, by resignation, by threefold repetition or by the N-move rule (mill: the variant's n-move-rule field; dara and oaq: --rule n-move-rule=N, default 100 plies without a removal, drop, capture or refill; 0 turns it off). --as picks your side: white|black (mill, dara), south|north (oaq), first, second, both (two players, the engine only hints) or none (the engine plays itself). Examples:\n  retro play mill --variant six-mens-morris --dir databases\n  echo 'hint' | retro play oaq --rule seeds=1,1 --as north\n  retro play dara --as none --time 0.5"
    )]
    Play(PlayArgs),
    /// Run the fixed perft suite of the three games: speed, and a signature of the generators.
    #[command(
        long_about = "Run a fixed suite of perft positions for the three games (Mill: the start \
of several presets, placing with a mill on the board, moving, flying, a pending removal; Dara: \
drop and movement phase; Ô Ăn Quan: start and mid-game) and print each line's nodes, time and \
nodes/s, the total nodes and the overall speed.\n\n\
The total is a signature of the move generators: it is fixed for a given suite, so a change to \
any generator that changes a count shows there (the command then says so and exits 1). \
--no-bulk makes every move of the last ply instead of counting them, for a like-for-like \
comparison with engines that do not bulk-count; the counts and the signature stay the same."
    )]
    Bench(BenchArgs),
    /// Check every table under a directory (header, length, checksum, where it lies).
    #[command(
        long_about = "Check every table file under a directory: its header, its length, every \
block's checksum and the whole file's, the value counts against the header, and that it lies in \
the file and folder its header names. Prints a line per file (ok or FAIL and why) and exits 1 if \
any failed, or if there is no table at all; a game folder a solve left without a table gets a \
note line.\n\n\
--upgrade also rewrites each table that passes in the current layout, the values the same, each \
file replaced atomically: a table of format version 1 or 2 in version 3 (a checksum per 4 KiB, \
four times cheaper to check than version 2's per 16 KiB, which a short-lived process pays on its \
first read of each part of a table); a distance file of the older layout (encodings 5 and 7) with \
its entries grouped (8 and 9: smaller), and a zstd win/draw/loss file without a dictionary with \
one where that makes it smaller (2-7% on mixed tables, whose blocks then decode about a quarter \
faster), both recompressed at zstd level 12 and compared block by block with the old; a \
compressed table written before December 2026 (slots in the index's order, or zstd blocks) in the \
reflected slot order with the rANS coders where this build knows its rules (through a raw \
working copy, every slot compared: win/draw/loss about 17% smaller on the nine-mens-morris \
endgames; a killed run leaves the copy, read by probes, and `retro compress` or the next upgrade \
finishes it); a table of the first rANS coders (block coders 2 and 3, before December 5, 2026) \
with coders 4 and 5 (5-10% smaller; coded again and compared block by block). It takes each \
folder's lock (a folder a solve is writing is checked but not rewritten) and removes what killed \
writers left there."
    )]
    Verify(VerifyArgs),
    /// Turn the raw sector tables under a directory into compressed ones, in place.
    #[command(
        long_about = "Turn every raw sector table (sector_W_B_WF_BF.rtb, Mill and Dara) under a \
directory into a compressed win/draw/loss file (.rtbw) and a distance file (.rtbd) beside it, in \
place. Each raw table is verified whole first; the compressed files are written atomically, then \
decoded slot by slot and compared with the raw table, and only then is the raw file removed. A \
killed run resumes: raw tables still there are done again. Every command reads raw and compressed \
tables alike.\n\n\
A sector whose side to move has less material than the opponent (stones on the board and in \
hand) becomes a derived table instead (.rtbp), a header alone: each of its values is the best \
over the position's moves, which all lead to tables that keep their values, so a one-ply search \
gives it. That halves the set; a probe of a derived position costs one probe of each move. \
--no-derive keeps every sector's values.\n\n\
--wdl-only writes (or, for tables compressed already, keeps) only the win/draw/loss files, a \
fraction of the size: they know win, draw or loss but no distances. `analyse` then gives each \
position's and each move's result without plies, and what needs distances (`--pv`) says the \
distances are missing; `play` still plays a won game to its end (it needs only which moves keep \
the win). Examples:\n  \
retro compress --dir databases\n  retro compress --dir databases --wdl-only --json"
    )]
    Compress(CompressArgs),
    /// Print random positions drawn from the tables under a directory (FEN lines).
    #[command(
        long_about = "Print random positions drawn from the sector tables under a directory, one FEN \
per line: the same count from each table found (Mill: every sector of the variant, placement \
included; Dara: the moving-phase endgames; what does not divide evenly goes one more to tables \
drawn at random), each a uniformly chosen slot that holds a legal \
position. The same --seed gives the same positions. Made for benchmarks and cross-checks: pipe \
it into `retro analyse --batch -`, or compare the answers of two table folders. Examples:\n  \
retro sample mill --dir databases --count 100000 > sample.txt\n  \
retro sample mill --sector 6,6,0,0 --count 1000 | retro analyse mill --batch - > out.jsonl\n  \
retro sample mill --dir databases --count 100000 --time --json\n  \
retro sample mill --dir databases --count 100000 --check   # each value against its moves"
    )]
    Sample(SampleArgs),
    /// Serve the tables over HTTP: a JSON API and a web page for the three games.
    #[command(
        long_about = "Serve the tables under --dir over HTTP, on 127.0.0.1 unless told otherwise: a \
web page for the three games (an SVG board: click to place, slide, remove, sow; every move listed \
with its value, best first; the URL carries the position) and a JSON API that answers what \
`retro analyse ... --json` answers:\n  \
GET  /api/mill?variant=V&fen=F&rule=FIELD=VALUE   (also pv=1; search=1 searches where no table holds the position)\n  \
GET  /api/dara?fen=F        GET /api/oaq?fen=F&rule=seeds=1,1   (time=S up to --max-search-time, depth=N from 1 to 200 bound their searches)\n  \
POST /api/batch   {\"game\":\"mill\",\"variant\":\"six-mens-morris\",\"fens\":[...]}   (at most 1000)\n  \
GET  /api/variants          GET /api/board/GAME?fen=F   (what the page draws)\n\
Errors are JSON: 400 naming the field, 404 for an unknown route, 503 with the `retro solve` \
command when a table is missing. Every reply allows any origin (CORS), so a local notebook can \
call it. Only the embedded page and the tables of --dir are served; no path from a request \
reaches the file system. Examples:\n  \
retro serve --dir databases\n  \
retro serve --addr 0.0.0.0:8080 --timeout 5\n  \
curl 'http://127.0.0.1:8080/api/mill?variant=six-mens-morris'"
    )]
    Serve(ServeArgs),
}

impl Command {
    /// The folder of tables the command reads or writes (`--dir`), if it takes one.
    pub fn dir(&self) -> Option<&std::path::Path> {
        match self {
            Command::Solve(a) => Some(&a.dir),
            Command::Analyse(a) => Some(&a.dir),
            Command::Play(a) => Some(&a.dir),
            Command::Verify(a) => Some(&a.dir),
            Command::Compress(a) => Some(&a.dir),
            Command::Sample(a) => Some(&a.dir),
            Command::Serve(a) => Some(&a.dir),
            Command::Variants(_) | Command::Moves(_) | Command::Perft(_) | Command::Bench(_) => {
                None
            }
        }
    }
}

/// The arguments of `retro serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Where the tables are.
    #[arg(long, default_value = "databases")]
    pub dir: PathBuf,
    /// Address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Worker threads (default: all cores).
    #[arg(long, short)]
    pub threads: Option<usize>,
    /// Seconds a request may take, head, body and answer (and an idle connection stays open).
    #[arg(long, default_value_t = 10.0)]
    pub timeout: f64,
    /// Connections served at once; more wait to be accepted (1 to 1048576).
    #[arg(long, default_value_t = 1024)]
    pub max_connections: usize,
    /// Longest search a request may ask for with time=, in seconds (more than 0, at most 60).
    #[arg(long, default_value_t = 5.0)]
    pub max_search_time: f64,
}

/// The arguments of `retro sample`.
#[derive(Args)]
pub struct SampleArgs {
    /// The game (mill or dara: the games with sector tables).
    pub game: SectorGame,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Where the tables are.
    #[arg(long, default_value = "databases")]
    pub dir: PathBuf,
    /// How many positions in all, spread evenly over the tables (the remainder to random ones).
    #[arg(long, default_value_t = 1000)]
    pub count: u64,
    /// Seed of the pseudo-random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Only from this sector, W,B,WF,BF as in the table names (repeatable).
    #[arg(long)]
    pub sector: Vec<String>,
    /// Instead of printing the positions, probe each once (its value with the distance) and
    /// report the probe times: median and 99th percentile per table and for each kind of
    /// table (raw, compressed, derived). Run it twice to have the tables in the page cache.
    #[arg(long)]
    pub time: bool,
    /// Instead of printing the positions, check each against one ply of the engine's own
    /// moves: its value must be the best of its moves' values, each read from the tables (a
    /// win in d + 1 from a move to a loss in d, and so on). Prints how many agree; any that
    /// does not is printed and makes the exit status 1.
    #[arg(long, conflicts_with = "time")]
    pub check: bool,
    /// With --time, time the win/draw/loss probe alone (what a search pays at its leaves, and
    /// all that tables kept with --wdl-only answer) instead of the value with its distance.
    #[arg(long, requires = "time")]
    pub wdl: bool,
    /// With --time, probe every sampled position once untimed first, then time a second
    /// probe of each (in the same order, so thousands of others come between the two): the
    /// tables' pages are then mapped and their checksums checked, as in a process that has
    /// read them before (a server, an engine); without it each probe also pays its first
    /// reads, as a fresh `retro analyse` does.
    #[arg(long, requires = "time")]
    pub warm: bool,
    /// With --time or --check, print JSON.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `retro compress`.
#[derive(Args)]
pub struct CompressArgs {
    /// The directory whose tables to compress (recursively).
    #[arg(long, default_value = "databases")]
    pub dir: PathBuf,
    /// Keep only the win/draw/loss part (no distances).
    #[arg(long)]
    pub wdl_only: bool,
    /// Keep the values of every sector (compressed), every distance included. By default a
    /// sector whose side to move has less material than the opponent (half of a Mill game)
    /// becomes a derived table, a header alone: its values come from a one-ply search over the
    /// tables its moves lead to, which makes its probes slower and the whole set about half the
    /// size. And in a sector whose sides have equal material, a win whose distance a one-ply
    /// search over its moves into stored tables gives keeps no distance of its own (a probe of
    /// it searches; the sector's distances take about half the room).
    #[arg(long)]
    pub no_derive: bool,
    /// zstd level, 1 (fast) to 22 (smallest), for the blocks zstd codes: those of
    /// `--wdl-coder zstd`, `--distance-coder zstd` or `--index-order`, and of tables without a
    /// slot order of their own (da-san-qi's placing sectors). The default rANS coders write the same bytes at
    /// every level. (zstd on 6_6_0_0: 12 takes 6.9 s, 19 takes 15.3 s for 0.9% less, 3 takes
    /// 3.7 s for 5.8% more.)
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(i32).range(1..=22))]
    pub level: i32,
    /// How win/draw/loss blocks are coded: `rans`, a model of each symbol given the 4 before
    /// it, fitted per table, whose probes decode one sub-block up to the slot (7-60% smaller
    /// than zstd on the nine-mens-morris tables, a probe's decoding 2-3 times faster); or
    /// `zstd`, as tables written before December 2026 (also what a folder whose rules this
    /// build does not know gets, and --index-order).
    #[arg(long, value_enum, default_value_t = WdlCoder::Rans)]
    pub wdl_coder: WdlCoder,
    /// How distance blocks are coded beside rANS win/draw/loss: `rans`, a model of each entry
    /// given the one before it, fitted per table, whose probes decode one sub-block's entries
    /// up to the slot's; or `zstd` blocks, decoded whole, as tables written before (with
    /// `--wdl-coder zstd` distances are always zstd).
    #[arg(long, value_enum, default_value_t = WdlCoder::Rans)]
    pub distance_coder: WdlCoder,
    /// Code rANS blocks with one model per table and streams from the state 2^15 (block
    /// coders 2 and 3, what was written before December 5, 2026), for comparisons; by
    /// default sub-blocks are sorted into up to 64 kinds, each coded with a model of its own,
    /// and streams start from the state 0 (coders 4 and 5: 5-10% smaller on the
    /// nine-mens-morris tables, probes as fast).
    #[arg(long)]
    pub single_model: bool,
    /// Slots of a rANS sub-block, a power of two from 64 up to the distance block: a probe
    /// decodes half of one on average (1024: 4-12% smaller, probes about twice as slow).
    #[arg(long, default_value_t = 512, value_parser = sub_block_slots)]
    pub sub_block_slots: u32,
    /// Slots of a win/draw/loss block, a power of two from 1024 to 65536 (default: 16384
    /// under rANS, whose probes decode a sub-block, not a block; 4096 under zstd, where
    /// smaller blocks probe faster and take more room: 16384 makes zstd's win/draw/loss about
    /// 17% smaller, a probe about twice as slow).
    #[arg(long, value_parser = block_slots)]
    pub block_slots: Option<u32>,
    /// Slots of a distance block, a power of two from 1024 up to --block-slots (default:
    /// 4096). Distances are most of the bytes: a quarter of 4096 makes them about 25% larger.
    #[arg(long, value_parser = block_slots)]
    pub distance_block_slots: Option<u32>,
    /// Store each table's slots in the index's order, as tables written before December 2026
    /// do, instead of the reflected order (for comparisons: the reflected order makes the
    /// win/draw/loss files of the nine-mens-morris endgames about 17% smaller; `retro verify
    /// --upgrade` rewrites such tables in the reflected order).
    #[arg(long)]
    pub index_order: bool,
    /// Print one JSON object at the end instead of a line per table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

/// The game families.
#[derive(Clone, Copy, ValueEnum)]
pub enum GameKind {
    /// Nine Men's Morris and its family (see `retro variants`).
    Mill,
    /// Dara: 5x6 board, 12 stones each, exact threes capture (`--rule protected-threes=off`,
    /// `--rule drop-threes-forbidden=on`).
    Dara,
    /// Ô Ăn Quan, the Vietnamese mandarin-square mancala (`--rule seeds=K,M`,
    /// `--rule big-mandarin=V`, `--rule quan-non=K`).
    Oaq,
}

/// The game families with sector tables (Ô Ăn Quan's tables are whole games).
#[derive(Clone, Copy, ValueEnum)]
pub enum SectorGame {
    /// Nine Men's Morris and its family (see `retro variants`).
    Mill,
    /// Dara's endgame tables.
    Dara,
}

/// Which rules: a preset and field overrides.
#[derive(Args, Clone)]
pub struct RuleArgs {
    /// Rule preset (see `retro variants`; Mill only, default nine-mens-morris).
    #[arg(long, short)]
    pub variant: Option<String>,
    /// Override one rule field, e.g. `--rule flying=false` (repeatable).
    #[arg(long = "rule", value_name = "FIELD=VALUE")]
    pub rules: Vec<String>,
}

impl RuleArgs {
    /// Refuses `--variant` for a game configured by `--rule` fields only (Dara, Ô Ăn Quan).
    pub fn no_variant(&self, game: &str, fields: &str) -> Result<(), CliError> {
        match &self.variant {
            Some(v) if v != game => {
                let mill = retro_engine::mill::PRESETS.iter().any(|p| p.name == v);
                Err(CliError::input(if mill {
                    format!(
                        "--variant {v} is a Mill preset; {game} is configured with --rule {fields}"
                    )
                } else {
                    format!(
                        "unknown --variant {}: {game} has no presets; it is configured with \
                         --rule {fields}",
                        retro_engine::Excerpt(v, 100)
                    )
                }))
            }
            _ => Ok(()),
        }
    }

    /// The `--rule` settings that are the game's own (Dara and Ô Ăn Quan keep the N-move rule,
    /// a play rule, out of their rule profiles and table fingerprints).
    pub fn game_rules(&self) -> impl Iterator<Item = &String> {
        self.rules.iter().filter(|r| !is_n_move_setting(r))
    }

    /// The N-move rule of a Dara or Ô Ăn Quan game: `--rule n-move-rule=N` (default 100
    /// plies; 0 turns it off).
    pub fn n_move_rule(&self) -> Result<u32, CliError> {
        let mut n = 100;
        for r in self.rules.iter().filter(|r| is_n_move_setting(r)) {
            let value = r.split_once('=').map(|(_, v)| v.trim()).unwrap_or("");
            n = value.parse().ok().filter(|v| *v <= 10_000).ok_or_else(|| {
                CliError::input(format!(
                    "rule field 'n-move-rule': expected a number from 0 to 10000, found '{value}'"
                ))
            })?;
        }
        Ok(n)
    }

    /// The Mill preset asked for (default nine-mens-morris).
    pub fn mill_variant(&self) -> &str {
        self.variant.as_deref().unwrap_or("nine-mens-morris")
    }
}

/// Whether a `--rule` setting is the N-move rule's.
fn is_n_move_setting(r: &str) -> bool {
    let name = r.split('=').next().unwrap_or("").trim().replace('_', "-");
    name == "n-move-rule"
}

/// The arguments of `retro variants`.
#[derive(Args)]
pub struct VariantsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `retro moves`.
#[derive(Args)]
pub struct MovesArgs {
    /// The game.
    pub game: GameKind,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The position (the reference app's FEN). Default: the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Split form: a removal is its own step.
    #[arg(long)]
    pub split: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Read FENs from a file (one per line; `-` for stdin) and print JSON lines.
    #[arg(long, conflicts_with = "fen")]
    pub batch: Option<String>,
}

/// The arguments of `retro perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// The game.
    pub game: GameKind,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The root position (FEN). Default: the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Depth in plies (at most 1000: the recursion's stack).
    #[arg(long, short, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub depth: u32,
    /// Split form: a removal is its own ply.
    #[arg(long)]
    pub split: bool,
    /// Print the count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Make every move of the last ply instead of counting them (bulk counting), for a
    /// like-for-like comparison with engines that do not bulk-count. Same counts.
    #[arg(long)]
    pub no_bulk: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short)]
    pub threads: Option<usize>,
    /// Print JSON: {"nodes":N,"nps":R,"seconds":S}.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `retro solve`.
#[derive(Args)]
pub struct SolveArgs {
    /// The game.
    pub game: GameKind,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Where the tables go.
    #[arg(long, default_value = "databases")]
    pub dir: PathBuf,
    /// Solve the moving phase with up to N stones a side.
    #[arg(long)]
    pub max_stones: Option<u8>,
    /// Solve this sector, W,B,WF,BF (Dara also WvB, e.g. 5v4; repeatable).
    #[arg(long = "sector", value_name = "W,B,WF,BF")]
    pub sectors: Vec<String>,
    /// Worker threads (default: all cores).
    #[arg(long, short)]
    pub threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress bars, nor the line per unit that replaces them on stderr when it is not a
    /// terminal or with --json (a log for a solve run in the background).
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the plan and solve nothing: how many sectors and units are left to solve, their
    /// slots, the memory and disk they need and roughly how long they take (with --json, every
    /// sector with its slots; Ô Ăn Quan: the game's slots and memory). A report, it exits 0
    /// even under rules the solver cannot solve whole: it names the sectors left out first,
    /// and --json's `solvable` is false.
    #[arg(long)]
    pub dry_run: bool,
    /// Wait for another solve writing into the same table folder to finish, instead of
    /// refusing (two solves of one folder would write the same tables).
    #[arg(long)]
    pub wait: bool,
    /// Write compressed tables (.rtbw + .rtbd, as `retro compress` does): each sector's raw
    /// table is compressed and removed as soon as no sector left to solve reads it.
    #[arg(long)]
    pub compress: bool,
    /// zstd level of --compress, 1 to 22, for the tables coded by zstd: those without a slot
    /// order of their own (da-san-qi's placing sectors, whose index has marked points); the
    /// others are coded by rANS (see `retro compress --wdl-coder`), the same bytes at every
    /// level.
    #[arg(long, default_value_t = 3, requires = "compress",
          value_parser = clap::value_parser!(i32).range(1..=22))]
    pub compress_level: i32,
    /// With --compress, keep the values of every sector and every distance, instead of leaving
    /// those of sectors whose side to move has less material, and the distances of most wins
    /// where both sides have equal material, to a one-ply search (as `retro compress` does).
    #[arg(long, requires = "compress")]
    pub no_derive: bool,
    /// With --compress, keep at most this many GiB of raw tables on disk between units (for
    /// a game whose --dry-run peak does not fit the disk): tables that units to come still
    /// read are compressed early with every value kept, decoded again into working copies
    /// for the units that read them (slower: each such table is decoded once per reader), and
    /// given their final form after their last reader; the finished tables are the same.
    /// --dry-run gives the disk peak under it, and names a budget when the peak without one
    /// does not fit.
    #[arg(long, requires = "compress", value_name = "GIB", value_parser = positive_gib)]
    pub raw_budget: Option<f64>,
    /// With --compress, start a solve in a folder without its tables even when --dry-run's
    /// disk peak exceeds the free disk. That peak is an estimate: it takes compressed tables
    /// at a default share of their raw size until the folder holds a GiB (raw) of its own,
    /// and games differ (a drawish one compresses far better). The room for each unit's raw
    /// tables and the working copies it reads is still checked before it is solved; a solve
    /// stopped for want of disk (there, or by a write that finds the disk full) resumes once
    /// there is room.
    #[arg(long, requires = "compress")]
    pub ignore_disk_estimate: bool,
}

/// The arguments of `retro analyse`.
#[derive(Args)]
pub struct AnalyseArgs {
    /// The game.
    pub game: GameKind,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Where the tables are.
    #[arg(long, default_value = "databases")]
    pub dir: PathBuf,
    /// The position (FEN). Default: the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Print a principal variation (from tables: a line of best moves to the end of the game,
    /// or for Ô Ăn Quan to the first position seen again; an answer by search has none).
    #[arg(long)]
    pub pv: bool,
    /// Search depth limit in plies (games or positions without tables; 1 to 1000). Given
    /// alone, the search has no time limit.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub depth: Option<u32>,
    /// Search time limit in seconds (games or positions without tables; default 2, none when
    /// only --depth is given).
    #[arg(long)]
    pub time: Option<f64>,
    /// Mill: where no table holds the position (a sector not solved, a removal pending),
    /// answer by an alpha-beta search with the tables at its leaves (--depth/--time; either
    /// one implies --search) instead of naming the table to build. Dara and Ô Ăn Quan always
    /// search there.
    #[arg(long)]
    pub search: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Read FENs from a file (one per line; `-` for stdin) and print JSON lines.
    #[arg(long, conflicts_with = "fen")]
    pub batch: Option<String>,
    /// Play these moves from the position first ("d6 f4 d2 ..."), with full legality checks,
    /// threefold repetition and the N-move rule (`--rule n-move-rule=N`, default 100 plies,
    /// 0 off); then analyse where the game stands.
    #[arg(long, conflicts_with_all = ["batch", "record"])]
    pub moves: Option<String>,
    /// As --moves, read from a file (one move per line or space-separated).
    #[arg(long, conflicts_with = "batch")]
    pub record: Option<PathBuf>,
    /// With --moves or --record: every ply with the value before and after it (from the
    /// tables where they hold the position), marking the moves that change the result
    /// (Ô Ăn Quan: the seeds a move gives away).
    #[arg(long)]
    pub annotate: bool,
    /// Mill: add the distance to the next removal under the winner's best play
    /// ("removal_in") and whether the N-move rule draws the win first ("cursed", from the
    /// position's counter); always on with --moves/--record.
    #[arg(long)]
    pub removal: bool,
}

/// The arguments of `retro play`.
#[derive(Args)]
pub struct PlayArgs {
    /// The game.
    pub game: GameKind,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Where the tables are.
    #[arg(long, default_value = "databases")]
    pub dir: PathBuf,
    /// The start position (default: the game's start).
    #[arg(long)]
    pub fen: Option<String>,
    /// Your side: white, black, south, north, first, second, both or none.
    #[arg(long = "as", default_value = "first", value_name = "SIDE")]
    pub seat: String,
    /// Engine search depth limit in plies, where no table holds the position (1 to 1000).
    /// Given alone, the search has no time limit.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub depth: Option<u32>,
    /// Engine search time per move in seconds, where no table holds the position (default 2,
    /// none when only --depth is given).
    #[arg(long)]
    pub time: Option<f64>,
    /// Print a JSON summary of the game at the end (moves, result, reason): the last line of
    /// stdout, after the game's text.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `retro bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Worker threads (default: all cores).
    #[arg(long, short)]
    pub threads: Option<usize>,
    /// Make every move of the last ply (no bulk counting).
    #[arg(long)]
    pub no_bulk: bool,
    /// Print JSON: each line, the total nodes (the signature), seconds and nodes/s.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `retro verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// The directory to check (recursively).
    #[arg(long, default_value = "databases")]
    pub dir: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Rewrite each table that passes in the current layout: format version 3, grouped
    /// distances, win/draw/loss dictionaries, the reflected slot order and the rANS coders 4
    /// and 5 (the same values, fewer bytes; version 3's checksums make a probe's first read of
    /// a block cheaper). Takes each table folder's lock, as a solve does.
    #[arg(long)]
    pub upgrade: bool,
}

/// The block coders of `retro compress`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WdlCoder {
    /// A context model and rANS, sub-blocks decoded alone.
    Rans,
    /// zstd blocks.
    Zstd,
}

/// Parses `--sub-block-slots`: a power of two from 64 to 16384.
fn sub_block_slots(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n.is_power_of_two() && (64..=16384).contains(&n) => Ok(n),
        _ => Err(format!("{text} is not a power of two from 64 to 16384")),
    }
}

/// Parses `--block-slots`: a power of two from 1024 to 65536.
fn block_slots(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n.is_power_of_two() && (1024..=65536).contains(&n) => Ok(n),
        _ => Err(format!("{text} is not a power of two from 1024 to 65536")),
    }
}

/// A positive number of GiB (`--raw-budget`), at most a million.
fn positive_gib(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(g) if g > 0.0 && g <= 1e6 => Ok(g),
        _ => Err(format!(
            "'{s}' is not a number of GiB above 0 and at most 1000000"
        )),
    }
}
