//! The protected resource: what the lock is for. Each holder writes to it
//! when its critical section begins and again when it ends (and waits for
//! the resource to acknowledge that closing write before it unlocks); the resource
//! judges mutual exclusion by what actually reached it, not by what the
//! clients believed: two holders' sections overlap when one's opening write
//! arrives while another's section is open.
//!
//! With fencing, every write carries the holder's token (its lock node's
//! sequence number); the resource rejects a token older than the newest it
//! has accepted, and accepting a newer token closes the sections of older
//! ones (the resource has moved on). Fenced safety: no accepted write ever
//! carries an older token than one accepted before.

use super::trace::Party;
use super::world::{lock, now, recv, resource_link, Inbox, Shared, SimProperty, World, Write};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default)]
pub struct Resource {
    /// Open critical sections: client → token.
    inside: BTreeMap<usize, Option<u64>>,
    newest: Option<u64>,
}

/// Applies a write; returns whether it was accepted.
pub fn apply(w: &mut World, wr: Write) -> bool {
    let c = wr.client;
    let t = now();
    let what = if wr.begin { "begin" } else { "end" };
    if let Some(tok) = wr.token {
        if let Some(newest) = w.resource.newest {
            if tok < newest {
                w.metrics.rejected_writes += 1;
                w.trace.note(
                    t,
                    Some(Party::Resource),
                    format!(
                        "rejects c{}'s {what} write: token {tok} < {newest} (stale holder)",
                        c + 1
                    ),
                );
                w.resource.inside.remove(&c);
                return false;
            }
        }
        w.resource.newest = Some(tok);
        w.resource
            .inside
            .retain(|_, old| !matches!(old, Some(o) if *o < tok));
    }
    if wr.begin {
        if let Some((&other, _)) = w.resource.inside.iter().find(|(&o, _)| o != c) {
            w.violate(
                SimProperty::MutualExclusion,
                format!(
                    "the resource saw c{} begin a write while c{}'s critical section was open",
                    c + 1,
                    other + 1
                ),
            );
        }
        w.resource.inside.insert(c, wr.token);
    } else {
        w.resource.inside.remove(&c);
    }
    if w.trace.on {
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
            let at = now() + w.latency();
            w.from_resource[c].send(at, ok);
        }
    }
}
