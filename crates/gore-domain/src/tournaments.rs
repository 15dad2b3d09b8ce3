//! Tournaments on the server: arenas (issue 29), their rules those of the
//! `gore-tournament` crate (docs/RULES.md, "Tournaments"), run here over
//! the shared store so that any number of servers agree.
//!
//! - Each tournament's whole state ([`ArenaState`]: the crate's [`Arena`],
//!   the players' names, the site's game of each arena game) is stored as
//!   JSON with a version; every change (a creation, a join, a pause, a
//!   withdrawal, results and pairings) loads it, changes it and saves it
//!   only if nobody saved another version meanwhile (else it starts
//!   again). So a change is made once, whichever server makes it.
//! - Pairing and recording results is the work of one server at a time:
//!   the holder of the tournament's pairing lease (a row with holder and
//!   expiry, like an AI turn's claim; another server takes it once it
//!   runs out or its holder's heartbeat stops). The holder, every
//!   [`TICK`] and at once after a join on it, reads which of the running
//!   games are over, records their results, pairs the free players at
//!   the server's clock and creates their games: the new state and the
//!   games are saved in one transaction, so a pairing never exists
//!   without its game nor a game without its pairing.
//! - A game of an arena is a game between two accounts like a lobby's
//!   (a friend game without an invitation, both seats the accounts'),
//!   with the arena's clock and rules, rated if the arena is: it is
//!   played, ended, rated and reviewed as any other.
//!
//! - With `--tournaments-hourly-arena`, the server schedules an arena
//!   every hour ([`HOURLY`]): each tick makes sure this hour's and the
//!   next hour's exist, under ids derived from the hour, so that several
//!   servers make each once.
//!
//! Swiss events (and the daily Swiss) are run the same way: [`swiss`].
//!
//! - Berserk: a game of an arena knows its arena; its players' berserks
//!   are stored with it (`games/berserk.rs`) and told to the arena with
//!   its result (`tournaments/berserk.rs`).
//!
//! - BOTs join only an arena whose creator allows them
//!   ([`NewTournament::bots`]; the hourly arena does not; no Swiss event).

mod berserk;
mod played;
mod refused;
pub use refused::REFUSED_FOR_MS;
pub mod state;
pub use played::{PlayedLine, PLAYED_SHOWN};
pub use state::{ArenaState, SwissState, TournamentState};

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gore_core::{Forfeit, Player, Rules};
use gore_tournament::arena::{Arena, ArenaConfig, ArenaError, ArenaGameId, GameResult, Presence};
use gore_tournament::{Outcome, PlayerId, PlayerResult};
use serde::{Deserialize, Serialize};

use super::clock::{Clock, TimeControl};
use super::{new_id, GameError, GameInfo, Mode, Said, Seat, DEAD_AFTER};
use crate::storage::{GameEnd, Store, StoreError, StoredPlayer, StoredTournament, TournamentPhase};

pub mod swiss;
pub use swiss::TournamentPage;

/// How often the lease holder records results and pairs.
pub const TICK: Duration = Duration::from_secs(1);
/// How long a pairing lease lasts unless renewed (each tick renews it).
pub const LEASE: Duration = Duration::from_secs(10);
/// The fewest and most minutes an arena lasts.
pub const ARENA_MINUTES: (u32, u32) = (10, 180);
/// The longest name, in characters.
pub const NAME_MAX: usize = 40;
/// How far ahead an arena may be set to start (a month: 30 days).
pub const START_AHEAD_MS: i64 = 30 * 86_400_000;
/// How far in the past a start may be and still mean "now": a form's
/// start has whole minutes.
pub const START_SLACK_MS: i64 = 60_000;
/// Tournaments of each phase a list shows at most.
pub const LIST_LIMIT: u32 = 50;
/// Tournaments not finished an account may have created (lichess limits
/// creations per account and address too): a flood of arenas by one
/// account fills neither the lists nor the ticks.
pub const OPEN_PER_ACCOUNT: u16 = 3;
/// Tournaments not finished created from one address (an IPv4 address,
/// an IPv6 /64), whatever the accounts.
pub const OPEN_PER_ADDRESS: u16 = 6;
/// The server's hourly arena: its pace, and its minutes from each full
/// hour (lichess's hourly arenas last 57: a few minutes' rest, and the
/// last games end before the next begins).
pub const HOURLY: (&str, u32) = ("3+2", 57);
/// How long an abort's result waits for the record of whom it counts
/// against (written just after the game's end), in ms.
const ABORT_GRACE_MS: i64 = 5_000;
/// An hour, in ms.
const HOUR_MS: i64 = 3_600_000;
/// How many times a change is tried again after another server's change
/// of the same tournament came first.
const RETRIES: usize = 20;

/// What an arena is created with (the edge has read each field).
#[derive(Debug, Clone)]
pub struct NewTournament {
    /// Its name (1 to [`NAME_MAX`] characters).
    pub name: String,
    /// `arena` or `swiss`.
    pub kind: String,
    /// Its games' clock (minutes and seconds).
    pub clock: TimeControl,
    /// Its games' rules.
    pub rules: Rules,
    /// Rated games.
    pub rated: bool,
    /// When it starts (Unix ms); `None`: now.
    pub starts_at: Option<i64>,
    /// How long it lasts, in minutes ([`ARENA_MINUTES`]; an arena's).
    pub minutes: u32,
    /// Its number of rounds ([`swiss::SWISS_ROUNDS`]; a Swiss event's).
    pub rounds: Option<u32>,
    /// BOT accounts may join (issue 29: never unless its creator allows).
    pub bots: bool,
}

/// Where a tournament stands at a given time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Not begun.
    Upcoming,
    /// Pairing.
    Running,
    /// Pairing is over; games still being played.
    Ending,
    /// Over: its last game ended.
    Finished,
}

/// A tournament as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentSummary {
    /// Its id.
    pub id: String,
    /// Its page.
    pub url: String,
    /// `arena` or `swiss`.
    pub kind: String,
    /// Its name.
    pub name: String,
    /// The creator's username (or display name).
    pub creator: String,
    /// Its games' clock.
    pub clock: TimeControl,
    /// Its games' rules.
    pub rules: Rules,
    /// Rated games.
    pub rated: bool,
    /// Unix ms.
    pub starts_at: i64,
    /// Unix ms.
    pub ends_at: i64,
    /// Where it stands now.
    pub phase: Phase,
    /// Its players (withdrawn ones too).
    pub players: usize,
    /// A Swiss event's number of rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// A Swiss event's rounds paired so far (the current one included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// BOT accounts may join.
    pub bots: bool,
}

/// One finished game on a player's score sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SheetLine {
    /// The site's game.
    pub game: String,
    /// `win`, `draw`, `loss`.
    pub result: PlayerResult,
    /// Counted double (he was on fire).
    pub doubled: bool,
    /// He went berserk.
    pub berserk: bool,
    /// The berserk point.
    pub berserk_point: bool,
    /// The points it scored.
    pub points: u32,
}

/// One line of an arena's standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingLine {
    /// 1 for the leader.
    pub rank: u32,
    /// The account's public id.
    pub player: String,
    /// His username.
    pub name: String,
    /// His rating when he first joined.
    pub rating: i32,
    /// His points.
    pub score: u32,
    /// Games finished (not aborted).
    pub games: u32,
    /// Of which won.
    pub wins: u32,
    /// His next game counts double.
    pub on_fire: bool,
    /// His performance (`None` before his first finished game).
    pub performance: Option<i32>,
    /// `joined`, `paused`, `withdrawn`.
    pub presence: Presence,
    /// The game he is playing now, if any.
    pub game: Option<String>,
    /// The berserk points he earned (his sheet is
    /// [`Tournaments::player_sheet`]'s: the page stays small).
    pub berserk_points: u32,
}

/// A player's line of an arena's standings, with his score sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerSheet {
    /// His line.
    #[serde(flatten)]
    pub line: StandingLine,
    /// His finished games, in the order they ended.
    pub sheet: Vec<SheetLine>,
}

/// A game of the arena being played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentGame {
    /// The site's game.
    pub game: String,
    /// Its page.
    pub url: String,
    /// Player A's (public id, username).
    pub a: (String, String),
    /// Player B's.
    pub b: (String, String),
}

/// A tournament's page: its terms, standings, games being played and the
/// leader's game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentDetail {
    /// Its terms and phase.
    pub tournament: TournamentSummary,
    /// The standings, the leader first.
    pub standings: Vec<StandingLine>,
    /// The games being played, in pairing order.
    pub playing: Vec<CurrentGame>,
    /// The game to feature: the best-placed player's game being played.
    pub featured: Option<String>,
}

/// The tournaments of each phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentLists {
    /// Not begun, the soonest first.
    pub upcoming: Vec<TournamentSummary>,
    /// Begun and not over, the earliest begun first.
    pub running: Vec<TournamentSummary>,
    /// Over, the latest first.
    pub finished: Vec<TournamentSummary>,
}

/// The tournaments of this server, over the shared store. Cheap to clone.
#[derive(Clone)]
pub struct Tournaments(Arc<Inner>);

struct Inner {
    store: Arc<dyn Store>,
    clock: Clock,
    ratings: super::ratings::Ratings,
    /// Set by [`Tournaments::halt`]: this server pairs no more.
    halted: AtomicBool,
    /// The server schedules its hourly arena.
    hourly: bool,
    /// The server schedules its daily Swiss.
    daily: bool,
    /// Told of each pass that paired games (the server's metrics).
    observer: std::sync::OnceLock<Arc<dyn super::observe::Observer>>,
    /// Creations refused lately, by creator and address (refused.rs).
    refused: refused::Refused,
}

fn store_error(e: StoreError) -> GameError {
    match e {
        StoreError::Failed(_) => GameError::Unavailable,
        StoreError::Conflict => GameError::Raced,
        e => {
            tracing::error!("tournaments: {e}");
            GameError::Internal("the tournament could not be read or changed; try again".into())
        }
    }
}

fn bad(field: &'static str, why: impl Into<String>) -> GameError {
    GameError::BadField {
        field,
        why: why.into(),
    }
}

/// An arena's refusal as the site's.
fn arena_error(e: ArenaError) -> GameError {
    match e {
        ArenaError::Over => GameError::Refused(Said::new(
            "tournament_over",
            "this tournament has ended: nobody joins any more",
        )),
        ArenaError::Withdrawn(_) => GameError::Refused(Said::new(
            "tournament_withdrawn",
            "you withdrew from this tournament: you cannot rejoin it",
        )),
        ArenaError::UnknownPlayer(_) => GameError::Refused(Said::new(
            "tournament_not_joined",
            "you have not joined this tournament",
        )),
        e => GameError::Internal(format!("tournament: {e}")),
    }
}

/// An arena's state, or the refusal of an arena's call (pausing) by a
/// Swiss event.
fn arena_of(state: &mut TournamentState) -> Result<&mut ArenaState, GameError> {
    match state {
        TournamentState::Arena(s) => Ok(s),
        TournamentState::Swiss(_) => Err(GameError::Refused(Said::new(
            "tournament_no_pause",
            "a Swiss event has no pause: play each round, or withdraw",
        ))),
    }
}

/// How a finished game of the arena ended, for its players: `None` for an
/// abort. A forfeit names the loser; otherwise the result's seeds
/// (`30-18`) say who won.
pub fn outcome_of(end: &GameEnd) -> Option<Outcome> {
    match end.forfeit {
        Some(Forfeit::Abort) => None,
        Some(f) => Some(match f.loser() {
            Some(Player::A) => Outcome::BWins,
            _ => Outcome::AWins,
        }),
        None => {
            let text = end.result.as_deref()?;
            let seeds = text.split_whitespace().next()?;
            let (a, b) = seeds.split_once('-')?;
            let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
            Some(match a.cmp(&b) {
                std::cmp::Ordering::Greater => Outcome::AWins,
                std::cmp::Ordering::Less => Outcome::BWins,
                std::cmp::Ordering::Equal => Outcome::Draw,
            })
        }
    }
}

/// The id of the hourly arena of hour `h` (hours since the epoch): `h`
/// then the hour's number in 9 base-32 digits (a valid id, as a drawn
/// one is, that no two hours share).
fn hourly_id(h: i64) -> String {
    let mut n = h.max(0) as u64;
    let mut digits = [b'0'; 9];
    for d in digits.iter_mut().rev() {
        *d = super::ID_ALPHABET[(n % 32) as usize];
        n /= 32;
    }
    format!("h{}", String::from_utf8_lossy(&digits))
}

/// What a change of a tournament's state produced: the new games to
/// create with it.
type Change = Result<Vec<GameInfo>, GameError>;

impl Tournaments {
    /// The tournaments over `store`; starts the pairing task (a Tokio
    /// runtime is needed). With `hourly`, the server schedules an arena
    /// every hour ([`HOURLY`]); with `daily`, a Swiss every day
    /// ([`swiss::DAILY`]).
    pub fn new(
        store: Arc<dyn Store>,
        clock: Clock,
        ratings: super::ratings::Ratings,
        hourly: bool,
        daily: bool,
    ) -> Tournaments {
        let t = Tournaments(Arc::new(Inner {
            store,
            clock,
            ratings,
            halted: AtomicBool::new(false),
            hourly,
            daily,
            observer: std::sync::OnceLock::new(),
            refused: Default::default(),
        }));
        t.clone().spawn_ticker();
        t
    }

    fn now(&self) -> i64 {
        self.0.clock.now_ms()
    }

    /// Tells `observer` of the pairings from now on (once: a second
    /// observer is ignored).
    pub fn observe(&self, observer: Arc<dyn super::observe::Observer>) {
        let _ = self.0.observer.set(observer);
    }

    /// A pass begun at `began` committed `games` new games of a
    /// tournament of `kind`: logged and observed.
    fn paired(&self, id: &str, kind: &'static str, games: usize, began: Instant) {
        if games == 0 {
            return;
        }
        tracing::info!("tournament {id}: {games} games paired");
        if let Some(o) = self.0.observer.get() {
            o.paired(kind, games, began.elapsed());
        }
    }

    /// This server stops pairing for good (its lease lapses and another
    /// server's takes over): what a server that died does, for tests.
    pub fn halt(&self) {
        self.0.halted.store(true, Ordering::SeqCst);
    }

    fn spawn_ticker(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(TICK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                let t = Tournaments(inner);
                if t.0.halted.load(Ordering::SeqCst) {
                    return;
                }
                t.tick().await;
            }
        });
    }

    /// Records the results and pairs in every tournament begun and not
    /// finished whose lease this server holds or takes (what the task
    /// does each [`TICK`]; tests call it to go on without waiting).
    pub async fn tick(&self) {
        if self.0.hourly {
            if let Err(e) = self.schedule().await {
                tracing::debug!("tournaments: the hourly arena not scheduled: {e}");
            }
        }
        if self.0.daily {
            if let Err(e) = self.schedule_daily().await {
                tracing::debug!("tournaments: the daily Swiss not scheduled: {e}");
            }
        }
        // Every running one, however many: a first N would leave those
        // begun after N others unticked (their results never recorded).
        let running = match self.0.store.running_tournament_ids(self.now()).await {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!("tournaments: not listed: {e}");
                return;
            }
        };
        for id in running {
            if let Err(e) = self.run(&id).await {
                tracing::debug!("tournament {id}: {e}");
            }
        }
    }

    /// Makes sure this hour's arena (unless over) and the next hour's
    /// exist. Each has an id derived from its hour (`h` and the hour's
    /// number in base 32), so that two servers make it once: the second's
    /// insert is refused.
    pub async fn schedule(&self) -> Result<(), GameError> {
        let now = self.now();
        let hour = now.div_euclid(HOUR_MS);
        let (pace, minutes) = HOURLY;
        let clock: TimeControl = pace.parse().map_err(|e: String| GameError::Internal(e))?;
        for h in [hour, hour + 1] {
            let starts_at = h * HOUR_MS;
            let ends_at = starts_at + i64::from(minutes) * 60_000;
            let id = hourly_id(h);
            if ends_at <= now
                || self
                    .0
                    .store
                    .tournament(id.clone())
                    .await
                    .map_err(store_error)?
                    .is_some()
            {
                continue;
            }
            let arena = Arena::try_new(ArenaConfig::new(starts_at as u64, ends_at as u64))
                .map_err(|e| GameError::Internal(e.to_string()))?;
            let state = ArenaState {
                arena,
                names: BTreeMap::new(),
                games: Vec::new(),
                bots: false,
                bot_players: Default::default(),
            };
            let made = self
                .0
                .store
                .create_tournament(StoredTournament {
                    id: id.clone(),
                    kind: "arena".into(),
                    name: format!("Hourly {pace} arena"),
                    creator: String::new(),
                    creator_addr: None,
                    clock,
                    rules: Rules::STANDARD,
                    rated: true,
                    starts_at,
                    ends_at,
                    finished: false,
                    created_at: now,
                    state: state.into(),
                    version: 1,
                })
                .await;
            match made {
                Ok(()) => tracing::info!("tournament {id}: the hourly arena scheduled"),
                // Another server made it first.
                Err(StoreError::Conflict) => {}
                Err(e) => return Err(store_error(e)),
            }
        }
        Ok(())
    }

    /// Creates an arena or a Swiss event by the account `me`, from the
    /// address `from` if known: its id. An account has at most
    /// [`OPEN_PER_ACCOUNT`] tournaments not finished, an address
    /// [`OPEN_PER_ADDRESS`]; a BOT creates none.
    pub async fn create(
        &self,
        me: &StoredPlayer,
        new: NewTournament,
        from: Option<std::net::IpAddr>,
    ) -> Result<String, GameError> {
        if !me.account {
            return Err(GameError::NeedsAccount(Said::new(
                "tournament_needs_account",
                "tournaments are for accounts: sign up or log in",
            )));
        }
        // Whichever door it comes by (a BOT's token too): a BOT plays in
        // tournaments that let it, and makes none.
        if me.bot {
            return Err(GameError::Forbidden(Said::new(
                "bot_creates_no_tournament",
                "a BOT joins the tournaments that allow BOTs and creates none",
            )));
        }
        let from = from.map(|ip| crate::ai::ClientKey::ip(ip).to_string());
        let name = new.name.trim();
        let chars = name.chars().count();
        if chars == 0 || chars > NAME_MAX || name.chars().any(char::is_control) {
            return Err(bad(
                "name",
                format!("a tournament's name has 1 to {NAME_MAX} characters, no control ones"),
            ));
        }
        if !matches!(new.kind.as_str(), "arena" | "swiss") {
            let k = &new.kind;
            return Err(bad(
                "kind",
                format!("`{k}` is not a kind of tournament (arena, swiss)"),
            ));
        }
        if !matches!(new.clock, TimeControl::Fischer { .. }) {
            return Err(bad(
                "clock",
                "a tournament's pace is minutes and seconds (such as 3+2), not days",
            ));
        }
        if new.kind == "swiss" {
            let name = name.to_string();
            return self.create_swiss(me, new, &name, from).await;
        }
        let (lo, hi) = ARENA_MINUTES;
        if !(lo..=hi).contains(&new.minutes) {
            return Err(bad(
                "minutes",
                format!("an arena lasts {lo} to {hi} minutes, not {}", new.minutes),
            ));
        }
        let now = self.now();
        let starts_at = new.starts_at.unwrap_or(now).max(now);
        if new.starts_at.is_some_and(|s| s < now - START_SLACK_MS) {
            return Err(bad("starts_at", "the start is in the past"));
        }
        if starts_at > now + START_AHEAD_MS {
            return Err(bad("starts_at", "an arena starts within a month"));
        }
        let ends_at = starts_at + i64::from(new.minutes) * 60_000;
        let arena = Arena::try_new(ArenaConfig::new(starts_at as u64, ends_at as u64))
            .map_err(|e| bad("minutes", e.to_string()))?;
        let mut names = BTreeMap::new();
        names.insert(me.id.clone(), me.name.clone());
        let state = ArenaState {
            arena,
            names,
            games: Vec::new(),
            bots: new.bots,
            bot_players: Default::default(),
        };
        let id = new_id();
        self.store_new(StoredTournament {
            id: id.clone(),
            kind: "arena".into(),
            name: name.to_string(),
            creator: me.id.clone(),
            creator_addr: from,
            clock: new.clock,
            rules: new.rules,
            rated: new.rated,
            starts_at,
            ends_at,
            finished: false,
            created_at: now,
            state: state.into(),
            version: 1,
        })
        .await?;
        tracing::info!("tournament {id} created ({} min)", new.minutes);
        Ok(id)
    }

    /// Stores a tournament a person created, within the caps per account
    /// and per address, or refuses it naming them. A place two creations
    /// took at once is refused to one of them, which tries again (the
    /// caps hold however many servers create at once).
    async fn store_new(&self, t: StoredTournament) -> Result<(), GameError> {
        let now = self.0.clock.now_ms();
        let pair = (t.creator.clone(), t.creator_addr.clone());
        if !self.0.refused.lately(&pair, now) {
            for _ in 0..3 {
                let stored = self
                    .0
                    .store
                    .create_tournament_within(t.clone(), OPEN_PER_ACCOUNT, OPEN_PER_ADDRESS)
                    .await
                    .map_err(store_error)?;
                if stored {
                    return Ok(());
                }
            }
            self.0.refused.note(pair, now);
        }
        Err(refused::too_many_tournaments())
    }

    async fn load(&self, id: &str) -> Result<StoredTournament, GameError> {
        if !super::valid_id(id) {
            return Err(GameError::NoTournament);
        }
        self.0
            .store
            .tournament(id.to_string())
            .await
            .map_err(store_error)?
            .ok_or(GameError::NoTournament)
    }

    fn phase(t: &StoredTournament, state: &ArenaState, now: i64) -> Phase {
        let at = now.max(0) as u64;
        if t.finished || state.arena.finished(at) {
            Phase::Finished
        } else if now < t.starts_at {
            Phase::Upcoming
        } else if state.arena.ended(at) {
            Phase::Ending
        } else {
            Phase::Running
        }
    }

    fn summary(t: &StoredTournament, state: &ArenaState, now: i64) -> TournamentSummary {
        let phase = Self::phase(t, state, now);
        let mut line = Self::summary_of(t, &state.names, phase, state.arena.players.len());
        line.bots = state.bots;
        line
    }

    /// A list's line of `t`, with what every kind has (a kind adds its own).
    fn summary_of(
        t: &StoredTournament,
        names: &BTreeMap<String, String>,
        phase: Phase,
        players: usize,
    ) -> TournamentSummary {
        TournamentSummary {
            id: t.id.clone(),
            url: format!("/tournament/{}", t.id),
            kind: t.kind.clone(),
            name: t.name.clone(),
            creator: names
                .get(&t.creator)
                .cloned()
                .unwrap_or_else(|| t.creator.clone()),
            clock: t.clock,
            rules: t.rules,
            rated: t.rated,
            starts_at: t.starts_at,
            ends_at: t.ends_at,
            phase,
            players,
            rounds: None,
            round: None,
            bots: false,
        }
    }

    /// The tournaments not begun, running, and over (the latest
    /// [`LIST_LIMIT`] of each).
    pub async fn list(&self) -> Result<TournamentLists, GameError> {
        let now = self.now();
        let mut lists = [Vec::new(), Vec::new(), Vec::new()];
        for (i, phase) in [
            TournamentPhase::Upcoming,
            TournamentPhase::Running,
            TournamentPhase::Finished,
        ]
        .into_iter()
        .enumerate()
        {
            for t in self
                .0
                .store
                .tournaments(phase, now, LIST_LIMIT)
                .await
                .map_err(store_error)?
            {
                lists[i].push(match &t.state {
                    TournamentState::Arena(s) => Self::summary(&t, s, now),
                    TournamentState::Swiss(s) => Self::swiss_summary(&t, s, now),
                });
            }
        }
        let [upcoming, running, finished] = lists;
        Ok(TournamentLists {
            upcoming,
            running,
            finished,
        })
    }

    /// A tournament's page: every player's line without his sheet (at 500
    /// players the sheets made the page 2.4 MB, asked again every 2 s).
    pub async fn detail(&self, id: &str) -> Result<TournamentDetail, GameError> {
        let t = self.load(id).await?;
        let TournamentState::Arena(s) = &t.state else {
            return Err(GameError::NoTournament);
        };
        let (standings, _) = Self::lines(s, None);
        let site = |g: ArenaGameId| s.games.get(g.0 as usize).cloned();
        let name = |p: &PlayerId| s.names.get(p.as_str()).cloned().unwrap_or_default();
        let playing = s
            .arena
            .games
            .iter()
            .enumerate()
            .filter(|(_, g)| g.running())
            .filter_map(|(i, g)| {
                let game = s.games.get(i)?.clone();
                Some(CurrentGame {
                    url: format!("/g/{game}"),
                    game,
                    a: (g.a.0.clone(), name(&g.a)),
                    b: (g.b.0.clone(), name(&g.b)),
                })
            })
            .collect();
        Ok(TournamentDetail {
            tournament: Self::summary(&t, s, self.now()),
            standings,
            playing,
            featured: s.arena.leader_game().and_then(site),
        })
    }

    /// Player `player`'s line of arena `id`, with his score sheet.
    pub async fn player_sheet(&self, id: &str, player: &str) -> Result<PlayerSheet, GameError> {
        let t = self.load(id).await?;
        let TournamentState::Arena(s) = &t.state else {
            return Err(GameError::NoTournament);
        };
        let (lines, sheet) = Self::lines(s, Some(player));
        let line = lines.into_iter().find(|l| l.player == player);
        let line = line.ok_or_else(|| {
            GameError::NotFound(Said::new(
                "tournament_no_player",
                "no such player in this tournament",
            ))
        })?;
        Ok(PlayerSheet { line, sheet })
    }

    /// The standings' lines, and the sheet of `of` if asked for (every
    /// sheet and game in one pass each: per player, a long arena would
    /// take players × games).
    fn lines(s: &ArenaState, of: Option<&str>) -> (Vec<StandingLine>, Vec<SheetLine>) {
        let site = |g: ArenaGameId| s.games.get(g.0 as usize).cloned();
        let name = |p: &PlayerId| s.names.get(p.as_str()).cloned().unwrap_or_default();
        let mut sheets = s.arena.sheets();
        let mut current = BTreeMap::new();
        for (i, g) in s.arena.games.iter().enumerate() {
            if g.running() {
                current.insert(&g.a, i as u32);
                current.insert(&g.b, i as u32);
            }
        }
        let who = PlayerId(of.unwrap_or_default().to_string());
        let sheet = (of.and_then(|_| sheets.get(&who)).into_iter().flatten())
            .map(|x| SheetLine {
                game: site(x.game).unwrap_or_default(),
                result: x.result,
                doubled: x.doubled,
                berserk: berserk::went_berserk(&s.arena, x.game, &who),
                berserk_point: x.berserk_point,
                points: x.points,
            })
            .collect();
        let lines = s
            .arena
            .standings()
            .into_iter()
            .map(|r| StandingLine {
                rank: r.rank,
                name: name(&r.player),
                rating: r.rating,
                score: r.score,
                games: r.games,
                wins: r.wins,
                on_fire: r.on_fire,
                performance: r.performance,
                presence: r.presence,
                game: current.get(&r.player).and_then(|&g| site(ArenaGameId(g))),
                berserk_points: sheets
                    .remove(&r.player)
                    .map_or(0, |v| v.iter().filter(|x| x.berserk_point).count() as u32),
                player: r.player.0,
            })
            .collect();
        (lines, sheet)
    }

    /// Account `me` joins tournament `id` (or comes back from a pause);
    /// the lease holder pairs him (at once if it is this server).
    pub async fn join(&self, id: &str, me: &StoredPlayer) -> Result<(), GameError> {
        if !me.account {
            return Err(GameError::NeedsAccount(Said::new(
                "tournament_needs_account",
                "tournaments are for accounts: sign up or log in",
            )));
        }
        let t = self.load(id).await?;
        let bots_allowed = matches!(&t.state, TournamentState::Arena(s) if s.bots);
        if me.bot && !bots_allowed {
            return Err(GameError::Forbidden(Said::new(
                "tournament_no_bots",
                "this tournament does not allow BOT accounts",
            )));
        }
        // For his page (before the join: a join that fails leaves a row
        // his page passes over, never a join without its row).
        self.0
            .store
            .add_tournament_player(id.to_string(), me.id.clone())
            .await
            .map_err(store_error)?;
        if let TournamentState::Swiss(_) = t.state {
            return self.join_swiss(&t, me).await;
        }
        // His rating of the arena's pace, kept from his first join.
        let rating = self.0.ratings.of(&me.id, t.clock.pace()).await?.0.rating;
        let rating = rating.round() as i32;
        self.change(id, |s, now| {
            s.arena
                .join(PlayerId::from(me.id.as_str()), rating, now.max(0) as u64)
                .map_err(arena_error)?;
            s.names.insert(me.id.clone(), me.name.clone());
            if me.bot {
                s.bot_players.insert(me.id.clone());
            }
            Ok(Vec::new())
        })
        .await?;
        if let Err(e) = self.run(id).await {
            tracing::debug!("tournament {id}: not paired now: {e}");
        }
        Ok(())
    }

    /// Account `me` steps out of tournament `id`: not paired until he joins
    /// again; his game, if any, goes on.
    pub async fn pause(&self, id: &str, me: &StoredPlayer) -> Result<(), GameError> {
        self.change(id, |s, _| {
            s.arena
                .pause(&PlayerId::from(me.id.as_str()))
                .map_err(arena_error)?;
            Ok(Vec::new())
        })
        .await
    }

    /// Account `me` leaves tournament `id` for good (keeping his place in
    /// the standings once it has begun).
    pub async fn withdraw(&self, id: &str, me: &StoredPlayer) -> Result<(), GameError> {
        if let TournamentState::Swiss(_) = self.load(id).await?.state {
            return self.withdraw_swiss(id, me).await;
        }
        self.change(id, |s, now| {
            s.arena
                .withdraw(&PlayerId::from(me.id.as_str()), now.max(0) as u64)
                .map_err(arena_error)?;
            Ok(Vec::new())
        })
        .await
    }

    /// Changes tournament `id`'s state with `f` (given the state and the
    /// time), saved only over the version it was read at (read again and
    /// done again otherwise).
    async fn change(
        &self,
        id: &str,
        mut f: impl FnMut(&mut ArenaState, i64) -> Change,
    ) -> Result<(), GameError> {
        for _ in 0..RETRIES {
            let t = self.load(id).await?;
            let mut state = t.state.clone();
            let now = self.now();
            f(arena_of(&mut state)?, now)?;
            if self.save(&t, &state, Vec::new(), now).await? {
                return Ok(());
            }
        }
        Err(GameError::Raced)
    }

    /// Saves `s` over `t`'s version with `games`: whether it was saved.
    async fn save(
        &self,
        t: &StoredTournament,
        s: &TournamentState,
        games: Vec<(u32, GameInfo)>,
        now: i64,
    ) -> Result<bool, GameError> {
        let finished = s.finished(now);
        let mut seats = Vec::new();
        for (_, g) in &games {
            for seat in [Seat::A, Seat::B] {
                let p = if seat == Seat::A { 0 } else { 1 };
                if let (Some(account), Some(token)) = (&g.players[p], g.tokens.get(seat)) {
                    seats.push((account.clone(), g.id.clone(), token.to_string()));
                }
            }
        }
        self.0
            .store
            .save_tournament(t.id.clone(), t.version, s.clone(), finished, games, seats)
            .await
            .map_err(store_error)
    }

    /// Under tournament `id`'s pairing lease (taken or renewed here; if
    /// another server holds it, nothing is done): records the results of
    /// its games that ended, pairs its free players, and creates their
    /// games, all saved at once.
    pub async fn run(&self, id: &str) -> Result<(), GameError> {
        if self.0.halted.load(Ordering::SeqCst) {
            return Ok(());
        }
        let began = Instant::now();
        let now = self.now();
        let held = self
            .0
            .store
            .claim_tournament(
                id.to_string(),
                now,
                now + LEASE.as_millis() as i64,
                now - DEAD_AFTER.as_millis() as i64,
            )
            .await
            .map_err(store_error)?;
        if !held {
            return Ok(());
        }
        for _ in 0..RETRIES {
            let t = self.load(id).await?;
            if t.finished {
                return Ok(());
            }
            let mut s = match &t.state {
                TournamentState::Arena(s) => s.clone(),
                TournamentState::Swiss(_) => return self.run_swiss(t, began).await,
            };
            let now = self.now();
            let at = now.max(0) as u64;
            let running: Vec<(usize, String)> = s
                .arena
                .games
                .iter()
                .enumerate()
                .filter(|(_, g)| g.running())
                .filter_map(|(i, _)| s.games.get(i).map(|g| (i, g.clone())))
                .collect();
            let mut ends = if running.is_empty() {
                Vec::new()
            } else {
                self.0
                    .store
                    .game_ends(running.iter().map(|(_, g)| g.clone()).collect())
                    .await
                    .map_err(store_error)?
            };
            // Streaks follow the order the games ended in.
            let index = |g: &str| running.iter().find(|(_, x)| x == g).map(|(i, _)| *i);
            ends.sort_by_key(|e| (e.ended_at, index(&e.game)));
            let mut changed = false;
            for e in &ends {
                let Some(i) = index(&e.game) else { continue };
                // An abort is committed before whom it counts against is
                // (RULES.md, "Aborting"): wait a little for that record
                // rather than pair the absent player again.
                if outcome_of(e).is_none()
                    && e.aborted_by.is_none()
                    && now - e.ended_at < ABORT_GRACE_MS
                {
                    continue;
                }
                let mut result = GameResult::new(
                    ArenaGameId(i as u32),
                    Outcome::Draw,
                    e.ended_at.max(0) as u64,
                );
                result.outcome = outcome_of(e);
                self.berserks(&mut result, e).await?;
                if s.arena.record(result).is_ok() {
                    changed = true;
                }
                // The player an abort counts against (he never made his
                // first action, or aborted) is paused: an arena does not
                // pair an absent player again and again. He joins again
                // to play on.
                if let (None, Some(p)) = (outcome_of(e), &e.aborted_by) {
                    let p = PlayerId::from(p.as_str());
                    let in_game = s.arena.games.get(i).is_some_and(|g| g.a == p || g.b == p);
                    if in_game {
                        let _ = s.arena.pause(&p);
                    }
                }
            }
            let pairings = s.arena.pair(at);
            let mut games = Vec::new();
            for p in &pairings {
                let bots = [&p.a, &p.b].map(|x| s.bot_players.contains(x.as_str()));
                let info = self
                    .game_for(&t, &s.names, (&p.a, &p.b), Some(bots), now)
                    .await?;
                s.games.push(info.id.clone());
                games.push((p.game.0, info));
            }
            if s.games.len() != s.arena.games.len() {
                return Err(GameError::Internal(
                    "a tournament's games and pairings disagree".into(),
                ));
            }
            let finished = s.arena.finished(at);
            if !changed && games.is_empty() && !finished {
                return Ok(());
            }
            let n = games.len();
            if self.save(&t, &s.into(), games, now).await? {
                self.paired(id, "arena", n, began);
                return Ok(());
            }
        }
        Err(GameError::Raced)
    }

    /// The game of a pairing: a lobby's kind of game between the two
    /// accounts (both seats theirs, begun now), with the tournament's
    /// clock and rules, rated if it is; `bots`: which seats are BOTs' (an
    /// arena's that allows them; never a Swiss event's).
    async fn game_for(
        &self,
        t: &StoredTournament,
        names: &BTreeMap<String, String>,
        (a, b): (&PlayerId, &PlayerId),
        bots: Option<[bool; 2]>,
        now: i64,
    ) -> Result<GameInfo, GameError> {
        let mut info = GameInfo::new(Mode::Friend, t.rules, now);
        info.seat_both();
        let name = |p: &PlayerId| names.get(p.as_str()).cloned();
        if t.rated {
            for (i, p) in [a, b].into_iter().enumerate() {
                info.ratings[i] = Some(self.0.ratings.shown(p.as_str(), t.clock).await?);
            }
        }
        info.clock = Some(t.clock);
        info.names = [name(a), name(b)];
        info.players = [Some(a.0.clone()), Some(b.0.clone())];
        info.rated = t.rated;
        info.lobby = true;
        // A BOT joins only an arena that allows BOTs; berserk is an
        // arena's.
        info.bots = bots.unwrap_or_default();
        info.arena = bots.map(|_| t.id.clone());
        info.swiss = bots.is_none().then(|| t.id.clone());
        info.begin(now);
        Ok(info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(result: Option<&str>, forfeit: Option<Forfeit>) -> GameEnd {
        GameEnd {
            game: "g".into(),
            result: result.map(str::to_string),
            forfeit,
            ended_at: 0,
            aborted_by: None,
            berserk: [false, false],
        }
    }

    /// Hourly ids are valid ids, one per hour.
    #[test]
    fn hourly_ids() {
        let a = hourly_id(498_912);
        assert!(super::super::valid_id(&a), "{a}");
        assert_ne!(a, hourly_id(498_913));
        assert_eq!(hourly_id(0), "h000000000");
    }

    /// A forfeit names the loser; an abort is no result; otherwise the
    /// seeds decide, "without glory" or not.
    #[test]
    fn outcomes_of_finished_games() {
        assert_eq!(outcome_of(&end(None, Some(Forfeit::Abort))), None);
        assert_eq!(
            outcome_of(&end(Some("3-1"), Some(Forfeit::Resign(Player::A)))),
            Some(Outcome::BWins)
        );
        assert_eq!(
            outcome_of(&end(Some("0-0"), Some(Forfeit::Time(Player::B)))),
            Some(Outcome::AWins)
        );
        assert_eq!(outcome_of(&end(Some("30-18"), None)), Some(Outcome::AWins));
        assert_eq!(
            outcome_of(&end(Some("20-28 without glory"), None)),
            Some(Outcome::BWins)
        );
        assert_eq!(outcome_of(&end(Some("24-24"), None)), Some(Outcome::Draw));
        assert_eq!(outcome_of(&end(Some("nonsense"), None)), None);
    }
}
