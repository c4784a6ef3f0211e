//! The etcd locks in the exhaustive checker, through the `Space` seam:
//! each verdict, trace length and state count here comes from exploring
//! `EtcdSpace` — two clients, a session TTL of 3 ticks, a critical section
//! of 2, a pause of 4 — and each can fail. The scenario files
//! `scenarios/etcd-*.toml` pin the same runs through `locksmith check`.

use locksmith_model::engine::harness::Property;
use locksmith_model::engine::{explore_space, Exploration};
use locksmith_model::etcd::check::{Action, EtcdFaults, EtcdSpace};
use locksmith_model::etcd::recipes::EtcdRecipe;
use std::ops::ControlFlow;

fn run(
    recipe: EtcdRecipe,
    acquisitions: u8,
    faults: EtcdFaults,
) -> (EtcdSpace, Exploration<Action>) {
    let mut space = EtcdSpace::new(recipe);
    space.acquisitions = acquisitions;
    space.faults = faults;
    space.validate().expect("a valid configuration");
    let x = explore_space(&space, &mut |_| ControlFlow::Continue(()));
    assert!(x.bound.is_none(), "{recipe}: {:?}", x.bound);
    (space, x)
}

/// `run` with fencing: the key's create revision as the token.
fn fenced(recipe: EtcdRecipe, faults: EtcdFaults) -> (EtcdSpace, Exploration<Action>) {
    let mut space = EtcdSpace::new(recipe);
    space.acquisitions = 2;
    space.faults = faults;
    space.fencing = true;
    let x = explore_space(&space, &mut |_| ControlFlow::Continue(()));
    assert!(x.bound.is_none(), "{recipe}: {:?}", x.bound);
    (space, x)
}

/// The shortest trace of `p`, as the CLI prints each step.
fn story(space: &EtcdSpace, x: &Exploration<Action>, p: Property) -> Vec<String> {
    let cx = x.found.get(&p).unwrap_or_else(|| panic!("{p} violated"));
    let trace = space.render_trace(cx).expect("the trace replays");
    trace
        .steps
        .iter()
        .map(|s| format!("{} {}", s.actor, s.text))
        .collect()
}

#[test]
fn without_faults_both_mutexes_hold_and_every_client_acquires() {
    for (recipe, states) in [(EtcdRecipe::Mutex, 1_917), (EtcdRecipe::Mutex35, 2_099)] {
        let (_, x) = run(recipe, 2, EtcdFaults::default());
        assert!(x.found.is_empty(), "{recipe}: {:?}", x.found.keys());
        assert_eq!(x.acquired, 0b11, "{recipe}: the holds is not vacuous");
        assert_eq!(x.states, states, "{recipe}");
    }
}

/// etcd-io/etcd#11456: 3.4 returns from `Lock` after the wait without
/// looking at its own key; 3.5's `Get(myKey)` turns the same fault into
/// `ErrSessionExpired`.
#[test]
fn a_waiters_expired_lease_breaks_3_4_and_not_3_5() {
    let faults = EtcdFaults {
        waiter_expiries: 1,
        ..EtcdFaults::default()
    };
    let (space, x) = run(EtcdRecipe::Mutex, 2, faults);
    assert_eq!(x.states, 3_205);
    let steps = story(&space, &x, Property::MutualExclusion);
    assert_eq!(steps.len(), 25);
    assert!(
        steps[17].starts_with("FAULT c2's lease expires while it waits"),
        "{steps:#?}"
    );
    assert_eq!(
        steps[24], "c2 reads no keys (rev 6); holds the lock",
        "the waiter returns from Lock with its key gone"
    );
    let (_, fixed) = run(EtcdRecipe::Mutex35, 2, faults);
    assert!(fixed.found.is_empty(), "{:?}", fixed.found.keys());
    assert_eq!((fixed.states, fixed.acquired), (3_165, 0b11));
}

/// A holder paused past its TTL: both versions trust a lock whose lease
/// is gone (the 3.5 check runs once, inside `Lock`).
#[test]
fn a_holder_paused_past_its_ttl_breaks_both_versions() {
    let faults = EtcdFaults {
        pauses: 1,
        ..EtcdFaults::default()
    };
    for (recipe, states) in [(EtcdRecipe::Mutex, 21_300), (EtcdRecipe::Mutex35, 23_140)] {
        let (space, x) = run(recipe, 2, faults);
        assert_eq!(x.states, states, "{recipe}");
        let steps = story(&space, &x, Property::MutualExclusion);
        assert_eq!(steps.len(), 17, "{recipe}");
        assert!(
            steps.iter().any(|s| s.contains("lease 101 expires")),
            "{steps:#?}"
        );
        assert!(
            !x.found.contains_key(&Property::UnlockByNonOwner),
            "{recipe}"
        );
    }
}

/// A crashed holder's key goes with its lease: no stuck lock, no deadlock.
#[test]
fn a_crash_frees_the_lock_when_the_lease_runs_out() {
    let faults = EtcdFaults {
        crashes: 1,
        ..EtcdFaults::default()
    };
    let (_, x) = run(EtcdRecipe::Mutex, 1, faults);
    assert!(x.found.is_empty(), "{:?}", x.found.keys());
    assert_eq!(x.states, 1_159);
}

/// The naive lock's watch starts after its failed `Txn`: a release in
/// between is never seen, and the waiter waits for ever.
#[test]
fn the_naive_txn_lock_loses_a_wake_up_without_any_fault() {
    let (space, x) = run(EtcdRecipe::TxnLease, 1, EtcdFaults::default());
    assert_eq!(x.states, 177);
    let steps = story(&space, &x, Property::Deadlock);
    assert_eq!(steps.len(), 19);
    let txn = steps
        .iter()
        .position(|s| s.contains("→ else: nothing"))
        .expect("a failed txn");
    let release = steps
        .iter()
        .position(|s| s.starts_with("etcd<-c1 del lock"))
        .expect("the release");
    let watch = steps
        .iter()
        .position(|s| s.ends_with("→ watching"))
        .expect("the watch");
    assert!(txn < release && release < watch, "{steps:#?}");
}

/// Its `Delete` by name removes a key another client set.
#[test]
fn the_naive_txn_lock_deletes_a_successors_key_after_a_pause() {
    let faults = EtcdFaults {
        pauses: 1,
        ..EtcdFaults::default()
    };
    let (_, x) = run(EtcdRecipe::TxnLease, 2, faults);
    assert_eq!(x.states, 9_228);
    let len = |p| x.found.get(&p).map(|cx| cx.actions.len());
    assert_eq!(len(Property::MutualExclusion), Some(17));
    assert_eq!(len(Property::UnlockByNonOwner), Some(24));
}

/// Herd needs three clients: the Mutex wakes one waiter per release, the
/// naive lock all of them; and a middle waiter's expired lease makes the
/// Mutex's next release wake two (both versions).
#[test]
fn one_waiter_per_release_unless_a_middle_waiters_lease_expires() {
    let three = |recipe, faults| {
        let mut space = EtcdSpace::new(recipe);
        space.clients = 3;
        space.faults = faults;
        let x = explore_space(&space, &mut |_| ControlFlow::Continue(()));
        assert!(x.bound.is_none(), "{recipe}: {:?}", x.bound);
        (space, x)
    };
    let (_, mutex) = three(EtcdRecipe::Mutex, EtcdFaults::default());
    assert!(mutex.found.is_empty(), "{:?}", mutex.found.keys());
    assert_eq!(mutex.states, 6_233);
    let (_, naive) = three(EtcdRecipe::TxnLease, EtcdFaults::default());
    assert_eq!(
        naive.found.get(&Property::Herd).map(|cx| cx.actions.len()),
        Some(22)
    );
    let expiry = EtcdFaults {
        waiter_expiries: 1,
        ..EtcdFaults::default()
    };
    for recipe in [EtcdRecipe::Mutex, EtcdRecipe::Mutex35] {
        let (space, x) = three(recipe, expiry);
        let steps = story(&space, &x, Property::Herd);
        assert_eq!(steps.len(), 27, "{recipe}");
        assert!(
            steps[26].ends_with("c2's watch fires; c3's watch fires"),
            "{recipe}: {steps:#?}"
        );
    }
}

/// Fenced by its key's create revision: 3.5's paused holder is kept out
/// of the resource; 3.4's stale waiter (#11456) holds an older key's
/// token and writes before the real holder does, so the resource accepts
/// a write out of the lock's order (fenced safety), though no two
/// sections' accepted writes interleave.
#[test]
fn the_create_revision_as_a_token() {
    let pause = EtcdFaults {
        pauses: 1,
        ..EtcdFaults::default()
    };
    let (_, x) = fenced(EtcdRecipe::Mutex35, pause);
    assert!(x.found.contains_key(&Property::MutualExclusion));
    assert!(!x.found.contains_key(&Property::MutualExclusionAtResource));
    assert!(!x.found.contains_key(&Property::FencedSafety));
    let expiry = EtcdFaults {
        waiter_expiries: 1,
        ..EtcdFaults::default()
    };
    let (space, x) = fenced(EtcdRecipe::Mutex, expiry);
    assert!(!x.found.contains_key(&Property::MutualExclusionAtResource));
    let steps = story(&space, &x, Property::FencedSafety);
    assert_eq!(steps.len(), 29);
    assert!(steps[27].ends_with("accepts token 3"), "{steps:#?}");
    assert!(steps[28].ends_with("accepts token 6"), "{steps:#?}");
}

/// etcd-io/etcd#22082: an unlock that arrives late deletes, by name, the
/// key its own session took again (the Txn's Else branch reuses it): two
/// holders, in both versions. A compaction only makes a waiter give up.
#[test]
fn a_late_unlock_deletes_the_sessions_next_key() {
    let late = EtcdFaults {
        late_unlocks: 1,
        ..EtcdFaults::default()
    };
    for recipe in [EtcdRecipe::Mutex, EtcdRecipe::Mutex35] {
        let (space, x) = run(recipe, 2, late);
        let steps = story(&space, &x, Property::MutualExclusion);
        assert_eq!(steps.len(), 21, "{recipe}");
        assert!(
            steps[18].contains("late unlock reaches etcd: del lock/101 → deletes lock/101@2"),
            "{recipe}: {steps:#?}"
        );
    }
    let compaction = EtcdFaults {
        compactions: 1,
        ..EtcdFaults::default()
    };
    let (_, x) = run(EtcdRecipe::Mutex, 2, compaction);
    assert!(x.found.is_empty(), "{:?}", x.found.keys());
}

/// A partition that stops a client's keep-alives while its process runs
/// on: the reply that gives c1 the lock is in the cut link, c1's lease
/// runs out, c2 takes the lock, and c1 reads its old reply when the link
/// heals — in both versions (3.5's check is on the waiter's path only);
/// fenced, the resource stays safe.
#[test]
fn a_partition_delivers_a_stale_grant_in_both_versions() {
    let cut = EtcdFaults {
        partitions: 1,
        ..EtcdFaults::default()
    };
    for (recipe, states) in [(EtcdRecipe::Mutex, 21_512), (EtcdRecipe::Mutex35, 23_460)] {
        let (space, x) = run(recipe, 2, cut);
        assert_eq!(x.states, states, "{recipe}");
        let steps = story(&space, &x, Property::MutualExclusion);
        assert_eq!(steps.len(), 18, "{recipe}");
        assert!(
            steps[5].starts_with("FAULT c1's link to etcd is cut for 4 ticks"),
            "{recipe}: {steps:#?}"
        );
        assert!(
            steps[10].ends_with("lease 101 expires, its keys deleted"),
            "{recipe}: {steps:#?}"
        );
        assert_eq!(
            steps[17], "c1 reads then: OK; [lock/101@2 lease 101] (rev 2); holds the lock",
            "{recipe}"
        );
    }
    let (_, x) = fenced(EtcdRecipe::Mutex35, cut);
    assert!(x.found.contains_key(&Property::MutualExclusion));
    assert!(!x.found.contains_key(&Property::MutualExclusionAtResource));
    assert!(!x.found.contains_key(&Property::FencedSafety));
}
