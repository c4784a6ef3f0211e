//! The comparison after every step: the reply, and each session's
//! notifications in the order it received them.

use crate::case::Case;
use crate::view::View;
use locksmith_model::zk::{EventType, SessionId, WatchedEvent};
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

/// The notifications one transaction (or one request) caused, as the model
/// predicts them.
pub struct Segment {
    pub events: Vec<(SessionId, WatchedEvent)>,
    /// The real server fires these in an order of its own (the ephemerals of
    /// one closing session are deleted in hash-set order): compared as a
    /// multiset. See docs/conformance.md, "Simplifications".
    pub unordered: bool,
}

impl Case<'_> {
    pub fn fail(&mut self, head: &str, diffs: String) -> String {
        self.line(format!("{head}   <-- DISAGREEMENT"));
        for l in std::mem::take(&mut self.pending) {
            self.line(l);
        }
        self.transcript.push_str(&diffs);
        std::mem::take(&mut self.transcript)
    }

    pub fn compare(
        &mut self,
        head: &str,
        model_reply: &View,
        real_reply: &View,
        segments: &[Segment],
        closing: Option<(SessionId, &[String])>,
    ) -> Result<(), String> {
        let mut diffs = String::new();
        if model_reply != real_reply {
            let _ = writeln!(diffs, "      reply  model: {model_reply:?}");
            let _ = writeln!(diffs, "      reply  real : {real_reply:?}");
        }
        let mut agreed_events = Vec::new();
        let mut matched = 0;
        for (k, sid) in self.ids.clone().into_iter().enumerate() {
            let mut real = self.real[k].take_events();
            if let Some((closer, deleted)) = closing.filter(|(c, _)| *c == sid) {
                // Simplification (model/src/zk/sessions.rs): the model drops a
                // closing session's watches before its close deletes the
                // session's ephemerals; the real server still delivers to the
                // closing client what those deletes fire. Exactly those, and
                // nothing else, are set aside here.
                let (own, rest): (Vec<_>, Vec<_>) = real
                    .into_iter()
                    .partition(|e| fired_by_deleting(e, deleted));
                if !own.is_empty() {
                    self.h
                        .totals
                        .close_self_events
                        .fetch_add(own.len() as u64, Ordering::Relaxed);
                    agreed_events.push(format!(
                        "s{} (closing; real only, simplification): {}",
                        closer.0,
                        events(&own)
                    ));
                }
                real = rest;
            }
            // The model's events for this session, one slice per segment;
            // the real ones cut to the same lengths.
            let mut model_all = Vec::new();
            let mut same = true;
            let mut at = 0;
            for seg in segments {
                let mut model: Vec<WatchedEvent> = seg
                    .events
                    .iter()
                    .filter(|(s, _)| *s == sid)
                    .map(|(_, e)| e.clone())
                    .collect();
                model_all.extend(model.iter().cloned());
                let end = (at + model.len()).min(real.len());
                let mut got = real[at..end].to_vec();
                at = end;
                if seg.unordered {
                    model.sort();
                    got.sort();
                }
                same &= model == got;
            }
            same &= at == real.len();
            if !same {
                let _ = writeln!(
                    diffs,
                    "      events of s{} model: {}",
                    sid.0,
                    events(&model_all)
                );
                let _ = writeln!(diffs, "      events of s{} real : {}", sid.0, events(&real));
            } else if !model_all.is_empty() {
                matched += model_all.len();
                agreed_events.push(format!("s{}: {}", sid.0, events(&model_all)));
            }
        }
        let stray: Vec<_> = segments
            .iter()
            .flat_map(|seg| &seg.events)
            .filter(|(s, _)| !self.ids.contains(s))
            .collect();
        if !stray.is_empty() {
            let _ = writeln!(diffs, "      model events for unknown sessions: {stray:?}");
        }
        if !diffs.is_empty() {
            return Err(self.fail(head, diffs));
        }
        let t = &self.h.totals;
        t.events.fetch_add(matched as u64, Ordering::Relaxed);
        for (_, e) in segments.iter().flat_map(|seg| &seg.events) {
            t.cover(format!("event {:?}", e.kind));
        }
        self.line(format!("{head} -> {model_reply:?}"));
        for l in std::mem::take(&mut self.pending) {
            self.line(l);
        }
        if !agreed_events.is_empty() {
            self.line(format!("      events {}", agreed_events.join("; ")));
        }
        Ok(())
    }
}

/// Whether deleting the nodes `deleted` can fire `e` (their own watches, or
/// a child watch on a parent).
fn fired_by_deleting(e: &WatchedEvent, deleted: &[String]) -> bool {
    deleted.iter().any(|d| match e.kind {
        EventType::NodeDeleted => e.path == d.as_str(),
        EventType::NodeChildrenChanged => {
            locksmith_model::zk::path::parent(d) == Some(e.path.as_str())
        }
        _ => false,
    })
}

fn events(list: &[WatchedEvent]) -> String {
    if list.is_empty() {
        return "none".into();
    }
    list.iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
