//! Fencing in the Redis simulator (`fencing = true`), as the Redis checker
//! has it: a tenure begins when the lock command succeeds at the server,
//! numbered in that order; `lock()` returns once the holder has its token —
//! from the lock command's own reply for a recipe whose script draws it
//! (`redis-set-px-token`), else from an `INCR` of the fence key sent then —
//! and the critical section writes to the protected resource twice with it,
//! as it begins and as it ends. The resource is the harness's (the one the
//! ZooKeeper simulator and every checker use): it judges mutual exclusion
//! at the resource and fenced safety by what reached it.

use super::{lock, micros, World};
use locksmith_model::check::redis::step::FENCE_KEY;
use locksmith_model::harness::resource::{Outcome, Resource, Write};
use locksmith_model::recipe::redis::RedisRecipe;
use locksmith_model::redis::{Command, Key, Reply};
use std::sync::{Arc, Mutex};

/// The resource and the tenures, when the scenario fences.
pub struct Fencing {
    resource: Resource,
    /// Tenures begun so far.
    tenures: u64,
    /// Each client's current tenure (0: none).
    tenure: Vec<u64>,
}

impl Fencing {
    pub fn new(clients: usize) -> Fencing {
        Fencing {
            resource: Resource::new(true),
            tenures: 0,
            tenure: vec![0; clients],
        }
    }

    /// `c`'s lock command just succeeded at the server.
    pub fn tenure_begins(&mut self, c: usize) {
        if self.tenure[c] == 0 {
            self.tenures += 1;
            self.tenure[c] = self.tenures;
        }
    }

    /// `c`'s tenure is over (it released, or its process is gone).
    pub fn tenure_ends(&mut self, c: usize) {
        self.tenure[c] = 0;
        self.resource.writer_gone(c);
    }
}

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

/// `c` writes to the resource with `token`, opening (`begin`) or closing
/// its critical section; the write arrives after a link's latency.
pub async fn write(world: &Arc<Mutex<World>>, c: usize, token: u64, begin: bool) {
    madsim::time::sleep(micros(100, 1000)).await;
    let mut w = lock(world);
    let Some(f) = w.fencing.as_mut() else {
        return;
    };
    let wr = Write {
        client: c,
        tenure: f.tenure[c],
        token: Some(token),
        begin,
    };
    let what = if begin { "begin" } else { "end" };
    match f.resource.apply(wr) {
        Outcome::Accepted => {
            w.note(|| format!("resource accepts c{c}'s {what} write, token {token}"))
        }
        Outcome::Stale { newest } => w.note(|| {
            format!("resource rejects c{c}'s {what} write: token {token} < {newest} (stale holder)")
        }),
        Outcome::Violation(broken) => {
            w.note(|| format!("resource accepts c{c}'s {what} write, token {token}"));
            for (p, why) in broken {
                w.violate(p, why);
            }
        }
    }
}
