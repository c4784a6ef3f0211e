//! The client library a recipe runs on, as a set of declared behaviours.
//!
//! A recipe is the seed's code; what happens around it when a connection
//! drops or a session ends is its library's doing, and libraries differ.
//! Each behaviour the model follows is one switch here, and a recipe
//! declares its library ([`Recipe::library`](super::Recipe::library)), so
//! a lock written on kazoo is not checked by the Java client's rules, and
//! a trace names the library that acted.
//!
//! | switch | Java client | Curator 5.4 | kazoo 2.x |
//! |---|---|---|---|
//! | `renews_session` | no | yes | yes |
//! | `gives_up_on_session` | no | yes | no |
//! | `times_out_connecting` | no | yes | no |
//! | `states_reach_watchers` | yes | yes | no |
//! | `state_listeners` | no | yes | yes |
//! | `executors` | no | yes | no |
//! | `shares_sessions` | no | yes | no |

use serde::Serialize;

/// Connection states the client library reports: to every watcher (the
/// Java client), or to its state listeners (kazoo).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum KeeperState {
    /// The connection dropped; the library will reconnect.
    Disconnected,
    /// The library reconnected, and the session lives on.
    SyncConnected,
    /// The session is gone for good; every later call fails.
    Expired,
}

/// One ZooKeeper client library's behaviours, as the model follows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Library {
    /// The library's name in traces ("Curator: LOST").
    pub name: &'static str,
    /// After learning that its session expired, the library opens a new
    /// one and goes on: Curator's `ConnectionState.reset()` on `Expired`;
    /// kazoo's connection loop, which drops the session id on `LOST` and
    /// connects again without one ("the client will attempt to stay
    /// connected regardless of intermittent connection loss or Zookeeper
    /// session expiration", kazoo's basic usage). The Java client does
    /// not: every later call fails with `SessionExpired`.
    pub renews_session: bool,
    /// The library gives up on a session by itself, on the client's clock,
    /// while the server may still hold it: Curator's
    /// `ConnectionStateManager`, SUSPENDED for a session timeout, injects
    /// an expiry. What the `client_expiries` fault exercises; a library
    /// without it cannot suffer it.
    pub gives_up_on_session: bool,
    /// A call made while the connection is down may fail with
    /// `ConnectionLoss` before the connection is back: Curator's
    /// `ConnectionState.checkTimeouts()` (the `connection_timeouts`
    /// budget). Otherwise a call waits for the reconnect.
    pub times_out_connecting: bool,
    /// Connection states reach the watchers: every registered watcher and
    /// the handle's default watcher hear `Disconnected`, `SyncConnected`
    /// and `Expired`, and a watch set before a drop is still set after the
    /// reconnect (the Java client's `ZKWatchManager.materialize` for
    /// `EventType.None`, and `SetWatches`). kazoo has no default watcher:
    /// its `_reset_watchers()`, on SUSPENDED and on LOST, fires every data
    /// and child watcher once with an event of type `NONE` and empties the
    /// table, it sends no `SetWatches`, and a reconnect reaches only its
    /// state listeners.
    pub states_reach_watchers: bool,
    /// The application can register a listener for the library's
    /// connection states (Curator's `ConnectionStateListener`, kazoo's
    /// `add_listener`): the recipe's
    /// [`connection_state`](super::Recipe::connection_state) hears them.
    /// The Java client has only its default watcher.
    pub state_listeners: bool,
    /// The library runs threads of its own besides the event thread:
    /// Curator's safe-notify executor, its background thread and the
    /// `ConnectionStateManager` that runs listeners ([`Thread::SafeNotify`],
    /// [`Thread::Background`], [`Thread::Listener`]).
    ///
    /// [`Thread::SafeNotify`]: super::Thread::SafeNotify
    /// [`Thread::Background`]: super::Thread::Background
    /// [`Thread::Listener`]: super::Thread::Listener
    pub executors: bool,
    /// Several locks of one process may run on one session, as scenarios
    /// with `shared_session = true` have it: one `CuratorFramework` is made
    /// per process and every mutex shares it, and none of Curator's
    /// recipes closes it. The seeds' Java and kazoo clients each open a
    /// session of their own and close it.
    pub shares_sessions: bool,
}

impl Library {
    /// How the library tells its watchers of `state`, for traces.
    pub fn tells(&self, state: KeeperState) -> String {
        let name = match state {
            KeeperState::Disconnected => "Disconnected",
            KeeperState::SyncConnected => "SyncConnected",
            KeeperState::Expired => "Expired",
        };
        if self.states_reach_watchers {
            return format!("every watcher hears {name}");
        }
        match state {
            KeeperState::Disconnected => format!(
                "{}: SUSPENDED, each watcher fires once and is forgotten",
                self.name
            ),
            KeeperState::SyncConnected => format!("{}: CONNECTED, no watcher hears it", self.name),
            KeeperState::Expired => format!(
                "{}: LOST, each watcher fires once and is forgotten",
                self.name
            ),
        }
    }

    /// Apache ZooKeeper's Java client (3.8), used directly.
    pub const JAVA: Library = Library {
        name: "the Java client",
        renews_session: false,
        gives_up_on_session: false,
        times_out_connecting: false,
        states_reach_watchers: true,
        state_listeners: false,
        executors: false,
        shares_sessions: false,
    };

    /// Apache Curator 5.4 on the Java client.
    pub const CURATOR: Library = Library {
        name: "Curator",
        renews_session: true,
        gives_up_on_session: true,
        times_out_connecting: true,
        states_reach_watchers: true,
        state_listeners: true,
        executors: true,
        shares_sessions: true,
    };

    /// kazoo 2.x, Python.
    pub const KAZOO: Library = Library {
        name: "kazoo",
        renews_session: true,
        gives_up_on_session: false,
        times_out_connecting: false,
        states_reach_watchers: false,
        state_listeners: true,
        executors: false,
        shares_sessions: false,
    };
}
