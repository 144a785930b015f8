//! `retro moves dara` and `retro perft dara`.

use crate::error::CliError;
use crate::output;
use crate::RuleArgs;
use retro_engine::dara::{Dara, DaraProfile, Position};
use retro_engine::Color;
use serde_json::{json, Value};

/// Builds the game from `--rule` settings (`--variant` is for Mill only).
pub fn game(rules: &RuleArgs) -> Result<Dara, CliError> {
    rules.no_variant(
        "dara",
        "drop-threes-forbidden=on|off, protected-threes=on|off",
    )?;
    let mut profile = DaraProfile::default();
    for r in &rules.rules {
        profile.set(r).map_err(CliError::input)?;
    }
    Ok(Dara::new(profile))
}

fn position(g: &Dara, fen: Option<&str>) -> Result<Position, CliError> {
    match fen {
        Some(f) => g.parse_position(f).map_err(CliError::input),
        None => Ok(g.start()),
    }
}

fn sorted_moves(g: &Dara, p: &Position) -> Vec<(String, Position)> {
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let mut out: Vec<(String, Position)> =
        list.iter().map(|(m, q)| (g.format_move(m), *q)).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn state_json(g: &Dara, p: &Position) -> Value {
    let moves: Vec<String> = sorted_moves(g, p).into_iter().map(|(m, _)| m).collect();
    let over = g.outcome(p).map(|(loser, why)| {
        json!({"winner": loser.other().name(), "loser": loser.name(), "reason": format!("{why:?}")})
    });
    let phase = if over.is_some() {
        "over"
    } else if p.hand[p.side.index()] > 0 {
        "drop"
    } else {
        "move"
    };
    json!({
        "position": g.format_position(p),
        "side": p.side.name(),
        "phase": phase,
        "game_over": over,
        "moves": moves,
    })
}

fn diagram(g: &Dara, p: &Position) -> String {
    let mut out = String::new();
    for rank in (0..5).rev() {
        out.push_str(&format!("{} ", rank + 1));
        for c in 0..6 {
            let bit = 1u32 << (6 * rank + c);
            out.push_str(if p.stones[0] & bit != 0 {
                " W"
            } else if p.stones[1] & bit != 0 {
                " B"
            } else {
                " ·"
            });
        }
        out.push('\n');
    }
    out.push_str("   a b c d e f\n");
    out.push_str(&format!(
        "White: {} on board, {} in hand   Black: {} on board, {} in hand\n",
        p.stones[0].count_ones(),
        p.hand[0],
        p.stones[1].count_ones(),
        p.hand[1]
    ));
    match g.outcome(p) {
        Some((loser, why)) => out.push_str(&format!(
            "Game over: {} wins ({why:?})\n",
            loser.other().name()
        )),
        None => out.push_str(&format!(
            "{} to {}\n",
            if p.side == Color::White {
                "White"
            } else {
                "Black"
            },
            if p.hand[p.side.index()] > 0 {
                "drop"
            } else {
                "move"
            }
        )),
    }
    out
}

/// `retro moves dara`.
pub fn moves(
    rules: &RuleArgs,
    fen: Option<&str>,
    as_json: bool,
    batch: Option<&str>,
) -> Result<(), CliError> {
    let g = game(rules)?;
    if let Some(path) = batch {
        return output::batch(path, |i, line| match g.parse_position(line) {
            Ok(p) => state_json(&g, &p),
            Err(e) => output::line_error(i, line, e),
        });
    }
    let p = position(&g, fen)?;
    if as_json {
        println!("{}", state_json(&g, &p));
        return Ok(());
    }
    print!("{}", diagram(&g, &p));
    println!("Position: {}", g.format_position(&p));
    let list: Vec<String> = sorted_moves(&g, &p).into_iter().map(|(m, _)| m).collect();
    if list.is_empty() {
        println!("No legal moves.");
    } else {
        println!("{} legal moves:", list.len());
        for chunk in list.chunks(10) {
            println!("  {}", chunk.join(" "));
        }
    }
    Ok(())
}

/// `retro perft dara`.
pub fn perft(
    rules: &RuleArgs,
    fen: Option<&str>,
    depth: u32,
    divide: bool,
    threads: Option<usize>,
    as_json: bool,
) -> Result<(), CliError> {
    let g = game(rules)?;
    let p = position(&g, fen)?;
    let roots = sorted_moves(&g, &p);
    let (parts, nodes, secs) = output::perft_roots(threads, &roots, depth, |q, d| g.perft(q, d))?;
    let title = format!("perft dara ({}) depth {depth}", g.profile.fingerprint());
    output::perft_report(&title, &parts, nodes, secs, divide, as_json);
    Ok(())
}

/// `retro solve dara`: the movement-phase endgames (W against B stones, no stones in hand).
pub fn solve(
    rules: &RuleArgs,
    dir: &std::path::Path,
    sectors: &[String],
    opts: &crate::solve_cmd::SolveOpts,
) -> Result<(), CliError> {
    use retro_solver::sector::SectorKey;
    let g = game(rules)?;
    let mut targets = Vec::new();
    for s in sectors {
        let parsed: Option<Vec<u8>> = s
            .split(['v', ',', '_'])
            .map(|x| x.trim().parse().ok())
            .collect();
        let (w, b) = match parsed.as_deref() {
            Some([w, b]) | Some([w, b, 0, 0]) => (*w, *b),
            _ => {
                return Err(CliError::input(format!(
                    "bad --sector '{s}': expected W,B or WvB (e.g. 5v4)"
                )))
            }
        };
        if !(3..=12).contains(&w) || !(3..=12).contains(&b) {
            return Err(CliError::input(format!(
                "sector {s}: each side has 3 to 12 stones in a Dara endgame"
            )));
        }
        targets.push(SectorKey { w, b, wf: 0, bf: 0 });
    }
    if let Some(n) = opts.max_stones {
        if !(3..=12).contains(&n) {
            return Err(CliError::input("--max-stones must be from 3 to 12"));
        }
        for w in 3..=n {
            for b in 3..=n {
                targets.push(SectorKey { w, b, wf: 0, bf: 0 });
            }
        }
    }
    if targets.is_empty() {
        return Err(CliError::input(
            "say which endgames: --max-stones N (all up to N a side) or --sector WvB (e.g. 5v4)",
        ));
    }
    let db = retro_solver::db::Db::with_rules(retro_solver::rules::DaraRules { game: g }, dir);
    crate::solve_cmd::run_solve(&db, &targets, opts, "dara")
}
