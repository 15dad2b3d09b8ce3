//! Every game, behind one cheap handle, [`Games`]: the machinery that
//! keeps rooms in memory and in step with the store, and the player
//! commands, each in a file of its own, all run through one path.
//!
//! - `mod.rs`: the handle, its settings, the room registry (one load per
//!   game however many ask) and its janitor, the read of a game.
//! - `command.rs`: THE path of every change of a room
//!   (`Games::command` for a player's command, `Games::on_room` for the
//!   server's own machinery): load the room, run to the end even if the
//!   caller goes away, lock, touch, catch up with the store when told,
//!   find the caller's seat, a sign of life, the clock, the command's
//!   rule, then the AI if it is to act. The room's lock is private to it
//!   ([`RoomRef`]): no other file can take it.
//! - `commit.rs`: every write of a game to the store (an action, another
//!   change, a forfeit, an abort, a player away, a device link, a claimed
//!   invitation), each committed (its failure checked, its time counted,
//!   a conflict caught up), then applied to the room, then broadcast.
//! - one file per command or family, holding only its rule: `play.rs`,
//!   `resign.rs` (resign, abort, claim the win), `takeback.rs`
//!   (ask, answer), `berserk.rs`, `give_time.rs`, `chat.rs`, `seats.rs`
//!   (invitations, device links, seats remembered by a session),
//!   `rematch.rs`, `create.rs`; `act.rs` is the table of the commands the
//!   doors offer.
//! - the machinery, each change of it a command of the path as
//!   `Who::Server`: `referee.rs` (the clock referee), `sync.rs` (other
//!   servers' notices, catch-up, heartbeat, take-over), `ai_turns.rs` (the
//!   AI's searches and leases), `presence.rs` (players away and back,
//!   spectators); `watch.rs` is what sockets and streams read.

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use gore_ai::Level;
use gore_core::{Player, Position, Rules};
use gore_solver::perfect::Perfect;
use tokio::sync::OnceCell;

use super::clock::{Clock, TimeControl};
use super::{valid_id, GameError, Mode, Room, Seat};
use crate::ai::{cheap_level, AiPool};
use crate::storage::{Store, StoreError};

mod act;
mod ai_turns;
mod berserk;
mod chat;
mod command;
mod commit;
mod create;
mod give_time;
mod play;
mod presence;
mod read;
mod referee;
mod rematch;
mod resign;
mod room_ref;
mod seats;
mod sync;
mod takeback;
mod watch;

pub use act::{Acted, Door, GameCommand};
pub use watch::{Shown, Snapshot, Watch};

/// The one command path opened to its own tests (the `test-support`
/// feature, which no server build turns on): its steps driven with probe
/// commands on a real store (crates/gore-store/tests/command_path.rs).
#[cfg(feature = "test-support")]
pub mod testing {
    pub use super::command::{CatchUp, Command, Cx, Steps, Who};
    use super::{GameSettings, Games};
    use crate::storage::Store;
    use crate::GameError;
    use std::sync::Arc;

    /// Runs `command` on game `id` for `who` through the one path.
    pub async fn command<C: Command>(
        games: &Games,
        id: &str,
        who: Who,
        command: C,
    ) -> Result<C::Done, GameError> {
        games.command(id, who, command).await
    }

    /// The games without their housekeeping tasks: nothing races a test.
    pub fn idle(store: Arc<dyn Store>, settings: GameSettings) -> std::io::Result<Games> {
        Games::idle(store, settings, false)
    }
}
pub use chat::{CHAT_MAX_CHARS, CHAT_PER_10S};
pub use sync::{DEAD_AFTER, HEARTBEAT_EVERY};

pub use room_ref::RoomRef;

/// Each server writes its spectator counts this often.
pub const SPECTATORS_EVERY: Duration = Duration::from_secs(3);
/// Counts older than this are a stopped server's: not counted.
pub const SPECTATORS_FRESH: Duration = Duration::from_secs(15);

/// Idle rooms nobody watches are dropped from memory after this long.
const IDLE_ROOM: Duration = Duration::from_secs(600);

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
    /// This process's part in the AI's turns.
    pub ai_role: AiRole,
}

/// Who computes the AI's turns (docs/DEPLOY.md, "AI workers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AiRole {
    /// A web server that computes the AI turns of the games it serves,
    /// and takes up the turns no live claim covers (a server or worker
    /// died, a restart).
    #[default]
    Serve,
    /// A web server whose AI turns workers compute (`--ai-threads 0`): it
    /// never searches, and takes the workers' moves in.
    Elsewhere,
    /// An AI worker (`gore worker`): it serves no one, and takes every AI
    /// turn due that it has a thread for.
    Worker,
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
    /// Catch-ups of every game in memory under way (after notices were
    /// missed): the server is behind the store until they end.
    catching_up: std::sync::atomic::AtomicUsize,
    /// The AI takes up no more turns (a worker stopping).
    ai_stopped: std::sync::atomic::AtomicBool,
    /// This process's heartbeat is in the store: the others see its
    /// claims as a live process's.
    beaten: std::sync::atomic::AtomicBool,
    /// Told of commits and notices (the server's metrics), once set.
    observer: std::sync::OnceLock<Arc<dyn crate::observe::Observer>>,
    /// Each seat's latest chat messages (Unix ms), for its rate limit.
    chat_times: StdMutex<HashMap<(String, Player), std::collections::VecDeque<i64>>>,
}

pub(crate) fn store_error(e: StoreError) -> GameError {
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

/// The player a seat is, if it is one player's (`both` is no one
/// player's): the one Seat→Player match of the games.
fn player_of(seat: Seat) -> Option<Player> {
    match seat {
        Seat::A => Some(Player::A),
        Seat::B => Some(Player::B),
        Seat::Both => None,
    }
}

impl Games {
    /// The games kept in `store`; starts the AI's threads and the
    /// housekeeping tasks (which needs a Tokio runtime).
    pub fn new(store: Arc<dyn Store>, settings: GameSettings) -> std::io::Result<Games> {
        let notices = store.notices();
        let role = settings.ai_role;
        let games = Games::idle(store, settings, notices.is_some())?;
        games.clone().spawn_janitor();
        games.clone().spawn_heartbeat();
        if role != AiRole::Worker {
            // A worker serves no one: the web servers keep the clocks.
            games.clone().spawn_referee();
            games.clone().spawn_spectator_counts();
        }
        let shared = notices.is_some();
        if let Some(notices) = notices {
            games.clone().spawn_listener(notices);
            games.clone().spawn_catch_up();
        }
        match role {
            AiRole::Serve => games.clone().spawn_ai_sweep(Duration::from_secs(2)),
            // Taken up as soon as they are due: a worker's only work.
            AiRole::Worker => games.clone().spawn_ai_sweep(Duration::from_millis(200)),
            // Without notices, the workers' moves are looked for.
            AiRole::Elsewhere if !shared => games.clone().spawn_ai_watch(),
            AiRole::Elsewhere => {}
        }
        Ok(games)
    }

    /// The games without their housekeeping tasks (the referee, the
    /// heartbeat, the janitor, the listener): [`Games::new`] starts them;
    /// the unit tests leave them out, so that nothing but the test moves
    /// a game. `shared`: other servers write to the store (it sends
    /// notices).
    fn idle(store: Arc<dyn Store>, settings: GameSettings, shared: bool) -> std::io::Result<Games> {
        let ai = AiPool::new(
            settings.ai_threads,
            settings.ai_queue,
            settings.ai_per_client,
            cheap_level(),
        )?;
        let ratings =
            super::ratings::Ratings::new(store.clone(), settings.clock.clone(), settings.max_plies);
        Ok(Games(Arc::new(Inner {
            started: settings.clock.now_ms(),
            ratings,
            chat_times: StdMutex::new(HashMap::new()),
            observer: std::sync::OnceLock::new(),
            catching_up: std::sync::atomic::AtomicUsize::new(0),
            ai_stopped: std::sync::atomic::AtomicBool::new(false),
            beaten: std::sync::atomic::AtomicBool::new(false),
            server: store.origin(),
            rooms: StdMutex::new(HashMap::new()),
            ai,
            ai_retry: StdMutex::new(Vec::new()),
            shared,
            refreshing: StdMutex::new(HashMap::new()),
            store,
            settings,
        })))
    }

    /// Why the store takes no writes, once it failed.
    pub fn failure(&self) -> Option<String> {
        self.0.store.failure()
    }

    /// Tells `observer` of the games' events from now on (once: a second
    /// observer is ignored).
    pub fn observe(&self, observer: Arc<dyn crate::observe::Observer>) {
        let _ = self.0.observer.set(observer);
    }

    /// The observer, if one was set.
    fn observer(&self) -> Option<&dyn crate::observe::Observer> {
        self.0.observer.get().map(|o| &**o)
    }

    /// Games held in memory now.
    pub fn in_memory(&self) -> usize {
        self.rooms().len()
    }

    /// The AI's pool (its queue, for the metrics).
    pub fn ai_pool(&self) -> &AiPool {
        &self.0.ai
    }

    /// Whether this server shares its store with others (it hears their
    /// notices).
    pub fn is_shared(&self) -> bool {
        self.0.shared
    }

    /// Whether the store is reachable: one trivial read (a session that
    /// does not exist) answers.
    pub async fn store_answers(&self) -> Result<(), String> {
        self.0
            .store
            .session_exists(String::new())
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
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
                    match cell.get() {
                        None => false,
                        // Busy now: in use.
                        Some(r) => r
                            .peek(|r| {
                                r.watchers() > 0 || r.ai_busy || r.touched.elapsed() < IDLE_ROOM
                            })
                            .unwrap_or(true),
                    }
                });
            }
        });
    }

    /// The ratings.
    pub fn ratings(&self) -> &super::ratings::Ratings {
        &self.0.ratings
    }

    /// Reads how a finished rated game moved its players' ratings into its
    /// room; `true` if that changed what the room shows.
    async fn fill_rating_changes(&self, room: &mut Room) -> bool {
        let info = &room.info;
        let (true, true, Some(tc), [Some(a), Some(b)]) =
            (info.rated, room.is_over(), info.clock, &info.players)
        else {
            return false;
        };
        match self
            .0
            .ratings
            .changes_of(&info.id, [a.as_str(), b.as_str()], tc.pace())
            .await
        {
            Ok(changes) if changes != room.rating_changes => {
                room.rating_changes = changes;
                true
            }
            Ok(_) => false,
            Err(e) => {
                tracing::warn!("game {}: rating changes not read: {e}", info.id);
                false
            }
        }
    }

    /// Now, by the server's clock.
    fn now(&self) -> i64 {
        self.0.settings.clock.now_ms()
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
                self.fill_rating_changes(&mut room).await;
                tracing::debug!("game {id} loaded ({n} actions)");
                Ok::<_, GameError>(RoomRef::new(room))
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
            .is_some_and(|r| r.same(room_ref))
        {
            rooms.remove(room.info.id.as_str());
        }
    }
}
