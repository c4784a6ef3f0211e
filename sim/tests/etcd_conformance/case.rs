//! One sequence on both sides: each step goes to a fresh model and to the
//! real etcd (keys under the case's prefix, leases of the case's own ids,
//! revisions shifted by the store's revision when the case began), and the
//! replies must be equal; so must the `DELETE` events the watches get.

use super::ops::{Step, TxnOp, KEYS, LEASES, VALUES};
use locksmith::etcd::real::wire::{Gateway, Rebase, Watch};
use locksmith_model::etcd::{
    Cmp, Compare, EtcdServer, LeaseId, Op, Order, Put, Range, Reply, Request, Target, Txn,
};
use std::time::Duration;

/// How long a watch the model says fired may take to deliver its event,
/// and how long one the model says did not is given to prove it wrong.
const DELIVERY: Duration = Duration::from_secs(5);
const SILENCE: Duration = Duration::from_millis(60);

/// What one case compared.
#[derive(Default)]
pub struct Tally {
    pub requests: u64,
    pub events: u64,
    /// Compactions left out: a watch was open.
    pub skipped: u64,
}

/// Runs `seq` as case number `n` of run `run` (a store revision when the
/// run began: keys of earlier runs are never the case's); the transcript
/// of what agreed, or the first disagreement with the transcript before
/// it.
pub fn run_case(
    g: &Gateway,
    run: i64,
    n: u32,
    seq: &[Step],
    tally: &mut Tally,
) -> Result<String, String> {
    let outcome = compare_case(g, run, n, seq, tally);
    // The case's leases go with it: one left to expire 60 s later would
    // delete its keys in the middle of a later case, a revision that case
    // did not make.
    for l in 0..LEASES {
        g.call(&Request::Revoke(lease_of(n, l)))?;
    }
    outcome
}

/// Lease `l` of case `n`.
fn lease_of(n: u32, l: usize) -> LeaseId {
    LeaseId(u16::try_from(n % 8000).unwrap_or(0) * 8 + 1 + l as u16)
}

fn compare_case(
    g: &Gateway,
    run: i64,
    n: u32,
    seq: &[Step],
    tally: &mut Tally,
) -> Result<String, String> {
    // Leases left by an earlier run of the same case number go first.
    for l in 0..LEASES {
        g.call(&Request::Revoke(lease_of(n, l)))?;
    }
    let base = match g.call(&Request::Range(Range::key("\0")))? {
        Reply::Range { revision, .. } => revision,
        other => return Err(format!("the store's revision: {other}")),
    };
    let rebase = Rebase {
        prefix: format!("run{run}/case{n}/"),
        base,
    };
    let mut model = EtcdServer::new();
    let mut watches: Vec<(u8, Watch, Option<Reply>)> = Vec::new();
    let mut transcript = String::new();
    for (i, step) in seq.iter().enumerate() {
        // A compaction cancels a watch from an older revision that the
        // server has not caught up yet (its watchers sync every 100 ms): a
        // race of the real server's timing, not the model's. No compaction
        // while a watch is open.
        if matches!(step, Step::Compact(_)) && !watches.is_empty() {
            tally.skipped += 1;
            continue;
        }
        let m_req = request(step, n);
        let r_req = rebase.request(&m_req);
        // Each watch its own number (a fired one's is not reused).
        let watcher = i as u8;
        let (m_reply, fired) = model.apply(watcher, &m_req);
        tally.requests += 1;
        let line = format!("{:>3}. {m_req}", i + 1);
        let r_reply = if let Request::Watch { key, from } = &r_req {
            let mut w = g.watch(key, *from)?;
            let first = w.next_delete(match m_reply {
                Reply::Watching => SILENCE,
                _ => DELIVERY,
            })?;
            match first {
                Some(reply) => reply,
                None => {
                    watches.push((watcher, w, None));
                    Reply::Watching
                }
            }
        } else {
            g.call(&r_req)?
        };
        let want = rebase.reply(&m_reply);
        if want != r_reply {
            return Err(format!(
                "{transcript}{line}\n     model: {want}\n     real:  {r_reply}\n"
            ));
        }
        transcript.push_str(&format!("{line} → {r_reply}\n"));
        for f in fired {
            let Some((_, w, got)) = watches.iter_mut().find(|(id, _, _)| *id == f.watcher) else {
                continue;
            };
            let e = w.next_delete(DELIVERY)?;
            let want = rebase.reply(&Reply::Event(f.event));
            if e.as_ref() != Some(&want) {
                return Err(format!(
                    "{transcript}     watch {}: model: {want}\n     real:  {e:?}\n",
                    f.watcher
                ));
            }
            tally.events += 1;
            *got = e;
            transcript.push_str(&format!("     watch {} fires: {want}\n", f.watcher));
        }
        watches.retain(|(_, _, got)| got.is_none());
    }
    // A watch the model says never fired hears no DELETE either.
    for (id, w, _) in &mut watches {
        if let Some(e) = w.next_delete(SILENCE)? {
            return Err(format!(
                "{transcript}     watch {id}: the model has no event, the real etcd sent {e}\n"
            ));
        }
    }
    Ok(transcript)
}

fn put(key: usize, value: usize, lease: Option<usize>, n: u32) -> Put {
    Put {
        key: KEYS[key].to_string(),
        value: VALUES[value].to_string(),
        lease: lease.map(|l| lease_of(n, l)),
    }
}

fn range(key: usize, prefix: bool) -> Range {
    Range {
        prefix,
        ..Range::key(KEYS[key])
    }
}

fn txn_op(op: &TxnOp, n: u32) -> Op {
    match *op {
        TxnOp::Put { key, value, lease } => Op::Put(put(key, value, lease, n)),
        TxnOp::Get { key, prefix } => Op::Get(range(key, prefix)),
        TxnOp::Delete { key } => Op::Delete {
            key: KEYS[key].to_string(),
            prefix: false,
        },
    }
}

/// The step as the model's request (case `n`'s leases; keys and
/// revisions as the model has them: [`Rebase`] moves them to the real
/// server's).
fn request(step: &Step, n: u32) -> Request {
    match step {
        Step::Put { key, value, lease } => Request::Put(put(*key, *value, *lease, n)),
        Step::Get {
            key,
            prefix,
            order,
            limit,
            max_create,
        } => Request::Range(Range {
            order: [Order::Key, Order::CreateAscending, Order::CreateDescending][*order],
            limit: *limit,
            max_create_revision: *max_create,
            ..range(*key, *prefix)
        }),
        Step::Delete { key, prefix } => Request::Delete {
            key: KEYS[*key].to_string(),
            prefix: *prefix,
        },
        Step::Txn {
            compare,
            success,
            failure,
        } => Request::Txn(Txn {
            compare: compare
                .iter()
                .map(|&(key, target, cmp, rev)| Compare {
                    key: KEYS[key].to_string(),
                    cmp: [Cmp::Equal, Cmp::NotEqual, Cmp::Greater, Cmp::Less][cmp],
                    target: match target {
                        0 => Target::CreateRevision(rev),
                        1 => Target::ModRevision(rev),
                        2 => Target::Version(rev.min(3)),
                        _ => Target::Value(VALUES[rev as usize % VALUES.len()].to_string()),
                    },
                })
                .collect(),
            success: success.iter().map(|o| txn_op(o, n)).collect(),
            failure: failure.iter().map(|o| txn_op(o, n)).collect(),
        }),
        Step::Grant(lease) => Request::Grant {
            id: lease_of(n, *lease),
            ttl: 60,
        },
        Step::KeepAlive(lease) => Request::KeepAlive(lease_of(n, *lease)),
        Step::Revoke(lease) => Request::Revoke(lease_of(n, *lease)),
        Step::Watch { key, from } => Request::Watch {
            key: KEYS[*key].to_string(),
            from: *from,
        },
        Step::Compact(rev) => Request::Compact(*rev),
    }
}
