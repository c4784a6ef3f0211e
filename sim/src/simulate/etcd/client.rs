//! One etcd client process: the checker's rounds on etcd's clocks — its
//! recipe's requests with latencies, its watch waited on as the blocking
//! Go call waits, its critical section drawn below the TTL, and beside it
//! its session's keep-alive and deadline goroutines ([`super::leases`]).

use super::leases::{deadline_loop, keep_alive};
use super::{World, TICK_MS};
use crate::simulate::command::fencing::write;
use crate::simulate::command::lock;
use crate::simulate::command::run_clock::{micros, now_ms};
use locksmith_model::engine::harness::StepKind;
use locksmith_model::etcd::recipes::Me;
use locksmith_model::etcd::Reply;
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

/// One client's loop: the checker's rounds with real time.
pub async fn client(world: Arc<Mutex<World>>, c: usize) {
    madsim::task::spawn(keep_alive(world.clone(), c));
    madsim::task::spawn(deadline_loop(world.clone(), c));
    let (recipe, rounds, ttl, work_ms, fenced) = {
        let w = lock(&world);
        (
            w.space.recipe,
            w.space.acquisitions,
            w.space.ttl,
            u64::from(w.space.work) * TICK_MS,
            w.space.fencing,
        )
    };
    let mut locals = recipe.start();
    let mut reply: Option<Reply> = None;
    let mut left = rounds;
    loop {
        let phase = lock(&world).core.clients[c].phase;
        if phase.thinks_next() {
            if left == 0 {
                let mut w = lock(&world);
                let mut ev = Vec::new();
                w.core.clients[c].phase = phase.after(StepKind::Finished, true, &mut ev);
                return;
            }
            left -= 1;
            madsim::time::sleep(micros(0, TICK_MS * 1000)).await;
        }
        let out = {
            let mut w = lock(&world);
            // What the client knows: its own session's Done(), not the
            // server's lease.
            let me = Me {
                client: c as u8,
                ttl,
                session_alive: w.clocks.alive(c),
            };
            let out = recipe.step(&mut locals, reply.take().as_ref(), &me);
            w.clocks.follow(c, locals.session);
            let mut events = Vec::new();
            let next = w.core.clients[c].phase.after(out.kind, true, &mut events);
            w.core.clients[c].phase = next;
            for e in events {
                w.event(c, e);
            }
            out
        };
        if let Some(req) = out.send {
            madsim::time::sleep(micros(100, 1000)).await;
            while_cut(&world, c).await;
            let served = {
                let mut w = lock(&world);
                let r = w.serve(c, &req);
                let me = Me {
                    client: c as u8,
                    ttl,
                    session_alive: true,
                };
                let won = recipe.won(&locals, &r, &me);
                w.core.clients[c].won = won;
                if won {
                    w.core.tenure_begins(c);
                }
                r
            };
            let served = match served {
                Reply::Watching => watch_event(&world, c).await,
                r => r,
            };
            madsim::time::sleep(micros(100, 1000)).await;
            while_cut(&world, c).await;
            reply = Some(served);
        }
        if out.kind == StepKind::Acquired {
            let token = u64::try_from(locals.my_rev).ok().filter(|_| fenced);
            if let Some(t) = token {
                write(&world, c, t, true).await;
            }
            // Shorter than the TTL: a holder overruns only under a pause.
            let hold = work_ms.saturating_sub(1).max(1);
            madsim::time::sleep(micros(hold * 500, hold * 1000)).await;
            if let Some(t) = token {
                write(&world, c, t, false).await;
            }
        }
    }
}
