//! `mysql-status-cas-unguarded` — source 003 (`003_*.txt`), line 39, with
//! its guard dropped: `UPDATE locks SET status = 1 WHERE name = 'lock'`,
//! and one affected row taken to mean "I took it". It is the shortening a
//! reader makes of the seed's compare-and-set ("the UPDATE says whether it
//! changed the row, so why test the status twice?"), and everything else is
//! the seed's recipe ([`super::status_cas`]: the retry loop, the release).
//!
//! Whether it is a lock depends on what "affected rows" means on the
//! connection, a setting of the client library, not of the SQL:
//! - **changed rows**, the server's default (the Rust `mysql` crate, the
//!   `mysql` command line): setting 1 where 1 already is changes nothing,
//!   so the update reports 0 to every client but the one that found the
//!   row free. It holds.
//! - **found rows** (`CLIENT_FOUND_ROWS`, which MySQL Connector/J and
//!   MariaDB Connector/J set by default): every update that matched the
//!   row reports 1, so every client believes it holds the lock at once.
//!   The scenario's `[mysql] found_rows = true` sets it.
//!
//! What it claims: one holder at a time, as the seed's. What breaks it:
//! `CLIENT_FOUND_ROWS` (mutual exclusion, no fault needed); and everything
//! that breaks the seed's (a holder that dies leaves status 1 forever).
//!
//! **Fenced** (`fencing = true`): the token is taken by the same statement,
//! `SET status = 1, version = LAST_INSERT_ID(version + 1)`. Without the
//! guard that changes the row every time, so even under changed rows every
//! client is told it won — the token's bump is what the guard was keeping
//! out. The resource, which checks the token, still turns the stale
//! holder's writes away.

use super::status_cas::{self, At};
use super::Outcome;
use crate::mysql::Reply;

pub fn step(at: &mut At, reply: Option<&Reply>, fenced: bool) -> Outcome {
    // The seed's statement without `AND status = -1`.
    status_cas::step_with(at, reply, status_cas::take(fenced, None))
}
