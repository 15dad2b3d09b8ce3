//! Puzzles: positions from engine self-play where one action (or a few
//! equally good ones) is clearly best, proved by searching every legal
//! action at every depth from the proof depth to a deeper check.
//!
//! A [`Puzzle`] is a position (GPN under a rule set), its answers (the
//! best action and any as good), the margin K it is proved by (each
//! answer ends with at least K more expected final seeds for the player
//! to move than any other legal action), the depths of that proof, its
//! [`Theme`]s (read from what the answer does) and a difficulty rating on
//! the players' puzzle-rating scale. [`verify`] proves a puzzle again; [`Generator`] finds new ones;
//! [`parse_file`] and [`Puzzle`]'s `Display` are the line format of
//! docs/NOTATION.md ("Puzzle files").
//!
//! **The proof.** Each legal action is played (and any forced replies
//! after it) and the position reached is searched by the full-strength
//! engine with iterative deepening (a fresh table for each, so a proof
//! repeats exactly); each iteration values the action at one depth from
//! the puzzle's position. The expected final seeds of the player to move
//! are (total + difference) / 2, so "K seeds more" is a difference larger
//! by 2K. One depth is not a proof (a deeper search can disagree: issue
//! 27), so a puzzle's answers must beat every other action by the margin
//! at **every** depth from its proof depth D to a much deeper check D′
//! (`depth=D..D′` in files). Every action as good as the best (within
//! [`TIE`]) is an answer; a position where the player to move loses by
//! [`HOPELESS`] seeds or more whatever he plays is no puzzle.

use core::fmt;
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;

use gore_ai::{Engine, Level, Limits, Options, Weights, SEED};
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

/// The deepest depth of the shipped puzzles' check (plies): the answers
/// must stay best by the margin at every depth from [`DEFAULT_DEPTH`] to
/// this one.
pub const DEFAULT_DEEP: u32 = 18;

/// Two actions this close (score units: a seed of final difference, half
/// a seed of the mover's expected seeds) at the deepest depth are equally
/// good: both are answers.
pub const TIE: i32 = SEED;

/// A position where the player to move ends at least this many seeds
/// behind (final difference) whatever he plays is hopeless: no puzzle.
pub const HOPELESS: i32 = 20;

/// The rating a new player starts at, and the middle of the puzzles' scale.
pub const START_RATING: i32 = 1500;

/// The hash table of a proof's searches (MiB): fixed, since a proof must
/// repeat exactly; big enough for the deep check's searches.
const PROOF_HASH_MB: usize = 16;

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

/// How a puzzle's answers were proved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Proof {
    /// Every legal action searched at every depth from `depth` to `deep`
    /// (plies, the action included): the answers beat every other action
    /// by the margin at each. Files write `depth=D..D′`, or `depth=D` when
    /// `deep` is `depth` (the files before issue 27).
    Search {
        /// The proof depth: the shallowest depth checked.
        depth: u32,
        /// The deepest depth checked.
        deep: u32,
    },
}

impl Proof {
    /// The shallowest and the deepest depth checked.
    pub fn depths(self) -> (u32, u32) {
        match self {
            Proof::Search { depth, deep } => (depth, deep),
        }
    }
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Proof::Search { depth, deep } if deep > depth => write!(f, "depth={depth}..{deep}"),
            Proof::Search { depth, .. } => write!(f, "depth={depth}"),
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
    /// The best action (the engine's choice among the answers).
    pub answer: Action,
    /// The other answers: actions as good as `answer` (within [`TIE`]),
    /// accepted too.
    pub also: Vec<Action>,
    /// K, in seeds: every answer ends with at least K more expected final
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

    /// Every answer: `answer` first, then `also`.
    pub fn answers(&self) -> Vec<Action> {
        let mut out = vec![self.answer];
        out.extend(self.also.iter().copied());
        out
    }

    /// Whether `action` is one of the answers.
    pub fn accepts(&self, action: Action) -> bool {
        self.answer == action || self.also.contains(&action)
    }
}

/// The id of a puzzle at this position.
pub fn id_of(pos: &Position) -> String {
    format!("{:012x}", pos.hash() >> 16)
}

impl fmt::Display for Puzzle {
    /// One line of a puzzle file: `id;rules;gpn;answer;margin;proof;themes;rating;line`
    /// (several answers separated by `|`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let themes: Vec<&str> = self.themes.iter().map(|t| t.as_str()).collect();
        let line: Vec<String> = self.line.iter().map(Action::to_string).collect();
        let answers: Vec<String> = self.answers().iter().map(Action::to_string).collect();
        write!(
            f,
            "{};{};{};{};{};{};{};{};{}",
            self.id,
            self.position.variant(),
            self.position,
            answers.join("|"),
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
    let mut answers = Vec::new();
    for tok in parts[3].split('|') {
        let a: Action = tok
            .parse()
            .map_err(|e| err("answer", format!("{tok:?}: {e}")))?;
        position
            .check(a)
            .map_err(|e| err("answer", format!("{tok} is illegal: {e}")))?;
        if answers.contains(&a) {
            return Err(err("answer", format!("{tok} appears twice")));
        }
        answers.push(a);
    }
    let answer = answers[0];
    let also = answers.split_off(1);
    let margin: u8 = parts[4]
        .parse()
        .map_err(|_| err("margin", format!("not a number of seeds: {:?}", parts[4])))?;
    if margin == 0 {
        return Err(err("margin", "must be at least 1 seed".into()));
    }
    let proof = parse_proof(parts[5]).ok_or_else(|| {
        err(
            "proof",
            format!(
                "expected depth=D or depth=D..D' (1 ≤ D ≤ D' ≤ 40), found {:?}",
                parts[5]
            ),
        )
    })?;
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
        also,
        margin,
        proof,
        themes,
        rating,
        line,
    })
}

/// `depth=D` or `depth=D..D′`.
fn parse_proof(s: &str) -> Option<Proof> {
    let rest = s.strip_prefix("depth=")?;
    let (depth, deep) = match rest.split_once("..") {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => {
            let d = rest.parse().ok()?;
            (d, d)
        }
    };
    ((1..=40).contains(&depth) && (depth..=40).contains(&deep))
        .then_some(Proof::Search { depth, deep })
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

/// One legal action's values at every depth: `values[d - 1]` is its value
/// for the player to move (score units: 1/100 seed of final difference)
/// searched `d` plies in all from the puzzle's position, the action
/// included; `line` is the principal variation after it at the deepest.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionValues {
    /// The action.
    pub action: Action,
    /// Its value at depths 1, 2, … (index 0 is depth 1).
    pub values: Vec<i32>,
    /// The expected line after it, at the deepest depth.
    pub line: Vec<Action>,
}

impl ActionValues {
    /// The value at depth `d` (the deepest one known if `d` is deeper).
    pub fn at(&self, d: u32) -> i32 {
        let i = (d.max(1) as usize - 1).min(self.values.len() - 1);
        self.values[i]
    }
}

/// Each legal action of a position valued at every depth from 1 to `deep`
/// (plies in all, the action included), in the legal actions' order. One
/// search per action, with iterative deepening and a fresh table, so the
/// values repeat exactly. Forced replies (a single legal action) are
/// played before searching, each counting a ply; a game that ends has its
/// exact value at every depth, and so has one the search finds decided.
pub fn values_by_depth(pos: &Position, deep: u32, engine: &mut Engine) -> Vec<ActionValues> {
    let stop = AtomicBool::new(false);
    let me = pos.to_move();
    let deep = deep.max(1);
    let mut out = Vec::new();
    for &a in pos.legal_actions().iter() {
        let mut g = Game::from_position(*pos, None);
        if g.play(a).is_err() {
            continue;
        }
        let mut forced = Vec::new();
        while !g.is_over() && g.legal_actions().len() == 1 {
            let f = g.legal_actions()[0];
            if g.play(f).is_err() {
                break;
            }
            forced.push(f);
        }
        let sign = |g: &Game, v: i32| if g.position().to_move() == me { v } else { -v };
        // Plies already played from the puzzle's position.
        let played = 1 + forced.len() as u32;
        if let Some(o) = g.outcome() {
            let d = o.seeds[me.index()] as i32 - o.seeds[me.opponent().index()] as i32;
            out.push(ActionValues {
                action: a,
                values: vec![d * SEED; deep as usize],
                line: forced,
            });
            continue;
        }
        // Depth 1 (and any depth the forced replies use up): the static
        // evaluation of the position reached.
        let still = sign(&g, gore_ai::evaluate(g.position(), &Weights::default()));
        let mut values = vec![still; deep as usize];
        let mut line = forced.clone();
        if deep > played {
            engine.new_game();
            let limits = Limits {
                depth: Some(deep - played),
                min_depth: Some(0),
                ..Limits::default()
            };
            let mut infos: Vec<(u32, i32, Vec<Action>)> = Vec::new();
            let _ = engine.search(&g, &limits, &stop, &mut |info| {
                infos.push((info.depth, info.score, info.pv.clone()));
            });
            for &(d, v, _) in &infos {
                // This iteration and the deeper ones it decided (a
                // decided game stops the deepening).
                let from = (d + played) as usize - 1;
                for slot in values.iter_mut().skip(from) {
                    *slot = sign(&g, v);
                }
            }
            if let Some((_, _, pv)) = infos.last() {
                line.extend(pv.iter().copied());
            }
        }
        out.push(ActionValues {
            action: a,
            values,
            line,
        });
    }
    out
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
    let mut out: Vec<(Action, i32, Vec<Action>)> = values_by_depth(pos, depth, engine)
        .into_iter()
        .map(|v| (v.action, v.at(depth), v.line))
        .collect();
    out.sort_by_key(|(_, v, _)| core::cmp::Reverse(*v));
    out
}

/// An engine for proofs: full strength, no glory (pure seeds), a fixed
/// table.
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

/// What [`judge`] found: the answers, the margin they hold at every depth
/// checked, and what the rating is read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The answers, the best at the deepest depth first.
    pub answers: Vec<Action>,
    /// The smallest margin over the depths checked, in whole seeds (the
    /// gap in the mover's expected final seeds, rounded down).
    pub margin: u8,
    /// The shallowest depth from which the first answer is the best (or
    /// tied with the best) at every depth up to the deepest.
    pub found: u32,
    /// The line after the first answer.
    pub line: Vec<Action>,
}

/// Why a puzzle fails [`verify`] (or a position makes none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// At this depth another action is at least as good as an answer.
    NotBest {
        /// The best action found, not an answer.
        best: Action,
        /// The depth.
        depth: u32,
    },
    /// The answers are best, but at this depth by less than the margin.
    Margin {
        /// The margin found, in whole seeds.
        found: u8,
        /// The depth.
        depth: u32,
    },
    /// The answers are not the equally good actions: `expected` are.
    Answers {
        /// The actions as good as the best at the deepest depth.
        expected: Vec<Action>,
    },
    /// The player to move loses by at least [`HOPELESS`] seeds whatever
    /// he plays.
    Hopeless {
        /// The best action's final difference, in whole seeds.
        seeds: i32,
    },
    /// Fewer than two legal actions: nothing to find.
    NoChoice,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::NotBest { best, depth } => {
                write!(
                    f,
                    "at depth {depth} the best action is {best}, not an answer"
                )
            }
            VerifyError::Margin { found, depth } => {
                write!(
                    f,
                    "at depth {depth} the answer is best by only {found} seeds"
                )
            }
            VerifyError::Answers { expected } => {
                let list: Vec<String> = expected.iter().map(Action::to_string).collect();
                write!(f, "the equally good answers are {}", list.join("|"))
            }
            VerifyError::Hopeless { seeds } => {
                write!(
                    f,
                    "hopeless: the best action still loses by {} seeds",
                    -seeds
                )
            }
            VerifyError::NoChoice => f.write_str("fewer than two legal actions"),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Judges a position from its actions' values ([`values_by_depth`], to
/// `deep` at least): the answers are the actions within [`TIE`] of the
/// best at `deep`; they must beat every other action by `margin` seeds at
/// every depth from `depth` to `deep`, and the best must not lose by
/// [`HOPELESS`] seeds.
pub fn judge(
    values: &[ActionValues],
    depth: u32,
    deep: u32,
    margin: u8,
) -> Result<Judgement, VerifyError> {
    if values.len() < 2 {
        return Err(VerifyError::NoChoice);
    }
    let mut order: Vec<&ActionValues> = values.iter().collect();
    // Best first at the deepest depth (ties in the legal actions' order).
    order.sort_by_key(|v| core::cmp::Reverse(v.at(deep)));
    let best = order[0].at(deep);
    if best <= -HOPELESS * SEED {
        return Err(VerifyError::Hopeless { seeds: best / SEED });
    }
    let (answers, others): (Vec<&ActionValues>, Vec<&ActionValues>) =
        order.iter().partition(|v| v.at(deep) >= best - TIE);
    if others.is_empty() {
        return Err(VerifyError::NoChoice);
    }
    let chosen: Vec<Action> = answers.iter().map(|v| v.action).collect();
    let least = check_answers(values, &chosen, depth, deep, margin)?;
    let first = answers[0];
    let top = |d: u32| values.iter().map(|v| v.at(d)).max().unwrap_or(i32::MIN);
    let mut found = deep;
    while found > 1 && answers.iter().any(|v| v.at(found - 1) >= top(found - 1)) {
        found -= 1;
    }
    Ok(Judgement {
        answers: chosen,
        margin: least,
        found,
        line: first.line.clone(),
    })
}

/// Checks given answers against the actions' values: at every depth from
/// `depth` to `deep`, the worst answer beats the best other action by at
/// least `margin` seeds. The smallest margin found, in whole seeds.
pub fn check_answers(
    values: &[ActionValues],
    answers: &[Action],
    depth: u32,
    deep: u32,
    margin: u8,
) -> Result<u8, VerifyError> {
    let (mine, others): (Vec<&ActionValues>, Vec<&ActionValues>) =
        values.iter().partition(|v| answers.contains(&v.action));
    if mine.is_empty() || others.is_empty() {
        return Err(VerifyError::NoChoice);
    }
    let mut least = i32::MAX;
    for d in depth..=deep {
        let worst_answer = mine.iter().map(|v| v.at(d)).min().unwrap_or(i32::MIN);
        let (best_other, other) = others
            .iter()
            .map(|v| (v.at(d), v.action))
            .max_by_key(|&(x, _)| x)
            .unwrap_or((i32::MIN, Action::Pass));
        if worst_answer <= best_other {
            return Err(VerifyError::NotBest {
                best: other,
                depth: d,
            });
        }
        // A seed more for the mover is a difference larger by 2 seeds.
        let seeds = (worst_answer - best_other) / (2 * SEED);
        if seeds < margin as i32 {
            return Err(VerifyError::Margin {
                found: seeds.max(0) as u8,
                depth: d,
            });
        }
        least = least.min(seeds);
    }
    Ok(least.min(u8::MAX as i32) as u8)
}

/// The answer of a position and its margin in whole seeds at `depth` only
/// (the gap to the second best, in expected final seeds of the player to
/// move, rounded down), with the line after it, if one action is at least
/// one seed ahead; `None` for a single legal action or a tie. A quick
/// filter: [`judge`] is the proof.
pub fn prove(pos: &Position, depth: u32, engine: &mut Engine) -> Option<(Action, u8, Vec<Action>)> {
    let values = action_values(pos, depth, engine);
    if values.len() < 2 {
        return None;
    }
    let gap = values[0].1 - values[1].1;
    let seeds = gap / (2 * SEED);
    (seeds >= 1).then(|| {
        (
            values[0].0,
            seeds.min(u8::MAX as i32) as u8,
            values[0].2.clone(),
        )
    })
}

/// Proves a puzzle again: every legal action searched at every depth from
/// the puzzle's proof depth to its deepest, or to `deep` if that is deeper
/// (a file of shallower proofs is checked as deeply as the shipped ones);
/// the puzzle's answers must be exactly the equally good actions and beat
/// every other by its margin at each depth, and the position must not be
/// hopeless.
pub fn verify_to(puzzle: &Puzzle, deep: u32, engine: &mut Engine) -> Result<(), VerifyError> {
    let (depth, recorded) = puzzle.proof.depths();
    let deep = deep.max(recorded).max(depth);
    let values = values_by_depth(&puzzle.position, deep, engine);
    let j = judge(&values, depth, deep, puzzle.margin)?;
    let mut mine = puzzle.answers();
    let mut found = j.answers.clone();
    mine.sort();
    found.sort();
    if mine != found {
        return Err(VerifyError::Answers {
            expected: j.answers,
        });
    }
    Ok(())
}

/// [`verify_to`] at the puzzle's own depths.
pub fn verify(puzzle: &Puzzle, engine: &mut Engine) -> Result<(), VerifyError> {
    verify_to(puzzle, 0, engine)
}

/// The difficulty of a proved position, on the players' scale: from the
/// shallowest depth from which the engine's values keep the answer best
/// (`found`: a deeper answer is harder to see), how many other actions
/// look tempting (capture at least as many seeds as the answer, or end
/// the game), how many come close at the proof depth (within the margin
/// and 3 seeds more), a quiet answer or a trade decision (which beginners
/// overlook) and the margin (a wide one is easier to see):
/// `700 + 90 × (found − 1) + 80 × tempting (≤ 4) + 45 × close (≤ 5)
/// + 150 × subtle − 8 × (margin − 2) (≤ 10 seeds)`, within 400..=3000.
pub fn rating_of(pos: &Position, values: &[ActionValues], j: &Judgement, depth: u32) -> i32 {
    let answer = j.answers[0];
    let gain = |a: Action| {
        pos.play_effect(a)
            .map(|(n, e)| (e.seeds_captured, n.is_ended()))
            .unwrap_or((0, false))
    };
    let (mine, _) = gain(answer);
    let tempting = pos
        .legal_actions()
        .iter()
        .filter(|&&a| !j.answers.contains(&a))
        .filter(|&&a| {
            let (c, ends) = gain(a);
            (c > 0 && c >= mine) || ends
        })
        .count()
        .min(4) as i32;
    let top = values
        .iter()
        .find(|v| v.action == answer)
        .map(|v| v.at(depth))
        .unwrap_or(0);
    let close = values
        .iter()
        .filter(|v| !j.answers.contains(&v.action))
        .filter(|v| top - v.at(depth) < 2 * (j.margin as i32 + 3) * SEED)
        .count()
        .min(5) as i32;
    let subtle = match answer {
        Action::Sow(_) => mine == 0,
        _ => true,
    };
    let wide = (j.margin as i32 - DEFAULT_MARGIN as i32).clamp(0, 10);
    let r =
        700 + 90 * (j.found as i32 - 1) + 80 * tempting + 45 * close + if subtle { 150 } else { 0 }
            - 8 * wide;
    r.clamp(400, 3000)
}

/// The theme a puzzle is known by: its rarest (an offer, a trade
/// decision, the whole board, the sweep, a chain into one's own holes, a
/// chain, a quiet move, a pass, else a capture). The generator's quotas
/// and the server's variety count puzzles by it.
pub fn key_theme(themes: &[Theme]) -> Theme {
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
    /// The depth of the proofs: the shallowest depth checked.
    pub depth: u32,
    /// The deepest depth checked.
    pub deep: u32,
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
            deep: DEFAULT_DEEP,
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
        key_theme(themes)
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
            // The proof depth first (cheap), then every depth to the deep
            // check's: most positions fall at the first.
            let (depth, deep) = (self.config.depth, self.config.deep.max(self.config.depth));
            let quick = values_by_depth(&pos, depth, &mut self.proof);
            let Ok(j) = judge(&quick, depth, depth, self.config.margin) else {
                continue;
            };
            let key = Generator::key_theme(&themes_of(&pos, j.answers[0]));
            if !wanted(&themes_of(&pos, j.answers[0]))
                || self.per_theme.get(&key).copied().unwrap_or(0) >= self.quota(key)
            {
                continue;
            }
            let values = values_by_depth(&pos, deep, &mut self.proof);
            let Ok(j) = judge(&values, depth, deep, self.config.margin) else {
                continue;
            };
            self.stats.proved += 1;
            let answer = j.answers[0];
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
            let rating = rating_of(&pos, &values, &j, depth);
            return Puzzle {
                id: id_of(&pos),
                position: pos,
                answer,
                also: j.answers[1..].to_vec(),
                margin: self.config.margin,
                proof: Proof::Search { depth, deep },
                themes,
                rating,
                line: j.line.into_iter().take(8).collect(),
            };
        }
    }
}

/// Spreads the puzzles' ratings evenly over `lo..=hi` by rank, keeping
/// their order: the [`rating_of`] values order the puzzles by difficulty
/// but bunch (most answers are seen at a shallow depth), so each
/// distinct value becomes `lo + (hi − lo) × (its middle rank / count)`,
/// rounded to 10 points. Equal values stay equal: a value shared by many
/// puzzles stays shared.
pub fn spread_ratings(puzzles: &mut [Puzzle], lo: i32, hi: i32) {
    let n = puzzles.len();
    if n == 0 {
        return;
    }
    let mut raw: Vec<i32> = puzzles.iter().map(|p| p.rating).collect();
    raw.sort_unstable();
    for p in puzzles.iter_mut() {
        let below = raw.partition_point(|&r| r < p.rating);
        let upto = raw.partition_point(|&r| r <= p.rating);
        // The middle of this value's ranks, as a fraction in 0..1.
        let middle = (below + upto) as f64 / 2.0 / n as f64;
        let r = lo as f64 + (hi - lo) as f64 * middle;
        p.rating = ((r / 10.0).round() as i32 * 10).clamp(lo, hi);
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
