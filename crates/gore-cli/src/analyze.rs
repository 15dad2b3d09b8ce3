//! `gore analyze`: the search's progress and its best line, for a game
//! with its history: the position alone, a position and the actions played
//! from it (`--actions`), or a game record (`--record`, `--ply`). The
//! search knows what the game knows, so repetition and the ply cap are
//! judged as the game would judge them.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use gore_ai::{Engine, Limits, Options, SEED};
use gore_core::{Action, Game, Record, Rules};

use crate::commands::{parse_position, parse_rules};

#[derive(Args)]
pub struct AnalyzeArgs {
    /// Rule set: `standard` or options such as `skip-origin` (a record
    /// gives its own).
    #[arg(long, default_value = "standard", value_parser = parse_rules, conflicts_with = "record")]
    rules: Rules,
    /// The actions played so far from the position given (or from the
    /// start): the search knows the game's history (repetition, ply cap).
    #[arg(long, num_args = 1.., allow_hyphen_values = true, value_name = "ACTION", conflicts_with = "record")]
    actions: Vec<String>,
    /// A game record (.gore): its final position is analysed, with the
    /// game's whole history.
    #[arg(long, value_name = "FILE", conflicts_with = "gpn")]
    record: Option<PathBuf>,
    /// With --record: analyse the position after the first N actions.
    #[arg(long, value_name = "N", requires = "record")]
    ply: Option<usize>,
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

/// The game to analyse, with its history, from the arguments.
fn game_of(args: &AnalyzeArgs) -> Result<Game> {
    if let Some(path) = &args.record {
        let flag = format!("--record {}", path.display());
        let text = std::fs::read_to_string(path).with_context(|| format!("{flag}: cannot read"))?;
        let record = Record::parse(&text).map_err(|e| anyhow!("{flag}: {e}"))?;
        let start = record
            .start_position()
            .map_err(|e| anyhow!("{flag}: {e}"))?;
        let n = match args.ply {
            None => record.actions.len(),
            Some(n) if n <= record.actions.len() => n,
            Some(n) => bail!(
                "--ply: {n} is past the record's end ({} actions)",
                record.actions.len()
            ),
        };
        return play_all(
            Game::from_position(start, record.rules.ply_cap),
            &record.actions[..n],
            &flag,
        );
    }
    let pos = parse_position(&args.gpn, args.rules)?;
    let actions = args
        .actions
        .iter()
        .enumerate()
        .map(|(i, token)| {
            token
                .parse::<Action>()
                .map_err(|e| anyhow!("--actions: action {} `{token}`: {e}", i + 1))
        })
        .collect::<Result<Vec<_>>>()?;
    play_all(
        Game::from_position(pos, args.rules.ply_cap),
        &actions,
        "--actions",
    )
}

/// Plays `actions` in `game`; an illegal one is named by its number.
fn play_all(mut game: Game, actions: &[Action], field: &str) -> Result<Game> {
    for (i, &a) in actions.iter().enumerate() {
        game.play(a)
            .map_err(|e| anyhow!("{field}: action {} `{a}`: {e}", i + 1))?;
    }
    Ok(game)
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    let game = game_of(&args)?;
    let pos = *game.position();
    if !game.actions().is_empty() {
        println!(
            "position {pos} after {} actions (repetitions {})",
            game.actions().len(),
            game.repetitions()
        );
    }
    if game.is_over() {
        let o = game.outcome().expect("over");
        println!("game over: result {o}");
        return Ok(());
    }
    let mut limits = Limits {
        depth: args.depth,
        nodes: args.nodes,
        time: args.time.map(Duration::from_millis),
        ..Limits::default()
    };
    if limits.depth.is_none() && limits.time.is_none() && limits.nodes.is_none() {
        limits.time = Some(Duration::from_millis(2000));
    }
    // Analysis asks for the value, not for the AI's taste: no glory.
    let mut engine = Engine::new(Options {
        hash_mb: args.hash,
        honourable: args.honourable,
        glory: 0,
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
