//! A session's keep-alive goroutine (clientv3 `lease.go`), one thread per
//! client of `locksmith real --etcd`: a `LeaseKeepAlive` every TTL / 3 for
//! the client's current lease. The client learns its session is gone
//! (`Session.Done()` closes) when a keep-alive answers TTL 0 or "lease not
//! found", or when it has had no answer for a whole TTL — clientv3's own
//! rule (its last keep-alive response + TTL), so the server has always
//! expired the lease first.

use super::wire::Gateway;
use locksmith_model::etcd::{EtcdError, LeaseId, Reply, Request};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the client's recipe and its keep-alive thread share.
#[derive(Debug)]
pub struct Session {
    /// The lease the recipe's session runs on (`None` before the first).
    lease: Option<LeaseId>,
    alive: bool,
    last_answer: Instant,
}

/// One client's session, shared with its keep-alive thread.
#[derive(Clone, Debug)]
pub struct Shared(Arc<Mutex<Session>>);

impl Shared {
    pub fn new() -> Shared {
        Shared(Arc::new(Mutex::new(Session {
            lease: None,
            alive: false,
            last_answer: Instant::now(),
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Session> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The recipe's session is `lease` now: a new one is alive from its
    /// grant on.
    pub fn follow(&self, lease: Option<LeaseId>) {
        let mut s = self.lock();
        if s.lease != lease {
            s.lease = lease;
            s.alive = lease.is_some();
            s.last_answer = Instant::now();
        }
    }

    /// `lease` is the session's and its `Done()` has not closed.
    pub fn alive(&self, lease: Option<LeaseId>) -> bool {
        let s = self.lock();
        lease.is_some() && s.lease == lease && s.alive
    }
}

/// Starts client `c`'s keep-alive thread: until `stop`, a keep-alive every
/// `ttl` / 3 for the session's current lease; `sent` counts them.
pub fn start(
    g: Gateway,
    session: Shared,
    ttl: Duration,
    stop: Arc<AtomicBool>,
    sent: Arc<AtomicU64>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let every = ttl / 3;
        let mut next = Instant::now() + every;
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
            if Instant::now() < next {
                continue;
            }
            next += every;
            let Some(id) = session.lock().lease else {
                continue;
            };
            let answer = g.call(&Request::KeepAlive(id));
            sent.fetch_add(1, Ordering::Relaxed);
            let mut s = session.lock();
            if s.lease != Some(id) {
                continue;
            }
            match answer {
                Ok(Reply::KeptAlive { ttl, .. }) if ttl > 0 => s.last_answer = Instant::now(),
                Ok(Reply::KeptAlive { .. }) | Ok(Reply::Error(EtcdError::LeaseNotFound)) => {
                    s.alive = false
                }
                _ => {}
            }
            // No answer: Done() closes a TTL after the last one.
            if s.last_answer.elapsed() >= ttl {
                s.alive = false;
            }
        }
    })
}
