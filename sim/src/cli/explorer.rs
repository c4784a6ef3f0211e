//! `locksmith explorer`: stateright's Explorer web UI on a scenario, to step
//! through the states by hand.

use crate::scenario::Scenario;
use clap::Args;
use locksmith_model::check::model::LockModel;
use stateright::Model;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ExplorerArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Address to serve the Explorer on (loopback only by default).
    #[arg(long, default_value = "127.0.0.1:3000")]
    pub addr: String,
    /// Override the number of clients.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=locksmith_model::check::MAX_CLIENTS as i64))]
    pub clients: Option<u8>,
}

pub fn run(args: &ExplorerArgs) -> i32 {
    let mut sc = match Scenario::load(&args.scenario) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if let Some(n) = args.clients {
        sc.check.clients = n;
    }
    eprintln!(
        "stateright Explorer for {} on http://{} (Ctrl-C to stop)",
        sc.name, args.addr
    );
    LockModel { cfg: sc.check }
        .checker()
        .serve(args.addr.as_str());
    0
}
