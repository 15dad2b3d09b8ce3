//! The analysis board's searches on the workers (issue 28): a web server
//! with `--analysis-threads 0` computes no analysis. Its socket writes
//! each one asked for to the store as a job (the setup, the limits, a stop
//! flag); a process with analysis threads (a `gore worker`) claims it like
//! an AI turn or a review, runs it on its analysis pool, and writes the
//! findings back in batches, already in the edge's words; the web server
//! reads its sockets' batches (one look for all of them every
//! [`READ_EVERY`]) and hands each socket its lines.
//!
//! A worker killed mid-analysis: its claim lapses with its heartbeat
//! ([`super::DEAD_AFTER`]) and another worker runs the job again, its
//! findings following the first's. A socket that stops or goes: a job
//! still waiting is removed at once; a running one is flagged, and its
//! worker stops it within a batch and sends its `done`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use gore_ai::Limits;
use gore_learn::analysis::{Event, Summary};
use gore_solver::disk::Database;
use tokio::sync::mpsc;

use super::analysis::{self, Running, MAX_DEPTH};
use super::jobs::Runner;
use super::review::client_key;
use super::storage::{BoardJob, Store};
use super::{GameError, Games};
use crate::ai::{AiBusy, AiPool, ClientKey};
use crate::clock::Clock;

/// A worker writes what an analysis found this often (and looks whether
/// its stop was asked for).
pub const BATCH_EVERY: Duration = Duration::from_millis(100);

/// A web server reads its sockets' batches this often (one statement for
/// all of them, while any is followed).
pub const READ_EVERY: Duration = Duration::from_millis(50);

/// A claim lasts the analysis's time and this much more, whatever the
/// heartbeats.
const LEASE_MARGIN: Duration = Duration::from_secs(60);

/// The edge's words for an analysis's messages (`label`: its number on
/// its socket): the workers write them, the sockets send them as they are.
#[derive(Clone, Copy)]
pub struct Words {
    /// A finding.
    pub finding: fn(u64, Event) -> String,
    /// The end.
    pub done: fn(u64, &Summary) -> String,
    /// A job that could not run (the setup no longer reads).
    pub failed: fn(GameError) -> String,
}

/// The analyses asked of the workers, and (in a process with analysis
/// threads) those computed for them. Cheap to clone.
#[derive(Clone)]
pub struct Boards(Arc<Inner>);

struct Inner {
    /// The store, and the jobs this process runs.
    jobs: Runner,
    words: Words,
    /// Jobs waiting or running per address at most.
    cap: u32,
    /// This process's name in the store.
    origin: String,
    /// The jobs this process asked for.
    asked: AtomicU64,
    /// Each followed job's socket.
    readers: Mutex<HashMap<String, mpsc::UnboundedSender<Vec<String>>>>,
    /// A job is followed: the reader looks.
    followed: Arc<tokio::sync::Notify>,
    /// The runner's looks.
    looks: AtomicU64,
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Boards {
    /// The analyses of the store `store`; with `pool` of `threads` threads
    /// (none: this process computes none), this process computes them too
    /// ([`Boards::spawn_runner`]). `cap`: the jobs an address may have
    /// waiting or running.
    pub fn new(
        store: Arc<dyn Store>,
        clock: Clock,
        (pool, threads): (AiPool, usize),
        solved: Vec<Arc<Database>>,
        words: Words,
        cap: u32,
    ) -> Boards {
        let origin = store.origin();
        Boards(Arc::new(Inner {
            jobs: Runner::new(store, clock, (pool, threads), solved),
            words,
            cap: cap.max(1),
            origin,
            asked: AtomicU64::new(0),
            readers: Mutex::new(HashMap::new()),
            followed: Arc::new(tokio::sync::Notify::new()),
            looks: AtomicU64::new(0),
        }))
    }

    /// Whether this process's own board analyses run here (it has
    /// analysis threads) rather than on the workers.
    pub fn here(&self) -> bool {
        self.0.jobs.pool.is_some()
    }

    /// Asks the workers for analysis `label` of `client`'s socket: the
    /// setup (`rules`, `gpn`, `line`, as the socket received them, already
    /// read) within `limits`. Refused `busy` when the address has its cap
    /// of jobs.
    pub async fn ask(
        &self,
        client: &ClientKey,
        label: u64,
        (rules, gpn, line): (String, String, String),
        limits: &Limits,
    ) -> Result<Remote, GameError> {
        let n = self.0.asked.fetch_add(1, Ordering::Relaxed);
        let id = format!("{}:{n}", self.0.origin);
        let (tx, lines) = mpsc::unbounded_channel();
        locked(&self.0.readers).insert(id.clone(), tx);
        let remote = Remote {
            id: id.clone(),
            lines,
            boards: self.clone(),
            ended: false,
        };
        let job = BoardJob {
            id,
            origin: self.0.origin.clone(),
            client: client.to_string(),
            label,
            rules,
            gpn,
            line,
            time_ms: limits.time.map_or(0, |t| t.as_millis() as u64),
            nodes: limits.nodes.unwrap_or(0),
            round: 0,
        };
        let now = self.0.jobs.clock.now_ms();
        let asked = self.0.jobs.store.ask_analysis(job, self.0.cap, now).await;
        match asked.map_err(super::games::store_error)? {
            true => {
                self.0.followed.notify_one();
                Ok(remote)
            }
            false => {
                let mut remote = remote;
                remote.ended = true;
                Err(GameError::Busy(analysis::busy_text(AiBusy::Client {
                    limit: self.0.cap as usize,
                })))
            }
        }
    }

    /// Starts this process's reader of its sockets' batches: one look
    /// every [`READ_EVERY`] while any job is followed.
    pub fn spawn_reader(&self) {
        let weak = Arc::downgrade(&self.0);
        let followed = self.0.followed.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(READ_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                let Some(inner) = weak.upgrade() else { return };
                let boards = Boards(inner);
                if locked(&boards.0.readers).is_empty() {
                    drop(boards);
                    followed.notified().await;
                    continue;
                }
                boards.read().await;
                drop(boards);
                tick.tick().await;
            }
        });
    }

    /// The reader's one look: every batch for this process, each to its
    /// socket, in order; a job's last batch ends its socket's channel.
    async fn read(&self) {
        let batches = match self
            .0
            .jobs
            .store
            .take_analysis_batches(self.0.origin.clone())
            .await
        {
            Ok(b) => b,
            Err(e) => {
                tracing::debug!("cannot read the analyses' batches: {e}");
                return;
            }
        };
        let mut batches = batches;
        batches.sort_by(|a, b| (&a.job, a.seq).cmp(&(&b.job, b.seq)));
        let mut readers = locked(&self.0.readers);
        for b in batches {
            // A socket gone: its batches are dropped.
            if let Some(tx) = readers.get(&b.job) {
                let _ = tx.send(b.body.lines().map(str::to_string).collect());
            }
            if b.last {
                readers.remove(&b.job);
            }
        }
    }

    /// Starts this process's runner (if it has analysis threads): every
    /// `every` it takes up the jobs due, as many as its threads can start
    /// soon, each address's oldest first.
    pub fn spawn_runner(&self, games: Games, every: Duration) {
        if self.0.jobs.pool.is_none() {
            return;
        }
        // Nothing wakes it but its tick.
        let never = Arc::new(tokio::sync::Notify::new());
        super::jobs::spawn_runner(&self.0, games, every, never, |inner| async move {
            let boards = Boards(inner);
            // Now and then: the jobs of processes gone, which nobody reads.
            if boards
                .0
                .looks
                .fetch_add(1, Ordering::Relaxed)
                .is_multiple_of(50)
            {
                let dead_before = boards.0.jobs.dead_before();
                if let Err(e) = boards.0.jobs.store.forget_lost_analyses(dead_before).await {
                    tracing::debug!("cannot forget the lost analyses: {e}");
                }
            }
            boards.take_up().await
        });
    }

    /// The runner's one look (see [`Boards::spawn_runner`]).
    async fn take_up(&self) {
        let Some((pool, room)) = self.0.jobs.room() else {
            return;
        };
        let (now, dead_before) = (self.0.jobs.clock.now_ms(), self.0.jobs.dead_before());
        let store = &self.0.jobs.store;
        let due = match store.due_analyses(now, dead_before, room as u32).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!("cannot list the analyses due: {e}");
                return;
            }
        };
        // In each round, the address that searched least lately first (its
        // AI turns' searches and its analyses alike): as the pools serve.
        let mut due = crate::ai::usage::workers_order(
            store.as_ref(),
            due,
            |j| (j.round, j.client.as_str()),
            now,
        )
        .await;
        due.truncate(room);
        for job in due {
            let lease = Duration::from_millis(job.time_ms) + LEASE_MARGIN;
            let until = now + lease.as_millis() as i64;
            let server = self.0.origin.clone();
            match store
                .claim_analysis(job.id.clone(), server, until, now, dead_before)
                .await
            {
                Ok(true) => self.compute(pool, job).await,
                Ok(false) => {}
                Err(e) => tracing::warn!("analysis {}: cannot claim it: {e}", job.id),
            }
        }
    }

    /// Starts a claimed job on `pool`, its batches written by a task.
    async fn compute(&self, pool: &AiPool, job: BoardJob) {
        let store = &self.0.jobs.store;
        let server = self.0.origin.clone();
        let game = match analysis::setup(&job.rules, &job.gpn, &job.line) {
            Ok(g) => g,
            Err(e) => {
                let failed = Some((self.0.words.failed)(e));
                if let Err(e) = store.analysis_batch(job.id, server, failed, true).await {
                    tracing::warn!("analysis: cannot end it: {e}");
                }
                return;
            }
        };
        let limits = Limits {
            depth: Some(MAX_DEPTH),
            nodes: Some(job.nodes),
            time: Some(Duration::from_millis(job.time_ms.max(1))),
            min_depth: Some(0),
        };
        let client = client_key(&job.client);
        // Counted as running before the pool can start it: a stop between
        // the two would find nothing to wait for.
        self.0.jobs.running().insert(job.id.clone());
        match analysis::start(
            pool,
            &self.0.jobs.solved,
            client,
            job.id.clone(),
            game,
            limits,
        ) {
            Ok(run) => {
                tokio::spawn(self.clone().follow(job, run));
            }
            // Its address has its share of the pool: given back, taken up
            // again later.
            Err(_) => {
                self.0.jobs.running().remove(&job.id);
                if let Err(e) = store.give_back_analysis(job.id, server).await {
                    tracing::warn!("analysis: cannot give it back: {e}");
                }
            }
        }
    }

    /// Writes a running job's findings every [`BATCH_EVERY`] (the first
    /// at once: the board shows something soon), stops it when asked to
    /// (or when it is no longer this process's), and writes its `done` as
    /// its last batch.
    async fn follow(self, job: BoardJob, run: Running) {
        let started = std::time::Instant::now();
        let Running {
            mut ticket,
            mut events,
        } = run;
        let (store, words) = (&self.0.jobs.store, self.0.words);
        let server = self.0.origin.clone();
        let mut tick = tokio::time::interval(BATCH_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut lines: Vec<String> = Vec::new();
        let (mut open, mut first) = (true, true);
        let ended = loop {
            let write = tokio::select! {
                e = events.recv(), if open => match e {
                    Some(e) => {
                        lines.push((words.finding)(job.label, e));
                        std::mem::take(&mut first)
                    }
                    None => {
                        open = false;
                        false
                    }
                },
                r = &mut ticket => break r,
                _ = tick.tick() => true,
            };
            if write {
                let body = (!lines.is_empty()).then(|| lines.join("\n"));
                lines.clear();
                let written = store.analysis_batch(job.id.clone(), server.clone(), body, false);
                match written.await {
                    Ok(Some(false)) => {}
                    // Stopped by its socket, or no longer this process's.
                    Ok(Some(true) | None) => ticket.stop(),
                    Err(e) => tracing::warn!("analysis {}: cannot write: {e}", job.id),
                }
            }
        };
        // The work has returned: every finding is in the channel.
        while let Ok(e) = events.try_recv() {
            lines.push((words.finding)(job.label, e));
        }
        match ended {
            Ok(summary) => {
                lines.push((words.done)(job.label, &summary));
                let body = Some(lines.join("\n"));
                match store
                    .analysis_batch(job.id.clone(), server, body, true)
                    .await
                {
                    Ok(Some(_)) => {
                        self.0.jobs.computed.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(None) => {}
                    Err(e) => tracing::warn!("analysis {}: cannot end it: {e}", job.id),
                }
            }
            // The pool went (the process stops): given back.
            Err(_) => {
                if let Err(e) = store.give_back_analysis(job.id.clone(), server).await {
                    tracing::warn!("analysis {}: cannot give it back: {e}", job.id);
                }
            }
        }
        self.0.jobs.running().remove(&job.id);
        // For the workers' order: this address searched so long.
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let now = self.0.jobs.clock.now_ms();
        crate::ai::usage::charge(store.as_ref(), job.client.clone(), ms, now).await;
    }

    /// Analyses this process computed to their end (its metrics).
    pub fn computed(&self) -> u64 {
        self.0.jobs.computed()
    }

    /// A worker stops: it takes up no new job and lets those it runs end
    /// within `bound` (an analysis is short: `--analysis-time-ms`); those
    /// still running then are given back for the others.
    pub async fn stop(&self, bound: Duration) {
        for id in self.0.jobs.drain(bound).await {
            let back = self
                .0
                .jobs
                .store
                .give_back_analysis(id.clone(), self.0.origin.clone());
            if let Err(e) = back.await {
                tracing::warn!("analysis {id}: cannot give it back: {e}");
            }
        }
    }
}

/// An analysis asked of the workers, as its socket follows it. Dropped
/// before its end, it is stopped.
pub struct Remote {
    id: String,
    lines: mpsc::UnboundedReceiver<Vec<String>>,
    boards: Boards,
    ended: bool,
}

impl Remote {
    /// Its next messages, in the edge's words; `None` once it has ended
    /// (its `done` was among the last).
    pub async fn next(&mut self) -> Option<Vec<String>> {
        let lines = self.lines.recv().await;
        self.ended |= lines.is_none();
        lines
    }

    /// Jobs waiting before it, while it waits for a worker.
    pub async fn place(&self) -> Option<usize> {
        let place = self
            .boards
            .0
            .jobs
            .store
            .analysis_waiting(self.id.clone())
            .await;
        place.ok().flatten().map(|n| n as usize)
    }

    /// Stops it: `true` if it still waited and is withdrawn (nothing more
    /// comes); else its worker stops it and its `done` comes.
    pub async fn stop(&mut self) -> bool {
        match self
            .boards
            .0
            .jobs
            .store
            .stop_analysis(self.id.clone())
            .await
        {
            Ok(true) => {
                self.ended = true;
                locked(&self.boards.0.readers).remove(&self.id);
                true
            }
            Ok(false) => false,
            Err(e) => {
                tracing::warn!("analysis {}: cannot stop it: {e}", self.id);
                false
            }
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        locked(&self.boards.0.readers).remove(&self.id);
        if self.ended {
            return;
        }
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let (store, id) = (self.boards.0.jobs.store.clone(), self.id.clone());
            rt.spawn(async move {
                if let Err(e) = store.stop_analysis(id.clone()).await {
                    tracing::debug!("analysis {id}: cannot stop it: {e}");
                }
            });
        }
    }
}
