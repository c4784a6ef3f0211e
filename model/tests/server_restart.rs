//! The server stop and restart fault (`[faults] server_restarts`,
//! `long_server_restarts`): what a stop does to every connection, what a
//! stopped server allows, and which libraries a long stop lets give up
//! their sessions.

use locksmith_model::zk::check::CheckConfig;
use locksmith_model::zk::check::{Action, Downtime, System};
use locksmith_model::zk::client::Thread;
use locksmith_model::zk::recipes::RecipeId;
use locksmith_model::zk::Service;

mod steps;

use steps::{actions, take};

#[test]
fn a_stop_drops_every_connection_and_keeps_every_session_until_the_start() {
    let mut c = CheckConfig::new(RecipeId::Predecessor, 2, 1);
    c.faults.server_restarts = 1;
    let mut s = System::initial(&c);
    // Both clients send their create; the server applies c1's, whose reply
    // is on its way back when the server stops.
    take(&mut s, Action::Run(0, Thread::Main));
    take(&mut s, Action::Run(1, Thread::Main));
    take(&mut s, Action::Serve(0));
    assert_eq!(s.peers[0].inbox.len(), 1);
    assert_eq!(s.peers[1].outbox.len(), 1);
    let nodes = s.server.nodes().count();
    take(&mut s, Action::StopServer(false));
    assert_eq!(s.down, Downtime::Short);
    for p in &s.peers {
        assert!(p.disconnected);
        assert!(p.outbox.is_empty(), "a request not yet applied never is");
        assert!(p.inbox.is_empty(), "a reply not yet read is lost");
        assert!(s.server.is_alive(p.session));
    }
    assert_eq!(s.server.nodes().count(), nodes, "c1's node stays");
    // Both calls failed with ConnectionLoss: the threads run again.
    let down = actions(&s);
    assert!(down.contains(&Action::Run(0, Thread::Main)));
    assert!(down.contains(&Action::Run(1, Thread::Main)));
    assert!(down.contains(&Action::StartServer));
    for a in &down {
        assert!(
            !matches!(
                a,
                Action::Reconnect(_)
                    | Action::Serve(_)
                    | Action::Deliver(_)
                    | Action::Expire(_)
                    | Action::StopServer(_)
                    | Action::Reap
            ),
            "{a} while the server is down"
        );
    }
    take(&mut s, Action::StartServer);
    assert_eq!(s.down, Downtime::Up);
    let up = actions(&s);
    assert!(up.contains(&Action::Reconnect(0)) && up.contains(&Action::Reconnect(1)));
    assert!(
        !up.iter().any(|a| matches!(a, Action::StopServer(_))),
        "the budget is spent"
    );
}

/// The whole space of a restart (scenarios/predecessor-server-restart.toml
/// at model level), which needs a fingerprint that tells a stopped server
/// from a started one and counts the restarts still in hand (both in the
/// high half of the 128 bits the fault budget hashes as). The textbook
/// recipe deadlocks in 22 steps; a create lost to the stop orphans its
/// node in 4, and a thread dies in 3.
#[test]
fn a_restart_explores_the_stopped_and_the_started_server_apart() {
    use locksmith_model::{zk::check::check, zk::check::Property};
    let mut c = CheckConfig::new(RecipeId::Predecessor, 2, 1);
    c.faults.server_restarts = 1;
    let r = check(&c);
    // The partial-order reduction stands aside while a restart is in hand
    // or the server is down (a stop touches every client) and reduces the
    // rest: the same verdict, in fewer states.
    let mut reduced = c.clone();
    reduced.por = true;
    let p = check(&reduced);
    assert_eq!((p.property, p.states), (r.property, 20_621));
    let steps = |p| r.trace_of(p).map(|t| t.steps.len());
    assert_eq!(r.property, Some(Property::Deadlock));
    assert_eq!(
        (
            steps(Property::Deadlock),
            steps(Property::OrphanedNode),
            steps(Property::ThreadDied),
            r.states
        ),
        (Some(22), Some(4), Some(3), 22_895)
    );
}

/// A stop counts every request it loses: a live client's reply on its
/// way, and the request a crashed client left in flight (dropped with the
/// server's end of its connection, though nobody is left to hear).
#[test]
fn a_stop_counts_the_requests_a_crashed_client_left_in_flight() {
    let mut c = CheckConfig::new(RecipeId::Predecessor, 2, 1);
    c.faults.server_restarts = 1;
    c.faults.crashes = 1;
    let mut s = System::initial(&c);
    take(&mut s, Action::Run(0, Thread::Main));
    take(&mut s, Action::Run(1, Thread::Main));
    take(&mut s, Action::Serve(0));
    take(&mut s, Action::Crash(1));
    assert_eq!(s.peers[1].outbox.len(), 1);
    let fx = s.apply(Action::StopServer(false), true);
    assert!(
        fx.text.contains(
            "every connection drops, 1 request(s) never applied, 1 applied with the reply lost"
        ),
        "{}",
        fx.text
    );
    assert!(s
        .peers
        .iter()
        .all(|p| p.disconnected && p.outbox.is_empty()));
}

/// Each live client's requests not yet served count too, added up.
#[test]
fn a_stop_counts_the_unsent_requests_of_every_live_client() {
    let mut c = CheckConfig::new(RecipeId::Predecessor, 2, 1);
    c.faults.server_restarts = 1;
    let mut s = System::initial(&c);
    take(&mut s, Action::Run(0, Thread::Main));
    take(&mut s, Action::Run(1, Thread::Main));
    let fx = s.apply(Action::StopServer(false), true);
    assert!(
        fx.text.contains(
            "every connection drops, 2 request(s) never applied, 0 applied with the reply lost"
        ),
        "{}",
        fx.text
    );
}

/// A stop is offered only to a running server with a client still at
/// work: never to a server already stopped (a second restart in hand
/// waits for the start), nor once every client is done.
#[test]
fn a_stopped_server_is_not_stopped_again_nor_a_finished_run_at_all() {
    let mut c = CheckConfig::new(RecipeId::Predecessor, 1, 1);
    c.faults.server_restarts = 1;
    c.faults.long_server_restarts = 1;
    let mut s = System::initial(&c);
    let stops = |s: &System<'static>| {
        actions(s)
            .into_iter()
            .filter(|a| matches!(a, Action::StopServer(_)))
            .count()
    };
    assert_eq!(stops(&s), 2);
    take(&mut s, Action::StopServer(false));
    assert_eq!(stops(&s), 0, "the server is down");
    take(&mut s, Action::StartServer);
    take(&mut s, Action::Reconnect(0));
    for _ in 0..100 {
        let next = actions(&s)
            .into_iter()
            .find(|a| matches!(a, Action::Run(..) | Action::Serve(_) | Action::Deliver(_)));
        match next {
            Some(a) => take(&mut s, a),
            None => break,
        }
    }
    assert!(
        s.peers[0].client.is_done(),
        "the lone client ran to its end"
    );
    assert_eq!(s.faults.long_server_restarts, 1);
    assert_eq!(stops(&s), 0, "nobody is left to notice a stop");
}

#[test]
fn only_a_long_stop_lets_a_library_that_renews_sessions_give_up_and_once_each() {
    let gives_up = |recipe: RecipeId, long: bool| {
        let mut c = CheckConfig::new(recipe, 2, 1);
        if long {
            c.faults.long_server_restarts = 1;
        } else {
            c.faults.server_restarts = 1;
        }
        let mut s = System::initial(&c);
        take(&mut s, Action::StopServer(long));
        let left = (s.faults.server_restarts, s.faults.long_server_restarts);
        assert_eq!(left, (0, 0), "the stop spent its budget");
        let enabled = actions(&s);
        let both = (0..2).map(|c| enabled.contains(&Action::GiveUp(c)));
        (s, both.collect::<Vec<_>>())
    };
    assert_eq!(gives_up(RecipeId::Curator, false).1, [false, false]);
    // The plain Java client waits for the server whatever the outage.
    assert_eq!(gives_up(RecipeId::Predecessor, true).1, [false, false]);
    let (mut s, both) = gives_up(RecipeId::Curator, true);
    assert_eq!(both, [true, true]);
    let old = s.peers[0].session;
    take(&mut s, Action::GiveUp(0));
    assert_ne!(s.peers[0].session, old);
    assert_eq!(s.peers[0].abandoned, [old]);
    assert!(s.server.is_alive(old), "the server still holds it");
    let enabled = actions(&s);
    assert!(
        !enabled.contains(&Action::GiveUp(0)),
        "its new handle is LOST, not SUSPENDED"
    );
    assert!(enabled.contains(&Action::GiveUp(1)));
    // The old session ends only once the server is back.
    assert!(!enabled.contains(&Action::ExpireOld(0)));
    take(&mut s, Action::StartServer);
    assert!(actions(&s).contains(&Action::ExpireOld(0)));
}

/// A stop loses the replies on their way, not the watch events: c2 watches
/// c1's node, c1 lets the lock go, and the NodeDeleted event is in
/// c2's inbox, behind the reply to its `exists`, when the server stops:
/// the trace counts two replies lost (that one and c1's delete's), not
/// the event.
#[test]
fn a_stop_counts_the_replies_it_loses_not_the_events() {
    use locksmith_model::zk::check::Message;
    let mut c = CheckConfig::new(RecipeId::Predecessor, 2, 1);
    c.faults.server_restarts = 1;
    let mut s = System::initial(&c);
    // Takes client `c`'s own steps (its thread, its requests, its
    // deliveries) until `done` says so.
    let drive = |s: &mut System<'static>, c: u8, done: &dyn Fn(&System<'static>) -> bool| {
        for _ in 0..100 {
            if done(s) {
                return;
            }
            let next = actions(s).into_iter().find(|a| {
                matches!(a, Action::Run(x, _) | Action::Serve(x) | Action::Deliver(x) if *x == c)
            });
            take(s, next.expect("a step of the client's own"));
        }
        panic!("c{} did not get there", c + 1);
    };
    let event = |p: &locksmith_model::zk::check::Peer| {
        p.inbox.iter().any(|m| matches!(m, Message::Event(_)))
    };
    drive(&mut s, 0, &|s| s.peers[0].client.holds());
    drive(&mut s, 1, &|s| s.server.watches_any(s.peers[1].session));
    drive(&mut s, 0, &|s| event(&s.peers[1]));
    let replies: usize = (s.peers.iter())
        .map(|p| {
            p.inbox
                .iter()
                .filter(|m| matches!(m, Message::Reply(..)))
                .count()
        })
        .sum();
    assert_eq!(replies, 2, "c2's exists and c1's delete answered, not read");
    let fx = s.apply(Action::StopServer(false), true);
    assert!(
        fx.text
            .contains(&format!("{replies} applied with the reply lost")),
        "{}",
        fx.text
    );
}
