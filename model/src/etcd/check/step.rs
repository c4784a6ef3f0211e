//! The etcd system's transitions: which actions a state enables, in a
//! fixed order, and what each one does.

use super::action::Action;
use super::config::EtcdSpace;
use super::state::{client_of, Channel, Client, State};
use crate::engine::harness::writes::WRITES;
use crate::engine::harness::{LockEvent, Phase, StepKind, Writes};
use crate::engine::resource::{self, Resource, Section};
use crate::etcd::recipes::Me;
use crate::etcd::{EtcdError, EtcdServer, Fired, KeyValue, Reply, Request};

impl EtcdSpace {
    pub fn initial_state(&self) -> State {
        let client = Client {
            locals: self.recipe.start(),
            phase: Phase::Idle,
            channel: Channel::Idle,
            timer: 0,
            paused: 0,
            cut: 0,
            rounds: self.acquisitions,
            wrote: None,
            section: Section::default(),
            late: None,
        };
        State {
            server: EtcdServer::new(),
            clients: vec![client; self.clients as usize],
            left: self.faults,
            foreign_unlock: false,
            resource: self.fencing.then(|| Resource::new(Writes::Fenced)),
        }
    }

    /// What client `c` knows of itself in `s`.
    pub fn me(&self, s: &State, c: u8) -> Me {
        let session = s.clients[c as usize].locals.session;
        Me {
            client: c,
            ttl: self.ttl,
            session_alive: session.is_some_and(|id| s.server.lease(id).is_some()),
        }
    }

    /// The enabled actions: per client its step, its think and the
    /// server's serving of its request; then a tick; then the faults.
    pub fn enabled(&self, s: &State, out: &mut Vec<Action>) {
        out.clear();
        for (c, cl) in (0u8..).zip(&s.clients) {
            if cl.can_step() {
                out.push(Action::Step(c));
                if cl.phase.thinks_next() && cl.rounds > 0 {
                    out.push(Action::Think(c));
                }
            }
            if matches!(cl.channel, Channel::Sent(_)) && cl.cut == 0 {
                out.push(Action::Serve(c));
            }
        }
        if self.time_passes(s) {
            out.push(Action::Tick);
        }
        for (c, cl) in (0u8..).zip(&s.clients) {
            if s.left.pauses > 0 && cl.alive() && cl.paused == 0 {
                out.push(Action::Pause(c));
            }
            if s.left.crashes > 0 && cl.alive() {
                out.push(Action::Crash(c));
            }
            if s.left.partitions > 0 && cl.alive() && cl.cut == 0 {
                out.push(Action::Partition(c));
            }
            let leased = cl
                .locals
                .session
                .is_some_and(|id| s.server.lease(id).is_some());
            if s.left.revokes > 0 && leased {
                out.push(Action::Revoke(c));
            }
            if s.left.waiter_expiries > 0 && leased && cl.channel == Channel::Watching {
                out.push(Action::WaiterExpires(c));
            }
            let unlocking = matches!(cl.channel, Channel::Sent(Request::Delete { .. }));
            if s.left.late_unlocks > 0 && unlocking && cl.late.is_none() {
                out.push(Action::DelayUnlock(c));
            }
            if cl.late.is_some() {
                out.push(Action::LateUnlock(c));
            }
        }
        if s.left.compactions > 0 && s.server.revision() > s.server.compacted() {
            out.push(Action::Compact);
        }
    }

    /// A tick may pass: nothing instantaneous is left (maximal progress)
    /// and something counts down — a client's work, think, pause or
    /// partition, or a lease nobody keeps alive.
    fn time_passes(&self, s: &State) -> bool {
        let instant = s
            .clients
            .iter()
            .any(|c| c.can_step() || (matches!(c.channel, Channel::Sent(_)) && c.cut == 0));
        let counting = s
            .clients
            .iter()
            .any(|c| c.alive() && (c.timer > 0 || c.paused > 0 || c.cut > 0))
            || s.server
                .leases()
                .any(|(id, _)| !s.clients[client_of(id)].keeps_alive());
        !instant && counting
    }

    /// Takes `a` in `s`.
    pub fn take(&self, s: &mut State, a: Action) {
        s.foreign_unlock = false;
        match a {
            Action::Step(c) => self.client_step(s, c),
            Action::Think(c) => s.clients[c as usize].timer = 1,
            Action::Serve(c) => self.serve(s, c),
            Action::Tick => self.tick(s),
            Action::Pause(c) => {
                s.left.pauses -= 1;
                s.clients[c as usize].paused = self.pause;
            }
            Action::Crash(c) => {
                s.left.crashes -= 1;
                let cl = &mut s.clients[c as usize];
                cl.phase = Phase::Crashed;
                cl.channel = Channel::Idle;
                cl.timer = 0;
                cl.paused = 0;
                cl.cut = 0;
                cl.wrote = None;
                s.server.cancel_watches(c);
                // Its open section ends with its process.
                resource::tenure_ends(s, c as usize);
            }
            Action::Partition(c) => {
                s.left.partitions -= 1;
                s.clients[c as usize].cut = self.pause;
            }
            Action::Compact => {
                s.left.compactions -= 1;
                let now = s.server.revision();
                s.server.apply(u8::MAX, &Request::Compact(now));
            }
            Action::DelayUnlock(c) => {
                s.left.late_unlocks -= 1;
                let cl = &mut s.clients[c as usize];
                if let Channel::Sent(req) = std::mem::replace(
                    &mut cl.channel,
                    Channel::Replied(Reply::Error(EtcdError::DeadlineExceeded)),
                ) {
                    cl.late = Some(req);
                }
            }
            Action::LateUnlock(c) => {
                if let Some(req) = s.clients[c as usize].late.take() {
                    let (_, fired) = self.apply_request(s, c, &req);
                    deliver(s, fired);
                }
            }
            Action::Revoke(c) | Action::WaiterExpires(c) => {
                if a == Action::Revoke(c) {
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
            cl.cut = cl.cut.saturating_sub(1);
            if cl.paused > 0 {
                cl.paused -= 1;
            } else {
                cl.timer = cl.timer.saturating_sub(1);
            }
        }
    }

    /// The server handles `c`'s request, and notes whether it deleted the
    /// key of another client whose tenure is current.
    fn serve(&self, s: &mut State, c: u8) {
        let Channel::Sent(req) = &s.clients[c as usize].channel else {
            return;
        };
        let req = req.clone();
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
            Reply::Watching => Channel::Watching,
            r => Channel::Replied(r),
        };
        deliver(s, fired);
    }

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

    /// Client `c` reads its reply, if one came, and runs to its next
    /// blocking call; a step that would begin a round after the last one
    /// ends the loop instead.
    fn client_step(&self, s: &mut State, c: u8) {
        if self.fencing && self.fenced_write(s, c) {
            return;
        }
        let me = self.me(s, c);
        let cl = &mut s.clients[c as usize];
        let reply = match std::mem::replace(&mut cl.channel, Channel::Idle) {
            Channel::Replied(r) => Some(r),
            _ => None,
        };
        let mut events = Vec::new();
        if cl.phase.thinks_next() {
            if cl.rounds == 0 {
                cl.phase = cl.phase.after(StepKind::Finished, true, &mut events);
                return;
            }
            cl.rounds -= 1;
        }
        let out = self.recipe.step(&mut cl.locals, reply.as_ref(), &me);
        cl.phase = cl.phase.after(out.kind, true, &mut events);
        if let Some(req) = out.send {
            cl.channel = Channel::Sent(req);
        }
        if out.kind == StepKind::Acquired {
            if self.fencing {
                // `lock()` returns with its key's create revision as the
                // token; the critical section's writes come first.
                cl.wrote = Some(0);
                let token = cl.locals.my_rev;
                resource::token(s, c as usize, token);
            } else {
                cl.timer = self.work;
            }
        }
        let ended = events.iter().any(|e| {
            matches!(
                e,
                LockEvent::Released | LockEvent::GaveUp | LockEvent::ThreadDied(_)
            )
        });
        if ended {
            s.clients[c as usize].wrote = None;
            resource::tenure_ends(s, c as usize);
        }
    }

    /// A fenced holder's step that is the harness's, not the recipe's: the
    /// critical section's opening write (then the work), its closing write.
    /// Whether it was one.
    fn fenced_write(&self, s: &mut State, c: u8) -> bool {
        let cl = &mut s.clients[c as usize];
        match cl.wrote {
            Some(n) if cl.phase.holds() && n < WRITES => {
                cl.wrote = Some(n + 1);
                if n == 0 {
                    cl.timer = self.work;
                }
                resource::write(s, c as usize);
                true
            }
            _ => false,
        }
    }
}

/// Hands each fired watch's event to its client, if it still waits on it.
fn deliver(s: &mut State, fired: Vec<Fired>) {
    for f in fired {
        if let Some(cl) = s.clients.get_mut(f.watcher as usize) {
            if cl.channel == Channel::Watching {
                cl.channel = Channel::Replied(Reply::Event(f.event));
            }
        }
    }
}
