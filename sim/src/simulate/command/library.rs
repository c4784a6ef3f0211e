//! A command backend's client library in the simulator, and the client
//! task that runs it, written once: the harness's rounds (think, `lock()`,
//! the critical section, `unlock()`) with real time. The library says what
//! a client keeps between its recipe's steps, how a step goes (on what the
//! client read) and how it exchanges what the step sent with the server;
//! the task moves the client's phase, records its lock events in the world
//! ([`CommandWorld::event`]) and runs its critical sections, fenced when
//! the scenario fences.

use super::fencing::write;
use super::run_clock::micros;
use super::{lock, CommandWorld};
use locksmith_model::engine::harness::StepKind;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A recipe step, as the client task needs it.
pub struct Step<S> {
    pub kind: StepKind,
    /// What it sent the server (a command, a statement, a request).
    pub send: Option<S>,
    /// It ends in a tick-long sleep (a polling loop's wait).
    pub sleep: bool,
}

/// One client's library: its recipe's state and how it talks to the
/// server.
pub trait Library: Sized + Send + 'static {
    type World: CommandWorld;
    /// What a step sends.
    type Send: Send;

    /// Client `c` as its task begins, on its node (the goroutines beside
    /// it, if any, start here).
    fn start(world: &Arc<Mutex<Self::World>>, c: usize) -> Self;
    /// What the client reads of the world as a round's step begins, before
    /// it thinks (by default nothing).
    fn top(&mut self, _w: &Self::World, _c: usize) {}
    /// The recipe's next step, on what the client last read; `None`: the
    /// program ends here (it threw outside the recipe).
    fn step(
        &mut self,
        world: &Arc<Mutex<Self::World>>,
        c: usize,
    ) -> impl Future<Output = Option<Step<Self::Send>>> + Send;
    /// `send` goes to the server; the reply, once read, is the next step's.
    fn exchange(
        &mut self,
        world: &Arc<Mutex<Self::World>>,
        c: usize,
        send: Self::Send,
    ) -> impl Future<Output = ()> + Send;
    /// The holder's fencing token as its critical section begins (none
    /// unless the scenario fences).
    fn token(&self) -> Option<u64>;
    /// The longest a critical section lasts, of the scenario's `work_ms`:
    /// by default shorter than the lease by at least a millisecond, so a
    /// holder overruns only under a fault.
    fn hold_ms(work_ms: u64) -> u64 {
        work_ms.saturating_sub(1).max(1)
    }
}

/// Client `c`'s task: its rounds with real time, until it has run them
/// all, died or crashed.
pub async fn rounds<L: Library>(world: Arc<Mutex<L::World>>, c: usize) {
    let tick = <L::World as CommandWorld>::TICK_MS;
    let mut me = L::start(&world, c);
    let (mut left, work_ms) = {
        let mut w = lock(&world);
        let s = &w.core().setup;
        (s.rounds, u64::from(s.work) * tick)
    };
    loop {
        let phase = {
            let mut w = lock(&world);
            me.top(&w, c);
            w.core().clients[c].phase
        };
        if phase.thinks_next() {
            if left == 0 {
                lock(&world).core().finish(c);
                return;
            }
            left -= 1;
            madsim::time::sleep(micros(0, tick * 1000)).await;
        }
        let Some(step) = me.step(&world, c).await else {
            return;
        };
        if !moved(&world, c, step.kind) {
            return;
        }
        if let Some(send) = step.send {
            me.exchange(&world, c, send).await;
        }
        if step.kind == StepKind::Acquired {
            let (token, hold) = (me.token(), L::hold_ms(work_ms));
            if let Some(t) = token {
                write(&world, c, t, true).await;
            }
            madsim::time::sleep(micros(hold * 500, hold * 1000)).await;
            if let Some(t) = token {
                write(&world, c, t, false).await;
            }
        }
        if step.sleep {
            madsim::time::sleep(Duration::from_millis(tick)).await;
        }
    }
}

/// `c`'s phase after a step of `kind`, its lock events recorded; false if
/// its thread died.
fn moved<W: CommandWorld>(world: &Mutex<W>, c: usize, kind: StepKind) -> bool {
    let mut w = lock(world);
    let mut events = Vec::new();
    let next = w.core().clients[c].phase.after(kind, true, &mut events);
    w.core().clients[c].phase = next;
    for e in events {
        w.event(c, e);
    }
    !matches!(kind, StepKind::Threw(_))
}
