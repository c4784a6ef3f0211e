//! One cell of the etcd matrix: an etcd lock under one etcd fault class,
//! written as an etcd scenario file and judged by loading that very file
//! as `locksmith check` loads it.

use super::rows::{space, ETCD_ROWS};
use crate::etcd::faults::ETCD_FAULTS;
use crate::matrix::axes::Row;
use crate::matrix::backend::Backend;
use crate::matrix::command::{columns, rows, run, CommandMatrix, FaultClass};
use crate::matrix::command_pages::CommandPages;
use locksmith_model::etcd::check::EtcdSpace;

impl CommandMatrix for EtcdSpace {
    const ROWS: &'static [Row] = ETCD_ROWS;
    const FAULTS: &'static [FaultClass<EtcdSpace>] = ETCD_FAULTS;

    fn row_space(row: &Row) -> Option<EtcdSpace> {
        space(row)
    }

    fn table(&self) -> String {
        format!(
            "\n[etcd]\nttl = {}\ncritical_section = {}\npause = {}\n",
            self.ttl, self.work, self.pause
        )
    }
}

/// The etcd matrix.
pub static ETCD: Backend = Backend {
    name: "etcd",
    key: "etcd",
    rows: rows::<EtcdSpace>,
    faults: columns::<EtcdSpace>,
    run: run::<EtcdSpace>,
    costs: None,
    never_produced: &[],
    record: None,
    pages: &PAGES,
};

/// The etcd matrix's prose, as the report's pages draw it.
static PAGES: CommandPages = CommandPages {
    intro: "etcd's own lock (clientv3/concurrency.Mutex, as 3.4 and 3.5 ship it) and a naive \
            transaction lock on the etcd v3 model (one member: revisions, leases, transactions, \
            watches), each cell judged by the etcd checker (`locksmith check`: every \
            interleaving of the clients' requests, the watches' events and time in ticks; \
            shortest traces). The model is held against a real etcd 3.4 (docs/conformance.md), \
            and every violated etcd scenario's trace is confirmed there; etcd has no simulator \
            cells yet.",
    notes: "A running client's keep-alives renew its lease; a paused, crashed or cut-off client's lease \
            runs out after its TTL and its keys go in one revision. Unlock by non-owner: a \
            client deletes a key another client holds in its current tenure. Stuck lock: from \
            some reachable state no client can ever acquire again. Herd (a release whose events \
            wake two waiters) needs three clients, so it is n/a in these two-client cells: \
            scenarios/etcd-mutex-herd.toml (holds), etcd-txn-lease-herd.toml and \
            etcd-mutex-3.5-waiter-expiry-herd.toml (violated) judge it. Orphaned node, \
            re-entrancy and the fenced resource are n/a.",
    explored: "the clients, the etcd server and time in ticks",
};
