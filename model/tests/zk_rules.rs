//! One test per ZooKeeper 3.8 rule the model must keep.
//!
//! Where this file and folklore disagree, the file follows the real server:
//! every rule here was checked against ZooKeeper 3.8's source
//! (`DataTree`, `DataNode`, `PrepRequestProcessor`, `WatchManager`,
//! `ContainerManager`) and, for the less obvious ones (sequence numbers
//! after deletes, a container's `ephemeralOwner`, zxids of failed writes,
//! `create("/", PERSISTENT_SEQUENTIAL)`), against a running 3.8.0 server.

use locksmith_model::zk::{
    CreateMode, EventType, Op, OpResult, Service, SessionId, Stat, WatchedEvent, ZkError, ZkServer,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A server with `n` open sessions.
fn server(n: usize) -> (ZkServer, Vec<SessionId>) {
    let mut zk = ZkServer::new();
    let sessions = (0..n).map(|_| zk.open_session()).collect();
    (zk, sessions)
}

fn create_with(
    zk: &mut ZkServer,
    s: SessionId,
    path: &str,
    data: &[u8],
    mode: CreateMode,
) -> Result<String, ZkError> {
    let op = Op::Create {
        path: path.into(),
        data: data.to_vec(),
        mode,
    };
    match zk.handle(s, &op).reply {
        Ok(OpResult::Created(p)) => Ok(p.to_string()),
        Ok(other) => panic!("create({path}) replied {other:?}"),
        Err(e) => Err(e),
    }
}

fn create(
    zk: &mut ZkServer,
    s: SessionId,
    path: &str,
    mode: CreateMode,
) -> Result<String, ZkError> {
    create_with(zk, s, path, b"", mode)
}

fn delete(zk: &mut ZkServer, s: SessionId, path: &str, version: i32) -> Result<(), ZkError> {
    let op = Op::Delete {
        path: path.into(),
        version,
    };
    zk.handle(s, &op)
        .reply
        .map(|r| assert_eq!(r, OpResult::Deleted))
}

fn set_data(
    zk: &mut ZkServer,
    s: SessionId,
    path: &str,
    data: &[u8],
    version: i32,
) -> Result<Stat, ZkError> {
    let op = Op::SetData {
        path: path.into(),
        data: data.to_vec(),
        version,
    };
    match zk.handle(s, &op).reply {
        Ok(OpResult::SetData(stat)) => Ok(stat),
        Ok(other) => panic!("setData({path}) replied {other:?}"),
        Err(e) => Err(e),
    }
}

fn exists(zk: &mut ZkServer, s: SessionId, path: &str, watch: bool) -> Option<Stat> {
    let op = Op::Exists {
        path: path.into(),
        watch,
    };
    match zk.handle(s, &op).reply {
        Ok(OpResult::Exists(stat)) => stat,
        other => panic!("exists({path}) replied {other:?}"),
    }
}

fn get_data(
    zk: &mut ZkServer,
    s: SessionId,
    path: &str,
    watch: bool,
) -> Result<(Vec<u8>, Stat), ZkError> {
    let op = Op::GetData {
        path: path.into(),
        watch,
    };
    match zk.handle(s, &op).reply {
        Ok(OpResult::GetData { data, stat }) => Ok((data, stat)),
        Ok(other) => panic!("getData({path}) replied {other:?}"),
        Err(e) => Err(e),
    }
}

fn get_children(
    zk: &mut ZkServer,
    s: SessionId,
    path: &str,
    watch: bool,
) -> Result<(Vec<String>, Stat), ZkError> {
    let op = Op::GetChildren {
        path: path.into(),
        watch,
    };
    match zk.handle(s, &op).reply {
        Ok(OpResult::GetChildren { children, stat }) => {
            Ok((children.iter().map(|c| c.to_string()).collect(), stat))
        }
        Ok(other) => panic!("getChildren({path}) replied {other:?}"),
        Err(e) => Err(e),
    }
}

/// Handles `op` and returns only the notifications it caused.
fn events_of(zk: &mut ZkServer, s: SessionId, op: Op) -> Vec<(SessionId, WatchedEvent)> {
    let out = zk.handle(s, &op);
    assert!(out.reply.is_ok(), "{op} failed: {:?}", out.reply);
    out.events
}

fn ev(session: SessionId, kind: EventType, path: &str) -> (SessionId, WatchedEvent) {
    (
        session,
        WatchedEvent {
            kind,
            path: path.into(),
        },
    )
}

fn stat(zk: &ZkServer, path: &str) -> Stat {
    zk.node(path)
        .unwrap_or_else(|| panic!("{path} missing"))
        .stat
}

fn op_create(path: &str, mode: CreateMode) -> Op {
    Op::Create {
        path: path.into(),
        data: Vec::new(),
        mode,
    }
}

fn op_delete(path: &str) -> Op {
    Op::Delete {
        path: path.into(),
        version: -1,
    }
}

fn op_set(path: &str) -> Op {
    Op::SetData {
        path: path.into(),
        data: b"x".to_vec(),
        version: -1,
    }
}

use CreateMode::{Container, Ephemeral, EphemeralSequential, Persistent, PersistentSequential};

// ---------------------------------------------------------------------------
// Stat fields
// ---------------------------------------------------------------------------

#[test]
fn create_sets_czxid_mzxid_pzxid_to_its_zxid_and_counters_to_zero() {
    let (mut zk, s) = server(1);
    create_with(&mut zk, s[0], "/a", b"hello", Persistent).unwrap();
    let z = zk.zxid();
    assert_eq!(
        stat(&zk, "/a"),
        Stat {
            czxid: z,
            mzxid: z,
            pzxid: z,
            version: 0,
            cversion: 0,
            ephemeral_owner: 0,
            data_length: 5,
            num_children: 0,
        }
    );
}

#[test]
fn create_bumps_parent_cversion_num_children_and_pzxid_but_not_its_mzxid() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    let p0 = stat(&zk, "/p");
    create(&mut zk, s[0], "/p/a", Persistent).unwrap();
    let z = zk.zxid();
    let p1 = stat(&zk, "/p");
    assert_eq!(p1.cversion, 1);
    assert_eq!(p1.num_children, 1);
    assert_eq!(p1.pzxid, z);
    assert_eq!(p1.mzxid, p0.mzxid, "a child create is not a data change");
    assert_eq!(p1.version, 0);
    assert_eq!(p1.czxid, p0.czxid);
}

#[test]
fn set_data_bumps_version_mzxid_and_data_length_only() {
    let (mut zk, s) = server(1);
    create_with(&mut zk, s[0], "/a", b"1", Persistent).unwrap();
    let before = stat(&zk, "/a");
    let reply = set_data(&mut zk, s[0], "/a", b"four", -1).unwrap();
    let after = stat(&zk, "/a");
    assert_eq!(reply, after, "setData replies with the new stat");
    assert_eq!(after.version, 1);
    assert_eq!(after.mzxid, zk.zxid());
    assert_eq!(after.data_length, 4);
    assert_eq!(after.czxid, before.czxid);
    assert_eq!(after.pzxid, before.pzxid);
    assert_eq!(after.cversion, before.cversion);
    assert_eq!(get_data(&mut zk, s[0], "/a", false).unwrap().0, b"four");
    set_data(&mut zk, s[0], "/a", b"", 1).unwrap();
    assert_eq!(stat(&zk, "/a").version, 2);
    assert_eq!(stat(&zk, "/a").data_length, 0);
}

#[test]
fn delete_bumps_parent_cversion_and_pzxid_and_lowers_num_children() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    create(&mut zk, s[0], "/p/a", Persistent).unwrap();
    create(&mut zk, s[0], "/p/b", Persistent).unwrap();
    delete(&mut zk, s[0], "/p/a", -1).unwrap();
    let p = stat(&zk, "/p");
    assert_eq!(p.num_children, 1);
    // cversion is the number of changes to the children: 2 creates + 1 delete.
    assert_eq!(p.cversion, 3);
    assert_eq!(p.pzxid, zk.zxid());
    assert_eq!(p.version, 0);
    assert!(zk.node("/p/a").is_none());
}

#[test]
fn ephemeral_owner_is_the_owning_session_for_ephemerals_and_zero_otherwise() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    create(&mut zk, s[1], "/e", Ephemeral).unwrap();
    let es = create(&mut zk, s[1], "/es-", EphemeralSequential).unwrap();
    let ps = create(&mut zk, s[1], "/ps-", PersistentSequential).unwrap();
    // A real server stores a container's owner as
    // CONTAINER_EPHEMERAL_OWNER but reports 0 (DataNode.getClientEphemeralOwner).
    create(&mut zk, s[1], "/c", Container).unwrap();
    assert_eq!(stat(&zk, "/p").ephemeral_owner, 0);
    assert_eq!(stat(&zk, "/e").ephemeral_owner, i64::from(s[1].0));
    assert_eq!(stat(&zk, &es).ephemeral_owner, i64::from(s[1].0));
    assert_eq!(stat(&zk, &ps).ephemeral_owner, 0);
    assert_eq!(stat(&zk, "/c").ephemeral_owner, 0);
}

#[test]
fn reads_return_the_stored_stat_and_data() {
    let (mut zk, s) = server(1);
    create_with(&mut zk, s[0], "/a", b"abc", Persistent).unwrap();
    create(&mut zk, s[0], "/a/x", Persistent).unwrap();
    let st = stat(&zk, "/a");
    assert_eq!(exists(&mut zk, s[0], "/a", false), Some(st));
    assert_eq!(
        get_data(&mut zk, s[0], "/a", false),
        Ok((b"abc".to_vec(), st))
    );
    assert_eq!(
        get_children(&mut zk, s[0], "/a", false),
        Ok((vec!["x".to_string()], st))
    );
    assert_eq!(st.num_children, 1);
    assert_eq!(st.data_length, 3);
}

#[test]
fn exists_on_a_missing_node_succeeds_with_no_stat() {
    let (mut zk, s) = server(1);
    assert_eq!(exists(&mut zk, s[0], "/nope", false), None);
    assert_eq!(exists(&mut zk, s[0], "/nope/deeper", false), None);
}

#[test]
fn get_children_lists_only_direct_children_sorted() {
    let (mut zk, s) = server(1);
    for p in ["/a", "/a/b", "/a/b/c", "/a/a", "/ab"] {
        create(&mut zk, s[0], p, Persistent).unwrap();
    }
    let (children, st) = get_children(&mut zk, s[0], "/a", false).unwrap();
    assert_eq!(children, vec!["a".to_string(), "b".to_string()]);
    assert_eq!(st.num_children, 2);
    let (root, _) = get_children(&mut zk, s[0], "/", false).unwrap();
    assert_eq!(root, vec!["a".to_string(), "ab".to_string()]);
}

// ---------------------------------------------------------------------------
// Create modes and the sequential suffix
// ---------------------------------------------------------------------------

#[test]
fn persistent_nodes_outlive_their_session() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    let ps = create(&mut zk, s[0], "/ps-", PersistentSequential).unwrap();
    zk.expire(s[0]);
    assert!(zk.node("/p").is_some());
    assert!(zk.node(&ps).is_some());
}

#[test]
fn ephemeral_nodes_die_with_their_session() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/e", Ephemeral).unwrap();
    let es = create(&mut zk, s[0], "/es-", EphemeralSequential).unwrap();
    create(&mut zk, s[1], "/other", Ephemeral).unwrap();
    zk.expire(s[0]);
    assert!(zk.node("/e").is_none());
    assert!(zk.node(&es).is_none());
    assert!(
        zk.node("/other").is_some(),
        "another session's ephemeral stays"
    );
}

#[test]
fn sequential_suffix_is_the_parents_child_create_count_formatted_010d() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/lock", Persistent).unwrap();
    assert_eq!(
        create(&mut zk, s[0], "/lock/n-", EphemeralSequential).unwrap(),
        "/lock/n-0000000000"
    );
    assert_eq!(
        create(&mut zk, s[0], "/lock/n-", PersistentSequential).unwrap(),
        "/lock/n-0000000001"
    );
    // Every create counts, sequential or not, whatever the prefix.
    create(&mut zk, s[0], "/lock/plain", Persistent).unwrap();
    assert_eq!(
        create(&mut zk, s[0], "/lock/other-", PersistentSequential).unwrap(),
        "/lock/other-0000000003"
    );
    assert_eq!(stat(&zk, "/lock").cversion, 4);
}

/// A real 3.8 server keeps the number of child *creates* as the persisted
/// cversion and takes the suffix from it; the cversion a client reads is
/// `2 * creates - numChildren` (creates plus deletes). So a delete shows in
/// `cversion` but does not make the next suffix skip.
#[test]
fn sequential_suffix_does_not_skip_after_a_delete_though_cversion_counts_it() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/lock", Persistent).unwrap();
    let n0 = create(&mut zk, s[0], "/lock/n-", PersistentSequential).unwrap();
    assert_eq!(n0, "/lock/n-0000000000");
    delete(&mut zk, s[0], &n0, -1).unwrap();
    assert_eq!(
        stat(&zk, "/lock").cversion,
        2,
        "the delete is a child change"
    );
    let n1 = create(&mut zk, s[0], "/lock/n-", PersistentSequential).unwrap();
    assert_eq!(n1, "/lock/n-0000000001");
    // Observed on ZooKeeper 3.8.0: n-0, n-1, n-2 created, n-1 and n-2
    // deleted, then the next is n-3 while cversion reads 7 after it.
    let n2 = create(&mut zk, s[0], "/lock/n-", PersistentSequential).unwrap();
    delete(&mut zk, s[0], &n1, -1).unwrap();
    delete(&mut zk, s[0], &n2, -1).unwrap();
    assert_eq!(
        create(&mut zk, s[0], "/lock/n-", PersistentSequential).unwrap(),
        "/lock/n-0000000003"
    );
    assert_eq!(stat(&zk, "/lock").cversion, 7);
    assert_eq!(zk.node("/lock").unwrap().next_sequence(), 4);
}

#[test]
fn sequential_suffixes_count_per_parent() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    create(&mut zk, s[0], "/b", Persistent).unwrap();
    create(&mut zk, s[0], "/a/x", Persistent).unwrap();
    assert_eq!(
        create(&mut zk, s[0], "/a/n-", PersistentSequential).unwrap(),
        "/a/n-0000000001"
    );
    assert_eq!(
        create(&mut zk, s[0], "/b/n-", PersistentSequential).unwrap(),
        "/b/n-0000000000"
    );
}

#[test]
fn sequential_path_may_end_in_a_slash_even_at_the_root() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/q", Persistent).unwrap();
    assert_eq!(
        create(&mut zk, s[0], "/q/", PersistentSequential).unwrap(),
        "/q/0000000000"
    );
    // The root's counter has seen `/q` only (the model has no /zookeeper node).
    assert_eq!(
        create(&mut zk, s[0], "/", PersistentSequential).unwrap(),
        "/0000000001"
    );
    assert_eq!(
        create(&mut zk, s[0], "/q/", Persistent),
        Err(ZkError::BadArguments)
    );
    // The path is checked before its parent is looked for
    // (`PrepRequestProcessor` validates it first): not NoNode.
    assert_eq!(
        create(&mut zk, s[0], "/missing/", Persistent),
        Err(ZkError::BadArguments)
    );
}

#[test]
fn a_sequential_name_that_is_taken_is_node_exists() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/lock", Persistent).unwrap();
    create(&mut zk, s[0], "/lock/n-0000000001", Persistent).unwrap();
    assert_eq!(
        create(&mut zk, s[0], "/lock/n-", PersistentSequential),
        Err(ZkError::NodeExists)
    );
    assert_eq!(
        stat(&zk, "/lock").cversion,
        1,
        "a failed create changes nothing"
    );
}

#[test]
fn containers_are_persistent_nodes_that_may_have_children() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/c", Container).unwrap();
    create(&mut zk, s[0], "/c/e", Ephemeral).unwrap();
    create(&mut zk, s[0], "/c/c", Container).unwrap();
    zk.expire(s[0]);
    assert!(
        zk.node("/c").is_some(),
        "a container is not owned by its creator"
    );
    assert_eq!(zk.node("/c").unwrap().mode, Container);
}

#[test]
fn reaping_deletes_only_containers_that_had_a_child_and_have_none() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/never", Container).unwrap();
    create(&mut zk, s[0], "/used", Container).unwrap();
    create(&mut zk, s[0], "/full", Container).unwrap();
    create(&mut zk, s[0], "/plain", Persistent).unwrap();
    create(&mut zk, s[0], "/full/k", Persistent).unwrap();
    create(&mut zk, s[0], "/used/x", Persistent).unwrap();
    create(&mut zk, s[0], "/plain/x", Persistent).unwrap();
    delete(&mut zk, s[0], "/used/x", -1).unwrap();
    delete(&mut zk, s[0], "/plain/x", -1).unwrap();
    assert!(zk.has_reapable_containers());
    zk.reap_containers();
    assert!(zk.node("/never").is_some(), "never used: stays");
    assert!(zk.node("/used").is_none(), "used and empty: reaped");
    assert!(zk.node("/full").is_some(), "has a child: stays");
    assert!(zk.node("/plain").is_some(), "not a container: stays");
    assert!(!zk.has_reapable_containers());
    assert!(zk.reap_containers().is_empty());
}

#[test]
fn reaping_fires_watches_and_gives_each_container_its_own_zxid() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/c1", Container).unwrap();
    create(&mut zk, s[0], "/c2", Container).unwrap();
    for c in ["/c1", "/c2"] {
        let child = format!("{c}/x");
        create(&mut zk, s[0], &child, Ephemeral).unwrap();
    }
    zk.expire(s[0]);
    exists(&mut zk, s[1], "/c1", true);
    get_children(&mut zk, s[1], "/", true).unwrap();
    let z = zk.zxid();
    let events = zk.reap_containers();
    assert_eq!(
        zk.zxid(),
        z + 2,
        "one deleteContainer transaction per container"
    );
    assert_eq!(
        events,
        vec![
            ev(s[1], EventType::NodeDeleted, "/c1"),
            ev(s[1], EventType::NodeChildrenChanged, "/"),
        ]
    );
    assert!(zk.node("/c1").is_none() && zk.node("/c2").is_none());
}

#[test]
fn reaping_a_container_can_make_its_parent_container_reapable_next_pass() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/outer", Container).unwrap();
    create(&mut zk, s[0], "/outer/inner", Container).unwrap();
    create(&mut zk, s[0], "/outer/inner/x", Ephemeral).unwrap();
    zk.expire(s[0]);
    zk.reap_containers();
    assert!(zk.node("/outer/inner").is_none());
    assert!(
        zk.node("/outer").is_some(),
        "candidates are chosen before the pass"
    );
    zk.reap_containers();
    assert!(zk.node("/outer").is_none());
}

// ---------------------------------------------------------------------------
// Error codes
// ---------------------------------------------------------------------------

#[test]
fn error_codes_are_keeper_exception_codes() {
    assert_eq!(ZkError::ConnectionLoss.code(), -4);
    assert_eq!(ZkError::BadArguments.code(), -8);
    assert_eq!(ZkError::NoNode.code(), -101);
    assert_eq!(ZkError::BadVersion.code(), -103);
    assert_eq!(ZkError::NoChildrenForEphemerals.code(), -108);
    assert_eq!(ZkError::NodeExists.code(), -110);
    assert_eq!(ZkError::NotEmpty.code(), -111);
    assert_eq!(ZkError::SessionExpired.code(), -112);
    assert_eq!(ZkError::RuntimeInconsistency.code(), -2);
    assert_eq!(ZkError::NoWatcher.code(), -121);
}

#[test]
fn ephemerals_cannot_have_children() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/e", Ephemeral).unwrap();
    for mode in [
        Persistent,
        PersistentSequential,
        Ephemeral,
        EphemeralSequential,
        Container,
    ] {
        assert_eq!(
            create(&mut zk, s[1], "/e/x", mode),
            Err(ZkError::NoChildrenForEphemerals),
            "{mode:?}"
        );
    }
    assert_eq!(stat(&zk, "/e").num_children, 0);
    assert_eq!(stat(&zk, "/e").cversion, 0);
}

#[test]
fn create_under_a_missing_parent_is_no_node() {
    let (mut zk, s) = server(1);
    assert_eq!(
        create(&mut zk, s[0], "/a/b", Persistent),
        Err(ZkError::NoNode)
    );
    assert_eq!(
        create(&mut zk, s[0], "/a/n-", EphemeralSequential),
        Err(ZkError::NoNode)
    );
    assert!(zk.node("/a").is_none());
}

#[test]
fn create_of_an_existing_path_is_node_exists_and_leaves_it_alone() {
    let (mut zk, s) = server(2);
    create_with(&mut zk, s[0], "/a", b"first", Persistent).unwrap();
    let before = zk.node("/a").unwrap().clone();
    assert_eq!(
        create_with(&mut zk, s[1], "/a", b"second", Ephemeral),
        Err(ZkError::NodeExists)
    );
    assert_eq!(zk.node("/a"), Some(&before));
}

#[test]
fn delete_and_set_data_of_a_missing_node_are_no_node() {
    let (mut zk, s) = server(1);
    assert_eq!(delete(&mut zk, s[0], "/nope", -1), Err(ZkError::NoNode));
    assert_eq!(
        set_data(&mut zk, s[0], "/nope", b"x", -1),
        Err(ZkError::NoNode)
    );
    assert_eq!(
        get_data(&mut zk, s[0], "/nope", false),
        Err(ZkError::NoNode)
    );
    assert_eq!(
        get_children(&mut zk, s[0], "/nope", false),
        Err(ZkError::NoNode)
    );
}

#[test]
fn delete_of_a_node_with_children_is_not_empty() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    create(&mut zk, s[0], "/a/b", Persistent).unwrap();
    assert_eq!(delete(&mut zk, s[0], "/a", -1), Err(ZkError::NotEmpty));
    assert!(zk.node("/a").is_some());
}

/// The root, and any path `PathUtils.validatePath` refuses, are refused
/// before any lookup, even when the node the path seems to name exists.
#[test]
fn delete_of_the_root_or_an_invalid_path_is_bad_arguments() {
    let (mut zk, s) = server(1);
    assert_eq!(delete(&mut zk, s[0], "/", -1), Err(ZkError::BadArguments));
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    for bad in ["/a/", "/a/.", "a"] {
        assert_eq!(
            delete(&mut zk, s[0], bad, -1),
            Err(ZkError::BadArguments),
            "{bad}"
        );
    }
    assert!(zk.node("/a").is_some());
}

#[test]
fn delete_with_a_wrong_version_is_bad_version() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    set_data(&mut zk, s[0], "/a", b"x", 0).unwrap();
    assert_eq!(delete(&mut zk, s[0], "/a", 0), Err(ZkError::BadVersion));
    assert_eq!(delete(&mut zk, s[0], "/a", 2), Err(ZkError::BadVersion));
    assert!(zk.node("/a").is_some());
    delete(&mut zk, s[0], "/a", 1).unwrap();
    assert!(zk.node("/a").is_none());
}

#[test]
fn bad_version_is_checked_before_not_empty() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    create(&mut zk, s[0], "/a/b", Persistent).unwrap();
    assert_eq!(delete(&mut zk, s[0], "/a", 7), Err(ZkError::BadVersion));
    assert_eq!(delete(&mut zk, s[0], "/a", 0), Err(ZkError::NotEmpty));
}

#[test]
fn set_data_with_a_wrong_version_is_bad_version() {
    let (mut zk, s) = server(1);
    create_with(&mut zk, s[0], "/a", b"v0", Persistent).unwrap();
    assert_eq!(
        set_data(&mut zk, s[0], "/a", b"v1", 1),
        Err(ZkError::BadVersion)
    );
    assert_eq!(stat(&zk, "/a").version, 0);
    assert_eq!(zk.node("/a").unwrap().data, b"v0");
    assert_eq!(set_data(&mut zk, s[0], "/a", b"v1", 0).unwrap().version, 1);
    assert_eq!(
        set_data(&mut zk, s[0], "/a", b"v2", 0),
        Err(ZkError::BadVersion)
    );
}

#[test]
fn version_minus_one_matches_any_version() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    for _ in 0..3 {
        set_data(&mut zk, s[0], "/a", b"x", -1).unwrap();
    }
    assert_eq!(stat(&zk, "/a").version, 3);
    delete(&mut zk, s[0], "/a", -1).unwrap();
}

#[test]
fn every_request_after_expiry_is_session_expired() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[1], "/a", Persistent).unwrap();
    zk.expire(s[0]);
    assert!(!zk.is_alive(s[0]));
    let before = zk.clone();
    for op in all_ops("/a") {
        let out = zk.handle(s[0], &op);
        assert_eq!(out.reply, Err(ZkError::SessionExpired), "{op}");
        assert!(out.events.is_empty());
    }
    assert_eq!(zk, before, "a dead session's requests change nothing");
}

#[test]
fn every_request_after_close_is_session_expired() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[1], "/a", Persistent).unwrap();
    assert_eq!(
        zk.handle(s[0], &Op::CloseSession).reply,
        Ok(OpResult::Closed)
    );
    assert!(!zk.is_alive(s[0]));
    let before = zk.clone();
    for op in all_ops("/a") {
        assert_eq!(
            zk.handle(s[0], &op).reply,
            Err(ZkError::SessionExpired),
            "{op}"
        );
    }
    assert_eq!(zk, before);
}

fn all_ops(path: &str) -> Vec<Op> {
    vec![
        op_create(&format!("{path}/x"), Persistent),
        op_create(&format!("{path}/e"), Ephemeral),
        op_delete(path),
        op_set(path),
        Op::Exists {
            path: path.into(),
            watch: true,
        },
        Op::GetData {
            path: path.into(),
            watch: true,
        },
        Op::GetChildren {
            path: path.into(),
            watch: true,
        },
        Op::CloseSession,
    ]
}

// ---------------------------------------------------------------------------
// zxids
// ---------------------------------------------------------------------------

#[test]
fn every_write_is_one_transaction_and_reads_are_none() {
    let (mut zk, s) = server(1);
    let z0 = zk.zxid();
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    assert_eq!(zk.zxid(), z0 + 1);
    set_data(&mut zk, s[0], "/a", b"x", -1).unwrap();
    assert_eq!(zk.zxid(), z0 + 2);
    exists(&mut zk, s[0], "/a", true);
    get_data(&mut zk, s[0], "/a", true).unwrap();
    get_children(&mut zk, s[0], "/a", true).unwrap();
    get_data(&mut zk, s[0], "/nope", false).unwrap_err();
    assert_eq!(zk.zxid(), z0 + 2, "reads take no zxid");
    delete(&mut zk, s[0], "/a", -1).unwrap();
    assert_eq!(zk.zxid(), z0 + 3);
}

/// Observed on ZooKeeper 3.8.0 too: create `/z1` (zxid 14), create `/z1`
/// again (NodeExists), delete a missing node (NoNode), create `/z2`: its
/// czxid is 17. A failed write is an error transaction with its own zxid.
#[test]
fn failed_writes_take_a_zxid_and_change_nothing() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/z1", Persistent).unwrap();
    let z1 = stat(&zk, "/z1").czxid;
    let tree_before: Vec<_> = zk.nodes().map(|(p, n)| (p.clone(), n.clone())).collect();
    assert_eq!(
        create(&mut zk, s[0], "/z1", Persistent),
        Err(ZkError::NodeExists)
    );
    assert_eq!(delete(&mut zk, s[0], "/nope", -1), Err(ZkError::NoNode));
    assert_eq!(
        set_data(&mut zk, s[0], "/z1", b"", 5),
        Err(ZkError::BadVersion)
    );
    let tree_after: Vec<_> = zk.nodes().map(|(p, n)| (p.clone(), n.clone())).collect();
    assert_eq!(tree_before, tree_after);
    create(&mut zk, s[0], "/z2", Persistent).unwrap();
    assert_eq!(stat(&zk, "/z2").czxid, z1 + 4);
}

/// `Op::is_write` (what the simulator charges a write's latency for) says
/// which requests go through the log: exactly those that take a zxid,
/// failed or not — the reads and the watch removals take none.
#[test]
fn a_request_is_a_write_exactly_when_it_takes_a_zxid() {
    let ops = [
        (op_create("/b", Persistent), true),
        (op_create("/b", Persistent), true), // NodeExists
        (Op::set_data("/b", b"x".to_vec(), -1), true),
        (Op::set_data("/b", b"x".to_vec(), 7), true), // BadVersion
        (Op::exists("/b", true), false),
        (Op::get_data("/b", true), false),
        (Op::get_children("/b", true), false),
        (Op::check_watches("/b", WatcherType::Data), false),
        (
            Op::RemoveWatches {
                path: "/b".into(),
                kind: WatcherType::Any,
            },
            false,
        ),
        (
            Op::Multi(vec![TxnOp::Check {
                path: "/b".into(),
                version: -1,
            }]),
            true,
        ),
        (Op::delete("/b", -1), true),
        (Op::delete("/b", -1), true), // NoNode
        (Op::CloseSession, true),
    ];
    let (mut zk, s) = server(1);
    for (op, write) in ops {
        let before = zk.zxid();
        zk.handle(s[0], &op);
        assert_eq!(op.is_write(), write, "{op}");
        assert_eq!(zk.zxid() - before, i64::from(write), "{op}");
    }
}

/// The checker answers a request that changes nothing without copying the
/// server (`ZkServer::answer_unchanged`): it must answer exactly as
/// `handle` does, and claim nothing that would change the server.
#[test]
fn a_request_that_changes_nothing_is_answered_as_handle_answers_it() {
    let (mut zk, s) = server(2);
    create_with(&mut zk, s[0], "/a", b"x", Persistent).unwrap();
    create(&mut zk, s[0], "/a/b", Ephemeral).unwrap();
    zk.expire(s[1]);
    let unchanged = [
        (s[0], Op::exists("/a", false)),
        (s[0], Op::exists("/nope", false)),
        (s[0], Op::get_data("/a", false)),
        (s[0], Op::get_data("/nope", false)),
        (s[0], Op::get_children("/a", false)),
        (s[0], Op::get_children("/nope", false)),
        (s[1], Op::get_data("/a", true)),
        (s[1], op_create("/c", Persistent)),
    ];
    for (session, op) in unchanged {
        let answer = zk.answer_unchanged(session, &op);
        let before = zk.clone();
        let handled = zk.handle(session, &op);
        assert_eq!(zk, before, "{op}");
        assert_eq!(answer, Some(handled), "{op}");
    }
    for op in [
        Op::exists("/a", true),
        Op::get_data("/a", true),
        Op::get_children("/a", true),
        op_create("/c", Persistent),
        Op::delete("/a/b", -1),
    ] {
        assert_eq!(zk.answer_unchanged(s[0], &op), None, "{op}");
    }
}

/// What a failed assertion on a state prints of its server.
#[test]
fn a_server_debugs_as_its_tree_sessions_watches_and_zxid() {
    let (zk, _) = server(1);
    let text = format!("{zk:?}");
    assert!(text.starts_with("ZkServer { tree: "), "{text}");
    for field in ["sessions: ", "watches: ", "zxid: 1 }"] {
        assert!(text.contains(field), "{text}");
    }
}

#[test]
fn opening_a_session_is_a_transaction() {
    let mut zk = ZkServer::new();
    assert_eq!(zk.zxid(), 0);
    let a = zk.open_session();
    let b = zk.open_session();
    assert_ne!(a, b);
    assert_eq!(zk.zxid(), 2);
    assert!(zk.is_alive(a) && zk.is_alive(b));
}

// ---------------------------------------------------------------------------
// Watches
// ---------------------------------------------------------------------------

#[test]
fn exists_on_a_missing_node_sets_a_watch_that_fires_node_created() {
    let (mut zk, s) = server(2);
    assert_eq!(exists(&mut zk, s[0], "/a", true), None);
    assert!(zk.has_data_watch("/a", s[0]));
    let events = events_of(&mut zk, s[1], op_create("/a", Persistent));
    assert_eq!(events, vec![ev(s[0], EventType::NodeCreated, "/a")]);
    assert!(!zk.has_data_watch("/a", s[0]));
}

#[test]
fn get_data_on_a_missing_node_is_no_node_and_sets_no_watch() {
    let (mut zk, s) = server(2);
    assert_eq!(get_data(&mut zk, s[0], "/a", true), Err(ZkError::NoNode));
    assert!(!zk.has_data_watch("/a", s[0]));
    assert_eq!(zk.watch_count(), 0);
    let events = events_of(&mut zk, s[1], op_create("/a", Persistent));
    assert!(events.is_empty());
}

#[test]
fn get_children_on_a_missing_node_is_no_node_and_sets_no_watch() {
    let (mut zk, s) = server(2);
    assert_eq!(
        get_children(&mut zk, s[0], "/a", true),
        Err(ZkError::NoNode)
    );
    assert_eq!(zk.watch_count(), 0);
    create(&mut zk, s[1], "/a", Persistent).unwrap();
    let events = events_of(&mut zk, s[1], op_create("/a/b", Persistent));
    assert!(events.is_empty());
}

#[test]
fn reads_without_the_watch_flag_set_no_watch() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    exists(&mut zk, s[0], "/a", false);
    exists(&mut zk, s[0], "/b", false);
    get_data(&mut zk, s[0], "/a", false).unwrap();
    get_children(&mut zk, s[0], "/a", false).unwrap();
    assert_eq!(zk.watch_count(), 0);
}

#[test]
fn data_watches_fire_node_data_changed_on_set_data() {
    let (mut zk, s) = server(3);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    exists(&mut zk, s[0], "/a", true);
    get_data(&mut zk, s[1], "/a", true).unwrap();
    let events = events_of(&mut zk, s[2], op_set("/a"));
    assert_eq!(
        events,
        vec![
            ev(s[0], EventType::NodeDataChanged, "/a"),
            ev(s[1], EventType::NodeDataChanged, "/a"),
        ]
    );
}

#[test]
fn data_watches_fire_node_deleted_on_delete() {
    let (mut zk, s) = server(3);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    exists(&mut zk, s[0], "/a", true);
    get_data(&mut zk, s[1], "/a", true).unwrap();
    let events = events_of(&mut zk, s[2], op_delete("/a"));
    assert_eq!(
        events,
        vec![
            ev(s[0], EventType::NodeDeleted, "/a"),
            ev(s[1], EventType::NodeDeleted, "/a"),
        ]
    );
    assert_eq!(zk.watch_count(), 0);
}

#[test]
fn child_watches_fire_node_children_changed_on_child_create_and_delete() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    get_children(&mut zk, s[0], "/p", true).unwrap();
    let events = events_of(&mut zk, s[1], op_create("/p/a", Persistent));
    assert_eq!(events, vec![ev(s[0], EventType::NodeChildrenChanged, "/p")]);
    get_children(&mut zk, s[0], "/p", true).unwrap();
    let events = events_of(&mut zk, s[1], op_delete("/p/a"));
    assert_eq!(events, vec![ev(s[0], EventType::NodeChildrenChanged, "/p")]);
}

#[test]
fn child_watches_ignore_data_changes_and_grandchildren() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    create(&mut zk, s[0], "/p/a", Persistent).unwrap();
    get_children(&mut zk, s[0], "/p", true).unwrap();
    assert!(events_of(&mut zk, s[1], op_set("/p")).is_empty());
    assert!(events_of(&mut zk, s[1], op_set("/p/a")).is_empty());
    assert!(events_of(&mut zk, s[1], op_create("/p/a/b", Persistent)).is_empty());
    assert!(zk.has_child_watch("/p", s[0]));
}

#[test]
fn data_watches_ignore_child_changes() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    exists(&mut zk, s[0], "/p", true);
    assert!(events_of(&mut zk, s[1], op_create("/p/a", Persistent)).is_empty());
    assert!(events_of(&mut zk, s[1], op_delete("/p/a")).is_empty());
    assert!(zk.has_data_watch("/p", s[0]));
}

#[test]
fn child_watch_fires_node_deleted_when_the_node_itself_goes() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    get_children(&mut zk, s[0], "/p", true).unwrap();
    let events = events_of(&mut zk, s[1], op_delete("/p"));
    assert_eq!(events, vec![ev(s[0], EventType::NodeDeleted, "/p")]);
    assert!(!zk.has_child_watch("/p", s[0]));
}

#[test]
fn a_session_with_data_and_child_watches_on_a_deleted_node_gets_one_node_deleted() {
    let (mut zk, s) = server(3);
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    get_data(&mut zk, s[0], "/p", true).unwrap();
    get_children(&mut zk, s[0], "/p", true).unwrap();
    get_children(&mut zk, s[1], "/p", true).unwrap();
    get_children(&mut zk, s[1], "/", true).unwrap();
    let events = events_of(&mut zk, s[2], op_delete("/p"));
    assert_eq!(
        events,
        vec![
            ev(s[0], EventType::NodeDeleted, "/p"),
            ev(s[1], EventType::NodeDeleted, "/p"),
            ev(s[1], EventType::NodeChildrenChanged, "/"),
        ]
    );
    assert_eq!(zk.watch_count(), 0);
}

#[test]
fn a_watch_fires_at_most_once() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    exists(&mut zk, s[0], "/a", true);
    get_children(&mut zk, s[0], "/p", true).unwrap();
    assert_eq!(events_of(&mut zk, s[1], op_set("/a")).len(), 1);
    assert!(events_of(&mut zk, s[1], op_set("/a")).is_empty());
    assert!(events_of(&mut zk, s[1], op_delete("/a")).is_empty());
    assert_eq!(
        events_of(&mut zk, s[1], op_create("/p/x", Persistent)).len(),
        1
    );
    assert!(events_of(&mut zk, s[1], op_create("/p/y", Persistent)).is_empty());
    assert_eq!(zk.watch_count(), 0);
}

#[test]
fn a_session_watching_twice_gets_one_event() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    exists(&mut zk, s[0], "/a", true);
    exists(&mut zk, s[0], "/a", true);
    get_data(&mut zk, s[0], "/a", true).unwrap();
    create(&mut zk, s[0], "/p", Persistent).unwrap();
    get_children(&mut zk, s[0], "/p", true).unwrap();
    get_children(&mut zk, s[0], "/p", true).unwrap();
    assert_eq!(zk.watch_count(), 2);
    assert_eq!(
        events_of(&mut zk, s[1], op_set("/a")),
        vec![ev(s[0], EventType::NodeDataChanged, "/a")]
    );
    assert_eq!(
        events_of(&mut zk, s[1], op_create("/p/x", Persistent)),
        vec![ev(s[0], EventType::NodeChildrenChanged, "/p")]
    );
}

#[test]
fn a_watch_set_on_a_node_survives_its_recreation_only_until_it_fires() {
    // exists-watch on /a, /a deleted: NodeDeleted; re-created: nothing.
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/a", Persistent).unwrap();
    exists(&mut zk, s[0], "/a", true);
    assert_eq!(
        events_of(&mut zk, s[1], op_delete("/a")),
        vec![ev(s[0], EventType::NodeDeleted, "/a")]
    );
    assert!(events_of(&mut zk, s[1], op_create("/a", Persistent)).is_empty());
}

/// The `Outcome` lists the transaction's notifications apart from its reply;
/// drivers deliver them first. The requester's own watches are among them.
#[test]
fn the_requesters_own_watch_event_comes_in_the_outcome_events() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/lock", Persistent).unwrap();
    get_children(&mut zk, s[0], "/lock", true).unwrap();
    exists(&mut zk, s[1], "/lock/n-0000000001", true);
    let out = zk.handle(s[0], &op_create("/lock/n-", EphemeralSequential));
    assert_eq!(
        out.reply,
        Ok(OpResult::Created("/lock/n-0000000000".into()))
    );
    assert_eq!(
        out.events,
        vec![ev(s[0], EventType::NodeChildrenChanged, "/lock")]
    );
    let out = zk.handle(s[0], &op_create("/lock/n-", EphemeralSequential));
    assert_eq!(
        out.reply,
        Ok(OpResult::Created("/lock/n-0000000001".into()))
    );
    assert_eq!(
        out.events,
        vec![ev(s[1], EventType::NodeCreated, "/lock/n-0000000001")]
    );
}

// ---------------------------------------------------------------------------
// Session expiry and close
// ---------------------------------------------------------------------------

/// Sets up: session 0 owns `/a/e1`, `/a/e2` and `/b/e3`; sessions 1 and 2
/// watch them and their parents; session 0 watches other nodes.
fn owner_with_watched_ephemerals() -> (ZkServer, Vec<SessionId>) {
    let (mut zk, s) = server(3);
    create(&mut zk, s[1], "/a", Persistent).unwrap();
    create(&mut zk, s[1], "/b", Persistent).unwrap();
    create(&mut zk, s[1], "/keep", Persistent).unwrap();
    for e in ["/a/e1", "/a/e2", "/b/e3"] {
        create(&mut zk, s[0], e, Ephemeral).unwrap();
    }
    exists(&mut zk, s[1], "/a/e1", true);
    get_data(&mut zk, s[2], "/b/e3", true).unwrap();
    get_children(&mut zk, s[1], "/a", true).unwrap();
    get_children(&mut zk, s[2], "/b", true).unwrap();
    // Session 0's own watches, on its own ephemeral and on other nodes.
    exists(&mut zk, s[0], "/a/e2", true);
    exists(&mut zk, s[0], "/keep", true);
    get_children(&mut zk, s[0], "/b", true).unwrap();
    (zk, s)
}

fn expected_end_of_session_events(s: &[SessionId]) -> Vec<(SessionId, WatchedEvent)> {
    vec![
        ev(s[1], EventType::NodeDeleted, "/a/e1"),
        ev(s[1], EventType::NodeChildrenChanged, "/a"),
        ev(s[2], EventType::NodeDeleted, "/b/e3"),
        ev(s[2], EventType::NodeChildrenChanged, "/b"),
    ]
}

#[test]
fn expiry_deletes_all_the_sessions_ephemerals_in_one_transaction() {
    let (mut zk, s) = owner_with_watched_ephemerals();
    let z = zk.zxid();
    zk.expire(s[0]);
    assert_eq!(zk.zxid(), z + 1, "one closeSession transaction");
    for e in ["/a/e1", "/a/e2", "/b/e3"] {
        assert!(zk.node(e).is_none(), "{e} outlived its session");
    }
    assert_eq!(stat(&zk, "/a").pzxid, z + 1);
    assert_eq!(stat(&zk, "/b").pzxid, z + 1);
    assert_eq!(stat(&zk, "/a").num_children, 0);
    assert_eq!(stat(&zk, "/a").cversion, 4);
}

#[test]
fn expiry_fires_the_ephemerals_watches_for_other_sessions() {
    let (mut zk, s) = owner_with_watched_ephemerals();
    let events = zk.expire(s[0]);
    assert_eq!(events, expected_end_of_session_events(&s));
}

#[test]
fn expiry_drops_the_expired_sessions_watches() {
    let (mut zk, s) = owner_with_watched_ephemerals();
    zk.expire(s[0]);
    assert!(!zk.has_data_watch("/keep", s[0]));
    assert!(!zk.has_data_watch("/a/e2", s[0]));
    assert!(!zk.has_child_watch("/b", s[0]));
    assert_eq!(zk.watch_count(), 0, "every other watch fired");
    assert!(events_of(&mut zk, s[1], op_set("/keep")).is_empty());
}

#[test]
fn expiring_a_dead_session_does_nothing() {
    let (mut zk, s) = owner_with_watched_ephemerals();
    zk.expire(s[0]);
    let before = zk.clone();
    assert!(zk.expire(s[0]).is_empty());
    assert_eq!(zk, before);
    zk.handle(s[1], &Op::CloseSession);
    let before = zk.clone();
    assert!(zk.expire(s[1]).is_empty());
    assert_eq!(zk, before);
}

#[test]
fn close_session_ends_the_session_as_expiry_does() {
    let (mut zk, s) = owner_with_watched_ephemerals();
    let z = zk.zxid();
    let out = zk.handle(s[0], &Op::CloseSession);
    assert_eq!(out.reply, Ok(OpResult::Closed));
    assert_eq!(out.events, expected_end_of_session_events(&s));
    assert_eq!(zk.zxid(), z + 1);
    assert!(!zk.is_alive(s[0]));
    assert!(zk.is_alive(s[1]) && zk.is_alive(s[2]));
    assert!(zk
        .nodes()
        .all(|(_, n)| n.stat.ephemeral_owner != i64::from(s[0].0)));
    assert_eq!(zk.watch_count(), 0);
}

#[test]
fn closing_or_expiring_a_session_leaves_other_sessions_nodes_and_watches() {
    let (mut zk, s) = server(3);
    create(&mut zk, s[1], "/mine", Ephemeral).unwrap();
    exists(&mut zk, s[2], "/mine", true);
    zk.expire(s[0]);
    zk.handle(s[2], &Op::CloseSession);
    assert!(zk.node("/mine").is_some());
    assert!(zk.is_alive(s[1]));
    assert!(!zk.has_data_watch("/mine", s[2]));
    assert!(events_of(&mut zk, s[1], op_delete("/mine")).is_empty());
}

// ---------------------------------------------------------------------------
// multi, check and removeWatches (DataTree.processTxn for a multi,
// PrepRequestProcessor's check, FinalRequestProcessor's removeWatches)
// ---------------------------------------------------------------------------

use locksmith_model::zk::{TxnOp, TxnResult, WatcherType};

fn guarded_write(own: &str, resource: &str) -> Op {
    Op::Multi(vec![
        TxnOp::Check {
            path: own.into(),
            version: -1,
        },
        TxnOp::SetData {
            path: resource.into(),
            data: b"w".to_vec(),
            version: -1,
        },
    ])
}

#[test]
fn a_multi_is_one_transaction_with_one_zxid() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/lock", CreateMode::Persistent).unwrap();
    create(&mut zk, s[0], "/res", CreateMode::Persistent).unwrap();
    let before = zk.zxid();
    let op = Op::Multi(vec![
        TxnOp::Create {
            path: "/lock/n-".into(),
            data: Vec::new(),
            mode: CreateMode::EphemeralSequential,
        },
        TxnOp::SetData {
            path: "/res".into(),
            data: b"x".to_vec(),
            version: 0,
        },
    ]);
    let reply = zk.handle(s[0], &op).reply;
    assert_eq!(zk.zxid(), before + 1);
    let node = zk.node("/lock/n-0000000000").expect("created");
    assert_eq!(node.stat.czxid, before + 1);
    assert_eq!(zk.node("/res").unwrap().stat.mzxid, before + 1);
    match reply {
        Ok(OpResult::Multi(r)) => {
            assert_eq!(r[0], TxnResult::Created("/lock/n-0000000000".into()));
            assert!(matches!(r[1], TxnResult::SetData(st) if st.version == 1));
        }
        other => panic!("multi replied {other:?}"),
    }
}

#[test]
fn a_failed_multi_applies_nothing_and_answers_ok_error_runtime_inconsistency() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/res", CreateMode::Persistent).unwrap();
    let watched = zk.handle(s[1], &Op::exists("/res", true)).reply;
    assert!(watched.is_ok());
    let ops = vec![
        TxnOp::SetData {
            path: "/res".into(),
            data: b"x".to_vec(),
            version: -1,
        },
        TxnOp::Check {
            path: "/gone".into(),
            version: -1,
        },
        TxnOp::Delete {
            path: "/res".into(),
            version: -1,
        },
    ];
    assert_eq!(
        zk.multi_results(s[0], &ops),
        vec![
            TxnResult::RolledBack,
            TxnResult::Failed(ZkError::NoNode),
            TxnResult::Failed(ZkError::RuntimeInconsistency),
        ]
    );
    let before = zk.zxid();
    let out = zk.handle(s[0], &Op::Multi(ops));
    // The caller's multi throws the failing op's error.
    assert_eq!(out.reply, Err(ZkError::NoNode));
    // The error transaction takes a zxid; nothing changed, nothing fired.
    assert_eq!(zk.zxid(), before + 1);
    assert_eq!(zk.node("/res").unwrap().stat.version, 0);
    assert!(out.events.is_empty());
    assert!(zk.has_data_watch("/res", s[1]));
}

#[test]
fn a_guarded_write_fails_once_the_writers_node_is_gone() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/lock", CreateMode::Persistent).unwrap();
    create(&mut zk, s[0], "/res", CreateMode::Persistent).unwrap();
    let own = create(&mut zk, s[1], "/lock/n-", CreateMode::EphemeralSequential).unwrap();
    assert!(zk.handle(s[1], &guarded_write(&own, "/res")).reply.is_ok());
    zk.expire(s[1]);
    let (mut zk2, s2) = (zk.clone(), s[0]);
    assert_eq!(
        zk2.handle(s2, &guarded_write(&own, "/res")).reply,
        Err(ZkError::NoNode)
    );
    assert_eq!(zk2.node("/res").unwrap().stat.version, 1);
}

#[test]
fn remove_watches_takes_the_sessions_watches_of_a_kind_or_answers_no_watcher() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/a", CreateMode::Persistent).unwrap();
    let rw = |kind| Op::RemoveWatches {
        path: "/a".into(),
        kind,
    };
    assert_eq!(
        zk.handle(s[0], &rw(WatcherType::Any)).reply,
        Err(ZkError::NoWatcher)
    );
    zk.handle(s[0], &Op::get_data("/a", true));
    zk.handle(s[0], &Op::get_children("/a", true));
    zk.handle(s[1], &Op::exists("/a", true));
    assert_eq!(
        zk.handle(s[0], &rw(WatcherType::Children)).reply,
        Ok(OpResult::WatchesRemoved)
    );
    assert!(!zk.has_child_watch("/a", s[0]));
    assert!(zk.has_data_watch("/a", s[0]));
    assert_eq!(
        zk.handle(s[0], &rw(WatcherType::Children)).reply,
        Err(ZkError::NoWatcher)
    );
    let before = zk.zxid();
    assert_eq!(
        zk.handle(s[0], &rw(WatcherType::Any)).reply,
        Ok(OpResult::WatchesRemoved)
    );
    // No transaction, and the other session's watch stays.
    assert_eq!(zk.zxid(), before);
    assert!(zk.has_data_watch("/a", s[1]));
}

/// `removeWatches(path, watcher, type)` for one watcher is opcode
/// `checkWatches`: FinalRequestProcessor only asks
/// `ZKDatabase.containsWatcher` and keeps the watch (the client drops its
/// watcher; see model/tests/runtime.rs).
#[test]
fn check_watches_answers_whether_the_session_watches_and_keeps_the_watch() {
    let (mut zk, s) = server(2);
    create(&mut zk, s[0], "/a", CreateMode::Persistent).unwrap();
    let cw = |kind| Op::check_watches("/a", kind);
    assert_eq!(
        zk.handle(s[0], &cw(WatcherType::Any)).reply,
        Err(ZkError::NoWatcher)
    );
    zk.handle(s[0], &Op::get_data("/a", true));
    zk.handle(s[1], &Op::get_children("/a", true));
    assert_eq!(
        zk.handle(s[0], &cw(WatcherType::Children)).reply,
        Err(ZkError::NoWatcher),
        "a data watch is not a child watch"
    );
    assert_eq!(
        zk.handle(s[1], &cw(WatcherType::Data)).reply,
        Err(ZkError::NoWatcher)
    );
    let before = zk.zxid();
    assert_eq!(
        zk.handle(s[0], &cw(WatcherType::Any)).reply,
        Ok(OpResult::WatchesChecked)
    );
    assert_eq!(
        zk.handle(s[1], &cw(WatcherType::Children)).reply,
        Ok(OpResult::WatchesChecked)
    );
    assert_eq!(zk.zxid(), before, "no transaction");
    assert!(zk.has_data_watch("/a", s[0]), "the watch stays");
    let fired = zk.handle(s[1], &Op::set_data("/a", b"x".to_vec(), -1));
    assert!(
        fired
            .events
            .iter()
            .any(|(to, e)| *to == s[0] && e.path.as_str() == "/a"),
        "and fires: {:?}",
        fired.events
    );
}

#[test]
fn a_check_with_a_version_passes_at_that_version_only() {
    let (mut zk, s) = server(1);
    create(&mut zk, s[0], "/lock", CreateMode::Persistent).unwrap();
    set_data(&mut zk, s[0], "/lock", b"v1", -1).unwrap();
    let check = |version| {
        Op::Multi(vec![TxnOp::Check {
            path: "/lock".into(),
            version,
        }])
    };
    assert!(zk.handle(s[0], &check(1)).reply.is_ok());
    assert_eq!(zk.handle(s[0], &check(0)).reply, Err(ZkError::BadVersion));
    assert!(zk.handle(s[0], &check(-1)).reply.is_ok());
}

// ---------------------------------------------------------------------------
// Connections: what `locksmith serve` adds for a client that reconnects
// ---------------------------------------------------------------------------

fn event(kind: EventType, path: &str) -> WatchedEvent {
    WatchedEvent {
        kind,
        path: path.into(),
    }
}

/// A connection's watches go with it; the session, its nodes and its other
/// state stay.
#[test]
fn a_lost_connection_takes_its_watches_and_leaves_its_session() {
    let (mut zk, s) = server(2);
    zk.handle(s[0], &Op::create("/a", CreateMode::Ephemeral));
    zk.handle(s[1], &Op::exists("/a", true));
    zk.handle(s[1], &Op::get_children("/", true));
    assert!(zk.watches_any(s[1]));
    zk.forget_watches(s[1]);
    assert!(!zk.watches_any(s[1]));
    assert!(zk.is_alive(s[1]));
    assert!(zk.handle(s[0], &Op::delete("/a", -1)).events.is_empty());
}

/// What a reconnecting client sends back: its data watches on nodes that
/// exist, its `exists` watches on missing nodes, its child watches.
#[test]
fn a_sessions_watches_are_listed_as_its_client_sends_them_back() {
    let (mut zk, s) = server(2);
    zk.handle(s[0], &Op::create("/a", CreateMode::Persistent));
    zk.handle(s[1], &Op::get_data("/a", true));
    zk.handle(s[1], &Op::exists("/missing", true));
    zk.handle(s[1], &Op::get_children("/", true));
    zk.handle(s[0], &Op::exists("/a", true));
    let names = |v: &[&str]| {
        v.iter()
            .map(|&p| locksmith_model::zk::Name::from(p))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        zk.client_watches(s[1]),
        [names(&["/a"]), names(&["/missing"]), names(&["/"])]
    );
    assert_eq!(zk.client_watches(s[0]), [names(&["/a"]), vec![], vec![]]);
}

/// `SetWatches` as `DataTree.setWatches` answers it: against the last zxid
/// the client saw, a data watch on a node changed since fires
/// `NodeDataChanged` and on a deleted one `NodeDeleted`; an exist watch on
/// a node that now exists fires `NodeCreated`; a child watch on a node
/// whose children changed fires `NodeChildrenChanged`; every other watch is
/// set again and fires later as usual.
#[test]
fn set_watches_fires_what_changed_since_the_clients_zxid_and_sets_the_rest() {
    let (mut zk, s) = server(2);
    for p in ["/same", "/changed", "/gone", "/parent", "/quiet"] {
        zk.handle(s[0], &Op::create(p, CreateMode::Persistent));
    }
    let seen = zk.zxid();
    zk.handle(s[0], &Op::set_data("/changed", b"x".to_vec(), -1));
    zk.handle(s[0], &Op::delete("/gone", -1));
    zk.handle(s[0], &Op::create("/born", CreateMode::Persistent));
    zk.handle(s[0], &Op::create("/parent/kid", CreateMode::Persistent));
    let names = |v: &[&str]| v.iter().map(|&p| p.into()).collect::<Vec<_>>();
    let fired = zk.set_watches(
        s[1],
        seen,
        &names(&["/same", "/changed", "/gone"]),
        &names(&["/born", "/unborn"]),
        &names(&["/parent", "/quiet"]),
    );
    assert_eq!(
        fired,
        [
            event(EventType::NodeDataChanged, "/changed"),
            event(EventType::NodeDeleted, "/gone"),
            event(EventType::NodeCreated, "/born"),
            event(EventType::NodeChildrenChanged, "/parent"),
        ]
    );
    assert!(zk.has_data_watch("/same", s[1]));
    assert!(zk.has_data_watch("/unborn", s[1]));
    assert!(zk.has_child_watch("/quiet", s[1]));
    assert!(!zk.has_data_watch("/changed", s[1]));
    let later = zk.handle(s[0], &Op::set_data("/same", b"y".to_vec(), -1));
    assert_eq!(
        later.events,
        [(s[1], event(EventType::NodeDataChanged, "/same"))]
    );
    // A session that has ended sets nothing.
    zk.expire(s[1]);
    assert!(zk
        .set_watches(s[1], 0, &names(&["/same"]), &[], &[])
        .is_empty());
}
