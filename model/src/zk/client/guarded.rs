//! Guarded writes on ZooKeeper (scenario setting `guarded = true`, see
//! [`crate::engine::harness::writes`]): the holder writes the resource node
//! as `multi(check(own lock node), setData(resource))`, so a write of a
//! holder whose node is gone fails instead of landing.

use crate::zk::{Name, Op, TxnOp};

/// The znode the guarded writes set: the resource, kept in ZooKeeper so
/// that the guard and the write are one transaction.
pub const RESOURCE_NODE: &str = "/resource";

/// The guarded write of a holder whose lock node is `own`.
pub fn guarded_write(own: &str) -> Op {
    Op::Multi(vec![
        TxnOp::Check {
            path: Name::from(own),
            version: -1,
        },
        TxnOp::SetData {
            path: Name::from(RESOURCE_NODE),
            data: Vec::new(),
            version: -1,
        },
    ])
}

/// Whether `op` is a guarded write (what the checker's server judges at
/// the resource when it succeeds).
pub fn is_guarded_write(op: &Op) -> bool {
    matches!(op, Op::Multi(ops) if matches!(ops.last(), Some(TxnOp::SetData { path, .. }) if path.as_str() == RESOURCE_NODE))
}
