//! Helpers shared by the tests that need a real ZooKeeper (conformance,
//! real): which server, and taking turns on it.

use std::sync::{Mutex, MutexGuard};

/// The server the tests use: `LOCKSMITH_ZK_ADDR`, else `LOCKSMITH_ZK` (the
/// name sim/tests/real.rs read first), else the one scripts/zookeeper.sh
/// starts.
pub fn zk_addr() -> String {
    std::env::var("LOCKSMITH_ZK_ADDR")
        .or_else(|_| std::env::var("LOCKSMITH_ZK"))
        .unwrap_or_else(|_| "127.0.0.1:2181".to_string())
}

/// The tests of one binary take turns: they share one server (the
/// conformance test's zxid check needs it to itself) and the machine's
/// cores. A test that panicked still hands its turn on.
pub fn one_at_a_time() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|p| p.into_inner())
}

/// A four-letter word's answer from the server at `addr` (empty if none).
#[allow(dead_code)]
pub fn four_letter(addr: &str, word: &str) -> String {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(addr) else {
        return String::new();
    };
    let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(2)));
    let _ = s.write_all(word.as_bytes());
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

/// The sessions the server holds (`mntr`'s `zk_global_sessions`).
#[allow(dead_code)]
pub fn global_sessions(addr: &str) -> Option<u64> {
    four_letter(addr, "mntr")
        .lines()
        .find_map(|l| l.strip_prefix("zk_global_sessions"))
        .and_then(|v| v.trim().parse().ok())
}
