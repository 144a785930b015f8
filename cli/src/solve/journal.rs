//! The folder's solve log, `solve-log.tsv`: a line per unit a run solved, appended when the
//! unit is done (its tables written, and those no unit left reads compressed), so that a solve
//! resumed over many runs still adds up: units, runs, wall time, time compressing, peak memory.
//!
//! A line is `run_start now unit slots seconds compress_seconds peak_memory_bytes`, tab
//! separated: the run's start and the time of the line (Unix milliseconds; the start tells
//! runs apart), the unit's sectors (joined by `+`), its slots, its seconds (from its start to
//! the line), the seconds the run spent compressing so far and the run's peak memory so far
//! (0 where the system does not say). A unit is logged once it is done: a run that stops in a
//! unit (killed, or refused for want of disk) logs the units before it.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The file's name in a table folder.
pub const FILE: &str = "solve-log.tsv";

/// The solve log of one run.
pub struct Journal {
    path: PathBuf,
    run_start: u64,
    /// The unit being solved: its sectors, slots and start.
    current: Mutex<Option<(String, u64, Instant)>>,
}

/// What a folder's solve log adds up to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Units logged.
    pub units: u64,
    /// Their slots.
    pub slots: u64,
    /// Runs that logged a unit.
    pub runs: u64,
    /// Wall time of those runs, each from its start to its last line.
    pub seconds: f64,
    /// Of it, compressing.
    pub compress_seconds: f64,
    /// The largest peak of memory a run logged.
    pub peak_memory: u64,
}

impl Summary {
    /// For people: `N units, S slots, over R runs: H h in all, C h of it compressing; peak
    /// memory M`.
    pub fn describe(&self) -> String {
        format!(
            "{}, {} slots, over {}: {:.2} h in all, {:.2} h of it compressing; peak memory {}",
            crate::output::count(self.units as usize, "unit"),
            self.slots,
            crate::output::count(self.runs as usize, "run"),
            self.seconds / 3600.0,
            self.compress_seconds / 3600.0,
            retro_solver::sectors::resources::human(self.peak_memory)
        )
    }

    /// For scripts (JSON `log` of a solve and of a dry run).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({"units": self.units, "slots": self.slots, "runs": self.runs,
                           "seconds": self.seconds, "compress_seconds": self.compress_seconds,
                           "peak_memory_bytes": self.peak_memory})
    }
}

/// Unix time in milliseconds.
fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Journal {
    /// The log of a run starting now in `folder`.
    pub fn new(folder: &Path) -> Journal {
        Journal {
            path: folder.join(FILE),
            run_start: unix_ms(),
            current: Mutex::new(None),
        }
    }

    /// Unit `name` of `slots` slots starts.
    pub fn unit_start(&self, name: String, slots: u64) {
        *self.current.lock().expect("journal lock") = Some((name, slots, Instant::now()));
    }

    /// The unit started last is done: its line is appended, with what the run spent
    /// compressing and its peak memory so far. A log that cannot be written is left (the
    /// solve goes on).
    pub fn unit_done(&self, compress_seconds: f64, peak: u64) {
        let Some((name, slots, start)) = self.current.lock().expect("journal lock").take() else {
            return;
        };
        let line = format!(
            "{}\t{}\t{name}\t{slots}\t{:.1}\t{compress_seconds:.1}\t{peak}\n",
            self.run_start,
            unix_ms(),
            start.elapsed().as_secs_f64(),
        );
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&self.path)
            .and_then(|mut f| {
                // A line a killed run left cut short ends before this one.
                let mut last = [b'\n'];
                if f.metadata()?.len() > 0 {
                    f.seek(SeekFrom::End(-1))?;
                    f.read_exact(&mut last)?;
                }
                let mend = if last[0] == b'\n' { "" } else { "\n" };
                f.write_all(format!("{mend}{line}").as_bytes())
            });
    }
}

/// What the solve log in `folder` adds up to (`None` without one); lines it cannot read are
/// skipped.
pub fn summary(folder: &Path) -> Option<Summary> {
    let text = std::fs::read_to_string(folder.join(FILE)).ok()?;
    Some(summarize(&text))
}

/// [`summary`] of a log's text.
pub fn summarize(text: &str) -> Summary {
    let mut s = Summary::default();
    // Per run: its last line's time and the compressing it had done by then.
    let mut runs: std::collections::BTreeMap<u64, (u64, f64)> = Default::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let [start, now, _unit, slots, _secs, compress, peak] = f[..] else {
            continue;
        };
        let (Ok(start), Ok(now), Ok(slots), Ok(compress), Ok(peak)) = (
            start.parse::<u64>(),
            now.parse::<u64>(),
            slots.parse::<u64>(),
            compress.parse::<f64>(),
            peak.parse::<u64>(),
        ) else {
            continue;
        };
        // A hand-edited line could carry anything: numbers past any real run are not added.
        if !(0.0..1e12).contains(&compress) {
            continue;
        }
        s.units += 1;
        s.slots = s.slots.saturating_add(slots);
        s.peak_memory = s.peak_memory.max(peak);
        let r = runs.entry(start).or_insert((now, compress));
        *r = (r.0.max(now), r.1.max(compress));
    }
    s.runs = runs.len() as u64;
    for (start, (last, compress)) in runs {
        s.seconds += last.saturating_sub(start) as f64 / 1000.0;
        s.compress_seconds += compress;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_up_runs_and_skips_what_it_cannot_read() {
        let text = "100000\t160000\t3_3_0_0\t10\t50.0\t5.0\t2000\n\
                    100000\t400000\t4_4_0_0\t20\t240.0\t30.5\t9000\n\
                    garbage line\n\
                    1000000\t1100000\t5_5_0_0+4_5_0_0\t30\t90.0\t0.0\t4000\n\
                    1000000\t1100000\tcut short\n\
                    1000000\t1100000\t6_6_0_0\t30\t90.0\tinf\t4000\n\
                    1000000\t1100000\t6_6_0_0\t30\t90.0\tNaN\t4000";
        let s = summarize(text);
        assert_eq!(
            s,
            Summary {
                units: 3,
                slots: 60,
                runs: 2,
                seconds: 400.0,
                compress_seconds: 30.5,
                peak_memory: 9000,
            }
        );
        // Slots past u64 (a hand-edited log) stay at the most, not wrapped round.
        let huge = format!("1\t2\tu\t{}\t1.0\t0.0\t1\n", u64::MAX).repeat(2);
        assert_eq!(summarize(&huge).slots, u64::MAX);
    }

    #[test]
    fn logs_each_unit_once_done_and_mends_a_cut_line() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::new(dir.path());
        j.unit_start("3_3_0_0".into(), 7);
        assert!(summary(dir.path()).is_none(), "nothing done yet");
        j.unit_done(1.5, 20);
        j.unit_start("3_4_0_0+4_3_0_0".into(), 8);
        // A run killed while writing a line leaves it cut short.
        let path = dir.path().join(FILE);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("123\t45");
        std::fs::write(&path, text).unwrap();
        j.unit_done(2.5, 30);
        // Nothing started: nothing logged.
        j.unit_done(3.0, 40);
        let s = summary(dir.path()).unwrap();
        assert_eq!((s.units, s.slots, s.runs), (2, 15, 1));
        assert_eq!((s.compress_seconds, s.peak_memory), (2.5, 30));
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(text
            .lines()
            .nth(2)
            .unwrap()
            .contains("\t3_4_0_0+4_3_0_0\t8\t"));
    }
}
