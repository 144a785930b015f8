//! A solve's progress: bars on a terminal, else a log line per unit; what the solver reports
//! as it goes (units started, tables compressed, the memory peak).

use super::*;
use crate::solve::journal::Journal;

/// A solve's progress display and the observer of its events.
pub(super) struct Bars {
    pub(super) quiet: bool,
    /// Progress as plain lines on stderr, one per unit, instead of bars: when the bars
    /// would not show (stderr is not a terminal, or `--json`) and `--quiet` is not given, so
    /// a solve run in the background leaves a log.
    pub(super) log: bool,
    /// When the run began (the time left on the bars and in the log lines).
    pub(super) started: Instant,
    /// The slots of the units started so far (for the log lines).
    pub(super) slots_started: Mutex<u64>,
    /// The slots of the sectors without tables when the run began (all it will solve).
    pub(super) slots_left: u64,
    pub(super) overall: ProgressBar,
    pub(super) unit: Mutex<Option<ProgressBar>>,
    /// Tables compressed or derived, the seconds that took, and the wins whose distances were
    /// left to a search.
    pub(super) compressed: Mutex<(u64, f64, u64)>,
    /// The run's peak of anonymous memory, sampled.
    pub(super) memory: PeakMemory,
    /// The folder's solve log.
    pub(super) journal: Journal,
    /// The rate the time left (log lines and the bar's message) starts from: the folder's
    /// logged rate once its solve log holds a billion slots, else the plan's (the units'
    /// usual rates).
    pub(super) prior_rate: f64,
}

impl Bars {
    /// Bars, hidden under `quiet`; with `lines` (and not `quiet`), a line per unit instead,
    /// for a run that has `slots_left` slots to solve (its time left estimated from the
    /// folder's solve log, or from `plan_rate`, the plan's rate of its units, before one).
    pub(super) fn new(
        quiet: bool,
        lines: bool,
        slots_left: u64,
        folder: &Path,
        plan_rate: f64,
    ) -> Bars {
        let overall = if quiet || lines {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0)
        };
        overall.set_style(
            ProgressStyle::with_template(
                // The time left is the message, reckoned in slots as the log lines do: the
                // bar's own ETA would count units, whose sizes differ a thousandfold.
                "units {pos}/{len} [{bar:30}] {elapsed_precise} {msg}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        Bars {
            quiet: quiet || lines,
            log: lines && !quiet,
            started: Instant::now(),
            slots_started: Mutex::new(0),
            slots_left,
            overall,
            unit: Mutex::new(None),
            compressed: Mutex::new((0, 0.0, 0)),
            memory: PeakMemory::start(),
            journal: Journal::new(folder),
            prior_rate: crate::solve::journal::summary(folder)
                .as_ref()
                .and_then(crate::solve::plan::logged_rate)
                .unwrap_or(plan_rate),
        }
    }

    /// Seconds this run spent compressing so far.
    pub(super) fn compress_seconds(&self) -> f64 {
        self.compressed.lock().expect("compress lock").1
    }
}

impl Progress for Bars {
    fn init(&self, n: u64) {
        if let Some(b) = &*self.unit.lock().expect("bar lock") {
            b.inc(n);
        }
    }
    fn pass(&self, d: u16) {
        // Sampled here too: a unit's arrays are alive (and a short unit may end between two
        // samples of the thread).
        self.memory.bytes();
        if let Some(b) = &*self.unit.lock().expect("bar lock") {
            b.set_message(format!("frontier pass {d}"));
        }
    }
}

impl SolveObserver for Bars {
    fn unit_start(&self, unit: &[SectorKey], slots: u64, index: usize, total: usize) {
        self.overall.set_length(total as u64);
        self.overall.set_position(index as u64);
        let names: Vec<String> = unit.iter().map(|k| k.to_string()).collect();
        self.journal.unit_start(names.join("+"), slots);
        let before = {
            let mut s = self.slots_started.lock().expect("slots lock");
            *s += slots;
            *s - slots
        };
        let secs = self.started.elapsed().as_secs();
        // Left at this run's rate so far, blended with the folder's logged one or the usual
        // one (rough: units differ widely).
        let left = self.slots_left.saturating_sub(before);
        let h = crate::solve::plan::hours_left(left, before, secs as f64, self.prior_rate);
        // The bar's message changes as each unit starts (a long unit keeps the figure its
        // start gave).
        if self.log {
            let eta = format!(", {left} left: roughly {h:.1} h");
            eprintln!(
                "[{}:{:02}:{:02}] unit {}/{total}: sector {} ({slots} slots; {before} slots \
                 solved before it in this run{eta}{})",
                secs / 3600,
                secs / 60 % 60,
                secs % 60,
                index + 1,
                names.join("+"),
                self.memory
                    .bytes()
                    .map_or(String::new(), |m| format!("; memory peak {}", human(m))),
            );
        } else {
            let when = crate::solve::plan::rough_duration(h * 3600.0);
            self.overall.set_message(format!("roughly {when} left"));
        }
        if self.quiet {
            return;
        }
        let b = ProgressBar::with_draw_target(Some(slots), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{prefix} [{bar:30}] {human_pos}/{human_len} slots {per_sec} ETA {eta} {msg}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        b.set_prefix(format!("sector {}", names.join("+")));
        if let Some(old) = self.unit.lock().expect("bar lock").replace(b) {
            old.finish_and_clear();
        }
    }
    fn sector_done(&self, _r: &SectorReport) {
        // The sector's values are still alive.
        self.memory.bytes();
    }
    fn unit_done(&self) {
        self.journal
            .unit_done(self.compress_seconds(), self.memory.bytes().unwrap_or(0));
    }
    /// Said even under `--quiet`: a table is replaced, and the user should know why.
    fn rebuilding(&self, why: &ProbeError) {
        self.overall.suspend(|| eprintln!("rebuilding: {why}"));
    }
    fn compressed(&self, key: SectorKey, r: &Replaced, seconds: f64) {
        {
            let mut c = self.compressed.lock().expect("compress lock");
            *c = (c.0 + 1, c.1 + seconds, c.2 + r.searched_wins);
        }
        if !self.quiet || self.log {
            self.overall.suspend(|| {
                if r.wdl_bytes == 0 {
                    eprintln!(
                        "derived {key}: {} bytes raw -> a header, {seconds:.1} s",
                        r.raw_bytes
                    )
                } else {
                    eprintln!(
                        "compressed {key}: {} bytes raw -> {} win/draw/loss + {} distances{}, \
                         {seconds:.1} s",
                        r.raw_bytes,
                        r.wdl_bytes,
                        r.dtm_bytes,
                        if r.searched_wins > 0 {
                            format!(
                                " ({} of {} wins' distances left to a search)",
                                r.searched_wins, r.wins
                            )
                        } else {
                            String::new()
                        }
                    )
                }
            });
        }
    }
}
