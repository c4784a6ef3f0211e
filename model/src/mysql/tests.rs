//! The rules a lock depends on, each a case that a wrong model would fail.
//! The same rules run on a real MariaDB as generated sequences
//! (`sim/tests/mysql_conformance/`, docs/conformance.md).

use super::*;

const A: ConnId = 0;
const B: ConnId = 1;
const C: ConnId = 2;

fn server(n: usize) -> MysqlServer {
    MysqlServer::new(&vec![Session::default(); n])
}

fn n(s: &str) -> Name {
    Name::new(s)
}

fn insert(name: &str, status: i64) -> Statement {
    Statement::Insert {
        name: n(name),
        status,
    }
}

fn delete(name: &str) -> Statement {
    Statement::Delete { name: n(name) }
}

fn for_update(name: &str) -> Statement {
    Statement::SelectForUpdate { name: n(name) }
}

fn select(name: &str) -> Statement {
    Statement::Select { name: n(name) }
}

fn cas(name: &str, from: i64, to: i64) -> Statement {
    Statement::Update {
        name: n(name),
        set_status: to,
        set_version: SetVersion::Keep,
        where_status: Some(from),
        where_version: None,
    }
}

fn set_status(name: &str, to: i64) -> Statement {
    Statement::Update {
        name: n(name),
        set_status: to,
        set_version: SetVersion::Keep,
        where_status: None,
        where_version: None,
    }
}

/// Runs `stmt` and returns what finished, as (conn, reply) pairs.
fn run(s: &mut MysqlServer, conn: ConnId, stmt: &Statement) -> Vec<(ConnId, Reply)> {
    s.execute(conn, stmt)
        .expect("connection ready")
        .into_iter()
        .map(|c| (c.conn, c.reply))
        .collect()
}

/// Runs `stmt` and expects exactly `conn`'s reply.
fn reply(s: &mut MysqlServer, conn: ConnId, stmt: &Statement) -> Reply {
    let out = run(s, conn, stmt);
    assert_eq!(out.len(), 1, "{stmt}: {out:?}");
    assert_eq!(out[0].0, conn);
    out[0].1.clone()
}

fn ok(affected: u64) -> Reply {
    Reply::Ok {
        affected,
        insert_id: None,
    }
}

fn inserted(id: u64) -> Reply {
    Reply::Ok {
        affected: 1,
        insert_id: Some(id),
    }
}

fn row(id: u64, status: i64, version: i64) -> Reply {
    Reply::Rows(Some(RowView {
        id,
        status,
        version,
    }))
}

fn dup(name: &str) -> Reply {
    Reply::Err(MysqlError::Duplicate(n(name)))
}

#[test]
fn insert_fails_with_1062_on_a_committed_row_and_still_uses_up_an_id() {
    let mut s = server(2);
    assert_eq!(reply(&mut s, A, &insert("l", 0)), inserted(1));
    assert_eq!(reply(&mut s, B, &insert("l", 0)), dup("l"));
    assert_eq!(
        dup("l").to_string(),
        "ERROR 1062: Duplicate entry 'l' for key 'name'"
    );
    assert_eq!(reply(&mut s, A, &delete("l")), ok(1));
    assert_eq!(reply(&mut s, B, &insert("l", 0)), inserted(3));
    assert!(
        s.locks().iter().next().is_none(),
        "autocommit keeps no lock"
    );
}

#[test]
fn insert_waits_behind_an_uncommitted_insert_then_fails_or_succeeds() {
    for commit in [true, false] {
        let mut s = server(2);
        reply(&mut s, A, &Statement::Begin);
        assert_eq!(reply(&mut s, A, &insert("l", 0)), inserted(1));
        assert!(run(&mut s, B, &insert("l", 0)).is_empty(), "B waits");
        assert!(s.blocked(B).is_some());
        let end = if commit {
            Statement::Commit
        } else {
            Statement::Rollback
        };
        let out = run(&mut s, A, &end);
        let b = if commit { dup("l") } else { inserted(2) };
        assert_eq!(out, vec![(A, ok(0)), (B, b)], "commit {commit}");
        assert!(s.blocked(B).is_none());
    }
}

#[test]
fn a_failed_insert_in_a_transaction_keeps_a_shared_lock_on_the_row() {
    let mut s = server(2);
    reply(&mut s, A, &insert("l", 0));
    reply(&mut s, B, &Statement::Begin);
    assert_eq!(reply(&mut s, B, &insert("l", 0)), dup("l"));
    // The holder cannot release: its DELETE waits for B's S lock.
    assert!(run(&mut s, A, &delete("l")).is_empty());
    assert_eq!(
        run(&mut s, B, &Statement::Commit),
        vec![(B, ok(0)), (A, ok(1))]
    );
}

#[test]
fn for_update_waits_for_the_holder_and_reads_the_latest_row() {
    let mut s = server(3);
    reply(&mut s, A, &insert("l", 0));
    reply(&mut s, A, &Statement::Begin);
    assert_eq!(reply(&mut s, A, &for_update("l")), row(1, 0, 0));
    assert_eq!(reply(&mut s, A, &set_status("l", 7)), ok(1));
    reply(&mut s, B, &Statement::Begin);
    assert!(run(&mut s, B, &for_update("l")).is_empty());
    // A plain read does not wait and sees the committed row.
    assert_eq!(reply(&mut s, C, &select("l")), row(1, 0, 0));
    let out = run(&mut s, A, &Statement::Commit);
    assert_eq!(out, vec![(A, ok(0)), (B, row(1, 7, 0))]);
}

#[test]
fn a_consistent_read_in_a_transaction_keeps_its_snapshot() {
    let mut s = server(2);
    reply(&mut s, A, &insert("l", 0));
    reply(&mut s, B, &Statement::Begin);
    assert_eq!(reply(&mut s, B, &select("l")), row(1, 0, 0));
    assert_eq!(reply(&mut s, A, &set_status("l", 1)), ok(1));
    assert_eq!(reply(&mut s, B, &select("l")), row(1, 0, 0), "snapshot");
    assert_eq!(reply(&mut s, B, &for_update("l")), row(1, 1, 0), "latest");
    reply(&mut s, B, &Statement::Commit);
    assert_eq!(reply(&mut s, B, &select("l")), row(1, 1, 0));
}

#[test]
fn lock_wait_timeout_rolls_back_the_statement_only() {
    let sessions = [Session {
        lock_wait_timeout_ms: 1000,
        ..Session::default()
    }; 2];
    let mut s = MysqlServer::new(&sessions);
    reply(&mut s, A, &insert("l", 0));
    reply(&mut s, A, &insert("m", 0));
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &for_update("l"));
    reply(&mut s, B, &Statement::Begin);
    assert_eq!(reply(&mut s, B, &for_update("m")), row(2, 0, 0));
    assert!(run(&mut s, B, &for_update("l")).is_empty());
    assert_eq!(s.next_timeout_in(), Some(1000));
    assert!(s.advance(999).is_empty());
    assert_eq!(
        s.advance(1),
        vec![Completion {
            conn: B,
            reply: Reply::Err(MysqlError::LockWaitTimeout)
        }]
    );
    assert!(s.in_transaction(B), "the transaction goes on");
    // B still holds m: A waits for it.
    assert!(run(&mut s, A, &for_update("m")).is_empty());
    assert_eq!(
        run(&mut s, B, &Statement::Rollback),
        vec![(B, ok(0)), (A, row(2, 0, 0))]
    );
}

#[test]
fn an_autocommit_statement_that_times_out_keeps_nothing() {
    let sessions = [Session {
        lock_wait_timeout_ms: 1000,
        ..Session::default()
    }; 2];
    let mut s = MysqlServer::new(&sessions);
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &insert("l", 0));
    assert!(run(&mut s, B, &insert("l", 0)).is_empty());
    assert_eq!(s.advance(1000).len(), 1);
    assert!(s.locks().iter().all(|l| l.conn == A));
}

/// Half a deadlock: rows l and m committed, A and B each in a
/// transaction, A holding l, B taking m with `b_takes_m`, and A waiting
/// for m; B's next request for l closes the cycle.
fn a_waits_for_m_after(b_takes_m: &Statement) -> MysqlServer {
    let mut s = server(2);
    reply(&mut s, A, &insert("l", 0));
    reply(&mut s, A, &insert("m", 0));
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, B, &Statement::Begin);
    reply(&mut s, A, &for_update("l"));
    reply(&mut s, B, b_takes_m);
    assert!(run(&mut s, A, &for_update("m")).is_empty());
    s
}

#[test]
fn deadlock_rolls_back_the_requester_on_a_tie() {
    let mut s = a_waits_for_m_after(&for_update("m"));
    // B's request closes the cycle; equal weights: B is the victim, and
    // its rollback lets A have m.
    assert_eq!(
        run(&mut s, B, &for_update("l")),
        vec![(B, Reply::Err(MysqlError::Deadlock)), (A, row(2, 0, 0))]
    );
    assert!(!s.in_transaction(B), "the whole transaction is gone");
    assert!(s.in_transaction(A));
}

#[test]
fn deadlock_rolls_back_the_lighter_transaction() {
    // B has written an undo record: A is lighter, and is the victim.
    let mut s = a_waits_for_m_after(&set_status("m", 5));
    assert_eq!(
        run(&mut s, B, &for_update("l")),
        vec![(A, Reply::Err(MysqlError::Deadlock)), (B, row(1, 0, 0))]
    );
}

/// Lock objects as MariaDB 10.11 counts them (`trx_lock_structs` in
/// `information_schema.INNODB_TRX`, the IX table lock included).
fn structs(s: &MysqlServer, conn: ConnId) -> u64 {
    s.locks().objects(conn) + 1
}

#[test]
fn a_locking_read_of_its_own_insert_locks_only_the_unique_key() {
    // The CI run of 2026-11-25: B's own row and A's converted one. On a
    // real server B weighs 4 and A 5, so B is the victim of the cycle A
    // closes; the model had counted two objects for B's own row (and A's
    // converted lock as one with its next-key lock on `a`), a tie, and
    // rolled back A.
    let mut s = server(2);
    reply(&mut s, A, &insert("a", 1));
    reply(&mut s, B, &Statement::Begin);
    reply(&mut s, B, &insert("e", 1));
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &insert("c", -1));
    assert_eq!(reply(&mut s, B, &for_update("e")), row(2, 1, 0));
    assert_eq!(
        structs(&s, B),
        2,
        "IX and the unique key's X: the clustered record is B's own"
    );
    assert!(run(&mut s, B, &set_status("c", 0)).is_empty());
    assert_eq!(
        structs(&s, A),
        2,
        "IX and c's converted lock (X, rec but not gap)"
    );
    assert_eq!(structs(&s, B), 3);
    assert_eq!(reply(&mut s, A, &for_update("a")), row(1, 1, 0));
    assert_eq!(
        structs(&s, A),
        4,
        "a's next-key X is not c's converted lock"
    );
    assert_eq!(
        run(&mut s, A, &delete("e")),
        vec![(B, Reply::Err(MysqlError::Deadlock)), (A, ok(0))]
    );
}

#[test]
fn a_converted_lock_covers_its_record_and_adds_the_gap_without_waiting() {
    let mut s = server(2);
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &insert("c", -1));
    reply(&mut s, B, &Statement::Begin);
    assert!(run(&mut s, B, &for_update("c")).is_empty());
    // Not behind B's waiting request: A's converted lock covers the record.
    assert_eq!(reply(&mut s, A, &for_update("c")), row(1, -1, 0));
    assert_eq!(
        structs(&s, A),
        3,
        "IX, the converted lock, the gap before c"
    );
}

#[test]
fn an_implicit_lock_its_owner_already_covers_is_not_converted() {
    // The soak run after the fix above: B updates the row it inserted,
    // which takes the unique key's next-key X; C's INSERT of the same
    // name then waits without converting B's implicit lock (MariaDB lists
    // no "rec but not gap" lock for B). B weighs 6 with its waiting
    // INSERT, like C: a tie, and B, whose request closed the cycle, is
    // rolled back.
    let mut s = server(3);
    reply(&mut s, A, &insert("c", 0));
    reply(&mut s, B, &Statement::Begin);
    reply(&mut s, B, &delete("a"));
    reply(&mut s, C, &Statement::Begin);
    reply(&mut s, B, &insert("e", 0));
    reply(&mut s, C, &set_status("a", 0));
    reply(&mut s, B, &set_status("e", 0));
    assert_eq!(structs(&s, B), 3, "IX, the gap of a, e's next-key X");
    reply(&mut s, C, &set_status("c", 0));
    assert!(run(&mut s, C, &insert("e", 0)).is_empty());
    assert_eq!(structs(&s, B), 3, "nothing converted");
    assert_eq!(
        structs(&s, C),
        5,
        "IX, the gap of a, c's two X, the waiting S"
    );
    assert_eq!(
        run(&mut s, B, &insert("a", 0)),
        vec![
            (B, Reply::Err(MysqlError::Deadlock)),
            (
                C,
                Reply::Ok {
                    affected: 1,
                    insert_id: Some(3)
                }
            )
        ]
    );
}

#[test]
fn gap_locks_do_not_conflict_but_block_inserts_into_the_gap() {
    let mut s = server(3);
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, B, &Statement::Begin);
    // Both "hold the lock" on a missing row: FOR UPDATE returns nothing
    // and neither waits (source 003's lock without its row).
    assert_eq!(reply(&mut s, A, &for_update("l")), Reply::Rows(None));
    assert_eq!(reply(&mut s, B, &for_update("l")), Reply::Rows(None));
    // A third connection's insert into the gap waits for both.
    assert!(run(&mut s, C, &insert("l", 0)).is_empty());
    assert_eq!(run(&mut s, A, &Statement::Commit), vec![(A, ok(0))]);
    assert_eq!(
        run(&mut s, B, &Statement::Commit),
        vec![(B, ok(0)), (C, inserted(1))]
    );
}

#[test]
fn two_gap_holders_inserting_deadlock() {
    let mut s = server(2);
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, B, &Statement::Begin);
    reply(&mut s, A, &for_update("l"));
    reply(&mut s, B, &for_update("l"));
    assert!(run(&mut s, A, &insert("l", 0)).is_empty());
    assert_eq!(
        run(&mut s, B, &insert("l", 0)),
        vec![(B, Reply::Err(MysqlError::Deadlock)), (A, inserted(1))]
    );
}

#[test]
fn update_counts_changed_rows_unless_client_found_rows() {
    let sessions = [
        Session::default(),
        Session {
            found_rows: true,
            ..Session::default()
        },
    ];
    let mut s = MysqlServer::new(&sessions);
    reply(&mut s, A, &insert("l", 1));
    // Source 003's unguarded "UPDATE ... SET status = 1": already 1.
    assert_eq!(reply(&mut s, A, &set_status("l", 1)), ok(0));
    assert_eq!(reply(&mut s, B, &set_status("l", 1)), ok(1));
    // The guarded compare-and-set is exact under both.
    assert_eq!(reply(&mut s, A, &cas("l", -1, 1)), ok(0));
    assert_eq!(reply(&mut s, B, &cas("l", -1, 1)), ok(0));
    assert_eq!(reply(&mut s, B, &cas("l", 1, -1)), ok(1));
    let bump = Statement::Update {
        name: n("l"),
        set_status: -1,
        set_version: SetVersion::Bump,
        where_status: None,
        where_version: Some(0),
    };
    assert_eq!(reply(&mut s, A, &bump), ok(1));
    assert_eq!(reply(&mut s, A, &bump), ok(0), "version moved on");
    assert_eq!(reply(&mut s, A, &select("l")), row(1, -1, 1));
}

/// `version = LAST_INSERT_ID(version + 1)`: the OK packet carries the new
/// version where the row matched, 0 where it did not (measured on
/// MariaDB 10.11: 1, then 0, then 2 after a release).
#[test]
fn a_token_update_hands_back_the_version_it_wrote() {
    let mut s = server(2);
    reply(&mut s, A, &insert("l", -1));
    let token_cas = Statement::Update {
        name: n("l"),
        set_status: 1,
        set_version: SetVersion::Token,
        where_status: Some(-1),
        where_version: None,
    };
    let with_id = |affected, id| Reply::Ok {
        affected,
        insert_id: Some(id),
    };
    assert_eq!(reply(&mut s, A, &token_cas), with_id(1, 1));
    assert_eq!(reply(&mut s, B, &token_cas), with_id(0, 0));
    assert_eq!(reply(&mut s, A, &set_status("l", -1)), ok(1));
    assert_eq!(reply(&mut s, B, &token_cas), with_id(1, 2));
    assert_eq!(reply(&mut s, B, &select("l")), row(1, 1, 2));
    assert_eq!(
        token_cas.sql(),
        "UPDATE locks SET status = 1, version = LAST_INSERT_ID(version + 1) WHERE name = 'l' AND status = -1"
    );
}

#[test]
fn update_of_a_non_matching_row_still_locks_it() {
    let mut s = server(2);
    reply(&mut s, A, &insert("l", 1));
    reply(&mut s, A, &Statement::Begin);
    assert_eq!(reply(&mut s, A, &cas("l", -1, 1)), ok(0));
    assert!(run(&mut s, B, &cas("l", 1, -1)).is_empty());
    assert_eq!(
        run(&mut s, A, &Statement::Commit),
        vec![(A, ok(0)), (B, ok(1))]
    );
}

#[test]
fn a_dropped_connection_rolls_back_and_lets_the_waiter_in() {
    let mut s = server(2);
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &insert("l", 0));
    assert!(run(&mut s, B, &insert("l", 0)).is_empty());
    let out = s.disconnect(A);
    assert_eq!(
        out,
        vec![Completion {
            conn: B,
            reply: inserted(2)
        }]
    );
    assert!(!s.in_transaction(A));
    assert_eq!(
        s.execute(A, &select("l")).map(|v| v.len()),
        Ok(1),
        "the slot is a new connection"
    );
}

#[test]
fn a_waiter_on_a_deleted_row_finds_nothing_once_the_delete_commits() {
    let mut s = server(2);
    reply(&mut s, A, &insert("l", 0));
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &delete("l"));
    reply(&mut s, B, &Statement::Begin);
    assert!(run(&mut s, B, &for_update("l")).is_empty());
    assert_eq!(
        run(&mut s, A, &Statement::Commit),
        vec![(A, ok(0)), (B, Reply::Rows(None))]
    );
    // B now holds the gap: an insert of the name waits for it.
    assert!(run(&mut s, A, &insert("l", 0)).is_empty());
}

#[test]
fn a_busy_connection_is_refused() {
    let mut s = server(2);
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &insert("l", 0));
    run(&mut s, B, &insert("l", 0));
    assert_eq!(s.execute(B, &select("l")), Err(Refused::Busy));
    assert_eq!(s.execute(5, &select("l")), Err(Refused::NoConnection));
}

#[test]
fn begin_inside_a_transaction_commits_it() {
    let mut s = server(2);
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &insert("l", 0));
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &Statement::Rollback);
    assert_eq!(reply(&mut s, B, &select("l")), row(1, 0, 0));
}

#[test]
fn a_gap_lock_taken_behind_a_waiting_insert_holds_it_back_too() {
    let mut s = server(3);
    reply(&mut s, A, &Statement::Begin);
    assert_eq!(reply(&mut s, A, &for_update("l")), Reply::Rows(None));
    assert!(run(&mut s, C, &insert("l", 0)).is_empty());
    reply(&mut s, B, &Statement::Begin);
    assert_eq!(
        reply(&mut s, B, &delete("l")),
        ok(0),
        "a gap lock never waits"
    );
    assert_eq!(run(&mut s, A, &Statement::Rollback), vec![(A, ok(0))]);
    assert!(
        s.blocked(C).is_some(),
        "B's gap lock still holds the insert"
    );
    assert_eq!(
        run(&mut s, B, &Statement::Commit),
        vec![(B, ok(0)), (C, inserted(1))]
    );
}

#[test]
fn a_waiting_insert_weighs_its_clustered_row_in_a_deadlock() {
    let mut s = a_waits_for_m_after(&for_update("m"));
    // B's INSERT has written its clustered row when its duplicate check
    // waits for A: B is heavier, so A is the victim, and B then finds the
    // duplicate (as MariaDB 10.11 answered in the conformance test).
    assert_eq!(
        run(&mut s, B, &insert("l", 0)),
        vec![(A, Reply::Err(MysqlError::Deadlock)), (B, dup("l"))]
    );
}

/// What MariaDB 10.11 did on the private server (docs/conformance.md,
/// disagreement 4): an INSERT that waits for a committed row another
/// transaction holds `FOR UPDATE` has its id before it waits; the id is
/// used up whether the wait ends in 1062, a timeout (1205), a `KILL`, or
/// an insert once the holder deletes the row; and a later INSERT of
/// another connection gets the next one.
#[test]
fn a_waiting_insert_has_used_up_its_id_however_its_wait_ends() {
    for end in ["commit", "delete", "timeout", "kill"] {
        let mut s = MysqlServer::new(&[
            Session::default(),
            Session {
                found_rows: false,
                lock_wait_timeout_ms: 1000,
            },
            Session::default(),
        ]);
        assert_eq!(reply(&mut s, A, &insert("a", 0)), inserted(1));
        reply(&mut s, A, &Statement::Begin);
        assert_eq!(reply(&mut s, A, &for_update("a")), row(1, 0, 0));
        assert!(run(&mut s, B, &insert("a", 0)).is_empty(), "B waits");
        assert_eq!(reply(&mut s, C, &insert("c", 0)), inserted(3), "{end}");
        let out = match end {
            "commit" => run(&mut s, A, &Statement::Commit),
            "delete" => {
                reply(&mut s, A, &delete("a"));
                run(&mut s, A, &Statement::Commit)
            }
            "timeout" => s
                .advance(1000)
                .into_iter()
                .map(|c| (c.conn, c.reply))
                .collect(),
            _ => {
                s.disconnect(B);
                Vec::new()
            }
        };
        let b = out.iter().find(|(c, _)| *c == B).map(|(_, r)| r.clone());
        let expected = match end {
            "commit" => Some(dup("a")),
            "delete" => Some(inserted(2)),
            "timeout" => Some(Reply::Err(MysqlError::LockWaitTimeout)),
            _ => None,
        };
        assert_eq!(b, expected, "{end}");
        assert_eq!(reply(&mut s, C, &insert("e", 0)), inserted(4), "{end}");
    }
}

#[test]
fn the_checker_can_forget_the_hour_and_the_ids_nobody_holds() {
    let mut s = MysqlServer::new(&[
        Session::default(),
        Session {
            found_rows: false,
            lock_wait_timeout_ms: 3,
        },
    ]);
    s.preload(&n("l"), -1);
    for _ in 0..5 {
        assert_eq!(reply(&mut s, B, &insert("l", 0)), dup("l"));
    }
    s.advance(100);
    reply(&mut s, A, &Statement::Begin);
    reply(&mut s, A, &for_update("l"));
    assert!(run(&mut s, B, &for_update("l")).is_empty());
    s.advance(1);
    let mut t = s.clone();
    s.renumber_ids();
    s.rebase_time();
    assert_eq!((s.now_ms(), s.table().next_id), (1, 2));
    assert_eq!(s.next_timeout_in(), t.next_timeout_in());
    assert_eq!(s.table().entry(&n("l")).committed.map(|r| r.id), Some(1));
    // The same futures: the wait times out two ms later on both.
    let out = s.advance(2);
    assert_eq!(out, t.advance(2));
    assert_eq!(out[0].reply, Reply::Err(MysqlError::LockWaitTimeout));
}
