//! What a served run reports: what the clients sent, what the server did
//! to them, and the judge's verdicts over their lock events.

use super::replay::Outcome;
use super::{Options, State, StoppedBy};
use locksmith_model::engine::harness::Property;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;

/// A fault that struck: which, on whom, when (ms from the start).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Struck {
    pub fault: String,
    pub on: String,
    pub at_ms: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Unsupported {
    pub request: String,
    pub count: u64,
    pub why: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Violation {
    pub property: &'static str,
    pub why: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClientFigures {
    pub client: String,
    pub acquisitions: u64,
}

/// A re-enacted trace: which, and how far it went.
#[derive(Clone, Debug, Serialize)]
pub struct TraceReport {
    pub property: &'static str,
    pub steps: usize,
    #[serde(flatten)]
    pub outcome: Option<Outcome>,
    /// Each step taken: the trace's line and what the server did.
    pub records: Vec<String>,
}

/// The run's report (`--json` prints it as is).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// `zookeeper` or `resp`.
    pub protocol: &'static str,
    /// Where clients connected.
    pub server: String,
    pub events: String,
    pub session_timeout_ms: u64,
    pub elapsed_ms: u64,
    /// `clients finished`, `time bound` or `signal`.
    pub stopped_by: &'static str,
    /// `holds`, `violated` or `incomplete` (nothing was violated, and the
    /// bound came before the clients finished, or no client acquired).
    pub verdict: &'static str,
    pub sessions: u64,
    pub connections: u64,
    pub requests: u64,
    /// Requests answered per second of the run.
    pub requests_per_second: f64,
    pub requests_by_op: BTreeMap<String, u64>,
    pub notifications: u64,
    pub expiries: u64,
    pub unsupported: Vec<Unsupported>,
    pub faults: Vec<Struck>,
    pub faults_not_struck: Vec<String>,
    pub log: Vec<String>,
    pub event_lines: u64,
    pub event_errors: Vec<String>,
    pub clients: Vec<ClientFigures>,
    pub acquisitions: u64,
    /// From the start of `serve` to the first `acquired` event.
    pub first_acquisition_ms: Option<u64>,
    pub writes: u64,
    pub violations: Vec<Violation>,
    /// With `--trace`: the re-enactment.
    pub trace: Option<TraceReport>,
}

pub(super) fn of(
    s: &State,
    options: &Options,
    zk: SocketAddr,
    events: SocketAddr,
    stopped_by: StoppedBy,
    clients: Option<usize>,
    elapsed: Duration,
) -> Summary {
    let record = options.protocol.record(s);
    let counts = &record.counts;
    let violations: Vec<Violation> = Property::ALL
        .into_iter()
        .filter_map(|p| {
            s.judge.violations.get(p).map(|why| Violation {
                property: p.name(),
                why: why.to_string(),
            })
        })
        .collect();
    let finished_all = clients.is_none_or(|n| s.judge.finished() >= n);
    let verdict = if !violations.is_empty() {
        "violated"
    } else if s.judge.acquisitions() == 0 {
        // Nothing was exercised: not "holds".
        "incomplete"
    } else if stopped_by == StoppedBy::ClientsFinished
        || (stopped_by == StoppedBy::Bound && finished_all)
    {
        "holds"
    } else {
        "incomplete"
    };
    Summary {
        protocol: options.protocol.name(),
        server: zk.to_string(),
        events: events.to_string(),
        session_timeout_ms: options.session_timeout.as_millis() as u64,
        elapsed_ms: elapsed.as_millis() as u64,
        stopped_by: match stopped_by {
            StoppedBy::ClientsFinished => "clients finished",
            StoppedBy::Bound => "time bound",
            StoppedBy::Signal => "signal",
        },
        verdict,
        sessions: counts.sessions,
        connections: counts.connections,
        requests: counts.requests,
        requests_per_second: counts.requests as f64 / elapsed.as_secs_f64().max(1e-3),
        requests_by_op: counts.by_op.clone(),
        notifications: counts.notifications,
        expiries: counts.expiries,
        unsupported: counts
            .unsupported
            .iter()
            .map(|(op, (count, why))| Unsupported {
                request: op.clone(),
                count: *count,
                why: why.clone(),
            })
            .collect(),
        faults: s.zk.struck.clone(),
        faults_not_struck: s
            .zk
            .faults
            .iter()
            .filter(|(_, done)| !done)
            .map(|(f, _)| f.to_string())
            .collect(),
        log: record
            .log
            .iter()
            .map(|h| format!("{} ms: {}", h.at_ms, h.what))
            .collect(),
        event_lines: s.event_lines,
        event_errors: s.event_errors.clone(),
        clients: s
            .judge
            .per_client()
            .into_iter()
            .map(|(client, acquisitions)| ClientFigures {
                client,
                acquisitions,
            })
            .collect(),
        trace: s.zk.replay.as_ref().map(|r| TraceReport {
            property: r.property.name(),
            steps: r.steps,
            outcome: r.outcome.clone(),
            records: r.records.clone(),
        }),
        acquisitions: s.judge.acquisitions(),
        first_acquisition_ms: s.judge.first_acquisition_ms,
        writes: s.judge.writes,
        violations,
    }
}

impl Summary {
    /// The exit code: 0 holds, 1 violated, 3 incomplete (130/143 for a
    /// signal are the caller's).
    pub fn exit_code(&self) -> i32 {
        match self.verdict {
            "holds" => 0,
            "violated" => 1,
            _ => 3,
        }
    }

    pub fn to_text(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "served {} on {} for {} ms (stopped by {}){}",
            if self.protocol == "resp" {
                "Redis (RESP)"
            } else {
                "ZooKeeper"
            },
            self.server,
            self.elapsed_ms,
            self.stopped_by,
            if self.protocol == "resp" {
                String::new()
            } else {
                format!(", session timeout {} ms", self.session_timeout_ms)
            }
        );
        let ops: Vec<String> = self
            .requests_by_op
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(
            t,
            "{} sessions, {} connections, {} requests ({:.0}/s: {}), {} notifications, {} expiries",
            self.sessions,
            self.connections,
            self.requests,
            self.requests_per_second,
            ops.join(", "),
            self.notifications,
            self.expiries
        );
        for u in &self.unsupported {
            let _ = writeln!(t, "not served: {} × {} ({})", u.count, u.request, u.why);
        }
        for f in &self.faults {
            let _ = writeln!(t, "fault {} struck {} at {} ms", f.fault, f.on, f.at_ms);
        }
        for f in &self.faults_not_struck {
            let _ = writeln!(t, "fault {f} never struck (its target never came)");
        }
        for l in &self.log {
            let _ = writeln!(t, "  {l}");
        }
        for e in &self.event_errors {
            let _ = writeln!(t, "bad event line: {e}");
        }
        let per: Vec<String> = self
            .clients
            .iter()
            .map(|c| format!("{} {}", c.client, c.acquisitions))
            .collect();
        let first = match self.first_acquisition_ms {
            Some(ms) => format!("first at {ms} ms"),
            None => "none".to_string(),
        };
        let _ = writeln!(
            t,
            "lock events: {} lines, {} acquisitions ({first}; {}), {} writes",
            self.event_lines,
            self.acquisitions,
            per.join(", "),
            self.writes
        );
        if let Some(tr) = &self.trace {
            let _ = writeln!(
                t,
                "the checker's shortest trace of {} ({} steps), re-enacted:",
                tr.property, tr.steps
            );
            for r in &tr.records {
                let _ = writeln!(t, "  {r}");
            }
            let _ = match &tr.outcome {
                Some(Outcome::Followed { steps }) => {
                    writeln!(t, "trace: followed to the end ({steps} steps)")
                }
                Some(Outcome::Diverged {
                    step,
                    expected,
                    actual,
                }) => writeln!(
                    t,
                    "trace: diverged at step {step}: expected {expected}; {actual}"
                ),
                Some(Outcome::Unserved { step, action }) => {
                    writeln!(t, "trace: stopped at step {step}: not served yet: {action}")
                }
                None => writeln!(t, "trace: not finished when the run stopped"),
            };
        }
        for v in &self.violations {
            let _ = writeln!(t, "violated: {}: {}", v.property, v.why);
        }
        let _ = writeln!(t, "verdict: {}", self.verdict);
        t
    }
}
