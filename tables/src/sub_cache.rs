//! A thread's decoded sub-blocks of compressed tables of the rANS coders: every slot's symbol
//! and distance entry of a sub-block, kept for the probes that follow. A probe of a sub-block
//! seen for the first time decodes only up to its slot (what a lone probe costs); the second
//! probe of a sub-block still in view decodes it whole and keeps it, so the probes of an
//! analysis or a derived position's search, which fall in a few sub-blocks of a class, read
//! it from here (the zstd coder's decoded-block cache does the same for its blocks).

use std::cell::RefCell;

/// Sub-blocks a thread keeps or remembers (about 2 KiB each at 512 slots a sub-block),
/// direct-mapped: each sub-block has one place, taken by the last sub-block probed there.
const ENTRIES: usize = 1024;

/// What the cache says of a slot's sub-block.
pub enum Seen {
    /// Decoded whole: the slot's value, packed as [`pack`] packs it.
    Decoded(u32),
    /// Probed once before and not decoded whole: decode it whole and [`store`] it.
    Again,
    /// Not seen (now remembered as probed once).
    First,
}

/// A slot's symbol (2 bits) and distance entry (16 bits) in one number.
#[inline]
pub fn pack(sym: u8, entry: u16) -> u32 {
    sym as u32 | (entry as u32) << 2
}

/// The symbol and entry [`pack`] packed.
#[inline]
pub fn unpack(v: u32) -> (u8, u16) {
    ((v & 3) as u8, (v >> 2) as u16)
}

struct Entry {
    /// The file's number (`u64::MAX`: none).
    file: u64,
    sub: u64,
    /// Empty until decoded whole.
    vals: Vec<u32>,
}

thread_local! {
    static CACHE: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// The place of sub-block `sub` of file `file`.
#[inline]
fn place(file: u64, sub: u64) -> usize {
    let h = (file.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ sub).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (h >> 54) as usize % ENTRIES
}

/// Runs `f` on the entry of sub-block `sub` of file `file`.
fn with_entry<R>(file: u64, sub: u64, f: impl FnOnce(&mut Entry) -> R) -> R {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_empty() {
            c.resize_with(ENTRIES, || Entry {
                file: u64::MAX,
                sub: 0,
                vals: Vec::new(),
            });
        }
        f(&mut c[place(file, sub)])
    })
}

/// Looks up slot `i` of sub-block `sub` of the file numbered `file`.
pub fn look(file: u64, sub: u64, i: usize) -> Seen {
    with_entry(file, sub, |e| {
        if e.file == file && e.sub == sub {
            return match e.vals.get(i) {
                Some(&v) => Seen::Decoded(v),
                None => Seen::Again,
            };
        }
        (e.file, e.sub) = (file, sub);
        e.vals.clear();
        Seen::First
    })
}

/// Keeps the decoded values `vals` of sub-block `sub` of the file numbered `file`.
pub fn store(file: u64, sub: u64, vals: Vec<u32>) {
    with_entry(file, sub, |e| {
        (e.file, e.sub) = (file, sub);
        e.vals = vals;
    })
}
