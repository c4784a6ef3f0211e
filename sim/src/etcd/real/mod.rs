//! `locksmith real --etcd`: the etcd locks against a real etcd, the same
//! sans-IO machines the checker explores (`model/src/etcd/recipes/`), one
//! client per thread ([`crate::real::threads`]) over etcd's JSON gateway
//! ([`wire`], what the conformance test and `confirm` speak too).
//!
//! Each client runs its session as clientv3 does: a lease granted with
//! `--ttl-seconds` and kept alive by a thread of its own every TTL / 3
//! ([`keepalive`]); a watch (`waitDeletes`, or the naive lock's
//! `Watch(key)`) holds the client's thread until its `DELETE` comes, as the
//! blocking Go call does.
//!
//! The run's keys are its own, under `locksmith-<seed>-<revision>/` (the
//! store's revision when it began; refused if anything is there), and so
//! are its leases: the model's id `n` is `base + n` on the server, `base`
//! drawn from that revision and this process's id. At the end every lease
//! the run was granted is revoked and its prefix deleted; nothing else on
//! the server is read or written. Revisions are the server's own (a fenced
//! run's token is its key's real create revision).
//!
//! What it judges is [`crate::real::threads`]'s: mutual exclusion by belief and
//! a stall (with fencing, the resource's properties too). No fault is
//! injected: a lease runs out only if its keep-alives do not reach the
//! server (the checker's faults, and `confirm`'s re-enactments, are where
//! the etcd faults are). What it measures beside the harness's figures:
//! **watch events** the server sent the clients (every event on their
//! watch streams, `PUT`s too: a watch from an older revision can get a
//! key's delete and its session's next put of it in one message),
//! **wake-ups** (the events that ended a wait, which the recipe reads: the
//! simulator's watch events, one-shot in the model) and the keep-alives
//! sent, which are not counted as commands (the simulator leaves them out
//! as well).

pub mod command;
mod keepalive;
pub mod wire;

use crate::real::threads::{self, Plan, Stepped, Stepper, Tally};
use locksmith_model::etcd::recipes::{EtcdRecipe, Locals, Me};
use locksmith_model::etcd::{LeaseId, Range, Reply, Request};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wire::{Gateway, Rebase};

/// A real etcd run, as the flags ask for it.
#[derive(Clone, Debug)]
pub struct EtcdRealConfig {
    pub recipe: EtcdRecipe,
    /// host:port of etcd's client port.
    pub addr: String,
    /// The session's TTL, in seconds (`concurrency.WithTTL`).
    pub ttl_seconds: u8,
    pub plan: Plan,
}

/// What a run saw.
#[derive(Clone, Debug)]
pub struct EtcdRealReport {
    pub run: Tally,
    /// The server's version, as `/version` says it.
    pub version: String,
    /// The run's key prefix.
    pub prefix: String,
    /// Watch events the server sent the clients (`PUT`s too).
    pub notifications: u64,
    /// The events that ended a wait: a watch's first `DELETE` (or its
    /// cancellation), which the recipe reads.
    pub wakeups: u64,
    /// Keep-alives the clients' sessions sent.
    pub keep_alives: u64,
    /// Leases the run was granted.
    pub leases: usize,
    /// The keys left under the prefix once the leases were revoked, all
    /// deleted (or why they could not be).
    pub cleanup: Result<u8, String>,
}

/// Runs the recipe's clients against the server for the configured time.
/// `Err` only when the run could not start (no server, the prefix taken)
/// or a request failed.
pub fn run(cfg: &EtcdRealConfig) -> Result<EtcdRealReport, String> {
    let (mut g, version) = Gateway::connect(&cfg.addr).map_err(|e| {
        format!("cannot reach etcd at {e} (`scripts/etcd.sh start` runs one on 127.0.0.1:2390)")
    })?;
    let revision = match g.call(&Request::Range(Range::key("\0")))? {
        Reply::Range { revision, .. } => revision,
        other => {
            return Err(format!(
                "etcd at {}: the store's revision: {other}",
                cfg.addr
            ))
        }
    };
    let rebase = Rebase {
        prefix: format!("locksmith-{}-{revision}/", cfg.plan.seed),
        // Revisions as the server has them.
        base: 1,
    };
    let taken = g.call(&Request::Range(Range {
        prefix: true,
        ..Range::key(&rebase.prefix)
    }))?;
    if !taken.kvs().is_empty() {
        return Err(format!(
            "keys under {} already exist on {}: refusing to touch them",
            rebase.prefix, cfg.addr
        ));
    }
    // A model id is 16 bits: the run's own ids above them.
    g.lease_base = ((revision & 0x7f_ffff) << 16) | (i64::from(std::process::id() & 0x7fff) << 39);
    let stop = Arc::new(AtomicBool::new(false));
    let notifications = Arc::new(AtomicU64::new(0));
    let wakeups = Arc::new(AtomicU64::new(0));
    let keep_alives = Arc::new(AtomicU64::new(0));
    let granted = Arc::new(Mutex::new(BTreeSet::new()));
    let ttl = Duration::from_secs(u64::from(cfg.ttl_seconds));
    let mut keepers = Vec::new();
    let steppers: Vec<EtcdStepper> = (0..cfg.plan.clients)
        .map(|c| {
            let session = keepalive::Shared::new();
            keepers.push(keepalive::start(
                g.clone(),
                session.clone(),
                ttl,
                stop.clone(),
                keep_alives.clone(),
            ));
            EtcdStepper {
                recipe: cfg.recipe,
                locals: cfg.recipe.start(),
                reply: None,
                me: Me {
                    client: c as u8,
                    ttl: cfg.ttl_seconds,
                    session_alive: false,
                },
                g: g.clone(),
                rebase: rebase.clone(),
                session,
                granted: granted.clone(),
                notifications: notifications.clone(),
                wakeups: wakeups.clone(),
                stop: None,
            }
        })
        .collect();
    let ran = threads::run(&cfg.plan, steppers);
    stop.store(true, Ordering::Relaxed);
    for k in keepers {
        let _ = k.join();
    }
    let leases: Vec<LeaseId> = granted
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .copied()
        .collect();
    let cleanup = clean_up(&g, &rebase, &leases);
    Ok(EtcdRealReport {
        run: ran?,
        version,
        prefix: rebase.prefix,
        notifications: notifications.load(Ordering::Relaxed),
        wakeups: wakeups.load(Ordering::Relaxed),
        keep_alives: keep_alives.load(Ordering::Relaxed),
        leases: leases.len(),
        cleanup,
    })
}

/// Revokes the run's leases and deletes what is left under its prefix:
/// how many keys that was.
fn clean_up(g: &Gateway, rebase: &Rebase, leases: &[LeaseId]) -> Result<u8, String> {
    for &id in leases {
        g.call(&Request::Revoke(id))?;
    }
    match g.call(&Request::Delete {
        key: rebase.prefix.clone(),
        prefix: true,
    })? {
        Reply::Deleted { deleted, .. } => Ok(deleted),
        other => Err(format!("deleting {}: {other}", rebase.prefix)),
    }
}

/// One client's recipe machine, its session and its gateway.
struct EtcdStepper {
    recipe: EtcdRecipe,
    locals: Locals,
    reply: Option<Reply>,
    me: Me,
    g: Gateway,
    rebase: Rebase,
    session: keepalive::Shared,
    granted: Arc<Mutex<BTreeSet<LeaseId>>>,
    notifications: Arc<AtomicU64>,
    wakeups: Arc<AtomicU64>,
    /// The run's stop flag: a watch gives up waiting once it is set.
    stop: Option<Arc<AtomicBool>>,
}

impl EtcdStepper {
    fn stopping(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The watch's `DELETE` (or its failure), whenever it comes; `None`
    /// if the run stops first.
    fn watch(&mut self, key: &str, from: i64) -> Result<Option<Reply>, String> {
        let mut w = self.g.watch(key, from)?;
        let got = loop {
            if let Some(r) = w.next_delete(Duration::from_millis(100))? {
                break Some(r);
            }
            if self.stopping() {
                break None;
            }
        };
        self.notifications.fetch_add(w.events, Ordering::Relaxed);
        if got.is_some() {
            self.wakeups.fetch_add(1, Ordering::Relaxed);
        }
        Ok(got)
    }
}

impl Stepper for EtcdStepper {
    type Command = Request;

    fn step(&mut self) -> Stepped<Request> {
        self.me.session_alive = self.session.alive(self.locals.session);
        let read = self.reply.take();
        let out = self.recipe.step(&mut self.locals, read.as_ref(), &self.me);
        self.session.follow(self.locals.session);
        Stepped {
            kind: out.kind,
            send: out.send,
            sleep: false,
        }
    }

    fn exchange(&mut self, req: Request) -> Result<(), String> {
        let sent = self.rebase.request(&req);
        let got = match &sent {
            Request::Watch { key, from } => self.watch(key, *from)?,
            other => Some(self.g.call(other).map_err(|e| format!("{req}: {e}"))?),
        };
        self.reply = got.map(|r| self.rebase.to_model(&r));
        if let Some(Reply::Granted { id, .. }) = &self.reply {
            self.granted
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(*id);
        }
        Ok(())
    }

    fn restart(&mut self) {
        self.locals = self.recipe.start();
    }

    fn watch_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// The token is the key's create revision (the `Mutex`'s `myRev`).
    fn token(&mut self) -> Result<Option<u64>, String> {
        Ok(u64::try_from(self.locals.my_rev).ok())
    }
}
