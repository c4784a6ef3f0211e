//! The sequence-suffix abstraction (`[check] abstract_sequences = true`,
//! `locksmith check --abstract-sequences`; off by default).
//!
//! A polling recipe (`try-once`) creates and deletes nodes without end:
//! every attempt takes the next sequence suffix and the next zxids, so no
//! state ever repeats and even a correct polling recipe could only be
//! `incomplete`. But no recipe reads a suffix's value — they sort names and
//! compare their own with the others — and the zxids a recipe does not
//! read never reach it (every reply is masked). So states that differ only
//! in those values are made one state, after every step:
//!
//! - every sequence suffix the state holds — in the tree and the watch
//!   tables, in requests, replies and events in flight, in the client
//!   libraries' watch tables and event queues, in what a thread resumes
//!   with, in the recipes' own fields ([`Recipe::paths_mut`]) — becomes its
//!   rank among all of them, so every comparison comes out as before;
//! - every sequence counter is set just above the largest rank, so the next
//!   sequential node still sorts after every name the state holds;
//! - the zxids no recipe reads are zeroed: every node's `pzxid`, and its
//!   `czxid`, `mzxid` and the server's last zxid unless the recipe reads
//!   `czxid` or `mzxid` (or fencing tokens, which are czxids, are on).
//!
//! Two states with the same image can take the same steps to states with
//! the same image and satisfy the same properties (a bisimulation), so
//! every verdict and every shortest trace's length is kept and the count of
//! states can only fall; `sim/tests/abstraction.rs` holds every pinned
//! scenario to that.
//!
//! It stands aside — the state is left as it is — where it would not be
//! sound: when the recipe reads `cversion` (the counter shows through it),
//! when a node lives under a sequential node or a path has a suffix in a
//! parent component (a suffix inside a path), or when a node created
//! without a sequence has a name that ends like one. It assumes what every
//! recipe of the catalogue does: suffixes are compared only among siblings
//! (ranks are taken over the whole state), and no node's data holds a
//! node's name.

use super::config::MAX_CLIENTS;
use super::local::peer_facts;
use super::suffixes::{suffix, suffix_inside, Suffixes, DIGITS};
use super::system::{Message, Peer, SharedPeer, System};
use crate::engine::harness::Writes;
use crate::engine::shared::Shared;
use crate::zk::client::{Notice, Recipe, Resume, StatFields, Status};
use crate::zk::{
    path, CreateMode, Name, Node, Op, OpResult, Reply, Stat, TxnResult, WatchedEvent, ZkServer,
};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::sync::OnceLock;

/// Makes `s` the representative of the states that differ from it only in
/// sequence suffixes and unread zxids (see the module docs); leaves it as
/// it is where the abstraction would not be sound. A part of the state it
/// does not change stays shared with the parent state.
pub fn abstract_state(s: &mut System) {
    let Some(image) = Image::of(s) else {
        return;
    };
    let ranks = &image.ranks;
    let rename = |p: &str| -> Option<String> {
        let n = suffix(p.as_bytes())?;
        let rank = ranks.binary_search(&n).ok()?;
        (rank != n as usize).then(|| format!("{}{rank:010}", &p[..p.len() - DIGITS]))
    };
    for (peer, &moved) in s.peers.iter_mut().zip(&image.peer_moves) {
        if moved {
            peer_names_mut(peer.get_mut(), &mut |p| {
                if let Some(q) = rename(p) {
                    *p = q.into();
                }
            });
        }
    }
    let restat = |n: &Node| image.restat(n);
    let zxid = image.zxid(&s.server);
    let restats = s.server.nodes().any(|(_, n)| restat(n) != n.stat);
    if image.renames {
        s.server.get_mut().rename_paths(&rename);
    }
    if restats || zxid != s.server.zxid() {
        s.server.get_mut().restat(&restat, zxid);
    }
}

/// Whether `s` with client `c`'s part replaced by `part` is its own image:
/// [`abstract_state`] would leave it as it is. Judged without building it,
/// as the checker judges a client's own step before it builds one, and
/// without ranking: a state is its own image where the suffixes it names
/// are 0, 1, … k − 1 and its stats are those of a counter at k. `false`
/// where that is not known this way (a suffix above 63), for
/// [`abstract_state`] to judge. The part's suffixes are read once per
/// version, kept with its digest.
pub fn is_image_with(s: &System, (c, part): (usize, &SharedPeer)) -> bool {
    let Some(reads) = reads(s) else {
        return true;
    };
    part.digest(peer_facts);
    let server = memo(&s.server, |d| &d.suffixes, server_suffixes);
    let mut sound = server.sound;
    let mut named = server.bits();
    for (i, p) in s.peers.iter().enumerate() {
        let p = if i == c { part } else { p };
        let p = memo(p, |f| &f.suffixes, peer_suffixes);
        sound &= p.sound;
        named = named.zip(p.bits()).map(|(a, b)| a | b);
    }
    if !sound {
        return true;
    }
    let Some(named) = named else {
        return false;
    };
    let counter = named.count_ones() as i32;
    named & named.wrapping_add(1) == 0
        && image_zxid(&s.server, reads) == s.server.zxid()
        && s.server
            .nodes()
            .all(|(_, n)| restat(n, reads, counter) == n.stat)
}

/// The stat fields the recipe reads, the resource's included; `None`
/// where the abstraction stands aside whatever the state (no clients, or
/// the recipe reads `cversion`).
fn reads(s: &System) -> Option<StatFields> {
    let mut reads = s.peers.first()?.client.recipe.reads_stat();
    // Fencing tokens are czxids: the resource reads them.
    reads.czxid |= matches!(s.resource, Some(r) if r.writes == Writes::Fenced);
    (!reads.cversion).then_some(reads)
}

/// A node's stat in the image, the sequence counter at `counter`.
fn restat(n: &Node, reads: StatFields, counter: i32) -> Stat {
    let mut st = n.stat;
    st.pzxid = 0;
    if !reads.czxid {
        st.czxid = 0;
    }
    if !reads.mzxid {
        st.mzxid = 0;
    }
    if n.next_sequence() > 0 {
        // Above every rank; never below the children there are (the
        // count of creates cannot be), and a container that has had a
        // child keeps `cversion > 0`, which makes it reapable.
        let mut next = counter.max(st.num_children);
        if n.mode == CreateMode::Container {
            next = next.max(1);
        }
        st.cversion = 2 * next - st.num_children;
    }
    st
}

/// The server's last zxid in the image.
fn image_zxid(server: &ZkServer, reads: StatFields) -> i64 {
    if reads.czxid || reads.mzxid {
        server.zxid()
    } else {
        0
    }
}

/// What the abstraction makes of a state: the ranks its suffixes take,
/// which parts name a suffix that moves, and the stats its nodes keep.
struct Image {
    reads: StatFields,
    /// Every suffix the state names, in order: a suffix becomes its index.
    ranks: SmallVec<[u32; 16]>,
    /// The server names a suffix that moves.
    renames: bool,
    peer_moves: SmallVec<[bool; MAX_CLIENTS as usize]>,
}

impl Image {
    /// The image of `s`; `None` where the abstraction stands aside.
    fn of(s: &System) -> Option<Image> {
        let reads = reads(s)?;
        let server = memo(&s.server, |d| &d.suffixes, server_suffixes);
        let peers: SmallVec<[Cow<Suffixes>; MAX_CLIENTS as usize]> = s
            .peers
            .iter()
            .map(|p| memo(p, |f| &f.suffixes, peer_suffixes))
            .collect();
        if !server.sound || peers.iter().any(|p| !p.sound) {
            return None;
        }
        let mut ranks: SmallVec<[u32; 16]> = server
            .found
            .iter()
            .chain(peers.iter().flat_map(|p| p.found.iter()))
            .copied()
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        let moves = |n: &u32| ranks.binary_search(n).is_ok_and(|r| r != *n as usize);
        let renames = server.found.iter().any(moves);
        let peer_moves = peers.iter().map(|p| p.found.iter().any(moves)).collect();
        Some(Image {
            reads,
            ranks,
            renames,
            peer_moves,
        })
    }

    fn restat(&self, n: &Node) -> Stat {
        restat(n, self.reads, self.ranks.len() as i32)
    }

    fn zxid(&self, server: &ZkServer) -> i64 {
        image_zxid(server, self.reads)
    }
}

/// What `part` names, read once per version where its digest is already
/// known (a version shared with the parent state), else read now.
fn memo<'p, T, D, const N: usize>(
    part: &'p Shared<'_, T, D, N>,
    slot: impl Fn(&D) -> &OnceLock<Suffixes>,
    read: impl Fn(&T) -> Suffixes,
) -> Cow<'p, Suffixes> {
    match part.known_digest() {
        Some(d) => Cow::Borrowed(slot(d).get_or_init(|| read(part))),
        None => Cow::Owned(read(part)),
    }
}

/// The suffixes of the server's sequential nodes and watched paths. A
/// plain node named like a sequential one, a node under a sequential
/// node, or a suffix inside a path makes renaming unsound.
fn server_suffixes(server: &ZkServer) -> Suffixes {
    let mut out = Suffixes::default();
    for (p, node) in server.nodes() {
        match suffix(p.as_bytes()) {
            Some(n) if node.mode.is_sequential() => out.found.push(n),
            Some(_) => out.sound = false,
            None => {}
        }
        // A sequential node's name ends in a digit (`%010d`): only then is
        // the parent worth looking up.
        let under_sequential = path::parent(p)
            .filter(|parent| parent.ends_with(|c: char| c.is_ascii_digit()))
            .and_then(|parent| server.node(parent))
            .is_some_and(|parent| parent.mode.is_sequential());
        out.sound &= !under_sequential && !suffix_inside(p.as_bytes());
    }
    for p in server.watched_paths() {
        out.found.extend(suffix(p.as_bytes()));
        out.sound &= !suffix_inside(p.as_bytes());
    }
    out
}

/// The suffixes of every name a client and its channels hold.
fn peer_suffixes(p: &Peer) -> Suffixes {
    let mut out = Suffixes::default();
    peer_names(p, &mut |name| {
        out.found.extend(suffix(name.as_bytes()));
        out.sound &= !suffix_inside(name.as_bytes());
    });
    out
}

/// Hands `f` every path or child name a client and its channels hold.
fn peer_names(p: &Peer, f: &mut dyn FnMut(&Name)) {
    for r in &p.outbox {
        r.op.paths().into_iter().for_each(&mut *f);
    }
    for m in &p.inbox {
        match m {
            Message::Reply(_, r) => reply_names(r, f),
            Message::Event(e) => f(&e.path),
        }
    }
    let c = &p.client;
    c.recipe.paths(f);
    for t in c.statuses() {
        match t {
            Status::Ready(Resume::Reply(r)) => reply_names(r, f),
            Status::Ready(Resume::Notify {
                notice: Notice::Node(WatchedEvent { path, .. }) | Notice::Removed(path),
                ..
            }) => f(path),
            Status::Calling { op, .. } => op.paths().into_iter().for_each(&mut *f),
            _ => {}
        }
    }
    for (_, n) in &c.notices {
        if let Notice::Node(WatchedEvent { path, .. }) | Notice::Removed(path) = n {
            f(path);
        }
    }
    c.watchers.paths().for_each(&mut *f);
}

/// [`peer_names`], each one to rewrite in place.
fn peer_names_mut(p: &mut Peer, f: &mut dyn FnMut(&mut Name)) {
    for r in &mut p.outbox {
        op_path_mut(&mut r.op, f);
    }
    for m in &mut p.inbox {
        match m {
            Message::Reply(_, r) => reply_names_mut(r, f),
            Message::Event(e) => f(&mut e.path),
        }
    }
    let c = &mut p.client;
    c.recipe.paths_mut(f);
    c.statuses_mut(&mut |t| match t {
        Status::Ready(Resume::Reply(r)) => reply_names_mut(r, f),
        Status::Ready(Resume::Notify {
            notice: Notice::Node(WatchedEvent { path, .. }) | Notice::Removed(path),
            ..
        }) => f(path),
        Status::Calling { op, .. } => op_path_mut(op, f),
        _ => {}
    });
    for (_, n) in &mut c.notices {
        if let Notice::Node(WatchedEvent { path, .. }) | Notice::Removed(path) = n {
            f(path);
        }
    }
    c.watchers.paths_mut(f);
}

fn op_path_mut(op: &mut Op, f: &mut dyn FnMut(&mut Name)) {
    op.paths_mut().into_iter().for_each(f);
}

fn reply_names(r: &Reply, f: &mut dyn FnMut(&Name)) {
    match r {
        Ok(OpResult::Created(p)) => f(p),
        Ok(OpResult::GetChildren { children, .. }) => children.iter().for_each(&mut *f),
        Ok(OpResult::Multi(results)) => results.iter().for_each(|r| {
            if let TxnResult::Created(p) = r {
                f(p)
            }
        }),
        _ => {}
    }
}

fn reply_names_mut(r: &mut Reply, f: &mut dyn FnMut(&mut Name)) {
    match r {
        Ok(OpResult::Created(p)) => f(p),
        Ok(OpResult::GetChildren { children, .. }) => children.iter_mut().for_each(f),
        Ok(OpResult::Multi(results)) => results.iter_mut().for_each(|r| {
            if let TxnResult::Created(p) = r {
                f(p)
            }
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zk::check::system::Action;
    use crate::zk::check::CheckConfig;
    use crate::zk::client::Thread;
    use crate::zk::recipes::RecipeId;

    /// A poller's second attempt differs from its first only in its node's
    /// suffix, the counter and the zxids: one state with the abstraction.
    #[test]
    fn a_second_attempt_is_the_first_again() {
        let cfg = CheckConfig::new(RecipeId::TryOnce, 2, 1);
        let mut s = System::initial(&cfg);
        let create = [
            Action::Run(1, Thread::Main),
            Action::Serve(1),
            Action::Deliver(1),
        ];
        for a in [
            Action::Run(0, Thread::Main),
            Action::Serve(0),
            Action::Deliver(0),
        ] {
            s.apply(a, false);
        }
        for a in create {
            s.apply(a, false);
        }
        let first = s.clone();
        // getChildren, delete (c1's node is lower), return False, create.
        for _ in 0..2 {
            for a in create {
                s.apply(a, false);
            }
        }
        s.apply(Action::Run(1, Thread::Main), false);
        for a in create {
            s.apply(a, false);
        }
        assert_eq!(
            s.server.node("/locks/lock-0000000002").map(|_| ()),
            Some(())
        );
        assert_ne!(s, first);
        let (mut a, mut b) = (first.clone(), s.clone());
        abstract_state(&mut a);
        abstract_state(&mut b);
        assert_eq!(a, b);
        // And it is a fixed point.
        let again = a.clone();
        abstract_state(&mut a);
        assert_eq!(a, again);
    }

    /// A client's own step is judged its own image exactly where
    /// `abstract_state` would leave it as it is: the checker then skips the
    /// abstraction for it. Walked over a few thousand states of two
    /// recipes, with a client-side expiry in the budget (Curator opens new
    /// sessions) and the explorer's abstraction after every step.
    #[test]
    fn an_own_step_is_its_own_image_where_the_abstraction_leaves_it() {
        use crate::zk::check::own_step::walk_own_steps;
        let (mut images, mut moved) = (0, 0);
        for recipe in [RecipeId::TryOnce, RecipeId::Curator] {
            let mut cfg = CheckConfig::new(recipe, 2, 2);
            cfg.faults.client_expiries = 1;
            let seed = 0x9e37_79b9_7f4a_7c15;
            walk_own_steps(
                &cfg,
                (200, 40),
                seed,
                abstract_state,
                &crate::zk::check::own_step::itself,
                &mut |s, a, c, part| {
                    let mut next = s.lend();
                    next.peers[c] = part.clone();
                    let next = next.into_held();
                    let mut image = next.clone();
                    abstract_state(&mut image);
                    let left = image == next;
                    assert_eq!(is_image_with(s, (c, &part)), left, "{a:?} in {s:?}");
                    if left {
                        images += 1;
                    } else {
                        moved += 1;
                    }
                },
            );
        }
        // Both answers were given, many times.
        assert!(
            images > 1_000 && moved > 100,
            "{images} images, {moved} moved"
        );
    }

    /// Two try-once clients, and of the two nodes c1 created the second
    /// left: `/locks/lock-0000000001`.
    fn one_node_of_two() -> (System<'static>, crate::zk::SessionId) {
        use crate::zk::{CreateMode, Op, Service};
        let cfg = CheckConfig::new(RecipeId::TryOnce, 2, 1);
        let mut s = System::initial(&cfg);
        let session = s.peers[0].session;
        let server = s.server.get_mut();
        let create = Op::create("/locks/lock-", CreateMode::EphemeralSequential);
        server.handle(session, &create);
        server.handle(session, &create);
        server.handle(session, &Op::delete("/locks/lock-0000000000", -1));
        (s, session)
    }

    /// A watch whose node is gone and whose name no client holds any more
    /// (a stale `exists` watch) is renamed with everything else, so a node
    /// created later cannot take its name by accident.
    #[test]
    fn a_watch_on_a_name_nobody_holds_is_renamed_with_the_rest() {
        use crate::zk::{Op, Service};
        let (mut s, session) = one_node_of_two();
        let server = s.server.get_mut();
        server.handle(session, &Op::exists("/locks/lock-0000000005", true));
        abstract_state(&mut s);
        // Suffixes 1 and 5 become ranks 0 and 1.
        assert!(s.server.node("/locks/lock-0000000000").is_some());
        assert!(s.server.has_data_watch("/locks/lock-0000000001", session));
        assert!(!s.server.has_data_watch("/locks/lock-0000000005", session));
    }

    /// A request still on its way for a name no node has any more (an
    /// `exists` on a deleted predecessor, a multi's `check`) is ranked and
    /// renamed with the rest, like a stale watch.
    #[test]
    fn a_request_in_flight_for_a_name_nobody_holds_is_renamed_with_the_rest() {
        use crate::zk::check::system::Request;
        use crate::zk::{Op, TxnOp};
        let (mut s, _) = one_node_of_two();
        let check = |path: &str| {
            Op::Multi(vec![TxnOp::Check {
                path: path.into(),
                version: -1,
            }])
        };
        let requests = [
            Op::exists("/locks/lock-0000000005", true),
            check("/locks/lock-0000000007"),
        ];
        let peer = s.peers.get_mut(1).map(|p| p.get_mut());
        let outbox = &mut peer.expect("two clients").outbox;
        outbox.extend(requests.map(|op| Request {
            thread: Thread::Main,
            op,
            release: false,
        }));
        abstract_state(&mut s);
        // Suffixes 1, 5 and 7 become ranks 0, 1 and 2.
        assert!(s.server.node("/locks/lock-0000000000").is_some());
        let ops: Vec<&Op> = s.peers[1].outbox.iter().map(|r| &r.op).collect();
        assert_eq!(
            ops,
            [
                &Op::exists("/locks/lock-0000000001", true),
                &check("/locks/lock-0000000002")
            ]
        );
    }

    /// A thread about to run a watcher for a name no node has any more (a
    /// deleted predecessor's `NodeDeleted`, a `DataWatchRemoved`), or
    /// blocked in a call about one, is ranked and renamed with the rest.
    #[test]
    fn a_watcher_about_to_run_for_a_name_nobody_holds_is_renamed_with_the_rest() {
        use crate::zk::client::{Notice, Resume, Status};
        use crate::zk::{EventType, Op, WatchedEvent};
        let (mut s, _) = one_node_of_two();
        let calling = |path: &str| Status::Calling {
            op: Op::exists(path, true),
            watcher: Some(0),
        };
        s.peers[1].get_mut().client.main = calling("/locks/lock-0000000009");
        let notify = |notice| Status::Ready(Resume::Notify { watcher: 0, notice });
        let deleted = |path: &str| {
            Notice::Node(WatchedEvent {
                kind: EventType::NodeDeleted,
                path: path.into(),
            })
        };
        s.peers[1].get_mut().client.event = notify(deleted("/locks/lock-0000000005"));
        s.peers[0].get_mut().client.event =
            notify(Notice::Removed("/locks/lock-0000000007".into()));
        abstract_state(&mut s);
        // Suffixes 1, 5, 7 and 9 become ranks 0, 1, 2 and 3.
        assert!(s.server.node("/locks/lock-0000000000").is_some());
        assert_eq!(s.peers[1].client.main, calling("/locks/lock-0000000003"));
        assert_eq!(
            s.peers[1].client.event,
            notify(deleted("/locks/lock-0000000001"))
        );
        assert_eq!(
            s.peers[0].client.event,
            notify(Notice::Removed("/locks/lock-0000000002".into()))
        );
    }

    /// A container that has had a child stays reapable once the abstraction
    /// has renumbered its counter, even with no sequence name left in the
    /// state to rank; a persistent node's counter may fall back to zero.
    #[test]
    fn an_emptied_container_stays_reapable() {
        use crate::zk::{CreateMode, Op, Service};
        let cfg = CheckConfig::new(RecipeId::TryOnce, 2, 1);
        let mut s = System::initial(&cfg);
        let session = s.peers[0].session;
        let server = s.server.get_mut();
        for mode in [CreateMode::Container, CreateMode::Persistent] {
            let root = format!("/{mode:?}");
            server.handle(session, &Op::create(root.as_str(), mode));
            let child = format!("{root}/n-");
            server.handle(
                session,
                &Op::create(child.as_str(), CreateMode::PersistentSequential),
            );
            server.handle(
                session,
                &Op::delete(format!("{child}0000000000").as_str(), -1),
            );
        }
        assert!(s.server.has_reapable_containers());
        abstract_state(&mut s);
        assert!(s.server.has_reapable_containers());
        let cversion = |p: &str| s.server.node(p).map(|n| n.stat.cversion);
        assert_eq!(
            (cversion("/Container"), cversion("/Persistent")),
            (Some(2), Some(0))
        );
    }

    /// A reply on its way, a multi's among them, is renamed with the tree;
    /// and the parent's counter is set just above the largest rank, so the
    /// next sequential node is the one after every name the state holds.
    #[test]
    fn a_reply_in_flight_is_renamed_and_the_counter_set_just_above_the_ranks() {
        use crate::zk::check::system::Message;
        use crate::zk::{OpResult, TxnResult};
        let (mut s, _) = one_node_of_two();
        let multi = |path: &str| {
            let created = TxnResult::Created(path.into());
            Message::Reply(Thread::Main, Ok(OpResult::Multi(vec![created])))
        };
        s.peers[1]
            .get_mut()
            .inbox
            .push_back(multi("/locks/lock-0000000004"));
        abstract_state(&mut s);
        // Suffixes 1 and 4 become ranks 0 and 1; the next is 2.
        assert_eq!(
            s.peers[1].inbox.back(),
            Some(&multi("/locks/lock-0000000001"))
        );
        let locks = s.server.node("/locks").map(|n| n.next_sequence());
        assert_eq!(locks, Some(2));
    }

    /// A node under a sequential node carries the suffix inside its path:
    /// renaming the parent alone would orphan it, so such a state is left
    /// as it is — while the same tree without the child is renumbered.
    #[test]
    fn a_child_of_a_sequential_node_keeps_every_suffix_as_it_is() {
        use crate::zk::{CreateMode, Op, Service};
        let cfg = CheckConfig::new(RecipeId::TryOnce, 2, 1);
        let mut s = System::initial(&cfg);
        let session = s.peers[0].session;
        let server = s.server.get_mut();
        let create = Op::create("/locks/lock-", CreateMode::PersistentSequential);
        server.handle(session, &create);
        server.handle(session, &create);
        server.handle(session, &Op::delete("/locks/lock-0000000000", -1));
        let mut childless = s.clone();
        abstract_state(&mut childless);
        assert!(childless.server.node("/locks/lock-0000000000").is_some());
        let child = Op::create("/locks/lock-0000000001/x", CreateMode::Persistent);
        s.server.get_mut().handle(session, &child);
        // A watch on a plain path does not make the state sound again.
        s.server
            .get_mut()
            .handle(session, &Op::exists("/locks", true));
        let before = s.clone();
        abstract_state(&mut s);
        assert_eq!(s, before);
        assert!(s.server.node("/locks/lock-0000000001/x").is_some());
    }

    /// A plain node whose name ends in ten digits is no sequence number
    /// the server handed out: renaming it would change what the recipe
    /// reads, so the state is left as it is.
    #[test]
    fn a_plain_node_named_like_a_sequential_one_keeps_the_state_as_it_is() {
        use crate::zk::{CreateMode, Op, Service};
        let (mut s, session) = one_node_of_two();
        let plain = Op::create("/locks/lock-0000000007", CreateMode::Ephemeral);
        s.server.get_mut().handle(session, &plain);
        let before = s.clone();
        abstract_state(&mut s);
        assert_eq!(s, before);
        assert!(s.server.node("/locks/lock-0000000007").is_some());
        assert!(s.server.node("/locks/lock-0000000001").is_some());
    }
}
