//! `locksmith explorer` on a ZooKeeper scenario: stateright's Explorer web
//! UI over the checker's model, to step through the states by hand. Steps
//! read like the checker's text trace and the path is drawn as a sequence
//! diagram (see `locksmith_model::zk::check::model`).

use super::scenario::Scenario;
use crate::commands::Planned;
use locksmith_model::zk::check::{LockModel, EXPLORED, NOT_EXPLORED};
use stateright::Model;
use std::net::SocketAddr;

/// The Explorer on `sc` with `clients` (the file's, unless given), served
/// on `addr` (`shown`: as the user typed it).
pub fn plan(mut sc: Scenario, clients: Option<u8>, addr: SocketAddr, shown: &str) -> Planned<'_> {
    if let Some(n) = clients {
        sc.check.clients = n;
    }
    Box::new(move || serve(&sc, addr, shown))
}

fn serve(sc: &Scenario, addr: SocketAddr, shown: &str) -> i32 {
    // The Explorer's server panics when it cannot bind: try first.
    if let Err(e) = std::net::TcpListener::bind(addr) {
        eprintln!("error: cannot serve on {addr}: {e} (pass --addr HOST:PORT)");
        return 2;
    }
    eprintln!(
        "stateright Explorer for {} on http://{} (Ctrl-C to stop)",
        sc.name, shown
    );
    // Say which judgments the Explorer cannot make, so that its list of
    // properties is not read as the checker's whole verdict.
    let left_out: Vec<&str> = NOT_EXPLORED.iter().map(|p| p.name()).collect();
    eprintln!(
        "properties: {} (not as stateright properties: {}; `locksmith check` judges them)",
        EXPLORED.map(|p| p.name()).join(", "),
        left_out.join(", ")
    );
    LockModel {
        cfg: sc.check.clone(),
    }
    .checker()
    .serve(addr);
    0
}
