//! The real side: one thread per connection (a statement may block in the
//! server while the others go on), an observer connection that looks at
//! InnoDB's lock waits, kills connections and waits for purge, and the
//! figures of a run.

use locksmith::mysql::real::wire;
use mysql::prelude::Queryable;
use mysql::{Conn, Opts};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use locksmith_model::mysql::{SetVersion, Statement};

/// The rows between the lock names and after the last one (negative ids:
/// they leave the AUTO_INCREMENT counter at 1). Without `f`, the gap of
/// `e` would end at the page's supremum, whose lock is a lock object of
/// another type (InnoDB locks the supremum as a next-key lock): one more
/// object in a deadlock's weight, which the model's per-name gaps do not
/// count.
pub const SEPARATORS: &str = "INSERT INTO locks (id, name) VALUES (-1, 'b'), (-2, 'd'), (-3, 'f')";

/// The session's lock wait timeout, in seconds.
pub const LOCK_WAIT_TIMEOUT_S: u64 = 1;

/// What a run compared.
#[derive(Default)]
pub struct Figures {
    pub sequences: u64,
    /// Statements sent to both sides and compared (shrinking included).
    pub statements: u64,
    /// Of those, how many waited for a lock on both sides.
    pub waits: u64,
    pub timeouts: u64,
    pub deadlocks: u64,
    pub kills: u64,
    /// Generated steps not sent (connection busy, or a second waiter).
    pub skipped: u64,
    /// Of those, steps on a name whose delete-marked record may still wait
    /// for purge (a row inserted and deleted by one transaction).
    pub skipped_unpurged: u64,
    pub purge_waits: u64,
    /// Times InnoDB did not count every lock wait the model has within
    /// 2 s (the test went on without that guarantee).
    pub unsettled_waits: u64,
    pub disagreements: u64,
    /// Statement kind and common reply → count.
    pub coverage: BTreeMap<String, u64>,
}

impl fmt::Display for Figures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} sequences, {} statements compared ({} lock waits, {} lock wait timeouts, {} deadlocks), \
             {} kills, {} purge waits, {} steps skipped ({} on an unpurged name), \
             {} lock waits not counted by InnoDB within 2 s, {} disagreements",
            self.sequences,
            self.statements,
            self.waits,
            self.timeouts,
            self.deadlocks,
            self.kills,
            self.purge_waits,
            self.skipped,
            self.skipped_unpurged,
            self.unsettled_waits,
            self.disagreements
        )
    }
}

enum Job {
    Run(Statement),
    Reconnect,
}

/// What the real side said: the reply in the model's `Display` form, or
/// that the connection went away.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observed {
    Reply(String),
    Lost(String),
}

struct Worker {
    jobs: Sender<Job>,
    replies: Receiver<Observed>,
    thread_id: u32,
    _handle: JoinHandle<()>,
}

pub struct Harness {
    pub url: String,
    observer: RefCell<Conn>,
    workers: RefCell<Vec<Worker>>,
    pub figures: RefCell<Figures>,
}

fn opts(url: &str, found_rows: bool) -> Opts {
    wire::opts(url, found_rows).unwrap_or_else(|e| panic!("bad LOCKSMITH_MYSQL_URL {e}"))
}

fn connect(url: &str, found_rows: bool) -> Result<Conn, String> {
    let mut c = Conn::new(opts(url, found_rows)).map_err(|e| {
        format!(
            "cannot connect to MariaDB at {url} ({e}): start one with scripts/mariadb.sh start \
             (LOCKSMITH_MARIADB_PORT picks its port) and point LOCKSMITH_MYSQL_URL at it"
        )
    })?;
    c.query_drop(format!(
        "SET SESSION innodb_lock_wait_timeout = {LOCK_WAIT_TIMEOUT_S}"
    ))
    .map_err(|e| e.to_string())?;
    Ok(c)
}

/// Runs one statement and renders the reply as the model's `Reply`
/// displays it.
fn execute(c: &mut Conn, stmt: &Statement) -> Observed {
    let sql = stmt.sql();
    let result = match stmt {
        Statement::Select { .. } | Statement::SelectForUpdate { .. } => c
            .query::<(u64, i64, i64), _>(&sql)
            .map(|rows| match rows.first() {
                None => "empty".to_string(),
                Some((id, status, version)) => format!("row ({id}, {status}, {version})"),
            }),
        _ => c.query_drop(&sql).map(|()| {
            let affected = c.affected_rows();
            match stmt {
                Statement::Insert { .. }
                | Statement::Update {
                    set_version: SetVersion::Token,
                    ..
                } => format!("OK {affected} id {}", c.last_insert_id()),
                _ => format!("OK {affected}"),
            }
        }),
    };
    match result {
        Ok(s) => Observed::Reply(s),
        Err(mysql::Error::MySqlError(e)) if e.code != 1927 => {
            Observed::Reply(format!("ERROR {}: {}", e.code, e.message))
        }
        Err(e) => Observed::Lost(e.to_string()),
    }
}

fn spawn_worker(url: &str, found_rows: bool) -> Worker {
    let (jobs, job_rx) = channel::<Job>();
    let (reply_tx, replies) = channel::<Observed>();
    let (id_tx, id_rx) = channel::<Result<u32, String>>();
    let url = url.to_string();
    let handle = std::thread::spawn(move || {
        let mut conn = match connect(&url, found_rows) {
            Ok(c) => c,
            Err(e) => {
                let _ = id_tx.send(Err(e));
                return;
            }
        };
        let _ = id_tx.send(Ok(conn.connection_id()));
        while let Ok(job) = job_rx.recv() {
            let reply = match job {
                Job::Run(stmt) => execute(&mut conn, &stmt),
                Job::Reconnect => match connect(&url, found_rows) {
                    Ok(c) => {
                        conn = c;
                        Observed::Reply(conn.connection_id().to_string())
                    }
                    Err(e) => Observed::Lost(e),
                },
            };
            if reply_tx.send(reply).is_err() {
                return;
            }
        }
    });
    let thread_id = match id_rx.recv() {
        Ok(Ok(id)) => id,
        Ok(Err(e)) => panic!("{e}"),
        Err(_) => panic!("the connection thread died"),
    };
    Worker {
        jobs,
        replies,
        thread_id,
        _handle: handle,
    }
}

impl Harness {
    /// Opens the observer and one connection per slot (`found_rows[i]`:
    /// slot i sets CLIENT_FOUND_ROWS) to `LOCKSMITH_MYSQL_URL` (default
    /// mysql://locksmith@127.0.0.1:3390/locksmith); creates the table.
    pub fn connect(found_rows: &[bool]) -> Harness {
        let url = std::env::var("LOCKSMITH_MYSQL_URL")
            .unwrap_or_else(|_| "mysql://locksmith@127.0.0.1:3390/locksmith".into());
        let mut observer = connect(&url, false).unwrap_or_else(|e| panic!("{e}"));
        // The lock table, as `locksmith_model::mysql::statement` describes
        // it, afresh.
        observer
            .query_drop("DROP TABLE IF EXISTS locks")
            .and_then(|()| observer.query_drop(wire::create_table("locks")))
            .unwrap_or_else(|e| panic!("cannot create the lock table: {e}"));
        let workers = found_rows.iter().map(|&f| spawn_worker(&url, f)).collect();
        Harness {
            url,
            observer: RefCell::new(observer),
            workers: RefCell::new(workers),
            figures: RefCell::new(Figures::default()),
        }
    }

    pub fn version(&self) -> String {
        self.observer
            .borrow_mut()
            .query_first::<String, _>("SELECT VERSION()")
            .ok()
            .flatten()
            .unwrap_or_else(|| "unknown".into())
    }

    /// Ends every slot's transaction and empties the table (the counter
    /// back at 1), with the separator rows in place.
    pub fn reset(&self) -> Result<(), String> {
        for slot in 0..self.workers.borrow().len() {
            self.send(slot, Statement::Rollback);
            match self.reply(slot, Duration::from_secs(10)) {
                Some(Observed::Reply(_)) => {}
                other => return Err(format!("ROLLBACK on slot {slot} before a case: {other:?}")),
            }
        }
        let mut o = self.observer.borrow_mut();
        o.query_drop("TRUNCATE TABLE locks")
            .and_then(|()| o.query_drop(SEPARATORS))
            .map_err(|e| format!("resetting the table: {e}"))
    }

    /// Drops every reply not read yet (after a failed case).
    pub fn drain(&self) {
        for w in self.workers.borrow().iter() {
            while w.replies.recv_timeout(Duration::from_millis(50)).is_ok() {}
        }
    }

    pub fn send(&self, slot: usize, stmt: Statement) {
        let _ = self.workers.borrow()[slot].jobs.send(Job::Run(stmt));
    }

    /// The slot's next reply, if it comes within `wait`.
    pub fn reply(&self, slot: usize, wait: Duration) -> Option<Observed> {
        match self.workers.borrow()[slot].replies.recv_timeout(wait) {
            Ok(o) => Some(o),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                Some(Observed::Lost("connection thread gone".into()))
            }
        }
    }

    /// Whether InnoDB shows the slot's transaction waiting for a lock,
    /// polled for up to `wait`; a reply that comes meanwhile is returned.
    pub fn waits(&self, slot: usize, wait: Duration) -> Result<(), Observed> {
        let id = self.workers.borrow()[slot].thread_id;
        let deadline = Instant::now() + wait;
        loop {
            if let Some(o) = self.reply(slot, Duration::ZERO) {
                return Err(o);
            }
            let state = self.trx_state(id).map_err(Observed::Lost)?;
            if state.as_deref() == Some("LOCK WAIT") {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Observed::Lost(format!(
                    "no reply and no lock wait within {wait:?} (trx_state {state:?})"
                )));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// The state of thread `id`'s transaction as `SHOW ENGINE INNODB
    /// STATUS` lists it ("LOCK WAIT", "ACTIVE", or None without one).
    /// (`information_schema.INNODB_TRX` is a cache that is refreshed only
    /// when it has not been read for 0.1 s, so it cannot be polled.)
    fn trx_state(&self, id: u32) -> Result<Option<String>, String> {
        let status: Option<(String, String, String)> = self
            .observer
            .borrow_mut()
            .query_first("SHOW ENGINE INNODB STATUS")
            .map_err(|e| format!("observer: {e}"))?;
        let text = status.map(|s| s.2).unwrap_or_default();
        let needle = format!("MariaDB thread id {id},");
        Ok(text
            .split("---TRANSACTION")
            .find(|t| t.contains(&needle))
            .map(|t| {
                if t.contains("LOCK WAIT") {
                    "LOCK WAIT"
                } else {
                    "ACTIVE"
                }
                .to_string()
            }))
    }

    /// Waits until InnoDB counts `n` row lock waits
    /// (`Innodb_row_lock_current_waits`), polled for up to `wait`. A
    /// waiting statement shows `LOCK WAIT` as soon as its request is
    /// queued, but its thread runs the deadlock check only after that, and
    /// counts the wait only once the check has passed (`lock_wait()` in
    /// MariaDB's `lock0lock.cc`). In a deadlock whose two transactions
    /// weigh the same, the victim is the transaction whose thread runs the
    /// check, so the next statement must not be sent before it has run.
    pub fn lock_waits_counted(&self, n: u64, wait: Duration) -> Result<bool, String> {
        let deadline = Instant::now() + wait;
        loop {
            let row: Option<(String, u64)> = self
                .observer
                .borrow_mut()
                .query_first("SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'")
                .map_err(|e| format!("observer: {e}"))?;
            if row.is_some_and(|(_, count)| count >= n) {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// `KILL`s the slot's connection, waits until the server has let it
    /// go (its transaction rolled back), and reconnects the slot. A
    /// statement the slot was waiting on ends without a reply to compare.
    pub fn kill(&self, slot: usize, was_waiting: bool) -> Result<(), String> {
        let id = self.workers.borrow()[slot].thread_id;
        let mut o = self.observer.borrow_mut();
        o.query_drop(format!("KILL CONNECTION {id}"))
            .map_err(|e| format!("KILL {id}: {e}"))?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left: Option<u64> = o
                .exec_first(
                    "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?",
                    (id,),
                )
                .map_err(|e| e.to_string())?;
            if left == Some(0) {
                break;
            }
            if Instant::now() >= deadline {
                return Err(format!("connection {id} still there 10 s after KILL"));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        drop(o);
        if was_waiting {
            match self.reply(slot, Duration::from_secs(5)) {
                Some(Observed::Lost(_)) => {}
                other => return Err(format!("killed slot {slot} answered {other:?}")),
            }
        }
        let _ = self.workers.borrow()[slot].jobs.send(Job::Reconnect);
        match self.reply(slot, Duration::from_secs(10)) {
            Some(Observed::Reply(new_id)) => {
                self.workers.borrow_mut()[slot].thread_id = new_id
                    .parse()
                    .map_err(|_| format!("bad connection id {new_id}"))?;
                Ok(())
            }
            other => Err(format!("reconnecting slot {slot}: {other:?}")),
        }
    }

    /// Waits until InnoDB has purged every transaction committed so far
    /// (so that a deleted name has no delete-marked record left, as in the
    /// model): until `SHOW ENGINE INNODB STATUS` says "Purge done for
    /// trx's n:o < P" with P at least the "Trx id counter" it showed first,
    /// or "History list length 0" (nothing committed is left to purge; P
    /// stays below the counter when the last transaction left no undo).
    /// (`innodb_max_purge_lag_wait` cannot serve: with a transaction open
    /// the history list may not empty.)
    pub fn purge(&self) -> Result<(), String> {
        self.figures.borrow_mut().purge_waits += 1;
        let number = |text: &str, label: &str| -> Option<u64> {
            let rest = &text[text.find(label)? + label.len()..];
            rest.split(|c: char| !c.is_ascii_digit())
                .find(|w| !w.is_empty())?
                .parse()
                .ok()
        };
        let status = || -> Result<String, String> {
            let s: Option<(String, String, String)> = self
                .observer
                .borrow_mut()
                .query_first("SHOW ENGINE INNODB STATUS")
                .map_err(|e| format!("observer: {e}"))?;
            Ok(s.map(|s| s.2).unwrap_or_default())
        };
        let counter = number(&status()?, "Trx id counter ")
            .ok_or("no \"Trx id counter\" in SHOW ENGINE INNODB STATUS")?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = status()?;
            let done = number(&text, "Purge done for trx's n:o < ").unwrap_or(0);
            let history = number(&text, "History list length ").unwrap_or(u64::MAX);
            if done >= counter || history == 0 {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "purge still below trx {counter} (done < {done}) after 10 s"
                ));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
