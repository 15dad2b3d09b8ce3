//! Finds one side's errors in saved games (`gore match --save DIR`): every
//! decision of that side is searched again, with the game's history, at a
//! much larger node budget; an action worth at least 3 seeds less than
//! the deep search's best is an error, confirmed by searching both
//! actions' positions at the same budget. Errors are counted by kind:
//! answers (an offer pending), offers (the side offered), sowings (the
//! rest, passes included).
//!
//! `cargo run --release -p gore-ai --example trade_errors -- DIR PLAYER NODES [GLORY]`
//!
//! PLAYER is the start of the side's name in the records (`ai:8`), NODES
//! the deep budget per search, GLORY the re-searching engine's glory
//! (default 0: pure strength). Prints one line per confirmed error (the
//! record, the ply, the position, the actions before it, what was played
//! and what the deep search prefers) and the counts.

use std::sync::atomic::AtomicBool;

use gore_ai::{Engine, Limits, Options, SEED};
use gore_core::{Action, Game, Player, Record};

/// The deep value, for the player to move in `game`, of playing `a`.
fn value_of(engine: &mut Engine, game: &Game, a: Action, nodes: u64) -> i32 {
    let me = game.position().to_move();
    let mut g = game.clone();
    g.play(a).expect("legal");
    if let Some(o) = g.outcome() {
        return (o.seeds[me.index()] as i32 - o.seeds[me.opponent().index()] as i32) * SEED;
    }
    let r = engine
        .search(
            &g,
            &Limits::nodes(nodes),
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .expect("a live game");
    if g.position().to_move() == me {
        r.score
    } else {
        -r.score
    }
}

/// `--replay FILE NODES DEEP`: for each error line of FILE (this
/// program's output), the engine at NODES chooses again; its choice is
/// valued by a DEEP search of the position it leads to, against the best
/// action's value printed in the line. Prints the counts within 1 seed of
/// the best.
fn replay(args: &[String]) {
    let text = std::fs::read_to_string(&args[2]).expect("FILE");
    let nodes: u64 = args[3].parse().expect("NODES");
    let deep: u64 = args[4].parse().expect("DEEP");
    let (mut total, mut fixed) = (0, 0);
    let mut by_kind = std::collections::BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("error ")) {
        let kind = line
            .split(" kind ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap_or("?");
        let best_v: f64 = line
            .split(" best ")
            .nth(1)
            .and_then(|r| r.split('(').nth(1))
            .and_then(|r| r.split(')').next())
            .and_then(|v| v.parse().ok())
            .expect("best value");
        let (head, actions) = line.split_once(" actions ").unwrap_or((line, ""));
        let start = head.split(" start ").nth(1).expect("start");
        let rules: gore_core::Rules = "ply-cap=300".parse().expect("rules");
        let pos = gore_core::Position::from_gpn(start, rules.variant).expect("start gpn");
        let mut game = Game::from_position(pos, rules.ply_cap);
        for t in actions.split_whitespace() {
            let a: Action = t.parse().expect("an action");
            game.play(a).expect("legal");
        }
        let mut engine = Engine::new(Options {
            glory: 0,
            ..Options::default()
        });
        let r = engine
            .search(
                &game,
                &Limits::nodes(nodes),
                &AtomicBool::new(false),
                &mut |_| {},
            )
            .expect("live");
        let mut judge = Engine::new(Options {
            glory: 0,
            hash_mb: 64,
            ..Options::default()
        });
        let v = value_of(&mut judge, &game, r.best, deep) as f64 / SEED as f64;
        let ok = v >= best_v - 1.0;
        total += 1;
        fixed += ok as u32;
        let e = by_kind.entry(kind.to_string()).or_insert((0, 0));
        e.0 += 1;
        e.1 += ok as u32;
        println!(
            "{} {kind}: now {} ({v:.2}), best {best_v:.2}",
            if ok { "ok " } else { "BAD" },
            r.best
        );
        if ok && args.get(5).is_some_and(|a| a == "--values") {
            // Every legal action's deep value: the regression test's
            // acceptable set (within 1 seed of the best of them).
            let vals: Vec<(Action, i32)> = game
                .legal_actions()
                .iter()
                .map(|&a| {
                    let mut j = Engine::new(Options {
                        glory: 0,
                        hash_mb: 64,
                        ..Options::default()
                    });
                    (a, value_of(&mut j, &game, a, deep))
                })
                .collect();
            let top = vals.iter().map(|v| v.1).max().unwrap_or(0);
            let good: Vec<String> = vals
                .iter()
                .filter(|v| v.1 >= top - SEED)
                .map(|v| v.0.to_string())
                .collect();
            let all: Vec<String> = vals
                .iter()
                .map(|(a, v)| format!("{a}={:.2}", *v as f64 / SEED as f64))
                .collect();
            println!(
                "case {kind} | {actions} | {} | {}",
                good.join(" "),
                all.join(" ")
            );
        }
    }
    println!("within 1 seed of the best: {fixed} of {total}; by kind {by_kind:?}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == "--replay") {
        replay(&args);
        return;
    }
    if args.len() < 4 {
        eprintln!("usage: trade_errors DIR PLAYER NODES [GLORY]");
        std::process::exit(2);
    }
    let (dir, who) = (&args[1], &args[2]);
    let nodes: u64 = args[3].parse().expect("NODES");
    let glory: u8 = args.get(4).map_or(0, |g| g.parse().expect("GLORY"));
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("DIR")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "gore"))
        .collect();
    files.sort();
    let mut engine = Engine::new(Options {
        glory,
        hash_mb: 64,
        ..Options::default()
    });
    // decisions, errors by kind: answer, offer, sowing
    let mut decisions = [0u32; 3];
    let mut errors = [0u32; 3];
    let mut missed_offers = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a record");
        let record = Record::parse(&text).expect("a record");
        let side = match &record.players {
            [Some(a), _] if a.starts_with(who.as_str()) => Player::A,
            [_, Some(b)] if b.starts_with(who.as_str()) => Player::B,
            _ => continue,
        };
        let mut game = Game::from_position(
            record.start_position().expect("start"),
            record.rules.ply_cap,
        );
        for (ply, &played) in record.actions.iter().enumerate() {
            let pos = *game.position();
            if pos.to_move() == side && pos.legal_actions().len() > 1 {
                let kind = if pos.pending_offer().is_some() {
                    0
                } else if matches!(played, Action::Offer(_)) {
                    1
                } else {
                    2
                };
                decisions[kind] += 1;
                engine.new_game();
                let deep = engine
                    .search(
                        &game,
                        &Limits::nodes(nodes),
                        &AtomicBool::new(false),
                        &mut |_| {},
                    )
                    .expect("a live game");
                if deep.best != played {
                    engine.new_game();
                    let v_played = value_of(&mut engine, &game, played, nodes);
                    if deep.score - v_played >= 3 * SEED {
                        engine.new_game();
                        let v_best = value_of(&mut engine, &game, deep.best, nodes);
                        let loss = v_best - v_played;
                        if loss >= 3 * SEED {
                            errors[kind] += 1;
                            if kind == 2 && matches!(deep.best, Action::Offer(_)) {
                                missed_offers += 1;
                            }
                            let prefix: Vec<String> = record.actions[..ply]
                                .iter()
                                .map(|a| a.to_string())
                                .collect();
                            println!(
                                "error {} ply {ply} kind {} loss {:.2} played {played} ({:.2}) best {} ({:.2}) gpn {pos} start {} actions {}",
                                f.display(),
                                ["answer", "offer", "sowing"][kind],
                                loss as f64 / SEED as f64,
                                v_played as f64 / SEED as f64,
                                deep.best,
                                v_best as f64 / SEED as f64,
                                game.start(),
                                prefix.join(" ")
                            );
                        }
                    }
                }
            }
            game.play(played).expect("a legal record");
        }
    }
    println!(
        "decisions answer {} offer {} sowing {}; errors >= 3 seeds: answer {} offer {} sowing {} (sowings where an offer was best: {missed_offers})",
        decisions[0], decisions[1], decisions[2], errors[0], errors[1], errors[2]
    );
}
