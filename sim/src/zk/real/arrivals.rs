//! The arrival log: the order in which one session's replies and watch
//! notifications came from the server.
//!
//! The crate hands out one `OneshotWatcher` future per watching call rather
//! than one event stream, and completes each call's future separately, so
//! the order is recovered here: every watcher future and every call future
//! is polled with a waker that appends a mark to the session's log when the
//! crate's connection task wakes it. That task handles the server's packets
//! one at a time and wakes the futures concerned synchronously, so the log
//! is the arrival order.

use locksmith_model::zk::WatcherType;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use zookeeper_client as zkc;

/// One entry of the arrival log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mark {
    /// Watcher `n` was handed its event.
    Watch(u64),
    /// The outstanding call's reply arrived.
    Reply,
}

/// The log and an idle driver's alarm clock.
#[derive(Default)]
pub(super) struct Arrivals {
    log: Mutex<Vec<Mark>>,
    /// Rung whenever a notification arrives, so an idle driver wakes up.
    pub(super) bell: tokio::sync::Notify,
}

impl Arrivals {
    fn push(&self, m: Mark) {
        // A poisoned log only means a panic elsewhere; the marks still count.
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        log.push(m);
    }

    pub(super) fn take(&self) -> Vec<Mark> {
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::take(&mut *log)
    }
}

/// The waker of one watcher future: logs that it fired and rings the bell.
struct WatchWaker {
    id: u64,
    arrivals: Arc<Arrivals>,
}

impl Wake for WatchWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.arrivals.push(Mark::Watch(self.id));
        self.arrivals.bell.notify_one();
    }
}

/// The waker of the outstanding call: logs that its reply came, then wakes
/// the caller's task.
struct ReplyWaker {
    arrivals: Arc<Arrivals>,
    task: Waker,
}

impl Wake for ReplyWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.arrivals.push(Mark::Reply);
        self.task.wake_by_ref();
    }
}

/// A call future whose wake-ups are logged as [`Mark::Reply`].
pub(super) struct Marked<F> {
    call: Pin<Box<F>>,
    arrivals: Arc<Arrivals>,
}

impl<F: Future> Future for Marked<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let waker = Waker::from(Arc::new(ReplyWaker {
            arrivals: self.arrivals.clone(),
            task: cx.waker().clone(),
        }));
        self.call.as_mut().poll(&mut Context::from_waker(&waker))
    }
}

pub(super) fn marked<F: Future>(arrivals: &Arc<Arrivals>, call: F) -> Marked<F> {
    Marked {
        call: Box::pin(call),
        arrivals: arrivals.clone(),
    }
}

type EventFuture = Pin<Box<dyn Future<Output = zkc::WatchedEvent> + Send>>;

/// The session's watchers that have not fired yet. They are kept alive:
/// dropping one makes the crate send `removeWatches`, which is how
/// [`Watchers::remove`] sends it.
#[derive(Default)]
pub(super) struct Watchers {
    /// Each watcher's future, waker and what it watches.
    pending: BTreeMap<u64, (EventFuture, Waker, (String, WatcherType))>,
    next: u64,
    /// Events that were ready the moment their watcher was first polled.
    ready: Vec<zkc::WatchedEvent>,
}

impl Watchers {
    /// Starts logging `watcher` into `arrivals`.
    pub(super) fn add(
        &mut self,
        arrivals: &Arc<Arrivals>,
        watcher: zkc::OneshotWatcher,
        watches: (String, WatcherType),
    ) {
        let id = self.next;
        self.next += 1;
        let waker = Waker::from(Arc::new(WatchWaker {
            id,
            arrivals: arrivals.clone(),
        }));
        let mut fut: EventFuture = Box::pin(watcher.changed());
        match fut.as_mut().poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(e) => self.ready.push(e),
            Poll::Pending => {
                self.pending.insert(id, (fut, waker, watches));
            }
        }
    }

    /// The events of the watchers `marks` names, in mark order, after any
    /// that were ready when first polled.
    pub(super) fn resolve(&mut self, marks: &[Mark]) -> Vec<zkc::WatchedEvent> {
        let mut events = std::mem::take(&mut self.ready);
        for m in marks {
            let Mark::Watch(id) = m else { continue };
            let Some((fut, waker, _)) = self.pending.get_mut(id) else {
                continue;
            };
            if let Poll::Ready(e) = fut.as_mut().poll(&mut Context::from_waker(waker)) {
                self.pending.remove(id);
                events.push(e);
            }
        }
        events
    }

    /// The ids of the pending watchers of `kind` on `path`.
    fn matching(&self, path: &str, kind: WatcherType) -> Vec<u64> {
        self.pending
            .iter()
            .filter(|(_, (_, _, (p, k)))| p == path && (kind == WatcherType::Any || *k == kind))
            .map(|(id, _)| *id)
            .collect()
    }

    /// `removeWatches(path, kind)`: drops every unfired watcher of `kind`
    /// (`Data`: those of `exists` and `getData`) on `path`, and the crate
    /// sends the server one `removeWatches` for them (its mode widened to
    /// `Any` when no watcher is left on the path, which removes the same
    /// server watches: the server holds none the client does not). The
    /// crate sends nothing for a watcher it does not hold, so `NoWatcher`
    /// is answered here, from the client's table, as the Java client does
    /// for a watcher it never registered. A watcher whose event already
    /// came is not removed: its event is kept for [`resolve`](Self::resolve).
    pub(super) fn remove(&mut self, path: &str, kind: WatcherType) -> bool {
        let matching = self.matching(path, kind);
        let mut removed = false;
        for id in matching {
            let Some((mut fut, waker, _)) = self.pending.remove(&id) else {
                continue;
            };
            match fut.as_mut().poll(&mut Context::from_waker(&waker)) {
                Poll::Ready(e) => self.ready.push(e),
                Poll::Pending => removed = true,
            }
        }
        removed
    }

    /// `checkWatches(path, kind)` (`removeWatches` for one watcher): whether
    /// an unfired watcher of `kind` is on `path`. The crate has no call for
    /// it, and the server only checks and keeps its watch, so the watchers
    /// are kept too and the answer comes from this table (the server holds
    /// a watch the client holds unfired). A watcher found fired on the way
    /// keeps its event for [`resolve`](Self::resolve).
    pub(super) fn contains(&mut self, path: &str, kind: WatcherType) -> bool {
        let matching = self.matching(path, kind);
        let mut found = false;
        for id in matching {
            let Some((fut, waker, _)) = self.pending.get_mut(&id) else {
                continue;
            };
            if let Poll::Ready(e) = fut.as_mut().poll(&mut Context::from_waker(waker)) {
                self.pending.remove(&id);
                self.ready.push(e);
            } else {
                found = true;
            }
        }
        found
    }
}
