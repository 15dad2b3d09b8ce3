//! The engine's analysis of a position: the expected final seeds of each
//! side and the best line, deepening; the value of every legal action;
//! and, where the solved database holds the position, its exact values.
//!
//! Pure: the caller gives the game (its history counts, for repetition),
//! the limits, an optional database and a stop flag, and receives each
//! finding through a callback as soon as it is known. Where the search
//! runs (a thread of a pool) and how the findings travel is the caller's.
//!
//! The setup of an analysis ([`setup`]) is read here too, so that the
//! server's socket and its HTTP check judge a position the same way: the
//! rules, the GPN and the line of actions, each error naming its field.

use core::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gore_ai::{Engine, Limits, Options, SEED};
use gore_core::{Action, Game, Outcome, Player, Position, Rules};
use gore_solver::disk::Database;
use gore_solver::probe::Totals;

/// Actions in a line, at most: a line longer than any real game is refused
/// (the ply cap of the server's games is far below it).
pub const MAX_LINE: usize = 4000;

/// Why an analysis cannot be set up: the field and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// `rules` is not a rule set.
    Rules(String),
    /// `gpn` is not a valid position of the rules (the rules library's
    /// error, kept whole: a page says it in its own words).
    Gpn(gore_core::GpnError),
    /// An action of `line` is not an action, or breaks a rule.
    Line {
        /// Its number, from 1.
        index: usize,
        /// The token sent.
        token: String,
        /// Why (the rules library's words).
        why: String,
    },
    /// The line has more than [`MAX_LINE`] actions.
    LineTooLong,
}

impl SetupError {
    /// The field the error is about: `rules`, `gpn` or `line`.
    pub fn field(&self) -> &'static str {
        match self {
            SetupError::Rules(_) => "rules",
            SetupError::Gpn(_) => "gpn",
            SetupError::Line { .. } | SetupError::LineTooLong => "line",
        }
    }

    /// Whether the error is an action that breaks a rule (not a malformed
    /// field).
    pub fn is_illegal(&self) -> bool {
        matches!(self, SetupError::Line { why, .. } if why.starts_with("illegal"))
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Rules(why) => write!(f, "rules: {why}"),
            SetupError::Gpn(why) => write!(f, "gpn: {why}"),
            SetupError::Line { index, token, why } => {
                write!(f, "line: action {index} `{token}`: {why}")
            }
            SetupError::LineTooLong => write!(f, "line: more than {MAX_LINE} actions"),
        }
    }
}

impl std::error::Error for SetupError {}

/// The game to analyse: `rules` (empty: standard), the start `gpn` (empty:
/// the rules' start) and the `line` of actions played from it (tokens
/// separated by spaces). Every action is played by the rules library, so
/// repetition and the ply cap end the game as they would in play.
///
/// ```
/// use gore_learn::analysis::setup;
/// let g = setup("standard", "", "a1 b1").unwrap();
/// assert_eq!(g.actions().len(), 2);
/// let e = setup("standard", "", "a1 a2").unwrap_err();
/// assert!(e.to_string().starts_with("line: action 2 `a2`: illegal"), "{e}");
/// ```
pub fn setup(rules: &str, gpn: &str, line: &str) -> Result<Game, SetupError> {
    let rules = rules.trim();
    let rules: Rules = if rules.is_empty() {
        Rules::STANDARD
    } else {
        rules
            .parse()
            .map_err(|e| SetupError::Rules(format!("{e}")))?
    };
    let gpn = gpn.trim();
    let start = if gpn.is_empty() {
        Position::new(rules.variant)
    } else {
        Position::from_gpn(gpn, rules.variant).map_err(SetupError::Gpn)?
    };
    let mut game = Game::from_position(start, rules.ply_cap);
    for (i, token) in line.split_whitespace().enumerate() {
        if i >= MAX_LINE {
            return Err(SetupError::LineTooLong);
        }
        let bad = |why: String| SetupError::Line {
            index: i + 1,
            token: token.chars().take(40).collect(),
            why,
        };
        let action: Action = token.parse().map_err(|e| bad(format!("{e}")))?;
        game.play(action).map_err(|e| bad(format!("{e}")))?;
    }
    Ok(game)
}

/// Forced replies played after an action before its search, at most.
const MAX_FORCED: usize = 64;

/// Final seeds of A and B: captured plus the expected share of the board.
pub type Seeds = [f64; 2];

/// One finished depth of the search of the position.
#[derive(Debug, Clone, PartialEq)]
pub struct Depth {
    /// The depth in plies.
    pub depth: u32,
    /// Expected final seeds of A and B.
    pub expected: Seeds,
    /// The best line, from the position.
    pub line: Vec<Action>,
    /// Nodes searched so far in this analysis.
    pub nodes: u64,
    /// Time spent so far.
    pub elapsed: Duration,
}

/// The searched value of one legal action.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionValue {
    /// The action.
    pub action: Action,
    /// Expected final seeds of A and B after it (exact when it ends the
    /// game).
    pub expected: Seeds,
    /// The depth searched after it and its forced replies (at least 1;
    /// 0 when it ends the game). An action the budget left no search
    /// for is not told at all: never a static estimate as a value.
    pub depth: u32,
    /// The best line after the action, starting with it (its forced
    /// replies next).
    pub line: Vec<Action>,
    /// The action ends the game (maybe after forced replies): `expected`
    /// is its result.
    pub ends: bool,
}

/// Exact final seeds (in half seeds) from the solved database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exact {
    /// Final half seeds of A and B when the mover gets V.
    pub v: [u16; 2],
    /// ... when he gets LB.
    pub lo: [u16; 2],
    /// ... when he gets UB.
    pub hi: [u16; 2],
    /// LB = UB: the value under the threefold rule is known.
    pub exact: bool,
}

impl From<Totals> for Exact {
    fn from(t: Totals) -> Exact {
        Exact {
            v: t.v,
            lo: t.lo,
            hi: t.hi,
            exact: t.exact,
        }
    }
}

/// The database's values of the position and of each action.
#[derive(Debug, Clone, PartialEq)]
pub struct Solved {
    /// The position's.
    pub position: Exact,
    /// Each legal action's, in the rules library's order.
    pub actions: Vec<(Action, Exact)>,
}

/// A finding, as soon as it is known.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The database's values (first, before any search).
    Solved(Solved),
    /// A finished depth of the position's search.
    Depth(Depth),
    /// One action's value (after the position's search).
    Action(ActionValue),
}

/// What an analysis ends with.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The game is over: its result (nothing was searched).
    pub over: Option<Outcome>,
    /// The deepest finished depth of the position's search.
    pub depth: u32,
    /// The best action found.
    pub best: Option<Action>,
    /// Nodes searched in all (the position and its actions).
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
    /// The stop flag ended it (or a limit before every action was valued).
    pub stopped: bool,
}

/// Where the game's position lies in `db`, if it does: no-trade rules
/// without a ply cap (the database knows no cap), the database's
/// `skip-origin`, a layer present. `None` otherwise.
pub fn solved(game: &Game, dbs: &[&Database]) -> Option<Solved> {
    let rules = game.rules();
    if !rules.variant.no_trades || rules.ply_cap.is_some() || game.is_over() {
        return None;
    }
    let pos = game.position();
    let db = dbs
        .iter()
        .find(|d| d.skip_origin() == rules.variant.skip_origin)?;
    let probe = db.probe(pos).ok()?;
    Some(Solved {
        position: probe.totals(probe.values).into(),
        actions: probe
            .actions
            .iter()
            .map(|&(a, v)| (a, probe.totals(v).into()))
            .collect(),
    })
}

/// Expected seeds of A and B from a score (1/100 seed, for `mover`) in a
/// game of `total` seeds.
fn seeds_of(score: i32, mover: Player, total: u8) -> Seeds {
    let d = score as f64 / SEED as f64;
    let total = total as f64;
    let (mine, theirs) = ((total + d) / 2.0, (total - d) / 2.0);
    match mover {
        Player::A => [mine, theirs],
        Player::B => [theirs, mine],
    }
}

/// The limits left of `limits` after `nodes` and `spent`, shared by `k`
/// searches; `None` when nothing is left.
fn remaining(limits: &Limits, nodes: u64, spent: Duration, k: u32) -> Option<Limits> {
    let mut left = *limits;
    if let Some(n) = limits.nodes {
        let rest = n.checked_sub(nodes).filter(|&r| r > 0)?;
        left.nodes = Some(rest);
    }
    if let Some(t) = limits.time {
        let rest = t.checked_sub(spent).filter(|r| !r.is_zero())?;
        left.time = Some(rest);
    }
    Some(left.share(k))
}

/// Analyses the game's position within `limits` (nodes and time for the
/// whole analysis: half for the position's search, the rest shared by its
/// actions), telling `on` each finding: the database's values first when
/// `dbs` holds the position, then each finished depth, then each action's
/// value (searched one depth less deep than the position, after it and
/// its forced replies, from the mover's side): the best action's first,
/// the position's own search's, and no other above it; an action the
/// budget left unsearched is not told (the summary is then `stopped`). The search is the engine's at full strength with no
/// glory: the value, not a taste. In one go: [`Analysis`] runs it in
/// slices.
pub fn analyse(
    game: &Game,
    limits: &Limits,
    dbs: &[&Database],
    hash_mb: usize,
    stop: &AtomicBool,
    on: &mut dyn FnMut(Event),
) -> Summary {
    let mut analysis = Analysis::new(game, limits, hash_mb);
    loop {
        if let Some(summary) = analysis.run(None, dbs, stop, on) {
            return summary;
        }
    }
}

/// An analysis ([`analyse`]'s) that runs in slices, so that a thread
/// serving many askers can pause a long one for a short one: each
/// [`Analysis::run`] searches until its slice of time is over (checked
/// between two depths of the position's search, and between two actions),
/// then gives the thread back, keeping its table and what it found. The
/// next slice deepens from there: its search starts again at depth 1, its
/// table full (the depths already told cost little and are not told
/// again). The time and nodes of `limits` are the search's, slices
/// together; the time waited between slices does not count.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use std::time::Duration;
/// use gore_ai::Limits;
/// use gore_core::{Game, Rules};
/// use gore_learn::analysis::{Analysis, Event};
///
/// let game = Game::new(Rules::STANDARD);
/// let mut analysis = Analysis::new(&game, &Limits::depth(3), 1);
/// let (stop, mut depths, mut slices) = (AtomicBool::new(false), Vec::new(), 0);
/// let summary = loop {
///     slices += 1;
///     // A slice of no time: a pause after each depth and each action.
///     let slice = Some(Duration::ZERO);
///     if let Some(s) = analysis.run(slice, &[], &stop, &mut |e| {
///         if let Event::Depth(d) = e {
///             depths.push(d.depth);
///         }
///     }) {
///         break s;
///     }
/// };
/// assert_eq!(depths, [1, 2, 3], "each depth told once");
/// assert_eq!(summary.depth, 3);
/// assert!(slices > 3);
/// ```
pub struct Analysis {
    game: Game,
    limits: Limits,
    engine: Engine,
    /// Search time of the slices before this one.
    spent: Duration,
    summary: Summary,
    phase: Phase,
}

impl fmt::Debug for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Analysis")
            .field("spent", &self.spent)
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}

/// Where an analysis is.
enum Phase {
    /// Nothing done yet.
    Start,
    /// The position's search: the deepest depth told, and its result.
    Main {
        told: u32,
        result: Option<gore_ai::SearchResult>,
    },
    /// The actions' values: those to value, the next one, the best's
    /// value (told first), the depth they are searched to.
    Actions {
        legal: Vec<Action>,
        next: usize,
        best_value: Option<ActionValue>,
        child_depth: u32,
    },
    /// The summary was given.
    Over,
}

impl Analysis {
    /// An analysis of `game` within `limits` with a table of `hash_mb`
    /// MiB (held until the analysis is dropped); nothing is searched yet.
    pub fn new(game: &Game, limits: &Limits, hash_mb: usize) -> Analysis {
        Analysis {
            game: game.clone(),
            limits: *limits,
            engine: Engine::new(Options {
                hash_mb,
                glory: 0,
                ..Options::default()
            }),
            spent: Duration::ZERO,
            summary: Summary {
                over: game.outcome().copied(),
                depth: 0,
                best: None,
                nodes: 0,
                elapsed: Duration::ZERO,
                stopped: false,
            },
            phase: Phase::Start,
        }
    }

    /// Runs a slice (`None`: to the end), telling `on` what it finds: the
    /// summary when the analysis is over, `None` when the slice is (run
    /// it again to go on). A set stop flag ends it, with its summary.
    pub fn run(
        &mut self,
        slice: Option<Duration>,
        dbs: &[&Database],
        stop: &AtomicBool,
        on: &mut dyn FnMut(Event),
    ) -> Option<Summary> {
        let begun = Instant::now();
        let spent = self.spent;
        let now = move || spent + begun.elapsed();
        let slice_over = || slice.is_some_and(|s| begun.elapsed() >= s);
        loop {
            match std::mem::replace(&mut self.phase, Phase::Over) {
                Phase::Start => {
                    if self.game.is_over() {
                        return Some(self.summary.clone());
                    }
                    if let Some(s) = solved(&self.game, dbs) {
                        on(Event::Solved(s));
                    }
                    self.phase = Phase::Main {
                        told: 0,
                        result: None,
                    };
                }
                Phase::Main { told, result } => {
                    self.phase = self.main(told, result, slice.is_some(), stop, now, on);
                }
                Phase::Actions {
                    legal,
                    next,
                    best_value,
                    child_depth,
                } => {
                    let next = self.actions(
                        &legal,
                        next,
                        &best_value,
                        child_depth,
                        stop,
                        now,
                        &slice_over,
                        on,
                    );
                    if next < legal.len() && !stop.load(Ordering::Relaxed) {
                        self.phase = Phase::Actions {
                            legal,
                            next,
                            best_value,
                            child_depth,
                        };
                    } else {
                        self.summary.stopped |= stop.load(Ordering::Relaxed);
                        self.summary.elapsed = now();
                        return Some(self.summary.clone());
                    }
                }
                Phase::Over => return Some(self.summary.clone()),
            }
            if slice_over() && !stop.load(Ordering::Relaxed) {
                self.spent = now();
                return None;
            }
        }
    }

    /// One step of the position's search (half the budget, all of it
    /// without limits): in slices, one depth more than `told` (its search
    /// starts again at depth 1 with the table full); in one go, to the
    /// end. Then the next phase.
    fn main(
        &mut self,
        told: u32,
        result: Option<gore_ai::SearchResult>,
        sliced: bool,
        stop: &AtomicBool,
        now: impl Fn() -> Duration,
        on: &mut dyn FnMut(Event),
    ) -> Phase {
        let pos = *self.game.position();
        let (mover, total) = (pos.to_move(), pos.variant().total_seeds());
        let main = Limits {
            min_depth: Some(0),
            ..self.limits.share(2)
        };
        let deepest = main.depth.unwrap_or(Limits::MAX_DEPTH);
        let mut result = result;
        let mut told = told;
        let mut done = true;
        let before = self.summary.nodes;
        if let Some(mut lim) = remaining(&main, self.summary.nodes, now(), 1) {
            if sliced {
                lim.depth = Some((told + 1).min(deepest));
            }
            let searched = self.engine.search(&self.game, &lim, stop, &mut |info| {
                if info.depth > told {
                    told = info.depth;
                    on(Event::Depth(Depth {
                        depth: info.depth,
                        expected: seeds_of(info.score, mover, total),
                        line: info.pv.clone(),
                        nodes: before + info.nodes,
                        elapsed: now(),
                    }));
                }
            });
            if let Some(r) = searched {
                self.summary.nodes += r.nodes;
                // The search ends before its depth when its budget is
                // spent or the game is decided: nothing deeper to do.
                done = !sliced || r.depth < lim.depth.unwrap_or(deepest) || r.depth >= deepest;
                if result.as_ref().is_none_or(|old| r.depth >= old.depth) {
                    result = Some(r);
                }
            }
        }
        if !done && !stop.load(Ordering::Relaxed) {
            return Phase::Main { told, result };
        }
        let game = &self.game;
        if let Some(r) = &result {
            self.summary.depth = r.depth;
            self.summary.best = Some(r.best);
            if r.depth == 0 {
                // One legal action (no search), or stopped before depth 1:
                // the static estimate stands for the position.
                on(Event::Depth(Depth {
                    depth: 0,
                    expected: seeds_of(r.score, mover, total),
                    line: r.pv.clone(),
                    nodes: r.nodes,
                    elapsed: now(),
                }));
            }
        }
        let child_depth = self.summary.depth.saturating_sub(1).max(1);
        // The best action's value is the position's own search (its first
        // action, one ply less deep): told first, so that the list and the
        // evaluation agree on it whatever budget is left for the others.
        let searched_best = result
            .as_ref()
            .filter(|r| r.depth >= 1 && r.pv.first() == Some(&r.best))
            .map(|r| {
                (
                    r.best,
                    r.depth,
                    seeds_of(r.score, mover, total),
                    r.pv.clone(),
                )
            });
        let mut best_value = None;
        if let Some((best, depth, expected, line)) = searched_best {
            let mut next = game.clone();
            if next.play(best).is_ok() {
                let value = match next.outcome() {
                    Some(o) => ActionValue {
                        action: best,
                        expected: [o.seeds[0] as f64, o.seeds[1] as f64],
                        depth: 0,
                        line: vec![best],
                        ends: true,
                    },
                    None => ActionValue {
                        action: best,
                        expected,
                        depth: depth - 1,
                        line,
                        ends: false,
                    },
                };
                best_value = Some(value.clone());
                on(Event::Action(value));
            }
        }
        let legal: Vec<Action> = game
            .legal_actions()
            .iter()
            .copied()
            .filter(|a| best_value.as_ref().is_none_or(|b| b.action != *a))
            .collect();
        Phase::Actions {
            legal,
            next: 0,
            best_value,
            child_depth,
        }
    }

    /// Values the actions from `from` on, until the slice is over: the
    /// index of the next one to value (`legal.len()`: all done, or the
    /// budget spent).
    #[allow(clippy::too_many_arguments)]
    fn actions(
        &mut self,
        legal: &[Action],
        from: usize,
        best_value: &Option<ActionValue>,
        child_depth: u32,
        stop: &AtomicBool,
        now: impl Fn() -> Duration,
        slice_over: &dyn Fn() -> bool,
        on: &mut dyn FnMut(Event),
    ) -> usize {
        let game = &self.game;
        let pos = *game.position();
        let (mover, total) = (pos.to_move(), pos.variant().total_seeds());
        let limits = self.limits;
        let k = legal.len() as u32;
        for (i, &action) in legal.iter().enumerate().skip(from) {
            if stop.load(Ordering::Relaxed) {
                self.summary.stopped = true;
                return legal.len();
            }
            if i > from && slice_over() {
                return i;
            }
            let mut next = game.clone();
            if next.play(action).is_err() {
                continue; // Legal by construction; nothing to value otherwise.
            }
            if let Some(o) = next.outcome() {
                on(Event::Action(ActionValue {
                    action,
                    expected: [o.seeds[0] as f64, o.seeds[1] as f64],
                    depth: 0,
                    line: vec![action],
                    ends: true,
                }));
                continue;
            }
            // Forced replies are played: the engine does not search a
            // position with one action (its value would be the static
            // estimate, issue 27).
            let mut line = vec![action];
            while next.legal_actions().len() == 1 && line.len() < MAX_FORCED {
                let only = next.legal_actions()[0];
                if next.play(only).is_err() {
                    break;
                }
                line.push(only);
            }
            if let Some(o) = next.outcome() {
                on(Event::Action(ActionValue {
                    action,
                    expected: [o.seeds[0] as f64, o.seeds[1] as f64],
                    depth: 0,
                    line,
                    ends: true,
                }));
                continue;
            }
            let Some(mut lim) = remaining(&limits, self.summary.nodes, now(), k - i as u32) else {
                self.summary.stopped = true;
                return legal.len();
            };
            lim.depth = Some(limits.depth.map_or(child_depth, |d| d.min(child_depth)));
            lim.min_depth = Some(0);
            let reply = next.position().to_move();
            let Some(r) = self.engine.search(&next, &lim, stop, &mut |_| {}) else {
                continue;
            };
            self.summary.nodes += r.nodes;
            if r.depth == 0 && next.legal_actions().len() > 1 {
                // The budget ran out before depth 1: a static estimate, not a
                // value. Not told: the page shows it as not searched.
                self.summary.stopped = true;
                continue;
            }
            let mut expected = seeds_of(r.score, reply, total);
            if let Some(b) = best_value {
                // Searched on its own, an action may look better than the
                // position's search found it (a shallower search, another
                // window): it is worth no more than the best, or the
                // evaluation would be wrong at the depth it says.
                let i = mover.index();
                if expected[i] > b.expected[i] {
                    expected = b.expected;
                }
            }
            line.extend(r.pv.iter().copied());
            on(Event::Action(ActionValue {
                action,
                expected,
                depth: r.depth,
                line,
                ends: false,
            }));
        }
        legal.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::Variant;

    fn run(game: &Game, limits: Limits) -> (Vec<Event>, Summary) {
        let stop = AtomicBool::new(false);
        let mut events = Vec::new();
        let s = analyse(game, &limits, &[], 1, &stop, &mut |e| events.push(e));
        (events, s)
    }

    /// A slice of no time pauses after each depth and each action: the
    /// findings are those of the analysis in one go (each depth told
    /// once, in order; every action valued once), however many slices.
    #[test]
    fn an_analysis_in_slices_finds_what_it_finds_in_one_go() {
        let game = Game::new(Rules::STANDARD);
        let limits = Limits::depth(5);
        let (whole, one_go) = run(&game, limits);
        let mut analysis = Analysis::new(&game, &limits, 1);
        let (stop, mut sliced, mut slices) = (AtomicBool::new(false), Vec::new(), 0);
        let summary = loop {
            slices += 1;
            let slice = Some(Duration::ZERO);
            if let Some(s) = analysis.run(slice, &[], &stop, &mut |e| sliced.push(e)) {
                break s;
            }
        };
        let depths = |events: &[Event]| -> Vec<u32> {
            events
                .iter()
                .filter_map(|e| match e {
                    Event::Depth(d) => Some(d.depth),
                    _ => None,
                })
                .collect()
        };
        let actions = |events: &[Event]| -> Vec<Action> {
            let mut a: Vec<Action> = events
                .iter()
                .filter_map(|e| match e {
                    Event::Action(v) => Some(v.action),
                    _ => None,
                })
                .collect();
            a.sort_by_key(|a| a.to_string());
            a
        };
        assert_eq!(depths(&sliced), [1, 2, 3, 4, 5]);
        assert_eq!(depths(&whole), depths(&sliced));
        let mut legal = game.legal_actions().to_vec();
        legal.sort_by_key(|a| a.to_string());
        assert_eq!(actions(&sliced), legal, "each action valued once");
        assert_eq!(actions(&whole), legal);
        // Five depths, then the actions one by one: a pause after each.
        assert!(slices >= 5 + legal.len(), "{slices} slices");
        assert_eq!((summary.depth, summary.stopped), (5, false));
        assert_eq!(one_go.depth, 5);
        assert_eq!(summary.best, one_go.best, "{sliced:?} {whole:?}");
    }

    #[test]
    fn setup_names_the_field() {
        assert_eq!(setup("nonsense", "", "").unwrap_err().field(), "rules");
        assert_eq!(setup("standard", "1,2,3", "").unwrap_err().field(), "gpn");
        let e = setup("", "", "a1 zz").unwrap_err();
        assert_eq!(e.field(), "line");
        assert!(e.to_string().starts_with("line: action 2 `zz`"), "{e}");
        assert!(!e.is_illegal());
        // b1 is not A's to sow at the start: a rule, not a typo.
        let e = setup("", "", "b1").unwrap_err();
        assert!(e.is_illegal(), "{e}");
        assert_eq!(
            setup("seeds=3", "", "")
                .unwrap()
                .position()
                .seeds_on_board(),
            24
        );
    }

    #[test]
    fn depths_deepen_and_seeds_add_up() {
        let game = Game::new(Rules::STANDARD);
        let (events, s) = run(&game, Limits::depth(4));
        let depths: Vec<u32> = events
            .iter()
            .filter_map(|e| match e {
                Event::Depth(d) => Some(d.depth),
                _ => None,
            })
            .collect();
        assert_eq!(depths, vec![1, 2, 3, 4]);
        assert_eq!(s.depth, 4);
        for e in &events {
            let x = match e {
                Event::Depth(d) => d.expected,
                Event::Action(a) => a.expected,
                Event::Solved(_) => unreachable!("no database given"),
            };
            assert!((x[0] + x[1] - 48.0).abs() < 1e-9, "{x:?}");
        }
        // A's four sowings, each valued once, searched 3 deep after it.
        let actions: Vec<&ActionValue> = events
            .iter()
            .filter_map(|e| match e {
                Event::Action(a) => Some(a),
                _ => None,
            })
            .collect();
        let tokens: Vec<String> = actions.iter().map(|a| a.action.to_string()).collect();
        assert_eq!(tokens, ["a1", "a2", "a3", "a4"]);
        assert!(actions.iter().all(|a| a.depth == 3 && a.line.len() >= 2));
    }

    #[test]
    fn the_node_budget_holds_for_the_whole_analysis() {
        let game = Game::new(Rules::STANDARD);
        let (_, s) = run(&game, Limits::nodes(5_000));
        // Each search stops at its share; a few nodes past it at most
        // (the engine counts a node before it looks at the limit).
        assert!(s.nodes <= 5_000 + 5 * 8, "{} nodes", s.nodes);
        assert!(s.nodes > 0);
    }

    #[test]
    fn an_ending_action_is_valued_by_its_result() {
        // A: a3 = 1, a4 = 3; B: b1 = 1; 22-21 captured (48 seeds in all).
        // a4 sows b1 b2 b3: every hole then holds at most 2, the game ends
        // and A sweeps his own a3: 22 + 1 = 23 for A, 21 + 4 = 25 for B.
        let mut v = Variant::STANDARD;
        v.no_trades = true;
        let p = Position::from_gpn("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -", v).unwrap();
        let game = Game::from_position(p, None);
        let (events, _) = run(&game, Limits::depth(3));
        let a4 = events
            .iter()
            .find_map(|e| match e {
                Event::Action(a) if a.action.to_string() == "a4" => Some(a.clone()),
                _ => None,
            })
            .expect("a4 valued");
        assert!(a4.ends);
        assert_eq!(a4.expected, [23.0, 25.0]);
    }

    #[test]
    fn a_finished_game_is_not_searched() {
        let p =
            Position::from_gpn("0,0,1,2/1,0,0,0 AAAA/BBBB 22-22 A -", Variant::STANDARD).unwrap();
        let game = Game::from_position(p, None);
        let (events, s) = run(&game, Limits::depth(3));
        assert!(events.is_empty());
        assert!(s.over.is_some());
        assert_eq!(s.nodes, 0);
    }

    /// Issue 27, point 5: with the budget run out before an action was
    /// searched, it was shown "depth 0" with the static estimate (A 15.6
    /// – B 32.4 for a1–a4) beside an evaluation of a2, A 33 – B 15: an
    /// action not searched is not valued, and the best action is valued
    /// as the evaluation says, at the top of the list.
    #[test]
    fn no_action_is_valued_unsearched_and_the_list_agrees_with_the_evaluation() {
        let game = setup("", "1,1,1,1/6,0,24,0 AAAA/ABBB 0-14 A -", "").unwrap();
        for nodes in [3_000, 30_000, 300_000, 3_000_000] {
            let limits = Limits {
                depth: Some(40),
                ..Limits::nodes(nodes)
            };
            let (events, s) = run(&game, limits);
            let last = events
                .iter()
                .rev()
                .find_map(|e| match e {
                    Event::Depth(d) => Some(d.clone()),
                    _ => None,
                })
                .expect("a depth");
            let actions: Vec<&ActionValue> = events
                .iter()
                .filter_map(|e| match e {
                    Event::Action(a) => Some(a),
                    _ => None,
                })
                .collect();
            for a in &actions {
                assert!(a.ends || a.depth >= 1, "{nodes} nodes: {a:?} not searched");
            }
            let best = s.best.expect("a best action");
            assert_eq!(last.line.first(), Some(&best), "{nodes} nodes");
            let b = actions
                .iter()
                .find(|a| a.action == best)
                .unwrap_or_else(|| panic!("{nodes} nodes: the best, {best}, not valued"));
            assert_eq!(
                b.expected, last.expected,
                "{nodes} nodes: {b:?} vs {last:?}"
            );
            for a in &actions {
                assert!(
                    a.expected[0] <= b.expected[0] + 1e-9,
                    "{nodes} nodes: {a:?} better for A than the best {b:?}"
                );
            }
        }
    }

    #[test]
    fn a_set_stop_flag_ends_it_at_once() {
        let game = Game::new(Rules::STANDARD);
        let stop = AtomicBool::new(true);
        let mut actions = 0;
        let s = analyse(&game, &Limits::default(), &[], 1, &stop, &mut |e| {
            actions += usize::from(matches!(e, Event::Action(_)));
        });
        assert!(s.stopped);
        assert_eq!(actions, 0);
        assert!(s.depth < Limits::MAX_DEPTH, "depth {}", s.depth);
    }
}
