//! What one exhaustive check explores: the recipe, how many clients, how
//! many acquisitions each, which faults may strike and how often, and the
//! bounds that make a run end early (as `incomplete`, never as `holds`).

use crate::engine::fault_budget::fault_budget;
use crate::engine::harness::Writes;
use crate::zk::client::{Recipe, RecipeConfig};
use crate::zk::recipes::RecipeId;

fault_budget! {
    /// How many times each fault may strike in one run.
    ///
    /// The scenario file's `[faults]` table reads into it by these field
    /// names (a key it does not name is an error listing them).
    pub struct FaultBudget {
        /// The server expires the session of a client parked waiting for the
        /// lock — its main thread in `wait()` or `await()` (its heartbeats
        /// stopped for the timeout).
        waiter_expiries,
        /// The server expires the session of a client that believes it holds
        /// the lock (a GC pause, a partition), while it is still in its
        /// critical section.
        holder_expiries,
        /// A client's connection drops while a request is in flight; the request
        /// may or may not have been applied.
        connection_losses,
        /// A client's connection drops with no request in flight, and the
        /// library reconnects later (not a fault: any time): every registered
        /// watcher hears `Disconnected`, then `SyncConnected`.
        disconnects,
        /// The server expires the session of any client that is not done, at
        /// any step (the holder's and the parked waiter's included).
        expiries,
        /// A client process crashes at any step: its threads stop, and the
        /// server expires its session later (a fair transition, not a fault).
        crashes,
        /// UNSAFE — ZooKeeper never does it: a reply or event of a session
        /// overtakes the one queued before it. Shows which recipes rely on
        /// per-session FIFO order.
        reorders,
        /// The client library gives up on its session by itself and opens a
        /// new one before the server expires the old one (only a library that
        /// renews sessions does: Curator). At any step of a client not done:
        /// its connection stops answering (a one-way partition, a paused
        /// server); after a session timeout by the client's clock the library
        /// gives up (a timer that follows, not a fault); the server expires the
        /// old session later still (likewise).
        client_expiries,
        /// The same, striking a client parked waiting for the lock (its main
        /// thread in `wait()`), as in CURATOR-604's reports.
        waiter_client_expiries,
        /// A disconnect outlasts the library's connection timeout (only a
        /// library that stops waiting for the connection does: Curator,
        /// `ConnectionState.checkTimeouts()`, 15 s by default): a call made
        /// while the connection is down fails with `ConnectionLoss` before it
        /// is sent. One of the budget per failed call. Like
        /// `client_expiries`, it is how long an outage lasts, budgeted so that
        /// a scenario says whether its outages are short (0, every call waits
        /// for the reconnect) or long.
        connection_timeouts,
        /// The server stops and later starts again with its state (its data,
        /// sessions and ephemeral nodes restored from its log, as ZooKeeper's
        /// do): every connection drops at once — requests not yet applied are
        /// never applied, replies not yet read are lost — and nothing reaches
        /// the server until it is back; the start follows at any moment (not a
        /// fault). No session expires while it is down: ZooKeeper restores
        /// sessions with their timeouts started afresh, and a library that
        /// waits for its connection (the plain Java client, kazoo) reconnects
        /// on the same session.
        server_restarts,
        /// The same, down for longer than a session timeout: a library that
        /// gives up on a suspended session by its own clock (Curator) may do
        /// so while the server is down (not a fault: it follows), and opens a
        /// new session once it is back, while the restored server still holds
        /// the old one.
        long_server_restarts,
    }
}

impl FaultBudget {
    /// Server stops still allowed, short and long together.
    pub fn restarts(&self) -> u8 {
        self.server_restarts
            .saturating_add(self.long_server_restarts)
    }
}

/// The most clients the checker explores (the engine's bound).
pub use crate::engine::space::MAX_CLIENTS;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckConfig {
    pub recipe: RecipeId,
    pub clients: u8,
    pub acquisitions: u8,
    /// Re-entrant `lock()` calls per round (see
    /// [`RecipeConfig::reentries`](crate::zk::client::step::RecipeConfig::reentries)).
    pub reentries: u8,
    /// Curator's `acquire(time, unit)` instead of `acquire()` (see
    /// [`RecipeConfig::acquire_timeout_ms`](crate::zk::client::step::RecipeConfig::acquire_timeout_ms)).
    pub acquire_timeout_ms: Option<u32>,
    pub faults: FaultBudget,
    /// Stop after this many distinct states.
    pub max_states: usize,
    /// Stop when the checker's tables (visited set, parent pointers, BFS
    /// queue, kept graph) are estimated to exceed this many bytes.
    pub max_memory: usize,
    /// States this many steps from the initial state are judged but not
    /// expanded.
    pub max_depth: usize,
    /// Stop after this much wall-clock time (a benchmark's bound: where it
    /// stops depends on the machine, so no test pins a run that hits it).
    pub max_time: Option<std::time::Duration>,
    /// Keep the state graph for the starvation (cycle) analysis.
    pub starvation: bool,
    /// Treat the clients as interchangeable (they all run the same recipe).
    pub symmetry: bool,
    /// States that differ only in sequence suffixes and unread zxids are one
    /// state (see [`sequences`](super::sequences)).
    pub abstract_sequences: bool,
    /// Partial-order reduction: where one client's next steps touch only
    /// that client and change nothing a property reads, only they are
    /// expanded (see [`por`](super::por)). Off by default: it can lengthen
    /// a counterexample.
    pub por: bool,
    /// Explore with every dead value kept (see
    /// [`RecipeConfig::keep_dead_values`](crate::zk::client::step::RecipeConfig::keep_dead_values)):
    /// the tests' way to explore without that reduction. No scenario key
    /// or flag sets it.
    pub keep_dead_values: bool,
    /// The recipe creates its lock root itself (the seeds' exists-then-create,
    /// scenario key `root = "recipe"`); otherwise the drivers create it,
    /// persistent, before the clients start.
    pub recipe_root: bool,
    /// Threads that expand states. Verdicts, traces, counts and bounds are
    /// the same for any number.
    pub jobs: usize,
    /// The critical section writes to a protected resource, fenced or
    /// guarded (scenario keys `fencing`, `guarded`; see
    /// [`resource`](super::resource)).
    pub writes: Writes,
    /// Every client is one acquiring thread of a single process, with its
    /// own mutex object, and all of them share that process's ZooKeeper
    /// session and connection (scenario key `shared_session`: Curator's
    /// own lock tests, several `InterProcessMutex` objects on one
    /// `CuratorFramework`). What happens to a session or a connection
    /// happens to every client at once; see [`System`](super::System).
    pub shared_session: bool,
}

impl CheckConfig {
    /// Why the checker cannot explore this configuration, if it cannot.
    pub fn validate(&self) -> Result<(), String> {
        if self.clients == 0 || self.clients > MAX_CLIENTS {
            return Err(format!(
                "the checker explores 1 to {MAX_CLIENTS} clients, this asks for {} (set `[check] clients` in the scenario or pass --clients)",
                self.clients
            ));
        }
        if self.acquisitions == 0 {
            return Err("acquisitions must be at least 1".into());
        }
        self.validate_writes()?;
        self.validate_shared_session()
    }

    /// Why the clients cannot share one session, if they cannot: only a
    /// library that keeps its session for the whole process (Curator, which
    /// never closes it in a recipe and opens the next one for every mutex
    /// at once) runs several mutexes on one session here.
    pub fn validate_shared_session(&self) -> Result<(), String> {
        if self.shared_session
            && !self
                .recipe
                .instantiate(RecipeConfig::new(1, 0))
                .library()
                .shares_sessions
        {
            let sharing: Vec<&str> = RecipeId::ALL
                .iter()
                .filter(|r| {
                    r.instantiate(RecipeConfig::new(1, 0))
                        .library()
                        .shares_sessions
                })
                .map(|r| r.name())
                .collect();
            return Err(format!(
                "shared_session = true with recipe `{}`: expected a Curator recipe ({}): the seeds' own clients each open and close a session of their own",
                self.recipe,
                sharing.join(", ")
            ));
        }
        Ok(())
    }

    /// Why the resource's settings do not fit the recipe, if they do not.
    pub fn validate_writes(&self) -> Result<(), String> {
        let key = match self.writes {
            Writes::Off | Writes::Plain => return Ok(()),
            Writes::Fenced => "fencing",
            Writes::Guarded => "guarded",
        };
        if !self
            .recipe
            .instantiate(RecipeConfig::new(1, 0))
            .owns_a_node()
        {
            return Err(format!(
                "{key} = true: recipe `{}` names no lock node of its own to take a token from or to guard a write with: expected a recipe whose holder owns its lock node",
                self.recipe
            ));
        }
        Ok(())
    }

    pub fn new(recipe: RecipeId, clients: u8, acquisitions: u8) -> Self {
        CheckConfig {
            recipe,
            clients,
            acquisitions,
            reentries: 0,
            acquire_timeout_ms: None,
            faults: FaultBudget::default(),
            max_states: 20_000_000,
            max_memory: 4 << 30,
            max_depth: usize::MAX,
            max_time: None,
            starvation: true,
            symmetry: true,
            abstract_sequences: false,
            por: false,
            keep_dead_values: false,
            recipe_root: false,
            jobs: 1,
            writes: Writes::Off,
            shared_session: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{CheckConfig, FaultBudget, MAX_CLIENTS};
    use crate::zk::recipes::RecipeId;

    /// The checker explores 1 to `MAX_CLIENTS` clients (a client is a bit
    /// of its masks) and at least one acquisition each; anything else is
    /// refused with the reason, before any state is built.
    #[test]
    fn clients_and_acquisitions_out_of_range_are_refused() {
        let valid = |clients: u8, acquisitions: u8| {
            CheckConfig::new(RecipeId::FixedWait, clients, acquisitions).validate()
        };
        assert_eq!(valid(1, 1), Ok(()));
        assert_eq!(valid(MAX_CLIENTS, 1), Ok(()));
        for clients in [0, MAX_CLIENTS + 1] {
            let e = valid(clients, 1).expect_err("out of range");
            assert!(e.contains(&format!("this asks for {clients}")), "{e}");
        }
        assert_eq!(
            valid(2, 0),
            Err("acquisitions must be at least 1".to_string())
        );
    }

    /// `locksmith recipes` and the comparison's cells print the budgets by
    /// these names: the scenario file's `[faults]` keys, in its order.
    #[test]
    fn each_budget_is_listed_under_its_scenario_key_in_file_order() {
        let budget = FaultBudget {
            waiter_expiries: 1,
            holder_expiries: 2,
            connection_losses: 3,
            disconnects: 4,
            expiries: 5,
            crashes: 6,
            reorders: 7,
            client_expiries: 8,
            waiter_client_expiries: 9,
            connection_timeouts: 10,
            server_restarts: 11,
            long_server_restarts: 12,
        };
        let keys: Vec<&str> = budget.by_key().iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            [
                "waiter_expiries",
                "holder_expiries",
                "connection_losses",
                "disconnects",
                "expiries",
                "crashes",
                "reorders",
                "client_expiries",
                "waiter_client_expiries",
                "connection_timeouts",
                "server_restarts",
                "long_server_restarts",
            ]
        );
        let values: Vec<u8> = budget.by_key().iter().map(|(_, n)| *n).collect();
        assert_eq!(values, (1..=12).collect::<Vec<u8>>());
    }
}
