//! Lock recipes as sans-IO state machines, and the client runtime that runs
//! them.
//!
//! A recipe ([`Recipe`]) is the seed's code turned into a state machine: each
//! call of [`Recipe::step`] is one atomic action of one Java thread. The
//! [`Client`] around it is the process: the main and event threads, Java
//! monitors and latches ([`monitors`]), and the ZooKeeper client library's
//! rules for replies, watches and connection states ([`watchers`],
//! [`client`]). Drivers — the exhaustive checker, the simulator, a real
//! server — move messages and choose which thread runs next; they never
//! re-implement a recipe.
//!
//! One file per recipe; each opens with the seed and lines it models, what
//! it claims, and which faults break it:
//!
//! | id | file |
//! |---|---|
//! | predecessor | [`predecessor`] |
//! | racy-wait | [`racy_wait`] (code in [`seed000`]) |
//! | fixed-wait | [`fixed_wait`] (code in [`seed000`]) |
//! | no-recheck | [`no_recheck`] |
//! | herd-unique | [`herd_unique`] |
//! | herd-children | [`herd_children`] |

pub mod catalogue;
pub mod children;
pub mod client;
pub mod fixed_wait;
pub mod herd_children;
pub mod herd_unique;
pub mod latch_watcher;
pub mod monitors;
pub mod no_recheck;
pub mod predecessor;
pub mod racy_wait;
pub mod rounds;
pub mod seed000;
pub mod step;
pub mod watchers;

pub use catalogue::{AnyRecipe, RecipeId};
pub use client::{Client, Output, Status};
pub use step::{
    Action, KeeperState, Notice, Recipe, RecipeConfig, Resume, Step, Thread, WatcherId,
};
