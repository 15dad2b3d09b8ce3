//! Puzzles: positions from engine self-play where one action is clearly
//! best, proved by searching every legal action.
//!
//! A [`Puzzle`] is a position (GPN under a rule set), its answer (one
//! action), the margin K it is proved by (the answer ends with at least K
//! more expected final seeds for the player to move than any other legal
//! action), the depth of that proof, its [`Theme`]s (read from what the
//! answer does) and a difficulty rating on the players' puzzle-rating
//! scale. [`verify`] proves a puzzle again; [`Generator`] finds new ones;
//! [`parse_file`] and [`Puzzle`]'s `Display` are the line format of
//! docs/NOTATION.md ("Puzzle files").
//!
//! **The proof.** Each legal action is played and the position reached is
//! searched by the full-strength engine to depth D − 1 (a fresh table for
//! each, so a proof repeats exactly), which values every action at depth D
//! from the puzzle's position. The expected final seeds of the player to
//! move are (total + difference) / 2, so "K seeds more" is a difference
//! larger by 2K. A margin is a depth-D statement, not a solved value: a
//! deeper search could still disagree.

use core::fmt;
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;

use gore_ai::{Engine, Level, Limits, Options, SEED};
use gore_core::{Action, Game, Player, Position, Variant};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The margin of the shipped puzzles, in seeds: the answer ends with at
/// least 2 more of the player's final seeds than any other action (a
/// difference of 4 seeds between the two players' totals).
pub const DEFAULT_MARGIN: u8 = 2;

/// The depth of the shipped puzzles' proofs (plies, the answer included).
pub const DEFAULT_DEPTH: u32 = 12;

/// The rating a new player starts at, and the middle of the puzzles' scale.
pub const START_RATING: i32 = 1500;

/// The hash table of a proof's searches (MiB): small, since the searches
/// are shallow, and fixed, since a proof must repeat exactly.
const PROOF_HASH_MB: usize = 4;

/// What the answer of a puzzle does: read from its effect and position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Theme {
    /// The answer captures.
    Capture,
    /// The answer captures two holes or more in a chain.
    Chain,
    /// The chain runs into the mover's own holes.
    OwnHoles,
    /// The answer takes every seed left on the board.
    WholeBoard,
    /// The answer leaves every hole with at most 2 seeds: the game ends
    /// and each player sweeps the holes he controls.
    Sweep,
    /// The answer is a sowing that captures nothing and ends nothing.
    Quiet,
    /// The answer offers holes.
    Offer,
    /// The answer accepts the pending offer.
    Accept,
    /// The answer declines the pending offer.
    Decline,
    /// The answer is a pass.
    Pass,
}

impl Theme {
    /// Every theme, in the order the file writes them.
    pub const ALL: [Theme; 10] = [
        Theme::Capture,
        Theme::Chain,
        Theme::OwnHoles,
        Theme::WholeBoard,
        Theme::Sweep,
        Theme::Quiet,
        Theme::Offer,
        Theme::Accept,
        Theme::Decline,
        Theme::Pass,
    ];

    /// The theme's name in files, the API and i18n keys.
    pub const fn as_str(self) -> &'static str {
        match self {
            Theme::Capture => "capture",
            Theme::Chain => "chain",
            Theme::OwnHoles => "own-holes",
            Theme::WholeBoard => "whole-board",
            Theme::Sweep => "sweep",
            Theme::Quiet => "quiet",
            Theme::Offer => "offer",
            Theme::Accept => "accept",
            Theme::Decline => "decline",
            Theme::Pass => "pass",
        }
    }

    /// The theme of this name.
    pub fn from_name(s: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl fmt::Display for Theme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The themes of playing `answer` in `pos` (empty if it is illegal).
pub fn themes_of(pos: &Position, answer: Action) -> Vec<Theme> {
    let mut out = Vec::new();
    let Ok((next, effect)) = pos.play_effect(answer) else {
        return out;
    };
    match answer {
        Action::Offer(_) => out.push(Theme::Offer),
        Action::Accept => out.push(Theme::Accept),
        Action::Decline => out.push(Theme::Decline),
        Action::Pass => out.push(Theme::Pass),
        Action::Sow(_) => {
            let me = pos.to_move();
            if !effect.captured.is_empty() {
                out.push(Theme::Capture);
                if effect.captured.len() >= 2 {
                    out.push(Theme::Chain);
                }
                if effect.captured.iter().any(|h| pos.controller(h) == me) {
                    out.push(Theme::OwnHoles);
                }
                if next.seeds_on_board() == 0 {
                    out.push(Theme::WholeBoard);
                }
            }
            if next.is_ended() && next.seeds_on_board() > 0 {
                out.push(Theme::Sweep);
            }
            if out.is_empty() {
                out.push(Theme::Quiet);
            }
        }
    }
    out
}

/// How a puzzle's answer was proved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Proof {
    /// Every legal action searched to this depth (plies, the action
    /// included).
    Search {
        /// The depth.
        depth: u32,
    },
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Proof::Search { depth } => write!(f, "depth={depth}"),
        }
    }
}

/// One puzzle.
#[derive(Debug, Clone, PartialEq)]
pub struct Puzzle {
    /// A short stable name: the position's hash, in hex.
    pub id: String,
    /// The position; its variant is the rule set.
    pub position: Position,
    /// The one best action.
    pub answer: Action,
    /// K, in seeds: the answer ends with at least K more expected final
    /// seeds for the player to move than any other legal action.
    pub margin: u8,
    /// How that was proved.
    pub proof: Proof,
    /// What the answer does.
    pub themes: Vec<Theme>,
    /// The difficulty, on the players' rating scale ([`START_RATING`] in
    /// the middle).
    pub rating: i32,
    /// The expected line after the answer (the engine's principal
    /// variation of the proof's search), for showing.
    pub line: Vec<Action>,
}

impl Puzzle {
    /// The player to move: the one who must find the answer.
    pub fn to_move(&self) -> Player {
        self.position.to_move()
    }

    /// The rule set, as written in files and links.
    pub fn rules(&self) -> Variant {
        self.position.variant()
    }
}

/// The id of a puzzle at this position.
pub fn id_of(pos: &Position) -> String {
    format!("{:012x}", pos.hash() >> 16)
}

impl fmt::Display for Puzzle {
    /// One line of a puzzle file: `id;rules;gpn;answer;margin;proof;themes;rating;line`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let themes: Vec<&str> = self.themes.iter().map(|t| t.as_str()).collect();
        let line: Vec<String> = self.line.iter().map(Action::to_string).collect();
        write!(
            f,
            "{};{};{};{};{};{};{};{};{}",
            self.id,
            self.position.variant(),
            self.position,
            self.answer,
            self.margin,
            self.proof,
            themes.join(","),
            self.rating,
            line.join(" ")
        )
    }
}

/// A puzzle line that does not parse or does not hold together: the line
/// (1-based), the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PuzzleError {
    /// The line of the file (1 for a single line).
    pub line: usize,
    /// The field: `id`, `rules`, `gpn`, `answer`, `margin`, `proof`,
    /// `themes`, `rating`, `line`, or `fields` for a wrong count.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PuzzleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}: {}", self.line, self.field, self.message)
    }
}

impl std::error::Error for PuzzleError {}

/// The fields of a puzzle line, in order.
pub const FIELDS: [&str; 9] = [
    "id", "rules", "gpn", "answer", "margin", "proof", "themes", "rating", "line",
];

/// Reads one puzzle line (`line_no` only names it in errors). Checks that
/// the position is valid, the answer legal and the themes those of the
/// answer; [`verify`] proves the margin.
pub fn parse_line(text: &str, line_no: usize) -> Result<Puzzle, PuzzleError> {
    let err = |field: &'static str, message: String| PuzzleError {
        line: line_no,
        field,
        message,
    };
    let parts: Vec<&str> = text.trim_end_matches(['\r', '\n']).split(';').collect();
    if parts.len() != FIELDS.len() {
        return Err(err(
            "fields",
            format!(
                "expected {} fields separated by ';', found {}",
                FIELDS.len(),
                parts.len()
            ),
        ));
    }
    let id = parts[0];
    if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(err("id", "1 to 32 letters, digits or '-'".into()));
    }
    let variant: Variant = parts[1].parse().map_err(|e| err("rules", format!("{e}")))?;
    let position = Position::from_gpn(parts[2], variant).map_err(|e| err("gpn", format!("{e}")))?;
    if position.is_ended() || position.player_without_hole().is_some() {
        return Err(err("gpn", "the game is over in this position".into()));
    }
    let answer: Action = parts[3]
        .parse()
        .map_err(|e| err("answer", format!("{e}")))?;
    position
        .check(answer)
        .map_err(|e| err("answer", format!("illegal: {e}")))?;
    let margin: u8 = parts[4]
        .parse()
        .map_err(|_| err("margin", format!("not a number of seeds: {:?}", parts[4])))?;
    if margin == 0 {
        return Err(err("margin", "must be at least 1 seed".into()));
    }
    let proof = match parts[5].strip_prefix("depth=").map(str::parse::<u32>) {
        Some(Ok(depth)) if (1..=30).contains(&depth) => Proof::Search { depth },
        _ => {
            return Err(err(
                "proof",
                format!("expected depth=D (1 to 30), found {:?}", parts[5]),
            ))
        }
    };
    let mut themes = Vec::new();
    for name in parts[6].split(',').filter(|s| !s.is_empty()) {
        let t = Theme::from_name(name)
            .ok_or_else(|| err("themes", format!("unknown theme {name:?}")))?;
        themes.push(t);
    }
    if themes != themes_of(&position, answer) {
        return Err(err("themes", "not the themes of the answer".into()));
    }
    let rating: i32 = parts[7]
        .parse()
        .map_err(|_| err("rating", format!("not a number: {:?}", parts[7])))?;
    if !(100..=4000).contains(&rating) {
        return Err(err("rating", "must be between 100 and 4000".into()));
    }
    let mut line = Vec::new();
    let mut at = position
        .play(answer)
        .map_err(|e| err("answer", format!("{e}")))?;
    for tok in parts[8].split(' ').filter(|s| !s.is_empty()) {
        let a: Action = tok
            .parse()
            .map_err(|e| err("line", format!("{tok:?}: {e}")))?;
        at = at
            .play(a)
            .map_err(|e| err("line", format!("{tok} is illegal: {e}")))?;
        line.push(a);
    }
    Ok(Puzzle {
        id: id.to_string(),
        position,
        answer,
        margin,
        proof,
        themes,
        rating,
        line,
    })
}

/// Reads a puzzle file: one puzzle a line, blank lines and lines starting
/// with `#` skipped. Ids must be unique.
pub fn parse_file(text: &str) -> Result<Vec<Puzzle>, PuzzleError> {
    let mut out = Vec::new();
    let mut ids = HashSet::new();
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let p = parse_line(l, i + 1)?;
        if !ids.insert(p.id.clone()) {
            return Err(PuzzleError {
                line: i + 1,
                field: "id",
                message: format!("{} appears twice", p.id),
            });
        }
        out.push(p);
    }
    Ok(out)
}

/// Each legal action of a position with its value for the player to move
/// (score units: 1/100 seed of final difference), searched to `depth`
/// plies in all, and the principal variation after it; best first (ties
/// in the legal actions' order).
pub fn action_values(
    pos: &Position,
    depth: u32,
    engine: &mut Engine,
) -> Vec<(Action, i32, Vec<Action>)> {
    let stop = AtomicBool::new(false);
    let me = pos.to_move();
    let mut out = Vec::new();
    for &a in pos.legal_actions().iter() {
        let mut g = Game::from_position(*pos, None);
        if g.play(a).is_err() {
            continue;
        }
        let (v, pv) = if let Some(o) = g.outcome() {
            let d = o.seeds[me.index()] as i32 - o.seeds[me.opponent().index()] as i32;
            (d * SEED, Vec::new())
        } else {
            engine.new_game();
            let limits = Limits {
                depth: Some(depth.saturating_sub(1).max(1)),
                min_depth: Some(0),
                ..Limits::default()
            };
            match engine.search(&g, &limits, &stop, &mut |_| {}) {
                Some(r) if g.position().to_move() == me => (r.score, r.pv),
                Some(r) => (-r.score, r.pv),
                None => continue,
            }
        };
        out.push((a, v, pv));
    }
    out.sort_by_key(|(_, v, _)| core::cmp::Reverse(*v));
    out
}

/// An engine for proofs: full strength, no glory (pure seeds), a fixed
/// small table.
pub fn proof_engine() -> Engine {
    Engine::new(Options {
        level: Level::MAX,
        honourable: false,
        hash_mb: PROOF_HASH_MB,
        seed: 0,
        glory: 0,
        ..Options::default()
    })
}

/// The answer of a position and its margin in whole seeds (the gap to the
/// second best, in expected final seeds of the player to move, rounded
/// down), with the line after it, if one action is at least one seed
/// ahead; `None` for a single legal action or a tie.
pub fn prove(pos: &Position, depth: u32, engine: &mut Engine) -> Option<(Action, u8, Vec<Action>)> {
    let values = action_values(pos, depth, engine);
    if values.len() < 2 {
        return None;
    }
    let gap = values[0].1 - values[1].1;
    // A seed more for the mover is a difference larger by 2 seeds.
    let seeds = gap / (2 * SEED);
    (seeds >= 1).then(|| {
        (
            values[0].0,
            seeds.min(u8::MAX as i32) as u8,
            values[0].2.clone(),
        )
    })
}

/// Why a puzzle fails [`verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// Another action is at least as good as the answer.
    NotBest {
        /// The best action found.
        best: Action,
    },
    /// The answer is best, but by less than the puzzle's margin.
    Margin {
        /// The margin found, in whole seeds.
        found: u8,
    },
    /// Fewer than two legal actions: nothing to find.
    NoChoice,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::NotBest { best } => write!(f, "the best action is {best}, not the answer"),
            VerifyError::Margin { found } => write!(f, "the answer is best by only {found} seeds"),
            VerifyError::NoChoice => f.write_str("fewer than two legal actions"),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Proves a puzzle again: every legal action searched to the puzzle's
/// depth, and the answer beats every other by at least its margin.
pub fn verify(puzzle: &Puzzle, engine: &mut Engine) -> Result<(), VerifyError> {
    let Proof::Search { depth } = puzzle.proof;
    let values = action_values(&puzzle.position, depth, engine);
    if values.len() < 2 {
        return Err(VerifyError::NoChoice);
    }
    let Some(&(_, answer_v, _)) = values.iter().find(|(a, _, _)| *a == puzzle.answer) else {
        return Err(VerifyError::NoChoice);
    };
    let others = values
        .iter()
        .filter(|(a, _, _)| *a != puzzle.answer)
        .map(|&(_, v, _)| v)
        .max()
        .unwrap_or(i32::MIN);
    if answer_v <= others {
        return Err(VerifyError::NotBest { best: values[0].0 });
    }
    let found = (answer_v - others) / (2 * SEED);
    if found < puzzle.margin as i32 {
        return Err(VerifyError::Margin {
            found: found.max(0) as u8,
        });
    }
    Ok(())
}

/// The difficulty of a proved position: from the shallowest depth at which
/// the engine's own search settles on the answer (a deeper answer is
/// harder to see), and how many other actions look tempting (capture at
/// least as many seeds as the answer, or end the game).
/// `1000 + 120 × (depth − 1) + 90 × tempting (at most 4)`, and 150 more
/// for a quiet answer or a trade decision, which beginners overlook.
pub fn rating_of(pos: &Position, answer: Action, depth: u32, engine: &mut Engine) -> i32 {
    let stop = AtomicBool::new(false);
    let game = Game::from_position(*pos, None);
    let mut bests = Vec::new();
    engine.new_game();
    let _ = engine.search(&game, &Limits::depth(depth), &stop, &mut |info| {
        bests.push((info.depth, info.pv.first().copied()));
    });
    // The shallowest depth from which every iteration chose the answer.
    let mut found = depth + 1;
    for &(d, best) in bests.iter().rev() {
        if best == Some(answer) {
            found = d;
        } else {
            break;
        }
    }
    let gain = |a: Action| {
        pos.play_effect(a)
            .map(|(n, e)| (e.seeds_captured, n.is_ended()))
            .unwrap_or((0, false))
    };
    let (mine, _) = gain(answer);
    let tempting = pos
        .legal_actions()
        .iter()
        .filter(|&&a| a != answer)
        .filter(|&&a| {
            let (c, ends) = gain(a);
            (c > 0 && c >= mine) || ends
        })
        .count()
        .min(4) as i32;
    let subtle = match answer {
        Action::Sow(_) => mine == 0,
        _ => true,
    };
    1000 + 120 * (found as i32 - 1) + 90 * tempting + if subtle { 150 } else { 0 }
}

/// The most puzzles taken from one self-play game: the positions of one
/// game are alike.
const PER_GAME: usize = 2;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenConfig {
    /// The rule set of the games.
    pub variant: Variant,
    /// The seed of the games (same seed, same puzzles).
    pub seed: u64,
    /// The depth of the proofs.
    pub depth: u32,
    /// The margin K, in seeds.
    pub margin: u8,
    /// How many puzzles in all (used to share them out among themes).
    pub count: usize,
    /// Keep only puzzles with one of these themes (none: every theme).
    /// Rare themes (the whole board, the sweep) come from the ends of
    /// games, which the per-game limit seldom lets the generator reach.
    pub only: Vec<Theme>,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            variant: Variant::STANDARD,
            seed: 0,
            depth: DEFAULT_DEPTH,
            margin: DEFAULT_MARGIN,
            count: 500,
            only: Vec::new(),
        }
    }
}

/// The generator's counters, for a progress bar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GenStats {
    /// Self-play games started.
    pub games: u64,
    /// Positions looked at (after the dedupe).
    pub positions: u64,
    /// Positions past the cheap filter.
    pub filtered: u64,
    /// Positions proved (puzzles found, before the themes' quotas).
    pub proved: u64,
}

/// Finds puzzles in seeded self-play: varied openings (2 to 7 random first
/// plies), games between levels 5 to the top, and beside each position,
/// the position after one of its legal offers (so that accepting and
/// declining are asked too). Each new position passes a cheap filter (the
/// same proof two plies deep, by half the margin), then the proof. The
/// commonest answers (plain captures) are held to a share of the count so
/// that the themes are spread.
pub struct Generator {
    config: GenConfig,
    rng: ChaCha8Rng,
    proof: Engine,
    players: [Engine; 2],
    seen: HashSet<u64>,
    /// Candidate positions not yet looked at.
    queue: Vec<Position>,
    game: Option<Game>,
    levels: [Level; 2],
    per_theme: std::collections::HashMap<Theme, usize>,
    /// Puzzles taken from the current game: at most [`PER_GAME`].
    from_game: usize,
    /// The counters.
    pub stats: GenStats,
}

impl Generator {
    /// A generator for this configuration.
    pub fn new(config: GenConfig) -> Generator {
        let player = || {
            Engine::new(Options {
                hash_mb: 4,
                ..Options::default()
            })
        };
        Generator {
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            config,
            proof: proof_engine(),
            players: [player(), player()],
            seen: HashSet::new(),
            queue: Vec::new(),
            game: None,
            levels: [Level::MAX; 2],
            per_theme: Default::default(),
            from_game: 0,
            stats: GenStats::default(),
        }
    }

    /// The theme a puzzle is counted under for the quotas: its rarest.
    fn key_theme(themes: &[Theme]) -> Theme {
        for t in [
            Theme::Offer,
            Theme::Decline,
            Theme::Accept,
            Theme::WholeBoard,
            Theme::Sweep,
            Theme::OwnHoles,
            Theme::Chain,
            Theme::Quiet,
            Theme::Pass,
        ] {
            if themes.contains(&t) {
                return t;
            }
        }
        Theme::Capture
    }

    /// How many puzzles of a key theme may be kept.
    fn quota(&self, t: Theme) -> usize {
        let n = self.config.count;
        match t {
            Theme::Capture => n * 30 / 100,
            Theme::Quiet => n * 25 / 100,
            Theme::Chain => n * 25 / 100,
            Theme::Accept => n * 8 / 100,
            Theme::Decline => n * 12 / 100,
            _ => n,
        }
    }

    /// Plays on to the next candidate position.
    fn next_candidate(&mut self) -> Position {
        loop {
            if let Some(p) = self.queue.pop() {
                return p;
            }
            let over = self.from_game >= PER_GAME
                || self
                    .game
                    .as_ref()
                    .is_none_or(|g| g.is_over() || g.actions().len() > 160);
            if over {
                self.start_game();
            }
            let game = self.game.as_mut().expect("a game was just started");
            let pos = *game.position();
            let stop = AtomicBool::new(false);
            let side = pos.to_move().index();
            let mut engine = &mut self.players[side];
            let mut opts = *engine.options();
            opts.level = self.levels[side];
            opts.seed = self.rng.gen();
            engine.set_options(opts);
            engine = &mut self.players[side];
            let Some(a) = engine.choose(game, &Limits::nodes(20_000), &stop) else {
                self.game = None;
                continue;
            };
            if game.play(a).is_err() {
                self.game = None;
                continue;
            }
            let next = *game.position();
            if game.is_over() {
                continue;
            }
            self.queue.push(next);
            // An offer beside the game's own action: its answer is a
            // decision the games rarely ask.
            let offers: Vec<Action> = next
                .legal_actions()
                .iter()
                .copied()
                .filter(|a| matches!(a, Action::Offer(_)))
                .collect();
            if !self.rng.gen_bool(0.3) {
                continue;
            }
            if let Some(&o) = offers.choose(&mut self.rng) {
                if let Ok(p) = next.play(o) {
                    self.queue.push(p);
                }
            }
        }
    }

    fn start_game(&mut self) {
        self.stats.games += 1;
        self.from_game = 0;
        self.queue.clear();
        let mut game = Game::from_position(Position::new(self.config.variant), Some(200));
        let plies = self.rng.gen_range(2..=7);
        for _ in 0..plies {
            let legal: Vec<Action> = game
                .legal_actions()
                .iter()
                .copied()
                .filter(|a| matches!(a, Action::Sow(_)))
                .collect();
            let Some(&a) = legal.choose(&mut self.rng) else {
                break;
            };
            if game.play(a).is_err() || game.is_over() {
                break;
            }
        }
        for l in &mut self.levels {
            *l = Level::new(self.rng.gen_range(5..=gore_ai::MAX_LEVEL)).unwrap_or(Level::MAX);
        }
        self.game = Some(game);
    }

    /// The next puzzle (never stops on its own: the caller counts).
    pub fn next_puzzle(&mut self) -> Puzzle {
        loop {
            let pos = self.next_candidate();
            if !self.seen.insert(pos.hash()) || pos.legal_actions().len() < 2 {
                continue;
            }
            self.stats.positions += 1;
            // The cheap filter: the same proof, two plies deep.
            let shallow = action_values(&pos, 2, &mut self.proof);
            if shallow.len() < 2 || shallow[0].1 - shallow[1].1 < self.config.margin as i32 * SEED {
                continue;
            }
            // A wanted theme: judged first on the shallow answer (cheap),
            // then again on the proved one.
            let wanted = |themes: &[Theme]| {
                self.config.only.is_empty() || themes.iter().any(|t| self.config.only.contains(t))
            };
            if !wanted(&themes_of(&pos, shallow[0].0)) {
                continue;
            }
            self.stats.filtered += 1;
            let Some((answer, margin, line)) = prove(&pos, self.config.depth, &mut self.proof)
            else {
                continue;
            };
            if margin < self.config.margin {
                continue;
            }
            self.stats.proved += 1;
            let themes = themes_of(&pos, answer);
            if !wanted(&themes) {
                continue;
            }
            let key = Generator::key_theme(&themes);
            let have = self.per_theme.get(&key).copied().unwrap_or(0);
            if have >= self.quota(key) {
                continue;
            }
            *self.per_theme.entry(key).or_default() += 1;
            self.from_game += 1;
            let rating = rating_of(&pos, answer, self.config.depth, &mut self.proof);
            return Puzzle {
                id: id_of(&pos),
                position: pos,
                answer,
                margin: self.config.margin,
                proof: Proof::Search {
                    depth: self.config.depth,
                },
                themes,
                rating,
                line: line.into_iter().take(8).collect(),
            };
        }
    }
}

/// The player's new puzzle rating after an attempt: an Elo update against
/// the puzzle's rating, `rating + k × (score − expected)` with score 1 for
/// a right answer and 0 for a wrong one, expected =
/// 1 / (1 + 10^((puzzle − player) / 400)), rounded to the nearest whole
/// point and kept within 100..=3000.
pub fn update_rating(player: i32, puzzle: i32, solved: bool, k: i32) -> i32 {
    let expected = 1.0 / (1.0 + 10f64.powf((puzzle - player) as f64 / 400.0));
    let score = if solved { 1.0 } else { 0.0 };
    let next = player as f64 + k as f64 * (score - expected);
    (next.round() as i32).clamp(100, 3000)
}

/// The K of [`update_rating`] the web app uses: large, so that the
/// difficulty follows the player within a few puzzles.
pub const RATING_K: i32 = 32;
