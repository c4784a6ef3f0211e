//! `locksmith check`'s flags, the same for every backend.

use clap::Args;
use locksmith_model::engine::MAX_CLIENTS;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The scenario file (TOML), e.g. scenarios/racy-wait.toml.
    pub scenario: PathBuf,
    /// Override the number of clients (1–8).
    #[arg(short, long, value_parser = clap::value_parser!(u8).range(1..=MAX_CLIENTS as i64))]
    pub clients: Option<u8>,
    /// Override the acquisitions per client.
    #[arg(short, long, value_parser = clap::value_parser!(u8).range(1..))]
    pub acquisitions: Option<u8>,
    /// Stop after this many distinct states (the verdict is then
    /// `incomplete` unless a violation was already found).
    #[arg(long, value_parser = crate::counts::at_least_one)]
    pub max_states: Option<u64>,
    /// Stop when the checker's tables are estimated to exceed this many MB
    /// (default 4096; the verdict is then `incomplete`).
    #[arg(long, value_parser = crate::counts::at_least_one)]
    pub max_memory_mb: Option<u64>,
    /// States that differ only in sequence suffixes and unread zxids are
    /// one state (as `[check] abstract_sequences = true`): makes a polling
    /// recipe's exploration finite.
    #[arg(long)]
    pub abstract_sequences: bool,
    /// Partial-order reduction (as `[check] por = true`): where one
    /// client's next steps touch only that client and change nothing a
    /// property reads, only they are expanded. Fewer states; a trace it
    /// finds may be longer than the shortest.
    #[arg(long)]
    pub por: bool,
    /// Threads that expand states (default: every core). The verdict, the
    /// traces and the counts are the same for any number.
    #[arg(short, long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also print the shortest trace as a Mermaid sequence diagram (drawn
    /// by GitHub and most Markdown viewers; `--json` always has it).
    #[arg(long)]
    pub mermaid: bool,
}

/// Where a backend's configuration keeps what every backend's flags set.
pub struct Sizes<'a> {
    pub clients: &'a mut u8,
    pub acquisitions: &'a mut u8,
    pub max_states: &'a mut usize,
    /// In bytes.
    pub max_memory: &'a mut usize,
    pub jobs: &'a mut usize,
}

impl CheckArgs {
    /// Sets what the flags give (clients, rounds, bounds, the worker
    /// threads: one per core unless `--jobs` says).
    pub fn apply(&self, s: Sizes) {
        if let Some(n) = self.clients {
            *s.clients = n;
        }
        if let Some(k) = self.acquisitions {
            *s.acquisitions = k;
        }
        if let Some(n) = self.max_states {
            *s.max_states = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(mb) = self.max_memory_mb {
            let mb = usize::try_from(mb).unwrap_or(usize::MAX);
            *s.max_memory = mb.saturating_mul(1 << 20);
        }
        *s.jobs = self.jobs.map_or_else(crate::machine::cores, usize::from);
    }
}
