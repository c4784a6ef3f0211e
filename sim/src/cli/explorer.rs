//! `locksmith explorer`: stateright's Explorer web UI on a scenario, to step
//! through the states by hand, for a backend that declares it
//! (`crate::commands::Commands::explorer`).

use crate::backend::Capability;
use crate::commands::Planned;
use clap::Args;
use std::net::ToSocketAddrs;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ExplorerArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Address to serve the Explorer on (loopback only by default).
    #[arg(long, default_value = "127.0.0.1:3000")]
    pub addr: String,
    /// Override the number of clients.
    #[arg(short, long, value_parser = clap::value_parser!(u8).range(1..=locksmith_model::engine::MAX_CLIENTS as i64))]
    pub clients: Option<u8>,
}

/// The Explorer the flags ask for, or the error `run` exits 2 with.
/// Nothing is bound here.
pub fn plan(args: &ExplorerArgs) -> Result<Planned<'_>, String> {
    let commands = crate::backends::load_for(&args.scenario, &[("explorer", Capability::Explorer)])
        .map_err(|e| e.to_string())?;
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
    commands.explorer(args.clients, addr, &args.addr)
}

pub fn run(args: &ExplorerArgs) -> i32 {
    match plan(args) {
        Ok(run) => run(),
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
