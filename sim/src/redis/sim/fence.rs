//! The Redis holder's fencing token (`fencing = true`), as the Redis
//! checker has it: `lock()` returns once the holder has its token — from
//! the lock command's own reply for a recipe whose script draws it
//! (`redis-set-px-token`), else from an `INCR` of the fence key sent then.
//! The critical section's writes are the core's
//! ([`crate::simulate::command::fencing`]).

use super::World;
use crate::simulate::command::lock;
use crate::simulate::command::run_clock::micros;
use locksmith_model::redis::check::FENCE_KEY;
use locksmith_model::redis::recipes::RedisRecipe;
use locksmith_model::redis::{Command, Key, Reply};
use std::sync::{Arc, Mutex};

/// The holder's token, once its lock command succeeded: from that
/// command's reply (`read`) if the recipe's script drew it, else from an
/// `INCR` of the fence key. `None`: INCR failed (the program throws).
pub async fn token(
    world: &Arc<Mutex<World>>,
    c: usize,
    recipe: RedisRecipe,
    read: Option<&Reply>,
) -> Option<u64> {
    if recipe.token_in_reply() {
        if let Some(Reply::Int(t)) = read {
            return u64::try_from(*t).ok();
        }
    }
    madsim::time::sleep(micros(100, 1000)).await;
    let incr = Command::Incr {
        key: Key::new(FENCE_KEY),
    };
    let reply = lock(world).serve(c, &incr);
    madsim::time::sleep(micros(100, 1000)).await;
    match reply {
        Reply::Int(t) => u64::try_from(t).ok(),
        _ => None,
    }
}
