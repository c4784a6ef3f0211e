//! Regression tests for the model fixes that the differential conformance
//! test (sim/tests/conformance/, run against a real ZooKeeper 3.8.0) led
//! to. Each test names what the real server showed.

use locksmith_model::zk::{
    CreateMode, EventType, Op, OpResult, Service, SessionId, WatchedEvent, ZkServer,
};

fn create(zk: &mut ZkServer, s: SessionId, path: &str, mode: CreateMode) {
    let out = zk.handle(
        s,
        &Op::Create {
            path: path.into(),
            data: Vec::new(),
            mode,
        },
    );
    assert!(
        matches!(out.reply, Ok(OpResult::Created(_))),
        "{path}: {:?}",
        out.reply
    );
}

fn delete(zk: &mut ZkServer, s: SessionId, path: &str) {
    let out = zk.handle(
        s,
        &Op::Delete {
            path: path.into(),
            version: -1,
        },
    );
    assert_eq!(out.reply, Ok(OpResult::Deleted), "{path}");
}

/// Two emptied containers `/a` and `/b`, a session watching both and their
/// parent's children.
fn two_reapable_containers() -> (ZkServer, SessionId) {
    let mut zk = ZkServer::new();
    let s = zk.open_session();
    for c in ["/a", "/b"] {
        create(&mut zk, s, c, CreateMode::Container);
        create(&mut zk, s, &format!("{c}/x"), CreateMode::Persistent);
        delete(&mut zk, s, &format!("{c}/x"));
        zk.handle(
            s,
            &Op::Exists {
                path: c.into(),
                watch: true,
            },
        );
    }
    (zk, s)
}

/// Seen on the real server: when several containers are due at once, its
/// `ContainerManager` deletes them in the order of its container set (not
/// path order), each in its own transaction. `reap_container` lets a driver
/// follow that order; the zxids and notifications are then the server's.
#[test]
fn reap_container_takes_one_due_container_in_its_own_transaction() {
    let (mut zk, s) = two_reapable_containers();
    let before = zk.zxid();

    let events = zk.reap_container("/b");
    assert_eq!(zk.zxid(), before + 1);
    assert!(zk.node("/b").is_none());
    assert!(zk.node("/a").is_some(), "only the named container goes");
    assert_eq!(zk.node("/").unwrap().stat.pzxid, before + 1);
    assert_eq!(
        events,
        vec![(
            s,
            WatchedEvent {
                kind: EventType::NodeDeleted,
                path: "/b".into()
            }
        )]
    );

    let events = zk.reap_container("/a");
    assert_eq!(zk.zxid(), before + 2);
    assert!(zk.node("/a").is_none());
    assert_eq!(zk.node("/").unwrap().stat.pzxid, before + 2);
    assert_eq!(events.len(), 1);
    assert!(!zk.has_reapable_containers());
}

/// A container that is not due (never had a child, or has one now) and a
/// node that is not a container are left alone, and no zxid is spent.
#[test]
fn reap_container_leaves_what_is_not_due() {
    let mut zk = ZkServer::new();
    let s = zk.open_session();
    create(&mut zk, s, "/fresh", CreateMode::Container);
    create(&mut zk, s, "/full", CreateMode::Container);
    create(&mut zk, s, "/full/x", CreateMode::Persistent);
    create(&mut zk, s, "/plain", CreateMode::Persistent);
    create(&mut zk, s, "/plain/x", CreateMode::Persistent);
    delete(&mut zk, s, "/plain/x");
    let before = zk.zxid();
    for p in ["/fresh", "/full", "/plain", "/missing"] {
        assert!(zk.reap_container(p).is_empty(), "{p}");
    }
    assert_eq!(zk.zxid(), before);
    for p in ["/fresh", "/full", "/plain"] {
        assert!(zk.node(p).is_some(), "{p}");
    }
}

/// One at a time or in a pass, the same containers go: `reap_containers`
/// is a pass of `reap_container` in path order.
#[test]
fn reaping_one_by_one_ends_where_a_pass_ends() {
    let (mut pass, _) = two_reapable_containers();
    let (mut single, _) = two_reapable_containers();
    pass.reap_containers();
    single.reap_container("/a");
    single.reap_container("/b");
    assert_eq!(pass, single);
}
