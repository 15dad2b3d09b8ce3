//! Baseline opponents for matches and tests: a random mover and a 1-ply
//! greedy capturer. Both are deterministic given their random generator.

use gore_core::{Action, Position};
use rand::Rng;

/// A uniformly random legal action (`None` when the game has ended).
pub fn random_action<R: Rng + ?Sized>(pos: &Position, rng: &mut R) -> Option<Action> {
    let legal = pos.legal_actions();
    if legal.is_empty() {
        None
    } else {
        Some(legal[rng.gen_range(0..legal.len())])
    }
}

/// The 1-ply greedy capturer: the sowing that captures the most seeds now
/// (ties broken at random); it never offers, declines every offer (taking
/// holes costs captured seeds), and passes only when it must.
pub fn greedy_action<R: Rng + ?Sized>(pos: &Position, rng: &mut R) -> Option<Action> {
    if pos.is_ended() {
        return None;
    }
    if pos.pending_offer().is_some() {
        return Some(Action::Decline);
    }
    let me = pos.to_move();
    let mut best: Vec<Action> = Vec::new();
    let mut best_gain = -1;
    for h in pos.sowable_holes().iter() {
        let mut c = *pos;
        c.play_unchecked(Action::Sow(h));
        let gain = if c.is_ended() {
            c.sweep_totals()[me.index()] as i32 - pos.captured(me) as i32
        } else {
            c.captured(me) as i32 - pos.captured(me) as i32
        };
        if gain > best_gain {
            best_gain = gain;
            best.clear();
        }
        if gain == best_gain {
            best.push(Action::Sow(h));
        }
    }
    if best.is_empty() {
        return Some(Action::Pass);
    }
    Some(best[rng.gen_range(0..best.len())])
}
