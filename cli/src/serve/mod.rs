//! `retro serve`: the tables over HTTP. A JSON API that answers what `retro analyse --json`
//! answers (the same functions), and a web page for the three games, compiled into the binary.
//!
//! `params` reads a request's query, `answer` turns it into the analysis (per game, cached
//! table handles), `routes` is the router and its error replies, `listen` the accept loop with
//! its timeouts and limits, `page` the embedded page.

mod answer;
mod api_error;
mod listen;
mod page;
mod params;
mod routes;

use crate::args::ServeArgs;
use crate::error::CliError;
use std::time::Duration;

/// The limits a server keeps (from the command line).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// A request (its head, its body and its answer) must be done within this time, and an
    /// idle connection is closed after it.
    pub timeout: Duration,
    /// Connections served at once; more wait to be accepted.
    pub max_connections: usize,
    /// Longest search a request may ask for (`time=`), in seconds.
    pub max_search: f64,
}

/// The most connections `--max-connections` may allow at once (each holds a socket; far more
/// than a machine's descriptors).
pub const MAX_CONNECTIONS: usize = 1 << 20;

/// Runs `retro serve`.
pub fn run(a: &ServeArgs) -> Result<(), CliError> {
    if !(a.timeout > 0.0 && a.timeout <= 3600.0) {
        return Err(CliError::input(
            "--timeout must be more than 0 and at most 3600 seconds",
        ));
    }
    if !(1..=MAX_CONNECTIONS).contains(&a.max_connections) {
        return Err(CliError::input(format!(
            "--max-connections must be from 1 to {MAX_CONNECTIONS}, not {}",
            a.max_connections
        )));
    }
    // NaN fails both comparisons.
    if !(a.max_search_time > 0.0 && a.max_search_time <= 60.0) {
        return Err(CliError::input(format!(
            "--max-search-time must be more than 0 and at most 60 seconds, not {}",
            a.max_search_time
        )));
    }
    crate::output::check_threads(a.threads)?;
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let limits = Limits {
        timeout: Duration::from_secs_f64(a.timeout),
        max_connections: a.max_connections,
        max_search: a.max_search_time,
    };
    // Serving without tables is allowed (boards, searches), but seldom meant.
    if let Some(hint) = crate::games::table_folder_hint(&a.dir) {
        eprintln!("retro serve: warning: {hint}");
    } else if !a.dir.is_dir() {
        eprintln!(
            "retro serve: warning: {} is not a folder: no tables (Mill answers 503 with the \
             solve command; Dara and Ô Ăn Quan are searched)",
            a.dir.display()
        );
    }
    let state = answer::State::new(a.dir.clone(), threads, limits).map_err(CliError::other)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()
        .map_err(|e| CliError::other(format!("cannot start the server's runtime: {e}")))?;
    runtime.block_on(listen::serve(&a.addr, state, limits))
}
