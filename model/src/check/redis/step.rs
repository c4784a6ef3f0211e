//! The Redis system's transitions: which actions a state enables, in a
//! fixed order, and what each one does.

use super::action::Action;
use super::config::RedisSpace;
use super::state::{Channel, Client, State};
use crate::harness::{Phase, StepKind};
use crate::recipe::redis::Me;
use crate::redis::{Key, RedisServer, Value};

pub use crate::recipe::redis::LOCK_KEY;

impl RedisSpace {
    pub fn initial_state(&self) -> State {
        let client = Client {
            locals: self.recipe.start(),
            phase: Phase::Idle,
            channel: Channel::Idle,
            timer: 0,
            paused: 0,
            rounds: self.acquisitions,
        };
        State {
            server: RedisServer::new(),
            clients: vec![client; self.clients as usize],
            left: self.faults,
            foreign_unlock: false,
        }
    }

    /// What client `c` knows of itself: its token is its number, plus one
    /// (unique per client, as seed 003's `my_random_value` must be).
    pub fn me(&self, c: u8) -> Me {
        Me {
            key: Key::new(LOCK_KEY),
            token: Value::Int(i64::from(c) + 1),
            lease: i64::from(self.lease),
        }
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
        }
    }

    /// A tick may pass: nothing instantaneous is left (maximal progress)
    /// and something counts down.
    fn time_passes(&self, s: &State) -> bool {
        let instant = s
            .clients
            .iter()
            .any(|c| c.can_step() || matches!(c.channel, Channel::Sent(_)));
        let counting = s
            .clients
            .iter()
            .any(|c| c.alive() && (c.timer > 0 || c.paused > 0))
            || s.server.keys().iter().any(|(_, e)| e.ttl.is_some());
        !instant && counting
    }

    /// Takes `a` in `s`.
    pub fn take(&self, s: &mut State, a: Action) {
        s.foreign_unlock = false;
        match a {
            Action::Step(c) => self.client_step(s, c),
            Action::Think(c) => s.clients[c as usize].timer = 1,
            Action::Serve(c) => self.serve(s, c),
            Action::Tick => {
                s.server.advance(1);
                for cl in s.clients.iter_mut().filter(|c| c.alive()) {
                    if cl.paused > 0 {
                        cl.paused -= 1;
                    } else {
                        cl.timer = cl.timer.saturating_sub(1);
                    }
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
            }
        }
    }

    /// The server handles `c`'s command and notes whether it took the key
    /// from a client whose tenure is current.
    fn serve(&self, s: &mut State, c: u8) {
        let Channel::Sent(cmd) = &s.clients[c as usize].channel else {
            return;
        };
        let cmd = cmd.clone();
        let before = s.server.entry(cmd.key()).map(|e| e.value.clone());
        let reply = s.server.apply(&cmd);
        let after = s.server.entry(cmd.key()).map(|e| &e.value);
        if let Some(owner) = before.as_ref().and_then(|v| self.owner_of(v)) {
            s.foreign_unlock |=
                owner != c && after != before.as_ref() && s.clients[owner as usize].in_tenure();
        }
        s.clients[c as usize].channel = Channel::Replied(reply);
    }

    /// The client whose token `v` is.
    fn owner_of(&self, v: &Value) -> Option<u8> {
        (0..self.clients).find(|&c| self.me(c).token == *v)
    }

    /// Client `c` reads its reply, if one came, and runs to its next
    /// blocking call; a step that would begin a round after the last one
    /// ends the loop instead.
    fn client_step(&self, s: &mut State, c: u8) {
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
            .step(&mut cl.locals, reply.as_ref(), &self.me(c));
        cl.phase = cl.phase.after(out.kind, true, &mut events);
        if let Some(cmd) = out.send {
            cl.channel = Channel::Sent(cmd);
        }
        if out.kind == StepKind::Acquired {
            cl.timer = self.work;
        }
    }
}
