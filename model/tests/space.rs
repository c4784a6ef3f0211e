//! The explorer walks any backend's [`Space`], not only ZooKeeper's: a toy
//! spin lock on one shared flag, explored through the seam, gives the
//! shortest trace, the exact state count and the starvation analysis a
//! backend gets for free. A second toy, a fan of one wide level, holds
//! the search itself to account: the parallel pipeline on many jobs and
//! under a staged race, a fair cycle nobody waits in, and a run that ends
//! exactly at its depth bound.

use locksmith_model::engine::judge_in;
use locksmith_model::engine::Counterexample;
use locksmith_model::engine::Renumbering;
use locksmith_model::engine::{explore_space, Exploration};
use locksmith_model::engine::{Canonical, GrowthWords, Limits, Next, Space};
use locksmith_model::zk::check::Property;
use std::fmt;
use std::ops::ControlFlow;

/// Each client: read the flag until it is clear, set it (the same step as
/// the read when `atomic`), hold, clear it, done.
struct SpinLock {
    clients: u8,
    atomic: bool,
    /// After clearing the flag a client starts over instead of ending.
    forever: bool,
    /// A client that finds the flag set blocks (it cannot step) instead
    /// of spinning.
    blocking: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Pc {
    Idle,
    SawClear,
    Holds,
    Done,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    flag: bool,
    pcs: Vec<Pc>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step(u8);

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "c{} steps", self.0 + 1)
    }
}

impl SpinLock {
    fn step(&self, s: &mut State, c: u8) {
        let pc = &mut s.pcs[c as usize];
        *pc = match *pc {
            Pc::Idle if s.flag => Pc::Idle,
            Pc::Idle if self.atomic => {
                s.flag = true;
                Pc::Holds
            }
            Pc::Idle => Pc::SawClear,
            Pc::SawClear => {
                s.flag = true;
                Pc::Holds
            }
            Pc::Holds => {
                s.flag = false;
                if self.forever {
                    Pc::Idle
                } else {
                    Pc::Done
                }
            }
            Pc::Done => Pc::Done,
        };
    }
}

impl Space for SpinLock {
    type State = State;
    type Action = Step;

    fn limits(&self) -> Limits {
        Limits {
            max_states: 1_000,
            max_memory: 1 << 30,
            max_depth: usize::MAX,
            max_time: None,
            starvation: true,
            jobs: 1,
        }
    }

    fn initial(&self) -> State {
        State {
            flag: false,
            pcs: vec![Pc::Idle; self.clients as usize],
        }
    }

    fn actions(&self, s: &State, out: &mut Vec<Step>) {
        out.clear();
        let blocked = |pc: Pc| pc == Pc::Done || (self.blocking && s.flag && pc == Pc::Idle);
        let movable = |&(_, pc): &(usize, &Pc)| !blocked(*pc);
        out.extend(
            s.pcs
                .iter()
                .enumerate()
                .filter(movable)
                .map(|(c, _)| Step(c as u8)),
        );
    }

    fn apply(&self, s: &mut State, a: Step) {
        self.step(s, a.0);
    }

    fn next(&self, s: &State, a: Step, wanted: &mut dyn FnMut(u64) -> bool) -> Next<State> {
        let mut t = s.clone();
        self.step(&mut t, a.0);
        let canonical = self.canonical(&t);
        let fresh = wanted(canonical.fingerprint).then(|| {
            let v = self.violations(&t);
            (t, v)
        });
        Next {
            canonical,
            actor: self.agent(a),
            herd: false,
            fresh,
        }
    }

    fn canonical(&self, s: &State) -> Canonical {
        let mut order: Vec<u8> = (0..self.clients).collect();
        order.sort_by_key(|&c| s.pcs[c as usize]);
        let sorted: Vec<Pc> = order.iter().map(|&c| s.pcs[c as usize]).collect();
        Canonical {
            fingerprint: hash(&(s.flag, sorted)),
            order: Renumbering::of(&order),
        }
    }

    fn exact_fingerprint(&self, s: &State) -> u64 {
        hash(s)
    }

    fn is_fault(&self, _: Step) -> bool {
        false
    }

    fn agent(&self, a: Step) -> u8 {
        a.0 << 3
    }

    fn relabel(&self, a: Step, f: &dyn Fn(u8) -> u8) -> Step {
        Step(f(a.0))
    }

    fn state_properties(&self) -> &'static [Property] {
        &[Property::MutualExclusion]
    }

    fn violated_in(&self, p: Property, s: &State) -> bool {
        p == Property::MutualExclusion && s.pcs.iter().filter(|&&pc| pc == Pc::Holds).count() > 1
    }

    fn stuck(&self, s: &State, progress: bool) -> bool {
        !progress && self.waiting(s) != 0
    }

    fn waiting(&self, s: &State) -> u8 {
        mask(s, |pc| matches!(pc, Pc::Idle | Pc::SawClear))
    }

    fn holders(&self, s: &State) -> u8 {
        mask(s, |pc| pc == Pc::Holds)
    }

    fn state_bytes(&self, _: &State) -> usize {
        std::mem::size_of::<State>() + self.clients as usize
    }

    fn growth_marks(&self, _: &State) -> (i64, usize) {
        (0, 1)
    }

    fn abstracted(&self) -> bool {
        true
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords::ZOOKEEPER
    }
}

fn mask(s: &State, f: impl Fn(Pc) -> bool) -> u8 {
    (s.pcs.iter().enumerate())
        .filter(|(_, &pc)| f(pc))
        .fold(0, |m, (c, _)| m | 1 << c)
}

fn hash(x: &impl std::hash::Hash) -> u64 {
    use std::hash::{DefaultHasher, Hasher};
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

fn run(space: &SpinLock) -> Exploration<Step> {
    explore_space(space, &mut |_| ControlFlow::Continue(()))
}

#[test]
fn a_read_then_set_lock_lets_two_in_by_the_shortest_trace() {
    let x = run(&SpinLock {
        clients: 2,
        atomic: false,
        forever: false,
        blocking: false,
    });
    let cx = &x.found[&Property::MutualExclusion];
    // Both read the flag clear, then both set it: four steps, no fewer.
    assert_eq!(cx.actions.len(), 4, "{:?}", cx.actions);
    assert!(x.bound.is_none());
    assert!(!x.found.contains_key(&Property::Deadlock));
}

#[test]
fn an_atomic_test_and_set_holds_with_its_exact_state_count() {
    let x = run(&SpinLock {
        clients: 2,
        atomic: true,
        forever: false,
        blocking: false,
    });
    assert!(x.found.is_empty(), "{:?}", x.found);
    assert!(x.bound.is_none());
    // Under symmetry: both idle; one holds, one idle; one done, one idle;
    // one holds, one done; both done — five states.
    assert_eq!(x.states, 5);
    // States are kept as first reached, clients unrenamed: each client
    // holds in one of them.
    assert_eq!(x.acquired, 0b11);
}

#[test]
fn a_spinner_whose_rival_takes_the_lock_again_and_again_starves() {
    let space = SpinLock {
        clients: 2,
        atomic: true,
        forever: true,
        blocking: false,
    };
    let x = run(&space);
    assert!(x.bound.is_none());
    assert!(!x.found.contains_key(&Property::MutualExclusion));
    let cx = x
        .found
        .get(&Property::Starvation)
        .expect("a starvation lasso");
    // The lasso replays apart from the search: it closes, someone waits
    // all along it, and every agent able to move all along it moves (the
    // spinner spins: weak fairness is met, and it still never gets in).
    judge_in(&space, cx).expect("a fair, closed cycle");
}

#[test]
fn a_cycle_without_one_clients_steps_is_refused() {
    let space = SpinLock {
        clients: 2,
        atomic: true,
        forever: true,
        blocking: false,
    };
    let x = run(&space);
    let cx = &x.found[&Property::Starvation];
    let start = cx.cycle_start.expect("a cycle");
    // Leave either client's steps out of the cycle: what is left is unfair
    // to it, does not close or takes a step that is not enabled, and the
    // judge must say so every time.
    for c in 0..2 {
        let mut cut = cx.clone();
        cut.actions.truncate(start);
        cut.actions
            .extend(cx.actions[start..].iter().filter(|a| a.0 != c));
        assert!(judge_in(&space, &cut).is_err(), "{:?}", cut.actions);
    }
}

/// A lone client taking the lock and letting it go, again and again: the
/// cycle closes and is fair, but nobody waits while c1 holds — no
/// starvation.
#[test]
fn a_cycle_with_nobody_waiting_all_along_it_is_refused() {
    let space = SpinLock {
        clients: 1,
        atomic: true,
        forever: true,
        blocking: false,
    };
    let cx = Counterexample {
        actions: vec![Step(0), Step(0)],
        cycle_start: Some(0),
    };
    let err = judge_in(&space, &cx).expect_err("nobody waits while c1 holds");
    assert_eq!(err, "no client waits in every state of the cycle");
}

/// Three clients that block on a set flag: under symmetry two states,
/// and the witness of starvation is the shortest fair cycle — c1 takes the
/// lock and lets it go. c2 and c3 are blocked while c1 holds, so weak
/// fairness owes them no step, and the witness takes none of theirs.
#[test]
fn a_client_blocked_somewhere_in_the_cycle_is_owed_no_step() {
    let space = SpinLock {
        clients: 3,
        atomic: true,
        forever: true,
        blocking: true,
    };
    let x = run(&space);
    assert_eq!(x.states, 2);
    let cx = &x.found[&Property::Starvation];
    assert_eq!(cx.actions, [Step(0), Step(0)]);
    assert_eq!(cx.cycle_start, Some(0));
    judge_in(&space, cx).expect("a fair, closed cycle");
}

/// A root with `width` children, each with one leaf: a level of several
/// batches (128 states each), wide enough for the parallel search. When
/// `staged`, the merger's thread waits at its first child for a worker to
/// start, and that worker dawdles over its first: the merger, out of
/// batches to take, must wait for the worker's rather than take one past
/// the level's end. When `leaves_loop`, each leaf's one action leaves it
/// where it is (and nobody ever waits). When `stuck_lock`, it judges stuck
/// lock, as the Redis and SQL spaces do: the search keeps every state's
/// edges then, not only where someone waits (its lock is free
/// everywhere).
struct Fan {
    jobs: usize,
    width: u16,
    staged: bool,
    leaves_loop: bool,
    stuck_lock: bool,
    max_depth: usize,
    merger: std::sync::OnceLock<std::thread::ThreadId>,
    worker_started: std::sync::atomic::AtomicBool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pick(u16);

impl fmt::Display for Pick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pick {}", self.0)
    }
}

impl Fan {
    fn new(jobs: usize, width: u16, staged: bool) -> Fan {
        Fan {
            jobs,
            width,
            staged,
            leaves_loop: false,
            stuck_lock: false,
            max_depth: usize::MAX,
            merger: std::sync::OnceLock::new(),
            worker_started: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Stages the race: called at every expansion step.
    fn pace(&self, depth: u8) {
        use std::sync::atomic::Ordering::SeqCst;
        // The root level is one batch, expanded by the merger's thread.
        let me = std::thread::current().id();
        let merger = *self.merger.get_or_init(|| me);
        if !self.staged || depth != 1 {
            return;
        }
        if me == merger {
            // A worker starts within microseconds of the level's start; a
            // level of five batches on two jobs that never gets one was
            // not expanded in parallel at all.
            let mut spins = 0u64;
            while !self.worker_started.load(SeqCst) {
                spins += 1;
                assert!(spins < 1 << 24, "no worker expands a wide level");
                std::thread::yield_now();
            }
        } else if !self.worker_started.swap(true, SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
}

impl Space for Fan {
    /// Depth and index.
    type State = (u8, u16);
    type Action = Pick;

    fn limits(&self) -> Limits {
        Limits {
            max_states: 10_000,
            max_memory: 1 << 30,
            max_depth: self.max_depth,
            max_time: None,
            starvation: self.leaves_loop || self.stuck_lock,
            jobs: self.jobs,
        }
    }

    fn initial(&self) -> (u8, u16) {
        (0, 0)
    }

    fn actions(&self, &(depth, i): &(u8, u16), out: &mut Vec<Pick>) {
        out.clear();
        match depth {
            0 => out.extend((0..self.width).map(Pick)),
            1 => out.push(Pick(i)),
            _ if self.leaves_loop => out.push(Pick(i)),
            _ => {}
        }
    }

    fn apply(&self, s: &mut (u8, u16), a: Pick) {
        *s = (s.0.min(1) + 1, a.0);
    }

    fn next(&self, s: &(u8, u16), a: Pick, wanted: &mut dyn FnMut(u64) -> bool) -> Next<(u8, u16)> {
        self.pace(s.0);
        let t = (s.0.min(1) + 1, a.0);
        let canonical = self.canonical(&t);
        let fresh = wanted(canonical.fingerprint).then_some((t, 0));
        Next {
            canonical,
            actor: 0,
            herd: false,
            fresh,
        }
    }

    fn canonical(&self, s: &(u8, u16)) -> Canonical {
        Canonical {
            fingerprint: hash(s),
            order: Renumbering::of(&[0]),
        }
    }

    fn exact_fingerprint(&self, s: &(u8, u16)) -> u64 {
        hash(s)
    }

    fn is_fault(&self, _: Pick) -> bool {
        false
    }

    fn agent(&self, _: Pick) -> u8 {
        0
    }

    fn relabel(&self, a: Pick, _: &dyn Fn(u8) -> u8) -> Pick {
        a
    }

    fn state_properties(&self) -> &'static [Property] {
        &[]
    }

    fn violated_in(&self, _: Property, _: &(u8, u16)) -> bool {
        false
    }

    fn stuck(&self, _: &(u8, u16), _: bool) -> bool {
        false
    }

    fn waiting(&self, _: &(u8, u16)) -> u8 {
        0
    }

    fn holders(&self, _: &(u8, u16)) -> u8 {
        0
    }

    fn judges_stuck_lock(&self) -> bool {
        self.stuck_lock
    }

    fn acquirable(&self, _: &(u8, u16)) -> bool {
        true
    }

    fn state_bytes(&self, _: &(u8, u16)) -> usize {
        4
    }

    fn growth_marks(&self, _: &(u8, u16)) -> (i64, usize) {
        (0, 1)
    }

    fn abstracted(&self) -> bool {
        true
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords::ZOOKEEPER
    }
}

/// Two jobs expand a level of five batches with a worker, and the merger
/// takes batches a worker has not: when the workers hold the level's last
/// ones, it waits for them, and takes none past the end.
#[test]
fn a_merger_out_of_batches_waits_for_the_workers() {
    let explore = |jobs| {
        let fan = Fan::new(jobs, 600, jobs > 1);
        explore_space(&fan, &mut |_| ControlFlow::Continue(()))
    };
    let one = explore(1);
    // The root, its 600 children (five batches) and their leaves.
    assert_eq!(one.states, 1 + 2 * 600);
    assert_eq!(one.depth, 2);
    assert!(one.bound.is_none() && one.found.is_empty());
    let two = explore(2);
    assert_eq!(
        (two.states, two.transitions, two.depth),
        (one.states, one.transitions, one.depth)
    );
}

/// Workers may run a few batches per job ahead of the merger: with no
/// look-ahead at all, a worker holding the batch the merger needs would
/// wait for the merger to pass it, and the merger for the batch. Five and
/// eight jobs explore a level of twelve batches as one job does (four
/// batches shared among more than four jobs would be none each).
#[test]
fn many_jobs_explore_a_wide_level_as_one_does() {
    let explore = |jobs| {
        let fan = Fan::new(jobs, 1_500, false);
        explore_space(&fan, &mut |_| ControlFlow::Continue(()))
    };
    let one = explore(1);
    assert_eq!(one.states, 1 + 2 * 1_500);
    for jobs in [5, 8] {
        let many = explore(jobs);
        assert_eq!(
            (many.states, many.transitions, many.depth),
            (one.states, one.transitions, one.depth),
            "{jobs} jobs"
        );
    }
}

/// Starvation is a client waiting all along a fair cycle: a cycle in which
/// nobody waits is none, however fair. Each leaf's one action loops on it,
/// no client ever waits, and the search keeps every state's edges (as it
/// does for a backend that judges stuck lock).
#[test]
fn a_fair_cycle_nobody_waits_in_is_no_starvation() {
    let mut fan = Fan::new(1, 3, false);
    fan.leaves_loop = true;
    fan.stuck_lock = true;
    let x = explore_space(&fan, &mut |_| ControlFlow::Continue(()));
    assert_eq!((x.states, x.depth), (7, 2));
    assert!(x.bound.is_none());
    assert!(x.found.is_empty(), "{:?}", x.found.keys());
}

/// A run whose last level reaches the depth bound with nothing left to do
/// is complete: the bound cut nothing off, and the analyses that read the
/// kept graph (here stuck lock, as in a Redis or SQL run) read every state
/// of it, the last level's too.
#[test]
fn a_run_that_ends_at_its_depth_bound_is_judged_whole() {
    let mut fan = Fan::new(1, 3, false);
    fan.stuck_lock = true;
    fan.max_depth = 2;
    let x = explore_space(&fan, &mut |_| ControlFlow::Continue(()));
    assert_eq!((x.states, x.depth), (7, 2));
    assert!(x.bound.is_none(), "{:?}", x.bound);
    assert!(x.found.is_empty(), "{:?}", x.found.keys());
}
