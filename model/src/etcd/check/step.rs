//! The etcd system's transitions as the engine takes them ([`Steps`]):
//! its recipe's step and fencing token, which actions a state enables in a
//! fixed order, and what the server's serving, a tick (leases kept alive or
//! running out) and etcd's own actions do.

use super::action::{Action, Own};
use super::config::EtcdSpace;
use super::state::{client_of, Channel, Client, State};
use crate::engine::command::step::{client_actions, process_faults, time_passes};
use crate::engine::command::{Steps, Token};
use crate::engine::harness::Outcome;
use crate::engine::resource;
use crate::etcd::recipes::{Locals, Me};
use crate::etcd::{EtcdError, Fired, KeyValue, Reply, Request};

impl EtcdSpace {
    /// The server applies `req` of client `c`, and notes whether it
    /// deleted the key of another client whose tenure is current.
    fn apply_request(&self, s: &mut State, c: u8, req: &Request) -> (Reply, Vec<Fired>) {
        let before: Vec<KeyValue> = s.server.with_prefix("").cloned().collect();
        let (reply, fired) = s.server.apply(c, req);
        let taken = before.iter().filter(|kv| {
            s.server
                .get(&kv.key)
                .is_none_or(|now| now.create_revision != kv.create_revision)
        });
        let mut foreign = false;
        for kv in taken {
            if let Some(owner) = kv.lease.map(client_of) {
                foreign |= owner != c as usize && self.in_tenure(s, owner as u8);
            }
        }
        s.foreign_unlock = foreign;
        (reply, fired)
    }

    /// Client `c`'s lock operation succeeded at the server and it has not
    /// begun its release (whether it has read the reply yet or not).
    pub fn in_tenure(&self, s: &State, c: u8) -> bool {
        let cl = &s.clients[c as usize];
        cl.phase.holds()
            || matches!(&cl.channel, Channel::Replied(r) if self.recipe.won(&cl.locals, r, &self.me(s, c)))
    }

    /// A lease nobody keeps alive counts down.
    fn counting(&self, s: &State) -> bool {
        s.server
            .leases()
            .any(|(id, _)| !s.clients[client_of(id)].keeps_alive())
    }
}

impl Steps for EtcdSpace {
    type Action = Action;
    type Me = Me;

    /// What client `c` knows of itself in `s`.
    fn me(&self, s: &State, c: u8) -> Me {
        let session = s.clients[c as usize].locals.session;
        Me {
            client: c,
            ttl: self.ttl,
            session_alive: session.is_some_and(|id| s.server.lease(id).is_some()),
        }
    }

    fn recipe_step(&self, locals: &mut Locals, reply: Option<&Reply>, me: &Me) -> Outcome<Request> {
        self.recipe.step(locals, reply, me)
    }

    /// `lock()` returns with its key's create revision as the token.
    fn token(&self, locals: &Locals, _: Option<&Reply>) -> Token<Request> {
        Token::Now(locals.my_rev)
    }

    /// Per client its step, its think and the server's serving of its
    /// request; a tick; then the faults.
    fn enabled(&self, s: &State, out: &mut Vec<Action>) {
        client_actions(&s.clients, out);
        if time_passes(&s.clients, false, || self.counting(s)) {
            out.push(Action::Tick);
        }
        for (c, cl) in (0u8..).zip(&s.clients) {
            process_faults(&s.left, c, cl, out);
            if s.left.partitions > 0 && cl.alive() && cl.own.cut == 0 {
                out.push(Action::Partition(c));
            }
            let leased = cl
                .locals
                .session
                .is_some_and(|id| s.server.lease(id).is_some());
            if s.left.revokes > 0 && leased {
                out.push(Action::Revoke(c));
            }
            if s.left.waiter_expiries > 0 && leased && cl.channel == Channel::Waiting {
                out.push(Action::WaiterExpires(c));
            }
            let unlocking = matches!(cl.channel, Channel::Sent(Request::Delete { .. }));
            if s.left.late_unlocks > 0 && unlocking && cl.own.late.is_none() {
                out.push(Action::DelayUnlock(c));
            }
            if cl.own.late.is_some() {
                out.push(Action::LateUnlock(c));
            }
        }
        if s.left.compactions > 0 && s.server.revision() > s.server.compacted() {
            out.push(Action::Compact);
        }
    }

    /// The server handles `c`'s request, and notes whether it deleted the
    /// key of another client whose tenure is current.
    fn serve(&self, s: &mut State, c: u8) {
        let Some(req) = s.clients[c as usize].channel.sent().cloned() else {
            return;
        };
        let (reply, fired) = self.apply_request(s, c, &req);
        // Fencing: the tenure is the lock's, in the order the server gave
        // it (the reply that makes `lock()` return, served).
        if self.fencing
            && s.clients[c as usize].section.tenure == 0
            && self
                .recipe
                .won(&s.clients[c as usize].locals, &reply, &self.me(s, c))
        {
            resource::tenure_begins(s, c as usize);
        }
        s.clients[c as usize].channel = match reply {
            Reply::Watching => Channel::Waiting,
            r => Channel::Replied(r),
        };
        deliver(s, fired);
    }

    /// One tick: leases of running, connected clients are kept alive, the
    /// others count down and expire; every running counter moves on (a
    /// partition's with the process's own: a cut-off client works on).
    fn tick(&self, s: &mut State) {
        let keeps: Vec<bool> = s.clients.iter().map(Client::keeps_alive).collect();
        let fired = s
            .server
            .tick(|id| keeps.get(client_of(id)).copied().unwrap_or(false));
        deliver(s, fired);
        for cl in s.clients.iter_mut().filter(|c| c.alive()) {
            cl.own.cut = cl.own.cut.saturating_sub(1);
            cl.count_down();
        }
    }

    /// The crashed process's watches end and its partition with it; its
    /// keys stay until its lease runs out.
    fn crashed(&self, s: &mut State, c: u8) {
        s.clients[c as usize].own.cut = 0;
        s.server.cancel_watches(c);
    }

    fn take_own(&self, s: &mut State, a: Own) {
        match a {
            Own::Partition(c) => {
                s.left.partitions -= 1;
                s.clients[c as usize].own.cut = self.pause;
            }
            Own::Compact => {
                s.left.compactions -= 1;
                let now = s.server.revision();
                s.server.apply(u8::MAX, &Request::Compact(now));
            }
            Own::DelayUnlock(c) => {
                s.left.late_unlocks -= 1;
                let cl = &mut s.clients[c as usize];
                if let Channel::Sent(req) = std::mem::replace(
                    &mut cl.channel,
                    Channel::Replied(Reply::Error(EtcdError::DeadlineExceeded)),
                ) {
                    cl.own.late = Some(req);
                }
            }
            Own::LateUnlock(c) => {
                if let Some(req) = s.clients[c as usize].own.late.take() {
                    let (_, fired) = self.apply_request(s, c, &req);
                    deliver(s, fired);
                }
            }
            Own::Revoke(c) | Own::WaiterExpires(c) => {
                if a == Own::Revoke(c) {
                    s.left.revokes -= 1;
                } else {
                    s.left.waiter_expiries -= 1;
                }
                let mut fired = Vec::new();
                if let Some(id) = s.clients[c as usize].locals.session {
                    s.server.revoke(id, &mut fired);
                }
                deliver(s, fired);
            }
        }
    }
}

/// Hands each fired watch's event to its client, if it still waits on it.
fn deliver(s: &mut State, fired: Vec<Fired>) {
    for f in fired {
        if let Some(cl) = s.clients.get_mut(f.watcher as usize) {
            if cl.channel == Channel::Waiting {
                cl.channel = Channel::Replied(Reply::Event(f.event));
            }
        }
    }
}
