//! `concurrency.NewSession` (etcd v3.4.23, `session.go` lines 38–71): a
//! lease granted with the session's TTL (default 60 s; `etcdctl lock`'s
//! 10 s), kept alive by a goroutine until the client stops or the lease is
//! gone, when `Done()` closes. A program that locks in a loop opens a new
//! session once the last one is done; the model's clients do so at the
//! start of a round, knowing what their keep-alives said (a keep-alive's
//! TTL of 0). The keep-alives themselves are the driver's: the checker
//! renews a live, running client's lease every tick.

use super::{At, Locals, Me, Outcome};
use crate::engine::harness::StepKind;
use crate::etcd::{LeaseId, Reply, Request};

/// The id a client asks for its `n`th session: its number in the high
/// byte, so ids never collide and print as `101`, `102`, `201`, ...
pub fn lease_id(me: &Me, n: u8) -> LeaseId {
    LeaseId(u16::from(me.client + 1) << 8 | u16::from(n))
}

/// A round's first step (the last round's release reply read), or the
/// grant's reply: open a session if there is none alive, then send
/// `lock()`'s first request.
pub fn step(
    l: &mut Locals,
    reply: Option<&Reply>,
    me: &Me,
    lock: impl Fn(&Locals) -> Request,
) -> Outcome {
    match (l.at, reply) {
        (At::AwaitGrant, Some(Reply::Granted { id, .. })) => {
            l.session = Some(*id);
            l.at = At::AwaitLock;
            Outcome::send(lock(l), StepKind::Other)
        }
        (At::AwaitGrant, Some(_)) => {
            l.at = At::Begin;
            Outcome::only(StepKind::GaveUp)
        }
        (At::AwaitGrant, None) => Outcome::only(StepKind::Other),
        _ if l.session.is_none() || !me.session_alive => {
            // A long real run may open more than 255 sessions: the ids
            // go round (1 to 255), each old one long gone by then.
            l.opened = l.opened.checked_add(1).unwrap_or(1);
            l.at = At::AwaitGrant;
            Outcome::send(
                Request::Grant {
                    id: lease_id(me, l.opened),
                    ttl: me.ttl,
                },
                StepKind::Other,
            )
        }
        _ => {
            l.at = At::AwaitLock;
            Outcome::send(lock(l), StepKind::Other)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 256th session of a long real run asks for the first id again
    /// rather than overflowing.
    #[test]
    fn session_ids_go_round_after_255() {
        let me = Me {
            client: 2,
            ttl: 3,
            session_alive: false,
        };
        let mut l = crate::etcd::recipes::EtcdRecipe::Mutex.start();
        l.opened = u8::MAX;
        let out = step(&mut l, None, &me, |_| Request::KeepAlive(LeaseId(0)));
        assert_eq!(
            out.send,
            Some(Request::Grant {
                id: LeaseId(0x301),
                ttl: 3
            })
        );
    }
}
