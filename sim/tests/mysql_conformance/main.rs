//! Differential conformance: the InnoDB model (`locksmith_model::mysql`)
//! against a real MariaDB 10.11.
//!
//! proptest generates sequences of statements on three lock names from
//! three connections (one with `CLIENT_FOUND_ROWS`), each with
//! `innodb_lock_wait_timeout` = 1 s: `START TRANSACTION`, `COMMIT`,
//! `ROLLBACK`, `INSERT`, `DELETE`, `SELECT … FOR UPDATE`, autocommit
//! `SELECT`, and `UPDATE … WHERE` with status and version guards; steps
//! that let a lock wait time out; and `KILL`s. Each statement goes to the
//! real server and to the model. Compared: every reply (OK with affected
//! rows and the AUTO_INCREMENT id, the row, the error code and text), and
//! which statements wait — a statement the model has waiting must show
//! `LOCK WAIT` in `information_schema.INNODB_TRX`, and must not answer,
//! until the model lets it finish.
//!
//! Kept out of the generated sequences, so that a case has one outcome:
//! a second statement waiting while one already waits (which of two
//! waiters InnoDB wakes first is a race between their threads), a plain
//! `SELECT` inside a transaction (its read view would hold purge back),
//! and the time before purge: after a committed DELETE the test waits
//! until InnoDB has purged it (`SET GLOBAL innodb_max_purge_lag_wait=0`),
//! because the model removes a deleted row at once.
//!
//! These tests need a server and are ignored by a plain `cargo test`:
//!
//! ```text
//! scripts/mariadb.sh start
//! cargo test -p locksmith --test mysql_conformance -- --ignored --nocapture --test-threads=1
//! scripts/mariadb.sh stop
//! ```
//!
//! `LOCKSMITH_MYSQL_URL` (default mysql://locksmith@127.0.0.1:3390/locksmith)
//! names the server; `PROPTEST_CASES` sets the number of sequences
//! (default 200); `LOCKSMITH_MYSQL_CONFORMANCE_MIN_OPS` (default 5000)
//! makes the run fail if fewer statements were compared. See
//! docs/conformance.md.
//!
//! Layout: `ops` draws the sequences, `case` runs one on both sides,
//! `harness` holds the connections and the figures.

mod case;
mod harness;
mod ops;

use case::{run_case, FOUND_ROWS};
use harness::Harness;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use std::time::Instant;

/// Longest sequence proptest draws.
const MAX_STEPS: usize = 60;

#[test]
#[ignore = "needs a real MariaDB: scripts/mariadb.sh start, then cargo test -p locksmith --test mysql_conformance -- --ignored"]
fn model_agrees_with_real_mariadb() {
    let h = Harness::connect(&FOUND_ROWS);
    let mut config = Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/mysql_conformance.proptest-regressions"
        )))),
        max_shrink_time: 60_000,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 200;
    }
    let cases = config.cases;
    let started = Instant::now();
    let mut runner = TestRunner::new(config);
    let first = std::cell::Cell::new(true);
    let result = runner.run(&ops::sequence(MAX_STEPS), |seq| {
        run_case(&h, &seq).map(|_| ()).map_err(|why| {
            if first.replace(false) {
                // Shrinking may take minutes: show the first one now.
                eprintln!("first disagreement, before shrinking:\n{why}");
            }
            TestCaseError::fail(why)
        })
    });
    let figures = h.figures.borrow();
    match result {
        Ok(()) => {
            println!(
                "mysql conformance: {figures} ({cases} cases in {:.1?}, MariaDB {} at {})\n\
                 what the agreeing statements exercised (statement, common reply, count):",
                started.elapsed(),
                h.version(),
                h.url
            );
            for (what, n) in &figures.coverage {
                println!("  {what:<40} {n:>6}");
            }
        }
        Err(TestError::Fail(why, seq)) => panic!(
            "\n\nThe model and the real MariaDB disagree. Minimal sequence:\n{seq:#?}\n\
             Step by step (model vs real):\n{why}\n(figures before shrinking ended: {figures})\n"
        ),
        Err(TestError::Abort(why)) => panic!("mysql conformance run aborted: {why}"),
    }
    let min = match std::env::var("LOCKSMITH_MYSQL_CONFORMANCE_MIN_OPS") {
        Err(_) => 5000,
        Ok(v) => v.parse::<u64>().unwrap_or_else(|_| {
            panic!("LOCKSMITH_MYSQL_CONFORMANCE_MIN_OPS={v:?} is not a whole number")
        }),
    };
    assert!(
        figures.statements >= min,
        "only {} statements compared, fewer than LOCKSMITH_MYSQL_CONFORMANCE_MIN_OPS={min}: \
         raise PROPTEST_CASES",
        figures.statements
    );
}
