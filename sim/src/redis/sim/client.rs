//! One Redis client's library in the simulator: its recipe's state, aged
//! by the milliseconds between its steps as the checker ages it by ticks,
//! its commands with their latencies, and its clock, which reads `offset`
//! ms ahead of the reference time (a clock jump moves it). With fencing,
//! `lock()` returns once the holder has its token ([`super::fence`]).

use super::{fence, World};
use crate::simulate::command::run_clock::{micros, now_ms};
use crate::simulate::command::{lock, Library, Step};
use locksmith_model::engine::harness::{Phase, StepKind};
use locksmith_model::redis::check::FENCE_KEY;
use locksmith_model::redis::recipes::{Locals, Me, RedisRecipe, LOCK_KEY};
use locksmith_model::redis::{Command, Key, Reply, Value};
use std::sync::{Arc, Mutex};

pub struct Client {
    recipe: RedisRecipe,
    locals: Locals,
    /// Who the client is to its recipe; its clock as the round's step
    /// began.
    me: Me,
    /// The last reply, with when the server made it (its stamps are
    /// relative to that moment).
    reply: Option<(Reply, u64)>,
    /// When the client's state last aged, in ms.
    last: u64,
    /// The holder's fencing token, from its last `lock()`.
    token: Option<u64>,
}

/// `r` read `ms` after the server made it: its stamps are that much older.
fn aged(r: Reply, ms: u64) -> Reply {
    let ms = ms as i64;
    match r {
        Reply::Bulk(Value::Stamp(k)) => Reply::Bulk(Value::Stamp(k - ms)),
        Reply::Stamp(k) => Reply::Stamp(k - ms),
        other => other,
    }
}

impl Library for Client {
    type World = World;
    type Send = Command;

    fn start(world: &Arc<Mutex<World>>, c: usize) -> Client {
        let w = lock(world);
        let recipe = w.space.recipe;
        Client {
            recipe,
            locals: recipe.start(),
            me: Me {
                key: Key::new(LOCK_KEY),
                fence: Key::new(FENCE_KEY),
                token: Value::Int(c as i64 + 1),
                lease: w.lease_ms(),
                clock: 0,
            },
            reply: None,
            last: now_ms(),
            token: None,
        }
    }

    fn top(&mut self, w: &World, c: usize) {
        self.me.clock = w.clocks[c];
    }

    async fn step(&mut self, world: &Arc<Mutex<World>>, c: usize) -> Option<Step<Command>> {
        let now = now_ms();
        for _ in 0..now.saturating_sub(self.last).min(1 << 20) {
            self.locals = self.locals.aged(i64::MIN / 4);
        }
        self.last = now;
        let read = self
            .reply
            .take()
            .map(|(r, at)| aged(r, now.saturating_sub(at)));
        let out = self.recipe.step(&mut self.locals, read.as_ref(), &self.me);
        self.token = None;
        if out.kind == StepKind::Acquired && lock(world).core.fencing.is_some() {
            self.token = fence::token(world, c, self.recipe, read.as_ref()).await;
            if self.token.is_none() {
                let mut w = lock(world);
                w.core
                    .note(|| format!("c{c}'s INCR failed: the program throws"));
                w.core.clients[c].phase = Phase::Died;
                w.core.tenure_ends(c);
                return None;
            }
        }
        Some(Step {
            kind: out.kind,
            send: out.send,
            sleep: out.sleep,
        })
    }

    async fn exchange(&mut self, world: &Arc<Mutex<World>>, c: usize, cmd: Command) {
        madsim::time::sleep(micros(100, 1000)).await;
        let served = {
            let mut w = lock(world);
            let r = w.serve(c, &cmd);
            let won = self.locals.won(&r, w.clocks[c]);
            w.core.won(c, won);
            (r, now_ms())
        };
        madsim::time::sleep(micros(100, 1000)).await;
        self.reply = Some(served);
    }

    fn token(&self) -> Option<u64> {
        self.token
    }
}
