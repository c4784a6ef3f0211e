//! The checker's own guarantees: counterexamples are shortest, symmetry
//! reduction changes no verdict and no trace length, bounds give
//! `incomplete` (never `holds`), traces replay to what they claim.
//!
//! The three that sweep many configurations (symmetry and reduction on
//! and off) are the heavy tier: `bash scripts/heavy-tests.sh` runs them.

use locksmith_model::zk::check::explore::explore;
use locksmith_model::zk::recipes::RecipeId;
use locksmith_model::{
    zk::check::check, zk::check::CheckConfig, zk::check::FaultBudget, zk::check::Property,
    zk::check::Verdict,
};

fn cfg(recipe: RecipeId, clients: u8, acquisitions: u8) -> CheckConfig {
    CheckConfig::new(recipe, clients, acquisitions)
}

fn trace_len(c: &CheckConfig, p: Property) -> Option<usize> {
    steps(&check(c), p)
}

/// Where the starvation lasso of `c` starts its cycle, once the lasso has
/// replayed apart from the search: it closes, some client waits all along
/// it, and every agent enabled throughout it takes a step (weak fairness).
fn fair_lasso_cycle_start(c: &CheckConfig) -> usize {
    let x = explore(c);
    let cx = &x.found[&Property::Starvation];
    locksmith_model::zk::check::explore::judge(c, cx).expect("a fair, closed cycle");
    cx.cycle_start.expect("a cycle")
}

/// The length of `r`'s trace for `p`, if it has one.
fn steps(r: &locksmith_model::zk::check::Report, p: Property) -> Option<usize> {
    r.trace_of(p).map(|t| t.steps.len())
}

#[test]
fn racy_wait_deadlocks_and_no_shorter_trace_exists() {
    let c = cfg(RecipeId::RacyWait, 2, 1);
    let r = check(&c);
    assert_eq!(r.verdict, Verdict::Violated);
    assert_eq!(r.property, Some(Property::Deadlock));
    let len = trace_len(&c, Property::Deadlock).expect("a deadlock trace");
    // Judge every state up to one step short of the trace: no deadlock there.
    let mut shorter = c.clone();
    shorter.max_depth = len - 1;
    let x = explore(&shorter);
    assert!(
        !x.found.contains_key(&Property::Deadlock),
        "a deadlock shorter than {len} steps exists"
    );
    assert!(x.bound.is_some(), "the depth bound must be reported");
    let mut exact = c.clone();
    exact.max_depth = len;
    assert!(explore(&exact).found.contains_key(&Property::Deadlock));
}

#[test]
fn the_lost_wake_up_is_the_one_the_seed_describes() {
    let r = check(&cfg(RecipeId::RacyWait, 2, 1));
    let t = r
        .properties
        .iter()
        .find(|p| p.property == Property::Deadlock)
        .and_then(|p| p.trace.clone())
        .expect("trace");
    let text = t.text();
    // The event thread's notifyAll runs while nobody waits, and only then
    // does the main thread enter wait().
    let notify = text.find("notifyAll()").expect("notifyAll in the trace");
    let wait = text.rfind("watcher.wait()").expect("wait in the trace");
    assert!(notify < wait, "notifyAll must precede wait():\n{text}");
    assert!(text.contains("none waiting: lost"), "{text}");
    assert!(t.steps.last().is_some_and(|s| s.holders.is_empty()));
    // Each step that changes the tree says how: c1's node, c2's, and c1's
    // delete, which c2's watch on it has not yet heard.
    let changes: Vec<(usize, &[String])> = (t.steps.iter())
        .filter(|s| !s.tree.is_empty())
        .map(|s| (s.step, s.tree.as_slice()))
        .collect();
    let [first, second] = [
        "/DistributeLocks/Lock_0000000000",
        "/DistributeLocks/Lock_0000000001",
    ];
    assert_eq!(
        changes,
        [
            (5, &[format!("+{first}")][..]),
            (17, &[format!("+{second}")][..]),
            (24, &[format!("-{first}")][..]),
        ],
        "{text}"
    );
}

/// Racy-wait's lost wake-up under a fault budget: a fault the run may
/// still spend is not progress (with a disconnect in hand, the same
/// 33-step deadlock: a client whose only way on is a fault is stuck), and
/// an expiry at any step is spent once (a deadlock in 29 steps).
#[test]
fn a_fault_in_hand_is_not_progress_and_an_expiry_is_spent_once() {
    let budgets = [
        (
            FaultBudget {
                disconnects: 1,
                ..FaultBudget::default()
            },
            (Some(33), 5_110),
        ),
        (
            FaultBudget {
                expiries: 1,
                ..FaultBudget::default()
            },
            (Some(29), 4_545),
        ),
    ];
    for (faults, expected) in budgets {
        let mut c = cfg(RecipeId::RacyWait, 2, 1);
        c.faults = faults;
        let r = check(&c);
        let found = (steps(&r, Property::Deadlock), r.states);
        assert_eq!(found, expected, "{:?}", c.faults);
    }
}

/// A timed wait ends when it times out, a step of its own: seed 000's
/// `wait(millis)` turns racy-wait's lost wake-up (a deadlock) into a wait
/// until the timeout — holds, 757 states, as `scenarios/timed-wait.toml`.
#[test]
fn a_timed_wait_times_out_where_the_lost_wake_up_deadlocked() {
    let r = check(&cfg(RecipeId::TimedWait, 2, 1));
    assert_eq!(r.verdict, Verdict::Holds, "{:?}", r.properties);
    assert_eq!(r.states, 757);
    assert!(trace_len(&cfg(RecipeId::RacyWait, 2, 1), Property::Deadlock).is_some());
}

#[test]
fn fixed_wait_holds_with_three_clients() {
    let r = check(&cfg(RecipeId::FixedWait, 3, 1));
    assert_eq!(r.verdict, Verdict::Holds, "{:?}", r.properties);
    assert!(r.bound.is_none());
}

#[test]
fn herd_recipes_keep_mutual_exclusion_but_wake_everyone() {
    for recipe in [RecipeId::HerdUnique, RecipeId::HerdChildren] {
        let r = check(&cfg(recipe, 3, 1));
        assert_eq!(r.of(Property::MutualExclusion), Verdict::Holds, "{recipe}");
        assert_eq!(r.of(Property::Herd), Verdict::Violated, "{recipe}");
        // Every waiter hears the release and goes on.
        assert_eq!(r.of(Property::Deadlock), Verdict::Holds, "{recipe}");
        assert_eq!(r.of(Property::Starvation), Verdict::Holds, "{recipe}");
    }
    // The textbook recipe wakes one waiter per release.
    assert_eq!(
        check(&cfg(RecipeId::Predecessor, 3, 1)).of(Property::Herd),
        Verdict::Holds
    );
}

/// A herd is a release's: the shortest herd trace of each herd recipe
/// ends with the server deleting the holder's node, and the create that
/// fires every children watch of herd-children is no herd.
#[test]
fn a_herd_is_woken_by_a_release_not_by_a_create() {
    for (recipe, len) in [(RecipeId::HerdUnique, 19), (RecipeId::HerdChildren, 23)] {
        let r = check(&cfg(recipe, 3, 1));
        let t = r.trace_of(Property::Herd).expect("a herd trace");
        let last = t.steps.last().expect("a step");
        assert!(last.text.starts_with("delete("), "{recipe}: {}", last.text);
        assert_eq!(t.steps.len(), len, "{recipe}");
    }
}

/// Seed 002's cluster_lock polls: an attempt that is not the lowest
/// gives up (lock() returns False, the caller tries again), and with the
/// sequence-suffix abstraction the space is finite — it holds, each
/// client acquires on some path, 232 states (scenarios/try-once.toml).
#[test]
fn try_once_gives_up_and_polls_until_it_holds() {
    let mut c = cfg(RecipeId::TryOnce, 2, 1);
    c.abstract_sequences = true;
    let r = check(&c);
    assert_eq!(r.verdict, Verdict::Holds, "{:?}", r.properties);
    assert!(r.never_acquired.is_empty(), "{:?}", r.never_acquired);
    assert_eq!(r.states, 232);
}

/// Seed 002's cluster_lock behind a caller that retries on every
/// exception (scenarios/try-once-orphan.toml): a create whose reply a
/// connection loss swallows leaves a node no client names — orphaned, 4
/// steps — and the retrying caller, never lowest behind it, polls
/// forever: starvation, 27 steps.
#[test]
fn a_create_lost_to_a_connection_loss_orphans_its_node() {
    let mut c = cfg(RecipeId::TryOnceRetry, 2, 1);
    c.abstract_sequences = true;
    c.faults.connection_losses = 1;
    let r = check(&c);
    assert_eq!(r.property, Some(Property::Starvation));
    assert_eq!(
        (
            steps(&r, Property::OrphanedNode),
            steps(&r, Property::Starvation),
            r.states
        ),
        (Some(4), Some(27), 1415)
    );
    assert_eq!(fair_lasso_cycle_start(&c), 17);
}

/// kazoo opens a new session after an expiry, so a caller that retries
/// (try-once-retry, one client, one expiry at any step) gets the lock on
/// it: every property holds. On the Java client's rule the same caller
/// retried forever on the dead session (starvation, 6 steps).
#[test]
fn a_kazoo_caller_that_retries_acquires_on_a_new_session_after_an_expiry() {
    let mut c = cfg(RecipeId::TryOnceRetry, 1, 1);
    c.abstract_sequences = true;
    c.faults.expiries = 1;
    let r = check(&c);
    assert_eq!(r.verdict, Verdict::Holds, "{:?}", r.properties);
    assert_eq!(r.states, 70);
}

/// A kazoo client its application closed (try-once-retry's `close()`,
/// which stops the client) opens no session again: the second round's
/// calls fail on the closed client and the caller retries forever —
/// starvation, 16 steps — even with an expiry the library would renew.
#[test]
fn a_closed_kazoo_client_opens_no_new_session() {
    let mut c = cfg(RecipeId::TryOnceRetry, 1, 2);
    c.abstract_sequences = true;
    c.faults.expiries = 1;
    let r = check(&c);
    assert_eq!(r.property, Some(Property::Starvation));
    assert_eq!(steps(&r, Property::Starvation), Some(16));
}

/// cas-version called again by its holder (scenarios/cas-version-reentrant.toml):
/// its hold count lets the second lock() in, but one unlock() too many
/// clears the lock of whoever holds it now — re-entrancy broken, 18
/// steps, and nothing else.
#[test]
fn cas_version_called_again_breaks_reentrancy_and_nothing_else() {
    let mut c = cfg(RecipeId::CasVersion, 2, 1);
    c.reentries = 1;
    let r = check(&c);
    assert_eq!(r.property, Some(Property::Reentrancy));
    assert_eq!(r.of(Property::Deadlock), Verdict::Holds);
    assert_eq!(
        (steps(&r, Property::Reentrancy), r.states),
        (Some(18), 3366)
    );
    // Nested twice, one client alone: broken the same way.
    let mut c = cfg(RecipeId::CasVersion, 1, 1);
    c.reentries = 2;
    assert_eq!(check(&c).property, Some(Property::Reentrancy));
}

/// cluster_lock called again by its holder: the second attempt is not
/// the lowest (the holder's own node is), so it gives up — and the
/// caller goes on holding the outer lock rather than polling forever.
#[test]
fn a_reentrant_attempt_that_gives_up_keeps_the_outer_hold() {
    let mut c = cfg(RecipeId::TryOnce, 1, 1);
    c.reentries = 1;
    c.abstract_sequences = true;
    let r = check(&c);
    assert_eq!(r.of(Property::Starvation), Verdict::Holds);
    assert_eq!(r.states, 23);
}

/// The sequence abstraction zeroes the zxids no recipe reads, but a
/// fenced resource reads czxids (its tokens): with fencing they are kept,
/// and the textbook lock's stale holder is still fenced off after the
/// abstraction — mutual exclusion breaks at the clients, not at the
/// resource (1,853 states).
#[test]
fn the_abstraction_keeps_the_czxids_a_fenced_resource_reads() {
    use locksmith_model::engine::harness::Writes;
    let mut c = cfg(RecipeId::Predecessor, 2, 1);
    c.abstract_sequences = true;
    c.writes = Writes::Fenced;
    c.faults.holder_expiries = 1;
    let r = check(&c);
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!(r.of(Property::MutualExclusionAtResource), Verdict::Holds);
    assert_eq!(r.states, 1_853);
}

/// A fencing token is the czxid of the client's own *ephemeral* node, its
/// lock node: a recipe that first creates its persistent root (racy-wait's
/// first draft) holds no token from the root.
#[test]
fn only_an_ephemeral_node_gives_a_fencing_token() {
    use locksmith_model::engine::harness::Writes;
    use locksmith_model::zk::check::System;
    let mut c = cfg(RecipeId::RacyWait, 1, 1);
    c.recipe_root = true;
    c.writes = Writes::Fenced;
    let mut s = System::initial(&c);
    let (mut root_without_lock_node, mut lock_node) = (false, false);
    for _ in 0..100 {
        let mut next = Vec::new();
        s.actions(&mut next);
        let Some(&a) = next.iter().find(|a| !a.is_fault()) else {
            break;
        };
        s.apply(a, false);
        let nodes: Vec<bool> = s.server.nodes().map(|(_, n)| n.is_ephemeral()).collect();
        if nodes.len() > 1 && !nodes.contains(&true) {
            root_without_lock_node = true;
            assert_eq!(s.peers[0].section.created, 0, "after {a}");
        }
        if nodes.contains(&true) && !lock_node {
            lock_node = true;
            assert_ne!(s.peers[0].section.created, 0, "after {a}");
        }
    }
    assert!(root_without_lock_node && lock_node, "the root came first");
}

/// The textbook lock with a fenced resource: each holder writes its
/// opening and its closing write and leaves — every property holds,
/// starvation included (a holder that kept writing would starve the
/// other).
#[test]
fn a_fenced_holder_writes_twice_and_lets_the_next_in() {
    let mut c = cfg(RecipeId::Predecessor, 2, 1);
    c.writes = locksmith_model::engine::harness::Writes::Fenced;
    let r = check(&c);
    assert_eq!(r.verdict, Verdict::Holds, "{:?}", r.properties);
    assert_eq!(r.of(Property::Starvation), Verdict::Holds);
    assert_eq!(r.states, 335);
}

/// Fencing and guarded writes take the holder's own lock node; the two
/// recipes that name none of their own (cas-version, watcher-callback)
/// are refused, with what was expected.
#[test]
fn writes_need_a_recipe_whose_holder_owns_its_lock_node() {
    for &id in RecipeId::ALL {
        let mut c = cfg(id, 2, 1);
        c.writes = locksmith_model::engine::harness::Writes::Fenced;
        let refused = c.validate_writes().err();
        let expected = matches!(id, RecipeId::CasVersion | RecipeId::WatcherCallback);
        assert_eq!(refused.is_some(), expected, "{id}");
        if let Some(e) = refused {
            assert!(e.contains("expected a recipe whose holder owns"), "{e}");
        }
    }
}

/// Curator's `acquire(1000, MILLISECONDS)` (scenarios/curator-timed.toml):
/// a waiter out of time deletes its node and acquire returns false, the
/// caller tries again — every property holds, 5,683 states.
#[test]
fn curators_timed_acquire_gives_up_cleanly_and_holds() {
    let mut c = cfg(RecipeId::Curator, 2, 1);
    c.acquire_timeout_ms = Some(1000);
    c.abstract_sequences = true;
    let r = check(&c);
    assert_eq!(r.verdict, Verdict::Holds, "{:?}", r.properties);
    assert_eq!(r.states, 5683);
}

/// CURATOR-696's owner check (scenarios/curator-owner-check-holder-expiry.toml):
/// the lowest client compares its node's ephemeralOwner with its own
/// session before it believes it holds. A holder's session expiring under
/// it still breaks mutual exclusion (21 steps, 15,098 states): the check
/// runs before holding, not while.
#[test]
fn curators_owner_check_reads_its_own_session_and_a_holder_expiry_still_breaks_it() {
    let mut c = cfg(RecipeId::CuratorOwnerCheck, 2, 1);
    c.faults.holder_expiries = 1;
    let r = check(&c);
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!(
        (steps(&r, Property::MutualExclusion), r.states),
        (Some(21), 15098)
    );
    // A waiter's client-side expiry (CURATOR-604's partition, one round
    // each): the node of the session it gave up is not its own — it holds,
    // 36,740 states (before Curator's dead fields were cleared: 37,636, and
    // 39,508 if every node read as its own).
    let mut c = cfg(RecipeId::CuratorOwnerCheck, 2, 1);
    c.faults.waiter_client_expiries = 1;
    c.abstract_sequences = true;
    let r = check(&c);
    assert_eq!((r.verdict, r.states), (Verdict::Holds, 36_740));
}

#[test]
fn a_state_bound_gives_incomplete_and_names_the_bound() {
    let mut c = cfg(RecipeId::FixedWait, 3, 1);
    c.max_states = 500;
    let r = check(&c);
    assert_eq!(r.verdict, Verdict::Incomplete);
    // The bound is passed, not reached: the run stops at the 501st state.
    assert_eq!(r.states, 501);
    assert!(
        r.bound.as_deref().is_some_and(|b| b.contains("max-states")),
        "{:?}",
        r.bound
    );
    assert!(r.properties.iter().all(|p| p.verdict != Verdict::Holds));
    // Why it was still finding states: the last whole level, by its depth
    // from the initial state, and the one eight levels before it.
    let why = r.growth.as_deref().unwrap_or_default();
    assert!(
        why.starts_with(
            "depth 19 found 86 new states (depth 11: 17); the largest zxid \
             rose from 6 to 7 over those levels; the largest tree grew from 4 to 5 nodes"
        ),
        "{why}"
    );
    // The counters rose and the run did not abstract them: the message
    // points at the abstraction; a run that did says nothing is left.
    assert!(
        why.contains(" — a recipe that creates and deletes nodes in a loop never repeats a state"),
        "{why}"
    );
    c.abstract_sequences = true;
    let r = check(&c);
    let why = r.growth.as_deref().unwrap_or_default();
    assert!(
        why.contains(" — the counters still rise with nothing left to abstract"),
        "{why}"
    );
}

#[test]
#[ignore = "heavy tier (~15 s): bash scripts/heavy-tests.sh"]
fn symmetry_changes_no_verdict_and_no_trace_length() {
    let mut cases = vec![
        cfg(RecipeId::RacyWait, 2, 1),
        cfg(RecipeId::RacyWait, 3, 1),
        cfg(RecipeId::FixedWait, 3, 1),
        cfg(RecipeId::HerdUnique, 3, 1),
        cfg(RecipeId::Predecessor, 2, 2),
    ];
    let mut expiry = cfg(RecipeId::NoRecheck, 3, 1);
    expiry.faults = FaultBudget {
        waiter_expiries: 1,
        ..FaultBudget::default()
    };
    cases.push(expiry);
    let mut holder = cfg(RecipeId::Predecessor, 2, 1);
    holder.faults.holder_expiries = 1;
    cases.push(holder);
    // Sessions a client gave up on stay on the server, renumbered with
    // their client (Curator's client-side expiry).
    let mut given_up = cfg(RecipeId::Curator, 2, 1);
    given_up.faults.client_expiries = 1;
    given_up.abstract_sequences = true;
    cases.push(given_up);
    // Calls failed before they were sent (Curator's connection timeout).
    let mut timed_out = cfg(RecipeId::Curator, 2, 1);
    timed_out.faults.connection_losses = 1;
    timed_out.faults.connection_timeouts = 3;
    cases.push(timed_out);
    for c in cases {
        let mut plain = c.clone();
        plain.symmetry = false;
        let (a, b) = (check(&c), check(&plain));
        assert!(a.states <= b.states);
        for p in Property::ALL {
            assert_eq!(a.of(p), b.of(p), "{} {}: {p}", c.recipe, c.clients);
            assert_eq!(
                steps(&a, p),
                steps(&b, p),
                "{} {}: {p}",
                c.recipe,
                c.clients
            );
        }
    }
}

#[test]
fn no_recheck_breaks_under_a_waiter_expiry_and_predecessor_does_not() {
    let mut c = cfg(RecipeId::NoRecheck, 3, 1);
    c.faults.waiter_expiries = 1;
    assert_eq!(check(&c).of(Property::MutualExclusion), Verdict::Violated);
    c.recipe = RecipeId::Predecessor;
    let r = check(&c);
    assert_eq!(r.of(Property::MutualExclusion), Verdict::Holds);
    assert_eq!(r.of(Property::Deadlock), Verdict::Holds);
}

#[test]
fn a_holder_expiry_breaks_the_textbook_lock() {
    let mut c = cfg(RecipeId::Predecessor, 2, 1);
    c.faults.holder_expiries = 1;
    let r = check(&c);
    assert_eq!(r.of(Property::MutualExclusion), Verdict::Violated);
    let t = r
        .trace_of(Property::MutualExclusion)
        .cloned()
        .expect("trace");
    assert!(t.steps.iter().any(|s| s.actor.starts_with("FAULT expire")));
    assert_eq!(t.steps.last().map(|s| s.holders.len()), Some(2));
}

#[test]
fn traces_are_deterministic() {
    let c = cfg(RecipeId::NoRecheck, 3, 1);
    let mut c2 = c.clone();
    c2.faults.waiter_expiries = 1;
    let a = check(&c2)
        .trace_of(Property::MutualExclusion)
        .map(|t| t.text());
    let b = check(&c2)
        .trace_of(Property::MutualExclusion)
        .map(|t| t.text());
    assert_eq!(a, b);
    assert!(a.is_some());
}

#[test]
fn a_memory_bound_gives_incomplete_and_names_the_bound() {
    let mut c = cfg(RecipeId::Predecessor, 3, 2);
    c.max_memory = 4 << 20;
    let r = check(&c);
    assert_eq!(r.verdict, Verdict::Incomplete);
    assert!(
        r.bound.as_deref().is_some_and(|b| b.contains("max-memory")),
        "{:?}",
        r.bound
    );
}

/// The parallel search numbers states as the sequential one does: the same
/// counts, depth, bound and every counterexample's actions for any number
/// of jobs — with and without symmetry, with faults, and with a bound hit
/// part-way through a level.
#[test]
fn any_number_of_jobs_explores_the_same_graph() {
    let mut faulted = cfg(RecipeId::Predecessor, 3, 1);
    faulted.faults = FaultBudget {
        expiries: 1,
        ..FaultBudget::default()
    };
    let mut asymmetric = cfg(RecipeId::RacyWait, 3, 1);
    asymmetric.symmetry = false;
    let mut bounded = cfg(RecipeId::FixedWait, 3, 1);
    bounded.max_states = 3_000;
    let mut memory = cfg(RecipeId::HerdChildren, 3, 1);
    memory.max_memory = 1 << 18;
    // A bound hit in a level of dozens of batches, with workers waiting
    // ahead of the merger: they must hear the stop (without it they wait
    // for merges that never come, and the run hangs).
    let mut wide = cfg(RecipeId::FixedWait, 4, 1);
    wide.max_states = 30_000;
    for c in [
        faulted,
        asymmetric,
        bounded,
        memory,
        wide,
        cfg(RecipeId::TimedWait, 2, 1),
        cfg(RecipeId::WatcherCallback, 3, 1),
    ] {
        let one = explore(&c);
        let bounded = c.max_states < 20_000_000 || c.max_memory < 1 << 20;
        assert_eq!(one.bound.is_some(), bounded, "{:?}", c.recipe);
        for jobs in [2, 3] {
            let mut p = c.clone();
            p.jobs = jobs;
            let many = explore(&p);
            let what = format!("{:?} x{} with {jobs} jobs", c.recipe, c.clients);
            assert_eq!(one.states, many.states, "{what}");
            assert_eq!(one.transitions, many.transitions, "{what}");
            assert_eq!(one.depth, many.depth, "{what}");
            assert_eq!(one.bound, many.bound, "{what}");
            assert_eq!(one.found, many.found, "{what}");
            assert_eq!(one.peak_bytes, many.peak_bytes, "{what}");
        }
    }
}

/// Fencing by czxid follows the lock only if the lock grants in node
/// order: seed 003's lock, let in by a disconnect, grants the later node
/// first, so the earlier node's holder — the newer tenure — writes with
/// the lower token, and the older tenure's next write is accepted after it.
#[test]
fn a_lock_that_grants_out_of_node_order_breaks_fenced_safety() {
    use locksmith_model::engine::harness::Writes;
    let mut c = cfg(RecipeId::NoRecheck, 2, 1);
    c.faults = FaultBudget {
        disconnects: 1,
        ..FaultBudget::default()
    };
    c.writes = Writes::Fenced;
    let r = check(&c);
    assert_eq!(r.of(Property::FencedSafety), Verdict::Violated);
    assert_eq!(r.of(Property::MutualExclusionAtResource), Verdict::Holds);
    let t = r.trace_of(Property::FencedSafety).map(|t| t.steps.len());
    assert_eq!(t, Some(24));
    // The same two holders with guarded writes: both nodes exist, so both
    // holders' writes go through and interleave.
    c.writes = Writes::Guarded;
    let r = check(&c);
    assert_eq!(r.of(Property::FencedSafety), Verdict::NotApplicable);
    let t = r
        .trace_of(Property::MutualExclusionAtResource)
        .map(|t| t.steps.len());
    assert_eq!(t, Some(30));
    // The setData inside each guarded multi answers with a stat the recipe
    // never reads: masked, it splits no state.
    assert_eq!(r.states, 11_664);
    // Without either setting the resource is not judged.
    c.writes = Writes::Off;
    let r = check(&c);
    assert_eq!(
        r.of(Property::MutualExclusionAtResource),
        Verdict::NotApplicable
    );
}

#[test]
fn curator_survives_two_connection_timeouts_and_its_thread_dies_at_the_third() {
    let mut c = cfg(RecipeId::Curator, 2, 1);
    c.faults.connection_losses = 1;
    let died = |c: &CheckConfig| check(c).of(Property::ThreadDied);
    assert_eq!(died(&c), Verdict::Holds);
    c.faults.connection_timeouts = 2;
    assert_eq!(died(&c), Verdict::Holds);
    c.faults.connection_timeouts = 3;
    let r = check(&c);
    assert_eq!(r.of(Property::ThreadDied), Verdict::Violated);
    assert_eq!(r.of(Property::MutualExclusion), Verdict::Holds);
    assert_eq!(r.of(Property::OrphanedNode), Verdict::Holds);
    assert_eq!(trace_len(&c, Property::ThreadDied), Some(10));
}

#[test]
fn a_library_that_waits_for_the_connection_is_untouched_by_connection_timeouts() {
    // The plain Java client queues a call made while disconnected until the
    // reconnect: the budget never applies, the exploration is the same.
    // A disconnect leaves calls queued the longest: the same there.
    let outages: [fn(&mut FaultBudget); 2] = [|f| f.connection_losses = 1, |f| f.disconnects = 1];
    for outage in outages {
        let mut c = cfg(RecipeId::Predecessor, 2, 1);
        outage(&mut c.faults);
        let without = check(&c);
        c.faults.connection_timeouts = 3;
        let with = check(&c);
        assert_eq!(with.states, without.states, "{:?}", c.faults);
        for p in Property::ALL {
            assert_eq!(with.of(p), without.of(p), "{:?}: {p}", c.faults);
        }
    }
}

/// Curator's client-side expiry strikes a session whose connection is up
/// (one already down is given up on by the library's own timer, not by
/// the fault), and each strike spends the budget of its role: a parked
/// waiter's `waiter_client_expiries`, anyone else's `client_expiries`.
#[test]
fn client_side_expiries_strike_connected_sessions_and_spend_their_roles_budget() {
    use locksmith_model::zk::check::{Action, System};
    let enabled = |s: &System, a: Action| {
        let mut out = Vec::new();
        s.actions(&mut out);
        out.contains(&a)
    };
    let mut c = cfg(RecipeId::Curator, 2, 1);
    c.faults.client_expiries = 1;
    c.faults.disconnects = 1;
    let mut s = System::initial(&c);
    assert!(enabled(&s, Action::ClientExpire(0)));
    s.apply(Action::Disconnect(0), false);
    assert!(!enabled(&s, Action::ClientExpire(0)), "c1 is down already");
    assert!(enabled(&s, Action::ClientExpire(1)));

    let mut c = cfg(RecipeId::Curator, 2, 1);
    c.faults.client_expiries = 1;
    c.faults.waiter_client_expiries = 1;
    let mut s = System::initial(&c);
    s.apply(Action::ClientExpire(0), false);
    let left = (s.faults.client_expiries, s.faults.waiter_client_expiries);
    assert_eq!(left, (0, 1), "c1 was not waiting");
    assert!(!enabled(&s, Action::ClientExpire(1)), "nor is c2");
}

/// Curator's `release()` runs `removeWatchers()`: one background
/// `removeWatches(path, watcher, Any)` (opcode `checkWatches`) per watcher
/// its `WatcherRemovalManager` still keeps — here a stale entry, committed
/// by the caller after the event thread had already run the watcher
/// (`Watching.commitWatcher` runs when `getData` returns). Every such call
/// finds no watch on the server: a client holds only once every node it
/// ever watched in this lock is gone, so each watch has fired.
#[test]
fn curator_release_removes_its_kept_watchers_and_the_server_has_none_left() {
    use locksmith_model::zk::check::LockModel;
    use locksmith_model::zk::check::{Action, Message};
    use locksmith_model::zk::client::Thread;
    use locksmith_model::zk::{Op, ZkError};
    use stateright::Model;
    use std::collections::{HashSet, VecDeque};

    let m = LockModel {
        cfg: cfg(RecipeId::Curator, 2, 2),
    };
    let no_watcher = Message::Reply(Thread::Background, Err(ZkError::NoWatcher));
    // A state's interior mutability is its shared parts' caches (digest,
    // memoized successors); equality and hashing read only the values.
    #[allow(clippy::mutable_key_type)]
    let mut seen = HashSet::new();
    let mut queue: VecDeque<_> = m.init_states().into();
    let mut answers = Vec::new();
    while let Some(s) = queue.pop_front() {
        if !seen.insert(s.clone()) {
            continue;
        }
        let mut acts = Vec::new();
        m.actions(&s, &mut acts);
        for a in acts {
            let next = m.next_state(&s, a).expect("every action is taken");
            if let Action::Serve(c) = a {
                let asked = s.peers[c as usize].outbox.front().map(|r| &r.op);
                if matches!(asked, Some(Op::CheckWatches { .. })) {
                    answers.push(next.peers[c as usize].inbox.back().cloned());
                }
            }
            queue.push_back(next);
        }
    }

    // `curator.toml` with `reentries = 0` (docs/writing-a-recipe.md).
    assert_eq!(seen.len(), 30_532, "the whole space was walked");
    assert!(!answers.is_empty(), "some release removes a kept watcher");
    let other = answers.iter().find(|a| a.as_ref() != Some(&no_watcher));
    assert_eq!(other, None, "of {} removals", answers.len());
}

/// What Curator's re-entrant rounds cost (docs/writing-a-recipe.md): each
/// level is a counted `acquire()` and `release()` with no ZooKeeper call.
/// And what clearing Curator's dead values saves on them (docs/checker.md):
/// the counts with those values kept.
#[test]
fn curators_re_entrant_rounds_cost_the_states_the_docs_give() {
    let states = |reentries, keep_dead_values| {
        let mut c = cfg(RecipeId::Curator, 2, 2);
        c.reentries = reentries;
        c.keep_dead_values = keep_dead_values;
        let r = check(&c);
        assert_eq!(r.verdict, Verdict::Holds, "reentries = {reentries}");
        r.states
    };
    let counts = |keep| [states(0, keep), states(1, keep), states(2, keep)];
    assert_eq!(counts(false), [30_532, 37_500, 44_468]);
    assert_eq!(counts(true), [32_844, 40_668, 48_492]);
}

/// Partial-order reduction explores fewer states, and the same ones with
/// any number of jobs: the ample sets and the proviso read only the state
/// and the levels before it.
#[test]
fn por_shrinks_the_space_the_same_on_one_job_and_two() {
    let mut c = cfg(RecipeId::FixedWait, 3, 1);
    let plain = check(&c);
    c.por = true;
    let one = check(&c);
    c.jobs = 2;
    let two = check(&c);
    assert_eq!((plain.states, plain.reduced), (8_590, 0));
    assert_eq!((one.states, one.reduced), (2_658, 1_572));
    assert_eq!((two.states, two.reduced), (one.states, one.reduced));
    for r in [&one, &two] {
        assert_eq!(r.verdict, Verdict::Holds);
    }
}

/// Why the reduction is off by default: taking one client's steps first
/// can put steps the violation does not need before it. Herd-unique's
/// herd is 19 steps at the shortest, 21 as the reduced search first meets
/// it; a waiter expiry's dead thread 18 and 21.
#[test]
fn por_keeps_the_verdict_and_can_lengthen_the_trace() {
    let mut herd = cfg(RecipeId::HerdUnique, 3, 1);
    let mut died = cfg(RecipeId::Predecessor, 3, 1);
    died.faults.waiter_expiries = 1;
    for (c, p, shortest, reduced) in [
        (&mut herd, Property::Herd, 19, 21),
        (&mut died, Property::ThreadDied, 18, 21),
    ] {
        assert_eq!(trace_len(c, p), Some(shortest));
        c.por = true;
        assert_eq!(check(c).of(p), Verdict::Violated);
        assert_eq!(trace_len(c, p), Some(reduced));
    }
}

/// The counts docs/checker.md gives for the reduction (*Reductions*), and
/// that it completes what the plain search cannot: fixed-wait with six
/// clients holds.
#[test]
#[ignore = "heavy tier (~15 s): bash scripts/heavy-tests.sh"]
fn por_gives_the_counts_the_docs_state() {
    for (recipe, clients, acquisitions, states) in [
        (RecipeId::Predecessor, 3, 2, 416_647),
        (RecipeId::FixedWait, 5, 1, 464_888),
        (RecipeId::FixedWait, 6, 1, 5_645_131),
    ] {
        let mut c = cfg(recipe, clients, acquisitions);
        c.por = true;
        c.jobs = 2;
        let r = check(&c);
        assert_eq!(r.verdict, Verdict::Holds, "{recipe} × {clients}");
        assert_eq!(r.states, states, "{recipe} × {clients}");
    }
}

/// Predecessor with four clients and two acquisitions each, with the
/// reduction and the sequence abstraction: it holds, in 15,268,447 states
/// (over a minute and about 1.4 GB with a release build).
#[test]
#[ignore = "minutes and 1.4 GB: cargo test --release --test checker -- --ignored por_completes"]
fn por_completes_predecessor_with_four_clients_twice_each() {
    let mut c = cfg(RecipeId::Predecessor, 4, 2);
    c.por = true;
    c.abstract_sequences = true;
    c.jobs = 2;
    c.max_memory = 8 << 30;
    let r = check(&c);
    assert_eq!(r.verdict, Verdict::Holds);
    assert_eq!(r.states, 15_268_447);
}

/// The reduction on small configurations under every kind of fault: every
/// property's verdict as without it, never more states, no trace shorter
/// than the shortest; and the reduced counts, pinned (a change to what
/// makes an ample set changes one of them).
#[test]
#[ignore = "heavy tier (~15 s): bash scripts/heavy-tests.sh"]
fn por_changes_no_verdict_under_any_fault() {
    let mut cases = vec![
        cfg(RecipeId::RacyWait, 3, 1),
        cfg(RecipeId::HerdUnique, 3, 1),
        cfg(RecipeId::Predecessor, 2, 2),
        cfg(RecipeId::Curator, 2, 1),
    ];
    let faults: [fn(&mut FaultBudget); 7] = [
        |f| f.waiter_expiries = 1,
        |f| f.holder_expiries = 1,
        |f| f.crashes = 1,
        |f| f.connection_losses = 1,
        |f| f.disconnects = 1,
        |f| f.reorders = 1,
        |f| f.client_expiries = 1,
    ];
    for (k, fault) in faults.iter().enumerate() {
        let mut c = cfg(
            if k == 6 {
                RecipeId::Curator
            } else {
                RecipeId::Predecessor
            },
            if k == 6 { 2 } else { 3 },
            1,
        );
        fault(&mut c.faults);
        cases.push(c);
    }
    let mut no_recheck = cfg(RecipeId::NoRecheck, 3, 1);
    no_recheck.faults.waiter_expiries = 1;
    cases.push(no_recheck);
    // A connection lost under a recipe that leaves its node behind: many
    // steps change whether a state property is violated, and no such step
    // may be one of an ample set's (the two counts below fall if one is).
    for recipe in [RecipeId::WatcherCallback, RecipeId::TryOnceRetry] {
        let mut c = cfg(recipe, 2, 1);
        c.faults.connection_losses = 1;
        c.abstract_sequences = true;
        cases.push(c);
    }
    let mut reduced_counts = Vec::new();
    for c in cases {
        let plain = check(&c);
        let mut with = c.clone();
        with.por = true;
        let reduced = check(&with);
        let what = format!("{} × {} {:?}", c.recipe, c.clients, c.faults);
        assert!(reduced.states <= plain.states, "{what}");
        for p in Property::ALL {
            assert_eq!(reduced.of(p), plain.of(p), "{what}: {p}");
            assert!(steps(&reduced, p) >= steps(&plain, p), "{what}: {p}");
        }
        reduced_counts.push(reduced.states);
    }
    assert_eq!(
        reduced_counts,
        [
            2_974, 2_899, 2_470, 407, 7_588, 16_825, 37_713, 40_163, 50_554, 6_587, 597_387, 8_422,
            5_966, 1_108
        ]
    );
}

/// `--max-memory-mb` stops a run when the estimate of its tables passes
/// it: the visited set, the parents, the symmetry orders, the graph kept
/// for the starvation analysis (codes and columns) and the queued states.
/// The figures move when a table's layout does; they must not move
/// otherwise (the estimate is the same for any number of jobs, above).
#[test]
fn the_memory_estimate_counts_every_table() {
    let with_graph = check(&cfg(RecipeId::FixedWait, 3, 1));
    let mut no_graph = cfg(RecipeId::FixedWait, 3, 1);
    no_graph.starvation = false;
    let no_graph = check(&no_graph);
    assert_eq!((with_graph.states, no_graph.states), (8_590, 8_590));
    assert_eq!(
        (with_graph.peak_bytes, no_graph.peak_bytes),
        (1_694_456, 841_728)
    );
}

/// With the starvation analysis off (`starvation = false`) a complete
/// run still says "holds" of what it judged, and of starvation, which it
/// did not judge, only "incomplete" — never "holds".
#[test]
fn starvation_left_unjudged_is_incomplete_and_the_rest_holds() {
    let mut c = cfg(RecipeId::FixedWait, 3, 1);
    c.starvation = false;
    let r = check(&c);
    assert!(r.bound.is_none());
    assert_eq!(r.of(Property::Starvation), Verdict::Incomplete);
    assert_eq!(r.of(Property::MutualExclusion), Verdict::Holds);
    assert_eq!(r.of(Property::Deadlock), Verdict::Holds);
}

/// The progress a run reports after each batch (what `locksmith check`
/// prints as it goes) counts states and transitions as the report does,
/// and the same estimate of the tables: by the last report nothing is
/// queued, so it is the tables alone, below the peak the queue added.
#[test]
fn progress_counts_as_the_report_does_and_ends_with_nothing_queued() {
    let c = cfg(RecipeId::FixedWait, 3, 1);
    let mut reports = Vec::new();
    let x = locksmith_model::zk::check::explore::explore_with_progress(&c, &mut |p| {
        reports.push((p.states, p.depth, p.transitions, p.table_bytes));
        std::ops::ControlFlow::Continue(())
    });
    assert!(reports
        .windows(2)
        .all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
    assert_eq!(reports.last(), Some(&(8_590, 71, 22_298, 1_636_088)));
    assert_eq!((x.states, x.transitions), (8_590, 22_298));
    assert_eq!(x.peak_bytes, 1_694_456);
}

/// The memory bound is a ceiling the tables may reach but not pass: the
/// estimate is read every 4,096 states (FixedWait 3/1 reads 1,531,608 and
/// then 1,651,448 bytes), and a bound of exactly the larger lets the run
/// finish while a byte less stops it at the 8,192nd state.
#[test]
fn the_memory_bound_stops_a_run_only_once_the_tables_pass_it() {
    let mut c = cfg(RecipeId::FixedWait, 3, 1);
    c.max_memory = 1_651_448;
    let x = explore(&c);
    assert_eq!((x.states, x.bound), (8_590, None));
    c.max_memory -= 1;
    let x = explore(&c);
    assert_eq!(
        (x.states, x.bound),
        (
            8_192,
            Some(locksmith_model::engine::Bound::MaxMemory(1_651_447))
        )
    );
}

/// A time bound is checked after every batch: a bound of zero has passed
/// by the first, which stops the run there and names the bound (the
/// verdict is then incomplete, never holds).
#[test]
fn a_time_bound_stops_the_run_after_the_batch_that_passed_it() {
    use locksmith_model::engine::Bound;
    let mut c = cfg(RecipeId::FixedWait, 3, 1);
    c.max_time = Some(std::time::Duration::ZERO);
    let x = explore(&c);
    assert_eq!(
        (x.states, x.bound),
        (2, Some(Bound::MaxTime(std::time::Duration::ZERO)))
    );
    assert_eq!(check(&c).verdict, Verdict::Incomplete);
}

/// The reduction's cycle proviso (a reduced state with a successor found
/// before its own level is expanded in full) reads the states before the
/// level only, not the level's first: herd-children, 3 clients, one
/// expiry at any step, reduced — 113,279 states (113,289 if the level's
/// first state counted as earlier).
#[test]
fn the_reductions_cycle_proviso_reads_only_earlier_levels() {
    let mut c = cfg(RecipeId::HerdChildren, 3, 1);
    c.faults.expiries = 1;
    c.por = true;
    let r = check(&c);
    assert_eq!((r.verdict, r.states), (Verdict::Violated, 113_279));
}

/// The fencing token at work: a holder whose session expired still writes,
/// and the resource turns it away once the next holder has written.
#[test]
fn fencing_turns_away_a_holder_whose_session_expired() {
    let mut c = cfg(RecipeId::Predecessor, 2, 1);
    c.writes = locksmith_model::engine::harness::Writes::Fenced;
    c.faults.holder_expiries = 1;
    let r = check(&c);
    // Both believe they hold (15 steps), but what reaches the resource
    // stays in the lock's order: the second holder may write twice while
    // the first, older, tenure is still open.
    assert_eq!(trace_len(&c, Property::MutualExclusion), Some(15));
    assert_eq!(r.of(Property::FencedSafety), Verdict::Holds);
    assert_eq!(r.of(Property::MutualExclusionAtResource), Verdict::Holds);
    assert_eq!(r.states, 1_853);
}

/// Seed 002's pollers livelock (scenarios/try-once-livelock.toml): two
/// pollers withdraw and try again forever, one step apart — starvation,
/// 40 steps, and the lasso replays as a fair, closed cycle. The trace
/// marks where the cycle begins once, before its step 21.
#[test]
fn two_pollers_livelock_in_a_fair_cycle() {
    let mut c = cfg(RecipeId::TryOnce, 3, 1);
    c.abstract_sequences = true;
    let r = check(&c);
    assert_eq!(r.property, Some(Property::Starvation));
    assert_eq!(
        (steps(&r, Property::Starvation), r.states),
        (Some(40), 5_386)
    );
    assert_eq!(fair_lasso_cycle_start(&c), 20);
    let t = r.trace_of(Property::Starvation).expect("a lasso");
    assert_eq!(t.cycle_start, Some(21));
    let marked: Vec<usize> = (t.steps.iter())
        .filter(|s| s.cycle_starts_here)
        .map(|s| s.step)
        .collect();
    assert_eq!(marked, [21]);
    let banner = "── cycle: the steps below repeat forever ──";
    assert_eq!(t.text().matches(banner).count(), 1);
}

/// The pollers' livelock with a crash to spend: the shortest lasso is as
/// long as without one, 40 steps, and replays as a fair, closed cycle.
/// (Agents mixed up across clients in the starvation analysis gave a
/// 31-step one here.)
#[test]
fn two_pollers_livelock_as_well_with_a_crash_to_spend() {
    let mut c = cfg(RecipeId::TryOnce, 3, 1);
    c.abstract_sequences = true;
    c.faults = FaultBudget {
        crashes: 1,
        ..FaultBudget::default()
    };
    let r = check(&c);
    assert_eq!(r.property, Some(Property::Starvation));
    assert_eq!(
        (steps(&r, Property::Starvation), r.states),
        (Some(40), 20_001)
    );
    fair_lasso_cycle_start(&c);
}

/// The judge of a lasso refuses what is not one, and says why: the
/// pollers' cycle without its last step does not come back to the state
/// it left; without c2's steps it closes (c2 withdraws what it makes) but
/// is unfair to c2, whose request waits to be served all along it
/// (agent 14: client 1 in the high five bits, kind 6, the server taking
/// its request).
#[test]
fn a_lasso_that_does_not_close_or_leaves_an_agent_out_is_refused() {
    use locksmith_model::zk::check::explore::judge;
    let mut c = cfg(RecipeId::TryOnce, 3, 1);
    c.abstract_sequences = true;
    let x = explore(&c);
    let cx = &x.found[&Property::Starvation];
    let start = cx.cycle_start.expect("a cycle");
    let mut open = cx.clone();
    open.actions.pop();
    assert_eq!(
        judge(&c, &open),
        Err("the cycle does not come back to the state it left".to_string())
    );
    let mut unfair = cx.clone();
    unfair.actions.truncate(start);
    let others = cx.actions[start..].iter().filter(|a| a.client() != Some(1));
    unfair.actions.extend(others);
    assert_eq!(
        judge(&c, &unfair),
        Err("agents [14] can move all along the cycle and never do".to_string())
    );
}

/// Seed 000's first draft creating its lock root itself
/// (scenarios/racy-wait-recipe-root.toml): the root is not there at the
/// start, two clients can both find it missing, and the second create's
/// NodeExists kills its thread (12 steps); the lost wake-up takes the
/// root's create more (36 steps).
///
/// The sequence abstraction leaves alone a node that never had a child
/// (the root the recipe makes keeps its counter at zero): every trace
/// keeps its length and only the count of states falls.
#[test]
fn a_recipe_that_creates_its_root_starts_without_it() {
    for (abstracted, states) in [(false, 633), (true, 576)] {
        let mut c = cfg(RecipeId::RacyWait, 2, 1);
        c.recipe_root = true;
        c.abstract_sequences = abstracted;
        let r = check(&c);
        assert_eq!(r.property, Some(Property::Deadlock));
        let found = (
            steps(&r, Property::Deadlock),
            steps(&r, Property::ThreadDied),
            r.states,
        );
        assert_eq!(found, (Some(36), Some(12), states), "{abstracted}");
    }
}

/// Without symmetry each client is reported by its own bit: a lone client
/// that held the lock is not "never acquired".
#[test]
fn a_lone_client_that_acquired_is_not_reported_as_never_acquiring() {
    let mut c = cfg(RecipeId::FixedWait, 1, 1);
    c.symmetry = false;
    let r = check(&c);
    assert_eq!(r.verdict, Verdict::Holds, "{:?}", r.properties);
    assert!(r.never_acquired.is_empty(), "{:?}", r.never_acquired);
}
