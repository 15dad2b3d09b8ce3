//! The Bot API's game streams' lines, read and encoded once per game for
//! all its streams on this server (issue 37: each change built the game's
//! view and its JSON once per stream).
//!
//! The first stream of a game starts its reader: it follows the room's
//! changes and, at each, reads the game once (as a spectator: a
//! `gameState` is the same for both seats), and publishes the new state
//! with its line encoded, when the game moved (the clocks move on their
//! own and are no news). Each stream of the game takes the published line
//! as it is (an `Arc`), and signs its seat's life. The reader ends when
//! the game is over or its last stream has gone.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use tokio::sync::{broadcast, watch};

use crate::api::{self, GameView};
use crate::domain::{GameError, Games};

/// A game's latest state as its streams send it.
#[derive(Debug)]
pub(crate) struct Latest {
    /// The whole game as a spectator's `gameFull` has it (a stream's own
    /// says which seat it is).
    pub full: api::GameFull,
    /// The `gameState` line of `full.state`, encoded once.
    pub line: Bytes,
    /// The game is over: nothing follows.
    pub over: bool,
}

impl Latest {
    fn of(view: &GameView) -> Latest {
        let full = api::GameFull::of(view);
        Latest {
            line: line(&full.state),
            over: view.head.result.is_some(),
            full,
        }
    }
}

/// One JSON value and its newline.
pub(crate) fn line<T: serde::Serialize>(v: &T) -> Bytes {
    let mut s = serde_json::to_string(v).unwrap_or_default();
    s.push('\n');
    Bytes::from(s)
}

/// The games followed on this server, each by one reader, and the count
/// of the readers' reads of a game (the metric `gore_bot_game_reads`).
#[derive(Debug, Default, Clone)]
pub(crate) struct GameLines(Arc<(Mutex<Followed>, AtomicU64)>);

type Followed = HashMap<String, watch::Receiver<Arc<Latest>>>;

impl GameLines {
    /// The latest state of game `id` and each change after it: the game's
    /// reader if it has one, else a new one (which reads the game once
    /// first, so its first value is as new as a read made now).
    pub(crate) async fn follow(
        &self,
        games: &Games,
        id: &str,
    ) -> Result<watch::Receiver<Arc<Latest>>, GameError> {
        if let Some(rx) = self.lock().get(id).filter(|rx| rx.has_changed().is_ok()) {
            return Ok(rx.clone());
        }
        // Subscribed before the first read: no change falls between.
        let changes = games.changes(id).await?;
        let first = self.read_now(games, id).await?;
        let mut map = self.lock();
        // Another stream may have started a reader meanwhile: one per game.
        if let Some(rx) = map.get(id).filter(|rx| rx.has_changed().is_ok()) {
            return Ok(rx.clone());
        }
        let over = first.over;
        let (tx, rx) = watch::channel(Arc::new(first));
        if !over {
            map.insert(id.to_string(), rx.clone());
            tokio::spawn(
                self.clone()
                    .read(games.clone(), id.to_string(), tx, changes),
            );
        }
        Ok(rx)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Followed> {
        // Nothing panics under this lock; a poisoned one is still sound.
        self.0 .0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads of a game made so far.
    pub(crate) fn reads(&self) -> u64 {
        self.0 .1.load(Ordering::Relaxed)
    }

    /// The game's state now, for its streams: one read, counted.
    async fn read_now(&self, games: &Games, id: &str) -> Result<Latest, GameError> {
        self.0 .1.fetch_add(1, Ordering::Relaxed);
        Ok(Latest::of(&GameView::from(games.view(id, None).await?)))
    }

    /// The game's reader: a read and an encoding at each change that moved
    /// the game, until it is over or no stream follows it.
    async fn read(
        self,
        games: Games,
        id: String,
        tx: watch::Sender<Arc<Latest>>,
        mut changes: broadcast::Receiver<Arc<crate::domain::Change>>,
    ) {
        loop {
            tokio::select! {
                r = changes.recv() => {
                    if let Err(broadcast::error::RecvError::Closed) = r {
                        // The room was reloaded: follow the new one.
                        match games.changes(&id).await {
                            Ok(c) => changes = c,
                            Err(_) => break,
                        }
                    }
                }
                // Only the map's receiver left: nobody streams the game.
                () = until_alone(&tx) => break,
            }
            let Ok(now) = self.read_now(&games, &id).await else {
                continue;
            };
            let moved = !now.full.state.same_moment(&tx.borrow().full.state);
            let over = now.over;
            if moved {
                tx.send_replace(Arc::new(now));
            }
            if over {
                break;
            }
        }
        let mut map = self.lock();
        if map
            .get(&id)
            .is_some_and(|rx| rx.same_channel(&tx.subscribe()))
        {
            map.remove(&id);
        }
    }
}

/// Resolves when `tx` has no receiver but the map's.
async fn until_alone(tx: &watch::Sender<Arc<Latest>>) {
    // The streams' receivers go one by one; a check at each keep-alive's
    // pace is enough (a reader lives at most this long after its last
    // stream).
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(5));
    loop {
        tick.tick().await;
        if tx.receiver_count() <= 1 {
            return;
        }
    }
}
