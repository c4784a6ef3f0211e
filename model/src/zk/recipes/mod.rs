//! The lock recipes, one file per recipe: each is the seed's code turned
//! into a sans-IO state machine ([`Recipe`](crate::zk::client::Recipe)), and
//! each file opens with the seed and lines it models, what it claims, and
//! which faults break it. The runtime that runs them — the client process,
//! Java monitors and latches, the ZooKeeper client library's watch rules,
//! the parts recipes share — is [`crate::zk::client`]; the catalogue that
//! registers them is [`catalogue`].
//!
//! | id | file |
//! |---|---|
//! | predecessor | [`predecessor`] |
//! | racy-wait | [`racy_wait`] (code in [`seed000`]) |
//! | fixed-wait | [`fixed_wait`] (code in [`seed000`]) |
//! | timed-wait | [`timed_wait`] (code in [`seed000`]) |
//! | no-recheck | [`no_recheck`] |
//! | herd-unique | [`herd_unique`] |
//! | herd-children | [`herd_children`] |
//! | herd-lowest | [`herd_lowest`] |
//! | cas-version | [`cas_version`] (the example of `docs/writing-a-recipe.md`) |
//! | try-once | [`try_once`] |
//! | try-once-retry | [`try_once_retry`] (code in [`try_once`]) |
//! | curator, curator-owner-check | [`curator`] (Curator 5.4's `InterProcessMutex`) |
//! | kazoo-lock | [`kazoo_lock`] (kazoo 2.11's `Lock`) |
//! | watcher-callback | [`watcher_callback`] (a [`Recipe`](crate::zk::client::Recipe) of its own: the lock is taken in a callback) |
//! | redis-set-px-del, redis-compare-and-delete | [`redis`] (Redis recipes: their own step function, not a [`Recipe`](crate::zk::client::Recipe)) |

pub mod cas_version;
pub mod catalogue;
pub mod curator;
pub mod fixed_wait;
pub mod herd_children;
pub mod herd_lowest;
pub mod herd_unique;
pub mod kazoo_lock;
pub mod no_recheck;
pub mod predecessor;
pub mod racy_wait;
pub mod seed000;
pub mod timed_wait;
pub mod try_once;
pub mod try_once_retry;
pub mod watcher_callback;

pub use catalogue::{AnyRecipe, RecipeId};
