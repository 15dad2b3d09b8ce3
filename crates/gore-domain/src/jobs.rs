//! What the runners of the jobs kept in the store share (the reviews, the
//! analysis board's searches): a process with analysis threads looks for
//! the jobs due now and then, takes up as many as its threads can start
//! soon, and, stopping, lets those it runs end within a bound.

use std::collections::HashSet;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use gore_solver::disk::Database;
use tokio::sync::Notify;

use super::clock::Clock;
use super::storage::Store;
use super::Games;
use crate::ai::AiPool;

/// What a process needs to run jobs of the store, and what it keeps of
/// those it runs.
pub(super) struct Runner {
    pub store: Arc<dyn Store>,
    pub clock: Clock,
    /// The analysis pool, if this process runs jobs (it has threads).
    pub pool: Option<AiPool>,
    /// The pool's threads.
    pub threads: usize,
    pub solved: Vec<Arc<Database>>,
    /// It takes up no new job (a worker stopping).
    pub stopped: AtomicBool,
    /// The jobs it runs now.
    running: Mutex<HashSet<String>>,
    /// The jobs it ran to their end.
    pub computed: AtomicU64,
}

impl Runner {
    /// A runner over `store`; with `threads` threads of `pool` (0: it
    /// runs no job).
    pub fn new(
        store: Arc<dyn Store>,
        clock: Clock,
        (pool, threads): (AiPool, usize),
        solved: Vec<Arc<Database>>,
    ) -> Runner {
        Runner {
            store,
            clock,
            pool: (threads > 0).then_some(pool),
            threads,
            solved,
            stopped: AtomicBool::new(false),
            running: Mutex::new(HashSet::new()),
            computed: AtomicU64::new(0),
        }
    }

    /// The jobs it runs now.
    pub fn running(&self) -> MutexGuard<'_, HashSet<String>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims of processes silent since before this are dead.
    pub fn dead_before(&self) -> i64 {
        self.clock.now_ms() - super::DEAD_AFTER.as_millis() as i64
    }

    /// Its pool, and how many more jobs it takes up now (each thread one
    /// running and one waiting); none once stopped.
    pub fn room(&self) -> Option<(&AiPool, usize)> {
        let pool = self.pool.as_ref()?;
        if self.stopped.load(Ordering::SeqCst) {
            return None;
        }
        let stats = pool.stats();
        let room = (2 * self.threads).saturating_sub(stats.running + stats.waiting);
        (room > 0).then_some((pool, room))
    }

    /// Stops taking up jobs and waits, within `bound`, until it runs
    /// none; takes out and returns those it still runs then (to be given
    /// back).
    pub async fn drain(&self, bound: Duration) -> Vec<String> {
        self.stopped.store(true, Ordering::SeqCst);
        let _ = tokio::time::timeout(bound, async {
            while !self.running().is_empty() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        let left = self.running().drain().collect();
        left
    }

    /// The jobs it ran to their end.
    pub fn computed(&self) -> u64 {
        self.computed.load(Ordering::Relaxed)
    }
}

/// Starts a runner: after a heartbeat of `games` (the claims of a process
/// with no heartbeat would look dead), `look` runs every `every` and
/// whenever `woken` is notified, as long as `inner` lives.
pub(super) fn spawn_runner<T, F, Fut>(
    inner: &Arc<T>,
    games: Games,
    every: Duration,
    woken: Arc<Notify>,
    look: F,
) where
    T: Send + Sync + 'static,
    F: Fn(Arc<T>) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let weak = Arc::downgrade(inner);
    tokio::spawn(async move {
        games.heartbeat().await;
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let Some(inner) = weak.upgrade() else { return };
            // Registered before the look: a wake during it is kept.
            let notified = woken.notified();
            look(inner).await;
            tokio::select! {
                _ = tick.tick() => {}
                _ = notified => {}
            }
        }
    });
}
