//! A key's name.

use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// A Redis key. Shared text: the checker clones states on every transition
/// and a key is cloned with them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Key(Arc<str>);

impl Key {
    pub fn new(name: &str) -> Key {
        Key(Arc::from(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Key {
    fn from(name: &str) -> Key {
        Key::new(name)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
