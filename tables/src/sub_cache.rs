//! A thread's sub-blocks of compressed tables of the rANS coders, each as far as probes have
//! decoded it: its symbols and distance entries from its start, and where each stream's
//! decoding stopped. A probe decodes only what it needs beyond that (up to its slot, to the
//! sub-block's end for a loss, which counts the wins first), so a lone probe costs what it
//! always did, and the probes of an analysis or of a derived position's search, which fall in
//! a few sub-blocks of a class, never decode a symbol twice while the sub-block stays.

use crate::dtm_rans::DtmCursor;
use crate::wdl_rans::WdlCursor;
use std::cell::RefCell;

/// Sub-blocks a thread keeps (at most about 1.5 KiB each at 512 slots a sub-block),
/// direct-mapped: each sub-block has one place, taken by the last sub-block probed there.
const ENTRIES: usize = 1024;

/// One place: which sub-block it holds and how far its decoding went.
#[derive(Default)]
struct Entry {
    /// The file's number (`u64::MAX`: none).
    file: u64,
    sub: u64,
    wdl: WdlCursor,
    dtm: DtmCursor,
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

/// Runs `f` on the decoding of sub-block `sub` of the win/draw/loss file numbered `file` (its
/// symbols, and its distance file's entries), as far as it went, or fresh if the sub-block is
/// not in the cache. After an error the sub-block is forgotten.
pub fn with<R, E>(
    file: u64,
    sub: u64,
    f: impl FnOnce(&mut WdlCursor, &mut DtmCursor) -> Result<R, E>,
) -> Result<R, E> {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_empty() {
            c.resize_with(ENTRIES, || Entry {
                file: u64::MAX,
                ..Entry::default()
            });
        }
        let e = &mut c[place(file, sub)];
        if e.file != file || e.sub != sub {
            (e.file, e.sub) = (file, sub);
            e.wdl.clear();
            e.dtm.clear();
        }
        let r = f(&mut e.wdl, &mut e.dtm);
        if r.is_err() {
            e.file = u64::MAX;
        }
        r
    })
}
