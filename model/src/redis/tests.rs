//! The rules a lock depends on, each a case that a wrong model would fail.
//! The single-server rules (every reply of a command) are also run on a
//! real redis-server 7.0 as fixed sequences
//! (`sim/tests/redis_conformance/fixed.rs`, docs/conformance.md); the
//! clock jumps, restart and failover are not.

use super::*;

fn k() -> Key {
    Key::new("lock")
}

fn set(value: Value, condition: SetCondition, expiry: Option<Expiry>) -> Command {
    Command::Set {
        key: k(),
        value,
        condition,
        expiry,
    }
}

fn get() -> Command {
    Command::Get { key: k() }
}

fn pttl() -> Command {
    Command::PTtl { key: k() }
}

#[test]
fn set_nx_only_on_a_missing_key_and_xx_only_on_an_existing_one() {
    let mut s = RedisServer::new();
    assert_eq!(
        s.apply(&set(Value::Int(2), SetCondition::Xx, None)),
        Reply::Nil
    );
    assert_eq!(s.apply(&get()), Reply::Nil);
    assert_eq!(
        s.apply(&set(Value::Int(1), SetCondition::Nx, None)),
        Reply::Ok
    );
    assert_eq!(
        s.apply(&set(Value::Int(2), SetCondition::Nx, None)),
        Reply::Nil
    );
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Int(1)));
    assert_eq!(
        s.apply(&set(Value::Int(3), SetCondition::Xx, None)),
        Reply::Ok
    );
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Int(3)));
}

#[test]
fn a_non_positive_ttl_is_an_error_before_the_condition_is_looked_at() {
    let mut s = RedisServer::new();
    let err = Reply::Err(RedisError::InvalidExpire("set"));
    for e in [
        Expiry::Px(0),
        Expiry::Px(-5),
        Expiry::Ex(0),
        Expiry::Ex(i64::MAX),
    ] {
        assert_eq!(
            s.apply(&set(Value::Int(1), SetCondition::Always, Some(e))),
            err
        );
    }
    assert_eq!(s.apply(&get()), Reply::Nil, "an error writes nothing");
    s.apply(&set(Value::Int(1), SetCondition::Always, None));
    // The key exists, so NX would answer nil, but the TTL is checked first.
    assert_eq!(
        s.apply(&set(Value::Int(2), SetCondition::Nx, Some(Expiry::Px(0)))),
        err
    );
    assert_eq!(
        err.to_string(),
        "(error) ERR invalid expire time in 'set' command"
    );
}

#[test]
fn pttl_says_minus_two_without_the_key_and_minus_one_without_a_ttl() {
    let mut s = RedisServer::new();
    assert_eq!(s.apply(&pttl()), Reply::Int(-2));
    s.apply(&set(Value::Int(1), SetCondition::Always, None));
    assert_eq!(s.apply(&pttl()), Reply::Int(-1));
    s.apply(&set(
        Value::Int(1),
        SetCondition::Always,
        Some(Expiry::Ex(3)),
    ));
    assert_eq!(s.apply(&pttl()), Reply::Int(3000));
}

#[test]
fn a_key_lives_until_the_clock_is_past_its_deadline() {
    let mut s = RedisServer::new();
    s.apply(&set(Value::Int(1), SetCondition::Nx, Some(Expiry::Px(10))));
    s.advance(10);
    assert_eq!(
        s.apply(&pttl()),
        Reply::Int(0),
        "still there at the deadline"
    );
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Int(1)));
    s.advance(1);
    assert_eq!(s.apply(&get()), Reply::Nil);
    assert_eq!(s.apply(&pttl()), Reply::Int(-2));
    assert!(s.keys().is_empty(), "an expired key is gone, not hidden");
    assert_eq!(
        s.apply(&set(Value::Int(2), SetCondition::Nx, None)),
        Reply::Ok
    );
}

#[test]
fn set_without_a_ttl_removes_the_old_one() {
    let mut s = RedisServer::new();
    s.apply(&set(
        Value::Int(1),
        SetCondition::Always,
        Some(Expiry::Px(100)),
    ));
    s.apply(&set(Value::Int(2), SetCondition::Xx, None));
    assert_eq!(s.apply(&pttl()), Reply::Int(-1));
}

#[test]
fn getset_returns_the_old_value_and_removes_the_ttl() {
    let mut s = RedisServer::new();
    let getset = |v| Command::GetSet { key: k(), value: v };
    assert_eq!(s.apply(&getset(Value::Stamp(5))), Reply::Nil);
    s.apply(&Command::PExpire { key: k(), ms: 100 });
    assert_eq!(s.apply(&pttl()), Reply::Int(100));
    assert_eq!(
        s.apply(&getset(Value::Stamp(9))),
        Reply::Bulk(Value::Stamp(5))
    );
    assert_eq!(s.apply(&pttl()), Reply::Int(-1));
}

#[test]
fn setnx_answers_one_or_zero_and_sets_no_ttl() {
    let mut s = RedisServer::new();
    let setnx = |v| Command::SetNx { key: k(), value: v };
    assert_eq!(s.apply(&setnx(Value::Int(1))), Reply::Int(1));
    assert_eq!(s.apply(&setnx(Value::Int(2))), Reply::Int(0));
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Int(1)));
    assert_eq!(s.apply(&pttl()), Reply::Int(-1));
}

#[test]
fn expire_on_a_missing_key_is_zero_and_a_non_positive_one_deletes() {
    let mut s = RedisServer::new();
    assert_eq!(
        s.apply(&Command::Expire {
            key: k(),
            seconds: 5
        }),
        Reply::Int(0)
    );
    assert_eq!(
        s.apply(&Command::PExpire { key: k(), ms: 5 }),
        Reply::Int(0)
    );
    s.apply(&set(Value::Int(1), SetCondition::Always, None));
    assert_eq!(
        s.apply(&Command::Expire {
            key: k(),
            seconds: 2
        }),
        Reply::Int(1)
    );
    assert_eq!(s.apply(&pttl()), Reply::Int(2000));
    assert_eq!(
        s.apply(&Command::PExpire { key: k(), ms: 0 }),
        Reply::Int(1)
    );
    assert_eq!(s.apply(&get()), Reply::Nil);
    assert_eq!(
        s.apply(&Command::Expire {
            key: k(),
            seconds: i64::MAX
        }),
        Reply::Err(RedisError::InvalidExpire("expire"))
    );
}

#[test]
fn incr_counts_from_zero_keeps_the_ttl_and_refuses_text() {
    let mut s = RedisServer::new();
    let incr = Command::Incr { key: k() };
    assert_eq!(s.apply(&incr), Reply::Int(1));
    assert_eq!(s.apply(&pttl()), Reply::Int(-1));
    s.apply(&Command::PExpire { key: k(), ms: 500 });
    s.advance(100);
    assert_eq!(s.apply(&incr), Reply::Int(2));
    assert_eq!(s.apply(&pttl()), Reply::Int(400), "INCR keeps the TTL");
    s.apply(&set(Value::text("abc"), SetCondition::Always, None));
    let not_int = Reply::Err(RedisError::NotAnInteger);
    assert_eq!(s.apply(&incr), not_int);
    assert_eq!(
        not_int.to_string(),
        "(error) ERR value is not an integer or out of range"
    );
    s.apply(&set(Value::Stamp(41), SetCondition::Always, None));
    assert_eq!(s.apply(&incr), Reply::Stamp(42));
    s.apply(&set(
        Value::text(&i64::MAX.to_string()),
        SetCondition::Always,
        None,
    ));
    assert_eq!(s.apply(&incr), Reply::Err(RedisError::IncrOverflow));
}

#[test]
fn stamps_move_with_real_time_but_not_with_the_servers_clock() {
    let mut s = RedisServer::new();
    s.apply(&set(
        Value::Stamp(1000),
        SetCondition::Always,
        Some(Expiry::Px(1000)),
    ));
    s.advance(300);
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Stamp(700)));
    assert_eq!(s.apply(&pttl()), Reply::Int(700));
    s.jump_forward(200);
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Stamp(700)));
    assert_eq!(s.apply(&pttl()), Reply::Int(500));
    s.jump_back(1000);
    assert_eq!(
        s.apply(&pttl()),
        Reply::Int(1500),
        "a backward jump lengthens the lease"
    );
    s.jump_forward(1501);
    assert_eq!(s.apply(&get()), Reply::Nil);
}

#[test]
fn states_repeat_when_the_same_lease_is_taken_again_later() {
    let take = |s: &mut RedisServer| {
        s.apply(&set(
            Value::Stamp(50),
            SetCondition::Nx,
            Some(Expiry::Px(50)),
        ))
    };
    let mut a = RedisServer::new();
    take(&mut a);
    let first = a.clone();
    a.advance(51);
    assert_eq!(a, RedisServer::new());
    take(&mut a);
    assert_eq!(a, first);
}

#[test]
fn compare_and_delete_deletes_only_the_callers_value() {
    let mut s = RedisServer::new();
    let cad = |v| Command::CompareAndDelete { key: k(), value: v };
    assert_eq!(s.apply(&cad(Value::Int(1))), Reply::Int(0), "missing key");
    s.apply(&set(Value::Int(7), SetCondition::Always, None));
    assert_eq!(s.apply(&cad(Value::Int(1))), Reply::Int(0));
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Int(7)));
    assert_eq!(s.apply(&cad(Value::text("7"))), Reply::Int(1), "same bytes");
    assert_eq!(s.apply(&get()), Reply::Nil);
}

#[test]
fn compare_and_extend_renews_only_the_callers_lease() {
    let mut s = RedisServer::new();
    let cae = |v, ms| Command::CompareAndExtend {
        key: k(),
        value: v,
        ms,
    };
    s.apply(&set(
        Value::Int(7),
        SetCondition::Always,
        Some(Expiry::Px(100)),
    ));
    assert_eq!(s.apply(&cae(Value::Int(8), 500)), Reply::Int(0));
    assert_eq!(s.apply(&pttl()), Reply::Int(100));
    assert_eq!(s.apply(&cae(Value::Int(7), 500)), Reply::Int(1));
    assert_eq!(s.apply(&pttl()), Reply::Int(500));
    assert_eq!(s.apply(&cae(Value::Int(7), -1)), Reply::Int(1));
    assert_eq!(
        s.apply(&get()),
        Reply::Nil,
        "a non-positive extension deletes"
    );
}

#[test]
fn set_nx_px_incr_takes_the_lock_and_its_token_in_one_command() {
    let mut s = RedisServer::new();
    let fence = Key::new("fence");
    let lock = |v: i64| Command::SetNxPxIncr {
        key: k(),
        value: Value::Int(v),
        ms: 100,
        fence: fence.clone(),
    };
    assert_eq!(s.apply(&lock(1)), Reply::Int(1), "set, first token");
    assert_eq!(s.apply(&pttl()), Reply::Int(100));
    assert_eq!(s.apply(&lock(2)), Reply::Nil, "taken: no token drawn");
    assert_eq!(
        s.apply(&Command::Get { key: fence.clone() }),
        Reply::Bulk(Value::Int(1))
    );
    s.advance(101);
    assert_eq!(s.apply(&lock(2)), Reply::Int(2), "expired: the next token");
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Int(2)));
    // INCR's error comes after the SET, which stays (a script is not
    // rolled back).
    s.apply(&Command::Del { key: k() });
    s.apply(&Command::Set {
        key: fence.clone(),
        value: Value::text("x"),
        condition: SetCondition::Always,
        expiry: None,
    });
    assert!(matches!(s.apply(&lock(3)), Reply::Err(_)));
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Int(3)));
    // The token goes through Lua's doubles: past 2^63 it comes back as
    // i64::MIN, as on a real redis-server.
    s.apply(&Command::Del { key: k() });
    s.apply(&Command::Set {
        key: fence.clone(),
        value: Value::text(&(i64::MAX - 1).to_string()),
        condition: SetCondition::Always,
        expiry: None,
    });
    assert_eq!(s.apply(&lock(4)), Reply::Int(i64::MIN));
}

#[test]
fn del_counts_what_it_removed() {
    let mut s = RedisServer::new();
    assert_eq!(s.apply(&Command::Del { key: k() }), Reply::Int(0));
    s.apply(&set(Value::Int(1), SetCondition::Always, None));
    assert_eq!(s.apply(&Command::Del { key: k() }), Reply::Int(1));
    assert_eq!(s.apply(&get()), Reply::Nil);
}

#[test]
fn restart_without_persistence_loses_every_key() {
    let mut s = RedisServer::with_replica();
    s.apply(&set(Value::Int(1), SetCondition::Always, None));
    s.replicate_one();
    s.restart();
    assert!(s.keys().is_empty());
    assert!(s.replica_keys().is_some_and(Keyspace::is_empty));
}

#[test]
fn failover_loses_the_writes_the_replica_missed() {
    let mut s = RedisServer::with_replica();
    assert_eq!(
        s.apply(&set(Value::Int(1), SetCondition::Nx, Some(Expiry::Px(100)))),
        Reply::Ok
    );
    // Writes that change nothing are not replicated.
    assert_eq!(
        s.apply(&set(Value::Int(2), SetCondition::Nx, None)),
        Reply::Nil
    );
    assert_eq!(s.unreplicated(), 1);
    assert!(s.replicate_one());
    assert!(!s.replicate_one());
    assert_eq!(s.apply(&Command::Del { key: k() }), Reply::Int(1));
    assert_eq!(
        s.apply(&set(Value::Int(3), SetCondition::Nx, None)),
        Reply::Ok
    );
    assert_eq!(s.unreplicated(), 2);
    s.advance(40);
    assert_eq!(s.failover(), Some(2));
    // The promoted replica has the first lease, aged like the primary's.
    assert_eq!(s.apply(&get()), Reply::Bulk(Value::Int(1)));
    assert_eq!(s.apply(&pttl()), Reply::Int(60));
    assert_eq!(s.unreplicated(), 0);
    assert_eq!(RedisServer::new().failover(), None);
}

#[test]
fn a_queued_write_whose_lease_ran_out_ships_as_a_removal() {
    let mut s = RedisServer::with_replica();
    s.apply(&set(Value::Int(1), SetCondition::Always, None));
    s.replicate_one();
    s.apply(&set(
        Value::Int(2),
        SetCondition::Always,
        Some(Expiry::Px(10)),
    ));
    s.advance(11);
    assert_eq!(s.apply(&get()), Reply::Nil);
    s.replicate_one();
    assert!(s.replica_keys().is_some_and(Keyspace::is_empty));
}

#[test]
fn the_scripts_are_the_standard_ones() {
    assert_eq!(
        COMPARE_AND_DELETE_LUA,
        "if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"del\",KEYS[1]) else return 0 end"
    );
    assert_eq!(
        COMPARE_AND_EXTEND_LUA,
        "if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"pexpire\",KEYS[1],ARGV[2]) else return 0 end"
    );
    assert_eq!(
        SET_NX_PX_INCR_LUA,
        "if redis.call(\"set\",KEYS[1],ARGV[1],\"NX\",\"PX\",ARGV[2]) then return redis.call(\"incr\",KEYS[2]) else return false end"
    );
}

/// What the unlock-by-non-owner monitors count as a write over the key:
/// a GETSET or a SET that answers OK stores its value even when it equals
/// the one there; a failed SETNX, a GET and a DEL of nothing do not write.
#[test]
fn a_write_of_the_same_value_is_still_a_write() {
    let mut s = RedisServer::new();
    let wrote = |s: &mut RedisServer, cmd: &Command| {
        let before = s.entry(&k()).map(|e| e.value.clone());
        let reply = s.apply(cmd);
        let after = s.entry(&k()).map(|e| e.value.clone());
        cmd.wrote(before.as_ref(), after.as_ref(), &reply)
    };
    let del = Command::Del { key: k() };
    assert!(!wrote(&mut s, &del), "DEL of a missing key");
    let setnx = Command::SetNx {
        key: k(),
        value: Value::Stamp(4),
    };
    assert!(wrote(&mut s, &setnx), "SETNX of a missing key");
    assert!(!wrote(&mut s, &setnx), "SETNX of an existing key");
    assert!(!wrote(&mut s, &get()));
    let getset = Command::GetSet {
        key: k(),
        value: Value::Stamp(4),
    };
    assert!(wrote(&mut s, &getset), "GETSET of the same value");
    let same = set(Value::Stamp(4), SetCondition::Always, None);
    assert!(wrote(&mut s, &same), "SET of the same value");
    let nx = set(Value::Stamp(4), SetCondition::Nx, None);
    assert!(!wrote(&mut s, &nx), "SET NX on an existing key");
    assert!(wrote(&mut s, &del), "DEL of the key");
}
