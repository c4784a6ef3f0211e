//! The Redis system's transitions as the engine takes them ([`Steps`]):
//! its recipe's step and fencing token, which actions a state enables in a
//! fixed order, and what the server's serving, a tick and Redis's own
//! actions do.

use super::action::{Action, Own};
use super::config::RedisSpace;
use super::state::{Channel, State};
use crate::engine::command::step::{client_actions, process_faults, time_passes};
use crate::engine::command::{Steps, Token};
use crate::engine::harness::{Outcome, StepKind};
use crate::engine::resource;
use crate::redis::recipes::{Locals, Me};
use crate::redis::{Command, Key, Reply, Value};

pub use crate::redis::recipes::LOCK_KEY;

/// The key a fenced client's `INCR` takes its token from.
pub const FENCE_KEY: &str = "fence";

impl RedisSpace {
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

    /// Something of Redis's own counts down: a TTL runs out, or a stamp
    /// still ages toward the horizon.
    fn counting(&self, s: &State) -> bool {
        s.server.keys().iter().any(|(_, e)| {
            e.ttl.is_some() || matches!(e.value, Value::Stamp(k) if k > self.stamp_floor())
        })
    }
}

impl Steps for RedisSpace {
    type Action = Action;
    type Me = Me;

    fn me(&self, s: &State, c: u8) -> Me {
        RedisSpace::me(self, c, s.clients[c as usize].own.clock)
    }

    fn recipe_step(&self, locals: &mut Locals, reply: Option<&Reply>, me: &Me) -> Outcome<Command> {
        self.recipe.step(locals, reply, me)
    }

    /// `lock()` returns once the token is read: from the lock command's
    /// own reply, or from an `INCR` it sends now.
    fn token(&self, _locals: &Locals, reply: Option<&Reply>) -> Token<Command> {
        match reply {
            Some(Reply::Int(token)) if self.recipe.token_in_reply() => Token::Now(*token),
            _ => Token::Ask(Command::Incr {
                key: Key::new(FENCE_KEY),
            }),
        }
    }

    /// `INCR` on a key that is not a number: the program's `incr` throws.
    fn asked_token(&self, reply: Reply) -> Result<i64, StepKind> {
        match reply {
            Reply::Int(token) => Ok(token),
            _ => Err(StepKind::Threw("JedisDataException")),
        }
    }

    /// Per client its step, its think and the server's serving of its
    /// command; replication; a tick; then the faults.
    fn enabled(&self, s: &State, out: &mut Vec<Action>) {
        client_actions(&s.clients, out);
        if s.server.unreplicated() > 0 {
            out.push(Action::Replicate);
        }
        if time_passes(&s.clients, s.server.unreplicated() > 0, || self.counting(s)) {
            out.push(Action::Tick);
        }
        let between_commands = !s.clients.iter().any(|c| c.channel.is_sent());
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
            process_faults(&s.left, c, cl, out);
            // Each jump spends the budget every client shares, so no
            // clock strays past the drift the configuration allows (at
            // most 60 ticks: an `i8`).
            if s.left.clock_jumps > 0 && cl.alive() {
                out.push(Action::ClockAhead(c));
                out.push(Action::ClockBack(c));
            }
        }
    }

    /// The server handles `c`'s command; it notes who set the key, and
    /// whether the command took the key from a client whose tenure is
    /// current and, by the recipe's own rule read on that client's clock,
    /// still valid.
    fn serve(&self, s: &mut State, c: u8) {
        let Some(cmd) = s.clients[c as usize].channel.sent().cloned() else {
            return;
        };
        let before = s.server.entry(cmd.key()).map(|e| e.value.clone());
        let reply = s.server.apply(&cmd);
        let after = s.server.entry(cmd.key()).map(|e| e.value.clone());
        // Only the lock's key has an owner (a fenced client's INCR takes
        // its token from a key of its own).
        if cmd.wrote(before.as_ref(), after.as_ref(), &reply) && cmd.key() == &Key::new(LOCK_KEY) {
            if let (Some(o), Some(v)) = (s.own.owner, &before) {
                let owner = &s.clients[o as usize];
                let now = i64::from(owner.own.clock);
                s.foreign_unlock |= o != c
                    && owner.in_tenure()
                    && !self.recipe.expired(v, now, i64::from(self.lease));
            }
            s.own.owner = after.is_some().then_some(c);
        }
        // Fencing: the tenure is the lock's, in the order the server gave
        // it; the token follows with the INCR's reply.
        let cl = &s.clients[c as usize];
        if self.fencing && cl.section.tenure == 0 && cl.locals.won(&reply, i64::from(cl.own.clock))
        {
            resource::tenure_begins(s, c as usize);
        }
        s.clients[c as usize].channel = Channel::Replied(reply);
    }

    /// One tick: the server's TTLs and stamps, the stamps in replies not
    /// read yet, and every running counter move on; stamps past the
    /// horizon are clamped.
    fn tick(&self, s: &mut State) {
        let floor = self.stamp_floor();
        s.server.advance(1);
        s.server.clamp_stamps(floor);
        if s.server.entry(&Key::new(LOCK_KEY)).is_none() {
            s.own.owner = None;
        }
        for cl in s.clients.iter_mut().filter(|c| c.alive()) {
            cl.count_down();
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

    fn take_own(&self, s: &mut State, a: Own) {
        match a {
            Own::ClockAhead(c) => {
                s.left.clock_jumps -= 1;
                let cl = &mut s.clients[c as usize];
                cl.own.clock = cl.own.clock.saturating_add(self.skew as i8);
            }
            Own::ClockBack(c) => {
                s.left.clock_jumps -= 1;
                let cl = &mut s.clients[c as usize];
                cl.own.clock = cl.own.clock.saturating_sub(self.skew as i8);
            }
            Own::ServerClockAhead => {
                s.left.server_clock_jumps -= 1;
                s.server.jump_forward(u64::from(self.skew));
                if s.server.entry(&Key::new(LOCK_KEY)).is_none() {
                    s.own.owner = None;
                }
            }
            Own::ServerClockBack => {
                s.left.server_clock_jumps -= 1;
                s.server.jump_back(u64::from(self.skew));
            }
            Own::Replicate => {
                s.server.replicate_one();
            }
            Own::Restart => {
                s.left.restarts -= 1;
                s.server.restart();
                s.own.owner = None;
            }
            Own::Failover => {
                s.left.failovers -= 1;
                let before = s.server.entry(&Key::new(LOCK_KEY)).cloned();
                s.server.failover();
                let after = s.server.entry(&Key::new(LOCK_KEY));
                if after.map(|e| &e.value) != before.as_ref().map(|e| &e.value) {
                    // The replica's older key: its writer is known only by
                    // a token (a timestamp's writer is lost, and with it a
                    // later unlock by non-owner of that key).
                    s.own.owner = after
                        .and_then(|e| (0..self.clients).find(|&c| self.me(c, 0).token == e.value));
                }
            }
        }
    }
}
