//! `retro serve`'s JSON API: the answers are `retro analyse --json`'s, position for position;
//! errors name the field; 10,000 malformed requests are all answered 4xx and the server goes
//! on answering correctly; stalled clients are cut off.

use retro_tests::server::{
    analyse_json, enc, get, post, raw, sample, served_tables, Reply, Server,
};
use retro_tests::{retro, stdout};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn query(fen: &str, rules: &[(&str, &str)]) -> String {
    let mut q = format!("fen={}", enc(fen));
    for (k, v) in rules {
        q.push_str(&format!("&{k}={}", enc(v)));
    }
    q
}

#[test]
fn the_api_answers_what_analyse_answers() {
    let dir = served_tables();
    let server = Server::start(dir, &[]);
    let port = server.port;

    // Mill: the start position and positions drawn from every Six Men's Morris table.
    let mut fens = sample("mill", dir, 60, &["--variant", "six-mens-morris"]);
    fens.push("********/******** w p p 0 6 0 6 0 0 0 0 0 0 0 0 1".into());
    assert!(fens.len() > 40, "{} positions", fens.len());
    for fen in &fens {
        let want = analyse_json("mill", dir, fen, &["--variant", "six-mens-morris"]);
        let r = get(
            port,
            &format!(
                "/api/mill?{}",
                query(fen, &[("variant", "six-mens-morris")])
            ),
        );
        assert_eq!(r.status, 200, "{fen}: {}", String::from_utf8_lossy(&r.body));
        assert_eq!(r.json(), want, "{fen}");
        assert_eq!(r.header("access-control-allow-origin"), Some("*"));
        assert!(r
            .header("content-type")
            .unwrap()
            .starts_with("application/json"));
    }
    // With a principal variation.
    let fen = &fens[fens.len() / 2];
    let want = analyse_json("mill", dir, fen, &["--pv", "--variant", "six-mens-morris"]);
    let r = get(
        port,
        &format!(
            "/api/mill?{}&pv=1",
            query(fen, &[("variant", "six-mens-morris")])
        ),
    );
    assert_eq!(r.json(), want);
    assert!(want["pv"].is_array());

    // A batch answers each position as the single requests do, in order.
    let body = json!({"game": "mill", "variant": "six-mens-morris", "fens": fens});
    let r = post(port, "/api/batch", body.to_string().as_bytes());
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let results = r.json()["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), fens.len());
    for (fen, got) in fens.iter().zip(&results) {
        assert_eq!(
            got,
            &analyse_json("mill", dir, fen, &["--variant", "six-mens-morris"])
        );
    }

    // Dara: positions of the 3 against 3 table (answered from it, "source": "tables").
    let fens = sample("dara", dir, 15, &[]);
    assert_eq!(fens.len(), 15);
    for fen in &fens {
        let want = analyse_json("dara", dir, fen, &[]);
        assert_eq!(want["source"], "tables", "{fen}");
        let r = get(port, &format!("/api/dara?{}", query(fen, &[])));
        assert_eq!(r.status, 200, "{fen}");
        assert_eq!(r.json(), want, "{fen}");
    }

    // Ô Ăn Quan: the solved seeds=1,1 game, from its start and from the positions after each
    // first move.
    let start = "1,1,1,1,1,1,1,1,1,1,1,1 s 0 0 1";
    let r = get(
        port,
        &format!("/api/board/oaq?{}", query(start, &[("rule", "seeds=1,1")])),
    );
    assert_eq!(r.status, 200);
    let mut fens = vec![start.to_string()];
    for c in r.json()["children"].as_array().unwrap() {
        fens.push(c["fen"].as_str().unwrap().to_string());
    }
    assert_eq!(fens.len(), 11);
    for fen in &fens {
        let want = analyse_json("oaq", dir, fen, &["--rule", "seeds=1,1"]);
        assert_eq!(want["source"], "table");
        let r = get(
            port,
            &format!("/api/oaq?{}", query(fen, &[("rule", "seeds=1,1")])),
        );
        assert_eq!(r.json(), want, "{fen}");
    }

    // The variants are `retro variants --json`'s.
    let want: Value = serde_json::from_str(&stdout(&retro(&["variants", "--json"], None))).unwrap();
    assert_eq!(get(port, "/api/variants").json(), want);
    drop(server);
}

#[test]
fn errors_name_the_field_and_missing_tables_name_the_solve() {
    // The russian-mill request below solves its endgame by closure, about 8 s of one core on a
    // quiet machine: more than the default 10 s when the other tests of this file share the two
    // cores. The limit is not what this test is about.
    let server = Server::start(served_tables(), &["--timeout", "120"]);
    let port = server.port;
    let cases: &[(&str, u16, &str)] = &[
        ("/api/mill?fen=nonsense", 400, "fen"),
        ("/api/mill?variant=no-such-game", 400, "variant"),
        ("/api/mill?rule=flying%3Dmaybe", 400, "rule"),
        ("/api/mill?colour=white", 400, "colour"),
        ("/api/mill?fen=a&fen=b", 400, "fen"),
        ("/api/mill?depth=0", 400, "depth"),
        ("/api/mill?time=-1", 400, "time"),
        ("/api/mill?pv=perhaps", 400, "pv"),
        // No tables: only small endgames are solved (from their own closure).
        ("/api/mill?variant=russian-mill", 400, "fen"),
        ("/api/mill?variant=russian-mill&pv=true", 400, "pv"),
        ("/api/dara?variant=morabaraba", 400, "variant"),
        ("/api/dara?fen=......%2F......%20w%2012%2012", 400, "fen"),
        ("/api/oaq?rule=seeds%3D1", 400, "rule"),
        ("/api/board/mill?fen=x", 400, "fen"),
    ];
    for (path, status, field) in cases {
        let r = get(port, path);
        assert_eq!(
            r.status,
            *status,
            "{path}: {}",
            String::from_utf8_lossy(&r.body)
        );
        let v = r.json();
        assert_eq!(v["field"], *field, "{path}: {v}");
        assert!(
            v["error"].as_str().unwrap().starts_with(field),
            "{path}: {v}"
        );
        assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    }
    for path in [
        "/api/chess",
        "/nothing",
        "/api",
        "/api/board/go",
        "/index.html",
    ] {
        let r = get(port, path);
        assert_eq!(r.status, 404, "{path}");
        assert!(r.json()["error"].is_string(), "{path}");
    }
    // russian-mill has no tables, but a 3-against-3 endgame is solved exactly: White closes a
    // mill and wins at once.
    let fen = "*O******/*O*O*@**/***@***@ w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
    let r = get(
        port,
        &format!("/api/mill?{}", query(fen, &[("variant", "russian-mill")])),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json();
    assert_eq!(
        (&v["result"], &v["plies"], &v["exact"]),
        (
            &serde_json::json!("win"),
            &serde_json::json!(1),
            &serde_json::json!("closure")
        ),
        "{v}"
    );
    // Its start is too big for a closure: 400 on the position, or with search=1 a search.
    let r = get(port, "/api/mill?variant=russian-mill");
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["field"], "fen");
    let r = get(port, "/api/mill?variant=russian-mill&search=1&depth=2");
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["source"], "search");
    // No table for nine-mens-morris here: 503 with the command that builds it, into the
    // folder this server reads.
    let r = get(port, "/api/mill");
    assert_eq!(r.status, 503);
    let v = r.json();
    assert_eq!(
        v["solve"],
        format!(
            "retro solve mill --variant nine-mens-morris --sector 0,0,9,9 --dir {}",
            served_tables().display()
        ),
        "{v}"
    );
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("no table for sector 0_0_9_9"),
        "{v}"
    );
    // ... and with search=1 a search's answer, marked as such.
    let r = get(port, "/api/mill?search=1&depth=2");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["source"], "search");
    // A line asked of a search: none, as `analyse mill --search --pv` says.
    let r = get(port, "/api/mill?search=1&depth=2&pv=1");
    assert_eq!(r.status, 200);
    assert!(
        r.json().get("pv").is_some_and(|v| v.is_null()),
        "{}",
        r.json()
    );
    // A CORS preflight.
    let r = raw(
        port,
        b"OPTIONS /api/batch HTTP/1.1\r\nHost: x\r\nOrigin: http://example.org\r\n\
          Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(r.status, 204);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert!(r
        .header("access-control-allow-methods")
        .unwrap()
        .contains("post"));
    // The page and its assets.
    let r = get(port, "/");
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert!(String::from_utf8_lossy(&r.body).contains("/app.js"));
    assert_eq!(get(port, "/app.js").status, 200);
    assert_eq!(get(port, "/style.css").status, 200);
}

/// One malformed request of many kinds, picked by `i`.
fn malformed(i: usize) -> Vec<u8> {
    let junk: String = (0..(i % 37) + 1)
        .map(|k| (b"!\"#$&'()*+,-./:;<=>?@[\\]^_`{|}~ \x7fZz09"[(i * 7 + k * 13) % 36]) as char)
        .collect();
    let get = |path: &str| {
        format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").into_bytes()
    };
    let post = |body: &str| {
        format!(
            "POST /api/batch HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    match i % 24 {
        0 => get(&format!("/api/mill?fen={}", enc(&junk))),
        1 => get(&format!("/api/dara?fen={}", enc(&junk))),
        2 => get(&format!("/api/oaq?fen={}", enc(&junk))),
        3 => get(&format!("/api/mill?fen={}", "O".repeat(600 + i % 5000))),
        4 => get(&format!("/api/mill?variant={}", enc(&junk))),
        5 => get(&format!("/api/oaq?rule={}", enc(&format!("{junk}={junk}")))),
        6 => get(&format!("/api/{}", enc(&junk))),
        7 => post(&junk),
        8 => post(&format!("{{\"game\":\"mill\",\"fens\":[{}]}}", vec!["\"x\""; 1001].join(","))),
        9 => post("{\"game\":\"chess\",\"fens\":[]}"),
        10 => post(&format!("{{\"game\":\"mill\",\"fens\":[\"{}\"]}}", "O".repeat(700))),
        11 => get(["/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/api/../../etc/passwd",
                   "/api/mill/../../../etc/passwd", "/..%2f..%2fetc%2fpasswd", "//etc/passwd",
                   "/etc/passwd", "/api/board/..%2F..%2Fetc"][i / 24 % 8]),
        12 => b"GET http://127.0.0.1/../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
        13 => get(&format!("/api/mill?{}", "a".repeat(5000 + i % 3000))),
        14 => b"GET /api/mill?fen=%ff%fe%fd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
        15 => format!("{junk}\r\n\r\n").into_bytes(),
        16 => format!("GET /api/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: {}\r\n\r\n", "b".repeat([17_000, 70_000, 300_000][i / 24 % 3])).into_bytes(),
        17 => get(&format!("/api/mill?depth={}", enc(&junk))),
        18 => get(&format!("/api/dara?time={}", ["nan", "inf", "-0", "1e400", "0"][i / 24 % 5])),
        19 => post(&format!("{{\"game\":\"mill\",\"fens\":[],\"extra\":{}}}", i)),
        20 => b"PUT /api/mill HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".to_vec(),
        21 => format!("POST /api/batch HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2000000\r\n\r\n{}", "[".repeat(4096)).into_bytes(),
        22 => get(&format!("/api/mill?variant=six-mens-morris&rule={}", enc(&format!("board={junk}")))),
        _ => get(&format!("/api/board/oaq?fen={}", enc(&format!("{junk},1,1 s 0 0 1")))),
    }
}

#[test]
fn ten_thousand_malformed_requests_get_4xx_and_the_server_goes_on() {
    let mut server = Server::start(served_tables(), &[]);
    let port = server.port;
    let good = format!(
        "/api/mill?variant=six-mens-morris&fen={}",
        enc("O*@*O***/**@**@** w m s 2 0 3 0 0 0 0 0 0 0 0 0 1")
    );
    let want = get(port, &good);
    assert_eq!(want.status, 200, "{}", String::from_utf8_lossy(&want.body));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                let mut bad = Vec::new();
                for i in (t..10_000).step_by(4) {
                    let r: Reply = raw(port, &malformed(i));
                    if !(400..500).contains(&r.status) {
                        bad.push((i, r.status, String::from_utf8_lossy(&r.body).to_string()));
                    }
                }
                bad
            })
        })
        .collect();
    let mut bad = Vec::new();
    for t in threads {
        bad.extend(t.join().unwrap());
    }
    assert!(
        bad.is_empty(),
        "{} not 4xx, e.g. {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    assert!(server.alive());
    let again = get(port, &good);
    assert_eq!(again.status, 200);
    assert_eq!(again.json(), want.json());
    let err = server.stop();
    assert!(!err.contains("panicked"), "{err}");
}

/// Sends `request` on a new connection and reads until the server closes it, which must
/// happen within 8 s (the server runs with `--timeout 1`); returns what came back.
fn held(port: u16, request: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(request).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let t = Instant::now();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    assert!(
        t.elapsed() < Duration::from_secs(8),
        "held {:?}",
        t.elapsed()
    );
    buf
}

#[test]
fn stalled_and_idle_clients_are_cut_off() {
    let server = Server::start(served_tables(), &["--timeout", "1"]);
    let port = server.port;
    // Half a request head, then nothing: the server gives up on it.
    held(port, b"GET /api/mill HTTP/1.1\r\nHost: x\r\n");
    // An idle keep-alive connection after a request is closed too.
    let buf = held(port, b"GET /api/variants HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(buf.starts_with(b"HTTP/1.1 200"));
    // A body that never comes.
    let buf = held(
        port,
        b"POST /api/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"ga",
    );
    assert!(
        buf.is_empty() || buf.starts_with(b"HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&buf)
    );
    // The server still answers.
    assert_eq!(get(port, "/api/variants").status, 200);
}
