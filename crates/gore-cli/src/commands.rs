//! The scriptable subcommands: `legal`, `apply`, `perft`. Their output is
//! read by other tools, so it is kept exactly as documented in the README.

use std::io::{self, BufWriter, Write};
use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use clap::Args;
use gore_core::{Action, Game, Position, Rules};

/// Parses the rule set flag, naming it in the error.
pub fn parse_rules(s: &str) -> Result<Rules> {
    s.parse().map_err(|e| anyhow!("--rules: {e}"))
}

/// Reads a position given as one argument or as its five fields.
pub fn parse_position(words: &[String], rules: Rules) -> Result<Position> {
    if words.is_empty() {
        return Ok(Position::new(rules.variant));
    }
    let text = words.join(" ");
    Position::from_gpn(text.trim(), rules.variant).map_err(|e| anyhow!("{e}"))
}

#[derive(Args)]
pub struct LegalArgs {
    /// Rule set: `standard` or options such as `skip-origin,no-trades` or `seeds=4`.
    #[arg(long, default_value = "standard", value_parser = parse_rules)]
    rules: Rules,
    /// The position in GPN (quoted, or as five words); the start if omitted.
    gpn: Vec<String>,
}

pub fn legal(args: LegalArgs) -> Result<()> {
    let pos = parse_position(&args.gpn, args.rules)?;
    let mut out = BufWriter::new(io::stdout().lock());
    for a in pos.legal_actions().iter() {
        writeln!(out, "{a}")?;
    }
    out.flush()?;
    Ok(())
}

#[derive(Args)]
pub struct ApplyArgs {
    /// Rule set: `standard` or options such as `skip-origin,ply-cap=200`.
    #[arg(long, default_value = "standard", value_parser = parse_rules)]
    rules: Rules,
    /// The position to start from, in GPN; the start position if omitted.
    #[arg(long)]
    from: Option<String>,
    /// Actions to play in order: b3, offer:a1,a3, accept, decline, pass.
    #[arg(required = true, allow_hyphen_values = true)]
    actions: Vec<String>,
}

pub fn apply(args: ApplyArgs) -> Result<()> {
    let start = match &args.from {
        None => Position::new(args.rules.variant),
        Some(g) => {
            Position::from_gpn(g.trim(), args.rules.variant).map_err(|e| anyhow!("--from: {e}"))?
        }
    };
    let mut game = Game::from_position(start, args.rules.ply_cap);
    let mut out = io::stdout().lock();
    for (i, token) in args.actions.iter().enumerate() {
        let n = i + 1;
        let action: Action = token
            .parse()
            .map_err(|e| anyhow!("action {n} `{token}`: {e}"))?;
        let ended = game
            .play(action)
            .map_err(|e| anyhow!("action {n} `{token}`: {e}"))?
            .outcome;
        // Each line is flushed at once so that it stays printed if a later
        // action fails.
        writeln!(out, "{}", game.position())?;
        if let Some(outcome) = ended {
            writeln!(out, "result {}-{}", outcome.seeds[0], outcome.seeds[1])?;
        }
        out.flush()?;
    }
    Ok(())
}

#[derive(Args)]
pub struct PerftArgs {
    /// Rule set: `standard` or options such as `no-trades,skip-origin`.
    #[arg(long, default_value = "standard", value_parser = parse_rules)]
    rules: Rules,
    /// The position to count from, in GPN; the start position if omitted.
    #[arg(long)]
    from: Option<String>,
    /// Also print, for DEPTH, the count below each first action.
    #[arg(long)]
    divide: bool,
    /// The deepest depth counted (every depth from 1 is printed).
    depth: u32,
}

pub fn perft(args: PerftArgs) -> Result<()> {
    if args.depth == 0 {
        bail!("DEPTH: must be at least 1");
    }
    let pos = match &args.from {
        None => Position::new(args.rules.variant),
        Some(g) => {
            Position::from_gpn(g.trim(), args.rules.variant).map_err(|e| anyhow!("--from: {e}"))?
        }
    };
    let mut out = io::stdout().lock();
    let clock = Instant::now();
    let mut leaves: u64 = 0;
    if args.divide {
        for &a in pos.legal_actions().iter() {
            let mut next = pos;
            next.play_unchecked(a);
            let n = next.perft(args.depth - 1);
            leaves += n;
            writeln!(out, "{a} {n}")?;
        }
    }
    for d in 1..=args.depth {
        let n = pos.perft(d);
        leaves += n;
        writeln!(out, "{d} {n}")?;
        out.flush()?;
    }
    let secs = clock.elapsed().as_secs_f64();
    let rate = if secs > 0.0 {
        leaves as f64 / secs
    } else {
        0.0
    };
    writeln!(
        out,
        "time {secs:.3} s, {leaves} leaves, {:.0} leaves/s",
        rate
    )?;
    Ok(())
}
