//! `locksmith confirm` on Redis: the checker's shortest counterexample of
//! a Redis scenario re-enacted step for step on a real redis-server —
//! `confirmed` with the same violation there, `diverged at step N` with
//! what the model expected and what the server did, or `not confirmed`
//! at a step that cannot be forced.
//!
//! The recipes are the checker's sans-IO machines, stepped by the trace;
//! only the server is real. How each action of a trace is forced:
//!
//! - **a client step, a think, a pause, a client's clock jump**: the
//!   harness's own — the recipe's next command is computed, a client's
//!   clock is the harness's (the seeds read `System.currentTimeMillis()`,
//!   which the harness supplies), a paused client simply takes no step;
//!   nothing reaches the server;
//! - **the server serving a command**: the command, on the client's own
//!   connection, at that point of the trace; its reply must be the model's;
//! - **a tick**: the run sleeps to the next tick of `tick_ms` real
//!   milliseconds, and the server's own clock runs the TTLs ([`scale`]: a
//!   TTL of `t` ticks is sent as `t` ticks and a half);
//! - **a crash**: the client's connection closes; its keys stay;
//! - **a restart without persistence**: the run's keys are deleted — the
//!   server itself is not restarted (other clients may use it), and losing
//!   every key is all a restart does in the model;
//! - **a jump of the server's clock**: the run's keys' deadlines move by
//!   the jump (`PEXPIRETIME`, `PEXPIREAT`; a deadline now past deletes the
//!   key) — Redis's clock cannot be moved from outside, and the deadlines
//!   are all a jump changes in the model;
//! - **replication and a failover**: not forced (they need a replica
//!   server): the run stops `not confirmed` there.
//!
//! After every step the run's keys on the server (`GET`, `PTTL`) must be
//! the model's, and every real operation must have happened within the
//! first quarter of its tick (else the timing cannot be vouched for: `not
//! confirmed`, and a longer tick helps). At the end the property is judged
//! on the state both sides agreed on at every step, with what the server
//! showed; a stuck lock is shown by waiting a lease and a pause more and
//! finding the key still there, without a TTL.
//!
//! The run's keys are its own, `locksmith-confirm-<connection id>:lock`
//! and `…:fence`, refused if they exist and deleted at the end.

pub mod command;
pub mod scale;

use crate::confirm::ConfirmReport;
use crate::confirm::{StepRecord, Stop};
use crate::redis::real::wire::{self, Wire};
use crate::redis::real::wire::{connect, unix_ms};
use locksmith_model::engine::explore_space;
use locksmith_model::engine::harness::Property;
use locksmith_model::engine::Counterexample;
use locksmith_model::engine::Judged;
use locksmith_model::engine::Space;
use locksmith_model::engine::Verdict;
use locksmith_model::redis::check::{Action, Channel, RedisSpace, State};
use locksmith_model::redis::check::{FENCE_KEY, LOCK_KEY};
use locksmith_model::redis::{Command, Key};
use scale::Scale;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What one confirmation on Redis does.
#[derive(Clone, Debug)]
pub struct RedisConfirmConfig {
    /// The scenario's configuration: its trace is re-enacted.
    pub space: RedisSpace,
    /// The server, `host:port`.
    pub addr: String,
    /// Real milliseconds per tick of the model.
    pub tick_ms: u32,
    /// The property whose shortest trace is re-enacted; `None`: the
    /// checker's headline.
    pub property: Option<Property>,
    /// Set (by Ctrl-C) to stop early; it still cleans up.
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl RedisConfirmConfig {
    pub fn new(space: RedisSpace, addr: &str) -> RedisConfirmConfig {
        RedisConfirmConfig {
            space,
            addr: addr.to_string(),
            tick_ms: 100,
            property: None,
            interrupt: None,
        }
    }
}

/// The checker's shortest trace of `property` (the headline if `None`),
/// and the states it explored; an error if there is none.
pub fn shortest(
    space: &RedisSpace,
    property: Option<Property>,
) -> Result<(Property, Counterexample<Action>, usize), String> {
    space.validate()?;
    let x = explore_space(space, &mut |_| ControlFlow::Continue(()));
    let report = space.report(&x);
    let wanted = match property {
        Some(p) => p,
        None => match report.property {
            Some(p) if report.verdict == Verdict::Violated => p,
            _ => {
                return Err(match report.verdict {
                    Verdict::Incomplete => format!(
                        "the checker's run is incomplete ({}) and found no violation: nothing to confirm",
                        report.bound.as_deref().unwrap_or("a client never acquired")
                    ),
                    v => format!(
                        "the checker's verdict is `{v}`: there is no counterexample to confirm"
                    ),
                })
            }
        },
    };
    match x.found.get(&wanted) {
        Some(cx) => Ok((wanted, cx.clone(), x.states)),
        None => Err(format!(
            "the checker found no violation of {wanted}: nothing to confirm"
        )),
    }
}

/// Re-enacts the checker's shortest trace on the server. An error: no
/// violation to confirm, no server, or the run's keys taken.
pub fn run(cfg: &RedisConfirmConfig) -> Result<ConfirmReport, String> {
    if cfg.tick_ms < 20 {
        return Err(format!(
            "a tick of {} ms: expected at least 20 (a step must fit well inside a quarter tick)",
            cfg.tick_ms
        ));
    }
    let (property, cx, states) = shortest(&cfg.space, cfg.property)?;
    let started = Instant::now();
    let mut admin = connect(&cfg.addr)?;
    let id: i64 = redis::cmd("CLIENT")
        .arg("ID")
        .query(&mut admin)
        .map_err(|e| format!("Redis at {}: CLIENT ID: {e}", cfg.addr))?;
    let prefix = format!("locksmith-confirm-{id}:");
    let keys = [
        Key::new(&format!("{prefix}{LOCK_KEY}")),
        Key::new(&format!("{prefix}{FENCE_KEY}")),
    ];
    let taken: i64 = redis::cmd("EXISTS")
        .arg(keys[0].as_str())
        .arg(keys[1].as_str())
        .query(&mut admin)
        .map_err(|e| format!("Redis at {}: EXISTS: {e}", cfg.addr))?;
    if taken != 0 {
        return Err(format!(
            "the run's keys {prefix}* already exist on {}: refusing to touch them",
            cfg.addr
        ));
    }
    let mut conns = Vec::new();
    for _ in 0..cfg.space.clients {
        conns.push(Some(connect(&cfg.addr)?));
    }
    let mut stage = Stage {
        space: &cfg.space,
        scale: Scale::new(
            &cfg.space,
            i64::from(cfg.tick_ms),
            unix_ms(),
            prefix.clone(),
        ),
        state: cfg.space.initial(),
        tick: 0,
        start: Instant::now(),
        conns,
        admin,
        records: Vec::new(),
    };
    let mut result = Ok(String::new());
    for (i, &a) in cx.actions.iter().enumerate() {
        if cfg
            .interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
        {
            result = Err(Stop::Interrupted);
            break;
        }
        if let Err(stop) = stage.step(i + 1, a) {
            result = Err(stop);
            break;
        }
    }
    if result.is_ok() {
        result = stage.judge(property, cx.actions.len());
    }
    stage.conns.clear();
    let cleanup = redis::cmd("DEL")
        .arg(keys[0].as_str())
        .arg(keys[1].as_str())
        .query::<i64>(&mut stage.admin)
        .map(|n| n as usize)
        .map_err(|e| format!("DEL {prefix}*: {e}"));
    let (outcome, interrupted) = crate::confirm::outcome(result, stage.records.len(), &cleanup)?;
    Ok(ConfirmReport {
        property,
        trace_steps: cx.actions.len(),
        states,
        cycle_start: cx.cycle_start.map(|c| c + 1),
        outcome,
        transcript: stage.records,
        root: prefix,
        cleanup,
        elapsed: started.elapsed(),
        interrupted,
    })
}

/// The re-enactment under way: the model's state, which the server has
/// agreed with at every step so far, and the real side.
struct Stage<'a> {
    space: &'a RedisSpace,
    scale: Scale,
    state: State,
    /// The model's ticks so far.
    tick: i64,
    /// When tick 0 began.
    start: Instant,
    /// Each client's connection (`None` once it crashed).
    conns: Vec<Option<redis::Connection>>,
    /// The run's own connection: observes the keys, forces the server's
    /// faults.
    admin: redis::Connection,
    records: Vec<StepRecord>,
}

impl Stage<'_> {
    fn failed(&self, what: &str, e: redis::RedisError) -> Stop {
        Stop::Failed(format!("Redis: {what}: {e}"))
    }

    /// Takes action `a`, the trace's step `step`, on both sides.
    fn step(&mut self, step: usize, a: Action) -> Result<(), Stop> {
        let mut enabled = Vec::new();
        self.space.actions(&self.state, &mut enabled);
        if !enabled.contains(&a) {
            return Err(Stop::Failed(format!(
                "step {step}: the checker's trace takes `{a}`, which the model does not enable there"
            )));
        }
        let before = self.state.clone();
        let real = match a {
            Action::Serve(c) => self.serve(step, c, &before)?,
            Action::Tick => {
                let next =
                    Duration::from_millis((self.tick + 1) as u64 * self.scale.tick_ms as u64);
                std::thread::sleep(next.saturating_sub(self.start.elapsed()));
                self.tick += 1;
                self.space.apply(&mut self.state, a);
                format!(
                    "slept to tick {} ({} ms into the run)",
                    self.tick,
                    self.tick * self.scale.tick_ms
                )
            }
            Action::Crash(c) => {
                self.conns[c as usize] = None;
                self.space.apply(&mut self.state, a);
                format!("c{}'s connection closed; its keys stay", c + 1)
            }
            Action::Restart => {
                let n: i64 = redis::cmd("DEL")
                    .arg(self.key(LOCK_KEY).as_str())
                    .arg(self.key(FENCE_KEY).as_str())
                    .query(&mut self.admin)
                    .map_err(|e| self.failed("DEL (restart)", e))?;
                self.space.apply(&mut self.state, a);
                format!("the run's keys deleted ({n}), as a restart without persistence loses them")
            }
            Action::ServerClockAhead | Action::ServerClockBack => {
                let ms = i64::from(self.space.skew) * self.scale.tick_ms;
                let ms = if a == Action::ServerClockAhead {
                    -ms
                } else {
                    ms
                };
                let moved = self.move_deadlines(ms)?;
                self.space.apply(&mut self.state, a);
                format!("the run's keys' deadlines moved by {ms} ms: {moved}")
            }
            Action::Replicate | Action::Failover => {
                return Err(Stop::Unforced {
                    step,
                    why: format!("`{a}` needs a replica server, which confirm does not run"),
                })
            }
            Action::Step(_)
            | Action::Think(_)
            | Action::Pause(_)
            | Action::ClockAhead(_)
            | Action::ClockBack(_) => {
                self.space.apply(&mut self.state, a);
                "the harness's own step: nothing reaches the server".into()
            }
        };
        let keys = self.observe(step)?;
        let late = self.start.elapsed().as_millis() as i64 - self.tick * self.scale.tick_ms;
        if late > self.scale.tick_ms / 4 {
            return Err(Stop::Unforced {
                step,
                why: format!(
                    "the run fell {late} ms behind its tick of {} ms: the TTLs' timing cannot be vouched for (a longer --tick-ms helps)",
                    self.scale.tick_ms
                ),
            });
        }
        let model = self.space.what(&before, &self.state, a);
        self.records.push(StepRecord {
            step,
            actor: actor(a),
            model,
            real: format!("{real}; {keys}"),
        });
        Ok(())
    }

    fn key(&self, name: &str) -> Key {
        self.scale.key(&Key::new(name))
    }

    /// Client `c`'s command on its own connection; its reply must be the
    /// model's.
    fn serve(&mut self, step: usize, c: u8, before: &State) -> Result<String, Stop> {
        let Channel::Sent(cmd) = &before.clients[c as usize].channel else {
            return Err(Stop::Failed(format!("step {step}: nothing to serve")));
        };
        let sent = self
            .scale
            .command(cmd)
            .map_err(|why| Stop::Unforced { step, why })?;
        let now = self.scale.now(self.tick);
        let Some(conn) = self.conns[c as usize].as_mut() else {
            return Err(Stop::Failed(format!(
                "step {step}: c{} has no connection",
                c + 1
            )));
        };
        let got = wire::observed(wire::request(&sent, now).query::<redis::Value>(conn));
        if let Wire::Other(o) = &got {
            return Err(Stop::Failed(format!("Redis: {}: {o}", wire::name(&sent))));
        }
        self.space.apply(&mut self.state, Action::Serve(c));
        let Channel::Replied(reply) = &self.state.clients[c as usize].channel else {
            return Err(Stop::Failed(format!(
                "step {step}: the model made no reply"
            )));
        };
        let expected = self.scale.expected(reply, self.tick);
        let seen = self
            .scale
            .observed(got.clone(), matches!(cmd, Command::PTtl { .. }), self.tick);
        if seen != expected {
            return Err(Stop::Diverged {
                step,
                expected: format!("{sent} → {expected}"),
                actual: format!("{sent} → {got}"),
            });
        }
        Ok(format!("{sent} → {got}"))
    }

    /// Moves the deadline of each of the run's keys that has one by `ms`.
    fn move_deadlines(&mut self, ms: i64) -> Result<String, Stop> {
        let mut moved = Vec::new();
        for name in [LOCK_KEY, FENCE_KEY] {
            let key = self.key(name);
            let at: i64 = redis::cmd("PEXPIRETIME")
                .arg(key.as_str())
                .query(&mut self.admin)
                .map_err(|e| self.failed("PEXPIRETIME", e))?;
            if at > 0 {
                let _: i64 = redis::cmd("PEXPIREAT")
                    .arg(key.as_str())
                    .arg(at + ms)
                    .query(&mut self.admin)
                    .map_err(|e| self.failed("PEXPIREAT", e))?;
                moved.push(format!("PEXPIREAT {key} {}", at + ms));
            }
        }
        Ok(if moved.is_empty() {
            "no key has a deadline".into()
        } else {
            moved.join(", ")
        })
    }

    /// The run's keys on the server, which must be the model's: what it
    /// shows, as the transcript's `real` column ends.
    fn observe(&mut self, step: usize) -> Result<String, Stop> {
        let mut shown = Vec::new();
        for name in [LOCK_KEY, FENCE_KEY] {
            let key = self.key(name);
            let (value, ttl): (redis::Value, redis::Value) = redis::pipe()
                .cmd("GET")
                .arg(key.as_str())
                .cmd("PTTL")
                .arg(key.as_str())
                .query(&mut self.admin)
                .map_err(|e| self.failed("GET, PTTL", e))?;
            let value = self
                .scale
                .observed(wire::observed(Ok(value)), false, self.tick);
            let ttl = self
                .scale
                .observed(wire::observed(Ok(ttl)), true, self.tick);
            let model = self.state.server.entry(&Key::new(name));
            let (want_value, want_ttl) = self.scale.entry(model, self.tick);
            let words = |v: &Wire, t: &Wire| match (v, t) {
                (Wire::Nil, _) => format!("no {name}"),
                (v, Wire::Int(-1)) => format!("{name} = {v}, no TTL"),
                (v, Wire::Int(t)) => format!("{name} = {v}, {t} tick(s) left"),
                (v, t) => format!("{name} = {v}, PTTL {t}"),
            };
            if (&value, &ttl) != (&want_value, &want_ttl) {
                return Err(Stop::Diverged {
                    step,
                    expected: words(&want_value, &want_ttl),
                    actual: words(&value, &ttl),
                });
            }
            if value != Wire::Nil || name == LOCK_KEY {
                shown.push(words(&value, &ttl));
            }
        }
        Ok(shown.join(", "))
    }

    /// The property on the real side, after the last step: the state both
    /// sides agreed on shows it, and for a stuck lock the key outlives a
    /// wait of a lease and a pause.
    fn judge(&mut self, p: Property, steps: usize) -> Result<String, Stop> {
        let s = &self.state;
        let holders: Vec<String> = (1..)
            .zip(&s.clients)
            .filter(|(_, c)| c.phase.holds())
            .map(|(n, _)| format!("c{n}"))
            .collect();
        let lock = self.records.last().map_or(String::new(), |r| {
            r.real.rsplit("; ").next().unwrap_or_default().to_string()
        });
        match p {
            Property::StuckLock => self.stuck(steps),
            _ if self.space.violated_in(p, s) => Ok(match p {
                Property::MutualExclusion => format!(
                    "{} {} the lock, each by a reply the server gave ({lock})",
                    holders.join(" and "),
                    if holders.len() == 2 { "both hold" } else { "all hold" }
                ),
                Property::UnlockByNonOwner => format!(
                    "the server's reply at step {steps} took the key of a client whose tenure is current and still valid by the recipe's rule ({lock})"
                ),
                _ => format!("{p}, with every reply and the keys as the model's ({lock})"),
            }),
            _ => Err(Stop::Unforced {
                step: steps,
                why: format!("the last state does not show {p}: confirm judges it only there"),
            }),
        }
    }

    /// A stuck lock: a key without a TTL that no client left will delete;
    /// after a lease and a pause more, the server still has it.
    fn stuck(&mut self, steps: usize) -> Result<String, Stop> {
        let entry = self.state.server.entry(&Key::new(LOCK_KEY)).cloned();
        let Some(e) = entry.filter(|e| e.ttl.is_none()) else {
            return Err(Stop::Unforced {
                step: steps,
                why: "a stuck lock without a key that lacks a TTL: confirm shows one only by such a key"
                    .into(),
            });
        };
        let wait = i64::from(self.space.lease) + i64::from(self.space.pause);
        std::thread::sleep(Duration::from_millis((wait * self.scale.tick_ms) as u64));
        let key = self.key(LOCK_KEY);
        let ttl: i64 = redis::cmd("PTTL")
            .arg(key.as_str())
            .query(&mut self.admin)
            .map_err(|e| self.failed("PTTL", e))?;
        if ttl != -1 {
            return Err(Stop::Diverged {
                step: steps,
                expected: format!("{LOCK_KEY} = {}, no TTL, {wait} ticks later", e.value),
                actual: format!("PTTL {key} → {ttl}"),
            });
        }
        Ok(format!(
            "{key} has no TTL and is still there {wait} ticks after the last step (PTTL -1), and no client left deletes it"
        ))
    }
}

/// Who takes `a`, as the transcript's actor column names it.
fn actor(a: Action) -> String {
    match a {
        Action::Step(c) | Action::Think(c) => format!("c{}", c + 1),
        Action::Serve(c) => format!("redis<-c{}", c + 1),
        Action::Tick => "time".into(),
        Action::Replicate => "replica".into(),
        _ => "FAULT".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksmith_model::redis::recipes::RedisRecipe;

    #[test]
    fn the_headline_trace_and_a_named_property_are_found_and_a_holding_run_has_none() {
        let mut space = RedisSpace::new(RedisRecipe::SetPxDel);
        let err = shortest(&space, None).err().unwrap_or_default();
        assert!(err.contains("no counterexample"), "{err}");
        space.faults.pauses = 1;
        let (p, cx, _) = shortest(&space, None).expect("violated");
        assert_eq!(p, Property::MutualExclusion);
        assert!(!cx.actions.is_empty());
        let (p, _, _) = shortest(&space, Some(Property::UnlockByNonOwner)).expect("violated");
        assert_eq!(p, Property::UnlockByNonOwner);
        let err = shortest(&space, Some(Property::StuckLock))
            .err()
            .unwrap_or_default();
        assert!(err.contains("no violation of stuck lock"), "{err}");
    }
}
