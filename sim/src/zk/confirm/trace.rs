//! The trace `confirm` re-enacts: the checker's shortest counterexample
//! for the scenario's headline property, read through the checker's public
//! API (the exploration's counterexamples and the report's headline), and
//! what the trace does next to a reply — which decides how the proxy must
//! treat the request now.

use locksmith_model::zk::check::Action;
// The trace itself is found in the model, where `serve --trace` finds it too.
pub use locksmith_model::zk::check::{on_the_server, shortest, CheckerTrace};

/// Whether the reply now at position `pos` of client `c`'s queue is lost
/// to a connection loss before the trace (from action `from` on) delivers
/// it. Replies and events reach a client one at a time from the front of
/// its queue; an overtake delivers the second one first; a connection
/// loss drops every reply still queued.
pub fn reply_lost(actions: &[Action], from: usize, c: u8, mut pos: usize) -> bool {
    for a in actions.iter().skip(from) {
        match *a {
            Action::Deliver(x) if x == c => {
                if pos == 0 {
                    return false;
                }
                pos -= 1;
            }
            Action::Overtake(x) if x == c => match pos {
                0 => {}
                1 => return false,
                _ => pos -= 1,
            },
            Action::LoseConnection(x) if x == c => return true,
            Action::Crash(x) if x == c => return false,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksmith_model::zk::client::Thread;

    #[test]
    fn a_reply_is_lost_only_if_the_loss_comes_before_its_delivery() {
        let t = Thread::Main;
        let lost = [
            Action::Run(1, t),
            Action::Deliver(0),
            Action::LoseConnection(0),
        ];
        assert!(reply_lost(&lost, 0, 0, 1));
        assert!(!reply_lost(&lost, 0, 0, 0));
        assert!(!reply_lost(&lost, 0, 1, 0));
        let overtaken = [Action::Overtake(0), Action::LoseConnection(0)];
        assert!(reply_lost(&overtaken, 0, 0, 0));
        assert!(!reply_lost(&overtaken, 0, 0, 1));
        assert!(!reply_lost(&[Action::Deliver(0)], 0, 0, 0));
        assert!(!reply_lost(&lost, 3, 0, 0));
    }
}
