//! One MySQL client's library in the simulator: its recipe's state, and
//! its one connection — a statement sent after a link's latency, its reply
//! read when it comes (a statement waiting for a row lock waits here; a
//! dropped connection answers 2013). With fencing, `lock()` returns with
//! the token the database handed out in the reply that granted it.

use super::World;
use crate::simulate::command::run_clock::micros;
use crate::simulate::command::{lock, Library, Step};
use locksmith_model::engine::harness::StepKind;
use locksmith_model::mysql::recipes::{Locals, MysqlRecipe};
use locksmith_model::mysql::{MysqlError, Reply, Statement};
use std::sync::{Arc, Mutex};

pub struct Client {
    recipe: MysqlRecipe,
    fenced: bool,
    locals: Locals,
    /// The reply the next step reads.
    read: Option<Reply>,
    /// The holder's fencing token, from its last step.
    token: Option<u64>,
}

impl Library for Client {
    type World = World;
    type Send = Statement;

    fn start(world: &Arc<Mutex<World>>, _c: usize) -> Client {
        let w = lock(world);
        Client {
            recipe: w.space.recipe,
            fenced: w.space.fencing,
            locals: w.space.recipe.start(),
            read: None,
            token: None,
        }
    }

    async fn step(&mut self, world: &Arc<Mutex<World>>, c: usize) -> Option<Step<Statement>> {
        let got = self.read.take();
        let out = self
            .recipe
            .step(&mut self.locals, got.as_ref(), self.fenced);
        self.token = (out.kind == StepKind::Acquired && self.fenced)
            .then(|| MysqlRecipe::token(got.as_ref()).and_then(|t| u64::try_from(t).ok()))
            .flatten();
        lock(world).locals[c] = self.locals;
        Some(Step {
            kind: out.kind,
            send: out.send,
            sleep: out.sleep,
        })
    }

    async fn exchange(&mut self, world: &Arc<Mutex<World>>, c: usize, stmt: Statement) {
        madsim::time::sleep(micros(100, 1000)).await;
        {
            let mut w = lock(world);
            w.sync();
            w.core.commands += 1;
            w.core.note(|| format!("c{c} → {stmt}"));
            if w.conns[c].connected {
                w.conns[c].in_flight = true;
                w.changing(Some(c), |w| {
                    // A client sends only when its last statement has
                    // answered.
                    let done = w.server.execute(c, &stmt).unwrap_or_default();
                    w.deliver(done);
                });
            } else {
                w.conns[c].reply = Some(Reply::Err(MysqlError::ConnectionLost));
            }
        }
        loop {
            let reply = lock(world).conns[c].reply.take();
            if let Some(r) = reply {
                // The reply's way back.
                madsim::time::sleep(micros(100, 1000)).await;
                self.read = Some(r);
                return;
            }
            madsim::time::sleep(micros(200, 1000)).await;
        }
    }

    fn token(&self) -> Option<u64> {
        self.token
    }

    /// The scenario's critical section whole: a database lock has no lease
    /// to stay under.
    fn hold_ms(work_ms: u64) -> u64 {
        work_ms
    }
}
