//! `locksmith explorer`: stateright's Explorer web UI on a scenario, to step
//! through the states by hand. Steps read like the checker's text trace
//! and the path is drawn as a sequence diagram (see
//! `locksmith_model::zk::check::model`).

use crate::backend::Capability;
use crate::backends::AnyScenario;
use crate::zk::scenario::Scenario;
use clap::Args;
use locksmith_model::zk::check::{LockModel, EXPLORED, NOT_EXPLORED};
use stateright::Model;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ExplorerArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Address to serve the Explorer on (loopback only by default).
    #[arg(long, default_value = "127.0.0.1:3000")]
    pub addr: String,
    /// Override the number of clients.
    #[arg(short, long, value_parser = clap::value_parser!(u8).range(1..=locksmith_model::zk::check::MAX_CLIENTS as i64))]
    pub clients: Option<u8>,
}

/// The scenario and the address to serve on, or the error `run` exits 2
/// with. Nothing is bound here.
pub fn plan(args: &ExplorerArgs) -> Result<(Scenario, SocketAddr), String> {
    let any = AnyScenario::load_for(&args.scenario, &[("explorer", Capability::Explorer)])
        .map_err(|e| e.to_string())?;
    let AnyScenario::ZooKeeper(sc) = any else {
        return Err(format!(
            "{}: the Explorer serves ZooKeeper's model only",
            args.scenario.display()
        ));
    };
    let mut sc = *sc;
    if let Some(n) = args.clients {
        sc.check.clients = n;
    }
    let addr = args
        .addr
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| {
            format!(
                "--addr {}: expected HOST:PORT to serve on, e.g. 127.0.0.1:3000",
                args.addr
            )
        })?;
    Ok((sc, addr))
}

pub fn run(args: &ExplorerArgs) -> i32 {
    let (sc, addr) = match plan(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    // The Explorer's server panics when it cannot bind: try first.
    if let Err(e) = std::net::TcpListener::bind(addr) {
        eprintln!("error: cannot serve on {addr}: {e} (pass --addr HOST:PORT)");
        return 2;
    }
    eprintln!(
        "stateright Explorer for {} on http://{} (Ctrl-C to stop)",
        sc.name, args.addr
    );
    // Say which judgments the Explorer cannot make, so that its list of
    // properties is not read as the checker's whole verdict.
    let left_out: Vec<&str> = NOT_EXPLORED.iter().map(|p| p.name()).collect();
    eprintln!(
        "properties: {} (not as stateright properties: {}; `locksmith check` judges them)",
        EXPLORED.map(|p| p.name()).join(", "),
        left_out.join(", ")
    );
    LockModel { cfg: sc.check }.checker().serve(addr);
    0
}
