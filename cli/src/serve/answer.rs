//! What a request asks, answered: each game's analysis through the functions `retro analyse`
//! uses, the board view of the page, and a cache of open tables per rule set.

use super::api_error::ApiError;
use super::params::Params;
use super::Limits;
use crate::args::RuleArgs;
use crate::games::oaq::Solved;
use crate::games::{dara as dara_game, mill as mill_game, oaq as oaq_game};
use retro_engine::mill::Profile;
use retro_solver::dara::rules::DaraRules;
use retro_solver::dara::search::Tables;
use retro_solver::mill::Db as MillDb;
use retro_solver::oaq::index::OaqIndex;
use retro_solver::search::Limits as SearchLimits;
use retro_solver::sectors::db::{Db as SectorDb, ProbeError};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

/// Rule sets whose tables stay open at once; a request for another drops them all.
const CACHED_RULE_SETS: usize = 64;

/// A game the server knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Game {
    /// Mill games (`/api/mill`).
    Mill,
    /// Dara (`/api/dara`).
    Dara,
    /// Ô Ăn Quan (`/api/oaq`).
    Oaq,
}

impl Game {
    /// The game of a path segment.
    pub fn parse(s: &str) -> Option<Game> {
        match s {
            "mill" => Some(Game::Mill),
            "dara" => Some(Game::Dara),
            "oaq" => Some(Game::Oaq),
            _ => None,
        }
    }
}

/// Open tables of one rule set.
enum Open {
    Mill(Arc<MillDb>),
    Dara(DaraOpen),
    Oaq(Arc<(retro_engine::oaq::Oaq, Option<Solved>)>),
}

/// Dara's game and its endgame tables. The table handle borrows its `Db`, which is kept for
/// the life of the process: one per distinct rule profile, and Dara has four.
type DaraOpen = Arc<(retro_engine::dara::Dara, Tables<'static>)>;

/// What every request shares: where the tables are, the open ones, the limits.
pub struct State {
    /// The tables' directory (`--dir`).
    pub dir: PathBuf,
    /// The server's limits.
    pub limits: Limits,
    /// The threads that run the analyses (table probes and searches block): a fixed pool, so
    /// that each keeps its decoded-block cache warm and memory stays flat.
    pub pool: rayon::ThreadPool,
    /// Analyses queued or running at once; more wait their turn without holding a thread.
    pub workers: Arc<Semaphore>,
    open: Mutex<HashMap<(Game, String), Open>>,
    /// Dara's databases by rule fingerprint, never dropped (at most four).
    dara_dbs: Mutex<HashMap<String, &'static SectorDb<DaraRules>>>,
}

/// A position text that does not parse.
fn bad_fen(e: crate::error::CliError) -> ApiError {
    ApiError::bad("fen", e.message)
}

/// A rule error, named by the field that holds it.
fn rule_error(rules: &RuleArgs, e: crate::error::CliError) -> ApiError {
    let field = match &rules.variant {
        Some(v) if Profile::preset(v).is_err() || e.message.contains("--variant") => "variant",
        _ => "rule",
    };
    ApiError::bad(
        field,
        e.message
            .replace("--variant", "variant")
            .replace("--rule", "rule"),
    )
}

/// A principal variation asked of tables kept without distances (`--wdl-only`): the request's
/// fault (400 on `pv`), not the server's.
fn no_distances(e: &ProbeError) -> Option<ApiError> {
    e.no_distances().then(|| {
        ApiError::bad(
            "pv",
            "these tables keep win/draw/loss alone (compressed with --wdl-only): no principal \
             variation (ask without pv)",
        )
    })
}

impl State {
    /// A server's state: `2 * threads` analysis threads (twice the event-loop threads, so that
    /// a slow search does not stall the probes), as many analyses at once.
    pub fn new(dir: PathBuf, threads: usize, limits: Limits) -> Result<Arc<State>, String> {
        let n = 2 * threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("analysis-{i}"))
            .build()
            .map_err(|e| format!("cannot start the analysis threads: {e}"))?;
        Ok(Arc::new(State {
            dir,
            limits,
            pool,
            workers: Arc::new(Semaphore::new(n)),
            open: Mutex::new(HashMap::new()),
            dara_dbs: Mutex::new(HashMap::new()),
        }))
    }

    /// The open tables of a rule profile (by its fingerprint), opened on first use.
    fn cached<T>(
        &self,
        game: Game,
        fingerprint: String,
        get: impl Fn(&Open) -> Option<T>,
        make: impl FnOnce() -> Result<Open, ApiError>,
    ) -> Result<T, ApiError> {
        let k = (game, fingerprint);
        let lock = || self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = lock().get(&k).and_then(&get) {
            return Ok(t);
        }
        let made = make()?;
        let t = get(&made).expect("made for this game");
        let mut map = lock();
        if map.len() >= CACHED_RULE_SETS {
            map.clear();
        }
        map.insert(k, made);
        Ok(t)
    }

    fn mill(&self, rules: &RuleArgs) -> Result<Arc<MillDb>, ApiError> {
        let m = mill_game::game(rules).map_err(|e| rule_error(rules, e))?;
        if let Some(why) = retro_solver::mill::sectors::unsupported(&m.profile) {
            return Err(ApiError::bad(
                "variant",
                format!("{} has no tables: {why}", rules.mill_variant()),
            ));
        }
        let get = |o: &Open| match o {
            Open::Mill(d) => Some(d.clone()),
            _ => None,
        };
        let fp = m.profile.fingerprint();
        self.cached(Game::Mill, fp, get, || {
            Ok(Open::Mill(Arc::new(MillDb::new(m, &self.dir))))
        })
    }

    fn dara(&self, rules: &RuleArgs) -> Result<DaraOpen, ApiError> {
        let g = dara_game::game(rules).map_err(|e| rule_error(rules, e))?;
        let get = |o: &Open| match o {
            Open::Dara(d) => Some(d.clone()),
            _ => None,
        };
        let fp = g.profile.fingerprint();
        self.cached(Game::Dara, fp.clone(), get, || {
            let mut dbs = self.dara_dbs.lock().unwrap_or_else(|e| e.into_inner());
            let db: &'static SectorDb<DaraRules> = dbs.entry(fp).or_insert_with(|| {
                Box::leak(Box::new(SectorDb::with_rules(
                    DaraRules { game: g.clone() },
                    &self.dir,
                )))
            });
            Ok(Open::Dara(Arc::new((g, Tables::open(db)))))
        })
    }

    fn oaq(
        &self,
        rules: &RuleArgs,
    ) -> Result<Arc<(retro_engine::oaq::Oaq, Option<Solved>)>, ApiError> {
        let g = oaq_game::game(rules).map_err(|e| rule_error(rules, e))?;
        let get = |o: &Open| match o {
            Open::Oaq(d) => Some(d.clone()),
            _ => None,
        };
        let fp = g.profile.fingerprint();
        self.cached(Game::Oaq, fp, get, || {
            let table = oaq_game::open_table(&g, &self.dir)
                .map_err(|e| ApiError::Internal(e.to_string()))?
                .map(|t| (t, OaqIndex::new(&g)));
            Ok(Open::Oaq(Arc::new((g, table))))
        })
    }

    /// The search limits of a request: `retro analyse`'s for its `depth` and `time`, the time at
    /// most `--max-search-time` (also when only a depth is given, which the CLI leaves unbounded).
    fn search_limits(&self, p: &Params) -> SearchLimits {
        let max = std::time::Duration::from_secs_f64(self.limits.max_search);
        let capped = p.time.map(|t| t.min(self.limits.max_search));
        let mut l =
            crate::output::limits(p.depth, capped).expect("a positive time of at most a minute");
        l.time = Some(l.time.map_or(max, |t| t.min(max)));
        l
    }

    /// The analysis of one position: what `retro analyse GAME --json` prints for it.
    pub fn analyse(&self, game: Game, p: &Params) -> Result<Value, ApiError> {
        let rules = p.rule_args();
        let limits = self.search_limits(p);
        match game {
            Game::Mill => {
                let m = mill_game::game(&rules).map_err(|e| rule_error(&rules, e))?;
                if let Some(why) = retro_solver::mill::sectors::unsupported(&m.profile) {
                    // No tables: a small endgame is solved exactly from its own closure.
                    if p.pv {
                        return Err(ApiError::bad(
                            "pv",
                            format!(
                                "{} has no tables ({why}): no principal variation",
                                rules.mill_variant()
                            ),
                        ));
                    }
                    let pos = mill_game::position(&m, p.fen.as_deref()).map_err(bad_fen)?;
                    // As `analyse mill --search` answers (search=1).
                    let db = MillDb::new(m, &self.dir);
                    let search = p.search.then_some(limits);
                    let variant = rules.mill_variant();
                    return crate::analyse::mill::closure_or_search(
                        &db, &pos, variant, why, search,
                    )
                    .map_err(|e| match e.code {
                        2 => ApiError::bad("fen", e.message),
                        _ => ApiError::Internal(e.message),
                    });
                }
                let db = self.mill(&rules)?;
                let pos = mill_game::position(db.game(), p.fen.as_deref()).map_err(bad_fen)?;
                // `analyse mill --search` over HTTP: the same function.
                let search = p.search.then_some(limits);
                crate::analyse::mill::analyse_or_search(&db, &pos, p.pv, search)
                    .map_err(|e| self.mill_error(&db, &rules, e))
            }
            Game::Dara => {
                let open = self.dara(&rules)?;
                let (g, tables) = &*open;
                let pos = dara_game::position(g, p.fen.as_deref()).map_err(bad_fen)?;
                crate::analyse::dara::analysis_json(g, tables, &pos, p.pv, limits)
                    .map_err(|e| no_distances(&e).unwrap_or(ApiError::Internal(e.to_string())))
            }
            Game::Oaq => {
                let open = self.oaq(&rules)?;
                let (g, table) = &*open;
                let pos = oaq_game::position(g, p.fen.as_deref()).map_err(bad_fen)?;
                crate::analyse::oaq::analysis_json(g, table.as_ref(), &pos, p.pv, limits)
                    .map_err(|e| ApiError::Internal(e.to_string()))
            }
        }
    }

    /// A Mill probe error as a reply: a missing table is 503 with the command that builds it.
    fn mill_error(&self, db: &MillDb, rules: &RuleArgs, e: ProbeError) -> ApiError {
        match e {
            ProbeError::Missing { sector, .. } => {
                let variant = rules.mill_variant();
                let mut solve = format!("retro solve mill --variant {variant}");
                for r in &rules.rules {
                    solve.push_str(&format!(" --rule {r}"));
                }
                solve.push_str(&format!(
                    " --sector {},{},{},{}",
                    sector.w, sector.b, sector.wf, sector.bf
                ));
                // Into the folder this server reads.
                solve.push_str(&format!(" --dir {}", self.dir.display()));
                let message = crate::solve::missing::probe_err(db, variant, &self.dir, e).message;
                ApiError::Missing { message, solve }
            }
            ProbeError::RemovalPending => ApiError::bad(
                "fen",
                "a removal is pending: no table holds such a position (ask with search=1)",
            ),
            e => no_distances(&e).unwrap_or(ApiError::Internal(e.to_string())),
        }
    }

    /// The page's view of a position: the state `retro moves --json` prints, the board to draw
    /// and every move with the position it leads to. It needs no table, so it answers for
    /// variants the solver does not cover too.
    pub fn board(&self, game: Game, p: &Params) -> Result<Value, ApiError> {
        let rules = p.rule_args();
        let bad_rule = |e| rule_error(&rules, e);
        let fen = p.fen.as_deref();
        Ok(match game {
            Game::Mill => {
                let m = mill_game::game(&rules).map_err(bad_rule)?;
                let pos = mill_game::position(&m, fen).map_err(bad_fen)?;
                json!({
                    "game": "mill",
                    "variant": rules.mill_variant(),
                    // Whether a table can hold this position's sector under these rules.
                    "solvable": retro_solver::mill::sectors::unsupported_sector(
                        &m.profile,
                        retro_solver::sectors::folded::Folded::from_position(&pos).key(),
                    )
                    .is_none(),
                    "state": mill_game::state_json(&m, &pos, false),
                    "board": mill_game::board_json(&m, &pos),
                    "children": mill_game::children_json(&m, &pos),
                })
            }
            Game::Dara => {
                let g = dara_game::game(&rules).map_err(bad_rule)?;
                let pos = dara_game::position(&g, fen).map_err(bad_fen)?;
                json!({
                    "game": "dara",
                    "state": dara_game::state_json(&g, &pos),
                    "board": dara_game::board_json(&pos),
                    "children": dara_game::children_json(&g, &pos),
                })
            }
            Game::Oaq => {
                let g = oaq_game::game(&rules).map_err(bad_rule)?;
                let pos = oaq_game::position(&g, fen).map_err(bad_fen)?;
                json!({
                    "game": "oaq",
                    "state": oaq_game::state_json(&g, &pos),
                    "board": oaq_game::board_json(&pos),
                    "children": oaq_game::children_json(&g, &pos),
                })
            }
        })
    }
}
