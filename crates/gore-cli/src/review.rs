//! `gore review`: a game record with each action valued and marked
//! (inaccuracy `?!`, mistake `?`, blunder `??`), printed as the record with
//! the evaluations as comments (docs/NOTATION.md, "Comments"), then each
//! player's summary.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use gore_core::Record;
use gore_learn::review::{annotate, review, Budget};

#[derive(Args)]
pub struct ReviewArgs {
    /// The game record (.gore) to review.
    #[arg(long, value_name = "FILE")]
    record: PathBuf,
    /// Search each position to this depth (plies).
    #[arg(long, default_value_t = Budget::DEFAULT.depth, value_parser = clap::value_parser!(u32).range(2..=30))]
    depth: u32,
    /// At most this many nodes per search.
    #[arg(long, default_value_t = Budget::DEFAULT.nodes)]
    nodes: u64,
    /// The no-trade database (built by `gore solve --db DIR`): exact values
    /// where it holds the position.
    #[arg(long, value_name = "DIR")]
    solver_db: Option<PathBuf>,
}

pub fn run(args: ReviewArgs) -> Result<()> {
    let flag = format!("--record {}", args.record.display());
    let text =
        std::fs::read_to_string(&args.record).with_context(|| format!("{flag}: cannot read"))?;
    let record = Record::parse(&text).map_err(|e| anyhow!("{flag}: {e}"))?;
    let db = match &args.solver_db {
        None => None,
        Some(dir) => Some(
            gore_solver::disk::Database::open(dir, record.rules.variant.skip_origin)
                .with_context(|| format!("--solver-db {}", dir.display()))?,
        ),
    };
    let budget = Budget {
        depth: args.depth,
        nodes: args.nodes,
    };
    let stop = AtomicBool::new(false);
    let r = review(&record, budget, db.as_ref(), &stop).map_err(|e| anyhow!("{flag}: {e}"))?;
    print!("{}", annotate(&record, &r));
    for (p, s) in ["A", "B"].iter().zip(r.summary) {
        println!(
            "# {p}: {} actions ({} forced), average loss {:.2} seeds, {} inaccuracies, {} mistakes, {} blunders",
            s.actions, s.forced, s.average_loss, s.inaccuracies, s.mistakes, s.blunders
        );
    }
    Ok(())
}
