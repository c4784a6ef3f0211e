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
    let addr = a.server(
        &a.redis,
        sc.recipe(),
        "Redis",
        "--redis HOST:PORT (`scripts/redis.sh start` runs one on 127.0.0.1:6390)",
    )?;
    check_addr(addr)?;
    if sc.expect.is_none() {
        return Err(a.no_expect());
    }
    sc.space.limits.jobs = crate::machine::cores();
    sc.space.validate().map_err(|e| format!("{path}: {e}"))?;
    let mut cfg = RedisConfirmConfig::new(sc.space.clone(), addr);
    cfg.tick_ms = a.tick_ms;
    let shown = Shown::command(
        &sc,
        cfg.addr.clone(),
        format!(
            " re-enacted on Redis at {}, a tick = {} ms",
            cfg.addr, cfg.tick_ms
        ),
        Place::Keys {
            also: "every connection closed",
        },
        Some(cfg.tick_ms),
    );
    Ok(planned(a, shown, move |interrupt| {
        cfg.interrupt = interrupt;
        run(&cfg)
    }))
}
