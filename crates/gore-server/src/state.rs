//! The server's shared state and the game operations behind the handlers:
//! create, load, play, join, rematch, and the AI's turns.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};

use gore_ai::{Engine, Level, Options, MAX_LEVEL};
use gore_core::{Action, Player, Position, Rules};
use rand::Rng;
use serde_json::Value;
use tokio::sync::{Mutex, Semaphore};

use crate::api::{Created, NewGame};
use crate::config::Config;
use crate::db::{ActionRow, Db, DbUrl, Ending, GameRow};
use crate::error::{ApiError, ErrorCode};
use crate::limit::RateLimiter;
use crate::room::{new_id, new_token, now_ms, valid_id, GameRoom, Mode, Seat, Status};

/// A room, shared.
pub type RoomRef = Arc<Mutex<GameRoom>>;

/// Idle rooms nobody watches are dropped from memory after this long.
const IDLE_ROOM: Duration = Duration::from_secs(600);

/// The state every handler shares. Cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

struct Inner {
    config: Config,
    db: Db,
    rooms: StdMutex<HashMap<String, RoomRef>>,
    limiter: RateLimiter,
    ai_slots: Semaphore,
}

impl AppState {
    /// Opens the database (migrating it) and starts the housekeeping
    /// tasks; must run inside a Tokio runtime.
    pub async fn open(config: Config) -> anyhow::Result<AppState> {
        let url = DbUrl::parse(&config.db)?;
        let db = tokio::task::spawn_blocking(move || Db::open(&url)).await??;
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        let state = AppState(Arc::new(Inner {
            limiter: RateLimiter::new(config.rate_limit),
            config,
            db,
            rooms: StdMutex::new(HashMap::new()),
            ai_slots: Semaphore::new(threads.max(2)),
        }));
        state.clone().spawn_janitor();
        state.clone().resume_ai_games();
        Ok(state)
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.0.config
    }

    /// The per-address limiter.
    pub fn limiter(&self) -> &RateLimiter {
        &self.0.limiter
    }

    fn rooms(&self) -> std::sync::MutexGuard<'_, HashMap<String, RoomRef>> {
        self.0.rooms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every minute: forget idle rooms nobody watches, and idle addresses.
    fn spawn_janitor(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                let state = AppState(inner);
                state.limiter().prune(Duration::from_secs(60));
                state.rooms().retain(|_, room| {
                    if Arc::strong_count(room) > 1 {
                        return true;
                    }
                    match room.try_lock() {
                        Ok(r) => r.watchers() > 0 || r.ai_busy || r.touched.elapsed() < IDLE_ROOM,
                        Err(_) => true,
                    }
                });
            }
        });
    }

    /// After a restart: load the ai games still going, which resumes the
    /// AI where it was to move (it may have been thinking when the server
    /// stopped).
    fn resume_ai_games(self) {
        tokio::spawn(async move {
            match self.0.db.active_ai_games(1000).await {
                Ok(ids) => {
                    for id in ids {
                        if let Err(e) = self.room(&id).await {
                            tracing::warn!("game {id}: cannot resume: {}", e.message);
                        }
                    }
                }
                Err(e) => tracing::error!("cannot list the ai games to resume: {e}"),
            }
        });
    }

    /// A game's room, loaded from the database (replaying its actions)
    /// the first time it is touched.
    pub async fn room(&self, id: &str) -> Result<RoomRef, ApiError> {
        if !valid_id(id) {
            return Err(ApiError::no_game());
        }
        if let Some(r) = self.rooms().get(id) {
            return Ok(r.clone());
        }
        let Some((row, actions)) = self.0.db.load_game(id.to_string()).await? else {
            return Err(ApiError::no_game());
        };
        let room = GameRoom::load(row, &actions).map_err(|e| {
            tracing::error!("{e}");
            ApiError::internal("this game's stored record is damaged and cannot be loaded")
        })?;
        let (room, inserted) = {
            let mut rooms = self.rooms();
            match rooms.get(id) {
                Some(r) => (r.clone(), false),
                None => {
                    let r = Arc::new(Mutex::new(room));
                    rooms.insert(id.to_string(), r.clone());
                    (r, true)
                }
            }
        };
        if inserted {
            let ai_to_move = room.lock().await.ai_to_move();
            if ai_to_move {
                tracing::info!("game {id} loaded: the AI is to move, resuming it");
            } else {
                tracing::debug!("game {id} loaded ({} actions)", actions.len());
            }
            self.start_ai(room.clone());
        }
        Ok(room)
    }

    /// Drops a room from memory after a failure, so that the next request
    /// loads the truth from the database.
    fn evict(&self, room_ref: &RoomRef, room: &mut GameRoom) {
        room.dead = true;
        room.close_channel();
        let mut rooms = self.rooms();
        if rooms
            .get(room.id())
            .is_some_and(|r| Arc::ptr_eq(r, room_ref))
        {
            rooms.remove(room.row.id.as_str());
        }
    }

    /// Commits an action (the caller checked whose turn it is), then
    /// applies and broadcasts it. Nothing changes if it is illegal or the
    /// database refuses.
    async fn commit(
        &self,
        room_ref: &RoomRef,
        room: &mut GameRoom,
        action: Action,
    ) -> Result<(), ApiError> {
        if room.dead {
            return Err(ApiError::internal("the game is being reloaded; try again"));
        }
        let prepared = room.prepare(action)?;
        let ending = prepared.game.outcome().map(|o| Ending {
            result: o.to_string(),
            reason: o.reason.as_str().into(),
        });
        let row = ActionRow {
            ply: prepared.entry.ply as u32,
            action: action.to_string(),
            created_at: now_ms(),
        };
        match self
            .0
            .db
            .insert_action(room.row.id.clone(), row, ending)
            .await
        {
            Ok(()) => {}
            Err(e) if e.is_conflict() => {
                self.evict(room_ref, room);
                return Err(ApiError::new(
                    ErrorCode::Stale,
                    "another action was saved first; reload the game",
                ));
            }
            Err(e) => {
                self.evict(room_ref, room);
                return Err(e.into());
            }
        }
        room.row.updated_at = now_ms();
        room.apply(prepared);
        Ok(())
    }

    /// Plays an action for the holder of `token`; returns the new state as
    /// that player sees it. Runs to its end even if the client goes away.
    pub async fn play(
        &self,
        id: &str,
        token: Option<String>,
        action: String,
        ply: Option<u64>,
    ) -> Result<Value, ApiError> {
        let room_ref = self.room(id).await?;
        let state = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            let seat = seat_for(&room, token.as_deref())?;
            room.check_turn(seat, ply)?;
            let action: Action = action
                .trim()
                .parse()
                .map_err(|e| ApiError::bad_request(format!("{e}")))?;
            state.commit(&room_ref, &mut room, action).await?;
            let view = room.snapshot().view(Some(seat));
            if room.ai_to_move() {
                state.start_ai(room_ref.clone());
            }
            Ok(view)
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// The state as the holder of `token` (or a spectator) sees it.
    pub async fn view(&self, id: &str, token: Option<&str>) -> Result<Value, ApiError> {
        let room_ref = self.room(id).await?;
        let mut room = room_ref.lock().await;
        room.touched = Instant::now();
        let seat = token.and_then(|t| room.seat_of(t));
        if room.ai_to_move() && !room.ai_busy {
            // An earlier AI task failed: try again.
            self.start_ai(room_ref.clone());
        }
        Ok(room.snapshot().view(seat))
    }

    /// The game record.
    pub async fn record(&self, id: &str) -> Result<String, ApiError> {
        let room_ref = self.room(id).await?;
        let room = room_ref.lock().await;
        Ok(room.record())
    }

    /// Creates a game.
    pub async fn create(&self, req: NewGame) -> Result<Created, ApiError> {
        let rules: Rules = match req.rules.as_deref() {
            None => Rules::STANDARD,
            Some(r) => r
                .trim()
                .parse()
                .map_err(|e| ApiError::bad_request(format!("{e}")))?,
        };
        let level = req.level.unwrap_or(4);
        if !(1..=MAX_LEVEL).contains(&level) {
            return Err(ApiError::bad_request(format!(
                "level: {level} is not a level; levels go from 1 to {MAX_LEVEL}"
            )));
        }
        let colour = match req.colour.as_deref().unwrap_or("random") {
            "A" | "a" => Player::A,
            "B" | "b" => Player::B,
            "random" => {
                if rand::thread_rng().gen() {
                    Player::A
                } else {
                    Player::B
                }
            }
            other => {
                return Err(ApiError::bad_request(format!(
                    "colour: `{other}` is not A, B or random"
                )))
            }
        };
        let start = match req.start.as_deref() {
            None => Position::new(rules.variant),
            Some(gpn) => {
                let p = Position::from_gpn(gpn.trim(), rules.variant)
                    .map_err(|e| ApiError::bad_request(format!("start: {e}")))?;
                if p.is_ended() {
                    return Err(ApiError::bad_request(
                        "start: every hole holds at most 2 seeds there: the game would be over at once",
                    ));
                }
                p
            }
        };
        let creator = match req.mode {
            Mode::Local => Seat::Both,
            _ => Seat::of(colour),
        };
        let row = new_row(
            req.mode,
            &rules.to_string(),
            &start.to_string(),
            level,
            req.honourable.unwrap_or(false),
            creator,
        );
        self.insert_game(row, creator, None).await
    }

    /// Stores a new game and makes its room; returns the creator's seat.
    async fn insert_game(
        &self,
        mut row: GameRow,
        creator: Seat,
        rematch_of: Option<String>,
    ) -> Result<Created, ApiError> {
        let mut tries = 0;
        loop {
            match self.0.db.create_game(row.clone(), rematch_of.clone()).await {
                Ok(()) => break,
                // 50 random bits rarely collide; draw again if they do.
                Err(e) if e.is_conflict() && tries < 3 => {
                    tries += 1;
                    row.id = new_id();
                }
                Err(e) => return Err(e.into()),
            }
        }
        let room = GameRoom::load(row.clone(), &[]).map_err(|e| {
            tracing::error!("{e}");
            ApiError::internal("the game could not be made")
        })?;
        let id = row.id.clone();
        let created = created(&room, creator, true);
        let room = Arc::new(Mutex::new(room));
        self.rooms().insert(id.clone(), room.clone());
        tracing::info!("game {id} created ({} {})", row.mode, created.seat.as_str());
        self.start_ai(room);
        Ok(created)
    }

    /// Opens an invitation: any seat token of the game; the friend's
    /// arrival starts a waiting game. An unknown game or token is
    /// `not_found`.
    pub async fn join(&self, id: &str, token: String) -> Result<(), ApiError> {
        let room_ref = self.room(id).await?;
        let state = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            let seat = room.seat_of(&token).ok_or_else(ApiError::no_game)?;
            state.arrive(&room_ref, &mut room, seat).await
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// A friend takes his seat: `waiting` → `playing`, committed first.
    async fn arrive(
        &self,
        room_ref: &RoomRef,
        room: &mut GameRoom,
        seat: Seat,
    ) -> Result<(), ApiError> {
        if room.mode == Mode::Friend && room.status == Status::Waiting && seat != room.creator {
            if room.dead {
                return Err(ApiError::internal("the game is being reloaded; try again"));
            }
            self.0
                .db
                .set_status(room.row.id.clone(), "playing", now_ms())
                .await
                .inspect_err(|_| self.evict(room_ref, room))?;
            room.set_status(Status::Playing);
            tracing::info!("game {}: the friend has arrived", room.id());
        }
        Ok(())
    }

    /// A new game with the same mode, rules, start and level, the seats
    /// swapped. The first caller creates it; the other player of a friend
    /// game, calling later, gets the other seat of the same rematch.
    pub async fn rematch(&self, id: &str, token: Option<String>) -> Result<Created, ApiError> {
        let room_ref = self.room(id).await?;
        let state = self.clone();
        tokio::spawn(async move {
            let mut room = room_ref.lock().await;
            room.touched = Instant::now();
            let seat = seat_for(&room, token.as_deref())?;
            let new_seat = seat.swapped();
            if let Some(new_id) = room.row.rematch.clone() {
                let new_ref = state.room(&new_id).await?;
                let mut new = new_ref.lock().await;
                state.arrive(&new_ref, &mut new, new_seat).await?;
                return Ok(created(&new, new_seat, new_seat == new.creator));
            }
            let row = new_row(
                room.mode,
                &room.row.rules,
                &room.row.start,
                room.row.level,
                room.row.honourable,
                new_seat,
            );
            let c = state
                .insert_game(row, new_seat, Some(room.row.id.clone()))
                .await?;
            room.row.rematch = Some(c.id.clone());
            room.changed();
            Ok(c)
        })
        .await
        .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// Starts the AI on this game if it is to act and not already busy.
    pub fn start_ai(&self, room: RoomRef) {
        let state = self.clone();
        tokio::spawn(async move {
            {
                let mut r = room.lock().await;
                if r.ai_busy || !r.ai_to_move() || r.dead {
                    return;
                }
                r.ai_busy = true;
            }
            if let Err(e) = state.ai_turns(&room).await {
                tracing::warn!("AI: {}", e.message);
                room.lock().await.ai_busy = false;
            }
        });
    }

    /// The AI acts while it is to act (an answer to an offer, then its
    /// own turn); each action committed, then broadcast. Clears `ai_busy`
    /// when it stops, under the same lock as the check.
    async fn ai_turns(&self, room_ref: &RoomRef) -> Result<(), ApiError> {
        loop {
            let (game, options, limits, ply, id) = {
                let mut room = room_ref.lock().await;
                if !room.ai_to_move() || room.dead {
                    room.ai_busy = false;
                    return Ok(());
                }
                // Checked when the game was made; a damaged row is refused.
                let level = Level::new(room.row.level)
                    .map_err(|e| ApiError::internal(format!("the stored level: {e}")))?;
                let options = Options {
                    level,
                    honourable: room.row.honourable,
                    hash_mb: 16,
                    seed: ai_seed(room.id(), room.ply()),
                    ..Options::default()
                };
                // The top level thinks for the time given; the others search
                // to their own depth, with the time as a safety net only.
                let ai_time = self.0.config.ai_time;
                let limits = level.limits_within(ai_time, ai_time * 5);
                (
                    room.game.clone(),
                    options,
                    limits,
                    room.ply(),
                    room.row.id.clone(),
                )
            };
            let permit = self
                .0
                .ai_slots
                .acquire()
                .await
                .map_err(|_| ApiError::internal("the AI is shutting down"))?;
            let started = Instant::now();
            let chosen = tokio::task::spawn_blocking(move || {
                let stop = AtomicBool::new(false);
                Engine::new(options).choose(&game, &limits, &stop)
            })
            .await
            .map_err(join_error)?;
            drop(permit);
            let Some(action) = chosen else {
                room_ref.lock().await.ai_busy = false;
                return Ok(());
            };
            let mut room = room_ref.lock().await;
            if room.ply() != ply || room.dead {
                continue;
            }
            self.commit(room_ref, &mut room, action).await?;
            tracing::debug!(
                "game {id}: the AI played {action} at ply {} in {:?}",
                ply + 1,
                started.elapsed()
            );
        }
    }
}

/// The seat of a token, or why it may not act.
fn seat_for(room: &GameRoom, token: Option<&str>) -> Result<Seat, ApiError> {
    match token {
        None => Err(ApiError::forbidden(
            "you hold no seat in this game: spectators only watch",
        )),
        Some(t) => room.seat_of(t).ok_or_else(|| {
            ApiError::forbidden("this token holds no seat in this game: spectators only watch")
        }),
    }
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

fn join_error(e: tokio::task::JoinError) -> ApiError {
    tracing::error!("a game task failed: {e}");
    ApiError::internal("the server failed on this request; nothing was changed")
}

/// A new row with fresh id and tokens.
fn new_row(
    mode: Mode,
    rules: &str,
    start: &str,
    level: u8,
    honourable: bool,
    creator: Seat,
) -> GameRow {
    let now = now_ms();
    let (token_a, token_b, token_both, ai_seat) = match (mode, creator) {
        (Mode::Local, _) | (_, Seat::Both) => (None, None, Some(new_token()), None),
        (Mode::Ai, Seat::A) => (Some(new_token()), None, None, Some("B")),
        (Mode::Ai, Seat::B) => (None, Some(new_token()), None, Some("A")),
        (Mode::Friend, _) => (Some(new_token()), Some(new_token()), None, None),
    };
    GameRow {
        id: new_id(),
        mode: mode.as_str().into(),
        rules: rules.into(),
        start: start.into(),
        level,
        honourable,
        creator: creator.as_str().into(),
        token_a,
        token_b,
        token_both,
        ai_seat: ai_seat.map(Into::into),
        status: if mode == Mode::Friend {
            "waiting"
        } else {
            "playing"
        }
        .into(),
        created_at: now,
        updated_at: now,
        result: None,
        reason: None,
        rematch: None,
    }
}

/// The answer for the holder of `seat`, with the invitation when asked.
fn created(room: &GameRoom, seat: Seat, with_invite: bool) -> Created {
    let id = room.id().to_string();
    let invite = (room.mode == Mode::Friend && with_invite)
        .then(|| room.token_of(seat.swapped()))
        .flatten()
        .map(|t| format!("/join/{id}/{t}"));
    Created {
        seat,
        token: room.token_of(seat).unwrap_or_default().into(),
        url: format!("/g/{id}"),
        invite,
        id,
    }
}
