//! The model's etcd requests on a real etcd, and its replies read back as
//! the model's: over the JSON gateway etcd serves on its client port
//! (`POST /v3/kv/range`, `/v3/kv/txn`, `/v3/lease/grant`, `/v3/watch`, ...,
//! protobuf's JSON mapping: 64-bit numbers as strings, bytes in base64,
//! fields at their default left out). One HTTP/1.1 request per call on a
//! connection of its own; a watch keeps its connection and reads the
//! stream's chunks. Revisions are the server's own: a caller that compares
//! them with a fresh model subtracts the revision it started from.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use locksmith_model::etcd::{
    Cmp, EtcdError, Event, KeyValue, LeaseId, Op, Order, Put, Range, Reply, Request, Target,
};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A real etcd's client port.
#[derive(Clone, Debug)]
pub struct Gateway {
    pub addr: String,
    /// The model's lease id `n` is `lease_base + n` on the server: 0 for a
    /// run that owns the model's ids (confirm revokes them first), a base
    /// of its own for a run that shares the server (`locksmith real`).
    pub lease_base: i64,
}

impl Gateway {
    /// The gateway at `addr` (`host:port`), if an etcd answers there:
    /// its version.
    pub fn connect(addr: &str) -> Result<(Gateway, String), String> {
        let g = Gateway {
            addr: addr.to_string(),
            lease_base: 0,
        };
        let (_, body) = g.exchange("GET", "/version", "")?;
        let v: Value = serde_json::from_str(&body).map_err(|e| format!("{addr}: {e}"))?;
        let version = v["etcdserver"].as_str().unwrap_or("?").to_string();
        Ok((g, version))
    }

    /// Sends `req` (anything but a watch) and reads its reply.
    pub fn call(&self, req: &Request) -> Result<Reply, String> {
        let (path, body) = encode(req, self.lease_base)?;
        let (_, text) = self.exchange("POST", path, &body.to_string())?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}: {text}"))?;
        // A keep-alive's answer is one message of a stream.
        let v = if path == "/v3/lease/keepalive" {
            v["result"].clone()
        } else {
            v
        };
        decode(req, &v, self.lease_base)
    }

    /// Opens a watch of `key` from revision `from` (0: from the next one).
    pub fn watch(&self, key: &str, from: i64) -> Result<Watch, String> {
        let mut create = json!({ "key": b64(key) });
        if from > 0 {
            create["start_revision"] = json!(from.to_string());
        }
        let body = json!({ "create_request": create }).to_string();
        let stream = self.open("POST", "/v3/watch", &body)?;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).map_err(|e| e.to_string())?;
            if line.trim().is_empty() {
                break;
            }
            head.push_str(&line);
        }
        if !head.starts_with("HTTP/1.1 200") {
            return Err(format!("/v3/watch: {}", head.lines().next().unwrap_or("")));
        }
        let mut w = Watch {
            reader,
            pending: Vec::new(),
            events: 0,
        };
        // The first message says the watch is created (or why not).
        match w.message(Duration::from_secs(10))? {
            Some(m) if m["result"]["created"] == json!(true) => {
                w.take_events(&m["result"]);
                Ok(w)
            }
            Some(m) => Err(format!("/v3/watch: {m}")),
            None => Err("/v3/watch: no answer".into()),
        }
    }

    fn open(&self, method: &str, path: &str, body: &str) -> Result<TcpStream, String> {
        let mut s = TcpStream::connect(&self.addr).map_err(|e| format!("{}: {e}", self.addr))?;
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        s.write_all(req.as_bytes())
            .map_err(|e| format!("{}: {e}", self.addr))?;
        Ok(s)
    }

    /// One request and its whole response: status line, body.
    fn exchange(&self, method: &str, path: &str, body: &str) -> Result<(String, String), String> {
        let mut s = self.open(method, path, body)?;
        s.set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        let mut raw = Vec::new();
        s.read_to_end(&mut raw)
            .map_err(|e| format!("{path}: {e}"))?;
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, rest) = text
            .split_once("\r\n\r\n")
            .ok_or_else(|| format!("{path}: no HTTP response"))?;
        let chunked = head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked");
        let body = if chunked {
            dechunk(rest)
        } else {
            rest.to_string()
        };
        let status = head.lines().next().unwrap_or("").to_string();
        Ok((status, body))
    }
}

/// A watch's open stream.
pub struct Watch {
    reader: BufReader<TcpStream>,
    /// Events read and not handed out yet.
    pending: Vec<Reply>,
    /// Every event the server sent on the stream so far, `PUT`s too.
    pub events: u64,
}

impl Watch {
    /// What the watch says next within `wait`, as the model's reply: a
    /// `DELETE` event (`PUT` events are skipped, as the recipes skip
    /// them), or `ErrCompacted` when the server cancels it because its
    /// start revision was compacted; `None` if nothing came.
    pub fn next_delete(&mut self, wait: Duration) -> Result<Option<Reply>, String> {
        loop {
            if !self.pending.is_empty() {
                return Ok(Some(self.pending.remove(0)));
            }
            match self.message(wait)? {
                Some(m) => self.take_events(&m["result"]),
                None => return Ok(None),
            }
        }
    }

    fn take_events(&mut self, result: &Value) {
        for e in result["events"].as_array().into_iter().flatten() {
            self.events += 1;
            if e["type"] == json!("DELETE") {
                self.pending.push(Reply::Event(Event {
                    key: unb64(&e["kv"]["key"]),
                    revision: num(&e["kv"]["mod_revision"]),
                }));
            }
        }
        if result["canceled"] == json!(true) && num(&result["compact_revision"]) > 0 {
            self.pending.push(Reply::Error(EtcdError::Compacted));
        }
    }

    /// One message of the stream (one chunk of the chunked body: the
    /// gateway writes each message as one), or `None` if none came within
    /// `wait`.
    fn message(&mut self, wait: Duration) -> Result<Option<Value>, String> {
        self.reader
            .get_ref()
            .set_read_timeout(Some(wait))
            .map_err(|e| e.to_string())?;
        let mut size = String::new();
        match self.reader.read_line(&mut size) {
            Ok(0) => return Err("/v3/watch: the stream ended".into()),
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(None)
            }
            Err(e) => return Err(e.to_string()),
        }
        self.reader
            .get_ref()
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        let n = usize::from_str_radix(size.trim(), 16)
            .map_err(|_| format!("/v3/watch: bad chunk size {size:?}"))?;
        let mut chunk = vec![0; n + 2];
        self.reader
            .read_exact(&mut chunk)
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&chunk[..n]);
        serde_json::from_str(text.trim())
            .map(Some)
            .map_err(|e| format!("/v3/watch: {e}: {text}"))
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

fn b64(s: &str) -> String {
    B64.encode(s.as_bytes())
}

fn unb64(v: &Value) -> String {
    let bytes = B64.decode(v.as_str().unwrap_or("")).unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A protobuf JSON number (a string for 64-bit ones; absent: 0).
fn num(v: &Value) -> i64 {
    match v {
        Value::String(s) => s.parse().unwrap_or(0),
        Value::Number(n) => n.as_i64().unwrap_or(0),
        _ => 0,
    }
}

/// The byte after the last of `prefix`'s: the end of its range.
fn prefix_end(prefix: &str) -> String {
    let mut bytes = prefix.as_bytes().to_vec();
    while let Some(last) = bytes.pop() {
        if last < 0xff {
            bytes.push(last + 1);
            return B64.encode(&bytes);
        }
    }
    B64.encode([0u8])
}

fn range_json(r: &Range) -> Value {
    let mut v = json!({ "key": b64(&r.key) });
    if r.prefix {
        v["range_end"] = json!(prefix_end(&r.key));
    }
    match r.order {
        Order::Key => {}
        Order::CreateAscending => {
            v["sort_order"] = json!("ASCEND");
            v["sort_target"] = json!("CREATE");
        }
        Order::CreateDescending => {
            v["sort_order"] = json!("DESCEND");
            v["sort_target"] = json!("CREATE");
        }
    }
    if r.limit > 0 {
        v["limit"] = json!(r.limit.to_string());
    }
    if r.max_create_revision > 0 {
        v["max_create_revision"] = json!(r.max_create_revision.to_string());
    }
    v
}

/// A model lease id as the server has it.
fn wire_lease(id: LeaseId, base: i64) -> String {
    (base + i64::from(id.0)).to_string()
}

/// A server's lease id as the model has it (`None`: not one of the run's).
fn model_lease(n: i64, base: i64) -> Option<LeaseId> {
    u16::try_from(n - base).ok().map(LeaseId)
}

fn put_json(p: &Put, base: i64) -> Value {
    let mut v = json!({ "key": b64(&p.key), "value": b64(&p.value) });
    if let Some(l) = p.lease {
        v["lease"] = json!(wire_lease(l, base));
    }
    v
}

fn delete_json(key: &str, prefix: bool) -> Value {
    let mut v = json!({ "key": b64(key) });
    if prefix {
        v["range_end"] = json!(prefix_end(key));
    }
    v
}

fn op_json(op: &Op, base: i64) -> Value {
    match op {
        Op::Put(p) => json!({ "request_put": put_json(p, base) }),
        Op::Get(r) => json!({ "request_range": range_json(r) }),
        Op::Delete { key, prefix } => json!({ "request_delete_range": delete_json(key, *prefix) }),
    }
}

/// The gateway's path and body for `req`.
fn encode(req: &Request, base: i64) -> Result<(&'static str, Value), String> {
    Ok(match req {
        Request::Put(p) => ("/v3/kv/put", put_json(p, base)),
        Request::Range(r) => ("/v3/kv/range", range_json(r)),
        Request::Delete { key, prefix } => ("/v3/kv/deleterange", delete_json(key, *prefix)),
        Request::Txn(t) => {
            let compare: Vec<Value> = t
                .compare
                .iter()
                .map(|c| {
                    let result = match c.cmp {
                        Cmp::Equal => "EQUAL",
                        Cmp::NotEqual => "NOT_EQUAL",
                        Cmp::Greater => "GREATER",
                        Cmp::Less => "LESS",
                    };
                    let (target, field, value) = match &c.target {
                        Target::CreateRevision(r) => {
                            ("CREATE", "create_revision", json!(r.to_string()))
                        }
                        Target::ModRevision(r) => ("MOD", "mod_revision", json!(r.to_string())),
                        Target::Version(r) => ("VERSION", "version", json!(r.to_string())),
                        Target::Value(s) => ("VALUE", "value", json!(b64(s))),
                    };
                    let mut v = json!({ "key": b64(&c.key), "target": target, "result": result });
                    v[field] = value;
                    v
                })
                .collect();
            let ops = |ops: &[Op]| ops.iter().map(|o| op_json(o, base)).collect::<Vec<Value>>();
            (
                "/v3/kv/txn",
                json!({ "compare": compare, "success": ops(&t.success), "failure": ops(&t.failure) }),
            )
        }
        Request::Grant { id, ttl } => (
            "/v3/lease/grant",
            json!({ "ID": wire_lease(*id, base), "TTL": ttl.to_string() }),
        ),
        Request::KeepAlive(id) => (
            "/v3/lease/keepalive",
            json!({ "ID": wire_lease(*id, base) }),
        ),
        Request::Revoke(id) => ("/v3/lease/revoke", json!({ "ID": wire_lease(*id, base) })),
        Request::Compact(r) => ("/v3/kv/compaction", json!({ "revision": r.to_string() })),
        Request::Watch { .. } => return Err("a watch is a stream: Gateway::watch".into()),
    })
}

fn error_of(v: &Value) -> Option<Result<Reply, String>> {
    let text = v["error"].as_str()?;
    let known = [
        EtcdError::LeaseNotFound,
        EtcdError::Compacted,
        EtcdError::FutureRevision,
        EtcdError::LeaseExists,
        EtcdError::DuplicateKey,
    ];
    Some(
        known
            .into_iter()
            .find(|e| e.text() == text)
            .map(Reply::Error)
            .ok_or_else(|| format!("an error the model does not know: {text}")),
    )
}

fn kvs(v: &Value, base: i64) -> Vec<KeyValue> {
    v["kvs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|kv| KeyValue {
            key: unb64(&kv["key"]),
            create_revision: num(&kv["create_revision"]),
            mod_revision: num(&kv["mod_revision"]),
            version: num(&kv["version"]),
            value: unb64(&kv["value"]),
            lease: match num(&kv["lease"]) {
                0 => None,
                l => model_lease(l, base),
            },
        })
        .collect()
}

fn revision(v: &Value) -> i64 {
    num(&v["header"]["revision"])
}

/// The reply to `req` the gateway's JSON `v` says.
fn decode(req: &Request, v: &Value, base: i64) -> Result<Reply, String> {
    if let Some(e) = error_of(v) {
        return e;
    }
    Ok(match req {
        Request::Put(_) => Reply::Put {
            revision: revision(v),
        },
        Request::Range(_) => Reply::Range {
            revision: revision(v),
            kvs: kvs(v, base),
        },
        Request::Delete { .. } => Reply::Deleted {
            revision: revision(v),
            deleted: num(&v["deleted"]) as u8,
        },
        Request::Txn(_) => {
            let responses = v["responses"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| {
                    if let Some(p) = r.get("response_put") {
                        Reply::Put {
                            revision: revision(p),
                        }
                    } else if let Some(g) = r.get("response_range") {
                        Reply::Range {
                            revision: revision(g),
                            kvs: kvs(g, base),
                        }
                    } else {
                        let d = &r["response_delete_range"];
                        Reply::Deleted {
                            revision: revision(d),
                            deleted: num(&d["deleted"]) as u8,
                        }
                    }
                })
                .collect();
            Reply::Txn {
                revision: revision(v),
                succeeded: v["succeeded"] == json!(true),
                responses,
            }
        }
        Request::Grant { .. } => Reply::Granted {
            id: model_lease(num(&v["ID"]), base).unwrap_or(LeaseId(0)),
            ttl: num(&v["TTL"]) as u8,
        },
        Request::KeepAlive(id) => Reply::KeptAlive {
            id: *id,
            ttl: num(&v["TTL"]) as i8,
        },
        Request::Revoke(_) => Reply::Revoked {
            revision: revision(v),
        },
        Request::Compact(r) => Reply::Compacted { revision: *r },
        Request::Watch { .. } => return Err("a watch is a stream: Gateway::watch".into()),
    })
}

/// The model's names and numbers as a run on a shared real server has
/// them: every key under the run's own prefix, every revision counted
/// from the store's revision when the run began (the model's revision 1).
#[derive(Clone, Debug)]
pub struct Rebase {
    pub prefix: String,
    /// The real revision the model's revision 1 stands for.
    pub base: i64,
}

impl Rebase {
    pub fn key(&self, k: &str) -> String {
        format!("{}{k}", self.prefix)
    }

    /// A model revision as the real server counts it (0 and below: as is).
    pub fn revision(&self, rev: i64) -> i64 {
        if rev <= 0 {
            rev
        } else {
            rev + self.base - 1
        }
    }

    fn range(&self, r: &Range) -> Range {
        Range {
            key: self.key(&r.key),
            max_create_revision: self.revision(r.max_create_revision),
            ..r.clone()
        }
    }

    fn put(&self, p: &Put) -> Put {
        Put {
            key: self.key(&p.key),
            ..p.clone()
        }
    }

    fn op(&self, op: &Op) -> Op {
        match op {
            Op::Put(p) => Op::Put(self.put(p)),
            Op::Get(r) => Op::Get(self.range(r)),
            Op::Delete { key, prefix } => Op::Delete {
                key: self.key(key),
                prefix: *prefix,
            },
        }
    }

    /// The model's request as the real server is sent it.
    pub fn request(&self, req: &Request) -> Request {
        match req {
            Request::Put(p) => Request::Put(self.put(p)),
            Request::Range(r) => Request::Range(self.range(r)),
            Request::Delete { key, prefix } => Request::Delete {
                key: self.key(key),
                prefix: *prefix,
            },
            Request::Txn(t) => Request::Txn(locksmith_model::etcd::Txn {
                compare: t
                    .compare
                    .iter()
                    .map(|c| locksmith_model::etcd::Compare {
                        key: self.key(&c.key),
                        cmp: c.cmp,
                        target: match &c.target {
                            Target::CreateRevision(r) => Target::CreateRevision(self.revision(*r)),
                            Target::ModRevision(r) => Target::ModRevision(self.revision(*r)),
                            other => other.clone(),
                        },
                    })
                    .collect(),
                success: t.success.iter().map(|o| self.op(o)).collect(),
                failure: t.failure.iter().map(|o| self.op(o)).collect(),
            }),
            Request::Watch { key, from } => Request::Watch {
                key: self.key(key),
                from: self.revision(*from),
            },
            Request::Compact(r) => Request::Compact(self.revision(*r)),
            other => other.clone(),
        }
    }

    /// A real key as the model names it: without the run's prefix.
    fn model_key(&self, k: &str) -> String {
        k.strip_prefix(&self.prefix).unwrap_or(k).to_string()
    }

    /// A real revision as the model counts it (0 and below: as is).
    fn model_revision(&self, rev: i64) -> i64 {
        if rev <= 0 {
            rev
        } else {
            rev - self.base + 1
        }
    }

    /// The real server's reply in the model's names and revisions: what
    /// [`Rebase::reply`] undoes.
    pub fn to_model(&self, reply: &Reply) -> Reply {
        renamed(reply, &|k| self.model_key(k), &|r| self.model_revision(r))
    }

    /// A key of the model as the real server has it.
    pub fn kv(&self, kv: &KeyValue) -> KeyValue {
        renamed_kv(kv, &|k| self.key(k), &|r| self.revision(r))
    }

    /// The model's reply as the real server says it.
    pub fn reply(&self, reply: &Reply) -> Reply {
        renamed(reply, &|k| self.key(k), &|r| self.revision(r))
    }
}

/// `kv` with its key and revisions mapped.
fn renamed_kv(kv: &KeyValue, key: &dyn Fn(&str) -> String, rev: &dyn Fn(i64) -> i64) -> KeyValue {
    KeyValue {
        key: key(&kv.key),
        create_revision: rev(kv.create_revision),
        mod_revision: rev(kv.mod_revision),
        ..kv.clone()
    }
}

/// `reply` with every key and revision in it mapped (either way between
/// the model's names and the server's).
fn renamed(reply: &Reply, key: &dyn Fn(&str) -> String, rev: &dyn Fn(i64) -> i64) -> Reply {
    let kvs = |kvs: &[KeyValue]| kvs.iter().map(|kv| renamed_kv(kv, key, rev)).collect();
    match reply {
        Reply::Put { revision } => Reply::Put {
            revision: rev(*revision),
        },
        Reply::Range { revision, kvs: k } => Reply::Range {
            revision: rev(*revision),
            kvs: kvs(k),
        },
        Reply::Deleted { revision, deleted } => Reply::Deleted {
            revision: rev(*revision),
            deleted: *deleted,
        },
        Reply::Txn {
            revision,
            succeeded,
            responses,
        } => Reply::Txn {
            revision: rev(*revision),
            succeeded: *succeeded,
            responses: responses.iter().map(|r| renamed(r, key, rev)).collect(),
        },
        Reply::Revoked { revision } => Reply::Revoked {
            revision: rev(*revision),
        },
        Reply::Event(e) => Reply::Event(Event {
            key: key(&e.key),
            revision: rev(e.revision),
        }),
        Reply::Compacted { revision } => Reply::Compacted {
            revision: rev(*revision),
        },
        other => other.clone(),
    }
}
