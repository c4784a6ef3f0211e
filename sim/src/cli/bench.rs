//! `locksmith bench`: figures for the exhaustive checker, measured here and
//! printed (never asserted in a test): time to the lost wake-up, and states,
//! states per second and peak memory for `fixed-wait`.

use clap::Args;
use locksmith_model::check::{check, CheckConfig, Property};
use locksmith_model::recipe::RecipeId;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Also run fixed-wait with 5 clients (minutes, not seconds).
    #[arg(long)]
    pub large: bool,
}

/// The process's peak resident set (Linux `VmHWM`), in bytes.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

pub fn run(args: &BenchArgs) -> i32 {
    println!("checker benchmark (release build recommended: cargo run --release -- bench)");
    println!(
        "{:<34} {:>10} {:>12} {:>10} {:>12} {:>12}",
        "case", "verdict", "states", "wall ms", "states/s", "peak RSS MB"
    );
    let mut cases = vec![
        ("racy-wait N=2 (lost wake-up)", RecipeId::RacyWait, 2),
        ("racy-wait N=3 (lost wake-up)", RecipeId::RacyWait, 3),
        ("fixed-wait N=3", RecipeId::FixedWait, 3),
        ("fixed-wait N=4", RecipeId::FixedWait, 4),
    ];
    if args.large {
        cases.push(("fixed-wait N=5", RecipeId::FixedWait, 5));
    }
    for (name, recipe, n) in cases {
        let cfg = CheckConfig::new(recipe, n, 1);
        let t = Instant::now();
        let r = check(&cfg);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let verdict = match r.property {
            Some(p) => format!("{}:{}", r.verdict, short(p)),
            None => r.verdict.to_string(),
        };
        println!(
            "{:<34} {:>10} {:>12} {:>10.1} {:>12.0} {:>12.1}",
            name,
            verdict,
            r.states,
            ms,
            r.states as f64 / (ms / 1e3).max(1e-9),
            peak_rss().unwrap_or(0) as f64 / 1e6
        );
        if recipe == RecipeId::RacyWait {
            if let Some(t) = r
                .properties
                .iter()
                .find(|p| p.property == Property::Deadlock)
                .and_then(|p| p.trace.as_ref())
            {
                println!(
                    "{:<34} shortest deadlock trace: {} steps",
                    "",
                    t.steps.len()
                );
            }
        }
    }
    println!("(wall time is the whole exploration, so an upper bound on the time to find a violation; peak RSS is the process's high-water mark so far)");
    0
}

fn short(p: Property) -> &'static str {
    match p {
        Property::MutualExclusion => "mutex",
        Property::Deadlock => "deadlock",
        Property::Starvation => "starve",
        Property::Herd => "herd",
        Property::MutualExclusionAtResource => "mutex@res",
        Property::FencedSafety => "fenced",
        Property::ThreadDied => "died",
    }
}
