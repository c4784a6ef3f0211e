//! ZooKeeper paths: absolute, `/`-separated, no trailing slash (except `/`).

use super::Name;

/// The parent of `path`, or `None` for the root.
pub fn parent(path: &str) -> Option<&str> {
    if path == "/" {
        return None;
    }
    match path.rfind('/') {
        Some(0) => Some("/"),
        Some(i) => Some(&path[..i]),
        None => None,
    }
}

/// The last component of `path` (the child name as `getChildren` lists it).
pub fn name(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

/// `parent/child`.
pub fn join(parent: &str, child: &str) -> Name {
    // Pushed, not `format!`ed: a recipe joins a path at every step it
    // ranks its node, and formatting cost the simulator 1% of its time.
    let mut out = String::with_capacity(parent.len() + 1 + child.len());
    if parent != "/" {
        out.push_str(parent);
    }
    out.push('/');
    out.push_str(child);
    out.into()
}

/// `at` with a sequential node's suffix, `n` as ten digits
/// (`String.format("%010d", n)` in `PrepRequestProcessor`).
pub fn sequential(at: &str, n: i32) -> Name {
    if n < 0 {
        return format!("{at}{n:010}").into();
    }
    // Pushed, not `format!`ed (every lock node is made here): an i32 has
    // at most ten digits, so a non-negative one is exactly ten, zeros first.
    let mut out = String::with_capacity(at.len() + 10);
    out.push_str(at);
    let mut digits = [b'0'; 10];
    let mut rest = n as u32;
    for d in digits.iter_mut().rev() {
        *d = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    out.extend(digits.iter().map(|&d| d as char));
    out.into()
}

/// Whether `path` is a valid absolute path as `PathUtils.validatePath` sees it
/// (for the characters the model can produce).
pub fn is_valid(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    // One pass over the bytes: an empty component is a `//` (a trailing
    // `/` is ruled out first).
    match path.as_bytes() {
        [b'/', rest @ ..] if rest.last() != Some(&b'/') => rest
            .split(|&b| b == b'/')
            .all(|c| !c.is_empty() && c != b"." && c != b".."),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_and_names() {
        assert_eq!(parent("/"), None);
        assert_eq!(parent("/a"), Some("/"));
        assert_eq!(parent("/a/b"), Some("/a"));
        assert_eq!(name("/a/b"), "b");
        assert_eq!(join("/", "a"), "/a");
        assert_eq!(join("/a", "b"), "/a/b");
        assert!(is_valid("/a/b"));
        assert!(!is_valid("a"));
        assert!(!is_valid("/a/"));
        assert!(!is_valid("/a//b"));
        assert!(!is_valid("/a/."));
        assert!(!is_valid("/a/../b"));
        assert!(is_valid("/a/.b/c.."));
        assert!(!is_valid(""));
        assert!(!is_valid("//"));
        assert!(!is_valid("//a"));
        assert!(!is_valid("/a/.."));
        assert!(!is_valid("/./a"));
        assert_eq!(join("/a/b", "c"), "/a/b/c");
        for n in [0, 7, 42, 1_000_000_000, i32::MAX, -1, i32::MIN] {
            assert_eq!(sequential("/l/n-", n).as_str(), format!("/l/n-{n:010}"));
        }
    }
}
