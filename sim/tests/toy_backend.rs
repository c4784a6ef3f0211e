//! A toy backend through the seams, written only here: a one-key lock
//! server, one recipe in two variants, one fault. It proves that a backend
//! needs nothing outside its own files to be checked exhaustively (the
//! engine's [`Space`] and [`Judged`]: search, shortest traces, the
//! harness's properties, the report of every property) and simulated at random (the command
//! simulators' [`CommandWorld`]: clients on madsim nodes, the chaos task,
//! the run's record and end).
//!
//! The server holds one key: the number of the client that set it, or
//! nothing. The recipe, `get-then-set`, is the check-then-act race of a
//! lock written with two commands (GET, then SET if it was free); its
//! variant `set-if-absent` takes the key in one atomic command (SETNX).
//! Both release with DEL. The fault: a client's process crashes, and the
//! key it set stays.
//!
//! And through the app's seam: `locksmith check`'s run takes the toy as
//! any backend's scenario ([`Commands`], what every command asks of a
//! scenario, and [`Checked`], what `check` asks), the flags applied and
//! the exit code given by the run every backend shares.
//!
//! What the toy leaves out: it is not in `locksmith recipes` or a scenario
//! file, since the catalogue and the app's list of backends
//! (`locksmith::backends`) take one line each in the crates, which a test
//! cannot add.

use clap::Parser;
use locksmith::check::flags::{CheckArgs, Sizes};
use locksmith::check::output::{exploration_json, report_text};
use locksmith::check::Checked;
use locksmith::commands::{Commands, Pinned, Planned};
use locksmith::simulate::command::{self, lock, Aftermath, CommandWorld, Core, Setup, TICK_MS};
use locksmith_model::engine::harness::{judge, LockEvent, Phase, Property, StepKind};
use locksmith_model::engine::{
    next_by_apply, Canonical, Counterexample, GrowthWords, Judged, Limits, Next, Progress,
    Renumbering, Report, Space, Trace, TraceStep, Verdict, NO_AGENT,
};
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// ------------------------------------------------------------ the server

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Cmd {
    Get,
    /// Sets the key to the sender.
    Set,
    /// Sets the key to the sender if it is free.
    SetNx,
    Del,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Reply {
    Value(Option<u8>),
    Done(bool),
}

/// The server applies `c`'s command to the key.
fn apply(key: &mut Option<u8>, c: u8, cmd: Cmd) -> Reply {
    match cmd {
        Cmd::Get => Reply::Value(*key),
        Cmd::Set => {
            *key = Some(c);
            Reply::Done(true)
        }
        Cmd::SetNx => {
            let free = key.is_none();
            if free {
                *key = Some(c);
            }
            Reply::Done(free)
        }
        Cmd::Del => {
            *key = None;
            Reply::Done(true)
        }
    }
}

// ------------------------------------------------------------ the recipe

/// Where a client's `lock()`/`unlock()` stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Pc {
    Begin,
    Checking,
    Setting,
    Holding,
    Releasing,
    Done,
}

/// The recipe's next step from `pc`, given the reply to its last command:
/// where it goes, what it sends, what the step means to the harness.
fn step(atomic: bool, pc: Pc, reply: Option<Reply>) -> (Pc, Option<Cmd>, StepKind) {
    match (pc, reply) {
        (Pc::Begin, _) if atomic => (Pc::Setting, Some(Cmd::SetNx), StepKind::Other),
        (Pc::Begin, _) => (Pc::Checking, Some(Cmd::Get), StepKind::Other),
        (Pc::Checking, Some(Reply::Value(None))) => (Pc::Setting, Some(Cmd::Set), StepKind::Other),
        (Pc::Checking, _) => (Pc::Begin, None, StepKind::Other),
        (Pc::Setting, Some(Reply::Done(true))) => (Pc::Holding, None, StepKind::Acquired),
        (Pc::Setting, _) => (Pc::Begin, None, StepKind::Other),
        (Pc::Holding, _) => (Pc::Releasing, Some(Cmd::Del), StepKind::Released),
        (Pc::Releasing, _) => (Pc::Done, None, StepKind::SentRelease),
        (Pc::Done, _) => (Pc::Done, None, StepKind::Finished),
    }
}

// ------------------------------------------------------------ the checker

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Client {
    pc: Pc,
    phase: Phase,
    /// Sent and not yet served.
    sent: Option<Cmd>,
    /// Served and not yet read.
    reply: Option<Reply>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    key: Option<u8>,
    clients: Vec<Client>,
    crashes_left: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    /// Client `c`'s thread runs its next step.
    Step(u8),
    /// The server serves client `c`'s command.
    Serve(u8),
    /// Fault: client `c`'s process crashes.
    Crash(u8),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Step(c) => write!(f, "c{} steps", c + 1),
            Action::Serve(c) => write!(f, "server serves c{}", c + 1),
            Action::Crash(c) => write!(f, "FAULT: c{} crashes", c + 1),
        }
    }
}

struct ToySpace {
    atomic: bool,
    clients: u8,
    crashes: u8,
}

impl ToySpace {
    fn take(&self, s: &mut State, a: Action) {
        match a {
            Action::Step(c) => {
                let cl = &mut s.clients[usize::from(c)];
                let (pc, send, kind) = step(self.atomic, cl.pc, cl.reply.take());
                cl.pc = pc;
                cl.sent = send;
                cl.phase = cl.phase.after(kind, true, &mut Vec::new());
            }
            Action::Serve(c) => {
                let cl = &mut s.clients[usize::from(c)];
                if let Some(cmd) = cl.sent.take() {
                    cl.reply = Some(apply(&mut s.key, c, cmd));
                }
            }
            Action::Crash(c) => {
                s.crashes_left -= 1;
                let cl = &mut s.clients[usize::from(c)];
                cl.phase = Phase::Crashed;
                cl.sent = None;
            }
        }
    }

    fn live(c: &Client) -> bool {
        !matches!(c.phase, Phase::Crashed | Phase::Finished | Phase::Died)
    }

    fn mask(s: &State, f: impl Fn(&Client) -> bool) -> u8 {
        (0u8..)
            .zip(&s.clients)
            .filter(|(_, c)| f(c))
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// A counterexample as the engine's trace: each step, who took it and
    /// who holds after it.
    fn trace_of(&self, cx: &Counterexample<Action>) -> Option<Trace> {
        let mut s = self.initial();
        let steps = cx
            .actions
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                self.take(&mut s, a);
                TraceStep {
                    step: i + 1,
                    actor: a.to_string(),
                    text: format!("key = {:?}", s.key.map(|c| c + 1)),
                    tree: Vec::new(),
                    holders: (1u8..)
                        .zip(&s.clients)
                        .filter(|(_, c)| c.phase.holds())
                        .map(|(i, _)| i)
                        .collect(),
                    cycle_starts_here: cx.cycle_start == Some(i),
                }
            })
            .collect();
        Some(Trace {
            steps,
            cycle_start: cx.cycle_start.map(|i| i + 1),
        })
    }
}

/// What the engine needs besides the space to check and report it whole.
impl Judged for ToySpace {
    fn clients(&self) -> u8 {
        self.clients
    }

    fn not_judged(&self, p: Property) -> Option<&'static str> {
        match p {
            Property::MutualExclusion
            | Property::StuckLock
            | Property::Deadlock
            | Property::Starvation => None,
            _ => Some("the toy judges only its lock's own properties"),
        }
    }

    fn render(&self, cx: &Counterexample<Action>) -> Option<Trace> {
        self.trace_of(cx)
    }

    fn valid(&self) -> bool {
        self.clients > 0
    }
}

impl Space for ToySpace {
    type State = State;
    type Action = Action;

    fn limits(&self) -> Limits {
        Limits {
            max_states: 100_000,
            max_memory: 1 << 30,
            max_depth: usize::MAX,
            max_time: None,
            starvation: true,
            jobs: 1,
        }
    }

    fn initial(&self) -> State {
        let idle = Client {
            pc: Pc::Begin,
            phase: Phase::Idle,
            sent: None,
            reply: None,
        };
        State {
            key: None,
            clients: vec![idle; usize::from(self.clients)],
            crashes_left: self.crashes,
        }
    }

    fn actions(&self, s: &State, out: &mut Vec<Action>) {
        for (c, cl) in (0u8..).zip(&s.clients) {
            if !Self::live(cl) {
                continue;
            }
            if cl.sent.is_some() {
                out.push(Action::Serve(c));
            } else {
                out.push(Action::Step(c));
            }
            if s.crashes_left > 0 {
                out.push(Action::Crash(c));
            }
        }
    }

    fn apply(&self, s: &mut State, a: Action) {
        self.take(s, a);
    }

    fn next(&self, s: &State, a: Action, wanted: &mut dyn FnMut(u64) -> bool) -> Next<State> {
        next_by_apply(self, s, a, wanted)
    }

    fn canonical(&self, s: &State) -> Canonical {
        Canonical {
            fingerprint: self.exact_fingerprint(s),
            order: Renumbering::IDENTITY,
        }
    }

    fn exact_fingerprint(&self, s: &State) -> u64 {
        let mut h = DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    }

    fn is_fault(&self, a: Action) -> bool {
        matches!(a, Action::Crash(_))
    }

    fn agent(&self, a: Action) -> u8 {
        match a {
            Action::Step(c) => c << 1,
            Action::Serve(c) => c << 1 | 1,
            Action::Crash(_) => NO_AGENT,
        }
    }

    fn relabel(&self, a: Action, f: &dyn Fn(u8) -> u8) -> Action {
        match a {
            Action::Step(c) => Action::Step(f(c)),
            Action::Serve(c) => Action::Serve(f(c)),
            Action::Crash(c) => Action::Crash(f(c)),
        }
    }

    fn state_properties(&self) -> &'static [Property] {
        &[Property::MutualExclusion]
    }

    fn violated_in(&self, p: Property, s: &State) -> bool {
        p == Property::MutualExclusion && judge::two_holders(s.clients.iter().map(|c| c.phase))
    }

    fn stuck(&self, s: &State, progress: bool) -> bool {
        !progress && self.waiting(s) != 0
    }

    fn waiting(&self, s: &State) -> u8 {
        Self::mask(s, |c| Self::live(c) && c.phase.locking())
    }

    fn holders(&self, s: &State) -> u8 {
        Self::mask(s, |c| c.phase.holds())
    }

    /// The key outlives a crashed holder: nothing deletes it.
    fn judges_stuck_lock(&self) -> bool {
        true
    }

    fn acquirable(&self, s: &State) -> bool {
        s.key.is_none()
    }

    fn state_bytes(&self, s: &State) -> usize {
        std::mem::size_of::<State>() + s.clients.len() * std::mem::size_of::<Client>()
    }

    fn growth_marks(&self, _s: &State) -> (i64, usize) {
        (0, 1)
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords {
            id: "id",
            size: "keyspace",
            unit: "keys",
        }
    }

    fn abstracted(&self) -> bool {
        true
    }
}

// ---------------------------------------------------------- the simulator

struct ToyWorld {
    core: Core,
    atomic: bool,
    key: Option<u8>,
}

/// No fault of its own: a crash is the core's.
#[derive(Clone, Copy)]
enum NoFault {}

impl CommandWorld for ToyWorld {
    type Fault = NoFault;
    const FAULTS: &'static [(&'static str, NoFault)] = &[];
    const CRASH: &'static str = " (its key stays)";

    fn core(&mut self) -> &mut Core {
        &mut self.core
    }

    fn targetable(&mut self, c: usize) -> bool {
        !self.core.clients[c].done()
    }

    fn strike(&mut self, f: NoFault, _: Option<usize>) -> Option<Aftermath<ToyWorld>> {
        match f {}
    }

    fn bound_ms(&self) -> u64 {
        10_000
    }

    /// Stuck lock: every live client is done and the key is still set.
    fn judge_end(&mut self) {
        if let Some(o) = self.key {
            self.core.violate(
                Property::StuckLock,
                format!("every live client is done, and c{o}'s key is still set"),
            );
        }
    }
}

/// One seed's toy world: `clients` clients, `rounds` rounds each, at most
/// `crashes` crashes.
fn world(atomic: bool, clients: usize, rounds: u8, crashes: u8, trace: bool) -> ToyWorld {
    let setup = Setup {
        clients,
        rounds,
        budgets: vec![("crashes", crashes)],
        ..Setup::default()
    };
    ToyWorld {
        core: Core::new(setup, trace),
        atomic,
        key: None,
    }
}

/// A latency of 0.1 to 1 ms.
fn latency() -> Duration {
    command::run_clock::micros(100, 1000)
}

async fn client(world: Arc<Mutex<ToyWorld>>, c: usize) {
    let (atomic, mut left) = {
        let w = lock(&world);
        (w.atomic, w.core.setup.rounds)
    };
    let (mut pc, mut reply) = (Pc::Begin, None);
    loop {
        if pc == Pc::Done || (pc == Pc::Begin && lock(&world).core.clients[c].phase.thinks_next()) {
            if left == 0 {
                let mut w = lock(&world);
                let phase = w.core.clients[c].phase;
                w.core.clients[c].phase = phase.after(StepKind::Finished, true, &mut Vec::new());
                return;
            }
            left -= 1;
            pc = Pc::Begin;
        }
        let (next, send, kind) = step(atomic, pc, reply.take());
        pc = next;
        {
            let mut w = lock(&world);
            let mut events = Vec::new();
            let phase = w.core.clients[c].phase.after(kind, true, &mut events);
            w.core.clients[c].phase = phase;
            for e in events {
                if e == LockEvent::Acquired {
                    w.core.acquired(c);
                }
            }
        }
        if let Some(cmd) = send {
            madsim::time::sleep(latency()).await;
            let r = {
                let mut w = lock(&world);
                w.core.commands += 1;
                let r = apply(&mut w.key, c as u8, cmd);
                w.core.note(|| format!("c{c} {cmd:?} → {r:?}"));
                r
            };
            madsim::time::sleep(latency()).await;
            reply = Some(r);
        }
        // The critical section, or a tick before a retry.
        if kind == StepKind::Acquired || (send.is_none() && pc == Pc::Begin) {
            madsim::time::sleep(Duration::from_millis(TICK_MS)).await;
        }
    }
}

fn simulate(atomic: bool, crashes: u8, seed: u64) -> command::BackendRun {
    command::run_seed(seed, || world(atomic, 5, 10, crashes, false), client)
}

/// The first of seeds 0..100 whose run breaks a property, and which.
fn first_failing_seed(atomic: bool, crashes: u8) -> Option<(u64, Property)> {
    (0..100).find_map(|seed| {
        simulate(atomic, crashes, seed)
            .violation
            .map(|(p, _)| (seed, p))
    })
}

// ------------------------------------------------------- the app's seam

/// A toy scenario as the commands see it: its space, and the rounds and
/// bounds `check`'s flags set.
struct ToyScenario {
    space: ToySpace,
    rounds: u8,
    limits: Limits,
}

impl Checked for ToyScenario {
    fn apply(&mut self, a: &CheckArgs) -> Result<(), String> {
        a.apply(Sizes {
            clients: &mut self.space.clients,
            acquisitions: &mut self.rounds,
            max_states: &mut self.limits.max_states,
            max_memory: &mut self.limits.max_memory,
            jobs: &mut self.limits.jobs,
        });
        if self.space.valid() {
            Ok(())
        } else {
            Err("clients = 0: expected at least 1".into())
        }
    }

    fn check(&self, progress: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Report {
        self.space.check_with_progress(progress)
    }

    fn to_json(&self, r: &Report) -> serde_json::Value {
        exploration_json(r, self.limits.jobs)
    }

    fn to_text(&self, r: &Report) -> String {
        let mut out = String::from("toy\n");
        report_text(&mut out, r);
        out
    }

    fn mermaid(&self, _: &Trace) -> String {
        String::new()
    }
}

impl Commands for ToyScenario {
    fn recipe_id(&self) -> &'static str {
        if self.space.atomic {
            "set-if-absent"
        } else {
            "get-then-set"
        }
    }

    fn pinned(&self) -> Pinned {
        Pinned {
            name: self.recipe_id().into(),
            drivers: Vec::new(),
        }
    }

    fn check<'a>(self: Box<Self>, a: &'a CheckArgs) -> Result<Planned<'a>, String> {
        locksmith::check::planned(a, *self)
    }
}

/// `check`'s and `sim`'s flags, as the command line gives them.
#[derive(Parser)]
struct Flags<A: clap::Args> {
    #[command(flatten)]
    flags: A,
}

fn flags<A: clap::Args>(line: &[&str]) -> A {
    Flags::<A>::parse_from(std::iter::once("locksmith").chain(line.iter().copied())).flags
}

fn toy(atomic: bool) -> Box<dyn Commands> {
    Box::new(ToyScenario {
        space: ToySpace {
            atomic,
            clients: 1,
            crashes: 0,
        },
        rounds: 1,
        limits: ToySpace {
            atomic,
            clients: 1,
            crashes: 0,
        }
        .limits(),
    })
}

// -------------------------------------------------------------- the tests

fn verdict(r: &Report, p: Property) -> (Verdict, Option<usize>) {
    let row = r.properties.iter().find(|x| x.property == p);
    row.map_or((Verdict::NotApplicable, None), |x| {
        (x.verdict, x.trace.as_ref().map(|t| t.steps.len()))
    })
}

/// The race, exhaustively: both clients read the key free before either
/// sets it, in the shortest trace there is; the atomic variant holds on
/// every interleaving, and a crash strands its key.
#[test]
fn the_checker_explores_a_toy_backend_through_the_engine_seam() {
    let race = ToySpace {
        atomic: false,
        clients: 2,
        crashes: 0,
    }
    .check();
    assert_eq!(race.verdict, Verdict::Violated);
    assert_eq!(race.property, Some(Property::MutualExclusion));
    // GET and its serve for each, then SET, its serve and the step that
    // reads it for each: ten steps, the last one's holders both clients.
    assert_eq!(
        verdict(&race, Property::MutualExclusion),
        (Verdict::Violated, Some(10))
    );
    let setnx = ToySpace {
        atomic: true,
        clients: 2,
        crashes: 0,
    }
    .check();
    assert_eq!(setnx.verdict, Verdict::Holds, "{setnx:?}");
    assert_eq!(setnx.states, 79);
    let crash = ToySpace {
        atomic: true,
        clients: 2,
        crashes: 1,
    }
    .check();
    // SETNX sent, served, and its client crashes before it reads the
    // reply: three steps, and the key is nobody's to delete.
    assert_eq!(
        verdict(&crash, Property::MutualExclusion),
        (Verdict::Holds, None)
    );
    assert_eq!(
        verdict(&crash, Property::StuckLock),
        (Verdict::Violated, Some(3))
    );
    assert_eq!(
        verdict(&crash, Property::FencedSafety),
        (Verdict::NotApplicable, None)
    );
}

/// The same recipe on madsim through the command simulators' core: the
/// race shows at seed 0 (five clients contend from the start), the atomic
/// variant holds on every seed swept, a crash strands its key (at seed 1:
/// seed 0's crash strikes a client that holds nothing); and a seed
/// replays byte for byte.
#[test]
fn the_simulator_runs_a_toy_backend_through_the_command_core() {
    assert_eq!(
        first_failing_seed(false, 0),
        Some((0, Property::MutualExclusion))
    );
    assert_eq!(first_failing_seed(true, 0), None);
    assert_eq!(first_failing_seed(true, 1), Some((1, Property::StuckLock)));
    let traced = |seed| command::run_seed(seed, || world(false, 3, 3, 1, true), client).trace;
    assert!(!traced(7).is_empty());
    assert_eq!(traced(7), traced(7));
}

/// `locksmith check`'s run, as every backend's goes, on the toy through
/// the app's seam: its flags applied (two clients, not the toy's one), the
/// race violated (exit 1), the atomic variant holding (exit 0), and a
/// backend that declares no simulator refused `sim` by the seam's default.
#[test]
fn the_app_runs_a_toy_backend_through_the_command_seam() {
    let race: CheckArgs = flags(&["toy.toml", "--clients", "2", "--jobs", "1"]);
    let planned = toy(false).check(&race);
    assert_eq!(planned.map(|run| run()), Ok(1));
    let setnx: CheckArgs = flags(&["toy.toml", "--clients", "2", "--json"]);
    assert_eq!(toy(true).check(&setnx).map(|run| run()), Ok(0));
    let sim: locksmith::simulate::flags::SimArgs = flags(&["toy.toml"]);
    let refused = toy(false).sim(&sim).err().unwrap_or_default();
    assert!(refused.contains("a simulated world"), "{refused}");
}
