//! One reader per account for all of its event streams on this server
//! (issue 37): the account's events are read from the store once per ring
//! that concerns it, and at least every [`POLL_EVERY`], whatever the
//! number of its streams (the Bot API's `/api/stream/event` and the
//! browser's user sockets); each stream passes the batches through its
//! own [`Cursor`], so that it says each event once and in order.
//!
//! The reader (a task, made with the account's first stream, gone with
//! its last) also marks a BOT online while one of its Bot API streams is
//! open: one write every [`MARK_EVERY`] for the account, not one a stream.
//! An account has at most [`API_STREAMS_PER_ACCOUNT`] Bot API streams on a
//! server.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::sync::broadcast;
use tokio::time::Instant;

use super::{Bots, Cursor, Inner, MARK_EVERY, POLL_EVERY};
use crate::events::PlayerEvent;
use crate::storage::StoredPlayer;
use crate::GameError;

/// Bot API event streams one account may hold open on one server (a bot
/// and a spare: lichess-bot opens one).
pub const API_STREAMS_PER_ACCOUNT: usize = 2;

/// Whose streams a change concerns: those accounts', or (`None`) all
/// (another server's notice without names, a lost notice).
pub(super) type Ring = Option<Arc<[String]>>;

/// The batches of events of one account, read once for all its streams.
struct Feed {
    tx: broadcast::Sender<Arc<[PlayerEvent]>>,
    /// Its Bot API streams open (the cap; the online mark).
    api_streams: AtomicUsize,
}

/// The readers of the accounts with a stream open here.
#[derive(Default)]
pub(super) struct Feeds(Mutex<HashMap<String, Arc<Feed>>>);

impl Feeds {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Feed>>> {
        // Nothing panics under this lock; a poisoned one is still sound.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One stream's following of its account's events: the events read when
/// it began ([`Follow::first`]), then each new batch
/// ([`Follow::next`]).
pub struct Follow {
    bots: Bots,
    me: StoredPlayer,
    feed: Arc<Feed>,
    rx: broadcast::Receiver<Arc<[PlayerEvent]>>,
    /// What this stream has said.
    cursor: Cursor,
    first: Vec<PlayerEvent>,
    api: bool,
}

impl Follow {
    /// The events read as the stream began: the open challenges and the
    /// games being played (once; empty afterwards).
    pub fn first(&mut self) -> Vec<PlayerEvent> {
        std::mem::take(&mut self.first)
    }

    /// The next events this stream has not said, as soon as the account's
    /// reader finds any. A stream too slow for the batches (it missed
    /// some) reads for itself once, and is up to date again.
    pub async fn next(&mut self) -> Result<Vec<PlayerEvent>, GameError> {
        loop {
            match self.rx.recv().await {
                Ok(batch) => {
                    let new: Vec<PlayerEvent> = batch
                        .iter()
                        .filter(|e| self.cursor.admit(e))
                        .cloned()
                        .collect();
                    if !new.is_empty() {
                        return Ok(new);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    return self.bots.events(&self.me, &mut self.cursor).await;
                }
                // The reader outlives its streams; it is gone only with the
                // server's bots: nothing more comes.
                Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
            }
        }
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        if self.api {
            self.feed.api_streams.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Cursor {
    /// Whether a stream at this cursor says `e` (and notes it said): the
    /// same rules as [`Bots::events`] keeps for its reads.
    fn admit(&mut self, e: &PlayerEvent) -> bool {
        match e {
            PlayerEvent::Challenge(c) => self.challenges.insert(c.id.clone()),
            PlayerEvent::ChallengeCanceled(c) | PlayerEvent::ChallengeDeclined(c) => {
                self.challenges.contains(&c.id) && self.closed.insert(c.id.clone())
            }
            PlayerEvent::GameStart(g, _) => self.started.insert(g.id.clone()),
            PlayerEvent::GameFinish(g, _) => self.finished.insert(g.id.clone()),
        }
    }
}

/// Rings for one account's changes ([`Bots::bell`]).
pub struct Bell {
    rx: broadcast::Receiver<Ring>,
    me: String,
}

impl Bell {
    /// Resolves at the next ring that concerns the account (or names
    /// nobody, as after a lost notice).
    pub async fn rung(&mut self) {
        loop {
            match self.rx.recv().await {
                Ok(Some(names)) if !names.contains(&self.me) => continue,
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => return,
                Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
            }
        }
    }
}

impl Bots {
    /// Rings when something may concern account `me`'s challenges here or
    /// (by notice) on another server.
    pub fn bell(&self, me: &StoredPlayer) -> Bell {
        Bell {
            rx: self.0.bell.subscribe(),
            me: me.id.clone(),
        }
    }

    /// Follows the events of account `me` for a new stream: a Bot API
    /// stream if `api` (at most [`API_STREAMS_PER_ACCOUNT`] of an account
    /// here; more are refused `busy`), else a browser's user socket. The
    /// first read is the stream's own, so that a store that fails is an
    /// error, not a silent stream.
    pub async fn follow(&self, me: &StoredPlayer, api: bool) -> Result<Follow, GameError> {
        let (feed, rx) = {
            let mut feeds = self.0.feeds.lock();
            let feed = feeds
                .entry(me.id.clone())
                .or_insert_with(|| {
                    let feed = Arc::new(Feed {
                        tx: broadcast::channel(16).0,
                        api_streams: AtomicUsize::new(0),
                    });
                    spawn_reader(
                        Arc::downgrade(&self.0),
                        feed.clone(),
                        me.clone(),
                        self.0.bell.subscribe(),
                    );
                    feed
                })
                .clone();
            if api {
                let n = feed.api_streams.load(Ordering::SeqCst);
                if n >= API_STREAMS_PER_ACCOUNT {
                    return Err(GameError::Busy(format!(
                        "{API_STREAMS_PER_ACCOUNT} event streams at most for an account: \
                         close one first"
                    )));
                }
                feed.api_streams.store(n + 1, Ordering::SeqCst);
            }
            // Subscribed before the first read: nothing falls between.
            let rx = feed.tx.subscribe();
            (feed, rx)
        };
        let mut follow = Follow {
            bots: self.clone(),
            me: me.clone(),
            feed,
            rx,
            cursor: self.cursor(),
            first: Vec::new(),
            api,
        };
        follow.first = self.events(me, &mut follow.cursor).await?;
        Ok(follow)
    }
}

/// The account's reader: reads when a ring names the account (or names
/// none), and at least every [`POLL_EVERY`] (a game a pairing made rings
/// nothing); gone once no stream follows.
fn spawn_reader(
    bots: Weak<Inner>,
    feed: Arc<Feed>,
    me: StoredPlayer,
    mut bell: broadcast::Receiver<Ring>,
) {
    tokio::spawn(async move {
        // Its own cursor: what the batches have said.
        let mut cursor = match bots.upgrade() {
            Some(inner) => Bots(inner).cursor(),
            None => return,
        };
        let mut marked: Option<Instant> = None;
        loop {
            let poll = Instant::now() + POLL_EVERY;
            loop {
                tokio::select! {
                    r = bell.recv() => match r {
                        Ok(Some(names)) if !names.contains(&me.id) => continue,
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => break,
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                    () = tokio::time::sleep_until(poll) => break,
                }
            }
            let Some(inner) = bots.upgrade() else { return };
            let bots = Bots(inner);
            {
                let mut feeds = bots.0.feeds.lock();
                if feed.tx.receiver_count() == 0 {
                    if feeds.get(&me.id).is_some_and(|f| Arc::ptr_eq(f, &feed)) {
                        feeds.remove(&me.id);
                    }
                    return;
                }
            }
            match bots.events(&me, &mut cursor).await {
                Ok(events) if !events.is_empty() => {
                    let _ = feed.tx.send(events.into());
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("events of {}: {e}", me.id),
            }
            // Online on the bots' page while a Bot API stream is open.
            if feed.api_streams.load(Ordering::SeqCst) > 0
                && marked.is_none_or(|t| t.elapsed() >= MARK_EVERY)
            {
                marked = Some(Instant::now());
                if let Err(e) = bots.streaming(&me).await {
                    tracing::warn!("events of {}: {e}", me.id);
                }
            }
        }
    });
}
