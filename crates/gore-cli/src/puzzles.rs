//! `gore puzzles`: generate puzzles by seeded self-play (`generate`), or
//! prove a puzzle file's answers again (`verify`). The format is
//! docs/NOTATION.md's "Puzzle files".

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use gore_core::Rules;
use gore_learn::puzzles::{
    parse_file, proof_engine, verify_to, GenConfig, Generator, Theme, DEFAULT_DEEP, DEFAULT_DEPTH,
    DEFAULT_MARGIN,
};
use indicatif::{ProgressBar, ProgressStyle};

use crate::commands::parse_rules;

#[derive(Args)]
pub struct PuzzlesArgs {
    #[command(subcommand)]
    command: PuzzlesCommand,
}

#[derive(Subcommand)]
enum PuzzlesCommand {
    /// Find puzzles in seeded engine self-play and write them to a file.
    Generate(GenerateArgs),
    /// Prove every puzzle of a file again (exit status 1 if one fails).
    Verify(VerifyArgs),
    /// Merge puzzle files (a position once) and spread their ratings
    /// evenly over the scale by rank, keeping their order.
    Calibrate(CalibrateArgs),
}

#[derive(Args)]
struct CalibrateArgs {
    /// The puzzle files, in order (their `#` comments are kept).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The file to write.
    #[arg(long)]
    out: PathBuf,
    /// The lowest rating.
    #[arg(long, default_value_t = 700)]
    low: i32,
    /// The highest rating (700 to 2300 puts the median at 1500, where a
    /// new solver starts).
    #[arg(long, default_value_t = 2300)]
    high: i32,
}

#[derive(Args)]
struct GenerateArgs {
    /// How many puzzles.
    #[arg(long, default_value_t = 500)]
    count: usize,
    /// Seed of the self-play games: same seed, same puzzles.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The file to write (written as puzzles are found).
    #[arg(long)]
    out: PathBuf,
    /// Depth of each proof, in plies (the answer included): the
    /// shallowest depth at which the answers must be best by the margin.
    #[arg(long, default_value_t = DEFAULT_DEPTH)]
    depth: u32,
    /// The deepest depth checked: the answers must stay best by the
    /// margin at every depth from --depth to this one.
    #[arg(long, default_value_t = DEFAULT_DEEP)]
    deep: u32,
    /// The margin K: the answer's expected final seeds beat every other
    /// action's by at least this many.
    #[arg(long, default_value_t = DEFAULT_MARGIN)]
    margin: u8,
    /// Rule set of the games.
    #[arg(long, default_value = "standard", value_parser = parse_rules)]
    rules: Rules,
    /// Keep only puzzles with one of these themes, comma-separated
    /// (`whole-board,sweep`): the rare ones come from the ends of games.
    #[arg(long, value_delimiter = ',', value_parser = parse_theme)]
    themes: Vec<Theme>,
}

fn parse_theme(s: &str) -> Result<Theme, String> {
    Theme::from_name(s).ok_or_else(|| format!("unknown theme `{s}`"))
}

#[derive(Args)]
struct VerifyArgs {
    /// The puzzle file.
    file: PathBuf,
    /// Check every depth from each puzzle's proof depth to this one at
    /// least (or to the puzzle's own deepest, if deeper).
    #[arg(long, default_value_t = DEFAULT_DEEP)]
    deep: u32,
    /// Check only every N-th puzzle (the first, the N+1-th, …): a quick
    /// sample of a large file.
    #[arg(long, default_value_t = 1)]
    every: usize,
}

pub fn run(args: PuzzlesArgs) -> Result<()> {
    match args.command {
        PuzzlesCommand::Generate(a) => generate(a),
        PuzzlesCommand::Verify(a) => verify_file(a),
        PuzzlesCommand::Calibrate(a) => calibrate(a),
    }
}

fn calibrate(a: CalibrateArgs) -> Result<()> {
    if !(100..a.high).contains(&a.low) || a.high > 4000 {
        bail!("--low, --high: 100 ≤ low < high ≤ 4000");
    }
    let mut comments = Vec::new();
    let mut all = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in &a.files {
        let text = std::fs::read_to_string(f).with_context(|| format!("{}", f.display()))?;
        comments.extend(
            text.lines()
                .filter(|l| l.starts_with('#') && !l.starts_with("# id;"))
                .map(str::to_string),
        );
        for p in parse_file(&text).map_err(|e| anyhow!("{}: {e}", f.display()))? {
            if seen.insert(p.position.to_string()) {
                all.push(p);
            }
        }
    }
    gore_learn::puzzles::spread_ratings(&mut all, a.low, a.high);
    let file = File::create(&a.out).with_context(|| format!("--out: {}", a.out.display()))?;
    let mut out = BufWriter::new(file);
    for c in &comments {
        writeln!(out, "{c}")?;
    }
    writeln!(
        out,
        "# gore puzzles calibrate --low {} --high {} (ratings spread by rank)",
        a.low, a.high
    )?;
    writeln!(out, "# id;rules;gpn;answer;margin;proof;themes;rating;line")?;
    for p in &all {
        writeln!(out, "{p}")?;
    }
    out.flush()?;
    println!("{} puzzles written", all.len());
    Ok(())
}

fn generate(a: GenerateArgs) -> Result<()> {
    if a.count == 0 {
        bail!("--count: must be at least 1");
    }
    if !(2..=20).contains(&a.depth) {
        bail!("--depth: must be from 2 to 20");
    }
    if !(a.depth..=40).contains(&a.deep) {
        bail!("--deep: must be from --depth to 40");
    }
    if a.margin == 0 {
        bail!("--margin: must be at least 1 seed");
    }
    let file = File::create(&a.out).with_context(|| format!("--out: {}", a.out.display()))?;
    let mut out = BufWriter::new(file);
    writeln!(
        out,
        "# gore puzzles generate --count {} --seed {} --depth {} --deep {} --margin {} --rules {}{}",
        a.count,
        a.seed,
        a.depth,
        a.deep,
        a.margin,
        a.rules.variant,
        if a.themes.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = a.themes.iter().map(|t| t.as_str()).collect();
            format!(" --themes {}", names.join(","))
        }
    )?;
    writeln!(out, "# id;rules;gpn;answer;margin;proof;themes;rating;line")?;
    let mut gen = Generator::new(GenConfig {
        variant: a.rules.variant,
        seed: a.seed,
        depth: a.depth,
        deep: a.deep,
        margin: a.margin,
        count: a.count,
        only: a.themes,
    });
    let bar = ProgressBar::new(a.count as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} puzzles {elapsed_precise} (eta {eta}) {msg}",
        )
        .map_err(|e| anyhow!("{e}"))?,
    );
    for _ in 0..a.count {
        let p = gen.next_puzzle();
        writeln!(out, "{p}")?;
        out.flush()?;
        let s = gen.stats;
        bar.set_message(format!(
            "{} games, {} positions, {} filtered, {} proved",
            s.games, s.positions, s.filtered, s.proved
        ));
        bar.inc(1);
    }
    bar.finish();
    Ok(())
}

fn verify_file(a: VerifyArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.file).with_context(|| format!("{}", a.file.display()))?;
    let puzzles = parse_file(&text).map_err(|e| anyhow!("{}: {e}", a.file.display()))?;
    if a.every == 0 {
        bail!("--every: must be at least 1");
    }
    if a.deep > 40 {
        bail!("--deep: must be at most 40");
    }
    let puzzles: Vec<_> = puzzles.into_iter().step_by(a.every).collect();
    let mut engine = proof_engine();
    let bar = ProgressBar::new(puzzles.len() as u64);
    let mut failed = 0;
    for p in &puzzles {
        if let Err(e) = verify_to(p, a.deep, &mut engine) {
            // Also when stderr is no terminal (the bar is hidden then).
            bar.suspend(|| eprintln!("{}: {e}", p.id));
            failed += 1;
        }
        bar.inc(1);
    }
    bar.finish();
    if failed > 0 {
        bail!("{failed} of {} puzzles failed", puzzles.len());
    }
    println!("{} puzzles verified", puzzles.len());
    Ok(())
}
