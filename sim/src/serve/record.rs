//! What a served run keeps for its report, whatever the protocol: the
//! counts, the log of what happened to sessions and connections, and the
//! `--verbose` lines, all timed from the run's start.

use std::collections::BTreeMap;
use std::time::Instant;

/// How a session ended, or what was done to its connection, and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Happened {
    pub at_ms: u64,
    pub what: String,
}

/// What the server counts for the summary.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub sessions: u64,
    pub connections: u64,
    pub requests: u64,
    /// Requests by operation (ZooKeeper's opcode names, Redis's commands).
    pub by_op: BTreeMap<String, u64>,
    pub notifications: u64,
    pub expiries: u64,
    /// Requests the model has no operation for, by name, with why.
    pub unsupported: BTreeMap<String, (u64, String)>,
}

pub struct Record {
    pub counts: Counts,
    pub log: Vec<Happened>,
    /// Print every request, reply and notification to stderr as it happens.
    pub verbose: bool,
    started: Instant,
}

impl Record {
    pub fn new(started: Instant) -> Record {
        Record {
            counts: Counts::default(),
            log: Vec::new(),
            verbose: false,
            started,
        }
    }

    /// Milliseconds since the run started.
    pub fn ms(&self, now: Instant) -> u64 {
        now.duration_since(self.started).as_millis() as u64
    }

    /// One entry of the report's log.
    pub fn note(&mut self, now: Instant, what: String) {
        let at_ms = self.ms(now);
        self.log.push(Happened { at_ms, what });
    }

    /// One line of `--verbose` output.
    pub fn trace_line(&self, now: Instant, what: &str) {
        if self.verbose {
            eprintln!("{:>7} ms  {what}", self.ms(now));
        }
    }
}
