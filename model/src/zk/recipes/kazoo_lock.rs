//! `kazoo-lock` — kazoo 2.11's `kazoo.recipe.lock.Lock`, as its
//! documentation uses it (`with zk.Lock("/lockpath", "id"):`), on kazoo's
//! own client rules ([`Library::KAZOO`]). Not a seed: the library the
//! seeds' Python users reach for instead of source 002's `cluster_lock`,
//! and the one `clients/kazoo/lock.py` runs unmodified against
//! `locksmith serve`. Read from kazoo 2.11.0's `kazoo/recipe/lock.py`
//! (`Lock.acquire` 141–205, `_inner_acquire` 211–266, `_get_predecessor`
//! 271–309, `_find_node` 311–316, `_best_effort_cleanup` 321–327,
//! `release` 329–344) and `kazoo/retry.py` (`KazooRetry`):
//!
//! ```python
//! self.prefix = uuid.uuid4().hex + "__lock__"      # one per Lock object
//! self._retry = KazooRetry(max_tries=None)          # retries ConnectionLoss,
//!                                                   # OperationTimeout, ForceRetry
//!                                                   # and SessionExpired, forever
//! def _inner_acquire(self, blocking, timeout, ephemeral=True):
//!     if self.is_acquired: raise ForceRetryError()
//!     if not self.assured_path: self._ensure_path()  # exists(path)
//!     node = None
//!     if self.create_tried: node = self._find_node() # get_children, prefix
//!     else: self.create_tried = True
//!     if not node:
//!         node = self.client.create(self.create_path, self.data,
//!                                   ephemeral=ephemeral, sequence=True)
//!         node = node[len(self.path) + 1:]
//!     self.node = node
//!     while True:
//!         self.wake_event.clear()
//!         predecessor = self._get_predecessor(node)  # get_children; own node
//!         if predecessor is None: return True        # missing: ForceRetryError
//!         predecessor = self.path + "/" + predecessor
//!         self.client.add_listener(self._watch_session)
//!         try: self.client.get(predecessor, self._watch_predecessor)
//!         except NoNodeError: pass
//!         else: self.wake_event.wait(timeout)
//!         finally: self.client.remove_listener(self._watch_session)
//! def release(self): return self.client.retry(self._inner_release)
//! def _inner_release(self):                          # delete; NoNode passes
//! ```
//!
//! `_get_predecessor` keeps the children matching `__lock__(-?\d{10})$`
//! whose ten digits compare below its own as strings, and takes the
//! greatest; it needs its own node among the children, or it raises
//! `ForceRetryError` and the retry starts `_inner_acquire` again, which
//! finds no node by its prefix and creates a new one. Both
//! `_watch_predecessor` and `_watch_session` set `wake_event` (a Python
//! `threading.Event`: the latch here); kazoo fires every watcher with a
//! `NONE` event on SUSPENDED and LOST, and calls its listeners on every
//! state change. kazoo runs a listener on its connection thread as the
//! state changes; here `_watch_session`'s `set()` is a task of the
//! listener thread, one step later, since a step is what opens the latch
//! (the task may run at once, so no interleaving of kazoo's is lost). The
//! client's uuid here is its letter (`a__lock__`).
//!
//! **Claims:** mutual exclusion, no herd (each waiter watches only the
//! node below its own), recovery from a connection loss and from a session
//! expiry (the protected prefix, the retry that never gives up). **Breaks**
//! as every ZooKeeper lock does without a fencing token: a holder whose
//! session expires keeps believing it holds while the next client takes the
//! lock (kazoo tells only its listeners, and `with lock:` registers none).
//! The scenario files `scenarios/kazoo-lock*.toml` pin the rest.

use crate::zk::client::children::create_own;
use crate::zk::client::latch_watcher::LatchWatcher;
use crate::zk::client::library::Library;
use crate::zk::client::lock_loop::{AfterRelease, Lock};
use crate::zk::client::step::{
    act, call, release, throw, Action, KeeperState, LatchId, RecipeConfig, Resume, Step, Thread,
    WatcherId,
};
use crate::zk::{Name, Op, OpResult, Reply, ZkError};

pub const ROOT: &str = "/locks";
/// `self._NODE_NAME`.
const NODE_NAME: &str = "__lock__";
/// `self.wake_event`.
const WAKE: LatchId = 0;
/// A latch nobody counts down: a re-entrant `acquire()` spins in
/// `KazooRetry` forever.
const SPIN: LatchId = 1;
/// `self._watch_predecessor`.
const PREDECESSOR: WatcherId = 1;

/// Where the main thread is inside `acquire()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Call {
    /// The top of `_inner_acquire`.
    Start,
    /// `_ensure_path`'s `exists(path)` sent.
    EnsurePath,
    /// `_find_node`'s `get_children(path)` sent.
    FindNode,
    /// `create(create_path, ephemeral, sequence)` sent.
    Create,
    /// `wake_event.clear()` done; `_get_predecessor` next.
    Cleared,
    /// `_get_predecessor`'s `get_children(path)` sent.
    GetChildren,
    /// `get(predecessor, self._watch_predecessor)` sent.
    Get,
    /// `wake_event.wait()`.
    Wait,
    /// A KazooException the retry does not catch: `_best_effort_cleanup`'s
    /// `delete` sent; the exception escapes next.
    Cleanup(&'static str),
    /// `is_acquired` already: `ForceRetryError`, forever.
    Spin,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KazooLock {
    call: Call,
    /// The client's letter: its uuid.
    me: u8,
    assured_path: bool,
    create_tried: bool,
    is_acquired: bool,
    /// `self.node`, as a full path (empty: `None`).
    node: Name,
    /// The predecessor `get` watches.
    watched: Name,
    /// `_watch_session` is registered (between `add_listener` and
    /// `remove_listener`).
    listening: bool,
    /// The listener thread is inside `_watch_session`, after `set()`.
    in_listener: bool,
    watcher: LatchWatcher,
}

pub fn new(cfg: RecipeConfig) -> KazooLock {
    KazooLock {
        call: Call::Start,
        me: cfg.client,
        assured_path: false,
        create_tried: false,
        is_acquired: false,
        node: Name::default(),
        watched: Name::default(),
        listening: false,
        in_listener: false,
        watcher: LatchWatcher::default(),
    }
}

/// What `KazooRetry` catches and retries (`ignore_expire` is on by default).
fn retried(reply: &Reply) -> Option<&'static str> {
    match reply {
        Err(e @ (ZkError::ConnectionLoss | ZkError::SessionExpired)) => Some(e.name()),
        _ => None,
    }
}

/// A child's contender sequence: the ten digits (and sign) after
/// `__lock__` at its end, as `_contenders_re` matches them.
fn contender_sequence(child: &str) -> Option<&str> {
    let at = child.rfind(NODE_NAME)?;
    let tail = &child[at + NODE_NAME.len()..];
    let digits = tail.strip_prefix('-').unwrap_or(tail);
    (digits.len() == 10 && digits.bytes().all(|b| b.is_ascii_digit())).then_some(tail)
}

/// `_get_predecessor(node)`: `Err(())` where its own node is missing
/// (`ForceRetryError`), else the greatest contender below it, if any.
fn predecessor(children: &[Name], prefix: &str, node: &str) -> Result<Option<Name>, ()> {
    let own_sequence = node.get(prefix.len()..).unwrap_or("");
    let mut found_self = false;
    let mut best: Option<(&str, &Name)> = None;
    for child in children {
        if let Some(seq) = contender_sequence(child) {
            if seq < own_sequence && best.is_none_or(|(b, _)| seq > b) {
                best = Some((seq, child));
            }
        }
        if child.as_str() == node {
            found_self = true;
        }
    }
    if !found_self {
        return Err(());
    }
    Ok(best.map(|(_, c)| c.clone()))
}

impl KazooLock {
    /// `self.prefix`: the client's uuid, then `__lock__`.
    fn prefix(&self) -> String {
        format!("{}{NODE_NAME}", (b'a' + self.me) as char)
    }

    /// `self.node`, without the path (`node[len(self.path) + 1:]`).
    fn node_name(&self) -> &str {
        self.node
            .strip_prefix(ROOT)
            .and_then(|r| r.strip_prefix('/'))
            .unwrap_or("")
    }

    /// The top of `_inner_acquire` (again, after a retry).
    fn inner_acquire(&mut self, how: &'static str) -> Action {
        if self.is_acquired {
            self.call = Call::Spin;
            return act(
                Step::ArmLatch(SPIN),
                "_inner_acquire: is_acquired: raise ForceRetryError() (KazooRetry sleeps and tries again, forever)",
            );
        }
        if !self.assured_path {
            self.call = Call::EnsurePath;
            return call(Op::exists(ROOT, false), None, how);
        }
        self.find_or_create()
    }

    fn find_or_create(&mut self) -> Action {
        if self.create_tried {
            self.call = Call::FindNode;
            call(
                Op::get_children(ROOT, false),
                None,
                "_find_node: children = self.client.get_children(self.path)",
            )
        } else {
            self.create_tried = true;
            self.create()
        }
    }

    fn create(&mut self) -> Action {
        self.call = Call::Create;
        create_own(
            &format!("{ROOT}/{}", self.prefix()),
            "node = self.client.create(self.create_path, self.data, ephemeral=True, sequence=True)",
        )
    }

    /// The top of `while True:`.
    fn clear(&mut self) -> Action {
        self.call = Call::Cleared;
        act(Step::ArmLatch(WAKE), "while True: self.wake_event.clear()")
    }

    /// `KazooRetry` caught `name`: `_inner_acquire` again.
    fn retry(&mut self) -> Action {
        self.listening = false;
        self.call = Call::Start;
        self.inner_acquire(
            "KazooRetry catches it and calls _inner_acquire again: _ensure_path: exists(self.path)",
        )
    }

    /// A reply the retry does not catch: `_best_effort_cleanup`, then the
    /// exception escapes `acquire()`.
    fn fail(&mut self, reply: &Reply) -> Action {
        let name = match reply {
            Err(e) => e.name(),
            Ok(_) => "UnexpectedReply",
        };
        self.listening = false;
        if self.node.is_empty() {
            return throw(reply, "except KazooException: raise (nothing to clean up)");
        }
        self.call = Call::Cleanup(name);
        call(
            Op::delete(self.node.clone(), -1),
            None,
            "except KazooException: self._best_effort_cleanup(): self._delete_node(self.node)",
        )
    }
}

impl Lock for KazooLock {
    const OWNS_A_NODE: bool = true;
    const LIBRARY: Library = Library::KAZOO;
    const LEAVE: &'static str = "with lock: body done; __exit__: self.release()";

    fn own_node(&self) -> Option<&str> {
        (self.is_acquired && !self.node.is_empty()).then_some(self.node.as_str())
    }

    fn lock_root(&self) -> &'static str {
        ROOT
    }

    fn lock(&mut self, r: Resume) -> Action {
        use Call::*;
        let reply = r.into_reply();
        match (self.call, reply) {
            (Start, _) => self.inner_acquire(
                "with lock: acquire(): retry(self._inner_acquire): _ensure_path: exists(self.path)",
            ),
            (_, Some(reply)) if retried(&reply).is_some() && !matches!(self.call, Cleanup(_)) => {
                self.retry()
            }
            (EnsurePath, Some(Ok(OpResult::Exists(_)))) => {
                // The drivers create the path before the clients start.
                self.assured_path = true;
                self.find_or_create()
            }
            (FindNode, Some(Ok(OpResult::GetChildren { children, .. }))) => {
                let prefix = self.prefix();
                match children.iter().find(|c| c.starts_with(prefix.as_str())) {
                    Some(found) => {
                        self.node = format!("{ROOT}/{found}").into();
                        self.clear()
                    }
                    None => self.create(),
                }
            }
            (Create, Some(Ok(OpResult::Created(p)))) => {
                self.node = p;
                self.clear()
            }
            (Cleared, _) => {
                self.call = GetChildren;
                call(
                    Op::get_children(ROOT, false),
                    None,
                    "_get_predecessor: children = self.client.get_children(self.path)",
                )
            }
            (GetChildren, Some(Ok(OpResult::GetChildren { children, .. }))) => {
                let prefix = self.prefix();
                match predecessor(&children, &prefix, self.node_name()) {
                    Err(()) => {
                        self.call = Start;
                        self.inner_acquire(
                            "own node not among the children: raise ForceRetryError(); KazooRetry calls _inner_acquire again",
                        )
                    }
                    Ok(None) => {
                        self.is_acquired = true;
                        act(
                            Step::Acquired,
                            "no contender below: return True (self.is_acquired = True)",
                        )
                    }
                    Ok(Some(pre)) => {
                        self.watched = format!("{ROOT}/{pre}").into();
                        self.listening = true;
                        self.call = Get;
                        call(
                            Op::get_data(self.watched.clone(), true),
                            Some(PREDECESSOR),
                            "add_listener(self._watch_session); self.client.get(predecessor, self._watch_predecessor)",
                        )
                    }
                }
            }
            (Get, Some(Err(ZkError::NoNode))) => {
                self.listening = false;
                self.clear()
            }
            (Get, Some(Ok(OpResult::GetData { .. }))) => {
                self.call = Wait;
                act(Step::Await(WAKE), "else: self.wake_event.wait(timeout)")
            }
            (Wait, _) => {
                self.listening = false;
                self.clear()
            }
            (Cleanup(name), Some(_)) => {
                self.node = Name::default();
                act(Step::Throw(name), "the KazooException escapes acquire()")
            }
            (Spin, _) => act(Step::Await(SPIN), "ForceRetryError, retried forever"),
            (_, Some(reply)) => self.fail(&reply),
            (call, None) => unreachable!("acquire() resumed without a reply at {call:?}"),
        }
    }

    fn rewind(&mut self) {
        self.call = Call::Start;
        self.watched = Name::default();
    }

    fn unlock(&mut self) -> Action {
        release(
            Op::delete(self.node.clone(), -1),
            "release(): self.client.retry(self._inner_release): self._delete_node(self.node)",
        )
    }

    /// `client.retry` retries a lost connection or session; `NoNodeError`
    /// passes; then `is_acquired = False`, `node = None`.
    fn after_release(&mut self, resume: Resume) -> AfterRelease {
        match resume.into_reply() {
            Some(reply) if retried(&reply).is_some() => AfterRelease::Next(release(
                Op::delete(self.node.clone(), -1),
                "KazooRetry catches it: _inner_release again: self._delete_node(self.node)",
            )),
            Some(Ok(_)) | Some(Err(ZkError::NoNode)) | None => {
                self.is_acquired = false;
                self.node = Name::default();
                AfterRelease::Done
            }
            Some(reply) => AfterRelease::Next(throw(&reply, "release(): KazooException escapes")),
        }
    }

    /// The handler thread runs `_watch_predecessor(event)`:
    /// `self.wake_event.set()` (a node event, or kazoo's `NONE` event on
    /// SUSPENDED and LOST).
    fn on_event(&mut self, r: Resume) -> Action {
        self.watcher.step(r, PREDECESSOR, WAKE)
    }

    /// kazoo calls its listeners on every state change; `_watch_session`
    /// is registered only while the main thread waits on its predecessor.
    /// It returns `True`, so kazoo removes it once it has run.
    fn connection_state(&mut self, _state: KeeperState) -> bool {
        std::mem::take(&mut self.listening)
    }

    /// `_watch_session(state)`: `self.wake_event.set(); return True`.
    fn on_task(&mut self, thread: Thread, _resume: Resume) -> Action {
        if thread != Thread::Listener {
            return act(Step::Return, "no task");
        }
        if self.in_listener {
            self.in_listener = false;
            return act(Step::Return, "_watch_session returns True");
        }
        self.in_listener = true;
        act(
            Step::CountDown(WAKE),
            "_watch_session(state): self.wake_event.set()",
        )
    }

    /// `_find_node` looks for the prefix on every retry: a node of this
    /// client's is found by it, not forgotten.
    fn claims(&self, path: &str) -> bool {
        path.strip_prefix(ROOT)
            .and_then(|r| r.strip_prefix('/'))
            .is_some_and(|child| child.starts_with(self.prefix().as_str()))
    }

    fn paths(&self, f: &mut dyn FnMut(&Name)) {
        f(&self.node);
        f(&self.watched);
    }

    fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        f(&mut self.node);
        f(&mut self.watched);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<Name> {
        v.iter().map(|&n| Name::from(n)).collect()
    }

    #[test]
    fn the_predecessor_is_the_greatest_contender_below_its_own_sequence() {
        let children = names(&[
            "b__lock__0000000003",
            "a__lock__0000000005",
            "c__lock__0000000001",
            "readme",
        ]);
        assert_eq!(
            predecessor(&children, "a__lock__", "a__lock__0000000005"),
            Ok(Some(Name::from("b__lock__0000000003")))
        );
        assert_eq!(
            predecessor(&children, "c__lock__", "c__lock__0000000001"),
            Ok(None)
        );
        assert_eq!(
            predecessor(&children, "d__lock__", "d__lock__0000000009"),
            Err(())
        );
        assert_eq!(contender_sequence("x__lock__-000000001"), None);
        assert_eq!(
            contender_sequence("x__lock__-0000000001"),
            Some("-0000000001")
        );
    }
}
