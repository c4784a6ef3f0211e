//! The chaos task of the command simulators: the scenario's fault budgets,
//! each spent at a random instant of the first `horizon` ms on a random
//! targetable client (a holder, half the time, when there is one — a fault
//! that finds no holder shows little). A pause is the same on every
//! backend (the client's node stops whole, `Handle::pause`); every other
//! fault is the backend's [`CommandWorld::strike`], which may leave an
//! aftermath a while later (a dropped connection the server notices).

use super::run_clock::now_ms;
use super::{lock, CommandWorld};
use madsim::rand::Rng;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What a fault leaves for later: `then` runs on the world `after` the
/// strike, for `client`.
pub struct Aftermath<W> {
    pub after: Duration,
    pub client: usize,
    pub then: fn(&mut W, usize),
}

/// A random client of `live`, the holders among them (`holds`) half the
/// time when there are any.
fn target(
    live: impl Iterator<Item = usize>,
    holds: impl Fn(usize) -> bool,
    rng: &mut impl Rng,
) -> Option<usize> {
    let live: Vec<usize> = live.collect();
    let holders: Vec<usize> = live.iter().copied().filter(|&c| holds(c)).collect();
    let pool = if !holders.is_empty() && rng.gen_bool(0.5) {
        holders
    } else {
        live
    };
    (!pool.is_empty()).then(|| pool[rng.gen_range(0..pool.len())])
}

pub async fn chaos<W: CommandWorld>(world: Arc<Mutex<W>>, horizon: u64) {
    let (budgets, pause_ms, n) = {
        let w = lock(&world);
        (w.fault_budgets(), w.pause_ms(), w.core().clients.len())
    };
    let mut plan: Vec<(u64, W::Fault)> = Vec::new();
    let mut rng = madsim::rand::thread_rng();
    for (k, kind) in budgets {
        for _ in 0..k {
            plan.push((rng.gen_range(0..=horizon * 1000), kind));
        }
    }
    plan.sort_by_key(|p| p.0);
    let h = madsim::runtime::Handle::current();
    for (at_us, kind) in plan {
        let now_us = now_ms() * 1000;
        if at_us > now_us {
            madsim::time::sleep(Duration::from_micros(at_us - now_us)).await;
        }
        let target = {
            let w = lock(&world);
            target(
                (0..n).filter(|&c| w.targetable(c)),
                |c| w.core().clients[c].phase.holds(),
                &mut rng,
            )
        };
        if let (true, Some(c)) = (W::is_pause(kind), target) {
            let node = {
                let mut w = lock(&world);
                let core = w.core_mut();
                core.note(|| format!("c{c}'s process pauses for {pause_ms} ms"));
                core.clients[c].node
            };
            if let Some(node) = node {
                h.pause(node);
                madsim::time::sleep(Duration::from_millis(pause_ms)).await;
                h.resume(node);
                lock(&world)
                    .core_mut()
                    .note(|| format!("c{c}'s process resumes"));
            }
            continue;
        }
        let later = lock(&world).strike(kind, target, &h);
        if let Some(a) = later {
            madsim::time::sleep(a.after).await;
            (a.then)(&mut lock(&world), a.client);
        }
    }
}
