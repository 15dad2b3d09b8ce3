//! # gore-ai — a Goré player from beginner to full strength
//!
//! Negamax alpha-beta with principal-variation search, iterative deepening,
//! aspiration windows, a transposition table keyed by the position's Zobrist
//! hash, killer/history move ordering and a capture quiescence search.
//! **Trades are moves like any other**: an offer is an action of the
//! offerer, `accept`/`decline` a decision of the receiver, both searched.
//! Repetition and the ply cap end lines inside the search exactly as the
//! [`Game`] would end them.
//!
//! No I/O: the caller passes limits (depth, nodes, time) and a stop flag,
//! and receives progress through a callback.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use gore_ai::{Engine, Limits, Options};
//! use gore_core::{Game, Rules};
//!
//! let game = Game::new(Rules::STANDARD);
//! let mut engine = Engine::new(Options::default());
//! let stop = AtomicBool::new(false);
//! let result = engine
//!     .search(&game, &Limits::depth(6), &stop, &mut |_info| {})
//!     .unwrap();
//! assert!(game.position().is_legal(result.best));
//! ```

pub mod baselines;
pub mod clock;
mod eval;
pub mod human;
mod level;
mod search;
mod tt;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use gore_core::{Action, Game, Position};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use eval::{evaluate, terminal, Oracle, Weights, SEED};
use gore_core::Player;
pub use level::{Level, LevelError, LevelProfile, DEFAULT_MOVETIME, MAX_LEVEL, TOP_FLOOR};
use search::{external, internal, pv_from_table, Searcher, INF};
use tt::Table;

/// What an offer must gain over the best other action (score units) for
/// a level that searches to make it ([`Engine::choose`]).
pub const OFFER_MARGIN: i32 = SEED;

/// What the engine may spend on one decision. Unset limits are unlimited;
/// with none at all the search stops at depth [`Limits::MAX_DEPTH`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Wall-clock time.
    pub time: Option<Duration>,
    /// Iterations up to this depth always complete whatever the nodes
    /// (only the time and the stop flag end them): the top level's floor,
    /// so that on a node budget it never searches less deeply than the
    /// level below it ([`Level::cap`] adds it when this is `None`;
    /// `Some(0)` asks for no floor). The time stays a hard bound: with
    /// too little of it the floor gives way.
    pub min_depth: Option<u32>,
}

impl Limits {
    /// The deepest iteration ever started.
    pub const MAX_DEPTH: u32 = 100;

    /// Search to this depth.
    pub fn depth(d: u32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    /// Search for this long.
    pub fn time(t: Duration) -> Limits {
        Limits {
            time: Some(t),
            ..Limits::default()
        }
    }

    /// Search this many nodes.
    pub fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }

    /// A `k`-th of the nodes and the time (at least one node and one
    /// microsecond), the depths unchanged: the budget of one of `k`
    /// searches that together may spend these limits.
    pub fn share(&self, k: u32) -> Limits {
        let k = k.max(1);
        Limits {
            nodes: self.nodes.map(|x| (x / k as u64).max(1)),
            time: self.time.map(|t| (t / k).max(Duration::from_micros(1))),
            ..*self
        }
    }
}

/// Engine settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// 1 (a beginner can win) to [`MAX_LEVEL`] (full strength).
    pub level: Level,
    /// Accept every offer (refusing is an offence; a win after refusing is
    /// "without glory").
    pub honourable: bool,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Seed of the lower levels' deliberate mistakes: same seed, same game.
    pub seed: u64,
    /// Evaluation weights.
    pub weights: Weights,
    /// Glory, in seeds: the engine declines an offer only when declining
    /// gains it at least this many seeds over accepting (by the two
    /// searched values at the root; a seed gained is 2 of the difference),
    /// so it does not throw its glory away for less. 0
    /// declines for any gain (the choice of pure strength, for analysis);
    /// [`Options::honourable`] always accepts.
    pub glory: u8,
}

/// The glory of the levels players meet ([`Options::default`]): see
/// docs/STRENGTH.md, "Glory".
pub const DEFAULT_GLORY: u8 = 3;

impl Default for Options {
    fn default() -> Self {
        Options {
            level: Level::MAX,
            honourable: false,
            hash_mb: 16,
            seed: 0,
            weights: Weights::default(),
            glory: DEFAULT_GLORY,
        }
    }
}

/// A report of a finished iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    /// The iteration's depth in plies.
    pub depth: u32,
    /// Expected final seed difference for the player to move, in units of
    /// 1/100 seed ([`SEED`]).
    pub score: i32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time spent so far.
    pub elapsed: Duration,
    /// The principal variation.
    pub pv: Vec<Action>,
}

impl Info {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            (self.nodes as f64 / s) as u64
        } else {
            0
        }
    }
}

/// The answer of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// The action to play.
    pub best: Action,
    /// Expected final seed difference for the player to move, 1/100 seed.
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
    /// The principal variation, starting with `best`.
    pub pv: Vec<Action>,
    /// The seeds in the game (48, or 8N under `seeds=N`): what the two
    /// expected totals add up to.
    pub total_seeds: u8,
}

impl SearchResult {
    /// The expected final seeds of the player to move and of his opponent,
    /// from the score (they add up to the game's seeds, 48 in the standard
    /// game).
    pub fn expected_seeds(&self) -> (f64, f64) {
        let d = self.score as f64 / SEED as f64;
        let total = self.total_seeds as f64;
        ((total + d) / 2.0, (total - d) / 2.0)
    }
}

/// A Goré engine: options and a transposition table kept between searches.
pub struct Engine {
    options: Options,
    oracle: Option<std::sync::Arc<dyn Oracle>>,
    tt: Table,
    /// Nodes spent by the last decision ([`Engine::last_nodes`]).
    last_nodes: u64,
}

impl Engine {
    /// A new engine.
    pub fn new(options: Options) -> Engine {
        Engine {
            tt: Table::new(options.hash_mb),
            options,
            oracle: None,
            last_nodes: 0,
        }
    }

    /// Gives the search an [`Oracle`] to ask at its leaves (or takes it
    /// away with `None`); the table is cleared, since its scores came
    /// from the other evaluation.
    pub fn set_oracle(&mut self, oracle: Option<std::sync::Arc<dyn Oracle>>) {
        self.oracle = oracle;
        self.tt.clear();
    }

    /// The current options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Changes options; a new hash size reallocates the table.
    pub fn set_options(&mut self, options: Options) {
        if options.hash_mb != self.options.hash_mb {
            self.tt = Table::new(options.hash_mb);
        }
        self.options = options;
    }

    /// The nodes the last [`Engine::search`] or [`Engine::choose`] spent:
    /// positions searched, and at the lowest levels positions evaluated.
    /// 0 when the answer needed no search (a single legal action, an
    /// honourable answer, a game over).
    pub fn last_nodes(&self) -> u64 {
        self.last_nodes
    }

    /// Forgets what earlier searches learnt.
    pub fn new_game(&mut self) {
        self.tt.clear();
    }

    fn searcher<'a>(
        &'a mut self,
        game: &Game,
        stop: &'a AtomicBool,
        honourable: Option<Player>,
    ) -> Searcher<'a> {
        let hashes: Vec<u64> = game.history().iter().map(Position::hash).collect();
        let mut s = Searcher::new(&mut self.tt, stop, &hashes);
        s.weights = self.options.weights;
        s.oracle = self.oracle.as_deref();
        s.honourable = honourable;
        s.cap_left = game
            .rules()
            .ply_cap
            .map(|cap| cap.saturating_sub(game.actions().len() as u32));
        s
    }

    /// Full-strength search of the game's current position within `limits`
    /// (the level plays no part here; see [`Engine::choose`]). Calls
    /// `on_info` after each completed iteration. `None` when the game is
    /// over.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&Info),
    ) -> Option<SearchResult> {
        let side = self.options.honourable.then(|| game.position().to_move());
        let glory = self.options.glory;
        self.search_as(game, limits, stop, on_info, side, glory)
    }

    /// [`Engine::search`] where `honourable` is the side (if any) that
    /// accepts every offer: the engine's own side, also when the search
    /// starts at a position where the opponent is to move; `glory` (seeds)
    /// is added to accepting an offer pending at the root.
    fn search_as(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&Info),
        honourable_side: Option<Player>,
        glory: u8,
    ) -> Option<SearchResult> {
        let root = *game.position();
        self.last_nodes = 0;
        if game.is_over() {
            return None;
        }
        let legal = root.legal_actions();
        let first = *legal.first()?;
        let honourable = honourable_side == Some(root.to_move());
        let start = Instant::now();
        let max_depth = limits
            .depth
            .unwrap_or(Limits::MAX_DEPTH)
            .clamp(1, Limits::MAX_DEPTH);
        let mut s = self.searcher(game, stop, honourable_side);
        // Glory weighs on the engine's own answer at the root only (the
        // reported score stays the seed difference).
        if root.pending_offer().is_some() && glory > 0 {
            s.accept_bonus = internal(2 * glory as i32 * SEED) - search::SCALE / 2;
        }
        let deadline = search::deadline(limits.time, start);
        let floor = limits.min_depth.unwrap_or(0);
        let root_hash = root.hash();
        let mut result = SearchResult {
            best: if honourable && root.pending_offer().is_some() {
                Action::Accept
            } else {
                first
            },
            score: 0,
            total_seeds: root.variant().total_seeds(),
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: vec![first],
        };
        // Only one choice: no need to search it.
        if legal.len() == 1 || (honourable && root.pending_offer().is_some()) {
            result.pv = vec![result.best];
            result.score = crate::evaluate(&root, &s.weights);
            return Some(result);
        }
        // Internal scores (`search::SCALE` times finer, with the distance
        // tie-break); reported ones are rounded back.
        let mut prev = 0;
        for depth in 1..=max_depth {
            // Below the floor the nodes do not end an iteration; the time
            // does (a budget is a budget: on a loaded machine the floor
            // ran a 1 s search to 2 s), except for the first ply, which
            // costs microseconds and gives a searched answer.
            (s.deadline, s.node_limit) = match depth {
                1 => (None, if floor >= 1 { None } else { limits.nodes }),
                d if d <= floor => (deadline, None),
                _ => (deadline, limits.nodes),
            };
            let (mut lo, mut hi) = if depth >= 4 {
                (prev - internal(60), prev + internal(60))
            } else {
                (-INF, INF)
            };
            let score = loop {
                let v = s.negamax(&root, root_hash, depth as i32, 0, lo, hi);
                if s.aborted {
                    break v;
                }
                if v <= lo && lo > -INF {
                    lo = -INF;
                } else if v >= hi && hi < INF {
                    hi = INF;
                } else {
                    break v;
                }
            };
            if s.aborted {
                break;
            }
            prev = score;
            let mut pv = pv_from_table(s.tt, &root, depth as usize, s.cap_left);
            let mut score = score;
            if s.accept_bonus != 0 {
                // The root is not in the table: its best action is kept apart.
                let best = s.root_best.unwrap_or(result.best);
                if pv.first() != Some(&best) {
                    pv = vec![best];
                }
                if best == Action::Accept {
                    score -= s.accept_bonus;
                }
            }
            let score = external(score);
            if let Some(&best) = pv.first() {
                result.best = best;
            }
            result.score = score;
            result.depth = depth;
            result.pv = if pv.is_empty() { vec![result.best] } else { pv };
            let info = Info {
                depth,
                score,
                nodes: s.nodes,
                elapsed: start.elapsed(),
                pv: result.pv.clone(),
            };
            on_info(&info);
            // A decided game needs no deeper search.
            if score.abs() >= root.variant().total_seeds() as i32 * SEED - 1 && depth > 2 {
                break;
            }
        }
        result.nodes = s.nodes;
        result.elapsed = start.elapsed();
        self.last_nodes = result.nodes;
        Some(result)
    }

    /// The best action that is not an offer, if one is worth at least
    /// `floor` (score units) by searches of each action's position one ply
    /// shallower than `limits`; `None` otherwise. The levels that search
    /// offer holes only when the offer gains [`OFFER_MARGIN`] over the best
    /// sowing or pass: a person does not give land away as a waiting move.
    fn best_without_offer(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        floor: i32,
    ) -> Option<Action> {
        let others: Vec<Action> = game
            .position()
            .legal_actions()
            .iter()
            .copied()
            .filter(|a| !matches!(a, Action::Offer(_)))
            .collect();
        let n = others.len().max(1) as u32;
        // The budget is shared out among the actions.
        let sub = limits.share(n);
        let mut best: Option<(i32, Action)> = None;
        let mut spent = 0;
        for a in others {
            let Some(v) = self.value_after(game, &[a], &sub, stop, &mut spent) else {
                continue;
            };
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, a));
            }
        }
        self.last_nodes = spent;
        best.filter(|&(v, _)| v >= floor).map(|(_, a)| a)
    }

    /// The value for the player to move in `game` of playing `actions`
    /// (score units): the end's seed difference, or a search of the
    /// position reached, `actions.len()` plies shallower than `limits`.
    /// Adds the nodes spent to `spent`; `None` if an action is illegal.
    fn value_after(
        &mut self,
        game: &Game,
        actions: &[Action],
        limits: &Limits,
        stop: &AtomicBool,
        spent: &mut u64,
    ) -> Option<i32> {
        let me = game.position().to_move();
        let mut g = game.clone();
        for &a in actions {
            g.play(a).ok()?;
            if g.is_over() {
                break;
            }
        }
        if let Some(o) = g.outcome() {
            return Some(
                (o.seeds[me.index()] as i32 - o.seeds[me.opponent().index()] as i32) * SEED,
            );
        }
        let depth = limits.depth.unwrap_or(Limits::MAX_DEPTH);
        let plies = actions.len() as u32;
        let sub = Limits {
            depth: Some(depth.saturating_sub(plies).max(1)),
            min_depth: limits.min_depth.map(|d| d.saturating_sub(plies)),
            ..*limits
        };
        let side = self.options.honourable.then_some(me);
        let r = self.search_as(&g, &sub, stop, &mut |_| {}, side, 0)?;
        *spent += r.nodes;
        Some(if g.position().to_move() == me {
            r.score
        } else {
            -r.score
        })
    }

    /// The action the engine plays at its level: full search at
    /// [`MAX_LEVEL`], shallower and noisier below, deterministic for a
    /// given seed and position. Every level offers holes only in good
    /// faith and for a gain: an offer its maker would rather see declined
    /// is a waiting move people do not make, and a glory-minded opponent
    /// accepts it ([`Engine::search`] still finds such offers, for
    /// analysis). `None` when the game is over.
    pub fn choose(&mut self, game: &Game, limits: &Limits, stop: &AtomicBool) -> Option<Action> {
        let root = *game.position();
        self.last_nodes = 0;
        if game.is_over() {
            return None;
        }
        let level = self.options.level;
        let profile = level.profile();
        let limits = level.cap(*limits);
        if profile.noise == 0 && profile.blunder == 0.0 {
            // The time is a hard budget for the whole decision: the search
            // takes three quarters of it, so that the checks of an offer
            // below fit in the rest.
            let start = Instant::now();
            let first = Limits {
                time: limits.time.map(|t| t * 3 / 4),
                ..limits
            };
            let r = self.search(game, &first, stop, &mut |_| {})?;
            if !matches!(r.best, Action::Offer(_)) {
                return Some(r.best);
            }
            // An offer in good faith is one its maker would rather see
            // accepted; one that pays only when declined is a waiting
            // move people do not make.
            // The checks share one more budget of nodes, or the time left:
            // a quarter for each answer, half for the other actions.
            let mut nodes = self.last_nodes;
            let left = Limits {
                time: limits.time.map(|t| t.saturating_sub(start.elapsed())),
                ..limits
            };
            let answer = limits.share(4);
            let answer = Limits {
                time: left.share(4).time,
                ..answer
            };
            let acc = self.value_after(game, &[r.best, Action::Accept], &answer, stop, &mut nodes);
            let dec = self.value_after(game, &[r.best, Action::Decline], &answer, stop, &mut nodes);
            let floor = match (acc, dec) {
                (Some(a), Some(d)) if a >= d => r.score - OFFER_MARGIN,
                _ => i32::MIN,
            };
            let others = Limits {
                time: left.share(2).time,
                ..limits.share(2)
            };
            let other = self.best_without_offer(game, &others, stop, floor);
            self.last_nodes += nodes;
            return Some(other.unwrap_or(r.best));
        }
        if self.options.honourable && root.pending_offer().is_some() {
            return Some(Action::Accept);
        }
        let legal = root.legal_actions();
        // Only one choice: nothing to weigh, at any level.
        if legal.len() == 1 {
            return Some(legal[0]);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(
            self.options.seed ^ root.hash() ^ (game.actions().len() as u64).wrapping_mul(0x9e37),
        );
        if let Some(vision) = profile.vision {
            self.last_nodes = legal.len() as u64;
            return human::choose(
                &root,
                &vision,
                profile.noise,
                profile.blunder,
                self.options.glory,
                &self.options.weights,
                &mut rng,
            );
        }
        if rng.gen_bool(profile.blunder) {
            // A beginner's slip: mostly a sowing, as people rarely trade at random.
            let sows: Vec<Action> = legal
                .iter()
                .copied()
                .filter(|a| matches!(a, Action::Sow(_)))
                .collect();
            let pool: &[Action] = if sows.is_empty() { &legal } else { &sows };
            return Some(pool[rng.gen_range(0..pool.len())]);
        }
        // Score each root action with a shallower search, then add noise.
        let depth = limits.depth.unwrap_or(1).max(1) - 1;
        let mut best = (i32::MIN, legal[0]);
        let mut best_other: Option<(i32, Action)> = None;
        let mut nodes = 0;
        for &a in legal.iter() {
            let mut g = game.clone();
            if g.play(a).is_err() {
                continue;
            }
            let me = root.to_move();
            let v = match g.outcome() {
                Some(o) => {
                    (o.seeds[me.index()] as i32 - o.seeds[me.opponent().index()] as i32) * SEED
                }
                None => {
                    let child = *g.position();
                    let sub = if depth == 0 {
                        nodes += 1;
                        crate::evaluate(&child, &self.options.weights)
                    } else {
                        let side = self.options.honourable.then_some(me);
                        let r =
                            self.search_as(&g, &Limits::depth(depth), stop, &mut |_| {}, side, 0);
                        nodes += r.as_ref().map_or(0, |r| r.nodes);
                        r.map_or(0, |r| r.score)
                    };
                    if child.to_move() == me {
                        sub
                    } else {
                        -sub
                    }
                }
            };
            // Glory: declining must gain that many seeds (twice as much
            // difference) over accepting.
            let v = if a == Action::Accept {
                v + 2 * self.options.glory as i32 * SEED
            } else {
                v
            };
            let noisy = v + rng.gen_range(-profile.noise..=profile.noise);
            if noisy > best.0 {
                best = (noisy, a);
            }
            if !matches!(a, Action::Offer(_)) && best_other.is_none_or(|(b, _)| noisy > b) {
                best_other = Some((noisy, a));
            }
        }
        // Offers in good faith and for a gain only, as at the levels that
        // search without noise.
        if let (Action::Offer(_), Some((other, alt))) = (best.1, best_other) {
            let lim = Limits::depth(depth + 1);
            let acc = self.value_after(game, &[best.1, Action::Accept], &lim, stop, &mut nodes);
            let dec = self.value_after(game, &[best.1, Action::Decline], &lim, stop, &mut nodes);
            let good_faith = matches!((acc, dec), (Some(a), Some(d)) if a >= d);
            if !good_faith || best.0 - other < OFFER_MARGIN {
                best.1 = alt;
            }
        }
        self.last_nodes = nodes;
        Some(best.1)
    }
}
