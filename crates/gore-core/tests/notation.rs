//! Notation: GPN positions, action tokens, rule sets, perft and game records.

use gore_core::{
    Action, EndReason, Forfeit, Game, GpnError, GpnField, Hole, HoleSet, IllegalAction,
    ParseActionError, ParseGpnError, ParseRulesError, Player, Position, PositionError, Record,
    RecordErrorKind, RecordResult, Rules, Setup, Variant,
};

const START: &str = "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -";
const EXAMPLE: &str = "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4";
const SAMPLE: &str = include_str!("../../../docs/examples/sample.gore");

fn rules(s: &str) -> Rules {
    s.parse().expect("rule set")
}

fn gpn_err(s: &str) -> ParseGpnError {
    match s.parse::<Setup>() {
        Ok(setup) => panic!("{s:?} parsed as {setup}"),
        Err(e) => e,
    }
}

fn field_of(s: &str) -> GpnField {
    match gpn_err(s) {
        ParseGpnError::Field(f, _) => f,
        e => panic!("{s:?}: expected a field error, got {e:?}"),
    }
}

fn invalid(s: &str, r: Rules) -> PositionError {
    match Position::from_gpn(s, r.variant) {
        Err(GpnError::Invalid(e)) => e,
        other => panic!("{s:?}: expected an invalid position, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// GPN.

#[test]
fn gpn_start_and_example_round_trip() {
    let start = Position::from_gpn(START, Variant::STANDARD).unwrap();
    assert_eq!(start, Position::new(Variant::STANDARD));
    assert_eq!(start.to_string(), START);
    assert_eq!(Setup::INITIAL.to_string(), START);
    assert_eq!(START.parse::<Setup>().unwrap(), Setup::INITIAL);

    let ex = Position::from_gpn(EXAMPLE, Variant::STANDARD).unwrap();
    assert_eq!(ex.to_string(), EXAMPLE);
    assert_eq!(ex.to_move(), Player::B);
    assert_eq!(ex.seeds(Hole::A3), 7);
    assert_eq!(ex.seeds(Hole::B4), 9);
    assert_eq!(ex.captured(Player::A), 9);
    assert_eq!(ex.captured(Player::B), 12);
    assert_eq!(
        ex.pending_offer(),
        Some(HoleSet::single(Hole::A2).with(Hole::A4))
    );
    let setup: Setup = EXAMPLE.parse().unwrap();
    assert_eq!(setup.seeds, [0, 3, 7, 1, 2, 0, 5, 9]);
    assert_eq!(setup.captured, [9, 12]);
    assert_eq!(setup.to_string(), EXAMPLE);
}

#[test]
fn gpn_traded_controllers_and_three_hole_offer_round_trip() {
    for s in [
        "0,9,7,7/2,0,5,9 ABAB/BBBB 9-0 B -",
        "2,2,2,2/5,11,11,5 AAAA/BAAB 1-7 B -",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 3-18 B a1+a2+a3",
        "0,3,7,1/2,0,5,9 AAAA/ABBB 9-12 B b1",
        "0,0,0,0/0,0,0,0 AAAA/BBBB 24-24 A -",
        "48,0,0,0/0,0,0,0 AAAA/BBBB 0-0 A -",
    ] {
        assert_eq!(
            Position::from_gpn(s, Variant::STANDARD)
                .unwrap()
                .to_string(),
            s
        );
    }
}

#[test]
fn gpn_seeds_field_errors() {
    for s in [
        "6,6,6,6,6,6,6,6 AAAA/BBBB 0-0 A -",
        "6,6,6/6,6,6,6,6 AAAA/BBBB 0-0 A -",
        "6,6,6,6,6/6,6,6 AAAA/BBBB 0-0 A -",
        "6,6,6,6/6,6,6 AAAA/BBBB 0-0 A -",
        "6,6,6,6/6,6,6,6,6 AAAA/BBBB 0-0 A -",
        "6,6,x,6/6,6,6,6 AAAA/BBBB 0-0 A -",
        "6,6,,6/6,6,6,6 AAAA/BBBB 0-0 A -",
        "6,6,-6,6/6,6,6,6 AAAA/BBBB 0-0 A -",
        // 64 seeds (seeds=8) is the most any hole can hold.
        "6,6,6,6/6,6,6,65 AAAA/BBBB 0-0 A -",
        "6,6,6,6/6,6,6,100 AAAA/BBBB 0-0 A -",
        "6;6;6;6/6;6;6;6 AAAA/BBBB 0-0 A -",
        "6,6,6,6/6,6,6,6/6 AAAA/BBBB 0-0 A -",
    ] {
        assert_eq!(field_of(s), GpnField::Seeds, "{s}");
    }
}

#[test]
fn gpn_controllers_field_errors() {
    for s in [
        "6,6,6,6/6,6,6,6 AAAABBBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBC 0-0 A -",
        "6,6,6,6/6,6,6,6 aaaa/bbbb 0-0 A -",
        "6,6,6,6/6,6,6,6 AAA/BBBBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA-BBBB 0-0 A -",
    ] {
        assert_eq!(field_of(s), GpnField::Controllers, "{s}");
    }
}

/// Two slashes in the controllers field leave only 7 letters; such a field
/// must not parse (RULES.md: "controllers: 8 letters in the same order").
#[test]
fn gpn_controllers_with_an_extra_slash_are_rejected() {
    for s in [
        "6,6,6,6/6,6,6,6 AAAA//BBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AA/A/BBBB 0-0 A -",
    ] {
        assert_eq!(field_of(s), GpnField::Controllers, "{s}");
    }
}

#[test]
fn gpn_captured_field_errors() {
    for s in [
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0_0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0- A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB -0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-x A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 65-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0-0 A -",
    ] {
        assert_eq!(field_of(s), GpnField::Captured, "{s}");
    }
}

#[test]
fn gpn_to_move_field_errors() {
    for s in [
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 C -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 a -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 AB -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 - -",
    ] {
        assert_eq!(field_of(s), GpnField::ToMove, "{s}");
    }
}

#[test]
fn gpn_offer_field_errors() {
    for s in [
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2,a4",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a4+a2",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a2",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a1+a2+a3+a4",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B x",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B --",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B ",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B offer:a2",
    ] {
        assert_eq!(field_of(s), GpnField::Offer, "{s}");
    }
}

#[test]
fn gpn_wrong_field_count() {
    for s in [
        "",
        "6,6,6,6/6,6,6,6  AAAA/BBBB 0-0 A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0  A -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A - -",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A - ",
        " 6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -",
    ] {
        assert_eq!(gpn_err(s), ParseGpnError::FieldCount, "{s:?}");
    }
    assert!(matches!(
        Position::from_gpn("6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A", Variant::STANDARD),
        Err(GpnError::Parse(ParseGpnError::FieldCount))
    ));
}

#[test]
fn gpn_error_messages_name_the_field() {
    let e = gpn_err("6,6,6,6/6,6,6,6 AAAA/BBBC 0-0 A -");
    assert!(e.to_string().contains("controllers"), "{e}");
    let e = gpn_err("6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 C -");
    assert!(e.to_string().contains("to move"), "{e}");
    assert!(gpn_err("x").to_string().contains("five fields"));
}

#[test]
fn gpn_seed_count_must_be_48() {
    assert_eq!(
        invalid("6,6,6,6/6,6,6,6 AAAA/BBBB 1-0 A -", Rules::STANDARD),
        PositionError::SeedCount {
            found: 49,
            expected: 48
        }
    );
    assert_eq!(
        invalid("6,6,6,6/6,6,6,5 AAAA/BBBB 0-0 A -", Rules::STANDARD),
        PositionError::SeedCount {
            found: 47,
            expected: 48
        }
    );
    assert_eq!(
        invalid("0,0,0,0/0,0,0,0 AAAA/BBBB 0-0 A -", Rules::STANDARD),
        PositionError::SeedCount {
            found: 0,
            expected: 48
        }
    );
    let e = invalid("6,6,6,6/6,6,6,6 AAAA/BBBB 1-0 A -", Rules::STANDARD);
    assert!(e.to_string().contains("48"));
}

#[test]
fn gpn_each_player_needs_a_hole_unless_cede_all() {
    assert_eq!(
        invalid("6,6,6,6/6,6,6,6 AAAA/AAAA 0-0 A -", Rules::STANDARD),
        PositionError::NoHole(Player::B)
    );
    assert_eq!(
        invalid("6,6,6,6/6,6,6,6 BBBB/BBBB 0-0 B -", Rules::STANDARD),
        PositionError::NoHole(Player::A)
    );
    let p = Position::from_gpn(
        "6,6,6,6/6,6,6,6 AAAA/AAAA 0-0 A -",
        rules("cede-all").variant,
    )
    .unwrap();
    assert_eq!(p.controlled(Player::B), HoleSet::EMPTY);
}

#[test]
fn gpn_pending_offer_must_be_one_that_could_have_been_made() {
    let std = Rules::STANDARD;
    // Too expensive: B has 11, two holes cost 12.
    assert_eq!(
        invalid("0,3,7,1/2,0,5,9 AAAA/BBBB 10-11 B a2+a4", std),
        PositionError::Offer(IllegalAction::CannotPay {
            price: 12,
            captured: 11
        })
    );
    // Not the offerer's holes: A (the player not to move) offers b1.
    assert_eq!(
        invalid("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B b1", std),
        PositionError::Offer(IllegalAction::NotControlled(Hole::B1, Player::A))
    );
    // B to answer, so A offered: a2+b2 holds one of B's holes.
    assert_eq!(
        invalid("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+b2", std),
        PositionError::Offer(IllegalAction::NotControlled(Hole::B2, Player::A))
    );
    // Every hole of the offerer, without cede-all.
    let all_of_a = "0,3,7,1/2,0,5,9 AABB/BBBB 9-12 B a1+a2";
    assert_eq!(
        invalid(all_of_a, std),
        PositionError::Offer(IllegalAction::MustKeepHole)
    );
    assert!(Position::from_gpn(all_of_a, rules("cede-all").variant).is_ok());
    // Any offer under no-trades.
    assert_eq!(
        invalid(EXAMPLE, rules("no-trades")),
        PositionError::Offer(IllegalAction::TradesDisabled)
    );
    // The same GPN without an offer is fine under no-trades.
    assert!(Position::from_gpn(
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B -",
        rules("no-trades").variant
    )
    .is_ok());
    let e = invalid("0,3,7,1/2,0,5,9 AAAA/BBBB 10-11 B a2+a4", std);
    assert!(e.to_string().contains("offer"), "{e}");
}

// ---------------------------------------------------------------------------
// Actions.

#[test]
fn action_tokens_parse_and_print() {
    for (tok, action) in [
        ("a1", Action::Sow(Hole::A1)),
        ("a4", Action::Sow(Hole::A4)),
        ("b1", Action::Sow(Hole::B1)),
        ("b3", Action::Sow(Hole::B3)),
        ("accept", Action::Accept),
        ("decline", Action::Decline),
        ("pass", Action::Pass),
        ("offer:a2", Action::Offer(HoleSet::single(Hole::A2))),
        (
            "offer:a1,a3",
            Action::Offer(HoleSet::single(Hole::A1).with(Hole::A3)),
        ),
        (
            "offer:a4,b1,b4",
            Action::Offer([Hole::A4, Hole::B1, Hole::B4].into_iter().collect()),
        ),
    ] {
        assert_eq!(tok.parse::<Action>(), Ok(action), "{tok}");
        assert_eq!(action.to_string(), tok);
    }
    // Every hole name, in board order.
    let names: Vec<String> = Hole::ALL.iter().map(|h| h.to_string()).collect();
    assert_eq!(names, ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"]);
}

#[test]
fn action_token_errors() {
    use ParseActionError::*;
    for (tok, e) in [
        ("", Empty),
        ("a0", Unknown),
        ("a5", Unknown),
        ("c1", Unknown),
        ("A1", Unknown),
        ("b", Unknown),
        ("Accept", Unknown),
        ("pass ", Unknown),
        (" b3", Unknown),
        ("offer", Unknown),
        ("offer a1", Unknown),
        ("sow:a1", Unknown),
        ("offer:", OfferSize),
        ("offer:a1,a2,a3,a4", OfferSize),
        ("offer:a1,a2,b1,b2", OfferSize),
        ("offer:a1,a1", OfferOrder),
        ("offer:a3,a1", OfferOrder),
        ("offer:b1,a4", OfferOrder),
        ("offer:a1,a3,a2", OfferOrder),
        ("offer:x", OfferHole),
        ("offer:a1,", OfferHole),
        ("offer:a1+a2", OfferHole),
        ("offer:a1, a2", OfferHole),
        ("offer:a9", OfferHole),
    ] {
        assert_eq!(tok.parse::<Action>(), Err(e.clone()), "{tok:?}");
    }
    assert!(ParseActionError::OfferOrder
        .to_string()
        .contains("board order"));
}

// ---------------------------------------------------------------------------
// Rule sets.

#[test]
fn rule_sets_parse_and_print_in_rules_md_order() {
    assert_eq!(rules("standard"), Rules::STANDARD);
    assert_eq!(Rules::default(), Rules::STANDARD);
    assert_eq!(Rules::STANDARD.to_string(), "standard");

    let r = rules("skip-origin");
    assert!(
        r.variant.skip_origin && !r.variant.no_trades && !r.variant.cede_all && r.ply_cap.is_none()
    );
    let r = rules("no-trades");
    assert!(
        !r.variant.skip_origin && r.variant.no_trades && !r.variant.cede_all && r.ply_cap.is_none()
    );
    let r = rules("cede-all");
    assert!(
        !r.variant.skip_origin && !r.variant.no_trades && r.variant.cede_all && r.ply_cap.is_none()
    );
    let r = rules("ply-cap=200");
    assert_eq!(r.ply_cap, Some(200));
    assert!(!r.variant.skip_origin && !r.variant.no_trades && !r.variant.cede_all);

    for (input, printed) in [
        ("skip-origin", "skip-origin"),
        ("no-trades", "no-trades"),
        ("cede-all", "cede-all"),
        ("ply-cap=1", "ply-cap=1"),
        ("no-trades,skip-origin", "skip-origin,no-trades"),
        ("cede-all,skip-origin", "skip-origin,cede-all"),
        ("ply-cap=50,cede-all", "cede-all,ply-cap=50"),
        (
            "ply-cap=200,cede-all,no-trades,skip-origin",
            "skip-origin,no-trades,cede-all,ply-cap=200",
        ),
        (
            "skip-origin,no-trades,cede-all,ply-cap=200",
            "skip-origin,no-trades,cede-all,ply-cap=200",
        ),
    ] {
        let r = rules(input);
        assert_eq!(r.to_string(), printed, "{input}");
        assert_eq!(rules(printed), r);
    }
}

#[test]
fn rule_set_errors() {
    use ParseRulesError::*;
    for (s, e) in [
        ("", Empty),
        ("foo", UnknownOption(1)),
        ("Standard", UnknownOption(1)),
        ("skip-origin,foo", UnknownOption(2)),
        ("skip-origin,,no-trades", UnknownOption(2)),
        ("skip-origin ", UnknownOption(1)),
        ("skip-origin,skip-origin", Repeated("skip-origin")),
        ("no-trades,cede-all,no-trades", Repeated("no-trades")),
        ("cede-all,cede-all", Repeated("cede-all")),
        ("ply-cap=3,ply-cap=4", Repeated("ply-cap")),
        ("ply-cap=0", PlyCap),
        ("ply-cap=x", PlyCap),
        ("ply-cap=", PlyCap),
        ("ply-cap", PlyCap),
        ("ply-cap=-1", PlyCap),
        ("ply-cap=+5", PlyCap),
        ("ply-cap=99999999999", PlyCap),
        ("standard,no-trades", StandardWithOptions),
        ("no-trades,standard", StandardWithOptions),
    ] {
        assert_eq!(s.parse::<Rules>(), Err(e.clone()), "{s:?}");
    }
    assert!(ParseRulesError::UnknownOption(2)
        .to_string()
        .contains("skip-origin"));
}

// ---------------------------------------------------------------------------
// Perft.

#[test]
fn perft_counts_every_action() {
    let start = Position::new(Variant::STANDARD);
    assert_eq!(start.perft(0), 1);
    // Four sowings; nobody can pay for an offer.
    assert_eq!(start.perft(1), 4);
    // No first sowing captures (each lands on 7), so captured stays 0-0 and
    // B has four sowings after each: 16.
    assert_eq!(start.perft(2), 16);
    // A pending offer: accept or decline.
    let ex = Position::from_gpn(EXAMPLE, Variant::STANDARD).unwrap();
    assert_eq!(ex.perft(1), 2);
    // Accepting leaves B (to move again) 6 holes with seeds in 5 (b2 empty)
    // and A with 9 captured: 1 hole offers of 6 holes -> 5 + 6 = 11.
    // Declining leaves b1, b3, b4 sowable and offers of 1 of 4 holes
    // (A has 9): 3 + 4 = 7.
    assert_eq!(ex.perft(2), 18);
    // Only a pass, or offers: A's row is empty, B has 18: 1 + (4 + 6 + 4).
    let empty_a =
        Position::from_gpn("0,0,0,0/3,3,3,3 AAAA/BBBB 18-18 A -", Variant::STANDARD).unwrap();
    assert_eq!(empty_a.perft(1), 15);
    // The same under no-trades: only the pass.
    let nt = Position::from_gpn(
        "0,0,0,0/3,3,3,3 AAAA/BBBB 18-18 A -",
        rules("no-trades").variant,
    )
    .unwrap();
    assert_eq!(nt.perft(1), 1);
    // An ended position has no action.
    let ended =
        Position::from_gpn("2,2,2,2/2,2,2,2 AAAA/BBBB 16-16 A -", Variant::STANDARD).unwrap();
    assert_eq!(ended.perft(1), 0);
    assert_eq!(ended.perft(3), 0);
}

// ---------------------------------------------------------------------------
// Records.

#[test]
fn the_sample_record_parses_and_replays() {
    let rec = Record::parse(SAMPLE).unwrap();
    assert_eq!(rec.rules, Rules::STANDARD);
    assert_eq!(rec.players, [Some("Awa".into()), Some("Koffi".into())]);
    assert_eq!(rec.date.as_deref(), Some("2026-11-30"));
    assert_eq!(rec.start, None);
    assert_eq!(rec.actions.len(), 51);
    assert!(rec.actions.contains(&Action::Accept));
    assert!(rec.actions.contains(&Action::Decline));
    let game = rec.replay().unwrap();
    let out = *game.outcome().expect("the sample game is finished");
    assert_eq!(out.reason, EndReason::Board);
    assert_eq!(rec.termination, Some(EndReason::Board));
    assert_eq!(
        rec.result,
        Some(RecordResult::Finished {
            seeds: out.seeds,
            without_glory: out.without_glory(),
        })
    );
    assert_eq!(out.seeds[0] as u32 + out.seeds[1] as u32, 48);
    // The file is what Record prints, plus comment lines.
    let without_comments: String = SAMPLE
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(rec.to_string(), without_comments);
    assert_eq!(Record::from_game(&game).actions, rec.actions);
}

#[test]
fn a_record_with_an_illegal_action_names_the_ply() {
    // Ply 2 is B's: a2 is A's hole.
    let text = "[Rules \"standard\"]\n\n1. a1 a2 b1\n";
    let rec = Record::parse(text).unwrap();
    let e = rec.replay().unwrap_err();
    assert_eq!(
        e.kind,
        RecordErrorKind::Illegal {
            ply: 2,
            action: Action::Sow(Hole::A2),
            error: IllegalAction::NotControlled(Hole::A2, Player::B)
        }
    );
    assert!(e.to_string().contains("action 2"), "{e}");
    // An action after the end is illegal too.
    let mut sample = Record::parse(SAMPLE).unwrap();
    sample.actions.push(Action::Sow(Hole::B1));
    let e = sample.replay().unwrap_err();
    assert_eq!(
        e.kind,
        RecordErrorKind::Illegal {
            ply: 52,
            action: Action::Sow(Hole::B1),
            error: IllegalAction::GameOver
        }
    );
}

#[test]
fn a_wrong_result_tag_is_a_mismatch() {
    let text = "[Rules \"standard\"]\n[Result \"30-18\"]\n\n1. a1\n";
    let e = Record::parse(text).unwrap().replay().unwrap_err();
    assert_eq!(
        e.kind,
        RecordErrorKind::ResultMismatch {
            claimed: RecordResult::Finished {
                seeds: [30, 18],
                without_glory: false
            },
            actual: RecordResult::Unfinished,
        }
    );
    // The sample with the glory mark dropped.
    let tampered = SAMPLE.replace("26-22 without glory", "26-22");
    assert_ne!(tampered, SAMPLE);
    let e = Record::parse(&tampered).unwrap().replay().unwrap_err();
    assert!(matches!(e.kind, RecordErrorKind::ResultMismatch { .. }));
    // `*` for an unfinished game is right.
    let ok = "[Rules \"standard\"]\n[Result \"*\"]\n\n1. a1\n";
    assert!(Record::parse(ok).unwrap().replay().is_ok());
}

#[test]
fn the_rules_tag_is_required() {
    let e = Record::parse("[A \"Awa\"]\n\n1. a1\n").unwrap_err();
    assert_eq!(e.kind, RecordErrorKind::MissingRules);
    let e = Record::parse("").unwrap_err();
    assert_eq!(e.kind, RecordErrorKind::MissingRules);
    let e = Record::parse("[Rules \"skip-origin,foo\"]\n").unwrap_err();
    assert_eq!(
        (e.line, e.kind),
        (1, RecordErrorKind::Rules(ParseRulesError::UnknownOption(2)))
    );
}

#[test]
fn bad_tags_give_their_line_number() {
    for (text, line) in [
        ("[Game \"Goré\"]\n[Rules standard]\n", 2),
        ("[Rules \"standard\"\n", 1),
        ("[Rules \"standard\"]\n[ \"x\"]\n", 2),
        ("[Rules \"standard\"]\n\n[A \"x\" ]\n", 3),
        ("[Rules \"standard\"]\n[A \"a\"b\"]\n", 2),
        ("[Rules \"standard\"]\n[A \"a\\qb\"]\n", 2),
        ("[Rules \"standard\"]\n[A \"ab\\\"]\n", 2),
        ("[Rules \"standard\"]\n[A.B \"x\"]\n", 2),
        ("[Rules \"standard\"]\n[A x]\n", 2),
    ] {
        let e = Record::parse(text).unwrap_err();
        assert_eq!(
            (e.line, e.kind),
            (line, RecordErrorKind::TagSyntax),
            "{text:?}"
        );
    }
    let e = Record::parse("[Rules \"standard\"]\n[A \"x\"]\n[A \"y\"]\n").unwrap_err();
    assert_eq!(
        (e.line, e.kind),
        (3, RecordErrorKind::RepeatedTag("A".into()))
    );
    let e = Record::parse("[Rules \"standard\"]\n[Result \"30-17\"]\n").unwrap_err();
    assert_eq!(
        (e.line, e.kind),
        (
            2,
            RecordErrorKind::ResultTotal {
                found: 47,
                expected: 48
            }
        )
    );
    // The total is the variant's: 32 under seeds=4, whichever tag comes first.
    let e = Record::parse("[Result \"30-18\"]\n[Rules \"seeds=4\"]\n").unwrap_err();
    assert_eq!(
        (e.line, e.kind),
        (
            1,
            RecordErrorKind::ResultTotal {
                found: 48,
                expected: 32
            }
        )
    );
    assert!(Record::parse("[Result \"20-12\"]\n[Rules \"seeds=4\"]\n").is_ok());
    let e = Record::parse("[Rules \"standard\"]\n[Result \"24-24 without glory\"]\n").unwrap_err();
    assert_eq!((e.line, e.kind), (2, RecordErrorKind::ResultSyntax));
    let e = Record::parse("[Rules \"standard\"]\n[Termination \"resign\"]\n").unwrap_err();
    assert_eq!((e.line, e.kind), (2, RecordErrorKind::TerminationSyntax));
    let e = Record::parse("[Rules \"standard\"]\n\n1. a1\n9. b1 x9\n").unwrap_err();
    assert_eq!(
        (e.line, e.kind),
        (
            4,
            RecordErrorKind::Action("x9".into(), ParseActionError::Unknown)
        )
    );
}

#[test]
fn a_record_with_a_start_tag_round_trips() {
    let r = rules("cede-all,ply-cap=40");
    let start = Position::from_gpn("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4", r.variant).unwrap();
    let mut game = Game::from_position(start, r.ply_cap);
    for a in ["accept", "a2", "a3"] {
        game.play(a.parse().unwrap()).unwrap();
    }
    let mut rec = Record::from_game(&game);
    rec.players = [Some("Awa".into()), Some("Koffi".into())];
    rec.event = Some("Club \"Guro\" \\ round 1 #3".into());
    rec.extra.push(("Site".into(), "Bouaflé".into()));
    let text = rec.to_string();
    assert!(
        text.contains("[Start \"0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4\"]\n"),
        "{text}"
    );
    assert!(text.contains("[Rules \"cede-all,ply-cap=40\"]\n"), "{text}");
    assert!(
        text.contains("[Event \"Club \\\"Guro\\\" \\\\ round 1 #3\"]\n"),
        "{text}"
    );
    assert!(text.contains("[Site \"Bouaflé\"]\n"), "{text}");
    assert!(text.contains("[Result \"*\"]\n"), "{text}");
    assert!(!text.contains("[Termination"), "{text}");
    assert!(text.ends_with("\n\n1. accept a2 a3\n"), "{text}");
    let back = Record::parse(&text).unwrap();
    assert_eq!(back, rec);
    let replayed = back.replay().unwrap();
    assert_eq!(replayed.position(), game.position());
    assert_eq!(replayed.start(), &start);
}

#[test]
fn records_from_the_initial_position_have_no_start_tag() {
    let mut game = Game::new(Rules::STANDARD);
    game.play(Action::Sow(Hole::A1)).unwrap();
    let text = Record::from_game(&game).to_string();
    assert!(!text.contains("Start"), "{text}");
    assert!(text.starts_with("[Game \"Goré\"]\n[Rules \"standard\"]\n"));
}

#[test]
fn an_invalid_start_tag_is_rejected() {
    let e = Record::parse("[Rules \"standard\"]\n[Start \"6,6,6,6/6,6,6,6 AAAA/BBBB 1-0 A -\"]\n")
        .unwrap_err();
    assert_eq!(
        e.kind,
        RecordErrorKind::Start(GpnError::Invalid(PositionError::SeedCount {
            found: 49,
            expected: 48
        }))
    );
    let e = Record::parse("[Rules \"standard\"]\n[Start \"6,6,6,6/6,6,6,6\"]\n").unwrap_err();
    assert_eq!(
        (e.line, e.kind),
        (
            2,
            RecordErrorKind::Start(GpnError::Parse(ParseGpnError::FieldCount))
        )
    );
    // Valid under cede-all only.
    let text = "[Rules \"standard\"]\n[Start \"6,6,6,6/6,6,6,6 AAAA/AAAA 0-0 A -\"]\n";
    assert!(Record::parse(text).is_err());
    assert!(Record::parse(&text.replace("standard", "cede-all")).is_ok());
}

#[test]
fn comments_are_ignored() {
    let text = "# a game\n[Rules \"standard\"] \n[Event \"Match #3\"]\n\n\
                1. a1 # A opens\n# a whole line\n  b1 a2   # more\n";
    let rec = Record::parse(text).unwrap();
    assert_eq!(rec.event.as_deref(), Some("Match #3"));
    let acts: Vec<String> = rec.actions.iter().map(|a| a.to_string()).collect();
    assert_eq!(acts, ["a1", "b1", "a2"]);
    assert!(rec.replay().is_ok());
}

#[test]
fn actions_are_written_eight_per_line_with_ply_numbers() {
    let rec = Record::parse(SAMPLE).unwrap();
    let text = rec.to_string();
    let action_lines: Vec<&str> = text.lines().skip_while(|l| !l.is_empty()).skip(1).collect();
    assert_eq!(action_lines.len(), 7); // 51 actions
    for (i, line) in action_lines.iter().enumerate() {
        let mut toks = line.split(' ');
        assert_eq!(toks.next(), Some(format!("{}.", i * 8 + 1).as_str()));
        let n = toks.count();
        assert_eq!(n, if i < 6 { 8 } else { 3 }, "{line}");
    }
    // Ply numbers are optional when reading.
    let bare = "[Rules \"standard\"]\n\na1 b1\n";
    assert_eq!(Record::parse(bare).unwrap().actions.len(), 2);
}

#[test]
fn the_seeds_option_parses_checks_its_range_and_prints_first() {
    let r = rules("cede-all,seeds=3");
    assert_eq!(r.variant.seeds_per_hole(), 3);
    assert_eq!(r.variant.total_seeds(), 24);
    assert!(r.variant.cede_all);
    assert_eq!(r.to_string(), "seeds=3,cede-all");
    // 6 is the default: it is not written.
    assert_eq!(rules("seeds=6"), Rules::STANDARD);
    assert_eq!(rules("seeds=8,ply-cap=9").to_string(), "seeds=8,ply-cap=9");
    for bad in [
        "seeds=2", "seeds=9", "seeds=", "seeds", "seeds=04", "seeds=x", "seeds=-3",
    ] {
        assert_eq!(bad.parse::<Rules>(), Err(ParseRulesError::Seeds), "{bad}");
    }
    assert_eq!(
        "seeds=4,seeds=4".parse::<Rules>(),
        Err(ParseRulesError::Repeated("seeds"))
    );
    // A position's variant refuses the game's ply cap.
    assert_eq!(
        "seeds=4,ply-cap=3".parse::<Variant>(),
        Err(ParseRulesError::PlyCapInVariant)
    );
    // Positions count 8N seeds.
    let v = rules("seeds=4").variant;
    assert_eq!(
        Position::new(v).to_string(),
        "4,4,4,4/4,4,4,4 AAAA/BBBB 0-0 A -"
    );
    assert_eq!(
        invalid(START, rules("seeds=4")),
        PositionError::SeedCount {
            found: 48,
            expected: 32
        }
    );
    assert!(Position::from_gpn(
        "8,8,8,8/8,8,8,8 AAAA/BBBB 0-0 A -",
        rules("seeds=8").variant
    )
    .is_ok());
}

#[test]
fn players_and_end_reasons_parse_what_they_print() {
    for p in Player::ALL {
        assert_eq!(p.to_string().parse::<Player>(), Ok(p));
    }
    for bad in ["", "a", "C", "AA", " A"] {
        assert!(bad.parse::<Player>().is_err(), "{bad:?}");
    }
    for r in EndReason::ALL {
        assert_eq!(r.to_string().parse::<EndReason>(), Ok(r));
    }
    assert_eq!("no-hole".parse::<EndReason>(), Ok(EndReason::NoHole));
    assert!("resign".parse::<EndReason>().is_err());
    let rec: Record = SAMPLE.parse().unwrap();
    assert_eq!(rec, Record::parse(SAMPLE).unwrap());
}

/// A resigned game's record: `Termination "resign"` with `Resigned`; its
/// `Result` is the captured totals as they stood (not swept, so not
/// adding up to 48), the opponent the winner. It replays; a wrong claim
/// is refused.
#[test]
fn resigned_records() {
    // RULES.md's first worked example: B's b2 takes a2, a1, b4 (8 seeds),
    // 14-14 becomes 14-22; then A resigns.
    let head = "[Rules \"standard\"]\n[Start \"1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -\"]\n";
    let text =
        format!("{head}[Result \"14-22\"]\n[Termination \"resign\"]\n[Resigned \"A\"]\n\n1. b2\n");
    let r = Record::parse(&text).unwrap();
    assert_eq!(r.forfeit, Some(Forfeit::Resign(Player::A)));
    assert_eq!(r.termination, None);
    let game = r.replay().unwrap();
    assert!(!game.is_over(), "the board did not end it");
    let written = r.to_string();
    assert!(
        written.contains("[Termination \"resign\"]\n[Resigned \"A\"]\n"),
        "{written}"
    );
    assert_eq!(Record::parse(&written).unwrap(), r);
    // The totals as they stood, not the start's.
    let wrong =
        format!("{head}[Result \"14-14\"]\n[Termination \"resign\"]\n[Resigned \"A\"]\n\n1. b2\n");
    assert!(matches!(
        Record::parse(&wrong).unwrap().replay().unwrap_err().kind,
        RecordErrorKind::ResultMismatch { .. }
    ));
    // Each tag needs the other; more than the game's seeds is refused.
    let e = Record::parse("[Rules \"standard\"]\n[Resigned \"B\"]\n").unwrap_err();
    assert_eq!((e.line, e.kind), (2, RecordErrorKind::TerminationSyntax));
    let e = Record::parse("[Rules \"standard\"]\n[Termination \"resign\"]\n[Resigned \"C\"]\n")
        .unwrap_err();
    assert_eq!((e.line, e.kind), (3, RecordErrorKind::TerminationSyntax));
    let e = Record::parse(
        "[Rules \"standard\"]\n[Result \"30-19\"]\n[Termination \"resign\"]\n[Resigned \"B\"]\n",
    )
    .unwrap_err();
    assert_eq!(
        (e.line, e.kind),
        (
            2,
            RecordErrorKind::ResultTotal {
                found: 49,
                expected: 48
            }
        )
    );
    // A game the board ended cannot then be resigned.
    let ended = "[Rules \"standard\"]\n[Start \"3,0,0,0/1,0,0,0 AAAA/BBBB 20-24 A -\"]\n\
                 [Termination \"resign\"]\n[Resigned \"A\"]\n\n1. a1\n";
    assert_eq!(
        Record::parse(ended).unwrap().replay().unwrap_err().kind,
        RecordErrorKind::ForfeitAfterEnd {
            actual: EndReason::Board
        }
    );
    // The winner declined: "without glory" (B declines A's offer, A resigns).
    let text = "[Rules \"standard\"]\n[Start \"0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4\"]\n\
                [Result \"9-12 without glory\"]\n[Termination \"resign\"]\n[Resigned \"A\"]\n\n\
                1. decline\n";
    Record::parse(text).unwrap().replay().unwrap();
}

/// Losing on time and by leaving: `Termination "time"` or `"left"` with
/// `Loser`; the `Result` is the captured totals as they stood, the loser's
/// opponent the winner even with fewer seeds. An abort has no result.
#[test]
fn forfeit_records() {
    // RULES.md's first worked example again: after b2, 14-22 (B ahead).
    let head = "[Rules \"standard\"]\n[Start \"1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -\"]\n";
    for (word, f) in [
        ("time", Forfeit::Time(Player::B)),
        ("left", Forfeit::Left(Player::B)),
    ] {
        // B loses though ahead on seeds: the tag, not the seeds, says who won.
        let text =
            format!("{head}[Result \"14-22\"]\n[Termination \"{word}\"]\n[Loser \"B\"]\n\n1. b2\n");
        let r = Record::parse(&text).unwrap();
        assert_eq!(r.forfeit, Some(f));
        assert_eq!(f.loser(), Some(Player::B));
        r.replay().unwrap();
        assert_eq!(Record::parse(&r.to_string()).unwrap(), r, "{word}");
        assert!(r
            .to_string()
            .contains(&format!("[Termination \"{word}\"]\n[Loser \"B\"]\n")));
        // The loser's tag is `Loser`, not `Resigned`; and it is required.
        let wrong = text.replace("Loser", "Resigned");
        let e = Record::parse(&wrong).unwrap_err();
        assert_eq!(e.kind, RecordErrorKind::TerminationSyntax, "{word}");
        let missing = text.replace("[Loser \"B\"]\n", "");
        let e = Record::parse(&missing).unwrap_err();
        assert_eq!((e.line, e.kind), (4, RecordErrorKind::TerminationSyntax));
    }
    // A resignation names its loser `Resigned`, never `Loser`.
    let e = Record::parse("[Rules \"standard\"]\n[Termination \"resign\"]\n[Loser \"A\"]\n")
        .unwrap_err();
    assert_eq!((e.line, e.kind), (3, RecordErrorKind::TerminationSyntax));
    // Abort: no loser, no result.
    let text = format!("{head}[Result \"*\"]\n[Termination \"abort\"]\n\n1. b2\n");
    let r = Record::parse(&text).unwrap();
    assert_eq!(r.forfeit, Some(Forfeit::Abort));
    assert!(!r.replay().unwrap().is_over());
    assert_eq!(Record::parse(&r.to_string()).unwrap(), r);
    let scored = text.replace("[Result \"*\"]", "[Result \"14-22\"]");
    assert!(matches!(
        Record::parse(&scored).unwrap().replay().unwrap_err().kind,
        RecordErrorKind::ResultMismatch { .. }
    ));
    let with_loser = format!("{head}[Termination \"abort\"]\n[Loser \"A\"]\n");
    assert_eq!(
        Record::parse(&with_loser).unwrap_err().kind,
        RecordErrorKind::TerminationSyntax
    );
    // Two loser tags are refused.
    let two = "[Rules \"standard\"]\n[Termination \"time\"]\n[Loser \"A\"]\n[Resigned \"A\"]\n";
    assert_eq!(Record::parse(two).unwrap_err().line, 4);
}

// ---------------------------------------------------------------------------
// Comments on actions (`{…}`), as a review writes them.

#[test]
fn comments_after_actions_are_read_kept_and_written() {
    let text = "[Rules \"standard\"]\n\n{opening} 1. a1 {A 24.0-24.0} b1 b2 {?? lost 5.5, best b3 #1} a3\n";
    let rec = Record::parse(text).unwrap();
    let a1 = Action::Sow(Hole::A1);
    let b1 = Action::Sow(Hole::B1);
    let b2 = Action::Sow(Hole::B2);
    let a3 = Action::Sow(Hole::A3);
    assert_eq!(rec.actions, vec![a1, b1, b2, a3]);
    // The ply is the number of actions before the comment; `#` inside a
    // comment does not end the line.
    assert_eq!(
        rec.comments,
        vec![
            (0, "opening".to_string()),
            (1, "A 24.0-24.0".to_string()),
            (3, "?? lost 5.5, best b3 #1".to_string()),
        ]
    );
    let written = rec.to_string();
    assert!(
        written.contains("1. a1 {A 24.0-24.0} b1 b2 {?? lost 5.5, best b3 #1} a3\n"),
        "{written}"
    );
    assert!(written.contains("\n{opening}\n1. "), "{written}");
    assert_eq!(Record::parse(&written).unwrap(), rec);
}

#[test]
fn a_closing_brace_in_a_comment_is_written_so_that_it_reads_back() {
    let mut rec = Record::new(Rules::STANDARD);
    rec.actions = vec![Action::Sow(Hole::A1), Action::Sow(Hole::B1)];
    rec.comments = vec![(1, "a } b\nc".to_string())];
    let back = Record::parse(&rec.to_string()).unwrap();
    assert_eq!(back.actions, rec.actions);
    assert_eq!(back.comments, vec![(1, "a ) b c".to_string())]);
}

#[test]
fn an_unclosed_comment_names_its_line() {
    let e = Record::parse("[Rules \"standard\"]\n\n1. a1 {lost\nb1 }\n").unwrap_err();
    assert_eq!(e.line, 3);
    assert_eq!(e.kind, RecordErrorKind::UnclosedComment);
    assert!(e.to_string().contains("closed by }"), "{e}");
}

#[test]
fn records_without_comments_read_as_before() {
    // The sample (written before comments existed) has none, and a `#`
    // line comment is still skipped.
    let rec = Record::parse(SAMPLE).unwrap();
    assert!(rec.comments.is_empty());
    let rec = Record::parse("[Rules \"standard\"]\n1. a1 # b1 {x}\nb1\n").unwrap();
    assert_eq!(
        rec.actions,
        vec![Action::Sow(Hole::A1), Action::Sow(Hole::B1)]
    );
    assert!(rec.comments.is_empty());
}
