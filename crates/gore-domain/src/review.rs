//! Game reviews: a finished game's (by its id) or an uploaded record's,
//! computed by [`gore_learn::review`] at a budget the server decides.
//!
//! A review is a job in the store (`review_jobs`, docs/DEPLOY.md "AI
//! workers"): asked for by any web server, computed by whichever process
//! has analysis threads and claims it (a web server with
//! `--analysis-threads`, or a `gore worker`), its result kept there, so
//! that any server answers and a finished game's review is computed once.
//! A claim lapses when its holder's heartbeat is older than
//! [`super::DEAD_AFTER`], as the AI turns' do. Jobs are taken each
//! address's oldest first, and run on the analysis pool (never the games'
//! AI pool), shared with the analyses address by address
//! ([`crate::ai::FairQueue`]).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use gore_core::{Record, RecordResult};
use gore_learn::review::{annotate, review, Budget, Review};
use gore_solver::disk::Database;

use super::jobs::Runner;
use crate::ai::{AiBusy, AiJob, AiPool, ClientKey};
use crate::clock::Clock;
use crate::storage::{DueReview, Store};
use crate::{GameError, Games, Said};

/// The budget of the server's reviews: depth 8, at most 100 000 nodes a
/// search (deterministic: the same game always gets the same review).
pub const BUDGET: Budget = Budget {
    depth: 8,
    nodes: 100_000,
};

/// The most actions a reviewed record may hold (the server's games end by
/// `--max-plies` long before; an upload is refused beyond).
pub const MAX_ACTIONS: usize = 600;

/// The most bytes of an uploaded record.
pub const MAX_RECORD_BYTES: usize = 12 * 1024;

/// How long a claim on a review lasts at most, whatever the heartbeats (a
/// review of 600 actions at [`BUDGET`] takes well under it).
pub const REVIEW_LEASE: Duration = Duration::from_secs(600);

/// How long a request waits for its review at most before it is told
/// `busy` (its page asks again): no process with analysis threads took it.
pub const WAIT_AT_MOST: Duration = Duration::from_secs(300);

/// A review and the record it annotates.
#[derive(Debug, Clone, PartialEq)]
pub struct Reviewed {
    /// The record as reviewed (its comments the evaluations).
    pub record: Record,
    /// The review.
    pub review: Review,
}

/// Where a review is: what `GET /api/games/{id}/review/status` and
/// `GET /api/review/status` tell a visitor whose review request waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewState {
    /// Computed (kept in the store).
    Done,
    /// Waiting for a thread, `place` jobs before it.
    Queued {
        /// Jobs that will run before it if no other comes.
        place: usize,
    },
    /// Being computed.
    Running,
    /// Neither asked for nor kept.
    Absent,
}

/// The job of finished game `id`'s review.
fn game_job(id: &str) -> String {
    format!("review:{id}")
}

/// The job of `client`'s upload review (one at a time).
fn upload_job(client: &ClientKey) -> String {
    format!("review-upload:{client}")
}

/// The key of a stored client: its address again where it is one, so
/// that its reviews and analyses share its part of the pool.
pub(super) fn client_key(stored: &str) -> ClientKey {
    stored
        .parse()
        .map_or_else(|_| ClientKey::named(stored), ClientKey::ip)
}

/// The reviews: asked for, waited for, and (in a process with analysis
/// threads) computed. Cheap to clone.
#[derive(Clone)]
pub struct Reviews(Arc<Inner>);

struct Inner {
    /// The store, and the reviews this process computes.
    jobs: Runner,
    /// The edge's encoder: a review as the wire text kept as its result.
    encode: fn(&Reviewed) -> String,
    /// Jobs waiting or running per address at most.
    cap: u32,
    /// A review ended here: its waiters look at once.
    ended: tokio::sync::Notify,
    /// A review was asked for here: the runner looks at once.
    asked: Arc<tokio::sync::Notify>,
}

impl Reviews {
    /// The reviews kept in `store`; with `pool` (of `threads` threads,
    /// none: the workers compute them), this process computes them too (a runner looking every `every`, and at once when one is
    /// asked for here), after a heartbeat of `games` (its claims are then
    /// a live process's). `encode` is the edge's encoder of a result;
    /// `cap` the jobs an address may have waiting or running.
    pub fn new(
        store: Arc<dyn Store>,
        clock: Clock,
        (pool, threads): (AiPool, usize),
        solved: Vec<Arc<Database>>,
        encode: fn(&Reviewed) -> String,
        cap: u32,
    ) -> Reviews {
        Reviews(Arc::new(Inner {
            jobs: Runner::new(store, clock, (pool, threads), solved),
            encode,
            cap: cap.max(1),
            ended: tokio::sync::Notify::new(),
            asked: Arc::new(tokio::sync::Notify::new()),
        }))
    }

    /// Whether finished game `id`'s review is computed (kept in the store).
    pub async fn cached(&self, id: &str) -> bool {
        self.state(id).await == ReviewState::Done
    }

    /// Where finished game `id`'s review is.
    pub async fn state(&self, id: &str) -> ReviewState {
        self.state_of(&game_job(id)).await
    }

    /// Where `client`'s review of an uploaded record is.
    pub async fn upload_state(&self, client: &ClientKey) -> ReviewState {
        self.state_of(&upload_job(client)).await
    }

    async fn state_of(&self, job: &str) -> ReviewState {
        // Claimed here and waiting in this process's pool: its place there.
        if let Some(Some(Some(place))) = self.0.jobs.pool.as_ref().map(|p| p.place_of(job)) {
            return ReviewState::Queued { place };
        }
        match self
            .0
            .jobs
            .store
            .review_job(job.into(), String::new(), false)
            .await
        {
            Ok(Some(j)) => match j.status.as_str() {
                "done" => ReviewState::Done,
                "waiting" => ReviewState::Queued {
                    place: j.ahead as usize,
                },
                "running" => ReviewState::Running,
                _ => ReviewState::Absent,
            },
            Ok(None) => ReviewState::Absent,
            Err(e) => {
                tracing::debug!("review {job}: {e}");
                ReviewState::Absent
            }
        }
    }

    /// The review of finished game `id` whose record is `text`, as the
    /// edge's wire text: from the store, or asked for and waited for. A
    /// game not finished (or aborted) is refused.
    pub async fn of_game(
        &self,
        id: &str,
        text: &str,
        client: ClientKey,
    ) -> Result<String, GameError> {
        let record = Record::parse(text).map_err(|e| GameError::Internal(e.to_string()))?;
        if !matches!(record.result, Some(RecordResult::Finished { .. })) {
            return Err(GameError::Refused(Said::new(
                "review_unfinished",
                "the game is not finished: its review comes once it has ended",
            )));
        }
        self.ask(game_job(id), text.to_string(), &client).await
    }

    /// The review of an uploaded record (see [`read_upload`]) for
    /// `client`, as the edge's wire text: one at a time per address.
    pub async fn of_upload(&self, text: &str, client: ClientKey) -> Result<String, GameError> {
        read_upload(text)?;
        self.ask(upload_job(&client), text.to_string(), &client)
            .await
    }

    /// Asks for job `job` of `record` and waits for its result.
    async fn ask(
        &self,
        job: String,
        record: String,
        client: &ClientKey,
    ) -> Result<String, GameError> {
        let store = &self.0.jobs.store;
        let now = self.0.jobs.clock.now_ms();
        store
            .request_review(
                job.clone(),
                record.clone(),
                client.to_string(),
                self.0.cap,
                now,
            )
            .await
            .map_err(super::games::store_error)?;
        self.0.asked.notify_one();
        let give_up = tokio::time::Instant::now() + WAIT_AT_MOST;
        loop {
            // Registered before the look: an end between the two wakes it.
            let ended = self.0.ended.notified();
            let got = store
                .review_job(job.clone(), record.clone(), true)
                .await
                .map_err(super::games::store_error)?;
            match got {
                None => {
                    return Err(busy(AiBusy::Client {
                        limit: self.0.cap as usize,
                    }))
                }
                Some(j) if !j.same => return Err(busy(AiBusy::Game)),
                Some(j) if j.status == "done" => return Ok(j.result.unwrap_or_default()),
                Some(j) if j.status == "failed" => {
                    return Err(GameError::Internal(format!(
                        "review: {}",
                        j.result.unwrap_or_default()
                    )))
                }
                Some(_) => {}
            }
            if tokio::time::Instant::now() >= give_up {
                return Err(GameError::Busy(
                    "review: no analysis engine took it in time; try again".into(),
                ));
            }
            // Another process's result is looked for 4 times a second.
            let _ = tokio::time::timeout(Duration::from_millis(250), ended).await;
        }
    }

    /// Starts this process's runner (if it has analysis threads): every
    /// `every`, and when a review is asked for here, it takes up the
    /// review jobs due, as many as its threads can start soon (each
    /// thread one running and one waiting), each address's oldest first.
    pub fn spawn_runner(&self, games: Games, every: Duration) {
        if self.0.jobs.pool.is_none() {
            return;
        }
        let asked = self.0.asked.clone();
        super::jobs::spawn_runner(&self.0, games, every, asked, |inner| async move {
            Reviews(inner).take_up().await
        });
    }

    /// The runner's one look (see [`Reviews::spawn_runner`]).
    async fn take_up(&self) {
        let Some((pool, room)) = self.0.jobs.room() else {
            return;
        };
        let dead_before = self.0.jobs.dead_before();
        let server = self.0.jobs.store.origin();
        let now = self.0.jobs.clock.now_ms();
        let due = match self
            .0
            .jobs
            .store
            .due_reviews(now, dead_before, room as u32)
            .await
        {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!("cannot list the reviews due: {e}");
                return;
            }
        };
        // In each round, the address that searched least lately first (its
        // AI turns, analyses and reviews alike): as the pools serve.
        let store = self.0.jobs.store.as_ref();
        let mut due =
            crate::ai::usage::workers_order(store, due, |j| (j.round, j.client.as_str()), now)
                .await;
        due.truncate(room);
        for job in due {
            match self
                .0
                .jobs
                .store
                .claim_review(
                    job.id.clone(),
                    server.clone(),
                    now + REVIEW_LEASE.as_millis() as i64,
                    now,
                    dead_before,
                )
                .await
            {
                Ok(true) => self.compute(pool, job),
                Ok(false) => {}
                Err(e) => tracing::warn!("review {}: cannot claim it: {e}", job.id),
            }
        }
    }

    /// Computes a claimed job on `pool` and stores its end, in a task.
    fn compute(&self, pool: &AiPool, job: DueReview) {
        let DueReview {
            id, record, client, ..
        } = job;
        let (status, result) = match Record::parse(&record) {
            Ok(record) => {
                let db = self
                    .0
                    .jobs
                    .solved
                    .iter()
                    .find(|d| d.skip_origin() == record.rules.variant.skip_origin)
                    .cloned();
                let encode = self.0.encode;
                let work = AiJob::new(client_key(&client), id.clone(), 0, move |stop| {
                    let started = std::time::Instant::now();
                    let r = review(&record, BUDGET, db.as_deref(), stop);
                    let searched = started.elapsed().as_secs_f64() * 1000.0;
                    let done = r.map(|r| {
                        encode(&Reviewed {
                            record: annotate(&record, &r),
                            review: r,
                        })
                    });
                    (done, searched)
                });
                // Counted as running before the pool can start it: a stop
                // between the two (a SIGTERM as its thread starts) would
                // find nothing to wait for and give it back under way.
                self.0.jobs.running().insert(id.clone());
                match pool.submit(work) {
                    Ok(ticket) => {
                        let reviews = self.clone();
                        tokio::spawn(async move {
                            let (status, result) = match ticket.await {
                                Ok((done, searched)) => {
                                    // For the workers' order: this address
                                    // searched so long.
                                    let store = reviews.0.jobs.store.as_ref();
                                    let now = reviews.0.jobs.clock.now_ms();
                                    crate::ai::usage::charge(store, client, searched, now).await;
                                    match done {
                                        Ok(text) => ("done", Some(text)),
                                        Err(e) => ("failed", Some(e.to_string())),
                                    }
                                }
                                // The pool went (the process stops): given back.
                                Err(_) => ("waiting", None),
                            };
                            reviews.end(id, status, result).await;
                        });
                        return;
                    }
                    // Its address has its share of the pool: given back,
                    // taken up again later (`end` takes it out of those
                    // running).
                    Err(_) => ("waiting", None),
                }
            }
            Err(e) => ("failed", Some(e.to_string())),
        };
        let reviews = self.clone();
        tokio::spawn(async move { reviews.end(id, status, result).await });
    }

    /// Stores a job's end and wakes its waiters here.
    async fn end(&self, id: String, status: &str, result: Option<String>) {
        let server = self.0.jobs.store.origin();
        let ended = self
            .0
            .jobs
            .store
            .end_review(id.clone(), server, status.into(), result);
        match ended.await {
            Ok(true) if status == "done" => {
                self.0.jobs.computed.fetch_add(1, Ordering::Relaxed);
            }
            Ok(true) => {}
            Ok(false) => tracing::warn!("review {id}: computed, but no longer this process's"),
            Err(e) => tracing::warn!("review {id}: cannot store its end: {e}"),
        }
        // Running until its end is stored: a stopping worker waits for
        // this (taken out before, its exit could cut the write short and
        // leave the review claimed by a process that is gone).
        self.0.jobs.running().remove(&id);
        self.0.ended.notify_waiters();
    }

    /// Reviews this process computed and stored (its metrics).
    pub fn computed(&self) -> u64 {
        self.0.jobs.computed()
    }

    /// A worker stops: it takes up no new review, lets those it computes
    /// finish within `bound`, then gives back those still under way, so
    /// that the others take them at once.
    pub async fn stop(&self, bound: Duration) {
        let left = self.0.jobs.drain(bound).await;
        let server = self.0.jobs.store.origin();
        for id in left {
            let back =
                self.0
                    .jobs
                    .store
                    .end_review(id.clone(), server.clone(), "waiting".into(), None);
            if let Err(e) = back.await {
                tracing::warn!("review {id}: cannot give it back: {e}");
            }
        }
    }
}

/// A refusal of the analysis pool for a review, as a domain error.
fn busy(e: AiBusy) -> GameError {
    GameError::Busy(format!("review: {}", super::analysis::busy_text(e)))
}

/// Reads an uploaded record: its size, its syntax and its replay, each
/// refusal naming the field `record` (and the line or the action).
pub fn read_upload(text: &str) -> Result<Record, GameError> {
    let bad = |why: String| GameError::BadField {
        field: "record",
        why,
    };
    if text.len() > MAX_RECORD_BYTES {
        return Err(bad(format!(
            "the record is {} bytes; at most {MAX_RECORD_BYTES}",
            text.len()
        )));
    }
    let record = Record::parse(text).map_err(|e| bad(e.to_string()))?;
    if record.actions.len() > MAX_ACTIONS {
        return Err(bad(format!(
            "the record has {} actions; a review takes at most {MAX_ACTIONS}",
            record.actions.len()
        )));
    }
    record.replay().map_err(|e| bad(e.to_string()))?;
    Ok(record)
}
