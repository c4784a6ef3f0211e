//! The run: clients, their driver tasks, the observer that judges mutual
//! exclusion and stalls, and the figures.

use super::root;
use super::{CallOutcome, Notification, Session};
use crate::real::{
    per,
    times::{Between, Times},
};
use crate::zk::metrics::Metrics;
use crate::zk::timeline::{Seen, SessionExpired, Timeline};
use locksmith_model::engine::harness::{judge, LockEvent, Phase, Property};
use locksmith_model::zk::client::{Client, Deadline, Output, Recipe, RecipeConfig, Status, Thread};
use locksmith_model::zk::{EventType, Op, WatchedEvent, ZkError};
use locksmith_model::{zk::recipes::AnyRecipe, zk::recipes::RecipeId};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// What one real run does.
#[derive(Debug, Clone)]
pub struct RealConfig {
    pub recipe: RecipeId,
    pub clients: usize,
    /// How long the clients compete.
    pub seconds: f64,
    /// The server, `host:port` (no path: the run chroots its sessions to
    /// its own root).
    pub addr: String,
    /// An existing path the run's root is created under (`/`).
    pub base: String,
    /// Seeds the think and hold times and names the run's root.
    pub seed: u64,
    /// How long a client stays in its critical section, drawn per
    /// acquisition.
    pub hold: Between,
    /// How long a client waits after `unlock()` before its next `lock()`,
    /// drawn per round.
    pub think: Between,
    /// A waiting client with no acquisition by anyone for this long is a
    /// stall.
    pub stall_after: Duration,
    /// The sessions' timeout.
    pub session_timeout: Duration,
    /// Re-entrant `lock()` calls per round (the scenario's `reentries`).
    pub reentries: u8,
    /// Curator's `acquire(time, unit)` instead of `acquire()`, with this
    /// time (the scenario's `acquire_timeout_ms`): the deadline passes on
    /// the wall clock.
    pub acquire_timeout_ms: Option<u32>,
    /// The recipe creates its lock root (`root = "recipe"`): the run
    /// creates only what is above it.
    pub recipe_root: bool,
    /// Set (by Ctrl-C) to stop the run early; it still cleans up.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Record every request, reply and notification (`--timeline`).
    pub timeline: bool,
}

impl RealConfig {
    pub fn new(recipe: RecipeId, clients: usize, seconds: f64, addr: &str) -> RealConfig {
        RealConfig {
            recipe,
            clients,
            seconds,
            addr: addr.to_string(),
            base: "/".to_string(),
            seed: 0,
            hold: Between::ZERO,
            think: Between::ZERO,
            stall_after: Duration::from_secs(5),
            session_timeout: Duration::from_secs(10),
            reentries: 0,
            acquire_timeout_ms: None,
            recipe_root: false,
            interrupt: None,
            timeline: false,
        }
    }
}

/// Why a run could not take place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RealError {
    /// No session with the server.
    Connect(String),
    /// Anything else (the runtime, the lock root).
    Setup(String),
}

impl std::fmt::Display for RealError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RealError::Connect(m) | RealError::Setup(m) => f.write_str(m),
        }
    }
}

/// What a run found and measured.
#[derive(Debug, Clone)]
pub struct RealReport {
    /// The property violated and how, or `None`.
    pub violation: Option<(Property, String)>,
    /// Wall time until the run was stopped.
    pub elapsed: Duration,
    /// The simulator's figures, measured on the real server.
    pub metrics: Metrics,
    /// Acquisitions that had to wait for a notification (see the module
    /// documentation).
    pub contended_acquisitions: u64,
    /// The most clients that believed they held the lock at one moment.
    pub max_holders: usize,
    /// Clients whose thread died of an exception (each then got a new
    /// session and a fresh client).
    pub exceptions: Vec<String>,
    /// The run's own root (see [`root`]); gone when the run returns
    /// unless `cleanup` says otherwise.
    pub root: String,
    /// Nodes deleted with the root at the end, or why the root could not be
    /// deleted (it is then left on the server: delete it by hand).
    pub cleanup: Result<usize, String>,
    /// Ctrl-C stopped the run before its time was up.
    pub interrupted: bool,
    /// Empty unless `RealConfig::timeline`.
    pub timeline: Timeline,
}

impl RealReport {
    /// Moments at which a client acquired while another still held.
    pub fn overlapping_holders(&self) -> u64 {
        self.metrics.belief_overlaps
    }

    pub fn acquisitions_per_second(&self) -> f64 {
        per(self.metrics.acquisitions, self.elapsed.as_secs_f64())
    }

    pub fn notifications_per_contended_acquisition(&self) -> f64 {
        per(
            self.metrics.notifications,
            self.contended_acquisitions as f64,
        )
    }
}

/// One client process and what the observer tracks about it.
struct Slot {
    client: Client<AnyRecipe>,
    /// When the current `lock()` began; `None` while holding or releasing.
    attempt_since: Option<Instant>,
    /// A notification arrived during the current attempt.
    notified: bool,
    /// Its first `lock()` since its last acquisition (FIFO fairness).
    arrived: Option<Instant>,
    /// The critical section, or the pause before the next `lock()`, lasts
    /// until then.
    pause_until: Option<Instant>,
    /// The pause before the next `lock()` has been taken.
    thought: bool,
    /// When each thread's timed `wait` runs out (main, event).
    wait_until: [Option<Instant>; 2],
    /// When the running `acquire(time, unit)`'s deadline passes.
    deadline_until: Option<Instant>,
}

/// A real client locks until the run ends.
fn client_config(c: usize, reentries: u8, acquire_timeout_ms: Option<u32>) -> RecipeConfig {
    RecipeConfig::new(u8::MAX, c as u8)
        .with_reentries(reentries)
        .with_acquire_timeout(acquire_timeout_ms)
}

impl Slot {
    fn fresh(recipe: RecipeId, rcfg: RecipeConfig, now: Instant) -> Slot {
        Slot {
            client: Client::new(recipe.instantiate(rcfg)),
            attempt_since: Some(now),
            notified: false,
            arrived: Some(now),
            pause_until: None,
            thought: false,
            wait_until: [None, None],
            deadline_until: None,
        }
    }
}

/// Everything the drivers share, behind one lock.
struct World {
    recipe: RecipeId,
    reentries: u8,
    acquire_timeout_ms: Option<u32>,
    hold: Between,
    think: Between,
    /// Each client's think and hold times, drawn from the run's seed.
    times: Vec<Times>,
    slots: Vec<Slot>,
    metrics: Metrics,
    contended: u64,
    max_holders: usize,
    violation: Option<(Property, String)>,
    last_progress: Instant,
    stopped_at: Option<Instant>,
    exceptions: Vec<String>,
    /// When the clients began (the timeline's zero).
    started: Instant,
    timeline: Timeline,
}

type Shared = Arc<Mutex<World>>;

fn lock(w: &Shared) -> MutexGuard<'_, World> {
    match w.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// What a driver does next.
enum Next {
    Step(Thread),
    Wait(Duration),
}

/// How long an idle driver sleeps before it looks again (a notification
/// wakes it earlier).
const IDLE: Duration = Duration::from_millis(50);

impl World {
    fn stop(&mut self, now: Instant) {
        if self.stopped_at.is_none() {
            self.stopped_at = Some(now);
        }
    }

    /// Records what client `c` sent or was handed, now.
    fn record(&mut self, c: usize, seen: Seen, value: &dyn std::fmt::Debug) {
        if self.timeline.is_on() {
            let at = self.started.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64;
            self.timeline.record(at, c, seen, value);
        }
    }

    fn deliver(&mut self, c: usize, n: Notification) {
        match &n {
            Notification::Node(e) => self.record(c, Seen::Event, e),
            Notification::Expired => self.record(c, Seen::Event, &SessionExpired),
        }
        let slot = &mut self.slots[c];
        match n {
            Notification::Node(e) => {
                self.metrics.notifications += 1;
                if slot.attempt_since.is_some() {
                    slot.notified = true;
                }
                slot.client.on_event(&e);
            }
            Notification::Expired => {
                self.metrics.expiries += 1;
                slot.client.learn_expiry();
            }
        }
    }

    fn after_call(&mut self, c: usize, t: Thread, out: CallOutcome) {
        for n in out.before {
            self.deliver(c, n);
        }
        if out.answered {
            self.metrics.replies += 1;
        }
        self.record(c, Seen::Reply, &out.reply);
        let client = &mut self.slots[c].client;
        if out.reply == Err(ZkError::ConnectionLoss) {
            client.on_connection_loss();
        } else {
            client.on_reply(t, out.reply);
        }
        for n in out.after {
            self.deliver(c, n);
        }
    }

    fn next(&mut self, c: usize, now: Instant) -> Next {
        let slot = &mut self.slots[c];
        let mut idle = IDLE;
        for (i, t) in [Thread::Main, Thread::Event].into_iter().enumerate() {
            let Some(ms) = slot.client.timed_wait(t) else {
                slot.wait_until[i] = None;
                continue;
            };
            let until =
                *slot.wait_until[i].get_or_insert(now + Duration::from_millis(u64::from(ms)));
            if now >= until {
                slot.client.time_out(t);
                slot.wait_until[i] = None;
                self.metrics.wait_timeouts += 1;
            } else {
                idle = idle.min(until - now);
            }
        }
        // `acquire(time, unit)`'s clock: the call reads it after each
        // getData and leaves wait(millisToWait) when it runs out.
        if slot.client.deadline == Deadline::Running {
            let ms = u64::from(self.acquire_timeout_ms.unwrap_or(0));
            let until = *slot
                .deadline_until
                .get_or_insert(now + Duration::from_millis(ms));
            if now >= until {
                slot.client.pass_deadline();
                slot.deadline_until = None;
                self.metrics.deadlines_passed += 1;
            } else {
                idle = idle.min(until - now);
            }
        } else {
            slot.deadline_until = None;
        }
        // The library's threads first (the event thread, then Curator's
        // safe-notify, background and listener executors), as in the simulator.
        for t in [
            Thread::Event,
            Thread::SafeNotify,
            Thread::Background,
            Thread::Listener,
        ] {
            if slot.client.can_step(t) {
                return Next::Step(t);
            }
        }
        if slot.client.can_step(Thread::Main) {
            match slot.pause_until {
                Some(until) if now < until => return Next::Wait((until - now).min(IDLE)),
                _ => slot.pause_until = None,
            }
            return Next::Step(Thread::Main);
        }
        Next::Wait(idle)
    }

    /// Runs one step of `t` of client `c`; returns the request to send.
    fn step(&mut self, c: usize, t: Thread, now: Instant) -> Option<Op> {
        let slot = &mut self.slots[c];
        if t == Thread::Main && slot.client.phase == Phase::Released {
            if !self.think.is_zero() && !slot.thought {
                slot.thought = true;
                slot.pause_until = Some(now + self.times[c].draw(self.think));
                return None;
            }
            slot.thought = false;
        }
        let stepped = slot.client.step(t)?;
        for ev in &stepped.events {
            match ev {
                LockEvent::AcquireStarted => {
                    let slot = &mut self.slots[c];
                    slot.attempt_since = Some(now);
                    slot.arrived.get_or_insert(now);
                    slot.notified = false;
                }
                LockEvent::Acquired => self.acquired(c, now),
                LockEvent::GaveUp => {
                    self.metrics.gave_up += 1;
                    self.last_progress = now;
                }
                LockEvent::Released | LockEvent::Reentered | LockEvent::Unlocked => {
                    self.last_progress = now
                }
                LockEvent::Finished | LockEvent::ThreadDied(_) => {
                    self.slots[c].attempt_since = None;
                    self.slots[c].arrived = None;
                }
                LockEvent::ReleaseSent => {}
            }
        }
        let release = stepped.sent_release();
        let Output::Send(op) = stepped.output else {
            return None;
        };
        self.metrics.requests += 1;
        self.record(c, Seen::Send, &op);
        if release {
            self.released(c, &op);
        }
        Some(op)
    }

    fn acquired(&mut self, c: usize, now: Instant) {
        let others: Vec<usize> = (0..self.slots.len())
            .filter(|&o| o != c && self.slots[o].client.holds())
            .collect();
        self.max_holders = self.max_holders.max(others.len() + 1);
        if judge::two_holders(self.slots.iter().map(|s| s.client.phase)) {
            let o = others.first().copied().unwrap_or(c);
            self.metrics.belief_overlaps += 1;
            if self.violation.is_none() {
                self.violation = Some((
                    Property::MutualExclusion,
                    format!(
                        "c{} acquired the lock while c{} still believed it held it",
                        c + 1,
                        o + 1
                    ),
                ));
            }
            self.stop(now);
        }
        self.metrics.acquisitions += 1;
        if let Some(mine) = self.slots[c].arrived.take() {
            let waiting = self.slots.iter().filter_map(|s| s.arrived);
            if judge::out_of_order(mine, waiting) {
                self.metrics.out_of_order_acquisitions += 1;
            }
        }
        let slot = &mut self.slots[c];
        if let Some(since) = slot.attempt_since.take() {
            self.metrics
                .latencies
                .push((now - since).as_nanos().min(u64::MAX as u128) as u64);
            if slot.notified {
                self.contended += 1;
            }
        }
        if !self.hold.is_zero() {
            slot.pause_until = Some(now + self.times[c].draw(self.hold));
        }
        self.last_progress = now;
    }

    /// Client `c` sends the delete that releases the lock: if another
    /// client is trying to acquire, it is a contended release, and every
    /// other client whose watch table has a watch this delete triggers (its
    /// node's deletion, its parent's children change) is woken by it.
    /// Estimates whom the release `op` wakes, from the clients' registered
    /// watchers and the events the release fires. A session close fires
    /// events for nodes this driver does not track: it is not estimated.
    fn released(&mut self, c: usize, op: &Op) {
        let contended = self
            .slots
            .iter()
            .enumerate()
            .any(|(o, s)| o != c && s.attempt_since.is_some());
        let events = release_events(op);
        if !contended || events.is_empty() {
            return;
        }
        let woken = self
            .slots
            .iter()
            .enumerate()
            .filter(|(o, s)| {
                let mut w = s.client.watchers.clone();
                *o != c && events.iter().any(|e| !w.materialize(e).is_empty())
            })
            .count();
        self.metrics.contended_releases += 1;
        self.metrics.wakeups += woken as u64;
    }
}

/// The watch events a release operation fires on the server.
fn release_events(op: &Op) -> Vec<WatchedEvent> {
    let event = |kind, path: &str| WatchedEvent {
        kind,
        path: path.into(),
    };
    match op {
        Op::Delete { path, .. } => vec![
            event(EventType::NodeDeleted, path),
            event(
                EventType::NodeChildrenChanged,
                locksmith_model::zk::path::parent(path).unwrap_or("/"),
            ),
        ],
        Op::SetData { path, .. } => vec![event(EventType::NodeDataChanged, path)],
        _ => Vec::new(),
    }
}

/// Runs the recipe's clients against the server for `cfg.seconds`.
pub fn run(cfg: &RealConfig) -> Result<RealReport, RealError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RealError::Setup(format!("cannot build a tokio runtime: {e}")))?;
    rt.block_on(run_async(cfg.clone()))
}

/// Sets up the run's root, runs the clients chrooted to it, and removes
/// it again whatever happened (see [`root`]).
async fn run_async(cfg: RealConfig) -> Result<RealReport, RealError> {
    let mut setup = Session::connect(&cfg.addr, cfg.session_timeout)
        .await
        .map_err(RealError::Connect)?;
    let Some(id) = setup.id() else {
        return Err(RealError::Connect(format!(
            "{}: the session has no id",
            cfg.addr
        )));
    };
    let run_root = root::name(&cfg.base, cfg.seed, id);
    let lock_root = cfg.recipe.instantiate(RecipeConfig::new(1, 0));
    let lock_root = lock_root.lock_root();
    let made = root::create(&mut setup, &cfg.base, &run_root, lock_root, cfg.recipe_root).await;
    if let Err((created, e)) = made {
        // A root this run did create goes again; a refused one stays.
        if created {
            let _ = root::remove(&mut setup, &run_root).await;
        }
        let _ = setup.close().await;
        return Err(RealError::Setup(e));
    }
    let result = compete(&cfg, &format!("{}{run_root}", cfg.addr)).await;
    let cleanup = root::remove(&mut setup, &run_root).await;
    // A close the server does not confirm leaves the setup session to
    // expire; it holds no ephemeral node.
    let _ = setup.close().await;
    let mut report = match (result, &cleanup) {
        (Ok(r), _) => r,
        (Err(e), Ok(_)) => return Err(e),
        (Err(e), Err(c)) => return Err(RealError::Setup(format!("{e}; and {c}"))),
    };
    report.root = run_root;
    report.cleanup = cleanup;
    Ok(report)
}

fn interrupted(cfg: &RealConfig) -> bool {
    cfg.interrupt
        .as_ref()
        .is_some_and(|f| f.load(Ordering::Relaxed))
}

/// The clients, each with its own session chrooted to the run's root
/// (`rooted`: the server's address with the root as its path).
async fn compete(cfg: &RealConfig, rooted: &str) -> Result<RealReport, RealError> {
    let mut sessions = Vec::with_capacity(cfg.clients);
    for _ in 0..cfg.clients {
        if interrupted(cfg) {
            break;
        }
        let s = Session::connect(rooted, cfg.session_timeout).await;
        sessions.push(s.map_err(RealError::Connect)?);
    }
    let start = Instant::now();
    let world: Shared = Arc::new(Mutex::new(World {
        recipe: cfg.recipe,
        reentries: cfg.reentries,
        acquire_timeout_ms: cfg.acquire_timeout_ms,
        hold: cfg.hold,
        think: cfg.think,
        times: (0..cfg.clients).map(|c| Times::new(cfg.seed, c)).collect(),
        slots: (0..cfg.clients)
            .map(|c| {
                let rcfg = client_config(c, cfg.reentries, cfg.acquire_timeout_ms);
                Slot::fresh(cfg.recipe, rcfg, start)
            })
            .collect(),
        metrics: Metrics::default(),
        contended: 0,
        max_holders: 0,
        violation: None,
        last_progress: start,
        stopped_at: None,
        exceptions: Vec::new(),
        started: start,
        timeline: Timeline::new(cfg.timeline),
    }));
    let mut rooted_cfg = cfg.clone();
    rooted_cfg.addr = rooted.to_string();
    let mut tasks = Vec::new();
    for (c, s) in sessions.into_iter().enumerate() {
        tasks.push(tokio::spawn(drive(world.clone(), c, s, rooted_cfg.clone())));
    }
    let stopped_by_user = if interrupted(cfg) {
        lock(&world).stop(Instant::now());
        true
    } else {
        observe(&world, cfg, start).await
    };
    for t in tasks {
        let _ = t.await;
    }
    let w = lock(&world);
    let stopped = w.stopped_at.unwrap_or_else(Instant::now);
    let mut metrics = w.metrics.clone();
    metrics.sim_ns = (stopped - start).as_nanos().min(u64::MAX as u128) as u64;
    Ok(RealReport {
        violation: w.violation.clone(),
        elapsed: stopped - start,
        metrics,
        contended_acquisitions: w.contended,
        max_holders: w.max_holders,
        exceptions: w.exceptions.clone(),
        root: String::new(),
        cleanup: Ok(0),
        interrupted: stopped_by_user,
        timeline: w.timeline.clone(),
    })
}

/// The observer: ends the run when its time is up, at a stall, or on
/// Ctrl-C (then it returns true).
async fn observe(world: &Shared, cfg: &RealConfig, start: Instant) -> bool {
    let limit = Duration::from_secs_f64(cfg.seconds.max(0.0));
    loop {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let now = Instant::now();
        let mut w = lock(world);
        if w.stopped_at.is_some() {
            return false;
        }
        if interrupted(cfg) {
            w.stop(now);
            return true;
        }
        if now - start >= limit {
            w.stop(now);
            return false;
        }
        if now - w.last_progress < cfg.stall_after {
            continue;
        }
        let waiting = w
            .slots
            .iter()
            .position(|s| s.attempt_since.is_some() || s.client.phase.locking());
        if let Some(c) = waiting {
            let holders: Vec<String> = (0..w.slots.len())
                .filter(|&o| w.slots[o].client.holds())
                .map(|o| format!("c{}", o + 1))
                .collect();
            let held = if holders.is_empty() {
                "nobody holds the lock".to_string()
            } else {
                format!("{} holds the lock", holders.join(", "))
            };
            let why = format!(
                "no acquisition for {:.1} s while c{} waits (main thread: {}); {held}",
                (now - w.last_progress).as_secs_f64(),
                c + 1,
                describe(&w.slots[c].client.main)
            );
            w.violation = Some((Property::Deadlock, why));
            w.stop(now);
            return false;
        }
    }
}

fn describe(s: &Status) -> String {
    match s {
        Status::Ready(_) => "runnable".into(),
        Status::Calling { op, .. } => format!("waiting for the reply to {op}"),
        Status::Entering(m) => format!("blocked entering monitor {m}"),
        Status::Waiting(m) => format!("in wait() on monitor {m}"),
        Status::TimedWaiting { monitor, millis } => {
            format!("in wait({millis}) on monitor {monitor}")
        }
        Status::Awaiting(l) => format!("in await() on latch {l}"),
        Status::Idle => "idle".into(),
        Status::Finished => "finished".into(),
        Status::Dead(e) => format!("dead ({e})"),
    }
}

/// One client's driver: steps its threads, talks to the server, delivers
/// replies and notifications.
async fn drive(world: Shared, c: usize, mut session: Session, cfg: RealConfig) {
    let mut steps: u32 = 0;
    loop {
        let notes = session.take_notifications();
        // A recipe that releases by closing its session (source 001) needs a
        // new one for its next round.
        let closed = !session.is_open();
        let now = Instant::now();
        let next = {
            let mut w = lock(&world);
            for n in notes {
                w.deliver(c, n);
            }
            if w.stopped_at.is_some() {
                break;
            }
            let mut renew = false;
            if w.slots[c].client.is_done() {
                if let Status::Dead(e) = w.slots[c].client.main {
                    w.exceptions.push(format!("c{}: {e}", c + 1));
                    renew = true;
                }
                renew |= closed;
                let rcfg = client_config(c, w.reentries, w.acquire_timeout_ms);
                let recipe = w.recipe;
                w.slots[c] = Slot::fresh(recipe, rcfg, now);
            }
            if renew {
                None
            } else {
                match w.next(c, now) {
                    Next::Step(t) => Some(Ok((t, w.step(c, t, now)))),
                    Next::Wait(d) => Some(Err(d)),
                }
            }
        };
        match next {
            // A thread died: its session may still hold nodes the fresh
            // client would wait for. A new session lets them go. (Or the
            // recipe closed its session.)
            None => {
                let _ = session.close().await;
                match Session::connect(&cfg.addr, cfg.session_timeout).await {
                    Ok(s) => session = s,
                    Err(e) => {
                        let mut w = lock(&world);
                        w.exceptions.push(format!("c{}: {e}", c + 1));
                        break;
                    }
                }
            }
            Some(Ok((t, Some(op)))) => {
                // A recipe that releases by closing its session (source 002's
                // `close()`) goes on to its next round: as a new client
                // would, on a new session.
                if !session.is_open() && op != Op::CloseSession {
                    match Session::connect(&cfg.addr, cfg.session_timeout).await {
                        Ok(s) => session = s,
                        Err(e) => {
                            lock(&world).exceptions.push(format!("c{}: {e}", c + 1));
                            break;
                        }
                    }
                }
                let out = session.call(&op).await;
                lock(&world).after_call(c, t, out);
            }
            Some(Ok((_, None))) => {
                steps = steps.wrapping_add(1);
                if steps.is_multiple_of(64) {
                    tokio::task::yield_now().await;
                }
            }
            Some(Err(d)) => session.changed(d).await,
        }
    }
    let _ = session.close().await;
}
