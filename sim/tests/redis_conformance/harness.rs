//! The connections to the real server and the figures of a run.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

/// What a run compared.
#[derive(Default)]
pub struct Figures {
    /// Sequences that ran to the end in agreement.
    pub sequences: u64,
    /// Commands sent to both sides and compared (shrinking runs included).
    pub commands: u64,
    pub disagreements: u64,
    pub sleeps: u64,
    /// PTTLs of keys with a TTL, compared within the tolerance.
    pub pttl_compared: u64,
    pub pttl_max_delta: i64,
    /// Command and common reply → count.
    pub coverage: BTreeMap<String, u64>,
}

impl fmt::Display for Figures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} sequences, {} commands compared ({} PTTLs of keys with a TTL, largest difference {} ms), {} sleeps, {} disagreements",
            self.sequences,
            self.commands,
            self.pttl_compared,
            self.pttl_max_delta,
            self.sleeps,
            self.disagreements
        )
    }
}

/// Several connections to one real server (the test runs one case at a
/// time, on one thread).
pub struct Harness {
    pub addr: String,
    conns: RefCell<Vec<redis::Connection>>,
    pub figures: RefCell<Figures>,
}

impl Harness {
    /// Connects `n` times to `LOCKSMITH_REDIS_ADDR` (default
    /// 127.0.0.1:6390), or panics saying how to start a server.
    pub fn connect(n: usize) -> Harness {
        let addr =
            std::env::var("LOCKSMITH_REDIS_ADDR").unwrap_or_else(|_| "127.0.0.1:6390".into());
        let url = format!("redis://{addr}/");
        let conns = (0..n)
            .map(|_| {
                redis::Client::open(url.as_str())
                    .and_then(|c| c.get_connection())
                    .unwrap_or_else(|e| {
                        panic!(
                            "cannot connect to a redis-server at {addr} ({e}): start one with \
                             scripts/redis.sh start (LOCKSMITH_REDIS_PORT picks its port) and \
                             point LOCKSMITH_REDIS_ADDR at it"
                        )
                    })
            })
            .collect();
        Harness {
            addr,
            conns: RefCell::new(conns),
            figures: RefCell::new(Figures::default()),
        }
    }

    /// The server's version, from `INFO server`.
    pub fn version(&self) -> String {
        let info: String = redis::cmd("INFO")
            .arg("server")
            .query(&mut self.conns.borrow_mut()[0])
            .unwrap_or_default();
        info.lines()
            .find_map(|l| l.strip_prefix("redis_version:"))
            .unwrap_or("unknown")
            .trim()
            .to_string()
    }

    /// Empties the server's database before a case.
    pub fn flush(&self) -> Result<(), String> {
        redis::cmd("FLUSHDB")
            .query::<()>(&mut self.conns.borrow_mut()[0])
            .map_err(|e| format!("FLUSHDB failed: {e}"))
    }

    /// Sends one command on connection `conn` and returns its reply; a
    /// connection failure (not a server error reply) is an error.
    pub fn send(
        &self,
        conn: usize,
        cmd: &redis::Cmd,
    ) -> Result<locksmith::redis::real::wire::Wire, String> {
        use redis::ConnectionLike;
        let reply = self.conns.borrow_mut()[conn].req_command(cmd);
        match reply {
            Err(e) if e.code().is_none() => Err(format!("connection {conn} failed: {e}")),
            r => Ok(locksmith::redis::real::wire::observed(r)),
        }
    }
}
