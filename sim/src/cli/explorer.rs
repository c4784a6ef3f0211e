//! `locksmith explorer`: stateright's Explorer web UI on a scenario, to step
//! through the states by hand. Steps read like the checker's text trace
//! and the path is drawn as a sequence diagram (see
//! `locksmith_model::check::model`).

use clap::Args;
use locksmith_model::check::model::{LockModel, EXPLORED, NOT_EXPLORED};
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
    let Some(mut sc) = super::load(&args.scenario) else {
        return 2;
    };
    if let Some(n) = args.clients {
        sc.check.clients = n;
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
    LockModel { cfg: sc.check }
        .checker()
        .serve(args.addr.as_str());
    0
}
