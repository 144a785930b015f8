//! `retro serve` for the tests: a server on a free loopback port, stopped when dropped, and a
//! plain HTTP/1.1 client over a TCP socket (the tests need to send what no client library
//! would: raw paths, broken heads, oversized fields).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `retro serve`.
pub struct Server {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Server {
    /// Starts `retro serve --dir dir --addr 127.0.0.1:0` with more arguments, and waits for
    /// the line that names its port.
    pub fn start(dir: &Path, args: &[&str]) -> Server {
        let mut child = Command::new(crate::retro_bin())
            .args(["serve", "--addr", "127.0.0.1:0", "--dir"])
            .arg(dir)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn retro serve");
        let mut err = child.stderr.take().expect("stderr");
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("retro serve prints its address");
        let port = line
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Server {
            child,
            port,
            stderr: Some(stderr),
        }
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Whether the process still runs.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    /// Stops the server and returns what it wrote on stderr.
    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr
            .take()
            .map(|h| h.join().unwrap())
            .unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer: status, head (lower-cased header lines), body.
#[derive(Debug)]
pub struct Reply {
    /// The status code (0: the server closed the connection without an answer).
    pub status: u16,
    /// The header lines, lower-cased.
    pub head: Vec<String>,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as JSON (panics when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        let prefix = format!("{}:", name.to_ascii_lowercase());
        self.head
            .iter()
            .find(|h| h.starts_with(&prefix))
            .map(|h| h[prefix.len()..].trim())
    }
}

/// Sends raw bytes as one request on a new connection and reads the answer to the end
/// (the request should ask `Connection: close`).
pub fn raw(port: u16, request: &[u8]) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    // The server may answer and close before it has read a long request: a reset then is fine.
    let _ = s.write_all(request);
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    parse_reply(&buf)
}

/// Parses an HTTP/1.1 answer (status 0 when there is none).
pub fn parse_reply(buf: &[u8]) -> Reply {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Reply {
            status: 0,
            head: Vec::new(),
            body: buf.to_vec(),
        };
    };
    let head = String::from_utf8_lossy(&buf[..end]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let head: Vec<String> = lines.map(|l| l.to_ascii_lowercase()).collect();
    let mut body = buf[end + 4..].to_vec();
    if head.iter().any(|h| h == "transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    Reply { status, head, body }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if n == 0 || b.len() < eol + 2 + n {
            break;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[(eol + 4 + n).min(b.len())..];
    }
    out
}

/// `GET path` (already encoded).
pub fn get(port: u16, path: &str) -> Reply {
    raw(
        port,
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// `POST path` with a JSON body.
pub fn post(port: u16, path: &str, body: &[u8]) -> Reply {
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: \
         application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    raw(port, &req)
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
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

/// A directory with tables of the three games: Six Men's Morris whole, Dara's 3 against 3
/// endgame, and the whole Ô Ăn Quan game with one seed a cell (`seeds=1,1`). Solved once per
/// test process, into a fresh folder under the target directory (`test-tables/TEST`).
pub fn served_tables() -> &'static Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable");
        let name = exe.file_stem().and_then(|s| s.to_str()).unwrap_or("serve");
        let target = exe
            .parent()
            .and_then(|d| d.parent())
            .expect("target directory");
        let dir = target.join("test-tables").join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let d = dir.to_str().unwrap();
        for args in [
            &[
                "solve",
                "mill",
                "--variant",
                "six-mens-morris",
                "--dir",
                d,
                "-q",
            ][..],
            &["solve", "dara", "--sector", "3v3", "--dir", d, "-q"][..],
            &["solve", "oaq", "--rule", "seeds=1,1", "--dir", d, "-q"][..],
        ] {
            let out = crate::retro(args, None);
            assert!(out.status.success(), "{args:?}: {}", crate::stderr(&out));
        }
        dir
    })
}

/// `retro sample GAME --dir dir --count n --seed 1` with more arguments: FEN lines.
pub fn sample(game: &str, dir: &Path, n: usize, extra: &[&str]) -> Vec<String> {
    let d = dir.to_str().unwrap();
    let count = n.to_string();
    let args = [
        &["sample", game, "--dir", d, "--count", &count, "--seed", "1"][..],
        extra,
    ]
    .concat();
    let out = crate::retro(&args, None);
    assert!(out.status.success(), "{}", crate::stderr(&out));
    crate::stdout(&out).lines().map(str::to_string).collect()
}

/// `retro analyse GAME --dir dir --fen fen --json` with rule arguments, parsed.
pub fn analyse_json(game: &str, dir: &Path, fen: &str, rules: &[&str]) -> serde_json::Value {
    let d = dir.to_str().unwrap();
    let args = [
        &["analyse", game, "--dir", d, "--fen", fen, "--json"][..],
        rules,
    ]
    .concat();
    let out = crate::retro(&args, None);
    assert!(out.status.success(), "{args:?}: {}", crate::stderr(&out));
    serde_json::from_str(&crate::stdout(&out)).unwrap()
}
