//! `retro play <game>`: a game in the terminal against perfect play (tables) or search, driven
//! line by line from stdin so that it also works from scripts and tests.

use crate::error::CliError;
use crate::output::describe;
use crate::referee::{Record, Referee};
use serde_json::{json, Value as Json};
use std::io::{IsTerminal, Write};

/// Who plays which side.
pub struct Seats {
    /// Whether each side (first player first) is played by the user.
    pub human: [bool; 2],
}

impl Seats {
    /// Reads `--as`: a side's name, `first`, `second`, `both` (two users, the engine only
    /// hints) or `none` (the engine plays itself).
    pub fn parse(text: &str, names: [&str; 2]) -> Result<Seats, CliError> {
        let human = match text {
            "both" => [true, true],
            "none" => [false, false],
            "first" => [true, false],
            "second" => [false, true],
            t if t == names[0] => [true, false],
            t if t == names[1] => [false, true],
            _ => {
                return Err(CliError::input(format!(
                    "--as {text}: expected {}, {}, first, second, both or none",
                    names[0], names[1]
                )))
            }
        };
        Ok(Seats { human })
    }
}

const HELP: &str =
    "Commands: a move in the game's notation; undo (take back your last move and the \
engine's reply); \
hint (every move with its value); moves (the legal moves); board; fen; help; resign (the \
side to move loses); quit (leave the game unfinished).";

/// Where an analysis came from, for the user.
fn source(v: &Json) -> String {
    match (v["source"].as_str(), v["proven"].as_bool(), &v["depth"]) {
        (Some("search"), Some(true), d) => format!("search, proven, depth {d}"),
        (Some("search"), _, d) => format!("search to depth {d}, not proven"),
        (Some(s), _, _) => s.to_string(),
        (None, _, _) => "tables".to_string(),
    }
}

/// Plays a game: the user's moves from stdin, the engine's from `advise` (an analysis object
/// with `best` and `moves`). Returns when the game ends, on `quit`, or at the end of stdin.
pub fn play<R: Referee>(
    referee: &R,
    start: R::Pos,
    seats: &Seats,
    as_json: bool,
    advise: &dyn Fn(&R::Pos) -> Result<Json, CliError>,
) -> Result<(), CliError> {
    let names = referee.side_names();
    let mut rec = Record::new(referee, start);
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let mut input = stdin.lock();
    // Whether the user plays the side to move of a position.
    let human = |p: &R::Pos| seats.human[usize::from(referee.side(p) != names[0])];
    println!("{HELP}");
    print!("{}", referee.diagram(rec.last()));
    let mut quit = false;
    // The side that resigned, if one did.
    let mut resigned: Option<&str> = None;
    while rec.ended.is_none() {
        if !human(rec.last()) {
            let v = advise(rec.last())?;
            let Some(best) = v["best"]
                .as_array()
                .and_then(|b| b.first())
                .and_then(|b| b.as_str())
            else {
                return Err(CliError::other("the engine found no move"));
            };
            let best = best.to_string();
            let side = referee.side(rec.last());
            rec.push(&best)?;
            let mv = v["moves"]
                .as_array()
                .and_then(|ms| ms.iter().find(|m| m["move"] == best.as_str()));
            println!(
                "{} {side} plays {best} ({}; {})",
                rec.moves.len(),
                mv.map_or_else(|| "?".to_string(), describe),
                source(&v)
            );
            print!("{}", referee.diagram(rec.last()));
            continue;
        }
        if interactive {
            print!("{}> ", referee.side(rec.last()));
            let _ = std::io::stdout().flush();
        }
        let Some(line) = crate::output::next_line(&mut input)
            .map_err(|e| CliError::other(format!("reading stdin: {e}")))?
        else {
            break;
        };
        let line = match line {
            Ok(text) => text,
            Err((why, start)) => {
                println!(
                    "error: {why} (starting '{}')",
                    crate::output::preview(&start)
                );
                continue;
            }
        };
        let cmd = line.trim();
        match cmd {
            "" => {}
            "quit" | "exit" => {
                quit = true;
                break;
            }
            "resign" => {
                resigned = Some(referee.side(rec.last()));
                break;
            }
            "help" | "?" => println!("{HELP}"),
            "board" => print!("{}", referee.diagram(rec.last())),
            "fen" => println!("{}", referee.fen(rec.last())),
            "moves" => println!("{}", referee.legal(rec.last()).join(" ")),
            "undo" => {
                // Take back the user's last move and every ply after it.
                let mine = (0..rec.moves.len())
                    .rev()
                    .find(|&i| human(&rec.positions[i]));
                match mine {
                    None => println!("nothing to undo"),
                    Some(i) => {
                        let undone = rec.moves[i..].join(" ");
                        while rec.moves.len() > i {
                            rec.pop();
                        }
                        println!("took back {undone}");
                        print!("{}", referee.diagram(rec.last()));
                    }
                }
            }
            "hint" => {
                let v = advise(rec.last())?;
                println!("Value: {} ({})", describe(&v), source(&v));
                let best: Vec<&str> = v["best"]
                    .as_array()
                    .map(|b| b.iter().filter_map(|x| x.as_str()).collect())
                    .unwrap_or_default();
                println!("Best: {}", best.join(" "));
                for m in v["moves"].as_array().into_iter().flatten() {
                    println!("  {:<12} {}", m["move"].as_str().unwrap_or(""), describe(m));
                }
            }
            text => match rec.push(text) {
                Ok(()) => {
                    let side = referee.side(&rec.positions[rec.positions.len() - 2]);
                    println!(
                        "{} {side} plays {}",
                        rec.moves.len(),
                        rec.moves.last().unwrap()
                    );
                    print!("{}", referee.diagram(rec.last()));
                }
                Err(e) => {
                    println!(
                        "{} (type 'moves' for the legal moves, 'help' for commands)",
                        e.message
                    )
                }
            },
        }
    }
    let summary = match (&rec.ended, resigned) {
        (None, Some(loser)) => {
            let winner = names[usize::from(loser == names[0])];
            println!("{loser} resigns at ply {}: {winner} wins.", rec.moves.len());
            json!({"reason": "resignation", "resigned": loser, "winner": winner,
                "ended_at_ply": rec.moves.len()})
        }
        (Some((ply, why)), _) => {
            let mut v = referee.final_result(rec.last(), why);
            println!("Game over at ply {ply}: {}.", why.reason());
            v["reason"] = json!(why.reason());
            v["ended_at_ply"] = json!(ply);
            v
        }
        (None, None) => {
            println!(
                "Game {} at ply {}.",
                if quit {
                    "left"
                } else {
                    "unfinished (end of input)"
                },
                rec.moves.len()
            );
            json!({"reason": if quit { "quit" } else { "end of input" }})
        }
    };
    if as_json {
        let mut v = summary;
        v["fen"] = json!(referee.fen(rec.last()));
        v["moves"] = json!(rec.moves);
        v["game_over"] = json!(rec.ended.is_some() || resigned.is_some());
        println!("{v}");
    }
    Ok(())
}
