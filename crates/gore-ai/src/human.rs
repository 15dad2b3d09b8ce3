//! The weakest levels play the way people learning Goré play: they look at
//! the board, not down a search tree, and they miss what beginners miss.
//!
//! A [`Vision`] says what such a player sees of a sowing: where it lands
//! (only when the sowing is short enough to count), the capture in the
//! landing hole, and, as the player improves, the chain backward and the
//! chain forward. With `replies`, the player also looks at the opponent's
//! best answer, seen with the same eyes. Everything else about a position is
//! judged by the engine's static evaluation (seeds on one's own side count
//! at the end, empty holes cannot be sown), which people learn at once.
//!
//! Such players never offer holes (the negotiation is the last thing a
//! newcomer learns). They answer an offer by how the board looks after it,
//! leaning towards accepting (declining is frowned upon), and always accept
//! when they have nothing to sow.

use gore_core::{Action, Hole, Position};
use rand::Rng;

use crate::eval::{evaluate, terminal, Weights, SEED};

/// What a player who does not search sees of a sowing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vision {
    /// The longest sowing (in seeds) whose landing hole the player follows;
    /// a longer one lands where the player does not look, and whatever it
    /// captures comes as a surprise.
    pub reach: u8,
    /// Sees the chain running backward from the landing hole.
    pub back: bool,
    /// Sees the chain running forward from the landing hole.
    pub forward: bool,
    /// Looks at the opponent's best reply before choosing.
    pub replies: bool,
}

/// The seeds a player with `vision` expects the sowing from `hole` to
/// capture: the landing hole's capture and the chains the player sees.
/// The rules capture the landing hole, then the run backward, then the run
/// forward; a run the player does not see counts for nothing.
pub fn seen_capture(pos: &Position, hole: Hole, vision: &Vision) -> u8 {
    let Ok((_, effect)) = pos.play_effect(Action::Sow(hole)) else {
        return 0;
    };
    let Some(sowing) = effect.sowing else {
        return 0;
    };
    let Some(last) = sowing.last() else {
        return 0;
    };
    if sowing.seeds > vision.reach || !effect.captured.contains(last) {
        return 0;
    }
    // Seeds in a captured hole: counted from the sowing, since the
    // position after the action has them removed.
    let held = |h: Hole| -> u8 { sown_into(pos, &sowing, h) };
    let mut seen = held(last);
    let mut taken = gore_core::HoleSet::single(last);
    for (on, step) in [
        (vision.back, Hole::prev as fn(Hole) -> Hole),
        (vision.forward, Hole::next),
    ] {
        let mut at = step(last);
        while effect.captured.contains(at) && !taken.contains(at) {
            taken = taken.with(at);
            if on {
                seen += held(at);
            }
            at = step(at);
        }
    }
    seen
}

/// The seeds in `h` once the sowing is done, before any capture.
fn sown_into(pos: &Position, sowing: &gore_core::Sowing, h: Hole) -> u8 {
    let before = if h == sowing.origin { 0 } else { pos.seeds(h) };
    before + sowing.holes().filter(|&x| x == h).count() as u8
}

/// The value, for the player to move at `pos`, of sowing `hole` as a
/// player with `vision` judges it (score units): the static evaluation of
/// the position after it, with the captures the player does not see
/// taken back out.
fn judged(pos: &Position, hole: Hole, vision: &Vision, w: &Weights) -> i32 {
    let me = pos.to_move();
    let mut child = *pos;
    child.play_unchecked(Action::Sow(hole));
    let real = child.captured(me) as i32 - pos.captured(me) as i32;
    let seen = seen_capture(pos, hole, vision) as i32;
    let unseen = (real - seen).max(0) * SEED;
    if child.is_ended() {
        // The end of the game is on the board for all to see.
        let t = terminal(&child);
        return if child.to_move() == me { t } else { -t };
    }
    let mut v = evaluate(&child, w);
    if child.to_move() != me {
        v = -v;
    }
    v -= unseen;
    if vision.replies && child.to_move() != me {
        // The opponent's best reply, as this player sees it.
        let sows = child.sowable_holes();
        let mut worst: Option<i32> = None;
        for r in sows.iter() {
            let mut after = child;
            after.play_unchecked(Action::Sow(r));
            let them = me.opponent();
            let real_r = after.captured(them) as i32 - child.captured(them) as i32;
            let seen_r = seen_capture(&child, r, vision) as i32;
            let mut x = if after.is_ended() {
                let t = terminal(&after);
                if after.to_move() == me {
                    t
                } else {
                    -t
                }
            } else {
                let e = evaluate(&after, w);
                if after.to_move() == me {
                    e
                } else {
                    -e
                }
            };
            // A capture the player does not see coming is not feared.
            x += (real_r - seen_r).max(0) * SEED;
            worst = Some(worst.map_or(x, |y| y.min(x)));
        }
        if let Some(x) = worst {
            v = x;
        }
    }
    v
}

/// The answer to an offer of a player who plays by sight. With no seed to
/// sow, accepting is the only way back into the game: accept. Otherwise
/// the position after accepting against the position after declining,
/// both judged as they stand: decline only when declining looks better by
/// `glory` halves of a seed of the difference, a quarter of what
/// [`crate::Options::glory`] asks of the levels that search (there a seed
/// gained is two of the difference). A look at the board is a rough judge
/// of a trade: asked the searching levels' 2 seeds, a beginner took the
/// random mover's giveaways of holes, which a player left with one hole
/// repays with long chains, and scored 9% against it instead of 68%
/// (docs/STRENGTH.md).
fn answer(pos: &Position, w: &Weights, glory: u8) -> Action {
    let me = pos.to_move();
    // (While an offer is pending nothing is sowable: look at the holes.)
    if pos.controlled(me).iter().all(|h| pos.seeds(h) == 0) {
        return Action::Accept;
    }
    let judge = |a: Action| {
        let mut c = *pos;
        c.play_unchecked(a);
        let v = evaluate(&c, w);
        if c.to_move() == me {
            v
        } else {
            -v
        }
    };
    if judge(Action::Decline) - judge(Action::Accept) >= i32::from(glory) * SEED / 2 {
        Action::Decline
    } else {
        Action::Accept
    }
}

/// The action of a player who plays by sight: answer an offer by how the
/// board looks after each answer (declining only for a clear gain, see
/// `glory`), never offer, pass when that is all there is, otherwise the
/// sowing that looks best, with `noise` (score units) blurring close
/// choices and a random sowing with probability `slip`.
pub fn choose<R: Rng + ?Sized>(
    pos: &Position,
    vision: &Vision,
    noise: i32,
    slip: f64,
    glory: u8,
    w: &Weights,
    rng: &mut R,
) -> Option<Action> {
    if pos.is_ended() {
        return None;
    }
    if pos.pending_offer().is_some() {
        return Some(answer(pos, w, glory));
    }
    let sows: Vec<Hole> = pos.sowable_holes().iter().collect();
    if sows.is_empty() {
        // No seed to sow: pass (an offer would be legal too, but this
        // player does not trade of its own accord).
        return pos
            .legal_actions()
            .iter()
            .copied()
            .find(|a| *a == Action::Pass)
            .or_else(|| pos.legal_actions().first().copied());
    }
    if sows.len() > 1 && rng.gen_bool(slip) {
        return Some(Action::Sow(sows[rng.gen_range(0..sows.len())]));
    }
    let mut best: Option<(i32, Hole)> = None;
    for &h in &sows {
        let v = judged(pos, h, vision, w) + rng.gen_range(-noise..=noise);
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((v, h));
        }
    }
    best.map(|(_, h)| Action::Sow(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::Variant;

    const ALL: Vision = Vision {
        reach: 255,
        back: true,
        forward: true,
        replies: false,
    };
    const LANDING: Vision = Vision {
        reach: 255,
        back: false,
        forward: false,
        replies: false,
    };

    fn pos(gpn: &str) -> Position {
        Position::from_gpn(gpn, Variant::STANDARD).unwrap()
    }

    #[test]
    fn the_worked_examples_are_seen_as_far_as_the_vision_goes() {
        // RULES.md's first example: b2 sows b3, b4, a1, a2 and lands on a2
        // (3 -> 4); backward a1 = 2 and b4 = 2 (b4 comes before a1 on the
        // cycle), b3 = 3 stops; forward a3 = 1 stops at once: 8 seeds, all
        // of them the landing hole and the chain backward.
        let p = pos("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -");
        assert_eq!(seen_capture(&p, Hole::B2, &ALL), 8);
        assert_eq!(seen_capture(&p, Hole::B2, &LANDING), 4);
        let back_only = Vision {
            back: true,
            ..LANDING
        };
        assert_eq!(seen_capture(&p, Hole::B2, &back_only), 8);
        let forward_only = Vision {
            forward: true,
            ..LANDING
        };
        assert_eq!(seen_capture(&p, Hole::B2, &forward_only), 4);
        // Too long a sowing to follow (4 seeds > reach 3): nothing seen.
        let short = Vision { reach: 3, ..ALL };
        assert_eq!(seen_capture(&p, Hole::B2, &short), 0);
        // The second example: b2 (6 seeds) lands on a4 = 2; forward b1 = 2,
        // backward a3 = 2, a2 = 2; a1 = 1 stops: 8 seeds, 2 of them landing.
        let p = pos("0,1,1,1/2,6,3,0 AAAA/BBBB 17-17 B -");
        assert_eq!(seen_capture(&p, Hole::B2, &ALL), 8);
        assert_eq!(seen_capture(&p, Hole::B2, &LANDING), 2);
        assert_eq!(seen_capture(&p, Hole::B2, &back_only), 6);
        assert_eq!(seen_capture(&p, Hole::B2, &forward_only), 4);
    }

    #[test]
    fn a_sowing_that_captures_nothing_is_seen_as_nothing() {
        let start = Position::new(Variant::STANDARD);
        for h in start.sowable_holes().iter() {
            assert_eq!(seen_capture(&start, h, &ALL), 0);
        }
    }

    #[test]
    fn a_beginner_takes_the_capture_it_sees() {
        // a4 (1 seed) lands on b1 (1 -> 2): a capture of 2 in plain sight;
        // every other sowing captures nothing.
        let p = pos("5,5,5,1/1,5,5,5 AAAA/BBBB 8-8 A -");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        use rand::SeedableRng;
        for _ in 0..20 {
            let a = choose(&p, &LANDING, 30, 0.0, 3, &Weights::default(), &mut rng);
            assert_eq!(a, Some(Action::Sow(Hole::A4)));
        }
    }

    #[test]
    fn offers_are_answered_by_how_the_board_looks() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let w = Weights::default();
        let mut answer_of = |gpn: &str| choose(&pos(gpn), &ALL, 30, 0.5, 3, &w, &mut rng);
        // Nothing to sow: accepting is the only way back into the game.
        assert_eq!(
            answer_of("3,3,3,3/0,0,0,0 AAAA/BBBB 12-24 B a1"),
            Some(Action::Accept)
        );
        // a4 holds 12: accepting (B pays 6) leaves B captured 6-12 (-600),
        // board 30-0 (+750 at 25 a seed), sowable holes 5-0 (+125): +275;
        // declining leaves 0, 12-12 and 4-1: +75. Accept.
        assert_eq!(
            answer_of("0,0,0,12/3,3,3,3 AAAA/BBBB 12-12 B a4"),
            Some(Action::Accept)
        );
        // RULES.md's offer of a2 and a4 (4 seeds): accepting leaves B
        // captured 0-9 (-900), board 32-7 (+625), sowable 5-1 (+100): -175;
        // declining leaves 12-9 (+300), 16-11 (+125), 3-3: +425. 600 apart:
        // more than the 150 a glory of 3 asks of a look at the board.
        assert_eq!(
            answer_of("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4"),
            Some(Action::Decline)
        );
    }
}
