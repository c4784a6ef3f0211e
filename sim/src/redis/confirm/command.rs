//! `locksmith confirm` on a Redis scenario: the flags checked against the
//! scenario before any connection, and the re-enactment ([`super::run`])
//! planned with what its report says.

use super::{run, RedisConfirmConfig};
use crate::commands::Planned;
use crate::confirm::flags::ConfirmArgs;
use crate::confirm::output::{planned, Place, Shown};
use crate::redis::real::command::check_addr;
use crate::redis::scenario::RedisScenario;

/// The re-enactment the flags ask for on `sc`, checked before any
/// connection.
pub fn plan(a: &ConfirmArgs, mut sc: RedisScenario) -> Result<Planned<'_>, String> {
    let path = a.scenario.display();
    let Some(addr) = &a.redis else {
        return Err(format!(
            "{path}: recipe `{}` runs on Redis: pass --redis HOST:PORT (`scripts/redis.sh start` runs one on 127.0.0.1:6390)",
            sc.recipe()
        ));
    };
    check_addr(addr)?;
    if sc.expect.is_none() {
        return Err(format!(
            "{path}: no [expect]: confirm re-enacts a checker scenario's trace"
        ));
    }
    sc.space.limits.jobs = crate::machine::cores();
    sc.space.validate().map_err(|e| format!("{path}: {e}"))?;
    let mut cfg = RedisConfirmConfig::new(sc.space.clone(), addr);
    cfg.tick_ms = a.tick_ms;
    let shown = Shown {
        scenario: sc.name.clone(),
        recipe: sc.recipe().id().to_string(),
        clients: sc.space.clients,
        acquisitions: sc.space.acquisitions,
        backend: "redis",
        server: cfg.addr.clone(),
        tick_ms: Some(cfg.tick_ms),
        on: format!(
            " re-enacted on Redis at {}, a tick = {} ms",
            cfg.addr, cfg.tick_ms
        ),
        place: Place::Keys {
            also: "every connection closed",
        },
    };
    Ok(planned(a, shown, move |interrupt| {
        cfg.interrupt = interrupt;
        run(&cfg)
    }))
}
