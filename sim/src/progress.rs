//! A long run's progress on stderr: indicatif's redrawn line on a
//! terminal; elsewhere (a CI log, a pipe, a file) a plain line at most
//! every [`PLAIN_EVERY`], so that a run of minutes is never silent and a
//! log is never flooded. Progress is display only: nothing a verdict or a
//! trace depends on reads it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The shortest time between two plain lines.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

pub struct Progress {
    bar: ProgressBar,
    /// Off a terminal: when the run began and when the last line was
    /// printed.
    plain: Option<(Instant, Mutex<Instant>)>,
    every: Duration,
    pos: AtomicU64,
    len: Option<u64>,
    /// What the count counts ("seeds", "jobs").
    unit: &'static str,
    message: Mutex<String>,
}

impl Progress {
    /// A run with no known end (an exploration): its message only.
    pub fn spinner() -> Progress {
        Progress::new(None, "", "{spinner} {msg}")
    }

    /// A run of `len` units (seeds, jobs), counted by [`Progress::inc`].
    pub fn counter(len: u64, unit: &'static str, template: &str) -> Progress {
        Progress::new(Some(len), unit, template)
    }

    fn new(len: Option<u64>, unit: &'static str, template: &str) -> Progress {
        Progress::drawn(
            std::io::stderr().is_terminal(),
            PLAIN_EVERY,
            len,
            unit,
            template,
        )
    }

    fn drawn(
        terminal: bool,
        every: Duration,
        len: Option<u64>,
        unit: &'static str,
        template: &str,
    ) -> Progress {
        let target = if terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(len, target);
        bar.set_style(
            ProgressStyle::with_template(template).unwrap_or_else(|_| match len {
                Some(_) => ProgressStyle::default_bar(),
                None => ProgressStyle::default_spinner(),
            }),
        );
        let now = Instant::now();
        Progress {
            bar,
            plain: (!terminal).then(|| (now, Mutex::new(now))),
            every,
            pos: AtomicU64::new(0),
            len,
            unit,
            message: Mutex::new(String::new()),
        }
    }

    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        self.pos.fetch_add(n, Ordering::Relaxed);
        self.plain_line();
    }

    pub fn set_message(&self, msg: String) {
        if self.plain.is_some() {
            *self.message.lock().unwrap_or_else(|e| e.into_inner()) = msg.clone();
        }
        self.bar.set_message(msg);
        self.bar.tick();
        self.plain_line();
    }

    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }

    fn plain_line(&self) {
        if let Some(line) = self.plain_text() {
            eprintln!("{line}");
        }
    }

    /// Off a terminal, the line due now, if [`PLAIN_EVERY`] has passed
    /// since the last: `[40 s] 1234/10000 seeds: <message>`.
    fn plain_text(&self) -> Option<String> {
        let (started, last) = self.plain.as_ref()?;
        let now = Instant::now();
        {
            let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
            if now.duration_since(*last) < self.every {
                return None;
            }
            *last = now;
        }
        let mut line = format!("[{:.0} s]", now.duration_since(*started).as_secs_f64());
        if let Some(len) = self.len {
            line.push_str(&format!(
                " {}/{len} {}",
                self.pos.load(Ordering::Relaxed),
                self.unit
            ));
        }
        let msg = self.message.lock().unwrap_or_else(|e| e.into_inner());
        if !msg.is_empty() {
            line.push_str(if self.len.is_some() { ": " } else { " " });
            line.push_str(&msg);
        }
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_a_terminal_a_plain_line_says_the_count_and_the_message() {
        let p = Progress::drawn(false, Duration::ZERO, Some(10), "seeds", "{pos}");
        p.pos.store(3, Ordering::Relaxed);
        *p.message.lock().unwrap_or_else(|e| e.into_inner()) = "c1 waits".into();
        let line = p.plain_text().expect("a line is due");
        assert!(line.starts_with("[0 s] 3/10 seeds: c1 waits"), "{line}");
        let spin = Progress::drawn(false, Duration::ZERO, None, "", "{msg}");
        *spin.message.lock().unwrap_or_else(|e| e.into_inner()) = "5 states".into();
        assert_eq!(spin.plain_text().as_deref(), Some("[0 s] 5 states"));
    }

    #[test]
    fn lines_come_at_most_once_per_interval_and_never_on_a_terminal() {
        let p = Progress::drawn(false, Duration::from_secs(3600), Some(10), "jobs", "{pos}");
        assert_eq!(p.plain_text(), None);
        let t = Progress::drawn(true, Duration::ZERO, Some(10), "jobs", "{pos}");
        assert_eq!(t.plain_text(), None);
    }
}
