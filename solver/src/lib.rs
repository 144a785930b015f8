//! Retrograde analysis of the three game families into tables, and the searches that use them.
//!
//! - [`sectors`]: the generic sector solver (Mill and Dara): positions indexed by material
//!   (sectors), retrograde analysis of a unit, the driver that solves sectors in order and
//!   resumes, and probing the tables by position.
//! - [`mill`], [`dara`]: each game's glue for the sector solver (rules adapter, move generator)
//!   and its search.
//! - [`oaq`]: Ô Ăn Quan, a score game with cycles: its index, the two score solvers, their
//!   checkpoints, the compact table writer and probing by position.
//! - [`search`]: what the three games' searches share.
//!
//! The table formats themselves are the `retro_tables` crate.
//!
//! Probing a Mill position from another program, in the tables `retro solve` wrote (raw,
//! compressed or derived alike; a missing or damaged table is an `Err`, never a wrong value):
//!
//! ```no_run
//! use retro_engine::mill::{Mill, Profile};
//! use retro_solver::sectors::db::Db;
//! use retro_tables::Value;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let game = Mill::new(Profile::preset("nine-mens-morris")?);
//! let pos = game.parse_fen("********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1")?;
//! // The tables of these rules under databases/ (their folder is named by the rules), opened
//! // lazily, one by one, as probes reach them; the `Db` is shared between threads.
//! let db = Db::new(game, std::path::Path::new("databases"));
//! match db.value(&pos)? {
//!     Value::Win(d) => println!("the side to move wins in {d} plies"),
//!     Value::Loss(d) => println!("the side to move loses in {d} plies"),
//!     Value::Draw => println!("draw"),
//! }
//! // Win/draw/loss alone (all that a `--wdl-only` folder holds), and the value of each move.
//! println!("{:?}", db.wdl(&pos)?);
//! let mut moves = Vec::new();
//! db.game().moves(&pos, &mut moves);
//! for (mv, next) in &moves {
//!     let v = retro_solver::mill::probe::move_value(&db, &pos, next)?;
//!     println!("{} {v:?}", db.game().format_move(mv));
//! }
//! # Ok(()) }
//! ```

// Every public item is documented (the guide asks for a line each).
#![warn(missing_docs)]

pub mod dara;
pub mod mill;
pub mod oaq;
pub mod search;
pub mod sectors;
