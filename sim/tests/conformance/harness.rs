//! The harness: a runtime, an observer session of the test's own, the run's
//! figures, and the server's session count.

use crate::common::{one_at_a_time, zk_addr};
use crate::peer::{Peer, SESSION_TIMEOUT};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

const HOW_TO_START: &str = "start one with `scripts/zookeeper.sh start` (after \
     `apt-get update && apt-get install -y zookeeper`), then run \
     `cargo test -p locksmith --test conformance -- --ignored`";

pub struct Harness {
    /// The zxid check needs the server to this test alone.
    _turn: MutexGuard<'static, ()>,
    pub rt: tokio::runtime::Runtime,
    pub addr: String,
    /// A session of the test's own, outside the model: creates each case's
    /// root and watches for container reaps. It never watches anything.
    pub observer: RefCell<Option<Peer>>,
    /// Unique per process, so roots never collide with earlier runs.
    run: String,
    next_root: AtomicU64,
    pub totals: Totals,
}

#[derive(Default)]
pub struct Totals {
    pub sequences: AtomicU64,
    pub ops: AtomicU64,
    pub closes_at_end: AtomicU64,
    pub events: AtomicU64,
    pub reaps: AtomicU64,
    pub close_self_events: AtomicU64,
    /// What the compared steps exercised: "create Container ok",
    /// "delete BadVersion", "event NodeDeleted", ...
    coverage: Mutex<BTreeMap<String, u64>>,
}

impl Totals {
    pub fn cover(&self, what: String) {
        *self.coverage.lock().unwrap().entry(what).or_default() += 1;
    }
}

impl Harness {
    pub fn connect() -> Harness {
        let turn = one_at_a_time();
        let addr = zk_addr();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let observer = match rt.block_on(Peer::open(&addr, false, false)) {
            Ok(c) => c,
            Err(e) => panic!(
                "\n\nNo ZooKeeper answers at {addr}: {e}.\nThis test needs a real server: \
                 {HOW_TO_START}.\n\n"
            ),
        };
        let run = format!(
            "{:x}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis()
        );
        Harness {
            _turn: turn,
            rt,
            addr,
            observer: RefCell::new(Some(observer)),
            run,
            next_root: AtomicU64::new(0),
            totals: Totals::default(),
        }
    }

    /// Waits until the observer is the server's only session: sessions left
    /// by an earlier, killed run expire within their timeout, and each would
    /// consume a zxid at a random moment of a case.
    pub fn wait_until_alone(&self) -> Result<(), String> {
        let limit = SESSION_TIMEOUT * 3;
        let since = Instant::now();
        loop {
            let sessions = global_sessions(&self.addr)?;
            if sessions <= 1 {
                return Ok(());
            }
            if since.elapsed() > limit {
                return Err(format!(
                    "the server at {} has {sessions} sessions besides none expected but the \
                     observer, still after {limit:?}: the conformance test needs a ZooKeeper of \
                     its own (scripts/zookeeper.sh start)",
                    self.addr
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn fresh_root(&self) -> String {
        let n = self.next_root.fetch_add(1, Ordering::Relaxed);
        format!("/t{}_{n}", self.run)
    }

    pub fn coverage(&self) -> String {
        self.totals
            .coverage
            .lock()
            .unwrap()
            .iter()
            .map(|(k, n)| format!("  {n:>7}  {k}\n"))
            .collect()
    }

    pub fn figures(&self) -> String {
        let t = &self.totals;
        format!(
            "{} sequences, {} generated operations compared (+ {} end-of-sequence closes), \
             {} watch events and {} container reaps matched; {} events to a closing session \
             set aside (documented simplification)",
            t.sequences.load(Ordering::Relaxed),
            t.ops.load(Ordering::Relaxed),
            t.closes_at_end.load(Ordering::Relaxed),
            t.events.load(Ordering::Relaxed),
            t.reaps.load(Ordering::Relaxed),
            t.close_self_events.load(Ordering::Relaxed),
        )
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(mut observer) = self.observer.get_mut().take() {
            // Nothing to do about a close the server does not confirm: the
            // session expires on its own.
            let _ = self.rt.block_on(observer.close());
        }
    }
}

/// The server's live session count, from the `mntr` four-letter word
/// (whitelisted by scripts/zookeeper.sh).
pub fn global_sessions(addr: &str) -> Result<u64, String> {
    use std::io::{Read, Write};
    let fail = |e: std::io::Error| format!("mntr on {addr}: {e}");
    let mut conn = std::net::TcpStream::connect(addr).map_err(fail)?;
    conn.set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(fail)?;
    conn.write_all(b"mntr").map_err(fail)?;
    let mut out = String::new();
    conn.read_to_string(&mut out).map_err(fail)?;
    out.lines()
        .find_map(|l| l.strip_prefix("zk_global_sessions"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| {
            format!(
                "mntr on {addr} has no zk_global_sessions (is `mntr` in 4lw.commands.whitelist? \
                 scripts/zookeeper.sh sets it): {out:?}"
            )
        })
}
