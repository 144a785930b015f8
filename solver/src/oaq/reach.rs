//! The search of the positions reachable from the start, as `big.rs` runs it and its
//! checkpoints save it.

use crate::oaq::canon::Canon;
use crate::oaq::huge::huge_vec;
use crate::oaq::values::Stats;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The search of reachable positions as it stands: reachable dense slots, those already
/// expanded, the canonical slots reached, and the counts so far.
pub struct Reach {
    /// Reachable dense slots.
    pub seen: Vec<AtomicU64>,
    /// Dense slots whose moves have been followed.
    pub expanded: Vec<u64>,
    /// Reachable canonical slots.
    pub cseen: Vec<AtomicU64>,
    /// Positions, finished games and moves found so far.
    pub stats: Stats,
}

impl Reach {
    /// Only the start reached.
    pub fn new(canon: &Canon) -> Reach {
        let n = canon.idx.size();
        let zeros =
            |k: u64| -> Vec<AtomicU64> { huge_vec(k.div_ceil(64) as usize, |_| AtomicU64::new(0)) };
        let r = Reach {
            seen: zeros(n),
            expanded: vec![0; n.div_ceil(64) as usize],
            cseen: zeros(canon.size()),
            stats: Stats {
                slots: n,
                ..Stats::default()
            },
        };
        mark(&r.seen, canon.idx.start_slot());
        mark(&r.cseen, canon.size() - 1);
        r
    }
}

/// Sets bit `s`; whether it was clear.
pub fn mark(set: &[AtomicU64], s: u64) -> bool {
    let bit = 1u64 << (s % 64);
    set[(s / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
}
