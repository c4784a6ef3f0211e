//! `fixed-wait` — source 000 (`ZookeeperLookService.attemptLock`, final draft,
//! "解决方案一"), after Curator's `LockInternals.internalLockLoop`:
//!
//! ```java
//! synchronized (watcher) {
//!     Stat stat = zkClient.exists(LOCK_ROOT_PATH + "/" + preCurrentLockPath, watcher);
//!     if (stat != null) watcher.wait();
//! }
//! attemptLock();
//! ```
//!
//! **Claims:** no lost wake-up: the callback's `synchronized (this)` cannot
//! run `notifyAll()` until the main thread is inside `wait()` (which releases
//! the monitor). **Holds** without faults: mutual exclusion, no deadlock.
//! **Breaks** like every ZooKeeper lock without fencing when the holder's
//! session expires while it still works in its critical section. The code is
//! in [`seed000`](super::seed000).

use super::seed000::{Draft, Seed000};
use crate::zk::client::step::RecipeConfig;

pub fn new(_cfg: RecipeConfig) -> Seed000 {
    Seed000::new(Draft::Final)
}
