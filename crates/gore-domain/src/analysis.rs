//! The analysis board's searches: the server's caps on each (time, nodes,
//! depth, table size), and their start on the analysis pool, never the
//! games' AI. The findings come back on a channel as
//! [`gore_learn::analysis::Event`]s; the edge (analysis_ws.rs) words them.

use std::sync::Arc;
use std::time::Duration;

use gore_ai::Limits;
use gore_core::Game;
use gore_learn::analysis::{Analysis, Event, Summary};
use gore_solver::disk::Database;
use tokio::sync::mpsc;

use super::GameError;
use crate::ai::{AiBusy, AiJob, AiPool, AiTicket, ClientKey, Slice};

/// An analysis searches this long at most before its thread may go to
/// an address that searched less (it goes on afterwards, its table kept:
/// [`Analysis`]); the slice ends at the next depth or action after it.
pub const SLICE: Duration = Duration::from_secs(1);

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
    let job = AiJob::sliced(client, job, 1, move |stop| {
        step(None, Arc::new((game, limits, dbs)), tx, stop)
    })
    .with_estimate_ms(estimate);
    let ticket = pool.submit(job)?;
    Ok(Running { ticket, events })
}

/// One slice of an analysis (its table made at its first: none is held
/// while it waits to start), and the rest of it as a job's next slice.
fn step(
    mut analysis: Option<Box<Analysis>>,
    job: Arc<(Game, Limits, Vec<Arc<Database>>)>,
    tx: mpsc::UnboundedSender<Event>,
    stop: &std::sync::atomic::AtomicBool,
) -> Slice<Summary> {
    let (game, limits, dbs) = &*job;
    let a = analysis.get_or_insert_with(|| Box::new(Analysis::new(game, limits, HASH_MB)));
    let dbs: Vec<&Database> = dbs.iter().map(|d| d.as_ref()).collect();
    // A closed receiver (the socket went) is fine: the ticket's drop sets
    // the stop flag as well.
    let done = a.run(Some(SLICE), &dbs, stop, &mut |e| {
        let _ = tx.send(e);
    });
    match done {
        Some(summary) => Slice::Done(summary),
        None => Slice::Again(Box::new(move |stop| step(analysis, job, tx, stop))),
    }
}

/// A refusal of the analysis pool in words that name it (the pool's own
/// words are the games' AI's): for the analysis socket and the reviews.
pub fn busy_text(e: AiBusy) -> String {
    match e {
        AiBusy::Client { limit } => format!(
            "the analysis engine already has {limit} of your analyses or \
             reviews running or waiting (other tabs?); wait for one to end, \
             then try again"
        ),
        AiBusy::Queue { limit } => format!(
            "the analysis engine is at capacity: {limit} analyses or reviews \
             are already waiting for it; try again in a moment"
        ),
        AiBusy::Game => "the analysis engine is already computing this".to_string(),
    }
}

/// Reads a setup (the rule set, the start in GPN and the line, each empty
/// for its default) into its game: the rules library's judgement, each
/// error naming its field ([`GameError::BadSetup`]: an action that breaks
/// a rule, or something malformed).
pub fn setup(rules: &str, gpn: &str, line: &str) -> Result<Game, GameError> {
    gore_learn::analysis::setup(rules, gpn, line).map_err(GameError::BadSetup)
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
