//! Differential tests: the library against the naive reference model in
//! `common/mod.rs`, which is written from RULES.md alone.

mod common;

use common::{
    all_flag_sets, all_variants, lib_legal, pick, random_model, rules_of, variant_of, Flags, Model,
    NAMES,
};
use gore_core::{Action, Hole, HoleSet, Player, Position, Rules, Setup, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn flags(s: &str) -> Flags {
    Flags::of(&s.parse::<Rules>().unwrap())
}

fn lib_position(m: &Model) -> Position {
    let rules = rules_of(m.flags());
    match Position::from_gpn(&m.gpn(), rules.variant) {
        Ok(p) => p,
        Err(e) => panic!("library rejects model-valid {} [{rules}]: {e}", m.gpn()),
    }
}

fn setup_of(m: &Model) -> Setup {
    let mut s = Setup::INITIAL;
    for i in 0..8 {
        s.seeds[i] = m.seeds[i] as u8;
        s.controllers[i] = Player::from_char(m.ctrl[i]).unwrap();
    }
    s.captured = [m.cap[0] as u8, m.cap[1] as u8];
    s.to_move = Player::from_char(m.to_move).unwrap();
    s.offer = m
        .offer
        .iter()
        .map(|&i| Hole::new(i as u8).unwrap())
        .collect();
    s
}

/// Every action the type can express, including malformed offers.
fn action_space() -> Vec<Action> {
    let mut v: Vec<Action> = Hole::ALL.iter().map(|&h| Action::Sow(h)).collect();
    v.extend((0..=255u8).map(|m| Action::Offer(HoleSet(m))));
    v.extend([Action::Accept, Action::Decline, Action::Pass]);
    v
}

/// Compares everything the library says about one position with the model.
fn compare_position(p: &Position, m: &Model) {
    assert_eq!(p.to_string(), m.gpn(), "GPN differs");
    let legal = lib_legal(p);
    let want = m.legal();
    assert_eq!(legal, want, "legal actions differ in {}", m.gpn());
    assert_eq!(
        p.count_legal() as usize,
        want.len(),
        "count_legal in {}",
        m.gpn()
    );
    assert_eq!(p.is_ended(), m.is_ended(), "is_ended in {}", m.gpn());
    let tm = Player::from_char(m.to_move).unwrap();
    assert_eq!(p.to_move(), tm);
    assert_eq!(
        p.pending_offer()
            .map(|s| s.iter().map(|h| h.index()).collect::<Vec<_>>()),
        if m.offer.is_empty() {
            None
        } else {
            Some(m.offer.clone())
        }
    );
    let sweep = m.sweep_totals();
    assert_eq!(
        p.sweep_totals(),
        [sweep[0] as u8, sweep[1] as u8],
        "sweep in {}",
        m.gpn()
    );
}

#[test]
fn model_reproduces_the_worked_examples_of_rules_md() {
    // The three capture examples (B to move, sowing b2). The captured
    // totals are chosen so that the position holds 48 seeds.
    let cases = [
        // before, after sowing (before capture is not visible), captured
        ("1,3,1,5/3,4,2,1", vec!["a1", "a2", "b4"], 8u32),
        ("0,1,1,1/2,6,3,0", vec!["a2", "a3", "a4", "b1"], 8),
        (
            "3,2,4,2/4,3,1,3",
            vec!["a1", "a2", "a3", "a4", "b1", "b3", "b4"],
            22,
        ),
    ];
    let after_sowing = ["2,4,1,5/3,0,3,2", "1,2,2,2/2,0,4,1", "4,2,4,2/4,0,2,4"];
    for (k, (board, taken, seeds)) in cases.iter().enumerate() {
        let on_board: u32 = board
            .split(['/', ','])
            .map(|n| n.parse::<u32>().unwrap())
            .sum();
        let each = (48 - on_board) / 2;
        let gpn = format!("{board} AAAA/BBBB {each}-{each} B -");
        let mut m = Model::parse_gpn(&gpn, Flags::default()).unwrap();
        // The board after sowing, before the capture.
        let sown = m.sown_board(common::hole_index("b2").unwrap());
        let s: Vec<String> = sown.iter().map(|n| n.to_string()).collect();
        assert_eq!(
            format!("{}/{}", s[..4].join(","), s[4..].join(",")),
            after_sowing[k]
        );
        let report = m.apply("b2").unwrap().unwrap();
        let names: Vec<&str> = report.taken.iter().map(|&i| NAMES[i]).collect();
        assert_eq!(&names, taken, "example {k}");
        assert_eq!(report.seeds_taken, *seeds, "example {k}");
        assert_eq!(m.cap, [each, each + seeds]);
        assert_eq!(m.to_move, 'A');
        // The library agrees with the model here.
        let p = Position::from_gpn(&gpn, Variant::STANDARD).unwrap();
        let (q, effect) = p.play_effect(Action::Sow(Hole::B2)).unwrap();
        assert_eq!(q.to_string(), m.gpn(), "example {k}");
        assert_eq!(effect.seeds_captured as u32, *seeds, "example {k}");
        let lib_taken: Vec<String> = effect.captured.iter().map(|h| h.to_string()).collect();
        assert_eq!(lib_taken, *taken, "example {k}");
    }
    // The third example ends the game.
    let m = Model::parse_gpn("3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -", Flags::default()).unwrap();
    let mut e = m.clone();
    e.apply("b2").unwrap();
    assert!(e.is_ended());
    assert!(e.legal().is_empty());
    assert_eq!(e.sweep_totals(), [13, 13 + 22]); // every seed left was taken
    let sum: u32 = e.sweep_totals().iter().sum();
    assert_eq!(sum, 48);

    // The start and the GPN example after an offer.
    assert_eq!(
        Model::start(Flags::default()).gpn(),
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -"
    );
    let before = Model::parse_gpn("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 A -", Flags::default()).unwrap();
    let mut after = before.clone();
    after.apply("offer:a2,a4").unwrap();
    assert_eq!(after.gpn(), "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4");
    assert_eq!(
        lib_position(&before)
            .play("offer:a2,a4".parse().unwrap())
            .unwrap()
            .to_string(),
        after.gpn()
    );
    // B holds 12: he can pay for two holes, not three.
    assert!(!before.legal().contains(&"offer:a1,a2,a4".to_string()));
    // Accepting: a2 and a4 go to B with 6 more seeds each; B still moves.
    let mut acc = after.clone();
    acc.apply("accept").unwrap();
    assert_eq!(acc.gpn(), "0,9,7,7/2,0,5,9 ABAB/BBBB 9-0 B -");
    let mut dec = after.clone();
    dec.apply("decline").unwrap();
    assert_eq!(dec.gpn(), "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B -");
    for (tok, m) in [("accept", &acc), ("decline", &dec)] {
        let q = lib_position(&after).play(tok.parse().unwrap()).unwrap();
        assert_eq!(q.to_string(), m.gpn());
    }
}

#[test]
fn model_sows_laps_with_and_without_the_origin() {
    // 9 seeds from a1: standard drops one back into a1.
    let gpn = "9,0,0,0/0,0,0,0 AAAA/BBBB 20-19 A -";
    let mut m = Model::parse_gpn(gpn, Flags::default()).unwrap();
    m.apply("a1").unwrap();
    // a2..b4 get 1 each, a1 gets 1, a2 gets the 9th: a2=2 is A's own hole.
    assert_eq!(m.seeds, [1, 2, 1, 1, 1, 1, 1, 1]);
    let mut s = Model::parse_gpn(gpn, flags("skip-origin")).unwrap();
    s.apply("a1").unwrap();
    // The origin is skipped: a2 gets 2, a3 gets 2 (the 8th and 9th seeds).
    assert_eq!(s.seeds, [0, 2, 2, 1, 1, 1, 1, 1]);
    for (m, f) in [(&m, Flags::default()), (&s, flags("skip-origin"))] {
        let p = Position::from_gpn(gpn, variant_of(f)).unwrap();
        assert_eq!(p.play(Action::Sow(Hole::A1)).unwrap().to_string(), m.gpn());
    }
}

#[test]
fn perft_from_the_start_matches_the_model() {
    for (rules, depth) in [
        ("standard", 5),
        ("skip-origin,no-trades", 5),
        ("skip-origin", 4),
        ("no-trades", 4),
        ("cede-all", 4),
        ("skip-origin,no-trades,cede-all", 4),
        ("seeds=3", 6),
        ("seeds=3,cede-all", 6),
        ("seeds=4", 5),
        ("seeds=8,skip-origin", 4),
        ("seeds=8", 4),
    ] {
        let r: Rules = rules.parse().unwrap();
        let p = Position::new(r.variant);
        let m = Model::start(Flags::of(&r));
        for d in 0..=depth {
            assert_eq!(
                p.perft(d),
                m.perft(d),
                "perft({d}) from start under {rules}"
            );
        }
    }
    // A value worked out by hand: from the start A has 4 sowings and no
    // offer (B has captured nothing), and after each B has 4 sowings.
    assert_eq!(Position::new(Variant::STANDARD).perft(1), 4);
    assert_eq!(Position::new(Variant::STANDARD).perft(2), 16);
}

/// Models per perft.txt line are walked up to this many leaves (the model
/// is slow on purpose).
const MODEL_MAX_LEAVES: u64 = 200_000;

#[test]
fn perft_txt_values_match_the_model() {
    // Every regression value small enough for the naive model, the seeds=N
    // lines included, is recomputed here from RULES.md alone.
    let mut checked = 0;
    let mut variants = std::collections::BTreeSet::new();
    for line in include_str!("perft.txt").lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let f = flags(fields[0]);
        let m = Model::parse_gpn(fields[1], f).unwrap();
        for (i, count) in fields[2].split_whitespace().enumerate() {
            let expected: u64 = count.parse().unwrap();
            if expected > MODEL_MAX_LEAVES {
                break;
            }
            assert_eq!(
                m.perft(i as u32 + 1),
                expected,
                "model perft({}) of {} under {}",
                i + 1,
                fields[1],
                fields[0]
            );
            checked += 1;
        }
        variants.insert(f.seeds);
    }
    assert!(checked >= 40, "only {checked} counts checked");
    for n in [3, 4, 6, 8] {
        assert!(variants.contains(&n), "perft.txt has no seeds={n} line");
    }
}

struct Stats {
    games: u32,
    plies: u32,
    offers: u32,
    accepts: u32,
    declines: u32,
    passes: u32,
    captures: u32,
    chains: u32,
    laps: u32,
    ended: u32,
    perfts: u32,
}

fn play_random_game(
    rng: &mut ChaCha8Rng,
    start: Model,
    max_plies: u32,
    perft_every: u32,
    st: &mut Stats,
) {
    let rules = rules_of(start.flags());
    let mut m = start;
    let mut p = lib_position(&m);
    st.games += 1;
    for ply in 0..max_plies {
        compare_position(&p, &m);
        if perft_every > 0 && rng.gen_range(0..perft_every) == 0 {
            let d = if rng.gen_bool(0.2) { 3 } else { 2 };
            assert_eq!(
                p.perft(d),
                m.perft(d),
                "perft({d}) of {} [{rules}]",
                m.gpn()
            );
            st.perfts += 1;
        }
        let legal = m.legal();
        if legal.is_empty() {
            st.ended += 1;
            return;
        }
        let tok = pick(rng, &legal, 0.3);
        let action: Action = tok.parse().unwrap();
        assert_eq!(action.to_string(), tok);
        assert!(p.check(action).is_ok(), "{tok} rejected in {}", m.gpn());
        let seeds_before = m.seeds[match action {
            Action::Sow(h) => h.index(),
            _ => 0,
        }];
        let report = m.apply(&tok).unwrap();
        let next = match p.play(action) {
            Ok(q) => q,
            Err(e) => panic!("ply {ply}: {tok} in {} rejected: {e}", p),
        };
        assert_eq!(
            next.to_string(),
            m.gpn(),
            "after {tok} from {} [{rules}]",
            p
        );
        st.plies += 1;
        match tok.as_str() {
            "accept" => st.accepts += 1,
            "decline" => st.declines += 1,
            "pass" => st.passes += 1,
            t if t.starts_with("offer:") => st.offers += 1,
            _ => {
                let r = report.unwrap();
                if !r.taken.is_empty() {
                    st.captures += 1;
                }
                if r.taken.len() >= 3 {
                    st.chains += 1;
                }
                if seeds_before >= 8 {
                    st.laps += 1;
                }
            }
        }
        p = next;
    }
    compare_position(&p, &m);
}

#[test]
fn random_games_match_the_model() {
    let mut st = Stats {
        games: 0,
        plies: 0,
        offers: 0,
        accepts: 0,
        declines: 0,
        passes: 0,
        captures: 0,
        chains: 0,
        laps: 0,
        ended: 0,
        perfts: 0,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(0x6017_ed1f);
    // The 8 option sets, each with a seeds=N drawn from 3 to 8 half the
    // time: x 40 games from the start, and x 15 from random positions
    // (changed controllers, pending offers).
    let sets: Vec<Flags> = all_flag_sets()
        .into_iter()
        .map(|f| Flags {
            seeds: if rng.gen_bool(0.5) {
                6
            } else {
                rng.gen_range(3..=8)
            },
            ..f
        })
        .collect();
    for f in &sets {
        for _ in 0..40 {
            play_random_game(&mut rng, Model::start(*f), 160, 25, &mut st);
        }
        for _ in 0..15 {
            let m = random_model(&mut rng, *f);
            play_random_game(&mut rng, m, 120, 25, &mut st);
        }
    }
    eprintln!(
        "games {} plies {} offers {} accepts {} declines {} passes {} captures {} chains {} laps {} ended {} perfts {}",
        st.games, st.plies, st.offers, st.accepts, st.declines, st.passes, st.captures, st.chains, st.laps, st.ended, st.perfts
    );
    assert_eq!(st.games, 440);
    assert!(st.offers > 500, "too few offers: {}", st.offers);
    assert!(st.accepts > 200, "too few accepts: {}", st.accepts);
    assert!(st.declines > 200, "too few declines: {}", st.declines);
    assert!(st.passes > 5, "too few passes: {}", st.passes);
    assert!(st.captures > 500, "too few captures: {}", st.captures);
    assert!(st.chains > 20, "too few chain captures: {}", st.chains);
    assert!(st.laps > 50, "too few laps: {}", st.laps);
    assert!(st.ended > 200, "too few finished games: {}", st.ended);
    assert!(st.perfts > 100, "too few perft checks: {}", st.perfts);
}

#[test]
fn every_action_of_random_positions_matches_the_model() {
    // One ply, exhaustively: every action the type can express is legal in
    // the library exactly when the model lists it, and each legal one gives
    // the model's position.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let space = action_space();
    let mut with_offer = 0;
    let mut traded_ctrl = 0;
    let variants = all_variants();
    for k in 0..1200 {
        // Every option set with every seeds=N, 3 to 8.
        let f = variants[k % variants.len()];
        let m = random_model(&mut rng, f);
        let p = lib_position(&m);
        compare_position(&p, &m);
        if !m.offer.is_empty() {
            with_offer += 1;
        }
        if m.ctrl != ['A', 'A', 'A', 'A', 'B', 'B', 'B', 'B'] {
            traded_ctrl += 1;
        }
        let legal = m.legal();
        for &a in &space {
            let tok = a.to_string();
            let model_ok = legal.contains(&tok);
            assert_eq!(
                p.is_legal(a),
                model_ok,
                "{tok} ({a:?}) in {} [{}]",
                m.gpn(),
                rules_of(f)
            );
            if model_ok {
                let mut n = m.clone();
                n.apply(&tok).unwrap();
                assert_eq!(
                    p.play(a).unwrap().to_string(),
                    n.gpn(),
                    "{tok} in {}",
                    m.gpn()
                );
            } else {
                assert!(p.play(a).is_err());
            }
        }
        if k % 10 == 0 {
            assert_eq!(p.perft(2), m.perft(2), "perft(2) of {}", m.gpn());
        }
    }
    eprintln!("with offer {with_offer}, traded controllers {traded_ctrl}");
    assert!(with_offer > 40, "{with_offer}");
    assert!(traded_ctrl > 150, "{traded_ctrl}");
}

#[test]
fn perft_from_random_positions_matches_the_model() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let mut total = 0u64;
    for k in 0..24 {
        let f = all_variants()[(k * 7) % 48];
        let mut m = random_model(&mut rng, f);
        // Walk a few random plies to reach a "played" position.
        for _ in 0..rng.gen_range(0..6) {
            let legal = m.legal();
            if legal.is_empty() {
                break;
            }
            let t = pick(&mut rng, &legal, 0.3);
            m.apply(&t).unwrap();
        }
        let p = lib_position(&m);
        for d in 1..=3 {
            let want = m.perft(d);
            assert_eq!(
                p.perft(d),
                want,
                "perft({d}) of {} [{}]",
                m.gpn(),
                rules_of(f)
            );
            total += want;
        }
    }
    assert!(total > 1000);
}

#[test]
fn position_validity_matches_the_model() {
    // Random setups, many of them invalid: the library accepts exactly the
    // ones RULES.md calls valid.
    let mut rng = ChaCha8Rng::seed_from_u64(31337);
    let mut accepted = 0;
    let mut rejected = 0;
    let mut offers_accepted = 0;
    for k in 0..6000 {
        let f = all_flag_sets()[k % 8];
        let mut m = random_model(&mut rng, f);
        match rng.gen_range(0..8) {
            0 => {
                // Move a seed, or add/remove one.
                let i = rng.gen_range(0..8);
                let j = rng.gen_range(0..8);
                if m.seeds[i] > 0 {
                    m.seeds[i] -= 1;
                    if rng.gen_bool(0.7) {
                        m.seeds[j] += 1;
                    }
                } else {
                    m.seeds[j] += 1;
                }
            }
            1 => {
                // One player controls everything (or nearly).
                let c = if rng.gen_bool(0.5) { 'A' } else { 'B' };
                m.ctrl = [c; 8];
                if rng.gen_bool(0.3) {
                    m.ctrl[rng.gen_range(0..8)] = common::other(c);
                }
                m.offer.clear();
            }
            2..=4 => {
                // A random pending offer: 1 to 4 random holes.
                let n = rng.gen_range(1..=4);
                let mut holes: Vec<usize> = (0..8).collect();
                for i in 0..8 {
                    holes.swap(i, rng.gen_range(i..8));
                }
                holes.truncate(n);
                holes.sort();
                m.offer = holes;
                if rng.gen_bool(0.5) {
                    // Make the receiver rich enough to pay, often.
                    let need = 6 * m.offer.len() as u32;
                    let r = common::pidx(m.to_move);
                    let o = 1 - r;
                    let moved = need.saturating_sub(m.cap[r]).min(m.cap[o]);
                    m.cap[o] -= moved;
                    m.cap[r] += moved;
                }
            }
            5 => {
                // A board where the game has ended, maybe with an offer.
                let mut left = 48u32;
                for s in m.seeds.iter_mut() {
                    *s = rng.gen_range(0..=2);
                    left -= *s;
                }
                let a = rng.gen_range(0..=left);
                m.cap = [a, left - a];
            }
            _ => {}
        }
        let model_ok = m.validate().is_ok();
        let lib = Position::from_setup(&setup_of(&m), variant_of(f));
        assert_eq!(
            lib.is_ok(),
            model_ok,
            "validity of {} [{}]: model {:?}, library {:?}",
            m.gpn(),
            rules_of(f),
            m.validate(),
            lib
        );
        let by_gpn = Position::from_gpn(&m.gpn(), variant_of(f));
        assert_eq!(by_gpn.is_ok(), model_ok, "from_gpn of {}", m.gpn());
        if let Ok(p) = lib {
            accepted += 1;
            if !m.offer.is_empty() {
                offers_accepted += 1;
            }
            compare_position(&p, &m);
        } else {
            rejected += 1;
        }
    }
    assert!(accepted > 2000 && rejected > 1000, "{accepted} {rejected}");
    assert!(offers_accepted > 200, "{offers_accepted}");
}

#[test]
fn ended_board_with_a_pending_offer_is_not_a_valid_position() {
    // RULES.md: "a pending offer is one that could legally have been made";
    // "A position where the game has ended (every hole at most 2) has no
    // actions" — so no offer can be pending on an ended board.
    let gpn = "2,2,2,2/2,2,2,2 AAAA/BBBB 16-16 B a1";
    let m = Model::parse_gpn_syntax(gpn, Flags::default()).unwrap();
    assert!(m.validate().is_err());
    if let Ok(p) = Position::from_gpn(gpn, Variant::STANDARD) {
        panic!(
            "library accepts {gpn} (offer pending on an ended board): legal {:?}, pending {:?}",
            p.legal_actions(),
            p.pending_offer()
        );
    }
    // Without the offer the same board is valid (and has no action).
    let p = Position::from_gpn("2,2,2,2/2,2,2,2 AAAA/BBBB 16-16 B -", Variant::STANDARD).unwrap();
    assert!(p.legal_actions().is_empty());
    assert_eq!(p.perft(1), 0);
}

#[test]
fn traded_positions_and_pending_offers_by_hand() {
    // B controls a2 and a3 after a trade; A sows into them and captures
    // there, because captures look at the controller, not the row.
    let gpn = "3,1,3,0/5,1,0,5 ABBA/BBBB 15-15 A -";
    let m = Model::parse_gpn(gpn, Flags::default()).unwrap();
    let mut n = m.clone();
    let r = n.apply("a1").unwrap().unwrap();
    // a1 (3 seeds) -> a2=2, a3=4, a4=1: last in a4, A's own hole: no capture.
    assert!(r.taken.is_empty());
    let gpn2 = "2,1,3,0/5,1,0,6 ABBA/BBBB 15-15 A -";
    let m2 = Model::parse_gpn(gpn2, Flags::default()).unwrap();
    let mut n2 = m2.clone();
    let r2 = n2.apply("a1").unwrap().unwrap();
    // a1 (2 seeds) -> a2=2, a3=4: last in a3 (B's): take a3, back a2=2,
    // back a1=0 stops; forward a4=0 stops.
    assert_eq!(r2.taken, vec![1, 2]);
    assert_eq!(n2.cap, [21, 15]);
    for (model_before, after) in [(&m, &n), (&m2, &n2)] {
        let p = lib_position(model_before);
        compare_position(&p, model_before);
        let q = p.play(Action::Sow(Hole::A1)).unwrap();
        compare_position(&q, after);
    }
    // A pending offer: only accept and decline.
    let pend = "3,1,3,0/5,1,0,5 ABBA/BBBB 15-15 A b1+b2";
    let m3 = Model::parse_gpn(pend, Flags::default()).unwrap();
    assert_eq!(m3.legal(), vec!["accept", "decline"]);
    let p3 = lib_position(&m3);
    compare_position(&p3, &m3);
    for tok in ["accept", "decline"] {
        let mut n3 = m3.clone();
        n3.apply(tok).unwrap();
        assert_eq!(n3.to_move, 'A');
        compare_position(&p3.play(tok.parse().unwrap()).unwrap(), &n3);
    }
    // Under cede-all, B may offer every hole he controls (at most 3).
    let ca = "3,1,3,0/5,1,0,5 ABBA/AABB 30-0 B -";
    let m4 = Model::parse_gpn(ca, flags("cede-all")).unwrap();
    let l4 = m4.legal();
    // B controls a2, a3, b3, b4 and may offer 1 to 3 of them (14 offers);
    // he sows a2, a3 or b4 (b3 is empty).
    assert!(l4.contains(&"offer:a2,a3,b3".to_string()));
    assert_eq!(l4.iter().filter(|t| t.starts_with("offer:")).count(), 14);
    assert_eq!(l4.len(), 17);
    compare_position(&lib_position(&m4), &m4);
    let m5 = Model::parse_gpn("3,1,3,0/5,1,0,5 AAAA/AABB 30-0 B -", flags("cede-all")).unwrap();
    assert!(m5.legal().contains(&"offer:b3,b4".to_string()));
    let m6 = Model::parse_gpn("3,1,3,0/5,1,0,5 AAAA/AABB 30-0 B -", Flags::default()).unwrap();
    assert!(!m6.legal().contains(&"offer:b3,b4".to_string()));
    assert!(m6.legal().contains(&"offer:b3".to_string()));
    for mm in [&m5, &m6] {
        compare_position(&lib_position(mm), mm);
    }
    // After ceding all, B controls nothing: the game is over at once
    // (RULES.md, "A player without a hole"), with no action for anyone.
    let mut m7 = m5.clone();
    m7.apply("offer:b3,b4").unwrap();
    m7.apply("accept").unwrap();
    assert!(m7.controlled('B').is_empty());
    assert!(m7.is_ended());
    assert_eq!(m7.legal(), Vec::<String>::new());
    let p7 = lib_position(&m7);
    compare_position(&p7, &m7);
    assert_eq!(p7.player_without_hole(), Some(Player::B));
}
