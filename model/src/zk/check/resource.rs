//! ZooKeeper's system keeps the protected resource
//! ([`crate::engine::resource`]): each client's section with its peer, the
//! resource with the system.

use super::system::System;
use crate::engine::resource::{
    created, tenure_begins, tenure_ends, write, Resource, Section, Sections,
};

impl Sections for System<'_> {
    fn clients(&self) -> usize {
        self.peers.len()
    }

    fn section(&self, c: usize) -> Section {
        self.peers[c].section
    }

    fn set_section(&mut self, c: usize, s: Section) {
        if self.peers[c].section != s {
            self.peers[c].get_mut().section = s;
        }
    }

    fn resource(&self) -> Option<Resource> {
        self.resource
    }

    fn set_resource(&mut self, r: Resource) {
        self.resource = Some(r);
    }
}

impl System<'_> {
    pub(super) fn tenure_begins(&mut self, c: usize) {
        tenure_begins(self, c);
    }

    pub(super) fn tenure_ends(&mut self, c: usize) {
        tenure_ends(self, c);
    }

    /// Fencing: client `c`'s session created an ephemeral node with this
    /// `czxid` (the create's `Stat`, which the client keeps).
    pub(super) fn created(&mut self, c: usize, czxid: i64) {
        created(self, c, czxid);
    }

    /// Client `c`'s write reaches the resource: a guarded write reaches it
    /// only when ZooKeeper applied it.
    pub(super) fn write(&mut self, c: usize) -> bool {
        write(self, c)
    }
}
