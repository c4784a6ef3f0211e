//! The lock events a real client reports, and their judge.
//!
//! A client program under test tells `serve` what its lock did, one line
//! per event, on the events port (or any stream the caller feeds in):
//!
//! ```text
//! CLIENT EVENT [SESSION]
//! ```
//!
//! `CLIENT` is any name without spaces; `EVENT` one of `acquiring`
//! (`lock()` called), `acquired` (`lock()` returned), `begin` and `end`
//! (the critical section's opening and closing writes to the protected
//! resource), `released` (`unlock()` called), `gave-up` (`lock()` returned
//! without the lock), `died` (an exception escaped `lock()` or `unlock()`:
//! the thread that ran them is gone) and `finished`; `SESSION` the
//! client's session id
//! (`0x…` or decimal), which lets a fault aim at the holder; `0` is a
//! library with no session right now, and leaves the last one known.
//!
//! The judge is the harness's: mutual exclusion by belief is
//! [`judge::two_holders`] over the clients' phases, mutual exclusion at
//! the resource is [`Resource`] over the writes in the order they arrive,
//! deadlock is a client waiting with nobody holding for a bound, and a herd
//! is one release notifying two or more waiting clients (the server tells
//! the judge whom each request notified).

use locksmith_model::engine::harness::resource::{Outcome, Resource, Write};
use locksmith_model::engine::harness::{judge, Phase, Property, Violations};
use std::time::Instant;

/// One reported event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Acquiring,
    Acquired,
    Begin,
    End,
    Released,
    GaveUp,
    Died,
    Finished,
}

impl Kind {
    const WORDS: [(&'static str, Kind); 8] = [
        ("acquiring", Kind::Acquiring),
        ("acquired", Kind::Acquired),
        ("begin", Kind::Begin),
        ("end", Kind::End),
        ("released", Kind::Released),
        ("gave-up", Kind::GaveUp),
        ("died", Kind::Died),
        ("finished", Kind::Finished),
    ];

    fn parse(s: &str) -> Option<Kind> {
        Kind::WORDS.iter().find(|(w, _)| *w == s).map(|(_, k)| *k)
    }
}

/// One line, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub client: String,
    pub kind: Kind,
    pub session: Option<u32>,
}

/// Reads one line of the protocol; the error says what was expected.
pub fn parse(line: &str) -> Result<Line, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let expected = || {
        let kinds: Vec<&str> = Kind::WORDS.iter().map(|(w, _)| *w).collect();
        format!(
            "expected `CLIENT EVENT [SESSION]` with EVENT one of {}, got {line:?}",
            kinds.join(", ")
        )
    };
    let (client, kind, session) = match words.as_slice() {
        [c, k] => (c, k, None),
        [c, k, s] => (c, k, Some(s)),
        _ => return Err(expected()),
    };
    let kind = Kind::parse(kind).ok_or_else(expected)?;
    let session = match session {
        None => None,
        Some(s) => Some(session_id(s).ok_or_else(|| {
            format!("SESSION must be a session id (0x1a or 26), got {s:?} in {line:?}")
        })?),
    };
    Ok(Line {
        client: client.to_string(),
        kind,
        session,
    })
}

fn session_id(s: &str) -> Option<u32> {
    match s.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

struct Client {
    name: String,
    phase: Phase,
    session: Option<u32>,
    /// The acquisition it holds or last held (numbered as `lock()`s
    /// return), which its writes belong to.
    tenure: u64,
    holding_since: Option<Instant>,
    waiting_since: Option<Instant>,
    acquisitions: u64,
    finished: bool,
    /// It reported `released` and has not called `lock()` since: its next
    /// requests are its release operation's.
    releasing: bool,
}

/// The judge over every client's events.
pub struct Judge {
    clients: Vec<Client>,
    resource: Resource,
    pub violations: Violations,
    tenures: u64,
    pub writes: u64,
    /// When the first `lock()` returned, in ms from the start.
    pub first_acquisition_ms: Option<u64>,
    last_progress: Instant,
    started: Instant,
}

impl Judge {
    pub fn new(started: Instant) -> Judge {
        Judge {
            clients: Vec::new(),
            resource: Resource::new(false),
            violations: Violations::default(),
            tenures: 0,
            writes: 0,
            first_acquisition_ms: None,
            last_progress: started,
            started,
        }
    }

    fn index(&mut self, name: &str) -> usize {
        if let Some(i) = self.clients.iter().position(|c| c.name == name) {
            return i;
        }
        self.clients.push(Client {
            name: name.to_string(),
            phase: Phase::Idle,
            session: None,
            tenure: 0,
            holding_since: None,
            waiting_since: None,
            acquisitions: 0,
            finished: false,
            releasing: false,
        });
        self.clients.len() - 1
    }

    fn ms(&self, at: Instant) -> u64 {
        at.duration_since(self.started).as_millis() as u64
    }

    /// One event, judged as it arrives.
    pub fn event(&mut self, line: &Line, now: Instant) {
        let i = self.index(&line.client);
        let at = self.ms(now);
        // Session ids count from 1: a 0 is a library with no session
        // right now (connecting), which leaves the last one known.
        if let Some(id) = line.session.filter(|&id| id != 0) {
            self.clients[i].session = Some(id);
        }
        match line.kind {
            Kind::Acquiring => {
                let c = &mut self.clients[i];
                c.phase = Phase::Acquiring;
                c.releasing = false;
                c.waiting_since.get_or_insert(now);
            }
            Kind::Acquired => {
                self.tenures += 1;
                self.first_acquisition_ms.get_or_insert(at);
                self.last_progress = now;
                let c = &mut self.clients[i];
                c.phase = Phase::Holding(1);
                c.tenure = self.tenures;
                c.holding_since = Some(now);
                c.waiting_since = None;
                c.acquisitions += 1;
                if judge::two_holders(self.clients.iter().map(|c| c.phase)) {
                    let others: Vec<&str> = self
                        .clients
                        .iter()
                        .enumerate()
                        .filter(|(j, c)| *j != i && c.phase.holds())
                        .map(|(_, c)| c.name.as_str())
                        .collect();
                    self.violations.record(
                        Property::MutualExclusion,
                        format!(
                            "{} acquired at {at} ms while {} held the lock",
                            line.client,
                            others.join(" and ")
                        ),
                    );
                }
            }
            Kind::Begin | Kind::End => {
                self.writes += 1;
                let w = Write {
                    client: i,
                    tenure: self.clients[i].tenure,
                    token: None,
                    begin: line.kind == Kind::Begin,
                };
                if let Outcome::Violation(broken) = self.resource.apply(w) {
                    for (p, why) in broken {
                        let why = format!("at {at} ms, {}", self.named(&why));
                        self.violations.record(p, why);
                    }
                }
            }
            Kind::Released | Kind::GaveUp => {
                if line.kind == Kind::Released {
                    self.last_progress = now;
                }
                let c = &mut self.clients[i];
                c.phase = Phase::Released;
                c.releasing = line.kind == Kind::Released;
                c.holding_since = None;
                c.waiting_since = None;
            }
            Kind::Died => {
                let c = &mut self.clients[i];
                let was = if c.phase.holds() {
                    "holding"
                } else {
                    "in its lock's calls"
                };
                c.phase = Phase::Died;
                c.holding_since = None;
                c.waiting_since = None;
                self.violations.record(
                    Property::ThreadDied,
                    format!(
                        "an exception escaped {}'s lock at {at} ms ({was}): its thread died",
                        line.client
                    ),
                );
            }
            Kind::Finished => {
                let c = &mut self.clients[i];
                c.phase = Phase::Finished;
                c.finished = true;
                c.holding_since = None;
                c.waiting_since = None;
                self.resource.writer_gone(i);
            }
        }
    }

    /// The resource names clients `c1`, `c2`, … by their index; the
    /// report uses the names the clients gave.
    fn named(&self, why: &str) -> String {
        let word = |w: &str| {
            let (stem, tail) = match w.strip_suffix("'s") {
                Some(stem) => (stem, "'s"),
                None => (w, ""),
            };
            let index = stem
                .strip_prefix('c')
                .and_then(|n| n.parse::<usize>().ok())
                .and_then(|n| n.checked_sub(1));
            match index.and_then(|i| self.clients.get(i)) {
                Some(c) => format!("{}{tail}", c.name),
                None => w.to_string(),
            }
        };
        why.split(' ').map(word).collect::<Vec<_>>().join(" ")
    }

    /// Deadlock by bound: a client has waited `bound_ms` while nobody held
    /// the lock and nobody acquired or released it.
    pub fn check_stuck(&mut self, now: Instant, bound_ms: u64) {
        if self.clients.iter().any(|c| c.phase.holds()) {
            return;
        }
        let quiet = now.duration_since(self.last_progress).as_millis() as u64;
        let waiter = self.clients.iter().find(|c| {
            c.waiting_since
                .is_some_and(|w| now.duration_since(w).as_millis() as u64 >= bound_ms)
        });
        if let Some(w) = waiter {
            if quiet >= bound_ms {
                let why = format!(
                    "{} has waited since {} ms with nobody holding the lock and no acquisition \
                     or release for {quiet} ms (bound {bound_ms} ms)",
                    w.name,
                    self.ms(w.waiting_since.unwrap_or(now))
                );
                self.violations.record(Property::Deadlock, why);
            }
        }
    }

    /// Herd: a request from `session`, made after its client reported
    /// `released` (its release operation), notified the sessions
    /// `notified`; two or more of them waiting in `lock()` is a herd, as
    /// the checker judges it (one release waking more than one waiter).
    pub fn release_woke(&mut self, session: u32, notified: &[u32], now: Instant) {
        let releasing = self
            .clients
            .iter()
            .find(|c| c.session == Some(session) && c.releasing);
        let Some(releaser) = releasing.map(|c| c.name.clone()) else {
            return;
        };
        let mut woken: Vec<&str> = self
            .clients
            .iter()
            .filter(|c| c.phase == Phase::Acquiring)
            .filter(|c| {
                c.session
                    .is_some_and(|s| s != session && notified.contains(&s))
            })
            .map(|c| c.name.as_str())
            .collect();
        woken.sort_unstable();
        woken.dedup();
        if woken.len() >= 2 {
            let why = format!(
                "{releaser}'s release at {} ms woke {} waiters: {}",
                self.ms(now),
                woken.len(),
                woken.join(", ")
            );
            self.violations.record(Property::Herd, why);
        }
    }

    /// The session of a client that has held the lock for at least
    /// `held_ms`, if one has.
    pub fn holder_for(&self, now: Instant, held_ms: u64) -> Option<(String, u32)> {
        self.lasting(now, held_ms, |c| c.holding_since)
    }

    /// The session of a client that has waited in `lock()` for at least
    /// `waited_ms`, if one has.
    pub fn waiter_for(&self, now: Instant, waited_ms: u64) -> Option<(String, u32)> {
        self.lasting(now, waited_ms, |c| c.waiting_since)
    }

    /// The first client (with its session) whose `since` is `ms` old.
    fn lasting(
        &self,
        now: Instant,
        ms: u64,
        since: impl Fn(&Client) -> Option<Instant>,
    ) -> Option<(String, u32)> {
        self.clients.iter().find_map(|c| {
            let from = since(c)?;
            let session = c.session?;
            (now.duration_since(from).as_millis() as u64 >= ms).then(|| (c.name.clone(), session))
        })
    }

    /// Whether the client last on `session` has ended (its thread died or
    /// it finished its rounds).
    pub fn ended(&self, session: u32) -> bool {
        self.clients
            .iter()
            .any(|c| c.session == Some(session) && matches!(c.phase, Phase::Died | Phase::Finished))
    }

    pub fn finished(&self) -> usize {
        self.clients.iter().filter(|c| c.finished).count()
    }

    pub fn acquisitions(&self) -> u64 {
        self.clients.iter().map(|c| c.acquisitions).sum()
    }

    /// Each client with its acquisitions, in order of first report.
    pub fn per_client(&self) -> Vec<(String, u64)> {
        self.clients
            .iter()
            .map(|c| (c.name.clone(), c.acquisitions))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn line(s: &str) -> Line {
        parse(s).unwrap()
    }

    #[test]
    fn a_line_reads_as_client_event_session_and_a_bad_one_says_what_was_expected() {
        assert_eq!(
            line("c1 acquired 0x1a"),
            Line {
                client: "c1".into(),
                kind: Kind::Acquired,
                session: Some(26)
            }
        );
        assert_eq!(line("w2 gave-up").session, None);
        let e = parse("c1 grabbed").unwrap_err();
        assert!(e.contains("acquiring, acquired, begin"), "{e}");
        let e = parse("c1 acquired zz").unwrap_err();
        assert!(e.contains("session id"), "{e}");
        assert!(parse("").is_err());
    }

    #[test]
    fn two_believed_holders_and_interleaved_writes_are_violations() {
        let t0 = Instant::now();
        let mut j = Judge::new(t0);
        for l in ["a acquiring 1", "b acquiring 2", "a acquired 1", "a begin"] {
            j.event(&line(l), t0);
        }
        assert!(j.violations.is_empty());
        assert_eq!(j.holder_for(t0, 0), Some(("a".into(), 1)));
        j.event(&line("b acquired"), t0 + Duration::from_millis(5));
        assert!(j.violations.contains(Property::MutualExclusion));
        j.event(&line("b begin"), t0);
        j.event(&line("a end"), t0);
        assert_eq!(
            j.violations.get(Property::MutualExclusionAtResource),
            Some("at 0 ms, the resource saw b begin a write while a's critical section was open")
        );
        assert_eq!(j.acquisitions(), 2);
    }

    #[test]
    fn session_zero_is_no_session_and_leaves_the_last_one_named() {
        let t0 = Instant::now();
        let mut j = Judge::new(t0);
        j.event(&line("a acquiring 0x0"), t0);
        assert_eq!(j.waiter_for(t0, 0), None);
        j.event(&line("a acquiring 0x2"), t0);
        j.event(&line("a acquiring 0x0"), t0);
        assert_eq!(j.waiter_for(t0, 0), Some(("a".into(), 2)));
    }

    #[test]
    fn a_waiter_with_nobody_holding_past_the_bound_is_a_deadlock() {
        let t0 = Instant::now();
        let mut j = Judge::new(t0);
        j.event(&line("a acquiring"), t0);
        j.check_stuck(t0 + Duration::from_millis(99), 100);
        assert!(j.violations.is_empty());
        j.check_stuck(t0 + Duration::from_millis(100), 100);
        assert!(j.violations.contains(Property::Deadlock));
    }

    #[test]
    fn an_exception_escaping_the_lock_is_a_thread_that_died() {
        let t0 = Instant::now();
        let mut j = Judge::new(t0);
        j.event(&line("a acquiring 1"), t0);
        assert!(j.violations.is_empty());
        j.event(&line("a died 1"), t0 + Duration::from_millis(7));
        assert_eq!(
            j.violations.get(Property::ThreadDied),
            Some("an exception escaped a's lock at 7 ms (in its lock's calls): its thread died")
        );
        assert_eq!(j.waiter_for(t0 + Duration::from_secs(9), 0), None);
    }
}
