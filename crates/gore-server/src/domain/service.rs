//! The game operations behind the edges: create, load, play, claim a link,
//! rematch, and the AI's turns. Every change is committed to the store
//! before it is applied for anyone to see, and broadcast after.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};

use gore_ai::{Engine, Level, Options};
use gore_core::{Action, Player, Position, Rules};
use gore_solver::perfect::Perfect;
use rand::Rng;
use tokio::sync::{Mutex, OnceCell};

use super::clock::{self, Clock, TimeControl};
use super::room::GameState;
use super::{
    new_id, new_token, same_secret, valid_id, GameError, GameInfo, Mode, PerSeat, Room, Seat,
    Status,
};
use crate::ai::{AiBusy, AiJob, AiPool, AiTicket, ClientKey};
use crate::store::{GameChange, Notice, Store, StoreError};
use gore_core::Forfeit;
use tokio::sync::broadcast::error::RecvError;

/// A room, shared.
pub type RoomRef = Arc<Mutex<Room>>;

/// Each server writes its spectator counts this often.
pub const SPECTATORS_EVERY: Duration = Duration::from_secs(3);
/// Counts older than this are a stopped server's: not counted.
pub const SPECTATORS_FRESH: Duration = Duration::from_secs(15);

/// The longest chat message, in characters.
pub const CHAT_MAX_CHARS: usize = 200;
/// Chat messages per seat in 10 seconds, at most.
pub const CHAT_PER_10S: usize = 5;

/// Idle rooms nobody watches are dropped from memory after this long.
const IDLE_ROOM: Duration = Duration::from_secs(600);
/// Each server writes its heartbeat this often (RULES.md, "Clocks and
/// outages"): a clock given back the time of an outage is given at most
/// this much of its player's own thinking with it.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
/// A server silent this long is dead: a game it served is taken over, and
/// the outage credited, by the next server that loads it.
pub const DEAD_AFTER: Duration = Duration::from_secs(5);

/// A new game, its fields read and checked by the edge.
#[derive(Debug, Clone)]
pub struct NewGameSpec {
    /// ai, friend or local.
    pub mode: Mode,
    /// The rule set.
    pub rules: Rules,
    /// The start position (valid under `rules`, not ended).
    pub start: Position,
    /// The AI's level.
    pub level: Level,
    /// The AI is the solver's perfect player (`level` above its database).
    pub perfect: bool,
    /// The AI accepts every offer.
    pub honourable: bool,
    /// The creator's colour (ai and friend games); `None`: drawn at random.
    pub colour: Option<Player>,
    /// The clock (games between people); `None`: untimed.
    pub clock: Option<TimeControl>,
    /// The creator's display name (a browser's; `None` for a bot).
    pub name: Option<String>,
    /// The creator's public id (a browser's; `None` for a bot).
    pub player: Option<String>,
}

/// A seat given to a caller: by a creation, a rematch or a claimed link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatGrant {
    /// The game.
    pub id: String,
    /// The seat.
    pub seat: Seat,
    /// Its secret.
    pub token: String,
    /// The friend's invitation code, for the creator of a friend game.
    pub invite: Option<String>,
}

/// What the domain is given by the operator.
#[derive(Debug, Clone)]
pub struct GameSettings {
    /// Plies per game at most.
    pub max_plies: u32,
    /// The AI's time at the top level.
    pub ai_time: Duration,
    /// Searches at once.
    pub ai_threads: usize,
    /// AI turns waiting for a thread, at most.
    pub ai_queue: usize,
    /// AI turns in flight per client address, at most.
    pub ai_per_client: usize,
    /// The perfect players of the solver's database (`--solver-db`), one
    /// per no-trade rule set it holds layers of; none without a database.
    pub perfect: Vec<Arc<Perfect>>,
    /// The database as the top level's leaf evaluation, one per rule set
    /// it holds (`skip-origin` or not), in every game of those rules,
    /// trades or not; none without a database.
    pub oracles: Vec<Arc<crate::oracle::DbOracle>>,
    /// The server's time (the system's; a manual one in tests).
    pub clock: Clock,
}

/// The oracle among `oracles` for the AI at `level` in games of `rules`:
/// the top level's only, of the same `skip-origin`.
fn oracle_for(
    oracles: &[Arc<crate::oracle::DbOracle>],
    level: Level,
    rules: Rules,
) -> Option<Arc<dyn gore_ai::Oracle>> {
    if !level.is_max() {
        return None;
    }
    let skip = rules.variant.skip_origin;
    oracles
        .iter()
        .find(|o| o.skip_origin() == skip)
        .map(|o| Arc::clone(o) as Arc<dyn gore_ai::Oracle>)
}

/// The deepest search that still counts as short: the levels that search
/// no deeper keep a thread of their own, which the deeper ones (and the
/// top level, bounded by time only) may not take (crate::ai's policy).
const CHEAP_DEPTH: u32 = 9;

/// The highest cheap level: the AI job's cost is its level, so the pool's
/// `cheap_max` is the last level of the ladder's prefix whose depth caps
/// are at most [`CHEAP_DEPTH`]. Read from the profiles, so that it follows
/// the ladder when levels are added or re-spaced.
fn cheap_level() -> u32 {
    Level::all()
        .take_while(|l| l.profile().depth.is_some_and(|d| d <= CHEAP_DEPTH))
        .last()
        .map_or(0, |l| u32::from(l.get()))
}

/// Every game, in memory as needed and in the store always. Cheap to clone.
#[derive(Clone)]
pub struct Games(Arc<Inner>);

struct Inner {
    store: Arc<dyn Store>,
    /// One cell per game being loaded or loaded: a game is loaded once
    /// however many requests ask for it at the same time.
    rooms: StdMutex<HashMap<String, Arc<OnceCell<RoomRef>>>>,
    settings: GameSettings,
    /// Every AI search runs here (crate::ai): fair and bounded.
    ai: AiPool,
    /// Games whose AI turn was refused for want of capacity, retried when
    /// a search ends (oldest first).
    ai_retry: StdMutex<Vec<String>>,
    /// Other servers write to the same store (it sends notices): a room
    /// in memory may be behind it.
    shared: bool,
    /// Games being refreshed from the store, and whether another notice
    /// came meanwhile ([`Games::refresh_soon`]).
    refreshing: StdMutex<HashMap<String, bool>>,
    /// Rated games are rated here when they end.
    ratings: super::ratings::Ratings,
    /// This server's name among those that count spectators.
    server: String,
    /// When this server started (Unix ms, its clock): an outage of a game
    /// ends here at the latest.
    started: i64,
    /// Each seat's latest chat messages (Unix ms), for its rate limit.
    chat_times: StdMutex<HashMap<(String, Player), std::collections::VecDeque<i64>>>,
}

fn store_error(e: StoreError) -> GameError {
    match e {
        StoreError::Conflict => GameError::Raced,
        StoreError::Failed(_) => GameError::Unavailable,
        e => {
            tracing::error!("{e}");
            GameError::Internal(
                "the server could not save the game; nothing was changed, try again".into(),
            )
        }
    }
}

fn join_error(e: tokio::task::JoinError) -> GameError {
    tracing::error!("a game task failed: {e}");
    GameError::Internal("the server failed on this request; nothing was changed".into())
}

impl Games {
    /// The games kept in `store`; starts the AI's threads and the
    /// housekeeping tasks (which needs a Tokio runtime).
    pub fn new(store: Arc<dyn Store>, settings: GameSettings) -> std::io::Result<Games> {
        let ai = AiPool::new(
            settings.ai_threads,
            settings.ai_queue,
            settings.ai_per_client,
            cheap_level(),
        )?;
        let notices = store.notices();
        let ratings =
            super::ratings::Ratings::new(store.clone(), settings.clock.clone(), settings.max_plies);
        let games = Games(Arc::new(Inner {
            started: settings.clock.now_ms(),
            ratings,
            chat_times: StdMutex::new(HashMap::new()),
            server: new_id(),
            rooms: StdMutex::new(HashMap::new()),
            ai,
            ai_retry: StdMutex::new(Vec::new()),
            shared: notices.is_some(),
            refreshing: StdMutex::new(HashMap::new()),
            store,
            settings,
        }));
        games.clone().spawn_janitor();
        games.clone().spawn_heartbeat();
        games.clone().spawn_referee();
        games.clone().spawn_spectator_counts();
        games.clone().resume_ai_games();
        if let Some(notices) = notices {
            games.clone().spawn_listener(notices);
            games.clone().spawn_ai_sweep();
        }
        Ok(games)
    }

    /// Why the store takes no writes, once it failed.
    pub fn failure(&self) -> Option<String> {
        self.0.store.failure()
    }

    fn rooms(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<OnceCell<RoomRef>>>> {
        self.0.rooms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every minute: forget idle rooms nobody watches.
    fn spawn_janitor(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                Games(inner).rooms().retain(|_, cell| {
                    if Arc::strong_count(cell) > 1 {
                        return true; // being loaded or used right now
                    }
                    match cell.get().map(|r| r.try_lock()) {
                        None => false,
                        Some(Ok(r)) => {
                            r.watchers() > 0 || r.ai_busy || r.touched.elapsed() < IDLE_ROOM
                        }
                        Some(Err(_)) => true,
                    }
                });
            }
        });
    }

    /// A spectator's socket opened (`open`) or closed on this server.
    pub async fn spectating(&self, id: &str, open: bool) {
        if let Ok(room_ref) = self.room(id).await {
            let mut room = room_ref.lock().await;
            room.spectators = if open {
                room.spectators + 1
            } else {
                room.spectators.saturating_sub(1)
            };
        }
    }

    /// Every few seconds: this server's spectators per game, to the store
    /// (the lobby sums every server's).
    fn spawn_spectator_counts(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(SPECTATORS_EVERY);
            let mut last: Vec<(String, u32)> = Vec::new();
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                let games = Games(inner);
                let rooms: Vec<RoomRef> = games
                    .rooms()
                    .values()
                    .filter_map(|c| c.get().cloned())
                    .collect();
                let mut counts = Vec::new();
                for r in rooms {
                    if let Ok(room) = r.try_lock() {
                        if room.spectators > 0 && !room.is_over() {
                            counts.push((room.info.id.clone(), room.spectators as u32));
                        }
                    }
                }
                counts.sort();
                // Written when they change, and every time while there are
                // any (their time keeps them counted).
                if counts != last || !counts.is_empty() {
                    let now = games.now();
                    match games
                        .0
                        .store
                        .set_watchers(games.0.server.clone(), counts.clone(), now)
                        .await
                    {
                        Ok(()) => last = counts,
                        Err(e) => tracing::debug!("spectator counts: {e}"),
                    }
                }
            }
        });
    }

    /// The spectators of each of `ids` on every server (counted within the
    /// last [`SPECTATORS_FRESH`]).
    pub async fn spectators(&self, ids: Vec<String>) -> HashMap<String, u32> {
        let since = self.now() - SPECTATORS_FRESH.as_millis() as i64;
        match self.0.store.watchers(ids, since).await {
            Ok(v) => v.into_iter().collect(),
            Err(_) => HashMap::new(),
        }
    }

    /// A socket of `seat` opened (`open`) or closed on this server: when a
    /// player of a game between people has no socket left here, the store
    /// records since when he is away; when one opens, that he is back.
    /// Every socket hears of it. (Sockets of one seat on two servers: the
    /// last to close marks him away; the next to open, back.)
    pub async fn presence(&self, id: &str, seat: Seat, open: bool) {
        let p = match seat {
            Seat::A => Player::A,
            Seat::B => Player::B,
            Seat::Both => return,
        };
        let Ok(room_ref) = self.room(id).await else {
            return;
        };
        let mut room = room_ref.lock().await;
        if room.info.mode != Mode::Friend {
            return;
        }
        let i = p.index();
        room.present[i] = if open {
            room.present[i] + 1
        } else {
            room.present[i].saturating_sub(1)
        };
        let away = match (open, room.present[i]) {
            (true, _) if room.info.away[i].is_some() => None,
            (false, 0) if room.info.away[i].is_none() && !room.is_over() => Some(self.now()),
            _ => return,
        };
        if let Err(e) = self.0.store.set_away(id.to_string(), p, away).await {
            tracing::warn!("game {id}: cannot record {p} away: {e}");
            return;
        }
        room.info.away[i] = away;
        let ply = room.ply();
        room.changed(ply);
    }

    /// A request of `seat` on HTTP (an action, a read of the game, a
    /// takeback, a chat message): a sign of life. A player without a
    /// socket is away from his last one, not from his socket's close
    /// (RULES.md, "Leaving"); recorded (and every socket told) when it
    /// moves his away time. A failure to record it is only logged: the
    /// request itself goes on.
    async fn alive(&self, room: &mut Room, seat: Seat) {
        let p = match seat {
            Seat::A => Player::A,
            Seat::B => Player::B,
            Seat::Both => return,
        };
        let Some(at) = room.sign_of_life(p, self.now()) else {
            return;
        };
        if self.failure().is_some() {
            return; // the store takes no writes: nothing to log per request
        }
        if let Err(e) = self
            .0
            .store
            .set_away(room.id().to_string(), p, Some(at))
            .await
        {
            tracing::warn!("game {}: cannot record {p}'s sign of life: {e}", room.id());
            return;
        }
        room.info.away[p.index()] = Some(at);
        let ply = room.ply();
        room.changed(ply);
    }

    /// A message on a socket of `seat`: a sign of life (see
    /// `Games::alive`); cheap unless he is marked away.
    pub async fn sign_of_life(&self, id: &str, seat: Seat) {
        if let Ok(room_ref) = self.room(id).await {
            let mut room = room_ref.lock().await;
            self.alive(&mut room, seat).await;
        }
    }

    /// The holder of `token` claims the win: his opponent left (RULES.md,
    /// "Leaving": in a timed game, disconnected for 60 s; untimed, 3 days
    /// without his action; correspondence, the clock decides).
    pub async fn claim_win(&self, id: &str, token: Option<String>) -> Result<GameState, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            // Judged on the store's truth: the opponent's sign of life may
            // have reached another server a moment ago.
            if games.0.shared && !games.catch_up_locked(&room_ref, &mut room).await {
                return Err(GameError::Unavailable);
            }
            let seat = seat_for(&room, token.as_deref())?;
            if games.enforce_clock(&room_ref, &mut room).await {
                return Ok(room.view(Some(seat)));
            }
            room.check_playing()?;
            let me = match (room.info.mode, seat) {
                (Mode::Friend, Seat::A) => Player::A,
                (Mode::Friend, Seat::B) => Player::B,
                _ => {
                    return Err(GameError::Refused(
                        "only a player of a game between people may claim it",
                    ))
                }
            };
            let at = room.claimable_at(me)?;
            if games.now() < at {
                return Err(GameError::Refused(
                    "too soon: your opponent may still come back",
                ));
            }
            if room.info.rated && !room.both_have_acted() {
                // A rated game counts once each has acted (RULES.md): no
                // win to claim before, and the abort is the one who left's.
                games.abort_by(&room_ref, &mut room, me.opponent()).await?;
                tracing::info!(
                    "game {}: {} left before acting: aborted",
                    room.id(),
                    me.opponent()
                );
                return Ok(room.view(Some(seat)));
            }
            games
                .end_game(&room_ref, &mut room, Forfeit::Left(me.opponent()))
                .await?;
            tracing::info!("game {}: {me} claimed the win", room.id());
            Ok(room.view(Some(seat)))
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// Sends a seated player's chat message (games between people): plain
    /// text, 1 to [`CHAT_MAX_CHARS`] characters, at most
    /// [`CHAT_PER_10S`] messages per seat in 10 seconds. Stored, then sent
    /// to both players' sockets on every server (spectators get none).
    pub async fn chat(
        &self,
        id: &str,
        token: Option<String>,
        text: &str,
    ) -> Result<crate::store::ChatLine, GameError> {
        let room_ref = self.room(id).await?;
        let player = {
            let mut room = room_ref.lock().await;
            let seat = seat_for(&room, token.as_deref())?;
            if room.info.mode != Mode::Friend {
                return Err(GameError::Refused("chat is for games between two people"));
            }
            self.alive(&mut room, seat).await;
            match seat {
                Seat::A => Player::A,
                Seat::B => Player::B,
                Seat::Both => return Err(GameError::NoSeat),
            }
        };
        let text = text.trim();
        let n = text.chars().count();
        if n == 0 || n > CHAT_MAX_CHARS {
            return Err(GameError::BadField {
                field: "text",
                why: format!("a message has 1 to {CHAT_MAX_CHARS} characters"),
            });
        }
        if text.chars().any(|c| c.is_control()) {
            return Err(GameError::BadField {
                field: "text",
                why: "a message is one line of text".into(),
            });
        }
        let now = self.now();
        {
            let mut times = self.0.chat_times.lock().unwrap_or_else(|e| e.into_inner());
            let q = times.entry((id.to_string(), player)).or_default();
            while q.front().is_some_and(|&t| t <= now - 10_000) {
                q.pop_front();
            }
            if q.len() >= CHAT_PER_10S {
                return Err(GameError::ChatTooFast(CHAT_PER_10S));
            }
            q.push_back(now);
        }
        let line = self
            .0
            .store
            .post_chat(id.to_string(), player, text.to_string(), now)
            .await
            .map_err(store_error)?;
        self.0.store.announce_lobby(format!("chat {id}"));
        self.deliver_chat(id.to_string()).await;
        Ok(line)
    }

    /// The chat so far, for a seated player (spectators get none).
    pub async fn chat_history(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<Vec<crate::store::ChatLine>, GameError> {
        let room_ref = self.room(id).await?;
        {
            let room = room_ref.lock().await;
            match token.and_then(|t| room.seat_of(t)) {
                Some(Seat::A | Seat::B) if room.info.mode == Mode::Friend => {}
                _ => return Ok(Vec::new()),
            }
        }
        self.0
            .store
            .chat_after(id.to_string(), 0)
            .await
            .map_err(store_error)
    }

    /// Reports message `n` for the seated player: recorded (the page
    /// hides that player's messages for the reporter).
    pub async fn report_chat(
        &self,
        id: &str,
        token: Option<String>,
        n: u32,
    ) -> Result<(), GameError> {
        let room_ref = self.room(id).await?;
        let reporter = {
            let room = room_ref.lock().await;
            match seat_for(&room, token.as_deref())? {
                Seat::A => Player::A,
                Seat::B => Player::B,
                Seat::Both => return Err(GameError::NoSeat),
            }
        };
        self.0
            .store
            .report_chat(id.to_string(), n, reporter, self.now())
            .await
            .map_err(store_error)
    }

    /// Sends the chat messages of a game in memory that its sockets here
    /// have not had.
    async fn deliver_chat(&self, id: String) {
        let Some(room_ref) = self.rooms().get(&id).and_then(|c| c.get().cloned()) else {
            return;
        };
        let seen = room_ref.lock().await.chat_seen;
        match self.0.store.chat_after(id, seen).await {
            Ok(lines) => room_ref.lock().await.chat_send(lines),
            Err(e) => tracing::warn!("chat: {e}"),
        }
    }

    /// The ratings.
    pub fn ratings(&self) -> &super::ratings::Ratings {
        &self.0.ratings
    }

    /// A rated game just ended: its players' ratings move (in a task of
    /// its own; the sweep retries what fails).
    fn rate_soon(&self, room: &Room) {
        if !room.info.rated {
            return;
        }
        let ratings = self.0.ratings.clone();
        let id = room.info.id.clone();
        tokio::spawn(async move {
            if let Err(e) = ratings.settle(&id).await {
                tracing::warn!("game {id}: not rated yet: {e}");
            }
        });
    }

    /// Now, by the server's clock.
    fn now(&self) -> i64 {
        self.0.settings.clock.now_ms()
    }

    /// Every [`HEARTBEAT_EVERY`]: this server's heartbeat.
    fn spawn_heartbeat(self) {
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
        let mut held = Vec::new();
        for r in rooms {
            // A room busy now is in use: the next beat sees it.
            if let Ok(room) = r.try_lock() {
                // Only a clock is owed an outage.
                if !room.is_over() && room.info.clock.is_some() {
                    held.push(room.id().to_string());
                }
            }
        }
        let now = self.now();
        let dead_before = now - DEAD_AFTER.as_millis() as i64;
        if let Err(e) = self
            .0
            .store
            .heartbeat(self.0.server.clone(), now, held, dead_before)
            .await
        {
            tracing::debug!("heartbeat: {e}");
        }
    }

    /// A game just loaded: if the server that served it is dead, this one
    /// takes it over, and the player to act is given back the time no
    /// server ran it (RULES.md, "Clocks and outages"): from that server's
    /// last heartbeat (or the start of his time, if later) to this
    /// server's start (or now, if earlier). Exactly the gap: his thinking
    /// before it stays his. A failure only leaves the clock as it was.
    async fn take_over(&self, room: &mut Room) {
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
        match self
            .0
            .store
            .change_game(
                id.clone(),
                room.at(),
                GameChange::Credit { credits, deadline },
                now,
            )
            .await
        {
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

    /// Every second: the games whose time is up are ended (a flag, or an
    /// abort of a first action never made), even with nobody connected.
    /// Any server may end any game: the store takes the first.
    fn spawn_referee(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                Games(inner).settle_clocks().await;
            }
        });
    }

    /// Ends every game whose deadline has passed by the server's clock (a
    /// loss on time, or an abort); returns how many it ended. The referee
    /// calls it every second; tests call it after moving their clock.
    pub async fn settle_clocks(&self) -> usize {
        let ids = match self.0.store.due_games(self.now(), 500).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!("cannot list the games whose time is up: {e}");
                return 0;
            }
        };
        let mut ended = 0;
        for id in ids {
            let Ok(room_ref) = self.room(&id).await else {
                continue;
            };
            let mut room = room_ref.lock().await;
            if self.enforce_clock(&room_ref, &mut room).await {
                ended += 1;
            }
        }
        ended
    }

    /// Ends the game if its time is up (committed, then broadcast);
    /// `true` if it did.
    async fn enforce_clock(&self, room_ref: &RoomRef, room: &mut Room) -> bool {
        let Some(forfeit) = room.due() else {
            return false;
        };
        // A first action never made: the abort is the player's to act.
        let ended = match forfeit {
            Forfeit::Abort => {
                let late = room.game.position().to_move();
                self.abort_by(room_ref, room, late).await
            }
            _ => self.end_game(room_ref, room, forfeit).await,
        };
        match ended {
            Ok(()) => {
                tracing::info!("game {}: {}", room.id(), forfeit.as_str());
                true
            }
            Err(e) => {
                tracing::debug!("game {}: cannot end it on time: {e}", room.id());
                false
            }
        }
    }

    /// Commits a forfeit, applies it and tells every socket.
    async fn end_game(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        forfeit: Forfeit,
    ) -> Result<(), GameError> {
        let result = room.forfeit_result(forfeit);
        self.commit_change(room_ref, room, GameChange::Forfeit { forfeit, result })
            .await?;
        room.forfeit(forfeit);
        let ply = room.ply();
        room.changed(ply);
        if forfeit != Forfeit::Abort {
            self.rate_soon(room);
        }
        Ok(())
    }

    /// Ends the game as aborted by `player` (his abort, his resignation or
    /// his leaving before each player has acted, or his first action never
    /// made): in a game between people it is counted against him, for the
    /// lobby's abort limit ([`super::lobby::ABORT_LIMIT`]).
    async fn abort_by(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        player: Player,
    ) -> Result<(), GameError> {
        self.end_game(room_ref, room, Forfeit::Abort).await?;
        if room.info.mode != Mode::Friend {
            return Ok(());
        }
        if let Some(who) = room.info.players[player.index()].clone() {
            // Committed already: a failure here costs only the count.
            if let Err(e) = self
                .0
                .store
                .record_abort(who, room.id().to_string(), self.now())
                .await
            {
                tracing::warn!("game {}: abort not counted: {e}", room.id());
            }
        }
        Ok(())
    }

    /// Several servers on one store: each change another server commits
    /// is taken into the room here, if this server has it in memory, and
    /// reaches its sockets.
    fn spawn_listener(self, mut notices: tokio::sync::broadcast::Receiver<Notice>) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            loop {
                let notice = notices.recv().await;
                let Some(inner) = weak.upgrade() else { return };
                let games = Games(inner);
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
                        for id in ids {
                            games.refresh_soon(id);
                        }
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
    fn refresh_soon(&self, id: String) {
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
        tokio::spawn(async move {
            loop {
                games.refresh(&id).await;
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

    /// Loads again what the store has of a game in memory and takes it in;
    /// a room that disagrees with the store is dropped (the next request
    /// loads it whole).
    async fn refresh(&self, id: &str) {
        let Some(room_ref) = self.rooms().get(id).and_then(|c| c.get().cloned()) else {
            return; // not in memory: it is loaded fresh when asked for
        };
        let mut room = room_ref.lock().await;
        self.catch_up_locked(&room_ref, &mut room).await;
    }

    /// Takes in, under the room's lock, what the store has after the
    /// room's own ply (other servers' actions, a seat claimed elsewhere);
    /// `false` when the room disagreed with the store and was dropped, or
    /// the store could not be read.
    async fn catch_up_locked(&self, room_ref: &RoomRef, room: &mut Room) -> bool {
        let id = room.id().to_string();
        let after = room.ply() as u32;
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
    async fn catch_up_sweep(&self) {
        let held: Vec<(String, u32)> = {
            let rooms: Vec<RoomRef> = self
                .rooms()
                .values()
                .filter_map(|c| c.get().cloned())
                .collect();
            let mut held = Vec::with_capacity(rooms.len());
            for r in rooms {
                // A room busy now is being changed: the next sweep sees it.
                if let Ok(room) = r.try_lock() {
                    held.push((room.id().to_string(), room.ply() as u32));
                }
            }
            held
        };
        if held.is_empty() {
            return;
        }
        let ids = held.iter().map(|(id, _)| id.clone()).collect();
        match self.0.store.latest_plies(ids).await {
            Ok(stored) => {
                // A game left out has no action stored. Fewer actions than
                // here means a takeback elsewhere.
                let stored: HashMap<String, u32> = stored.into_iter().collect();
                for (id, have) in held {
                    if stored.get(&id).copied().unwrap_or(0) != have {
                        tracing::info!("game {id}: not what the store has (a notice was lost)");
                        self.refresh(&id).await;
                    }
                }
            }
            Err(e) => tracing::warn!("cannot compare the games in memory with the store: {e}"),
        }
    }

    /// Several servers on one store: every few seconds, the games this
    /// server holds are compared with the store (a lost notice), and the
    /// ai games to move whose turn no server holds (its server died) are
    /// taken over.
    fn spawn_ai_sweep(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(2));
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                let games = Games(inner);
                games.catch_up_sweep().await;
                match games.0.store.active_ai_games(1000).await {
                    Ok(ids) => {
                        for id in ids {
                            if let Ok(room) = games.room(&id).await {
                                games.start_ai(room);
                            }
                        }
                    }
                    Err(e) => tracing::warn!("cannot list the ai games: {e}"),
                }
            }
        });
    }

    /// How long a server's claim on an AI turn lasts: longer than any
    /// search (the top level's time, five times over at most).
    fn ai_lease(&self) -> Duration {
        self.0.settings.ai_time * 10 + Duration::from_secs(5)
    }

    /// After a restart: load the ai games still going, which resumes the
    /// AI where it was to move.
    fn resume_ai_games(self) {
        tokio::spawn(async move {
            match self.0.store.active_ai_games(1000).await {
                Ok(ids) => {
                    for id in ids {
                        if let Err(e) = self.room(&id).await {
                            tracing::warn!("game {id}: cannot resume: {e}");
                        }
                    }
                }
                Err(e) => tracing::error!("cannot list the ai games to resume: {e}"),
            }
        });
    }

    /// A game's room, loaded from the store the first time it is touched;
    /// concurrent first requests share one load (single flight), which
    /// runs off the async threads.
    pub async fn room(&self, id: &str) -> Result<RoomRef, GameError> {
        if !valid_id(id) {
            return Err(GameError::NoGame);
        }
        let cell = self.rooms().entry(id.to_string()).or_default().clone();
        if let Some(r) = cell.get() {
            return Ok(r.clone());
        }
        let loaded = cell
            .get_or_try_init(|| async {
                let stored = self
                    .0
                    .store
                    .load_game(id.to_string())
                    .await
                    .map_err(|e| {
                        tracing::error!("game {id}: {e}");
                        GameError::Internal(
                            "this game's stored record is damaged and cannot be loaded".into(),
                        )
                    })?
                    .ok_or(GameError::NoGame)?;
                let n = stored.actions.len();
                let max_plies = self.0.settings.max_plies;
                let mut room = tokio::task::spawn_blocking(move || Room::load(stored, max_plies))
                    .await
                    .map_err(join_error)?
                    .map_err(|e| {
                        tracing::error!("game {id}: {e}");
                        GameError::Internal(
                            "this game's stored record is damaged and cannot be loaded".into(),
                        )
                    })?;
                room.clock = self.0.settings.clock.clone();
                self.take_over(&mut room).await;
                tracing::debug!("game {id} loaded ({n} actions)");
                Ok::<_, GameError>(Arc::new(Mutex::new(room)))
            })
            .await;
        match loaded {
            Ok(room) => {
                let room = room.clone();
                self.start_ai(room.clone());
                Ok(room)
            }
            Err(e) => {
                // Unknown ids must not fill the map.
                let mut rooms = self.rooms();
                if rooms.get(id).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
                    rooms.remove(id);
                }
                Err(e)
            }
        }
    }

    /// Drops a room from memory after a failure, so that the next request
    /// loads the truth from the store.
    fn evict(&self, room_ref: &RoomRef, room: &mut Room) {
        room.dead = true;
        room.close_channel();
        let mut rooms = self.rooms();
        if rooms
            .get(room.id())
            .and_then(|c| c.get())
            .is_some_and(|r| Arc::ptr_eq(r, room_ref))
        {
            rooms.remove(room.info.id.as_str());
        }
    }

    /// Whether a change of this room may be tried now.
    fn writable(&self, room: &Room) -> Result<(), GameError> {
        if room.dead {
            return Err(GameError::Internal(
                "the game is being reloaded; try again".into(),
            ));
        }
        if self.failure().is_some() {
            return Err(GameError::Unavailable);
        }
        Ok(())
    }

    /// Plays an action (the caller checked whose turn it is) on the game
    /// itself, commits it, then broadcasts it. An illegal action changes
    /// nothing; if the store refuses, the action is taken back (and, if
    /// another server stored one at this ply, that one taken in).
    async fn commit(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        action: Action,
    ) -> Result<(), GameError> {
        self.writable(room)?;
        // A resigned game's board is not over: the rules would play on.
        room.check_playing()?;
        let (since, status) = (room.ply(), room.info.status);
        let takebacks = room.info.takebacks;
        let stored = room.play(action, self.now())?;
        let ending = room.game.outcome().copied();
        let deadline = room.deadline();
        let id = room.info.id.clone();
        if let Err(e) = self
            .0
            .store
            .append_action(id, takebacks, stored, ending, deadline)
            .await
        {
            // Not acknowledged: the action is taken back here and the
            // room, its sockets with it, stays. (Had the commit gone
            // through after all, the store has it after `since` and a
            // catch-up takes it in again.) Another server's action at
            // this ply, or a takeback: take that in now.
            match room.rewind(since, status) {
                Ok(()) if matches!(e, StoreError::Conflict) => {
                    self.catch_up_locked(room_ref, room).await;
                }
                Ok(()) => {}
                Err(why) => {
                    tracing::warn!("game {}: {why}; dropped from memory", room.id());
                    self.evict(room_ref, room);
                }
            }
            return Err(store_error(e));
        }
        room.info.deadline = deadline;
        room.changed(since);
        if ending.is_some() {
            self.rate_soon(room);
        }
        Ok(())
    }

    /// Plays an action for the holder of `token` (from address `client`,
    /// if known: the AI's answer counts against it); returns the new state
    /// as that player sees it. Runs to its end even if the client goes away.
    pub async fn play(
        &self,
        id: &str,
        token: Option<String>,
        action: String,
        ply: Option<u64>,
        client: Option<IpAddr>,
    ) -> Result<GameState, GameError> {
        self.play_inner(id, token, action, ply, client, true)
            .await
            .map(|v| v.expect("a view was asked for"))
    }

    /// Plays an action for the holder of `token`, who hears of it through
    /// the update every socket receives: no whole state is built (its cost
    /// grows with the game).
    pub async fn play_quietly(
        &self,
        id: &str,
        token: Option<String>,
        action: String,
        ply: Option<u64>,
        client: Option<IpAddr>,
    ) -> Result<(), GameError> {
        self.play_inner(id, token, action, ply, client, false)
            .await
            .map(drop)
    }

    async fn play_inner(
        &self,
        id: &str,
        token: Option<String>,
        action: String,
        ply: Option<u64>,
        client: Option<IpAddr>,
        with_view: bool,
    ) -> Result<Option<GameState>, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            // Another server may have taken the last action (or given the
            // seat) a moment ago and its notice not arrived yet: a client
            // who knows more than this room is not judged by it.
            let behind = ply.is_some_and(|p| p > room.ply() as u64)
                || seat_for(&room, token.as_deref()).is_err();
            if games.0.shared && behind && !games.catch_up_locked(&room_ref, &mut room).await {
                return Err(GameError::Unavailable);
            }
            let seat = seat_for(&room, token.as_deref())?;
            games.alive(&mut room, seat).await;
            // An action after the deadline is too late: the flag first.
            if games.enforce_clock(&room_ref, &mut room).await {
                return Err(GameError::Refused("your time is up: the game is over"));
            }
            room.check_turn(seat, ply)?;
            let action: Action = action
                .trim()
                .parse()
                .map_err(|e| GameError::BadAction(format!("{e}")))?;
            games.commit(&room_ref, &mut room, action).await?;
            if let Some(ip) = client {
                room.ai_client = Some(ClientKey::ip(ip));
            }
            let view = with_view.then(|| room.view(Some(seat)));
            if room.ai_to_move() {
                games.start_ai(room_ref.clone());
            }
            Ok(view)
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// Commits a change other than an action (decided on the room under
    /// its lock); the caller applies it to the room once committed. A
    /// refusal or failure of the store leaves the room as it was (caught
    /// up first if another server changed the game).
    async fn commit_change(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        change: GameChange,
    ) -> Result<(), GameError> {
        self.writable(room)?;
        let at = room.at();
        if let Err(e) = self
            .0
            .store
            .change_game(room.info.id.clone(), at, change, self.now())
            .await
        {
            // The room was not changed. Refused because another server
            // changed the game first: take that in.
            if matches!(e, StoreError::Conflict) {
                self.catch_up_locked(room_ref, room).await;
            }
            return Err(store_error(e));
        }
        Ok(())
    }

    /// Resigns the game for the holder of `token` (in a local game, for
    /// the player to move): the opponent wins, the seeds are not swept.
    /// Returns the state as the caller sees it.
    pub async fn resign(&self, id: &str, token: Option<String>) -> Result<GameState, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            let seat = seat_for(&room, token.as_deref())?;
            if games.enforce_clock(&room_ref, &mut room).await {
                return Ok(room.view(Some(seat)));
            }
            let player = room.resigner(seat)?;
            if room.info.rated && !room.both_have_acted() {
                // A rated game counts once each player has acted (RULES.md):
                // resigning before aborts it, or two accounts would farm a
                // rating at ply 0. A casual game may be conceded at once.
                games.abort_by(&room_ref, &mut room, player).await?;
                tracing::info!(
                    "game {}: {player} resigned before both acted: aborted",
                    room.id()
                );
                return Ok(room.view(Some(seat)));
            }
            games
                .end_game(&room_ref, &mut room, Forfeit::Resign(player))
                .await?;
            tracing::info!("game {}: {player} resigned", room.id());
            Ok(room.view(Some(seat)))
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// Aborts the game for the holder of `token`: a game between people
    /// (or against the AI) before each player has made an action; it then
    /// has no result and counts for nobody. Returns the state as the
    /// caller sees it.
    pub async fn abort(&self, id: &str, token: Option<String>) -> Result<GameState, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            let seat = seat_for(&room, token.as_deref())?;
            if games.enforce_clock(&room_ref, &mut room).await {
                return Ok(room.view(Some(seat)));
            }
            room.check_playing()?;
            if room.info.mode == Mode::Local {
                return Err(GameError::Refused(
                    "a game on one device is not aborted: start a new one",
                ));
            }
            if room.both_have_acted() {
                return Err(GameError::Refused(
                    "a game can be aborted only before each player has made an action: \
                     resign instead",
                ));
            }
            let by = room.resigner(seat)?;
            games.abort_by(&room_ref, &mut room, by).await?;
            tracing::info!("game {}: aborted by {}", room.id(), seat.as_str());
            Ok(room.view(Some(seat)))
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// A takeback for the holder of `token`: in ai and local games at
    /// once (ai: back to before the human's last action, the AI's replies
    /// undone, its search if thinking discarded; local: the last action);
    /// in friend games a request the opponent answers. Returns the state
    /// as the caller sees it.
    pub async fn takeback(&self, id: &str, token: Option<String>) -> Result<GameState, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            let seat = seat_for(&room, token.as_deref())?;
            games.alive(&mut room, seat).await;
            room.check_playing()?;
            let nothing = GameError::Refused("nothing to take back: you have not played yet");
            match room.info.mode {
                Mode::Local => {
                    let to = room.ply().checked_sub(1).ok_or(nothing)?;
                    games.take_back(&room_ref, &mut room, to).await?;
                }
                Mode::Ai => {
                    let human = match room.info.ai_seat {
                        Some(ai) => ai.opponent(),
                        None => return Err(GameError::NoSeat),
                    };
                    let to = room.before_last_of(human).ok_or(nothing)?;
                    games.take_back(&room_ref, &mut room, to).await?;
                }
                Mode::Friend => {
                    let asker = match seat {
                        Seat::A => Player::A,
                        Seat::B => Player::B,
                        Seat::Both => return Err(GameError::NoSeat),
                    };
                    match room.info.takeback {
                        Some(p) if p == asker => {} // asked already
                        Some(_) => {
                            return Err(GameError::Refused(
                                "your opponent has asked for a takeback: answer it first",
                            ))
                        }
                        None => {
                            room.before_last_of(asker).ok_or(nothing)?;
                            games
                                .commit_change(
                                    &room_ref,
                                    &mut room,
                                    GameChange::Request(Some(asker)),
                                )
                                .await?;
                            room.info.takeback = Some(asker);
                            let ply = room.ply();
                            room.changed(ply);
                        }
                    }
                }
            }
            Ok(room.view(Some(seat)))
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// The answer of the holder of `token` to the opponent's takeback
    /// request (friend games): granted, the asker's last action (and the
    /// reply since, if any) is undone; declined, the request is dropped.
    pub async fn answer_takeback(
        &self,
        id: &str,
        token: Option<String>,
        accept: bool,
    ) -> Result<GameState, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            let seat = seat_for(&room, token.as_deref())?;
            games.alive(&mut room, seat).await;
            room.check_playing()?;
            let asker = room
                .info
                .takeback
                .ok_or(GameError::Refused("there is no takeback request to answer"))?;
            if seat.acts_for(asker) {
                return Err(GameError::Refused(
                    "this is your own takeback request: your opponent answers it",
                ));
            }
            if accept {
                let to = room.before_last_of(asker).ok_or(GameError::Refused(
                    "nothing to take back: your opponent has not played yet",
                ))?;
                games.take_back(&room_ref, &mut room, to).await?;
            } else {
                games
                    .commit_change(&room_ref, &mut room, GameChange::Request(None))
                    .await?;
                room.info.takeback = None;
                let ply = room.ply();
                room.changed(ply);
            }
            Ok(room.view(Some(seat)))
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// Takes back to ply `to`: committed, applied, then every socket is
    /// sent the whole state (the log is shorter: never an update).
    async fn take_back(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        to: usize,
    ) -> Result<(), GameError> {
        let from = room.ply();
        let deadline = room.deadline_at(to);
        self.commit_change(
            room_ref,
            room,
            GameChange::TakeBack {
                to: to as u32,
                deadline,
            },
        )
        .await?;
        if let Err(e) = room.take_back_to(to) {
            // Committed but not applied: the store has the truth.
            self.evict(room_ref, room);
            return Err(e);
        }
        room.info.deadline = deadline;
        if room.info.credits.iter().any(|&(p, _)| p as usize > to) {
            // Outages credited to plies taken back are void: the plies
            // played again are other periods.
            let credits: Vec<(u32, i64)> = room
                .info
                .credits
                .iter()
                .copied()
                .filter(|&(p, _)| p as usize <= to)
                .collect();
            let change = GameChange::Credit {
                credits: credits.clone(),
                deadline,
            };
            match self
                .0
                .store
                .change_game(room.id().to_string(), room.at(), change, self.now())
                .await
            {
                Ok(()) => room.info.credits = credits,
                Err(e) => tracing::warn!("game {}: stale clock credits kept: {e}", room.id()),
            }
        }
        room.send_whole();
        tracing::info!("game {}: taken back from ply {from} to {to}", room.id());
        Ok(())
    }

    /// The state as the holder of `token` (or a spectator) sees it.
    pub async fn view(&self, id: &str, token: Option<&str>) -> Result<GameState, GameError> {
        let room_ref = self.room(id).await?;
        let mut room = room_ref.lock().await;
        room.touched = Instant::now();
        let seat = token.and_then(|t| room.seat_of(t));
        if let Some(seat) = seat {
            self.alive(&mut room, seat).await;
        }
        self.enforce_clock(&room_ref, &mut room).await;
        if room.ai_to_move() && !room.ai_busy {
            // An earlier AI task failed: try again.
            self.start_ai(room_ref.clone());
        }
        Ok(room.view(seat))
    }

    /// The seat a token holds in a game, if any.
    pub async fn seat_of(&self, id: &str, token: &str) -> Result<Option<Seat>, GameError> {
        let room_ref = self.room(id).await?;
        let room = room_ref.lock().await;
        Ok(room.seat_of(token))
    }

    /// The game record.
    pub async fn record(&self, id: &str) -> Result<String, GameError> {
        let room_ref = self.room(id).await?;
        let room = room_ref.lock().await;
        Ok(room.record())
    }

    /// Creates a game for the client at `client` (if known); returns the
    /// creator's seat. An ai game whose AI moves first is refused `Busy`
    /// when the AI could not take its turn now (the creator's cap, or the
    /// queue full): better a clear refusal than a game that waits.
    pub async fn create(
        &self,
        spec: NewGameSpec,
        client: Option<IpAddr>,
    ) -> Result<SeatGrant, GameError> {
        let colour = spec.colour.unwrap_or_else(|| {
            if rand::thread_rng().gen() {
                Player::A
            } else {
                Player::B
            }
        });
        let creator = match spec.mode {
            Mode::Local => Seat::Both,
            _ => Seat::of(colour),
        };
        if spec.perfect {
            self.perfect_for(spec.mode, spec.rules)?;
        }
        if spec.clock.is_some() && spec.mode != Mode::Friend {
            return Err(GameError::BadField {
                field: "clock",
                why: "clocks are for games between people: friend games".into(),
            });
        }
        let info = new_info(&spec, creator, self.now());
        self.insert_game(info, None, client).await
    }

    /// The perfect player for an ai game of `rules`, or why there is none.
    fn perfect_for(&self, mode: Mode, rules: Rules) -> Result<Arc<Perfect>, GameError> {
        let bad = |why: &str| GameError::BadField {
            field: "perfect",
            why: why.into(),
        };
        if mode != Mode::Ai {
            return Err(bad("the perfect player is an AI: ai games only"));
        }
        if !rules.variant.no_trades {
            return Err(bad(
                "the perfect player plays only games without trades (rules no-trades)",
            ));
        }
        if self.0.settings.perfect.is_empty() {
            return Err(bad(
                "this server has no solver database (gore serve --solver-db DIR)",
            ));
        }
        self.0
            .settings
            .perfect
            .iter()
            .find(|p| p.check(rules.variant).is_ok())
            .cloned()
            .ok_or_else(|| bad("this server's solver database has no layer of these rules"))
    }

    /// The leaf evaluation the AI at `level` gets in games of `rules`: the
    /// database's, for the top level only (the levels below keep the
    /// character their ladder was tuned with).
    fn oracle_for(&self, level: Level, rules: Rules) -> Option<Arc<dyn gore_ai::Oracle>> {
        oracle_for(&self.0.settings.oracles, level, rules)
    }

    /// The no-trade rule sets this server plays perfectly (the page offers
    /// the perfect level for them).
    pub fn perfect_rules(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (skip, name) in [(false, "no-trades"), (true, "no-trades,skip-origin")] {
            let mut variant = gore_core::Variant::STANDARD;
            variant.no_trades = true;
            variant.skip_origin = skip;
            if self
                .0
                .settings
                .perfect
                .iter()
                .any(|p| p.check(variant).is_ok())
            {
                v.push(name);
            }
        }
        v
    }

    /// Stores a new game and makes its room; returns the creator's seat.
    async fn insert_game(
        &self,
        mut info: GameInfo,
        rematch_of: Option<String>,
        client: Option<IpAddr>,
    ) -> Result<SeatGrant, GameError> {
        if self.failure().is_some() {
            return Err(GameError::Unavailable);
        }
        let ai_client = client.map(ClientKey::ip);
        let mut tries = 0;
        let (room, first) = loop {
            let mut room = Room::new(info.clone(), self.0.settings.max_plies);
            room.clock = self.0.settings.clock.clone();
            room.ai_client = ai_client.clone();
            // An AI that moves first takes its place in the AI pool before
            // the game is stored: refused (the creator's cap, the queue
            // full), nothing is stored and the creator is told `busy`.
            let first = if room.ai_to_move() {
                let job = self.ai_job(&room);
                let key = job.client.clone();
                let ticket = self.0.ai.submit(job).map_err(|e| {
                    tracing::info!(
                        "new game refused for {key}: {e} (AI: {})",
                        self.0.ai.stats()
                    );
                    ai_refused(e)
                })?;
                room.ai_busy = true;
                Some(ticket)
            } else {
                None
            };
            match self
                .0
                .store
                .create_game(info.clone(), rematch_of.clone())
                .await
            {
                Ok(()) => break (room, first),
                // 50 random bits rarely collide; draw again if they do (the
                // AI's job for the old id is withdrawn with its ticket).
                Err(StoreError::Conflict) if tries < 3 => {
                    tries += 1;
                    info.id = new_id();
                }
                Err(e) => return Err(store_error(e)),
            }
        };
        let grant = SeatGrant {
            id: info.id.clone(),
            seat: info.creator,
            token: info.tokens.get(info.creator).unwrap_or_default().into(),
            invite: info.invite.clone(),
        };
        let id = info.id.clone();
        tracing::info!(
            "game {id} created ({} {})",
            info.mode.as_str(),
            info.creator.as_str()
        );
        let room = Arc::new(Mutex::new(room));
        let cell = Arc::new(OnceCell::new_with(Some(room.clone())));
        self.rooms().insert(id, cell);
        let first = match first {
            // Several servers on one store: the first turn is this
            // server's too (no other knew the game before it was stored,
            // but any may load it now).
            Some(ticket) => match self
                .0
                .store
                .claim_ai_turn(grant.id.clone(), 0, self.ai_lease())
                .await
            {
                Ok(true) => Some(ticket),
                _ => {
                    drop(ticket); // stops the search
                    room.lock().await.ai_busy = false;
                    None
                }
            },
            None => None,
        };
        match first {
            Some(ticket) => self.spawn_ai_turns(room, Some(ticket)),
            None => self.start_ai(room),
        }
        Ok(grant)
    }

    /// Claims a friend game's invitation: the friend's seat gets a new
    /// secret, the game starts, and the code is spent. A code already
    /// spent is `Claimed`; a code that never was this game's, `NoGame`.
    /// `who` is the claimer's display name and public id.
    pub async fn claim_invite(
        &self,
        id: &str,
        code: &str,
        who: Option<(String, String)>,
    ) -> Result<SeatGrant, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        let code = code.to_string();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            games.claim_locked(&room_ref, &mut room, &code, who).await
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    async fn claim_locked(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        code: &str,
        who: Option<(String, String)>,
    ) -> Result<SeatGrant, GameError> {
        let (name, player_id) = match who {
            Some((n, p)) => (Some(n), Some(p)),
            None => (None, None),
        };
        if room.info.mode != Mode::Friend {
            return Err(GameError::NoGame);
        }
        let Some(invite) = room.info.invite.clone() else {
            return Err(GameError::Claimed(
                "this invitation has already been used by another browser; \
                 ask your friend for a new game",
            ));
        };
        if !same_secret(&invite, code) {
            return Err(GameError::NoGame);
        }
        if room.dead {
            return Err(GameError::Internal(
                "the game is being reloaded; try again".into(),
            ));
        }
        let seat = room.info.creator.swapped();
        let player = match seat {
            Seat::A => Player::A,
            _ => Player::B,
        };
        let token = new_token();
        let now = self.now();
        // The first action's deadline, from now (a timed game).
        let deadline = room.info.clock.and_then(|tc| {
            let to_act = room.game.position().to_move();
            clock::clocks(tc, now, &[], Some(to_act), now)
                .deadline
                .map(|(at, _)| at)
        });
        let claimed = self
            .0
            .store
            .claim_invite(
                room.info.id.clone(),
                invite,
                player,
                crate::store::SeatClaim {
                    token: token.clone(),
                    name: name.clone(),
                    player: player_id.clone(),
                    now,
                    deadline,
                },
            )
            .await
            .map_err(|e| {
                self.evict(room_ref, room);
                store_error(e)
            })?;
        if !claimed {
            // Another server claimed it first: what is in memory is old.
            self.evict(room_ref, room);
            return Err(GameError::Claimed(
                "this invitation has already been used by another browser; \
                 ask your friend for a new game",
            ));
        }
        room.info.invite = None;
        room.info.tokens.set(seat, Some(token.clone()));
        room.info.status = Status::Playing;
        room.info.started_at = Some(now);
        room.info.deadline = deadline;
        room.info.names[player.index()] = name;
        room.info.players[player.index()] = player_id;
        let ply = room.ply();
        room.changed(ply);
        tracing::info!("game {}: the friend has arrived", room.id());
        Ok(SeatGrant {
            id: room.info.id.clone(),
            seat,
            token,
            invite: None,
        })
    }

    /// The link code that opens the caller's seat on another device
    /// (made the first time, then the same until revoked).
    pub async fn device_code(&self, id: &str, token: Option<String>) -> Result<String, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            let seat = seat_for(&room, token.as_deref())?;
            if let Some(code) = room.info.devices.get(seat) {
                return Ok(code.to_string());
            }
            let code = new_token();
            games
                .0
                .store
                .set_device(room.info.id.clone(), seat, Some(code.clone()))
                .await
                .map_err(store_error)?;
            room.info.devices.set(seat, Some(code.clone()));
            Ok(code)
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// Revokes the caller's device link: opening it is then refused, and
    /// the devices that claimed it no longer hold the seat.
    pub async fn revoke_device(&self, id: &str, token: Option<String>) -> Result<(), GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            let seat = seat_for(&room, token.as_deref())?;
            games
                .0
                .store
                .set_device(room.info.id.clone(), seat, None)
                .await
                .map_err(store_error)?;
            room.info.devices.set(seat, None);
            Ok(())
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// Opens a device link: the seat it was made for, with this device's
    /// own secret (never the seat's), which revoking the link ends.
    pub async fn claim_device(&self, id: &str, code: &str) -> Result<SeatGrant, GameError> {
        let room_ref = self.room(id).await?;
        let room = room_ref.lock().await;
        let seat = room.info.devices.find(code).ok_or(GameError::Claimed(
            "this link was revoked, or is not this game's: ask for a new one",
        ))?;
        let secret = room.info.tokens.get(seat).ok_or(GameError::NoSeat)?;
        let token = super::device_secret(secret, code);
        Ok(SeatGrant {
            id: room.info.id.clone(),
            seat,
            token,
            invite: None,
        })
    }

    /// A new game with the same mode, rules, start and level, the seats
    /// swapped. The first caller creates it; the other player of a friend
    /// game, calling later, gets the other seat of that same rematch.
    pub async fn rematch(
        &self,
        id: &str,
        token: Option<String>,
        client: Option<IpAddr>,
    ) -> Result<SeatGrant, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            let seat = seat_for(&room, token.as_deref())?;
            let new_seat = seat.swapped();
            if let Some(new_id) = room.info.rematch.clone() {
                let new_ref = games.room(&new_id).await?;
                let mut new = new_ref.lock().await;
                if new_seat == new.info.creator {
                    return Ok(SeatGrant {
                        id: new_id,
                        seat: new_seat,
                        token: new.info.tokens.get(new_seat).unwrap_or_default().into(),
                        invite: new.info.invite.clone(),
                    });
                }
                return match new.info.invite.clone() {
                    Some(code) => {
                        // His name as it was in the game before.
                        let who = match seat {
                            Seat::A => room.info.names[0].clone().zip(room.info.players[0].clone()),
                            Seat::B => room.info.names[1].clone().zip(room.info.players[1].clone()),
                            Seat::Both => None,
                        };
                        games.claim_locked(&new_ref, &mut new, &code, who).await
                    }
                    None => Err(GameError::Claimed(
                        "the other seat of this rematch is already taken",
                    )),
                };
            }
            let spec = NewGameSpec {
                mode: room.info.mode,
                rules: room.info.rules,
                start: room.info.start,
                level: room.info.level,
                perfect: room.info.perfect,
                honourable: room.info.honourable,
                colour: None,
                clock: room.info.clock,
                name: match seat {
                    Seat::A => room.info.names[0].clone(),
                    Seat::B => room.info.names[1].clone(),
                    Seat::Both => None,
                },
                player: match seat {
                    Seat::A => room.info.players[0].clone(),
                    Seat::B => room.info.players[1].clone(),
                    Seat::Both => None,
                },
            };
            let info = new_info(&spec, new_seat, games.now());
            let grant = games
                .insert_game(info, Some(room.info.id.clone()), client)
                .await?;
            room.info.rematch = Some(grant.id.clone());
            let ply = room.ply();
            room.changed(ply);
            Ok(grant)
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// Remembers that a browser session holds a seat.
    pub async fn remember_seat(
        &self,
        session: String,
        id: String,
        token: String,
    ) -> Result<(), GameError> {
        self.0
            .store
            .remember_seat(session, id, token)
            .await
            .map_err(store_error)
    }

    /// The token a browser session holds in a game.
    pub async fn session_token(
        &self,
        session: &str,
        id: &str,
    ) -> Result<Option<String>, GameError> {
        if !valid_id(id) {
            return Ok(None);
        }
        self.0
            .store
            .session_token(session.to_string(), id.to_string())
            .await
            .map_err(store_error)
    }

    /// Starts the AI on this game if it is to act and not already busy.
    pub fn start_ai(&self, room: RoomRef) {
        let games = self.clone();
        tokio::spawn(async move {
            {
                let mut r = room.lock().await;
                if r.ai_busy || !r.ai_to_move() || r.dead {
                    return;
                }
                r.ai_busy = true;
            }
            games.spawn_ai_turns(room, None);
        });
    }

    /// Runs [`Games::ai_turns`] on a game whose `ai_busy` the caller set.
    fn spawn_ai_turns(&self, room: RoomRef, first: Option<AiTicket<Option<Action>>>) {
        let games = self.clone();
        tokio::spawn(async move {
            if let Err(e) = games.ai_turns(&room, first).await {
                tracing::warn!("AI: {e}");
                room.lock().await.ai_busy = false;
            }
        });
    }

    /// The search of the AI's next action in this room: an AI pool job
    /// counted against the address of whoever created the game or last
    /// acted in it (the game's id when none is known, as after a restart),
    /// its cost the level.
    fn ai_job(&self, room: &Room) -> AiJob<Option<Action>> {
        let level = room.info.level;
        let options = Options {
            level,
            honourable: room.info.honourable,
            hash_mb: 16,
            seed: ai_seed(room.id(), room.ply()),
            ..Options::default()
        };
        // The top level thinks for the time given; the others search to
        // their own depth, with the time as a safety net only.
        let ai_time = self.0.settings.ai_time;
        let limits = level.limits_within(ai_time, ai_time * 5);
        let game = room.game.clone();
        let client = room
            .ai_client
            .clone()
            .unwrap_or_else(|| ClientKey::named(room.info.id.clone()));
        // The perfect player inside its database: a fraction of a second,
        // so a cheap job (the kept thread's); above it, the top level's
        // search.
        let perfect = if room.info.perfect {
            self.perfect_for(room.info.mode, room.info.rules)
                .ok()
                .filter(|p| p.covers(&game))
        } else {
            None
        };
        if let Some(perfect) = perfect {
            return AiJob::new(
                client,
                room.info.id.clone(),
                1,
                move |_stop: &AtomicBool| {
                    match perfect.choose(&game) {
                        Ok(c) => Some(c.action),
                        // Not expected (covers was checked): the search instead.
                        Err(_) => {
                            Engine::new(options).choose(&game, &limits, &AtomicBool::new(false))
                        }
                    }
                },
            );
        }
        let oracle = self.oracle_for(level, room.info.rules);
        AiJob::new(
            client,
            room.info.id.clone(),
            u32::from(level.get()),
            move |stop: &AtomicBool| {
                let mut engine = Engine::new(options);
                engine.set_oracle(oracle);
                engine.choose(&game, &limits, stop)
            },
        )
    }

    /// The AI acts while it is to act (an answer to an offer, then its
    /// own turn); each action committed, then broadcast. `first` is the
    /// search already submitted for the current ply, if any. A search the
    /// pool refuses leaves the game on the retry list, taken up when any
    /// search ends. Clears `ai_busy` when it stops, under the same lock as
    /// the check.
    async fn ai_turns(
        &self,
        room_ref: &RoomRef,
        mut first: Option<AiTicket<Option<Action>>>,
    ) -> Result<(), GameError> {
        loop {
            let (ticket, ply, id) = {
                let mut room = room_ref.lock().await;
                if !room.ai_to_move() || room.dead {
                    room.ai_busy = false;
                    return Ok(());
                }
                let id = room.info.id.clone();
                let ticket = match first.take() {
                    Some(t) => t,
                    None => {
                        // Several servers on one store: one computes the
                        // turn, the one whose claim the store accepts.
                        let claimed = self
                            .0
                            .store
                            .claim_ai_turn(id.clone(), room.ply() as u32, self.ai_lease())
                            .await
                            .map_err(store_error)?;
                        if !claimed {
                            room.ai_busy = false;
                            return Ok(());
                        }
                        let job = self.ai_job(&room);
                        let client = job.client.clone();
                        match self.0.ai.submit(job) {
                            Ok(t) => t,
                            Err(e) => {
                                // Under the room's lock, so that a retry
                                // cannot find it still busy and give up.
                                room.ai_busy = false;
                                tracing::debug!(
                                    "game {id}: the AI's turn for {client} waits for \
                                     capacity: {e} (AI: {})",
                                    self.0.ai.stats()
                                );
                                self.retry_later(id);
                                return Ok(());
                            }
                        }
                    }
                };
                (ticket, room.at(), id)
            };
            let started = Instant::now();
            let chosen = ticket.await;
            // A search ended: capacity is free for the games waiting.
            self.retry_ai();
            let chosen = chosen.map_err(|e| GameError::Internal(e.to_string()))?;
            let Some(action) = chosen else {
                room_ref.lock().await.ai_busy = false;
                return Ok(());
            };
            let mut room = room_ref.lock().await;
            // A takeback meanwhile (perhaps back to this very ply), or a
            // resignation: the search was for another game; the loop
            // looks again.
            if room.at() != ply || room.dead || !room.ai_to_move() {
                continue;
            }
            self.commit(room_ref, &mut room, action).await?;
            tracing::debug!(
                "game {id}: the AI played {action} at ply {} in {:?}",
                ply.ply + 1,
                started.elapsed()
            );
        }
    }

    /// Puts a game on the list of AI turns to retry.
    fn retry_later(&self, id: String) {
        let mut list = self.0.ai_retry.lock().unwrap_or_else(|e| e.into_inner());
        if !list.contains(&id) {
            list.push(id);
        }
    }

    /// Retries the AI turns refused for want of capacity, oldest first;
    /// those refused again go back on the list. Games no longer in memory
    /// are dropped from it (loading them starts their AI again).
    fn retry_ai(&self) {
        let ids = std::mem::take(&mut *self.0.ai_retry.lock().unwrap_or_else(|e| e.into_inner()));
        for id in ids {
            let room = self.rooms().get(&id).and_then(|c| c.get().cloned());
            if let Some(room) = room {
                self.start_ai(room);
            }
        }
    }
}

/// A refusal of the AI pool, as a domain error.
fn ai_refused(e: AiBusy) -> GameError {
    GameError::Busy(e.to_string())
}

/// The seat of a token, or why it may not act.
fn seat_for(room: &Room, token: Option<&str>) -> Result<Seat, GameError> {
    token.and_then(|t| room.seat_of(t)).ok_or(GameError::NoSeat)
}

/// The AI's seed: from the game id and the ply, so that a game replays
/// the same.
fn ai_seed(id: &str, ply: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ (ply as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A new game's facts, with fresh id and secrets: the creator's seat gets
/// its secret; a friend game's other seat gets an invitation code instead,
/// which mints that seat's secret when it is claimed.
fn new_info(spec: &NewGameSpec, creator: Seat, now: i64) -> GameInfo {
    let mut tokens = PerSeat::default();
    let (ai_seat, invite) = match (spec.mode, creator) {
        (Mode::Local, _) | (_, Seat::Both) => {
            tokens.set(Seat::Both, Some(new_token()));
            (None, None)
        }
        (Mode::Ai, seat) => {
            tokens.set(seat, Some(new_token()));
            (
                Some(if seat == Seat::A {
                    Player::B
                } else {
                    Player::A
                }),
                None,
            )
        }
        (Mode::Friend, seat) => {
            tokens.set(seat, Some(new_token()));
            (None, Some(new_token()))
        }
    };
    let status = if spec.mode == Mode::Friend {
        Status::Waiting
    } else {
        Status::Playing
    };
    let started_at = (status == Status::Playing).then_some(now);
    let deadline = match (spec.clock, started_at) {
        (Some(tc), Some(t)) => clock::clocks(tc, t, &[], Some(spec.start.to_move()), now)
            .deadline
            .map(|(at, _)| at),
        _ => None,
    };
    GameInfo {
        id: new_id(),
        mode: spec.mode,
        rules: spec.rules,
        start: spec.start,
        level: spec.level,
        perfect: spec.perfect,
        honourable: spec.honourable,
        creator,
        ai_seat,
        status,
        created_at: now,
        rematch: None,
        tokens,
        invite,
        devices: PerSeat::default(),
        forfeit: None,
        clock: spec.clock,
        lobby: false,
        names: match creator {
            Seat::A => [spec.name.clone(), None],
            Seat::B => [None, spec.name.clone()],
            Seat::Both => [None, None],
        },
        players: match creator {
            Seat::A => [spec.player.clone(), None],
            Seat::B => [None, spec.player.clone()],
            Seat::Both => [None, None],
        },
        rated: false,
        ratings: [None, None],
        away: [None, None],
        credits: Vec::new(),
        started_at,
        deadline,
        takebacks: 0,
        takeback: None,
    }
}

#[cfg(test)]
mod oracle_tests {
    use super::*;
    use crate::oracle::DbOracle;
    use gore_core::Position;

    /// The top level gets the database of its game's `skip-origin`, in
    /// games with trades too; the levels below get none. Told apart by what
    /// each oracle answers: a board of 3 seeds in A's first hole is all A's
    /// under both rule sets, and the databases here hold only `no-trades`
    /// (layers 0-6) and `no-trades,skip-origin` (layers 0-4).
    #[test]
    fn only_the_top_level_asks_the_database_of_its_rules() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for (skip, top) in [(false, 6), (true, 4)] {
            for layer in gore_solver::naive::memory(top, skip).layers {
                gore_solver::disk::write_layer(dir.path(), &layer, skip).expect("written");
            }
        }
        let oracles: Vec<Arc<DbOracle>> = [false, true]
            .into_iter()
            .map(|skip| Arc::new(DbOracle::open(dir.path(), skip).expect("opened")))
            .collect();
        let standard: Rules = "standard".parse().unwrap();
        let skip_rules: Rules = "skip-origin".parse().unwrap();
        for level in Level::all() {
            let o = oracle_for(&oracles, level, standard);
            assert_eq!(o.is_some(), level.is_max(), "level {level}");
        }
        let top = Level::MAX;
        // 5 seeds on the board: inside the plain database, beyond the other.
        let five = "3,2,0,0/0,0,0,0 AAAA/BBBB 20-23 A -";
        let plain = oracle_for(&oracles, top, standard).unwrap();
        let p = Position::from_gpn(five, standard.variant).unwrap();
        assert!(
            plain.score(&p).is_some(),
            "the plain database holds 5 seeds"
        );
        let skipping = oracle_for(&oracles, top, skip_rules).unwrap();
        let q = Position::from_gpn(five, skip_rules.variant).unwrap();
        assert_eq!(
            skipping.score(&q),
            None,
            "the skip-origin database stops at 4"
        );
    }
}

#[cfg(test)]
mod pool_split_tests {
    use super::*;

    /// The pool's cheap lane is exactly the levels whose own depth cap is
    /// short: every level up to `cheap_level()` searches at most
    /// CHEAP_DEPTH plies, every level above deeper or without a cap (so the
    /// split is a prefix of the ladder, as a cost threshold needs). The
    /// weakest level is cheap and the top level, bounded by time only, is
    /// not, whatever the ladder.
    #[test]
    fn the_cheap_lane_is_the_shallow_levels() {
        let cheap = cheap_level();
        for level in Level::all() {
            let depth = level.profile().depth;
            let shallow = depth.is_some_and(|d| d <= CHEAP_DEPTH);
            assert_eq!(
                u32::from(level.get()) <= cheap,
                shallow,
                "level {} (depth {depth:?}) against cheap_max {cheap}",
                level.get()
            );
        }
        assert!(cheap >= 1);
        assert!(cheap < u32::from(Level::MAX.get()));
    }
}
