//! What the command backends (Redis, MySQL, etcd) do alike, written once:
//! clients that each send one request at a time to one server over one
//! connection, run the harness loop (think, `lock()`, a critical section
//! of ticks, `unlock()`, next round), pause and crash, and with fencing
//! write to the protected resource twice a tenure. A backend brings only
//! its own: its server, its recipe's step, its own actions and faults,
//! their words.
//!
//! - [`backend`]: [`Backend`], what a backend's configuration brings (its
//!   state's type, the settings every one has, its server and its recipe
//!   as a run begins);
//! - [`state`]: the state every one keeps ([`State`], [`Client`],
//!   [`Channel`], [`Fence`]), generic over what is the backend's own;
//! - [`action`]: the six actions every one has ([`Shared`]) beside its own,
//!   in one enum a backend declares with `command_actions!`;
//! - [`step`]: the transitions every one takes alike (a client's step, a
//!   think, a pause, a crash) and the parts of its enabled actions
//!   ([`Steps`]: its recipe's step, its own transitions);
//! - [`space`]: every command backend as an engine [`Space`](super::Space)
//!   ([`Explored`]: what the search asks of the backend's own);
//! - [`trace`]: a counterexample in words ([`Narrated`]: the backend's);
//! - [`judged`]: every command backend as a [`Judged`](super::Judged)
//!   ([`Reported`]: why it judges no herd, no orphaned node, ...);
//! - [`config`]: the configuration's defaults and checks every one shares
//!   ([`Configured`]: the backend's own checks).
//!
//! A backend's `check/` answers the six traits a file each (`Backend` in
//! `state.rs`, `Configured` in `config.rs`, `Steps` in `step.rs`,
//! `Explored` in `space.rs`, `Narrated` in `trace.rs`, `Reported` in
//! `report.rs`), and is a `Space` and a `Judged` by them; the engine never
//! imports a backend.

pub(crate) mod action;
pub(crate) mod backend;
pub(crate) mod config;
pub(crate) mod judged;
pub(crate) mod space;
pub(crate) mod state;
pub(crate) mod step;
pub(crate) mod trace;

pub(crate) use action::command_actions;
pub use action::{CommandAction, Shared};
pub(crate) use backend::command_fields;
pub use backend::{Backend, Harness};
pub(crate) use config::config_checks;
pub use config::Configured;
pub use judged::{Reported, Unjudged};
pub use space::{Explored, SERVER};
pub(crate) use state::process_faults;
pub use state::{Channel, Client, ClientOwn, Fence, ProcessFaults, State};
pub use step::{Steps, Token};
pub use trace::{Actor, Narrated};
