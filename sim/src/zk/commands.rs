//! What the commands ask of a ZooKeeper scenario, each answered by
//! ZooKeeper's own part of the app.

use super::scenario::Scenario;
use crate::check::flags::CheckArgs;
use crate::commands::{Commands, Pinned, Planned};
use crate::confirm::flags::ConfirmArgs;
use crate::real::flags::RealArgs;
use crate::simulate::flags::{ReplayArgs, SimArgs};
use std::net::SocketAddr;

impl Commands for Scenario {
    fn recipe_id(&self) -> &'static str {
        self.recipe().name()
    }

    fn pinned(&self) -> Pinned {
        let check_faults = budget_faults(self);
        let mut sim_faults = check_faults.clone();
        sim_faults.extend(sim_only_faults(self));
        Pinned {
            name: self.name.clone(),
            drivers: vec![
                ("check", self.expect.clone(), check_faults),
                ("sim", self.sim_expect.clone(), sim_faults),
            ],
        }
    }

    fn check<'a>(self: Box<Self>, a: &'a CheckArgs) -> Result<Planned<'a>, String> {
        crate::check::planned(a, *self)
    }

    fn sim<'a>(self: Box<Self>, a: &'a SimArgs) -> Result<Planned<'a>, String> {
        super::sim::command::plan(a, *self)
    }

    fn replay<'a>(self: Box<Self>, a: &'a ReplayArgs) -> Result<Planned<'a>, String> {
        super::sim::command::plan_replay(a, *self)
    }

    fn real<'a>(self: Box<Self>, a: &'a RealArgs) -> Result<Planned<'a>, String> {
        let cfg = super::real::command::plan(a, *self)?;
        Ok(Box::new(move || super::real::command::execute(a, cfg)))
    }

    fn explorer<'a>(
        self: Box<Self>,
        clients: Option<u8>,
        addr: SocketAddr,
        shown: &'a str,
    ) -> Result<Planned<'a>, String> {
        Ok(super::explorer::plan(*self, clients, addr, shown))
    }

    fn confirm<'a>(self: Box<Self>, a: &'a ConfirmArgs) -> Result<Planned<'a>, String> {
        super::confirm::command::plan(a, *self)
    }
}

/// The `[faults]` budgets, by their keys; both drivers inject them (the
/// simulator as a schedule).
fn budget_faults(sc: &Scenario) -> Vec<String> {
    let mut keys: Vec<String> = sc
        .check
        .faults
        .by_key()
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, _)| k.to_string())
        .collect();
    // Not a fault, but what breaks a lock that is not re-entrant.
    if sc.check.reentries > 0 {
        keys.push(format!("reentries = {}", sc.check.reentries));
    }
    // Nor is a root the recipe creates itself (its races break it).
    if sc.check.recipe_root {
        keys.push("root = \"recipe\"".into());
    }
    keys
}

/// What only the simulator injects: `[sim.rates]`, `[[sim.schedule]]` and
/// the unsafe reordering, by the keys a scenario file uses.
fn sim_only_faults(sc: &Scenario) -> Vec<String> {
    let s = &sc.sim;
    let rates = [
        ("expire", s.rates.expire),
        ("pause", s.rates.pause),
        ("partition", s.rates.partition),
        ("connection_loss", s.rates.connection_loss),
    ];
    let mut out: Vec<String> = rates
        .into_iter()
        .filter(|(_, r)| *r > 0.0)
        .map(|(k, _)| format!("sim.rates.{k}"))
        .collect();
    let mut kinds: Vec<_> = s.schedule.iter().map(|f| f.fault).collect();
    kinds.sort();
    kinds.dedup();
    out.extend(kinds.iter().map(|k| format!("sim.schedule {}", k.name())));
    if s.reorder_within_session {
        out.push("sim.reorder_within_session".into());
    }
    out
}
