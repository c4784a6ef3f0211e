//! `locksmith confirm`: the checker's shortest counterexample re-enacted,
//! step for step, on a real ZooKeeper — `confirmed` with the same violation
//! there, or `diverged at step N` with what the model expected and what
//! the server did.
//!
//! Every driver runs the same recipe machine and decides when each reply,
//! event and thread step happens, so the checker's trace can be forced on
//! a real server ([`enact`]):
//!
//! - one real session per client, each through its own [`proxy`], under a
//!   fresh root on the server (the run's own, as `locksmith real`'s:
//!   [`crate::zk::real::root`]), chrooted there;
//! - a client's request reaches the server at the trace's `server<-c`
//!   step and is answered before the next step; the round trip on every
//!   session that follows makes sure every notification the transaction
//!   caused has arrived; replies and notifications are held and handed to
//!   the recipe's threads at the trace's `server->c` steps;
//! - thread steps in the trace's order; a timed wait runs out when the
//!   trace says (the client's clock, not the server's);
//! - session expiry, and a crashed process's session timing out, forced at
//!   their step: a second client attaches with the session's id and
//!   password and closes it (how ZooKeeper's own tests kill a session); a
//!   client learns of it as a library does, by asking the server;
//! - a connection loss through the proxy: it swallows the request in
//!   flight and drops the connection (not applied), or lets the request
//!   through, withholds the reply and drops the connection at the trace's
//!   step (applied, reply lost); a disconnect drops it with nothing in
//!   flight; the library's reconnect waits at the proxy until the trace's
//!   step;
//! - a crash: the process's connection closes, its session lives;
//! - the container reaper: the real one runs on its own timer; the step
//!   waits until it has taken what the model's took.
//! - the UNSAFE reordering within a session is done by `confirm` itself,
//!   on messages the server sent in order (ZooKeeper never reorders).
//!
//! After every step the two sides must agree (every client's whole state,
//! what is on its way to each, the tree); at the end the violated property
//! is judged on the real side ([`judge`]). Whatever happens, the run's
//! sessions are ended and its root deleted with everything under it.

pub mod command;
pub mod enact;
pub mod judge;
pub mod peer;
pub mod proxy;
pub mod trace;
pub mod tree;

pub use crate::confirm::{outcome, ConfirmReport, Outcome, StepRecord, Stop};
use crate::zk::real::{root, Session};
use enact::{Stage, Transaction};
use locksmith_model::engine::harness::Writes;
use locksmith_model::zk::check::System;
use locksmith_model::zk::client::RESOURCE_NODE;
use locksmith_model::zk::client::{Recipe, RecipeConfig};
use locksmith_model::zk::{CreateMode, Op};
use locksmith_model::{zk::check::CheckConfig, zk::check::Property};
use peer::RealPeer;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What one confirmation does.
#[derive(Clone, Debug)]
pub struct ConfirmConfig {
    /// The scenario's checker configuration: its trace is re-enacted.
    pub check: CheckConfig,
    /// The server, `host:port`.
    pub addr: String,
    /// An existing path the run's root is created under (`/`).
    pub base: String,
    /// The sessions' timeout (never reached: every expiry is forced).
    pub session_timeout: Duration,
    /// Set (by Ctrl-C) to stop early; it still cleans up.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// The property whose shortest trace is re-enacted; `None`: the first
    /// violated one the server can show ([`trace::shortest`]).
    pub property: Option<Property>,
}

impl ConfirmConfig {
    pub fn new(check: CheckConfig, addr: &str) -> ConfirmConfig {
        ConfirmConfig {
            check,
            addr: addr.to_string(),
            base: "/".into(),
            session_timeout: Duration::from_secs(10),
            interrupt: None,
            property: None,
        }
    }
}

/// `path` (as the recipes name it) inside the run's root `root`.
pub fn root_path(root: &str, path: &str) -> String {
    root::inside(root, path)
}

/// Creates the protected resource's znode in the run's root, as the
/// model's server has it from the start.
async fn create_resource(observer: &mut Session, run_root: &str) -> Result<(), String> {
    let path = root_path(run_root, RESOURCE_NODE);
    let create = Op::Create {
        path: path.as_str().into(),
        data: Vec::new(),
        mode: CreateMode::Persistent,
    };
    let out = observer.call_raw(&create).await;
    match out.reply {
        Ok(_) if out.answered => Ok(()),
        Ok(_) => Err(format!("create {path}: no answer")),
        Err(e) => Err(format!("create {path}: {e}")),
    }
}

/// Re-enacts the checker's shortest trace of `cfg.check` on the server.
/// An error: no violation to confirm, no server, or the run's root could
/// not be set up.
pub fn run(cfg: &ConfirmConfig) -> Result<ConfirmReport, String> {
    let found = trace::shortest(&cfg.check, cfg.property)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot build a tokio runtime: {e}"))?;
    rt.block_on(run_async(cfg, found))
}

async fn run_async(
    cfg: &ConfirmConfig,
    found: trace::CheckerTrace,
) -> Result<ConfirmReport, String> {
    let start = Instant::now();
    let mut observer = Session::connect(&cfg.addr, cfg.session_timeout).await?;
    let id = observer
        .id()
        .ok_or_else(|| format!("{}: the session has no id", cfg.addr))?;
    let run_root = root::name(&cfg.base, 0, id);
    let model = System::initial(&cfg.check);
    let lock_root = cfg
        .check
        .recipe
        .instantiate(RecipeConfig::new(1, 0))
        .lock_root()
        .to_string();
    // With `root = "recipe"` the recipe's own code creates its lock root
    // (what is above it is there, as in the model).
    let made = root::create(
        &mut observer,
        &cfg.base,
        &run_root,
        &lock_root,
        cfg.check.recipe_root,
    )
    .await;
    // Guarded writes set the resource's znode, which the model's server
    // starts with.
    let made = match made {
        Ok(()) if cfg.check.writes == Writes::Guarded => create_resource(&mut observer, &run_root)
            .await
            .map_err(|e| (true, e)),
        other => other,
    };
    if let Err((created, e)) = made {
        if created {
            let _ = root::remove(&mut observer, &run_root).await;
        }
        let _ = observer.close().await;
        return Err(e);
    }
    let mut peers = Vec::new();
    let mut opened = Ok(());
    for p in model.peers.iter() {
        match RealPeer::open(&cfg.addr, &run_root, p.client.clone(), cfg.session_timeout).await {
            Ok(r) => peers.push(r),
            Err(e) => {
                opened = Err(e);
                break;
            }
        }
    }
    let mut stage = Stage {
        model,
        peers,
        observer,
        root: run_root.clone(),
        records: Vec::new(),
        last: Transaction::default(),
        taken: 0,
        shared: cfg.check.shared_session,
    };
    let result = match opened {
        Ok(()) => enact_all(&mut stage, &found, cfg).await,
        Err(e) => Err(Stop::Failed(e)),
    };
    // Clean up whatever happened: the sessions first (their ephemeral
    // nodes go with them), then the root with everything under it.
    let mut closing = Ok(());
    for p in stage.peers.iter_mut() {
        if let Err(e) = p.close().await {
            closing = Err(e);
        }
    }
    let cleanup = root::remove(&mut stage.observer, &run_root).await;
    let _ = stage.observer.close().await;
    let cleanup = match (cleanup, closing) {
        (Ok(n), Ok(())) => Ok(n),
        (Ok(n), Err(e)) => Err(format!(
            "{n} node(s) deleted, but a session would not close: {e}"
        )),
        (Err(e), _) => Err(e),
    };
    let (outcome, interrupted) = outcome(result, stage.taken, &cleanup)?;
    Ok(ConfirmReport {
        property: found.property,
        trace_steps: found.actions.len(),
        states: found.states,
        cycle_start: found.cycle_start.map(|c| c + 1),
        outcome,
        transcript: stage.records,
        root: run_root,
        cleanup,
        elapsed: start.elapsed(),
        interrupted,
    })
}

fn interrupted(cfg: &ConfirmConfig) -> bool {
    cfg.interrupt
        .as_ref()
        .is_some_and(|f| f.load(Ordering::Relaxed))
}

/// Every step of the trace, then the verdict on the real side. A
/// starvation lasso's cycle is taken a second time: confirmed if both
/// rounds agree with the model and each brings the real side back where
/// the cycle began.
async fn enact_all(
    stage: &mut Stage,
    found: &trace::CheckerTrace,
    cfg: &ConfirmConfig,
) -> Result<String, Stop> {
    let actions = &found.actions;
    let abstracted = cfg.check.abstract_sequences;
    let mut at_cycle = None;
    for i in 0..actions.len() {
        if interrupted(cfg) {
            return Err(Stop::Interrupted);
        }
        if found.cycle_start == Some(i) {
            at_cycle = Some(snapshot(stage, abstracted).await?);
        }
        stage.step(actions, i).await?;
    }
    if found.property != Property::Starvation {
        return judge::violated(stage, found.property).await;
    }
    let (Some(c), Some(start)) = (found.cycle_start, at_cycle) else {
        return Err(Stop::Failed("a starvation trace without its cycle".into()));
    };
    let first = stage.taken;
    let symmetry = cfg.check.symmetry;
    let Some(perm) = same_up_to_renaming(&start, &snapshot(stage, abstracted).await?, symmetry)
    else {
        return Err(cycle_left(stage));
    };
    // Client i now stands where client perm[i] stood when the cycle began:
    // the second round has each of the cycle's actions taken by the client
    // now in the role of the one that took it.
    let mut inverse = vec![0u8; perm.len()];
    for (i, &k) in perm.iter().enumerate() {
        inverse[k] = i as u8;
    }
    let mut again = actions.clone();
    for a in again.iter_mut().skip(c) {
        *a = a.relabel(|k| inverse[usize::from(k)]);
    }
    for i in c..again.len() {
        if interrupted(cfg) {
            return Err(Stop::Interrupted);
        }
        stage.step(&again, i).await?;
    }
    let Some(perm2) = same_up_to_renaming(&start, &snapshot(stage, abstracted).await?, symmetry)
    else {
        return Err(cycle_left(stage));
    };
    let identity = |p: &[usize]| p.iter().enumerate().all(|(i, &k)| i == k);
    let renamed = !identity(&perm) || !identity(&perm2);
    let waiting: Vec<String> = stage
        .peers
        .iter()
        .enumerate()
        .filter(|(_, p)| p.client.is_waiting())
        .map(|(k, _)| format!("c{}", k + 1))
        .collect();
    Ok(format!(
        "the cycle (steps {}–{}) ran twice on the real server, each time bringing every client, every queue and the tree back where it began{}: {} for the lock forever while the cycle repeats",
        c + 1,
        first,
        match (abstracted, renamed) {
            (true, true) => " (up to sequence numbers, with clients' roles swapped)",
            (true, false) => " (up to sequence numbers)",
            (false, true) => " (with clients' roles swapped)",
            (false, false) => "",
        },
        judge::who_waits(&waiting)
    ))
}

/// The real side as a starvation cycle must bring it back: each client
/// (its state, queues and connection), and the tree with each node's owner
/// as a client number. With the sequence-suffix abstraction, suffixes are
/// replaced by their ranks and child counters left out (what the checker's
/// abstraction equates).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Snapshot {
    peers: Vec<String>,
    /// Path and node without its owner, and the owner.
    nodes: Vec<(String, String, Option<usize>)>,
}

async fn snapshot(stage: &mut Stage, abstracted: bool) -> Result<Snapshot, Stop> {
    let ids = stage.owner_ids();
    let tree = tree::real_tree(&mut stage.observer, &stage.root, &ids)
        .await
        .map_err(Stop::Failed)?;
    let mut peers: Vec<String> = stage
        .peers
        .iter()
        .map(|p| {
            format!(
                "{:?} {:?} {:?} {}",
                p.client, p.outbox, p.inbox, p.disconnected
            )
        })
        .collect();
    let mut nodes: Vec<(String, String, Option<usize>)> = tree
        .into_iter()
        .map(|(path, mut n)| {
            let owner = match n.owner {
                tree::Owner::Client(c) => Some(c),
                _ => None,
            };
            n.owner = tree::Owner::None;
            if abstracted {
                n.cversion = 0;
            }
            (path, format!("{n:?}"), owner)
        })
        .collect();
    if abstracted {
        let mut all: Vec<&mut String> = peers.iter_mut().collect();
        all.extend(nodes.iter_mut().map(|(p, _, _)| p));
        by_rank(&mut all);
    }
    Ok(Snapshot { peers, nodes })
}

fn cycle_left(stage: &Stage) -> Stop {
    Stop::Diverged {
        step: stage.taken,
        expected: "the cycle brings every client, every queue and the tree back where it began"
            .into(),
        actual: "the real side is elsewhere after the cycle".into(),
    }
}

/// How `now` is `then` with the clients renamed: client `i` now stands
/// where client `perm[i]` stood then (`None` if it is not) (the checker treats
/// clients running the same recipe as interchangeable when it reduces by
/// symmetry, so its cycle may end with two clients' roles swapped).
fn same_up_to_renaming(then: &Snapshot, now: &Snapshot, symmetry: bool) -> Option<Vec<usize>> {
    let n = then.peers.len();
    if now.peers.len() != n {
        return None;
    }
    let mut perm: Vec<usize> = (0..n).collect();
    loop {
        let peers_match = (0..n).all(|i| now.peers[i] == then.peers[perm[i]]);
        if peers_match {
            let mut renamed: Vec<_> = now
                .nodes
                .iter()
                .map(|(p, v, o)| (p.clone(), v.clone(), o.map(|c| perm[c])))
                .collect();
            renamed.sort();
            let mut was = then.nodes.clone();
            was.sort();
            if renamed == was {
                return Some(perm);
            }
        }
        if !symmetry || !next_permutation(&mut perm) {
            return None;
        }
    }
}

/// The next permutation in lexicographic order; false after the last.
fn next_permutation(p: &mut [usize]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        return false;
    };
    let j = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]).unwrap_or(i);
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// Every run of exactly ten digits (a sequence suffix) in `texts`
/// replaced by its rank among all of them.
fn by_rank(texts: &mut [&mut String]) {
    fn runs(t: &str) -> Vec<(usize, usize)> {
        let b = t.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() {
                let j = (i..b.len())
                    .find(|&k| !b[k].is_ascii_digit())
                    .unwrap_or(b.len());
                if j - i == 10 {
                    out.push((i, j));
                }
                i = j;
            } else {
                i += 1;
            }
        }
        out
    }
    let mut values: Vec<String> = texts
        .iter()
        .flat_map(|t| runs(t).into_iter().map(|(i, j)| t[i..j].to_string()))
        .collect();
    values.sort_unstable();
    values.dedup();
    for t in texts.iter_mut() {
        let mut out = String::with_capacity(t.len());
        let mut last = 0;
        for (i, j) in runs(t) {
            out.push_str(&t[last..i]);
            let rank = values.binary_search(&t[i..j].to_string()).unwrap_or(0);
            out.push_str(&format!("#{rank}"));
            last = j;
        }
        out.push_str(&t[last..]);
        **t = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_become_their_ranks_across_all_texts() {
        let mut a = "/l/a-0000000007 /l/a-0000000003 12".to_string();
        let mut b = "/l/a-0000000007 x-12345678901".to_string();
        by_rank(&mut [&mut a, &mut b]);
        assert_eq!(a, "/l/a-#1 /l/a-#0 12");
        assert_eq!(b, "/l/a-#1 x-12345678901");
    }

    #[test]
    fn a_snapshot_matches_itself_with_clients_swapped_only_under_symmetry() {
        let then = Snapshot {
            peers: vec!["waits".into(), "polls".into()],
            nodes: vec![("/l/a-#0".into(), "n".into(), Some(1))],
        };
        let now = Snapshot {
            peers: vec!["polls".into(), "waits".into()],
            nodes: vec![("/l/a-#0".into(), "n".into(), Some(0))],
        };
        assert_eq!(same_up_to_renaming(&then, &now, true), Some(vec![1, 0]));
        assert_eq!(same_up_to_renaming(&then, &now, false), None);
        assert_eq!(same_up_to_renaming(&then, &then, false), Some(vec![0, 1]));
        let mut wrong_owner = now.clone();
        wrong_owner.nodes[0].2 = Some(1);
        assert_eq!(same_up_to_renaming(&then, &wrong_owner, true), None);
    }

    #[test]
    fn permutations_run_through_all_orders() {
        let mut p = vec![0, 1, 2];
        let mut seen = 1;
        while next_permutation(&mut p) {
            seen += 1;
        }
        assert_eq!(seen, 6);
        assert_eq!(p, vec![2, 1, 0]);
    }
}
