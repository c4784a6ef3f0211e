//! What `locksmith real --redis` and `--mysql` share: one OS thread per
//! client, each with its own blocking connection (what the seeds' Java and
//! Python code use), running the seed's harness loop — `lock()`, work for
//! `--hold-ms`, `unlock()`, think for `--think-ms` — and the run that
//! watches them.
//!
//! A backend gives each client a [`Stepper`]: its recipe machine and its
//! connection, stepped one recipe step at a time. The loop here turns the
//! steps into the harness's lock events, and the [`World`] judges them:
//! **mutual exclusion** (a client's `lock()` returns while another still
//! believes it holds; the run goes on to count the overlaps) and a
//! **stall** (no acquisition for `--stall-seconds` while a client waits,
//! reported as deadlock, as `locksmith real` on ZooKeeper does).

use super::times::{Between, Times};
use locksmith_model::engine::harness::resource::{Outcome as ResourceOutcome, Resource, Write};
use locksmith_model::engine::harness::{LockEvent, Phase, Property, StepKind};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One client's recipe machine and connection, as its backend drives them.
pub trait Stepper: Send {
    /// A command on the backend's wire.
    type Command;
    /// One step of the recipe, reading the reply to the command its last
    /// step sent.
    fn step(&mut self) -> Stepped<Self::Command>;
    /// Sends the command a step yielded and waits for its reply, which the
    /// next step reads. `Err`: the server failed or answered what the
    /// model cannot read (the run stops with it).
    fn exchange(&mut self, command: Self::Command) -> Result<(), String>;
    /// Back to the start of `lock()`, after the recipe threw.
    fn restart(&mut self);
    /// What made the recipe throw, if the backend can tell (the reply it
    /// read last).
    fn cause(&self) -> Option<String> {
        None
    }
    /// With fencing, the token of the tenure `lock()` just began: from the
    /// lock command's reply, or drawn now. `Err`: the server failed.
    fn token(&mut self) -> Result<Option<u64>, String> {
        Ok(None)
    }
    /// The run's stop flag, before the client's thread starts: a stepper
    /// whose exchange blocks until the server speaks (a watch waiting for
    /// its event) stops waiting once it is set.
    fn watch_stop(&mut self, _stop: Arc<AtomicBool>) {}
}

/// What one step did.
pub struct Stepped<C> {
    pub kind: StepKind,
    /// The command it sends, after its lock events are recorded (a release
    /// is over in the client's belief before its `DEL` or `DELETE` leaves).
    pub send: Option<C>,
    /// It ends in a polling loop's sleep (one millisecond: the checker's
    /// tick).
    pub sleep: bool,
}

/// The run's flags, as every backend takes them.
#[derive(Clone, Debug)]
pub struct Plan {
    pub clients: usize,
    pub seconds: f64,
    /// Seeds the think and hold times.
    pub seed: u64,
    pub hold: Between,
    pub think: Between,
    pub stall_after: Duration,
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Each critical section writes to a protected resource twice, with
    /// the holder's fencing token, as it begins and as it ends; the
    /// resource (in this process, the harness's) rejects a token older
    /// than one it accepted and judges mutual exclusion at the resource and
    /// fenced safety.
    pub fencing: bool,
}

/// What a run saw, whatever the backend.
#[derive(Clone, Debug, Default)]
pub struct Tally {
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
    /// Exceptions the recipe threw (the client then starts over): how
    /// many of each, by client and cause.
    pub exceptions: BTreeMap<String, u64>,
    pub interrupted: bool,
    /// With fencing: writes the resource rejected (a stale token).
    pub rejected_writes: u64,
    /// With fencing: the properties the resource saw broken, each with its
    /// first account.
    pub at_resource: BTreeMap<Property, String>,
}

impl Tally {
    pub fn acquisitions_per_second(&self) -> f64 {
        super::per(self.acquisitions, self.elapsed.as_secs_f64())
    }

    pub fn commands_per_acquisition(&self) -> f64 {
        super::per(self.commands, self.acquisitions as f64)
    }
}

/// What every client shares: who believes it holds, the figures, the
/// first violation and when anyone last acquired.
struct World {
    tally: Tally,
    /// With fencing, the protected resource.
    resource: Option<Resource>,
    /// Tenures begun, numbered as `lock()` returns.
    tenures: u64,
    holding: BTreeSet<usize>,
    waiting: BTreeSet<usize>,
    last_progress: Instant,
    /// A client lost its connection or the server refused a command.
    error: Option<String>,
    started: Instant,
}

impl World {
    /// `c` writes to the resource with its tenure and token.
    fn write(&mut self, c: usize, tenure: u64, token: Option<u64>, begin: bool) {
        let Some(r) = &mut self.resource else {
            return;
        };
        let w = Write {
            client: c,
            tenure,
            token,
            begin,
        };
        match r.apply(w) {
            ResourceOutcome::Accepted => {}
            ResourceOutcome::Stale { .. } => self.tally.rejected_writes += 1,
            ResourceOutcome::Violation(broken) => {
                for (p, why) in broken {
                    self.tally.at_resource.entry(p).or_insert(why);
                }
            }
        }
    }

    fn acquired(&mut self, c: usize) {
        self.waiting.remove(&c);
        let t = &mut self.tally;
        if !self.holding.is_empty() {
            t.overlapping_holders += 1;
            if t.violation.is_none() {
                let others: Vec<String> = self.holding.iter().map(|o| format!("c{o}")).collect();
                t.violation = Some((
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
        t.max_holders = t.max_holders.max(self.holding.len());
        t.acquisitions += 1;
        self.last_progress = Instant::now();
    }

    /// A stall, if a client has waited with no acquisition by anyone for
    /// `after`.
    fn stall(&self, after: Duration) -> Option<String> {
        if self.waiting.is_empty() {
            return None;
        }
        let idle = self.last_progress.elapsed();
        (idle >= after).then(|| {
            let waiting: Vec<String> = self.waiting.iter().map(|c| format!("c{c}")).collect();
            format!(
                "stall: no acquisition for {:.1} s while {} waited in lock()",
                idle.as_secs_f64(),
                waiting.join(", ")
            )
        })
    }
}

fn lock(world: &Mutex<World>) -> MutexGuard<'_, World> {
    world
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs one thread per stepper for the plan's time, then stops and joins
/// them. `Err`: a client's connection failed during the run.
pub fn run<S: Stepper + 'static>(plan: &Plan, steppers: Vec<S>) -> Result<Tally, String> {
    let started = Instant::now();
    let world = Arc::new(Mutex::new(World {
        tally: Tally::default(),
        resource: plan.fencing.then(|| Resource::new(true)),
        tenures: 0,
        holding: BTreeSet::new(),
        waiting: BTreeSet::new(),
        last_progress: started,
        error: None,
        started,
    }));
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = steppers
        .into_iter()
        .enumerate()
        .map(|(c, mut stepper)| {
            stepper.watch_stop(stop.clone());
            let (plan, world, stop) = (plan.clone(), world.clone(), stop.clone());
            std::thread::spawn(move || client(&plan, c, stepper, &world, &stop))
        })
        .collect();
    let deadline = started + Duration::from_secs_f64(plan.seconds);
    let mut interrupted = false;
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
        if plan
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
        if w.tally.violation.is_none() {
            if let Some(why) = w.stall(plan.stall_after) {
                w.tally.violation = Some((Property::Deadlock, why));
                break;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let w = lock(&world);
    if let Some(e) = &w.error {
        return Err(e.clone());
    }
    Ok(Tally {
        elapsed: started.elapsed(),
        interrupted,
        ..w.tally.clone()
    })
}

/// One client: the seed's harness loop until the run stops.
fn client<S: Stepper>(plan: &Plan, c: usize, mut s: S, world: &Mutex<World>, stop: &AtomicBool) {
    let mut times = Times::new(plan.seed, c);
    let mut phase = Phase::Idle;
    while !stop.load(Ordering::Relaxed) {
        if phase.thinks_next() {
            std::thread::sleep(times.draw(plan.think));
            lock(world).waiting.insert(c);
        }
        let out = s.step();
        let mut events = Vec::new();
        phase = phase.after(out.kind, true, &mut events);
        let mut w = lock(world);
        for e in events {
            match e {
                LockEvent::Acquired => w.acquired(c),
                LockEvent::Released => {
                    w.holding.remove(&c);
                }
                LockEvent::GaveUp => {
                    w.tally.gave_up += 1;
                    w.waiting.remove(&c);
                }
                _ => {}
            }
        }
        if let StepKind::Threw(why) = out.kind {
            let what = match s.cause() {
                Some(cause) => format!("c{c}: {why} ({cause})"),
                None => format!("c{c}: {why}"),
            };
            *w.tally.exceptions.entry(what).or_default() += 1;
            w.holding.remove(&c);
            w.waiting.remove(&c);
            drop(w);
            s.restart();
            phase = Phase::Idle;
            continue;
        }
        drop(w);
        let mut fenced = None;
        if out.kind == StepKind::Acquired && plan.fencing {
            match s.token() {
                Ok(token) => {
                    let mut w = lock(world);
                    w.tenures += 1;
                    let tenure = w.tenures;
                    w.write(c, tenure, token, true);
                    fenced = Some((tenure, token));
                }
                Err(why) => {
                    lock(world).error.get_or_insert(format!("c{c}: {why}"));
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
            }
        }
        if let Some(command) = out.send {
            let sent = s.exchange(command);
            let mut w = lock(world);
            w.tally.commands += 1;
            if let Err(why) = sent {
                w.error.get_or_insert(format!("c{c}: {why}"));
                stop.store(true, Ordering::Relaxed);
                return;
            }
        }
        if out.kind == StepKind::Acquired {
            std::thread::sleep(times.draw(plan.hold));
            if let Some((tenure, token)) = fenced {
                let mut w = lock(world);
                w.write(c, tenure, token, false);
                if let Some(r) = &mut w.resource {
                    r.writer_gone(c);
                }
            }
        }
        if out.sleep {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
