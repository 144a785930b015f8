//! `retro solve mill`, `retro analyse mill` and `retro verify`.

use crate::error::CliError;
use crate::mill_cmd::{game, position};
use crate::RuleArgs;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use retro_engine::mill::{Mill, Position};
use retro_solver::mill::sectors::{moving_phase, start_sector};
use retro_solver::mill::Db;
use retro_solver::sectors::db::{Db as SectorDb, ProbeError};
use retro_solver::sectors::retro::Progress;
use retro_solver::sectors::rules::SectorRules;
use retro_solver::sectors::sector::SectorKey;
use retro_solver::sectors::solve::{solve, SectorReport, SolveObserver};
use retro_tables::value::Value;
use retro_tables::verify::{table_files, verify_file};
use serde_json::{json, Value as Json};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

struct Bars {
    quiet: bool,
    overall: ProgressBar,
    unit: Mutex<Option<ProgressBar>>,
}

impl Bars {
    fn new(quiet: bool) -> Bars {
        let overall = if quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0)
        };
        overall.set_style(
            ProgressStyle::with_template(
                "units {pos}/{len} [{bar:30}] {elapsed_precise} ETA {eta} {msg}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        Bars {
            quiet,
            overall,
            unit: Mutex::new(None),
        }
    }
}

impl Progress for Bars {
    fn init(&self, n: u64) {
        if let Some(b) = &*self.unit.lock().expect("bar lock") {
            b.inc(n);
        }
    }
    fn pass(&self, d: u16) {
        if let Some(b) = &*self.unit.lock().expect("bar lock") {
            b.set_message(format!("frontier pass {d}"));
        }
    }
}

impl SolveObserver for Bars {
    fn unit_start(&self, unit: &[SectorKey], slots: u64, index: usize, total: usize) {
        self.overall.set_length(total as u64);
        self.overall.set_position(index as u64);
        if self.quiet {
            return;
        }
        let names: Vec<String> = unit.iter().map(|k| k.to_string()).collect();
        let b = ProgressBar::with_draw_target(Some(slots), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{prefix} [{bar:30}] {human_pos}/{human_len} slots {per_sec} ETA {eta} {msg}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        b.set_prefix(format!("sector {}", names.join("+")));
        if let Some(old) = self.unit.lock().expect("bar lock").replace(b) {
            old.finish_and_clear();
        }
    }
    fn sector_done(&self, _r: &SectorReport) {}
}

/// Options of `retro solve`.
pub struct SolveOpts {
    /// Moving phase up to this many stones a side.
    pub max_stones: Option<u8>,
    /// Worker threads.
    pub threads: Option<usize>,
    /// JSON output.
    pub json: bool,
    /// No progress bars.
    pub quiet: bool,
    /// Only print the plan.
    pub dry_run: bool,
}

use retro_solver::sectors::solve::SOLVE_BYTES_PER_SLOT;

/// What solving a set of target sectors takes: the `--dry-run` figures.
pub struct PlanFigures {
    /// Sectors to solve (targets and everything they depend on).
    pub sectors: usize,
    /// Units (a sector and its colour-swapped twin solved together).
    pub units: usize,
    /// Tables already on disk.
    pub existing: usize,
    /// Slots in all.
    pub slots: u64,
    /// Slots of sectors with stones in hand.
    pub placing: u64,
    /// Slots of the largest unit.
    pub largest: u64,
    /// Per sector: its key, slots and whether its table exists.
    pub rows: Vec<(SectorKey, u64, bool)>,
}

/// Solver speed measured on the project's 2-core machine over the whole nine-mens-morris game
/// (README, "Results"): used only to say roughly how long a solve takes.
const MEASURED_SLOTS_PER_SECOND: f64 = 4.2e6;

impl PlanFigures {
    /// The plan for `targets` under `db`'s rules.
    pub fn new<R: SectorRules>(db: &SectorDb<R>, targets: &[SectorKey]) -> PlanFigures {
        let units = retro_solver::sectors::sector::plan(&db.rules, targets);
        let size = |k: &SectorKey| {
            retro_solver::sectors::index::BoardIndex::new(
                db.rules.shape(),
                k.w as usize,
                k.b as usize,
            )
            .size()
        };
        let mut f = PlanFigures {
            sectors: 0,
            units: units.len(),
            existing: 0,
            slots: 0,
            placing: 0,
            largest: 0,
            rows: Vec::new(),
        };
        for u in &units {
            let mut unit = 0;
            for k in u {
                let s = size(k);
                unit += s;
                if k.wf > 0 || k.bf > 0 {
                    f.placing += s;
                }
                let done = db.path(*k).exists();
                f.existing += done as usize;
                f.sectors += 1;
                f.rows.push((*k, s, done));
            }
            f.slots += unit;
            f.largest = f.largest.max(unit);
        }
        f
    }

    /// Bytes of tables on disk (2 a slot).
    pub fn disk_bytes(&self) -> u64 {
        self.slots * 2
    }

    /// Bytes of memory while the largest unit is solved.
    pub fn peak_bytes(&self) -> u64 {
        self.largest * SOLVE_BYTES_PER_SLOT
    }

    /// One line: sectors, slots, disk, memory and a rough time.
    pub fn summary(&self) -> String {
        let secs = self.slots as f64 / MEASURED_SLOTS_PER_SECOND;
        let time = if secs < 90.0 {
            format!("{secs:.0} s")
        } else if secs < 5400.0 {
            format!("{:.0} minutes", secs / 60.0)
        } else {
            format!("{:.1} hours", secs / 3600.0)
        };
        format!(
            "{} sector{}, {} slots, about {} of tables and {} of memory at the peak, roughly \
             {time} on 2 cores",
            self.sectors,
            if self.sectors == 1 { "" } else { "s" },
            self.slots,
            bytes_text(self.disk_bytes()),
            bytes_text(self.peak_bytes())
        )
    }
}

/// A byte count for people, in binary units: `51.9 GiB`, `3.1 MiB`.
fn bytes_text(b: u64) -> String {
    let b = b as f64;
    let (gib, mib) = ((1u64 << 30) as f64, (1u64 << 20) as f64);
    if b >= gib {
        format!("{:.1} GiB", b / gib)
    } else if b >= mib {
        format!("{:.1} MiB", b / mib)
    } else {
        format!("{:.0} KiB", (b / 1024.0).ceil())
    }
}

fn dry_run<R: SectorRules>(
    db: &SectorDb<R>,
    targets: &[SectorKey],
    as_json: bool,
) -> Result<(), CliError> {
    if let Some(why) = db.rules.unsupported() {
        return Err(CliError::input(format!("cannot solve these rules: {why}")));
    }
    let f = PlanFigures::new(db, targets);
    if as_json {
        let rows: Vec<Json> = f
            .rows
            .iter()
            .map(|(k, s, done)| json!({"sector": k.to_string(), "slots": s, "table_exists": done}))
            .collect();
        println!(
            "{}",
            json!({"sectors": rows, "units": f.units, "slots": f.slots, "placing_slots": f.placing,
                   "largest_unit_slots": f.largest, "peak_bytes": f.peak_bytes(),
                   "disk_bytes": f.disk_bytes()})
        );
        return Ok(());
    }
    println!(
        "{} sectors in {} units ({} tables already present)",
        f.sectors, f.units, f.existing
    );
    println!("slots: {} ({} with stones in hand)", f.slots, f.placing);
    println!(
        "largest unit: {} slots, about {:.1} GiB while solving",
        f.largest,
        f.peak_bytes() as f64 / (1u64 << 30) as f64
    );
    println!(
        "tables: about {:.1} GiB on disk",
        f.disk_bytes() as f64 / (1u64 << 30) as f64
    );
    Ok(())
}

/// `retro solve mill`.
pub fn solve_cmd(
    rules: &RuleArgs,
    dir: &Path,
    sectors: &[String],
    opts: &SolveOpts,
) -> Result<(), CliError> {
    let max_stones = opts.max_stones;
    let m = game(rules)?;
    let mut targets = Vec::new();
    for s in sectors {
        let k = SectorKey::parse(s).ok_or_else(|| {
            CliError::input(format!(
                "bad --sector '{s}': expected W,B,WF,BF (e.g. 3,3,0,0)"
            ))
        })?;
        // Widened before adding: u8 sums would wrap past the check (200 + 60 = 4).
        let max = m.profile.stones as u32;
        let (w, b, wf, bf) = (k.w as u32, k.b as u32, k.wf as u32, k.bf as u32);
        if w + wf > max || b + bf > max || (w + b) as usize > m.geo.points {
            return Err(CliError::input(format!(
                "sector {s} does not exist in {}",
                rules.mill_variant()
            )));
        }
        targets.push(k);
    }
    if let Some(n) = max_stones {
        if n < m.profile.min_stones || n > m.profile.stones {
            return Err(CliError::input(format!(
                "--max-stones must be from {} to {}",
                m.profile.min_stones, m.profile.stones
            )));
        }
        targets.extend(moving_phase(&m.profile, n));
    }
    if targets.is_empty() {
        targets.push(start_sector(&m.profile));
    }
    let db = Db::new(m, dir);
    run_solve(&db, &targets, opts, rules.mill_variant())
}

/// Solves `targets` (or prints the plan) and reports per sector; any game.
pub fn run_solve<R: SectorRules>(
    db: &SectorDb<R>,
    targets: &[SectorKey],
    opts: &SolveOpts,
    label: &str,
) -> Result<(), CliError> {
    let (threads, as_json, quiet) = (opts.threads, opts.json, opts.quiet);
    if opts.dry_run {
        return dry_run(db, targets, as_json);
    }
    let pool = crate::output::pool(threads)?;
    let bars = Bars::new(quiet || as_json);
    let start = Instant::now();
    let reports = pool
        .install(|| solve(db, targets, &bars))
        .map_err(|e| match e {
            retro_solver::sectors::solve::SolveError::Unsupported(_) => CliError::input(e),
            other => CliError::other(other),
        })?;
    if let Some(b) = bars.unit.lock().expect("bar lock").take() {
        b.finish_and_clear();
    }
    bars.overall.finish_and_clear();
    let total = start.elapsed().as_secs_f64();
    let rows: Vec<Json> = reports
        .iter()
        .map(|r| {
            json!({
                "sector": r.key.to_string(),
                "slots": r.slots,
                "positions": r.counts.positions,
                "wins": r.counts.wins,
                "draws": r.counts.draws,
                "losses": r.counts.losses,
                "longest_win": r.counts.longest_win,
                "seconds": r.seconds,
                "reused": r.reused,
            })
        })
        .collect();
    if as_json {
        println!(
            "{}",
            json!({"variant": label, "dir": db.folder.display().to_string(), "seconds": total, "sectors": rows})
        );
        return Ok(());
    }
    println!(
        "{:<12} {:>12} {:>12} {:>12} {:>12} {:>8} {:>9} {:>12}",
        "sector", "positions", "wins", "draws", "losses", "longest", "time s", "pos/s"
    );
    let mut positions = 0;
    for r in &reports {
        positions += r.counts.positions;
        let rate = if r.seconds > 0.0 {
            format!("{:.0}", r.counts.positions as f64 / r.seconds)
        } else {
            "kept".into()
        };
        println!(
            "{:<12} {:>12} {:>12} {:>12} {:>12} {:>8} {:>9.2} {:>12}",
            r.key.to_string(),
            r.counts.positions,
            r.counts.wins,
            r.counts.draws,
            r.counts.losses,
            r.counts.longest_win,
            r.seconds,
            rate
        );
    }
    println!(
        "{} sectors, {positions} positions, {total:.2} s, tables in {}",
        reports.len(),
        db.folder.display()
    );
    Ok(())
}

/// A probe error as a CLI error; a missing table names the solve command that builds it, what
/// that costs (the `--dry-run` figures), and the cheap alternatives when it is a big solve.
pub fn probe_err(db: &Db, variant: &str, dir: &Path, e: ProbeError) -> CliError {
    match e {
        ProbeError::Missing { sector, .. } => {
            let plan = PlanFigures::new(db, &[sector]);
            let mut msg = format!(
                "no table for sector {sector} of {variant} in {}\n  build it with: retro solve \
                 mill --variant {variant} --dir {} --sector {},{},{},{}\n  that solves {}{} \
                 (`--dry-run` shows the plan)",
                db.folder.display(),
                dir.display(),
                sector.w,
                sector.b,
                sector.wf,
                sector.bf,
                plan.summary(),
                if sector == start_sector(&db.game().profile) {
                    ": the whole game, placement included"
                } else {
                    ""
                }
            );
            if plan.slots > 500_000_000 {
                msg.push_str(&format!(
                    "\n  cheaper: `retro solve mill --variant six-mens-morris` (a whole smaller \
                     game, seconds) or `retro solve mill --variant {variant} --max-stones 4` (the \
                     moving-phase endgames up to 4 against 4, seconds), then analyse positions \
                     inside them"
                ));
            }
            CliError::other(msg)
        }
        other => CliError::other(other),
    }
}

/// The value of a move for the side that makes it.
fn move_value(db: &Db, p: &Position, q: &Position) -> Result<Value, ProbeError> {
    if q.side == p.side {
        // The turn did not pass: the game ended on a removal.
        return Ok(match db.game().outcome(q) {
            Some(o) if o.loser != p.side => Value::Win(1),
            Some(_) => Value::Loss(1),
            None => db.value(q)?,
        });
    }
    Ok(db.value(q)?.parent())
}

/// The analysis of a Mill position from the tables: value, every move's value, best moves.
pub fn analyse_json(db: &Db, p: &Position, pv: bool) -> Result<Json, ProbeError> {
    let m: &Mill = db.game();
    let v = db.value(p)?;
    let mut moves = Vec::new();
    m.moves(p, &mut moves);
    let mut rows = Vec::new();
    let mut scored = Vec::new();
    for (mv, q) in &moves {
        let mvv = move_value(db, p, q)?;
        let text = m.format_move(mv);
        rows.push(json!({"move": text, "result": mvv.result(), "plies": mvv.plies()}));
        scored.push((text, mvv, *q));
    }
    let best_pref = scored.iter().map(|(_, v, _)| v.preference()).max();
    let best: Vec<String> = scored
        .iter()
        .filter(|(_, v, _)| Some(v.preference()) == best_pref)
        .map(|(t, _, _)| t.clone())
        .collect();
    let mut out = json!({
        "fen": m.format_fen(p),
        "result": v.result(),
        "plies": v.plies(),
        "best": best,
        "moves": rows,
    });
    if pv {
        let mut line = Vec::new();
        let mut cur = *p;
        let limit = if matches!(v, Value::Draw) { 40 } else { 2000 };
        while line.len() < limit && m.outcome(&cur).is_none() {
            let mut ms = Vec::new();
            m.moves(&cur, &mut ms);
            let mut best: Option<(i32, String, Position)> = None;
            for (mv, q) in &ms {
                let pref = move_value(db, &cur, q)?.preference();
                if best.as_ref().is_none_or(|b| pref > b.0) {
                    best = Some((pref, m.format_move(mv), *q));
                }
            }
            let Some((_, t, q)) = best else { break };
            line.push(t);
            cur = q;
        }
        out["pv"] = json!(line);
    }
    Ok(out)
}

/// Options of `retro analyse mill`.
pub struct AnalyseOpts {
    /// Add a principal variation.
    pub pv: bool,
    /// Print JSON.
    pub as_json: bool,
    /// Moves to play from the position first.
    pub record: Option<Vec<String>>,
    /// Annotate every ply of the record.
    pub annotate: bool,
    /// Add the distance to the next removal and whether the N-move rule draws the win.
    pub removal: bool,
}

/// `retro analyse mill`.
pub fn analyse_cmd(
    rules: &RuleArgs,
    dir: &Path,
    fen: Option<&str>,
    batch: Option<&str>,
    opts: &AnalyseOpts,
) -> Result<(), CliError> {
    let (pv, as_json) = (opts.pv, opts.as_json);
    let m = game(rules)?;
    if let Some(why) = retro_solver::mill::sectors::unsupported(&m.profile) {
        return Err(CliError::input(format!(
            "{} has no tables: {why}",
            rules.mill_variant()
        )));
    }
    let db = Db::new(m, dir);
    if let Some(path) = batch {
        return crate::output::batch(path, |i, line| match db.game().parse_fen(line) {
            Ok(p) => analyse_json(&db, &p, pv).unwrap_or_else(|e| {
                let msg = probe_err(&db, rules.mill_variant(), dir, e).message;
                crate::output::line_error(i, line, msg)
            }),
            Err(e) => crate::output::line_error(i, line, e),
        });
    }
    let mut p = position(db.game(), fen)?;
    let start = Instant::now();
    let mut played = None;
    if let Some(moves) = &opts.record {
        let rec = crate::referee::play(db.game(), p, moves)?;
        p = *rec.last();
        played = Some(rec);
    }
    let analyse = |p: &Position| {
        analyse_json(&db, p, pv).map_err(|e| probe_err(&db, rules.mill_variant(), dir, e))
    };
    let mut out = match &played {
        Some(rec) => crate::referee::record_json(rec, analyse)?,
        None => analyse(&p)?,
    };
    if (opts.removal || played.is_some()) && out["game_over"].is_null() {
        let v = db
            .value(&p)
            .map_err(|e| probe_err(&db, rules.mill_variant(), dir, e))?;
        crate::mill_record::removal_fields(&db, &p, v, &mut out)
            .map_err(|e| probe_err(&db, rules.mill_variant(), dir, e))?;
    }
    if let (Some(rec), true) = (&played, opts.annotate) {
        let judge = |p: &Position, q: &Position| {
            let before = db
                .value(p)
                .ok()
                .map(|v| json!({"result": v.result(), "plies": v.plies()}));
            let after = move_value(&db, p, q)
                .ok()
                .map(|v| json!({"result": v.result(), "plies": v.plies()}));
            let change = before
                .as_ref()
                .zip(after.as_ref())
                .and_then(|(b, a)| crate::referee::wdl_change(b, a));
            (before, after, change)
        };
        out["annotations"] = json!(crate::referee::annotate(rec, &judge));
    }
    let secs = start.elapsed().as_secs_f64();
    if as_json {
        println!("{out}");
        return Ok(());
    }
    let describe = |r: &Json, plies: &Json| match (r.as_str(), plies.as_u64()) {
        (Some("draw"), _) => "draw".to_string(),
        (Some(res), Some(n)) => format!("{res} in {n} plies"),
        (Some(res), None) => res.to_string(),
        _ => "?".to_string(),
    };
    crate::referee::print_annotations(&out);
    if let Some(rec) = &played {
        crate::referee::print_record_summary(rec);
    }
    print!("{}", db.game().diagram(&p));
    println!("FEN: {}", out["fen"].as_str().unwrap_or(""));
    println!(
        "Value: {} (side to move)",
        describe(&out["result"], &out["plies"])
    );
    if out.get("removal_in").is_some() {
        let n = db.game().profile.n_move_rule;
        let left = n.saturating_sub(p.rule50 as u32);
        match (out["removal_in"].as_u64(), out["cursed"].as_bool()) {
            (Some(d), Some(cursed)) => println!(
                "Next removal: within {d} plies under the winner's best play; {}",
                match (n, cursed) {
                    (0, _) => "no N-move rule".to_string(),
                    (_, true) => format!(
                        "only {left} plies left before the N-move rule: the win is cursed (a draw under the rule)"
                    ),
                    (_, false) => format!("{left} plies left before the N-move rule: the win stands"),
                }
            ),
            (None, Some(true)) => println!(
                "Next removal: the winner cannot force one within the {left} plies left before the N-move rule: the win is cursed"
            ),
            _ => println!("Next removal: not found within the search budget"),
        }
    }
    if let Some(best) = out["best"].as_array() {
        let names: Vec<&str> = best.iter().filter_map(|b| b.as_str()).collect();
        println!("Best: {}", names.join(" "));
    }
    if let Some(moves) = out["moves"].as_array() {
        for mv in moves {
            println!(
                "  {:<12} {}",
                mv["move"].as_str().unwrap_or(""),
                describe(&mv["result"], &mv["plies"])
            );
        }
    }
    if let Some(line) = out["pv"].as_array() {
        let names: Vec<&str> = line.iter().filter_map(|b| b.as_str()).collect();
        println!("PV: {}", names.join(" "));
    }
    println!("({:.3} ms)", secs * 1e3);
    Ok(())
}

/// `retro verify`.
pub fn verify_cmd(dir: &Path, as_json: bool) -> Result<(), CliError> {
    let files = table_files(dir)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", dir.display())))?;
    if files.is_empty() {
        return Err(CliError::other(format!(
            "no tables under {} (nothing to verify: is the path right? `retro solve` writes \
             tables under databases/ unless given --dir)",
            dir.display()
        )));
    }
    let mut failed = 0;
    let mut rows = Vec::new();
    for f in &files {
        match verify_file(f) {
            Ok(what) => {
                if !as_json {
                    println!("ok    {}  {what}", f.display());
                }
                rows.push(json!({"file": f.display().to_string(), "ok": true}));
            }
            Err(e) => {
                failed += 1;
                if !as_json {
                    println!("FAIL  {}  {e}", f.display());
                }
                rows.push(json!({"file": f.display().to_string(), "ok": false, "error": e}));
            }
        }
    }
    if as_json {
        println!("{}", json!({"tables": rows, "failed": failed}));
    } else {
        println!("{} tables checked, {failed} failed", files.len());
    }
    if failed > 0 {
        return Err(CliError::other(format!(
            "{failed} table(s) failed verification"
        )));
    }
    Ok(())
}
