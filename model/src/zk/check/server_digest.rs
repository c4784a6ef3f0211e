//! The server's part of a state's fingerprint: everything but who owns and
//! who watches what, and per session what it owns and watches (see
//! [`symmetry`](super::symmetry)).

use super::suffixes::Suffixes;
use crate::engine::fingerprint::FoldHasher;
use crate::zk::{SessionId, ZkServer};
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

/// The server's part of a fingerprint.
pub struct ServerDigest {
    /// Everything but which session owns or watches what.
    pub(super) anonymous: u64,
    /// Per session, in id order: its state, its ephemeral nodes and the
    /// paths it watches, with no session id in them.
    pub(super) facts: Vec<(SessionId, u64)>,
    /// The sequence suffixes it names, read the first time the sequence
    /// abstraction asks ([`super::sequences`]).
    pub(super) suffixes: OnceLock<Suffixes>,
}

impl ServerDigest {
    /// A hash of the whole server: its anonymous part and each session's
    /// facts with the session's id.
    pub fn content(&self) -> u64 {
        let mut h = FoldHasher::default();
        h.write_u64(self.anonymous);
        for &(id, f) in &self.facts {
            h.write_u32(id.0);
            h.write_u64(f);
        }
        h.finish()
    }

    pub(super) fn facts_of(&self, s: SessionId) -> u64 {
        // The server lists every session it opened, numbered from 1: session
        // `s` is at `s - 1` (looked up for every client of every successor).
        let at = (s.0 as usize)
            .checked_sub(1)
            .and_then(|i| self.facts.get(i));
        if let Some(&(_, f)) = at.filter(|(id, _)| *id == s) {
            return f;
        }
        match self.facts.binary_search_by_key(&s, |&(id, _)| id) {
            Ok(i) => self.facts[i].1,
            Err(_) => 0,
        }
    }
}

/// Tags that keep a session's ephemeral nodes and its two kinds of watch
/// apart in its facts.
const EPHEMERAL: u8 = 1;
const DATA_WATCH: u8 = 2;
const CHILD_WATCH: u8 = 3;

pub fn server_digest(server: &ZkServer) -> ServerDigest {
    let mut anonymous = FoldHasher::default();
    anonymous.write_i64(server.zxid());
    let mut facts: Vec<(SessionId, FoldHasher)> = server
        .sessions()
        .map(|(id, state)| {
            let mut h = FoldHasher::default();
            state.hash(&mut h);
            (id, h)
        })
        .collect();
    fn of(facts: &mut [(SessionId, FoldHasher)], owner: SessionId) -> Option<&mut FoldHasher> {
        match facts.binary_search_by_key(&owner, |&(id, _)| id) {
            Ok(i) => Some(&mut facts[i].1),
            Err(_) => None,
        }
    }
    for (path, node) in server.nodes() {
        path.hash(&mut anonymous);
        node.data.hash(&mut anonymous);
        node.mode.hash(&mut anonymous);
        let mut stat = node.stat;
        stat.ephemeral_owner = 0;
        stat.hash(&mut anonymous);
        if node.is_ephemeral() {
            let owner = node.stat.ephemeral_owner;
            match u32::try_from(owner)
                .ok()
                .and_then(|o| of(&mut facts, SessionId(o)))
            {
                Some(h) => {
                    h.write_u8(EPHEMERAL);
                    path.hash(h);
                }
                // An owner the session table does not know: keep it as is.
                None => anonymous.write_i64(owner),
            }
        }
    }
    let watches = server
        .data_watches()
        .map(|w| (DATA_WATCH, w))
        .chain(server.child_watches().map(|w| (CHILD_WATCH, w)));
    for (tag, (path, sessions)) in watches {
        for &s in sessions {
            match of(&mut facts, s) {
                Some(h) => {
                    h.write_u8(tag);
                    path.hash(h);
                }
                None => {
                    anonymous.write_u32(s.0);
                    path.hash(&mut anonymous);
                }
            }
        }
    }
    ServerDigest {
        anonymous: anonymous.finish(),
        facts: facts.into_iter().map(|(id, h)| (id, h.finish())).collect(),
        suffixes: OnceLock::new(),
    }
}
