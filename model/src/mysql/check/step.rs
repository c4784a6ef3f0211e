//! The MySQL system's transitions as the engine takes them ([`Steps`]):
//! its recipe's step and fencing token, which actions a state enables in a
//! fixed order, and what the server's run of a statement, a tick and
//! MySQL's own actions (the cleanup job, dropped connections, a restart)
//! do. After every action the server's time is rebased and its ids
//! renumbered.

use super::action::{Action, Own};
use super::config::MysqlSpace;
use super::state::{Channel, State};
use crate::engine::command::step::{client_actions, process_faults, time_passes};
use crate::engine::command::{Steps, Token};
use crate::engine::harness::Outcome;
use crate::engine::resource;
use crate::mysql::recipes::{lock_name, Locals, MysqlRecipe};
use crate::mysql::table::RowData;
use crate::mysql::{Completion, MysqlError, Reply, Statement};

impl MysqlSpace {
    /// The cleanup job may run now: the lock row is taken, old enough, and
    /// no transaction has it locked (the seeds' locks are autocommit: the
    /// job's statement never waits).
    fn cleanup_due(&self, s: &State) -> bool {
        let Some(age) = self.cleanup_after else {
            return false;
        };
        let name = lock_name();
        s.own.row_age >= age
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
        if let Some(o) = s.own.owner {
            s.foreign_unlock |= s.clients[o as usize].in_tenure();
        }
        s.own.owner = None;
        s.own.row_age = 0;
    }

    /// The lock row as a locking read sees it now.
    fn lock_row(s: &State) -> Option<RowData> {
        s.server.table().entry(&lock_name()).current()
    }

    /// Something of MySQL's own counts down: a statement waits for a row
    /// lock (its `innodb_lock_wait_timeout` runs), or a taken lock row ages
    /// toward the cleanup job's rule.
    fn counting(&self, s: &State) -> bool {
        s.server.next_timeout_in().is_some()
            || self
                .cleanup_after
                .is_some_and(|age| s.own.row_age < age && self.recipe.taken(Self::lock_row(s)))
    }

    /// Hands each finished statement's reply to its client's connection (a
    /// closed connection's statement finishes unanswered: no completion;
    /// the cleanup job reads nothing; a connection the network dropped
    /// reads nothing either — the server still ran the statement). With
    /// fencing, a reply that grants the lock begins the client's tenure:
    /// tenures follow the order in which the server gave the lock.
    fn deliver(&self, s: &mut State, done: Vec<Completion>) {
        for d in done {
            let Some(cl) = s.clients.get_mut(d.conn).filter(|cl| cl.own.connected) else {
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
            s.own.owner = None;
        }
    }
}

impl Steps for MysqlSpace {
    type Action = Action;
    /// Whether `lock()` returns with a token.
    type Me = bool;

    fn me(&self, _: &State, _: u8) -> bool {
        self.fencing
    }

    fn recipe_step(
        &self,
        locals: &mut Locals,
        reply: Option<&Reply>,
        fenced: &bool,
    ) -> Outcome<Statement> {
        self.recipe.step(locals, reply, *fenced)
    }

    /// `lock()` returns with the token its last reply carried.
    fn token(&self, _: &Locals, reply: Option<&Reply>) -> Token<Statement> {
        Token::Now(MysqlRecipe::token(reply).unwrap_or(0))
    }

    /// Per client its step, its think and the server's run of its
    /// statement; a tick; the cleanup job; then the faults.
    fn enabled(&self, s: &State, out: &mut Vec<Action>) {
        client_actions(&s.clients, out);
        if time_passes(&s.clients, false, || self.counting(s)) {
            out.push(Action::Tick);
        }
        if self.cleanup_due(s) {
            out.push(Action::Cleanup);
        }
        for (c, cl) in (0u8..).zip(&s.clients) {
            process_faults(&s.left, c, cl, out);
            if s.left.connection_drops > 0 && cl.alive() && cl.own.connected {
                out.push(Action::DropConnection(c));
            }
            if s.left.network_drops > 0 && cl.alive() && cl.own.connected {
                out.push(Action::NetworkDrop(c));
            }
            if cl.own.orphaned {
                out.push(Action::ServerNotices(c));
            }
        }
        if s.left.restarts > 0 {
            out.push(Action::Restart);
        }
    }

    /// The server runs `c`'s statement; it notes who took the lock row,
    /// and whether the statement changed the row under another client
    /// whose tenure is current.
    fn serve(&self, s: &mut State, c: u8) {
        let Some(stmt) = s.clients[c as usize].channel.sent().cloned() else {
            return;
        };
        if !s.clients[c as usize].own.connected {
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
            if let Some(o) = s.own.owner {
                s.foreign_unlock |= o != c && s.clients[o as usize].in_tenure();
            }
            s.own.owner = self.recipe.taken(after).then_some(c);
            s.own.row_age = 0;
        }
    }

    /// One tick: every running counter moves on, the lock row ages, and
    /// the server's lock waits run down (those that time out answer).
    fn tick(&self, s: &mut State) {
        for cl in s.clients.iter_mut().filter(|c| c.alive()) {
            cl.count_down();
        }
        if self.cleanup_after.is_some_and(|age| s.own.row_age < age)
            && self.recipe.taken(Self::lock_row(s))
        {
            s.own.row_age += 1;
        }
        let done = s.server.advance(1);
        self.deliver(s, done);
    }

    /// The crashed process's connection closes: the operating system closes
    /// the socket, the server notices at once, rolls its transaction back
    /// and releases its row locks.
    fn crashed(&self, s: &mut State, c: u8) {
        let done = s.server.disconnect(c as usize);
        self.deliver(s, done);
        if !self.recipe.taken(Self::lock_row(s)) {
            s.own.owner = None;
        }
    }

    fn take_own(&self, s: &mut State, a: Own) {
        match a {
            Own::Cleanup => self.cleanup(s),
            Own::DropConnection(c) => {
                s.left.connection_drops -= 1;
                lose_connection(s, c);
                self.server_drops(s, c);
            }
            Own::NetworkDrop(c) => {
                s.left.network_drops -= 1;
                lose_connection(s, c);
                s.clients[c as usize].own.orphaned = true;
            }
            Own::ServerNotices(c) => {
                s.clients[c as usize].own.orphaned = false;
                self.server_drops(s, c);
            }
            Own::Restart => {
                s.left.restarts -= 1;
                for c in 0..s.clients.len() as u8 {
                    if s.clients[c as usize].alive() {
                        lose_connection(s, c);
                    }
                    s.clients[c as usize].own.orphaned = false;
                }
                for conn in 0..s.server.connections() {
                    let done = s.server.disconnect(conn);
                    self.deliver(s, done);
                }
                if !self.recipe.taken(Self::lock_row(s)) {
                    s.own.owner = None;
                }
            }
        }
    }

    /// The server keeps time relative, and its AUTO_INCREMENT ids are
    /// renumbered (the recipes read none).
    fn settle(&self, s: &mut State) {
        self.renumber(s);
        s.server.rebase_time();
    }
}

/// Client `c`'s connection is gone from its side: the statement it has in
/// flight, or waiting at the server, fails with 2013 at once.
fn lose_connection(s: &mut State, c: u8) {
    let cl = &mut s.clients[c as usize];
    cl.own.connected = false;
    if matches!(cl.channel, Channel::Sent(_) | Channel::Waiting) {
        cl.channel = Channel::Replied(Reply::Err(MysqlError::ConnectionLost));
    }
}
