//! Perft regression suite: the counts in `perft.txt` (see its header for
//! the command that produced them and what confirms them independently).

use gore_core::{Action, Hole, HoleSet, Player, Position, Rules, Setup};

/// Deeper counts take too long for a debug-mode test run.
const PERFT_MAX_NODES: u64 = 20_000_000;

#[test]
fn perft_suite() {
    let mut checked = 0;
    for (n, line) in include_str!("perft.txt").lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(fields.len(), 3, "perft.txt line {}", n + 1);
        let rules: Rules = fields[0].parse().unwrap();
        let pos = Position::from_gpn(fields[1], rules.variant).unwrap();
        for (i, count) in fields[2].split_whitespace().enumerate() {
            let expected: u64 = count.parse().unwrap();
            if expected > PERFT_MAX_NODES {
                break;
            }
            let depth = i as u32 + 1;
            assert_eq!(
                pos.perft(depth),
                expected,
                "perft({depth}) of {} under {rules}",
                fields[1]
            );
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} counts checked");
}

/// Perft through the listed actions agrees with the in-place walk. Both
/// share the offer enumerator (`Position::offers`), so this guards the
/// walk's own bookkeeping only; `perft_matches_a_walk_from_the_rules`
/// is the independent check.
#[test]
fn perft_matches_listed_actions() {
    fn slow(p: &Position, d: u32) -> u64 {
        if d == 0 {
            return 1;
        }
        p.legal_actions()
            .iter()
            .map(|&a| slow(&p.play(a).unwrap(), d - 1))
            .sum()
    }
    for (rules, gpn) in [
        ("standard", "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4"),
        ("cede-all", "4,0,9,2/3,7,1,2 ABAA/BBAB 10-10 A -"),
        ("standard", "0,0,0,0/5,3,0,7 AAAA/BBBB 13-20 A -"),
    ] {
        let rules: Rules = rules.parse().unwrap();
        let p = Position::from_gpn(gpn, rules.variant).unwrap();
        for d in 1..=5 {
            assert_eq!(p.perft(d), slow(&p, d), "{gpn} depth {d}");
        }
    }
}

// ------------------------------------------------- a walk from the rules --

/// Every action a player could name: the 8 sowings, a pass, accept,
/// decline, and an offer of every non-empty set of holes (all 255 of them,
/// not only 1 to 3 of one's own: the rules must refuse the rest).
fn every_action() -> Vec<Action> {
    let mut all: Vec<Action> = Hole::ALL.iter().map(|&h| Action::Sow(h)).collect();
    all.extend([Action::Pass, Action::Accept, Action::Decline]);
    all.extend((1..=255u8).map(|m| Action::Offer(HoleSet(m))));
    all
}

/// The legal actions found by asking the rules (`Position::check`) about
/// every action there is: no enumerator of the library is involved.
fn legal_by_the_rules(p: &Position, every: &[Action]) -> Vec<Action> {
    every
        .iter()
        .copied()
        .filter(|&a| p.check(a).is_ok())
        .collect()
}

/// Perft by trying every action at every node.
fn naive_perft(p: &Position, depth: u32, every: &[Action]) -> u64 {
    if depth == 0 {
        return 1;
    }
    legal_by_the_rules(p, every)
        .into_iter()
        .map(|a| naive_perft(&p.play(a).unwrap(), depth - 1, every))
        .sum()
}

/// A small seeded generator (splitmix64), so that failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A position reached by up to 80 random actions from the start, each
/// chosen among the actions the rules allow.
fn random_playout(rules: Rules, rng: &mut Rng, every: &[Action]) -> Position {
    let mut p = Position::new(rules.variant);
    for _ in 0..rng.below(81) {
        let legal = legal_by_the_rules(&p, every);
        if legal.is_empty() {
            break;
        }
        p = p.play(legal[rng.below(legal.len())]).unwrap();
    }
    p
}

/// A random valid setup: 48 seeds spread unevenly over the holes and both
/// captured totals (so that big holes, laps and affordable offers occur),
/// random controllers and player to move, and sometimes a pending offer.
fn random_setup(rules: Rules, rng: &mut Rng) -> Position {
    loop {
        let weights: Vec<usize> = (0..10).map(|_| rng.below(5)).collect();
        let sum: usize = weights.iter().sum();
        if sum == 0 {
            continue;
        }
        let mut bins = [0u8; 10];
        for _ in 0..rules.variant.total_seeds() {
            let mut r = rng.below(sum);
            let mut i = 0;
            while r >= weights[i] {
                r -= weights[i];
                i += 1;
            }
            bins[i] += 1;
        }
        let mut setup = Setup::INITIAL;
        setup.seeds.copy_from_slice(&bins[..8]);
        setup.captured = [bins[8], bins[9]];
        for c in setup.controllers.iter_mut() {
            *c = Player::ALL[rng.below(2)];
        }
        setup.to_move = Player::ALL[rng.below(2)];
        if rng.below(3) == 0 {
            let offerer = setup.to_move.opponent();
            setup.offer = Hole::ALL
                .iter()
                .copied()
                .filter(|h| setup.controllers[h.index()] == offerer && rng.below(3) == 0)
                .take(3)
                .collect();
        }
        if let Ok(p) = Position::from_setup(&setup, rules.variant) {
            return p;
        }
        setup.offer = HoleSet::EMPTY;
        if let Ok(p) = Position::from_setup(&setup, rules.variant) {
            return p;
        }
    }
}

/// Compares `Position::perft` (and `legal_actions`, `count_legal`) with
/// the walk from the rules, at every depth whose tree stays small.
fn compare_with_the_rules(p: &Position, what: &str, every: &[Action]) -> u32 {
    /// Leaves per comparison: depth 4 to 6 in the middle game, well under
    /// a second for the whole test (gore-core is optimised in dev builds).
    const LEAVES: u64 = 200_000;
    let mut listed: Vec<Action> = p.legal_actions().iter().copied().collect();
    listed.sort();
    let mut ruled = legal_by_the_rules(p, every);
    ruled.sort();
    assert_eq!(listed, ruled, "legal actions of {what}");
    assert_eq!(
        p.count_legal() as usize,
        ruled.len(),
        "count_legal of {what}"
    );
    let mut compared = 0;
    for depth in 1..=6 {
        let fast = p.perft(depth);
        if fast > LEAVES {
            break;
        }
        assert_eq!(
            fast,
            naive_perft(p, depth, every),
            "perft({depth}) of {what}"
        );
        compared += 1;
    }
    compared
}

/// `Position::perft` agrees with a walk that finds the legal actions by
/// asking the rules about every action there is, from the lines of
/// perft.txt, the start and seeded random positions under every rule set.
#[test]
fn perft_matches_a_walk_from_the_rules() {
    let every = every_action();
    let mut compared = 0;
    for line in include_str!("perft.txt").lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let rules: Rules = fields[0].parse().unwrap();
        let pos = Position::from_gpn(fields[1], rules.variant).unwrap();
        compared += compare_with_the_rules(&pos, &format!("{} under {rules}", fields[1]), &every);
    }
    let mut rng = Rng(0x601e);
    let mut offers = 0;
    for rules in [
        "standard",
        "skip-origin",
        "no-trades",
        "cede-all",
        "skip-origin,no-trades",
        "skip-origin,cede-all",
        "no-trades,cede-all",
        "skip-origin,no-trades,cede-all",
        "seeds=3",
        "seeds=4,cede-all",
        "seeds=8,skip-origin",
    ] {
        let rules: Rules = rules.parse().unwrap();
        let start = Position::new(rules.variant);
        compared += compare_with_the_rules(&start, &format!("the start under {rules}"), &every);
        for _ in 0..10 {
            for p in [
                random_playout(rules, &mut rng, &every),
                random_setup(rules, &mut rng),
            ] {
                let what = format!("{p} under {rules}");
                offers += p
                    .legal_actions()
                    .iter()
                    .filter(|a| matches!(a, Action::Offer(_)))
                    .count();
                compared += compare_with_the_rules(&p, &what, &every);
            }
        }
    }
    // The samples must exercise what they claim to: deep enough trees, and
    // offers among the actions.
    assert!(compared >= 800, "only {compared} counts compared");
    assert!(offers >= 40, "only {offers} offers in the samples");
}
