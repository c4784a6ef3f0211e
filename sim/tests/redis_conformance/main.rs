//! Differential conformance: the Redis model (`locksmith_model::redis`)
//! against a real redis-server 7.0.
//!
//! proptest generates sequences of commands over three keys from three
//! connections — every modelled command: `SET` with and without `NX`/`XX`
//! and `PX`/`EX` (non-positive TTLs too), `GET`, `DEL`, `SETNX`, `GETSET`,
//! `EXPIRE`, `PEXPIRE`, `PTTL`, `INCR`, and the compare-and-delete and
//! compare-and-extend scripts sent as `EVAL` of their exact text — with
//! integers, timestamps and text as values, and sleeps. Each command goes
//! to the real server and to the model, and the replies must be the same
//! bytes (nil, OK, integer, bulk string, error text).
//!
//! **Time.** The model advances, before each command, by the milliseconds
//! the test measured since the case began (the only wall clock here: it
//! feeds the model's time, never a verdict). A PTTL of a key with a TTL may
//! differ by `case::PTTL_TOLERANCE_MS`; everything else must agree
//! exactly. No command races an expiry (`ops`): TTLs are long (≥ 100 s)
//! or short (≤ 20 ms) and followed at once by a 50 ms sleep, so a short
//! lease is gone on both sides by the next command. Timestamps are sent as
//! the decimal of a fixed base plus the model's elapsed time plus their
//! offset (`locksmith_model::redis::Value::to_wire`).
//!
//! Not held against the server here: `restart`, the replica and
//! `failover`, and the server's clock jumps (they need a server restarted
//! or a clock moved under it).
//!
//! These tests need a server and are ignored by a plain `cargo test`:
//!
//! ```text
//! LOCKSMITH_REDIS_PORT=6390 scripts/redis.sh start
//! LOCKSMITH_REDIS_ADDR=127.0.0.1:6390 cargo test -p locksmith --test redis_conformance -- --ignored --nocapture
//! scripts/redis.sh stop
//! ```
//!
//! `PROPTEST_CASES` sets the number of sequences (default 350);
//! `LOCKSMITH_REDIS_CONFORMANCE_MIN_OPS` (default 5000) makes the run fail
//! if fewer commands were compared. See docs/conformance.md.
//!
//! Layout: `ops` draws the sequences, `case` runs one on both sides,
//! `locksmith::redis::real::wire` puts commands and replies in the server's
//! bytes (shared with `locksmith real --redis`), `fixed` lists
//! the fixed cases, `harness` holds the connections and the figures.

mod case;
mod fixed;
mod harness;
mod ops;

use case::run_case;
use harness::Harness;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use std::time::Instant;

/// Longest sequence proptest draws (commands; sleeps come on top).
const MAX_STEPS: usize = 40;

/// The measured figure: proptest's sequences against the real server.
#[test]
#[ignore = "needs a real redis-server: scripts/redis.sh start, then cargo test -p locksmith --test redis_conformance -- --ignored"]
fn model_agrees_with_real_redis() {
    let h = Harness::connect(ops::CONNECTIONS);
    let mut config = Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/redis_conformance.proptest-regressions"
        )))),
        max_shrink_time: 120_000,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 350;
    }
    let cases = config.cases;
    let started = Instant::now();
    let mut runner = TestRunner::new(config);
    let result = runner.run(&ops::sequence(MAX_STEPS), |seq| {
        run_case(&h, &seq).map(|_| ()).map_err(TestCaseError::fail)
    });
    let figures = h.figures.borrow();
    match result {
        Ok(()) => {
            println!(
                "redis conformance: {figures} ({cases} cases in {:.1?}, redis-server {} at {})\n\
                 what the agreeing commands exercised (command, common reply, count):",
                started.elapsed(),
                h.version(),
                h.addr
            );
            for (what, n) in &figures.coverage {
                println!("  {what:<60} {n:>6}");
            }
        }
        Err(TestError::Fail(why, seq)) => panic!(
            "\n\nThe model and the real redis-server disagree. Minimal sequence:\n{seq:?}\n\
             Step by step (model vs real):\n{why}\n(figures before shrinking ended: {figures})\n"
        ),
        Err(TestError::Abort(why)) => panic!("redis conformance run aborted: {why}"),
    }
    let min = match std::env::var("LOCKSMITH_REDIS_CONFORMANCE_MIN_OPS") {
        Err(_) => 5000,
        Ok(v) => v.parse::<u64>().unwrap_or_else(|_| {
            panic!("LOCKSMITH_REDIS_CONFORMANCE_MIN_OPS={v:?} is not a whole number")
        }),
    };
    assert!(
        figures.commands >= min,
        "only {} commands compared, fewer than LOCKSMITH_REDIS_CONFORMANCE_MIN_OPS={min}: \
         raise PROPTEST_CASES",
        figures.commands
    );
}

/// The rules the model's unit tests pin, as fixed sequences.
#[test]
#[ignore = "needs a real redis-server: scripts/redis.sh start, then cargo test -p locksmith --test redis_conformance -- --ignored"]
fn fixed_cases_agree_with_real_redis() {
    let h = Harness::connect(ops::CONNECTIONS);
    let mut failures = Vec::new();
    for (what, seq) in fixed::fixed_cases() {
        match run_case(&h, &seq) {
            Ok(transcript) => println!("--- {what}: agree\n{transcript}"),
            Err(report) => failures.push(format!("--- {what}: DISAGREE\n{report}")),
        }
    }
    println!("redis conformance (fixed cases): {}", h.figures.borrow());
    assert!(
        failures.is_empty(),
        "\n\nThe model and the real redis-server disagree:\n{}",
        failures.join("\n")
    );
}
