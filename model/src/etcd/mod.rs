//! An etcd v3 server (one member, the 3.4 line Debian ships), as a pure
//! state machine: the key-value store, leases and watches the etcd locks
//! use (`clientv3/concurrency`'s `Mutex` and the naive transaction lock).
//!
//! What is modelled, each rule where it is implemented:
//!
//! - [`kv`]: a key's value, create and mod revision, version and lease;
//!   a missing key reads as revision 0, version 0;
//! - [`request`]: `Put` (with a lease), `Range` (one key or a prefix,
//!   sorted by key or by create revision, a limit, `MaxCreateRevision`:
//!   `WithFirstCreate`, `WithLastCreate`, `WithMaxCreateRev`), `DeleteRange`
//!   (one key or a prefix), `Txn` (compares on create revision, mod
//!   revision, version or value, then the success or the failure ops),
//!   `LeaseGrant` (the client names the id, as `LeaseGrantRequest.ID`
//!   lets it), `LeaseKeepAlive`, `LeaseRevoke`, `Watch` (one key, from a
//!   revision), `Compact`;
//! - [`reply`]: each request's response with its header revision, and
//!   etcd's own error texts;
//! - [`server`]: [`EtcdServer::apply`], and time ([`EtcdServer::tick`]:
//!   every lease not kept alive counts down; at zero it is revoked, which
//!   deletes every key attached to it in one revision, as the lessor's
//!   `LeaseRevoke` through raft does).
//!
//! **Revisions.** The store starts at revision 1; every request that
//! changes something (a `Put`, a `DeleteRange` that deletes, a `Txn` whose
//! chosen ops write, a revoke that deletes) makes exactly one new revision,
//! shared by all its changes. A read or a `Txn` that writes nothing makes
//! none.
//!
//! **Watches** fire on `DELETE` events only (a `PUT` event is read and
//! skipped by every recipe here, so it is not delivered): a watch from
//! revision `r` fires at once with the key's first delete at `r` or later,
//! else at its next delete at `r` or later (a start revision in the future
//! skips the deletes before it), and then ends (the recipes cancel it). A
//! watch from a compacted revision gets `ErrCompacted`.
//!
//! Not modelled: several members (raft, leader changes and the lease
//! extension a new leader grants), `PrevKV`, range ends other than a
//! prefix, `Put`'s `IgnoreValue`/`IgnoreLease`, nested transactions, watch
//! progress notifications, and auth. The model has no clock, no I/O and no
//! randomness.

pub mod check;
pub(crate) mod kv;
pub mod recipes;
pub(crate) mod reply;
pub(crate) mod request;
pub(crate) mod server;

pub use kv::{KeyValue, LeaseId};
pub use reply::{EtcdError, Event, Reply};
pub use request::{Cmp, Compare, Op, Order, Put, Range, Request, Target, Txn};
pub use server::{EtcdServer, Fired, Lease};

#[cfg(test)]
mod tests;
