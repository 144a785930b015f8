//! `retro sample --time`: the time of one probe (value and distance, or with `--wdl` the result
//! alone) of each sampled position, by table, by kind of table (raw, compressed, derived) and
//! over all.

use crate::error::CliError;
use retro_solver::sectors::db::Db;
use retro_solver::sectors::folded::Folded;
use retro_solver::sectors::rules::SectorRules;
use retro_tables::any_table::AnyTable;
use retro_tables::SectorKey;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

/// Probe times in nanoseconds, by table, with each table's kind.
pub struct ProbeTimes {
    tables: BTreeMap<SectorKey, (&'static str, Vec<u64>)>,
    /// Time the win/draw/loss probe alone.
    wdl: bool,
    /// The tables some probe of which timed the result alone for want of distances
    /// (`--wdl-only` tables; their other probes were answered without a read, by the rules).
    without_distances: std::collections::BTreeSet<SectorKey>,
}

/// The kind of a table, as the report names it.
fn kind(t: &AnyTable) -> &'static str {
    match t {
        AnyTable::Raw(_) => "raw",
        AnyTable::Compressed(_) => "compressed",
        AnyTable::Derived(_) => "derived",
    }
}

/// Median and 99th percentile of some times (sorted here), in microseconds.
fn quantiles(v: &mut [u64]) -> (f64, f64) {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize] as f64 / 1000.0;
    (at(0.5), at(0.99))
}

impl ProbeTimes {
    /// No times yet; `wdl`: time the result alone, not the value with its distance.
    pub fn new(wdl: bool) -> ProbeTimes {
        ProbeTimes {
            tables: BTreeMap::new(),
            wdl,
            without_distances: Default::default(),
        }
    }

    /// Probes `f` (with its marked points `marks`) of sector `k` once, timed (opening the table is not: it is opened first).
    pub fn probe<R: SectorRules>(
        &mut self,
        db: &Db<R>,
        k: SectorKey,
        f: &Folded,
        marks: retro_engine::mill::Bits,
    ) -> Result<(), CliError> {
        let t = db.table(k).map_err(CliError::other)?;
        let timed_wdl = || -> Result<u64, CliError> {
            let start = Instant::now();
            let w = db.wdl_marked(f, marks);
            let ns = start.elapsed().as_nanos() as u64;
            w.map_err(CliError::other)?;
            Ok(ns)
        };
        let ns = if self.wdl {
            timed_wdl()?
        } else {
            let start = Instant::now();
            let v = db.value_marked(f, marks);
            let ns = start.elapsed().as_nanos() as u64;
            match v {
                // Tables without distances (`--wdl-only`): the result alone is timed.
                Err(e) if e.no_distances() => {
                    self.without_distances.insert(k);
                    timed_wdl()?
                }
                v => {
                    v.map_err(CliError::other)?;
                    ns
                }
            }
        };
        self.tables
            .entry(k)
            .or_insert_with(|| (kind(&t.0), Vec::new()))
            .1
            .push(ns);
        Ok(())
    }

    /// Prints the times: a line per table and per kind, or one JSON object.
    pub fn report(mut self, out: &mut impl Write, as_json: bool) -> Result<(), CliError> {
        let mut by_kind: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        let mut rows = Vec::new();
        for (k, (what, v)) in self.tables.iter_mut() {
            by_kind.entry(what).or_default().extend(v.iter());
            let (median, p99) = quantiles(v);
            rows.push((k.to_string(), *what, v.len(), median, p99));
        }
        let mut every: Vec<u64> = by_kind.values().flatten().copied().collect();
        let mut kinds = Vec::new();
        for (what, v) in by_kind.iter_mut() {
            let (median, p99) = quantiles(v);
            kinds.push((*what, v.len(), median, p99));
        }
        // What was timed: the value with its distance, the result alone (`--wdl`, or tables
        // without distances), or both (some tables with distances, some without).
        let probe = match self.without_distances.len() {
            _ if self.wdl => "wdl",
            0 => "value",
            n if n == self.tables.len() => "wdl",
            _ => "value or wdl",
        };
        let w = |r: std::io::Result<()>| r.map_err(|e| CliError::other(format!("stdout: {e}")));
        if as_json {
            let tables: Vec<_> = rows
                .iter()
                .map(|(k, what, n, m, p)| {
                    json!({"sector": k, "kind": what, "probes": n, "median_us": m, "p99_us": p})
                })
                .collect();
            let kinds: BTreeMap<_, _> = kinds
                .iter()
                .map(|(what, n, m, p)| (*what, json!({"probes": n, "median_us": m, "p99_us": p})))
                .collect();
            let all = (!every.is_empty()).then(|| {
                let (m, p) = quantiles(&mut every);
                json!({"probes": every.len(), "median_us": m, "p99_us": p})
            });
            return w(writeln!(
                out,
                "{}",
                json!({"probe": probe, "tables": tables, "kinds": kinds, "all": all})
            ));
        }
        for (k, what, n, m, p) in &rows {
            w(writeln!(
                out,
                "{k:<10} {what:<10} {n:>8} probes  median {m:>8.2} µs  p99 {p:>8.2} µs"
            ))?;
        }
        for (what, n, m, p) in &kinds {
            w(writeln!(
                out,
                "all {what:<14} {n:>8} probes  median {m:>8.2} µs  p99 {p:>8.2} µs"
            ))?;
        }
        if !every.is_empty() {
            let (m, p) = quantiles(&mut every);
            w(writeln!(
                out,
                "all ({probe} probes) {:>8} probes  median {m:>8.2} µs  p99 {p:>8.2} µs",
                every.len()
            ))?;
        }
        Ok(())
    }
}
