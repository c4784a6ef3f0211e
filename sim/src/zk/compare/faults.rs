//! ZooKeeper's fault classes in the comparison: one registry, [`FAULTS`].
//! A row names the class, says which driver judges it and how it changes
//! a recipe's comparison configuration; the matrix, the JSON and the
//! pages are drawn from this table, so a new class is one new row here.
//!
//! Classes the design lists that neither driver models yet are named in
//! [`NOT_MODELLED`], so the report says so instead of leaving them out
//! silently.

use super::cell_config::CellConfig;
use crate::matrix::axes::Driver;
use crate::zk::sim_settings::{FaultKind, ScheduledFault, Target, TargetName};
use locksmith_model::engine::harness::Writes;
use locksmith_model::zk::client::{Recipe, RecipeConfig};
use locksmith_model::zk::recipes::RecipeId;

/// One column of the matrix.
pub struct FaultClass {
    /// As `--faults` and file names spell it.
    pub id: &'static str,
    /// As the report's column header reads.
    pub label: &'static str,
    pub driver: Driver,
    /// The legend's sentence: what strikes, when, how often.
    pub about: &'static str,
    /// Turns the recipe's comparison configuration into this class's.
    pub apply: fn(&mut CellConfig),
}

/// A holder fault of the simulator, scheduled once, 5 ms into the run (the
/// first holder after that is struck).
fn at_holder(c: &mut CellConfig, fault: FaultKind, fencing: bool) {
    // Critical sections of 1.75-1.875 session timeouts: the server expires
    // a silent session on the first tick after its last packet plus the
    // timeout — within 1.5 timeouts at 4 s and 2 s ticks — so a holder
    // paused or cut off early in its critical section is still inside it
    // when its session expires: the stale holder the column names. With the 2-4 ms these
    // columns once used, a partitioned holder was already releasing when
    // its session expired: the column tested a partition during release.
    let t = c.sim.negotiated_timeout_ms();
    c.sim.hold_ms = HOLDER_FAULT_HOLD.map(|x| x * t);
    // Every critical section is that long: the liveness limit grows with
    // them (60 s and 2 s per acquisition, the default, plus the holds).
    let acquisitions = f64::from(c.clients) * f64::from(c.acquisitions);
    c.sim.limit_ms = Some(60_000.0 + acquisitions * (2_000.0 + c.sim.hold_ms[1]));
    c.sim.fencing = fencing;
    let duration_ms = (fault != FaultKind::Expire).then_some(t * 1.5);
    c.sim.schedule = vec![ScheduledFault {
        at_ms: 5.0,
        fault,
        target: Target::Named(TargetName::Holder),
        duration_ms,
        applied: false,
    }];
}

/// A holder column's critical section, in session timeouts.
pub const HOLDER_FAULT_HOLD: [f64; 2] = [1.75, 1.875];

/// Whether `recipe`'s holder names a lock node of its own (what a guarded
/// write checks).
fn owns_a_node(recipe: RecipeId) -> bool {
    recipe.instantiate(RecipeConfig::new(1, 0)).owns_a_node()
}

/// Fault classes ZooKeeper never produces (shown in the matrix to say
/// which recipes rely on the guarantee they break): the answer leaves them
/// out (`crate::compare::answer`).
pub const NEVER_BY_THE_SERVER: &[&str] = &["reorder"];

/// Every fault class, in the matrix's column order.
pub static FAULTS: &[FaultClass] = &[
    FaultClass {
        id: "none",
        label: "no fault",
        driver: Driver::Check,
        about: "no fault: every interleaving of the clients' threads and the server's steps",
        apply: |_| {},
    },
    FaultClass {
        id: "waiter-expiry",
        label: "waiter expiry",
        driver: Driver::Check,
        about: "the session of a client parked in wait()/await() expires, once, at any point it is parked",
        apply: |c| c.faults.waiter_expiries = 1,
    },
    FaultClass {
        id: "holder-expiry",
        label: "holder expiry",
        driver: Driver::Check,
        about: "the session of the client that believes it holds the lock expires inside its critical section, once (the stale holder)",
        apply: |c| c.faults.holder_expiries = 1,
    },
    FaultClass {
        id: "connection-loss",
        label: "connection loss",
        driver: Driver::Check,
        about: "a client's connection drops once with a request in flight; the checker explores both outcomes (applied with the reply lost, never applied) in one class: its fault budget does not tell them apart",
        apply: |c| c.faults.connection_losses = 1,
    },
    FaultClass {
        id: "disconnect",
        label: "disconnect",
        driver: Driver::Check,
        about: "a client's connection drops once with nothing in flight and the library reconnects later: every registered watcher hears Disconnected, then SyncConnected (as the Java client hands them out), the watcher passed to exists or getData included",
        apply: |c| c.faults.disconnects = 1,
    },
    FaultClass {
        id: "expiry",
        label: "expiry at any step",
        driver: Driver::Check,
        about: "the session of any client not yet done expires once, at any step: before its first call, between a check and its use, in a callback, as well as while it waits or holds",
        apply: |c| c.faults.expiries = 1,
    },
    FaultClass {
        id: "crash",
        label: "crash",
        driver: Driver::Check,
        about: "a client process crashes once, at any step: its threads stop; the server times its session out at any later moment (not a fault)",
        apply: |c| c.faults.crashes = 1,
    },
    FaultClass {
        id: "client-expiry",
        label: "client-side expiry",
        driver: Driver::Check,
        about: "the client library gives up on its session by itself and opens a new one while the server still holds the old one (a one-way partition or a paused server: the connection stops answering; after a session timeout by the client's clock the library gives up; the server ends the old session at any later moment, not a fault), once, at any step. Only a library that does this (Curator) suffers it: for every other recipe the cell is its no-fault run",
        apply: |c| c.faults.client_expiries = 1,
    },
    FaultClass {
        id: "server-restart",
        label: "server restart",
        driver: Driver::Check,
        about: "the ZooKeeper server stops once, at any step, and starts again at any later moment with every session and node restored (a standalone restart within the session timeout): every connection drops at once, requests not yet applied never are, replies not yet read are lost, and no session ends meanwhile. 2 clients",
        apply: |c| {
            c.faults.server_restarts = 1;
            // The stop can strike in every state, before or after any
            // step: at 3 clients Curator's space passes the comparison's
            // bound; at 2 it holds in 159,269 states.
            c.clients = c.clients.min(2);
        },
    },
    FaultClass {
        id: "holder-expiry-guarded",
        label: "holder expiry, guarded writes",
        driver: Driver::Check,
        about: "holder expiry with the protected resource in the checked system: every critical section writes to it twice, each write zk.multi(check(own lock node), setData(/resource)) (CURATOR-689's proposal), so a write of a holder whose node is gone fails atomically; mutual exclusion at the resource is judged, fenced safety is n/a. 2 clients. A recipe whose holder owns no lock node of its own (a shared lock node, a lock taken in a callback) cannot guard a write: for it the cell is its holder-expiry run at 2 clients",
        apply: |c| {
            c.faults.holder_expiries = 1;
            // Each write is a request, a server step and a reply: at 3
            // clients the column costs ten times the holder-expiry one
            // (timed-wait: over 3 million states).
            c.clients = c.clients.min(2);
            if owns_a_node(c.recipe) {
                c.writes = Writes::Guarded;
            }
        },
    },
    FaultClass {
        id: "reorder",
        label: "reordering within a session (UNSAFE)",
        driver: Driver::Sim,
        about: "UNSAFE, never done by ZooKeeper: replies and events of one session may overtake each other (`reorder_within_session`), to show which recipes rely on per-session FIFO",
        apply: |c| {
            c.sim.reorder_within_session = true;
            // A reply overtaken by its own event is rare: curator-owner-check
            // first deadlocks on seed 489 (43 of 10,000 seeds; the false-alarm
            // sweep found it past the 300 seeds this column once ran).
            c.sim.seeds = c.sim.seeds.max(1000);
        },
    },
    FaultClass {
        id: "holder-pause",
        label: "holder pause > session timeout",
        driver: Driver::Sim,
        about: "the holder's process stops (GC) for 1.5 × the session timeout early in its critical section, then resumes and goes on writing; in every holder column a critical section lasts 1.75–1.875 × the session timeout, so the holder is still inside it when the server expires its session, and the cell says in how many seeds that happened (none: n/a, never holds)",
        apply: |c| at_holder(c, FaultKind::Pause, false),
    },
    FaultClass {
        id: "partition",
        label: "holder partition",
        driver: Driver::Sim,
        about: "the holder is cut off from ZooKeeper (not from the resource) for 1.5 × the session timeout early in its critical section (1.75–1.875 × the session timeout long: the server expires the session while the holder still writes)",
        apply: |c| at_holder(c, FaultKind::Partition, false),
    },
    FaultClass {
        id: "holder-expiry-fenced",
        label: "holder expiry, fenced",
        driver: Driver::Sim,
        about: "holder expiry in the simulator, with fencing: the holder sends its lock node's czxid and the resource rejects older tokens",
        apply: |c| at_holder(c, FaultKind::Expire, true),
    },
    FaultClass {
        id: "holder-pause-fenced",
        label: "holder pause, fenced",
        driver: Driver::Sim,
        about: "holder pause with fencing tokens",
        apply: |c| at_holder(c, FaultKind::Pause, true),
    },
    FaultClass {
        id: "partition-fenced",
        label: "holder partition, fenced",
        driver: Driver::Sim,
        about: "holder partition with fencing tokens",
        apply: |c| at_holder(c, FaultKind::Partition, true),
    },
];

/// Fault classes of the design that no driver models yet.
pub static NOT_MODELLED: &[(&str, &str)] = &[];

/// The issue that adds the classes of [`NOT_MODELLED`].
pub const NOT_MODELLED_ISSUE: &str = "issue 9";

/// The class spelled `id`.
pub fn find(id: &str) -> Option<&'static FaultClass> {
    FAULTS.iter().find(|f| f.id == id)
}
