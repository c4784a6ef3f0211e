//! The seeds' Redis locks in the exhaustive checker, through the `Space`
//! seam (issue 14): each verdict, trace length and state count here comes
//! from exploring `RedisSpace` — two clients, one round each, a lease of 3
//! ticks, a critical section of 2, a pause of 4 — and each can fail.

mod backend_report;
mod reachable;

use locksmith_model::engine::Judged;
use locksmith_model::engine::{explore_space, Exploration};
use locksmith_model::redis::check::{Action, RedisSpace};
use locksmith_model::redis::recipes::RedisRecipe;
use locksmith_model::{zk::check::Property, zk::check::Verdict};
use std::ops::ControlFlow;

fn run(space: &RedisSpace) -> Exploration<Action> {
    space.validate().expect("a valid configuration");
    explore_space(space, &mut |_| ControlFlow::Continue(()))
}

fn with_pauses(recipe: RedisRecipe, pauses: u8) -> RedisSpace {
    let mut space = RedisSpace::new(recipe);
    space.faults.pauses = pauses;
    space
}

/// The shortest trace of `p`, narrated (and so replayed: every step must
/// be enabled where the trace takes it).
fn story(space: &RedisSpace, x: &Exploration<Action>, p: Property) -> Vec<String> {
    let cx = x.found.get(&p).unwrap_or_else(|| panic!("{p} violated"));
    let lines = space.narrate(&cx.actions).expect("the trace replays");
    for (i, l) in lines.iter().enumerate() {
        eprintln!("{p} {:>2}. {l}", i + 1);
    }
    lines
}

fn ticks(x: &Exploration<Action>, p: Property) -> usize {
    let actions = &x.found[&p].actions;
    actions.iter().filter(|&&a| a == Action::Tick).count()
}

#[test]
fn without_faults_both_set_px_locks_hold_with_their_exact_state_counts() {
    for recipe in [RedisRecipe::SetPxDel, RedisRecipe::CompareAndDelete] {
        let x = run(&RedisSpace::new(recipe));
        assert!(x.bound.is_none(), "{recipe}: {:?}", x.bound);
        assert!(x.found.is_empty(), "{recipe}: {:?}", x.found.keys());
        // Each client acquires on some path: the holds is not vacuous.
        assert_eq!(x.acquired, 0b11, "{recipe}");
        assert_eq!((x.states, x.transitions), (124, 189), "{recipe}");
    }
}

/// A depth bound the run never needed cuts nothing off: acquireLock's
/// 4,048 states end at depth 58, and bounded there the run is whole and
/// holds as it does unbounded (its last level, where every client is done,
/// once read as a lock never free again: stuck lock in 58 steps).
#[test]
fn a_depth_bound_at_the_runs_own_depth_changes_nothing() {
    let mut space = RedisSpace::new(RedisRecipe::AcquireLock);
    let whole = run(&space);
    assert!(whole.found.is_empty(), "{:?}", whole.found.keys());
    assert_eq!((whole.states, whole.depth), (4_048, 58));
    space.limits.max_depth = 58;
    let bounded = run(&space);
    assert!(bounded.bound.is_none(), "{:?}", bounded.bound);
    assert!(bounded.found.is_empty(), "{:?}", bounded.found.keys());
    assert_eq!(bounded.states, whole.states);
    space.limits.max_depth = 57;
    assert!(run(&space).bound.is_some());
}

#[test]
fn set_px_del_under_a_pause_lets_a_second_holder_in_and_dels_its_key() {
    let space = with_pauses(RedisRecipe::SetPxDel, 1);
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!((x.states, x.transitions), (1061, 1566));
    // Mutual exclusion: c1 sets the key and holds, a pause stops it, the
    // key's 3 ticks run out (gone at the 4th) and c2 sets it: 15 steps.
    let me = story(&space, &x, Property::MutualExclusion);
    assert_eq!(me.len(), 15);
    assert_eq!(ticks(&x, Property::MutualExclusion), 4);
    assert!(me[0].contains("SET lock 1 NX PX 3"), "{}", me[0]);
    assert!(me.last().is_some_and(|l| l.contains("[Holding(1)]")));
    // Unlock by non-owner: seed 003's story to its step 4 — c1's lease
    // expires while it is paused before its `finally`, c2 sets the key, c1
    // wakes and its plain DEL removes c2's key while c2 holds: 20 steps.
    let un = story(&space, &x, Property::UnlockByNonOwner);
    assert_eq!(un.len(), 20);
    assert!(
        un[un.len() - 2].contains("DEL lock"),
        "{}",
        un[un.len() - 2]
    );
    assert!(un[un.len() - 1].contains("<- unlock by non-owner"));
    assert!(!x.found.contains_key(&Property::Deadlock));
    assert!(!x.found.contains_key(&Property::Starvation));
}

#[test]
fn compare_and_delete_still_loses_the_lease_but_never_deletes_another_key() {
    let space = with_pauses(RedisRecipe::CompareAndDelete, 1);
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!((x.states, x.transitions), (1059, 1566));
    // The lease runs out under a pause whatever the release: 15 steps.
    assert_eq!(story(&space, &x, Property::MutualExclusion).len(), 15);
    // The script's compare keeps c1's late release off c2's key.
    assert!(!x.found.contains_key(&Property::UnlockByNonOwner));
    assert_eq!(
        x.found.keys().copied().collect::<Vec<_>>(),
        [Property::MutualExclusion]
    );
}

#[test]
fn the_same_release_without_a_pause_never_reaches_another_clients_key() {
    // The property's detector can fail (the test above), and without the
    // fault nothing breaks it: a holder works 2 ticks of a 3-tick lease.
    let x = run(&RedisSpace::new(RedisRecipe::SetPxDel));
    assert!(!x.found.contains_key(&Property::UnlockByNonOwner));
}

#[test]
fn a_crash_of_the_holder_leaves_its_key_to_expire() {
    // A crashed holder's key stays until its TTL runs out; the other client
    // then takes the lock: no deadlock, no double holder.
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    space.faults.crashes = 1;
    let x = run(&space);
    assert!(x.bound.is_none());
    assert!(x.found.is_empty(), "{:?}", x.found.keys());
    assert_eq!(x.acquired, 0b11);
    assert_eq!(x.states, 434);
}

/// Up to the most clients a state's bit masks hold, and not one more.
#[test]
fn the_client_count_is_refused_past_the_largest_a_state_holds() {
    use locksmith_model::redis::check::MAX_CLIENTS;
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    space.clients = MAX_CLIENTS;
    assert_eq!(space.validate(), Ok(()));
    space.clients = MAX_CLIENTS + 1;
    let e = space.validate().unwrap_err();
    assert!(e.contains("clients: expected 1 to 8 clients, got 9"), "{e}");
    space.clients = 0;
    assert!(space.validate().is_err());
}

#[test]
fn a_configuration_that_breaks_the_time_rules_is_refused() {
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    space.work = 3;
    let e = space.validate().unwrap_err();
    assert!(
        e.contains("redis.critical_section: expected 1 to 2 ticks"),
        "{e}"
    );
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    space.pause = 3;
    assert!(space.validate().unwrap_err().contains("pause"));
    // The shortest lease is 2 ticks: a critical section of 1 fits in it.
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    (space.lease, space.work, space.pause) = (2, 1, 3);
    assert_eq!(space.validate(), Ok(()));
    space.lease = 1;
    let e = space.validate().unwrap_err();
    assert!(e.contains("redis.lease: expected at least 2 ticks"), "{e}");
    // Clock faults drift at most 60 ticks in all (a state keeps a
    // client's clock in an `i8`).
    let mut space = RedisSpace::new(RedisRecipe::AcquireLock);
    (space.skew, space.faults.clock_jumps) = (30, 2);
    assert_eq!(space.validate(), Ok(()));
    space.skew = 31;
    let e = space.validate().unwrap_err();
    assert!(
        e.contains("expected at most 60 ticks of drift, got 62"),
        "{e}"
    );
}

/// The report names what the Redis checker does not judge, and why: no
/// nodes to orphan, no notification to herd on, no re-entrant recipe, and
/// the resource's two properties only with fencing on.
#[test]
fn the_properties_redis_does_not_judge_are_n_a_with_their_reason() {
    let plain = RedisSpace::new(RedisRecipe::SetPxDel);
    let mut fenced = RedisSpace::new(RedisRecipe::SetPxToken);
    fenced.fencing = true;
    for (space, fencing) in [(&plain, false), (&fenced, true)] {
        backend_report::judged_or_n_a(
            &space.check(),
            fencing,
            |p| space.judges(p),
            |p| space.not_judged(p),
        );
    }
}

/// Who waits, and when waiting is a deadlock: a client inside `lock()`
/// waits; with nothing but faults left to happen it is stuck. (No Redis
/// recipe of the seeds gets there — a client inside `lock()` always has a
/// command in flight, a reply to read or a tick to sleep, and no command
/// is lost — so deadlock holds on every Redis space; this is the rule it
/// holds by.) A thread that died is its own violation.
#[test]
fn a_client_inside_lock_waits_and_with_only_faults_left_is_stuck() {
    use locksmith_model::engine::harness::Phase;
    use locksmith_model::engine::Space;
    let space = RedisSpace::new(RedisRecipe::SetPxDel);
    let mut s = space.initial();
    assert_eq!((space.waiting(&s), space.holders(&s)), (0, 0));
    assert!(!space.stuck(&s, false));
    space.apply(&mut s, Action::Step(0));
    assert_eq!((space.waiting(&s), space.holders(&s)), (0b01, 0));
    assert!(space.stuck(&s, false));
    assert!(!space.stuck(&s, true));
    assert!(!space.violated_in(Property::ThreadDied, &s));
    s.clients[1].phase = Phase::Died;
    assert!(space.violated_in(Property::ThreadDied, &s));
}

#[test]
fn two_rounds_each_find_the_same_two_violations_and_no_starvation() {
    // A client that gives up tries again in its next round; thinking is
    // not waiting, so a client thinking forever starves no one.
    let mut space = with_pauses(RedisRecipe::SetPxDel, 1);
    space.acquisitions = 2;
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!(x.states, 4169);
    assert_eq!(
        x.found.keys().copied().collect::<Vec<_>>(),
        [Property::MutualExclusion, Property::UnlockByNonOwner]
    );
    assert_eq!(x.found[&Property::MutualExclusion].actions.len(), 15);
    assert_eq!(x.found[&Property::UnlockByNonOwner].actions.len(), 20);
}

#[test]
fn setnx_then_expire_holds_without_faults() {
    let x = run(&RedisSpace::new(RedisRecipe::SetNxExpire));
    assert!(x.bound.is_none());
    assert!(x.found.is_empty(), "{:?}", x.found.keys());
    assert_eq!(x.acquired, 0b11);
    assert_eq!((x.states, x.transitions), (156, 245));
}

#[test]
fn setnx_then_expire_with_a_crash_between_them_leaves_a_stuck_lock() {
    // Issue 14's redis-setnx-expire-crash: c1's SETNX sets the key, c1
    // crashes before its expiry goes out, and the key never expires: from
    // there no state has the lock free. Shortest: 3 steps.
    let mut space = RedisSpace::new(RedisRecipe::SetNxExpire);
    space.faults.crashes = 1;
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!((x.states, x.transitions), (548, 907));
    let stuck = story(&space, &x, Property::StuckLock);
    assert_eq!(stuck.len(), 3);
    assert!(stuck[1].contains("without TTL"), "{}", stuck[1]);
    assert!(stuck[2].contains("crashes"), "{}", stuck[2]);
    assert_eq!(
        x.found.keys().copied().collect::<Vec<_>>(),
        [Property::StuckLock]
    );
}

#[test]
fn without_the_graph_stuck_lock_is_not_judged() {
    // Stuck lock needs the kept graph: without it the search reports
    // nothing, and a report must say incomplete, never holds.
    let mut space = RedisSpace::new(RedisRecipe::SetNxExpire);
    space.faults.crashes = 1;
    space.limits.starvation = false;
    let x = run(&space);
    assert!(!x.found.contains_key(&Property::StuckLock));
    // The report says so: the two properties the graph judges are
    // incomplete, never holds; what the search judges holds.
    let r = space.check();
    assert_eq!(r.of(Property::StuckLock), Verdict::Incomplete);
    assert_eq!(r.of(Property::Starvation), Verdict::Incomplete);
    assert_eq!(r.of(Property::MutualExclusion), Verdict::Holds);
    assert_eq!(r.verdict, Verdict::Incomplete);
}

/// A lasso's repeating part is marked where it begins and nowhere else.
/// No Redis configuration of the catalogue has a fair cycle, so the stuck
/// lock's path, with a cycle start set by hand, stands in for one.
#[test]
fn a_traces_cycle_is_marked_at_its_first_step_only() {
    let mut space = RedisSpace::new(RedisRecipe::SetNxExpire);
    space.faults.crashes = 1;
    let x = run(&space);
    let mut cx = x.found[&Property::StuckLock].clone();
    cx.cycle_start = Some(1);
    let t = space.render(&cx).expect("the path replays");
    let marked: Vec<usize> = (t.steps.iter())
        .filter(|s| s.cycle_starts_here)
        .map(|s| s.step)
        .collect();
    assert_eq!((marked, t.cycle_start), (vec![2], Some(2)));
}

#[test]
fn setnx_del_with_a_crashed_holder_lets_two_takers_in_as_seed_004_tells() {
    // Issue 14's redis-setnx-del-crash: three clients, one crash, critical
    // sections (2 ticks) shorter than the timeout (3). c1 takes the lock
    // and crashes; its timestamp grows stale; c2 and c3 both read it; c2
    // deletes it and sets its own; c3's DEL, meant for c1's key, deletes
    // c2's, and c3 sets its own: both hold (seed 004, lines 57-60).
    let mut space = RedisSpace::new(RedisRecipe::SetNxDel);
    space.clients = 3;
    space.faults.crashes = 1;
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!((x.states, x.transitions), (20122, 39898));
    let me = story(&space, &x, Property::MutualExclusion);
    assert_eq!(me.len(), 33);
    assert!(me.iter().any(|l| l.contains("c1 crashes")));
    let dels: Vec<&String> = me.iter().filter(|l| l.contains(": DEL lock")).collect();
    assert_eq!(dels.len(), 2, "c2's and c3's takeover DELs");
    // c3's DEL reaches c2's fresh key: unlock by non-owner, 29 steps
    // (c2 has its SETNX's 1 but has not read it yet).
    let un = story(&space, &x, Property::UnlockByNonOwner);
    assert_eq!(un.len(), 29);
    assert!(un[28].contains("server serves c3") && un[28].contains("<- unlock"));
    // A stale timestamp is the recipe's to take over: no stuck lock.
    assert!(!x.found.contains_key(&Property::StuckLock));
}

#[test]
fn setnx_del_holds_with_two_clients_even_when_one_crashes() {
    // One taker cannot race another: the crashed holder's stale timestamp
    // is taken over once, and time (the stamp ageing to the horizon) frees
    // the lock for whoever comes next.
    for (crashes, states) in [(0, 160), (1, 1190)] {
        let mut space = RedisSpace::new(RedisRecipe::SetNxDel);
        space.faults.crashes = crashes;
        let x = run(&space);
        assert!(x.bound.is_none());
        assert!(x.found.is_empty(), "{crashes}: {:?}", x.found.keys());
        assert_eq!(x.states, states, "{crashes}");
        assert_eq!(x.acquired, 0b11);
    }
}

#[test]
fn set_px_with_a_failover_loses_the_key_and_lets_a_second_holder_in() {
    // Issue 14's redis-set-px-failover: c1's SET reaches the primary, the
    // primary fails before the write is replicated, the replica takes over
    // without the key, and c2's SET NX succeeds: both hold, 7 steps.
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    space.replica = true;
    space.faults.failovers = 1;
    let x = run(&space);
    assert!(x.bound.is_none());
    let me = story(&space, &x, Property::MutualExclusion);
    assert_eq!(me.len(), 7);
    assert!(me.iter().any(|l| l.contains("the replica takes over")));
    assert!(!me.iter().any(|l| l.contains("receives a write")));
    // c1's late plain DEL then removes c2's key: unlock by non-owner too.
    assert_eq!(
        x.found.keys().copied().collect::<Vec<_>>(),
        [Property::MutualExclusion, Property::UnlockByNonOwner]
    );
    assert_eq!(x.states, 670);
    // Without the fault, the replica changes nothing the clients see.
    space.faults.failovers = 0;
    let x = run(&space);
    assert!(x.found.is_empty(), "{:?}", x.found.keys());
    assert_eq!(x.states, 192);
}

#[test]
fn a_restart_without_persistence_loses_the_key_too() {
    let mut space = RedisSpace::new(RedisRecipe::CompareAndDelete);
    space.faults.restarts = 1;
    let x = run(&space);
    assert!(x.bound.is_none());
    let me = story(&space, &x, Property::MutualExclusion);
    assert_eq!(me.len(), 7);
    assert!(me[3].contains("restarts empty"), "{}", me[3]);
    // The script's compare still keeps c1's release off c2's key.
    assert_eq!(
        x.found.keys().copied().collect::<Vec<_>>(),
        [Property::MutualExclusion]
    );
    assert_eq!(x.states, 420);
}

#[test]
fn a_failover_without_a_replica_is_refused() {
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    space.faults.failovers = 1;
    assert!(space.validate().unwrap_err().contains("replica"));
}

#[test]
fn acquirelock_holds_without_faults_and_with_a_crashed_holder() {
    // Seed 003's GETSET takeover: with clocks that agree, one client gets
    // a crashed holder's expired timestamp, never two.
    for (crashes, states) in [(0, 4048), (1, 70162)] {
        let mut space = RedisSpace::new(RedisRecipe::AcquireLock);
        space.faults.crashes = crashes;
        let x = run(&space);
        assert!(x.bound.is_none());
        assert!(x.found.is_empty(), "{crashes}: {:?}", x.found.keys());
        assert_eq!(x.states, states, "{crashes}");
        assert_eq!(x.acquired, 0b11);
    }
}

#[test]
fn acquirelock_with_a_clock_ahead_takes_a_live_lock() {
    // Issue 14's redis-acquirelock-clock-skew (the seed's first caller):
    // c2's clock jumps 4 ticks ahead between its GET and its compare; c1's
    // live timestamp looks past to it, its GETSET returns that very value,
    // `equals` says true: both hold, 13 steps. The GETSET that did it
    // overwrote c1's live timestamp: unlock by non-owner, 12 steps.
    let mut space = RedisSpace::new(RedisRecipe::AcquireLock);
    space.faults.clock_jumps = 1;
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!((x.states, x.transitions), (109604, 150837));
    let me = story(&space, &x, Property::MutualExclusion);
    assert_eq!(me.len(), 13);
    assert!(me.iter().any(|l| l.contains("clock jumps ahead")));
    assert!(me.iter().any(|l| l.contains("GETSET lock")));
    let un = story(&space, &x, Property::UnlockByNonOwner);
    assert_eq!(un.len(), 12);
    assert_eq!(
        x.found.keys().copied().collect::<Vec<_>>(),
        [Property::MutualExclusion, Property::UnlockByNonOwner]
    );
}

#[test]
fn acquirelock_without_skew_still_breaks_under_a_pause() {
    // Issue 14 asks whether the first caller breaks with no skew at all:
    // without any fault it holds (above); with a pause longer than its
    // timeout, c2 takes the expired timestamp over while c1 still holds
    // (21 steps), and c1's time-compare release then deletes c2's fresh
    // key (its `current < value` reads c2's timestamp): 27 steps.
    let space = with_pauses(RedisRecipe::AcquireLock, 1);
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!(x.states, 33098);
    assert_eq!(story(&space, &x, Property::MutualExclusion).len(), 21);
    let un = story(&space, &x, Property::UnlockByNonOwner);
    assert_eq!(un.len(), 27);
    assert!(un[25].contains("c1 steps: DEL lock"), "{}", un[25]);
}

#[test]
fn get_then_del_deletes_the_next_holders_key_when_paused_between_its_get_and_its_del() {
    // Seed 003's compare-then-DEL release (lines 194-213): c1's GET reads
    // its own token, c1 pauses before its DEL, the key's lease runs out,
    // c2 sets its own, and c1's DEL removes it: 22 steps. The pause past
    // the lease breaks mutual exclusion first, as for every lease lock.
    let space = with_pauses(RedisRecipe::GetThenDel, 1);
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!(x.states, 1380);
    assert_eq!(story(&space, &x, Property::MutualExclusion).len(), 15);
    let un = story(&space, &x, Property::UnlockByNonOwner);
    assert_eq!(un.len(), 22);
    let get = un.iter().position(|l| l.contains("c1 steps: GET lock"));
    let pause = un.iter().position(|l| l.contains("c1 pauses"));
    let set = un.iter().position(|l| l.contains("server serves c2: OK"));
    assert!(get < pause && pause < set, "{un:?}");
    assert!(un[20].contains("c1 steps: DEL lock"), "{}", un[20]);
    assert!(un[21].contains("<- unlock by non-owner"));
}

#[test]
fn acquirelock_second_caller_deletes_a_live_lock_it_never_got() {
    // Seed 003's second caller (lines 180-188) runs releaseLock in
    // `finally` even when acquireLock returned false: c2's SETNX fails,
    // its GET reads c1's live timestamp (not past: false), and its release
    // reads it again as not past and DELs c1's key — no fault needed, 11
    // steps. One round each: nobody comes after, so mutual exclusion holds.
    let space = RedisSpace::new(RedisRecipe::AcquireLockAlwaysRelease);
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!(x.states, 5280);
    let un = story(&space, &x, Property::UnlockByNonOwner);
    assert_eq!(un.len(), 11);
    assert!(un[10].contains("server serves c2") && un[10].contains("<- unlock"));
    assert_eq!(
        x.found.keys().copied().collect::<Vec<_>>(),
        [Property::UnlockByNonOwner]
    );
}

#[test]
fn setnx_getset_lets_a_loser_overwrite_the_winners_deadline() {
    // Seed 004's method 2 (lines 77-92), three clients: a client whose
    // SETNX failed reads nil (the holder has just released), a third
    // client's SETNX takes the key, and the first one's GETSET overwrites
    // that fresh tenure's deadline — the seed's "moves the winner's
    // deadline a little", an unlock by non-owner even though, at a tick's
    // resolution, it writes the same value (22 steps; the crash is not
    // needed). Mutual exclusion holds. A holder paused past its timeout is
    // taken over while it works (21 steps), and its time-compared release
    // then deletes the taker's key (27 steps), as for seed 003's
    // acquireLock.
    let mut space = RedisSpace::new(RedisRecipe::SetNxGetSet);
    space.clients = 3;
    space.faults.crashes = 1;
    let x = run(&space);
    assert!(x.bound.is_none());
    let found: Vec<Property> = x.found.keys().copied().collect();
    assert_eq!(found, [Property::UnlockByNonOwner]);
    assert_eq!((x.states, x.acquired), (33004, 0b111));
    let un = story(&space, &x, Property::UnlockByNonOwner);
    assert_eq!(un.len(), 22);
    assert!(un[21].ends_with("<- unlock by non-owner"), "{}", un[21]);
    let space = with_pauses(RedisRecipe::SetNxGetSet, 1);
    let x = run(&space);
    assert_eq!(x.states, 1903);
    assert_eq!(story(&space, &x, Property::MutualExclusion).len(), 21);
    let un = story(&space, &x, Property::UnlockByNonOwner);
    assert_eq!(un.len(), 27);
    assert!(un[25].contains("c1 steps: DEL lock"), "{}", un[25]);
    // The loop sleeps a tick between attempts: without faults it holds.
    let x = run(&RedisSpace::new(RedisRecipe::SetNxGetSet));
    assert!(x.found.is_empty());
    assert_eq!(x.states, 200);
}

#[test]
fn a_server_clock_jump_ahead_expires_a_holders_key_at_once() {
    // The server's clock steps 4 ticks ahead while c1 holds a 3-tick key:
    // the key goes without any time passing and c2 sets its own (7 steps).
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    space.faults.server_clock_jumps = 1;
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!(x.states, 508);
    let me = story(&space, &x, Property::MutualExclusion);
    assert_eq!(me.len(), 7);
    assert!(me[4].contains("server's clock jumps ahead") && me[4].contains("no key"));
    assert!(!me.iter().any(|l| l.contains("a tick passes")));
    assert_eq!(x.found[&Property::UnlockByNonOwner].actions.len(), 12);
}

/// Fencing: `lock()` ends with `INCR` of a token, every critical section
/// writes to the protected resource twice with it. The token fences the
/// paused holder's late write off the resource (mutual exclusion at the
/// resource holds); but a token taken after the lock is not the lock's
/// order: a pause between the `SET` and the `INCR` hands the holder whose
/// lease ran out a newer token than the next holder's, and its write is
/// accepted after the next holder's (fenced safety, 21 steps).
#[test]
fn a_token_from_incr_after_the_lock_fences_a_late_write_but_not_a_pause_before_the_incr() {
    for recipe in [RedisRecipe::CompareAndDelete, RedisRecipe::SetPxDel] {
        let mut space = with_pauses(recipe, 1);
        space.fencing = true;
        let x = run(&space);
        assert!(x.bound.is_none());
        assert!(
            !x.found.contains_key(&Property::MutualExclusionAtResource),
            "{recipe}"
        );
        assert_eq!(
            story(&space, &x, Property::MutualExclusion).len(),
            19,
            "{recipe}"
        );
        let fs = story(&space, &x, Property::FencedSafety);
        assert_eq!(fs.len(), 21, "{recipe}");
        // c1's SET is served, c1 pauses before its INCR goes out; c2
        // takes the expired key and its token first.
        let incr = |c: &str| {
            fs.iter()
                .position(|l| l.starts_with(&format!("server serves {c}: (integer)")))
                .unwrap_or(usize::MAX)
        };
        assert!(incr("c2") < incr("c1"), "{recipe}");
        assert!(fs.iter().any(|l| l.contains("c1 pauses")), "{recipe}");
        // c2 writes with token 1, then c1 — whose lease ran out first —
        // with token 2, accepted.
        assert!(
            fs[19].contains("token 1 → accepted") || fs[19].contains("accepts token 1"),
            "{}",
            fs[19]
        );
        assert!(fs[20].contains("accepts token 2"), "{}", fs[20]);
        assert_eq!(
            x.found.contains_key(&Property::UnlockByNonOwner),
            recipe == RedisRecipe::SetPxDel
        );
    }
}

/// Weak fairness (the starvation analysis) owes a step to each client's
/// process and to the server's serving of each client, and nothing to a
/// fault: the agents the Redis space names for its actions. And a fault is
/// no progress: a state where only faults can happen is stuck.
#[test]
fn fairness_owes_each_clients_process_and_its_serving_and_nothing_to_a_fault() {
    use locksmith_model::engine::{Space, NO_AGENT};
    let space = RedisSpace::new(RedisRecipe::SetPxDel);
    let agent = |a: Action| space.agent(a);
    assert_eq!(
        agent(Action::Step(0)),
        agent(Action::Think(0)),
        "one process"
    );
    let owed = [
        agent(Action::Step(0)),
        agent(Action::Serve(0)),
        agent(Action::Step(1)),
        agent(Action::Serve(1)),
    ];
    for (i, a) in owed.iter().enumerate() {
        assert_ne!(*a, NO_AGENT);
        for b in &owed[i + 1..] {
            assert_ne!(
                a, b,
                "each client's process and serving are agents of their own"
            );
        }
    }
    for fault in [
        Action::Pause(0),
        Action::Crash(1),
        Action::ClockAhead(0),
        Action::ClockBack(1),
        Action::ServerClockAhead,
        Action::ServerClockBack,
        Action::Restart,
        Action::Failover,
    ] {
        assert_eq!(agent(fault), NO_AGENT, "{fault:?} is owed to no one");
        // Deadlock asks whether anything but a fault can happen.
        assert!(space.is_fault(fault), "{fault:?}");
    }
    for a in [
        Action::Step(0),
        Action::Think(1),
        Action::Serve(0),
        Action::Tick,
        Action::Replicate,
    ] {
        assert!(!space.is_fault(a), "{a:?} is progress");
    }
}

/// `--max-memory-mb` stops a run on the states' estimated bytes: the
/// struct, each client, and 96 bytes a key. A run stopped by a bound
/// explains itself by the number of keys, in Redis's words.
#[test]
fn a_states_bytes_and_growth_are_read_from_its_clients_and_keys() {
    use locksmith_model::engine::Space;
    use locksmith_model::redis::check::{Client, State};
    use std::mem::size_of;
    let space = RedisSpace::new(RedisRecipe::SetPxDel);
    let mut s = space.initial();
    let own = size_of::<State>() + 2 * size_of::<Client>();
    assert_eq!(space.state_bytes(&s), own);
    assert_eq!(space.growth_marks(&s), (0, 0));
    space.apply(&mut s, Action::Step(0));
    space.apply(&mut s, Action::Serve(0));
    assert_eq!(s.server.keys().len(), 1, "c1's SET NX PX set the key");
    assert_eq!(space.state_bytes(&s), own + 96);
    assert_eq!(space.growth_marks(&s), (0, 1));
    // The resource marks every other client's section on a write.
    use locksmith_model::engine::Sections;
    assert_eq!(Sections::clients(&s), 2);

    let mut bounded = with_pauses(RedisRecipe::SetPxDel, 1);
    bounded.limits.max_depth = 6;
    let x = run(&bounded);
    assert!(x.bound.is_some());
    let why = x.growth.expect("an explanation");
    assert!(
        why.contains("the largest keyspace grew from 0 to 1 keys"),
        "{why}"
    );
    assert!(!why.contains("zxid") && !why.contains("tree"), "{why}");
}

/// Issue 14's redis-set-px-token-pause-fenced: the lock's own script
/// returns the token, so tokens follow the lock's order. The lease still
/// runs out under the pause and c2 takes the key while c1 works (mutual
/// exclusion, 15 steps), but the resource refuses c1's older token:
/// fenced safety and mutual exclusion at the resource hold.
#[test]
fn a_token_from_the_lock_command_itself_fences_every_late_write() {
    let mut space = with_pauses(RedisRecipe::SetPxToken, 1);
    space.fencing = true;
    let x = run(&space);
    assert!(x.bound.is_none());
    assert_eq!((x.states, x.acquired), (1413, 0b11));
    assert_eq!(
        x.found.keys().copied().collect::<Vec<_>>(),
        [Property::MutualExclusion]
    );
    let me = story(&space, &x, Property::MutualExclusion);
    assert_eq!(me.len(), 15);
}

/// The words of a Redis trace, as `check` prints it and as its Mermaid
/// diagram draws it, pinned for redis-compare-and-delete-pause-fenced's
/// fenced-safety trace: who acted, the command with its reply, the key
/// after each step, who holds; a client's own steps as notes over it, the
/// server's and the faults' over Redis.
#[test]
fn a_fenced_trace_reads_as_the_docs_show_it() {
    let mut space = with_pauses(RedisRecipe::CompareAndDelete, 1);
    space.fencing = true;
    let r = space.check();
    let t = r.trace_of(Property::FencedSafety).expect("a trace");
    assert_eq!(
        t.text(),
        "   1. c1                     calls lock(); sends SET lock 1 NX PX 3   [no key]
   2. redis<-c1              SET lock 1 NX PX 3 → OK   [lock = 1, 3 ticks left]
   3. c2                     thinks a tick before its next round   [lock = 1, 3 ticks left]
   4. FAULT                  c1 pauses for 4 ticks   [lock = 1, 3 ticks left]
   5. time                   a tick passes   [lock = 1, 2 ticks left]
   6. c2                     thinks a tick before its next round   [lock = 1, 2 ticks left]
   7. time                   a tick passes   [lock = 1, 1 tick left]
   8. c2                     thinks a tick before its next round   [lock = 1, 1 tick left]
   9. time                   a tick passes   [lock = 1, 0 ticks left]
  10. c2                     thinks a tick before its next round   [lock = 1, 0 ticks left]
  11. time                   a tick passes   [no key]
  12. c1                     reads OK; sends INCR fence   [no key]
  13. c2                     calls lock(); sends SET lock 2 NX PX 3   [no key]
  14. redis<-c2              SET lock 2 NX PX 3 → OK   [lock = 2, 3 ticks left]
  15. c2                     reads OK; sends INCR fence   [lock = 2, 3 ticks left]
  16. redis<-c2              INCR fence → (integer) 1   [lock = 2, 3 ticks left]
  17. redis<-c1              INCR fence → (integer) 2   [lock = 2, 3 ticks left]
  18. c1                     reads (integer) 2; holds the lock   [lock = 2, 3 ticks left]   holders: c1
  19. c2                     reads (integer) 1; holds the lock   [lock = 2, 3 ticks left]   holders: c1, c2
  20. c2                     writes its opening write to the resource → the resource accepts token 1   [lock = 2, 3 ticks left]   holders: c1, c2
  21. c1                     writes its opening write to the resource → the resource accepts token 2   [lock = 2, 3 ticks left]   holders: c1, c2
"
    );
    let diagram = locksmith_model::redis::check::mermaid(t, 2);
    let lines: Vec<&str> = diagram.lines().collect();
    assert_eq!(lines.len(), 4 + 21);
    assert_eq!(
        lines[..8],
        [
            "sequenceDiagram",
            "    participant c1",
            "    participant c2",
            "    participant Redis",
            "    Note over c1: calls lock(), sends SET lock 1 NX PX 3",
            "    c1->>Redis: SET lock 1 NX PX 3 → OK",
            "    Note over c2: thinks a tick before its next round",
            "    Note over Redis: FAULT: c1 pauses for 4 ticks",
        ]
    );
    assert_eq!(lines[8], "    Note over Redis: time: a tick passes");
    assert_eq!(lines[20], "    c1->>Redis: INCR fence → (integer) 2");
}

/// Every kind of action in a trace's words: the clock faults, the replica,
/// a crash, a failover, a restart (a path taken by hand: no shortest trace
/// of the catalogue has them all).
#[test]
fn every_kind_of_step_has_its_words() {
    use locksmith_model::engine::Counterexample;
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    space.replica = true;
    space.skew = 2;
    space.faults.pauses = 1;
    space.faults.crashes = 1;
    space.faults.clock_jumps = 2;
    space.faults.server_clock_jumps = 2;
    space.faults.restarts = 1;
    space.faults.failovers = 1;
    space.validate().expect("a valid configuration");
    let actions = vec![
        Action::ClockAhead(0),
        Action::ClockBack(1),
        Action::ServerClockAhead,
        Action::ServerClockBack,
        Action::Step(0),
        Action::Serve(0),
        Action::Replicate,
        Action::Pause(0),
        Action::Think(1),
        Action::Tick,
        Action::Crash(1),
        Action::Failover,
        Action::Restart,
    ];
    let t = (space.render(&Counterexample {
        actions,
        cycle_start: None,
    }))
    .expect("every step is enabled where the path takes it");
    assert_eq!(
        t.text(),
        "   1. FAULT                  c1's clock jumps 2 ticks ahead   [no key]
   2. FAULT                  c2's clock jumps 2 ticks back   [no key]
   3. FAULT                  the server's clock jumps 2 ticks ahead: its TTLs shrink   [no key]
   4. FAULT                  the server's clock jumps 2 ticks back: its TTLs grow   [no key]
   5. c1                     calls lock(); sends SET lock 1 NX PX 3   [no key]
   6. redis<-c1              SET lock 1 NX PX 3 → OK   [lock = 1, 3 ticks left]
   7. replica                the replica receives a write   [lock = 1, 3 ticks left]
   8. FAULT                  c1 pauses for 4 ticks   [lock = 1, 3 ticks left]
   9. c2                     thinks a tick before its next round   [lock = 1, 3 ticks left]
  10. time                   a tick passes   [lock = 1, 2 ticks left]
  11. FAULT                  c2 crashes (fault)   [lock = 1, 2 ticks left]
  12. FAULT                  the replica takes over (fault)   [lock = 1, 2 ticks left]
  13. FAULT                  the server restarts empty (fault)   [no key]
"
    );
    let diagram = locksmith_model::redis::check::mermaid(&t, 2);
    assert!(diagram.contains("    Note over Redis: replica: the replica receives a write\n"));
    assert!(diagram.contains("    Note over Redis: FAULT: c2 crashes (fault)\n"));
}

/// One fenced client alone, step by step to the end of its round: its
/// trace names exactly two writes to the resource, the opening and the
/// closing one, and no other step (its token's `INCR`, its unlock) as a
/// write.
#[test]
fn a_fenced_round_writes_twice_and_only_where_the_trace_says() {
    use locksmith_model::engine::Counterexample;
    use locksmith_model::engine::Space;
    let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
    space.clients = 1;
    space.fencing = true;
    let mut s = space.initial();
    let mut actions = Vec::new();
    for _ in 0..40 {
        let mut out = Vec::new();
        space.actions(&s, &mut out);
        let Some(&a) = [Action::Step(0), Action::Serve(0), Action::Tick]
            .iter()
            .find(|a| out.contains(a))
        else {
            break;
        };
        space.apply(&mut s, a);
        actions.push(a);
    }
    let t = (space.render(&Counterexample {
        actions,
        cycle_start: None,
    }))
    .expect("the path replays");
    let writes: Vec<&str> = (t.steps.iter())
        .filter(|s| s.text.contains("write"))
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(
        writes,
        [
            "writes its opening write to the resource → the resource accepts token 1",
            "writes its closing write to the resource → the resource accepts token 1",
        ]
    );
    let last = t.steps.last().map(|s| s.text.as_str()).unwrap_or_default();
    assert!(last.contains("finished"), "{}", t.text());
}

/// With fencing, a recipe whose lock command answers an integer that is
/// not a token (`SETNX`'s 1) still takes its token from an `INCR`: one
/// more command a round, and the count of states shows it.
#[test]
fn a_setnx_lock_takes_its_token_from_an_incr() {
    let mut space = RedisSpace::new(RedisRecipe::SetNxExpire);
    space.fencing = true;
    let x = run(&space);
    assert!(x.bound.is_none());
    assert!(x.found.is_empty(), "{:?}", x.found.keys());
    assert_eq!((x.states, x.acquired), (218, 0b11));
}

/// A failover that changes the lock's key hands it back to the client
/// whose token the replica kept (the owner a later unlock by non-owner is
/// judged against), or to nobody; one that changes nothing keeps the
/// owner. Checked after every failover from every state reachable with
/// the replica and two failovers.
#[test]
fn a_failover_gives_the_key_back_to_the_client_whose_token_it_holds() {
    use locksmith_model::engine::Space;
    let mut changed = 0;
    for recipe in [RedisRecipe::SetPxDel, RedisRecipe::CompareAndDelete] {
        let mut space = RedisSpace::new(recipe);
        space.replica = true;
        space.faults.failovers = 2;
        space.validate().expect("a valid configuration");
        let key = space.me(0, 0).key;
        let value = |s: &locksmith_model::redis::check::State| {
            s.server.entry(&key).map(|e| e.value.clone())
        };
        reachable::each_reachable(&space, |s, actions| {
            if !actions.contains(&Action::Failover) {
                return;
            }
            let mut next = s.clone();
            space.apply(&mut next, Action::Failover);
            if value(&next) == value(s) {
                assert_eq!(next.own.owner, s.own.owner, "{recipe}: {s:?}");
            } else {
                changed += 1;
                let writer =
                    (0..space.clients).find(|&c| value(&next) == Some(space.me(c, 0).token));
                assert_eq!(next.own.owner, writer, "{recipe}: {s:?}");
            }
        });
    }
    assert_eq!(changed, 342);
}
