//! One etcd client process's library: its recipe's requests with
//! latencies, held while its link is cut, its watch waited on as the
//! blocking Go call waits, and beside it its session's keep-alive and
//! deadline goroutines ([`super::leases`]). Its critical section is drawn
//! below the TTL.

use super::leases::{deadline_loop, keep_alive};
use super::World;
use crate::simulate::command::run_clock::{micros, now_ms};
use crate::simulate::command::{lock, Library, Step};
use locksmith_model::etcd::recipes::{EtcdRecipe, Locals, Me};
use locksmith_model::etcd::{Reply, Request};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Until `c`'s link heals, if it is cut.
async fn while_cut(world: &Arc<Mutex<World>>, c: usize) {
    loop {
        let until = lock(world).cut_until[c];
        let now = now_ms();
        if now >= until {
            return;
        }
        madsim::time::sleep(Duration::from_millis(until - now)).await;
    }
}

/// The event `c`'s watch delivers, whenever the server sends it.
async fn watch_event(world: &Arc<Mutex<World>>, c: usize) -> Reply {
    loop {
        let wake = {
            let mut w = lock(world);
            if let Some(e) = w.inbox[c].take() {
                return e;
            }
            w.wake[c].clone()
        };
        wake.notified().await;
    }
}

pub struct Client {
    recipe: EtcdRecipe,
    ttl: u8,
    fenced: bool,
    locals: Locals,
    /// The reply the next step reads.
    reply: Option<Reply>,
}

impl Library for Client {
    type World = World;
    type Send = Request;

    /// Its session's keep-alive and deadline goroutines start beside it.
    fn start(world: &Arc<Mutex<World>>, c: usize) -> Client {
        madsim::task::spawn(keep_alive(world.clone(), c));
        madsim::task::spawn(deadline_loop(world.clone(), c));
        let w = lock(world);
        Client {
            recipe: w.space.recipe,
            ttl: w.space.ttl,
            fenced: w.space.fencing,
            locals: w.space.recipe.start(),
            reply: None,
        }
    }

    async fn step(&mut self, world: &Arc<Mutex<World>>, c: usize) -> Option<Step<Request>> {
        let mut w = lock(world);
        // What the client knows: its own session's Done(), not the
        // server's lease.
        let me = Me {
            client: c as u8,
            ttl: self.ttl,
            session_alive: w.clocks.alive(c),
        };
        let out = self
            .recipe
            .step(&mut self.locals, self.reply.take().as_ref(), &me);
        w.clocks.follow(c, self.locals.session);
        Some(Step {
            kind: out.kind,
            send: out.send,
            sleep: false,
        })
    }

    async fn exchange(&mut self, world: &Arc<Mutex<World>>, c: usize, req: Request) {
        madsim::time::sleep(micros(100, 1000)).await;
        while_cut(world, c).await;
        let served = {
            let mut w = lock(world);
            let r = w.serve(c, &req);
            let me = Me {
                client: c as u8,
                ttl: self.ttl,
                session_alive: true,
            };
            let won = self.recipe.won(&self.locals, &r, &me);
            w.core.won(c, won);
            r
        };
        let served = match served {
            Reply::Watching => watch_event(world, c).await,
            r => r,
        };
        madsim::time::sleep(micros(100, 1000)).await;
        while_cut(world, c).await;
        self.reply = Some(served);
    }

    /// The key's create revision, when the scenario fences.
    fn token(&self) -> Option<u64> {
        u64::try_from(self.locals.my_rev)
            .ok()
            .filter(|_| self.fenced)
    }
}
