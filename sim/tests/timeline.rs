//! `locksmith replay --timeline FILE`: every request, reply and
//! notification of a simulated run with its time, in the lines `locksmith
//! real --timeline` writes (the real side is in `tests/real.rs`, which
//! needs a server).

mod binary;

use binary::locksmith;

fn temp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("locksmith-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name).to_string_lossy().into_owned()
}

/// The figure `replay` prints after `name` in its summary line.
fn figure(out: &str, name: &str) -> usize {
    let line = out
        .lines()
        .find(|l| l.starts_with("acquisitions "))
        .expect("the summary line");
    let after = line.split(&format!("{name} ")).nth(1).expect(name);
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().expect("a count")
}

#[test]
fn a_replay_writes_one_line_per_request_reply_and_notification_the_same_for_the_same_seed() {
    let args = [
        "replay",
        "scenarios/herd-children.toml",
        "--seed",
        "3",
        "--clients",
        "4",
        "--acquisitions",
        "3",
        "--no-mermaid",
    ];
    // Exit 1: herd-children violates herd (and the run goes on).
    let (code, plain, err) = locksmith(&args);
    assert_eq!(code, 1, "{err}");
    let (first, second) = (temp("first.txt"), temp("second.txt"));
    let mut with = args.to_vec();
    with.extend(["--timeline", &first]);
    let (code, out, err) = locksmith(&with);
    assert_eq!(code, 1, "{err}");
    // Recording draws nothing: the run is the same seed's, step for step.
    assert_eq!(out, plain);
    let text = std::fs::read_to_string(&first).expect("the timeline");
    let count = |kind: &str| {
        text.lines()
            .filter(|l| l.split(' ').nth(2) == Some(kind))
            .count()
    };
    // No fault: every request is answered and every notification arrives.
    assert_eq!(count("send"), figure(&out, "requests"));
    assert_eq!(count("reply"), figure(&out, "replies"));
    assert_eq!(count("event"), figure(&out, "notifications"));
    assert!(count("event") > 0, "{text}");
    let mut last = 0;
    for line in text.lines() {
        let mut parts = line.splitn(4, ' ');
        let at: u64 = parts.next().and_then(|t| t.parse().ok()).expect(line);
        assert!(at >= last, "time runs forward: {line}");
        last = at;
        let client = parts.next().expect(line);
        assert!(matches!(client, "c1" | "c2" | "c3" | "c4"), "{line}");
    }
    assert!(
        text.contains(" send GetChildren { path: \"/herd\", watch: true }"),
        "{text}"
    );
    assert!(
        text.contains("cversion: "),
        "a getChildren reply shows its Stat"
    );
    let mut again = args.to_vec();
    again.extend(["--timeline", &second]);
    assert_eq!(locksmith(&again).0, 1);
    assert_eq!(std::fs::read(&first).ok(), std::fs::read(&second).ok());
}

/// `locksmith args…` exits 2 with `message` on stderr.
fn refused(args: &[&str], message: &str) {
    let (code, _, err) = locksmith(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert!(err.contains(message), "{args:?}: {err}");
}

#[test]
fn a_timeline_is_refused_for_a_redis_scenario_and_an_unwritable_file_is_an_error() {
    let redis = "scenarios/redis-set-px-del-pause.toml";
    let file = temp("redis.txt");
    refused(
        &["replay", redis, "--seed", "0", "--timeline", &file],
        "redis-set-px-del-pause.toml:4:1: recipe `redis-set-px-del` runs on Redis: `locksmith \
         replay --timeline` needs a run that records its timeline, which Redis does not have",
    );
    // Refused before any connection: no server needed.
    refused(
        &["real", redis, "--redis", "127.0.0.1:1", "--timeline", &file],
        "`locksmith real --timeline` needs a run that records its timeline, which Redis does \
         not have (it is there for ZooKeeper)",
    );
    refused(
        &[
            "replay",
            "scenarios/herd-children.toml",
            "--seed",
            "0",
            "--timeline",
            "/nonexistent-dir/t.txt",
        ],
        "--timeline /nonexistent-dir/t.txt: cannot write it",
    );
}
