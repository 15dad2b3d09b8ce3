//! `gore play`: a game in the terminal, against the AI (the default), a
//! random mover or another person.

use std::fs;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use clap::{Args, ValueEnum};
use gore_ai::{Engine, Level, Options, MAX_LEVEL};
use gore_core::{Action, Game, Player, Position, Record, Rules};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::board;
use crate::commands::parse_rules;

/// Who plays the other side.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Opponent {
    /// The built-in AI, at the level given by `--level`.
    Ai,
    /// Another person at the same keyboard.
    Human,
    /// A player that picks a legal action at random.
    Random,
}

#[derive(Args)]
pub struct PlayArgs {
    /// Rule set: `standard` or options such as `no-trades,skip-origin`.
    #[arg(long, default_value = "standard", value_parser = parse_rules)]
    rules: Rules,
    /// The opponent: the AI, another person, or a random mover.
    #[arg(long, value_enum, default_value = "ai")]
    opponent: Opponent,
    /// Which side you play against a computer opponent (A moves first).
    #[arg(long = "as", default_value = "A", value_parser = parse_player)]
    side: Player,
    /// The AI's level: 1 (a beginner can win) to 12 (full strength); the
    /// web app's default when omitted.
    #[arg(long, default_value_t = Level::STANDARD.get(), value_parser = clap::value_parser!(u8).range(1..=MAX_LEVEL as i64))]
    level: u8,
    /// The AI's thinking time per action at the top level, in
    /// milliseconds (the lower levels search to their own depth). Default:
    /// the level's one default, 1000 ms.
    #[arg(long)]
    movetime: Option<u64>,
    /// The AI accepts every offer you make (refusing is frowned upon).
    #[arg(long)]
    honourable: bool,
    /// Seed of the computer opponent's choices, so that a game can be
    /// reproduced (the AI's below the top level, which thinks against the
    /// clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Start from this position (GPN) instead of the initial one.
    #[arg(long)]
    from: Option<String>,
    /// Write the record here when the game ends (otherwise you are asked).
    #[arg(long)]
    save: Option<PathBuf>,
    /// Replay a saved record, showing the board after every action.
    #[arg(long)]
    load: Option<PathBuf>,
}

fn parse_player(s: &str) -> Result<Player, String> {
    match s {
        "A" | "a" => Ok(Player::A),
        "B" | "b" => Ok(Player::B),
        _ => Err("a side is A or B".into()),
    }
}

const HELP: &str = "\
Type an action and press Enter:
  a1 .. a4, b1 .. b4   sow the seeds of a hole you control
  offer:a1,a3          offer 1-3 of your holes; the opponent pays 6 captured seeds each
  accept / decline     answer an offer made to you (a win after declining is without glory)
  pass                 only when every hole you control is empty
  legal                list the legal actions
  help                 this text
  quit                 leave the game";

pub fn run(args: PlayArgs) -> Result<()> {
    if let Some(path) = &args.load {
        return replay(path);
    }
    let start = match &args.from {
        None => Position::new(args.rules.variant),
        Some(g) => {
            Position::from_gpn(g.trim(), args.rules.variant).map_err(|e| anyhow!("--from: {e}"))?
        }
    };
    let mut game = Game::from_position(start, args.rules.ply_cap);
    let seed = args.seed.unwrap_or_else(|| rand::thread_rng().gen());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let names = match args.opponent {
        Opponent::Human => ["(A)".to_string(), "(B)".to_string()],
        Opponent::Random | Opponent::Ai => {
            let them = match args.opponent {
                Opponent::Ai => format!("(AI level {})", args.level),
                _ => "(random)".to_string(),
            };
            let mut n = [them.clone(), them];
            n[args.side.index()] = "(you)".to_string();
            n
        }
    };
    let is_human = |p: Player| args.opponent == Opponent::Human || p == args.side;
    // Checked by clap already; a level out of range is an error, not a panic.
    let level = Level::new(args.level).map_err(|e| anyhow!("--level: {e}"))?;
    let mut engine = Engine::new(Options {
        level,
        honourable: args.honourable,
        seed,
        ..Options::default()
    });
    // The top level thinks for the time given; the lower levels search to their
    // own depth, so that a seed replays the same game.
    let limits = match args.movetime {
        None => level.default_limits(),
        Some(ms) => level.limits(Duration::from_millis(ms.max(1))),
    };
    let stop = AtomicBool::new(false);

    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    println!(
        "Goré — rules: {}. Type `help` for the commands.",
        args.rules
    );
    match args.opponent {
        Opponent::Random => println!("Random mover seed: {seed}"),
        Opponent::Ai => println!(
            "You play {} against the AI, level {}{} (seed {seed}).",
            args.side,
            args.level,
            if args.honourable { ", honourable" } else { "" }
        ),
        Opponent::Human => {}
    }
    while !game.is_over() {
        let pos = *game.position();
        let me = pos.to_move();
        println!();
        print!("{}", board::render(&pos, &names));
        if let Some(offer) = pos.pending_offer() {
            let holes: Vec<String> = offer.iter().map(|h| h.to_string()).collect();
            println!(
                "{} offers {} to {} for {} captured seeds.",
                me.opponent(),
                holes.join(" and "),
                me,
                6 * offer.len()
            );
        }
        let action = if is_human(me) {
            if pos.pending_offer().is_some() {
                print!(
                    "{me} {}: accept or decline (declining makes a win \"without glory\")> ",
                    names[me.index()]
                );
            } else {
                print!("{me} {} to move> ", names[me.index()]);
            }
            io::stdout().flush()?;
            let Some(line) = lines.next() else {
                println!("\nInput closed; the game is left unfinished.");
                return offer_save(&game, &args.save, None);
            };
            let line = line?;
            let word = line.trim();
            match word {
                "" => continue,
                "help" | "?" => {
                    println!("{HELP}");
                    continue;
                }
                "quit" | "exit" => {
                    println!("Game left unfinished.");
                    return offer_save(&game, &args.save, Some(&mut lines));
                }
                "legal" => {
                    let all: Vec<String> =
                        pos.legal_actions().iter().map(|a| a.to_string()).collect();
                    println!("Legal: {}", all.join(" "));
                    continue;
                }
                "y" | "yes" if pos.pending_offer().is_some() => Action::Accept,
                "n" | "no" if pos.pending_offer().is_some() => Action::Decline,
                _ => match word.parse::<Action>() {
                    Ok(a) => a,
                    Err(e) => {
                        println!("{e}. Type `help` for the commands.");
                        continue;
                    }
                },
            }
        } else {
            let a = if args.opponent == Opponent::Ai {
                engine.choose(&game, &limits, &stop)
            } else {
                pos.legal_actions().choose(&mut rng).copied()
            }
            .ok_or_else(|| anyhow!("no legal action in a live game"))?;
            match a {
                Action::Accept => println!("{me} accepts your offer."),
                Action::Decline => println!("{me} declines your offer."),
                _ => println!("{me} {} plays {a}", names[me.index()]),
            }
            a
        };
        match game.play(action) {
            Ok(_) => {
                if action == Action::Pass {
                    println!("{me} passes: every hole he controls is empty.");
                }
            }
            Err(e) => println!("Refused: {e}"),
        }
    }
    print!("\n{}", board::render(game.position(), &names));
    announce(&game);
    offer_save(&game, &args.save, Some(&mut lines))
}

fn announce(game: &Game) {
    let Some(o) = game.outcome() else { return };
    let why = match o.reason {
        gore_core::EndReason::Board => "every hole holds at most 2 seeds",
        gore_core::EndReason::NoHole => "a player has no hole left",
        gore_core::EndReason::Repetition => "the same position occurred three times",
        gore_core::EndReason::PlyCap => "the ply cap was reached",
    };
    println!("Game over ({why}); the seeds left went to each hole's controller.");
    match o.winner() {
        None => println!("Result {o}: a draw."),
        Some(w) if o.without_glory() => {
            println!(
                "Result {o}: {w} wins, but it is a victory without glory (an offer was declined)."
            )
        }
        Some(w) => println!("Result {o}: {w} wins."),
    }
}

fn offer_save(
    game: &Game,
    path: &Option<PathBuf>,
    lines: Option<&mut io::Lines<io::StdinLock<'_>>>,
) -> Result<()> {
    if game.actions().is_empty() {
        return Ok(());
    }
    let target = match (path, lines) {
        (Some(p), _) => Some(p.clone()),
        (None, Some(lines)) => {
            print!("Save the record to a file (Enter to skip)> ");
            io::stdout().flush()?;
            match lines.next() {
                Some(Ok(l)) if !l.trim().is_empty() => Some(PathBuf::from(l.trim())),
                _ => None,
            }
        }
        (None, None) => None,
    };
    if let Some(p) = target {
        let record = Record::from_game(game);
        fs::write(&p, record.to_string()).with_context(|| format!("writing {}", p.display()))?;
        println!("Saved to {}", p.display());
    }
    Ok(())
}

fn replay(path: &PathBuf) -> Result<()> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let record = Record::parse(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let names = [
        record.players[0].clone().unwrap_or_default(),
        record.players[1].clone().unwrap_or_default(),
    ];
    let mut game = Game::from_position(
        record.start_position().map_err(|e| anyhow!("{e}"))?,
        record.rules.ply_cap,
    );
    println!("Replaying {} — rules: {}", path.display(), record.rules);
    print!("{}", board::render(game.position(), &names));
    for (i, &a) in record.actions.iter().enumerate() {
        let me = game.position().to_move();
        game.play(a)
            .map_err(|e| anyhow!("{}: action {} ({a}): {e}", path.display(), i + 1))?;
        println!("\n{}. {me} {a}", i + 1);
        print!("{}", board::render(game.position(), &names));
    }
    announce(&game);
    // The record's own Result tag must agree with the replay.
    record
        .replay()
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(())
}
