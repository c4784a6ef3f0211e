//! ZooKeeper in the app: its scenario file ([`scenario`], with the
//! simulator's `[sim]` table in [`sim_settings`]), its simulated world
//! ([`sim`]: the server node, the Java client library, heartbeats, the
//! chaos node), what a run costs ([`metrics`]) and the timeline of what
//! each client sent and saw ([`timeline`]). The model it runs is
//! `locksmith_model::zk`.

pub mod metrics;
pub mod scenario;
pub mod sim;
pub mod sim_settings;
pub mod timeline;
