//! `retro serve`'s page in a real browser: Debian's headless Chromium driven over WebDriver
//! (chromedriver; `tests/install-browser` installs both). For each game: load a position, move
//! by clicking the board, read the listed moves and values and check them against the API's
//! analysis of the same position (itself checked against `retro analyse --json` in
//! serve_api.rs); a shared URL gives the same page, the back button walks back, a bad position
//! text shows an error, perfect play plays a won position out. A screenshot of each game's
//! page goes to `target/release/screenshots/`.

use fantoccini::{Client, ClientBuilder, Locator};
use retro_tests::server::{analyse_json, enc, get, sample, served_tables, Server};
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// chromedriver on a free port, killed when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_driver() -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver not found: run `bash tests/install-browser` (Debian's chromium and chromium-driver)");
    let t = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "chromedriver did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Driver { child, port }
}

async fn browser(driver: &Driver) -> Client {
    let mut opts = json!({
        "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1100,760"],
    });
    if std::path::Path::new("/usr/bin/chromium").exists() {
        opts["binary"] = json!("/usr/bin/chromium");
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), opts);
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a WebDriver session in headless Chromium")
}

/// The page's `data-ready` and `data-fen` once a load is done (and the position differs from
/// `not`, when given).
async fn settled(c: &Client, not: Option<&str>) -> String {
    let t = Instant::now();
    loop {
        let v = c
            .execute(
                "return [document.body.dataset.ready || '', document.body.dataset.fen || '']",
                vec![],
            )
            .await
            .unwrap();
        let (ready, fen) = (v[0].as_str().unwrap(), v[1].as_str().unwrap().to_string());
        if ready == "1" && Some(fen.as_str()) != not {
            return fen;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the page did not settle (fen {fen})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The move list as the page shows it: (move, value, distance).
async fn listed(c: &Client) -> Vec<(String, String, String)> {
    let v = c
        .execute(
            "return [...document.querySelectorAll('#moves tbody tr')].map(tr => \
             [tr.dataset.move, tr.querySelector('.result').textContent, \
              tr.querySelector('.plies').textContent])",
            vec![],
        )
        .await
        .unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let s = |i: usize| r[i].as_str().unwrap().to_string();
            (s(0), s(1), s(2))
        })
        .collect()
}

/// What the page should list for the API's analysis: (move, value, distance), best first.
fn expected(analysis: &Value) -> Vec<(String, String, String)> {
    let mut rows: Vec<(i64, String, String, String)> = analysis["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let mv = m["move"].as_str().unwrap().to_string();
            match m["result"].as_str() {
                None => {
                    let s = m["score"].as_i64().unwrap();
                    let sign = if s > 0 { "+" } else { "" };
                    (s, mv, format!("{sign}{s} seeds"), String::new())
                }
                Some(r) => {
                    let plies = m["plies"].as_i64();
                    let rank = match r {
                        "win" => 1_000_000 - plies.unwrap_or(0),
                        "loss" => -1_000_000 + plies.unwrap_or(0),
                        _ => 0,
                    };
                    let d = plies.map(|p| format!("{p} plies")).unwrap_or_default();
                    (rank, mv, r.to_string(), d)
                }
            }
        })
        .collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    rows.into_iter().map(|(_, m, v, d)| (m, v, d)).collect()
}

/// The page lists exactly the API's analysis of the position it shows, which is what
/// `retro analyse --json` answers (when it comes from the tables: a search's answer depends on
/// the time it had).
async fn check_list(c: &Client, port: u16, game: &str, rules: &str, fen: &str) -> Value {
    let a = get(port, &format!("/api/{game}?{rules}&fen={}", enc(fen)));
    assert_eq!(a.status, 200, "{fen}");
    let a = a.json();
    assert_eq!(listed(c).await, expected(&a), "{game} {fen}");
    if a["source"] != "search" {
        let rule_args: &[&str] = match game {
            "mill" => &["--variant", "six-mens-morris"],
            "oaq" => &["--rule", "seeds=1,1"],
            _ => &[],
        };
        let cli = analyse_json(game, served_tables(), fen, rule_args);
        assert_eq!(a, cli, "{game} {fen}: the API and retro analyse differ");
    }
    a
}

/// The page's moves from the board API: move, the position after it, the clicks.
fn children(port: u16, game: &str, rules: &str, fen: &str) -> Vec<Value> {
    let r = get(port, &format!("/api/board/{game}?{rules}&fen={}", enc(fen)));
    assert_eq!(r.status, 200, "{fen}");
    r.json()["children"].as_array().unwrap().clone()
}

/// Clicks a point of the board (Mill and Dara) or a cell (Ô Ăn Quan).
async fn click_point(c: &Client, p: &str) {
    let sel = format!("g[data-point='{p}'] .hit, g[data-point='{p}'] .cell");
    c.find(Locator::Css(&sel))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// Clicks the points of a move's path on the board and checks where the page goes.
async fn click_move(c: &Client, child: &Value, from: &str) {
    for p in child["path"].as_array().unwrap() {
        click_point(c, p.as_str().unwrap()).await;
    }
    let now = settled(c, Some(from)).await;
    assert_eq!(
        now,
        child["fen"].as_str().unwrap(),
        "after clicking {}",
        child["move"]
    );
}

/// Clicks the element with this id.
async fn click_id(c: &Client, id: &str) {
    c.find(Locator::Id(id))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn screenshot(c: &Client, game: &str) {
    let png = c.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("serve-{game}.png")), png).unwrap();
}

async fn mill(c: &Client, server: &Server) {
    let port = server.port;
    let rules = "variant=six-mens-morris";
    let base = format!("{}/?game=mill&{rules}", server.url());
    c.goto(&base).await.unwrap();
    let start = settled(c, None).await;
    assert_eq!(start, "********/******** w p p 0 6 0 6 0 0 0 0 0 0 0 0 1");
    check_list(c, port, "mill", rules, &start).await;
    // A placement by a click.
    let kids = children(port, "mill", rules, &start);
    let c4 = kids.iter().find(|k| k["move"] == "c4").unwrap();
    click_move(c, c4, &start).await;
    let after = c4["fen"].as_str().unwrap();
    check_list(c, port, "mill", rules, after).await;
    // The back button walks back; the shared URL of a position shows it again.
    c.back().await.unwrap();
    assert_eq!(settled(c, Some(after)).await, start);
    c.forward().await.unwrap();
    assert_eq!(settled(c, Some(&start)).await, after);
    let url = c.current_url().await.unwrap().to_string();
    assert!(url.contains("fen="), "{url}");
    c.goto(&format!("{}/", server.url())).await.unwrap();
    settled(c, None).await;
    c.goto(&url).await.unwrap();
    assert_eq!(settled(c, None).await, after);
    check_list(c, port, "mill", rules, after).await;

    // A slide that closes a mill and removes a stone: three clicks.
    let fens = sample(
        "mill",
        served_tables(),
        300,
        &["--variant", "six-mens-morris", "--sector", "4,4,0,0"],
    );
    let (fen, mv) = fens
        .iter()
        .find_map(|f| {
            let k = children(port, "mill", rules, f);
            let m = k
                .into_iter()
                .find(|k| k["path"].as_array().unwrap().len() == 3)?;
            Some((f.clone(), m))
        })
        .expect("a position with a removing slide");
    c.goto(&format!("{base}&fen={}", enc(&fen))).await.unwrap();
    assert_eq!(settled(c, None).await, fen);
    check_list(c, port, "mill", rules, &fen).await;
    click_move(c, &mv, &fen).await;
    check_list(c, port, "mill", rules, mv["fen"].as_str().unwrap()).await;

    // A bad position text: an error, and the board stays.
    let box_ = c.find(Locator::Id("fen")).await.unwrap();
    box_.clear().await.unwrap();
    box_.send_keys("not a position").await.unwrap();
    click_id(c, "load").await;
    let t = Instant::now();
    let err = loop {
        let e = c.find(Locator::Id("error")).await.unwrap();
        if e.is_displayed().await.unwrap() {
            break e.text().await.unwrap();
        }
        assert!(t.elapsed() < Duration::from_secs(20), "no error shown");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(err.starts_with("fen:"), "{err}");
    let shapes = c
        .execute(
            "return document.querySelectorAll('#board *').length",
            vec![],
        )
        .await
        .unwrap();
    assert!(shapes.as_u64().unwrap() > 16, "the board is still drawn");

    // Perfect play from a won position plays it out to the end, the winner winning.
    let won = fens
        .iter()
        .find(|f| {
            let a = get(port, &format!("/api/mill?{rules}&fen={}", enc(f))).json();
            a["result"] == "win" && a["plies"].as_u64().is_some_and(|p| (3..=9).contains(&p))
        })
        .expect("a short win")
        .clone();
    let a = get(port, &format!("/api/mill?{rules}&fen={}", enc(&won))).json();
    let mover = if won.split(' ').nth(1) == Some("w") {
        "white"
    } else {
        "black"
    };
    c.goto(&format!("{base}&fen={}", enc(&won))).await.unwrap();
    settled(c, None).await;
    click_id(c, "play").await;
    let t = Instant::now();
    let status = loop {
        let s = c
            .find(Locator::Id("status"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if s.starts_with("Game over") {
            break s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "perfect play did not end: {s}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        status.contains(&format!("{mover} wins")),
        "{status} (from {won}, {a})"
    );
    let plies = c.execute("return history.length", vec![]).await.unwrap();
    assert!(plies.as_u64().unwrap() >= a["plies"].as_u64().unwrap());
    // The screenshot: the position with the removing slide, its first point clicked.
    c.goto(&format!("{base}&fen={}", enc(&fen))).await.unwrap();
    settled(c, None).await;
    click_point(c, mv["path"][0].as_str().unwrap()).await;
    screenshot(c, "mill").await;
}

async fn dara(c: &Client, server: &Server) {
    let port = server.port;
    let base = format!("{}/?game=dara", server.url());
    // A drop from the start (values from a search: only the move is checked).
    c.goto(&base).await.unwrap();
    let start = settled(c, None).await;
    let kids = children(port, "dara", "", &start);
    let c3 = kids.iter().find(|k| k["move"] == "c3").unwrap();
    click_move(c, c3, &start).await;
    // Positions of the 3 against 3 table: the values are the table's.
    for fen in sample("dara", served_tables(), 8, &[]) {
        c.goto(&format!("{base}&fen={}", enc(&fen))).await.unwrap();
        assert_eq!(settled(c, None).await, fen);
        let a = check_list(c, port, "dara", "", &fen).await;
        assert_eq!(a["source"], "tables");
        let notice = c.find(Locator::Id("notice")).await.unwrap();
        assert!(
            !notice.is_displayed().await.unwrap(),
            "no out-of-table notice for {fen}"
        );
    }
    // A step that makes a three and removes a stone: three clicks.
    let (fen, mv) = sample("dara", served_tables(), 60, &[])
        .into_iter()
        .find_map(|f| {
            let k = children(port, "dara", "", &f);
            let m = k
                .into_iter()
                .find(|k| k["path"].as_array().unwrap().len() == 3)?;
            Some((f, m))
        })
        .expect("a position with a capture");
    let mv = &mv;
    c.goto(&format!("{base}&fen={}", enc(&fen))).await.unwrap();
    settled(c, None).await;
    click_move(c, mv, &fen).await;
    check_list(c, port, "dara", "", mv["fen"].as_str().unwrap()).await;
    screenshot(c, "dara").await;
}

async fn oaq(c: &Client, server: &Server) {
    let port = server.port;
    let rules = "rule=seeds%3D1%2C1";
    c.goto(&format!("{}/?game=oaq&{rules}", server.url()))
        .await
        .unwrap();
    let start = settled(c, None).await;
    assert_eq!(start, "1,1,1,1,1,1,1,1,1,1,1,1 s 0 0 1");
    let a = check_list(c, port, "oaq", rules, &start).await;
    assert_eq!(a["source"], "table");
    let value = c
        .find(Locator::Id("value"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        value.contains(&format!("{} future net seeds", a["score"])),
        "{value}"
    );
    // Cell 1, then cell 2: the move 1+.
    let kids = children(port, "oaq", rules, &start);
    let one = kids.iter().find(|k| k["move"] == "1+").unwrap();
    assert_eq!(one["path"], json!(["1", "2"]));
    click_move(c, one, &start).await;
    let after = one["fen"].as_str().unwrap();
    check_list(c, port, "oaq", rules, after).await;
    // North answers with a click on a cell of theirs and the next one down the ring.
    let kids = children(port, "oaq", rules, after);
    let reply = kids
        .iter()
        .find(|k| k["move"].as_str().unwrap().ends_with('-'))
        .unwrap();
    click_move(c, reply, after).await;
    c.back().await.unwrap();
    assert_eq!(
        settled(c, Some(reply["fen"].as_str().unwrap())).await,
        after
    );
    screenshot(c, "oaq").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_plays_the_three_games_in_a_real_browser() {
    let server = Server::start(served_tables(), &[]);
    let driver = start_driver();
    let c = browser(&driver).await;
    mill(&c, &server).await;
    dara(&c, &server).await;
    oaq(&c, &server).await;
    c.close().await.unwrap();
}
