//! When each transaction was applied: a `Stat`'s `ctime` and `mtime`.
//!
//! The real server writes a node's `ctime` and `mtime` from the time in
//! the header of the transaction that created or last changed it, so both
//! are functions of `czxid` and `mzxid`. The model has no clock (giving it
//! one would split every checker state by time), so the served server
//! keeps that function beside it: each time it applies requests it notes
//! the wall clock against the last zxid. A zxid's time is the first note at
//! or after it; zxid 0 (the nodes a server starts with) reads 0, as on a
//! real server.

/// Notes of (last zxid applied, Unix milliseconds), both increasing.
#[derive(Debug, Default)]
pub struct ZxidTimes {
    notes: Vec<(i64, i64)>,
}

impl ZxidTimes {
    /// Every zxid up to `zxid` not noted yet was applied by `unix_ms`.
    pub fn note(&mut self, zxid: i64, unix_ms: i64) {
        match self.notes.last_mut() {
            Some((last, _)) if zxid <= *last => {}
            _ => self.notes.push((zxid, unix_ms)),
        }
    }

    /// The Unix time in milliseconds of transaction `zxid` (0 for one not
    /// noted yet, and for zxid 0).
    pub fn at(&self, zxid: i64) -> i64 {
        if zxid <= 0 {
            return 0;
        }
        let i = self.notes.partition_point(|(z, _)| *z < zxid);
        self.notes.get(i).map_or(0, |(_, ms)| *ms)
    }
}

/// The wall clock in Unix milliseconds, as ZooKeeper's `Time.currentWallTime`.
pub fn unix_ms_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zxid_reads_the_first_note_at_or_after_it() {
        let mut t = ZxidTimes::default();
        t.note(3, 1000);
        t.note(3, 1500); // nothing new applied: the note stands
        t.note(7, 2000);
        assert_eq!(t.at(0), 0);
        assert_eq!(t.at(1), 1000);
        assert_eq!(t.at(3), 1000);
        assert_eq!(t.at(4), 2000);
        assert_eq!(t.at(7), 2000);
        assert_eq!(t.at(8), 0, "not applied yet");
    }
}
