//! Znode paths and child names as the model holds them.
//!
//! The checker copies a client or the server for nearly every transition it
//! explores, and paths are most of what they hold: in requests, replies,
//! events, watch tables, the tree and every recipe's own fields. A `Name`
//! keeps up to [`INLINE`] bytes in place — every path the catalogue's
//! recipes make (`/_locknode_/lock-0000000001` is 27) — so copying one
//! copies no heap string. A longer name is kept on the heap, shared.
//!
//! A name compares, orders and hashes as its text, however it is kept.

use serde::{Serialize, Serializer};
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// The longest name kept in place.
pub const INLINE: usize = 30;

#[derive(Clone)]
pub struct Name(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Arc<str>),
}

impl Name {
    /// The text's bytes: what equality, order and hashing read (a `str`
    /// compares and orders by its bytes too), without checking UTF-8 again.
    fn bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => &bytes[..*len as usize],
            Repr::Heap(s) => s.as_bytes(),
        }
    }

    /// The text's bytes, without checking UTF-8 again.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes()
    }

    /// The name from byte `from` on (`from` at a character boundary, as
    /// after a `/`), made without checking UTF-8 again. Past the end, or
    /// inside a character, it is the empty name, however the name is kept:
    /// an inline name holds whole characters only.
    pub fn tail(&self, from: usize) -> Name {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                // A UTF-8 continuation byte is 0b10xx_xxxx.
                let inside = from < *len as usize && bytes[from] & 0xC0 == 0x80;
                let from = if inside {
                    *len as usize
                } else {
                    from.min(*len as usize)
                };
                let rest = &bytes[from..*len as usize];
                let mut kept = [0u8; INLINE];
                kept[..rest.len()].copy_from_slice(rest);
                Name(Repr::Inline {
                    len: rest.len() as u8,
                    bytes: kept,
                })
            }
            Repr::Heap(s) => Name::from(s.get(from..).unwrap_or_default()),
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                // Checking UTF-8 here again was 3% of the simulator's
                // instructions (a path is read as text at every request).
                // SAFETY: an inline name's bytes are a whole `&str`'s
                // (`From<&str>`) or a tail of them cut at a character
                // boundary (`tail` asserts it), so they are UTF-8.
                unsafe { std::str::from_utf8_unchecked(&bytes[..*len as usize]) }
            }
            Repr::Heap(s) => s,
        }
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        if s.len() <= INLINE {
            let mut bytes = [0u8; INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            Name(Repr::Inline {
                len: s.len() as u8,
                bytes,
            })
        } else {
            Name(Repr::Heap(Arc::from(s)))
        }
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name::from(s.as_str())
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::from("")
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for Name {
    fn as_ref(&self) -> &[u8] {
        self.bytes()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        // A name is kept in place exactly when it fits, and the bytes past
        // its end are zeros: two names in place compare as two arrays, with
        // no call to `memcmp` (the checker's interner compares thousands of
        // equal names for every batch).
        match (&self.0, &other.0) {
            (Repr::Inline { len: a, bytes: x }, Repr::Inline { len: b, bytes: y }) => {
                a == b && x == y
            }
            (Repr::Heap(a), Repr::Heap(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.bytes() == other.as_bytes()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> Ordering {
        self.bytes().cmp(other.bytes())
    }
}

impl Hash for Name {
    /// As `str` hashes (its bytes, then `0xff`), so that `Borrow<str>`
    /// lookups agree.
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write(self.bytes());
        h.write_u8(0xff);
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A tail is the name's text from a byte on, however either is kept.
    #[test]
    fn a_tail_is_the_text_from_a_byte_on() {
        let short = Name::from("/locks/lock-0000000001");
        let long = Name::from("/locks/_c_0123456789abcdef-lock-0000000001");
        assert_eq!(short.tail(7), "lock-0000000001");
        assert_eq!(long.tail(7), "_c_0123456789abcdef-lock-0000000001");
        assert!(matches!(long.tail(7).0, Repr::Heap(_)));
        assert_eq!(short.tail(99), "");
        assert_eq!(short.as_bytes(), short.as_str().as_bytes());
    }

    /// Cut inside a character, a tail is empty kept either way, never
    /// bytes that are not UTF-8 (`as_str` does not check them again).
    #[test]
    fn a_tail_inside_a_character_is_empty() {
        let short = Name::from("/locks/é-1");
        let long = Name::from("/locks/é-0123456789abcdef-lock-0000000001");
        assert_eq!(short.tail(8), "");
        assert_eq!(long.tail(8), "");
        assert_eq!(short.tail(7), "é-1");
        assert_eq!(short.tail(9), "-1");
    }

    #[test]
    fn short_and_long_names_behave_as_their_text() {
        let short = Name::from("/_locknode_/lock-0000000001");
        let long = Name::from("/locks/_c_0123456789abcdef-lock-0000000001");
        assert!(matches!(short.0, Repr::Inline { .. }));
        assert!(matches!(long.0, Repr::Heap(_)));
        assert_eq!(short, "/_locknode_/lock-0000000001");
        assert_eq!(long.as_str(), "/locks/_c_0123456789abcdef-lock-0000000001");
        assert!(short < long.clone() || short > long);
        assert_eq!(
            short.cmp(&long),
            "/_locknode_/lock-0000000001".cmp("/locks/_c_0123456789abcdef-lock-0000000001")
        );
        let mut m = BTreeMap::new();
        m.insert(short.clone(), 1);
        assert_eq!(m.get("/_locknode_/lock-0000000001"), Some(&1));
        assert_eq!(Name::from(String::from("")), Name::default());
        assert_eq!(format!("{short:?}"), "\"/_locknode_/lock-0000000001\"");
        // Each way of reading it as text, both ways round.
        assert_eq!(AsRef::<str>::as_ref(&long), long.as_str());
        assert!("/_locknode_/lock-0000000001" == short);
        assert!("/_locknode_/lock-0000000002" != short);
        assert_ne!(short, "/_locknode_/lock-0000000002");
        assert_eq!(
            crate::engine::fingerprint::fingerprint(&short),
            crate::engine::fingerprint::fingerprint("/_locknode_/lock-0000000001")
        );
        assert_eq!(
            crate::engine::fingerprint::fingerprint(&long),
            crate::engine::fingerprint::fingerprint(long.as_str())
        );
    }
}
