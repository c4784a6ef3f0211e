//! `timed-wait` — source 000 (`ZookeeperLookService.attemptLock`), the first
//! draft with the article's *other* fix, "解决方案二: wait方法设置等待时间,
//! 防止发生死锁" (give `wait` a timeout, so it cannot deadlock):
//!
//! ```java
//! Stat stat = zkClient.exists(LOCK_ROOT_PATH + "/" + preCurrentLockPath, watcher);
//! if (stat != null) {
//!     synchronized (watcher) { watcher.wait(millis); }
//! }
//! attemptLock();
//! ```
//!
//! The article shows only the first fix's code (see
//! [`fixed_wait`](super::fixed_wait)) and names no timeout; this recipe
//! waits [`WAIT_MS`](super::seed000::WAIT_MS).
//!
//! **Claims:** the lost wake-up of [`racy_wait`](super::racy_wait) can no
//! longer deadlock: a waiter whose notification came before its `wait`
//! sleeps until the timeout, then `attemptLock()` re-reads the children.
//! The checker lets a timeout come at any moment (Java's `wait(long)` does
//! not say whether it timed out, so the recipe cannot tell either). What
//! the fix costs — a stall of up to the timeout for every lost wake-up —
//! shows in the simulator's latency, not in a verdict. The code is in
//! [`seed000`](super::seed000).

use super::seed000::{Draft, Seed000};
use crate::zk::client::step::RecipeConfig;

pub fn new(_cfg: RecipeConfig) -> Seed000 {
    Seed000::new(Draft::Timed)
}
