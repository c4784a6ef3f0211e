//! `locksmith confirm` on a ZooKeeper scenario: the flags checked against
//! the scenario before any connection, and the re-enactment ([`super::run`])
//! planned with what its report says.

use super::{run, ConfirmConfig};
use crate::commands::Planned;
use crate::confirm::flags::ConfirmArgs;
use crate::confirm::output::{planned, Place, Shown};
use crate::zk::real::command::check_server;
use crate::zk::real::root;
use crate::zk::scenario::Scenario;

/// The re-enactment the flags ask for on `sc`, checked before any
/// connection.
pub fn plan(a: &ConfirmArgs, mut sc: Scenario) -> Result<Planned<'_>, String> {
    let path = a.scenario.display();
    let zk = a.server(
        &a.zk,
        sc.recipe(),
        "ZooKeeper",
        "--zk HOST:PORT (`scripts/zookeeper.sh start` runs one)",
    )?;
    if sc.expect.is_none() && sc.sim_expect.is_some() {
        // Its clients and acquisitions are sized for the simulator:
        // the checker would explore far beyond any reasonable run.
        return Err(format!(
            "{path}: a simulation scenario ([sim.expect], no [expect]): confirm re-enacts the checker's trace; give it a checker scenario (one with [expect])"
        ));
    }
    check_server(zk)?;
    root::check_base(&a.root)?;
    sc.check.jobs = crate::machine::cores();
    sc.check.validate().map_err(|e| format!("{path}: {e}"))?;
    let mut cfg = ConfirmConfig::new(sc.check.clone(), zk);
    cfg.base = a.root.clone();
    let shown = Shown {
        scenario: sc.name.clone(),
        recipe: sc.recipe().name().to_string(),
        clients: sc.check.clients,
        acquisitions: sc.check.acquisitions,
        backend: "zookeeper",
        server: cfg.addr.clone(),
        tick_ms: None,
        on: format!(" re-enacted on ZooKeeper at {}", cfg.addr),
        place: Place::Root,
    };
    Ok(planned(a, shown, move |interrupt| {
        cfg.interrupt = interrupt;
        run(&cfg)
    }))
}
