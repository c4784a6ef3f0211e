//! The seeds' database locks in the exhaustive checker, through the
//! `Space` seam (issue 15): each verdict, trace length and state count
//! here comes from exploring `MysqlSpace` — two clients, one round each, a
//! critical section of 2 ticks, a lock wait timeout of 5 — and each can
//! fail.

mod backend_report;
mod reachable;

use locksmith_model::engine::Judged;
use locksmith_model::mysql::check::MysqlSpace;
use locksmith_model::mysql::recipes::MysqlRecipe;
use locksmith_model::{zk::check::Property, zk::check::Report, zk::check::Verdict};

fn check(recipe: MysqlRecipe, crashes: u8) -> Report {
    let mut space = MysqlSpace::new(recipe);
    space.faults.crashes = crashes;
    space.validate().expect("a valid configuration");
    let r = space.check();
    for p in &r.properties {
        eprintln!("{recipe} crashes={crashes}: {} {:?}", p.property, p.verdict);
    }
    eprintln!("{recipe} crashes={crashes}: {} states", r.states);
    r
}

fn steps(r: &Report, p: Property) -> usize {
    let t = r.trace_of(p).unwrap_or_else(|| panic!("a trace of {p}"));
    for s in &t.steps {
        eprintln!(
            "  {:>2}. {:<10} {} [{}]",
            s.step,
            s.actor,
            s.text,
            s.tree.join(" ")
        );
    }
    t.steps.len()
}

#[test]
fn without_faults_the_unique_key_and_the_status_cas_hold() {
    let found: Vec<_> = [MysqlRecipe::UniqueKey, MysqlRecipe::StatusCas]
        .into_iter()
        .map(|recipe| (recipe, check(recipe, 0)))
        .collect();
    let states: Vec<usize> = found.iter().map(|(_, r)| r.states).collect();
    assert_eq!(states, [120, 120]);
    for (recipe, r) in found {
        assert_eq!(r.verdict, Verdict::Holds, "{recipe}");
        for p in [
            Property::MutualExclusion,
            Property::UnlockByNonOwner,
            Property::StuckLock,
            Property::Deadlock,
            Property::Starvation,
            Property::ThreadDied,
        ] {
            assert_eq!(r.of(p), Verdict::Holds, "{recipe}: {p}");
        }
    }
}

#[test]
fn a_crashed_holder_leaves_either_lock_stuck_forever() {
    let found: Vec<_> = [MysqlRecipe::UniqueKey, MysqlRecipe::StatusCas]
        .into_iter()
        .map(|recipe| (recipe, check(recipe, 1)))
        .collect();
    let figures: Vec<(usize, Verdict, usize)> = found
        .iter()
        .map(|(_, r)| {
            (
                steps(r, Property::StuckLock),
                r.of(Property::Starvation),
                r.states,
            )
        })
        .collect();
    assert_eq!(
        figures,
        [(3, Verdict::Violated, 268), (3, Verdict::Violated, 268)]
    );
    for (recipe, r) in found {
        // Starvation's lasso: its repeating part is marked where it
        // begins and nowhere else.
        let t = r.trace_of(Property::Starvation).expect("a lasso");
        let marked: Vec<usize> = (t.steps.iter())
            .filter(|s| s.cycle_starts_here)
            .map(|s| s.step)
            .collect();
        assert!(t.cycle_start.is_some(), "{recipe}");
        assert_eq!(marked, Vec::from_iter(t.cycle_start), "{recipe}");
        assert_eq!(r.verdict, Verdict::Violated, "{recipe}");
        assert_eq!(r.of(Property::StuckLock), Verdict::Violated, "{recipe}");
        assert_eq!(r.of(Property::MutualExclusion), Verdict::Holds, "{recipe}");
        assert_eq!(r.of(Property::UnlockByNonOwner), Verdict::Holds, "{recipe}");
    }
}

fn for_update(work: u8, timeout: u8, drops: u8, crashes: u8) -> Report {
    let mut space = MysqlSpace::new(MysqlRecipe::ForUpdate);
    space.work = work;
    space.lock_wait_timeout = timeout;
    space.faults.connection_drops = drops;
    space.faults.crashes = crashes;
    space.validate().expect("a valid configuration");
    let r = space.check();
    for p in &r.properties {
        eprintln!(
            "for-update work={work} timeout={timeout} drops={drops} crashes={crashes}: {} {:?}",
            p.property, p.verdict
        );
    }
    eprintln!("states {}", r.states);
    r
}

#[test]
fn for_update_holds_without_faults_and_survives_a_crash_it_rolls_back() {
    for (crashes, states) in [(0, 150), (1, 306)] {
        let r = for_update(2, 5, 0, crashes);
        assert_eq!(r.verdict, Verdict::Holds, "crashes {crashes}");
        assert_eq!(r.states, states, "crashes {crashes}");
    }
}

#[test]
fn a_lock_wait_timeout_ends_the_waiters_thread() {
    let r = for_update(3, 2, 0, 0);
    assert_eq!(r.property, Some(Property::ThreadDied));
    assert_eq!(r.of(Property::MutualExclusion), Verdict::Holds);
    assert_eq!((steps(&r, Property::ThreadDied), r.states), (12, 184));
}

#[test]
fn a_dropped_connection_lets_the_next_client_in_while_the_holder_works() {
    let r = for_update(2, 5, 1, 0);
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!(r.of(Property::ThreadDied), Verdict::Violated);
    assert_eq!(r.of(Property::StuckLock), Verdict::Holds);
    assert_eq!((steps(&r, Property::MutualExclusion), r.states), (11, 584));
}

fn with_cleanup(work: u8, crashes: u8) -> Report {
    let mut space = MysqlSpace::new(MysqlRecipe::UniqueKey);
    space.cleanup_after = Some(3);
    space.work = work;
    space.faults.crashes = crashes;
    space.validate().expect("a valid configuration");
    space.check()
}

#[test]
fn the_cleanup_job_frees_a_crashed_holders_row_and_a_slow_holders_too() {
    let r = with_cleanup(2, 1);
    assert_eq!((r.verdict, r.states), (Verdict::Holds, 438));
    let r = with_cleanup(4, 0);
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!(
        (
            steps(&r, Property::MutualExclusion),
            steps(&r, Property::UnlockByNonOwner),
            r.states
        ),
        (13, 10, 280)
    );
}

#[test]
fn for_update_on_a_missing_row_takes_gap_locks_and_both_clients_proceed() {
    let mut space = MysqlSpace::new(MysqlRecipe::ForUpdate);
    space.lock_row = false;
    let r = space.check();
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!((steps(&r, Property::MutualExclusion), r.states), (10, 183));
}

/// The status compare-and-set reads affected rows; its `WHERE status = -1`
/// guard makes matched rows (`CLIENT_FOUND_ROWS`, Connector/J) and
/// changed rows (the server's default) the same count.
#[test]
fn the_status_cas_holds_under_client_found_rows_too() {
    let mut space = MysqlSpace::new(MysqlRecipe::StatusCas);
    space.found_rows = true;
    let r = space.check();
    assert_eq!((r.verdict, r.states), (Verdict::Holds, 120));
}

/// The status lock without its guard reads "affected rows" the same way:
/// under changed rows (the server's default) it explores the guarded
/// recipe's 120 states and holds; with `CLIENT_FOUND_ROWS` a second
/// client's UPDATE of a taken row reports 1 and both hold.
#[test]
fn the_unguarded_status_lock_breaks_only_under_client_found_rows() {
    let mut space = MysqlSpace::new(MysqlRecipe::StatusCasUnguarded);
    let r = space.check();
    assert_eq!((r.verdict, r.states), (Verdict::Holds, 120));
    space.found_rows = true;
    let r = space.check();
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!((steps(&r, Property::MutualExclusion), r.states), (6, 153));
    assert_eq!(r.of(Property::StuckLock), Verdict::Holds);
}

/// The unique key with autocommit off: a crashed holder's INSERT rolls
/// back with its connection, so the lock frees itself where the
/// autocommit form is stuck; a dropped connection frees a live holder's
/// lock the same way.
#[test]
fn the_uncommitted_unique_key_frees_a_dead_holders_lock_and_a_live_ones() {
    let autocommit = check(MysqlRecipe::UniqueKey, 1);
    assert_eq!(autocommit.property, Some(Property::StuckLock));
    let txn = check(MysqlRecipe::UniqueKeyTxn, 1);
    assert_eq!((txn.verdict, txn.states), (Verdict::Holds, 548));
    let mut space = MysqlSpace::new(MysqlRecipe::UniqueKeyTxn);
    space.faults.connection_drops = 1;
    let r = space.check();
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!((steps(&r, Property::MutualExclusion), r.states), (11, 952));
}

/// A waiter behind an uncommitted lock row times out (1205) when the
/// holder outlasts `innodb_lock_wait_timeout`, and the seed's loop tries
/// again: the timeout adds states (416 against 380 when it never fires)
/// and every property still holds.
#[test]
fn the_uncommitted_unique_key_retries_after_a_lock_wait_timeout() {
    let mut space = MysqlSpace::new(MysqlRecipe::UniqueKeyTxn);
    space.work = 7;
    space.lock_wait_timeout = 5;
    let r = space.check();
    assert_eq!((r.verdict, r.states), (Verdict::Holds, 416));
    space.lock_wait_timeout = 50;
    assert_eq!(space.check().states, 380);
}

/// Fenced (as `mysql-for-update-connection-drop-fenced`): the server
/// drops the holder's connection, the next client takes the row while the
/// holder works, and the holder's closing write lands after the newer
/// holder's opening one. The trace tells a holder's opening write from its
/// closing one.
#[test]
fn a_fenced_trace_tells_a_holders_opening_write_from_its_closing_one() {
    let mut space = MysqlSpace::new(MysqlRecipe::ForUpdate);
    space.work = 2;
    space.lock_wait_timeout = 5;
    space.faults.connection_drops = 1;
    space.fencing = true;
    space.validate().expect("a valid configuration");
    let r = space.check();
    let p = Property::MutualExclusionAtResource;
    assert_eq!((r.property, steps(&r, p), r.states), (Some(p), 20, 1064));
    let t = r.trace_of(p).expect("a trace");
    let writes: Vec<(&str, &str)> = (t.steps.iter())
        .filter_map(|s| {
            let w = s.text.find("writes its ")?;
            let which = s.text[w + "writes its ".len()..].split(' ').next()?;
            Some((s.actor.as_str(), which))
        })
        .collect();
    assert_eq!(
        writes,
        [("c1", "opening"), ("c2", "opening"), ("c1", "closing")]
    );
}

/// A configuration the checker cannot explore is refused with the
/// scenario key at fault and what was expected; `check` reports it
/// incomplete, never explored.
#[test]
fn a_configuration_out_of_range_is_refused_with_its_key() {
    let ok = MysqlSpace::new(MysqlRecipe::UniqueKey);
    assert_eq!(ok.validate(), Ok(()));
    let mut most = ok.clone();
    most.clients = 8;
    assert_eq!(most.validate(), Ok(()));
    type Breaks = fn(&mut MysqlSpace);
    let cases: [(Breaks, &str); 8] = [
        (|s| s.clients = 0, "clients: expected 1 to 8 clients, got 0"),
        (|s| s.clients = 9, "clients: expected 1 to 8 clients, got 9"),
        (|s| s.acquisitions = 0, "acquisitions: expected at least 1"),
        (
            |s| s.work = 0,
            "mysql.critical_section: expected at least 1 tick",
        ),
        (|s| s.pause = 0, "mysql.pause: expected at least 1 tick"),
        (
            |s| s.lock_wait_timeout = 0,
            "mysql.lock_wait_timeout: expected",
        ),
        (
            |s| s.cleanup_after = Some(0),
            "mysql.cleanup_after: expected",
        ),
        (|s| s.limits.jobs = 0, "jobs: expected at least 1"),
    ];
    for (break_it, says) in cases {
        let mut space = ok.clone();
        break_it(&mut space);
        let e = space.validate().unwrap_err();
        assert!(e.starts_with(says), "{e}");
        let r = space.check();
        assert_eq!((r.verdict, r.states), (Verdict::Incomplete, 0), "{e}");
    }
}

/// The report names what the MySQL checker does not judge, and why.
#[test]
fn the_properties_sql_does_not_judge_are_n_a_with_their_reason() {
    let plain = MysqlSpace::new(MysqlRecipe::StatusCas);
    let mut fenced = MysqlSpace::new(MysqlRecipe::StatusCas);
    fenced.fencing = true;
    for (space, fencing) in [(&plain, false), (&fenced, true)] {
        backend_report::judged_or_n_a(
            &space.check(),
            fencing,
            |p| space.judges(p),
            |p| space.not_judged(p),
        );
    }
}

/// Weak fairness owes a step to each client's process and to the server's
/// serving of each client (and to the cleanup job, a periodic job of no
/// client's), nothing to a fault; a fault is no progress (a state where
/// only faults can happen is stuck). And each action's words.
#[test]
fn fairness_owes_processes_servers_and_the_job_and_nothing_to_a_fault() {
    use locksmith_model::engine::{Space, NO_AGENT};
    use locksmith_model::mysql::check::Action;
    let space = MysqlSpace::new(MysqlRecipe::ForUpdate);
    let agent = |a: Action| space.agent(a);
    assert_eq!(agent(Action::Step(1)), agent(Action::Think(1)));
    assert_eq!(agent(Action::Serve(1)), agent(Action::ServerNotices(1)));
    let owed = [
        agent(Action::Step(0)),
        agent(Action::Serve(0)),
        agent(Action::Step(1)),
        agent(Action::Serve(1)),
        agent(Action::Cleanup),
    ];
    for (i, a) in owed.iter().enumerate() {
        assert_ne!(*a, NO_AGENT);
        for b in &owed[i + 1..] {
            assert_ne!(a, b);
        }
    }
    let faults = [
        Action::Pause(0),
        Action::Crash(1),
        Action::DropConnection(0),
        Action::NetworkDrop(1),
        Action::Restart,
    ];
    for a in faults {
        assert_eq!(agent(a), NO_AGENT, "{a:?}");
        assert!(space.is_fault(a), "{a:?}");
    }
    for a in [
        Action::Step(0),
        Action::Think(0),
        Action::Serve(1),
        Action::Tick,
        Action::Cleanup,
        Action::ServerNotices(0),
    ] {
        assert!(!space.is_fault(a), "{a:?}");
    }
    let words: Vec<String> = [
        Action::Step(0),
        Action::Think(1),
        Action::Serve(0),
        Action::Tick,
        Action::Cleanup,
        Action::ServerNotices(1),
    ]
    .iter()
    .chain(&faults)
    .map(|a| a.to_string())
    .collect();
    assert_eq!(
        words,
        [
            "c1 steps",
            "c2 thinks a tick",
            "server runs c1's statement",
            "a tick passes",
            "the cleanup job releases the lock row",
            "the server notices c2's connection is gone: rolls back, releases its locks",
            "c1 pauses (fault)",
            "c2 crashes (fault)",
            "the server drops c1's connection (fault)",
            "the network drops c2's connection; the server has not noticed (fault)",
            "the server restarts (fault)",
        ]
    );
}

/// A pause turns a quick holder into a slow one: with a critical section
/// of 2 the cleanup job never catches a holder at work (it holds), but a
/// holder paused for 4 ticks inside it is past the job's 3 and loses its
/// row while it works — mutual exclusion, as with a section of 4.
#[test]
fn a_paused_holder_is_one_the_cleanup_job_frees() {
    let mut space = MysqlSpace::new(MysqlRecipe::UniqueKey);
    space.cleanup_after = Some(3);
    space.work = 2;
    assert_eq!(space.check().verdict, Verdict::Holds);
    space.faults.pauses = 1;
    space.validate().expect("a valid configuration");
    let r = space.check();
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!((steps(&r, Property::MutualExclusion), r.states), (14, 1507));
}

/// Who waits, and when waiting is a deadlock: a client inside `lock()`
/// waits; with nothing but faults left to happen it is stuck. Bytes and
/// growth are read from the clients, rows and row locks.
#[test]
fn a_client_inside_lock_waits_and_a_states_bytes_count_its_rows() {
    use locksmith_model::engine::Space;
    use locksmith_model::mysql::check::{Action, Client, State};
    use std::mem::size_of;
    let space = MysqlSpace::new(MysqlRecipe::UniqueKey);
    let mut s = space.initial();
    let own = size_of::<State>() + 2 * size_of::<Client>();
    assert_eq!((space.waiting(&s), space.state_bytes(&s)), (0, own));
    assert_eq!(space.growth_marks(&s), (1, 0));
    space.apply(&mut s, Action::Step(0));
    assert_eq!((space.waiting(&s), space.holders(&s)), (0b01, 0));
    assert!(space.stuck(&s, false) && !space.stuck(&s, true));
    space.apply(&mut s, Action::Serve(0));
    assert_eq!(space.growth_marks(&s), (2, 1));
    assert_eq!(space.state_bytes(&s), own + 96);
    assert_eq!(space.growth_words().unit, "rows");

    // A row lock counts too: c1's SELECT … FOR UPDATE holds one.
    let space = MysqlSpace::new(MysqlRecipe::ForUpdate);
    let mut s = space.initial();
    assert_eq!(space.state_bytes(&s), own + 96, "the lock row");
    for a in [
        Action::Step(0),
        Action::Serve(0),
        Action::Step(0),
        Action::Serve(0),
    ] {
        space.apply(&mut s, a);
    }
    assert_eq!(s.server.locks().iter().count(), 1);
    assert_eq!(space.state_bytes(&s), own + 96 + 64);

    // A run stopped by a bound explains itself in MySQL's words, and
    // never suggests abstracting sequence suffixes.
    let mut bounded = MysqlSpace::new(MysqlRecipe::UniqueKey);
    bounded.limits.max_depth = 8;
    let r = bounded.check();
    let why = r.growth.expect("an explanation");
    assert!(why.contains("the largest AUTO_INCREMENT id rose"), "{why}");
    assert!(!why.contains("abstract-sequences"), "{why}");
}

/// Issue 15's network drop and restart, pinned at the model level with
/// the verdicts, trace lengths and state counts of
/// `mysql-for-update-network-drop` and `mysql-unique-key-restart` (the
/// scenarios' own tests run in the sim crate, outside the mutants' night
/// selection).
#[test]
fn a_network_drop_and_a_restart_break_what_the_scenarios_say() {
    let mut drop = MysqlSpace::new(MysqlRecipe::ForUpdate);
    drop.faults.network_drops = 1;
    let r = drop.check();
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!(
        (
            steps(&r, Property::MutualExclusion),
            steps(&r, Property::ThreadDied),
            r.states
        ),
        (12, 3, 1070)
    );
    assert_eq!(r.of(Property::StuckLock), Verdict::Holds);
    let mut restart = MysqlSpace::new(MysqlRecipe::UniqueKey);
    restart.faults.restarts = 1;
    let r = restart.check();
    assert_eq!(r.property, Some(Property::StuckLock));
    assert_eq!(
        (
            steps(&r, Property::StuckLock),
            steps(&r, Property::ThreadDied),
            r.states
        ),
        (3, 3, 358)
    );
    assert_eq!(r.of(Property::MutualExclusion), Verdict::Holds);
}

/// The words of a MySQL trace, as `check` prints it and as its Mermaid
/// diagram draws it: the network-drop trace (a statement answered to
/// another client when the server notices) and the cleanup job's unlock
/// by non-owner, whose note goes on the server's lane (the diagram
/// declares no `cleanup` participant).
#[test]
fn a_traces_words_and_lanes_read_as_the_docs_show_them() {
    use locksmith_model::mysql::check::mermaid;
    let mut space = MysqlSpace::new(MysqlRecipe::ForUpdate);
    space.faults.network_drops = 1;
    let r = space.check();
    let t = r.trace_of(Property::MutualExclusion).expect("a trace");
    assert_eq!(
        t.text(),
        "   1. c1                     calls lock(); sends START TRANSACTION   [lock: row (status 0, version 0)]
   2. mysql<-c1              START TRANSACTION → OK 0   [lock: row (status 0, version 0)]
   3. c1                     reads OK 0; sends SELECT id, status, version FROM locks WHERE name = 'lock' FOR UPDATE   [lock: row (status 0, version 0)]
   4. mysql<-c1              SELECT id, status, version FROM locks WHERE name = 'lock' FOR UPDATE → row (1, 0, 0)   [lock: row (status 0, version 0)]
   5. c1                     reads row (1, 0, 0); holds the lock   [lock: row (status 0, version 0)]   holders: c1
   6. c2                     calls lock(); sends START TRANSACTION   [lock: row (status 0, version 0)]   holders: c1
   7. mysql<-c2              START TRANSACTION → OK 0   [lock: row (status 0, version 0)]   holders: c1
   8. c2                     reads OK 0; sends SELECT id, status, version FROM locks WHERE name = 'lock' FOR UPDATE   [lock: row (status 0, version 0)]   holders: c1
   9. mysql<-c2              SELECT id, status, version FROM locks WHERE name = 'lock' FOR UPDATE waits for a row lock   [lock: row (status 0, version 0)]   holders: c1
  10. FAULT                  the network drops c1's connection: its process goes on; the server keeps its transaction and row locks until it notices   [lock: row (status 0, version 0)]   holders: c1
  11. mysql                  the server notices c1's connection is gone: its transaction rolls back, its row locks go; c2's waiting statement → row (1, 0, 0)   [lock: row (status 0, version 0)]   holders: c1
  12. c2                     reads row (1, 0, 0); holds the lock   [lock: row (status 0, version 0)]   holders: c1, c2
"
    );
    let diagram = mermaid(t, 2);
    let lines: Vec<&str> = diagram.lines().collect();
    assert_eq!(lines.len(), 4 + 12);
    assert_eq!(
        lines[..6],
        [
            "sequenceDiagram",
            "    participant c1",
            "    participant c2",
            "    participant MySQL",
            "    Note over c1: calls lock(), sends START TRANSACTION",
            "    c1->>MySQL: START TRANSACTION → OK 0",
        ]
    );
    assert_eq!(
        lines[13..],
        [
            "    Note over MySQL: FAULT: the network drops c1's connection: its process goes on, the server keeps its transaction and row locks until it notices",
            "    Note over MySQL: mysql: the server notices c1's connection is gone: its transaction rolls back, its row locks go, c2's waiting statement → row (1, 0, 0)",
            "    Note over c2: reads row (1, 0, 0), holds the lock",
        ]
    );

    let mut space = MysqlSpace::new(MysqlRecipe::UniqueKey);
    space.cleanup_after = Some(3);
    space.work = 4;
    let r = space.check();
    let t = r.trace_of(Property::UnlockByNonOwner).expect("a trace");
    let text = t.text();
    let last = text.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        "  10. cleanup                the cleanup job finds the lock row 3 ticks old and releases it; — unlock by non-owner   [lock: no row]   holders: c1"
    );
    assert!(text.contains("   4. c2                     thinks a tick before its next round"));
    assert!(text.contains("   5. time                   a tick passes"));
    let diagram = mermaid(t, 2);
    assert_eq!(
        diagram.lines().last(),
        Some("    Note over MySQL: cleanup: the cleanup job finds the lock row 3 ticks old and releases it, — unlock by non-owner")
    );
}

/// Issue 15's mysql-unique-key-cleanup-fenced at the model level: the
/// INSERT's AUTO_INCREMENT id is the token, renumbered with the ids in
/// every state but kept in order; the job frees the slow holder's row
/// (unlock by non-owner, 11 steps), both hold (14 steps), and the newer
/// holder's larger id fences the older one's writes.
#[test]
fn an_auto_increment_token_keeps_its_order_through_the_renumbering() {
    let mut space = MysqlSpace::new(MysqlRecipe::UniqueKey);
    space.cleanup_after = Some(3);
    space.work = 4;
    space.fencing = true;
    let r = space.check();
    assert_eq!(r.property, Some(Property::MutualExclusion));
    assert_eq!(
        (
            steps(&r, Property::MutualExclusion),
            steps(&r, Property::UnlockByNonOwner),
            r.states
        ),
        (14, 11, 360)
    );
    for p in [Property::FencedSafety, Property::MutualExclusionAtResource] {
        assert_eq!(r.of(p), Verdict::Holds, "{p}");
    }
}

/// A losing INSERT sleeps a tick before it tries again, a fenced holder
/// is told its token once, when `lock()` returns, and a serve names only
/// the statements it let finish.
#[test]
fn a_loser_sleeps_a_tick_and_a_winner_hears_its_token_once() {
    use locksmith_model::engine::Counterexample;
    use locksmith_model::mysql::check::Action;
    let mut space = MysqlSpace::new(MysqlRecipe::UniqueKey);
    space.fencing = true;
    let path = |actions: Vec<Action>| {
        let t = (space.render(&Counterexample {
            actions,
            cycle_start: None,
        }))
        .expect("the path replays");
        t.steps.iter().map(|s| s.text.clone()).collect::<Vec<_>>()
    };
    let texts = path(vec![
        Action::Step(0),
        Action::Serve(0),
        Action::Step(1),
        Action::Serve(1),
        Action::Step(1),
        Action::Step(0),
        Action::Step(0),
    ]);
    assert_eq!(
        texts[3..],
        [
            // c1's reply, unread, is no waiting statement answered.
            "INSERT INTO locks (name, status) VALUES ('lock', 0) → ERROR 1062: Duplicate entry 'lock' for key 'name'",
            "reads ERROR 1062: Duplicate entry 'lock' for key 'name'; sleeps a tick",
            "reads OK 1 id 1; holds the lock; its token is 1",
            "writes its opening write to the resource → the resource accepts token 1",
        ]
    );
}

/// Takes `path` from `s`, each action enabled where it is taken, and
/// returns what is enabled after it.
fn walk(
    space: &MysqlSpace,
    s: &mut locksmith_model::mysql::check::State,
    path: &[locksmith_model::mysql::check::Action],
) -> Vec<locksmith_model::mysql::check::Action> {
    use locksmith_model::engine::Space;
    let mut out = Vec::new();
    for &a in path {
        out.clear();
        space.actions(s, &mut out);
        assert!(out.contains(&a), "{a:?} is not enabled: {out:?}");
        space.apply(s, a);
    }
    out.clear();
    space.actions(s, &mut out);
    out
}

/// The server drops the holder's connection; its autocommit row stays,
/// and so does its owner: the job that later deletes the row while the
/// holder still works unlocks another's lock.
#[test]
fn a_row_outlives_its_holders_connection_and_keeps_its_owner() {
    use locksmith_model::engine::Space;
    use locksmith_model::mysql::check::Action::*;
    let mut space = MysqlSpace::new(MysqlRecipe::UniqueKey);
    space.cleanup_after = Some(3);
    space.work = 4;
    space.faults.connection_drops = 1;
    // One client alone, so that ticks pass while it works.
    space.clients = 1;
    space.validate().expect("a valid configuration");
    let mut s = space.initial();
    walk(
        &space,
        &mut s,
        &[Step(0), Serve(0), Step(0), DropConnection(0)],
    );
    assert_eq!(s.own.owner, Some(0));
    let after = walk(&space, &mut s, &[Tick, Tick, Tick]);
    assert!(after.contains(&Cleanup), "{after:?}");
    walk(&space, &mut s, &[Cleanup]);
    assert!(space.violated_in(Property::UnlockByNonOwner, &s));
    // Two clients, no job: 524 states (624 with the owner forgotten at
    // the drop).
    space.clients = 2;
    space.cleanup_after = None;
    assert_eq!(space.check().states, 524);
}

/// Time passes only while something counts down: a client's work, sleep
/// or pause, a statement's lock wait, the lock row's age up to the job's.
/// When everyone has finished, or only the job is left, no tick is
/// offered — a tick there would change nothing and could pass for
/// progress where a client is stuck.
#[test]
fn time_passes_only_while_something_counts_down() {
    use locksmith_model::engine::Space;
    use locksmith_model::mysql::check::Action::*;
    let mut space = MysqlSpace::new(MysqlRecipe::UniqueKey);
    space.clients = 1;
    space.validate().expect("a valid configuration");
    let mut s = space.initial();
    // INSERT, hold for 2 ticks, DELETE, until the round is over.
    let mut left = walk(&space, &mut s, &[]);
    while let Some(&a) = [Step(0), Serve(0), Tick].iter().find(|a| left.contains(a)) {
        left = walk(&space, &mut s, &[a]);
    }
    assert_eq!(left, []);
    assert!(space.holders(&s) == 0 && space.waiting(&s) == 0);
    // The holder crashes; its row ages 3 ticks, then only the job runs,
    // and after it nothing is left to happen.
    space.cleanup_after = Some(3);
    space.faults.crashes = 1;
    space.validate().expect("a valid configuration");
    let mut s = space.initial();
    let aging = walk(&space, &mut s, &[Step(0), Serve(0), Step(0), Crash(0)]);
    assert_eq!(aging, [Tick]);
    assert_eq!(walk(&space, &mut s, &[Tick, Tick, Tick]), [Cleanup]);
    assert_eq!(walk(&space, &mut s, &[Cleanup]), []);
}

/// A live SQL client always has something to wait for: in every state
/// reachable under each fault, where nobody can step and no tick is
/// offered, every client has finished, died or crashed, with no work,
/// sleep or pause left. So the SQL spaces cannot deadlock, and a tick
/// rule that also counted a live client with nothing running down would
/// offer no extra tick anywhere (why `time_passes`' `alive() &&` → `||`
/// and `> 0` → `>= 0` survive mutation: docs/reliability.md).
#[test]
fn no_live_sql_client_is_left_with_nothing_to_wait_for() {
    use locksmith_model::mysql::check::{Action, Channel};
    let mut reached = 0;
    for recipe in MysqlRecipe::ALL {
        for fault in 0..6 {
            let mut space = MysqlSpace::new(recipe);
            match fault {
                0 => {}
                1 => space.faults.crashes = 1,
                2 => space.faults.connection_drops = 1,
                3 => space.faults.network_drops = 1,
                4 => space.faults.restarts = 1,
                _ => {
                    space.faults.pauses = 1;
                    space.cleanup_after = recipe.cleanup_statement().map(|_| 3);
                }
            }
            space.validate().expect("a valid configuration");
            reached += reachable::each_reachable(&space, |s, actions| {
                let instant = (s.clients.iter())
                    .any(|c| c.can_step() || matches!(c.channel, Channel::Sent(_)));
                if !instant && !actions.contains(&Action::Tick) {
                    assert!(
                        (s.clients.iter()).all(|c| !c.alive() && c.timer == 0 && c.paused == 0),
                        "{recipe}, fault {fault}: a live client with nothing to wait for: {s:?}"
                    );
                }
            });
        }
    }
    assert_eq!(reached, 19_974);
}

/// A version token is no AUTO_INCREMENT id: the renumbering leaves it
/// alone. Two rounds each make versions 1 to 4; renumbered as ids they
/// would split states the tree keeps as one (539 → 623).
#[test]
fn a_version_token_is_left_alone_by_the_renumbering() {
    let mut space = MysqlSpace::new(MysqlRecipe::StatusCas);
    space.fencing = true;
    space.acquisitions = 2;
    space.validate().expect("a valid configuration");
    let r = space.check();
    assert_eq!((r.verdict, r.states), (Verdict::Holds, 539));
}
