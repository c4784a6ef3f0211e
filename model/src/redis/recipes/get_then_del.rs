//! `redis-get-then-del` — source 003 (`003_*.txt`): the `SET NX PX` lock of
//! line 45 with its caller (lines 55–66), released as lines 194–213 show:
//! `GET` the key, and `DEL` it only if the value is the client's own
//! (`oldvalue == Long.valueOf(value)`; here the client's token, source 003's
//! `my_random_value`) — two commands, not one atomic script.
//!
//! What it claims: a client deletes only its own key, so source 003's step 4
//! (A's `DEL` of B's key) cannot happen. What breaks it: the compare and
//! the delete are apart; a holder paused between its `GET` and its `DEL`
//! loses the key to its TTL, a second client sets it, and the first one's
//! `DEL` removes the second one's key (unlock by non-owner) — and, as for
//! every lease lock, a pause past the lease lets a second holder in beside
//! the first (mutual exclusion). [`super::compare_and_delete`] is the fix.

use super::{Me, Outcome};
use crate::engine::harness::StepKind;
use crate::redis::{Command, Expiry, Reply, SetCondition};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum At {
    /// `acquireLock`: send `SET key token NX PX lease`.
    Lock,
    /// Read the `SET`'s reply.
    AwaitSet,
    /// `// do business ...`: the step ends the critical section.
    Business,
    /// `releaseLock`: send `GET key`.
    Finally,
    /// Read the value: the client's own token sends `DEL`, else nothing.
    AwaitReleaseGet,
    /// Read `DEL`'s reply; the round is over.
    AwaitDel,
}

impl At {
    pub fn awaits_reply(self) -> bool {
        matches!(self, At::AwaitSet | At::AwaitReleaseGet | At::AwaitDel)
    }
}

pub fn step(at: &mut At, reply: Option<&Reply>, me: &Me) -> Outcome {
    let key = me.key.clone();
    let (next, out) = match (*at, reply) {
        (At::Lock, _) | (At::AwaitDel, Some(_)) => {
            let set = Command::Set {
                key,
                value: me.token.clone(),
                condition: SetCondition::Nx,
                expiry: Some(Expiry::Px(me.lease)),
            };
            (At::AwaitSet, Outcome::send(set, StepKind::Other))
        }
        (At::AwaitSet, Some(Reply::Ok)) => (At::Business, Outcome::only(StepKind::Acquired)),
        (At::AwaitSet, Some(Reply::Nil)) => (At::Lock, Outcome::only(StepKind::GaveUp)),
        (At::AwaitSet, Some(_)) => (*at, Outcome::only(StepKind::Threw("JedisDataException"))),
        (At::Business, _) => (At::Finally, Outcome::only(StepKind::Released)),
        (At::Finally, _) => (
            At::AwaitReleaseGet,
            Outcome::send(Command::Get { key }, StepKind::Other),
        ),
        // `oldvalue == Long.valueOf(value)`: the key is still ours.
        (At::AwaitReleaseGet, Some(Reply::Bulk(v))) if v.same_bytes(&me.token) => (
            At::AwaitDel,
            Outcome::send(Command::Del { key }, StepKind::SentRelease),
        ),
        // Blank or another's: leave it; `releaseLock` returns.
        (At::AwaitReleaseGet, Some(_)) => (At::Lock, Outcome::only(StepKind::SentRelease)),
        (_, None) => (*at, Outcome::only(StepKind::Other)),
    };
    *at = next;
    out
}
