//! What the runners of the jobs kept in the store share (the reviews, the
//! analysis board's searches): a process with analysis threads looks for
//! the jobs due now and then, takes up as many as its threads can start
//! soon, and, stopping, lets those it runs end within a bound.

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use super::Games;
use crate::ai::AiPool;

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

/// How many more jobs a process with `threads` threads on `pool` takes
/// up now: each thread one running and one waiting.
pub(super) fn room(pool: &AiPool, threads: usize) -> usize {
    let stats = pool.stats();
    (2 * threads).saturating_sub(stats.running + stats.waiting)
}

/// Waits, within `bound`, until no job is in `running`; takes out and
/// returns those still there then (to be given back).
pub(super) async fn drain(running: &Mutex<HashSet<String>>, bound: Duration) -> Vec<String> {
    let lock = || running.lock().unwrap_or_else(|e| e.into_inner());
    let _ = tokio::time::timeout(bound, async {
        while !lock().is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let left = lock().drain().collect();
    left
}
