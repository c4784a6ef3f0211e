//! `racy-wait` — source 000 (`ZookeeperLookService.attemptLock`, first draft,
//! the section "锁获取 / 问题"):
//!
//! ```java
//! Stat stat = zkClient.exists(LOCK_ROOT_PATH + "/" + preCurrentLockPath, watcher);
//! if (stat != null) {
//!     synchronized (watcher) { watcher.wait(); }
//! }
//! attemptLock();
//! ```
//!
//! **Claims:** a waiter sleeps until its predecessor's node is deleted, then
//! re-checks. **Breaks without any fault:** the watch is set by `exists`, but
//! the monitor is only taken afterwards. If the predecessor releases in
//! between, the event thread runs `synchronized (this) { notifyAll(); }`
//! while nobody waits — the notification is lost — and the main thread then
//! enters `wait()` with the watch already spent: it sleeps forever (a lost
//! wake-up, then a deadlock for every client queued behind it). The seed's
//! author saw it only by reading Curator's source; five local threads never
//! showed it. The code is in [`seed000`](super::seed000).

use super::seed000::{Draft, Seed000};
use crate::zk::client::step::RecipeConfig;

pub fn new(_cfg: RecipeConfig) -> Seed000 {
    Seed000::new(Draft::First)
}
