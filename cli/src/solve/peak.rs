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
    max: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl PeakMemory {
    /// Starts sampling (the first sample at once).
    pub fn start() -> PeakMemory {
        let max = Arc::new(AtomicU64::new(anonymous_memory().unwrap_or(0)));
        let stop = Arc::new(AtomicBool::new(false));
        let (m, s) = (Arc::clone(&max), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("peak-memory".into())
            .spawn(move || {
                while !s.load(Relaxed) {
                    std::thread::park_timeout(EVERY);
                    if let Some(now) = anonymous_memory() {
                        m.fetch_max(now, Relaxed);
                    }
                }
            })
            .ok();
        PeakMemory { max, stop, thread }
    }

    /// The largest sample so far, the present one included (0 where the system does not say).
    pub fn bytes(&self) -> u64 {
        if let Some(now) = anonymous_memory() {
            self.max.fetch_max(now, Relaxed);
        }
        self.max.load(Relaxed)
    }
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
        let before = peak.bytes();
        // 64 MiB touched, held past a sample, then freed.
        let big = vec![1u8; 64 << 20];
        std::thread::sleep(EVERY * 3);
        assert_eq!(big.iter().map(|&b| b as u64).sum::<u64>(), 64 << 20);
        drop(big);
        assert!(
            peak.bytes() >= before + (60 << 20),
            "{before} -> {}",
            peak.bytes()
        );
    }
}
