//! Keeping up with the other servers on one store: their notices taken
//! in, the catch-up of a room behind the store, this server's heartbeat,
//! and the take-over of a game whose server died (with the outage given
//! back to its clock).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;

use super::command::{Command, Cx, Steps};
use super::{AiRole, Games, RoomRef};
use crate::storage::{DueTurn, GameChange, Notice, StoreError};
use crate::{GameError, Ply, Room};

/// A room takes in what the store has after its own ply (a notice of
/// another server's change, a lost notice found by the sweep).
struct CatchUpNow;

impl Command for CatchUpNow {
    type Done = ();
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<(), GameError> {
        cx.games.catch_up_locked(cx.room_ref, cx.room).await;
        Ok(())
    }
}

/// A worker takes up an AI turn the store says is due (see
/// [`Games::take_up_ai_turns`]).
struct TakeUp {
    ply: Ply,
    client: Option<String>,
}

/// What to do with a due AI turn once its room was looked at.
enum TakenUp {
    /// Start the AI: it is to act at this ply and idle.
    Start,
    /// Nothing: the AI is at it already, or the room could not catch up.
    Nothing,
    /// The mark is stale (the game moved on): clear it.
    Clear,
}

impl Command for TakeUp {
    type Done = TakenUp;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<TakenUp, GameError> {
        let ply = self.ply;
        if cx.room.ply() < ply && !cx.games.catch_up_locked(cx.room_ref, cx.room).await {
            return Ok(TakenUp::Nothing);
        }
        let room = &mut *cx.room;
        if room.ai_client.is_none() {
            // Searches are shared among the addresses that made the
            // games (a game loaded here has no address of its own).
            room.ai_client = self.client.map(crate::ai::ClientKey::named);
        }
        Ok(if room.ai_to_move() && room.ply() == ply {
            if room.ai_busy {
                TakenUp::Nothing
            } else {
                TakenUp::Start
            }
        } else {
            TakenUp::Clear
        })
    }
}

/// Each server writes its heartbeat this often (RULES.md, "Clocks and
/// outages"): a clock given back the time of an outage is given at most
/// this much of its player's own thinking with it.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
/// A server silent this long is dead: a game it served is taken over, and
/// the outage credited, by the next server that loads it.
pub const DEAD_AFTER: Duration = Duration::from_secs(5);

impl Games {
    /// Every [`HEARTBEAT_EVERY`]: this server's heartbeat.
    pub(super) fn spawn_heartbeat(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(HEARTBEAT_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                Games(inner).heartbeat().await;
            }
        });
    }

    /// Records that this server is alive now, and that it serves the timed
    /// games in its memory still going (those whose server died meanwhile now
    /// point here: it served them all along, nothing to credit). The task
    /// above calls it; tests call it to fix the last heartbeat.
    pub async fn heartbeat(&self) {
        let rooms: Vec<RoomRef> = self
            .rooms()
            .values()
            .filter_map(|c| c.get().cloned())
            .collect();
        // A room busy now is in use: the next beat sees it. Only a clock
        // is owed an outage.
        let held: Vec<String> = rooms
            .iter()
            .filter_map(|r| {
                r.peek(|room| {
                    (!room.is_over() && room.info.clock.is_some()).then(|| room.id().to_string())
                })
                .flatten()
            })
            .collect();
        let now = self.now();
        let dead_before = now - DEAD_AFTER.as_millis() as i64;
        match self
            .0
            .store
            .heartbeat(self.0.server.clone(), now, held, dead_before)
            .await
        {
            Ok(()) => self.0.beaten.store(true, Ordering::SeqCst),
            Err(e) => tracing::debug!("heartbeat: {e}"),
        }
    }

    /// A game just loaded: if the server that served it is dead, this one
    /// takes it over, and the player to act is given back the time no
    /// server ran it (RULES.md, "Clocks and outages"): from that server's
    /// last heartbeat (or the start of his time, if later) to this
    /// server's start (or now, if earlier). Exactly the gap: his thinking
    /// before it stays his. A failure only leaves the clock as it was.
    pub(super) async fn take_over(&self, room: &mut Room) {
        if room.is_over() || room.info.clock.is_none() {
            return;
        }
        let now = self.now();
        let dead_before = now - DEAD_AFTER.as_millis() as i64;
        let id = room.id().to_string();
        let alive_at = match self
            .0
            .store
            .take_over(id.clone(), self.0.server.clone(), dead_before)
            .await
        {
            Ok(Some(at)) => at,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!("game {id}: cannot take it over: {e}");
                return;
            }
        };
        let Some(from) = room.period_start() else {
            return;
        };
        let gap = now.min(self.0.started) - alive_at.max(from);
        if gap <= 0 {
            return;
        }
        let credits = room.credits_with(gap);
        let before = std::mem::replace(&mut room.info.credits, credits.clone());
        let deadline = room.deadline();
        // A conflict is another server's change: the clock as it was, and
        // its notice brings the change.
        let change = GameChange::Credit { credits, deadline };
        match self.store_change(room, room.at(), change).await {
            Ok(()) => {
                room.info.deadline = deadline;
                tracing::info!("game {id}: {gap} ms given back for an outage");
            }
            Err(e) => {
                room.info.credits = before;
                tracing::warn!("game {id}: cannot give back the outage's time: {e}");
            }
        }
    }

    /// Several servers on one store: each change another server commits
    /// is taken into the room here, if this server has it in memory, and
    /// reaches its sockets.
    pub(super) fn spawn_listener(self, mut notices: tokio::sync::broadcast::Receiver<Notice>) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            loop {
                let notice = notices.recv().await;
                let Some(inner) = weak.upgrade() else { return };
                let games = Games(inner);
                if let (Some(o), Ok(_)) = (games.observer(), &notice) {
                    o.notice();
                }
                match notice {
                    Ok(Notice::Changed { game, .. }) => games.refresh_soon(game),
                    Ok(Notice::Lobby(ev)) => {
                        // Another server's chat message: to the sockets here.
                        if let Some(id) = ev.strip_prefix("chat ") {
                            games.deliver_chat(id.to_string()).await;
                        }
                    }

                    Ok(Notice::Missed) | Err(RecvError::Lagged(_)) => {
                        let ids: Vec<String> = games.rooms().keys().cloned().collect();
                        // Behind until every game in memory is caught up
                        // (a balancer asks `/readyz`).
                        games.0.catching_up.fetch_add(1, Ordering::SeqCst);
                        let all = games.clone();
                        tokio::spawn(async move {
                            let refreshes = ids.iter().map(|id| all.refresh(id));
                            futures_util::future::join_all(refreshes).await;
                            all.0.catching_up.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        });
    }

    /// Refreshes a game in memory from the store, in a task of its own:
    /// notices of different games are taken in at the same time (one at a
    /// time, each waiting for the database, would fall behind the actions
    /// of a busy site), and the notices of one game that arrive while its
    /// refresh runs are served by one more refresh, not one each.
    pub(super) fn refresh_soon(&self, id: String) {
        if self.rooms().get(&id).is_none_or(|c| c.get().is_none()) {
            return; // not in memory: it is loaded fresh when asked for
        }
        {
            let mut pending = self.0.refreshing.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(again) = pending.get_mut(&id) {
                *again = true;
                return;
            }
            pending.insert(id.clone(), false);
        }
        let games = self.clone();
        let heard = std::time::Instant::now();
        tokio::spawn(async move {
            loop {
                games.refresh(&id).await;
                if let Some(o) = games.observer() {
                    o.caught_up(heard.elapsed());
                }
                let mut pending = games.0.refreshing.lock().unwrap_or_else(|e| e.into_inner());
                match pending.get_mut(&id) {
                    Some(again) if *again => *again = false,
                    _ => {
                        pending.remove(&id);
                        return;
                    }
                }
            }
        });
    }

    /// Whether every notice missed (the store reconnected) has been
    /// caught up with.
    pub fn caught_up(&self) -> bool {
        self.0.catching_up.load(Ordering::SeqCst) == 0
    }

    /// Loads again what the store has of a game in memory and takes it in;
    /// a room that disagrees with the store is dropped (the next request
    /// loads it whole).
    pub(super) async fn refresh(&self, id: &str) {
        let Some(room_ref) = self.rooms().get(id).and_then(|c| c.get().cloned()) else {
            return; // not in memory: it is loaded fresh when asked for
        };
        let _ = self.on_room(&room_ref, CatchUpNow).await;
    }

    /// Takes in, under the room's lock, what the store has after the
    /// room's own ply (other servers' actions, a seat claimed elsewhere);
    /// `false` when the room disagreed with the store and was dropped, or
    /// the store could not be read.
    pub(super) async fn catch_up_locked(&self, room_ref: &RoomRef, room: &mut Room) -> bool {
        let id = room.id().to_string();
        let after = room.ply();
        match self.0.store.load_game_after(id.clone(), after).await {
            Ok(Some(stored)) if stored.info.takebacks != room.info.takebacks => {
                // Another server took back: the log is not an extension
                // of this room's, so the whole game is loaded again.
                let reloaded = match self.0.store.load_game(id.clone()).await {
                    Ok(Some(whole)) => room.reload(whole, self.0.settings.max_plies),
                    Ok(None) => Err("it is gone from the store".into()),
                    Err(e) => Err(e.to_string()),
                };
                match reloaded {
                    Ok(()) => {
                        if room.ai_to_move() {
                            self.start_ai(room_ref.clone());
                        }
                        true
                    }
                    Err(e) => {
                        tracing::warn!("game {id}: cannot reload after a takeback: {e}");
                        self.evict(room_ref, room);
                        false
                    }
                }
            }
            Ok(Some(stored)) => match room.catch_up(stored) {
                Ok(_) => {
                    if room.ai_to_move() {
                        self.start_ai(room_ref.clone());
                    }
                    true
                }
                Err(e) => {
                    tracing::warn!("game {id}: {e}; dropped from memory");
                    self.evict(room_ref, room);
                    false
                }
            },
            Ok(None) => {
                self.evict(room_ref, room);
                false
            }
            Err(e) => {
                tracing::warn!("game {id}: cannot take in a change: {e}");
                false
            }
        }
    }

    /// Several servers on one store: the games in memory that the store has
    /// more actions of than this server (a notice lost: its server died
    /// between its commit and its notice) are caught up. One query for
    /// all of them, every sweep.
    pub(super) async fn catch_up_sweep(&self) {
        let behind = self.behind_the_store(|_| true).await;
        for id in behind {
            tracing::info!("game {id}: not what the store has (a notice was lost)");
            self.refresh(&id).await;
        }
    }

    /// The games in memory that `keep` selects whose actions in the store
    /// are not this server's (more: another process's; fewer: a takeback
    /// elsewhere). One query for all of them. A room busy now is being
    /// changed: it is left to the next look.
    async fn behind_the_store(&self, keep: impl Fn(&Room) -> bool) -> Vec<String> {
        let held: Vec<(String, Ply)> = {
            let rooms: Vec<RoomRef> = self
                .rooms()
                .values()
                .filter_map(|c| c.get().cloned())
                .collect();
            rooms
                .iter()
                .filter_map(|r| {
                    r.peek(|room| keep(room).then(|| (room.id().to_string(), room.ply())))
                        .flatten()
                })
                .collect()
        };
        if held.is_empty() {
            return Vec::new();
        }
        let ids = held.iter().map(|(id, _)| id.clone()).collect();
        match self.0.store.latest_plies(ids).await {
            Ok(stored) => {
                // A game left out has no action stored.
                let stored: HashMap<String, Ply> = stored.into_iter().collect();
                held.into_iter()
                    .filter(|(id, have)| stored.get(id).copied().unwrap_or(Ply::ZERO) != *have)
                    .map(|(id, _)| id)
                    .collect()
            }
            Err(e) => {
                tracing::warn!("cannot compare the games in memory with the store: {e}");
                Vec::new()
            }
        }
    }

    /// Several servers on one store: every few seconds, the games this
    /// server holds are compared with the store (a lost notice).
    pub(super) fn spawn_catch_up(self) {
        self.every(Duration::from_secs(2), |games| async move {
            games.catch_up_sweep().await;
        });
    }

    /// Every `every` (the first at once): the AI turns due that no live
    /// claim covers are taken up, as many as this process has threads
    /// for (a web server's after a restart or another's death; a worker's
    /// always).
    pub(super) fn spawn_ai_sweep(self, every: Duration) {
        self.every(every, |games| async move {
            games.take_up_ai_turns().await;
        });
    }

    /// A web server whose AI turns workers compute, on a store without
    /// notices (SQLite): every 200 ms, the games in memory waiting for the
    /// AI are compared with the store, and a worker's move taken in.
    pub(super) fn spawn_ai_watch(self) {
        self.every(Duration::from_millis(200), |games| async move {
            games.watch_ai_turns().await;
        });
    }

    /// Runs `f` every `every` (the first at once) while the games live.
    fn every<F, Fut>(self, every: Duration, f: F)
    where
        F: Fn(Games) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send,
    {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                f(Games(inner)).await;
            }
        });
    }

    /// Takes up the AI turns due that no live claim covers (docs/DEPLOY.md,
    /// "AI workers"): only as many as this process's threads can start
    /// soon, since a turn claimed and left waiting is kept from the others
    /// until its lease lapses; and only those games are loaded. A mark the
    /// game's state contradicts (the AI is not to act there) is cleared.
    pub async fn take_up_ai_turns(&self) {
        if self.0.settings.ai_role == AiRole::Elsewhere || self.0.ai_stopped.load(Ordering::SeqCst)
        {
            return;
        }
        let stats = self.0.ai.stats();
        // Each thread one running and one waiting: no thread idles
        // between two sweeps.
        let room =
            (2 * self.0.settings.ai_threads.max(1)).saturating_sub(stats.running + stats.waiting);
        if room == 0 {
            return;
        }
        let dead_before = self.now() - DEAD_AFTER.as_millis() as i64;
        let due = match self.fairly_due(dead_before, room).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!("cannot list the AI turns due: {e}");
                return;
            }
        };
        for DueTurn {
            game: id,
            ply,
            client,
            ..
        } in due
        {
            let room_ref = match self.room(&id).await {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!("game {id}: cannot take up its AI turn: {e}");
                    continue;
                }
            };
            match self.on_room(&room_ref, TakeUp { ply, client }).await {
                Ok(TakenUp::Start) => self.start_ai(room_ref),
                Ok(TakenUp::Nothing) => {}
                Ok(TakenUp::Clear) => {
                    if let Err(e) = self.0.store.clear_ai_turn(id.clone(), ply).await {
                        tracing::warn!("game {id}: cannot clear its AI mark: {e}");
                    }
                }
                Err(e) => tracing::warn!("game {id}: cannot take up its AI turn: {e}"),
            }
        }
    }

    /// The first `room` AI turns due in the workers' fair order
    /// ([`crate::ai::usage`]): round by round, the address that searched
    /// least lately first.
    async fn fairly_due(&self, dead_before: i64, room: usize) -> Result<Vec<DueTurn>, StoreError> {
        let due = self.0.store.due_ai_turns(dead_before, room as u32).await?;
        let clients = due.iter().filter_map(|t| t.client.as_deref());
        let usage = crate::ai::usage::read(self.0.store.as_ref(), clients, self.now()).await?;
        let mut due = crate::ai::usage::fair_order(due, &usage);
        due.truncate(room);
        Ok(due)
    }

    /// Records that address `client` searched `ms` just now (a worker's
    /// search), for the workers' order.
    pub(super) async fn charge_ai_usage(&self, client: String, ms: f64) {
        crate::ai::usage::charge(self.0.store.as_ref(), client, ms, self.now()).await;
    }

    /// Takes in the workers' moves in the games in memory waiting for the
    /// AI (a store without notices): one query for all of them.
    pub(super) async fn watch_ai_turns(&self) {
        for id in self.behind_the_store(Room::ai_to_move).await {
            self.refresh(&id).await;
        }
    }

    /// A worker stops (SIGTERM): it takes up no more turns, lets the
    /// searches it has finish (within `bound`), then gives up its claims,
    /// so that the other workers take its turns at once.
    pub async fn stop_ai(&self, bound: Duration) {
        self.0.ai_stopped.store(true, Ordering::SeqCst);
        let _ = tokio::time::timeout(bound, async {
            loop {
                let s = self.0.ai.stats();
                if s.running + s.waiting == 0 {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        if let Err(e) = self.0.store.release_ai_claims().await {
            tracing::warn!("cannot give up the AI claims: {e}");
        }
    }
}
