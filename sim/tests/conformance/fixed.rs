//! Fixed cases: the points the model was least sure of, each run on both
//! sides exactly like a generated sequence, so that every run checks them
//! whatever proptest draws. With --nocapture each prints its transcript.

use crate::ops::{self, Action, Sequence, Step, Target, TxnAction};
use locksmith_model::zk::CreateMode;

fn name(path: &str) -> Target {
    Target::Name(
        ops::NAMES
            .iter()
            .position(|n| *n == path)
            .unwrap_or_else(|| panic!("{path:?} is not in ops::NAMES")),
    )
}

fn at(session: usize, action: Action) -> Step {
    Step { session, action }
}

/// `create(parent + child)`: `child` from ops::CHILD_NAMES, or for a
/// sequential mode from ops::SEQ_PREFIXES.
fn create(session: usize, parent: &str, child: &str, mode: CreateMode) -> Step {
    let names = if mode.is_sequential() {
        ops::SEQ_PREFIXES
    } else {
        ops::CHILD_NAMES
    };
    let name = names
        .iter()
        .position(|n| *n == child)
        .unwrap_or_else(|| panic!("{child:?} is not a child name for {mode:?}"));
    at(
        session,
        Action::Create {
            parent: self::name(parent),
            name,
            mode,
            data: b"d".to_vec(),
        },
    )
}

fn delete(session: usize, path: &str) -> Step {
    at(
        session,
        Action::Delete {
            at: name(path),
            version: -1,
        },
    )
}

fn exists(session: usize, path: &str) -> Step {
    at(
        session,
        Action::Exists {
            at: name(path),
            watch: true,
        },
    )
}

fn get_data(session: usize, path: &str) -> Step {
    at(
        session,
        Action::GetData {
            at: name(path),
            watch: true,
        },
    )
}

fn children(session: usize, path: &str) -> Step {
    at(
        session,
        Action::GetChildren {
            at: name(path),
            watch: true,
        },
    )
}

fn set_data(session: usize, target: Target, version: i32) -> Step {
    at(
        session,
        Action::SetData {
            at: target,
            data: b"new".to_vec(),
            version,
        },
    )
}

/// The fixed cases, each with what it shows. Session numbers are 0-based
/// here (s1 is 0).
pub fn fixed_cases() -> Vec<(&'static str, Sequence)> {
    use CreateMode::*;
    let seq = |sessions, steps| Sequence { sessions, steps };
    vec![
        (
            "a delete bumps the parent's cversion; the next sequential suffix does not skip",
            seq(2, vec![
                create(0, "", "a-", PersistentSequential),
                create(0, "", "a-", EphemeralSequential),
                // live#1 is the first child, a-0000000000
                at(0, Action::Delete { at: Target::Live(1), version: -1 }),
                create(0, "", "", PersistentSequential),
                children(1, ""),
                at(1, Action::GetData { at: name(""), watch: false }),
            ]),
        ),
        (
            "a sequential create whose name is taken fails with NodeExists; the counter stays",
            seq(2, vec![
                create(0, "", "a-0000000001", Persistent),
                create(0, "", "a-", PersistentSequential),
                create(0, "", "a-", PersistentSequential),
                children(1, ""),
            ]),
        ),
        (
            "failed writes, session creation and close each consume a zxid",
            seq(3, vec![
                create(0, "", "a", Persistent),
                create(0, "", "a", Persistent),                     // NodeExists
                delete(0, "b"),                                     // NoNode
                set_data(0, name("a"), 7),                          // BadVersion
                create(0, "a/x", "x", Persistent),                  // NoNode (no parent)
                at(2, Action::Close),
                create(1, "", "b", Persistent),
                at(1, Action::GetData { at: name("b"), watch: false }),
            ]),
        ),
        (
            "containers: ephemeralOwner 0, read like any node, reaped once emptied",
            seq(2, vec![
                create(0, "", "a", Container),
                at(0, Action::Exists { at: name("a"), watch: false }),
                at(0, Action::GetData { at: name("a"), watch: false }),
                at(0, Action::GetChildren { at: name("a"), watch: false }),
                create(0, "a", "x", Ephemeral),
                exists(1, "a"),
                children(1, "a"),
                children(1, ""),
                delete(0, "a/x"),
                exists(1, "a"),
            ]),
        ),
        (
            "a container inside a container: the outer one goes in a later reaper pass",
            seq(2, vec![
                create(0, "", "a", Container),
                create(0, "a", "x", Container),
                create(0, "a/x", "x", Persistent),
                exists(1, "a"),
                exists(1, "a/x"),
                delete(0, "a/x"), // NotEmpty: a/x has a child
                at(0, Action::Delete { at: Target::Live(3), version: -1 }), // a/x/x
            ]),
        ),
        (
            "a multi that deletes a container and creates its path again: the new node stays (the observer's watch fires for the delete, not a reap)",
            seq(2, vec![
                create(0, "", "x", Container),
                exists(1, "x"),
                at(0, Action::Multi(vec![
                    TxnAction::Delete { at: name("x"), version: -1 },
                    TxnAction::Create { parent: name(""), name: 2, mode: Ephemeral, data: b"d".to_vec() },
                ])),
                create(1, "", "a", Container),
                at(0, Action::Multi(vec![
                    TxnAction::Delete { at: name("a"), version: -1 },
                    TxnAction::Create { parent: name(""), name: 0, mode: Container, data: b"d".to_vec() },
                ])),
                create(0, "a", "x", Ephemeral),
                delete(0, "a/x"),
                exists(1, "x"),
                at(1, Action::GetData { at: name("x"), watch: false }),
                at(1, Action::GetChildren { at: name(""), watch: false }),
            ]),
        ),
        (
            "one delete, several watches: NodeDeleted (data and child watch, once) before the parent's NodeChildrenChanged",
            seq(3, vec![
                create(0, "", "a", Persistent),
                create(0, "a", "x", Persistent),
                exists(1, "a/x"),
                get_data(1, "a/x"),
                children(1, "a/x"),
                children(1, "a"),
                children(2, "a"),
                exists(2, "a/x"),
                delete(0, "a/x"),
            ]),
        ),
        (
            "exists on a missing node watches for NodeCreated; getData on one sets no watch",
            seq(2, vec![
                exists(1, "a"),
                exists(1, "a"),
                get_data(1, "b"),
                create(0, "", "a", Persistent),
                create(0, "", "b", Persistent),
                exists(1, "a"),
                get_data(1, "a"),
                set_data(0, name("a"), -1),
            ]),
        ),
        (
            "a close deletes all the session's ephemerals in one transaction",
            seq(3, vec![
                create(0, "", "a", Persistent),
                create(0, "", "b", Persistent),
                create(1, "a", "x", Ephemeral),
                create(1, "b", "x", Ephemeral),
                create(1, "", "x", Ephemeral),
                exists(0, "a/x"),
                exists(0, "b/x"),
                children(0, "a"),
                children(0, ""),
                exists(2, "b/x"),
                at(1, Action::Close),
                at(0, Action::GetChildren { at: name(""), watch: false }),
            ]),
        ),
        (
            "a closing client still gets what its own close fires (set aside: simplification)",
            seq(2, vec![
                create(0, "", "a", Persistent),
                create(0, "a", "x", Ephemeral),
                exists(0, "a/x"),
                children(0, "a"),
                exists(1, "a/x"),
                at(0, Action::Close),
            ]),
        ),
        (
            "a cut connection takes its watches; on reconnect SetWatches fires what changed meanwhile (data, deleted, created, children) and sets the rest again",
            seq(2, vec![
                create(0, "", "a", Persistent),
                create(0, "", "b", Persistent),
                create(0, "", "x", Persistent),
                get_data(1, "a"),
                get_data(1, "b"),
                exists(1, "a/x"),
                children(1, ""),
                get_data(1, "x"),
                at(1, Action::Cut),
                set_data(0, name("a"), -1),
                delete(0, "b"),
                create(0, "a", "x", Persistent),
                // s2's next request reconnects it first
                at(1, Action::Exists { at: name("x"), watch: false }),
                set_data(0, name("x"), -1),
            ]),
        ),
        (
            "expiry: the session's ephemerals go in one transaction, watchers are told",
            seq(2, vec![
                create(0, "", "a", Container),
                create(0, "a", "x", Ephemeral),
                create(0, "", "x", Ephemeral),
                exists(1, "a/x"),
                children(1, ""),
                exists(1, "a"),
                exists(0, "x"),
                at(0, Action::Expire),
                create(1, "", "x", Ephemeral),
                at(1, Action::GetData { at: name(""), watch: false }),
            ]),
        ),
    ]
}
