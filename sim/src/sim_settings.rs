//! The `[sim]` table of a scenario file: settings only the simulator reads.
//! Every field has a default, so a scenario written for the checker runs in
//! the simulator unchanged.

use serde::Deserialize;

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimSettings {}
