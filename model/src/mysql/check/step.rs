//! The MySQL system's transitions: which actions a state enables, in a
//! fixed order, and what each one does.

use super::action::Action;
use super::config::MysqlSpace;
use super::state::{Channel, Client, State};
use crate::engine::harness::writes::WRITES;
use crate::engine::harness::{LockEvent, Phase, StepKind, Writes};
use crate::engine::resource::{self, Resource, Section};
use crate::mysql::recipes::{lock_name, MysqlRecipe};
use crate::mysql::table::RowData;
use crate::mysql::{Completion, MysqlError, MysqlServer, Reply, Session};

impl MysqlSpace {
    pub fn initial_state(&self) -> State {
        let session = Session {
            found_rows: self.found_rows,
            lock_wait_timeout_ms: u64::from(self.lock_wait_timeout),
        };
        // One connection per client, and the cleanup job's after them.
        let conns = self.clients as usize + usize::from(self.cleanup_after.is_some());
        let mut server = MysqlServer::new(&vec![session; conns]);
        if let Some(status) = self.recipe.lock_row().filter(|_| self.lock_row) {
            server.preload(&lock_name(), status);
        }
        let client = Client {
            locals: self.recipe.start(),
            phase: Phase::Idle,
            channel: Channel::Idle,
            timer: 0,
            paused: 0,
            rounds: self.acquisitions,
            connected: true,
            orphaned: false,
            wrote: 0,
            section: Section::default(),
        };
        State {
            server,
            clients: vec![client; self.clients as usize],
            left: self.faults,
            foreign_unlock: false,
            owner: None,
            row_age: 0,
            resource: self.fencing.then(|| Resource::new(Writes::Fenced)),
        }
    }

    /// The enabled actions: per client its step, its think and the
    /// server's run of its statement; then a tick; then the faults.
    pub fn enabled(&self, s: &State, out: &mut Vec<Action>) {
        out.clear();
        for (c, cl) in (0u8..).zip(&s.clients) {
            if cl.can_step() {
                out.push(Action::Step(c));
                if cl.phase.thinks_next() && cl.rounds > 0 {
                    out.push(Action::Think(c));
                }
            }
            if matches!(cl.channel, Channel::Sent(_)) {
                out.push(Action::Serve(c));
            }
        }
        if self.time_passes(s) {
            out.push(Action::Tick);
        }
        if self.cleanup_due(s) {
            out.push(Action::Cleanup);
        }
        for (c, cl) in (0u8..).zip(&s.clients) {
            if s.left.pauses > 0 && cl.alive() && cl.paused == 0 {
                out.push(Action::Pause(c));
            }
            if s.left.crashes > 0 && cl.alive() {
                out.push(Action::Crash(c));
            }
            if s.left.connection_drops > 0 && cl.alive() && cl.connected {
                out.push(Action::DropConnection(c));
            }
            if s.left.network_drops > 0 && cl.alive() && cl.connected {
                out.push(Action::NetworkDrop(c));
            }
            if cl.orphaned {
                out.push(Action::ServerNotices(c));
            }
        }
        if s.left.restarts > 0 {
            out.push(Action::Restart);
        }
    }

    /// A tick may pass: nothing instantaneous is left (maximal progress)
    /// and something counts down.
    fn time_passes(&self, s: &State) -> bool {
        let instant = s
            .clients
            .iter()
            .any(|c| c.can_step() || matches!(c.channel, Channel::Sent(_)));
        let counting = s
            .clients
            .iter()
            .any(|c| c.alive() && (c.timer > 0 || c.paused > 0))
            || s.server.next_timeout_in().is_some()
            || self
                .cleanup_after
                .is_some_and(|age| s.row_age < age && self.recipe.taken(Self::lock_row(s)));
        !instant && counting
    }

    /// The cleanup job may run now: the lock row is taken, old enough, and
    /// no transaction has it locked (the seeds' locks are autocommit: the
    /// job's statement never waits).
    fn cleanup_due(&self, s: &State) -> bool {
        let Some(age) = self.cleanup_after else {
            return false;
        };
        let name = lock_name();
        s.row_age >= age
            && self.recipe.taken(Self::lock_row(s))
            && s.server.table().entry(&name).pending.is_none()
            && !s.server.locks().iter().any(|l| l.name == name)
    }

    /// The job's statement: it frees the row as the recipe's own release
    /// would (source 002's job deletes old rows).
    fn cleanup(&self, s: &mut State) {
        let Some(stmt) = self.recipe.cleanup_statement() else {
            return;
        };
        let job = self.clients as usize;
        let done = s.server.execute(job, &stmt).unwrap_or_default();
        self.deliver(s, done);
        if let Some(o) = s.owner {
            s.foreign_unlock |= s.clients[o as usize].in_tenure();
        }
        s.owner = None;
        s.row_age = 0;
    }

    /// The lock row as a locking read sees it now.
    fn lock_row(s: &State) -> Option<RowData> {
        s.server.table().entry(&lock_name()).current()
    }

    pub fn take(&self, s: &mut State, a: Action) {
        s.foreign_unlock = false;
        match a {
            Action::Step(c) => self.client_step(s, c),
            Action::Think(c) => s.clients[c as usize].timer = 1,
            Action::Serve(c) => self.serve(s, c),
            Action::Tick => self.tick(s),
            Action::Cleanup => self.cleanup(s),
            Action::Pause(c) => {
                s.left.pauses -= 1;
                s.clients[c as usize].paused = self.pause;
            }
            Action::DropConnection(c) => {
                s.left.connection_drops -= 1;
                lose_connection(s, c);
                self.server_drops(s, c);
            }
            Action::NetworkDrop(c) => {
                s.left.network_drops -= 1;
                lose_connection(s, c);
                s.clients[c as usize].orphaned = true;
            }
            Action::ServerNotices(c) => {
                s.clients[c as usize].orphaned = false;
                self.server_drops(s, c);
            }
            Action::Restart => {
                s.left.restarts -= 1;
                for c in 0..s.clients.len() as u8 {
                    if s.clients[c as usize].alive() {
                        lose_connection(s, c);
                    }
                    s.clients[c as usize].orphaned = false;
                }
                for conn in 0..s.server.connections() {
                    let done = s.server.disconnect(conn);
                    self.deliver(s, done);
                }
                if !self.recipe.taken(Self::lock_row(s)) {
                    s.owner = None;
                }
            }
            Action::Crash(c) => {
                s.left.crashes -= 1;
                let cl = &mut s.clients[c as usize];
                cl.phase = Phase::Crashed;
                cl.channel = Channel::Idle;
                cl.timer = 0;
                cl.paused = 0;
                cl.wrote = 0;
                // Its open section ends with its process: no write of it
                // can follow.
                resource::tenure_ends(s, c as usize);
                let done = s.server.disconnect(c as usize);
                self.deliver(s, done);
                if !self.recipe.taken(Self::lock_row(s)) {
                    s.owner = None;
                }
            }
        }
        self.renumber(s);
        s.server.rebase_time();
    }

    /// Hands each finished statement's reply to its client's connection (a
    /// closed connection's statement finishes unanswered: no completion;
    /// the cleanup job reads nothing; a connection the network dropped
    /// reads nothing either — the server still ran the statement). With
    /// fencing, a reply that grants the lock begins the client's tenure:
    /// tenures follow the order in which the server gave the lock.
    fn deliver(&self, s: &mut State, done: Vec<Completion>) {
        for d in done {
            let Some(cl) = s.clients.get_mut(d.conn).filter(|cl| cl.connected) else {
                continue;
            };
            let grants = cl.section.tenure == 0 && cl.locals.won(&d.reply);
            cl.channel = Channel::Replied(d.reply);
            if self.fencing && grants {
                resource::tenure_begins(s, d.conn);
            }
        }
    }

    /// Renumbers the AUTO_INCREMENT ids as [`crate::mysql::MysqlServer::renumber_ids`]
    /// does, keeping the order of the ids the harness holds as fencing
    /// tokens too: the resource's newest, each tenure's, and those in
    /// replies not read yet (a version token is no id: left alone).
    fn renumber(&self, s: &mut State) {
        if !(self.fencing && self.recipe.token_is_id()) {
            s.server.renumber_ids();
            return;
        }
        let mut held: Vec<u64> = Vec::new();
        let positive = |t: i64| u64::try_from(t).ok().filter(|&t| t > 0);
        held.extend(s.resource.and_then(|r| positive(r.newest_token)));
        for cl in &s.clients {
            held.extend(positive(cl.section.token));
            if let Channel::Replied(Reply::Ok {
                insert_id: Some(id),
                ..
            }) = &cl.channel
            {
                held.push(*id);
            }
        }
        let ids = s.server.renumber_ids_keeping(&held);
        let new = |id: u64| ids.binary_search(&id).map_or(id, |i| i as u64 + 1);
        let new_token = |t: i64| positive(t).map_or(t, |t| new(t) as i64);
        if let Some(r) = &mut s.resource {
            r.newest_token = new_token(r.newest_token);
        }
        for cl in &mut s.clients {
            cl.section.token = new_token(cl.section.token);
            if let Channel::Replied(Reply::Ok {
                insert_id: Some(id),
                ..
            }) = &mut cl.channel
            {
                *id = new(*id);
            }
        }
    }

    /// The server ends `c`'s session: rolls back its transaction, releases
    /// its locks, and lets what waited for them finish.
    fn server_drops(&self, s: &mut State, c: u8) {
        let done = s.server.disconnect(c as usize);
        self.deliver(s, done);
        if !self.recipe.taken(Self::lock_row(s)) {
            s.owner = None;
        }
    }

    fn tick(&self, s: &mut State) {
        for cl in s.clients.iter_mut().filter(|c| c.alive()) {
            if cl.paused > 0 {
                cl.paused -= 1;
            } else {
                cl.timer = cl.timer.saturating_sub(1);
            }
        }
        if self.cleanup_after.is_some_and(|age| s.row_age < age)
            && self.recipe.taken(Self::lock_row(s))
        {
            s.row_age += 1;
        }
        let done = s.server.advance(1);
        self.deliver(s, done);
    }

    /// The server runs `c`'s statement; it notes who took the lock row,
    /// and whether the statement changed the row under another client
    /// whose tenure is current.
    fn serve(&self, s: &mut State, c: u8) {
        let Channel::Sent(stmt) = &s.clients[c as usize].channel else {
            return;
        };
        let stmt = stmt.clone();
        if !s.clients[c as usize].connected {
            s.clients[c as usize].channel =
                Channel::Replied(Reply::Err(MysqlError::ConnectionLost));
            return;
        }
        let before = Self::lock_row(s);
        // A client sends only when its previous statement has answered.
        let done = s.server.execute(c as usize, &stmt).unwrap_or_default();
        s.clients[c as usize].channel = Channel::Waiting;
        self.deliver(s, done);
        let after = Self::lock_row(s);
        if after != before {
            if let Some(o) = s.owner {
                s.foreign_unlock |= o != c && s.clients[o as usize].in_tenure();
            }
            s.owner = self.recipe.taken(after).then_some(c);
            s.row_age = 0;
        }
    }

    /// Client `c` reads its reply, if one came, and runs to its next
    /// blocking call; a step that would begin a round after the last one
    /// ends the loop instead.
    fn client_step(&self, s: &mut State, c: u8) {
        if self.fencing && self.fenced_write(s, c) {
            return;
        }
        let cl = &mut s.clients[c as usize];
        let reply = match std::mem::replace(&mut cl.channel, Channel::Idle) {
            Channel::Replied(r) => Some(r),
            _ => None,
        };
        let mut events = Vec::new();
        if cl.phase.thinks_next() {
            if cl.rounds == 0 {
                cl.phase = cl.phase.after(StepKind::Finished, true, &mut events);
                return;
            }
            cl.rounds -= 1;
        }
        let out = self
            .recipe
            .step(&mut cl.locals, reply.as_ref(), self.fencing);
        cl.phase = cl.phase.after(out.kind, true, &mut events);
        if let Some(stmt) = out.send {
            cl.channel = Channel::Sent(stmt);
        }
        if out.kind == StepKind::Acquired {
            if self.fencing {
                // `lock()` returns with the token its last reply carried;
                // the opening write starts the work.
                cl.wrote = 0;
                let token = MysqlRecipe::token(reply.as_ref()).unwrap_or(0);
                resource::token(s, c as usize, token);
                return;
            }
            cl.timer = self.work;
        }
        if out.sleep {
            cl.timer = 1;
        }
        let ended = events.iter().any(|e| {
            matches!(
                e,
                LockEvent::Released
                    | LockEvent::GaveUp
                    | LockEvent::ThreadDied(_)
                    | LockEvent::Finished
            )
        });
        if ended && self.fencing {
            s.clients[c as usize].wrote = 0;
            resource::tenure_ends(s, c as usize);
        }
    }

    /// A fenced holder's step that is the harness's, not the recipe's: the
    /// critical section's opening write (then the work), its closing
    /// write. Whether it was one.
    fn fenced_write(&self, s: &mut State, c: u8) -> bool {
        let cl = &mut s.clients[c as usize];
        if !cl.phase.holds() || cl.wrote >= WRITES || cl.channel != Channel::Idle {
            return false;
        }
        if cl.wrote == 0 {
            cl.timer = self.work;
        }
        cl.wrote += 1;
        resource::write(s, c as usize);
        true
    }
}

/// Client `c`'s connection is gone from its side: the statement it has in
/// flight, or waiting at the server, fails with 2013 at once.
fn lose_connection(s: &mut State, c: u8) {
    let cl = &mut s.clients[c as usize];
    cl.connected = false;
    if matches!(cl.channel, Channel::Sent(_) | Channel::Waiting) {
        cl.channel = Channel::Replied(Reply::Err(MysqlError::ConnectionLost));
    }
}
