//! The rules of RULES.md, one test per rule and per option.
//!
//! Every expected position below was worked out by hand from the rules
//! (the arithmetic is in the comments), not copied from the library.

use gore_core::{
    Action, EndReason, Game, Hole, HoleSet, IllegalAction, Outcome, Player, Position, Rules,
};

fn rules(s: &str) -> Rules {
    s.parse().expect("rule set")
}

fn pos_r(gpn: &str, r: Rules) -> Position {
    Position::from_gpn(gpn, r.variant).unwrap_or_else(|e| panic!("{gpn}: {e}"))
}

fn pos(gpn: &str) -> Position {
    pos_r(gpn, Rules::STANDARD)
}

fn act(s: &str) -> Action {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Plays `action` on `gpn` under `r` and returns the new GPN.
fn after_r(gpn: &str, r: Rules, action: &str) -> String {
    pos_r(gpn, r)
        .play(act(action))
        .unwrap_or_else(|e| panic!("{gpn} {action}: {e}"))
        .to_string()
}

fn after(gpn: &str, action: &str) -> String {
    after_r(gpn, Rules::STANDARD, action)
}

fn illegal_r(gpn: &str, r: Rules, action: Action) -> IllegalAction {
    match pos_r(gpn, r).play(action) {
        Ok(p) => panic!("{gpn} {action}: expected illegal, got {p}"),
        Err(e) => e,
    }
}

fn illegal(gpn: &str, action: &str) -> IllegalAction {
    illegal_r(gpn, Rules::STANDARD, act(action))
}

fn game(gpn: &str, r: Rules) -> Game {
    Game::from_position(pos_r(gpn, r), r.ply_cap)
}

/// Sows `hole`, returning the new position and the holes captured.
fn sow_taken(p: Position, hole: Hole) -> (Position, HoleSet) {
    let (next, effect) = p
        .play_effect(Action::Sow(hole))
        .unwrap_or_else(|e| panic!("{p} {hole}: {e}"));
    (next, effect.captured)
}

fn set(holes: &[Hole]) -> HoleSet {
    holes.iter().copied().collect()
}

// ---------------------------------------------------------------------------
// The three worked examples (seed 000), B to move, sowing b2.

#[test]
fn worked_example_1_backward_chain_into_own_row() {
    // Board holds 20, captured 14-14. b2 (4) -> b3 3, b4 2, a1 2, a2 4.
    // a2=4 (A's) is taken, backward a1=2, b4=2, b3=3 stops; forward a3=1
    // stops. 4+2+2 = 8.
    let before = pos("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -");
    let (next, taken) = sow_taken(before, Hole::B2);
    assert_eq!(next.to_string(), "0,0,1,5/3,0,3,0 AAAA/BBBB 14-22 A -");
    assert_eq!(taken, set(&[Hole::A1, Hole::A2, Hole::B4]));
    assert_eq!(next.captured(Player::B) - before.captured(Player::B), 8);
    assert!(!next.is_ended());
}

#[test]
fn worked_example_2_chain_both_ways() {
    // Board holds 14, captured 17-17. b2 (6) -> b3 4, b4 1, a1 1, a2 2,
    // a3 2, a4 2. a4=2 is taken; forward b1=2, then b2=0 stops; backward
    // a3=2, a2=2, then a1=1 stops. b3=4 is not reached. 2+2+2+2 = 8.
    let before = pos("0,1,1,1/2,6,3,0 AAAA/BBBB 17-17 B -");
    let (next, taken) = sow_taken(before, Hole::B2);
    assert_eq!(next.to_string(), "1,0,0,0/0,0,4,1 AAAA/BBBB 17-25 A -");
    assert_eq!(taken, set(&[Hole::A2, Hole::A3, Hole::A4, Hole::B1]));
    assert_eq!(next.captured(Player::B) - before.captured(Player::B), 8);
    assert!(!next.is_ended(), "b3 still holds 4");
}

#[test]
fn worked_example_3_whole_board_ends_the_game() {
    // Board holds 22, captured 13-13. b2 (3) -> b3 2, b4 4, a1 4: every
    // hole with seeds holds 2 or 4, so all 22 are taken and the game ends.
    let gpn = "3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -";
    let (next, taken) = sow_taken(pos(gpn), Hole::B2);
    assert_eq!(next.to_string(), "0,0,0,0/0,0,0,0 AAAA/BBBB 13-35 A -");
    assert_eq!(taken.len(), 7, "every hole but the emptied origin");
    assert!(next.is_ended());

    let mut g = game(gpn, Rules::STANDARD);
    let out = g
        .play(Action::Sow(Hole::B2))
        .unwrap()
        .outcome
        .expect("the game ends");
    assert_eq!(out.reason, EndReason::Board);
    assert_eq!(out.seeds, [13, 35]);
    assert_eq!(out.winner(), Some(Player::B));
    assert!(!out.without_glory());
    assert_eq!(out.to_string(), "13-35");
    assert!(g.is_over());
    assert_eq!(g.outcome(), Some(&out));
    assert_eq!(
        g.position().to_string(),
        "0,0,0,0/0,0,0,0 AAAA/BBBB 13-35 A -"
    );
}

// ---------------------------------------------------------------------------
// Sowing.

#[test]
fn sowing_is_a_single_lap_forward() {
    // a3 (6) -> a4, b1, b2, b3, b4, a1 each +1; the last seed lands in a1
    // (now 7) and sowing stops there (no relay).
    let s = "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -";
    assert_eq!(after(s, "a3"), "7,6,0,7/7,7,7,7 AAAA/BBBB 0-0 B -");
    // b4 (7) wraps from B's row into A's: a1..a4, b1, b2, b3 +1; the last
    // lands in b3, B's own.
    let s = "7,6,0,7/7,7,7,7 AAAA/BBBB 0-0 B -";
    assert_eq!(after(s, "b4"), "8,7,1,8/8,8,8,0 AAAA/BBBB 0-0 A -");
}

#[test]
fn eight_seeds_drop_the_last_in_the_origin_unless_skip_origin() {
    // 8 + 20 = 28 on the board, 10-10 captured.
    let s = "8,0,0,0/5,5,5,5 AAAA/BBBB 10-10 A -";
    // Default: a2..b4 (7 seeds), the 8th back into a1; own hole, no capture.
    assert_eq!(after(s, "a1"), "1,1,1,1/6,6,6,6 AAAA/BBBB 10-10 B -");
    // skip-origin: a2..b4, a1 skipped, the 8th into a2.
    assert_eq!(
        after_r(s, rules("skip-origin"), "a1"),
        "0,2,1,1/6,6,6,6 AAAA/BBBB 10-10 B -"
    );
}

#[test]
fn nine_seeds_with_and_without_skip_origin() {
    let s = "9,0,0,0/5,5,5,5 AAAA/BBBB 10-9 A -";
    // Default: a2..b4, a1, a2.
    assert_eq!(after(s, "a1"), "1,2,1,1/6,6,6,6 AAAA/BBBB 10-9 B -");
    // skip-origin: a2..b4, a2, a3.
    assert_eq!(
        after_r(s, rules("skip-origin"), "a1"),
        "0,2,2,1/6,6,6,6 AAAA/BBBB 10-9 B -"
    );
}

#[test]
fn fifteen_seeds_with_and_without_skip_origin() {
    let s = "15,0,0,0/1,1,1,1 AAAA/BBBB 15-14 A -";
    // Default: one lap of 8 (origin included), then a2..b4 again (7):
    // a1 1, others +2. The last lands in b4 = 3: no capture.
    assert_eq!(after(s, "a1"), "1,2,2,2/3,3,3,3 AAAA/BBBB 15-14 B -");
    // skip-origin: two laps of 7 (14) then a2 (15): a2 +3, others +2.
    assert_eq!(
        after_r(s, rules("skip-origin"), "a1"),
        "0,3,2,2/3,3,3,3 AAAA/BBBB 15-14 B -"
    );
}

#[test]
fn skip_origin_changes_where_a_lap_lands_and_what_it_takes() {
    let s = "12,0,0,0/0,0,1,1 AAAA/BBBB 17-17 A -";
    // Default: lap a2..b4, a1 (8), then a2, a3, a4, b1 (12):
    // 1,2,2,2/2,1,2,2, last in b1 = 2 (B's): take b1, backward a4, a3, a2
    // (2 each), a1 = 1 stops; forward b2 = 1 stops. 8 seeds.
    assert_eq!(after(s, "a1"), "1,0,0,0/0,1,2,2 AAAA/BBBB 25-17 B -");
    // skip-origin: lap a2..b4 (7), then a2..b2 (5): 0,2,2,2/2,2,2,2, last in
    // b2 = 2: every hole with seeds is taken (a1 empty stops both ways).
    assert_eq!(
        after_r(s, rules("skip-origin"), "a1"),
        "0,0,0,0/0,0,0,0 AAAA/BBBB 31-17 B -"
    );
}

// ---------------------------------------------------------------------------
// Captures.

#[test]
fn capture_needs_exactly_2_or_4_in_the_landing_hole() {
    // A sows a4 (1 seed) into b1, which then holds k. b2 = 3 and the
    // emptied a4 stop any chain, so only b1 can be taken.
    for k in 1u8..=6 {
        let board = 18 + k as u32;
        let cap_b = 48 - board - 15;
        let gpn = format!("3,3,3,1/{},3,3,3 AAAA/BBBB 15-{cap_b} A -", k - 1);
        let (next, taken) = sow_taken(pos(&gpn), Hole::A4);
        if k == 2 || k == 4 {
            assert_eq!(taken, HoleSet::single(Hole::B1), "k={k}");
            assert_eq!(
                next.to_string(),
                format!("3,3,3,0/0,3,3,3 AAAA/BBBB {}-{cap_b} B -", 15 + k)
            );
        } else {
            assert!(taken.is_empty(), "k={k}: {next}");
            assert_eq!(
                next.to_string(),
                format!("3,3,3,0/{k},3,3,3 AAAA/BBBB 15-{cap_b} B -")
            );
        }
    }
}

#[test]
fn capture_starts_in_a_traded_hole_the_opponent_controls() {
    // B controls a3. A sows a1 (2): a2 1, a3 2. a3 is B's: taken; forward
    // a4 = 4 (A's own) taken, b1 = 3 stops; backward a2 = 1 stops. 6.
    let traded = "2,0,1,4/3,5,5,5 AABA/BBBB 12-11 A -";
    assert_eq!(after(traded, "a1"), "0,1,0,0/3,5,5,5 AABA/BBBB 18-11 B -");
    // The same sowing with a3 still A's takes nothing.
    let plain = "2,0,1,4/3,5,5,5 AAAA/BBBB 12-11 A -";
    assert_eq!(after(plain, "a1"), "0,1,2,4/3,5,5,5 AAAA/BBBB 12-11 B -");
}

#[test]
fn landing_in_a_hole_of_the_opponents_row_the_sower_controls_takes_nothing() {
    // A controls b1. a4 (1) -> b1 = 2, but b1 is A's own: no capture, even
    // though b2 = 4 lies next to it.
    let traded = "3,3,3,1/1,4,3,3 AAAA/ABBB 14-13 A -";
    assert_eq!(after(traded, "a4"), "3,3,3,0/2,4,3,3 AAAA/ABBB 14-13 B -");
    // With b1 still B's: b1 = 2 taken, forward b2 = 4, b3 = 3 stops. 6.
    let plain = "3,3,3,1/1,4,3,3 AAAA/BBBB 14-13 A -";
    assert_eq!(after(plain, "a4"), "3,3,3,0/0,0,3,3 AAAA/BBBB 20-13 B -");
}

#[test]
fn chain_runs_forward_into_the_sowers_own_holes() {
    // B controls a3. A sows a2 (1) into a3 = 2 (B's): taken; forward a4 = 4
    // (A's own) and b1 = 2 taken, b2 = 3 stops; backward a2 = 0 stops.
    let s = "3,1,1,4/2,3,3,3 AABA/BBBB 14-14 A -";
    assert_eq!(after(s, "a2"), "3,0,0,0/0,3,3,3 AABA/BBBB 22-14 B -");
}

#[test]
fn an_empty_hole_stops_the_chain() {
    // A sows a3 (2): a4 2, b1 2. b1 taken; backward a4 = 2 taken, then the
    // emptied a3 stops the chain: a2 = 2 and a1 = 4 stay. Forward b2 = 3.
    let s = "4,2,2,1/1,3,3,3 AAAA/BBBB 15-14 A -";
    let (next, taken) = sow_taken(pos(s), Hole::A3);
    assert_eq!(taken, set(&[Hole::A4, Hole::B1]));
    assert_eq!(next.to_string(), "4,2,0,0/0,3,3,3 AAAA/BBBB 19-14 B -");
}

#[test]
fn the_whole_board_can_be_taken_each_hole_once() {
    // B sows b4 (1) into a1 = 2. Backward, the emptied b4 stops at once;
    // forward a2..b3 all hold 2 or 4. 2+4+2+4+2+4+2 = 20: the whole board.
    let s = "1,4,2,4/2,4,2,1 AAAA/BBBB 14-14 B -";
    let (next, taken) = sow_taken(pos(s), Hole::B4);
    assert_eq!(taken.len(), 7);
    assert!(!taken.contains(Hole::B4));
    assert_eq!(next.to_string(), "0,0,0,0/0,0,0,0 AAAA/BBBB 14-34 A -");
}

#[test]
fn a_chain_round_the_whole_board_takes_each_hole_once() {
    // B sows b4 (17): two laps of 8 (every hole +2, b4 included), then a1.
    // a1 1+3 = 4, a2 2, a3 4, a4 2, b1 4, b2 2, b3 4, b4 2: no empty hole.
    // The landing a1 is A's: backward b4, b3, ..., a2 are taken, and the
    // chain stops at a1, already taken; forward finds a2 already taken.
    // 24 seeds in all, each hole once.
    let s = "1,0,2,0/2,0,2,17 AAAA/BBBB 12-12 B -";
    let (next, taken) = sow_taken(pos(s), Hole::B4);
    assert_eq!(taken, HoleSet::FULL);
    assert_eq!(next.to_string(), "0,0,0,0/0,0,0,0 AAAA/BBBB 12-36 A -");
}

#[test]
fn a_capture_gives_no_extra_turn() {
    let next = pos("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -")
        .play(Action::Sow(Hole::B2))
        .unwrap();
    assert_eq!(next.to_move(), Player::A);
}

// ---------------------------------------------------------------------------
// Pass.

#[test]
fn pass_only_when_every_controlled_hole_is_empty() {
    let empty_a = "0,0,0,0/3,3,3,3 AAAA/BBBB 18-18 A -";
    assert_eq!(
        after(empty_a, "pass"),
        "0,0,0,0/3,3,3,3 AAAA/BBBB 18-18 B -"
    );
    let p = pos(empty_a);
    assert!(p.legal_actions().contains(&Action::Pass));

    let seeds_in_a2 = "0,2,0,0/3,3,3,3 AAAA/BBBB 17-17 A -";
    assert_eq!(
        illegal(seeds_in_a2, "pass"),
        IllegalAction::PassWithSeeds(Hole::A2)
    );
    assert!(!pos(seeds_in_a2).legal_actions().contains(&Action::Pass));

    // A controls b1 (with seeds) although his row is empty: no pass.
    let traded = "0,0,0,0/3,3,3,3 AAAA/ABBB 18-18 A -";
    assert_eq!(
        illegal(traded, "pass"),
        IllegalAction::PassWithSeeds(Hole::B1)
    );
    // B's row is empty but B controls a traded hole... here B holds a1 (3).
    let b_traded = "3,0,0,0/0,0,0,0 BAAA/BBBB 22-23 B -";
    assert_eq!(
        illegal(b_traded, "pass"),
        IllegalAction::PassWithSeeds(Hole::A1)
    );
}

#[test]
fn passing_player_may_offer_instead() {
    // A's holes are all empty; B has 18 captured: offers are legal.
    let s = "0,0,0,0/3,3,3,3 AAAA/BBBB 18-18 A -";
    assert_eq!(
        after(s, "offer:a1,a2"),
        "0,0,0,0/3,3,3,3 AAAA/BBBB 18-18 B a1+a2"
    );
    let legal = pos(s).legal_actions();
    assert!(legal.contains(&act("offer:a1")));
    assert!(legal.contains(&act("offer:a1,a2,a3")));
    assert!(!legal.iter().any(|a| matches!(a, Action::Sow(_))));
}

// ---------------------------------------------------------------------------
// Offers.

/// Board 0,3,7,1/2,0,5,9 = 27; captured 9-12; A to move.
const OFFER_POS: &str = "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 A -";

#[test]
fn an_offer_names_1_2_or_3_holes() {
    // B has 12 captured, so at most 2 holes are affordable here; give him 18.
    let rich = "0,3,7,1/2,0,5,9 AAAA/BBBB 3-18 A -";
    assert_eq!(
        after(rich, "offer:a2"),
        "0,3,7,1/2,0,5,9 AAAA/BBBB 3-18 B a2"
    );
    assert_eq!(
        after(rich, "offer:a1,a4"),
        "0,3,7,1/2,0,5,9 AAAA/BBBB 3-18 B a1+a4"
    );
    assert_eq!(
        after(rich, "offer:a1,a2,a3"),
        "0,3,7,1/2,0,5,9 AAAA/BBBB 3-18 B a1+a2+a3"
    );
    let r = Rules::STANDARD;
    assert_eq!(
        illegal_r(rich, r, Action::Offer(HoleSet::EMPTY)),
        IllegalAction::OfferSize(0)
    );
    let four = set(&[Hole::A1, Hole::A2, Hole::A3, Hole::A4]);
    assert_eq!(
        illegal_r(rich, r, Action::Offer(four)),
        IllegalAction::OfferSize(4)
    );
    // Even cede-all allows at most 3.
    assert_eq!(
        illegal_r(rich, rules("cede-all"), Action::Offer(four)),
        IllegalAction::OfferSize(4)
    );
}

#[test]
fn the_opponent_must_be_able_to_pay_6_per_hole() {
    // B has 12: two holes are fine, three cost 18.
    assert_eq!(
        after(OFFER_POS, "offer:a2,a4"),
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4"
    );
    assert_eq!(
        illegal(OFFER_POS, "offer:a1,a2,a4"),
        IllegalAction::CannotPay {
            price: 18,
            captured: 12
        }
    );
    // B has 5: not even one hole.
    let poor = "0,3,7,1/2,0,5,9 AAAA/BBBB 16-5 A -";
    assert_eq!(
        illegal(poor, "offer:a1"),
        IllegalAction::CannotPay {
            price: 6,
            captured: 5
        }
    );
    // Exactly 6 is enough.
    let six = "0,3,7,1/2,0,5,9 AAAA/BBBB 15-6 A -";
    assert!(pos(six).is_legal(act("offer:a1")));
}

#[test]
fn the_offerer_must_keep_a_hole_unless_cede_all() {
    // A controls a1, a2, a3 (B has a4); B has 18.
    let s = "0,3,7,1/2,0,5,9 AAAB/BBBB 3-18 A -";
    assert_eq!(illegal(s, "offer:a1,a2,a3"), IllegalAction::MustKeepHole);
    assert!(pos(s).is_legal(act("offer:a1,a2")));
    assert_eq!(
        after_r(s, rules("cede-all"), "offer:a1,a2,a3"),
        "0,3,7,1/2,0,5,9 AAAB/BBBB 3-18 B a1+a2+a3"
    );
    assert!(pos_r(s, rules("cede-all"))
        .legal_actions()
        .contains(&act("offer:a1,a2,a3")));
    assert!(!pos(s).legal_actions().contains(&act("offer:a1,a2,a3")));
}

#[test]
fn cede_all_then_accept_leaves_a_player_with_no_hole() {
    let r = rules("cede-all");
    // A controls a1, a2 only; B has 12. A cedes both, B accepts: a1 1+6,
    // a2 2+6, B's captured 12-12 = 0. A then controls nothing: the game
    // ends at once with the sweep (RULES.md, "A player without a hole").
    let s = "1,2,7,1/2,4,5,9 AABB/BBBB 5-12 A -";
    let offered = after_r(s, r, "offer:a1,a2");
    assert_eq!(offered, "1,2,7,1/2,4,5,9 AABB/BBBB 5-12 B a1+a2");
    let accepted = after_r(&offered, r, "accept");
    assert_eq!(accepted, "7,8,7,1/2,4,5,9 BBBB/BBBB 5-0 B -");
    let p = pos_r(&accepted, r);
    assert!(p.is_ended());
    assert_eq!(p.player_without_hole(), Some(Player::A));
    assert!(p.legal_actions().is_empty());
    assert_eq!(p.perft(1), 0);
    assert_eq!(illegal_r(&accepted, r, act("b1")), IllegalAction::GameOver);
    // In a game: the accept ends it. B sweeps the 43 seeds on the board.
    let mut g = game(&offered, r);
    let out = g
        .play(Action::Accept)
        .unwrap()
        .outcome
        .expect("the game ends");
    assert_eq!(out.reason, EndReason::NoHole);
    assert_eq!(out.seeds, [5, 43]);
    assert_eq!(out.winner(), Some(Player::B));
    assert_eq!(
        g.position().to_string(),
        "0,0,0,0/0,0,0,0 BBBB/BBBB 5-43 B -"
    );
    // Declining instead keeps A's holes and the game.
    let mut g = game(&offered, r);
    assert_eq!(g.play(Action::Decline).map(|p| p.outcome), Ok(None));
}

#[test]
fn no_trades_forbids_offers() {
    let r = rules("no-trades");
    assert_eq!(
        illegal_r(OFFER_POS, r, act("offer:a2")),
        IllegalAction::TradesDisabled
    );
    assert!(!pos_r(OFFER_POS, r)
        .legal_actions()
        .iter()
        .any(|a| matches!(a, Action::Offer(_))));
    // The same offer is legal in the standard game.
    assert!(pos(OFFER_POS).is_legal(act("offer:a2")));
}

#[test]
fn only_controlled_holes_can_be_offered() {
    assert_eq!(
        illegal(OFFER_POS, "offer:b1"),
        IllegalAction::NotControlled(Hole::B1, Player::A)
    );
    assert_eq!(
        illegal(OFFER_POS, "offer:a1,b1"),
        IllegalAction::NotControlled(Hole::B1, Player::A)
    );
    // After a trade A controls b1 and may offer it back.
    let traded = "0,3,7,1/2,0,5,9 AAAA/ABBB 9-12 A -";
    assert_eq!(
        after(traded, "offer:b1"),
        "0,3,7,1/2,0,5,9 AAAA/ABBB 9-12 B b1"
    );
    assert_eq!(
        illegal(traded, "offer:b2"),
        IllegalAction::NotControlled(Hole::B2, Player::A)
    );
}

#[test]
fn offers_are_listed_among_the_legal_actions() {
    // A: 3 sowable holes (a2, a3, a4) and offers of 1 or 2 of 4 holes
    // (B has 12): 4 + 6 = 10 offers.
    let p = pos(OFFER_POS);
    let legal = p.legal_actions();
    let sows = legal.iter().filter(|a| matches!(a, Action::Sow(_))).count();
    let offers = legal
        .iter()
        .filter(|a| matches!(a, Action::Offer(_)))
        .count();
    assert_eq!(sows, 3);
    assert_eq!(offers, 10);
    assert_eq!(p.count_legal(), 13);
    assert_eq!(p.perft(1), 13);
}

// ---------------------------------------------------------------------------
// Accept and decline.

#[test]
fn accept_moves_control_and_seeds_and_the_receiver_moves_again() {
    // RULES.md: A offered a2 and a4 to B, who holds 12.
    let offered = "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4";
    // a2 3+6 = 9, a4 1+6 = 7, both B's; B pays 12; B still to move.
    let accepted = after(offered, "accept");
    assert_eq!(accepted, "0,9,7,7/2,0,5,9 ABAB/BBBB 9-0 B -");
    let p = pos(&accepted);
    assert_eq!(p.controller(Hole::A2), Player::B);
    assert_eq!(p.controlled(Player::B).len(), 6);
    assert_eq!(p.pending_offer(), None);
    // B sows the received a2 (9): a3, a4, b1, b2, b3, b4, a1, a2 (origin),
    // a3. a3 = 7+2 = 9 (A's): no capture.
    assert_eq!(after(&accepted, "a2"), "1,1,9,8/3,1,6,10 ABAB/BBBB 9-0 A -");
    // A can no longer sow a2.
    let a_turn = "1,1,9,8/3,1,6,10 ABAB/BBBB 9-0 A -";
    assert_eq!(
        illegal(a_turn, "a2"),
        IllegalAction::NotControlled(Hole::A2, Player::B.opponent())
    );
}

#[test]
fn accept_by_a_of_holes_in_bs_row() {
    // B offers b2, b3 (price 12, A has 13). A accepts: b2 11, b3 11, A pays
    // 12, A still to move.
    let offered = "2,2,2,2/5,5,5,5 AAAA/BBBB 13-7 A b2+b3";
    let accepted = after(offered, "accept");
    assert_eq!(accepted, "2,2,2,2/5,11,11,5 AAAA/BAAB 1-7 A -");
    // A sows b3 (11): b4, a1..a4, b1, b2, b3 (origin), b4, a1, a2.
    // a2 = 4 but it is A's own: no capture.
    assert_eq!(after(&accepted, "b3"), "4,4,3,3/6,12,1,7 AAAA/BAAB 1-7 B -");
    // Captures now treat b2 as A's: B landing there can take it.
    // B sows b1 (1) into b2 (A's) holding 1 -> 2: taken.
    let s = "3,3,3,3/1,1,6,7 AAAA/BAAB 14-7 B -";
    assert_eq!(after(s, "b1"), "3,3,3,3/0,0,6,7 AAAA/BAAB 14-9 A -");
}

#[test]
fn decline_changes_nothing_but_the_offer_and_the_decliner_moves() {
    let offered = "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4";
    assert_eq!(
        after(offered, "decline"),
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B -"
    );

    let mut g = game(offered, Rules::STANDARD);
    assert!(!g.has_declined(Player::A));
    assert!(!g.has_declined(Player::B));
    assert_eq!(g.play(Action::Decline).map(|p| p.outcome), Ok(None));
    assert!(g.has_declined(Player::B));
    assert!(!g.has_declined(Player::A));
    assert_eq!(g.position().to_move(), Player::B);
    // B takes his normal turn: sow b4 (9): a1..a4, b1, b2, b3, b4, a1.
    // a1 = 2 (A's): taken; backward b4 = 1 stops; forward a2 = 4 taken,
    // a3 = 8 stops. 6.
    g.play(Action::Sow(Hole::B4)).unwrap();
    assert_eq!(
        g.position().to_string(),
        "0,0,8,2/3,1,6,1 AAAA/BBBB 9-18 A -"
    );
    // Offers may be made again on a later turn.
    g.play(act("offer:a4")).unwrap();
    assert_eq!(
        g.position().to_string(),
        "0,0,8,2/3,1,6,1 AAAA/BBBB 9-18 B a4"
    );
}

#[test]
fn accept_or_decline_without_an_offer() {
    assert_eq!(illegal(OFFER_POS, "accept"), IllegalAction::NoOffer);
    assert_eq!(illegal(OFFER_POS, "decline"), IllegalAction::NoOffer);
}

#[test]
fn while_an_offer_is_pending_only_accept_or_decline() {
    let offered = "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4";
    for a in ["b3", "b4", "pass", "offer:b1", "a2"] {
        assert_eq!(illegal(offered, a), IllegalAction::OfferPending, "{a}");
    }
    assert_eq!(
        pos(offered).legal_actions().to_vec(),
        vec![Action::Accept, Action::Decline]
    );
}

#[test]
fn sowing_an_empty_or_foreign_hole_is_illegal() {
    assert_eq!(illegal(OFFER_POS, "a1"), IllegalAction::EmptyHole(Hole::A1));
    assert_eq!(
        illegal(OFFER_POS, "b4"),
        IllegalAction::NotControlled(Hole::B4, Player::A)
    );
    let b_turn = "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B -";
    assert_eq!(illegal(b_turn, "b2"), IllegalAction::EmptyHole(Hole::B2));
    assert_eq!(
        illegal(b_turn, "a2"),
        IllegalAction::NotControlled(Hole::A2, Player::B)
    );
}

// ---------------------------------------------------------------------------
// Victory without glory.

#[test]
fn a_win_after_declining_is_without_glory() {
    // A offered a1; B declines, then sows b3 (3): b4 1, a1 2, a2 1; a2 = 1,
    // no capture. Every hole <= 2: sweep A 2+1 = 3 -> 17, B 1 -> 31.
    let mut g = game("1,0,0,0/0,0,3,0 AAAA/BBBB 14-30 B a1", Rules::STANDARD);
    g.play(Action::Decline).unwrap();
    let out = g
        .play(Action::Sow(Hole::B3))
        .unwrap()
        .outcome
        .expect("ends");
    assert_eq!(out.reason, EndReason::Board);
    assert_eq!(out.seeds, [17, 31]);
    assert_eq!(out.declined, [false, true]);
    assert_eq!(out.winner(), Some(Player::B));
    assert!(out.without_glory());
    assert_eq!(out.to_string(), "17-31 without glory");
}

#[test]
fn a_loss_after_declining_has_no_glory_mark() {
    // B offered b1; A declines, sows a3 (3): a4 1, b1 2, b2 1; b2 = 1 no
    // capture. Sweep A 1 -> 15, B 2+1 -> 33. A lost: no "without glory".
    let mut g = game("0,0,3,0/1,0,0,0 AAAA/BBBB 14-30 A b1", Rules::STANDARD);
    g.play(Action::Decline).unwrap();
    assert!(g.has_declined(Player::A));
    let out = g
        .play(Action::Sow(Hole::A3))
        .unwrap()
        .outcome
        .expect("ends");
    assert_eq!(out.seeds, [15, 33]);
    assert_eq!(out.winner(), Some(Player::B));
    assert!(!out.without_glory());
    assert_eq!(out.to_string(), "15-33");
}

#[test]
fn a_draw_after_declining_has_no_glory_mark() {
    // Same play with captured 23-21: sweep A 1 -> 24, B 3 -> 24.
    let mut g = game("0,0,3,0/1,0,0,0 AAAA/BBBB 23-21 A b1", Rules::STANDARD);
    g.play(Action::Decline).unwrap();
    let out = g
        .play(Action::Sow(Hole::A3))
        .unwrap()
        .outcome
        .expect("ends");
    assert_eq!(out.seeds, [24, 24]);
    assert_eq!(out.winner(), None);
    assert!(!out.without_glory());
    assert_eq!(out.to_string(), "24-24");
}

#[test]
fn outcome_winner_and_glory_by_hand() {
    let o = |seeds, declined| Outcome {
        reason: EndReason::Board,
        seeds,
        declined,
    };
    assert_eq!(o([30, 18], [false, false]).winner(), Some(Player::A));
    assert_eq!(o([18, 30], [false, false]).winner(), Some(Player::B));
    assert_eq!(o([24, 24], [true, true]).winner(), None);
    assert!(!o([24, 24], [true, true]).without_glory());
    assert!(o([18, 30], [false, true]).without_glory());
    assert!(!o([18, 30], [true, false]).without_glory());
    assert_eq!(
        o([18, 30], [false, true]).to_string(),
        "18-30 without glory"
    );
}

// ---------------------------------------------------------------------------
// The end of the game.

#[test]
fn the_sweep_gives_each_hole_to_its_controller() {
    // A controls a1..a3 and b1; B controls a4, b2..b4. B sows a4 (3): b1 2,
    // b2 1, b3 1; b3 is B's own. Every hole <= 2: the game ends.
    // A: 0+1+0+2 = 3 -> 23; B: 0+1+1+2 = 4 -> 25 (by rows it would be 21-27).
    let mut g = game("0,1,0,3/1,0,0,2 AAAB/ABBB 20-21 B -", Rules::STANDARD);
    let out = g
        .play(Action::Sow(Hole::A4))
        .unwrap()
        .outcome
        .expect("ends");
    assert_eq!(out.reason, EndReason::Board);
    assert_eq!(out.seeds, [23, 25]);
    assert_eq!(out.winner(), Some(Player::B));
    // Project decision: the sweep only moves seeds into the captured totals;
    // the player to move stays as after the action.
    assert_eq!(
        g.position().to_string(),
        "0,0,0,0/0,0,0,0 AAAB/ABBB 23-25 A -"
    );
    assert_eq!(g.legal_actions().len(), 0);
}

#[test]
fn the_game_ends_when_every_hole_holds_at_most_2() {
    // A sows a4 (3): b1 1, b2 1, b3 1 (no capture). Board 2,2,2,0/1,1,1,0:
    // every hole <= 2. Sweep A 6 -> 26, B 3 -> 22.
    let mut g = game("2,2,2,3/0,0,0,0 AAAA/BBBB 20-19 A -", Rules::STANDARD);
    let out = g
        .play(Action::Sow(Hole::A4))
        .unwrap()
        .outcome
        .expect("ends");
    assert_eq!(out.seeds, [26, 22]);
    assert_eq!(
        g.position().to_string(),
        "0,0,0,0/0,0,0,0 AAAA/BBBB 26-22 B -"
    );
    // One hole with 3 (b4) keeps the game going.
    let mut g = game("2,2,2,3/0,0,0,3 AAAA/BBBB 20-16 A -", Rules::STANDARD);
    assert_eq!(g.play(Action::Sow(Hole::A4)).map(|p| p.outcome), Ok(None));
    assert_eq!(
        g.position().to_string(),
        "2,2,2,0/1,1,1,3 AAAA/BBBB 20-16 B -"
    );
    assert!(!g.is_over());
}

#[test]
fn a_game_from_an_ended_position_is_over_at_once() {
    let g = game("2,1,0,0/0,0,1,2 AAAA/BBBB 20-22 A -", Rules::STANDARD);
    assert!(g.is_over());
    let out = g.outcome().unwrap();
    assert_eq!(out.reason, EndReason::Board);
    assert_eq!(out.seeds, [23, 25]);
    let empty = game("0,0,0,0/0,0,0,0 AAAA/BBBB 24-24 B -", Rules::STANDARD);
    assert_eq!(empty.outcome().unwrap().winner(), None);
    assert!(pos("0,0,0,0/0,0,0,0 AAAA/BBBB 24-24 B -").is_ended());
    assert_eq!(pos("0,0,0,0/0,0,0,0 AAAA/BBBB 24-24 B -").perft(1), 0);
}

#[test]
fn a_24_24_game_is_a_draw() {
    // A sows a4 (3): b1 1, b2 1, b3 1; no capture. Board 2,2,2,0/1,1,1,0.
    // Sweep: A 6 -> 24, B 3 -> 24.
    let mut g = game("2,2,2,3/0,0,0,0 AAAA/BBBB 18-21 A -", Rules::STANDARD);
    let out = g
        .play(Action::Sow(Hole::A4))
        .unwrap()
        .outcome
        .expect("ends");
    assert_eq!(out.seeds, [24, 24]);
    assert_eq!(out.winner(), None);
    assert!(!out.without_glory());
}

#[test]
fn threefold_repetition_ends_the_game() {
    // Both can pay 6: A offers a1, B declines, B offers b1, A declines:
    // after 4 actions the start position is back (2nd time), after 8 the
    // 3rd time. Sweep: A 24+6 = 30, B 12+6 = 18.
    let start = "6,6,6,6/6,6,0,0 AAAA/BBBB 6-6 A -";
    let mut g = game(start, Rules::STANDARD);
    let cycle = ["offer:a1", "decline", "offer:b1", "decline"];
    for (i, a) in cycle.iter().chain(cycle.iter()).enumerate() {
        let r = g.play(act(a)).unwrap().outcome;
        if i < 7 {
            assert_eq!(r, None, "ply {}", i + 1);
        } else {
            let out = r.expect("the third occurrence ends the game");
            assert_eq!(out.reason, EndReason::Repetition);
            assert_eq!(out.seeds, [30, 18]);
            assert_eq!(out.declined, [true, true]);
            assert!(out.without_glory());
        }
        if i == 3 {
            assert_eq!(g.repetitions(), 2);
        }
    }
    assert!(g.is_over());
    assert_eq!(g.actions().len(), 8);
    assert_eq!(
        g.position().to_string(),
        "0,0,0,0/0,0,0,0 AAAA/BBBB 30-18 A -"
    );
}

#[test]
fn ply_cap_ends_the_game_after_n_actions() {
    let r = rules("ply-cap=3");
    let mut g = Game::new(r);
    // a1 (6): a2..b3 +1 -> 0,7,7,7/7,7,7,6.
    assert_eq!(g.play(act("a1")).map(|p| p.outcome), Ok(None));
    // b1 (7): b2..a4 +1 -> 1,8,8,8/0,8,8,7; a4 = 8.
    assert_eq!(g.play(act("b1")).map(|p| p.outcome), Ok(None));
    // a2 (8): a3..a1 +1 and a2 itself -> 2,1,9,9/1,9,9,8, A's own.
    let out = g
        .play(act("a2"))
        .unwrap()
        .outcome
        .expect("the cap ends the game");
    assert_eq!(out.reason, EndReason::PlyCap);
    // Sweep: A 2+1+9+9 = 21, B 1+9+9+8 = 27.
    assert_eq!(out.seeds, [21, 27]);
    assert_eq!(
        g.position().to_string(),
        "0,0,0,0/0,0,0,0 AAAA/BBBB 21-27 B -"
    );
    // Without the cap the game goes on.
    let mut g = Game::new(Rules::STANDARD);
    for a in ["a1", "b1", "a2"] {
        assert_eq!(g.play(act(a)).map(|p| p.outcome), Ok(None));
    }
}

#[test]
fn ply_cap_counts_actions_from_the_start_of_the_game() {
    // Offers and answers count as actions.
    let r = rules("ply-cap=2");
    let mut g = game("6,6,6,6/6,6,0,0 AAAA/BBBB 6-6 A -", r);
    assert_eq!(g.play(act("offer:a1")).map(|p| p.outcome), Ok(None));
    let out = g.play(act("decline")).unwrap().outcome.expect("cap");
    assert_eq!(out.reason, EndReason::PlyCap);
    assert_eq!(out.seeds, [30, 18]);
}

#[test]
fn board_end_comes_before_the_ply_cap() {
    // Worked example 3 with ply-cap=1: the board end is reported.
    let mut g = game("3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -", rules("ply-cap=1"));
    let out = g.play(act("b2")).unwrap().outcome.unwrap();
    assert_eq!(out.reason, EndReason::Board);
}

#[test]
fn every_action_after_the_end_is_game_over() {
    let mut g = game("3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -", Rules::STANDARD);
    g.play(act("b2")).unwrap();
    let frozen = g.clone();
    for a in [
        "a1", "b1", "pass", "accept", "decline", "offer:a1", "offer:b1",
    ] {
        assert_eq!(g.play(act(a)), Err(IllegalAction::GameOver), "{a}");
    }
    assert_eq!(g, frozen);
    // A position ended on the board refuses everything too.
    let p = pos("2,1,0,0/0,0,1,2 AAAA/BBBB 20-22 A -");
    assert_eq!(p.play(act("a1")), Err(IllegalAction::GameOver));
    assert_eq!(p.play(act("pass")), Err(IllegalAction::GameOver));
    assert!(p.legal_actions().is_empty());
}

#[test]
fn an_illegal_action_changes_nothing() {
    let mut g = game(OFFER_POS, Rules::STANDARD);
    g.play(act("a3")).unwrap();
    let before = g.clone();
    // Now 1,4,0,2/3,1,6,10, B to move; A has captured 9.
    for a in [
        "a1",
        "a3",
        "accept",
        "decline",
        "pass",
        "offer:a1",
        "offer:b1,b2,b3",
    ] {
        assert!(g.play(act(a)).is_err(), "{a}");
        assert_eq!(g, before, "{a}");
    }
    let p = pos(OFFER_POS);
    let copy = p;
    assert!(p.play(act("b1")).is_err());
    assert_eq!(p, copy);
}

#[test]
fn illegal_action_messages_name_the_rule() {
    let msg = |e: IllegalAction| e.to_string().to_lowercase();
    assert!(msg(IllegalAction::EmptyHole(Hole::A1)).contains("empty"));
    assert!(msg(IllegalAction::EmptyHole(Hole::A1)).contains("a1"));
    assert!(msg(IllegalAction::PassWithSeeds(Hole::A2)).contains("pass"));
    assert!(msg(IllegalAction::CannotPay {
        price: 12,
        captured: 11
    })
    .contains("6 seeds"));
    assert!(msg(IllegalAction::MustKeepHole).contains("keep"));
    assert!(msg(IllegalAction::NoOffer).contains("no offer"));
    assert!(msg(IllegalAction::OfferPending).contains("pending"));
    assert!(msg(IllegalAction::TradesDisabled).contains("no-trades"));
    assert!(msg(IllegalAction::OfferSize(4)).contains("1, 2 or 3"));
    assert!(msg(IllegalAction::NotControlled(Hole::B1, Player::A)).contains("not controlled"));
    assert!(msg(IllegalAction::GameOver).contains("ended"));
}

// ---------------------------------------------------------------------------
// Conservation, over many pseudo-random games.

struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

#[test]
fn seeds_are_always_conserved_and_games_end_legally() {
    for (seed, r) in [
        (1, "standard"),
        (2, "skip-origin"),
        (3, "cede-all"),
        (4, "no-trades"),
        (5, "skip-origin,cede-all,ply-cap=300"),
    ] {
        let r = rules(r);
        for game_no in 0..40 {
            let mut rng = Lcg(seed * 1000 + game_no);
            let mut g = Game::new(r);
            while !g.is_over() && g.actions().len() < 400 {
                let legal = g.legal_actions();
                assert!(!legal.is_empty(), "{}", g.position());
                assert_eq!(g.position().count_legal() as usize, legal.len());
                for &a in legal.iter() {
                    assert!(g.position().is_legal(a), "{} {a}", g.position());
                }
                let a = legal[rng.below(legal.len())];
                let before = *g.position();
                g.play(a).unwrap();
                let p = g.position();
                let total = p.seeds_on_board()
                    + p.captured(Player::A) as u32
                    + p.captured(Player::B) as u32;
                assert_eq!(total, 48, "{before} {a} -> {p}");
                // Re-reading the GPN gives the same position.
                assert_eq!(&Position::from_gpn(&p.to_string(), r.variant).unwrap(), p);
            }
            if let Some(o) = g.outcome() {
                assert_eq!(o.seeds[0] as u32 + o.seeds[1] as u32, 48);
                assert_eq!(g.position().seeds_on_board(), 0);
            }
        }
    }
}
