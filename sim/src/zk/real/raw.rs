//! Replies as the server gave them, and their normalised form (the model's
//! [`Reply`]).
//!
//! The conformance test compares the raw form: every `Stat` field the
//! server sent (zxids, session ids and `aversion` included) and a created
//! node's stat, which the model's reply does not carry. The recipe driver
//! takes the normalised one.

use super::convert::{error, stat_of};
use locksmith_model::zk::{OpResult, Reply, TxnResult};
use zookeeper_client as zkc;

/// What a successful call returned, before normalisation.
#[derive(Clone, Debug)]
pub enum RawResult {
    Created {
        path: String,
        stat: zkc::Stat,
    },
    Deleted,
    SetData(zkc::Stat),
    Exists(Option<zkc::Stat>),
    GetData {
        data: Vec<u8>,
        stat: zkc::Stat,
    },
    GetChildren {
        children: Vec<String>,
        stat: zkc::Stat,
    },
    Closed,
    /// An applied multi: each op's result.
    Multi(Vec<RawTxn>),
    /// A multi the server refused: the first failing op and its error. The
    /// crate reports no more (the ops before it answer `OK`, the ones after
    /// `RuntimeInconsistency`; it stops at the first real error).
    MultiFailed {
        index: usize,
        error: zkc::Error,
    },
    /// `removeWatches` took a watcher away.
    WatchesRemoved,
    /// `checkWatches` found the watcher (and kept it).
    WatchesChecked,
}

/// One op's result in an applied multi.
#[derive(Clone, Debug)]
pub enum RawTxn {
    Checked,
    /// The crate's stat of a node created in a multi may be invalid
    /// (ZOOKEEPER-4026), so only the path is kept.
    Created(String),
    Deleted,
    SetData(zkc::Stat),
}

/// A reply before normalisation. A call the server did not answer (see
/// [`CallOutcome::answered`]) has `ConnectionLoss` when it timed out and
/// `SessionExpired` when the session was already closed.
///
/// [`CallOutcome::answered`]: super::CallOutcome::answered
pub type RawReply = Result<RawResult, zkc::Error>;

impl RawResult {
    /// The model's reply: the same values, with the crate's stats as the
    /// model's and without a created node's stat (a refused multi is the
    /// failing op's error, as the Java client throws it).
    pub fn into_model(self) -> Reply {
        Ok(match self {
            RawResult::Created { path, .. } => OpResult::Created(path.into()),
            RawResult::Deleted => OpResult::Deleted,
            RawResult::SetData(s) => OpResult::SetData(stat_of(&s)),
            RawResult::Exists(s) => OpResult::Exists(s.as_ref().map(stat_of)),
            RawResult::GetData { data, stat } => OpResult::GetData {
                data,
                stat: stat_of(&stat),
            },
            RawResult::GetChildren { children, stat } => OpResult::GetChildren {
                children: children.into_iter().map(Into::into).collect(),
                stat: stat_of(&stat),
            },
            RawResult::Closed => OpResult::Closed,
            RawResult::Multi(results) => OpResult::Multi(
                results
                    .into_iter()
                    .map(|r| match r {
                        RawTxn::Checked => TxnResult::Checked,
                        RawTxn::Created(p) => TxnResult::Created(p.into()),
                        RawTxn::Deleted => TxnResult::Deleted,
                        RawTxn::SetData(s) => TxnResult::SetData(stat_of(&s)),
                    })
                    .collect(),
            ),
            RawResult::MultiFailed { error: e, .. } => return Err(error(&e)),
            RawResult::WatchesRemoved => OpResult::WatchesRemoved,
            RawResult::WatchesChecked => OpResult::WatchesChecked,
        })
    }
}

/// The model's reply for a raw one.
pub fn normalise(raw: RawReply) -> Reply {
    match raw {
        Ok(r) => r.into_model(),
        Err(e) => Err(error(&e)),
    }
}
