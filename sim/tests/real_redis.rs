//! `locksmith real --redis` against a real redis-server: each of source 003's
//! and 004's recipes keeps mutual exclusion while holders stay inside
//! their lease, and loses it as soon as a holder works past the lease (seed
//! 003's slow process A); source 003's second caller loses it with no
//! overrun at all. A run touches no key but its own.
//!
//! Needs a server: `scripts/redis.sh start`, then
//! `LOCKSMITH_REDIS_ADDR=127.0.0.1:6390 cargo test -p locksmith --test
//! real_redis -- --ignored` (CI: `scripts/ci-redis.sh`).

use locksmith::real::threads::Plan;
use locksmith::real::times::Between;
use locksmith::redis::real::{run, RedisRealConfig, RedisRealReport};
use locksmith_model::engine::harness::Property;
use locksmith_model::redis::recipes::RedisRecipe;
use std::time::Duration;

fn addr() -> String {
    std::env::var("LOCKSMITH_REDIS_ADDR").unwrap_or_else(|_| "127.0.0.1:6390".into())
}

fn ms(s: &str) -> Between {
    Between::parse_ms(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn real(recipe: RedisRecipe, clients: usize, hold: &str, lease_ms: i64) -> RedisRealReport {
    let cfg = RedisRealConfig {
        recipe,
        addr: addr(),
        lease_ms,
        plan: Plan {
            clients,
            seconds: 1.5,
            seed: 7,
            hold: ms(hold),
            think: ms("0,5"),
            stall_after: Duration::from_secs(5),
            interrupt: None,
            fencing: false,
        },
    };
    let r = run(&cfg).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "{recipe} × {clients}, hold {hold} ms, lease {lease_ms} ms: {} acquisitions, {} gave up, \
         {:.2} commands per acquisition, overlaps {}, most holders {}, violation {:?}",
        r.run.acquisitions,
        r.run.gave_up,
        r.run.commands_per_acquisition(),
        r.run.overlapping_holders,
        r.run.max_holders,
        r.run.violation
    );
    assert!(r.run.exceptions.is_empty(), "{:?}", r.run.exceptions);
    assert!(r.cleanup.is_ok(), "{:?}", r.cleanup);
    r
}

/// Every recipe whose holders return the lock correctly.
const RELEASING_OWN: [RedisRecipe; 8] = [
    RedisRecipe::SetPxDel,
    RedisRecipe::CompareAndDelete,
    RedisRecipe::SetNxExpire,
    RedisRecipe::SetNxDel,
    RedisRecipe::AcquireLock,
    RedisRecipe::GetThenDel,
    RedisRecipe::SetNxGetSet,
    RedisRecipe::SetPxToken,
];

#[test]
#[ignore = "needs a redis-server: scripts/redis.sh start; LOCKSMITH_REDIS_ADDR=127.0.0.1:6390 cargo test --test real_redis -- --ignored"]
fn holders_inside_their_lease_keep_mutual_exclusion() {
    for recipe in RELEASING_OWN {
        let r = real(recipe, 4, "2,10", 200);
        assert_eq!(r.run.violation, None, "{recipe}");
        assert_eq!(r.run.max_holders, 1, "{recipe}");
        assert!(
            r.run.acquisitions >= 20,
            "{recipe}: only {} acquisitions",
            r.run.acquisitions
        );
    }
}

#[test]
#[ignore = "needs a redis-server: scripts/redis.sh start; LOCKSMITH_REDIS_ADDR=127.0.0.1:6390 cargo test --test real_redis -- --ignored"]
fn a_holder_working_past_its_lease_shares_the_lock() {
    for recipe in RELEASING_OWN {
        let r = real(recipe, 3, "150", 50);
        let (p, why) = r
            .run
            .violation
            .clone()
            .unwrap_or_else(|| panic!("{recipe}: no violation"));
        assert_eq!(p, Property::MutualExclusion, "{recipe}: {why}");
        assert!(
            r.run.overlapping_holders >= 1 && r.run.max_holders >= 2,
            "{recipe}"
        );
    }
}

#[test]
#[ignore = "needs a redis-server: scripts/redis.sh start; LOCKSMITH_REDIS_ADDR=127.0.0.1:6390 cargo test --test real_redis -- --ignored"]
fn seed_003s_second_caller_frees_the_lock_it_does_not_hold() {
    // No overrun: the caller whose acquireLock returned false still runs
    // releaseLock, and its time compare deletes the holder's live key.
    let r = real(RedisRecipe::AcquireLockAlwaysRelease, 4, "2,10", 1000);
    let (p, _) = r.run.violation.clone().expect("a violation");
    assert_eq!(p, Property::MutualExclusion);
}

#[test]
#[ignore = "needs a redis-server: scripts/redis.sh start; LOCKSMITH_REDIS_ADDR=127.0.0.1:6390 cargo test --test real_redis -- --ignored"]
fn a_run_touches_no_key_but_its_own() {
    let client = redis::Client::open(format!("redis://{}/", addr())).expect("an address");
    let mut conn = client.get_connection().expect("a connection");
    let planted = [("lock", "someone-else"), ("user:1", "data")];
    for (k, v) in planted {
        let () = redis::cmd("SET")
            .arg(k)
            .arg(v)
            .query(&mut conn)
            .expect("SET");
    }
    let before: i64 = redis::cmd("DBSIZE").query(&mut conn).expect("DBSIZE");
    for recipe in [
        RedisRecipe::SetPxDel,
        RedisRecipe::AcquireLock,
        RedisRecipe::AcquireLockAlwaysRelease,
    ] {
        real(recipe, 3, "1,5", 100);
    }
    let after: i64 = redis::cmd("DBSIZE").query(&mut conn).expect("DBSIZE");
    assert_eq!(before, after, "a run left a key behind or took one away");
    for (k, v) in planted {
        let got: Option<String> = redis::cmd("GET").arg(k).query(&mut conn).expect("GET");
        assert_eq!(got.as_deref(), Some(v), "{k} changed");
        let ttl: i64 = redis::cmd("PTTL").arg(k).query(&mut conn).expect("PTTL");
        assert_eq!(ttl, -1, "{k} got a TTL");
        let _: i64 = redis::cmd("DEL").arg(k).query(&mut conn).expect("DEL");
    }
}

/// Fenced, on the real server: holders working past their lease still
/// overlap in belief, but the resource (in the run's process) rejects every
/// stale holder's write — with the token the lock script draws, none gets
/// through out of order.
#[test]
#[ignore = "needs a redis-server: scripts/redis.sh start; LOCKSMITH_REDIS_ADDR=127.0.0.1:6390 cargo test --test real_redis -- --ignored"]
fn a_fenced_resource_rejects_the_holders_past_their_lease() {
    for recipe in [RedisRecipe::SetPxToken, RedisRecipe::CompareAndDelete] {
        let cfg = RedisRealConfig {
            recipe,
            addr: addr(),
            lease_ms: 50,
            plan: Plan {
                clients: 3,
                seconds: 1.5,
                seed: 7,
                hold: ms("80,150"),
                think: ms("0,20"),
                stall_after: Duration::from_secs(5),
                interrupt: None,
                fencing: true,
            },
        };
        let r = run(&cfg).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{recipe} fenced × 3, hold 80-150 ms, lease 50 ms: {} acquisitions, overlaps {}, \
             {} stale writes rejected, at the resource {:?}",
            r.run.acquisitions, r.run.overlapping_holders, r.run.rejected_writes, r.run.at_resource
        );
        assert!(r.cleanup.is_ok(), "{:?}", r.cleanup);
        let (p, _) = r.run.violation.clone().expect("overlapping beliefs");
        assert_eq!(p, Property::MutualExclusion, "{recipe}");
        assert!(r.run.rejected_writes >= 1, "{recipe}");
        if recipe == RedisRecipe::SetPxToken {
            assert!(r.run.at_resource.is_empty(), "{:?}", r.run.at_resource);
        }
    }
}
