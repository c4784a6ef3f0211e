//! The seeds' Redis locks in the exhaustive checker, through the `Space`
//! seam: each verdict, trace and state count here comes from exploration.

use locksmith_model::check::explore::{explore_space, Exploration};
use locksmith_model::check::redis::{Action, RedisSpace};
use locksmith_model::check::Property;
use locksmith_model::recipe::redis::RedisRecipe;
use std::ops::ControlFlow;

fn run(space: &RedisSpace) -> Exploration<Action> {
    space.validate().expect("a valid configuration");
    explore_space(space, &mut |_| ControlFlow::Continue(()))
}

#[test]
fn probe() {
    for recipe in RedisRecipe::ALL {
        for pauses in [0, 1] {
            let mut sp = RedisSpace::new(recipe);
            sp.faults.pauses = pauses;
            let x = run(&sp);
            println!("{recipe} pauses={pauses}: states {} transitions {} depth {} bound {:?} acquired {:b}", x.states, x.transitions, x.depth, x.bound, x.acquired);
            for (p, cx) in &x.found {
                println!(
                    "  {p}: {} steps, cycle {:?}",
                    cx.actions.len(),
                    cx.cycle_start
                );
                for a in &cx.actions {
                    println!("    {a}");
                }
            }
        }
    }
}
