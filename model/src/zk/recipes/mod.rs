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

pub(crate) mod cas_version;
pub(crate) mod catalogue;
pub(crate) mod curator;
pub(crate) mod fixed_wait;
pub(crate) mod herd_children;
pub(crate) mod herd_lowest;
pub(crate) mod herd_unique;
pub(crate) mod kazoo_lock;
pub(crate) mod no_recheck;
pub(crate) mod predecessor;
pub(crate) mod racy_wait;
pub(crate) mod seed000;
pub(crate) mod timed_wait;
pub(crate) mod try_once;
pub(crate) mod try_once_retry;
pub(crate) mod watcher_callback;

pub use catalogue::{AnyRecipe, RecipeId};
