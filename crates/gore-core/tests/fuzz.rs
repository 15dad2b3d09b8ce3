//! Fuzz-style tests of every parser: seeded random bytes, random ASCII
//! from the notation's alphabet, and mutations (flips, insertions,
//! deletions, truncations, splices) of valid GPN, action, rules and record
//! texts. Nothing may panic, and whatever parses must print back to text
//! that parses to the same value.

mod common;

use std::panic::catch_unwind;

use common::{all_flag_sets, pick, random_model, rules_of, Flags, Model};
use gore_core::{Action, Game, Hole, Position, Record, Rules, Setup, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Characters the notations use, plus a few troublemakers.
const ALPHABET: &[u8] = b"0123456789abAB,/-+ :offerOFFacceptdeclinepass[]\"\\\n\r\tstandardkip-orignotradsce-allply-cap=*Gam#\xc3\xa9";

fn random_ascii(rng: &mut ChaCha8Rng, len: usize) -> String {
    let bytes: Vec<u8> = (0..len)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())])
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn random_bytes(rng: &mut ChaCha8Rng, len: usize) -> String {
    let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// One to three random edits of `text`, on bytes (then made UTF-8 again).
fn mutate(rng: &mut ChaCha8Rng, text: &str, corpus: &[String]) -> String {
    let mut b: Vec<u8> = text.as_bytes().to_vec();
    for _ in 0..rng.gen_range(1..=3) {
        let n = b.len();
        let pick_byte = |rng: &mut ChaCha8Rng| {
            if rng.gen_bool(0.8) {
                ALPHABET[rng.gen_range(0..ALPHABET.len())]
            } else {
                rng.gen()
            }
        };
        match rng.gen_range(0..7) {
            0 if n > 0 => {
                let i = rng.gen_range(0..n);
                b[i] = pick_byte(rng);
            }
            1 => {
                let i = rng.gen_range(0..=n);
                let c = pick_byte(rng);
                b.insert(i, c);
            }
            2 if n > 0 => {
                let i = rng.gen_range(0..n);
                b.remove(i);
            }
            3 => {
                let i = rng.gen_range(0..=n);
                b.truncate(i);
            }
            4 if n > 1 => {
                // Swap two bytes.
                let i = rng.gen_range(0..n);
                let j = rng.gen_range(0..n);
                b.swap(i, j);
            }
            5 if n > 0 => {
                // Duplicate a slice.
                let i = rng.gen_range(0..n);
                let j = rng.gen_range(i..=n.min(i + 8));
                let s: Vec<u8> = b[i..j].to_vec();
                let at = rng.gen_range(0..=b.len());
                b.splice(at..at, s);
            }
            _ => {
                // Splice in a piece of another valid text.
                let other = corpus[rng.gen_range(0..corpus.len())].as_bytes();
                if !other.is_empty() {
                    let i = rng.gen_range(0..other.len());
                    let j = rng.gen_range(i..=other.len().min(i + 12));
                    let at = rng.gen_range(0..=b.len());
                    b.splice(at..at, other[i..j].iter().copied());
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

const RULE_SETS: [&str; 5] = [
    "standard",
    "cede-all",
    "no-trades",
    "skip-origin,cede-all",
    "skip-origin,no-trades,cede-all",
];

#[derive(Default, Debug)]
struct Counts {
    inputs: u32,
    holes: u32,
    actions: u32,
    rules: u32,
    setups: u32,
    positions: u32,
    records: u32,
    replays: u32,
}

/// Feeds `s` to every parser.
fn check_all(s: &str, counts: &mut Counts) {
    counts.inputs += 1;
    // Hole: exactly the eight names of RULES.md.
    match s.parse::<Hole>() {
        Ok(h) => {
            counts.holes += 1;
            assert_eq!(h.to_string().parse::<Hole>(), Ok(h));
            assert_eq!(common::hole_index(s), Some(h.index()), "{s:?}");
        }
        Err(e) => {
            let _ = e.to_string();
            assert_eq!(common::hole_index(s), None, "hole {s:?} rejected");
        }
    }
    // Action tokens: exactly the notation of RULES.md.
    match s.parse::<Action>() {
        Ok(a) => {
            counts.actions += 1;
            let t = a.to_string();
            assert_eq!(t.parse::<Action>(), Ok(a), "{s:?}");
            assert!(common::parse_token(s).is_some(), "{s:?} is not a token");
            assert_eq!(t, s);
        }
        Err(e) => {
            let _ = e.to_string();
            assert!(
                common::parse_token(s).is_none(),
                "token {s:?} rejected: {e}"
            );
        }
    }
    // Rules.
    if let Ok(r) = s.parse::<Rules>() {
        counts.rules += 1;
        let t = r.to_string();
        assert_eq!(t.parse::<Rules>(), Ok(r), "{s:?} -> {t:?}");
    } else if let Err(e) = s.parse::<Rules>() {
        let _ = e.to_string();
    }
    // Setup (GPN syntax).
    match s.parse::<Setup>() {
        Ok(setup) => {
            counts.setups += 1;
            let t = setup.to_string();
            assert_eq!(t.parse::<Setup>(), Ok(setup), "{s:?} -> {t:?}");
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    // Positions under several rule sets, against the model.
    for rs in RULE_SETS {
        let rules: Rules = rs.parse().unwrap();
        let flags = Flags::of(&rules);
        let model = Model::parse_gpn(s, flags);
        match Position::from_gpn(s, rules.variant) {
            Ok(p) => {
                counts.positions += 1;
                let t = p.to_string();
                assert_eq!(
                    Position::from_gpn(&t, rules.variant),
                    Ok(p),
                    "{s:?} -> {t:?}"
                );
                let total = p.seeds_on_board()
                    + u32::from(p.captured(gore_core::Player::A))
                    + u32::from(p.captured(gore_core::Player::B));
                assert_eq!(total, 48);
                let m = model.unwrap_or_else(|e| panic!("{s:?} [{rs}] accepted; model: {e}"));
                assert_eq!(m.gpn(), t, "{s:?} [{rs}]");
                let _ = p.legal_actions();
            }
            Err(e) => {
                let _ = e.to_string();
                if let Ok(m) = model {
                    // The model accepts it; the library may only refuse a
                    // non-canonical spelling (e.g. "06").
                    assert_ne!(m.gpn(), s, "{s:?} [{rs}] rejected: {e}");
                }
            }
        }
    }
    // Records, and their replay.
    match Record::parse(s) {
        Ok(rec) => {
            counts.records += 1;
            let t = rec.to_string();
            let back = Record::parse(&t).unwrap_or_else(|e| panic!("{s:?} -> {t:?}: {e}"));
            assert_eq!(back, rec, "{s:?} -> {t:?}");
            match rec.replay() {
                Ok(g) => {
                    counts.replays += 1;
                    assert_eq!(g.actions(), &rec.actions[..]);
                    assert_eq!(g.rules(), rec.rules);
                    let again = Record::from_game(&g);
                    let t2 = again.to_string();
                    let g2 = Record::parse(&t2).unwrap().replay().unwrap();
                    assert_eq!(g2.actions(), g.actions());
                    assert_eq!(g2.outcome(), g.outcome());
                }
                Err(e) => {
                    let _ = e.to_string();
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// Runs `check_all` and turns a panic into a failure that names the input.
fn run(s: &str, counts: &mut Counts) {
    let mut c = std::mem::take(counts);
    let input = s.to_string();
    let r = catch_unwind(move || {
        check_all(&input, &mut c);
        c
    });
    match r {
        Ok(c) => *counts = c,
        Err(_) => panic!("parser check failed on input {s:?}"),
    }
}

/// Valid texts of every kind, from random games.
struct Corpus {
    tokens: Vec<String>,
    rules: Vec<String>,
    gpns: Vec<String>,
    records: Vec<String>,
}

impl Corpus {
    fn all(&self) -> Vec<String> {
        [&self.tokens, &self.rules, &self.gpns, &self.records]
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    }
}

fn corpus(rng: &mut ChaCha8Rng) -> Corpus {
    let mut c = Corpus {
        tokens: Vec::new(),
        rules: Vec::new(),
        gpns: Vec::new(),
        records: Vec::new(),
    };
    for name in common::NAMES {
        c.tokens.push(name.to_string());
    }
    for t in ["accept", "decline", "pass", "offer:a1,a3", "offer:b1,b2,b4"] {
        c.tokens.push(t.to_string());
    }
    for k in 0..60 {
        let f = all_flag_sets()[k % 8];
        let mut rules = rules_of(f);
        if k % 3 == 0 {
            rules.ply_cap = Some(rng.gen_range(1..50));
        }
        c.rules.push(rules.to_string());
        let start = if k % 2 == 0 {
            Model::start(f)
        } else {
            random_model(rng, f)
        };
        let mut m = start.clone();
        let p = Position::from_gpn(&m.gpn(), rules.variant).unwrap();
        let mut g = Game::from_position(p, rules.ply_cap);
        c.gpns.push(m.gpn());
        for _ in 0..rng.gen_range(0..40) {
            if g.is_over() {
                break;
            }
            let tok = pick(rng, &m.legal(), 0.3);
            m.apply(&tok).unwrap();
            g.play(tok.parse().unwrap()).unwrap();
            if rng.gen_bool(0.2) {
                c.gpns.push(m.gpn());
                c.tokens.push(tok.clone());
            }
        }
        let mut rec = Record::from_game(&g);
        if k % 4 == 1 {
            rec.players = [Some("Awa".into()), Some("Ko\"ffi".into())];
            rec.event = Some("Fête".into());
        }
        c.records.push(rec.to_string());
    }
    c
}

#[test]
fn parsers_survive_random_input() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xf022);
    let mut counts = Counts::default();
    for _ in 0..3000 {
        let len = rng.gen_range(0..48);
        let s = random_bytes(&mut rng, len);
        run(&s, &mut counts);
    }
    for _ in 0..5000 {
        let len = rng.gen_range(0..48);
        let s = random_ascii(&mut rng, len);
        run(&s, &mut counts);
    }
    eprintln!("{counts:?}");
    assert_eq!(counts.inputs, 8000);
}

#[test]
fn parsers_survive_mutated_valid_texts() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xbad_5eed);
    let c = corpus(&mut rng);
    let all = c.all();
    let mut counts = Counts::default();
    // The valid texts themselves.
    for s in &all {
        run(s, &mut counts);
    }
    assert!(counts.records >= c.records.len() as u32);
    assert_eq!(counts.replays, counts.records);
    assert!(counts.positions >= c.gpns.len() as u32);
    // Their mutations.
    for (kind, n) in [
        (&c.tokens, 5000),
        (&c.rules, 6000),
        (&c.gpns, 10000),
        (&c.records, 2500),
    ] {
        for _ in 0..n {
            let base = &kind[rng.gen_range(0..kind.len())];
            let s = mutate(&mut rng, base, &all);
            run(&s, &mut counts);
        }
    }
    eprintln!("{counts:?}");
    // The mutations must reach the interesting paths, not only errors.
    assert!(counts.positions > 1000, "{counts:?}");
    assert!(counts.setups > 500, "{counts:?}");
    assert!(counts.actions > 500, "{counts:?}");
    assert!(counts.rules > 200, "{counts:?}");
    assert!(counts.records > 150, "{counts:?}");
    assert!(counts.replays > 100, "{counts:?}");
}

#[test]
fn hand_picked_tricky_inputs() {
    let mut counts = Counts::default();
    for s in [
        "",
        " ",
        "a",
        "a0",
        "a5",
        "A1",
        "b4 ",
        "offer:",
        "offer:a1,",
        "offer:,a1",
        "offer:a1,a1",
        "offer:a2,a1",
        "offer:a1,a2,a3,a4",
        "offer:a1+a2",
        "offer: a1",
        "Offer:a1",
        "accept ",
        "standard,",
        ",standard",
        "ply-cap=4294967295",
        "ply-cap=4294967296",
        "ply-cap=999999999",
        "ply-cap=0999999999",
        "ply-cap=-1",
        "ply-cap=+1",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A - ",
        "6,6,6,6/6,6,6,6  AAAA/BBBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A",
        "06,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 00-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB -0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0--0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A a1",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 C -",
        "6,6,6,6/6,6,6,6 AAAAA/BBB 0-0 A -",
        "6,6,6,6,6/6,6,6 AAAA/BBBB 0-0 A -",
        "48,0,0,0/0,0,0,0 AAAA/BBBB 0-0 A -",
        "255,0,0,0/0,0,0,0 AAAA/BBBB 0-0 A -",
        "0,0,0,0/0,0,0,0 AAAA/BBBB 24-24 A -",
        "0,0,0,0/0,0,0,0 AAAA/BBBB 48-0 B -",
        "0,0,0,0/0,0,0,0 AAAA/BBBB 99-0 B -",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a4+a2",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a2",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B +a2",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a1+a2+a3+a4",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 A a2+a4",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B b2",
        "[Rules \"standard\"]\n\n1. a1",
        "[Rules \"standard\"]\n\n1. a1 b1 a9",
        "[Rules \"standard\"]\n[Rules \"standard\"]\n",
        "[Rules \"nonsense\"]\n",
        "[Rules \"standard\"\n",
        "[Rules standard]\n",
        "[Rules \"standard\"]\n[Result \"48-0\"]\n\n1. a1",
        "[Rules \"standard\"]\n[Start \"2,2,2,2/2,2,2,2 AAAA/BBBB 16-16 A -\"]\n",
        "[Rules \"standard\"]\n[Start \"6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -\"]\n\n1. a1",
        "[Rules \"standard\"]\n[A \"x\\q\"]\n",
        "[Rules \"standard\"]\n[A \"x\ry\"]\n",
        "[Rules \"ply-cap=1\"]\n\n1. a1 b1",
        "\u{feff}[Rules \"standard\"]\n",
        "[Rules \"standard\"]\n[Event \"Match #3\"]\n\n1. a1 # a comment\nb1 #\n",
        "[Rules \"standard\"] # no\n",
        "# only a comment\n[Rules \"standard\"]\n",
        "[Rules \"standard\"]\n[Result \"24-24 without glory\"]\n",
        "[Rules \"standard\"]\n[Termination \"board\"]\n\n1. a1",
    ] {
        run(s, &mut counts);
    }
    assert!(counts.records > 3);
}

#[test]
fn gpn_controllers_field_is_four_letters_a_slash_four_letters() {
    // RULES.md: "controllers: 8 letters in the same order, `AAAA/BBBB` at
    // the start", and "A position ... that does not parse ... is rejected
    // with an error". `AA/A/BBBB` holds 7 letters and two slashes.
    for gpn in [
        "5,6,6,9/5,1,7,6 AA/A/BBBB 0-3 A -",
        "6,6,6,6/6,6,6,6 AAAA//BBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBB/ 0-0 A -",
    ] {
        assert!(Model::parse_gpn_syntax(gpn, Flags::default()).is_err());
        if let Ok(p) = Position::from_gpn(gpn, Variant::STANDARD) {
            panic!("from_gpn accepts {gpn:?} and reads it as {p}");
        }
        assert!(gpn.parse::<Setup>().is_err(), "Setup accepts {gpn:?}");
    }
}

#[test]
fn record_tag_values_with_a_carriage_return_round_trip() {
    // Whatever `Record::parse` accepts must print back to a text that
    // parses to the same record. A tag value may hold a carriage return
    // (the parser keeps it), but the writer turns it into a space.
    let text = "[Rules \"standard\"]\n[A \"x\ry\"]\n";
    if let Ok(rec) = Record::parse(text) {
        let back = Record::parse(&rec.to_string()).unwrap();
        assert_eq!(back, rec, "{:?} prints as {:?}", text, rec.to_string());
    }
}
