//! Replies in comparable form: the model's as it gives them, the real
//! server's normalised into the model's terms (zxids through the case's
//! offset, session ids through the opening order).

use locksmith::zk::real::{stat_of, RawReply, RawResult, RawTxn};
use locksmith_model::zk::{OpResult, Reply, Stat, TxnResult, ZkServer};
use std::collections::BTreeMap;
use zookeeper_client as zk;

/// Maps real zxids and session ids to the model's.
pub struct Normalizer {
    pub zxid_offset: i64,
    pub owners: BTreeMap<i64, i64>,
}

impl Normalizer {
    fn stat(&self, s: &zk::Stat) -> Stat {
        let z = |x: i64| x - self.zxid_offset;
        let s = stat_of(s);
        Stat {
            czxid: z(s.czxid),
            mzxid: z(s.mzxid),
            pzxid: z(s.pzxid),
            ephemeral_owner: self
                .owners
                .get(&s.ephemeral_owner)
                .copied()
                .unwrap_or(s.ephemeral_owner),
            ..s
        }
    }

    pub fn view(&self, reply: &RawReply) -> View {
        let checked = |s: &zk::Stat| {
            if s.aversion != 0 {
                View::Err(format!("aversion {} (expected 0)", s.aversion))
            } else {
                View::Ok
            }
        };
        match reply {
            Err(e) => View::Err(real_error(e)),
            Ok(r) => {
                let stat = match r {
                    RawResult::Created { stat, .. }
                    | RawResult::SetData(stat)
                    | RawResult::Exists(Some(stat))
                    | RawResult::GetData { stat, .. }
                    | RawResult::GetChildren { stat, .. } => Some(stat),
                    _ => None,
                };
                if let Some(View::Err(e)) = stat.map(checked) {
                    return View::Err(e);
                }
                match r {
                    RawResult::Created { path, stat } => View::Created {
                        path: path.clone(),
                        stat: Some(self.stat(stat)),
                    },
                    RawResult::Deleted => View::Deleted,
                    RawResult::SetData(stat) => View::SetData(self.stat(stat)),
                    RawResult::Exists(stat) => View::Exists(stat.as_ref().map(|s| self.stat(s))),
                    RawResult::GetData { data, stat } => View::GetData {
                        data: data.clone(),
                        stat: self.stat(stat),
                    },
                    RawResult::GetChildren { children, stat } => {
                        let mut children = children.clone();
                        children.sort();
                        View::GetChildren {
                            children,
                            stat: self.stat(stat),
                        }
                    }
                    RawResult::Closed => View::Closed,
                    RawResult::Multi(results) => View::Multi(
                        results
                            .iter()
                            .map(|r| match r {
                                RawTxn::Checked => TxnView::Checked,
                                RawTxn::Created(p) => TxnView::Created(p.clone()),
                                RawTxn::Deleted => TxnView::Deleted,
                                RawTxn::SetData(s) => TxnView::SetData(self.stat(s)),
                            })
                            .collect(),
                    ),
                    RawResult::MultiFailed { index, error } => View::MultiFailed {
                        index: *index,
                        error: real_error(error),
                    },
                    RawResult::WatchesRemoved => View::WatchesRemoved,
                    RawResult::WatchesChecked => View::WatchesChecked,
                }
            }
        }
    }
}

/// The real client's error as the model's `ZkError` name (or as itself when
/// the model has no such code, which is then a disagreement).
fn real_error(e: &zk::Error) -> String {
    let name = match e {
        zk::Error::NoNode => "NoNode",
        zk::Error::NodeExists => "NodeExists",
        zk::Error::BadVersion => "BadVersion",
        zk::Error::NotEmpty => "NotEmpty",
        zk::Error::NoChildrenForEphemerals => "NoChildrenForEphemerals",
        zk::Error::SessionExpired => "SessionExpired",
        zk::Error::ConnectionLoss => "ConnectionLoss",
        zk::Error::BadArguments(_) => "BadArguments",
        zk::Error::RuntimeInconsistent => "RuntimeInconsistency",
        zk::Error::NoWatcher => "NoWatcher",
        other => return format!("client error: {other}"),
    };
    name.to_string()
}

/// One reply in comparable form: the model's reply, or the real one
/// normalised. A create also carries the created node's stat (the real
/// server returns it; the model's reply has only the name, so its stat is
/// read from the model's tree right after the create).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum View {
    Ok,
    Err(String),
    Created {
        path: String,
        stat: Option<Stat>,
    },
    Deleted,
    SetData(Stat),
    Exists(Option<Stat>),
    GetData {
        data: Vec<u8>,
        stat: Stat,
    },
    GetChildren {
        children: Vec<String>,
        stat: Stat,
    },
    Closed,
    /// An applied multi.
    Multi(Vec<TxnView>),
    /// A refused multi: the first failing op and its error (all the crate
    /// reports; the model's answers for the other ops are held to
    /// ZooKeeper's `OK` / `RuntimeInconsistency` by `model/tests/zk_rules.rs`).
    MultiFailed {
        index: usize,
        error: String,
    },
    WatchesRemoved,
    WatchesChecked,
}

/// One op's result in an applied multi. A created node's stat is left out:
/// the crate's may be invalid (ZOOKEEPER-4026); later reads compare it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TxnView {
    Checked,
    Created(String),
    Deleted,
    SetData(Stat),
    /// What no applied multi may answer (a disagreement if it shows).
    Unexpected(String),
}

/// The model's reply; for a multi, `dry` holds what each op answered
/// (`ServerState::multi_results` before the multi ran), since a refused
/// multi's reply is only its error.
pub fn model_view(reply: &Reply, model: &ZkServer, dry: &[TxnResult]) -> View {
    let failed = dry.iter().position(|r| matches!(r, TxnResult::Failed(_)));
    if let (Err(e), Some(index)) = (reply, failed) {
        return View::MultiFailed {
            index,
            error: format!("{e:?}"),
        };
    }
    match reply {
        Err(e) => View::Err(format!("{e:?}")),
        Ok(OpResult::Created(path)) => View::Created {
            path: path.to_string(),
            stat: model.node(path).map(|n| n.stat),
        },
        Ok(OpResult::Deleted) => View::Deleted,
        Ok(OpResult::SetData(s)) => View::SetData(*s),
        Ok(OpResult::Exists(s)) => View::Exists(*s),
        Ok(OpResult::GetData { data, stat }) => View::GetData {
            data: data.clone(),
            stat: *stat,
        },
        Ok(OpResult::GetChildren { children, stat }) => View::GetChildren {
            children: children.iter().map(|c| c.to_string()).collect(),
            stat: *stat,
        },
        Ok(OpResult::Closed) => View::Closed,
        Ok(OpResult::WatchesRemoved) => View::WatchesRemoved,
        Ok(OpResult::WatchesChecked) => View::WatchesChecked,
        Ok(OpResult::Multi(results)) => View::Multi(
            results
                .iter()
                .map(|r| match r {
                    TxnResult::Checked => TxnView::Checked,
                    TxnResult::Created(p) => TxnView::Created(p.to_string()),
                    TxnResult::Deleted => TxnView::Deleted,
                    TxnResult::SetData(s) => TxnView::SetData(*s),
                    TxnResult::RolledBack | TxnResult::Failed(_) => {
                        TxnView::Unexpected(format!("{r:?} in an applied multi"))
                    }
                })
                .collect(),
        ),
    }
}
