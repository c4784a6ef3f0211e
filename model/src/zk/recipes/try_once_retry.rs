//! `try-once-retry` — source 002's `cluster_lock` ([`super::try_once`], the
//! same code) called the way a long-running service calls it: the caller
//! catches whatever `cluster_lock` raises and calls it again.
//!
//! ```python
//! while True:
//!     try:
//!         if client.cluster_lock(flag):
//!             break
//!     except Exception:
//!         pass                    # not in the seed: the common service loop
//! ```
//!
//! The `except` makes the exception survivable, and that is what breaks
//! it: when a `create` was applied but its reply was lost with the
//! connection, `cluster_lock` raises `ConnectionLoss` before it has
//! `seq_path`; the node it created stays on the live session, nothing
//! refers to it, and the next attempt creates another. The first node is
//! the lowest, so every client — its owner included — sees it and
//! withdraws forever: an **orphaned node** (`try-once-orphan.toml`). The
//! same happens when `_ls_nodes` raises after the create (the exception
//! drops `seq_path`) or a `delete` that was never applied is lost.
//!
//! After a session expiry kazoo opens a new session
//! ([`Library::KAZOO`](crate::zk::client::Library::KAZOO)), so the retrying
//! caller's next attempt runs on it: an expiry costs it its node and a
//! retry, as a connection loss should.
//!
//! **Claims:** mutual exclusion, and that a failed attempt costs nothing
//! but a retry. **Holds** mutual exclusion; **breaks** the second claim
//! under one connection loss (orphaned node).

use super::try_once::{new_retrying, TryOnce};
use crate::zk::client::step::RecipeConfig;

pub fn new(cfg: RecipeConfig) -> TryOnce {
    new_retrying(cfg)
}
