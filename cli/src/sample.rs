//! `retro sample`: random positions drawn from the sector tables under a folder, as FEN lines.

use crate::args::{SampleArgs, SectorGame};
use crate::error::CliError;
use retro_engine::dara::{Move as DaraMove, Position as DaraPosition};
use retro_engine::mill::Bits;
use retro_engine::Color;
use retro_solver::dara::rules::DaraRules;
use retro_solver::dara::search::Tables;
use retro_solver::mill::sectors::start_sector;
use retro_solver::sectors::db::{Db, ProbeError};
use retro_solver::sectors::folded::Folded;
use retro_solver::sectors::rules::SectorRules;
use retro_solver::sectors::sector::{plan, SectorKey};
use retro_tables::value::{Value as Val, Wdl};
use std::io::Write;

/// Tries per wanted position before a table is given up as holding too few legal ones.
const TRIES: u64 = 64;

/// A xorshift64 generator: small, fast and the same on every machine.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// `retro sample`.
pub fn run(a: &SampleArgs) -> Result<(), CliError> {
    crate::games::refuse_table_folder(&a.dir)?;
    let wanted: Vec<SectorKey> =
        a.sector
            .iter()
            .map(|s| match (a.game, SectorKey::parse(s)) {
                // Dara's endgames as `retro solve dara` takes them (3v3, 3,3 or 3,3,0,0).
                (SectorGame::Dara, _) => crate::solve::dara::parse_endgame(s)
                    .map(|(w, b)| SectorKey { w, b, wf: 0, bf: 0 }),
                (SectorGame::Mill, Some(k)) => Ok(k),
                (SectorGame::Mill, None) => Err(CliError::input(format!(
                    "bad --sector '{s}': expected W,B,WF,BF (e.g. 6,6,0,0)"
                ))),
            })
            .collect::<Result<_, _>>()?;
    if a.json && !a.time && !a.check {
        return Err(CliError::input("--json goes with --time or --check"));
    }
    match a.game {
        SectorGame::Mill => {
            let m = crate::games::mill::game(&a.rules)?;
            for (k, text) in wanted.iter().zip(&a.sector) {
                crate::solve::mill::check_sector(&m, *k, text, a.rules.mill_variant())?;
            }
            let start = start_sector(&m.profile);
            let db = retro_solver::mill::Db::new(m, &a.dir);
            let keys = plan(&db.rules, &[start]).concat();
            let g = db.game();
            let to_position = |f: &Folded, marks: Bits| {
                // Placing with one stone more in hand: Black to move (White places first).
                let mut p = f.to_position(g);
                p.marked = marks;
                let fen = g.format_fen(&p);
                g.parse_fen(&fen).is_ok().then_some((p, fen))
            };
            let check = |f: &Folded, marks: Bits| -> Result<Checked, CliError> {
                let err =
                    |e| crate::solve::missing::probe_err(&db, a.rules.mill_variant(), &a.dir, e);
                let Some((p, fen)) = to_position(f, marks) else {
                    return Ok(Checked::Skipped);
                };
                if g.outcome(&p).is_some() {
                    return Ok(Checked::Skipped);
                }
                use retro_solver::mill::probe::{move_value, move_wdl};
                let mut moves = Vec::new();
                g.moves(&p, &mut moves);
                let values = || -> Result<Checked, ProbeError> {
                    let v = db.value(&p)?;
                    let values = moves.iter().map(|(_, q)| move_value(&db, &p, q));
                    Ok(Checked::compare(&fen, v, values.collect::<Result<_, _>>()?))
                };
                // Tables without distances (`--wdl-only`) are checked for the result alone.
                let wdl = || -> Result<Checked, ProbeError> {
                    let w = db.wdl(&p)?;
                    let results = moves.iter().map(|(_, q)| move_wdl(&db, &p, q));
                    Ok(Checked::compare_wdl(
                        &fen,
                        w,
                        results.collect::<Result<_, _>>()?,
                    ))
                };
                match values() {
                    Err(e) if e.no_distances() => wdl().map_err(err),
                    r => r.map_err(err),
                }
            };
            emit(
                &db,
                keys,
                &wanted,
                a,
                |f, marks| to_position(f, marks).map(|(_, t)| t),
                check,
            )
        }
        SectorGame::Dara => {
            let g = crate::games::dara::game(&a.rules)?;
            let db = Db::with_rules(DaraRules { game: g.clone() }, &a.dir);
            let keys = Tables::open(&db)
                .sectors()
                .into_iter()
                .map(|(w, b)| SectorKey { w, b, wf: 0, bf: 0 })
                .collect();
            let to_position = |f: &Folded| {
                let mut p = g.start();
                p.stones = [f.own, f.opp];
                p.hand = [0, 0];
                p.side = Color::White;
                let fen = g.format_position(&p);
                g.parse_position(&fen).is_ok().then_some((p, fen))
            };
            let tables = Tables::open(&db);
            // Dara's positions carry no marked points.
            let check = |f: &Folded, _: Bits| -> Result<Checked, CliError> {
                use crate::analyse::dara::{exact_value, exact_wdl};
                let Some((p, fen)) = to_position(f) else {
                    return Ok(Checked::Skipped);
                };
                if g.outcome(&p).is_some() {
                    return Ok(Checked::Skipped);
                }
                let mut moves = Vec::new();
                g.moves(&p, &mut moves);
                // The table's answer for `p` and each move's (for the mover); `None` where
                // the tables do not cover one (none here: Dara's tables are closed under
                // moves), which leaves the position unchecked.
                fn answers<T>(
                    p: &DaraPosition,
                    moves: &[(DaraMove, DaraPosition)],
                    probe: impl Fn(&DaraPosition) -> Result<Option<T>, ProbeError>,
                    parent: fn(T) -> T,
                ) -> Result<Option<(T, Vec<T>)>, ProbeError> {
                    let Some(v) = probe(p)? else { return Ok(None) };
                    let mut children = Vec::with_capacity(moves.len());
                    for (_, q) in moves {
                        let Some(c) = probe(q)? else { return Ok(None) };
                        children.push(parent(c));
                    }
                    Ok(Some((v, children)))
                }
                let values = || -> Result<Checked, ProbeError> {
                    let a = answers(&p, &moves, |q| exact_value(&g, &tables, q), Val::parent)?;
                    Ok(a.map_or(Checked::Skipped, |(v, c)| Checked::compare(&fen, v, c)))
                };
                // Tables without distances (`--wdl-only`) are checked for the result alone.
                let wdl = || -> Result<Checked, ProbeError> {
                    let a = answers(&p, &moves, |q| exact_wdl(&g, &tables, q), Wdl::parent)?;
                    Ok(a.map_or(Checked::Skipped, |(w, c)| Checked::compare_wdl(&fen, w, c)))
                };
                match values() {
                    Err(e) if e.no_distances() => wdl().map_err(CliError::other),
                    r => r.map_err(CliError::other),
                }
            };
            emit(
                &db,
                keys,
                &wanted,
                a,
                |f, _| to_position(f).map(|(_, t)| t),
                check,
            )
        }
    }
}

/// What `--check` found for one position.
enum Checked {
    /// Its value is the best of its moves' values.
    Agrees,
    /// Not a position to check (over, or not a legal text).
    Skipped,
    /// The position, the table's value and the best of its moves', in words.
    Differs(String, String, String),
}

impl Checked {
    /// Compares the table's value with the best of its moves' values (for the mover; no move
    /// is a loss at once).
    fn compare(fen: &str, table: Val, moves: Vec<Val>) -> Checked {
        let best = moves
            .into_iter()
            .max_by_key(|v| v.preference())
            .unwrap_or(Val::Loss(0));
        if table == best {
            Checked::Agrees
        } else {
            Checked::Differs(fen.to_string(), in_words(table), in_words(best))
        }
    }

    /// [`Checked::compare`] for results alone (tables without distances).
    fn compare_wdl(fen: &str, table: Wdl, moves: Vec<Wdl>) -> Checked {
        let best = moves.into_iter().max().unwrap_or(Wdl::Loss);
        if table == best {
            Checked::Agrees
        } else {
            let words = |w: Wdl| w.result().to_string();
            Checked::Differs(fen.to_string(), words(table), words(best))
        }
    }
}

/// Prints `a.count` positions spread over the tables of `keys` that exist (and are in
/// `wanted`, when it is not empty); `fen` turns a solver position (with its marked points, if
/// its sector's index has them) into checked text, `check` compares it with its moves
/// (`--check`).
fn emit<R: SectorRules>(
    db: &Db<R>,
    mut keys: Vec<SectorKey>,
    wanted: &[SectorKey],
    a: &SampleArgs,
    fen: impl Fn(&Folded, Bits) -> Option<String>,
    check: impl Fn(&Folded, Bits) -> Result<Checked, CliError>,
) -> Result<(), CliError> {
    keys.sort();
    keys.retain(|k| (wanted.is_empty() || wanted.contains(k)) && db.has_table(*k));
    if let Some(k) = wanted.iter().find(|k| !db.has_table(**k)) {
        return Err(CliError::other(format!(
            "no table of sector {},{},{},{} under {}",
            k.w,
            k.b,
            k.wf,
            k.bf,
            a.dir.display()
        )));
    }
    if keys.is_empty() {
        return Err(CliError::other(format!(
            "no tables under {} for these rules (solve some first: `retro solve`)",
            a.dir.display()
        )));
    }
    let mut rng = Rng(a.seed.max(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let n = keys.len() as u64;
    let mut times = crate::probe_times::ProbeTimes::new(a.wdl);
    let (mut agree, mut differ) = (0u64, 0u64);
    // With --warm: the positions probed once (those times are not reported), to be timed on
    // a second probe.
    let mut warmed = Vec::new();
    let mut first_probes = crate::probe_times::ProbeTimes::new(a.wdl);
    // The tables that get one position more than count / n: drawn with the seed (a count below
    // the number of tables would otherwise sample only the first sectors, the earliest placing).
    let mut order: Vec<usize> = (0..keys.len()).collect();
    let extra = (a.count % n) as usize;
    for j in 0..extra {
        let r = j + rng.below((keys.len() - j) as u64) as usize;
        order.swap(j, r);
    }
    let mut one_more = vec![false; keys.len()];
    for &j in &order[..extra] {
        one_more[j] = true;
    }
    for (i, k) in keys.iter().enumerate() {
        let want = a.count / n + u64::from(one_more[i]);
        // With marked points (da-san-qi while placing), the index ranks them too.
        let Some(index) = db.rules.marked_index(*k) else {
            continue;
        };
        let (mut got, mut tries) = (0, 0);
        while got < want && tries < want.saturating_mul(TRIES) {
            tries += 1;
            let Some((own, opp, marks)) = index.unindex(rng.below(index.size())) else {
                continue;
            };
            if !db.rules.valid(own, opp) {
                continue;
            }
            let f = Folded::in_sector(*k, own, opp);
            if a.check {
                match check(&f, marks)? {
                    Checked::Agrees => {
                        agree += 1;
                        got += 1;
                    }
                    Checked::Differs(text, table, moves) => {
                        eprintln!("{text}: the table says {table}, its moves give {moves}");
                        differ += 1;
                        got += 1;
                    }
                    Checked::Skipped => {}
                }
            } else if a.time && a.warm {
                // The same probe, its time thrown away; the second one is timed below.
                first_probes.probe(db, *k, &f, marks)?;
                warmed.push((*k, f, marks));
                got += 1;
            } else if a.time {
                times.probe(db, *k, &f, marks)?;
                got += 1;
            } else if let Some(text) = fen(&f, marks) {
                writeln!(out, "{text}").map_err(|e| CliError::other(format!("stdout: {e}")))?;
                got += 1;
            }
        }
    }
    for (k, f, marks) in &warmed {
        times.probe(db, *k, f, *marks)?;
    }
    if a.time {
        times.report(&mut out, a.json)?;
    }
    if a.check {
        let line = if a.json {
            serde_json::json!({"checked": agree + differ, "agree": agree, "differ": differ,
                               "tables": keys.len()})
            .to_string()
        } else {
            format!(
                "checked {} of {} against their moves: {agree} agree, {differ} differ",
                crate::output::count((agree + differ) as usize, "position"),
                crate::output::count(keys.len(), "table")
            )
        };
        writeln!(out, "{line}").map_err(|e| CliError::other(format!("stdout: {e}")))?;
    }
    out.flush()
        .map_err(|e| CliError::other(format!("stdout: {e}")))?;
    if differ > 0 {
        return Err(CliError::other(format!(
            "{differ} position(s) disagree with their moves: the tables under {} are wrong",
            a.dir.display()
        )));
    }
    Ok(())
}

/// A value as `analyse` words it.
fn in_words(v: Val) -> String {
    crate::output::describe(&serde_json::json!({"result": v.result(), "plies": v.plies()}))
}
