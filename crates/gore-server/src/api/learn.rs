//! Lessons (`GET /api/lessons`, `POST /api/lessons/{id}/check`) and
//! puzzles (`GET /api/puzzles/next`, `POST /api/puzzles/{id}/solve`).

use gore_core::{Action, Hole, Player};
use serde::{Deserialize, Serialize};

/// The answer to `GET /api/puzzles/next`: a puzzle to solve (its answer
/// stays on the server until `POST /api/puzzles/{id}/solve`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleView {
    /// The puzzle's id.
    pub id: String,
    /// The rule set (`standard`).
    pub rules: String,
    /// The position, in GPN.
    pub gpn: String,
    /// The player who must find the best action.
    pub to_move: Player,
    /// The puzzle's difficulty, on the players' puzzle-rating scale.
    pub rating: i32,
    /// The legal actions, tokens (the browser does not decide legality).
    pub legal: Vec<String>,
}

/// The answer to `GET /api/puzzles/themes`: the themes that have puzzles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleThemes {
    /// Each theme with puzzles, in the book's order of themes.
    pub themes: Vec<ThemeCount>,
}

/// A theme and how many puzzles have it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThemeCount {
    /// The theme's name (`capture`, `chain`, …, as `?theme=` takes it).
    pub theme: String,
    /// How many puzzles have it.
    pub count: usize,
}

/// The body of `POST /api/puzzles/{id}/solve`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveBody {
    /// The action token the player chose (`a1`, `offer:a1,a3`, `accept`,
    /// `decline`, `pass`).
    pub action: String,
    /// The player's puzzle rating before this puzzle (1500 when absent):
    /// the answer carries the rating after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<i32>,
}

/// The answer to `POST /api/puzzles/{id}/solve`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolveResult {
    /// The action sent was one of the puzzle's answers.
    pub correct: bool,
    /// The answer (the engine's choice among `answers`).
    pub answer: String,
    /// Every answer accepted: the actions as good as the best, `answer`
    /// first.
    pub answers: Vec<String>,
    /// K, in seeds: the answer ends with at least this many more of the
    /// player's seeds than any other action.
    pub margin: u8,
    /// The proof depth, in plies: the answers are best by the margin at
    /// every depth from this one to `deep`.
    pub depth: u32,
    /// The deepest depth checked, in plies.
    pub deep: u32,
    /// What the answer does (`capture`, `chain`, `offer`, `decline`, …).
    pub themes: Vec<String>,
    /// The expected line after the answer, action tokens.
    pub line: Vec<String>,
    /// The solution's positions in GPN, for stepping through it: the
    /// puzzle's, then after the answer and after each action of `line`.
    pub positions: Vec<String>,
    /// The puzzle's rating.
    pub rating: i32,
    /// The player's puzzle rating after this attempt (an Elo update
    /// against the puzzle's rating, `gore_learn::puzzles::update_rating`).
    pub new_rating: i32,
}

/// The answer to `GET /api/lessons`: the lessons of the guided first game,
/// in the order they are taught.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonList {
    /// The lessons.
    pub lessons: Vec<LessonInfo>,
}

impl LessonList {
    /// Every lesson, in the order they are taught: the answer to `GET
    /// /api/lessons`, and what the lessons page carries inline.
    pub fn all() -> LessonList {
        LessonList {
            lessons: gore_learn::lessons::all().iter().map(Into::into).collect(),
        }
    }
}

/// One lesson: its position, goal and first legal actions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonInfo {
    /// Its id (`sow`, `capture`, …): the URL and the UI's text keys.
    pub id: String,
    /// The rule set.
    pub rules: String,
    /// The start position, GPN. The learner is the player to move.
    pub gpn: String,
    /// What the learner must do.
    pub goal: LessonGoal,
    /// How many actions the learner has (1, or 2 for `decline_without_glory`).
    pub moves: usize,
    /// The legal actions at the start.
    pub legal: Vec<String>,
    /// The first action of a known solution (for a hint).
    pub hint: String,
}

/// A lesson's goal: its kind and parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonGoal {
    /// `land_in`, `capture`, `chain_backward`, `chain_forward_own`,
    /// `whole_board`, `end_game`, `pass`, `offer`, `accept`,
    /// `decline_without_glory`.
    pub kind: String,
    /// `land_in`: the hole the last seed must fall into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hole: Option<Hole>,
    /// `capture`: the least number of seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<u8>,
}

/// The body of `POST /api/lessons/{id}/check`: the learner's actions from
/// the lesson's start (the opponent's scripted replies are not sent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonActions {
    /// Action tokens.
    pub actions: Vec<String>,
}

/// The answer to `POST /api/lessons/{id}/check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonCheck {
    /// `met`, `continue` (the learner has actions left) or `missed`.
    pub status: String,
    /// The position after the learner's actions and the replies, GPN
    /// (swept if the game ended).
    pub gpn: String,
    /// The legal actions there (for `continue`; empty otherwise).
    pub legal: Vec<String>,
    /// The opponent's scripted replies played after the last action.
    pub replies: Vec<String>,
    /// The holes sown by the learner's last action, in order.
    pub path: Vec<Hole>,
    /// The holes it captured, in the order the rules take them.
    pub captured: Vec<Hole>,
    /// How many seeds it captured.
    pub seeds_captured: u8,
    /// Why the goal was missed (`missed` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub miss: Option<LessonMiss>,
    /// The result, if the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<LessonResult>,
}

/// Why a lesson's goal was missed: a kind and its parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonMiss {
    /// `wrong_kind`, `landed_elsewhere`, `no_capture`, `too_few`,
    /// `no_backward_chain`, `no_forward_chain_into_own`, `board_left`,
    /// `not_ended`, `not_won`.
    pub kind: String,
    /// `wrong_kind`: the kind the goal asks for (`sow`, `pass`, `offer`,
    /// `accept`, `decline`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// `wrong_kind`: the kind played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub played: Option<String>,
    /// Where the last seed fell (`landed_elsewhere`, `no_capture`), or the
    /// hole holding more than 2 (`not_ended`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hole: Option<Hole>,
    /// `landed_elsewhere`: where it should have fallen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_hole: Option<Hole>,
    /// Seeds in `hole` (`no_capture`, `not_ended`), captured
    /// (`too_few`, `no_backward_chain`, `no_forward_chain_into_own`,
    /// `board_left`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<u32>,
    /// `too_few`: the goal's least number; `board_left`: seeds left;
    /// `not_won`: B's final seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<u32>,
    /// `no_capture`: the learner controls the landing hole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<bool>,
}

/// A lesson's game result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonResult {
    /// Final seeds of A and B.
    pub seeds: [u8; 2],
    /// The winner, if not a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<Player>,
    /// "Victory without glory".
    pub without_glory: bool,
}

impl From<&gore_learn::lessons::Lesson> for LessonInfo {
    fn from(l: &gore_learn::lessons::Lesson) -> LessonInfo {
        use gore_learn::lessons::Goal;
        let (hole, seeds) = match l.goal {
            Goal::LandIn(h) => (Some(h), None),
            Goal::Capture(n) => (None, Some(n)),
            _ => (None, None),
        };
        LessonInfo {
            id: l.id.into(),
            rules: l.rules.into(),
            gpn: l.start.into(),
            goal: LessonGoal {
                kind: l.goal.kind().into(),
                hole,
                seeds,
            },
            moves: l.goal.moves(),
            legal: tokens(l.position().legal_actions().iter().copied()),
            hint: l.solution.first().copied().unwrap_or_default().into(),
        }
    }
}

fn tokens(actions: impl Iterator<Item = Action>) -> Vec<String> {
    actions.map(|a| a.to_string()).collect()
}

impl LessonCheck {
    /// The answer for a judged step (`met`, `continue` or `missed`).
    pub fn new(
        status: &str,
        step: &gore_learn::lessons::Step,
        miss: Option<gore_learn::lessons::Miss>,
    ) -> LessonCheck {
        let effect = step.effect.unwrap_or(gore_core::Effect::NONE);
        let legal = if status == "continue" && step.outcome.is_none() {
            tokens(step.position.legal_actions().iter().copied())
        } else {
            Vec::new()
        };
        LessonCheck {
            status: status.into(),
            gpn: step.position.to_string(),
            legal,
            replies: tokens(step.replies.iter().copied()),
            path: effect.path(),
            captured: effect.captures(),
            seeds_captured: effect.seeds_captured,
            miss: miss.map(LessonMiss::from),
            result: step.outcome.map(|o| LessonResult {
                seeds: o.seeds,
                winner: o.winner(),
                without_glory: o.without_glory(),
            }),
        }
    }
}

impl From<gore_learn::lessons::Miss> for LessonMiss {
    fn from(m: gore_learn::lessons::Miss) -> LessonMiss {
        use gore_learn::lessons::Miss;
        let kind = |k: &str| LessonMiss {
            kind: k.into(),
            ..LessonMiss::default()
        };
        match m {
            Miss::WrongKind { expected, played } => LessonMiss {
                expected: Some(expected.as_str().into()),
                played: Some(played.as_str().into()),
                ..kind("wrong_kind")
            },
            Miss::LandedElsewhere { landed, goal } => LessonMiss {
                hole: Some(landed),
                goal_hole: Some(goal),
                ..kind("landed_elsewhere")
            },
            Miss::NoCapture { landed, seeds, own } => LessonMiss {
                hole: Some(landed),
                seeds: Some(seeds.into()),
                own: Some(own),
                ..kind("no_capture")
            },
            Miss::TooFew { captured, goal } => LessonMiss {
                seeds: Some(captured.into()),
                goal: Some(goal.into()),
                ..kind("too_few")
            },
            Miss::NoBackwardChain { captured } => LessonMiss {
                seeds: Some(captured.into()),
                ..kind("no_backward_chain")
            },
            Miss::NoForwardChainIntoOwn { captured } => LessonMiss {
                seeds: Some(captured.into()),
                ..kind("no_forward_chain_into_own")
            },
            Miss::BoardLeft { captured, left } => LessonMiss {
                seeds: Some(captured.into()),
                goal: Some(left),
                ..kind("board_left")
            },
            Miss::NotEnded { hole, seeds } => LessonMiss {
                hole: Some(hole),
                seeds: Some(seeds.into()),
                ..kind("not_ended")
            },
            Miss::NotWon { seeds } => LessonMiss {
                seeds: Some(seeds[0].into()),
                goal: Some(seeds[1].into()),
                ..kind("not_won")
            },
        }
    }
}
