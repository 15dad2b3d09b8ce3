//! The arena's rules, against tables worked by hand from docs/RULES.md
//! ("Tournaments", "Arena"), and its pairing laws over generated arenas.

use gore_tournament::arena::{
    Arena, ArenaConfig, ArenaGameId, GameResult, Pairing, Presence, Scored,
};
use gore_tournament::{Outcome, PlayerId, PlayerResult, Side};
use proptest::prelude::*;

const START: u64 = 1_700_000_000_000;
const MIN: u64 = 60_000;

fn id(s: &str) -> PlayerId {
    PlayerId::from(s)
}

fn arena(players: &[(&str, i32)]) -> Arena {
    let mut a = Arena::new(ArenaConfig::new(START, START + 60 * MIN));
    for &(p, r) in players {
        a.join(id(p), r, START).unwrap();
    }
    a
}

fn names(p: &[Pairing]) -> Vec<(String, String)> {
    p.iter().map(|p| (p.a.0.clone(), p.b.0.clone())).collect()
}

/// Plays one game between `x` and `y` (whatever the pairing would be) with
/// `x`'s result: pauses everyone else so that exactly these two are paired.
fn play(a: &mut Arena, x: &str, y: &str, x_result: char, t: u64) {
    let others: Vec<PlayerId> = a
        .players
        .values()
        .filter(|p| p.presence == Presence::Joined && p.id != id(x) && p.id != id(y))
        .map(|p| p.id.clone())
        .collect();
    for o in &others {
        a.pause(o).unwrap();
    }
    let pairs = a.pair(t);
    assert_eq!(pairs.len(), 1, "{x} and {y} free");
    let p = &pairs[0];
    let x_is_a = p.a == id(x);
    let outcome = match (x_result, x_is_a) {
        ('W', true) | ('L', false) => Outcome::AWins,
        ('W', false) | ('L', true) => Outcome::BWins,
        _ => Outcome::Draw,
    };
    a.record(GameResult::new(p.game, outcome, t + 1)).unwrap();
    for o in &others {
        a.join(o.clone(), 0, t + 1).unwrap();
    }
}

#[test]
fn streaks_double_after_two_wins_until_a_game_is_not_won() {
    // By hand (docs/RULES.md): x's results W W W D W L W W W.
    //   W 2 (no streak), W 2 (one win before), W 4 (two wins before: fire),
    //   D 2 (still on fire: a draw doubled), W 2 (before: D, W — the draw
    //   put the fire out), L 0, W 2, W 2 (before: W, L), W 4 (before: W, W).
    //   Total 20; on fire after it (last two are wins).
    let mut a = arena(&[("x", 1500), ("y", 1500), ("z", 1500)]);
    let mut t = START;
    for (i, r) in "WWWDWLWWW".chars().enumerate() {
        // Alternate opponents so no pairing repeats a last game.
        let opp = if i % 2 == 0 { "y" } else { "z" };
        play(&mut a, "x", opp, r, t);
        t += MIN;
    }
    let points: Vec<u32> = a.sheet(&id("x")).iter().map(|s| s.points).collect();
    assert_eq!(points, vec![2, 2, 4, 2, 2, 0, 2, 2, 4]);
    let x = a
        .standings()
        .into_iter()
        .find(|s| s.player == id("x"))
        .unwrap();
    assert_eq!(x.score, 20);
    assert!(x.on_fire);
    assert_eq!((x.games, x.wins), (9, 7));
}

#[test]
fn lichess_example_two_wins_then_a_draw_is_six() {
    let mut a = arena(&[("x", 1500), ("y", 1500), ("z", 1500)]);
    play(&mut a, "x", "y", 'W', START);
    play(&mut a, "x", "z", 'W', START + MIN);
    play(&mut a, "x", "y", 'D', START + 2 * MIN);
    assert_eq!(a.standings()[0].score, 6);
    assert!(!a.standings()[0].on_fire);
}

#[test]
fn without_streaks_nothing_doubles() {
    let mut cfg = ArenaConfig::new(START, START + 60 * MIN);
    cfg.streaks = false;
    let mut a = Arena::new(cfg);
    for p in ["x", "y", "z"] {
        a.join(id(p), 1500, START).unwrap();
    }
    for (i, opp) in ["y", "z", "y"].iter().enumerate() {
        play(&mut a, "x", opp, 'W', START + i as u64 * MIN);
    }
    assert_eq!(a.standings()[0].score, 6);
}

#[test]
fn an_aborted_game_counts_for_nobody_and_breaks_no_streak() {
    // By hand: W 2, W 2, aborted (nothing), W 4 (the two wins before it).
    let mut a = arena(&[("x", 1500), ("y", 1500), ("z", 1500)]);
    play(&mut a, "x", "y", 'W', START);
    play(&mut a, "x", "z", 'W', START + MIN);
    a.pause(&id("z")).unwrap();
    let g = a.pair(START + 2 * MIN)[0].game;
    let mut aborted = GameResult::new(g, Outcome::Draw, START + 2 * MIN + 1);
    aborted.outcome = None;
    a.record(aborted).unwrap();
    a.join(id("z"), 0, START + 2 * MIN).unwrap();
    play(&mut a, "x", "z", 'W', START + 3 * MIN);
    let x = a
        .standings()
        .into_iter()
        .find(|s| s.player == id("x"))
        .unwrap();
    assert_eq!((x.score, x.games), (8, 3));
}

#[test]
fn berserk_wins_score_one_more_with_five_actions_of_his_own() {
    // By hand: x berserks four times.
    //   game 0: x wins with 5 actions of his own → 2 + 1 = 3;
    //   game 1: x wins with 4 actions (his opponent resigned early) → 2;
    //   game 2: x on fire (two wins before), wins with 9 → 4 + 1 = 5;
    //   game 3: x loses → 0 (the berserk point needs a win).
    // y berserks in game 0 and loses: 0. Total for x: 10.
    let mut a = arena(&[("x", 1500), ("y", 1400), ("z", 1400)]);
    let cases = [("y", 5, 'W'), ("z", 4, 'W'), ("y", 9, 'W'), ("z", 20, 'L')];
    for (i, &(opp, actions, r)) in cases.iter().enumerate() {
        let t = START + i as u64 * MIN;
        let other = if opp == "y" { "z" } else { "y" };
        a.pause(&id(other)).unwrap();
        let p = a.pair(t).remove(0);
        let x_is_a = p.a == id("x");
        let outcome = match (r, x_is_a) {
            ('W', true) | ('L', false) => Outcome::AWins,
            _ => Outcome::BWins,
        };
        let mut res = GameResult::new(p.game, outcome, t + 1);
        if x_is_a {
            res.berserk_a = true;
            res.actions_a = actions;
            res.berserk_b = i == 0;
        } else {
            res.berserk_b = true;
            res.actions_b = actions;
            res.berserk_a = i == 0;
        }
        a.record(res).unwrap();
        a.join(id(other), 0, t + 1).unwrap();
    }
    let pts: Vec<u32> = a.sheet(&id("x")).iter().map(|s| s.points).collect();
    assert_eq!(pts, vec![3, 2, 5, 0]);
    assert_eq!(a.sheet(&id("y"))[0].points, 0);
    assert!(!a.sheet(&id("y"))[0].berserk_point);
}

#[test]
fn pairs_near_score_and_the_odd_one_waits() {
    // Ratings 1900..1500; all joined at START, so all are free equally long.
    // Round of pairing 1, by rank (rating, all at 0 points): e(1900)–d(1800),
    // c(1700)–b(1600); a (1500), the lowest ranked of the five, waits.
    let mut a = arena(&[
        ("a", 1500),
        ("b", 1600),
        ("c", 1700),
        ("d", 1800),
        ("e", 1900),
    ]);
    let p = a.pair(START);
    assert_eq!(
        names(&p),
        vec![("e".into(), "d".into()), ("c".into(), "b".into())]
    );
    // Nothing more while they play: a alone is free.
    assert!(a.pair(START + 1).is_empty());
    // d beats e at +2 min. Free: a (since START), d and e (since +2 min).
    // Three free: the one free the shortest waits — d and e equally, so the
    // lower ranked of them: e (0 points) is below d (2 points) and waits;
    // d plays a.
    a.record(GameResult::new(p[0].game, Outcome::BWins, START + 2 * MIN))
        .unwrap();
    let p2 = a.pair(START + 2 * MIN);
    // d was B against e (A minus B: −1), a never played (0): d is A.
    assert_eq!(names(&p2), vec![("d".into(), "a".into())]);
}

#[test]
fn never_the_same_opponent_twice_in_a_row_when_another_exists() {
    // Four players; x–y and z–w play first (nearest ratings). x beats y,
    // z beats w.
    let mut a = arena(&[("x", 1900), ("y", 1800), ("z", 1700), ("w", 1600)]);
    let p = a.pair(START);
    assert_eq!(
        names(&p),
        vec![("x".into(), "y".into()), ("z".into(), "w".into())]
    );
    a.record(GameResult::new(p[0].game, Outcome::AWins, START + MIN))
        .unwrap();
    a.record(GameResult::new(p[1].game, Outcome::AWins, START + MIN))
        .unwrap();
    // Ranks: x 2 (1900), z 2 (1700), y 0 (1800), w 0 (1600). x–z, y–w.
    let p = a.pair(START + MIN);
    let mut got: Vec<(String, String)> = names(&p)
        .into_iter()
        .map(|(a, b)| if a < b { (a, b) } else { (b, a) })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![("w".into(), "y".into()), ("x".into(), "z".into())]
    );
    // x beats z, w beats y. Ranks: x 4, w 2 (1600), z 2 (1700) → z above
    // w by rating: x 4, z 2, w 2, y 0. Nearest: x–z — but x just played z.
    // So x takes the next, w; z–y is left: neither's last opponent.
    let xz = p.iter().find(|q| q.a == id("x") || q.b == id("x")).unwrap();
    let yw = p.iter().find(|q| q.a == id("y") || q.b == id("y")).unwrap();
    let xo = if xz.a == id("x") {
        Outcome::AWins
    } else {
        Outcome::BWins
    };
    let wo = if yw.a == id("w") {
        Outcome::AWins
    } else {
        Outcome::BWins
    };
    a.record(GameResult::new(xz.game, xo, START + 2 * MIN))
        .unwrap();
    a.record(GameResult::new(yw.game, wo, START + 2 * MIN))
        .unwrap();
    let p = a.pair(START + 2 * MIN);
    let mut got: Vec<(String, String)> = names(&p)
        .into_iter()
        .map(|(a, b)| if a < b { (a, b) } else { (b, a) })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![("w".into(), "x".into()), ("y".into(), "z".into())]
    );
}

#[test]
fn two_players_alone_play_again_rather_than_wait_forever() {
    let mut a = arena(&[("x", 1500), ("y", 1500)]);
    let g = a.pair(START)[0].game;
    a.record(GameResult::new(g, Outcome::Draw, START + MIN))
        .unwrap();
    assert_eq!(a.pair(START + MIN).len(), 1, "no other choice exists");
}

#[test]
fn paused_and_withdrawn_players_are_not_paired_and_only_paused_ones_return() {
    let mut a = arena(&[("x", 1500), ("y", 1500), ("z", 1500)]);
    a.pause(&id("x")).unwrap();
    a.withdraw(&id("y"), START + 1).unwrap();
    assert!(a.pair(START + 1).is_empty(), "z is alone");
    assert_eq!(
        a.join(id("y"), 1500, START + 2),
        Err(gore_tournament::arena::ArenaError::Withdrawn(id("y")))
    );
    a.join(id("x"), 1500, START + 2).unwrap();
    let p = a.pair(START + 2);
    assert_eq!(p.len(), 1);
    assert!(p[0].a != id("y") && p[0].b != id("y"));
    // The withdrawn player stays in the standings (he started).
    assert!(a.standings().iter().any(|s| s.player == id("y")));
    // Before the start, withdrawing removes a player.
    let mut b = Arena::new(ArenaConfig::new(START, START + MIN));
    b.join(id("q"), 1500, START - 10).unwrap();
    b.withdraw(&id("q"), START - 5).unwrap();
    assert!(b.standings().is_empty());
}

#[test]
fn nothing_is_paired_before_the_start_or_after_the_end_and_running_games_count() {
    let mut a = Arena::new(ArenaConfig::new(START, START + 10 * MIN));
    for p in ["w", "x", "y", "z"] {
        a.join(id(p), 1500, START - MIN).unwrap();
    }
    assert!(a.pair(START - 1).is_empty());
    let p = a.pair(START);
    assert_eq!(p.len(), 2);
    a.record(GameResult::new(p[0].game, Outcome::AWins, START + 9 * MIN))
        .unwrap();
    // At the end: two players are free but nothing is paired.
    assert!(a.pair(START + 10 * MIN).is_empty());
    assert!(!a.finished(START + 10 * MIN), "a game is still running");
    assert_eq!(
        a.join(id("v"), 1500, START + 10 * MIN),
        Err(gore_tournament::arena::ArenaError::Over)
    );
    // The last game ends after the end and still counts.
    a.record(GameResult::new(p[1].game, Outcome::BWins, START + 12 * MIN))
        .unwrap();
    assert!(a.finished(START + 12 * MIN));
    let scored: u32 = a.standings().iter().map(|s| s.score).sum();
    assert_eq!(scored, 4);
}

#[test]
fn standings_break_ties_by_performance_and_feature_the_leaders_game() {
    // p (1500) beats q (1300); r (1500) beats s (1700): both 2 points.
    // Performance by hand: p = 1300 + 500 = 1800; r = 1700 + 500 = 2200.
    // So r ranks above p despite equal score and rating.
    let mut a = arena(&[("p", 1500), ("q", 1300), ("r", 1500), ("s", 1700)]);
    // First pairing by rating: s–p, r–q. Play what the pairing gives, with
    // results making the example: force it by pausing.
    a.pause(&id("r")).unwrap();
    a.pause(&id("s")).unwrap();
    let g1 = a.pair(START).remove(0);
    let o = if g1.a == id("p") {
        Outcome::AWins
    } else {
        Outcome::BWins
    };
    a.record(GameResult::new(g1.game, o, START + 1)).unwrap();
    a.pause(&id("p")).unwrap();
    a.pause(&id("q")).unwrap();
    a.join(id("r"), 0, START + 1).unwrap();
    a.join(id("s"), 0, START + 1).unwrap();
    let g2 = a.pair(START + 1).remove(0);
    let o = if g2.a == id("r") {
        Outcome::AWins
    } else {
        Outcome::BWins
    };
    a.record(GameResult::new(g2.game, o, START + 2)).unwrap();
    let st = a.standings();
    let order: Vec<&str> = st.iter().map(|s| s.player.as_str()).collect();
    assert_eq!(order, vec!["r", "p", "s", "q"]);
    assert_eq!(st[0].performance, Some(2200));
    assert_eq!(st[1].performance, Some(1800));
    assert_eq!(st[2].performance, Some(1000), "s: 1500 − 500");
    assert_eq!(a.leader_game(), None, "nobody plays now");
    // Everyone back: r (2, 2200) vs p (2, 1800) is the top game: featured.
    a.join(id("p"), 0, START + 3).unwrap();
    a.join(id("q"), 0, START + 3).unwrap();
    let p = a.pair(START + 3);
    let top = p
        .iter()
        .find(|q| q.a == id("r") || q.b == id("r"))
        .unwrap()
        .game;
    assert_eq!(a.leader_game(), Some(top));
}

#[test]
fn bad_calls_are_typed_errors_and_change_nothing() {
    use gore_tournament::arena::ArenaError;
    let mut a = arena(&[("x", 1500), ("y", 1500)]);
    let before = a.clone();
    assert_eq!(
        a.record(GameResult::new(ArenaGameId(7), Outcome::Draw, START)),
        Err(ArenaError::UnknownGame(ArenaGameId(7)))
    );
    assert_eq!(
        a.pause(&id("nobody")),
        Err(ArenaError::UnknownPlayer(id("nobody")))
    );
    assert_eq!(a, before);
    let g = a.pair(START)[0].game;
    a.record(GameResult::new(g, Outcome::Draw, START + 1))
        .unwrap();
    let after = a.clone();
    assert_eq!(
        a.record(GameResult::new(g, Outcome::AWins, START + 2)),
        Err(ArenaError::AlreadyRecorded(g))
    );
    assert_eq!(a, after);
    assert_eq!(
        Arena::try_new(ArenaConfig::new(START, START)).err(),
        Some(ArenaError::BadTimes)
    );
}

#[test]
fn the_state_round_trips_through_json_with_its_standings_and_next_pairing() {
    let mut a = arena(&[
        ("x", 1900),
        ("y", 1800),
        ("z", 1700),
        ("w", 1600),
        ("v", 1500),
    ]);
    let p = a.pair(START);
    let mut r = GameResult::new(p[0].game, Outcome::AWins, START + MIN);
    r.berserk_a = true;
    r.actions_a = 12;
    a.record(r).unwrap();
    a.pause(&id("v")).unwrap();
    let json = serde_json::to_string(&a).unwrap();
    let mut back: Arena = serde_json::from_str(&json).unwrap();
    assert_eq!(back, a);
    assert_eq!(back.standings(), a.standings());
    assert_eq!(back.pair(START + 2 * MIN), a.pair(START + 2 * MIN));
    // Malformed state is an error, not a panic.
    assert!(serde_json::from_str::<Arena>("{\"config\": 3}").is_err());
}

/// Whether some perfect pairing of `ids` avoids every pair in `bad`.
fn repeat_free_exists(ids: &[PlayerId], bad: &dyn Fn(&PlayerId, &PlayerId) -> bool) -> bool {
    if ids.is_empty() {
        return true;
    }
    let first = &ids[0];
    (1..ids.len()).any(|j| {
        !bad(first, &ids[j]) && {
            let rest: Vec<PlayerId> = ids[1..]
                .iter()
                .enumerate()
                .filter(|&(k, _)| k + 1 != j)
                .map(|(_, p)| p.clone())
                .collect();
            repeat_free_exists(&rest, bad)
        }
    })
}

/// A player's score sheet as the rules say it, walking the results in
/// the order they came: 2 for a win, 1 for a draw, doubled after two wins
/// in a row, +1 for a berserk win with enough actions; aborts not scored.
fn naive_sheet(a: &Arena, p: &PlayerId) -> Vec<Scored> {
    let mut out: Vec<Scored> = Vec::new();
    for &gid in &a.finished {
        let g = &a.games[gid.0 as usize];
        let side = if &g.a == p {
            Side::A
        } else if &g.b == p {
            Side::B
        } else {
            continue;
        };
        let res = g.result.as_ref().unwrap();
        let Some(outcome) = res.outcome else { continue };
        let result = outcome.for_side(side);
        let n = out.len();
        let doubled = a.config.streaks
            && n >= 2
            && out[n - 1].result == PlayerResult::Win
            && out[n - 2].result == PlayerResult::Win;
        let (berserk, actions) = match side {
            Side::A => (res.berserk_a, res.actions_a),
            Side::B => (res.berserk_b, res.actions_b),
        };
        let berserk_point =
            result == PlayerResult::Win && berserk && actions >= a.config.berserk_min_actions;
        let base = match result {
            PlayerResult::Win => 2,
            PlayerResult::Draw => 1,
            PlayerResult::Loss => 0,
        };
        out.push(Scored {
            game: gid,
            result,
            doubled,
            berserk_point,
            points: base * if doubled { 2 } else { 1 } + u32::from(berserk_point),
        });
    }
    out
}

#[derive(Debug, Clone)]
enum Op {
    Pair,
    /// A running game ends: which, how (a win, a loss, a draw or an
    /// abort), and each side's berserk and actions.
    Finish(usize, u8, [bool; 2], [u32; 2]),
    Pause(usize),
    Join(usize),
    Withdraw(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Pair),
        6 => (0usize..20, 0u8..4, any::<[bool; 2]>(), [0u32..9, 0u32..9])
            .prop_map(|(g, r, b, n)| Op::Finish(g, r, b, n)),
        1 => (0usize..9).prop_map(Op::Pause),
        1 => (0usize..9).prop_map(Op::Join),
        1 => (0usize..9).prop_map(Op::Withdraw),
    ]
}

proptest! {
    /// Over generated arenas of up to nine players: nobody is ever in two
    /// running games; paused and withdrawn players are not paired; a pair
    /// repeats a last game only when no pairing of those players avoids it;
    /// at most one free player is left unpaired; nothing pairs after the end.
    #[test]
    fn pairing_laws(n in 2usize..10, ops in prop::collection::vec(op(), 1..60)) {
        let ids: Vec<PlayerId> = (0..n).map(|i| PlayerId(format!("p{i}"))).collect();
        let mut a = Arena::new(ArenaConfig::new(START, START + 1000 * MIN));
        for (i, p) in ids.iter().enumerate() {
            a.join(p.clone(), 1400 + (i as i32 * 37) % 300, START).unwrap();
        }
        let mut t = START;
        for op in ops {
            t += MIN;
            match op {
                Op::Pair => {
                    let before = a.clone();
                    let last_opp = |p: &PlayerId| before.games_of(p).last().map(|g| {
                        let g = &before.games[g.0 as usize];
                        if &g.a == p { g.b.clone() } else { g.a.clone() }
                    });
                    let free: Vec<PlayerId> = before.players.values()
                        .filter(|p| p.presence == Presence::Joined && before.current_game(&p.id).is_none())
                        .map(|p| p.id.clone()).collect();
                    let pairs = a.pair(t);
                    prop_assert_eq!(pairs.len(), free.len() / 2);
                    let mut seen = Vec::new();
                    for p in &pairs {
                        for q in [&p.a, &p.b] {
                            prop_assert!(free.contains(q), "{} was not free", q);
                            prop_assert!(!seen.contains(q));
                            seen.push(q.clone());
                        }
                    }
                    let bad = |x: &PlayerId, y: &PlayerId| last_opp(x).as_ref() == Some(y) || last_opp(y).as_ref() == Some(x);
                    if pairs.iter().any(|p| bad(&p.a, &p.b)) {
                        prop_assert!(!repeat_free_exists(&seen, &bad),
                            "a repeat was avoidable: {:?}", pairs);
                    }
                }
                Op::Finish(g, r, berserk, actions) => {
                    let running: Vec<usize> = (0..a.games.len()).filter(|&i| a.games[i].running()).collect();
                    if !running.is_empty() {
                        let game = ArenaGameId(running[g % running.len()] as u32);
                        let o = [Outcome::AWins, Outcome::BWins, Outcome::Draw][r as usize % 3];
                        let mut result = GameResult::new(game, o, t);
                        result.outcome = (r < 3).then_some(o);
                        [result.berserk_a, result.berserk_b] = berserk;
                        [result.actions_a, result.actions_b] = actions;
                        a.record(result).unwrap();
                    }
                }
                Op::Pause(i) => { let _ = a.pause(&ids[i % n]); }
                Op::Join(i) => { let _ = a.join(ids[i % n].clone(), 1500, t); }
                Op::Withdraw(i) => { let _ = a.withdraw(&ids[i % n], t); }
            }
            for p in &ids {
                let running = a.games.iter().filter(|g| g.running() && (&g.a == p || &g.b == p)).count();
                prop_assert!(running <= 1, "{} in {} games", p, running);
            }
        }
        // Every sheet (computed for all players in one pass) is the one a
        // player's own walk through the results gives, and the standings
        // add it up.
        let standings = a.standings();
        for p in &ids {
            let naive = naive_sheet(&a, p);
            prop_assert_eq!(&a.sheet(p), &naive);
            if let Some(line) = standings.iter().find(|l| &l.player == p) {
                prop_assert_eq!(line.score, naive.iter().map(|s| s.points).sum::<u32>());
                prop_assert_eq!(line.games as usize, naive.len());
            }
        }
        prop_assert!(a.pair(START + 1000 * MIN).is_empty());
    }
}
