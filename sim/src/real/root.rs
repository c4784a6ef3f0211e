//! The lock root of a real run: created if missing, its data emptied, and
//! cleared of the ephemeral nodes that sessions of an earlier run left
//! behind before they expire (a fresh client would otherwise wait for
//! them). A recipe whose lock is the root's data (`cas-version`) would
//! otherwise find the owner an interrupted run left there.

use super::zk::{CallOutcome, RawReply, RawResult, Session};
use locksmith_model::zk::{CreateMode, Op};
use zookeeper_client as zkc;

/// The reply, or why there is none.
fn answered(what: &str, path: &str, out: CallOutcome<RawReply>) -> Result<RawReply, String> {
    if out.answered {
        Ok(out.reply)
    } else {
        Err(format!("{what} {path}: no answer ({:?})", out.reply.err()))
    }
}

/// Creates `path` as a persistent node unless it exists, and deletes the
/// ephemeral children left under it; returns how many it deleted.
pub async fn prepare(session: &mut Session, path: &str) -> Result<usize, String> {
    if path != "/" {
        let create = Op::Create {
            path: path.into(),
            data: Vec::new(),
            mode: CreateMode::Persistent,
        };
        match answered("create", path, session.call_raw(&create).await)? {
            Ok(_) | Err(zkc::Error::NodeExists) => {}
            Err(e) => return Err(format!("create {path}: {e}")),
        }
        let empty = Op::SetData {
            path: path.into(),
            data: Vec::new(),
            version: -1,
        };
        if let Err(e) = answered("setData", path, session.call_raw(&empty).await)? {
            return Err(format!("setData {path}: {e}"));
        }
    }
    let list = Op::GetChildren {
        path: path.into(),
        watch: false,
    };
    let children = match answered("getChildren", path, session.call_raw(&list).await)? {
        Ok(RawResult::GetChildren { children, .. }) => children,
        Ok(other) => return Err(format!("getChildren {path}: {other:?}")),
        Err(e) => return Err(format!("getChildren {path}: {e}")),
    };
    let mut deleted = 0;
    for name in children {
        let full = if path == "/" {
            format!("/{name}")
        } else {
            format!("{path}/{name}")
        };
        let exists = Op::Exists {
            path: full.as_str().into(),
            watch: false,
        };
        let stat = answered("exists", &full, session.call_raw(&exists).await)?;
        // Gone meanwhile, or not an ephemeral: nothing to do.
        let Ok(RawResult::Exists(Some(s))) = stat else {
            continue;
        };
        if s.ephemeral_owner == 0 {
            continue;
        }
        let delete = Op::Delete {
            path: full.as_str().into(),
            version: -1,
        };
        if answered("delete", &full, session.call_raw(&delete).await)?.is_ok() {
            deleted += 1;
        }
    }
    Ok(deleted)
}
