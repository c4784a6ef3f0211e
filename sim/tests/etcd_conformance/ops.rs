//! The sequences proptest draws: requests over a few keys of the case's
//! own prefix, its own leases, and watches, with revisions relative to the
//! case's start (the model's revision 1 is the real store's revision when
//! the case began).

use proptest::prelude::*;

/// One step of a sequence, in the model's terms (keys without the case's
/// prefix, leases by their number 0 or 1, revisions as the model counts).
#[derive(Clone, Debug)]
pub enum Step {
    Put {
        key: usize,
        value: usize,
        lease: Option<usize>,
    },
    Get {
        key: usize,
        prefix: bool,
        order: usize,
        limit: u8,
        max_create: i64,
    },
    Delete {
        key: usize,
        prefix: bool,
    },
    Txn {
        compare: Vec<(usize, usize, usize, i64)>,
        success: Vec<TxnOp>,
        failure: Vec<TxnOp>,
    },
    Grant(usize),
    KeepAlive(usize),
    Revoke(usize),
    /// A watch of a key from a revision (0: from the next).
    Watch {
        key: usize,
        from: i64,
    },
    Compact(i64),
}

#[derive(Clone, Debug)]
pub enum TxnOp {
    Put {
        key: usize,
        value: usize,
        lease: Option<usize>,
    },
    Get {
        key: usize,
        prefix: bool,
    },
    Delete {
        key: usize,
    },
}

/// The keys (a prefix range covers `lock/`'s).
pub const KEYS: [&str; 4] = ["lock/1", "lock/2", "lock/", "a"];
pub const VALUES: [&str; 3] = ["", "x", "y"];
pub const LEASES: usize = 2;

fn key() -> impl Strategy<Value = usize> {
    0..KEYS.len()
}

fn lease() -> impl Strategy<Value = Option<usize>> {
    prop_oneof![Just(None), (0..LEASES).prop_map(Some)]
}

/// A revision: 0, or one of the first the case can have reached.
fn revision() -> impl Strategy<Value = i64> {
    prop_oneof![Just(0i64), 1i64..12]
}

fn txn_op() -> impl Strategy<Value = TxnOp> {
    prop_oneof![
        (key(), 0..VALUES.len(), lease()).prop_map(|(key, value, lease)| TxnOp::Put {
            key,
            value,
            lease
        }),
        (key(), any::<bool>()).prop_map(|(key, prefix)| TxnOp::Get { key, prefix }),
        key().prop_map(|key| TxnOp::Delete { key }),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (key(), 0..VALUES.len(), lease()).prop_map(|(key, value, lease)| Step::Put { key, value, lease }),
        3 => (key(), any::<bool>(), 0..3usize, 0..3u8, revision()).prop_map(
            |(key, prefix, order, limit, max_create)| Step::Get { key, prefix, order, limit, max_create }
        ),
        2 => (key(), any::<bool>()).prop_map(|(key, prefix)| Step::Delete { key, prefix }),
        4 => (
            prop::collection::vec((key(), 0..4usize, 0..4usize, revision()), 1..3),
            prop::collection::vec(txn_op(), 0..3),
            prop::collection::vec(txn_op(), 0..3),
        )
            .prop_map(|(compare, success, failure)| Step::Txn { compare, success, failure }),
        2 => (0..LEASES).prop_map(Step::Grant),
        1 => (0..LEASES).prop_map(Step::KeepAlive),
        1 => (0..LEASES).prop_map(Step::Revoke),
        2 => (key(), revision()).prop_map(|(key, from)| Step::Watch { key, from }),
        1 => (2i64..8).prop_map(Step::Compact),
    ]
}

pub fn sequence(max: usize) -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(step(), 1..max)
}
