//! The violation, judged on the real side once the trace has been
//! re-enacted: from the real clients (fed only what the server sent), the
//! real server's tree, and what the last transaction really notified —
//! each property as the checker defines it.

use super::enact::{describe_client, Stage};
use super::peer::Line;
use super::tree::{real_tree, Owner};
use super::Stop;
use locksmith_model::engine::harness::{judge, Property};
use locksmith_model::zk::check::property;
use locksmith_model::zk::check::Message;
use locksmith_model::zk::client::{Recipe, Resume, Status, Thread};
use locksmith_model::zk::OpResult;
use std::time::Duration;

/// How long the real server must stay silent for a deadlock: three of the
/// container reaper's periods on the project's server, and far more than a
/// notification takes on a local one.
const QUIET: Duration = Duration::from_millis(300);

/// Why the real side shows `p` now, or why not.
pub async fn violated(stage: &mut Stage, p: Property) -> Result<String, Stop> {
    let n = stage.taken;
    let no = |expected: &str, actual: String| Stop::Diverged {
        step: n,
        expected: expected.to_string(),
        actual,
    };
    match p {
        Property::MutualExclusion => {
            let phases = stage.peers.iter().map(|p| p.client.phase);
            if judge::two_holders(phases) {
                let holders: Vec<String> = holders(stage);
                Ok(format!(
                    "{} believe they hold the lock at once",
                    holders.join(" and ")
                ))
            } else {
                Err(no(
                    "two clients believe they hold the lock",
                    format!("holders: {}", holders(stage).join(", ")),
                ))
            }
        }
        Property::ThreadDied => {
            match stage
                .peers
                .iter()
                .enumerate()
                .find_map(|(c, p)| match p.client.main {
                    Status::Dead(e) => Some((c, e)),
                    _ => None,
                }) {
                Some((c, e)) => Ok(format!("c{}'s main thread died of {e}", c + 1)),
                None => Err(no("a thread dies", "no thread died".into())),
            }
        }
        Property::Herd => {
            let t = &stage.last;
            let waiting: Vec<String> = t
                .woken
                .iter()
                .filter(|&&c| t.waiting_before.get(c).copied().unwrap_or(false))
                .map(|c| format!("c{}", c + 1))
                .collect();
            if t.release && judge::herd(waiting.len()) {
                Ok(format!(
                    "the release ({}) notified {} waiting clients on the real server: {}",
                    t.op.as_ref().map_or("?".into(), ToString::to_string),
                    waiting.len(),
                    waiting.join(", ")
                ))
            } else {
                Err(no(
                    "the release notifies more than one waiting client",
                    format!(
                        "release: {}; waiting clients notified: {}",
                        t.release,
                        waiting.join(", ")
                    ),
                ))
            }
        }
        Property::Deadlock => deadlocked(stage).await,
        Property::OrphanedNode => orphaned(stage).await,
        Property::Reentrancy => match stage
            .peers
            .iter()
            .position(|p| property::breaks_reentrancy(&p.client))
        {
            Some(c) => Ok(format!(
                "c{} breaks re-entrancy: it waits in its re-entrant lock(), an inner unlock() released, or one unlock() more would not throw",
                c + 1
            )),
            None => Err(no("a client breaks re-entrancy", "none does".into())),
        },
        // Judged by the caller (the cycle is taken again), or by nobody.
        Property::Starvation
        | Property::MutualExclusionAtResource
        | Property::FencedSafety
        | Property::UnlockByNonOwner
        | Property::StuckLock => Err(Stop::Unforced {
            step: n,
            why: format!("confirm does not judge {p} here"),
        }),
    }
}

fn holders(stage: &Stage) -> Vec<String> {
    stage
        .peers
        .iter()
        .enumerate()
        .filter(|(_, p)| p.client.holds())
        .map(|(c, _)| format!("c{}", c + 1))
        .collect()
}

/// Deadlock: nothing but a fault can happen, and a client waits. On the
/// real side: no thread of any client can run or time out, nothing is on
/// its way to or from a client, no library can reconnect or learn of an
/// ended session, no session awaits its time-out — and the server stays
/// silent: a round trip on every session brings nothing, nor does waiting,
/// and the tree does not change meanwhile (no reaper).
async fn deadlocked(stage: &mut Stage) -> Result<String, Stop> {
    let n = stage.taken;
    for (c, p) in stage.peers.iter().enumerate() {
        let who = format!("c{}", c + 1);
        let progress = if [Thread::Main, Thread::Event]
            .iter()
            .any(|&t| p.client.can_step(t) || p.client.timed_wait(t).is_some())
        {
            Some(format!(
                "{who} can still run: {}",
                describe_client(&p.client)
            ))
        } else if !p.inbox.is_empty() || !p.outbox.is_empty() {
            Some(format!("{who} has messages on their way"))
        } else {
            match &p.line {
                Line::Attached(_) if p.disconnected && !p.client.abandoned_session() => {
                    Some(format!("{who}'s library can still reconnect"))
                }
                Line::Away(_) => Some(format!("{who}'s session awaits its time-out")),
                Line::Ended(_)
                    if !p.client.session_lost
                        && !p.client.is_done()
                        && !p.client.has_pending_call() =>
                {
                    Some(format!("{who}'s library can still learn its session ended"))
                }
                _ if !p.abandoned.is_empty() => Some(format!(
                    "{who}'s library gave up on a session the server has not ended yet"
                )),
                _ => None,
            }
        };
        if let Some(why) = progress {
            return Err(Stop::Diverged {
                step: n,
                expected: "nothing can happen but a fault".into(),
                actual: why,
            });
        }
    }
    let ids = stage.owner_ids();
    let before = real_tree(&mut stage.observer, &stage.root, &ids)
        .await
        .map_err(Stop::Failed)?;
    let mut heard = Vec::new();
    for p in stage.peers.iter_mut() {
        heard.extend(p.barrier().await.map_err(Stop::Failed)?);
    }
    tokio::time::sleep(QUIET).await;
    for p in stage.peers.iter_mut() {
        heard.extend(p.barrier().await.map_err(Stop::Failed)?);
    }
    let after = real_tree(&mut stage.observer, &stage.root, &ids)
        .await
        .map_err(Stop::Failed)?;
    if !heard.is_empty() || before != after {
        return Err(Stop::Diverged {
            step: n,
            expected: "the server stays silent".into(),
            actual: format!(
                "within {} ms it sent {heard:?}{}",
                QUIET.as_millis(),
                if before != after {
                    " and the tree changed"
                } else {
                    ""
                }
            ),
        });
    }
    let waiting: Vec<String> = stage
        .peers
        .iter()
        .enumerate()
        .filter(|(_, p)| p.client.is_waiting())
        .map(|(c, p)| format!("c{} ({})", c + 1, status(&p.client.main)))
        .collect();
    if waiting.is_empty() {
        return Err(Stop::Diverged {
            step: n,
            expected: "a client waits for the lock".into(),
            actual: "nobody waits".into(),
        });
    }
    Ok(format!(
        "no thread can run, nothing is on its way, the server stayed silent for {} ms after a round trip on every session, and {} for the lock forever",
        QUIET.as_millis(),
        who_waits(&waiting)
    ))
}

/// "c2 waits", "c2 and c3 wait".
pub fn who_waits(clients: &[String]) -> String {
    match clients {
        [one] => format!("{one} waits"),
        [rest @ .., last] => format!("{} and {last} wait", rest.join(", ")),
        [] => "nobody waits".into(),
    }
}

fn status(s: &Status) -> String {
    match s {
        Status::Waiting(m) => format!("main thread in wait() on {m}"),
        Status::Awaiting(l) => format!("main thread in await() on {l}"),
        Status::Entering(m) => format!("main thread blocked entering {m}"),
        Status::Finished => "main thread returned; its callback will take the lock".into(),
        other => format!("main thread {other:?}"),
    }
}

/// Orphaned node: a sequential ephemeral node on the real server whose
/// owner's process lives and whose library is open (so its session lives
/// on), while nothing the owner holds names it — the checker's definition,
/// on the real tree and the real clients.
async fn orphaned(stage: &mut Stage) -> Result<String, Stop> {
    let n = stage.taken;
    // Threads on one session own its nodes together; the real side below
    // asks one owner only.
    if stage.shared {
        return Err(Stop::Unforced {
            step: n,
            why: "an orphaned node judged on a session the clients share (shared_session)".into(),
        });
    }
    let ids = stage.owner_ids();
    let tree = real_tree(&mut stage.observer, &stage.root, &ids)
        .await
        .map_err(Stop::Failed)?;
    for (path, node) in &tree {
        let Owner::Client(c) = node.owner else {
            continue;
        };
        let sequential = stage
            .model
            .server
            .node(path)
            .is_some_and(|m| m.mode.is_sequential());
        let p = &stage.peers[c];
        if !sequential || !matches!(p.line, Line::Attached(_)) || p.client.abandoned_session() {
            continue;
        }
        let unread = |t: &Status| matches!(t, Status::Ready(Resume::Reply(_)));
        if unread(&p.client.main) || unread(&p.client.event) {
            continue;
        }
        let mut named = p.inbox.iter().any(
            |m| matches!(m, Message::Reply(_, Ok(OpResult::Created(q))) if q.as_str() == path.as_str()),
        );
        p.client.recipe.paths(&mut |q| named |= q == path.as_str());
        if !named {
            return Ok(format!(
                "{path}, c{}'s ephemeral node on the real server, is named by nothing c{} holds, and its session lives on",
                c + 1,
                c + 1
            ));
        }
    }
    Err(Stop::Diverged {
        step: n,
        expected: "an orphaned lock node".into(),
        actual: "every sequential node on the server is still named by its owner".into(),
    })
}
