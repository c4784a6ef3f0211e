//! The etcd server model's rules, one test each, as etcd states them.

use super::*;

fn put(key: &str, lease: Option<LeaseId>) -> Request {
    Request::Put(request::Put {
        key: key.into(),
        value: String::new(),
        lease,
    })
}

fn apply(s: &mut EtcdServer, r: &Request) -> Reply {
    s.apply(0, r).0
}

/// A new store is at revision 1; each write makes one revision; a read
/// or a delete of nothing makes none; a key keeps its create revision
/// and counts its versions.
#[test]
fn revisions_count_writes_and_keys_keep_their_create_revision() {
    let mut s = EtcdServer::new();
    assert_eq!(s.revision(), 1);
    assert_eq!(apply(&mut s, &put("a", None)), Reply::Put { revision: 2 });
    assert_eq!(apply(&mut s, &put("a", None)), Reply::Put { revision: 3 });
    let a = s.get("a").cloned().expect("a");
    assert_eq!((a.create_revision, a.mod_revision, a.version), (2, 3, 2));
    let del_none = Request::Delete {
        key: "b".into(),
        prefix: false,
    };
    assert_eq!(
        apply(&mut s, &del_none),
        Reply::Deleted {
            revision: 3,
            deleted: 0
        }
    );
    assert_eq!(
        apply(&mut s, &Request::Range(Range::key("a"))).kvs().len(),
        1
    );
    assert_eq!(s.revision(), 3);
}

/// `WithFirstCreate` and `WithLastCreate` + `WithMaxCreateRev` pick by
/// create revision, not by key; the filter applies before the limit.
#[test]
fn ranges_sort_by_create_revision_and_filter_before_the_limit() {
    let mut s = EtcdServer::new();
    for k in ["p/z", "p/a", "p/m"] {
        apply(&mut s, &put(k, None));
    }
    let first = apply(&mut s, &Request::Range(Range::first_create("p/")));
    assert_eq!(first.kvs()[0].key, "p/z");
    let last = apply(&mut s, &Request::Range(Range::last_create_up_to("p/", 3)));
    assert_eq!(last.kvs()[0].key, "p/a");
    let none = apply(&mut s, &Request::Range(Range::last_create_up_to("p/", 1)));
    assert!(none.kvs().is_empty());
}

/// A `Txn` runs one branch at one revision, and its ops see the earlier
/// ops' writes (the Mutex's `Then(put, getOwner)` finds its own key).
#[test]
fn a_txn_runs_one_branch_and_sees_its_own_writes() {
    let mut s = EtcdServer::new();
    let txn = Request::Txn(Txn {
        compare: vec![Compare {
            key: "k".into(),
            cmp: Cmp::Equal,
            target: Target::CreateRevision(0),
        }],
        success: vec![
            Op::Put(request::Put {
                key: "k".into(),
                value: "v".into(),
                lease: None,
            }),
            Op::Get(Range::key("k")),
        ],
        failure: vec![Op::Get(Range::key("k"))],
    });
    let Reply::Txn {
        revision,
        succeeded,
        responses,
    } = apply(&mut s, &txn)
    else {
        panic!("not a txn reply");
    };
    assert!(succeeded);
    assert_eq!(revision, 2);
    assert_eq!(responses[1].kvs()[0].create_revision, 2);
    let Reply::Txn {
        revision,
        succeeded,
        ..
    } = apply(&mut s, &txn)
    else {
        panic!("not a txn reply");
    };
    assert!(!succeeded);
    assert_eq!(
        revision, 2,
        "a failed compare that writes nothing makes no revision"
    );
}

/// A value compare on a missing key fails whatever the operator.
#[test]
fn a_value_compare_on_a_missing_key_fails() {
    let mut s = EtcdServer::new();
    let txn = Request::Txn(Txn {
        compare: vec![Compare {
            key: "k".into(),
            cmp: Cmp::NotEqual,
            target: Target::Value("x".into()),
        }],
        success: vec![],
        failure: vec![],
    });
    assert!(matches!(
        apply(&mut s, &txn),
        Reply::Txn {
            succeeded: false,
            ..
        }
    ));
}

/// A lease not kept alive expires after its TTL and takes its keys in one
/// revision; a put on a lease that is gone fails.
#[test]
fn an_expired_lease_deletes_its_keys_in_one_revision() {
    let mut s = EtcdServer::new();
    let l = LeaseId(0x101);
    assert_eq!(
        apply(&mut s, &Request::Grant { id: l, ttl: 2 }),
        Reply::Granted { id: l, ttl: 2 }
    );
    apply(&mut s, &put("a", Some(l)));
    apply(&mut s, &put("b", Some(l)));
    assert!(s.tick(|_| true).is_empty());
    s.tick(|_| false);
    assert!(s.lease(l).is_some());
    s.tick(|_| false);
    assert!(s.lease(l).is_none());
    assert!(s.get("a").is_none() && s.get("b").is_none());
    assert_eq!(s.revision(), 4);
    assert_eq!(
        apply(&mut s, &put("c", Some(l))),
        Reply::Error(EtcdError::LeaseNotFound)
    );
    assert_eq!(
        apply(&mut s, &Request::KeepAlive(l)),
        Reply::KeptAlive { id: l, ttl: 0 }
    );
}

/// A watch from a revision at or before a delete gets the event at once;
/// a watch without a revision waits for the next delete.
#[test]
fn a_watch_from_an_old_revision_replays_the_delete() {
    let mut s = EtcdServer::new();
    apply(&mut s, &put("k", None));
    let del = Request::Delete {
        key: "k".into(),
        prefix: false,
    };
    apply(&mut s, &del);
    let replay = Request::Watch {
        key: "k".into(),
        from: 2,
    };
    assert!(matches!(apply(&mut s, &replay), Reply::Event(e) if e.revision == 3));
    let now = Request::Watch {
        key: "k".into(),
        from: 0,
    };
    assert_eq!(s.apply(7, &now).0, Reply::Watching);
    apply(&mut s, &put("k", None));
    let (_, fired) = s.apply(0, &del);
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].watcher, 7);
    assert!(!s.watching(7));
}

/// A watch from a compacted revision fails.
#[test]
fn a_watch_from_a_compacted_revision_fails() {
    let mut s = EtcdServer::new();
    apply(&mut s, &put("k", None));
    apply(&mut s, &put("k", None));
    assert_eq!(
        apply(&mut s, &Request::Compact(3)),
        Reply::Compacted { revision: 3 }
    );
    let w = Request::Watch {
        key: "k".into(),
        from: 2,
    };
    assert_eq!(apply(&mut s, &w), Reply::Error(EtcdError::Compacted));
}
