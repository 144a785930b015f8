//! The retro table formats, and everything a program needs to read them: the on-disk layout
//! (header frame, checksum trailer, value encodings), atomic writing, memory-mapped reading,
//! verification, and probing a value by sector and slot, raw or compressed. It knows no solver
//! and no terminal and depends only on `memmap2`, `zstd-safe` (the block coder of compressed
//! tables) and `libc` (a huge-page hint): a GUI, a phone app or an engine embeds this crate to
//! read the tables `retro solve` and `retro compress` write. (Turning a position into its slot
//! is the solver's index, `retro_solver::sectors::index`; `retro_solver`'s crate documentation shows
//! a program probing a Mill position by its FEN.) `databases/README.md` documents the byte layout.
//!
//! Probing a sector table:
//!
//! ```no_run
//! use retro_tables::{Table, Value};
//! # fn main() -> Result<(), retro_tables::TableError> {
//! let path = std::path::Path::new("databases/mill-6384cbd62f7cb52c/sector_3_3_0_0.rtb");
//! // SAFETY: nothing modifies the file in place while it is mapped (see `Table::open`).
//! let table = unsafe { Table::open(path) }?; // maps; checks length, header, its checksum
//! // The slot's 4 KiB block is checked (its checksum) when first read: damaged, it is an Err.
//! match table.value(12_345)? {
//!     Some(Value::Win(d)) => println!("win in {d} plies"),
//!     Some(Value::Loss(d)) => println!("loss in {d} plies"),
//!     Some(Value::Draw) => println!("draw"),
//!     None => println!("no position in this slot"),
//! }
//! # Ok(()) }
//! ```

// Every public item is documented (the guide asks for a line each).
#![warn(missing_docs)]

pub mod any_table;
pub mod block_file;
pub mod checksum;
pub mod compressed_table;
pub mod derived_table;
pub mod dtm_rans;
pub mod format;
pub mod huge;
pub mod location;
pub mod lock;
pub mod mapped;
pub mod mixture;
pub mod oaq_compact;
pub mod oaq_header;
pub mod oaq_table;
pub mod packed;
pub mod par;
pub mod ranked_view;
pub mod rans;
pub mod sector_key;
pub mod sector_table;
pub mod slot_order;
pub mod sub_cache;
pub mod value;
pub mod verify;
pub mod wdl_rans;

pub use format::{TableError, GAME_DARA, GAME_MILL, GAME_OAQ};
pub use oaq_table::{OaqHeader, OaqTable};
pub use sector_key::SectorKey;
pub use sector_table::{Header, Table};
pub use value::{Value, Wdl};
