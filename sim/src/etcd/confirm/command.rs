//! `locksmith confirm` on an etcd scenario: the flags checked against the
//! scenario before any connection, and the re-enactment ([`super::confirm`])
//! planned with what its report says.

use crate::commands::Planned;
use crate::confirm::flags::ConfirmArgs;
use crate::confirm::output::{planned, Place, Shown};
use crate::etcd::scenario::EtcdScenario;
use crate::real::flags::host_port;

/// The re-enactment the flags ask for on `sc`, checked before any
/// connection.
pub fn plan(a: &ConfirmArgs, mut sc: EtcdScenario) -> Result<Planned<'_>, String> {
    let path = a.scenario.display();
    let addr = a
        .server(
            &a.etcd,
            sc.recipe(),
            "etcd",
            "--etcd HOST:PORT (`scripts/etcd.sh start` runs one on 127.0.0.1:2390)",
        )?
        .to_string();
    host_port("--etcd", &addr)?;
    if sc.expect.is_none() {
        return Err(a.no_expect());
    }
    sc.space.limits.jobs = crate::machine::cores();
    sc.space.validate().map_err(|e| format!("{path}: {e}"))?;
    let shown = Shown::command(
        &sc,
        addr.clone(),
        format!(" re-enacted on etcd at {addr}"),
        Place::Keys {
            also: "its leases revoked",
        },
        None,
    );
    Ok(planned(a, shown, move |_| {
        let property = sc.expect.as_ref().and_then(|e| e.property);
        super::confirm(&sc.space, property, &addr)
    }))
}
