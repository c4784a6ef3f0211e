//! The protected resource's node: the harness's [`Resource`] behind one
//! receiving task per client connection. Each holder writes to it when its
//! critical section begins and again when it ends (and waits for the
//! resource to acknowledge that closing write before it unlocks); the
//! resource judges mutual exclusion at the resource and fenced safety by
//! what actually reached it.
//!
//! [`Resource`]: locksmith_model::engine::harness::resource::Resource

use super::trace::Party;
use super::world::{lock, now, recv, resource_link, Inbox, Shared, World, Write};
use locksmith_model::engine::harness::resource::Outcome;

/// Applies a write; returns whether it was accepted.
pub fn apply(w: &mut World, wr: Write) -> bool {
    let c = wr.client;
    let t = now();
    let what = if wr.begin { "begin" } else { "end" };
    let outcome = w.resource.apply(wr);
    if w.clients[c].client.phase == locksmith_model::engine::harness::Phase::Crashed {
        // A write sent before the crash still arrives; no other follows.
        w.resource.writer_gone(c);
    }
    if let Outcome::Stale { newest } = outcome {
        w.metrics.rejected_writes += 1;
        let tok = wr.token.unwrap_or_default();
        w.trace.note(
            t,
            Some(Party::Resource),
            format!(
                "rejects c{}'s {what} write: token {tok} < {newest} (stale holder)",
                c + 1
            ),
        );
        return false;
    }
    if let Outcome::Violation(broken) = outcome {
        for (p, why) in broken {
            w.violate(p, why);
        }
    }
    if w.trace.wants() {
        let tok = wr.token.map(|t| format!(" token {t}")).unwrap_or_default();
        w.trace.note(
            t,
            Some(Party::Resource),
            format!("accepts c{}'s {what} write{tok}", c + 1),
        );
    }
    true
}

/// The resource node's task for client `c`'s connection.
pub async fn serve(shared: Shared, c: usize) {
    loop {
        let wr = recv(&shared, Inbox::Resource(c), resource_link).await;
        let mut w = lock(&shared);
        let end = !wr.begin;
        let ok = apply(&mut w, wr);
        if end {
            let at = now() + w.resource_latency();
            w.from_resource[c].send(at, ok);
        }
    }
}
