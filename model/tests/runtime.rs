//! The client runtime keeps Java's monitor semantics and the ZooKeeper
//! client library's delivery rules exactly.

use locksmith_model::zk::client::{
    Action, Client, Library, Notice, Recipe, Resume, Status, Step, Thread,
};
use locksmith_model::zk::{EventType, Name, Op, OpResult, WatchedEvent, WatcherType, ZkError};

/// main: synchronized (m) { m.wait(); } then finish.
/// event: on any notice: synchronized (m) { m.notifyAll(); } return.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
struct Waiter {
    main: u8,
    event: u8,
}

impl Recipe for Waiter {
    fn lock_root(&self) -> &'static str {
        "/"
    }
    fn paths(&self, _: &mut dyn FnMut(&Name)) {}
    fn paths_mut(&mut self, _: &mut dyn FnMut(&mut Name)) {}
    fn step(&mut self, thread: Thread, _: Resume) -> Action {
        let (pc, script): (&mut u8, &[Step]) = match thread {
            Thread::Main => (
                &mut self.main,
                &[Step::Enter(0), Step::Wait(0), Step::Exit(0), Step::Finished],
            ),
            _ => (
                &mut self.event,
                &[
                    Step::Enter(0),
                    Step::NotifyAll(0),
                    Step::Exit(0),
                    Step::Return,
                ],
            ),
        };
        let step = script[*pc as usize].clone();
        *pc = (*pc + 1) % script.len() as u8;
        Action { step, code: "test" }
    }
}

fn notice() -> Notice {
    Notice::Node(WatchedEvent {
        kind: EventType::NodeDeleted,
        path: "/x".into(),
    })
}

fn run<R: Recipe>(c: &mut Client<R>, t: Thread, n: usize) {
    for _ in 0..n {
        assert!(c.step(t).is_some(), "{t} could not step: {:?}", c.status(t));
    }
}

#[test]
fn notify_all_before_wait_is_lost() {
    let mut c = Client::new(Waiter::default());
    c.notices.push_back((0, notice()));
    run(&mut c, Thread::Event, 3); // enter, notifyAll (nobody waits), exit (+ eager return)
    assert_eq!(c.event, Status::Idle);
    run(&mut c, Thread::Main, 2); // enter, wait
    assert_eq!(c.main, Status::Waiting(0));
    assert!(
        !c.can_step(Thread::Main),
        "the notification is gone: main sleeps forever"
    );
}

#[test]
fn wait_releases_the_monitor_and_a_woken_thread_reacquires_it() {
    let mut c = Client::new(Waiter::default());
    run(&mut c, Thread::Main, 2); // enter, wait (releases)
    assert!(c.monitors.is_free(0));
    c.notices.push_back((0, notice()));
    run(&mut c, Thread::Event, 2); // enter (free), notifyAll
    assert_eq!(
        c.main,
        Status::Entering(0),
        "woken, but the notifier holds the monitor"
    );
    assert!(!c.can_step(Thread::Main));
    run(&mut c, Thread::Event, 1); // exit
    assert!(c.can_step(Thread::Main));
    run(&mut c, Thread::Main, 1); // re-acquire + exit
    assert!(c.monitors.is_free(0));
}

#[test]
fn a_blocked_enter_waits_for_the_monitor() {
    let mut c = Client::new(Waiter::default());
    c.notices.push_back((0, notice()));
    run(&mut c, Thread::Event, 1); // event holds the monitor
    run(&mut c, Thread::Main, 1); // main blocks entering
    assert_eq!(c.main, Status::Entering(0));
    assert!(!c.can_step(Thread::Main));
}

/// main: synchronized (m) { m.wait(50); } then finish.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
struct TimedWaiter {
    pc: u8,
}

impl Recipe for TimedWaiter {
    fn lock_root(&self) -> &'static str {
        "/"
    }
    fn paths(&self, _: &mut dyn FnMut(&Name)) {}
    fn paths_mut(&mut self, _: &mut dyn FnMut(&mut Name)) {}
    fn step(&mut self, _: Thread, _: Resume) -> Action {
        let script = [
            Step::Enter(0),
            Step::TimedWait {
                monitor: 0,
                millis: 50,
            },
            Step::Exit(0),
            Step::Finished,
        ];
        let step = script[self.pc as usize].clone();
        self.pc = (self.pc + 1) % script.len() as u8;
        Action { step, code: "test" }
    }
}

/// `wait(50)` with nobody to notify: the thread sleeps, every driver can
/// read how long it may, and when that runs out it must win the monitor
/// back before it goes on.
#[test]
fn a_timed_wait_says_how_long_and_runs_out_into_the_monitor() {
    let mut c = Client::new(TimedWaiter::default());
    assert_eq!(c.timed_wait(Thread::Main), None);
    run(&mut c, Thread::Main, 2); // enter, wait(50) (releases)
    assert!(c.monitors.is_free(0));
    assert!(!c.can_step(Thread::Main));
    assert_eq!(c.timed_wait(Thread::Main), Some(50));
    assert_eq!(c.timed_wait(Thread::Event), None);
    assert!(c.time_out(Thread::Main));
    assert_eq!(c.main, Status::Entering(0));
    assert_eq!(c.timed_wait(Thread::Main), None);
    assert!(!c.time_out(Thread::Main), "the wait is over");
    run(&mut c, Thread::Main, 1); // re-acquire + exit
    assert!(c.monitors.is_free(0));
}

/// main: exists("/x", watch) with watcher 1, then removeWatches("/x",
/// watcher 1, Any) — opcode `checkWatches` — then finish.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
struct Caller {
    pc: u8,
}

impl Recipe for Caller {
    fn lock_root(&self) -> &'static str {
        "/"
    }
    fn paths(&self, _: &mut dyn FnMut(&Name)) {}
    fn paths_mut(&mut self, _: &mut dyn FnMut(&mut Name)) {}
    fn step(&mut self, thread: Thread, _: Resume) -> Action {
        self.pc += 1;
        let step = match (thread, self.pc) {
            (Thread::Main, 1) => Step::Call {
                op: Op::Exists {
                    path: "/x".into(),
                    watch: true,
                },
                watcher: Some(1),
                release: false,
            },
            (Thread::Main, 2) => Step::Call {
                op: Op::check_watches("/x", WatcherType::Any),
                watcher: Some(1),
                release: false,
            },
            (Thread::Main, _) => Step::Finished,
            (_, _) => Step::Return,
        };
        Action { step, code: "test" }
    }
}

#[test]
fn a_reply_registers_the_watch_and_the_event_reaches_the_event_thread_not_the_caller() {
    let mut c = Client::new(Caller::default());
    run(&mut c, Thread::Main, 1);
    assert!(matches!(c.main, Status::Calling { .. }));
    c.on_reply(Thread::Main, Ok(OpResult::Exists(None)));
    assert!(
        matches!(c.main, Status::Ready(Resume::Reply(_))),
        "the reply wakes the caller"
    );
    let woke = c.on_event(&WatchedEvent {
        kind: EventType::NodeCreated,
        path: "/x".into(),
    });
    assert_eq!(
        woke, 1,
        "exists on a missing node leaves a watch that NodeCreated fires"
    );
    // The event thread can run the callback before the caller returns.
    assert!(c.can_step(Thread::Event));
    assert!(c.can_step(Thread::Main));
    // A watch fires once.
    assert_eq!(
        c.on_event(&WatchedEvent {
            kind: EventType::NodeCreated,
            path: "/x".into()
        }),
        0
    );
}

#[test]
fn expiry_tells_every_watcher_and_later_calls_fail_locally() {
    let mut c = Client::new(Caller::default());
    run(&mut c, Thread::Main, 1);
    c.on_reply(Thread::Main, Ok(OpResult::Exists(None)));
    c.learn_expiry();
    let told: Vec<_> = c.notices.iter().map(|(w, _)| *w).collect();
    assert_eq!(
        told,
        vec![0, 1],
        "the default watcher and the registered one hear Expired"
    );
    assert!(c.session_lost);
}

/// [`Caller`] written on kazoo.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
struct KazooCaller(Caller);

impl Recipe for KazooCaller {
    fn lock_root(&self) -> &'static str {
        "/"
    }
    fn paths(&self, _: &mut dyn FnMut(&Name)) {}
    fn paths_mut(&mut self, _: &mut dyn FnMut(&mut Name)) {}
    fn step(&mut self, thread: Thread, resume: Resume) -> Action {
        self.0.step(thread, resume)
    }
    fn library(&self) -> Library {
        Library::KAZOO
    }
}

/// Who hears a connection drop and the reconnect, and whether the watch
/// is still set after them.
fn around_a_drop<R: Recipe>(mut c: Client<R>) -> (Vec<u8>, Vec<u8>, usize) {
    run(&mut c, Thread::Main, 1);
    c.on_reply(Thread::Main, Ok(OpResult::Exists(None)));
    c.on_connection_loss();
    let drop: Vec<u8> = c.notices.drain(..).map(|(w, _)| w).collect();
    c.on_reconnect();
    let back: Vec<u8> = c.notices.drain(..).map(|(w, _)| w).collect();
    (drop, back, c.on_event(&created()))
}

/// The Java client tells its default watcher and every registered one of
/// a drop and of the reconnect, and keeps the watch (it restores it with
/// `SetWatches`).
#[test]
fn the_java_client_tells_every_watcher_of_a_drop_and_keeps_the_watch() {
    let (drop, back, fired) = around_a_drop(Client::new(Caller::default()));
    assert_eq!(drop, [0, 1]);
    assert_eq!(back, [0, 1]);
    assert_eq!(fired, 1, "the watch survived the drop");
}

/// kazoo has no default watcher; its `_reset_watchers()` fires each
/// registered watcher once on the drop and forgets it, so the reconnect
/// reaches no watcher and the node event finds none.
#[test]
fn kazoo_fires_each_watcher_once_on_a_drop_and_forgets_it() {
    let (drop, back, fired) = around_a_drop(Client::new(KazooCaller::default()));
    assert_eq!(drop, [1]);
    assert!(back.is_empty());
    assert_eq!(fired, 0, "the watch went with the drop");
}

fn created() -> WatchedEvent {
    WatchedEvent {
        kind: EventType::NodeCreated,
        path: "/x".into(),
    }
}

#[test]
fn a_removed_watcher_hears_watch_removed_and_no_later_event() {
    let mut c = Client::new(Caller::default());
    run(&mut c, Thread::Main, 1);
    c.on_reply(Thread::Main, Ok(OpResult::Exists(None)));
    run(&mut c, Thread::Main, 1);
    // The server kept its watch and said so.
    c.on_reply(Thread::Main, Ok(OpResult::WatchesChecked));
    assert_eq!(
        c.main,
        Status::Ready(Resume::Reply(Ok(OpResult::WatchesChecked)))
    );
    assert_eq!(
        c.notices.iter().cloned().collect::<Vec<_>>(),
        vec![(1, Notice::Removed("/x".into()))],
        "the removed watcher is told DataWatchRemoved"
    );
    assert!(c.watchers.is_empty());
    assert_eq!(
        c.on_event(&created()),
        0,
        "the server's kept watch fires, and no watcher of the client hears it"
    );
}

#[test]
fn removing_a_watcher_the_client_no_longer_holds_fails_with_no_watcher() {
    let mut c = Client::new(Caller::default());
    run(&mut c, Thread::Main, 1);
    c.on_reply(Thread::Main, Ok(OpResult::Exists(None)));
    // The client's own rule (`ZKWatchManager.removeWatcher`, whatever the
    // server answered): a watcher its table no longer holds — here its
    // event came first — is `NoWatcher`.
    assert_eq!(c.on_event(&created()), 1);
    run(&mut c, Thread::Main, 1);
    c.on_reply(Thread::Main, Ok(OpResult::WatchesChecked));
    assert_eq!(
        c.main,
        Status::Ready(Resume::Reply(Err(ZkError::NoWatcher)))
    );
    assert_eq!(
        c.notices.len(),
        1,
        "only the node event: no DataWatchRemoved"
    );
}

/// The steps given, in order, whichever thread asks (a recipe's outcomes
/// without its calls).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Script {
    steps: Vec<Step>,
    pc: usize,
}

// A script is fixed: where it has got to is its whole state.
impl std::hash::Hash for Script {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.pc.hash(h);
    }
}

impl Script {
    fn client(steps: &[Step]) -> Client<Script> {
        Client::new(Script {
            steps: steps.to_vec(),
            pc: 0,
        })
    }
}

impl Recipe for Script {
    fn lock_root(&self) -> &'static str {
        "/"
    }
    fn paths(&self, _: &mut dyn FnMut(&Name)) {}
    fn paths_mut(&mut self, _: &mut dyn FnMut(&mut Name)) {}
    fn step(&mut self, _: Thread, _: Resume) -> Action {
        // Past the script's end a callback returns.
        let step = self.steps.get(self.pc).cloned().unwrap_or(Step::Return);
        self.pc += 1;
        Action { step, code: "test" }
    }
}

/// The lock events of each main step of `c`, one list per step.
fn events(
    c: &mut Client<Script>,
    steps: usize,
) -> Vec<Vec<locksmith_model::engine::harness::LockEvent>> {
    (0..steps).map(|_| events_of(c, Thread::Main)).collect()
}

/// The lock events of one step of `t`.
fn events_of(
    c: &mut Client<Script>,
    t: Thread,
) -> Vec<locksmith_model::engine::harness::LockEvent> {
    c.step(t).expect("a step").events
}

/// A step that gives up ends the attempt — the harness hears it gave up,
/// the client holds nothing — and the next attempt starts afresh (the
/// application still wants the lock in between: it waits).
#[test]
fn giving_up_ends_the_attempt_and_the_next_one_starts_afresh() {
    use locksmith_model::engine::harness::LockEvent::*;
    let mut c = Script::client(&[Step::GaveUp, Step::Acquired]);
    assert_eq!(events(&mut c, 1), [vec![AcquireStarted, GaveUp]]);
    assert!(c.is_waiting() && !c.holds());
    assert_eq!(events(&mut c, 1), [vec![AcquireStarted, Acquired]]);
    assert!(c.holds());
}

/// A holder's `lock()` again (Curator's re-entrant acquire) is a
/// re-entry, not a second acquisition: the harness hears "re-entered",
/// and the client holds throughout.
#[test]
fn a_holders_second_lock_is_a_reentry() {
    use locksmith_model::engine::harness::LockEvent::*;
    let mut c = Script::client(&[Step::Acquired, Step::Reenter, Step::Acquired]);
    assert_eq!(
        events(&mut c, 3),
        [vec![AcquireStarted, Acquired], vec![], vec![Reentered]]
    );
    assert!(c.holds());
}

/// An exception escaping a watcher callback is ClientCnxn's "Error while
/// calling watcher": the event thread logs it and goes on — no thread of
/// the lock loop died.
#[test]
fn an_exception_in_a_callback_kills_no_thread() {
    let mut c = Script::client(&[Step::Throw("NullPointerException")]);
    c.notices.push_back((0, notice()));
    assert_eq!(events_of(&mut c, Thread::Event), []);
    assert_eq!(*c.status(Thread::Event), Status::Idle);
}

/// A completed acquisition counts once, however deep it went: a plain
/// round, then a re-entrant one (its inner release counts nothing).
#[test]
fn a_round_counts_once_however_deep_it_went() {
    use Step::*;
    let mut c = Script::client(&[
        Acquired, Released, Unlocked, // a plain round
        Acquired, Reenter, Acquired, Released, Unlocked, Released, Unlocked,
    ]);
    events(&mut c, 3);
    assert_eq!(c.acquired, 1);
    events(&mut c, 7);
    assert_eq!((c.acquired, c.holds()), (2, false));
}

/// `acquire(time, unit)`'s clock: read while its deadline runs, it has
/// not passed; once the checker or a driver passes it, it has; and the
/// main thread dying stops it (a deadline left behind would be passed in
/// every later state, for nothing).
#[test]
fn a_timed_calls_clock_has_passed_only_once_its_deadline_has() {
    use locksmith_model::zk::client::Deadline;
    let mut c = Script::client(&[
        Step::StartDeadline(1000),
        Step::ReadClock,
        Step::ReadClock,
        Step::Throw("KeeperException"),
    ]);
    assert!(!c.pass_deadline(), "no timed call runs yet");
    events(&mut c, 2);
    assert_eq!(
        *c.status(Thread::Main),
        Status::Ready(Resume::Clock { passed: false })
    );
    assert!(c.pass_deadline());
    events(&mut c, 1);
    assert_eq!(
        *c.status(Thread::Main),
        Status::Ready(Resume::Clock { passed: true })
    );
    events(&mut c, 1);
    assert_eq!(*c.status(Thread::Main), Status::Dead("KeeperException"));
    assert_eq!(c.deadline, Deadline::Off);
}

fn calling(op: Op) -> Client<Script> {
    let mut c = Script::client(&[Step::Call {
        op,
        watcher: None,
        release: false,
    }]);
    events(&mut c, 1);
    assert!(matches!(c.main, Status::Calling { .. }));
    c
}

fn exists() -> Op {
    Op::Exists {
        path: "/x".into(),
        watch: false,
    }
}

/// A `close()` in flight when the connection drops returns all the same,
/// and the library is closed: its session is lost to it and its watchers
/// are gone. Any other call in flight just fails with `ConnectionLoss`.
#[test]
fn a_close_in_flight_when_the_connection_drops_closes_the_library() {
    let mut c = calling(Op::CloseSession);
    c.on_connection_loss();
    assert!(c.session_lost);
    assert_eq!(
        c.main,
        Status::Ready(Resume::Reply(Ok(OpResult::Closed))),
        "close() never throws"
    );
    let mut c = calling(exists());
    c.on_connection_loss();
    assert!(!c.session_lost);
    assert_eq!(
        c.main,
        Status::Ready(Resume::Reply(Err(ZkError::ConnectionLoss)))
    );
}

/// Curator's `ConnectionState.reset()` after an expiry: a call of the old
/// handle still pending fails with `SessionExpired`, and calls work again.
#[test]
fn a_renewed_session_fails_the_old_handles_calls_and_works_again() {
    let mut c = calling(exists());
    c.learn_expiry();
    assert!(c.session_lost);
    c.renew_session();
    assert!(!c.session_lost);
    assert_eq!(
        c.main,
        Status::Ready(Resume::Reply(Err(ZkError::SessionExpired)))
    );
}

/// Seed 001's main thread returns and leaves the lock to a callback: the
/// client, not done, sleeps until the callback runs (parked); a client
/// whose loop has finished is not parked.
#[test]
fn a_main_thread_that_returned_leaving_the_lock_to_a_callback_is_parked() {
    let mut c = Script::client(&[Step::End]);
    events(&mut c, 1);
    assert_eq!((c.main.clone(), c.is_done()), (Status::Finished, false));
    assert!(c.is_parked());
    let mut c = Script::client(&[Step::Finished]);
    events(&mut c, 1);
    assert_eq!((c.main.clone(), c.is_done()), (Status::Finished, true));
    assert!(!c.is_parked());
}

/// Executor threads are Curator's (its safe-notify and background
/// executors): no other recipe's client has one, and no other recipe
/// claims a node it does not name (what keeps Curator's kept watchers'
/// nodes from counting as orphans).
#[test]
fn executors_and_claims_are_curators_alone() {
    use locksmith_model::zk::client::RecipeConfig;
    use locksmith_model::zk::recipes::RecipeId;
    for &id in RecipeId::ALL {
        let r = id.instantiate(RecipeConfig::new(1, 0));
        let curator = id.name().starts_with("curator");
        assert_eq!(r.library().executors, curator, "{id}");
        if !curator {
            assert!(!r.claims("/locks/lock-0000000000"), "{id}");
        }
    }
}

/// An exception unwinds the synchronized blocks it leaves: the monitor a
/// dying main thread held is free for the event thread.
#[test]
fn a_thread_that_dies_inside_synchronized_releases_the_monitor() {
    let mut c = Script::client(&[
        Step::Enter(0),
        Step::Throw("RuntimeException"),
        Step::Enter(0),
    ]);
    events(&mut c, 2);
    assert_eq!(c.main, Status::Dead("RuntimeException"));
    c.notices.push_back((0, notice()));
    events_of(&mut c, Thread::Event);
    // It entered and ran on to its return: the monitor was free.
    assert_eq!(c.event, Status::Idle);
}

/// A recipe that says nothing of its library is one of the seeds' plain
/// ZooKeeper clients (docs/writing-a-recipe.md): no executor threads, no
/// session renewal or connection timeout, an exception ends only its
/// thread, it claims and owns no node, and nothing breaks re-entrancy.
#[test]
fn a_recipe_that_overrides_nothing_is_a_plain_zookeeper_client() {
    let r = Script {
        steps: Vec::new(),
        pc: 0,
    };
    assert_eq!(r.library(), locksmith_model::zk::client::Library::JAVA);
    assert!(!r.exception_ends_process());
    assert!(!r.claims("/locks/lock-0000000000"));
    assert!(!r.owns_a_node());
    assert!(!r.reentrancy_broken());
}

/// `removeWatches` takes one watcher off a path and leaves the others on
/// it: the next event on the path still reaches them.
#[test]
fn removing_one_watcher_leaves_the_others_on_the_path() {
    use locksmith_model::zk::client::Watchers;
    let mut ws = Watchers::default();
    let exists = Op::Exists {
        path: "/x".into(),
        watch: true,
    };
    for w in [1, 2] {
        ws.register(&exists, w, &Ok(OpResult::Exists(None)));
    }
    assert!(ws.deregister("/x", 1, WatcherType::Any));
    assert!(!ws.is_empty());
    // A watcher that is not on the path is not removed (NoWatcher), even
    // where others are.
    assert!(!ws.deregister("/x", 3, WatcherType::Any));
    let fired: Vec<_> = ws.materialize(&created()).iter().collect();
    assert_eq!(fired, [2]);
    assert!(ws.is_empty());
}

/// A deletion fires a path's data and child watches both, and a watcher
/// on both hears it once (ZKWatchManager collects them in a set).
#[test]
fn a_deletion_reaches_a_watcher_on_both_tables_once() {
    use locksmith_model::zk::client::Watchers;
    let mut ws = Watchers::default();
    let exists = Op::Exists {
        path: "/x".into(),
        watch: true,
    };
    ws.register(&exists, 1, &Ok(OpResult::Exists(None)));
    ws.register(
        &Op::get_children("/x", true),
        1,
        &Ok(OpResult::Exists(None)),
    );
    ws.register(
        &Op::get_children("/x", true),
        2,
        &Ok(OpResult::Exists(None)),
    );
    let deleted = WatchedEvent {
        kind: EventType::NodeDeleted,
        path: "/x".into(),
    };
    let fired: Vec<_> = ws.materialize(&deleted).iter().collect();
    assert_eq!(fired, [1, 2]);
}

/// A connection-state change reaches every registered watcher, once
/// however many paths it watches, and the default watcher; the paths
/// watched are each table's, in order.
#[test]
fn everyone_is_every_watcher_once_and_the_default_one() {
    use locksmith_model::zk::client::Watchers;
    use locksmith_model::zk::client::DEFAULT_WATCHER;
    let mut ws = Watchers::default();
    let exists = |p: &str| Op::Exists {
        path: p.into(),
        watch: true,
    };
    ws.register(&exists("/x"), 1, &Ok(OpResult::Exists(None)));
    ws.register(&exists("/y"), 1, &Ok(OpResult::Exists(None)));
    ws.register(
        &Op::get_children("/x", true),
        2,
        &Ok(OpResult::Exists(None)),
    );
    let mut all: Vec<_> = ws.everyone().iter().collect();
    all.sort();
    let mut expected = vec![1, 2, DEFAULT_WATCHER];
    expected.sort();
    assert_eq!(all, expected);
    let paths: Vec<&str> = ws.paths().map(|p| p.as_str()).collect();
    assert_eq!(paths, ["/x", "/y", "/x"]);
}

/// The sequence-suffix abstraction renames watched paths in place: two
/// names renamed into one share their watchers (one on both, once), which
/// hear the event on the new name; other paths keep theirs.
#[test]
fn a_renamed_watched_path_keeps_its_watchers() {
    use locksmith_model::zk::client::Watchers;
    let mut ws = Watchers::default();
    for (w, p) in [
        (1, "/l/lock-0000000007"),
        (1, "/l/lock-0000000009"),
        (2, "/l/lock-0000000009"),
        (3, "/m"),
    ] {
        let exists = Op::Exists {
            path: p.into(),
            watch: true,
        };
        ws.register(&exists, w, &Ok(OpResult::Exists(None)));
    }
    ws.paths_mut(&mut |p| {
        if p.as_str().starts_with("/l/") {
            *p = "/l/lock-0000000000".into();
        }
    });
    let paths: Vec<&str> = ws.paths().map(|p| p.as_str()).collect();
    assert_eq!(paths, ["/l/lock-0000000000", "/m"]);
    let deleted = |p: &str| WatchedEvent {
        kind: EventType::NodeDeleted,
        path: p.into(),
    };
    let fired = ws.materialize(&deleted("/l/lock-0000000000"));
    assert_eq!(fired.iter().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(
        ws.materialize(&deleted("/m")).iter().collect::<Vec<_>>(),
        [3]
    );
}
