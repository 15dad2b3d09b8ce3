//! `gore analyze`: the search's progress and its best line.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{anyhow, Result};
use clap::Args;
use gore_ai::{Engine, Limits, Options, SEED};
use gore_core::{Game, Rules};

use crate::commands::{parse_position, parse_rules};

#[derive(Args)]
pub struct AnalyzeArgs {
    /// Rule set: `standard` or options such as `skip-origin`.
    #[arg(long, default_value = "standard", value_parser = parse_rules)]
    rules: Rules,
    /// Search to this depth (plies).
    #[arg(long, conflicts_with = "time")]
    depth: Option<u32>,
    /// Search for this many milliseconds (default 2000 when no depth is given).
    #[arg(long)]
    time: Option<u64>,
    /// Stop after this many nodes.
    #[arg(long)]
    nodes: Option<u64>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Accept every offer (honourable play).
    #[arg(long)]
    honourable: bool,
    /// The position in GPN (quoted, or as five words); the start if omitted.
    gpn: Vec<String>,
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    let pos = parse_position(&args.gpn, args.rules)?;
    let game = Game::from_position(pos, args.rules.ply_cap);
    if game.is_over() {
        let o = game.outcome().expect("over");
        println!("game over: result {o}");
        return Ok(());
    }
    let mut limits = Limits {
        depth: args.depth,
        nodes: args.nodes,
        time: args.time.map(Duration::from_millis),
    };
    if limits.depth.is_none() && limits.time.is_none() && limits.nodes.is_none() {
        limits.time = Some(Duration::from_millis(2000));
    }
    let mut engine = Engine::new(Options {
        hash_mb: args.hash,
        honourable: args.honourable,
        ..Options::default()
    });
    let stop = AtomicBool::new(false);
    let me = pos.to_move();
    let result = engine
        .search(&game, &limits, &stop, &mut |info| {
            let pv: Vec<String> = info.pv.iter().map(|a| a.to_string()).collect();
            println!(
                "depth {} score {:+.2} nodes {} nps {} time {} pv {}",
                info.depth,
                info.score as f64 / SEED as f64,
                info.nodes,
                info.nps(),
                info.elapsed.as_millis(),
                pv.join(" ")
            );
        })
        .ok_or_else(|| anyhow!("no legal action"))?;
    let (mine, theirs) = result.expected_seeds();
    let pv: Vec<String> = result.pv.iter().map(|a| a.to_string()).collect();
    println!("bestaction {}", result.best);
    println!("line {}", pv.join(" "));
    println!(
        "expected final score: {me} {mine:.1}, {} {theirs:.1} (seed difference {:+.2} for {me})",
        me.opponent(),
        result.score as f64 / SEED as f64
    );
    Ok(())
}
