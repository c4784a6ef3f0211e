//! One cell of the etcd matrix: an etcd lock under one etcd fault class,
//! written as an etcd scenario file and judged by loading that very file
//! as `locksmith check` loads it.

use super::backend::{cell_toml, check_file, run_cell, Backend, Fault};
use super::cell::CellResult;
use super::etcd_faults::{space, ETCD_FAULTS, ETCD_ROWS};
use locksmith_model::etcd::check::EtcdSpace;

/// The scenario file of `s` (a row's configuration under `fault`).
pub fn to_toml(s: &EtcdSpace, fault: &Fault) -> String {
    let table = format!(
        "\n[etcd]\nttl = {}\ncritical_section = {}\npause = {}\n",
        s.ttl, s.work, s.pause
    );
    cell_toml(s, fault, &table)
}

/// Runs the cell `recipe` × `fault` (ids of [`ETCD_ROWS`] and
/// [`ETCD_FAULTS`]); `out` is the report folder as the commands name it.
pub fn run(recipe: &str, fault: &str, out: &str) -> Result<CellResult, String> {
    let class = ETCD_FAULTS
        .iter()
        .find(|f| f.fault.id == fault)
        .ok_or_else(|| format!("no etcd fault class `{fault}`"))?;
    let mut s = ETCD_ROWS
        .iter()
        .find(|r| r.recipe == recipe)
        .and_then(space)
        .ok_or_else(|| format!("no etcd recipe `{recipe}`"))?;
    (class.apply)(&mut s);
    let text = to_toml(&s, &class.fault);
    run_cell(recipe, fault, out, text, check_file::<EtcdSpace>)
}

/// The etcd matrix, as the report's pages draw it.
pub static ETCD: Backend = Backend {
    name: "etcd",
    key: "etcd",
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
    rows: || ETCD_ROWS.to_vec(),
    faults: || ETCD_FAULTS.iter().map(|f| f.fault.clone()).collect(),
    run,
};
