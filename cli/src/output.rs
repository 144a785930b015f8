//! Output shared by every game's commands: JSON lines for `--batch`, and the perft report.

use crate::error::CliError;
use rayon::prelude::*;
use retro_solver::search::Limits;
use serde_json::{json, Value};
use std::io::{BufRead, Write};

/// Lines of a batch file answered together, in parallel (each thread keeps its own decoded
/// blocks of compressed tables).
const BATCH_CHUNK: usize = 512;

/// Reads one position per line from a file (or `-` for stdin) and prints one JSON object per
/// line, in order; blank lines are skipped. `each` gets the 1-based line number and the text.
/// A file's lines are answered [`BATCH_CHUNK`] at a time on all worker threads; stdin's one at
/// a time, as they come (a program may write a line and wait for its answer).
pub fn batch(path: &str, each: impl Fn(usize, &str) -> Value + Sync) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if path == "-" {
        for (i, line) in std::io::stdin().lock().lines().enumerate() {
            let line = line.map_err(|e| CliError::other(format!("reading stdin: {e}")))?;
            if !line.trim().is_empty() {
                writeln!(out, "{}", each(i + 1, line.trim())).map_err(CliError::other)?;
                out.flush().map_err(CliError::other)?;
            }
        }
        return Ok(());
    }
    let f = std::fs::File::open(path)
        .map_err(|e| CliError::input(format!("cannot open {path}: {e}")))?;
    let mut lines = std::io::BufReader::new(f).lines().enumerate();
    loop {
        let mut chunk = Vec::with_capacity(BATCH_CHUNK);
        for (i, line) in lines.by_ref().take(BATCH_CHUNK) {
            let line = line.map_err(|e| CliError::other(format!("reading {path}: {e}")))?;
            chunk.push((i + 1, line));
        }
        if chunk.is_empty() {
            return Ok(());
        }
        let answers: Vec<Option<String>> = chunk
            .par_iter()
            .map(|(i, line)| {
                let line = line.trim();
                (!line.is_empty()).then(|| each(*i, line).to_string())
            })
            .collect();
        for a in answers.into_iter().flatten() {
            writeln!(out, "{a}").map_err(CliError::other)?;
        }
    }
}

/// The JSON object of a line that could not be read.
pub fn line_error(line: usize, input: &str, e: impl std::fmt::Display) -> Value {
    json!({"error": e.to_string(), "line": line, "input": input})
}

/// Prints a perft result: `{"nodes","seconds","nps"[,"divide"]}` with `--json`, else a table
/// (per root move with `--divide`) under the heading `title`.
pub fn perft_report(
    title: &str,
    parts: &[(String, u64)],
    nodes: u64,
    secs: f64,
    divide: bool,
    as_json: bool,
) {
    let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
    if as_json {
        let mut v = json!({"nodes": nodes, "seconds": secs, "nps": nps.round() as u64});
        if divide {
            v["divide"] = parts
                .iter()
                .map(|(s, n)| json!({"move": s, "nodes": n}))
                .collect();
        }
        println!("{v}");
        return;
    }
    if divide {
        for (s, n) in parts {
            println!("{s:<12} {n}");
        }
        println!();
    }
    println!("{title}");
    println!("nodes    {nodes}");
    println!("time     {secs:.3} s");
    println!("speed    {:.1} M nodes/s", nps / 1e6);
}

/// The most worker threads `--threads` may ask for.
pub const MAX_THREADS: usize = 1024;

/// A worker pool of `threads` threads (default: one per core).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    if let Some(n) = threads.filter(|n| !(1..=MAX_THREADS).contains(n)) {
        return Err(CliError::input(format!(
            "--threads must be from 1 to {MAX_THREADS}, not {n} (leave it out for one per core)"
        )));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(CliError::other)
}

/// Per-root counts, total and seconds of a perft.
pub type PerftSplit = (Vec<(String, u64)>, u64, f64);

/// Perft below each root move in parallel: `(move text, count)` per root, the total (1 when
/// there is no root move or the depth is 0), and the seconds taken.
pub fn perft_roots<P: Sync>(
    threads: Option<usize>,
    roots: &[(String, P)],
    depth: u32,
    perft: impl Fn(&P, u32) -> u64 + Sync,
) -> Result<PerftSplit, CliError> {
    let pool = pool(threads)?;
    let start = std::time::Instant::now();
    let parts: Vec<(String, u64)> = if depth == 0 || roots.is_empty() {
        Vec::new()
    } else {
        pool.install(|| {
            roots
                .par_iter()
                .map(|(m, q)| (m.clone(), perft(q, depth - 1)))
                .collect()
        })
    };
    let nodes = if parts.is_empty() {
        1
    } else {
        parts.iter().map(|(_, n)| n).sum()
    };
    Ok((parts, nodes, start.elapsed().as_secs_f64()))
}

/// The limits of a search: `--depth` plies (default 200) and `--time` seconds (none when only
/// `--depth` is given, else 2 s).
pub fn limits(depth: Option<u32>, time: Option<f64>) -> Result<Limits, CliError> {
    let time = match (depth, time) {
        (_, Some(t)) if !(t > 0.0 && t < 1e6) => {
            return Err(CliError::input(
                "--time must be a positive number of seconds",
            ))
        }
        (_, Some(t)) => Some(std::time::Duration::from_secs_f64(t)),
        (Some(_), None) => None,
        (None, None) => Some(std::time::Duration::from_secs(2)),
    };
    Ok(Limits {
        depth: depth.unwrap_or(200),
        time,
    })
}

/// One line describing a move's or a position's value from an analysis object.
pub fn describe(v: &Value) -> String {
    match (v["result"].as_str(), v["plies"].as_u64(), &v["score"]) {
        (Some("draw"), _, _) => "draw".into(),
        (Some(r), Some(n), _) => format!("{r} in {n} plies"),
        (Some(r), None, s) if !s.is_null() => format!("{r} (score {s})"),
        (Some(r), None, _) => r.into(),
        (None, _, s) if !s.is_null() => format!("score {s}"),
        _ => "?".into(),
    }
}
