//! `locksmith serve`: the model behind ZooKeeper's wire, driven here by a
//! real client library (the `zookeeper-client` crate) and the `locksmith
//! real` driver. No server to install: these run in `cargo test`. The
//! Curator and kazoo drivers need Java and Python packages and run from
//! `scripts/ci-serve.sh` (the ignored tests at the end).

use locksmith::serve::{self, faults, Options};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;
use zookeeper_client as zkc;

fn options(faults: &[&str]) -> Options {
    Options {
        protocol: Default::default(),
        port: 0,
        events_port: 0,
        session_timeout: Duration::from_millis(2000),
        faults: faults.iter().map(|f| faults::parse(f).unwrap()).collect(),
        stuck: Duration::from_secs(10),
        reap_every: Duration::from_millis(100),
        verbose: false,
        trace: None,
    }
}

/// `locksmith serve` on free ports for at most `seconds`.
fn serve_on_free_ports(seconds: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_locksmith"));
    c.args([
        "serve",
        "--port",
        "0",
        "--events-port",
        "0",
        "--seconds",
        seconds,
    ]);
    c
}

/// The Redis model over RESP, on free ports.
fn resp_server() -> serve::Running {
    serve::start(Options {
        protocol: serve::Protocol::Resp,
        ..options(&[])
    })
    .unwrap()
}

/// A server with these faults, and where to connect.
fn served(faults: &[&str]) -> (serve::Running, String) {
    let running = serve::start(options(faults)).unwrap();
    let addr = running.zk_addr().to_string();
    (running, addr)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn connect(addr: &str) -> zkc::Client {
    zkc::Client::connector()
        .with_session_timeout(Duration::from_secs(10))
        .connect(addr)
        .await
        .unwrap()
}

fn persistent() -> zkc::CreateOptions<'static> {
    zkc::CreateMode::Persistent.with_acls(zkc::Acls::anyone_all())
}

fn ephemeral() -> zkc::CreateOptions<'static> {
    zkc::CreateMode::Ephemeral.with_acls(zkc::Acls::anyone_all())
}

/// The server's timeout is the one a client gets, whatever it asked for;
/// an expiry by schedule deletes the session's ephemeral and fires the
/// other session's watch, and the expired client's next call says so.
#[test]
fn an_expiry_by_schedule_frees_the_ephemeral_and_the_client_learns_it_expired() {
    let (running, addr) = served(&["expire:1@300"]);
    runtime().block_on(async {
        let holder = connect(&addr).await;
        assert_eq!(holder.session_timeout(), Duration::from_millis(2000));
        holder.create("/owner", b"", &ephemeral()).await.unwrap();
        let other = connect(&addr).await;
        let (stat, watch) = other.check_and_watch_stat("/owner").await.unwrap();
        assert!(stat.is_some());
        let event = tokio::time::timeout(Duration::from_secs(3), watch.changed())
            .await
            .expect("the watch fires when the holder's session expires");
        assert_eq!(event.event_type, zkc::EventType::NodeDeleted);
        assert_eq!(other.check_stat("/owner").await.unwrap(), None);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let late = holder.get_data("/zookeeper").await;
        assert!(
            matches!(late, Err(zkc::Error::SessionExpired)),
            "the expired client is told: {late:?}"
        );
    });
    let s = running.wait(None, Duration::ZERO);
    assert_eq!(s.expiries, 1);
    assert_eq!(s.faults.len(), 1);
    assert_eq!(s.faults[0].on, "session 0x1");
}

/// A dropped connection keeps the session: the client reconnects to it,
/// sends its watches back (`SetWatches`), and a change made while it was
/// away fires at once; one made afterwards fires as usual.
#[test]
fn a_dropped_connection_keeps_the_session_and_its_watches_come_back() {
    let (running, addr) = served(&["drop:1@300"]);
    runtime().block_on(async {
        let watcher = connect(&addr).await;
        let writer = connect(&addr).await;
        writer.create("/x", b"1", &persistent()).await.unwrap();
        let (_, _, first) = watcher.get_and_watch_data("/x").await.unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        writer.set_data("/x", b"2", None).await.unwrap();
        let event = tokio::time::timeout(Duration::from_secs(5), first.changed())
            .await
            .expect("the watch set before the drop still fires");
        assert_eq!(event.event_type, zkc::EventType::NodeDataChanged);
        let (data, _) = watcher.get_data("/x").await.unwrap();
        assert_eq!(data, b"2");
    });
    let s = running.wait(None, Duration::ZERO);
    assert_eq!(s.expiries, 0, "{:?}", s.log);
    assert_eq!(s.sessions, 2);
    assert!(
        s.connections >= 3,
        "the watcher reconnected: {}",
        s.connections
    );
    assert!(s.log.iter().any(|l| l.contains("connection dropped")));
}

/// A herd judged at the server: the holder's release (a delete after it
/// reported `released`) notifies two clients waiting in `lock()`; one
/// waiter woken is no herd.
#[test]
fn a_release_that_wakes_two_waiters_is_a_herd() {
    for (watchers, herd) in [(2, true), (1, false)] {
        let (running, addr) = served(&[]);
        runtime().block_on(async {
            let holder = connect(&addr).await;
            holder.create("/lock", b"", &ephemeral()).await.unwrap();
            running.feed(&format!("h acquired 0x{:x}", holder.session_id().0));
            let mut waiters = Vec::new();
            for k in 0..watchers {
                let w = connect(&addr).await;
                let (_, watch) = w.check_and_watch_stat("/lock").await.unwrap();
                running.feed(&format!("w{k} acquiring 0x{:x}", w.session_id().0));
                waiters.push((w, watch));
            }
            running.feed("h released");
            holder.delete("/lock", None).await.unwrap();
            for (_, watch) in waiters {
                tokio::time::timeout(Duration::from_secs(3), watch.changed())
                    .await
                    .expect("every waiter's watch fires");
            }
        });
        let s = running.wait(None, Duration::ZERO);
        let herds: Vec<&str> = s
            .violations
            .iter()
            .filter(|v| v.property == "herd")
            .map(|v| v.why.as_str())
            .collect();
        if herd {
            assert_eq!(herds.len(), 1, "{:?}", s.violations);
            assert!(
                herds[0].contains("h's release") && herds[0].contains("woke 2 waiters: w0, w1"),
                "{}",
                herds[0]
            );
        } else {
            assert!(herds.is_empty(), "{herds:?}");
        }
    }
}

/// A stat's `ctime` and `mtime` are the wall-clock times of the
/// transactions that created and last changed the node, in Unix
/// milliseconds, as a real server writes them; the nodes a server starts
/// with read 0 there, as on a real one.
#[test]
fn stats_carry_the_times_of_their_transactions() {
    let unix_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
    };
    let (running, addr) = served(&[]);
    runtime().block_on(async {
        let client = connect(&addr).await;
        let before = unix_ms();
        let (created, _) = client.create("/t", b"1", &persistent()).await.unwrap();
        let after = unix_ms();
        assert!(
            (before..=after).contains(&created.ctime) && created.mtime == created.ctime,
            "ctime {} mtime {} outside {before}..={after}",
            created.ctime,
            created.mtime
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        let changed = client.set_data("/t", b"2", None).await.unwrap();
        assert_eq!(changed.ctime, created.ctime);
        assert!(
            changed.mtime >= created.ctime + 50 && changed.mtime <= unix_ms(),
            "mtime {} after a setData 50 ms later than ctime {}",
            changed.mtime,
            created.ctime
        );
        let (_, root) = client.get_data("/").await.unwrap();
        assert_eq!((root.ctime, root.mtime, root.aversion), (0, 0, 0));
    });
    running.wait(None, Duration::ZERO);
}

/// A fault aimed at the holder strikes the session the lock events name,
/// once a hold has lasted its time; the judge sees two believed holders.
#[test]
fn a_holder_fault_strikes_the_session_the_events_name_and_the_judge_sees_two_holders() {
    let (running, addr) = served(&["expire:holder@100"]);
    runtime().block_on(async {
        let a = connect(&addr).await;
        let _b = connect(&addr).await;
        let id = a.session_id().0;
        running.feed(&format!("a acquired 0x{id:x}"));
        running.feed("a begin");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let gone = a.get_data("/zookeeper").await;
        assert!(matches!(gone, Err(zkc::Error::SessionExpired)), "{gone:?}");
    });
    running.feed("b acquired 0x2");
    running.feed("b begin");
    running.feed("a end");
    running.feed("nonsense line");
    let s = running.wait(None, Duration::ZERO);
    assert_eq!(s.faults[0].on, "a (session 0x1)");
    let props: Vec<&str> = s.violations.iter().map(|v| v.property).collect();
    assert_eq!(
        props,
        ["mutual exclusion at the resource", "mutual exclusion"]
    );
    assert_eq!(s.verdict, "violated");
    assert_eq!(s.event_errors.len(), 1, "{:?}", s.event_errors);
    assert!(s.event_errors[0].contains("expected `CLIENT EVENT [SESSION]`"));
}

/// The `locksmith real` driver's textbook lock, through the wire: it holds,
/// with one notification per contended acquisition, as on a real server.
#[test]
fn the_real_driver_runs_the_textbook_lock_through_serve() {
    let exe = env!("CARGO_BIN_EXE_locksmith");
    let mut serve = serve_on_free_ports("60")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .split("ZooKeeper on ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .unwrap()
        .to_string();
    let out = Command::new(exe)
        .args(["real", "scenarios/predecessor.toml", "--zk", &addr])
        .args(["--clients", "3", "--seconds", "1", "--json"])
        .current_dir(env!("CARGO_MANIFEST_DIR").to_string() + "/..")
        .output()
        .unwrap();
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["verdict"], "holds", "{json}");
    assert!(
        json["contended_acquisitions"].as_u64().unwrap() > 100,
        "{json}"
    );
    let per = json["notifications_per_contended_acquisition"]
        .as_f64()
        .unwrap();
    assert!((0.99..=1.01).contains(&per), "{json}");
}

/// A malformed fault is refused before anything is served, saying what
/// was expected; a port already taken is refused with the port (exit 2).
#[test]
fn a_bad_fault_or_a_taken_port_exits_2_and_says_why() {
    let exe = env!("CARGO_BIN_EXE_locksmith");
    let bad = Command::new(exe)
        .args(["serve", "--fault", "kill:1@5"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("ACTION:TARGET@WHEN"), "{err}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = Command::new(exe)
        .args([
            "serve",
            "--port",
            &port,
            "--events-port",
            "0",
            "--seconds",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
}

/// A run that waited for clients who never came is incomplete (exit 3),
/// never "holds".
#[test]
fn clients_that_never_finish_make_the_run_incomplete() {
    let out = serve_on_free_ports("1")
        .args(["--clients", "1", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["verdict"], "incomplete");
    assert_eq!(json["stopped_by"], "time bound");
}

/// `--trace` takes a ZooKeeper checker scenario with a violation: another
/// backend's, or one whose locks hold, is refused before anything is
/// served (exit 2, saying why).
#[test]
fn a_trace_needs_a_zookeeper_scenario_with_a_counterexample() {
    let exe = env!("CARGO_BIN_EXE_locksmith");
    let root = env!("CARGO_MANIFEST_DIR").to_string() + "/..";
    for (file, says) in [
        (
            "scenarios/redis-set-px-del-pause.toml",
            "ZooKeeper's protocol only",
        ),
        ("scenarios/predecessor.toml", "no counterexample"),
    ] {
        let out = Command::new(exe)
            .args([
                "serve",
                "--port",
                "0",
                "--events-port",
                "0",
                "--trace",
                file,
            ])
            .current_dir(&root)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{file}: {err}");
    }
}

/// `--protocol resp`: a Redis client (the `redis` crate) against the Redis
/// model: SET NX PX and GET, a TTL that runs out as the wall clock goes, a
/// script a library loads (`NOSCRIPT`, then `SCRIPT LOAD` and `EVALSHA` of
/// the id it answered), and a command the model does not run, refused
/// with a message that says so.
#[test]
fn a_redis_client_speaks_resp_to_the_redis_model() {
    let running = resp_server();
    let url = format!("redis://{}/", running.zk_addr());
    let mut c = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let set = |c: &mut redis::Connection, v: &str, ms: u64| -> Option<String> {
        redis::cmd("SET")
            .arg("lock")
            .arg(v)
            .arg("NX")
            .arg("PX")
            .arg(ms)
            .query(c)
            .unwrap()
    };
    assert_eq!(set(&mut c, "a", 100).as_deref(), Some("OK"));
    assert_eq!(set(&mut c, "b", 100), None);
    let got: Option<String> = redis::cmd("GET").arg("lock").query(&mut c).unwrap();
    assert_eq!(got.as_deref(), Some("a"));
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(
        set(&mut c, "b", 1000).as_deref(),
        Some("OK"),
        "the lease ran out"
    );
    let release = "local token = redis.call('get', KEYS[1])\n\
                   if not token or token ~= ARGV[1] then return 0 end\n\
                   redis.call('del', KEYS[1])\nreturn 1";
    let unknown: redis::RedisResult<i64> = redis::cmd("EVALSHA")
        .arg("0123abcd")
        .arg(1)
        .arg("lock")
        .arg("b")
        .query(&mut c);
    assert!(
        format!("{unknown:?}").contains("No matching script"),
        "{unknown:?}"
    );
    let id: String = redis::cmd("SCRIPT")
        .arg("LOAD")
        .arg(release)
        .query(&mut c)
        .unwrap();
    let evalsha = |c: &mut redis::Connection, token: &str| -> i64 {
        redis::cmd("EVALSHA")
            .arg(&id)
            .arg(1)
            .arg("lock")
            .arg(token)
            .query(c)
            .unwrap()
    };
    assert_eq!(evalsha(&mut c, "a"), 0, "not the holder's token");
    assert_eq!(evalsha(&mut c, "b"), 1);
    let gone: Option<String> = redis::cmd("GET").arg("lock").query(&mut c).unwrap();
    assert_eq!(gone, None);
    let hset: redis::RedisResult<i64> = redis::cmd("HSET").arg("h").arg("f").arg(1).query(&mut c);
    assert!(format!("{hset:?}").contains("docs/serve.md"), "{hset:?}");
    let s = running.wait(None, Duration::ZERO);
    assert_eq!(s.protocol, "resp");
    assert_eq!(s.unsupported.len(), 1, "{:?}", s.unsupported);
    assert_eq!(
        s.verdict, "incomplete",
        "no lock events: nothing was judged"
    );
}

/// The model's own Redis recipes through the wire: `locksmith real
/// --redis` against `serve --protocol resp`, as against a redis-server.
#[test]
fn the_real_driver_runs_a_redis_recipe_through_serve() {
    let running = resp_server();
    let out = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(["real", "scenarios/redis-set-px-del.toml", "--redis"])
        .arg(running.zk_addr().to_string())
        .args(["--seconds", "1", "--json"])
        .current_dir(env!("CARGO_MANIFEST_DIR").to_string() + "/..")
        .output()
        .unwrap();
    drop(running);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["verdict"], "holds", "{json}");
    assert!(json["acquisitions"].as_u64().unwrap_or(0) > 100, "{json}");
}
