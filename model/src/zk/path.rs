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
    if parent == "/" {
        format!("/{child}").into()
    } else {
        format!("{parent}/{child}").into()
    }
}

/// Whether `path` is a valid absolute path as `PathUtils.validatePath` sees it
/// (for the characters the model can produce).
pub fn is_valid(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    path.starts_with('/')
        && !path.ends_with('/')
        && !path.contains("//")
        && path.split('/').skip(1).all(|c| c != "." && c != "..")
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
    }
}
