//! Game reviews: `POST /api/review`, `GET /api/games/{id}/review` and their
//! status.

use gore_core::{Action, Player};
use serde::{Deserialize, Serialize};

/// The body of `POST /api/review`: a game record's text (docs/NOTATION.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewUpload {
    /// The record, at most 12 KiB and 600 actions.
    pub record: String,
}

/// The answer of `GET /api/games/{id}/review/status` and
/// `GET /api/review/status`: where a review asked for is, so that a page
/// whose review request waits can show its place in the analysis pool's
/// queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewStatus {
    /// `done` (cached), `queued`, `running` or `none`.
    pub state: String,
    /// With `queued`: the jobs that will run before it (0: it is next).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<usize>,
}

impl From<crate::domain::review::ReviewState> for ReviewStatus {
    fn from(s: crate::domain::review::ReviewState) -> ReviewStatus {
        use crate::domain::review::ReviewState as S;
        let (state, place) = match s {
            S::Done => ("done", None),
            S::Queued { place } => ("queued", Some(place)),
            S::Running => ("running", None),
            S::Absent => ("none", None),
        };
        ReviewStatus {
            state: state.into(),
            place,
        }
    }
}

/// The answer of `GET /api/games/{id}/review` and `POST /api/review`: each
/// action valued (expected final seeds), classed, with the better action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewView {
    /// The rule set.
    pub rules: String,
    /// The start position (GPN).
    pub start: String,
    /// Names of A and B, when the record has them.
    pub players: [Option<String>; 2],
    /// The seeds of the game (48, or 8N).
    pub total: u8,
    /// Final seeds of A and B when the board ended the game.
    pub outcome: Option<[u8; 2]>,
    /// The record's result tag (`26-22`, `*`).
    pub result: String,
    /// Each action, in order.
    pub actions: Vec<ReviewedAction>,
    /// A's and B's summaries.
    pub summary: [ReviewSummary; 2],
    /// The engine's budget: depth (plies) and nodes per search.
    pub depth: u32,
    /// Nodes per search at most.
    pub nodes: u64,
    /// The annotated record (evaluations as comments), for download.
    pub record: String,
}

/// One action of a [`ReviewView`]. Seeds are expected final seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewedAction {
    /// From 1.
    pub ply: usize,
    /// `A` or `B`.
    pub mover: Player,
    /// The position it was played in (GPN).
    pub gpn: String,
    /// The action played (token).
    pub action: String,
    /// A's and B's seeds before it, under best play.
    pub before: [f64; 2],
    /// A's and B's seeds after the action played.
    pub after: [f64; 2],
    /// The best action (the played one when it was best).
    pub best: String,
    /// A's and B's seeds after the best action.
    pub best_after: [f64; 2],
    /// The position after the action played (GPN, before any sweep).
    pub after_gpn: String,
    /// The position after the best action (GPN, before any sweep): the
    /// board shows it when the better action is played on it.
    pub best_gpn: String,
    /// Seeds the mover lost (0 or more).
    pub loss: f64,
    /// `forced`, `good`, `inaccuracy`, `mistake` or `blunder`.
    pub class: String,
    /// `?!`, `?`, `??` or empty.
    pub mark: String,
    /// `engine` or `solved`.
    pub source: String,
}

/// A player's part of a [`ReviewView`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewSummary {
    /// His actions.
    pub actions: usize,
    /// Of them, forced.
    pub forced: usize,
    /// Seeds lost per action not forced, on average.
    pub average_loss: f64,
    /// Inaccuracies.
    pub inaccuracies: usize,
    /// Mistakes.
    pub mistakes: usize,
    /// Blunders.
    pub blunders: usize,
}

/// A review's wire text (a [`ReviewView`]'s JSON): what the store keeps as
/// a review job's result, and `GET /api/games/{id}/review` answers.
pub fn review_text(r: &crate::domain::review::Reviewed) -> String {
    serde_json::to_string(&ReviewView::from(r)).unwrap_or_default()
}

/// The position after `action` (legal: the review played or found it).
fn gpn_after(p: &gore_core::Position, action: Action) -> String {
    p.play(action)
        .map_or_else(|_| p.to_string(), |n| n.to_string())
}

/// Rounds to 1/100 seed, for the wire.
fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

impl From<&crate::domain::review::Reviewed> for ReviewView {
    fn from(r: &crate::domain::review::Reviewed) -> ReviewView {
        use gore_learn::review::Source;
        let rec = &r.record;
        let rv = &r.review;
        let start = rec
            .start_position()
            .map(|p| p.to_string())
            .unwrap_or_default();
        let pair = |x: [f64; 2]| [cents(x[0]), cents(x[1])];
        let actions = rv
            .actions
            .iter()
            .map(|a| {
                let total = a.before[0] + a.before[1];
                let best_after = match a.mover {
                    Player::A => [a.best_value, total - a.best_value],
                    Player::B => [total - a.best_value, a.best_value],
                };
                ReviewedAction {
                    ply: a.ply,
                    mover: a.mover,
                    gpn: a.position.to_string(),
                    action: a.action.to_string(),
                    before: pair(a.before),
                    after: pair(a.after()),
                    best: a.best.to_string(),
                    best_after: pair(best_after),
                    after_gpn: gpn_after(&a.position, a.action),
                    best_gpn: gpn_after(&a.position, a.best),
                    loss: cents(a.loss),
                    class: a.class.as_str().to_string(),
                    mark: a.class.mark().to_string(),
                    source: match a.source {
                        Source::Engine => "engine",
                        Source::Solved => "solved",
                    }
                    .to_string(),
                }
            })
            .collect();
        let summary = rv.summary.map(|s| ReviewSummary {
            actions: s.actions,
            forced: s.forced,
            average_loss: cents(s.average_loss),
            inaccuracies: s.inaccuracies,
            mistakes: s.mistakes,
            blunders: s.blunders,
        });
        ReviewView {
            rules: rec.rules.to_string(),
            start,
            players: rec.players.clone(),
            total: rv.total_seeds,
            outcome: rv.outcome,
            result: rec
                .result
                .map_or_else(|| "*".to_string(), |r| r.to_string()),
            actions,
            summary,
            depth: rv.budget.depth,
            nodes: rv.budget.nodes,
            record: rec.to_string(),
        }
    }
}
