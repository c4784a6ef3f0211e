//! `locksmith calibrate`: the real server's service times, as the
//! simulator's `[sim]` keys (`latency_ms`, `server_read_ms`,
//! `server_write_ms`).
//!
//! - A read's and a write's round trip, one at a time on one session:
//!   `exists` and `setData` on a node of the run's own root.
//! - The server's time per read and per write: `SESSIONS` sessions each
//!   send theirs one after another, all at once, so that the server's
//!   pipeline is never idle; its time per request is the elapsed time over
//!   the requests served.
//! - The one-way latency: what is left of a read's round trip once the
//!   server's time per read is taken out, halved (its 10th and 90th
//!   percentiles as the range).
//!
//! - Notification delivery: one session watches a node (`exists` with a
//!   watch), another sets it; how much later the watch's notification
//!   reaches its session than the setter's reply reaches the setter, in
//!   the same process (the server sends both as it applies the write).
//!   Its median is the `[sim]` key `event_ms`: the simulated client library
//!   hands each notification on that much later than it arrives.

use super::root;
use super::{RawResult, Session};
use locksmith_model::zk::{CreateMode, Op};
use std::time::{Duration, Instant};

/// Sessions that keep the server busy for the throughput figures.
const SESSIONS: usize = 8;

/// What one calibration measured, in milliseconds.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Calibration {
    pub server: String,
    pub requests: usize,
    /// One read's and one write's round trip: (10th, 50th, 90th
    /// percentile).
    pub read_rtt_ms: [f64; 3],
    pub write_rtt_ms: [f64; 3],
    /// The server's time per read and per write, kept busy.
    pub server_read_ms: f64,
    pub server_write_ms: f64,
    /// The one-way latency the simulator draws from.
    pub latency_ms: [f64; 2],
    /// How much later a notification reaches its session than the reply
    /// to the write that fired it reaches the writer: (10th, 50th, 90th
    /// percentile), negative where the notification came first.
    pub event_delay_ms: [f64; 3],
    /// The simulator's `event_ms`: the median delay, at least 0.
    pub event_ms: f64,
    pub elapsed_ms: f64,
}

impl Calibration {
    /// The `[sim]` profile: keys a scenario's `[sim]` table takes as they are.
    pub fn profile(&self) -> String {
        let r = |x: f64| (x * 1000.0).round() / 1000.0;
        format!(
            "# Written by `locksmith calibrate --zk {server}` ({n} requests per figure).\n\
             # Read round trip p10/p50/p90: {:.3}/{:.3}/{:.3} ms; write: {:.3}/{:.3}/{:.3} ms.\n\
             # A notification after the write's reply p10/p50/p90: {:.3}/{:.3}/{:.3} ms.\n\
             [sim]\n\
             latency_ms = [{}, {}]\n\
             server_read_ms = {}\n\
             server_write_ms = {}\n\
             event_ms = {:?}\n",
            self.read_rtt_ms[0],
            self.read_rtt_ms[1],
            self.read_rtt_ms[2],
            self.write_rtt_ms[0],
            self.write_rtt_ms[1],
            self.write_rtt_ms[2],
            self.event_delay_ms[0],
            self.event_delay_ms[1],
            self.event_delay_ms[2],
            r(self.latency_ms[0]),
            r(self.latency_ms[1]),
            r(self.server_read_ms),
            r(self.server_write_ms),
            r(self.event_ms),
            server = self.server,
            n = self.requests,
        )
    }
}

/// Measures the server at `addr` with `requests` requests per figure,
/// under a run root of its own that it deletes at the end.
pub fn run(addr: &str, requests: usize) -> Result<Calibration, String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot build a tokio runtime: {e}"))?;
    rt.block_on(measure(addr, requests.max(SESSIONS)))
}

async fn measure(addr: &str, requests: usize) -> Result<Calibration, String> {
    let start = Instant::now();
    let timeout = Duration::from_secs(10);
    let mut setup = Session::connect(addr, timeout).await?;
    let id = setup
        .id()
        .ok_or_else(|| format!("{addr}: the session has no id"))?;
    let run_root = root::name("/", 0, id);
    if let Err((created, e)) = root::create(&mut setup, "/", &run_root, "/nodes", false).await {
        if created {
            let _ = root::remove(&mut setup, &run_root).await;
        }
        let _ = setup.close().await;
        return Err(e);
    }
    let result = figures(addr, &run_root, requests, timeout).await;
    let cleanup = root::remove(&mut setup, &run_root).await;
    let _ = setup.close().await;
    let (read_rtt, write_rtt, read, write, event_delay) = result?;
    cleanup?;
    let one_way = |rtt: f64| ((rtt - read) / 2.0).max(0.0);
    Ok(Calibration {
        server: addr.to_string(),
        requests,
        read_rtt_ms: read_rtt,
        write_rtt_ms: write_rtt,
        server_read_ms: read,
        server_write_ms: write,
        latency_ms: [one_way(read_rtt[0]), one_way(read_rtt[2])],
        event_delay_ms: event_delay,
        event_ms: event_delay[1].max(0.0),
        elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

type Figures = ([f64; 3], [f64; 3], f64, f64, [f64; 3]);

async fn figures(
    addr: &str,
    run_root: &str,
    requests: usize,
    timeout: Duration,
) -> Result<Figures, String> {
    let chrooted = format!("{addr}{run_root}");
    let mut sessions = Vec::new();
    for k in 0..SESSIONS {
        let mut s = Session::connect(&chrooted, timeout).await?;
        call(&mut s, &create(k)).await?;
        sessions.push(s);
    }
    let mut one = sessions.remove(0);
    let read_rtt = percentiles(round_trips(&mut one, &read(0), requests).await?);
    let write_rtt = percentiles(round_trips(&mut one, &write(0), requests).await?);
    let mut watcher = sessions.remove(0);
    let event_delay = percentiles(event_delays(&mut watcher, &mut one, requests / 4).await?);
    sessions.insert(0, watcher);
    sessions.insert(0, one);
    let (sessions, read) = busy(sessions, requests, read).await?;
    let (mut sessions, write) = busy(sessions, requests, write).await?;
    for s in sessions.iter_mut() {
        let _ = s.close().await;
    }
    Ok((read_rtt, write_rtt, read, write, event_delay))
}

/// `n` times: `watcher` watches the writer's node (`exists` with a watch),
/// the writer sets it; how much later the notification reaches the
/// watcher's session than the reply reaches the writer, in milliseconds.
async fn event_delays(
    watcher: &mut Session,
    writer: &mut Session,
    n: usize,
) -> Result<Vec<f64>, String> {
    let watch = Op::Exists {
        path: "/nodes/n0".into(),
        watch: true,
    };
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        call(watcher, &watch).await?;
        let _ = watcher.take_notifications();
        let bell = watcher.changed(Duration::from_secs(5));
        let heard = tokio::spawn(async move {
            bell.await;
            Instant::now()
        });
        call(writer, &write(0)).await?;
        let replied = Instant::now();
        let rang = heard
            .await
            .map_err(|e| format!("the watching task failed: {e}"))?;
        if watcher.take_notifications().is_empty() {
            return Err("setData fired no notification for the watcher".into());
        }
        let ms = |a: Instant, b: Instant| a.saturating_duration_since(b).as_secs_f64() * 1e3;
        out.push(ms(rang, replied) - ms(replied, rang));
    }
    Ok(out)
}

fn create(k: usize) -> Op {
    Op::Create {
        path: format!("/nodes/n{k}").as_str().into(),
        data: Vec::new(),
        mode: CreateMode::Persistent,
    }
}

fn read(k: usize) -> Op {
    Op::Exists {
        path: format!("/nodes/n{k}").as_str().into(),
        watch: false,
    }
}

fn write(k: usize) -> Op {
    Op::SetData {
        path: format!("/nodes/n{k}").as_str().into(),
        data: b"x".to_vec(),
        version: -1,
    }
}

async fn call(s: &mut Session, op: &Op) -> Result<(), String> {
    let out = s.call_raw(op).await;
    match out.reply {
        Ok(RawResult::Exists(None)) => Err(format!("{op}: the node is gone")),
        Ok(_) if out.answered => Ok(()),
        Ok(_) => Err(format!("{op}: no answer")),
        Err(e) => Err(format!("{op}: {e}")),
    }
}

/// `n` round trips of `op`, one after another; each in milliseconds.
async fn round_trips(s: &mut Session, op: &Op, n: usize) -> Result<Vec<f64>, String> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        call(s, op).await?;
        out.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(out)
}

/// Every session sends its share of `n` requests (`op(k)` for session k)
/// one after another, all sessions at once: the server's time per request.
async fn busy(
    sessions: Vec<Session>,
    n: usize,
    op: fn(usize) -> Op,
) -> Result<(Vec<Session>, f64), String> {
    let each = n / sessions.len();
    let t = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for (k, mut s) in sessions.into_iter().enumerate() {
        tasks.spawn(async move {
            let r = round_trips(&mut s, &op(k), each).await;
            (k, s, r)
        });
    }
    let mut back = Vec::new();
    let mut failed = None;
    while let Some(joined) = tasks.join_next().await {
        let (k, s, r) = joined.map_err(|e| format!("a measuring task failed: {e}"))?;
        if let Err(e) = r {
            failed = Some(e);
        }
        back.push((k, s));
    }
    let elapsed = t.elapsed().as_secs_f64() * 1e3;
    back.sort_by_key(|(k, _)| *k);
    let sessions: Vec<Session> = back.into_iter().map(|(_, s)| s).collect();
    if let Some(e) = failed {
        return Err(e);
    }
    let served = each * sessions.len();
    Ok((sessions, elapsed / served as f64))
}

/// The 10th, 50th and 90th percentiles.
fn percentiles(mut xs: Vec<f64>) -> [f64; 3] {
    xs.sort_by(f64::total_cmp);
    let at = |q: f64| xs[((xs.len() - 1) as f64 * q).round() as usize];
    [at(0.1), at(0.5), at(0.9)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_run() {
        let xs: Vec<f64> = (0..=100).map(f64::from).collect();
        assert_eq!(percentiles(xs), [10.0, 50.0, 90.0]);
    }
}
