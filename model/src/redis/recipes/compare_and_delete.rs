//! `redis-compare-and-delete` — source 003's caller (lines 55–66, the
//! `SET NX PX` lock of line 45) with the release the seed asks for in
//! lines 76–78 ("when deleting, check that the value equals
//! `my_random_value`"), done atomically as Redis's documentation gives it:
//! `EVAL "if redis.call("get",KEYS[1]) == ARGV[1] then return
//! redis.call("del",KEYS[1]) else return 0 end" 1 key token`
//! ([`crate::redis::COMPARE_AND_DELETE_LUA`]).
//!
//! What it claims: a client never deletes a key another client set, so
//! the seed's step 4 (A's `DEL` of B's key) cannot happen. What still
//! breaks: the lease expires under a pause while the holder still
//! believes it holds, and a second client sets the key — mutual exclusion
//! by belief fails all the same; only fencing at the resource saves it.
//!
//! Its steps are [`super::set_px_del`]'s; only the release differs.

use super::Me;
use crate::redis::Command;

/// The compare-and-delete script with this client's token.
pub fn release(me: &Me) -> Command {
    Command::CompareAndDelete {
        key: me.key.clone(),
        value: me.token.clone(),
    }
}
