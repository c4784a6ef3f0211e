//! `locksmith real --etcd` against a real etcd 3.4: with no fault each
//! lock keeps mutual exclusion; etcd's `Mutex` wakes one waiter per
//! release while the naive transaction lock wakes every waiter watching
//! its key (a herd); and a run touches no key or lease but its own.
//!
//! Needs a server: `scripts/etcd.sh start`, then
//! `LOCKSMITH_ETCD_ADDR=127.0.0.1:2390 cargo test -p locksmith --test
//! real_etcd -- --ignored --test-threads=1` (CI: `scripts/ci-etcd.sh`).

use locksmith::etcd::real::wire::Gateway;
use locksmith::etcd::real::{run, EtcdRealConfig, EtcdRealReport};
use locksmith::real::threads::Plan;
use locksmith::real::times::Between;
use locksmith_model::etcd::recipes::EtcdRecipe;
use locksmith_model::etcd::{Put, Range, Reply, Request};
use std::time::Duration;

fn addr() -> String {
    std::env::var("LOCKSMITH_ETCD_ADDR").unwrap_or_else(|_| "127.0.0.1:2390".into())
}

fn ms(s: &str) -> Between {
    Between::parse_ms(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn real(recipe: EtcdRecipe, clients: usize, hold: &str) -> EtcdRealReport {
    let cfg = EtcdRealConfig {
        recipe,
        addr: addr(),
        ttl_seconds: 5,
        plan: Plan {
            clients,
            seconds: 1.5,
            seed: 7,
            hold: ms(hold),
            think: ms("0,2"),
            stall_after: Duration::from_secs(5),
            interrupt: None,
            fencing: false,
        },
    };
    let r = run(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let per = |n: u64| n as f64 / r.run.acquisitions.max(1) as f64;
    eprintln!(
        "{recipe} × {clients}, hold {hold} ms: {} acquisitions, {:.2} commands, {:.2} watch events \
         and {:.2} wake-ups per acquisition, most holders {}, violation {:?}",
        r.run.acquisitions,
        r.run.commands_per_acquisition(),
        per(r.notifications),
        per(r.wakeups),
        r.run.max_holders,
        r.run.violation
    );
    assert!(r.cleanup.is_ok(), "{:?}", r.cleanup);
    r
}

#[test]
#[ignore = "needs an etcd: scripts/etcd.sh start; LOCKSMITH_ETCD_ADDR=127.0.0.1:2390 cargo test --test real_etcd -- --ignored"]
fn with_no_fault_every_lock_keeps_mutual_exclusion() {
    for recipe in EtcdRecipe::ALL {
        let r = real(recipe, 3, "1,3");
        assert_eq!(r.run.violation, None, "{recipe}");
        assert_eq!(r.run.max_holders, 1, "{recipe}");
        assert!(
            r.run.acquisitions >= 10,
            "{recipe}: only {} acquisitions",
            r.run.acquisitions
        );
    }
}

/// `waitDeletes` watches the one key before the waiter's own: a release
/// ends one wait. The naive lock's waiters all watch the lock's key: a
/// release ends every one of their waits.
#[test]
#[ignore = "needs an etcd: scripts/etcd.sh start; LOCKSMITH_ETCD_ADDR=127.0.0.1:2390 cargo test --test real_etcd -- --ignored"]
fn the_mutex_wakes_one_waiter_per_release_and_the_naive_lock_a_herd() {
    for recipe in [EtcdRecipe::Mutex, EtcdRecipe::Mutex35] {
        let r = real(recipe, 5, "2,5");
        assert!(
            r.wakeups <= r.run.acquisitions,
            "{recipe}: {} wake-ups for {} acquisitions",
            r.wakeups,
            r.run.acquisitions
        );
    }
    let r = real(EtcdRecipe::TxnLease, 5, "2,5");
    assert!(
        r.wakeups as f64 >= 1.5 * r.run.acquisitions as f64,
        "{} wake-ups for {} acquisitions",
        r.wakeups,
        r.run.acquisitions
    );
}

#[test]
#[ignore = "needs an etcd: scripts/etcd.sh start; LOCKSMITH_ETCD_ADDR=127.0.0.1:2390 cargo test --test real_etcd -- --ignored"]
fn a_run_touches_no_key_but_its_own() {
    let (g, _) = Gateway::connect(&addr()).expect("an etcd");
    let planted = ["lock", "lock/1", "locksmith-7"];
    for key in planted {
        let put = Request::Put(Put {
            key: key.into(),
            value: "someone-else".into(),
            lease: None,
        });
        g.call(&put).expect("put");
    }
    // Every key a run could touch: the recipes' own names and the runs'.
    let everything = |g: &Gateway| match g.call(&Request::Range(Range {
        prefix: true,
        ..Range::key("lock")
    })) {
        Ok(Reply::Range { kvs, .. }) => kvs,
        other => panic!("{other:?}"),
    };
    let before = everything(&g);
    for recipe in EtcdRecipe::ALL {
        real(recipe, 2, "1,2");
    }
    assert_eq!(
        everything(&g),
        before,
        "a run left a key behind or changed one"
    );
    for key in planted {
        g.call(&Request::Delete {
            key: key.into(),
            prefix: false,
        })
        .expect("delete");
    }
}
