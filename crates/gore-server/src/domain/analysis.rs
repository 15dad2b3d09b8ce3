//! The analysis board's searches: the server's caps on each (time, nodes,
//! depth, table size), and their start on the analysis pool, never the
//! games' AI. The findings come back on a channel as
//! [`gore_learn::analysis::Event`]s; the edge (analysis_ws.rs) words them.

use std::sync::Arc;
use std::time::Duration;

use gore_ai::Limits;
use gore_core::Game;
use gore_learn::analysis::{analyse, Event, Summary};
use gore_solver::disk::Database;
use tokio::sync::mpsc;

use crate::ai::{AiBusy, AiJob, AiPool, AiTicket, ClientKey};
use crate::api::{AnalysisOver, AnalysisPosition, AnalysisSetup};
use crate::error::{ApiError, ErrorCode};

/// Plies one analysis searches at most.
pub const MAX_DEPTH: u32 = 40;
/// The transposition table of one analysis, in MiB: an analysis thread
/// holds one at a time.
pub const HASH_MB: usize = 16;

/// The server's bounds on one analysis (`--analysis-time-ms`,
/// `--analysis-nodes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Time at most.
    pub time: Duration,
    /// Nodes at most (the position's search and its actions' together).
    pub nodes: u64,
}

impl Caps {
    /// The limits of an analysis that asks for `time_ms` (none: the cap):
    /// never above the caps, whatever is asked.
    pub fn limits(&self, time_ms: Option<u64>) -> Limits {
        let time = time_ms
            .map(|ms| Duration::from_millis(ms.max(1)))
            .map_or(self.time, |t| t.min(self.time));
        Limits {
            depth: Some(MAX_DEPTH),
            nodes: Some(self.nodes),
            time: Some(time),
            min_depth: Some(0),
        }
    }
}

/// A running analysis: its ticket (resolves with the summary; dropping it
/// stops the search) and its findings as they come.
pub struct Running {
    /// The job on the analysis pool.
    pub ticket: AiTicket<Summary>,
    /// The findings, in order; the sender goes when the work ends.
    pub events: mpsc::UnboundedReceiver<Event>,
}

/// Starts an analysis of `game` within `limits` on `pool` for `client`;
/// `job` names it (one job per name). Refused as the pool refuses (the
/// client's cap, the queue).
pub fn start(
    pool: &AiPool,
    dbs: &[Arc<Database>],
    client: ClientKey,
    job: String,
    game: Game,
    limits: Limits,
) -> Result<Running, AiBusy> {
    let (tx, events) = mpsc::unbounded_channel();
    let dbs: Vec<Arc<Database>> = dbs.to_vec();
    // Its budget is its expected cost: among addresses of equal service,
    // a short analysis goes before a long one.
    let estimate = limits
        .time
        .map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
    let job = AiJob::new(client, job, 1, move |stop| {
        let dbs: Vec<&Database> = dbs.iter().map(|d| d.as_ref()).collect();
        // A closed receiver (the socket went) is fine: the ticket's drop
        // sets the stop flag as well.
        analyse(&game, &limits, &dbs, HASH_MB, stop, &mut |e| {
            let _ = tx.send(e);
        })
    })
    .with_estimate_ms(estimate);
    let ticket = pool.submit(job)?;
    Ok(Running { ticket, events })
}

/// Reads a setup (rules, GPN, line) into its game: the rules library's
/// judgement, each error naming its field; an action that breaks a rule is
/// `illegal_action`, anything malformed `bad_request`.
pub fn setup(s: &AnalysisSetup) -> Result<Game, ApiError> {
    gore_learn::analysis::setup(
        s.rules.as_deref().unwrap_or(""),
        s.gpn.as_deref().unwrap_or(""),
        s.line.as_deref().unwrap_or(""),
    )
    .map_err(|e| {
        let code = if e.is_illegal() {
            ErrorCode::IllegalAction
        } else {
            ErrorCode::BadRequest
        };
        ApiError::new(code, e.to_string())
    })
}

/// How a game over ended, for the wire.
pub fn over_of(o: &gore_core::Outcome) -> AnalysisOver {
    AnalysisOver {
        seeds: o.seeds,
        reason: o.reason.as_str().to_string(),
    }
}

/// The position a setup leads to, as the rules library judges it.
pub fn position_of(game: &Game) -> AnalysisPosition {
    let pos = game.position();
    AnalysisPosition {
        rules: game.rules().to_string(),
        start: game.start().to_string(),
        gpn: pos.to_string(),
        positions: game.history()[1..].iter().map(|p| p.to_string()).collect(),
        to_move: pos.to_move(),
        legal: game.legal_actions().iter().copied().collect(),
        over: game.outcome().map(over_of),
        repetitions: game.repetitions(),
        on_board: pos.seeds_on_board(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_never_gets_more_than_the_caps() {
        let caps = Caps {
            time: Duration::from_secs(10),
            nodes: 1000,
        };
        let l = caps.limits(Some(u64::MAX));
        assert_eq!(l.time, Some(Duration::from_secs(10)));
        assert_eq!(l.nodes, Some(1000));
        assert_eq!(l.depth, Some(MAX_DEPTH));
        assert_eq!(
            caps.limits(Some(250)).time,
            Some(Duration::from_millis(250))
        );
        assert_eq!(caps.limits(Some(0)).time, Some(Duration::from_millis(1)));
        assert_eq!(caps.limits(None).time, Some(Duration::from_secs(10)));
    }
}
