//! `try-once` — source 002's kazoo lock, `ZKClient.cluster_lock` (lines
//! 96–127): one attempt, no watch; a client that is not first deletes its
//! node and returns `False`, and the caller polls.
//!
//! ```python
//! def _create_temporary_seq_node(self):                      # 96-101
//!     re = self._client.create(self.lock_path, makepath=True, ephemeral=True, sequence=True)
//!     return re
//! def cluster_lock(self, flag):                              # 107-127
//!     seq_path = self._create_temporary_seq_node()
//!     childs = self._ls_nodes("/locks")                      # get_children; errors re-raised as ZkError
//!     my_id = int(seq_path[self.lock_path.index("-") + 1:])
//!     min_id = -1
//!     for child in childs:
//!         child_id = int(child.split("-")[1])
//!         if min_id == -1 or child_id < min_id:
//!             min_id = child_id
//!     if my_id == min_id:
//!         return True
//!     else:
//!         self._client.delete(seq_path)
//!         return False
//! def close(self):                                           # 90-93
//!     self._client.stop(); self._client.close()
//! ```
//!
//! The seed's driver (lines 134–153) polls `cluster_lock` for A, B and C
//! one after another in one thread, every 5 s, inside `while True`, and
//! releases A's lock with `zk_A.close()` ("A断开意味着A释放了锁"). Here A, B
//! and C are **concurrent clients**, each its own process with its own
//! session: each polls `cluster_lock()` until it returns `True` (the
//! harness's "the caller tries again", [`Step::GaveUp`]), holds, and
//! releases with `close()`, as A does. (The seed's loop also calls
//! `cluster_lock` again for a client that already holds — that call's
//! node is never the lowest, so it is deleted at once; a client here stops
//! polling once it holds.) `makepath=True` never creates anything: the
//! drivers create `/locks` before the clients start.
//!
//! The seed has no `except`. An exception (`ConnectionLoss` from
//! `create`, the `ZkError` `_ls_nodes` raises) ends the script, and a
//! kazoo client sends no closeSession when its process exits: its node
//! stays until the server times the session out
//! ([`exception_ends_process`](crate::zk::client::Recipe::exception_ends_process)).
//! The common service variant catches and retries — `try-once-retry`
//! ([`super::try_once_retry`]), the same code with the caller's
//! `except`.
//!
//! `seq_path` is a local of `cluster_lock`; the model keeps it while the
//! lock is held, since that node is the lock the holder's `close()`
//! releases, and drops it when `cluster_lock` gives up or throws.
//!
//! **Claims:** mutual exclusion — only the lowest node holds, and a client
//! that is not lowest withdraws its node. **Holds** that, exhaustively with
//! the sequence-suffix abstraction (without it polling never repeats a
//! state): `scenarios/try-once.toml`, 2 clients × 1 acquisition, holds in
//! 232 states, starvation included (the simulator: 5 clients, 300 seeds,
//! nothing). **Costs** a livelock: after the holder leaves, two pollers can
//! each read the children while the other's node is still there and lower,
//! withdraw, and try again, forever (`try-once-livelock.toml`, 3 clients:
//! starvation, 40 steps, 5,386 states; a cycle of probability zero, which
//! the simulator's 300 seeds do not show).
//!
//! **Breaks** (exploration, 2 clients × 1 unless said): a second round —
//! `close()` ended the session, so the next `create` raises and the script
//! ends (`try-once-rounds.toml`, 2 × 2: thread died, 14 steps; no client
//! survives its second round, so there is no livelock at 2 × 2); the
//! holder's session expiring while it holds (mutual exclusion, 15 steps);
//! a connection loss (thread died, 3 steps — and nothing else: the script
//! ends, and its node goes when the server times the session out).
//! A waiter expiry, a disconnect or a crash breaks nothing at 2 clients
//! (a poller is never parked; the others only wait longer).

use crate::zk::client::children::create_own;
use crate::zk::client::library::Library;
use crate::zk::client::lock_loop::Lock;
use crate::zk::client::step::{act, call, release, Action, RecipeConfig, Resume, Step};
use crate::zk::{Name, Op, OpResult, Reply};

pub const ROOT: &str = "/locks";
/// `self.lock_path`.
const LOCK_PATH: &str = "/locks/lock-";

/// Which call of `cluster_lock` the main thread waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Call {
    /// Not inside `cluster_lock`.
    Start,
    /// `_create_temporary_seq_node()` sent.
    Create,
    /// `_ls_nodes("/locks")` sent.
    LsNodes,
    /// `self._client.delete(seq_path)` sent.
    Delete,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TryOnce {
    call: Call,
    seq_path: Name,
    /// The caller catches every exception and calls `cluster_lock` again
    /// (`try-once-retry`).
    retry: bool,
}

pub fn new(_cfg: RecipeConfig) -> TryOnce {
    TryOnce {
        call: Call::Start,
        seq_path: Name::default(),
        retry: false,
    }
}

/// The service variant: the caller's `except` retries.
pub fn new_retrying(cfg: RecipeConfig) -> TryOnce {
    TryOnce {
        retry: true,
        ..new(cfg)
    }
}

/// `int(seq_path[self.lock_path.index("-") + 1:])`.
fn my_id(seq_path: &str) -> Option<i64> {
    let from = LOCK_PATH.find('-')? + 1;
    seq_path.get(from..)?.parse().ok()
}

/// The loop over `childs`: `int(child.split("-")[1])`, the lowest kept;
/// `-1` when there are none; `None` where `split` or `int` raises.
fn min_id(childs: &[Name]) -> Option<i64> {
    let mut min_id = -1;
    for child in childs {
        let child_id: i64 = child.split('-').nth(1)?.parse().ok()?;
        if min_id == -1 || child_id < min_id {
            min_id = child_id;
        }
    }
    Some(min_id)
}

impl TryOnce {
    /// An exception leaves `cluster_lock`: the script ends — or, with
    /// the caller's `except`, `cluster_lock` is called again.
    fn raise(&mut self, name: &'static str, code: &'static str) -> Action {
        self.seq_path = Name::default();
        if self.retry {
            act(
                Step::GaveUp,
                "except: the caller calls cluster_lock() again",
            )
        } else {
            act(Step::Throw(name), code)
        }
    }

    fn failed(&mut self, reply: &Reply, code: &'static str) -> Action {
        let name = match reply {
            Err(e) => e.name(),
            Ok(_) => "UnexpectedReply",
        };
        self.raise(name, code)
    }

    /// After `_ls_nodes`: the ids, the comparison.
    fn compare(&mut self, childs: &[Name]) -> Action {
        match (my_id(&self.seq_path), min_id(childs)) {
            (Some(my_id), Some(min_id)) if my_id == min_id => {
                self.call = Call::Start;
                act(Step::Acquired, "cluster_lock: my_id == min_id: return True")
            }
            (Some(_), Some(_)) => {
                self.call = Call::Delete;
                call(
                    Op::delete(self.seq_path.clone(), -1),
                    None,
                    "cluster_lock: my_id != min_id: self._client.delete(seq_path)",
                )
            }
            _ => self.raise("ValueError", "cluster_lock: int(...) raises ValueError"),
        }
    }
}

impl Lock for TryOnce {
    const OWNS_A_NODE: bool = true;

    const LIBRARY: Library = Library::KAZOO;

    fn own_node(&self) -> Option<&str> {
        (!self.seq_path.is_empty()).then_some(self.seq_path.as_str())
    }

    const LEAVE: &'static str = "critical section done; close()";

    fn lock_root(&self) -> &'static str {
        ROOT
    }

    fn lock(&mut self, r: Resume) -> Action {
        match (self.call, r.into_reply()) {
            (Call::Start, _) => {
                self.call = Call::Create;
                create_own(
                    LOCK_PATH,
                    "cluster_lock: seq_path = create(lock_path, makepath=True, ephemeral=True, sequence=True)",
                )
            }
            (Call::Create, Some(Ok(OpResult::Created(p)))) => {
                self.seq_path = p;
                self.call = Call::LsNodes;
                call(
                    Op::get_children(ROOT, false),
                    None,
                    "cluster_lock: childs = self._ls_nodes(\"/locks\")",
                )
            }
            (Call::LsNodes, Some(Ok(OpResult::GetChildren { children, .. }))) => {
                self.compare(&children)
            }
            (Call::LsNodes, Some(_)) => self.raise(
                "ZkError",
                "_ls_nodes: except Exception as e: raise ZkError(...) escapes",
            ),
            (Call::Delete, Some(Ok(_))) => {
                self.call = Call::Start;
                self.seq_path = Name::default();
                act(Step::GaveUp, "cluster_lock: return False")
            }
            (_, Some(reply)) => self.failed(&reply, "KazooException escapes cluster_lock"),
            (call, None) => unreachable!("cluster_lock resumed without a reply at {call:?}"),
        }
    }

    /// The loop calls `cluster_lock()` from the top next time.
    fn rewind(&mut self) {
        self.call = Call::Start;
    }

    fn unlock(&mut self) -> Action {
        release(
            Op::CloseSession,
            "close: self._client.stop(); self._client.close()",
        )
    }

    /// Never called: the seed registers no watcher and no listener, and
    /// kazoo has no default watcher, so a connection-state change reaches
    /// only kazoo's own log.
    fn on_event(&mut self, _: Resume) -> Action {
        act(Step::Return, "no watcher: kazoo logs the state change")
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        f(&self.seq_path);
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        f(&mut self.seq_path);
    }

    fn exception_ends_process(&self) -> bool {
        !self.retry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_read_as_the_seed_reads_them() {
        assert_eq!(my_id("/locks/lock-0000000007"), Some(7));
        let childs = [Name::from("lock-0000000009"), Name::from("lock-0000000003")];
        assert_eq!(min_id(&childs), Some(3));
        assert_eq!(min_id(&[]), Some(-1));
        assert_eq!(min_id(&[Name::from("odd")]), None);
    }
}
