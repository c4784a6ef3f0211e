//! The sequence suffixes one part of a state names (the server, or one
//! client with its connection), and whether the part lets the sequence
//! abstraction rename them ([`sequences`](super::sequences)).
//!
//! The abstraction runs on every successor the checker makes, and most of
//! a successor is its parent's: an action changes one client, or the
//! server, and the versions it leaves alone are shared. So what a version
//! names is read once per version and kept beside its digest, and the
//! abstraction merges the parts' lists instead of reading every name of
//! every state again.

use smallvec::SmallVec;

/// A sequence suffix is `%010d` of the parent's counter.
pub const DIGITS: usize = 10;

/// The suffixes a part names (with repeats, in the order read), and
/// whether renaming them is sound as far as this part goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suffixes {
    pub sound: bool,
    pub found: SmallVec<[u32; 8]>,
}

impl Default for Suffixes {
    fn default() -> Self {
        Suffixes {
            sound: true,
            found: SmallVec::new(),
        }
    }
}

impl Suffixes {
    /// The suffixes found, as bits (suffix `n` at bit `n`); `None` if one
    /// is above 63.
    pub fn bits(&self) -> Option<u64> {
        self.found
            .iter()
            .try_fold(0u64, |bits, &n| Some(bits | 1u64.checked_shl(n)?))
    }
}

/// The sequence suffix `name` (a path or a child's name) ends in, if any:
/// its last ten bytes, all digits, read as a `u32`. Bytes, not `str`: ten
/// digits at the end are a whole last component of ten or more characters.
pub fn suffix(name: &[u8]) -> Option<u32> {
    let digits = name.get(name.len().checked_sub(DIGITS)?..)?;
    let mut n: u64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(b - b'0');
    }
    u32::try_from(n).ok()
}

/// Whether a component of `p` other than its last ends like a suffix.
pub fn suffix_inside(p: &[u8]) -> bool {
    match p.iter().rposition(|&b| b == b'/') {
        Some(last) => p[..last].split(|&b| b == b'/').any(|c| suffix(c).is_some()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_are_the_last_ten_digits_of_the_last_component() {
        let suffix = |s: &str| suffix(s.as_bytes());
        let suffix_inside = |s: &str| suffix_inside(s.as_bytes());
        assert_eq!(suffix("/locks/lock-0000000012"), Some(12));
        assert_eq!(suffix("lock-0000000012"), Some(12));
        assert_eq!(suffix("0000000012"), Some(12));
        assert_eq!(suffix("/locks/lock-"), None);
        assert_eq!(suffix("/locks"), None);
        assert_eq!(suffix("/a/000000001"), None);
        assert_eq!(suffix("/a/x4294967295"), Some(u32::MAX));
        assert_eq!(suffix("/a/x4294967296"), None);
        assert!(suffix_inside("/a/n-0000000001/b"));
        assert!(suffix_inside("/0000000001/b"));
        assert!(!suffix_inside("/locks/lock-0000000001"));
        assert!(!suffix_inside("lock-0000000001"));
        assert!(!suffix_inside("/"));
    }
}
