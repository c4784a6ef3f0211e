//! The `[sim]` table of a scenario file: settings only the simulator reads.
//! Every field has a default, so a scenario written for the checker runs in
//! the simulator unchanged.
//!
//! ```toml
//! [sim]
//! clients = 20                  # overrides the top-level `clients` (the checker's is ≤ 8)
//! acquisitions = 20             # overrides the top-level `acquisitions`
//! seeds = 100                   # how many seeds `cargo test` and `locksmith sim` run
//! session_timeout_ms = 4000      # asked for; the server clamps it to 2-20 ticks
//! tick_ms = 2000                # the server's tickTime: its session expiries fall on ticks
//! latency_ms = [0.2, 2.0]       # per packet; reorders across sessions
//! latency_dist = "uniform"      # or "exponential": min + an exponential tail of mean (max - min) / 2
//! think_ms = [0.0, 2.0]         # before each acquisition, uniform
//! hold_ms = [0.5, 1.5]          # inside the critical section, uniform
//! wake_ms = [0.0, 0.05]         # a woken thread's scheduling delay, uniform
//! server_read_ms = 0.0          # the server's service time per read (its pipeline)
//! server_write_ms = 0.0         # per write (create, delete, setData, close)
//! event_ms = 0.0                # the client library hands each notification on this much later
//! resource_latency_ms = [0.2, 2.0]  # to the protected resource and back; default latency_ms
//! profile = "profiles/zookeeper-3.8.toml"  # [sim] keys from a file (`locksmith calibrate`); these keys win
//! fencing = false               # the holder sends its lock node's czxid (the create's Stat)
//! reorder_within_session = false  # UNSAFE: breaks ZooKeeper's per-session FIFO
//! container_check_ms = 100      # the container reaper's period (root = "recipe" only)
//!
//! [sim.expect]                  # what `cargo test` holds the simulator to
//! verdict = "violated"
//! property = "deadlock"
//! holds = ["mutual exclusion at the resource"]
//!
//! [sim.rates]                   # random faults, per simulated second
//! expire = 0.0
//! pause = 0.0
//! partition = 0.0
//! connection_loss = 0.0
//! crash = 0.0
//!
//! [[sim.schedule]]              # faults at fixed times
//! at_ms = 20
//! fault = "pause"               # expire | pause | partition | one-way-partition | outbound-partition | connection-loss | crash
//! target = "holder"             # holder | waiter | any | a client number (1-based)
//! duration_ms = 6000            # pause and partitions; default 1.5 × session timeout
//! applied = true                # connection-loss: was the request in flight applied?
//! ```

use crate::scenario::locate::KeyPath;
use locksmith_model::engine::harness::Property;
use serde::{Deserialize, Serialize};

fn d_timeout() -> f64 {
    4000.0
}
fn d_tick() -> f64 {
    2000.0
}
fn d_latency() -> [f64; 2] {
    [0.2, 2.0]
}
fn d_think() -> [f64; 2] {
    [0.0, 2.0]
}
fn d_hold() -> [f64; 2] {
    [0.5, 1.5]
}
fn d_wake() -> [f64; 2] {
    [0.0, 0.05]
}
fn d_container_check() -> f64 {
    100.0
}
fn d_seeds() -> u64 {
    100
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SimSettings {
    /// Overrides the scenario's `clients` (up to [`MAX_CLIENTS`]).
    #[serde(default, deserialize_with = "crate::scenario::clients::some_clients")]
    pub clients: Option<u8>,
    /// Overrides the scenario's `acquisitions`.
    #[serde(default)]
    pub acquisitions: Option<u8>,
    /// Seeds a sweep runs by default (`locksmith sim`, `cargo test`).
    #[serde(default = "d_seeds")]
    pub seeds: u64,
    /// The session timeout the client asks for. The server grants it
    /// clamped to 2-20 ticks ([`SimSettings::negotiated_timeout_ms`]): the
    /// client library pings after a third of that without sending, and
    /// declares the connection lost after two thirds of it without hearing
    /// anything (ZooKeeper's `ClientCnxn`: `readTimeout`).
    #[serde(default = "d_timeout")]
    pub session_timeout_ms: f64,
    /// The server's `tickTime` (the project's test server and ZooKeeper's
    /// default: 2000). Its session tracker expires a session at the first
    /// tick after its last packet plus the timeout (`ExpiryQueue`).
    #[serde(default = "d_tick")]
    pub tick_ms: f64,
    /// One-way latency of every packet, uniform in `[min, max]`.
    #[serde(default = "d_latency")]
    pub latency_ms: [f64; 2],
    /// How latencies are drawn from `latency_ms`.
    #[serde(default)]
    pub latency_dist: LatencyDist,
    /// Time between acquisitions, uniform in `[min, max]`.
    #[serde(default = "d_think")]
    pub think_ms: [f64; 2],
    /// Time inside the critical section, uniform in `[min, max]`.
    #[serde(default = "d_hold")]
    pub hold_ms: [f64; 2],
    /// How long a woken thread takes to run, uniform in `[min, max]` (the
    /// scheduler's delay; lets the other thread act in between).
    #[serde(default = "d_wake")]
    pub wake_ms: [f64; 2],
    /// The server's service time per read (`exists`, `getData`,
    /// `getChildren`). Requests of every session are served one at a time
    /// in the order they arrive, as ZooKeeper's request pipeline does; 0
    /// (the default) serves them in no time.
    #[serde(default)]
    pub server_read_ms: f64,
    /// The server's service time per write (`create`, `delete`, `setData`,
    /// `closeSession`: a transaction and its log append).
    #[serde(default)]
    pub server_write_ms: f64,
    /// How much later the client library hands a watch notification on
    /// than it arrives (`locksmith calibrate` measures it against a reply:
    /// docs/real.md); its socket reader takes the next packet after that.
    #[serde(default)]
    pub event_ms: f64,
    /// One-way latency of the critical section's writes to the protected
    /// resource and of the closing write's acknowledgement, drawn as
    /// `latency_ms` is; `None` (the default): `latency_ms`. `[0.0, 0.0]`
    /// puts the resource in the client's process, so the critical section
    /// lasts the hold alone — the workload of `locksmith real`, which has
    /// no resource (scripts/calibration.sh compares the two that way).
    #[serde(default)]
    pub resource_latency_ms: Option<[f64; 2]>,
    /// The holder sends its lock node's `czxid` with each write (the
    /// checker's token), and the protected resource rejects a token older
    /// than one it accepted.
    #[serde(default)]
    pub fencing: bool,
    /// UNSAFE: replies and events of one session may overtake each other.
    #[serde(default)]
    pub reorder_within_session: bool,
    /// The container reaper's period (`znode.container.checkIntervalMs`;
    /// the server's default is a minute, the project's test server runs
    /// 100 ms, as here). It runs only when the recipe creates its root
    /// (`root = "recipe"`): a pre-created root is persistent.
    #[serde(default = "d_container_check")]
    pub container_check_ms: f64,
    /// A deadlock is declared after this long without an acquisition or a
    /// release while someone waits and nobody holds. Default: 3 × timeout.
    #[serde(default)]
    pub deadlock_ms: Option<f64>,
    /// Every client must finish its acquisitions within this much simulated
    /// time (liveness). Default: 60 s + 2 s per acquisition in total.
    #[serde(default)]
    pub limit_ms: Option<f64>,
    #[serde(default)]
    pub rates: FaultRates,
    #[serde(default)]
    pub schedule: Vec<ScheduledFault>,
    /// What `cargo test` expects of the seeds (`[sim.expect]`).
    #[serde(default)]
    pub expect: Option<crate::expect::RawExpect>,
}

/// The most clients the simulator runs (client numbers are `u8`s).
pub const MAX_CLIENTS: u8 = u8::MAX;

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            clients: None,
            acquisitions: None,
            seeds: d_seeds(),
            session_timeout_ms: d_timeout(),
            tick_ms: d_tick(),
            latency_ms: d_latency(),
            latency_dist: LatencyDist::Uniform,
            think_ms: d_think(),
            hold_ms: d_hold(),
            wake_ms: d_wake(),
            server_read_ms: 0.0,
            server_write_ms: 0.0,
            event_ms: 0.0,
            resource_latency_ms: None,
            fencing: false,
            reorder_within_session: false,
            container_check_ms: d_container_check(),
            deadlock_ms: None,
            limit_ms: None,
            rates: FaultRates::default(),
            schedule: Vec::new(),
            expect: None,
        }
    }
}

/// The latency distribution of every packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LatencyDist {
    /// Uniform in `[min, max]`.
    #[default]
    Uniform,
    /// `min` plus an exponential tail of mean `(max - min) / 2`: mostly
    /// fast, sometimes much slower than `max` (reorders more).
    Exponential,
}

/// Random faults, each a Poisson process with this many events per
/// simulated second.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FaultRates {
    #[serde(default)]
    pub expire: f64,
    #[serde(default)]
    pub pause: f64,
    #[serde(default)]
    pub partition: f64,
    #[serde(default)]
    pub connection_loss: f64,
    #[serde(default)]
    pub crash: f64,
}

/// One fault at a fixed simulated time.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduledFault {
    pub at_ms: f64,
    pub fault: FaultKind,
    #[serde(default)]
    pub target: Target,
    #[serde(default)]
    pub duration_ms: Option<f64>,
    #[serde(default)]
    pub applied: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// The server expires the session at once.
    Expire,
    /// The client's process stops (GC pause): madsim pause, then resume.
    Pause,
    /// Both directions between the client and the server are clogged.
    Partition,
    /// Only the server's packets to the client are clogged: the server
    /// still hears the client's pings and connect requests, so it keeps
    /// the session, while the client hears nothing (a one-way partition,
    /// or a server that stops answering). A library that gives up on a
    /// session it has been SUSPENDED on for a session timeout (Curator)
    /// opens a new one while the server still holds the old one: the
    /// client-side expiry.
    OneWayPartition,
    /// Only the client's packets to the server are clogged: the server
    /// hears nothing and expires the session, while what it sends still
    /// reaches the client — which notices the silence only when nothing
    /// has arrived for its read timeout.
    OutboundPartition,
    /// The client's TCP connection drops with a request in flight.
    ConnectionLoss,
    /// The client's process crashes: its threads stop for good, what it
    /// held stays held until the server times its silent session out.
    Crash,
}

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Expire => "expire",
            FaultKind::Pause => "pause",
            FaultKind::Partition => "partition",
            FaultKind::OneWayPartition => "one-way-partition",
            FaultKind::OutboundPartition => "outbound-partition",
            FaultKind::ConnectionLoss => "connection-loss",
            FaultKind::Crash => "crash",
        }
    }
}

/// Which client a fault strikes: `"holder"`, `"waiter"`, `"any"` or a
/// client number (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Target {
    /// A client number, 1-based.
    Client(u8),
    Named(TargetName),
}

impl Default for Target {
    fn default() -> Self {
        Target::Named(TargetName::Any)
    }
}

/// By hand, so that a wrong target says what a target may be (an untagged
/// enum's error does not).
impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Target, D::Error> {
        struct V;
        const EXPECTED: &str = "holder, waiter, any or a client number from 1 to 255";
        impl serde::de::Visitor<'_> for V {
            type Value = Target;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Target, E> {
                u8::try_from(n)
                    .ok()
                    .filter(|&n| n >= 1)
                    .map(Target::Client)
                    .ok_or_else(|| E::custom(format!("target = {n}: expected {EXPECTED}")))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Target, E> {
                self.visit_i64(i64::try_from(n).unwrap_or(i64::MAX))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Target, E> {
                match s {
                    "holder" => Ok(Target::Named(TargetName::Holder)),
                    "waiter" => Ok(Target::Named(TargetName::Waiter)),
                    "any" => Ok(Target::Named(TargetName::Any)),
                    _ => Err(E::custom(format!("target = \"{s}\": expected {EXPECTED}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetName {
    /// The client that believes it holds the lock (waits until one does).
    Holder,
    /// A client parked waiting for the lock (in `wait()` or `await()`).
    Waiter,
    /// Any client.
    Any,
}

/// The longest duration a `[sim]` key may give, in ms: an hour. Beyond it
/// a run never ends in any useful time (and 1e308 ms overflows the clock).
pub const MAX_MS: f64 = 3_600_000.0;

/// The longest `limit_ms`: a simulated day.
pub const MAX_LIMIT_MS: f64 = 86_400_000.0;

/// The highest fault rate, per simulated second.
pub const MAX_RATE: f64 = 1000.0;

/// The most scheduled faults.
pub const MAX_SCHEDULE: usize = 10_000;

impl SimSettings {
    /// The session timeout the server grants: the one asked for, clamped
    /// to 2-20 ticks (ZooKeeper's `minSessionTimeout` and
    /// `maxSessionTimeout` defaults).
    pub fn negotiated_timeout_ms(&self) -> f64 {
        self.session_timeout_ms
            .clamp(2.0 * self.tick_ms, 20.0 * self.tick_ms)
    }

    /// Why the simulator does not judge `p` in a run of these settings, if
    /// it does not (a `[sim.expect]` pin on it would read n/a, and is
    /// refused at load).
    pub fn not_judged(&self, p: Property) -> Option<&'static str> {
        match p {
            Property::FencedSafety if !self.fencing => {
                Some("the simulated holder sends no token: `fencing = false` in [sim]")
            }
            Property::OrphanedNode => {
                Some("which node a client's code still names is read by the checker only")
            }
            Property::UnlockByNonOwner | Property::StuckLock => {
                Some("the ZooKeeper simulator judges it in no recipe; the checker does")
            }
            Property::Reentrancy => {
                Some("it is read off a recipe's own state (one `unlock()` too many), by the checker only")
            }
            _ => None,
        }
    }

    /// Checks the ranges for a run of `clients` clients; returns the
    /// offending key (its path inside `[sim]`) and what was expected.
    pub fn validate(&self, clients: u8) -> Result<(), (KeyPath, String)> {
        let key = |k: &str| KeyPath::of(None, k);
        let range = |k: &str, r: [f64; 2]| {
            if !(r[0] >= 0.0 && r[1] >= r[0] && r[1] <= MAX_MS) {
                Err((
                    key(k),
                    format!(
                        "{k} = [{}, {}]: expected 0 ≤ min ≤ max ≤ {MAX_MS} (an hour)",
                        number(r[0]),
                        number(r[1])
                    ),
                ))
            } else {
                Ok(())
            }
        };
        range("latency_ms", self.latency_ms)?;
        range("think_ms", self.think_ms)?;
        range("hold_ms", self.hold_ms)?;
        range("wake_ms", self.wake_ms)?;
        if let Some(r) = self.resource_latency_ms {
            range("resource_latency_ms", r)?;
        }
        let within = |at: KeyPath, name: &str, v: f64, min: f64, max: f64| {
            if v >= min && v <= max {
                Ok(())
            } else {
                Err((
                    at,
                    format!("{name} = {}: expected {min} to {max}", number(v)),
                ))
            }
        };
        for (k, v) in [
            ("server_read_ms", self.server_read_ms),
            ("server_write_ms", self.server_write_ms),
            ("event_ms", self.event_ms),
        ] {
            within(key(k), k, v, 0.0, MAX_MS)?;
        }
        within(
            key("session_timeout_ms"),
            "session_timeout_ms",
            self.session_timeout_ms,
            1.0,
            MAX_MS,
        )?;
        within(key("tick_ms"), "tick_ms", self.tick_ms, 1.0, MAX_MS / 20.0)?;
        within(
            key("container_check_ms"),
            "container_check_ms",
            self.container_check_ms,
            1.0,
            MAX_MS,
        )?;
        if let Some(v) = self.deadlock_ms {
            within(key("deadlock_ms"), "deadlock_ms", v, 1.0, MAX_MS)?;
        }
        if let Some(v) = self.limit_ms {
            within(key("limit_ms"), "limit_ms", v, 1.0, MAX_LIMIT_MS)?;
        }
        let clients = self.clients.unwrap_or(clients);
        if self.clients == Some(0) {
            return Err((
                key("clients"),
                format!("clients = 0: expected 1 to {MAX_CLIENTS}"),
            ));
        }
        if self.seeds == 0 {
            return Err((
                key("seeds"),
                "seeds = 0: expected at least 1 (a run of no seeds proves nothing)".into(),
            ));
        }
        if self.acquisitions == Some(0) {
            return Err((
                key("acquisitions"),
                "acquisitions = 0: expected at least 1".into(),
            ));
        }
        for (k, v) in [
            ("expire", self.rates.expire),
            ("pause", self.rates.pause),
            ("partition", self.rates.partition),
            ("connection_loss", self.rates.connection_loss),
            ("crash", self.rates.crash),
        ] {
            let at = key("rates").key(k);
            within(at, &format!("rates.{k}"), v, 0.0, MAX_RATE)?;
        }
        if self.schedule.len() > MAX_SCHEDULE {
            return Err((
                key("schedule").index(MAX_SCHEDULE),
                format!(
                    "{} scheduled faults: expected at most {MAX_SCHEDULE}",
                    self.schedule.len()
                ),
            ));
        }
        for (i, f) in self.schedule.iter().enumerate() {
            let at = |k: &str| key("schedule").index(i).key(k);
            within(at("at_ms"), "at_ms", f.at_ms, 0.0, MAX_MS)?;
            if let Some(d) = f.duration_ms {
                within(at("duration_ms"), "duration_ms", d, 0.0, MAX_MS)?;
            }
            if let Target::Client(n) = f.target {
                if n == 0 || n > clients {
                    return Err((
                        at("target"),
                        format!(
                            "target = {n}: expected holder, waiter, any or a client number from 1 to {clients}"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A number as a message shows it: huge and tiny ones in exponent form.
fn number(v: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e9 || v.abs() < 1e-6) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}
