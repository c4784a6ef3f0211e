//! `locksmith real --redis`: the Redis recipes (sources 003 and 004) against
//! a real redis-server, the same sans-IO machines the checker explores.
//!
//! One OS thread per client, each with its own connection (a blocking
//! client is what the seeds' Java and Python code use). A client steps its
//! recipe, sends the command a step yields ([`wire::request`], the bytes the
//! conformance test sends too), and hands the reply back at its next step;
//! after `lock()` returns it works for `--hold-ms`, after `unlock()` it
//! thinks for `--think-ms`, and a polling loop's sleep is one millisecond
//! (the checker's tick). Time is the wall clock, as the seeds' own
//! `System.currentTimeMillis()`: the model's stamps are relative to "now"
//! and are turned into absolute milliseconds on the way out and back
//! ([`locksmith_model::redis::Value::to_wire`]); a stamp a client keeps
//! between steps ages by the milliseconds that passed.
//!
//! The run's lock key is its own, `locksmith-<seed>-<connection id>:lock`
//! (and `…:fence`, the counter a token-drawing recipe increments), refused
//! if it exists and deleted at the end; nothing else on the server is read
//! or written.
//!
//! What it judges: **mutual exclusion** (a client's `lock()` returns while
//! another still believes it holds; the run goes on to count the
//! overlaps, and exits 1), and a **stall** (no acquisition for
//! `--stall-seconds` while a client waits: exit 1, reported as deadlock as
//! `locksmith real` on ZooKeeper does). No fault is injected: a lease runs
//! out under a holder only if `--hold-ms` is longer than `--lease-ms`, as
//! in source 003's story of a slow process A. Unlock by non-owner and stuck
//! lock are the checker's: a real run cannot tell whose tenure a `DEL`
//! ended without reading the key in the same instant.

pub mod command;
pub mod wire;

pub(crate) use wire::{connect, unix_ms};

use crate::real::threads::{self, Plan, Stepped, Stepper, Tally};
use locksmith_model::redis::recipes::{Me, RedisRecipe};
use locksmith_model::redis::{Command, Key, Reply, Value};

/// A real Redis run, as the flags ask for it.
#[derive(Clone, Debug)]
pub struct RedisRealConfig {
    pub recipe: RedisRecipe,
    /// host:port of the redis-server.
    pub addr: String,
    /// `PX`'s argument, or a timestamp recipe's timeout, in milliseconds.
    pub lease_ms: i64,
    pub plan: Plan,
}

/// What a run saw.
#[derive(Clone, Debug)]
pub struct RedisRealReport {
    pub run: Tally,
    /// The run's own key.
    pub key: String,
    /// Whether the key was deleted at the end (`Ok(true)`: it was there),
    /// or why it could not be.
    pub cleanup: Result<bool, String>,
}

/// Runs the recipe's clients against the server for the configured time.
/// `Err` only when the run could not start (no server, the key taken) or
/// a connection failed.
pub fn run(cfg: &RedisRealConfig) -> Result<RedisRealReport, String> {
    let mut admin = connect(&cfg.addr)?;
    let id: i64 = redis::cmd("CLIENT")
        .arg("ID")
        .query(&mut admin)
        .map_err(|e| format!("Redis at {}: CLIENT ID: {e}", cfg.addr))?;
    let key = format!("locksmith-{}-{id}:lock", cfg.plan.seed);
    // The fencing counter of the recipes that draw a token.
    let fence = format!("locksmith-{}-{id}:fence", cfg.plan.seed);
    let taken: i64 = redis::cmd("EXISTS")
        .arg(&key)
        .arg(&fence)
        .query(&mut admin)
        .map_err(|e| format!("Redis at {}: EXISTS {key} {fence}: {e}", cfg.addr))?;
    if taken != 0 {
        return Err(format!(
            "the key {key} or {fence} already exists on {}: refusing to touch it",
            cfg.addr
        ));
    }
    let steppers = (0..cfg.plan.clients)
        .map(|c| {
            Ok(RedisStepper {
                recipe: cfg.recipe,
                locals: cfg.recipe.start(),
                reply: None,
                read: None,
                me: Me {
                    key: Key::new(&key),
                    fence: Key::new(&fence),
                    token: Value::Int(c as i64 + 1),
                    lease: cfg.lease_ms,
                    clock: 0,
                },
                conn: connect(&cfg.addr)?,
                last_ms: unix_ms(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let run = threads::run(&cfg.plan, steppers);
    let cleanup = redis::cmd("DEL")
        .arg(&key)
        .query::<i64>(&mut admin)
        .map(|n| n == 1)
        .and_then(|had| {
            redis::cmd("DEL")
                .arg(&fence)
                .query::<i64>(&mut admin)
                .map(|_| had)
        })
        .map_err(|e| e.to_string());
    Ok(RedisRealReport {
        run: run?,
        key,
        cleanup,
    })
}

/// One client's recipe machine on its own connection.
struct RedisStepper {
    recipe: RedisRecipe,
    locals: locksmith_model::redis::recipes::Locals,
    reply: Option<Reply>,
    /// The reply the last step read (a lock script's token).
    read: Option<Reply>,
    me: Me,
    conn: redis::Connection,
    last_ms: i64,
}

impl Stepper for RedisStepper {
    type Command = Command;

    fn step(&mut self) -> Stepped<Command> {
        // Stamps the locals keep are relative to "now": age them by the
        // milliseconds since the last step (no floor: real time is not
        // bounded like the checker's horizon).
        let now_ms = unix_ms();
        for _ in 0..(now_ms - self.last_ms).clamp(0, 1 << 20) {
            self.locals = self.locals.aged(i64::MIN / 4);
        }
        self.last_ms = now_ms;
        self.read = self.reply.take();
        let out = self
            .recipe
            .step(&mut self.locals, self.read.as_ref(), &self.me);
        Stepped {
            kind: out.kind,
            send: out.send,
            sleep: out.sleep,
        }
    }

    fn exchange(&mut self, cmd: Command) -> Result<(), String> {
        let answer = wire::request(&cmd, unix_ms()).query::<redis::Value>(&mut self.conn);
        let got = wire::observed(answer);
        let reply = wire::reply(&got, unix_ms())
            .map_err(|why| format!("{} → {got}: {why}", wire::name(&cmd)))?;
        self.reply = Some(reply);
        Ok(())
    }

    fn restart(&mut self) {
        self.locals = self.recipe.start();
    }

    fn token(&mut self) -> Result<Option<u64>, String> {
        if self.recipe.token_in_reply() {
            if let Some(Reply::Int(t)) = &self.read {
                return Ok(u64::try_from(*t).ok());
            }
        }
        let incr = Command::Incr {
            key: self.me.fence.clone(),
        };
        self.exchange(incr)?;
        Ok(match self.reply.take() {
            Some(Reply::Int(t)) => u64::try_from(t).ok(),
            _ => None,
        })
    }
}
