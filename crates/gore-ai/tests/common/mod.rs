//! Helpers of the AI tests: random games, and a plain minimax over
//! `gore_core::Game` that proves the value of small positions.
//!
//! The minimax is the specification the engine is held to: it plays every
//! legal action with `Game::play` (so board ends, threefold repetition and
//! the ply cap are exactly the game's own), has no pruning, no table and no
//! evaluation, and scores a finished game by its final seed difference.

#![allow(dead_code)]

use gore_core::{Action, Game, Player, Position, Rules};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The final seed difference `player` - opponent of a finished game.
pub fn final_diff(game: &Game, player: Player) -> i32 {
    let o = game.outcome().expect("finished game");
    o.seeds[player.index()] as i32 - o.seeds[player.opponent().index()] as i32
}

/// The counters of a proof.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tree {
    /// Positions visited.
    pub nodes: u64,
    /// The longest line, in plies.
    pub height: u32,
}

/// The exact value of `game` for `player` (his final seeds minus his
/// opponent's under perfect play of both sides), by plain minimax to the
/// end of the game; `None` if the tree has more than `limit` nodes.
pub fn try_exact_for(game: &Game, player: Player, limit: u64, tree: &mut Tree) -> Option<i32> {
    fn go(game: &Game, player: Player, limit: u64, tree: &mut Tree, ply: u32) -> Option<i32> {
        tree.nodes += 1;
        tree.height = tree.height.max(ply);
        if tree.nodes > limit {
            return None;
        }
        if game.is_over() {
            return Some(final_diff(game, player));
        }
        let maximise = game.position().to_move() == player;
        let mut best = if maximise { i32::MIN } else { i32::MAX };
        for &a in game.legal_actions().iter() {
            let mut child = game.clone();
            child.play(a).expect("a legal action plays");
            let v = go(&child, player, limit, tree, ply + 1)?;
            best = if maximise { best.max(v) } else { best.min(v) };
        }
        Some(best)
    }
    go(game, player, limit, tree, 0)
}

/// The exact value of every legal action of `game`, for the player to
/// move; `None` if the proof needs more than `limit` nodes in all.
pub fn try_action_values(game: &Game, limit: u64, tree: &mut Tree) -> Option<Vec<(Action, i32)>> {
    let me = game.position().to_move();
    let mut out = Vec::new();
    for &a in game.legal_actions().iter() {
        let mut child = game.clone();
        child.play(a).expect("a legal action plays");
        let mut sub = Tree {
            nodes: tree.nodes,
            height: 0,
        };
        let v = try_exact_for(&child, me, limit, &mut sub)?;
        tree.nodes = sub.nodes;
        tree.height = tree.height.max(sub.height + 1);
        out.push((a, v));
    }
    Some(out)
}

/// Like [`try_action_values`], for positions chosen to be small: panics
/// if the proof needs more than `limit` nodes (the test would be slow).
pub fn action_values(game: &Game, limit: u64, tree: &mut Tree) -> Vec<(Action, i32)> {
    try_action_values(game, limit, tree).unwrap_or_else(|| {
        panic!(
            "the proof of {} [{}] needs more than {limit} nodes",
            game.position(),
            game.rules()
        )
    })
}

/// The exact value of `game` for `player`; panics past `limit` nodes.
pub fn exact_for(game: &Game, player: Player, limit: u64) -> i32 {
    try_exact_for(game, player, limit, &mut Tree::default()).unwrap_or_else(|| {
        panic!(
            "the proof of {} needs more than {limit} nodes",
            game.position()
        )
    })
}

/// The best of `values`.
pub fn best_value(values: &[(Action, i32)]) -> i32 {
    values.iter().map(|&(_, v)| v).max().expect("some action")
}

/// The proven value of `action` among `values`.
pub fn value_of(values: &[(Action, i32)], action: Action) -> i32 {
    values
        .iter()
        .find(|&&(a, _)| a == action)
        .unwrap_or_else(|| panic!("{action} is not a legal action"))
        .1
}

/// `game` after `action` (which must be legal).
pub fn after(game: &Game, action: Action) -> Game {
    let mut g = game.clone();
    g.play(action).expect("legal action");
    g
}

/// A game from a GPN and a rule set.
pub fn game_from(gpn: &str, rules: &str) -> Game {
    let rules: Rules = rules.parse().expect("rules");
    let pos = Position::from_gpn(gpn, rules.variant).unwrap_or_else(|e| panic!("{gpn}: {e}"));
    Game::from_position(pos, rules.ply_cap)
}

/// `game` with its rules' ply cap set `left` actions after its current
/// position (the same actions replayed from the same start).
pub fn capped(game: &Game, left: u32) -> Game {
    let cap = game.actions().len() as u32 + left;
    let mut g = Game::from_position(*game.start(), Some(cap));
    for &a in game.actions() {
        g.play(a).expect("replay");
    }
    assert!(!g.is_over() || game.is_over());
    g
}

/// The rule sets the sweeps cover.
pub fn rule_sets() -> Vec<Rules> {
    [
        "standard",
        "skip-origin",
        "cede-all",
        "no-trades",
        "skip-origin,cede-all",
        "ply-cap=30",
        "cede-all,ply-cap=12",
    ]
    .iter()
    .map(|s| s.parse().expect("rules"))
    .collect()
}

/// A random action, biased towards trades so that offers, accepted trades
/// (changed controllers) and declines are common.
pub fn trading_action(pos: &Position, rng: &mut ChaCha8Rng) -> Action {
    let legal = pos.legal_actions();
    if pos.pending_offer().is_some() {
        return if rng.gen_bool(0.6) {
            Action::Accept
        } else {
            Action::Decline
        };
    }
    let offers: Vec<Action> = legal
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Offer(_)))
        .collect();
    if !offers.is_empty() && rng.gen_bool(0.25) {
        return offers[rng.gen_range(0..offers.len())];
    }
    let sows: Vec<Action> = legal
        .iter()
        .copied()
        .filter(|a| !matches!(a, Action::Offer(_)))
        .collect();
    sows[rng.gen_range(0..sows.len())]
}

/// A random game under `rules` stopped after at most `plies` actions (or
/// at its end).
pub fn random_game(rng: &mut ChaCha8Rng, rules: Rules, plies: usize) -> Game {
    let mut g = Game::new(rules);
    for _ in 0..plies {
        if g.is_over() {
            break;
        }
        let a = trading_action(g.position(), rng);
        g.play(a).expect("legal");
    }
    g
}
