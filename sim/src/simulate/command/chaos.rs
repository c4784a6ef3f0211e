//! The chaos task of the command simulators: the scenario's fault budgets,
//! each spent at a random instant of the first `horizon` ms on a random
//! targetable client (a holder, half the time, when there is one — a fault
//! that finds no holder shows little). A pause and a crash are the same on
//! every backend (the client's node stops whole, `Handle::pause`; it dies,
//! `Handle::kill`, with the backend's side of it, [`CommandWorld::crashed`]);
//! every other fault is the backend's [`CommandWorld::strike`], which may
//! leave an aftermath a while later (a dropped connection the server
//! notices).

use super::core::Setup;
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

/// A fault the chaos task spends: the core's own, or one of the backend's.
#[derive(Clone, Copy)]
enum Strike<F> {
    Pause,
    Crash,
    Own(F),
}

/// Each fault class's budget, in the order their instants are drawn:
/// pauses, crashes, then the backend's own in its order.
fn budgets<W: CommandWorld>(setup: &Setup) -> Vec<(u8, Strike<W::Fault>)> {
    [("pauses", Strike::Pause), ("crashes", Strike::Crash)]
        .into_iter()
        .chain(W::FAULTS.iter().map(|&(key, f)| (key, Strike::Own(f))))
        .map(|(key, s)| (setup.budget(key), s))
        .collect()
}

/// A random targetable client of `w`'s `n`, the holders among them half
/// the time when there are any.
fn target<W: CommandWorld>(w: &mut W, n: usize, rng: &mut impl Rng) -> Option<usize> {
    let live: Vec<usize> = (0..n).filter(|&c| w.targetable(c)).collect();
    let holders: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&c| w.core().clients[c].phase.holds())
        .collect();
    let pool = if !holders.is_empty() && rng.gen_bool(0.5) {
        holders
    } else {
        live
    };
    (!pool.is_empty()).then(|| pool[rng.gen_range(0..pool.len())])
}

/// Client `c` crashes: its process is gone for good (its tenure with it);
/// what stays at the server is the backend's to say.
fn crash<W: CommandWorld>(w: &mut W, c: usize, h: &madsim::runtime::Handle) {
    let core = w.core();
    core.clients[c].crashed = true;
    core.tenure_ends(c);
    core.note(|| format!("c{c} crashes{}", W::CRASH));
    w.crashed(c);
    if let Some(node) = w.core().clients[c].node {
        h.kill(node);
    }
}

pub async fn chaos<W: CommandWorld>(world: Arc<Mutex<W>>, horizon: u64) {
    let (budgets, pause_ms, n) = {
        let mut w = lock(&world);
        let s = &w.core().setup;
        (budgets::<W>(s), u64::from(s.pause) * W::TICK_MS, s.clients)
    };
    let mut plan: Vec<(u64, Strike<W::Fault>)> = Vec::new();
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
        let target = target(&mut *lock(&world), n, &mut rng);
        if let (Strike::Pause, Some(c)) = (kind, target) {
            let node = {
                let mut w = lock(&world);
                let core = w.core();
                core.note(|| format!("c{c}'s process pauses for {pause_ms} ms"));
                core.clients[c].node
            };
            if let Some(node) = node {
                h.pause(node);
                madsim::time::sleep(Duration::from_millis(pause_ms)).await;
                h.resume(node);
                lock(&world)
                    .core()
                    .note(|| format!("c{c}'s process resumes"));
            }
            continue;
        }
        let later = {
            let mut w = lock(&world);
            w.before_strike();
            match (kind, target) {
                (Strike::Crash, Some(c)) => {
                    crash(&mut *w, c, &h);
                    None
                }
                (Strike::Own(f), target) => w.strike(f, target),
                _ => None,
            }
        };
        if let Some(a) = later {
            madsim::time::sleep(a.after).await;
            (a.then)(&mut lock(&world), a.client);
        }
    }
}
