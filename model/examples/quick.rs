use locksmith_model::check::{check, CheckConfig, FaultBudget};
use locksmith_model::recipe::RecipeId;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let r = RecipeId::parse(&args[1]).unwrap();
    let n: u8 = args[2].parse().unwrap();
    let k: u8 = args[3].parse().unwrap();
    let e: u8 = args.get(4).map(|x| x.parse().unwrap()).unwrap_or(0);
    let mut cfg = CheckConfig::new(r, n, k);
    cfg.faults = FaultBudget {
        waiter_expiries: e,
        holder_expiries: args.get(5).map(|x| x.parse().unwrap()).unwrap_or(0),
        connection_losses: 0,
    };
    let rep = check(&cfg);
    println!(
        "{} {:?} states={} trans={} depth={} ms={} peakMB={}",
        rep.verdict,
        rep.property,
        rep.states,
        rep.transitions,
        rep.depth,
        rep.elapsed_ms,
        rep.peak_bytes / 1_000_000
    );
    for p in &rep.properties {
        println!("  {}: {}", p.property, p.verdict);
        if let Some(t) = &p.trace {
            if args.len() > 6 || p.property.name() == "deadlock" {
                print!("{}", t.text());
            } else {
                println!("   ({} steps)", t.steps.len());
            }
        }
    }
}
