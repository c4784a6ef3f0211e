//! Mutexes on one session (`shared_session = true`): every client is an
//! acquiring thread of one process, and what happens to the session or
//! its connection happens to all of them at once.

use locksmith_model::engine::harness::Phase;
use locksmith_model::zk::check::CheckConfig;
use locksmith_model::zk::check::{Action, Message, System};
use locksmith_model::zk::client::Thread;
use locksmith_model::zk::recipes::RecipeId;
use locksmith_model::zk::Service;

mod steps;

use steps::{actions, take};

fn shared(faults: impl Fn(&mut CheckConfig)) -> System<'static> {
    let mut c = CheckConfig::new(RecipeId::Curator, 2, 1);
    c.shared_session = true;
    faults(&mut c);
    System::initial(&c)
}

/// Runs client `c`'s own steps (its threads, its requests served, its
/// messages delivered), first enabled first, until `done` says so.
fn drive(s: &mut System<'static>, c: u8, done: impl Fn(&System<'static>) -> bool) {
    for _ in 0..200 {
        if done(s) {
            return;
        }
        let next = actions(s).into_iter().find(|a| {
            a.client() == Some(c)
                && matches!(a, Action::Run(..) | Action::Serve(_) | Action::Deliver(_))
        });
        match next {
            Some(a) => {
                s.apply(a, false);
            }
            None => panic!("c{} cannot move and is not there yet", c + 1),
        }
    }
    panic!("c{} took 200 steps without getting there", c + 1);
}

/// c1 holds; c2 waits in `wait()` with a watch on c1's node.
fn holder_and_parked_waiter(s: &mut System<'static>) {
    drive(s, 0, |s| s.peers[0].client.holds());
    drive(s, 1, |s| s.peers[1].client.is_parked());
}

#[test]
fn mates_start_on_one_session_and_each_hears_what_the_server_fires_for_it() {
    let mut s = shared(|_| {});
    assert_eq!(s.peers[0].session, s.peers[1].session);
    assert!(s.one_session());
    holder_and_parked_waiter(&mut s);
    let session = s.peers[0].session;
    assert!(s.server.watches_any(session), "c2's watch is the session's");
    // c1 releases: its node's deletion fires the session's watch, and the
    // event reaches both mates; only c2's mutex registered a watcher.
    let node = s.server.nodes().count();
    drive(&mut s, 0, |s| s.server.nodes().count() < node);
    for p in &s.peers {
        assert!(
            p.inbox.iter().any(|m| matches!(m, Message::Event(_))),
            "an event for the session reaches every mate"
        );
    }
}

#[test]
fn a_connection_drop_and_a_reconnect_are_every_mates() {
    let mut s = shared(|c| c.faults.disconnects = 1);
    holder_and_parked_waiter(&mut s);
    take(&mut s, Action::Disconnect(0));
    assert!(s.peers.iter().all(|p| p.disconnected));
    assert!(
        !s.peers[1].client.notices.is_empty(),
        "c2's watcher hears Disconnected though the fault struck through c1"
    );
    let before = actions(&s);
    assert!(before.contains(&Action::Reconnect(0)) && before.contains(&Action::Reconnect(1)));
    take(&mut s, Action::Reconnect(1));
    assert!(s.peers.iter().all(|p| !p.disconnected));
    assert!(
        !actions(&s)
            .iter()
            .any(|a| matches!(a, Action::Reconnect(_))),
        "one connection, back once"
    );
}

#[test]
fn giving_up_the_session_moves_every_mate_to_one_new_session() {
    let mut s = shared(|c| c.faults.waiter_client_expiries = 1);
    holder_and_parked_waiter(&mut s);
    let old = s.peers[0].session;
    // The fault strikes the parked waiter, c2; the process is one.
    take(&mut s, Action::ClientExpire(1));
    assert!(s.peers.iter().all(|p| p.stranded && p.disconnected));
    take(&mut s, Action::GiveUp(0));
    let new = s.peers[0].session;
    assert_ne!(new, old);
    for p in &s.peers {
        assert_eq!(p.session, new, "every mate is on the new session");
        assert_eq!(p.abandoned, vec![old]);
        assert!(!p.stranded);
    }
    assert!(!actions(&s).contains(&Action::GiveUp(1)), "given up once");
    // The holder still believes: nothing tells its sleeping thread.
    assert!(s.peers[0].client.holds());
    // The server ends the old session once, for both; both old nodes go.
    assert!(s.server.is_alive(old));
    take(&mut s, Action::ExpireOld(1));
    assert!(!s.server.is_alive(old));
    assert!(s.peers.iter().all(|p| p.abandoned.is_empty()));
    assert!(!actions(&s)
        .iter()
        .any(|a| matches!(a, Action::ExpireOld(_))));
    assert_eq!(
        s.server.nodes().filter(|(_, n)| n.is_ephemeral()).count(),
        0,
        "the old session's nodes were both mates'"
    );
}

#[test]
fn a_crash_ends_every_thread_of_the_process() {
    let mut s = shared(|c| c.faults.crashes = 1);
    take(&mut s, Action::Run(1, Thread::Main));
    take(&mut s, Action::Crash(0));
    assert!(s.peers.iter().all(|p| p.client.phase == Phase::Crashed));
    assert!(!actions(&s).iter().any(|a| matches!(a, Action::Crash(_))));
}

#[test]
fn only_a_library_that_keeps_its_session_for_the_process_shares_one() {
    let mut c = CheckConfig::new(RecipeId::Predecessor, 2, 1);
    c.shared_session = true;
    let e = c.validate().expect_err("predecessor on a shared session");
    assert!(e.contains("expected a Curator recipe"), "{e}");
    c.recipe = RecipeId::Curator;
    assert!(c.validate().is_ok());
}

/// A drop through one mate loses every mate's requests not yet served and
/// replies not yet read, and the step counts them all: c1's request
/// applied, its reply lost; c2's never applied.
#[test]
fn a_drop_counts_the_requests_of_every_mate_it_lost() {
    let mut s = shared(|c| c.faults.connection_losses = 1);
    drive(&mut s, 0, |s| !s.peers[0].outbox.is_empty());
    take(&mut s, Action::Serve(0));
    drive(&mut s, 1, |s| !s.peers[1].outbox.is_empty());
    let fx = s.apply(Action::LoseConnection(0), true);
    assert!(
        fx.text
            .contains("1 request(s) never applied, 1 applied with the reply lost"),
        "{}",
        fx.text
    );
}

/// A lone client has no mates, shared session or not: what strikes its
/// connection is told as its own.
#[test]
fn a_lone_client_is_not_a_process_of_mates() {
    let mut s = shared(|c| {
        c.clients = 1;
        c.faults.disconnects = 1;
    });
    assert!(!s.one_session());
    let fx = s.apply(Action::Disconnect(0), true);
    assert!(!fx.text.contains("every client"), "{}", fx.text);
}

#[test]
fn learning_of_an_expiry_renews_the_session_for_every_mate() {
    let mut s = shared(|c| c.faults.expiries = 1);
    holder_and_parked_waiter(&mut s);
    let old = s.peers[0].session;
    take(&mut s, Action::Expire(1));
    assert!(!s.server.is_alive(old));
    // The heartbeat that brings the news is the process's: both threads'
    // watchers hear Expired, and Curator's new handle is both threads'.
    take(&mut s, Action::NoticeExpiry(0));
    let new = s.peers[0].session;
    assert_ne!(new, old);
    assert!(s.peers.iter().all(|p| p.session == new));
    assert!(s.server.is_alive(new));
    assert!(!actions(&s)
        .iter()
        .any(|a| matches!(a, Action::NoticeExpiry(_))));
    assert!(
        !s.peers[1].client.notices.is_empty(),
        "c2's watcher hears Expired though c1's heartbeat brought it"
    );
}

/// A mate done with the lock is still a thread of the process whose
/// library renews the session: once c2 has learned of the expiry and
/// Curator has opened the new session, c1 holds no lost session, so the
/// server is offered no time-out of the new one on c1's behalf.
#[test]
fn a_mate_done_with_the_lock_leaves_the_renewed_session_alone() {
    let mut s = shared(|c| c.faults.expiries = 1);
    drive(&mut s, 0, |s| s.peers[0].client.is_done());
    take(&mut s, Action::Expire(1));
    take(&mut s, Action::NoticeExpiry(1));
    assert!(s.server.is_alive(s.peers[0].session));
    assert!(s.peers.iter().all(|p| !p.client.abandoned_session()));
    assert!(!actions(&s)
        .iter()
        .any(|a| matches!(a, Action::TimeOutSession(_))));
}

/// The whole space of one server-side expiry on a shared session:
/// Curator's lost lock lets the second thread in (mutual exclusion, 17
/// steps: CURATOR-206 inside one process), and nothing else breaks (the
/// herd is not judged on one session). With
/// a finished mate still counting as holding a lost session, the server
/// timed out every new session on its behalf: a false deadlock in 18
/// steps, a thread died, and a run that stopped at the 4,096 MB memory
/// bound after 12,849,152 states.
#[test]
fn one_expiry_on_a_shared_session_breaks_mutual_exclusion_and_nothing_else() {
    use locksmith_model::{zk::check::check, zk::check::Property, zk::check::Verdict};
    let mut c = CheckConfig::new(RecipeId::Curator, 2, 1);
    c.shared_session = true;
    c.faults.expiries = 1;
    c.abstract_sequences = true;
    let r = check(&c);
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!(
        (
            r.trace_of(Property::MutualExclusion).map(|t| t.steps.len()),
            r.states
        ),
        (Some(17), 153_850)
    );
    // Curator's dead values kept: the same 17 steps, 163,454 states.
    c.keep_dead_values = true;
    let kept = check(&c);
    assert_eq!(
        (
            kept.trace_of(Property::MutualExclusion)
                .map(|t| t.steps.len()),
            kept.states
        ),
        (Some(17), 163_454)
    );
    for p in [
        Property::Deadlock,
        Property::Starvation,
        Property::OrphanedNode,
        Property::ThreadDied,
    ] {
        assert_eq!(r.of(p), Verdict::Holds, "{p}");
    }
    // The herd counts the sessions a release wakes: on one session it is
    // not judged, and the report says why.
    let herd = r.properties.iter().find(|p| p.property == Property::Herd);
    let herd = herd.expect("every property is reported");
    assert_eq!(herd.verdict, Verdict::NotApplicable);
    assert!(
        herd.reason
            .is_some_and(|why| why.contains("every client is on one session")),
        "{:?}",
        herd.reason
    );
}

/// The symmetry reduction renumbers clients; on one session every client
/// has the same session facts, so it may still merge only states that are
/// renumberings of each other: every verdict is the same without it.
#[test]
fn symmetry_keeps_every_verdict_on_a_shared_session() {
    use locksmith_model::{zk::check::check, zk::check::Property};
    let mut two = CheckConfig::new(RecipeId::Curator, 2, 1);
    two.shared_session = true;
    let mut restart = two.clone();
    restart.faults.server_restarts = 1;
    let mut three = two.clone();
    three.clients = 3;
    for cfg in [two, restart, three] {
        let mut plain = cfg.clone();
        plain.symmetry = false;
        let (a, b) = (check(&cfg), check(&plain));
        assert!(b.states >= a.states);
        for p in Property::ALL {
            assert_eq!(a.of(p), b.of(p), "{p} with {} clients", cfg.clients);
        }
        assert_eq!(a.verdict, b.verdict);
    }
}

/// The partial-order reduction stands aside on one session: a fault
/// through one mate strikes the others, so no client's steps are its own.
#[test]
fn the_partial_order_reduction_stands_aside_on_a_shared_session() {
    use locksmith_model::zk::check::check;
    let mut cfg = CheckConfig::new(RecipeId::Curator, 2, 1);
    cfg.shared_session = true;
    cfg.faults.disconnects = 1;
    let mut reduced = cfg.clone();
    reduced.por = true;
    let (a, b) = (check(&cfg), check(&reduced));
    assert_eq!(a.states, b.states);
    assert_eq!(a.verdict, b.verdict);
    // On a session each, the same configuration is reduced.
    let (mut own, mut own_reduced) = (cfg.clone(), reduced.clone());
    own.shared_session = false;
    own_reduced.shared_session = false;
    assert!(check(&own_reduced).states < check(&own).states);
}
