//! The peak of a solve's memory: its anonymous resident memory (the unit's arrays, buffers;
//! not the pages of the mapped tables, which the kernel drops at will), sampled on a thread of
//! its own.

use retro_solver::sectors::resources::anonymous_memory;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the memory is sampled.
const EVERY: Duration = Duration::from_millis(500);

/// Samples the process's anonymous resident memory every half second until dropped, keeping
/// the largest.
pub struct PeakMemory {
    /// The largest sample, `u64::MAX` before the first (none where the system does not say).
    max: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl PeakMemory {
    /// Starts sampling (the first sample at once).
    pub fn start() -> PeakMemory {
        let max = Arc::new(AtomicU64::new(anonymous_memory().unwrap_or(NONE)));
        let stop = Arc::new(AtomicBool::new(false));
        let (m, s) = (Arc::clone(&max), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("peak-memory".into())
            .spawn(move || {
                while !s.load(Relaxed) {
                    std::thread::park_timeout(EVERY);
                    if let Some(now) = anonymous_memory() {
                        record(&m, now);
                    }
                }
            })
            .ok();
        PeakMemory { max, stop, thread }
    }

    /// The largest sample so far, the present one included (`None` where the system does not
    /// say).
    pub fn bytes(&self) -> Option<u64> {
        if let Some(now) = anonymous_memory() {
            record(&self.max, now);
        }
        Some(self.max.load(Relaxed)).filter(|&m| m != NONE)
    }
}

/// No sample yet.
const NONE: u64 = u64::MAX;

/// Keeps `now` in `max` if it is larger, or the first sample.
fn record(max: &AtomicU64, now: u64) {
    let _ = max.fetch_update(Relaxed, Relaxed, |m| (m == NONE || now > m).then_some(now));
}

impl Drop for PeakMemory {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_memory_touched_and_freed_between_samples() {
        let peak = PeakMemory::start();
        // 64 MiB touched, held past a few samples, then freed.
        let big = vec![1u8; 64 << 20];
        let held = anonymous_memory().unwrap();
        std::thread::sleep(EVERY * 3);
        assert_eq!(big.iter().map(|&b| b as u64).sum::<u64>(), 64 << 20);
        drop(big);
        assert!(held >= 64 << 20, "{held}");
        let seen = peak.bytes().unwrap();
        assert!(seen >= held, "{seen} < {held}");
    }
}
