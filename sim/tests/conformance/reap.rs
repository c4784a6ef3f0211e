//! Container reaping: the real server's reaper deletes emptied containers
//! on its own schedule; the model reaps them, in the real order, once it
//! agrees they are due. An observer session watches every container to
//! learn that order.

use crate::case::Case;
use crate::compare::Segment;
use locksmith::zk::real::RawResult;
use locksmith_model::zk::{CreateMode, EventType, Op, ZkServer};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long the real container reaper may take to delete a container the
/// model says is reapable (the script runs it every 100 ms).
const REAP_TIMEOUT: Duration = Duration::from_secs(10);

impl Case<'_> {
    /// Reads the observer's notifications: a `NodeDeleted` of a container
    /// the model still has is a real deletion the model has yet to explain
    /// (a reap, or a disagreement).
    pub async fn observe(&mut self) -> Result<(), String> {
        self.observer.sync().await?;
        for e in self.observer.take_events() {
            if !self.in_case(&e.path) {
                continue;
            }
            let watched = self.observed.remove(e.path.as_str());
            // The model still has the very node the watch was set on: only a
            // reap can have deleted it. (A step that deleted the container and
            // created its path again fires the watch too; the model then
            // holds a newer node.)
            let unexplained = self
                .model
                .node(&e.path)
                .is_some_and(|n| watched.is_none_or(|czxid| n.stat.czxid == czxid));
            if e.kind == EventType::NodeDeleted && unexplained {
                self.real_reaped.push(e.path.to_string());
            }
        }
        Ok(())
    }

    /// After a step: the real container reaper's deletions, applied to the
    /// model in the real order once the model agrees they are due; then a
    /// round trip on every session so that every notification has arrived.
    pub async fn settle(&mut self, head: &str, segments: &mut Vec<Segment>) -> Result<(), String> {
        if let Err(e) = self.observe().await {
            return Err(self.fail(head, format!("      observer: {e}\n")));
        }
        loop {
            let reapable = reapable(&self.model, |p| self.in_case(p));
            if reapable.is_empty() && self.real_reaped.is_empty() {
                break;
            }
            // Wait for the real reaper to take what the model says is due.
            for path in &reapable {
                let since = Instant::now();
                loop {
                    let exists = Op::Exists {
                        path: path.as_str().into(),
                        watch: false,
                    };
                    let stat = match self.observer.run(&exists).await {
                        Ok(Ok(RawResult::Exists(stat))) => stat,
                        Ok(Ok(other)) => {
                            return Err(format!("observer: exists({path}): {other:?}"))
                        }
                        Ok(Err(e)) => return Err(format!("observer: exists({path}): {e}")),
                        Err(e) => return Err(format!("observer: {e}")),
                    };
                    if stat.is_none() {
                        // An observer watch already spent on another event
                        // of the same step (a multi's setData on the
                        // container, then the delete of its last child)
                        // cannot tell the reap: the poll does.
                        if !self.observed.contains_key(path) && !self.real_reaped.contains(path) {
                            self.real_reaped.push(path.clone());
                        }
                        break;
                    }
                    if since.elapsed() > REAP_TIMEOUT {
                        return Err(self.fail(
                            head,
                            format!(
                                "      the model reaps the empty container {path}; the real \
                                 server still has it after {REAP_TIMEOUT:?}: {stat:?}\n"
                            ),
                        ));
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
            if let Err(e) = self.observe().await {
                return Err(self.fail(head, format!("      observer: {e}\n")));
            }
            // Reap in the real order, each as its own transaction.
            let order = std::mem::take(&mut self.real_reaped);
            let mut progressed = false;
            for path in order {
                if !reapable.contains(&path) {
                    let node = self.model.node(&path).cloned();
                    return Err(self.fail(
                        head,
                        format!(
                            "      the real server deleted {path}; the model keeps it \
                             (not reapable now): {node:?}\n"
                        ),
                    ));
                }
                let events = self.model.reap_container(&path);
                self.h.totals.reaps.fetch_add(1, Ordering::Relaxed);
                self.h.totals.cover("container reaped".into());
                self.pending.push(format!(
                    "      (then the reaper deletes the container {path})"
                ));
                segments.push(Segment {
                    events,
                    unordered: false,
                });
                progressed = true;
            }
            if !progressed {
                return Err(self.fail(
                    head,
                    format!(
                        "      the real server deleted the containers {reapable:?} but the \
                         observer's watches did not see it\n"
                    ),
                ));
            }
        }
        // Watch every container (the observer's own watches change nothing
        // the sessions see, and cost no zxid).
        let containers: Vec<(String, i64)> = self
            .model
            .nodes()
            .filter(|(p, n)| n.mode == CreateMode::Container && self.in_case(p))
            .map(|(p, n)| (p.to_string(), n.stat.czxid))
            .filter(|(p, _)| !self.observed.contains_key(p))
            .collect();
        for (path, czxid) in containers {
            let op = Op::Exists {
                path: path.as_str().into(),
                watch: true,
            };
            match self.observer.run(&op).await {
                Ok(Ok(RawResult::Exists(Some(_)))) => {
                    self.observed.insert(path, czxid);
                }
                other => {
                    return Err(self.fail(
                        head,
                        format!(
                            "      the model has the container {path}; the real server \
                             answers the observer's exists with {other:?}\n"
                        ),
                    ))
                }
            }
        }
        for k in 0..self.real.len() {
            if let Err(e) = self.real[k].sync().await {
                return Err(self.fail(head, format!("      s{}: {e}\n", self.ids[k].0)));
            }
        }
        Ok(())
    }
}

/// The containers a reaper pass would take now (as `ZkServer` decides it:
/// had a child, has none), among the paths `keep` accepts.
fn reapable(model: &ZkServer, keep: impl Fn(&str) -> bool) -> Vec<String> {
    model
        .nodes()
        .filter(|(p, n)| {
            n.mode == CreateMode::Container
                && n.stat.cversion > 0
                && n.stat.num_children == 0
                && keep(p)
        })
        .map(|(p, _)| p.to_string())
        .collect()
}
