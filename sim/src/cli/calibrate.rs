//! `locksmith calibrate`: the real server's service times as a `[sim]`
//! profile.

use crate::zk::real::calibrate::run;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// The ZooKeeper server, HOST:PORT (`scripts/zookeeper.sh start` runs
    /// one).
    #[arg(long)]
    pub zk: String,
    /// Requests per figure (at least 8).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(8..=1_000_000))]
    pub requests: u32,
    /// Write the profile (a `[sim]` table) to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print one JSON object (the measurements) instead of the profile.
    #[arg(long)]
    pub json: bool,
}

pub fn plan(a: &CalibrateArgs) -> Result<(), String> {
    crate::zk::real::command::check_server(&a.zk)
}

/// Exit codes: 0 measured, 2 error (no server, bad input, a file that
/// cannot be written).
pub fn run_calibrate(a: &CalibrateArgs) -> i32 {
    if let Err(e) = plan(a) {
        eprintln!("error: {e}");
        return 2;
    }
    let c = match run(&a.zk, a.requests as usize) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let text = if a.json {
        match serde_json::to_string_pretty(&c) {
            Ok(j) => j + "\n",
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    } else {
        c.profile()
    };
    match &a.out {
        Some(path) => {
            if let Err(e) = std::fs::write(path, &text) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return 2;
            }
            eprintln!("wrote {}", path.display());
        }
        None => print!("{text}"),
    }
    0
}
