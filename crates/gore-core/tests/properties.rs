//! Properties of the library over many random legal games (seeded sweeps
//! and proptest), checked against RULES.md and the reference model.

mod common;

use std::collections::HashMap;

use common::{
    all_flag_sets, all_variants, lib_legal, pick, random_model, rules_of, variant_of, Flags, Model,
};
use gore_core::{
    Action, EndReason, Game, Hole, HoleSet, Player, Position, Record, RecordResult, Rules, Setup,
    Variant,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every action the type can express, including malformed offers.
fn action_space() -> Vec<Action> {
    let mut v: Vec<Action> = Hole::ALL.iter().map(|&h| Action::Sow(h)).collect();
    v.extend((0..=255u8).map(|m| Action::Offer(HoleSet(m))));
    v.extend([Action::Accept, Action::Decline, Action::Pass]);
    v
}

/// Round trips and invariants of one position.
fn check_position(p: &Position, rules: Rules) {
    // Seeds are conserved.
    let total =
        p.seeds_on_board() + u32::from(p.captured(Player::A)) + u32::from(p.captured(Player::B));
    assert_eq!(total, 8 * u32::from(rules.variant.seeds_per_hole()), "{p}");
    let by_holes: u32 = Hole::ALL.iter().map(|&h| u32::from(p.seeds(h))).sum();
    assert_eq!(by_holes, p.seeds_on_board());
    // GPN round trip.
    let gpn = p.to_string();
    let back = Position::from_gpn(&gpn, rules.variant).expect("GPN round trip");
    assert_eq!(back, *p, "{gpn}");
    assert_eq!(back.hash(), p.hash());
    // Setup round trip.
    let s = p.to_setup();
    assert_eq!(Position::from_setup(&s, rules.variant), Ok(*p));
    assert_eq!(s.to_string(), gpn);
    assert_eq!(s.to_string().parse::<Setup>(), Ok(s));
    // The setup says what the accessors say.
    for h in Hole::ALL {
        assert_eq!(s.seeds[h.index()], p.seeds(h));
        assert_eq!(s.controllers[h.index()], p.controller(h));
        assert!(p.controlled(p.controller(h)).contains(h));
        assert!(!p.controlled(!p.controller(h)).contains(h));
    }
    // Sweep totals: captured + seeds in controlled holes, adding up to 48.
    let mut sweep = [
        u32::from(p.captured(Player::A)),
        u32::from(p.captured(Player::B)),
    ];
    for h in Hole::ALL {
        sweep[p.controller(h).index()] += u32::from(p.seeds(h));
    }
    assert_eq!(p.sweep_totals().map(u32::from), sweep);
    let swept = p.swept();
    assert_eq!(swept.seeds_on_board(), 0);
    assert_eq!(
        [swept.captured(Player::A), swept.captured(Player::B)].map(u32::from),
        sweep
    );
}

/// Checks legal actions are accepted and a sample of the others rejected.
fn check_actions(p: &Position, rng: &mut ChaCha8Rng, space: &[Action], samples: usize) {
    let legal: Vec<Action> = p.legal_actions().to_vec();
    assert_eq!(legal.len(), p.count_legal() as usize);
    for &a in &legal {
        assert!(p.check(a).is_ok(), "{a} listed but rejected in {p}");
        assert!(p.is_legal(a));
        let q = p.play(a).unwrap();
        let mut r = *p;
        r.play_unchecked(a);
        assert_eq!(q, r, "play and play_unchecked differ for {a} in {p}");
        // play_effect plays the same action and reports it: a sowing's
        // holes are its seeds' count, each the next along the cycle
        // (stepping over the origin only on a skip-origin lap), and its
        // captured seeds are the mover's gain.
        let (q2, effect) = p.play_effect(a).unwrap();
        assert_eq!(q2, q);
        match a {
            Action::Sow(h) => {
                let sowing = effect.sowing.expect("a sowing reports its holes");
                let holes: Vec<Hole> = sowing.holes().collect();
                assert_eq!(holes.len(), p.seeds(h) as usize);
                let mut at = h;
                for &next in &holes {
                    at = at.next();
                    if p.variant().skip_origin && at == h {
                        at = at.next();
                    }
                    assert_eq!(next, at, "sowing {a} in {p}");
                }
                let me = p.to_move();
                assert_eq!(
                    q.captured(me) - p.captured(me),
                    effect.seeds_captured,
                    "{a} in {p}"
                );
                for c in effect.captured.iter() {
                    assert_eq!(q.seeds(c), 0, "captured {c} still holds seeds");
                }
            }
            _ => assert_eq!(effect, gore_core::Effect::NONE, "{a} in {p}"),
        }
        // Token round trip.
        let tok = a.to_string();
        assert_eq!(tok.parse::<Action>(), Ok(a), "{tok}");
    }
    // No duplicates.
    let mut dedup = legal.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), legal.len(), "duplicate actions in {p}");
    for _ in 0..samples {
        let a = space[rng.gen_range(0..space.len())];
        if legal.contains(&a) {
            continue;
        }
        let before = *p;
        let err = p.check(a).expect_err("unlisted action accepted by check");
        assert!(!err.to_string().is_empty());
        assert!(!p.is_legal(a));
        assert_eq!(p.play(a), Err(err), "{a} in {p}");
        assert_eq!(before, *p);
        assert_eq!(before.to_string(), p.to_string());
    }
}

fn random_rules(rng: &mut ChaCha8Rng) -> Rules {
    // The standard seeds half the time, any `seeds=N` otherwise.
    let f = if rng.gen_bool(0.5) {
        all_flag_sets()[rng.gen_range(0..8)]
    } else {
        let all = all_variants();
        all[rng.gen_range(0..all.len())]
    };
    let mut r = rules_of(f);
    if rng.gen_bool(0.3) {
        r.ply_cap = Some(rng.gen_range(1..120));
    }
    r
}

#[derive(Default, Debug)]
struct EndStats {
    board: u32,
    no_hole: u32,
    repetition: u32,
    ply_cap: u32,
    unfinished: u32,
    without_glory: u32,
    draws: u32,
    records: u32,
}

/// Plays one random game with a `Game` and the model side by side.
fn play_game(
    rng: &mut ChaCha8Rng,
    rules: Rules,
    start: Model,
    max_plies: usize,
    st: &mut EndStats,
    hashes: &mut HashMap<(Flags, u64), String>,
) -> Game {
    let space = action_space();
    let flags = Flags::of(&rules);
    let start_pos = Position::from_gpn(&start.gpn(), rules.variant).unwrap();
    let mut g = Game::from_position(start_pos, rules.ply_cap);
    let mut m = start;
    let mut seen: HashMap<String, usize> = HashMap::new();
    seen.insert(m.gpn(), 1);
    let mut declined = [false, false];
    for ply in 1..=max_plies {
        assert!(!g.is_over());
        let p = *g.position();
        assert_eq!(p.to_string(), m.gpn());
        assert_eq!(g.repetitions(), seen[&m.gpn()]);
        check_position(&p, rules);
        check_actions(&p, rng, &space, 6);
        let prev = hashes.insert((flags, p.hash()), p.to_string());
        if let Some(prev) = prev {
            assert_eq!(prev, p.to_string(), "hash collision");
        }
        let legal_game: Vec<String> = g.legal_actions().iter().map(|a| a.to_string()).collect();
        let mut sorted = legal_game.clone();
        sorted.sort();
        assert_eq!(sorted, lib_legal(&p));
        assert_eq!(sorted, m.legal());
        // An illegal action leaves the game as it was.
        let bad = space[rng.gen_range(0..space.len())];
        if !g.legal_actions().contains(&bad) {
            let before = g.clone();
            assert!(g.play(bad).is_err(), "{bad:?} accepted in {p}");
            assert_eq!(g, before);
        }
        // A legal action, biased towards trades.
        let tok = pick(rng, &m.legal(), 0.3);
        if tok == "decline" {
            declined[common::pidx(m.to_move)] = true;
        }
        let pre_sweep = {
            m.apply(&tok).unwrap();
            m.clone()
        };
        let count = seen.entry(m.gpn()).or_insert(0);
        *count += 1;
        let mut reasons = Vec::new();
        if m.is_ended() {
            let holeless = m.controlled('A').is_empty() || m.controlled('B').is_empty();
            reasons.push(if holeless {
                EndReason::NoHole
            } else {
                EndReason::Board
            });
        }
        if *count >= 3 {
            reasons.push(EndReason::Repetition);
        }
        if rules.ply_cap == Some(ply as u32) {
            reasons.push(EndReason::PlyCap);
        }
        let result = g.play(tok.parse().unwrap()).expect("legal action").outcome;
        assert_eq!(g.actions().len(), ply);
        assert_eq!(g.has_declined(Player::A), declined[0]);
        assert_eq!(g.has_declined(Player::B), declined[1]);
        if reasons.is_empty() {
            assert!(result.is_none(), "game ended early after {tok}: {result:?}");
            assert!(!g.is_over());
            continue;
        }
        // The game is over.
        let o = result.expect("game should have ended");
        assert!(g.is_over());
        assert_eq!(g.outcome(), Some(&o));
        // The project decision of docs/RULES.md: board, then repetition, then
        // ply cap; the first that applies is the reason.
        assert_eq!(o.reason, reasons[0], "applicable: {reasons:?}");
        let want = pre_sweep.sweep_totals();
        assert_eq!(o.seeds.map(u32::from), want, "sweep of {}", pre_sweep.gpn());
        assert_eq!(u32::from(o.seeds[0]) + u32::from(o.seeds[1]), flags.total());
        assert_eq!(o.declined, declined);
        let winner = match want[0].cmp(&want[1]) {
            std::cmp::Ordering::Greater => Some(Player::A),
            std::cmp::Ordering::Less => Some(Player::B),
            std::cmp::Ordering::Equal => None,
        };
        assert_eq!(o.winner(), winner);
        let wg = winner.is_some_and(|w| declined[w.index()]);
        assert_eq!(o.without_glory(), wg);
        let text = o.to_string();
        assert_eq!(text.ends_with(" without glory"), wg, "{text}");
        assert!(
            text.starts_with(&format!("{}-{}", want[0], want[1])),
            "{text}"
        );
        // After the sweep: the board is empty, the totals are the result.
        let fin = g.position();
        assert_eq!(fin.seeds_on_board(), 0);
        assert_eq!([fin.captured(Player::A), fin.captured(Player::B)], o.seeds);
        // No action any more, and trying one changes nothing.
        assert!(g.legal_actions().is_empty());
        let before = g.clone();
        for a in [Action::Sow(Hole::A1), Action::Pass, Action::Accept] {
            assert!(g.play(a).is_err());
        }
        assert_eq!(g, before);
        match o.reason {
            EndReason::Board => st.board += 1,
            EndReason::NoHole => st.no_hole += 1,
            EndReason::Repetition => st.repetition += 1,
            EndReason::PlyCap => st.ply_cap += 1,
        }
        if wg {
            st.without_glory += 1;
        }
        if winner.is_none() {
            st.draws += 1;
        }
        return g;
    }
    st.unfinished += 1;
    g
}

/// The record of `g`, printed and read back, replays to the same game.
fn check_record(g: &Game, rng: &mut ChaCha8Rng, st: &mut EndStats) {
    let mut rec = Record::from_game(g);
    assert_eq!(rec.rules, g.rules());
    assert_eq!(rec.actions, g.actions());
    match g.outcome() {
        None => assert_eq!(rec.result, Some(RecordResult::Unfinished)),
        Some(o) => {
            assert_eq!(
                rec.result,
                Some(RecordResult::Finished {
                    seeds: o.seeds,
                    without_glory: o.without_glory()
                })
            );
            assert_eq!(rec.termination, Some(o.reason));
        }
    }
    if rng.gen_bool(0.5) {
        rec.players = [
            Some("Awa \"the bold\"".into()),
            Some("Koffi \\ Kouamé".into()),
        ];
        rec.date = Some("2026-11-30".into());
        rec.event = Some("Club [Goré] night".into());
        rec.extra.push(("Site".into(), "Man, Côte d'Ivoire".into()));
        rec.extra.push(("Round_2-b".into(), "\"\\\"".into()));
    }
    let text = rec.to_string();
    let back = Record::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back, rec, "{text}");
    assert_eq!(back.to_string(), text);
    let replayed = back.replay().unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(replayed.actions(), g.actions());
    assert_eq!(replayed.outcome(), g.outcome());
    assert_eq!(replayed.position(), g.position());
    assert_eq!(replayed.start(), g.start());
    // A record that claims another result does not replay.
    if let Some(o) = g.outcome() {
        let mut lie = back.clone();
        lie.result = Some(RecordResult::Finished {
            seeds: [o.seeds[1].wrapping_add(1), o.seeds[0].wrapping_sub(1)],
            without_glory: o.without_glory(),
        });
        assert!(lie.replay().is_err());
    }
    // A record with one action too many (after the end) does not replay.
    if g.is_over() {
        let mut more = back.clone();
        more.result = None;
        more.actions.push(Action::Pass);
        assert!(more.replay().is_err());
    }
    st.records += 1;
}

#[test]
fn random_games_keep_every_invariant() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut st = EndStats::default();
    let mut hashes = HashMap::new();
    let mut games = 0;
    for k in 0..300 {
        let rules = random_rules(&mut rng);
        let start = if k % 4 == 3 {
            random_model(&mut rng, Flags::of(&rules))
        } else {
            Model::start(Flags::of(&rules))
        };
        let g = play_game(&mut rng, rules, start, 250, &mut st, &mut hashes);
        check_record(&g, &mut rng, &mut st);
        games += 1;
    }
    eprintln!("{games} games: {st:?}, {} distinct positions", hashes.len());
    assert!(st.board > 30, "{st:?}");
    assert!(st.no_hole > 5, "{st:?}");
    assert!(st.repetition > 10, "{st:?}");
    assert!(st.ply_cap > 10, "{st:?}");
    assert!(st.without_glory > 5, "{st:?}");
    assert_eq!(st.records, 300);
    assert!(hashes.len() > 10_000);
}

#[test]
fn a_game_from_an_ended_position_is_over_at_once() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..50 {
        // A board of 0s, 1s and 2s.
        let mut seeds = [0u32; 8];
        let mut left = 48;
        for s in seeds.iter_mut() {
            *s = rng.gen_range(0..=2);
            left -= *s;
        }
        let a = rng.gen_range(0..=left);
        let mut m = Model::start(Flags::default());
        m.seeds = seeds;
        m.cap = [a, left - a];
        for c in m.ctrl.iter_mut() {
            if rng.gen_bool(0.3) {
                *c = common::other(*c);
            }
        }
        if m.validate().is_err() {
            continue;
        }
        let p = Position::from_gpn(&m.gpn(), Variant::STANDARD).unwrap();
        assert!(p.is_ended());
        assert!(p.legal_actions().is_empty());
        let g = Game::from_position(p, None);
        assert!(g.is_over());
        let o = g.outcome().unwrap();
        assert_eq!(o.reason, EndReason::Board);
        assert_eq!(o.seeds.map(u32::from), m.sweep_totals());
        assert_eq!(o.declined, [false, false]);
    }
}

#[test]
fn repetition_ends_an_offer_decline_loop() {
    // Both players can pay for an offer: A offers, B declines, B offers,
    // A declines, ... The position "A to move, no offer" recurs every
    // four actions; its third occurrence ends the game.
    let gpn = "6,6,0,0/0,0,6,6 AAAA/BBBB 12-12 A -";
    let rules = Rules::STANDARD;
    let mut g = Game::from_position(
        Position::from_gpn(gpn, rules.variant).unwrap(),
        rules.ply_cap,
    );
    let plan = ["offer:a1", "decline", "offer:b3", "decline"];
    let mut n = 0;
    let outcome = loop {
        let tok = plan[n % 4];
        n += 1;
        if let Some(o) = g.play(tok.parse().unwrap()).unwrap().outcome {
            break o;
        }
        assert!(n < 20, "no repetition");
    };
    // Occurrences of the start: before action 1, after 4, after 8.
    assert_eq!(n, 8);
    assert_eq!(outcome.reason, EndReason::Repetition);
    // A controls a1..a4 (12 seeds) + 12 captured; B likewise.
    assert_eq!(outcome.seeds, [24, 24]);
    assert_eq!(outcome.winner(), None);
    assert!(!outcome.without_glory());
    assert_eq!(outcome.declined, [true, true]);
}

#[test]
fn ply_cap_ends_the_game_after_n_actions() {
    for cap in [1u32, 2, 7, 30] {
        let rules = Rules {
            ply_cap: Some(cap),
            ..Rules::STANDARD
        };
        let mut g = Game::new(rules);
        let mut m = Model::start(Flags::default());
        let mut k = 0u32;
        let o = loop {
            // Always sow the first sowable hole: deterministic.
            let tok = m
                .legal()
                .into_iter()
                .find(|t| !t.starts_with("offer:"))
                .unwrap();
            let pre = {
                m.apply(&tok).unwrap();
                m.clone()
            };
            k += 1;
            match g.play(tok.parse().unwrap()).unwrap().outcome {
                Some(o) => break (o, pre),
                None => assert!(k < cap),
            }
        };
        let (o, pre) = o;
        if o.reason == EndReason::PlyCap {
            assert_eq!(k, cap);
        } else {
            assert!(k <= cap);
        }
        assert_eq!(o.seeds.map(u32::from), pre.sweep_totals());
        assert_eq!(g.actions().len() as u32, k);
    }
}

#[test]
fn rules_round_trip() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for f in all_flag_sets() {
        for cap in [
            None,
            Some(1),
            Some(40),
            Some(999_999_999),
            Some(rng.gen_range(1..1_000_000)),
        ] {
            let r = Rules {
                ply_cap: cap,
                ..rules_of(f)
            };
            let text = r.to_string();
            assert_eq!(text.parse::<Rules>(), Ok(r), "{text}");
            // Options may come in any order.
            let mut opts: Vec<&str> = text.split(',').collect();
            for i in (1..opts.len()).rev() {
                opts.swap(i, rng.gen_range(0..=i));
            }
            assert_eq!(opts.join(",").parse::<Rules>(), Ok(r));
            // The names of RULES.md.
            assert_eq!(text.contains("skip-origin"), f.skip_origin);
            assert_eq!(text.contains("no-trades"), f.no_trades);
            assert_eq!(text.contains("cede-all"), f.cede_all);
            assert_eq!(text == "standard", r == Rules::STANDARD);
            // A position keeps the options but not the ply cap.
            let p = Position::new(r.variant);
            assert_eq!(p.variant(), variant_of(f));
        }
    }
    for bad in [
        "",
        "standard,no-trades",
        "no-trades,no-trades",
        "ply-cap=0",
        "ply-cap=",
        "skip",
    ] {
        assert!(bad.parse::<Rules>().is_err(), "{bad:?}");
    }
}

#[test]
fn hole_and_action_tokens_round_trip() {
    for (i, name) in common::NAMES.iter().enumerate() {
        let h: Hole = name.parse().unwrap();
        assert_eq!(h.index(), i);
        assert_eq!(h.to_string(), *name);
        assert_eq!(Hole::new(i as u8), Some(h));
        assert_eq!(h.next().index(), (i + 1) % 8);
        assert_eq!(h.prev().index(), (i + 7) % 8);
        assert_eq!(h.row(), if i < 4 { Player::A } else { Player::B });
    }
    for a in action_space() {
        let tok = a.to_string();
        let n = match a {
            Action::Offer(s) => s.len(),
            _ => 1,
        };
        if (1..=3).contains(&n) {
            assert_eq!(tok.parse::<Action>(), Ok(a), "{tok}");
            assert!(common::parse_token(&tok).is_some(), "{tok}");
        } else {
            assert!(tok.parse::<Action>().is_err(), "{tok}");
        }
    }
}

#[test]
fn equal_positions_hash_equal_and_transpositions_meet() {
    // Reach positions by different orders; equal positions must compare and
    // hash equal, different ones compare different.
    let mut rng = ChaCha8Rng::seed_from_u64(404);
    let mut by_gpn: HashMap<String, (Position, u64)> = HashMap::new();
    let mut meets = 0;
    for _ in 0..300 {
        let mut p = Position::new(Variant::STANDARD);
        for _ in 0..rng.gen_range(0..8) {
            let l = p.legal_actions();
            if l.is_empty() {
                break;
            }
            p = p.play(l[rng.gen_range(0..l.len())]).unwrap();
            match by_gpn.get(&p.to_string()) {
                Some(&(q, h)) => {
                    assert_eq!(q, p, "same GPN, different positions");
                    assert_eq!(h, p.hash());
                    meets += 1;
                }
                None => {
                    by_gpn.insert(p.to_string(), (p, p.hash()));
                }
            }
        }
    }
    assert!(meets > 300);
    let all: Vec<(Position, u64)> = by_gpn.values().copied().collect();
    for i in 0..all.len().min(400) {
        for j in 0..i {
            assert_ne!(all[i].0, all[j].0);
            assert_ne!(
                all[i].1, all[j].1,
                "hash collision {} {}",
                all[i].0, all[j].0
            );
        }
    }
    // Small changes change the hash: the player to move, an offer, a
    // controller, a seed moved, captured seeds moved.
    let base = Position::from_gpn("4,3,7,1/2,0,5,9 AAAA/BBBB 9-8 A -", Variant::STANDARD).unwrap();
    for v in [
        "4,3,7,1/2,0,5,9 AAAA/BBBB 9-8 B -",
        "4,3,7,1/2,0,5,9 AAAA/BBBB 9-8 B a1",
        "4,3,7,1/2,0,5,9 AAAB/BBBB 9-8 A -",
        "3,4,7,1/2,0,5,9 AAAA/BBBB 9-8 A -",
        "4,3,7,1/2,0,5,9 AAAA/BBBB 8-9 A -",
    ] {
        let q = Position::from_gpn(v, Variant::STANDARD).unwrap();
        assert_ne!(q, base);
        assert_ne!(q.hash(), base.hash(), "{v}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A game driven by arbitrary choices stays equal to the model, and its
    /// record round-trips.
    #[test]
    fn prop_games_follow_the_model(
        flag_bits in 0usize..8,
        cap in proptest::option::of(1u32..60),
        choices in proptest::collection::vec(any::<u16>(), 0..160),
    ) {
        let rules = Rules { ply_cap: cap, ..rules_of(all_flag_sets()[flag_bits]) };
        let mut g = Game::new(rules);
        let mut m = Model::start(Flags::of(&rules));
        for c in choices {
            if g.is_over() {
                break;
            }
            let legal = m.legal();
            prop_assert_eq!(&lib_legal(g.position()), &legal);
            let tok = &legal[c as usize % legal.len()];
            m.apply(tok).unwrap();
            g.play(tok.parse().unwrap()).unwrap();
            if !g.is_over() {
                prop_assert_eq!(g.position().to_string(), m.gpn());
            } else {
                let o = g.outcome().unwrap();
                prop_assert_eq!(o.seeds.map(u32::from), m.sweep_totals());
            }
        }
        // What a store keeps (each action and the position it led to)
        // rebuilds the same game without sowing again: result, repetition
        // count and declines included.
        let steps = g.actions().iter().copied().zip(g.history()[1..].iter().copied());
        let restored = Game::from_history(*g.start(), cap, steps).unwrap();
        prop_assert_eq!(&restored, &g);
        let rec = Record::from_game(&g);
        let back = Record::parse(&rec.to_string()).unwrap();
        prop_assert_eq!(&back, &rec);
        let re = back.replay().unwrap();
        prop_assert_eq!(re.actions(), g.actions());
        prop_assert_eq!(re.outcome(), g.outcome());
    }

    /// Any setup with 0–6 seeds per hole and 48 seeds in all either is rejected or prints as
    /// GPN that reads back to the same position.
    #[test]
    fn prop_setups_validate_like_the_model(
        seeds in proptest::array::uniform8(0u8..7),
        ctrl_bits in any::<u8>(),
        cap_frac in any::<u8>(),
        b_to_move in any::<bool>(),
        offer in any::<u8>(),
        flag_bits in 0usize..8,
    ) {
        let f = all_flag_sets()[flag_bits];
        let on_board: u32 = seeds.iter().map(|&s| u32::from(s)).sum();
        let cap_a = cap_frac % (49 - on_board as u8);
        let cap_b = 48 - on_board as u8 - cap_a;
        let mut s = Setup::INITIAL;
        s.seeds = seeds;
        for i in 0..8 {
            s.controllers[i] = if ctrl_bits & (1 << i) != 0 { Player::B } else { Player::A };
        }
        s.captured = [cap_a, cap_b];
        s.to_move = if b_to_move { Player::B } else { Player::A };
        s.offer = HoleSet(if offer % 3 == 0 { offer } else { 0 });
        let text = s.to_string();
        let m = Model::parse_gpn_syntax(&text, f).unwrap();
        let lib = Position::from_setup(&s, variant_of(f));
        prop_assert_eq!(lib.is_ok(), m.validate().is_ok(), "{}", text);
        if let Ok(p) = lib {
            prop_assert_eq!(p.to_string(), text.clone());
            prop_assert_eq!(Position::from_gpn(&text, variant_of(f)), Ok(p));
        }
    }
}

/// A stored history that could not come from play is refused, naming the
/// step: another variant, an action after the end.
#[test]
fn from_history_refuses_what_play_could_not_have_made() {
    use gore_core::{Action, Hole};
    let start = Position::new(Variant::STANDARD);
    // A fixture only: what the expectations below check is the refusal.
    let after = start.play(Action::Sow(Hole::A3)).unwrap();
    let g = Game::from_history(start, None, [(Action::Sow(Hole::A3), after)]).unwrap();
    assert_eq!(g.actions(), &[Action::Sow(Hole::A3)]);
    assert!(!g.is_over());
    let mut no_trades = Variant::STANDARD;
    no_trades.no_trades = true;
    let other = Position::from_gpn(&after.to_string(), no_trades).unwrap();
    let e = Game::from_history(start, None, [(Action::Sow(Hole::A3), other)]).unwrap_err();
    assert_eq!(e.ply, 1, "{e}");
    // A ply cap of 1 ends the game after the first step: a second is refused.
    let steps = [
        (Action::Sow(Hole::A3), after),
        (Action::Sow(Hole::B1), after),
    ];
    let e = Game::from_history(start, Some(1), steps).unwrap_err();
    assert_eq!((e.ply, e.why), (2, "the game was already over"));
}
