//! The analysis board: `POST /api/analysis/position` and the analysis
//! socket (`/api/analysis/ws`).

use gore_core::{Action, Game, Player};
use serde::{Deserialize, Serialize};

use gore_learn::analysis::{Event, Exact, Summary};

use super::ApiError;
use crate::domain::boards::Words;
use crate::domain::GameError;

/// A position to set up: the body of `POST /api/analysis/position`, and
/// what an `analyse` message names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisSetup {
    /// The rule set (`standard` when absent).
    #[serde(default)]
    pub rules: Option<String>,
    /// The start position in GPN (the rules' start when absent).
    #[serde(default)]
    pub gpn: Option<String>,
    /// The actions played from it, tokens separated by spaces.
    #[serde(default)]
    pub line: Option<String>,
}

/// The answer to `POST /api/analysis/position`: the position after the
/// line, as the rules library judges it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisPosition {
    /// The rule set, written canonically.
    pub rules: String,
    /// The start position, in canonical GPN.
    pub start: String,
    /// The position after the line (swept if the game ended), in GPN.
    pub gpn: String,
    /// The position after each action of the line, in GPN (`line`'s
    /// length; the start is `start`).
    pub positions: Vec<String>,
    /// The player to move.
    pub to_move: Player,
    /// The legal actions there (none once over).
    pub legal: Vec<Action>,
    /// The result, if the game is over.
    pub over: Option<AnalysisOver>,
    /// Times the position has occurred along the line (3 ends the game).
    pub repetitions: usize,
    /// Seeds on the board.
    pub on_board: u32,
}

/// How a game set up for analysis ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisOver {
    /// Final seeds of A and B.
    pub seeds: [u8; 2],
    /// `board`, `no-hole`, `repetition` or `ply-cap`.
    pub reason: String,
}

/// A message from a client on the analysis socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AnalysisClientMsg {
    /// Analyse a position (stops the socket's running analysis first).
    Analyse {
        /// The rule set (`standard` when absent).
        #[serde(default)]
        rules: Option<String>,
        /// The start position in GPN (the rules' start when absent).
        #[serde(default)]
        gpn: Option<String>,
        /// The actions played from it, tokens separated by spaces.
        #[serde(default)]
        line: Option<String>,
        /// Time wanted, ms: the server's cap when absent or larger.
        #[serde(default)]
        time_ms: Option<u64>,
    },
    /// Stop the running analysis (it ends with `done`, `stopped` true).
    Stop {},
    /// Answered by a `pong`.
    Ping {},
}

/// The fields of an `analyse` message, read on their own so that an error
/// names its field (an internally tagged enum's reading loses the path).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseFields {
    /// The message's type (`analyse`).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// The rule set.
    #[serde(default)]
    pub rules: Option<String>,
    /// The start position.
    #[serde(default)]
    pub gpn: Option<String>,
    /// The line.
    #[serde(default)]
    pub line: Option<String>,
    /// Time wanted, ms.
    #[serde(default)]
    pub time_ms: Option<u64>,
}

/// Final seeds of A and B (halves where the board's seeds are split).
pub type SeedsView = [f64; 2];

/// The solved database's values of a position or an action, as final
/// seeds of A and B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExactView {
    /// With the stored value V (never-ending play splits the board evenly).
    pub v: SeedsView,
    /// With the mover's lower bound under the threefold rule.
    pub lo: SeedsView,
    /// With his upper bound.
    pub hi: SeedsView,
    /// Lower = upper bound: the value is exact whatever the history.
    pub exact: bool,
}

/// One action's database values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExactAction {
    /// The action.
    pub action: Action,
    /// Its values.
    #[serde(flatten)]
    pub values: ExactView,
}

/// The limits an analysis runs under (the server's caps applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisLimits {
    /// Time, ms.
    pub time_ms: u64,
    /// Nodes.
    pub nodes: u64,
    /// Depth, plies.
    pub depth: u32,
}

/// A message from the server on the analysis socket. Every message of an
/// analysis carries its `id` (the socket's count of analyses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AnalysisServerMsg {
    /// An analysis started.
    Started {
        /// Its id.
        id: u64,
        /// The position analysed, in GPN.
        gpn: String,
        /// Its limits.
        limits: AnalysisLimits,
    },
    /// The analysis waits for a thread of the analysis pool: `place`
    /// analyses (of any client) will run before it if no other comes.
    /// Sent after `started` when it waits, and again when its place
    /// changes; its findings come once it runs.
    Queued {
        /// The analysis.
        id: u64,
        /// Analyses that will run before it.
        place: usize,
    },
    /// The solved database's values (no-trade rules, a layer present).
    Exact {
        /// The analysis.
        id: u64,
        /// The position's.
        position: ExactView,
        /// Each legal action's.
        actions: Vec<ExactAction>,
    },
    /// A finished depth of the position's search.
    Depth {
        /// The analysis.
        id: u64,
        /// Plies.
        depth: u32,
        /// Expected final seeds of A and B.
        expected: SeedsView,
        /// The best line.
        line: Vec<Action>,
        /// Nodes so far.
        nodes: u64,
        /// Time so far, ms.
        time_ms: u64,
    },
    /// One legal action's searched value.
    Action {
        /// The analysis.
        id: u64,
        /// The action.
        action: Action,
        /// Expected final seeds of A and B after it.
        expected: SeedsView,
        /// The depth searched after it.
        depth: u32,
        /// The line, from the action.
        line: Vec<Action>,
        /// It ends the game: `expected` is the result.
        ends: bool,
    },
    /// The analysis ended.
    Done {
        /// The analysis.
        id: u64,
        /// Deepest finished depth.
        depth: u32,
        /// Best action found.
        best: Option<Action>,
        /// Nodes searched in all.
        nodes: u64,
        /// Time spent, ms.
        time_ms: u64,
        /// Stopped (by `stop`, a new `analyse`, or a limit) before
        /// every action was valued.
        stopped: bool,
        /// The game was already over: its result.
        over: Option<AnalysisOver>,
    },
    /// A refused message; the socket keeps serving.
    Error {
        /// Why.
        error: ApiError,
    },
    /// The answer to a `ping`.
    Pong,
}

impl AnalysisSetup {
    /// The game this setup leads to, as the rules library judges it
    /// ([`crate::domain::analysis::setup`]; absent fields are defaults).
    pub fn read(&self) -> Result<Game, GameError> {
        crate::domain::analysis::setup(
            self.rules.as_deref().unwrap_or(""),
            self.gpn.as_deref().unwrap_or(""),
            self.line.as_deref().unwrap_or(""),
        )
    }
}

impl From<&gore_core::Outcome> for AnalysisOver {
    fn from(o: &gore_core::Outcome) -> AnalysisOver {
        AnalysisOver {
            seeds: o.seeds,
            reason: o.reason.as_str().to_string(),
        }
    }
}

impl From<&Game> for AnalysisPosition {
    /// The position a setup leads to, as the rules library judges it.
    fn from(game: &Game) -> AnalysisPosition {
        let pos = game.position();
        AnalysisPosition {
            rules: game.rules().to_string(),
            start: game.start().to_string(),
            gpn: pos.to_string(),
            positions: game.history()[1..].iter().map(|p| p.to_string()).collect(),
            to_move: pos.to_move(),
            legal: game.legal_actions().iter().copied().collect(),
            over: game.outcome().map(AnalysisOver::from),
            repetitions: game.repetitions(),
            on_board: pos.seeds_on_board(),
        }
    }
}

impl AnalysisServerMsg {
    /// The message as it goes on the wire.
    pub fn wording(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A finding of analysis `id` as its message.
    pub fn finding(id: u64, e: Event) -> Self {
        match e {
            Event::Solved(s) => AnalysisServerMsg::Exact {
                id,
                position: ExactView::from(&s.position),
                actions: s
                    .actions
                    .iter()
                    .map(|(a, v)| ExactAction {
                        action: *a,
                        values: ExactView::from(v),
                    })
                    .collect(),
            },
            Event::Depth(d) => AnalysisServerMsg::Depth {
                id,
                depth: d.depth,
                expected: d.expected,
                line: d.line,
                nodes: d.nodes,
                time_ms: d.elapsed.as_millis() as u64,
            },
            Event::Action(a) => AnalysisServerMsg::Action {
                id,
                action: a.action,
                expected: a.expected,
                depth: a.depth,
                line: a.line,
                ends: a.ends,
            },
        }
    }

    /// The end of analysis `id` as its message.
    pub fn done(id: u64, s: &Summary) -> Self {
        AnalysisServerMsg::Done {
            id,
            depth: s.depth,
            best: s.best,
            nodes: s.nodes,
            time_ms: s.elapsed.as_millis() as u64,
            stopped: s.stopped,
            over: s.over.as_ref().map(AnalysisOver::from),
        }
    }
}

/// The messages a worker writes for an analysis socket of another process,
/// as that socket words them.
pub const ANALYSIS_WORDS: Words = Words {
    finding: |id, e| AnalysisServerMsg::finding(id, e).wording(),
    done: |id, s| AnalysisServerMsg::done(id, s).wording(),
    failed: |e| {
        AnalysisServerMsg::Error {
            error: ApiError::from(e),
        }
        .wording()
    },
};

fn half_seeds(x: [u16; 2]) -> [f64; 2] {
    [x[0] as f64 / 2.0, x[1] as f64 / 2.0]
}

impl From<&Exact> for ExactView {
    fn from(e: &Exact) -> Self {
        ExactView {
            v: half_seeds(e.v),
            lo: half_seeds(e.lo),
            hi: half_seeds(e.hi),
            exact: e.exact,
        }
    }
}
