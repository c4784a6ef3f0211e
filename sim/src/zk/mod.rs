//! ZooKeeper in the app: its scenario file ([`scenario`], with the
//! simulator's `[sim]` table in [`sim_settings`]), its simulated world
//! ([`sim`]: the server node, the Java client library, heartbeats, the
//! chaos node), a real server ([`real`]: the one adapter to it, the run of
//! `locksmith real`, the run's own root, calibration), the re-enactment of
//! a checker trace on that server ([`confirm`]), what a run costs
//! ([`metrics`]) and the timeline of what each client sent and saw
//! ([`timeline`]). The model it runs is `locksmith_model::zk`; its
//! protocol for `locksmith serve` is `crate::serve::zk`.

pub mod bench;
pub mod check;
pub mod commands;
pub mod compare;
pub mod confirm;
pub mod explorer;
pub mod metrics;
pub mod real;
pub mod scenario;
pub mod sim;
pub mod sim_settings;
pub mod timeline;
