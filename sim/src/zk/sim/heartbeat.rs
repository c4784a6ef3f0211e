//! The client library's heartbeat: ZooKeeper's `ClientCnxn.SendThread`
//! deadlines (a ping after a third of the negotiated session timeout
//! without sending, the connection lost after two thirds without hearing,
//! a connect attempt retried after a whole timeout) and Curator's giving
//! up on a session SUSPENDED for a timeout. docs/real.md, "Partition
//! deadlines", holds them against a real ZooKeeper.

use super::client_lib::{give_up, lose_connection};
use super::world::{lock, now, park, ClientProc, Conn, Shared, ToServer, World};
use locksmith_model::zk::client::Recipe;

/// Pings, and notices a silent server, at the deadlines of ZooKeeper's
/// `ClientCnxn.SendThread` (3.8): connected, a ping once nothing has been
/// sent for half the read timeout (a third of the negotiated session
/// timeout), and the connection declared lost once nothing has been heard
/// for the read timeout (two thirds of it); connecting, a new attempt once
/// the last has gone unanswered for the connect timeout (the session
/// timeout over one server). A library that renews sessions (Curator's
/// `ConnectionStateManager.checkSessionExpiration`) gives up on a session
/// SUSPENDED for the session timeout. Each deadline is met to the
/// nanosecond: the task sleeps until the earliest, and a new connection
/// wakes it, since its ping deadline may come first.
pub async fn heartbeat(shared: Shared, c: usize) {
    loop {
        park(&shared, |w, waker| {
            let due = next_deadline(w, c);
            if now() >= due {
                return true;
            }
            w.clients[c].heartbeat = Some(waker.clone());
            if due < u64::MAX {
                super::world::wake_at(due, waker);
            }
            false
        })
        .await;
        let mut w = lock(&shared);
        let t = now();
        let timeout = w.p.timeout;
        let read_timeout = timeout * 2 / 3;
        let cp = &mut w.clients[c];
        if cp.client.session_lost {
            continue;
        }
        if gives_up(cp).is_some_and(|s| t.saturating_sub(s) >= timeout) {
            give_up(&mut w, c);
            continue;
        }
        match cp.conn {
            Conn::Connected if t.saturating_sub(cp.last_heard) >= read_timeout => {
                lose_connection(&mut w, c, "nothing heard for 2/3 of the session timeout")
            }
            Conn::Connected if t.saturating_sub(cp.last_sent) >= read_timeout / 2 => {
                let (epoch, seen) = (cp.epoch, cp.seen_event);
                w.metrics.heartbeats += 1;
                w.send_to_server(c, ToServer::Ping { epoch, seen });
            }
            Conn::Connecting(since) if t.saturating_sub(since) >= timeout => {
                // The connect attempt went unanswered: try a new one.
                if cp.client.has_pending_call() {
                    cp.client.on_connection_loss();
                }
                cp.epoch += 1;
                cp.conn = Conn::Connecting(t);
                let (epoch, seen) = (cp.epoch, cp.seen_event);
                w.to_server[c].drain();
                w.to_client[c].drain();
                w.metrics.heartbeats += 1;
                w.send_to_server(c, ToServer::Connect { epoch, seen });
                w.wake_threads(c);
            }
            Conn::Connected | Conn::Connecting(_) => {}
        }
    }
}

/// Since when a library that gives up on a suspended session (Curator)
/// has been SUSPENDED, if it has.
fn gives_up(cp: &ClientProc) -> Option<u64> {
    let gives_up = cp.client.recipe.library().gives_up_on_session && !cp.client.is_done();
    cp.suspended_since.filter(|_| gives_up)
}

/// The heartbeat's next deadline (`u64::MAX`: none until a state change
/// wakes it).
fn next_deadline(w: &World, c: usize) -> u64 {
    let timeout = w.p.timeout;
    let read_timeout = timeout * 2 / 3;
    let cp = &w.clients[c];
    if cp.client.session_lost {
        return u64::MAX;
    }
    let give_up = gives_up(cp).map_or(u64::MAX, |s| s.saturating_add(timeout));
    let conn = match cp.conn {
        Conn::Connected => (cp.last_heard + read_timeout).min(cp.last_sent + read_timeout / 2),
        Conn::Connecting(since) => since + timeout,
    };
    give_up.min(conn)
}
