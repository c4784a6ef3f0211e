//! The seeds' database locks in the exhaustive checker, through the
//! `Space` seam (issue 15): each verdict, trace length and state count
//! here comes from exploring `SqlSpace` — two clients, one round each, a
//! critical section of 2 ticks, a lock wait timeout of 5 — and each can
//! fail.

use locksmith_model::check::sql::SqlSpace;
use locksmith_model::check::{Property, Report, Verdict};
use locksmith_model::recipe::sql::SqlRecipe;

fn check(recipe: SqlRecipe, crashes: u8) -> Report {
    let mut space = SqlSpace::new(recipe);
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
    let found: Vec<_> = [SqlRecipe::UniqueKey, SqlRecipe::StatusCas]
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
    let found: Vec<_> = [SqlRecipe::UniqueKey, SqlRecipe::StatusCas]
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
    let mut space = SqlSpace::new(SqlRecipe::ForUpdate);
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
    let mut space = SqlSpace::new(SqlRecipe::UniqueKey);
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
    let mut space = SqlSpace::new(SqlRecipe::ForUpdate);
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
    let mut space = SqlSpace::new(SqlRecipe::StatusCas);
    space.found_rows = true;
    let r = space.check();
    assert_eq!((r.verdict, r.states), (Verdict::Holds, 120));
}

/// Fenced (as `mysql-for-update-connection-drop-fenced`): the server
/// drops the holder's connection, the next client takes the row while the
/// holder works, and the holder's closing write lands after the newer
/// holder's opening one. The trace tells a holder's opening write from its
/// closing one.
#[test]
fn a_fenced_trace_tells_a_holders_opening_write_from_its_closing_one() {
    let mut space = SqlSpace::new(SqlRecipe::ForUpdate);
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
