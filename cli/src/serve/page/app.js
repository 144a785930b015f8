// retro's web page: draws the position the URL names, lists every move with its value from
// the server's API (/api/board/GAME for the board and the moves, /api/GAME for the values),
// and moves by clicks on the board or on the list. The URL carries game, variant, rules and
// position, so a page can be shared and the browser's back button walks back.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

const page = {
  game: "mill",
  variant: "nine-mens-morris",
  rules: [],
  fen: null,
  view: null, // the /api/board answer
  analysis: null, // the /api/GAME answer (or null)
  clicks: [], // points clicked so far toward a move
  autoplay: null, // the perfect-play timer
  seq: 0, // the load in flight (older answers are dropped)
};

function readUrl() {
  const u = new URLSearchParams(location.search);
  page.game = ["mill", "dara", "oaq"].includes(u.get("game")) ? u.get("game") : "mill";
  page.variant = u.get("variant") || "nine-mens-morris";
  page.rules = u.getAll("rule");
  page.fen = u.get("fen");
}

function query(extra) {
  const u = new URLSearchParams();
  if (page.game === "mill") u.set("variant", page.variant);
  for (const r of page.rules) u.append("rule", r);
  if (page.fen) u.set("fen", page.fen);
  for (const [k, v] of Object.entries(extra || {})) u.set(k, v);
  return u;
}

function pageUrl() {
  const u = query();
  u.set("game", page.game);
  return "?" + u.toString();
}

function go(fen, push = true) {
  page.fen = fen;
  page.clicks = [];
  if (push) history.pushState(null, "", pageUrl());
  load();
}

async function getJson(url) {
  const r = await fetch(url);
  let body;
  try {
    body = await r.json();
  } catch (e) {
    body = { error: "the server's answer is not JSON (" + r.status + ")" };
  }
  return { status: r.status, body };
}

function showError(text) {
  const e = $("error");
  e.textContent = text || "";
  e.hidden = !text;
}

async function load() {
  const seq = ++page.seq;
  document.body.dataset.ready = "0";
  syncControls();
  const board = await getJson("/api/board/" + page.game + "?" + query());
  if (seq !== page.seq) return;
  if (board.status !== 200) {
    showError(board.body.error || "error " + board.status);
    stopAutoplay();
    document.body.dataset.ready = "1";
    return;
  }
  showError("");
  page.view = board.body;
  page.analysis = null;
  drawBoard();
  $("fen").value = fenOf(page.view);
  document.body.dataset.fen = fenOf(page.view);
  renderStatus();
  renderMoves();
  const limits = page.game === "mill" ? {} : { time: "1" };
  let a = await getJson("/api/" + page.game + "?" + query(limits));
  if (seq !== page.seq) return;
  let notice = "";
  if (a.status === 503) {
    notice = "This position is outside the solved tables.\n" + a.body.error.split("\n")[0] +
      "\nBuild them with:";
    $("notice").dataset.solve = a.body.solve || "";
    a = await getJson("/api/" + page.game + "?" + query({ search: "1", time: "1" }));
    if (seq !== page.seq) return;
    if (a.status === 200) notice += "\n(The values below come from a search: not proven unless marked so.)";
  } else if (a.status === 200 && a.body.source === "search") {
    notice = a.body.proven
      ? "Outside the solved tables: a search proved this value."
      : "Outside the solved tables: the values below come from a search, not proven.";
  }
  if (a.status === 200) {
    page.analysis = a.body;
  } else if (a.status !== 503) {
    notice = (notice ? notice + "\n" : "") + (a.body.error || "error " + a.status);
  }
  showNotice(notice, a.status === 503 || notice.startsWith("This position"));
  renderStatus();
  renderMoves();
  document.body.dataset.ready = "1";
  if (page.autoplay) scheduleAutoplay();
}

function fenOf(view) {
  return view.state.fen || view.state.position;
}

function showNotice(text, withSolve) {
  const n = $("notice");
  n.textContent = text;
  if (withSolve && n.dataset.solve) {
    const c = document.createElement("code");
    c.textContent = n.dataset.solve;
    n.appendChild(c);
  }
  n.hidden = !text;
}

// ---- values ----

function rank(m) {
  // Higher is better for the side that makes the move.
  if (m.score !== undefined && m.result === undefined) return m.score;
  if (m.result === "win") return 1e6 - (m.plies ?? 0);
  if (m.result === "loss") return -1e6 + (m.plies ?? 0);
  if (m.result === "unknown") return m.score ?? 0;
  return 0;
}

function valueText(v) {
  if (!v) return "";
  if (v.result === undefined) return (v.score > 0 ? "+" : "") + v.score + " seeds";
  return v.result;
}

function distanceText(v) {
  if (!v) return "";
  if (v.result === undefined) return "";
  if (v.plies !== null && v.plies !== undefined) return v.plies + " plies";
  if (v.result === "unknown" && v.score !== undefined) return "score " + v.score;
  return "";
}

function renderStatus() {
  const s = page.view.state;
  const side = s.side;
  let text;
  if (s.game_over) {
    text = s.game_over.winner ? "Game over: " + s.game_over.winner + " wins" : "Game over: a draw";
    if (s.game_over.reason) text += " (" + s.game_over.reason + ")";
  } else {
    text = side[0].toUpperCase() + side.slice(1) + " to move" + (s.phase ? " (" + s.phase + ")" : "");
  }
  $("status").textContent = text;
  const a = page.analysis;
  const v = $("value");
  v.className = "";
  if (!a) {
    v.textContent = "";
    v.removeAttribute("data-result");
    return;
  }
  const src = a.source === "search" ? (a.proven ? " (search, proven)" : " (search, not proven)") : "";
  if (a.result === undefined) {
    v.textContent = "Value: " + (a.score > 0 ? "+" : "") + a.score + " future net seeds for " + side + src;
    v.dataset.result = String(a.score);
  } else {
    const d = a.plies !== null && a.plies !== undefined ? " in " + a.plies + " plies" : "";
    v.textContent = "Value: " + a.result + d + " for " + side + src;
    v.className = a.result;
    v.dataset.result = a.result;
  }
}

function renderMoves() {
  const body = $("moves").tBodies[0];
  body.textContent = "";
  const values = new Map();
  if (page.analysis) for (const m of page.analysis.moves || []) values.set(m.move, m);
  const best = new Set(page.analysis ? page.analysis.best || [] : []);
  const rows = page.view.children.map((c) => ({ c, v: values.get(c.move) }));
  rows.sort((x, y) => (y.v ? rank(y.v) : -2e6) - (x.v ? rank(x.v) : -2e6) || (x.c.move < y.c.move ? -1 : x.c.move > y.c.move ? 1 : 0));
  for (const { c, v } of rows) {
    const tr = document.createElement("tr");
    tr.dataset.move = c.move;
    if (best.has(c.move)) tr.className = "best";
    const cls = v ? (v.result || (v.score > 0 ? "win" : v.score < 0 ? "loss" : "draw")) : "";
    for (const [text, name] of [[c.move, "move"], [valueText(v), "result"], [distanceText(v), "plies"]]) {
      const td = document.createElement("td");
      td.textContent = text;
      td.className = name + (name !== "move" && cls ? " " + cls : "");
      tr.appendChild(td);
    }
    tr.addEventListener("click", () => go(c.fen));
    body.appendChild(tr);
  }
}

// ---- the board ----

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function candidates(prefix) {
  return page.view.children.filter((c) => prefix.every((p, i) => c.path[i] === p));
}

function onPoint(name) {
  if (!page.view) return;
  stopAutoplay();
  let prefix = [...page.clicks, name];
  let cands = candidates(prefix);
  if (cands.length === 0) {
    prefix = [name];
    cands = candidates(prefix);
    if (cands.length === 0) {
      page.clicks = [];
      drawBoard();
      return;
    }
  }
  const exact = cands.filter((c) => c.path.length === prefix.length);
  if (exact.length > 0 && (cands.length === exact.length || exact.length === 1)) {
    go(exact[0].fen);
    return;
  }
  page.clicks = prefix;
  drawBoard();
}

function drawBoard() {
  const svg = $("board");
  svg.textContent = "";
  // Where the move being clicked together can go on (nothing marked before the first click).
  const targets = new Set();
  for (const c of page.clicks.length ? candidates(page.clicks) : []) {
    if (c.path.length > page.clicks.length) targets.add(c.path[page.clicks.length]);
  }
  const selected = new Set(page.clicks);
  if (page.view.game === "oaq") drawOaq(svg, targets, selected);
  else drawGrid(svg, targets, selected);
  const b = page.view.board;
  const hand = $("hand");
  if (b.hand) {
    hand.textContent = "In hand: white " + b.hand.white + ", black " + b.hand.black;
  } else {
    hand.textContent = "Stores: south " + b.stores.south + ", north " + b.stores.north;
  }
}

function drawGrid(svg, targets, selected) {
  const b = page.view.board;
  const cols = b.size;
  const rows = page.view.game === "dara" ? 5 : b.size;
  const step = 84 / Math.max(cols - 1, rows - 1);
  const w = 16 + step * (cols - 1);
  const h = 16 + step * (rows - 1);
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  const at = (p) => [8 + p.x * step, 8 + (rows - 1 - p.y) * step];
  const byName = new Map(b.points.map((p) => [p.name, p]));
  for (const [a, c] of b.lines) {
    const [x1, y1] = at(byName.get(a));
    const [x2, y2] = at(byName.get(c));
    el("line", { x1, y1, x2, y2, class: "line" }, svg);
  }
  const r = Math.min(step * 0.32, 4.2);
  for (const p of b.points) {
    const [cx, cy] = at(p);
    const g = el("g", { "data-point": p.name }, svg);
    el("circle", { cx, cy, r: r * 0.28, class: "spot" }, g);
    if (p.stone) el("circle", { cx, cy, r, class: "stone-" + p.stone }, g);
    if (p.marked) {
      el("line", { x1: cx - r, y1: cy - r, x2: cx + r, y2: cy + r, class: "mark" }, g);
      el("line", { x1: cx - r, y1: cy + r, x2: cx + r, y2: cy - r, class: "mark" }, g);
    }
    if (targets.has(p.name)) el("circle", { cx, cy, r: r * 1.15, class: "target" }, g);
    if (selected.has(p.name)) el("circle", { cx, cy, r: r * 1.15, class: "selected" }, g);
    const label = el("text", { x: cx + r * 0.9, y: cy + r * 1.6, class: "label" }, g);
    label.textContent = p.name;
    const hit = el("circle", { cx, cy, r: r * 1.25, class: "hit" }, g);
    hit.addEventListener("click", () => onPoint(p.name));
  }
}

function drawOaq(svg, targets, selected) {
  const b = page.view.board;
  const cw = 13;
  svg.setAttribute("viewBox", "0 0 " + (cw * 7 + 4) + " " + (cw * 3 + 14));
  const top = 7;
  for (const c of b.cells) {
    const g = el("g", { "data-point": c.name }, svg);
    let x, y, w, h;
    if (c.mandarin) {
      x = 2 + c.x * cw;
      y = top;
      w = cw;
      h = cw * 3;
    } else {
      x = 2 + c.x * cw;
      y = top + (c.y === 0 ? 0 : 1.5 * cw);
      w = cw;
      h = 1.5 * cw;
    }
    const rect = el("rect", { x, y, width: w, height: h, rx: c.mandarin ? 6 : 1.5, class: "cell" }, g);
    if (c.big) el("circle", { cx: x + w / 2, cy: y + h / 2 - 5, r: 2.2, class: "big" }, g);
    const t = el("text", { x: x + w / 2, y: y + h / 2 + (c.big ? 2 : 0), class: "seeds" }, g);
    t.textContent = String(c.seeds);
    const l = el("text", { x: x + w / 2, y: y + h - 1.5, class: "label" }, g);
    l.textContent = c.name;
    if (targets.has(c.name)) el("rect", { x: x + 0.8, y: y + 0.8, width: w - 1.6, height: h - 1.6, class: "target" }, g);
    if (selected.has(c.name)) el("rect", { x: x + 0.8, y: y + 0.8, width: w - 1.6, height: h - 1.6, class: "selected" }, g);
    rect.addEventListener("click", () => onPoint(c.name));
  }
  const north = el("text", { x: 2 + 3.5 * cw, y: 4.5, class: "label" }, svg);
  north.textContent = "North (store " + b.stores.north + ")";
  const south = el("text", { x: 2 + 3.5 * cw, y: top + 3 * cw + 4.5, class: "label" }, svg);
  south.textContent = "South (store " + b.stores.south + ")";
}

// ---- perfect play ----

function stopAutoplay() {
  if (page.autoplay) clearTimeout(page.autoplay);
  page.autoplay = null;
  $("play").classList.remove("on");
  $("play").textContent = "▶ Perfect play";
}

function scheduleAutoplay() {
  if (page.autoplay) clearTimeout(page.autoplay);
  page.autoplay = setTimeout(() => {
    const a = page.analysis;
    const next = a && a.best && a.best[0];
    const child = next && page.view.children.find((c) => c.move === next);
    if (!child) {
      stopAutoplay();
      return;
    }
    go(child.fen);
  }, 600);
}

function toggleAutoplay() {
  if (page.autoplay) {
    stopAutoplay();
    return;
  }
  $("play").classList.add("on");
  $("play").textContent = "■ Stop";
  page.autoplay = -1;
  scheduleAutoplay();
}

// ---- controls ----

function syncControls() {
  $("game").value = page.game;
  $("variant-box").hidden = page.game !== "mill";
  if ([...$("variant").options].some((o) => o.value === page.variant)) $("variant").value = page.variant;
  $("rules").value = page.rules.join(" ");
}

async function fillVariants() {
  const r = await getJson("/api/variants");
  const sel = $("variant");
  if (r.status !== 200) return;
  for (const v of r.body.variants) {
    const o = document.createElement("option");
    o.value = v.name;
    o.textContent = v.name;
    o.title = v.note;
    sel.appendChild(o);
  }
  syncControls();
}

function applyRules() {
  page.game = $("game").value;
  page.variant = $("variant").value || "nine-mens-morris";
  page.rules = $("rules").value.split(/\s+/).filter((s) => s);
  stopAutoplay();
  go(null);
}

$("game").addEventListener("change", () => {
  $("rules").value = "";
  applyRules();
});
$("variant").addEventListener("change", applyRules);
$("apply").addEventListener("click", applyRules);
$("back").addEventListener("click", () => history.back());
$("start").addEventListener("click", () => {
  stopAutoplay();
  go(null);
});
$("play").addEventListener("click", toggleAutoplay);
$("clear").addEventListener("click", () => {
  page.clicks = [];
  if (page.view) drawBoard();
});
$("load").addEventListener("click", () => {
  stopAutoplay();
  go($("fen").value.trim() || null);
});
window.addEventListener("popstate", () => {
  stopAutoplay();
  readUrl();
  page.clicks = [];
  load();
});

readUrl();
fillVariants();
load();
