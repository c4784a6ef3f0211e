//! One sequence on both sides, compared step by step.
//!
//! The model's time is the wall time the case has run (the only clock
//! here: it feeds the model's lock wait timeouts, never a verdict). The
//! model's start of a wait is taken before the statement is sent, so a
//! wait never times out in the model later than in the server; when the
//! model says a statement finished, the test waits for the server's reply.

use crate::harness::{Harness, Observed, LOCK_WAIT_TIMEOUT_S};
use crate::ops::{Step, CONNECTIONS};
use locksmith_model::mysql::{
    Completion, MysqlError, MysqlServer, Name, Reply, Session, SetVersion, Statement,
};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// How long to wait for a reply the model says is due.
const REPLY_WAIT: Duration = Duration::from_secs(5);

/// Which slots set CLIENT_FOUND_ROWS: the second one.
pub const FOUND_ROWS: [bool; CONNECTIONS] = [false, true, false];

fn sessions() -> Vec<Session> {
    FOUND_ROWS
        .iter()
        .map(|&found_rows| Session {
            found_rows,
            lock_wait_timeout_ms: LOCK_WAIT_TIMEOUT_S * 1000,
        })
        .collect()
}

/// The statement's kind and the reply's kind, for the coverage list.
fn coverage_key(stmt: Option<&Statement>, reply: &Reply) -> String {
    let kind = match stmt {
        Some(Statement::Begin) => "START TRANSACTION",
        Some(Statement::Commit) => "COMMIT",
        Some(Statement::Rollback) => "ROLLBACK",
        Some(Statement::Insert { .. }) => "INSERT",
        Some(Statement::Delete { .. }) => "DELETE",
        Some(Statement::SelectForUpdate { .. }) => "SELECT FOR UPDATE",
        Some(Statement::Select { .. }) => "SELECT",
        Some(Statement::Update {
            set_version: SetVersion::Token,
            ..
        }) => "UPDATE … LAST_INSERT_ID",
        Some(Statement::Update { .. }) => "UPDATE",
        None => "?",
    };
    let reply = match reply {
        Reply::Ok { affected, .. } => format!("OK {affected}"),
        Reply::Rows(Some(_)) => "row".into(),
        Reply::Rows(None) => "empty".into(),
        Reply::Err(e) => format!("ERROR {}", e.code()),
    };
    format!("{kind:<24} {reply}")
}

fn blocked_count(m: &MysqlServer) -> usize {
    (0..m.connections())
        .filter(|&c| m.blocked(c).is_some())
        .count()
}

struct Run<'a> {
    h: &'a Harness,
    model: MysqlServer,
    started: Instant,
    transcript: String,
    /// What each slot last sent, for the transcript and the coverage.
    sent: [Option<Statement>; CONNECTIONS],
    /// Names a transaction inserted and deleted again: their delete-marked
    /// record stays in InnoDB until purge, which the model does not have,
    /// so no step touches them until the test has waited for purge.
    unpurged: BTreeSet<Name>,
}

impl Run<'_> {
    fn now(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Compares the model's completions with the server's replies.
    fn settle(&mut self, done: Vec<Completion>) -> Result<(), String> {
        for c in done {
            let expected = c.reply.to_string();
            let observed = self.h.reply(c.conn, REPLY_WAIT);
            let what = self.sent[c.conn]
                .as_ref()
                .map_or(String::new(), |s| s.to_string());
            let agree = observed.as_ref() == Some(&Observed::Reply(expected.clone()));
            let _ = writeln!(
                self.transcript,
                "  t={:>5} ms  conn {}  {what}\n      -> model {expected}, real {observed:?}{}",
                self.now(),
                c.conn,
                if agree { "" } else { "   <-- DISAGREE" }
            );
            let mut f = self.h.figures.borrow_mut();
            f.statements += 1;
            if !agree {
                f.disagreements += 1;
                return Err(std::mem::take(&mut self.transcript));
            }
            match c.reply {
                Reply::Err(MysqlError::LockWaitTimeout) => f.timeouts += 1,
                Reply::Err(MysqlError::Deadlock) => f.deadlocks += 1,
                _ => {}
            }
            let key = coverage_key(self.sent[c.conn].as_ref(), &c.reply);
            *f.coverage.entry(key).or_default() += 1;
        }
        Ok(())
    }

    /// Every statement the model has waiting must be waiting in InnoDB.
    fn check_waiting(&mut self) -> Result<(), String> {
        for conn in 0..CONNECTIONS {
            if self.model.blocked(conn).is_none() {
                continue;
            }
            if let Err(o) = self.h.waits(conn, Duration::from_secs(2)) {
                // The server's lock wait timed out while the test looked
                // (a slow machine): the model, its clock caught up, must
                // say the same of the same statement.
                if let Observed::Reply(real) = &o {
                    let now = self.now();
                    let done = self.model.advance(now.saturating_sub(self.model.now_ms()));
                    let mine = done.iter().find(|c| c.conn == conn);
                    if mine.is_some_and(|c| &c.reply.to_string() == real) {
                        self.h.figures.borrow_mut().statements += 1;
                        let others: Vec<Completion> =
                            done.into_iter().filter(|c| c.conn != conn).collect();
                        self.settle(others)?;
                        continue;
                    }
                }
                let _ = writeln!(
                    self.transcript,
                    "  t={:>5} ms  conn {conn} waits in the model; real {o:?}   <-- DISAGREE",
                    self.now()
                );
                self.h.figures.borrow_mut().disagreements += 1;
                return Err(std::mem::take(&mut self.transcript));
            }
        }
        let waiting = blocked_count(&self.model) as u64;
        if waiting > 0 && !self.h.lock_waits_counted(waiting, Duration::from_secs(2))? {
            self.h.figures.borrow_mut().unsettled_waits += 1;
        }
        Ok(())
    }

    /// Lets the model's clock catch up with the case's.
    fn tick(&mut self) -> Result<(), String> {
        let now = self.now();
        let done = self.model.advance(now.saturating_sub(self.model.now_ms()));
        self.settle(done)
    }

    fn step(&mut self, step: &Step) -> Result<(), String> {
        self.tick()?;
        match step {
            Step::Send { conn, stmt } => {
                let conn = *conn;
                let skip = self.model.blocked(conn).is_some()
                    || (matches!(stmt, Statement::Select { .. })
                        && self.model.in_transaction(conn))
                    || {
                        let mut trial = self.model.clone();
                        let _ = trial.execute(conn, stmt);
                        // An INSERT of a name another connection's INSERT
                        // waits to put in its gap: MariaDB rolled the
                        // waiter back (1213) where the model keeps it
                        // waiting (docs/conformance.md, open).
                        let second_insert = matches!(stmt, Statement::Insert { .. })
                            && (0..CONNECTIONS).any(|c| {
                                c != conn
                                    && matches!(
                                        self.model.blocked(c).map(|b| &b.stmt),
                                        Some(Statement::Insert { name, .. }) if Some(name) == stmt.name()
                                    )
                            });
                        blocked_count(&trial) > 1 || second_insert
                    };
                if skip {
                    self.h.figures.borrow_mut().skipped += 1;
                    return Ok(());
                }
                if stmt.name().is_some_and(|n| self.unpurged.contains(n)) {
                    let mut f = self.h.figures.borrow_mut();
                    f.skipped += 1;
                    f.skipped_unpurged += 1;
                    return Ok(());
                }
                let before = self.model.table().committed();
                self.sent[conn] = Some(stmt.clone());
                self.h.send(conn, stmt.clone());
                let done = self
                    .model
                    .execute(conn, stmt)
                    .map_err(|e| format!("{e:?}"))?;
                if self.model.blocked(conn).is_some() {
                    self.h.figures.borrow_mut().waits += 1;
                    let _ = writeln!(
                        self.transcript,
                        "  t={:>5} ms  conn {conn}  {stmt}\n      -> waits in the model",
                        self.now()
                    );
                }
                // A DELETE that removed a row never committed removed its
                // own transaction's insert (another's would have made it
                // wait): the record is delete-marked at commit.
                if let Statement::Delete { name } = stmt {
                    let own_insert = !before.contains_key(name)
                        && done.iter().any(|c| {
                            c.conn == conn && matches!(c.reply, Reply::Ok { affected: 1, .. })
                        });
                    if own_insert {
                        self.unpurged.insert(name.clone());
                    }
                }
                self.settle(done)?;
                let after = self.model.table().committed();
                if before.keys().any(|n| !after.contains_key(n)) {
                    self.h.purge()?;
                }
            }
            Step::WaitTimeout => {
                let Some(ms) = self.model.next_timeout_in() else {
                    self.h.figures.borrow_mut().skipped += 1;
                    return Ok(());
                };
                let _ = writeln!(self.transcript, "  sleep {ms} ms (a lock wait times out)");
                std::thread::sleep(Duration::from_millis(ms + 20));
                self.tick()?;
            }
            Step::Kill { conn } => {
                let conn = *conn;
                let waiting = self.model.blocked(conn).is_some();
                let before = self.model.table().committed();
                let _ = writeln!(
                    self.transcript,
                    "  t={:>5} ms  KILL conn {conn}",
                    self.now()
                );
                self.h.kill(conn, waiting)?;
                self.h.figures.borrow_mut().kills += 1;
                self.sent[conn] = None;
                let done = self.model.disconnect(conn);
                self.settle(done)?;
                let after = self.model.table().committed();
                if before.keys().any(|n| !after.contains_key(n)) {
                    self.h.purge()?;
                }
            }
        }
        self.check_waiting()?;
        self.purge_when_idle()
    }

    /// Waits for purge once no transaction is open (an open one may hold
    /// purge back for as long as it stays open), then lets steps touch the
    /// names again.
    fn purge_when_idle(&mut self) -> Result<(), String> {
        if self.unpurged.is_empty()
            || (0..CONNECTIONS)
                .any(|c| self.model.in_transaction(c) || self.model.blocked(c).is_some())
        {
            return Ok(());
        }
        self.h.purge()?;
        self.unpurged.clear();
        Ok(())
    }
}

/// Runs `seq` against a fresh model and the reset real table. Ok: the
/// transcript; Err: the transcript up to and including the disagreement.
pub fn run_case(h: &Harness, seq: &[Step]) -> Result<String, String> {
    h.reset()?;
    let result = run_steps(h, seq);
    if result.is_err() {
        // A statement may still wait in the server: start the next case
        // on fresh connections.
        for conn in 0..CONNECTIONS {
            h.kill(conn, false).ok();
        }
        h.drain();
    }
    result
}

fn run_steps(h: &Harness, seq: &[Step]) -> Result<String, String> {
    let mut run = Run {
        h,
        model: MysqlServer::new(&sessions()),
        started: Instant::now(),
        transcript: String::new(),
        sent: Default::default(),
        unpurged: BTreeSet::new(),
    };
    for step in seq {
        run.step(step)?;
    }
    // Statements still waiting end with their connection.
    for conn in 0..CONNECTIONS {
        if run.model.blocked(conn).is_some() {
            run.step(&Step::Kill { conn })?;
        }
    }
    h.figures.borrow_mut().sequences += 1;
    Ok(run.transcript)
}
