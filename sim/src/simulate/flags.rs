//! The flags of `locksmith sim`, `replay` and `bench-sim`, the same for
//! every backend.

use super::sweep::{sweep_runs, SeedRun, Sweep, SweepOptions};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SimArgs {
    /// The scenario file (TOML), e.g. scenarios/predecessor.toml.
    pub scenario: PathBuf,
    /// How many seeds to run, at least 1 (default: the scenario's `[sim]
    /// seeds`, or 1 with --seed).
    #[arg(long, value_parser = crate::counts::at_least_one)]
    pub seeds: Option<u64>,
    /// The first seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override the number of clients (1–255).
    #[arg(short, long, value_parser = clap::value_parser!(u8).range(1..))]
    pub clients: Option<u8>,
    /// Override the acquisitions per client.
    #[arg(short, long, value_parser = clap::value_parser!(u8).range(1..))]
    pub acquisitions: Option<u8>,
    /// Go on after a failing seed (report all of them).
    #[arg(long)]
    pub keep_going: bool,
    /// Seeds run at once, one OS thread each (default: every core), on
    /// every backend. The failing seed, the seeds counted and the totals are the same for
    /// any number.
    #[arg(short, long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

impl SimArgs {
    /// The seeds `first .. first + count` these flags ask for (`default`:
    /// how many without `--seeds` or `--seed`).
    pub fn seed_range(&self, default: u64) -> Result<(u64, u64), String> {
        let first = self.seed.unwrap_or(0);
        let count = self
            .seeds
            .unwrap_or(if self.seed.is_some() { 1 } else { default });
        if count == 0 {
            return Err("--seeds 0: expected at least 1 (a run of no seeds proves nothing)".into());
        }
        if first.checked_add(count - 1).is_none() {
            return Err(format!(
                "--seed {first} with {count} seeds runs past the last seed ({}): expected a smaller --seed or --seeds",
                u64::MAX
            ));
        }
        Ok((first, count))
    }

    /// The threads of the sweep: `--jobs`, else every core.
    pub fn jobs(&self) -> usize {
        self.jobs.map_or_else(crate::machine::cores, usize::from)
    }

    /// The sweep these flags ask for, of seeds `first .. first + count`
    /// through `run`, with a progress bar on stderr; Ctrl-C stops it
    /// between seeds.
    pub fn sweep<R: SeedRun>(
        &self,
        first: u64,
        count: u64,
        run: &(dyn Fn(u64) -> R + Sync),
    ) -> Sweep<R> {
        crate::interrupt::install();
        let bar = crate::progress::Progress::counter(
            count,
            "seeds",
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} seeds ({per_sec}, eta {eta})",
        );
        let opts = SweepOptions {
            first,
            count,
            keep_going: self.keep_going,
            jobs: self.jobs(),
        };
        let swept = sweep_runs(run, &opts, &|| bar.inc(1));
        bar.finish_and_clear();
        swept
    }
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// The seed to replay.
    #[arg(long)]
    pub seed: u64,
    /// Override the number of clients (as given to `locksmith sim`).
    #[arg(short, long, value_parser = clap::value_parser!(u8).range(1..))]
    pub clients: Option<u8>,
    /// Override the acquisitions per client.
    #[arg(short, long, value_parser = clap::value_parser!(u8).range(1..))]
    pub acquisitions: Option<u8>,
    /// Also print the trace as a Mermaid sequence diagram.
    #[arg(long)]
    pub mermaid: bool,
    /// The default since `--mermaid` came (kept so that scripts that
    /// pass it still run).
    #[arg(long, hide = true, conflicts_with = "mermaid")]
    pub no_mermaid: bool,
    /// Also write every request, reply and notification of every client,
    /// with its simulated time, to this file (ZooKeeper scenarios; the
    /// lines `locksmith real --timeline` writes for a real run).
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<PathBuf>,
    /// Print one JSON object instead of text: the verdict, the trace's
    /// lines (and its Mermaid diagram, ZooKeeper), the run's counts.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchSimArgs {
    /// Seeds for the 10,000-seed sweep figure.
    #[arg(long, default_value_t = 10_000, value_parser = crate::counts::at_least_one)]
    pub sweep_seeds: u64,
    /// Threads for the sweep figure.
    #[arg(short, long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: u16,
    /// Seeds per throughput figure.
    #[arg(long, default_value_t = 500, value_parser = crate::counts::at_least_one)]
    pub seeds: u64,
    /// Print one JSON object instead of text: each throughput row and the
    /// sweep.
    #[arg(long)]
    pub json: bool,
}
