//! The simulator's side of docs/real.md's "Partition deadlines": how long
//! after a two-way partition the client library declares Disconnected and
//! the server expires the session, measured as
//! `scripts/partition-deadlines.sh` measures a real ZooKeeper (one idle
//! session, the partition at a spread of phases of its pings), and held to
//! the deadlines of ZooKeeper 3.8: Disconnected when nothing was heard for
//! 2/3 of the timeout, pings after 1/3 of it without sending, expiry on the
//! first tick after the last packet plus the timeout.
//!
//! `cargo test -p locksmith --test partition_deadlines -- --nocapture`
//! prints the figures.

use locksmith::zk::scenario::Scenario;
use locksmith::zk::sim::{run_seed, SimConfig};
use std::path::Path;

const TIMEOUT_MS: f64 = 4000.0;
const TICK_MS: f64 = 2000.0;
const TRIALS: u64 = 20;

/// Milliseconds after the partition of the client's Disconnected and of
/// the server's expiry of its session.
fn trial(i: u64) -> (f64, f64) {
    // Spread over a whole timeout, as the real script's random delay is.
    let at_ms = 200.0 + ((i * 2903) % 4000) as f64;
    let text = format!(
        "recipe = \"predecessor\"\nclients = 1\nacquisitions = 1\n[sim]\n\
         hold_ms = [20000, 20000]\nthink_ms = [0, 0]\n\
         [[sim.schedule]]\nat_ms = {at_ms}\nfault = \"partition\"\ntarget = 1\nduration_ms = 10000\n"
    );
    let sc = Scenario::parse(Path::new("partition-deadlines.toml"), &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let trace = run_seed(&SimConfig::of(&sc), i, true).trace.text();
    let at = |needle: &str| -> f64 {
        let line = trace
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in the trace:\n{trace}"));
        let ms: f64 = line
            .split_whitespace()
            .next()
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("no time in {line:?}"));
        ms
    };
    let partition = at("FAULT c1: partition");
    assert!((partition - at_ms).abs() < 1e-6, "{partition} vs {at_ms}");
    let disconnected = at("connection lost (nothing heard");
    let expired = at("of c1 expires");
    (disconnected - partition, expired - partition)
}

fn summary(xs: &mut [f64]) -> String {
    xs.sort_by(f64::total_cmp);
    format!(
        "min {:.0}, median {:.0}, max {:.0}",
        xs[0],
        xs[xs.len() / 2],
        xs[xs.len() - 1]
    )
}

#[test]
fn a_two_way_partition_is_noticed_and_expired_at_zookeepers_deadlines() {
    let (mut disc, mut exp, mut margin) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..TRIALS {
        let (d, e) = trial(i);
        // The last thing heard is a ping's reply, and pings go a third of
        // the timeout apart: Disconnected falls in (T/3, 2T/3] after.
        assert!(
            d > TIMEOUT_MS / 3.0 - 5.0 && d <= TIMEOUT_MS * 2.0 / 3.0,
            "trial {i}: Disconnected {d} ms after the partition"
        );
        // The server last heard that ping: expiry in (2T/3, T + tick].
        assert!(
            e > TIMEOUT_MS * 2.0 / 3.0 - 5.0 && e <= TIMEOUT_MS + TICK_MS,
            "trial {i}: expired {e} ms after the partition"
        );
        // With no other traffic the client always learns first, by at
        // least a third of the timeout less a round trip.
        assert!(
            e - d > TIMEOUT_MS / 3.0 - 5.0,
            "trial {i}: Disconnected {d} ms, expired {e} ms"
        );
        disc.push(d);
        exp.push(e);
        margin.push(e - d);
    }
    let (disc, exp, margin) = (summary(&mut disc), summary(&mut exp), summary(&mut margin));
    println!("simulator, session timeout {TIMEOUT_MS} ms, {TRIALS} trials");
    println!("partition to Disconnected (ms): {disc}");
    println!("partition to expiry (ms): {exp}");
    println!("Disconnected before expiry by (ms): {margin}");
    // The simulator's row of docs/real.md's table (deterministic: pinned).
    assert_eq!(disc, "min 1357, median 2067, max 2624");
    assert_eq!(exp, "min 3219, median 4503, max 5566");
    assert_eq!(margin, "min 1590, median 2287, max 3320");
}
