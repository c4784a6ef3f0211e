//! `locksmith bench`: figures for the exhaustive checker, measured here and
//! printed (never asserted in a test): time to the lost wake-up, and states,
//! states per second and peak memory for `fixed-wait`.

use clap::Args;
use locksmith_model::check::{check, CheckConfig, Property};
use locksmith_model::recipe::RecipeId;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Also run fixed-wait with 5 and 6 clients and predecessor 4 × 2
    /// (minutes, not seconds; each bounded by 30 M states and 8 GB).
    #[arg(long)]
    pub large: bool,
}

pub fn run(args: &BenchArgs) -> i32 {
    println!("checker benchmark (release build recommended: cargo run --release -- bench)");
    println!(
        "{:<34} {:>10} {:>12} {:>10} {:>12} {:>11} {:>12}",
        "case", "verdict", "states", "wall ms", "states/s", "bytes/state", "peak RSS MB"
    );
    let mut cases = vec![
        ("racy-wait N=2 (lost wake-up)", RecipeId::RacyWait, 2, 1),
        ("racy-wait N=3 (lost wake-up)", RecipeId::RacyWait, 3, 1),
        ("fixed-wait N=3", RecipeId::FixedWait, 3, 1),
        ("fixed-wait N=4", RecipeId::FixedWait, 4, 1),
        ("predecessor 3 x 2", RecipeId::Predecessor, 3, 2),
    ];
    if args.large {
        cases.push(("fixed-wait N=5", RecipeId::FixedWait, 5, 1));
        cases.push(("fixed-wait N=6", RecipeId::FixedWait, 6, 1));
        cases.push(("predecessor 4 x 2", RecipeId::Predecessor, 4, 2));
    }
    for (name, recipe, n, k) in cases {
        let mut cfg = CheckConfig::new(recipe, n, k);
        cfg.max_states = 30_000_000;
        cfg.max_memory = 8 << 30;
        let t = Instant::now();
        let r = check(&cfg);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let verdict = match r.property {
            Some(p) => format!("{}:{}", r.verdict, short(p)),
            None => r.verdict.to_string(),
        };
        println!(
            "{:<34} {:>10} {:>12} {:>10.1} {:>12.0} {:>11} {:>12.1}",
            name,
            verdict,
            r.states,
            ms,
            r.states as f64 / (ms / 1e3).max(1e-9),
            r.peak_bytes / r.states.max(1),
            super::peak_memory_bytes().unwrap_or(0) as f64 / 1e6
        );
        if let Some(b) = &r.bound {
            println!("{:<34} bound hit: {b} — incomplete, not holds", "");
        }
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
    println!("(one thread; wall time is the whole exploration, so an upper bound on the time to find a violation; bytes/state is the checker's tables per stored state; peak RSS is the process's high-water mark so far)");
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
        Property::OrphanedNode => "orphan",
    }
}
