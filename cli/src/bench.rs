//! `retro bench`: a fixed suite of perft positions for the three games, each line's nodes, time
//! and speed, the total nodes as a signature of the move generators, and the overall speed.

use crate::error::CliError;
use crate::{games, perft};
use retro_engine::dara::{Dara, DaraProfile};
use retro_engine::mill::{Mill, Profile};
use retro_engine::oaq::{Oaq, OaqProfile};
use serde_json::json;

/// Which game a line of the suite plays.
#[derive(Clone, Copy)]
enum Game {
    /// A Mill preset, split form (`true`) or compound.
    Mill(&'static str, bool),
    /// Dara, default rules.
    Dara,
    /// Ô Ăn Quan with `--rule` settings (empty: the default game).
    Oaq(&'static str),
}

/// One line of the suite: what, from where, how deep.
struct Line {
    name: &'static str,
    game: Game,
    /// `None`: the start position.
    fen: Option<&'static str>,
    depth: u32,
}

/// The suite. Changing it changes the signature: update `SIGNATURE` and the README with it.
const SUITE: &[Line] = &[
    Line {
        name: "mill nine-mens-morris start (split)",
        game: Game::Mill("nine-mens-morris", true),
        fen: None,
        depth: 6,
    },
    Line {
        name: "mill nine-mens-morris start (compound)",
        game: Game::Mill("nine-mens-morris", false),
        fen: None,
        depth: 5,
    },
    Line {
        name: "mill nine-mens-morris placing, a mill on the board",
        game: Game::Mill("nine-mens-morris", true),
        fen: Some("********/@*****@*/@O***OOO w p p 4 5 3 5 0 0 0 0 0 0 0 0 5"),
        depth: 7,
    },
    Line {
        name: "mill nine-mens-morris moving, 9 v 8",
        game: Game::Mill("nine-mens-morris", true),
        fen: Some("O@O@*O@*/@O*O@*O@/*@O*@O*O w m s 9 0 8 0 0 0 0 0 0 0 0 0 1"),
        depth: 8,
    },
    Line {
        name: "mill nine-mens-morris flying, 3 v 3",
        game: Game::Mill("nine-mens-morris", true),
        fen: Some("O*******/**O****O/***@**@@ w m s 3 0 3 0 0 0 0 0 0 0 0 0 1"),
        depth: 5,
    },
    Line {
        name: "mill nine-mens-morris moving, removal pending",
        game: Game::Mill("nine-mens-morris", true),
        fen: Some("O@O@*O@*/@O*O@*O@/*@O*@O*O w m r 9 0 8 0 1 0 0 0 0 0 0 0 1"),
        depth: 8,
    },
    Line {
        name: "mill twelve-mens-morris start (split)",
        game: Game::Mill("twelve-mens-morris", true),
        fen: None,
        depth: 6,
    },
    Line {
        name: "mill morabaraba start (split)",
        game: Game::Mill("morabaraba", true),
        fen: None,
        depth: 6,
    },
    Line {
        name: "mill lasker-morris start (split)",
        game: Game::Mill("lasker-morris", true),
        fen: None,
        depth: 6,
    },
    Line {
        name: "mill six-mens-morris start (split)",
        game: Game::Mill("six-mens-morris", true),
        fen: None,
        depth: 7,
    },
    Line {
        name: "dara drop phase, start",
        game: Game::Dara,
        fen: None,
        depth: 5,
    },
    Line {
        name: "dara movement phase, 12 v 12",
        game: Game::Dara,
        fen: Some(".BBW.W/BWWBWB/W.BWB./BW.WBW/WBW.BB w 0 0"),
        depth: 5,
    },
    Line {
        name: "oaq start",
        game: Game::Oaq(""),
        fen: None,
        depth: 8,
    },
    Line {
        name: "oaq mid-game",
        game: Game::Oaq(""),
        fen: Some("11,0,0,6,6,6,11,0,6,6,6,6 n 6 0 0"),
        depth: 8,
    },
    Line {
        name: "oaq seeds=2,2 start",
        game: Game::Oaq("seeds=2,2"),
        fen: None,
        depth: 9,
    },
];

/// The total nodes of the suite: any change to a move generator that changes a count shows here.
pub const SIGNATURE: u64 = 1_172_494_826;

/// Runs one line: nodes and seconds.
fn run(line: &Line, bulk: bool, threads: Option<usize>) -> Result<(u64, f64), CliError> {
    match line.game {
        Game::Mill(variant, split) => {
            let m = Mill::new(Profile::preset(variant).map_err(CliError::other)?);
            let p = games::mill::position(&m, line.fen)?;
            let ((_, nodes, secs), _) =
                perft::mill::perft_count(&m, &p, line.depth, split, bulk, threads)?;
            Ok((nodes, secs))
        }
        Game::Dara => {
            let g = Dara::new(DaraProfile::default());
            let p = games::dara::position(&g, line.fen)?;
            let (_, nodes, secs) = perft::dara::perft_count(&g, &p, line.depth, threads)?;
            Ok((nodes, secs))
        }
        Game::Oaq(settings) => {
            let mut profile = OaqProfile::default();
            for s in settings.split(';').filter(|s| !s.is_empty()) {
                profile.set(s).map_err(CliError::other)?;
            }
            let g = Oaq::new(profile);
            let p = games::oaq::position(&g, line.fen)?;
            let (_, nodes, secs) = perft::oaq::perft_count(&g, &p, line.depth, bulk, threads)?;
            Ok((nodes, secs))
        }
    }
}

/// `retro bench`.
pub fn bench(bulk: bool, threads: Option<usize>, as_json: bool) -> Result<(), CliError> {
    let threads_used = crate::output::pool(threads)?.current_num_threads();
    let mut rows = Vec::new();
    let (mut total, mut seconds) = (0u64, 0f64);
    if !as_json {
        println!(
            "retro bench: {} lines, {threads_used} thread{}, {}",
            SUITE.len(),
            if threads_used == 1 { "" } else { "s" },
            if bulk {
                "bulk counting at the last ply where the generator has it"
            } else {
                "every move of the last ply made"
            }
        );
        println!(
            "{:<52} {:>5} {:>14} {:>9} {:>10}",
            "position", "depth", "nodes", "time s", "M nodes/s"
        );
    }
    for line in SUITE {
        let (nodes, secs) = run(line, bulk, threads)?;
        total += nodes;
        seconds += secs;
        let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
        if as_json {
            rows.push(
                json!({"position": line.name, "fen": line.fen, "depth": line.depth,
                             "nodes": nodes, "seconds": secs, "nps": nps.round() as u64}),
            );
        } else {
            println!(
                "{:<52} {:>5} {:>14} {:>9.3} {:>10.1}",
                line.name,
                line.depth,
                nodes,
                secs,
                nps / 1e6
            );
        }
    }
    let nps = if seconds > 0.0 {
        total as f64 / seconds
    } else {
        0.0
    };
    let matches = total == SIGNATURE;
    if as_json {
        println!(
            "{}",
            json!({"lines": rows, "nodes": total, "seconds": seconds, "nps": nps.round() as u64,
                   "threads": threads_used, "bulk": bulk, "signature": total,
                   "signature_expected": SIGNATURE, "signature_ok": matches})
        );
    } else {
        println!(
            "signature {total} ({})",
            if matches {
                "as expected"
            } else {
                "DIFFERS from this build's expected signature: a move generator changed"
            }
        );
        println!("total {seconds:.3} s, {:.1} M nodes/s overall", nps / 1e6);
    }
    if !matches {
        return Err(CliError::other(format!(
            "bench signature {total}, expected {SIGNATURE}"
        )));
    }
    Ok(())
}
