//! Replies as the server gave them, and their normalised form (the model's
//! [`Reply`]).
//!
//! The conformance test compares the raw form: every `Stat` field the
//! server sent (zxids, session ids and `aversion` included) and a created
//! node's stat, which the model's reply does not carry. The recipe driver
//! takes the normalised one.

use super::convert::{error, stat_of};
use locksmith_model::zk::{OpResult, Reply};
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
}

/// A reply before normalisation. A call the server did not answer (see
/// [`CallOutcome::answered`]) has `ConnectionLoss` when it timed out and
/// `SessionExpired` when the session was already closed.
///
/// [`CallOutcome::answered`]: super::CallOutcome::answered
pub type RawReply = Result<RawResult, zkc::Error>;

impl RawResult {
    /// The model's result: the same values, with the crate's stats as the
    /// model's and without a created node's stat.
    pub fn into_model(self) -> OpResult {
        match self {
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
        }
    }
}

/// The model's reply for a raw one.
pub fn normalise(raw: RawReply) -> Reply {
    match raw {
        Ok(r) => Ok(r.into_model()),
        Err(e) => Err(error(&e)),
    }
}
