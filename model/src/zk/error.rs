//! ZooKeeper's error codes, as `KeeperException.Code` numbers them.

use serde::Serialize;
use std::fmt;

/// The errors a ZooKeeper call can end with. The numeric [`code`](Self::code)
/// is ZooKeeper's own, so traces and conformance reports can be matched
/// against a real server's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum ZkError {
    /// The request may or may not have been applied; the client cannot tell.
    ConnectionLoss,
    BadArguments,
    NoNode,
    BadVersion,
    NoChildrenForEphemerals,
    NodeExists,
    NotEmpty,
    SessionExpired,
    /// A multi's op after the one that failed.
    RuntimeInconsistency,
    /// `removeWatches` found no such watch.
    NoWatcher,
}

impl ZkError {
    /// The `KeeperException` subclass name, for traces.
    pub fn name(self) -> &'static str {
        match self {
            ZkError::ConnectionLoss => "ConnectionLossException",
            ZkError::BadArguments => "BadArgumentsException",
            ZkError::NoNode => "NoNodeException",
            ZkError::BadVersion => "BadVersionException",
            ZkError::NoChildrenForEphemerals => "NoChildrenForEphemeralsException",
            ZkError::NodeExists => "NodeExistsException",
            ZkError::NotEmpty => "NotEmptyException",
            ZkError::SessionExpired => "SessionExpiredException",
            ZkError::RuntimeInconsistency => "RuntimeInconsistencyException",
            ZkError::NoWatcher => "NoWatcherException",
        }
    }

    pub fn code(self) -> i32 {
        match self {
            ZkError::ConnectionLoss => -4,
            ZkError::BadArguments => -8,
            ZkError::NoNode => -101,
            ZkError::BadVersion => -103,
            ZkError::NoChildrenForEphemerals => -108,
            ZkError::NodeExists => -110,
            ZkError::NotEmpty => -111,
            ZkError::SessionExpired => -112,
            ZkError::RuntimeInconsistency => -2,
            ZkError::NoWatcher => -121,
        }
    }
}

impl fmt::Display for ZkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_is_named_after_its_keeper_exception_subclass() {
        let all = [
            ZkError::ConnectionLoss,
            ZkError::BadArguments,
            ZkError::NoNode,
            ZkError::BadVersion,
            ZkError::NoChildrenForEphemerals,
            ZkError::NodeExists,
            ZkError::NotEmpty,
            ZkError::SessionExpired,
            ZkError::RuntimeInconsistency,
            ZkError::NoWatcher,
        ];
        for e in all {
            // `Code.CONNECTIONLOSS` → `ConnectionLossException`, and so on.
            assert_eq!(e.name(), format!("{e}Exception"), "{e}");
        }
    }
}
