//! Differential conformance: the ZooKeeper model against a real ZooKeeper 3.8.
//!
//! proptest generates sequences of requests from 2–3 sessions over a small
//! set of paths (every create mode, deletes and setData with and without
//! versions, exists/getData/getChildren with and without watches, session
//! close) and runs each one, step by step, against the model
//! (`locksmith_model::zk::ZkServer`) and a real server, comparing after every
//! step:
//!
//! - the reply: result or error code; a created node's name with its
//!   sequential suffix and the stat the server returns for it; data;
//!   sorted children lists; every `Stat` field but `ctime`/`mtime` (the
//!   model has no clock): czxid, mzxid, pzxid, version, cversion,
//!   ephemeralOwner, dataLength, numChildren (and `aversion` is 0);
//! - each session's watch notifications, in the order it received them;
//! - container reaping: when the model says a container is reapable, the
//!   real server must delete it (the test waits for its reaper, which
//!   `scripts/zookeeper.sh` runs every 100 ms), with the same notifications.
//!
//! **zxids.** The real server's zxids count its whole history (earlier
//! cases, the observer session), so they are compared through one offset per
//! case: the real minus the model czxid of the case's root. Every later zxid
//! must be exactly `model + offset`. That is sound because nothing else writes
//! to the server while a case runs (one test thread; every session of the
//! previous case closed and every container it emptied reaped before the next
//! starts), and it is strict: it checks that session creation and close,
//! failed writes and reaps consume zxids exactly as the model says.
//!
//! **Session ids** are mapped by opening order: the model's session `k` is
//! the `k`-th real session of the case, and ephemeral owners are compared
//! through that map.
//!
//! These tests need a server and are ignored by a plain `cargo test`:
//!
//! ```text
//! scripts/zookeeper.sh start
//! cargo test -p locksmith --test conformance -- --ignored --nocapture
//! scripts/zookeeper.sh stop
//! ```
//!
//! `PROPTEST_CASES` sets the number of sequences; `LOCKSMITH_ZK_ADDR` the
//! server (default 127.0.0.1:2181); `LOCKSMITH_CONFORMANCE_MIN_OPS` makes
//! the run fail if fewer operations were compared. See docs/conformance.md.
//!
//! Layout: `ops` draws the sequences, `case` runs one on both sides,
//! `view` and `compare` put the replies and notifications side by side,
//! `reap` follows the container reaper, `fixed` lists the fixed cases,
//! `harness` holds the runtime, the observer and the figures, and `peer` is
//! the real side of a session (the adapter `locksmith::zk::real`).

#[path = "../common/mod.rs"]
mod common;

mod case;
mod compare;
mod fixed;
mod harness;
mod ops;
mod peer;
mod reap;
mod view;

use case::run_case;
use harness::Harness;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Longest sequence proptest draws.
const MAX_STEPS: usize = 40;

/// The measured figure: proptest's sequences against the real server.
#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: run scripts/zookeeper.sh start, then cargo test -p locksmith --test conformance -- --ignored"]
fn model_agrees_with_real_zookeeper() {
    let h = Harness::connect();
    let mut config = Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/conformance.proptest-regressions"
        )))),
        max_shrink_time: 180_000,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 64;
    }
    let cases = config.cases;
    let started = Instant::now();
    let mut runner = TestRunner::new(config);
    let result = runner.run(&ops::sequence(MAX_STEPS), |seq| {
        h.wait_until_alone().map_err(TestCaseError::fail)?;
        h.rt.block_on(run_case(&h, &seq))
            .map(|_| ())
            .map_err(TestCaseError::fail)
    });
    let figures = h.figures();
    match result {
        Ok(()) => {
            println!(
                "conformance: {figures}; 0 disagreements ({cases} cases in {:.1?}, server {})\n\
                 what the agreeing steps exercised:\n{}",
                started.elapsed(),
                h.addr,
                h.coverage()
            );
        }
        Err(TestError::Fail(why, seq)) => panic!(
            "\n\nThe model and the real ZooKeeper disagree. Minimal sequence:\n{seq:?}\n\
             Step by step (model vs real):\n{why}\n(figures before shrinking ended: {figures})\n"
        ),
        Err(TestError::Abort(why)) => panic!("conformance run aborted: {why}"),
    }
    if let Some(min) = std::env::var("LOCKSMITH_CONFORMANCE_MIN_OPS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        let ops = h.totals.ops.load(Ordering::Relaxed);
        assert!(
            ops >= min,
            "only {ops} operations compared, fewer than LOCKSMITH_CONFORMANCE_MIN_OPS={min}: \
             raise PROPTEST_CASES"
        );
    }
}

/// The points the model was least sure of, as fixed sequences.
#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: run scripts/zookeeper.sh start, then cargo test -p locksmith --test conformance -- --ignored"]
fn fixed_cases_agree_with_real_zookeeper() {
    let h = Harness::connect();
    let mut failures = Vec::new();
    for (what, seq) in fixed::fixed_cases() {
        if let Err(e) = h.wait_until_alone() {
            panic!("{e}");
        }
        match h.rt.block_on(run_case(&h, &seq)) {
            Ok(transcript) => println!("--- {what}: agree\n{transcript}"),
            Err(report) => failures.push(format!("--- {what}: DISAGREE\n{seq:?}{report}")),
        }
    }
    println!("conformance (fixed cases): {}", h.figures());
    assert!(
        failures.is_empty(),
        "\n\nThe model and the real ZooKeeper disagree:\n{}",
        failures.join("\n")
    );
}
