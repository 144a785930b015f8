//! `loadgen`: HTTP load on `retro serve` over loopback. Keeps `--connections` keep-alive
//! connections busy for `--seconds`, each sending `GET /api/GAME?QUERY&fen=F` for the positions
//! of `--fens` in turn, and reports requests a second, latency percentiles, the answers that were
//! not 200, and (with `--pid`) the server's resident memory over the run.
//!
//! ```text
//! retro sample mill --dir D --count 20000 --seed 1 > fens.txt
//! retro serve --dir D &
//! cargo run --release -p retro-benches --bin loadgen -- --fens fens.txt --pid $! --seconds 30
//! ```

use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

struct Opts {
    addr: String,
    game: String,
    query: String,
    fens: Vec<String>,
    connections: usize,
    seconds: f64,
    pid: Option<u32>,
    json: bool,
}

const HELP: &str = "loadgen: HTTP load on retro serve

  --addr HOST:PORT     the server (default 127.0.0.1:8080)
  --game GAME          mill, dara or oaq (default mill)
  --query Q            more query parameters, e.g. variant=six-mens-morris
  --fens FILE          positions, one a line (required)
  --connections N      keep-alive connections at once (default 64)
  --seconds S          how long (default 30)
  --pid PID            the server's process: report its resident memory each 10 s
  --json               one JSON line at the end";

fn parse() -> Result<Opts, String> {
    let mut o = Opts {
        addr: "127.0.0.1:8080".into(),
        game: "mill".into(),
        query: String::new(),
        fens: Vec::new(),
        connections: 64,
        seconds: 30.0,
        pid: None,
        json: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--addr" => o.addr = val()?,
            "--game" => o.game = val()?,
            "--query" => o.query = val()?,
            "--fens" => {
                let f = val()?;
                let text = std::fs::read_to_string(&f).map_err(|e| format!("{f}: {e}"))?;
                o.fens = text
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string)
                    .collect();
            }
            "--connections" => o.connections = val()?.parse().map_err(|_| "bad --connections")?,
            "--seconds" => o.seconds = val()?.parse().map_err(|_| "bad --seconds")?,
            "--pid" => o.pid = Some(val()?.parse().map_err(|_| "bad --pid")?),
            "--json" => o.json = true,
            "-h" | "--help" => return Err(HELP.into()),
            _ => return Err(format!("unknown argument {a}\n\n{HELP}")),
        }
    }
    if o.fens.is_empty() {
        return Err(format!("--fens FILE is required\n\n{HELP}"));
    }
    if o.connections == 0 || o.seconds.is_nan() || o.seconds <= 0.0 {
        return Err("--connections and --seconds must be positive".into());
    }
    Ok(o)
}

fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Resident memory of a process in KiB (Linux).
fn rss_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Reads one answer: its status; the body is read and dropped.
async fn answer(s: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<u16> {
    buf.clear();
    let mut chunk = [0u8; 16384];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| std::io::Error::other("no content-length"))?;
    let mut have = buf.len() - head_end;
    while have < len {
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        have += n;
    }
    Ok(status)
}

struct Tally {
    latencies_us: Vec<u32>,
    not_ok: u64,
    errors: u64,
}

async fn connection(
    o: std::sync::Arc<Opts>,
    paths: std::sync::Arc<Vec<String>>,
    k: usize,
    end: Instant,
) -> Tally {
    let mut t = Tally {
        latencies_us: Vec::new(),
        not_ok: 0,
        errors: 0,
    };
    let mut i = k * 7919 % paths.len();
    let mut buf = Vec::with_capacity(65536);
    'outer: while Instant::now() < end {
        let Ok(mut s) = TcpStream::connect(&o.addr).await else {
            t.errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = s.set_nodelay(true);
        while Instant::now() < end {
            let req = format!("GET {} HTTP/1.1\r\nHost: loadgen\r\n\r\n", paths[i]);
            i = (i + 1) % paths.len();
            let t0 = Instant::now();
            if s.write_all(req.as_bytes()).await.is_err() {
                t.errors += 1;
                continue 'outer;
            }
            match answer(&mut s, &mut buf).await {
                Ok(status) => {
                    t.latencies_us
                        .push(t0.elapsed().as_micros().min(u32::MAX as u128) as u32);
                    if status != 200 {
                        t.not_ok += 1;
                    }
                }
                Err(_) => {
                    t.errors += 1;
                    continue 'outer;
                }
            }
        }
    }
    t
}

fn main() {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let sep = if o.query.is_empty() { "" } else { "&" };
    let paths: Vec<String> = o
        .fens
        .iter()
        .map(|f| format!("/api/{}?{}{sep}fen={}", o.game, o.query, enc(f)))
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let o = std::sync::Arc::new(o);
    let paths = std::sync::Arc::new(paths);
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(o.seconds);
    let mut rss = Vec::new();
    let tallies = rt.block_on(async {
        let tasks: Vec<_> = (0..o.connections)
            .map(|k| tokio::spawn(connection(o.clone(), paths.clone(), k, end)))
            .collect();
        if let Some(pid) = o.pid {
            while Instant::now() < end {
                if let Some(r) = rss_kib(pid) {
                    rss.push((start.elapsed().as_secs_f64(), r));
                    if !o.json {
                        eprintln!(
                            "{:>6.0} s  server RSS {:.1} MiB",
                            start.elapsed().as_secs_f64(),
                            r as f64 / 1024.0
                        );
                    }
                }
                tokio::time::sleep(
                    Duration::from_secs(10).min(end.saturating_duration_since(Instant::now())),
                )
                .await;
            }
            if let Some(r) = rss_kib(pid) {
                rss.push((start.elapsed().as_secs_f64(), r));
            }
        }
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.expect("connection task"));
        }
        out
    });
    let secs = start.elapsed().as_secs_f64();
    let mut lat: Vec<u32> = tallies
        .iter()
        .flat_map(|t| t.latencies_us.iter().copied())
        .collect();
    lat.sort_unstable();
    let n = lat.len();
    let pct = |p: f64| {
        if n == 0 {
            0.0
        } else {
            lat[((n as f64 * p) as usize).min(n - 1)] as f64 / 1000.0
        }
    };
    let not_ok: u64 = tallies.iter().map(|t| t.not_ok).sum();
    let errors: u64 = tallies.iter().map(|t| t.errors).sum();
    let rate = n as f64 / secs;
    let mib = |k: u64| k as f64 / 1024.0;
    let (rss_first, rss_max, rss_last) =
        match (rss.first(), rss.iter().map(|r| r.1).max(), rss.last()) {
            (Some(f), Some(m), Some(l)) => (mib(f.1), mib(m), mib(l.1)),
            _ => (0.0, 0.0, 0.0),
        };
    if o.json {
        println!(
            "{{\"requests\":{n},\"seconds\":{secs:.3},\"per_second\":{rate:.0},\"p50_ms\":{:.3},\"p90_ms\":{:.3},\"p99_ms\":{:.3},\"max_ms\":{:.3},\"not_200\":{not_ok},\"errors\":{errors},\"connections\":{},\"rss_first_mib\":{rss_first:.1},\"rss_max_mib\":{rss_max:.1},\"rss_last_mib\":{rss_last:.1}}}",
            pct(0.5), pct(0.9), pct(0.99), pct(1.0), o.connections
        );
    } else {
        println!(
            "{n} requests in {secs:.1} s over {} connections: {rate:.0} a second",
            o.connections
        );
        println!(
            "latency: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            pct(0.5),
            pct(0.9),
            pct(0.99),
            pct(1.0)
        );
        println!("answers not 200: {not_ok}; connection errors: {errors}");
        if !rss.is_empty() {
            println!("server RSS: {rss_first:.1} MiB at the start, {rss_max:.1} MiB at most, {rss_last:.1} MiB at the end");
        }
    }
}
