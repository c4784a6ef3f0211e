//! `serve --protocol resp`: the Redis model behind RESP2, for real Redis
//! client libraries (redis-py's `Lock`): one keyspace, time that passes as
//! the wall clock does (every key's TTL shrinks with it), and the
//! commands and scripts the model runs ([`command`]).

pub mod codec;
pub mod command;

use super::record::Record;
use super::{lock, State};
use command::Parsed;
use locksmith_model::redis::{Command, RedisServer, Reply, Value};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// The served Redis: the model's server and its clock.
pub struct Store {
    server: RedisServer,
    /// Up to when the model's time has been advanced.
    moved_to: Instant,
    /// The Unix time (ms) the model's reference time stands at: moved by
    /// exactly what the model is advanced by, so that a timestamp a client
    /// writes reads back to the millisecond.
    unix_ms: i64,
    /// The counts, the log and the `--verbose` lines.
    pub(super) record: Record,
}

impl Store {
    pub fn new(now: Instant, verbose: bool) -> Store {
        let mut record = Record::new(now);
        record.verbose = verbose;
        Store {
            server: RedisServer::new(),
            moved_to: now,
            unix_ms: unix_ms(),
            record,
        }
    }

    /// The model's time catches up with the wall clock, in whole ms.
    fn catch_up(&mut self, now: Instant) {
        let ms = now.saturating_duration_since(self.moved_to).as_millis() as u64;
        self.server.advance(ms);
        self.moved_to += std::time::Duration::from_millis(ms);
        self.unix_ms += ms as i64;
    }
}

fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

pub(super) async fn accept(listener: TcpListener, state: Arc<Mutex<State>>) {
    while let Ok((stream, _)) = listener.accept().await {
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve(stream, state.clone()));
    }
}

async fn serve(stream: TcpStream, state: Arc<Mutex<State>>) {
    let (reader, mut writer) = stream.into_split();
    let mut reader = BufReader::new(reader);
    let id = {
        let mut s = lock(&state);
        s.redis.record.counts.connections += 1;
        s.redis.record.counts.connections
    };
    // `HELLO 3` switches the connection to RESP3 (nil is `_`).
    let mut resp3 = false;
    loop {
        let words = match codec::read_command(&mut reader).await {
            Ok(Some(w)) if w.is_empty() => continue,
            Ok(Some(w)) => w,
            Ok(None) => break,
            Err(why) => {
                let _ = writer
                    .write_all(&codec::error(&format!("ERR Protocol error: {why}")))
                    .await;
                break;
            }
        };
        let reply = execute(&mut lock(&state), &words, Instant::now(), (id, &mut resp3));
        if writer.write_all(&reply).await.is_err() {
            break;
        }
    }
}

/// One command, answered.
fn execute(
    s: &mut State,
    words: &[Vec<u8>],
    now: Instant,
    (conn, resp3): (u64, &mut bool),
) -> Vec<u8> {
    s.redis.catch_up(now);
    let unix = s.redis.unix_ms;
    let name = words
        .first()
        .map(|w| String::from_utf8_lossy(w).to_ascii_uppercase())
        .unwrap_or_default();
    if !matches!(name.as_str(), "SET" | "GET" | "DEL" | "EVAL" | "EVALSHA") {
        let shown: Vec<String> = words
            .iter()
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        s.redis.record.trace_line(now, &shown.join(" "));
    }
    let counts = &mut s.redis.record.counts;
    counts.requests += 1;
    *counts.by_op.entry(name.clone()).or_default() += 1;
    let parsed = match command::parse(words, unix) {
        Ok(p) => p,
        Err(e) => {
            if e.starts_with("ERR unknown command") || e.contains("not one the model runs") {
                let entry = counts.unsupported.entry(name).or_insert((0, e.clone()));
                entry.0 += 1;
            }
            return codec::error(&e);
        }
    };
    match parsed {
        Parsed::Ping => codec::simple("PONG"),
        Parsed::ClientId => codec::integer(conn as i64),
        Parsed::Flush => {
            s.redis.server = RedisServer::new();
            codec::simple("OK")
        }
        Parsed::Info => codec::bulk(
            b"# Server\r\nredis_version:7.0.0-locksmith-serve\r\nredis_mode:standalone\r\n",
        ),
        Parsed::Exists(keys) => {
            let n = keys
                .iter()
                .filter(|k| s.redis.server.entry(k).is_some())
                .count();
            codec::integer(n as i64)
        }
        Parsed::Hello(proto) => {
            *resp3 = proto == 3;
            codec::map(
                &[
                    ("server", codec::bulk(b"redis")),
                    ("version", codec::bulk(b"7.0.0-locksmith-serve")),
                    ("proto", codec::integer(i64::from(proto))),
                    ("id", codec::integer(1)),
                    ("mode", codec::bulk(b"standalone")),
                    ("role", codec::bulk(b"master")),
                    ("modules", b"*0\r\n".to_vec()),
                ],
                proto == 3,
            )
        }
        Parsed::Ok => codec::simple("OK"),
        Parsed::NoScript => codec::error("NOSCRIPT No matching script. Please use EVAL."),
        Parsed::ScriptLoad(Some(script)) => codec::bulk(script.id().as_bytes()),
        Parsed::ScriptLoad(None) => {
            let why = "ERR locksmith serve: this script is not one the model runs (docs/serve.md)";
            let entry = counts
                .unsupported
                .entry("SCRIPT LOAD".into())
                .or_insert((0, why.into()));
            entry.0 += 1;
            codec::error(why)
        }
        Parsed::Model(cmd) => {
            if incr_overflows(&s.redis, &cmd) {
                return codec::error("ERR increment or decrement would overflow");
            }
            let reply = s.redis.server.apply(&cmd);
            s.redis
                .record
                .trace_line(now, &format!("{cmd} -> {reply:?}"));
            encode(&reply, unix, *resp3)
        }
    }
}

/// INCR of a timestamp at `i64::MAX` on the wire: the model keeps
/// timestamps relative to its reference time, so the overflow is the wire's
/// to answer, as Redis does, before anything changes.
fn incr_overflows(store: &Store, cmd: &Command) -> bool {
    let Command::Incr { key } = cmd else {
        return false;
    };
    match store.server.entry(key).map(|e| &e.value) {
        Some(Value::Stamp(k)) => store.unix_ms.checked_add(*k + 1).is_none(),
        _ => false,
    }
}

fn encode(reply: &Reply, unix: i64, resp3: bool) -> Vec<u8> {
    match reply {
        Reply::Nil => codec::nil(resp3),
        Reply::Ok => codec::simple("OK"),
        Reply::Int(n) => codec::integer(*n),
        Reply::Stamp(k) => codec::integer(unix.saturating_add(*k)),
        Reply::Bulk(v) => codec::bulk(v.to_wire(unix).as_bytes()),
        Reply::Err(e) => codec::error(&e.to_string()),
    }
}
