//! ZooKeeper's client protocol, the server's side: the request records a
//! client sends, read into the model's [`Op`]s, and the replies and
//! notifications written back from the model's answers.
//!
//! Read from ZooKeeper 3.8's `zookeeper.jute` and `ClientCnxn`: every
//! frame is a 4-byte length then a record; a request is a header
//! (`xid`, `type`) then its body; a reply is a header (`xid`, `zxid`,
//! `err`) then its body, which an error leaves out. Notifications come
//! with xid −1, pings with xid −2, `SetWatches` with xid −8.

use super::jute::{Reader, Writer};
use locksmith_model::zk::{
    CreateMode, EventType, Name, Op, OpResult, Reply, Stat, TxnOp, TxnResult, WatchedEvent,
    WatcherType, ZkError,
};

/// `ZooDefs.OpCode`, the ones the server answers.
pub mod opcode {
    pub const CREATE: i32 = 1;
    pub const DELETE: i32 = 2;
    pub const EXISTS: i32 = 3;
    pub const GET_DATA: i32 = 4;
    pub const SET_DATA: i32 = 5;
    pub const GET_ACL: i32 = 6;
    pub const GET_CHILDREN: i32 = 8;
    pub const SYNC: i32 = 9;
    pub const PING: i32 = 11;
    pub const GET_CHILDREN2: i32 = 12;
    pub const CHECK: i32 = 13;
    pub const MULTI: i32 = 14;
    pub const CREATE2: i32 = 15;
    pub const CHECK_WATCHES: i32 = 17;
    pub const REMOVE_WATCHES: i32 = 18;
    pub const CREATE_CONTAINER: i32 = 19;
    pub const SET_WATCHES: i32 = 101;
    pub const CLOSE_SESSION: i32 = -11;
    /// A multi's per-op result that failed (`ErrorResult`).
    pub const ERROR: i32 = -1;

    /// `ZooDefs.OpCode`'s names, as the Java source spells them.
    pub const NAMES: [(i32, &str); 30] = [
        (1, "create"),
        (2, "delete"),
        (3, "exists"),
        (4, "getData"),
        (5, "setData"),
        (6, "getACL"),
        (7, "setACL"),
        (8, "getChildren"),
        (9, "sync"),
        (11, "ping"),
        (12, "getChildren2"),
        (13, "check"),
        (14, "multi"),
        (15, "create2"),
        (16, "reconfig"),
        (17, "checkWatches"),
        (18, "removeWatches"),
        (19, "createContainer"),
        (20, "deleteContainer"),
        (21, "createTTL"),
        (22, "multiRead"),
        (100, "auth"),
        (101, "setWatches"),
        (102, "sasl"),
        (103, "getEphemerals"),
        (104, "getAllChildrenNumber"),
        (105, "setWatches2"),
        (106, "addWatch"),
        (107, "whoAmI"),
        (-11, "closeSession"),
    ];

    pub fn name(code: i32) -> String {
        match NAMES.iter().find(|(c, _)| *c == code) {
            Some((_, n)) => n.to_string(),
            None => format!("opcode {code}"),
        }
    }

    pub fn by_name(name: &str) -> Option<i32> {
        NAMES.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
    }
}

/// The xid of a notification (`ClientCnxn.NOTIFICATION_XID`).
pub const NOTIFICATION_XID: i32 = -1;
/// `KeeperException.Code.UNIMPLEMENTED`: the answer to a request the
/// model has no operation for.
pub const UNIMPLEMENTED: i32 = -6;
/// `KeeperException.Code.MARSHALLINGERROR`: a body the server could not read.
pub const MARSHALLING_ERROR: i32 = -5;

/// The connect request, which comes with no header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect {
    pub protocol_version: i32,
    pub last_zxid_seen: i64,
    pub timeout_ms: i32,
    /// 0 for a new session.
    pub session_id: i64,
    pub password: Vec<u8>,
}

impl Connect {
    pub fn read(body: &[u8]) -> Result<Connect, String> {
        let mut r = Reader::new(body);
        Ok(Connect {
            protocol_version: r.int("connect request: protocol version")?,
            last_zxid_seen: r.long("connect request: last zxid seen")?,
            timeout_ms: r.int("connect request: timeout")?,
            session_id: r.long("connect request: session id")?,
            password: r.buffer("connect request: password")?,
            // The read-only flag that 3.4+ clients append is not read: a
            // single server has no read-only mode to grant.
        })
    }
}

/// The connect response. An expired or unknown session is answered with
/// timeout 0 and session id 0, which the client reads as expiry.
pub fn connect_response(timeout_ms: i32, session_id: i64, password: &[u8]) -> Vec<u8> {
    let mut w = Writer::default();
    w.int(0)
        .int(timeout_ms)
        .long(session_id)
        .buffer(password)
        .boolean(false);
    w.framed()
}

/// How a reply to a model request is written: the opcode decides the
/// record even where the model's answer is the same (`create` answers the
/// path, `create2` the path and the stat).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `CreateResponse`: the path.
    Create,
    /// `Create2Response`: the path and the created node's stat.
    Create2,
    /// No body (delete, checkWatches, removeWatches, closeSession).
    Empty,
    Exists,
    GetData,
    GetChildren,
    GetChildren2,
    SetData,
    /// A multi, with each op's opcode (its result record follows it).
    Multi(Vec<i32>),
}

/// One request, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// A request the model answers.
    Model {
        op: Op,
        shape: Shape,
    },
    Ping,
    /// `SetWatches` after a reconnect: the watches the client still has.
    SetWatches {
        relative_zxid: i64,
        data: Vec<Name>,
        exist: Vec<Name>,
        child: Vec<Name>,
    },
    /// `sync(path)`: a single server is always in sync; the path comes back.
    Sync(String),
    /// `getACL(path)`: the model has no ACLs; every node is world:anyone.
    GetAcl(String),
    /// A request the model has no operation for (ACL changes, auth,
    /// persistent watches, TTL nodes, reconfig): answered `UNIMPLEMENTED`.
    Unsupported {
        opcode: i32,
        why: String,
    },
}

/// The header and body of one request frame.
pub fn read_request(frame: &[u8]) -> Result<(i32, i32, Request), String> {
    let mut r = Reader::new(frame);
    let xid = r.int("request header: xid")?;
    let kind = r.int("request header: type")?;
    let request = read_body(kind, &mut r)?;
    Ok((xid, kind, request))
}

fn path(r: &mut Reader<'_>) -> Result<Name, String> {
    Ok(Name::from(r.string("path")?))
}

fn names(r: &mut Reader<'_>, what: &str) -> Result<Vec<Name>, String> {
    Ok(r.strings(what)?.into_iter().map(Name::from).collect())
}

fn model(op: Op, shape: Shape) -> Request {
    Request::Model { op, shape }
}

fn read_body(kind: i32, r: &mut Reader<'_>) -> Result<Request, String> {
    use opcode::*;
    Ok(match kind {
        CREATE | CREATE2 | CREATE_CONTAINER => {
            let (path, data, mode) = match create(r)? {
                Ok(c) => c,
                Err(why) => return Ok(Request::Unsupported { opcode: kind, why }),
            };
            let shape = if kind == CREATE {
                Shape::Create
            } else {
                Shape::Create2
            };
            model(Op::Create { path, data, mode }, shape)
        }
        DELETE => {
            let path = path(r)?;
            let version = r.int("delete: version")?;
            model(Op::Delete { path, version }, Shape::Empty)
        }
        EXISTS => {
            let path = path(r)?;
            let watch = r.boolean("exists: watch")?;
            model(Op::Exists { path, watch }, Shape::Exists)
        }
        GET_DATA => {
            let path = path(r)?;
            let watch = r.boolean("getData: watch")?;
            model(Op::GetData { path, watch }, Shape::GetData)
        }
        SET_DATA => {
            let path = path(r)?;
            let data = r.buffer("setData: data")?;
            let version = r.int("setData: version")?;
            model(
                Op::SetData {
                    path,
                    data,
                    version,
                },
                Shape::SetData,
            )
        }
        GET_CHILDREN | GET_CHILDREN2 => {
            let path = path(r)?;
            let watch = r.boolean("getChildren: watch")?;
            let shape = if kind == GET_CHILDREN {
                Shape::GetChildren
            } else {
                Shape::GetChildren2
            };
            model(Op::GetChildren { path, watch }, shape)
        }
        CHECK_WATCHES | REMOVE_WATCHES => {
            let path = path(r)?;
            let kind_code = r.int("removeWatches: type")?;
            let Some(watcher) = watcher_type(kind_code) else {
                return Ok(Request::Unsupported {
                    opcode: kind,
                    why: format!("watcher type {kind_code}"),
                });
            };
            let op = if kind == CHECK_WATCHES {
                Op::CheckWatches {
                    path,
                    kind: watcher,
                }
            } else {
                Op::RemoveWatches {
                    path,
                    kind: watcher,
                }
            };
            model(op, Shape::Empty)
        }
        MULTI => multi(r)?,
        CLOSE_SESSION => model(Op::CloseSession, Shape::Empty),
        PING => Request::Ping,
        SET_WATCHES => Request::SetWatches {
            relative_zxid: r.long("setWatches: relative zxid")?,
            data: names(r, "setWatches: data watches")?,
            exist: names(r, "setWatches: exist watches")?,
            child: names(r, "setWatches: child watches")?,
        },
        SYNC => Request::Sync(r.string("sync: path")?),
        GET_ACL => Request::GetAcl(r.string("getACL: path")?),
        other => Request::Unsupported {
            opcode: other,
            why: "no such operation in the model".into(),
        },
    })
}

/// `CreateRequest`: path, data, ACL list (read and dropped: the model has
/// no ACLs), flags. A flag the model has no mode for (TTL nodes) is the
/// inner error.
type Created = (Name, Vec<u8>, CreateMode);

fn create(r: &mut Reader<'_>) -> Result<Result<Created, String>, String> {
    let path = path(r)?;
    let data = r.buffer("create: data")?;
    let acls = r.int("create: ACL count")?;
    for _ in 0..acls.max(0) {
        r.int("create: ACL perms")?;
        r.string("create: ACL scheme")?;
        r.string("create: ACL id")?;
    }
    let flags = r.int("create: flags")?;
    Ok(match create_mode(flags) {
        Some(mode) => Ok((path, data, mode)),
        None => Err(format!("create mode {flags} (TTL nodes are not modelled)")),
    })
}

/// `CreateMode.fromFlag`.
fn create_mode(flags: i32) -> Option<CreateMode> {
    Some(match flags {
        0 => CreateMode::Persistent,
        1 => CreateMode::Ephemeral,
        2 => CreateMode::PersistentSequential,
        3 => CreateMode::EphemeralSequential,
        4 => CreateMode::Container,
        _ => return None,
    })
}

/// `Watcher.WatcherType`'s integer values.
fn watcher_type(code: i32) -> Option<WatcherType> {
    Some(match code {
        1 => WatcherType::Children,
        2 => WatcherType::Data,
        3 => WatcherType::Any,
        _ => return None,
    })
}

/// `MultiOperationRecord`: a `MultiHeader` (type, done, err) before each
/// op, and one with `done` at the end.
fn multi(r: &mut Reader<'_>) -> Result<Request, String> {
    use opcode::*;
    let mut ops = Vec::new();
    let mut kinds = Vec::new();
    loop {
        let kind = r.int("multi: op type")?;
        let done = r.boolean("multi: done")?;
        r.int("multi: err")?;
        if done {
            break;
        }
        let op = match kind {
            CREATE | CREATE2 | CREATE_CONTAINER => match create(r)? {
                Ok((path, data, mode)) => TxnOp::Create { path, data, mode },
                Err(why) => return Ok(Request::Unsupported { opcode: MULTI, why }),
            },
            DELETE => TxnOp::Delete {
                path: path(r)?,
                version: r.int("multi: delete version")?,
            },
            SET_DATA => TxnOp::SetData {
                path: path(r)?,
                data: r.buffer("multi: setData data")?,
                version: r.int("multi: setData version")?,
            },
            CHECK => TxnOp::Check {
                path: path(r)?,
                version: r.int("multi: check version")?,
            },
            other => {
                return Ok(Request::Unsupported {
                    opcode: MULTI,
                    why: format!("op type {other} inside a multi"),
                })
            }
        };
        ops.push(op);
        kinds.push(kind);
    }
    Ok(model(Op::Multi(ops), Shape::Multi(kinds)))
}

/// What a reply's stats need beyond the model's answer: the stat of a node
/// the request created (by path), which `create2` sends and the model's
/// reply does not carry, and the time each zxid was applied
/// ([`super::zxid_times`]), for `ctime` and `mtime`.
pub struct Stats<'a> {
    pub created: &'a dyn Fn(&str) -> Stat,
    pub time: &'a dyn Fn(i64) -> i64,
}

/// `Stat`, in the record's field order. `ctime` and `mtime` are the times
/// of `czxid` and `mzxid`; `aversion` is 0, as on a real server where
/// nobody called `setACL` (the model has no ACLs).
fn stat(w: &mut Writer, s: &Stat, time: &dyn Fn(i64) -> i64) {
    w.long(s.czxid)
        .long(s.mzxid)
        .long(time(s.czxid))
        .long(time(s.mzxid))
        .int(s.version)
        .int(s.cversion)
        .int(0)
        .long(s.ephemeral_owner)
        .int(s.data_length)
        .int(s.num_children)
        .long(s.pzxid);
}

/// Whether a written frame is a notification (its xid, after the length).
pub fn is_notification(frame: &[u8]) -> bool {
    frame.get(4..8) == Some(&NOTIFICATION_XID.to_be_bytes()[..])
}

/// A reply frame with no body: a ping's, `SetWatches`', or any error's.
pub fn header(xid: i32, zxid: i64, err: i32) -> Vec<u8> {
    let mut w = Writer::default();
    w.int(xid).long(zxid).int(err);
    w.framed()
}

/// The reply to a model request; `rolled` is a failed multi's per-op
/// results.
pub fn reply(
    xid: i32,
    zxid: i64,
    shape: &Shape,
    reply: &Reply,
    stats: &Stats,
    rolled: Option<&[TxnResult]>,
) -> Vec<u8> {
    let mut w = Writer::default();
    w.int(xid).long(zxid);
    match (reply, rolled) {
        // A failed multi is an answered multi: header OK, each op's result
        // an `ErrorResult` (the Java client throws the first real error).
        (Err(_), Some(results)) => {
            w.int(0);
            multi_results(&mut w, &[], results, stats);
        }
        (Err(e), None) => {
            w.int(e.code());
        }
        // The real server answers an `exists` of a missing node with
        // `NONODE` and no body; the clients read that as "no stat".
        (Ok(OpResult::Exists(None)), _) => {
            w.int(ZkError::NoNode.code());
        }
        (Ok(result), _) => {
            w.int(0);
            body(&mut w, shape, result, stats);
        }
    }
    w.framed()
}

fn body(w: &mut Writer, shape: &Shape, result: &OpResult, stats: &Stats) {
    match (shape, result) {
        (Shape::Create, OpResult::Created(p)) => {
            w.string(p);
        }
        (Shape::Create2, OpResult::Created(p)) => {
            w.string(p);
            stat(w, &(stats.created)(p), stats.time);
        }
        (Shape::Exists, OpResult::Exists(Some(s))) | (Shape::SetData, OpResult::SetData(s)) => {
            stat(w, s, stats.time);
        }
        (Shape::GetData, OpResult::GetData { data, stat: s }) => {
            w.buffer(data);
            stat(w, s, stats.time);
        }
        (Shape::GetChildren, OpResult::GetChildren { children, .. }) => {
            w.strings(children);
        }
        (Shape::GetChildren2, OpResult::GetChildren { children, stat: s }) => {
            w.strings(children);
            stat(w, s, stats.time);
        }
        (Shape::Multi(kinds), OpResult::Multi(results)) => {
            multi_results(w, kinds, results, stats);
        }
        // Delete, close, the watch removals: no body.
        _ => {}
    }
}

fn multi_results(w: &mut Writer, kinds: &[i32], results: &[TxnResult], stats: &Stats) {
    for (i, result) in results.iter().enumerate() {
        let kind = kinds.get(i).copied().unwrap_or(opcode::CREATE);
        match result {
            // `OpResult.CreateResult` is typed `create` without a stat and
            // `create2` with one, whichever create op (container, TTL) it was.
            TxnResult::Created(p) if kind == opcode::CREATE => {
                w.int(opcode::CREATE).boolean(false).int(0).string(p);
            }
            TxnResult::Created(p) => {
                w.int(opcode::CREATE2).boolean(false).int(0).string(p);
                stat(w, &(stats.created)(p), stats.time);
            }
            TxnResult::Deleted => {
                w.int(opcode::DELETE).boolean(false).int(0);
            }
            TxnResult::Checked => {
                w.int(opcode::CHECK).boolean(false).int(0);
            }
            TxnResult::SetData(s) => {
                w.int(opcode::SET_DATA).boolean(false).int(0);
                stat(w, s, stats.time);
            }
            TxnResult::RolledBack => {
                w.int(opcode::ERROR).boolean(false).int(0).int(0);
            }
            TxnResult::Failed(e) => {
                w.int(opcode::ERROR)
                    .boolean(false)
                    .int(e.code())
                    .int(e.code());
            }
        }
    }
    w.int(-1).boolean(true).int(-1);
}

/// `SyncResponse`: the path.
pub fn sync_reply(xid: i32, zxid: i64, path: &str) -> Vec<u8> {
    let mut w = Writer::default();
    w.int(xid).long(zxid).int(0).string(path);
    w.framed()
}

/// `GetACLResponse`: world:anyone with every permission (31), and the stat.
pub fn acl_reply(xid: i32, zxid: i64, s: &Stat, time: &dyn Fn(i64) -> i64) -> Vec<u8> {
    let mut w = Writer::default();
    w.int(xid).long(zxid).int(0);
    w.int(1).int(31).string("world").string("anyone");
    stat(&mut w, s, time);
    w.framed()
}

/// A notification: header (xid −1, zxid −1, OK), then `WatcherEvent`
/// (type, `SyncConnected` = 3, path).
pub fn notification(event: &WatchedEvent) -> Vec<u8> {
    let kind = match event.kind {
        EventType::NodeCreated => 1,
        EventType::NodeDeleted => 2,
        EventType::NodeDataChanged => 3,
        EventType::NodeChildrenChanged => 4,
    };
    let mut w = Writer::default();
    w.int(NOTIFICATION_XID)
        .long(-1)
        .int(0)
        .int(kind)
        .int(3)
        .string(&event.path);
    w.framed()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(build: impl FnOnce(&mut Writer)) -> Vec<u8> {
        let mut w = Writer::default();
        build(&mut w);
        w.framed()[4..].to_vec()
    }

    #[test]
    fn a_create2_with_an_acl_reads_as_the_models_create() {
        let f = frame(|w| {
            w.int(7)
                .int(opcode::CREATE2)
                .string("/lock/n-")
                .buffer(b"x");
            w.int(1).int(31).string("world").string("anyone").int(3);
        });
        let (xid, kind, req) = read_request(&f).unwrap();
        assert_eq!((xid, kind), (7, opcode::CREATE2));
        assert_eq!(
            req,
            Request::Model {
                op: Op::create_with("/lock/n-", b"x".to_vec(), CreateMode::EphemeralSequential),
                shape: Shape::Create2,
            }
        );
    }

    #[test]
    fn a_ttl_create_and_an_unknown_opcode_are_unsupported_not_errors() {
        let ttl = frame(|w| {
            w.int(1)
                .int(opcode::CREATE)
                .string("/a")
                .buffer(b"")
                .int(0)
                .int(5);
        });
        assert!(matches!(
            read_request(&ttl).unwrap().2,
            Request::Unsupported { opcode: 1, .. }
        ));
        let odd = frame(|w| {
            w.int(2).int(106).string("/a").int(0);
        });
        assert!(matches!(
            read_request(&odd).unwrap().2,
            Request::Unsupported { opcode: 106, .. }
        ));
        let short = frame(|w| {
            w.int(3).int(opcode::DELETE).string("/a");
        });
        let err = read_request(&short).unwrap_err();
        assert!(err.contains("delete: version"), "{err}");
    }

    #[test]
    fn an_error_reply_has_no_body_and_a_notification_says_sync_connected() {
        let r: Reply = Err(ZkError::NoNode);
        let stats = Stats {
            created: &|_| Stat::default(),
            time: &|_| 0,
        };
        let bytes = reply(9, 42, &Shape::GetData, &r, &stats, None);
        assert_eq!(bytes.len(), 4 + 16);
        assert_eq!(&bytes[16..20], &(-101i32).to_be_bytes());
        let n = notification(&WatchedEvent {
            kind: EventType::NodeDeleted,
            path: "/lock/a".into(),
        });
        let mut r = Reader::new(&n[4..]);
        assert_eq!(r.int("xid"), Ok(-1));
        r.long("zxid").unwrap();
        assert_eq!(r.int("err"), Ok(0));
        assert_eq!(r.int("type"), Ok(2));
        assert_eq!(r.int("state"), Ok(3));
        assert_eq!(r.string("path").as_deref(), Ok("/lock/a"));
    }
}
