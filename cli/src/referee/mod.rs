//! The referee shared by game records (`retro analyse --moves`) and `retro play`: plays moves
//! with full legality checks and ends a game by its rules and by the play rules that the solved
//! values ignore (threefold repetition and the N-move rule).

pub mod dara;
pub mod mill;
pub mod oaq;

use crate::error::CliError;
use retro_engine::Color;
use retro_solver::search::progress::{Planner, Progress, ProgressError};
use retro_solver::sectors::db::ProbeError;
use retro_tables::value::{Value, Wdl};
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::hash::Hash;

/// The engine's move from a position that tables without distances (`--wdl-only`) hold,
/// whose analysis `v` gives the result alone: any winning move keeps the win, but only one
/// that brings the next reset of the N-move counter (a removal, a capture, a placement)
/// closer makes progress. In a won game the move after which that reset is forced soonest; in
/// a lost one the move that puts it off longest ([`Planner::next`]; `planners` keeps one per
/// winner, White's wins and Black's, from one move to the next). The position after it, and
/// the reason for the user (naming the `reset`: removal, capture); `None` for a draw, or when
/// the search gave up (the caller keeps the analysis's first best move).
pub fn planned<G: Progress>(
    planners: &mut [Option<Planner<G>>; 2],
    make: impl FnOnce(Color) -> Planner<G>,
    p: &G::Pos,
    side: Color,
    v: &Json,
    limit: u32,
    reset: &str,
) -> Result<Option<(G::Pos, String)>, G::Error> {
    let (winner, plan) = match v["result"].as_str() {
        Some("win") => (side, "soonest"),
        Some("loss") => (side.other(), "put off"),
        _ => return Ok(None),
    };
    let why = format!("tables (win/draw/loss only), next {reset} {plan}");
    let planner = planners[winner as usize].get_or_insert_with(|| make(winner));
    match planner.next(p, limit) {
        Ok(Some((q, _))) => Ok(Some((q, why))),
        Ok(None) | Err(ProgressError::Budget) => Ok(None),
        Err(ProgressError::Probe(e)) => Err(e),
    }
}

/// What a game gives the referee.
pub trait Referee {
    /// A position.
    type Pos: Copy;
    /// What makes two positions "the same" for the repetition rule.
    type Key: Eq + Hash;

    /// The position text.
    fn fen(&self, p: &Self::Pos) -> String;
    /// A board diagram with the side to move (several lines, ending with a new line).
    fn diagram(&self, p: &Self::Pos) -> String;
    /// The name of the side to move.
    fn side(&self, p: &Self::Pos) -> &'static str;
    /// The names of the two sides, the first player first.
    fn side_names(&self) -> [&'static str; 2];
    /// Parses and plays one move: its text in canonical form, the position after it, and
    /// whether it resets the N-move counter (a removal, capture, placement or drop).
    fn apply(&self, p: &Self::Pos, text: &str) -> Result<(String, Self::Pos, bool), String>;
    /// The legal moves in the game's notation, sorted.
    fn legal(&self, p: &Self::Pos) -> Vec<String>;
    /// Whether the rules end the game here, and how ("white wins (no legal move)").
    fn end_by_rules(&self, p: &Self::Pos) -> Option<String>;
    /// The repetition key.
    fn key(&self, p: &Self::Pos) -> Self::Key;
    /// Plies without progress that draw the game (0: no such rule).
    fn n_move_rule(&self) -> u32;
    /// What resets the N-move counter, for messages ("a removal or placement").
    fn progress(&self) -> &'static str;
    /// The N-move counter of a start position (Mill's FEN carries one).
    fn initial_counter(&self, _p: &Self::Pos) -> u32 {
        0
    }
    /// The counter after a ply.
    fn counter(&self, before: u32, _after: &Self::Pos, reset: bool) -> u32 {
        if reset {
            0
        } else {
            before + 1
        }
    }
    /// The result of a game ended here, for JSON: at least `"result"` (side to move's view for
    /// win/draw/loss games) and for score games the final stores.
    fn final_result(&self, p: &Self::Pos, why: &Ended) -> Json;
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The rules of the game ended it.
    Rules(String),
    /// The same position occurred a third time.
    Repetition,
    /// The N-move rule: this many plies without progress.
    NMoveRule(u32, &'static str),
}

impl Ended {
    /// Short reason for JSON and text.
    pub fn reason(&self) -> String {
        match self {
            Ended::Rules(r) => r.clone(),
            Ended::Repetition => "threefold repetition".into(),
            Ended::NMoveRule(n, what) => format!("N-move rule ({n} plies without {what})"),
        }
    }
}

/// A game in progress or finished: positions, moves, counters, and how it ended.
pub struct Record<'a, R: Referee> {
    /// The game.
    pub referee: &'a R,
    /// The start, then the position after each ply.
    pub positions: Vec<R::Pos>,
    /// The moves in canonical notation.
    pub moves: Vec<String>,
    /// The N-move counter at each position.
    pub counters: Vec<u32>,
    /// Set when the game ended, with the ply (1-based; 0: the start) at which it did.
    pub ended: Option<(usize, Ended)>,
    seen: HashMap<R::Key, u32>,
}

impl<'a, R: Referee> Record<'a, R> {
    /// A game from `start`.
    pub fn new(referee: &'a R, start: R::Pos) -> Record<'a, R> {
        let mut seen = HashMap::new();
        seen.insert(referee.key(&start), 1);
        Record {
            referee,
            positions: vec![start],
            moves: Vec::new(),
            counters: vec![referee.initial_counter(&start)],
            ended: Self::start_end(referee, &start),
            seen,
        }
    }

    /// How a game from `start` is over before its first ply: by the rules, or by the N-move
    /// rule when the start's counter (Mill's FEN carries one) has already reached it.
    fn start_end(referee: &R, start: &R::Pos) -> Option<(usize, Ended)> {
        let n = referee.n_move_rule();
        if let Some(e) = referee.end_by_rules(start) {
            Some((0, Ended::Rules(e)))
        } else if n > 0 && referee.initial_counter(start) >= n {
            Some((0, Ended::NMoveRule(n, referee.progress())))
        } else {
            None
        }
    }

    /// The current position.
    pub fn last(&self) -> &R::Pos {
        self.positions.last().expect("the start is there")
    }

    /// The current N-move counter.
    pub fn counter(&self) -> u32 {
        *self.counters.last().expect("the start is there")
    }

    /// Plays one move; an illegal move, or one after the end, is an error naming the ply.
    pub fn push(&mut self, text: &str) -> Result<(), CliError> {
        let ply = self.moves.len() + 1;
        if let Some((at, why)) = &self.ended {
            return Err(CliError::input(format!(
                "ply {ply}: move '{text}' comes after the end of the game (ply {at}: {})",
                why.reason()
            )));
        }
        let r = self.referee;
        let (written, q, reset) = r
            .apply(self.last(), text)
            .map_err(|e| CliError::input(format!("ply {ply}: move '{text}': {e}")))?;
        let counter = r.counter(self.counter(), &q, reset);
        let count = self.seen.entry(r.key(&q)).or_insert(0);
        *count += 1;
        let n = r.n_move_rule();
        self.ended = if let Some(e) = r.end_by_rules(&q) {
            Some((ply, Ended::Rules(e)))
        } else if *count >= 3 {
            Some((ply, Ended::Repetition))
        } else if n > 0 && counter >= n {
            Some((ply, Ended::NMoveRule(n, r.progress())))
        } else {
            None
        };
        self.positions.push(q);
        self.moves.push(written);
        self.counters.push(counter);
        Ok(())
    }

    /// Takes back the last ply; false at the start.
    pub fn pop(&mut self) -> bool {
        if self.moves.is_empty() {
            return false;
        }
        let q = self.positions.pop().expect("one more position than moves");
        self.moves.pop();
        self.counters.pop();
        let key = self.referee.key(&q);
        if let Some(c) = self.seen.get_mut(&key) {
            *c -= 1;
            if *c == 0 {
                self.seen.remove(&key);
            }
        }
        // A move could be pushed after the position now last, so the game was not over there
        // (except at the start, whose end is by the rules alone).
        self.ended = if self.moves.is_empty() {
            Self::start_end(self.referee, &self.positions[0])
        } else {
            None
        };
        true
    }

    /// Plies left before the N-move rule draws the game (`None` when the rule is off).
    pub fn plies_before_n_move_draw(&self) -> Option<u32> {
        let n = self.referee.n_move_rule();
        (n > 0).then(|| n.saturating_sub(self.counter()))
    }
}

/// The end of a win/draw/loss game as JSON: `result` and `plies` for the side to move (0 plies
/// when the game is over), and `winner` (the colour's name, or null for a draw).
pub fn win_loss_result(side: retro_engine::Color, loser: Option<retro_engine::Color>) -> Json {
    match loser {
        Some(l) => json!({
            "result": if l == side { "loss" } else { "win" },
            "plies": 0,
            "winner": l.other().name(),
        }),
        None => json!({"result": "draw", "plies": null, "winner": null}),
    }
}

/// Plays a whole record from `start`.
pub fn play<'a, R: Referee>(
    referee: &'a R,
    start: R::Pos,
    moves: &[String],
) -> Result<Record<'a, R>, CliError> {
    let mut rec = Record::new(referee, start);
    for m in moves {
        rec.push(m)?;
    }
    Ok(rec)
}

/// Splits a record into move texts (spaces, new lines, commas; `1.`-style numbers skipped).
pub fn split_moves(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .filter(|t| !(t.ends_with('.') && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit())))
        .map(str::to_string)
        .collect()
}

/// The record given by `--moves` or `--record FILE`, if any.
pub fn read_record(
    moves: Option<&str>,
    file: Option<&std::path::Path>,
) -> Result<Option<Vec<String>>, CliError> {
    Ok(match (moves, file) {
        (Some(text), _) => Some(split_moves(text)),
        (None, Some(path)) => Some(split_moves(
            &std::fs::read_to_string(path)
                .map_err(|e| CliError::input(format!("cannot read {}: {e}", path.display())))?,
        )),
        (None, None) => None,
    })
}

/// The analysis of a played record: the final result when the game ended (with `reason` and
/// `ended_at_ply`), else `analyse` of the last position; plus `plies_played`, `rule50` (the
/// N-move counter) and `plies_before_n_move_draw`.
pub fn record_json<R: Referee>(
    rec: &Record<R>,
    analyse: impl FnOnce(&R::Pos) -> Result<Json, CliError>,
) -> Result<Json, CliError> {
    let r = rec.referee;
    let p = rec.last();
    let mut out = match &rec.ended {
        Some((ply, why)) => {
            let mut out = r.final_result(p, why);
            out["fen"] = json!(r.fen(p));
            out["best"] = json!([]);
            out["moves"] = json!([]);
            out["game_over"] = json!(true);
            out["reason"] = json!(why.reason());
            out["ended_at_ply"] = json!(ply);
            out
        }
        None => analyse(p)?,
    };
    out["plies_played"] = json!(rec.moves.len());
    out["rule50"] = json!(rec.counter());
    if let (Some(left), None) = (rec.plies_before_n_move_draw(), &rec.ended) {
        out["plies_before_n_move_draw"] = json!(left);
    }
    Ok(out)
}

/// Prints what a played record adds to an analysis: plies played, how the game ended, the
/// N-move counter.
pub fn print_record_summary<R: Referee>(rec: &Record<R>) {
    println!("Played {} plies.", rec.moves.len());
    if let Some((ply, why)) = &rec.ended {
        println!("Game over at ply {ply}: {}.", why.reason());
    } else if let Some(left) = rec.plies_before_n_move_draw() {
        println!(
            "N-move rule: {left} plies left without {} before a draw.",
            rec.referee.progress()
        );
    }
}

/// What the tables say about one ply: the value before it (side to move), the value of the move
/// played (for the mover), and how it changed the result; `None` where no table holds it.
pub type Judgement = (Option<Json>, Option<Json>, Option<String>);

/// One line per ply of a record, judged by `judge(before, after)`: `ply`, `side`, `move`,
/// `before`, `after`, `changes_result` and `fen_after`; the first error `judge` meets (a table
/// that cannot be read) ends it.
pub fn annotate<R: Referee, E>(
    rec: &Record<R>,
    judge: impl Fn(&R::Pos, &R::Pos) -> Result<Judgement, E>,
) -> Result<Vec<Json>, E> {
    let r = rec.referee;
    rec.moves
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let (p, q) = (&rec.positions[i], &rec.positions[i + 1]);
            let (before, after, change) = judge(p, q)?;
            Ok(json!({
                "ply": i + 1,
                "side": r.side(p),
                "move": text,
                "before": before,
                "after": after,
                "changes_result": change,
                "fen_after": r.fen(q),
            }))
        })
        .collect()
}

/// A position's annotation value: its result and plies where the tables have distances, its
/// result alone (plies null) where they are win/draw/loss tables (`--wdl-only`), `None` where
/// no table holds it. Other probe errors stay errors.
pub fn known(
    value: Result<Option<Value>, ProbeError>,
    wdl: impl FnOnce() -> Result<Option<Wdl>, ProbeError>,
) -> Result<Option<Json>, ProbeError> {
    match value {
        Ok(v) => Ok(v.map(|v| json!({"result": v.result(), "plies": v.plies()}))),
        Err(e) if e.no_distances() => {
            Ok(wdl()?.map(|w| json!({"result": w.result(), "plies": null})))
        }
        Err(e) => Err(e),
    }
}

/// How a win/draw/loss move changed the result, from the values before and after it.
pub fn wdl_change(before: &Json, after: &Json) -> Option<String> {
    let class = |v: &Json| match v["result"].as_str() {
        Some("win") => Some(2),
        Some("draw") => Some(1),
        Some("loss") => Some(0),
        _ => None,
    };
    match (class(before)?, class(after)?) {
        (2, 1) => Some("win thrown away: now a draw".into()),
        (2, 0) => Some("win thrown away: now a loss".into()),
        (1, 0) => Some("draw thrown away: now a loss".into()),
        _ => None,
    }
}

/// Prints the annotation lines of an analysis, if any.
pub fn print_annotations(out: &Json) {
    let value = |v: &Json| {
        if v.is_null() {
            "(no table)".to_string()
        } else {
            crate::output::describe(v)
        }
    };
    for a in out["annotations"].as_array().into_iter().flatten() {
        println!(
            "{:>4}. {:<6} {:<12} {:>18} -> {:<18} {}",
            a["ply"],
            a["side"].as_str().unwrap_or(""),
            a["move"].as_str().unwrap_or(""),
            value(&a["before"]),
            value(&a["after"]),
            a["changes_result"]
                .as_str()
                .map(|c| format!("<- {c}"))
                .unwrap_or_default()
        );
    }
}
