//! `locksmith real --redis`: the Redis recipes (seeds 003 and 004) against
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
//! The run's lock key is its own, `locksmith-<seed>-<connection id>:lock`,
//! refused if it exists and deleted at the end; nothing else on the
//! server is read or written.
//!
//! What it judges: **mutual exclusion** (a client's `lock()` returns while
//! another still believes it holds; the run goes on to count the
//! overlaps, and exits 1), and a **stall** (no acquisition for
//! `--stall-seconds` while a client waits: exit 1, reported as deadlock as
//! `locksmith real` on ZooKeeper does). No fault is injected: a lease runs
//! out under a holder only if `--hold-ms` is longer than `--lease-ms`, as
//! in seed 003's story of a slow process A. Unlock by non-owner and stuck
//! lock are the checker's: a real run cannot tell whose tenure a `DEL`
//! ended without reading the key in the same instant.

pub mod wire;

use super::times::{Between, Times};
use locksmith_model::harness::{LockEvent, Phase, Property, StepKind};
use locksmith_model::recipe::redis::{Me, RedisRecipe};
use locksmith_model::redis::{Key, Reply, Value};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a connection, a command or a reply may take before the run
/// gives up on the server.
const IO_TIMEOUT: Duration = Duration::from_secs(5);

/// A real Redis run, as the flags ask for it.
#[derive(Clone, Debug)]
pub struct RedisRealConfig {
    pub recipe: RedisRecipe,
    pub clients: usize,
    pub seconds: f64,
    /// host:port of the redis-server.
    pub addr: String,
    pub seed: u64,
    /// `PX`'s argument, or a timestamp recipe's timeout, in milliseconds.
    pub lease_ms: i64,
    pub hold: Between,
    pub think: Between,
    pub stall_after: Duration,
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// What a run saw.
#[derive(Clone, Debug)]
pub struct RedisRealReport {
    pub violation: Option<(Property, String)>,
    pub elapsed: Duration,
    pub acquisitions: u64,
    /// `lock()` calls that returned without the lock.
    pub gave_up: u64,
    pub commands: u64,
    /// Acquisitions made while another client still believed it held.
    pub overlapping_holders: u64,
    /// The most clients that believed they held the lock at one moment.
    pub max_holders: usize,
    /// Exceptions the recipe threw (the client then starts over).
    pub exceptions: Vec<String>,
    /// The run's own key.
    pub key: String,
    /// Whether the key was deleted at the end (`Ok(true)`: it was there),
    /// or why it could not be.
    pub cleanup: Result<bool, String>,
    pub interrupted: bool,
}

impl RedisRealReport {
    pub fn acquisitions_per_second(&self) -> f64 {
        super::driver::per(self.acquisitions, self.elapsed.as_secs_f64())
    }

    pub fn commands_per_acquisition(&self) -> f64 {
        super::driver::per(self.commands, self.acquisitions as f64)
    }
}

/// What every client shares: who believes it holds, the figures, the
/// first violation and when anyone last acquired.
struct World {
    holding: BTreeSet<usize>,
    waiting: BTreeSet<usize>,
    acquisitions: u64,
    gave_up: u64,
    commands: u64,
    overlaps: u64,
    max_holders: usize,
    exceptions: Vec<String>,
    violation: Option<(Property, String)>,
    last_progress: Instant,
    /// A client lost its connection or the server refused a command.
    error: Option<String>,
    started: Instant,
}

impl World {
    fn acquired(&mut self, c: usize) {
        self.waiting.remove(&c);
        if !self.holding.is_empty() {
            self.overlaps += 1;
            if self.violation.is_none() {
                let others: Vec<String> = self.holding.iter().map(|o| format!("c{o}")).collect();
                self.violation = Some((
                    Property::MutualExclusion,
                    format!(
                        "c{c} acquired at {:.1} ms while {} still believed it held the lock",
                        self.started.elapsed().as_secs_f64() * 1e3,
                        others.join(", ")
                    ),
                ));
            }
        }
        self.holding.insert(c);
        self.max_holders = self.max_holders.max(self.holding.len());
        self.acquisitions += 1;
        self.last_progress = Instant::now();
    }
}

/// The wall clock in Unix milliseconds: what the seeds' recipes read.
fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn connect(addr: &str) -> Result<redis::Connection, String> {
    let client = redis::Client::open(format!("redis://{addr}/"))
        .map_err(|e| format!("--redis {addr}: {e}"))?;
    let conn = client
        .get_connection_with_timeout(IO_TIMEOUT)
        .map_err(|e| format!("cannot connect to Redis at {addr}: {e}"))?;
    conn.set_read_timeout(Some(IO_TIMEOUT))
        .and_then(|()| conn.set_write_timeout(Some(IO_TIMEOUT)))
        .map_err(|e| format!("Redis at {addr}: {e}"))?;
    Ok(conn)
}

/// Runs the recipe's clients against the server for the configured time.
/// `Err` only when the run could not start (no server, the key taken).
pub fn run(cfg: &RedisRealConfig) -> Result<RedisRealReport, String> {
    let mut admin = connect(&cfg.addr)?;
    let id: i64 = redis::cmd("CLIENT")
        .arg("ID")
        .query(&mut admin)
        .map_err(|e| format!("Redis at {}: CLIENT ID: {e}", cfg.addr))?;
    let key = format!("locksmith-{}-{id}:lock", cfg.seed);
    let taken: i64 = redis::cmd("EXISTS")
        .arg(&key)
        .query(&mut admin)
        .map_err(|e| format!("Redis at {}: EXISTS {key}: {e}", cfg.addr))?;
    if taken != 0 {
        return Err(format!(
            "the key {key} already exists on {}: refusing to touch it",
            cfg.addr
        ));
    }
    let started = Instant::now();
    let world = Arc::new(Mutex::new(World {
        holding: BTreeSet::new(),
        waiting: BTreeSet::new(),
        acquisitions: 0,
        gave_up: 0,
        commands: 0,
        overlaps: 0,
        max_holders: 0,
        exceptions: Vec::new(),
        violation: None,
        last_progress: started,
        error: None,
        started,
    }));
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for c in 0..cfg.clients {
        let conn = connect(&cfg.addr)?;
        let (cfg, world, stop, key) = (cfg.clone(), world.clone(), stop.clone(), key.clone());
        threads.push(std::thread::spawn(move || {
            client(&cfg, c, conn, &key, &world, &stop)
        }));
    }
    let deadline = started + Duration::from_secs_f64(cfg.seconds);
    let mut interrupted = false;
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
        if cfg
            .interrupt
            .as_ref()
            .is_some_and(|i| i.load(Ordering::Relaxed))
        {
            interrupted = true;
            break;
        }
        let mut w = lock(&world);
        if w.error.is_some() {
            break;
        }
        if w.violation.is_none() && !w.waiting.is_empty() {
            let idle = w.last_progress.elapsed();
            if idle >= cfg.stall_after {
                let waiting: Vec<String> = w.waiting.iter().map(|c| format!("c{c}")).collect();
                w.violation = Some((
                    Property::Deadlock,
                    format!(
                        "stall: no acquisition for {:.1} s while {} waited in lock()",
                        idle.as_secs_f64(),
                        waiting.join(", ")
                    ),
                ));
                break;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let elapsed = started.elapsed();
    let cleanup = redis::cmd("DEL")
        .arg(&key)
        .query::<i64>(&mut admin)
        .map(|n| n == 1)
        .map_err(|e| e.to_string());
    let w = lock(&world);
    if let Some(e) = &w.error {
        return Err(e.clone());
    }
    Ok(RedisRealReport {
        violation: w.violation.clone(),
        elapsed,
        acquisitions: w.acquisitions,
        gave_up: w.gave_up,
        commands: w.commands,
        overlapping_holders: w.overlaps,
        max_holders: w.max_holders,
        exceptions: w.exceptions.clone(),
        key,
        cleanup,
        interrupted,
    })
}

fn lock(world: &Mutex<World>) -> std::sync::MutexGuard<'_, World> {
    world
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One client: the seed's harness loop (`lock()`, work, `unlock()`,
/// think) until the run stops.
fn client(
    cfg: &RedisRealConfig,
    c: usize,
    mut conn: redis::Connection,
    key: &str,
    world: &Mutex<World>,
    stop: &AtomicBool,
) {
    let me = Me {
        key: Key::new(key),
        token: Value::Int(c as i64 + 1),
        lease: cfg.lease_ms,
        clock: 0,
    };
    let mut times = Times::new(cfg.seed, c);
    let mut locals = cfg.recipe.start();
    let mut phase = Phase::Idle;
    let mut reply: Option<Reply> = None;
    let mut last_ms = unix_ms();
    while !stop.load(Ordering::Relaxed) {
        if phase.thinks_next() {
            std::thread::sleep(times.draw(cfg.think));
            lock(world).waiting.insert(c);
        }
        // Stamps the locals keep are relative to "now": age them by the
        // milliseconds since the last step (no floor: real time is not
        // bounded like the checker's horizon).
        let now_ms = unix_ms();
        for _ in 0..(now_ms - last_ms).clamp(0, 1 << 20) {
            locals = locals.aged(i64::MIN / 4);
        }
        last_ms = now_ms;
        let out = cfg.recipe.step(&mut locals, reply.take().as_ref(), &me);
        let mut events = Vec::new();
        phase = phase.after(out.kind, true, &mut events);
        for e in events {
            let mut w = lock(world);
            match e {
                LockEvent::Acquired => w.acquired(c),
                LockEvent::Released => {
                    w.holding.remove(&c);
                }
                LockEvent::GaveUp => {
                    w.gave_up += 1;
                    w.waiting.remove(&c);
                }
                _ => {}
            }
        }
        if let StepKind::Threw(why) = out.kind {
            let mut w = lock(world);
            w.exceptions.push(format!("c{c}: {why}"));
            w.holding.remove(&c);
            w.waiting.remove(&c);
            drop(w);
            locals = cfg.recipe.start();
            phase = Phase::Idle;
            continue;
        }
        if let Some(cmd) = out.send {
            let sent_ms = unix_ms();
            let answer = wire::request(&cmd, sent_ms).query::<redis::Value>(&mut conn);
            let got = wire::observed(answer);
            let mut w = lock(world);
            w.commands += 1;
            match wire::reply(&got, unix_ms()) {
                Ok(r) => reply = Some(r),
                Err(why) => {
                    w.error
                        .get_or_insert(format!("c{c}: {} → {got}: {why}", wire::name(&cmd)));
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
            }
        }
        if out.kind == StepKind::Acquired {
            std::thread::sleep(times.draw(cfg.hold));
        }
        if out.sleep {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
