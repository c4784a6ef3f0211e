//! The run's own root on a real server. A real run touches nothing of the
//! user's: it creates one fresh node under `--root` (a path that must
//! already exist; `/` by default), named from the run's seed and the setup
//! session's id — `/locksmith-<seed>-<session>` — and every client session
//! is *chrooted* there (the client library prefixes every path), so the
//! recipes' absolute paths (`/locks`, `/lock`, …) land inside it and
//! nothing outside it can be created, changed or deleted. When the run
//! ends — done, failed or interrupted — its sessions are closed and the
//! root is deleted with everything under it (all of which the run
//! created).
//!
//! A root that already exists holds nodes this run did not create: the run
//! refuses it rather than share it.

use super::{CallOutcome, RawReply, RawResult, Session};
use locksmith_model::zk::{CreateMode, Op};
use zookeeper_client as zkc;

/// The reply, or why there is none.
fn answered(what: &str, path: &str, out: CallOutcome<RawReply>) -> Result<RawReply, String> {
    if out.answered {
        Ok(out.reply)
    } else {
        Err(format!("{what} {path}: no answer ({:?})", out.reply.err()))
    }
}

/// `path` (absolute, as the recipe names it) inside `root`.
pub fn inside(root: &str, path: &str) -> String {
    match path {
        "/" => root.to_string(),
        p => format!("{root}{p}"),
    }
}

/// Checks the syntax of a `--root` path: absolute, no empty, `.` or `..`
/// component, no trailing slash (except `/` itself), no control character.
pub fn check_base(base: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "--root {base:?}: {why}: expected an absolute ZooKeeper path such as / or /sandbox"
        ))
    };
    if !base.starts_with('/') {
        return bad("not absolute");
    }
    if base == "/" {
        return Ok(());
    }
    if base.chars().any(|c| c.is_control()) {
        return bad("a control character");
    }
    for part in base[1..].split('/') {
        if part.is_empty() || part == "." || part == ".." {
            return bad("an empty, `.` or `..` component");
        }
    }
    if base == "/zookeeper" || base.starts_with("/zookeeper/") {
        return bad("inside ZooKeeper's own /zookeeper");
    }
    Ok(())
}

/// The run's root under `base`: `/locksmith-<seed>-<session id>`.
pub fn name(base: &str, seed: u64, session: i64) -> String {
    let parent = if base == "/" { "" } else { base };
    format!("{parent}/locksmith-{seed}-{session:016x}")
}

/// Creates the run's root `root` under `base` (which must exist), then the
/// recipe's lock root `lock_root` inside it — all but its last component
/// if `recipe_creates` it (`root = "recipe"`). An error says whether the
/// root was created (and must go again) and why the rest failed.
pub async fn create(
    setup: &mut Session,
    base: &str,
    root: &str,
    lock_root: &str,
    recipe_creates: bool,
) -> Result<(), (bool, String)> {
    make(setup, base, root, lock_root, recipe_creates)
        .await
        .map_err(|(at, e)| (at > 0, e))
}

/// [`create`]; an error says how many nodes were created before it.
async fn make(
    setup: &mut Session,
    base: &str,
    root: &str,
    lock_root: &str,
    recipe_creates: bool,
) -> Result<(), (usize, String)> {
    let none = |e: String| (0, e);
    let look = Op::Exists {
        path: base.into(),
        watch: false,
    };
    match answered("exists", base, setup.call_raw(&look).await).map_err(none)? {
        Ok(RawResult::Exists(Some(_))) => {}
        Ok(_) => {
            return Err(none(format!(
                "--root {base} does not exist on the server: expected an existing path (locksmith creates nothing outside its own run root)"
            )))
        }
        Err(e) => return Err(none(format!("exists {base}: {e}"))),
    }
    // The root itself, then each component of the lock root inside it.
    let mut paths = vec![root.to_string()];
    for part in lock_root.split('/').filter(|p| !p.is_empty()) {
        let next = format!("{}/{part}", paths[paths.len() - 1]);
        paths.push(next);
    }
    if recipe_creates && paths.len() > 1 {
        paths.pop();
    }
    for (i, path) in paths.into_iter().enumerate() {
        let create = Op::Create {
            path: path.as_str().into(),
            data: Vec::new(),
            mode: CreateMode::Persistent,
        };
        let reply = answered("create", &path, setup.call_raw(&create).await);
        match reply.map_err(|e| (i, e))? {
            Ok(_) => {}
            Err(zkc::Error::NodeExists) if i == 0 => {
                return Err(none(format!(
                    "refusing {root}: it already exists, and holds nodes this run did not create"
                )))
            }
            Err(e) => return Err((i, format!("create {path}: {e}"))),
        }
    }
    Ok(())
}

/// Deletes `root` and everything under it, deepest first; returns how many
/// nodes went. Everything there was created by this run (its root was
/// fresh, and its sessions were chrooted to it).
pub async fn remove(setup: &mut Session, root: &str) -> Result<usize, String> {
    let mut deleted = 0;
    // Children first; a node that gets a child meanwhile (a session not
    // yet closed) is retried a few times.
    for _ in 0..5 {
        match remove_tree(setup, root, &mut deleted).await? {
            true => return Ok(deleted),
            false => tokio::time::sleep(std::time::Duration::from_millis(200)).await,
        }
    }
    Err(format!(
        "{root} kept getting new children: delete it by hand (`deleteall {root}` in zkCli)"
    ))
}

/// One pass; whether `path` is gone.
async fn remove_tree(setup: &mut Session, path: &str, deleted: &mut usize) -> Result<bool, String> {
    let mut stack = vec![(path.to_string(), false)];
    while let Some((p, listed)) = stack.pop() {
        if !listed {
            let list = Op::GetChildren {
                path: p.as_str().into(),
                watch: false,
            };
            let children = match answered("getChildren", &p, setup.call_raw(&list).await)? {
                Ok(RawResult::GetChildren { children, .. }) => children,
                Err(zkc::Error::NoNode) => continue,
                Ok(other) => return Err(format!("getChildren {p}: {other:?}")),
                Err(e) => return Err(format!("getChildren {p}: {e}")),
            };
            stack.push((p.clone(), true));
            for c in children {
                stack.push((format!("{p}/{c}"), false));
            }
            continue;
        }
        let delete = Op::Delete {
            path: p.as_str().into(),
            version: -1,
        };
        match answered("delete", &p, setup.call_raw(&delete).await)? {
            Ok(_) => *deleted += 1,
            Err(zkc::Error::NoNode) => {}
            Err(zkc::Error::NotEmpty) => return Ok(false),
            Err(e) => return Err(format!("delete {p}: {e}")),
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_a_child_of_the_base_named_from_seed_and_session() {
        assert_eq!(name("/", 7, 0x1f), "/locksmith-7-000000000000001f");
        assert_eq!(
            name("/sandbox", 7, 1),
            "/sandbox/locksmith-7-0000000000000001"
        );
        assert_eq!(inside("/r", "/"), "/r");
        assert_eq!(inside("/r", "/locks"), "/r/locks");
    }

    #[test]
    fn a_base_must_be_a_plain_absolute_path() {
        assert!(check_base("/").is_ok());
        assert!(check_base("/sandbox/tests").is_ok());
        for bad in [
            "",
            "x",
            "/x/",
            "//",
            "/a/../b",
            "/a/./b",
            "/a\n",
            "/zookeeper",
        ] {
            let e = check_base(bad).expect_err(bad);
            assert!(e.contains("expected"), "{bad}: {e}");
        }
    }
}
