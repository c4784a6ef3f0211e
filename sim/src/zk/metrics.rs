//! What a run costs: packets by kind, wake-ups per release, acquisition
//! latency. Heartbeats (pings, pongs, connects) are counted apart from the
//! requests, replies and notifications a recipe causes.

use serde::Serialize;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    pub acquisitions: u64,
    /// Acquisitions during whose attempt the client received a watch
    /// notification (the definition `locksmith real` uses).
    pub contended_acquisitions: u64,
    /// Requests the recipes sent.
    pub requests: u64,
    /// Replies the server sent to them.
    pub replies: u64,
    /// Watch notifications the server sent.
    pub notifications: u64,
    /// Pings, pongs and (re)connect handshakes.
    pub heartbeats: u64,
    /// Releases (deleting transactions and session ends) while another
    /// client was trying to acquire.
    pub contended_releases: u64,
    /// Sessions other than the releaser's that those releases notified.
    pub wakeups: u64,
    /// Acquisition latencies (lock() called → returned), ns.
    pub latencies: Vec<u64>,
    /// Writes the resource rejected for a stale fencing token.
    pub rejected_writes: u64,
    /// Times a client acquired while another still believed it held.
    pub belief_overlaps: u64,
    /// Acquisitions ahead of an earlier arrival still waiting (FIFO
    /// fairness broken: `harness::judge::out_of_order`).
    pub out_of_order_acquisitions: u64,
    /// Sessions the server expired.
    pub expiries: u64,
    /// Of those, sessions whose client was inside its critical section
    /// when the server expired them: a holder fault that struck where
    /// its column says (a stale holder).
    pub holder_expiries: u64,
    /// Holders that left their critical section because their listener's
    /// flag was set (`curator-listener`): a holder fault that struck where
    /// its column says, and was seen.
    pub flagged_exits: u64,
    /// Faults injected.
    pub faults: u64,
    /// Timed `wait(millis)`s that ran out before a notification came.
    pub wait_timeouts: u64,
    /// Deadlines of `acquire(time, unit)` that passed during the call.
    pub deadlines_passed: u64,
    /// `lock()` calls that returned without the lock (a timed acquire out
    /// of time); the caller tries again.
    pub gave_up: u64,
    /// Simulated duration of the run, ns.
    pub sim_ns: u64,
}

/// The figures a report prints, over one run or a whole sweep.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Summary {
    pub runs: u64,
    pub acquisitions: u64,
    pub contended_acquisitions: u64,
    pub requests: u64,
    pub replies: u64,
    pub notifications: u64,
    pub heartbeats: u64,
    pub notifications_per_acquisition: f64,
    /// All notifications ÷ contended acquisitions (1 for the textbook lock).
    pub notifications_per_contended_acquisition: f64,
    pub packets_per_acquisition: f64,
    pub wakeups_per_release: f64,
    pub latency_p50_ms: f64,
    pub latency_p99_ms: f64,
    pub rejected_writes: u64,
    pub belief_overlaps: u64,
    /// Acquisitions ahead of an earlier arrival still waiting.
    pub out_of_order_acquisitions: u64,
    /// Their share of all acquisitions (0 for a FIFO lock).
    pub out_of_order_per_acquisition: f64,
    pub expiries: u64,
    pub faults: u64,
    pub wait_timeouts: u64,
    pub deadlines_passed: u64,
    pub gave_up: u64,
    pub simulated_ms: f64,
}

/// Accumulates runs into a [`Summary`].
#[derive(Debug, Clone, Default)]
pub struct Totals {
    m: Metrics,
    runs: u64,
    /// Runs in which some session expired inside its critical section.
    stale_holder_runs: u64,
    /// Runs in which a holder fault struck inside a critical section: a
    /// session expired there, or a listener made its holder leave.
    struck_holder_runs: u64,
}

impl Totals {
    pub fn add(&mut self, r: &Metrics) {
        let m = &mut self.m;
        self.runs += 1;
        self.stale_holder_runs += u64::from(r.holder_expiries > 0);
        self.struck_holder_runs += u64::from(r.holder_expiries > 0 || r.flagged_exits > 0);
        m.holder_expiries += r.holder_expiries;
        m.flagged_exits += r.flagged_exits;
        m.acquisitions += r.acquisitions;
        m.contended_acquisitions += r.contended_acquisitions;
        m.requests += r.requests;
        m.replies += r.replies;
        m.notifications += r.notifications;
        m.heartbeats += r.heartbeats;
        m.contended_releases += r.contended_releases;
        m.wakeups += r.wakeups;
        m.rejected_writes += r.rejected_writes;
        m.belief_overlaps += r.belief_overlaps;
        m.out_of_order_acquisitions += r.out_of_order_acquisitions;
        m.wait_timeouts += r.wait_timeouts;
        m.deadlines_passed += r.deadlines_passed;
        m.gave_up += r.gave_up;
        m.expiries += r.expiries;
        m.faults += r.faults;
        m.sim_ns += r.sim_ns;
        // Keep the latency sample bounded over long sweeps.
        if m.latencies.len() < 1_000_000 {
            m.latencies.extend_from_slice(&r.latencies);
        }
    }

    pub fn merge(&mut self, o: &Totals) {
        let (runs, stale, struck) = (self.runs, self.stale_holder_runs, self.struck_holder_runs);
        self.add(&o.m);
        self.runs = runs + o.runs;
        self.stale_holder_runs = stale + o.stale_holder_runs;
        self.struck_holder_runs = struck + o.struck_holder_runs;
    }

    /// In how many runs a session expired while its client was inside its
    /// critical section.
    pub fn stale_holder_runs(&self) -> u64 {
        self.stale_holder_runs
    }

    /// In how many runs a holder fault struck inside a critical section:
    /// a session expired there, or a listener made its holder leave it.
    pub fn struck_holder_runs(&self) -> u64 {
        self.struck_holder_runs
    }

    pub fn summary(&self) -> Summary {
        let m = &self.m;
        let per = |x: u64, n: u64| if n == 0 { 0.0 } else { x as f64 / n as f64 };
        let mut l = m.latencies.clone();
        l.sort_unstable();
        let pct = |q: f64| {
            if l.is_empty() {
                0.0
            } else {
                let i = ((l.len() as f64 - 1.0) * q).round() as usize;
                l[i.min(l.len() - 1)] as f64 / 1e6
            }
        };
        Summary {
            runs: self.runs,
            acquisitions: m.acquisitions,
            contended_acquisitions: m.contended_acquisitions,
            requests: m.requests,
            replies: m.replies,
            notifications: m.notifications,
            heartbeats: m.heartbeats,
            notifications_per_acquisition: per(m.notifications, m.acquisitions),
            notifications_per_contended_acquisition: per(m.notifications, m.contended_acquisitions),
            packets_per_acquisition: per(m.requests + m.replies + m.notifications, m.acquisitions),
            wakeups_per_release: per(m.wakeups, m.contended_releases),
            latency_p50_ms: pct(0.5),
            latency_p99_ms: pct(0.99),
            rejected_writes: m.rejected_writes,
            belief_overlaps: m.belief_overlaps,
            out_of_order_acquisitions: m.out_of_order_acquisitions,
            out_of_order_per_acquisition: per(m.out_of_order_acquisitions, m.acquisitions),
            wait_timeouts: m.wait_timeouts,
            deadlines_passed: m.deadlines_passed,
            gave_up: m.gave_up,
            expiries: m.expiries,
            faults: m.faults,
            simulated_ms: m.sim_ns as f64 / 1e6,
        }
    }
}
