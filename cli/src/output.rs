//! Output shared by every game's commands: JSON lines for `--batch`, and the perft report.

use crate::error::CliError;
use rayon::prelude::*;
use retro_solver::search::Limits;
use serde_json::{json, Value};
use std::io::{BufRead, Write};

/// Lines of a batch file answered together, in parallel (each thread keeps its own decoded
/// blocks of compressed tables).
const BATCH_CHUNK: usize = 512;

/// The longest input line kept (a position, a move or a command is far shorter): a longer one
/// is skipped to its end and answered as an error, so that a file without line ends cannot take
/// all the memory.
pub const MAX_LINE: usize = 1 << 20;

/// One line of input: its text, or why it is none (too long, not UTF-8) with its first bytes.
pub type Line = Result<String, (String, String)>;

/// Reads the next line of `r` without its end of line (`\n` or `\r\n`), keeping at most
/// [`MAX_LINE`] bytes; `None` at the end of the input.
pub fn next_line(r: &mut impl BufRead) -> std::io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let (mut any, mut too_long) = (false, false);
    loop {
        let (used, done) = {
            let buf = match r.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                break;
            }
            any = true;
            let nl = buf.iter().position(|&b| b == b'\n');
            let chunk = &buf[..nl.unwrap_or(buf.len())];
            if !too_long {
                if bytes.len() + chunk.len() > MAX_LINE {
                    too_long = true;
                    bytes.truncate(64);
                } else {
                    bytes.extend_from_slice(chunk);
                }
            }
            (nl.map_or(buf.len(), |i| i + 1), nl.is_some())
        };
        r.consume(used);
        if done {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    // The first bytes of a line that is none, for its error.
    let start = |b: &[u8]| String::from_utf8_lossy(&b[..b.len().min(64)]).into_owned();
    if too_long {
        let why = format!("a line longer than {} MiB", MAX_LINE >> 20);
        return Ok(Some(Err((why, start(&bytes)))));
    }
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    Ok(Some(String::from_utf8(bytes).map_err(|e| {
        let why = "a line that is not UTF-8 text".to_string();
        (why, start(e.as_bytes()))
    })))
}

/// Reads one position per line from a file (or `-` for stdin) and prints one JSON object per
/// line, in order; blank lines are skipped, and a line that is too long or not UTF-8 gets an
/// error object of its own. `each` gets the 1-based line number and the text.
/// A file's lines are answered [`BATCH_CHUNK`] at a time on all worker threads; stdin's one at
/// a time, as they come (a program may write a line and wait for its answer).
pub fn batch(path: &str, each: impl Fn(usize, &str) -> Value + Sync) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let answer = |i: usize, line: &Line| match line {
        Ok(text) => {
            // A byte-order mark (editors on Windows write one) is not part of the first line.
            let text = if i == 1 {
                text.trim_start_matches('\u{feff}')
            } else {
                text
            };
            let text = text.trim();
            (!text.is_empty()).then(|| each(i, text).to_string())
        }
        Err((why, start)) => Some(line_error(i, start, why).to_string()),
    };
    if path == "-" {
        let mut input = std::io::stdin().lock();
        let mut i = 0;
        while let Some(line) =
            next_line(&mut input).map_err(|e| CliError::other(format!("reading stdin: {e}")))?
        {
            i += 1;
            if let Some(a) = answer(i, &line) {
                writeln!(out, "{a}").map_err(CliError::other)?;
                out.flush().map_err(CliError::other)?;
            }
        }
        return Ok(());
    }
    let f = std::fs::File::open(path)
        .map_err(|e| CliError::input(format!("cannot open {path}: {e}")))?;
    // A folder opens on Linux and fails at the first read: bad input, said as such.
    if f.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(CliError::input(format!(
            "cannot read {path}: a folder, not a file of positions"
        )));
    }
    let mut input = std::io::BufReader::new(f);
    let mut i = 0;
    loop {
        let mut chunk = Vec::with_capacity(BATCH_CHUNK);
        while chunk.len() < BATCH_CHUNK {
            let Some(line) = next_line(&mut input)
                .map_err(|e| CliError::other(format!("reading {path}: {e}")))?
            else {
                break;
            };
            i += 1;
            chunk.push((i, line));
        }
        if chunk.is_empty() {
            return Ok(());
        }
        let answers: Vec<Option<String>> =
            chunk.par_iter().map(|(i, line)| answer(*i, line)).collect();
        for a in answers.into_iter().flatten() {
            writeln!(out, "{a}").map_err(CliError::other)?;
        }
    }
}

/// The JSON object of a line that could not be read (its first 200 characters as `input`).
pub fn line_error(line: usize, input: &str, e: impl std::fmt::Display) -> Value {
    json!({"error": e.to_string(), "line": line, "input": preview(input)})
}

/// At most the first 200 characters of a text, marked when cut.
pub fn preview(text: &str) -> String {
    retro_engine::Excerpt(text, 200).to_string()
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

/// Refuses a `--threads` outside 1 to [`MAX_THREADS`] (left out: one per core).
pub fn check_threads(threads: Option<usize>) -> Result<(), CliError> {
    match threads.filter(|n| !(1..=MAX_THREADS).contains(n)) {
        Some(n) => Err(CliError::input(format!(
            "--threads must be from 1 to {MAX_THREADS}, not {n} (leave it out for one per core)"
        ))),
        None => Ok(()),
    }
}

/// A worker pool of `threads` threads (default: one per core).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    check_threads(threads)?;
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
                "--time must be a positive number of seconds, below 1000000",
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

/// Prints an analysis's principal variation; when one was `asked` of a search's answer, that
/// it has none (Mill and Dara).
pub fn print_pv(v: &Value, asked: bool) {
    if let Some(line) = v["pv"].as_array() {
        let names: Vec<&str> = line.iter().filter_map(|b| b.as_str()).collect();
        println!("PV: {}", names.join(" "));
    } else if asked && v["source"] == "search" {
        println!("PV: none (a search's answer has no line; tables give one)");
    }
}

/// `n` things, in words: "1 table", "7 tables" (`word` in the singular, plural with an `s`).
pub fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `n` plies, in words: "1 ply", "7 plies".
pub fn plies(n: u64) -> String {
    if n == 1 {
        "1 ply".into()
    } else {
        format!("{n} plies")
    }
}

/// One line describing a move's or a position's value from an analysis object.
pub fn describe(v: &Value) -> String {
    match (v["result"].as_str(), v["plies"].as_u64(), &v["score"]) {
        (Some("draw"), _, _) => "draw".into(),
        (Some(r), Some(n), _) => format!("{r} in {}", plies(n)),
        (Some(r), None, s) if !s.is_null() => format!("{r} (score {s})"),
        (Some(r), None, _) => r.into(),
        (None, _, s) if !s.is_null() => format!("score {s}"),
        _ => "?".into(),
    }
}
