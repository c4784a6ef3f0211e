//! The simulated clock and random source every task of a run reads: madsim's,
//! scaled, and looked up once per run.

use std::future::Future;
use std::pin::Pin;
use std::task::Context;
use std::time::Duration;

thread_local! {
    /// The running simulation's clock and random source (looking them up
    /// in madsim's context on every call cost a fifth of the run time).
    static CLOCK: std::cell::RefCell<Option<madsim::time::TimeHandle>> =
        const { std::cell::RefCell::new(None) };
    static RNG: std::cell::RefCell<Option<madsim::rand::GlobalRng>> =
        const { std::cell::RefCell::new(None) };
}

/// Binds [`now`], [`sleep_ns`] and [`with_rng`] to the current runtime (at the
/// start of a run).
pub fn bind_clock() {
    CLOCK.with(|c| *c.borrow_mut() = Some(madsim::time::TimeHandle::current()));
    RNG.with(|r| *r.borrow_mut() = Some(madsim::rand::thread_rng()));
}

/// Runs `f` on the runtime's seeded random source, borrowed rather than
/// cloned for each draw (a clone counts an atomic up and down).
pub fn with_rng<T>(f: impl FnOnce(&mut madsim::rand::GlobalRng) -> T) -> T {
    RNG.with(|r| match &mut *r.borrow_mut() {
        Some(g) => f(g),
        None => f(&mut madsim::rand::thread_rng()),
    })
}

/// madsim's clock runs this many times faster than the simulated
/// system's: madsim sleeps at least 1 ms (as tokio does), while packets
/// here take fractions of a millisecond, so one madsim millisecond stands
/// for one simulated microsecond.
pub const SCALE: u64 = 1000;

/// Simulated nanoseconds since the run began.
pub fn now() -> u64 {
    CLOCK.with(|c| match &*c.borrow() {
        Some(t) => t.elapsed().as_nanos() as u64 / SCALE,
        None => madsim::time::TimeHandle::current().elapsed().as_nanos() as u64 / SCALE,
    })
}

/// Wakes `waker` when the simulated clock reaches `at` (ns): a madsim timer
/// armed on another task's behalf. A madsim `Sleep` polled once registers
/// a timer that calls the waker and is not cancelled when dropped — so a
/// sender can arm the receiver's wake-up for the packet's arrival, and the
/// receiver is polled once per packet instead of twice.
pub fn wake_at(at: u64, waker: &std::task::Waker) {
    wake_in(at.saturating_sub(now()), waker);
}

/// Wakes `waker` `ns` simulated nanoseconds from now, as [`wake_at`] does
/// (without reading the clock: madsim's time stands still within a poll).
pub fn wake_in(ns: u64, waker: &std::task::Waker) {
    let d = Duration::from_nanos(ns.saturating_mul(SCALE));
    let mut sleep = CLOCK.with(|c| c.borrow().as_ref().map(|t| t.sleep(d)));
    let mut cx = Context::from_waker(waker);
    let ready = match sleep.as_mut() {
        Some(s) => Pin::new(s).poll(&mut cx).is_ready(),
        None => true,
    };
    if ready {
        waker.wake_by_ref();
    }
}

/// Sleeps `ns` simulated nanoseconds (at least one microsecond).
pub async fn sleep_ns(ns: u64) {
    let d = Duration::from_nanos(ns.saturating_mul(SCALE));
    let sleep = CLOCK.with(|c| c.borrow().as_ref().map(|t| t.sleep(d)));
    match sleep {
        Some(s) => s.await,
        None => madsim::time::sleep(d).await,
    }
}
