//! Perft regression suite: the counts in `perft.txt` (see its header for
//! the command that produced them and what confirms them independently).

use gore_core::{Position, Rules};

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

/// Perft through the listed actions agrees with the in-place walk, which
/// shares no code with `legal_actions` beyond sowing.
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
