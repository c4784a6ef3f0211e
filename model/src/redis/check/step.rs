//! The Redis system's transitions: which actions a state enables, in a
//! fixed order, and what each one does.

use super::action::Action;
use super::config::RedisSpace;
use super::state::{Channel, Client, Fence, State};
use crate::engine::harness::writes::WRITES;
use crate::engine::harness::{LockEvent, Phase, StepKind, Writes};
use crate::engine::resource::{self, Resource, Section};
use crate::redis::recipes::Me;
use crate::redis::{Command, Key, RedisServer, Reply, Value};

pub use crate::redis::recipes::LOCK_KEY;

/// The key a fenced client's `INCR` takes its token from.
pub const FENCE_KEY: &str = "fence";

impl RedisSpace {
    pub fn initial_state(&self) -> State {
        let client = Client {
            locals: self.recipe.start(),
            phase: Phase::Idle,
            channel: Channel::Idle,
            timer: 0,
            paused: 0,
            rounds: self.acquisitions,
            clock: 0,
            fence: Fence::Off,
            section: Section::default(),
        };
        State {
            server: if self.replica {
                RedisServer::with_replica()
            } else {
                RedisServer::new()
            },
            clients: vec![client; self.clients as usize],
            left: self.faults,
            foreign_unlock: false,
            owner: None,
            resource: self.fencing.then(|| Resource::new(Writes::Fenced)),
        }
    }

    /// What client `c`, its clock reading `clock` ticks ahead, knows of
    /// itself: its token is its number, plus one (unique per client, as
    /// source 003's `my_random_value` must be).
    pub fn me(&self, c: u8, clock: i8) -> Me {
        Me {
            key: Key::new(LOCK_KEY),
            fence: Key::new(FENCE_KEY),
            token: Value::Int(i64::from(c) + 1),
            lease: i64::from(self.lease),
            clock: i64::from(clock),
        }
    }

    /// The horizon for stamps: the recipes read every stamp below this
    /// alike, so older ones are raised to it and a forgotten timestamp
    /// stops ageing. A timestamp `v` has expired for every clock once
    /// `v + lease < -drift`; and two stamps a recipe compares for equality
    /// (source 003's `oldValue.equals(getValue)`) were both on the server
    /// within one `acquireLock`, which lasts at most a pause, so they are
    /// never both clamped while different if the floor lies a pause and
    /// the widest stamp (`lease + 1 + drift`) further down.
    pub fn stamp_floor(&self) -> i64 {
        -(2 * i64::from(self.lease) + i64::from(self.pause) + 2 * self.drift() + 2)
    }

    /// The enabled actions: per client its step, its think and the
    /// server's serving of its command; then a tick; then the faults.
    pub fn enabled(&self, s: &State, out: &mut Vec<Action>) {
        out.clear();
        for (c, cl) in (0u8..).zip(&s.clients) {
            if cl.can_step() {
                out.push(Action::Step(c));
                if cl.phase.thinks_next() && cl.rounds > 0 {
                    out.push(Action::Think(c));
                }
            }
            if matches!(cl.channel, Channel::Sent(_)) {
                out.push(Action::Serve(c));
            }
        }
        if s.server.unreplicated() > 0 {
            out.push(Action::Replicate);
        }
        if self.time_passes(s) {
            out.push(Action::Tick);
        }
        let between_commands = !s
            .clients
            .iter()
            .any(|c| matches!(c.channel, Channel::Sent(_)));
        if between_commands && s.left.restarts > 0 {
            out.push(Action::Restart);
        }
        if between_commands && s.left.failovers > 0 && s.server.has_replica() {
            out.push(Action::Failover);
        }
        if s.left.server_clock_jumps > 0 {
            out.push(Action::ServerClockAhead);
            out.push(Action::ServerClockBack);
        }
        for (c, cl) in (0u8..).zip(&s.clients) {
            if s.left.pauses > 0 && cl.alive() && cl.paused == 0 {
                out.push(Action::Pause(c));
            }
            if s.left.crashes > 0 && cl.alive() {
                out.push(Action::Crash(c));
            }
            // Each jump spends the budget every client shares, so no
            // clock strays past the drift the configuration allows (at
            // most 60 ticks: an `i8`).
            if s.left.clock_jumps > 0 && cl.alive() {
                out.push(Action::ClockAhead(c));
                out.push(Action::ClockBack(c));
            }
        }
    }

    /// A tick may pass: nothing instantaneous is left (maximal progress)
    /// and something counts down.
    fn time_passes(&self, s: &State) -> bool {
        let instant = s
            .clients
            .iter()
            .any(|c| c.can_step() || matches!(c.channel, Channel::Sent(_)))
            || s.server.unreplicated() > 0;
        let counting = s
            .clients
            .iter()
            .any(|c| c.alive() && (c.timer > 0 || c.paused > 0))
            || s.server.keys().iter().any(|(_, e)| {
                // A TTL runs out, or a stamp still ages toward the horizon.
                e.ttl.is_some() || matches!(e.value, Value::Stamp(k) if k > self.stamp_floor())
            });
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
            Action::ClockAhead(c) => {
                s.left.clock_jumps -= 1;
                let cl = &mut s.clients[c as usize];
                cl.clock = cl.clock.saturating_add(self.skew as i8);
            }
            Action::ClockBack(c) => {
                s.left.clock_jumps -= 1;
                let cl = &mut s.clients[c as usize];
                cl.clock = cl.clock.saturating_sub(self.skew as i8);
            }
            Action::ServerClockAhead => {
                s.left.server_clock_jumps -= 1;
                s.server.jump_forward(u64::from(self.skew));
                if s.server.entry(&Key::new(LOCK_KEY)).is_none() {
                    s.owner = None;
                }
            }
            Action::ServerClockBack => {
                s.left.server_clock_jumps -= 1;
                s.server.jump_back(u64::from(self.skew));
            }
            Action::Replicate => {
                s.server.replicate_one();
            }
            Action::Restart => {
                s.left.restarts -= 1;
                s.server.restart();
                s.owner = None;
            }
            Action::Failover => {
                s.left.failovers -= 1;
                let before = s.server.entry(&Key::new(LOCK_KEY)).cloned();
                s.server.failover();
                let after = s.server.entry(&Key::new(LOCK_KEY));
                if after.map(|e| &e.value) != before.as_ref().map(|e| &e.value) {
                    // The replica's older key: its writer is known only by
                    // a token (a timestamp's writer is lost, and with it a
                    // later unlock by non-owner of that key).
                    s.owner = after
                        .and_then(|e| (0..self.clients).find(|&c| self.me(c, 0).token == e.value));
                }
            }
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
                cl.fence = Fence::Off;
                // Its open section ends with its process: no write of it
                // can follow.
                resource::tenure_ends(s, c as usize);
            }
        }
    }

    /// One tick: the server's TTLs and stamps, the stamps in replies not
    /// read yet, and every running counter move on; stamps past the
    /// horizon are clamped.
    fn tick(&self, s: &mut State) {
        let floor = self.stamp_floor();
        s.server.advance(1);
        s.server.clamp_stamps(floor);
        if s.server.entry(&Key::new(LOCK_KEY)).is_none() {
            s.owner = None;
        }
        for cl in s.clients.iter_mut().filter(|c| c.alive()) {
            if cl.paused > 0 {
                cl.paused -= 1;
            } else {
                cl.timer = cl.timer.saturating_sub(1);
            }
            cl.locals = cl.locals.aged(floor);
            if let Channel::Replied(r) = &mut cl.channel {
                match r {
                    Reply::Bulk(v) => *v = v.aged(1).clamped(floor),
                    Reply::Stamp(k) => *k = (*k - 1).max(floor),
                    _ => {}
                }
            }
        }
    }

    /// The server handles `c`'s command; it notes who set the key, and
    /// whether the command took the key from a client whose tenure is
    /// current and, by the recipe's own rule read on that client's clock,
    /// still valid.
    fn serve(&self, s: &mut State, c: u8) {
        let Channel::Sent(cmd) = &s.clients[c as usize].channel else {
            return;
        };
        let cmd = cmd.clone();
        let before = s.server.entry(cmd.key()).map(|e| e.value.clone());
        let reply = s.server.apply(&cmd);
        let after = s.server.entry(cmd.key()).map(|e| e.value.clone());
        // Only the lock's key has an owner (a fenced client's INCR takes
        // its token from a key of its own).
        if cmd.wrote(before.as_ref(), after.as_ref(), &reply) && cmd.key() == &Key::new(LOCK_KEY) {
            if let (Some(o), Some(v)) = (s.owner, &before) {
                let owner = &s.clients[o as usize];
                let now = i64::from(owner.clock);
                s.foreign_unlock |= o != c
                    && owner.in_tenure()
                    && !self.recipe.expired(v, now, i64::from(self.lease));
            }
            s.owner = after.is_some().then_some(c);
        }
        // Fencing: the tenure is the lock's, in the order the server gave
        // it; the token follows with the INCR's reply.
        let cl = &s.clients[c as usize];
        if self.fencing && cl.section.tenure == 0 && cl.locals.won(&reply, i64::from(cl.clock)) {
            resource::tenure_begins(s, c as usize);
        }
        s.clients[c as usize].channel = Channel::Replied(reply);
    }

    /// Client `c` reads its reply, if one came, and runs to its next
    /// blocking call; a step that would begin a round after the last one
    /// ends the loop instead. With fencing, the harness's own steps come
    /// first: the token's reply, and the critical section's two writes.
    fn client_step(&self, s: &mut State, c: u8) {
        if self.fencing && self.fenced_step(s, c) {
            return;
        }
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
        let out = self
            .recipe
            .step(&mut cl.locals, reply.as_ref(), &self.me(c, cl.clock));
        if self.fencing && out.kind == StepKind::Acquired {
            // The recipe's lock succeeded: `lock()` returns once the token
            // is read — from the lock command's own reply, or from an
            // `INCR` it sends now.
            match reply {
                Some(Reply::Int(token)) if self.recipe.token_in_reply() => {
                    cl.phase = cl.phase.after(StepKind::Acquired, true, &mut events);
                    cl.fence = Fence::Wrote(0);
                    resource::token(s, c as usize, token);
                }
                _ => {
                    cl.fence = Fence::AwaitToken;
                    cl.channel = Channel::Sent(Command::Incr {
                        key: Key::new(FENCE_KEY),
                    });
                }
            }
            return;
        }
        cl.phase = cl.phase.after(out.kind, true, &mut events);
        if let Some(cmd) = out.send {
            cl.channel = Channel::Sent(cmd);
        }
        if out.kind == StepKind::Acquired {
            cl.timer = self.work;
        }
        if out.sleep {
            cl.timer = 1;
        }
        let ended = events.iter().any(|e| {
            matches!(
                e,
                LockEvent::Released
                    | LockEvent::GaveUp
                    | LockEvent::ThreadDied(_)
                    | LockEvent::Finished
            )
        });
        // Without fencing the fence is off and there is no resource.
        if ended {
            s.clients[c as usize].fence = Fence::Off;
            resource::tenure_ends(s, c as usize);
        }
    }

    /// A fenced client's step that is the harness's, not the recipe's:
    /// reading the token (`lock()` returns), the critical section's
    /// opening write (then the work), its closing write. Whether it was
    /// one.
    fn fenced_step(&self, s: &mut State, c: u8) -> bool {
        let cl = &mut s.clients[c as usize];
        match cl.fence {
            Fence::AwaitToken => {
                let Channel::Replied(reply) = std::mem::replace(&mut cl.channel, Channel::Idle)
                else {
                    return false;
                };
                let mut events = Vec::new();
                match reply {
                    Reply::Int(token) => {
                        cl.phase = cl.phase.after(StepKind::Acquired, true, &mut events);
                        cl.fence = Fence::Wrote(0);
                        resource::token(s, c as usize, token);
                    }
                    // INCR on a key that is not a number: the program's
                    // `incr` throws.
                    _ => {
                        cl.phase = cl.phase.after(
                            StepKind::Threw("JedisDataException"),
                            true,
                            &mut events,
                        );
                        cl.fence = Fence::Off;
                        resource::tenure_ends(s, c as usize);
                    }
                }
                true
            }
            Fence::Wrote(n) if cl.phase.holds() && n < WRITES => {
                cl.fence = Fence::Wrote(n + 1);
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
