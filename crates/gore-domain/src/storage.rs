//! What the domain needs from a database: the store's traits, one per
//! concern ([`GameStore`], [`SessionStore`], [`LobbyStore`],
//! [`RatingStore`], [`ChatStore`], [`ServerStore`], [`TournamentStore`],
//! summed as [`Store`]),
//! and the records they carry. The domain defines them and calls them;
//! `crate::store` implements them over SQLite and PostgreSQL. So the
//! dependency runs one way: the store knows the domain's types, and the
//! domain knows no SQL, no row and no store (tests/layout.rs checks it).

use futures_util::future::BoxFuture;
use gore_core::{Action, Forfeit, Hole, Outcome, Player, Position};

use super::{ChatLine, GameInfo, Ply, Seat};

/// A game as stored: its facts and its actions in order.
#[derive(Debug, Clone)]
pub struct StoredGame {
    /// The game's facts, seats and status.
    pub info: GameInfo,
    /// Every action, from ply 1.
    pub actions: Vec<StoredAction>,
}

/// One committed action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAction {
    /// From 1.
    pub ply: Ply,
    /// The action.
    pub action: Action,
    /// The holes it captured.
    pub captured: Vec<Hole>,
    /// The position it led to, before any final sweep (`None` in games
    /// stored before positions were kept: those are replayed).
    pub position: Option<Position>,
    /// Unix time in milliseconds.
    pub at: i64,
}

/// Where a game stood when a change of it was decided: the store makes
/// the change only if the game still stands there (else
/// [`StoreError::Conflict`]), checked in the change's transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    /// Its actions.
    pub ply: Ply,
    /// Its takebacks so far: a takeback shortens the log, so a ply alone
    /// does not say which game it is (a takeback then a new action come
    /// back to the same ply).
    pub takebacks: u32,
}

/// A player as stored: his public id (in lists and notices, never a
/// secret) and display name (an account's username).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPlayer {
    /// 10 base-32 characters.
    pub id: String,
    /// His display name.
    pub name: String,
    /// The session is logged in to the account of this id.
    pub account: bool,
    /// That account is a BOT: it plays only through the Bot API.
    pub bot: bool,
}

/// A rating as stored (one per account and pace).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRating {
    /// `fast`, `slow` or `correspondence`.
    pub pace: String,
    /// Glicko-2's rating, deviation and volatility.
    pub rating: f64,
    /// See `rating`.
    pub deviation: f64,
    /// See `rating`.
    pub volatility: f64,
    /// Rated games played in the pace.
    pub games: u32,
}

/// One account's new rating after a game.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingUpdate {
    /// The account.
    pub account: String,
    /// Its rated games of the pace before this one (the row's version).
    pub before: u32,
    /// Its rating after.
    pub after: StoredRating,
}

/// A rating after one game.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPoint {
    /// The game.
    pub game: String,
    /// Its pace.
    pub pace: String,
    /// The rating after it.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Unix ms.
    pub at: i64,
}

/// A leaderboard's row.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The account's id.
    pub id: String,
    /// Its username.
    pub username: String,
    /// A BOT account.
    pub bot: bool,
    /// Its rating in the pace.
    pub rating: StoredRating,
}

/// An account as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAccount {
    /// The player's public id.
    pub id: String,
    /// The username (a display name).
    pub username: String,
    /// The argon2id hash, as a PHC string.
    pub password: String,
    /// A BOT account.
    pub bot: bool,
}

/// A challenge in the lobby, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredChallenge {
    /// 10 base-32 characters.
    pub id: String,
    /// The creator's browser session (a secret: never shown).
    pub session: String,
    /// The creator's public id.
    pub player: String,
    /// The creator's display name.
    pub name: String,
    /// The rules.
    pub rules: gore_core::Rules,
    /// The clock (`None`: untimed).
    pub clock: Option<crate::clock::TimeControl>,
    /// The creator's colour (`None`: random).
    pub colour: Option<Player>,
    /// Rated.
    pub rated: bool,
    /// A quick pairing's seek (paired with the first that wants the same).
    pub quick: bool,
    /// Unix ms.
    pub created_at: i64,
    /// The game it made, once taken.
    pub game: Option<String>,
    /// The creator's rating in its pace, as shown (`1500?`; rated ones).
    pub rating: Option<String>,
}

/// What a claimed invitation gives its seat: the new secret, the name of
/// the one who claimed it, and when the game starts (with the deadline of
/// the first action, a timed game).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatClaim {
    /// The seat's new secret.
    pub token: String,
    /// The claimer's display name, if known.
    pub name: Option<String>,
    /// The claimer's public id, if known.
    pub player: Option<String>,
    /// Unix ms: the game's `started_at`.
    pub now: i64,
    /// The first action's deadline (timed games).
    pub deadline: Option<i64>,
}

/// A change of a game being played, other than an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameChange {
    /// The game ended off the board (a resignation, a flag on time, a
    /// claim after the opponent left, an abort): it is over, `result` (as
    /// [`Outcome`]'s text: `12-8`, `12-8 without glory`; `None` for an
    /// abort) its result; nothing is due any more.
    Forfeit {
        /// How, and who lost.
        forfeit: Forfeit,
        /// The captured totals as they stood, and "without glory".
        result: Option<String>,
    },
    /// The actions after ply `to` are taken back (deleted); the game's
    /// takebacks count one more, and a pending request is cleared.
    TakeBack {
        /// The actions kept.
        to: Ply,
        /// The game's deadline after it ([`GameInfo::deadline`]).
        deadline: Option<i64>,
    },
    /// A friend game's takeback request: who asks, or `None` (declined).
    Request(Option<Player>),
    /// Time credited to the clocks, for outages or given by a player
    /// ([`GameInfo::credits`], the whole list), and the deadline after it
    /// (a rule leaves it `None`: the one commit path computes it).
    Credit {
        /// Every credit of the game, (ply, ms).
        credits: Vec<(Ply, i64)>,
        /// The game's deadline after it ([`GameInfo::deadline`]).
        deadline: Option<i64>,
    },
    /// An arena player went berserk ([`GameInfo::berserk`]); the deadline
    /// after it (a rule leaves it `None`: the one commit path computes it).
    Berserk {
        /// Who.
        player: Player,
        /// The game's deadline after it ([`GameInfo::deadline`]).
        deadline: Option<i64>,
    },
}

/// An AI turn due ([`ServerStore::due_ai_turns`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueTurn {
    /// The game.
    pub game: String,
    /// The ply its AI is to act at (actions so far).
    pub ply: Ply,
    /// The client address that created it, if known.
    pub client: Option<String>,
    /// Its place among its address's turns due (1: the oldest).
    pub round: u32,
}

/// Why a store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The row exists already (a ply already committed, an id taken).
    #[error("already stored")]
    Conflict,
    /// The store refuses writes: a write or a sync failed earlier (or the
    /// SQLite file was deleted or replaced: until restarted), or the
    /// PostgreSQL database is unreachable or a commit's outcome is unknown
    /// (until it is known).
    #[error("the database accepts no writes now: {0}")]
    Failed(String),
    /// A stored row cannot be read back: a game's (or one of its actions'
    /// or chat lines'), a challenge's, or an account's.
    #[error("stored row of {id}: {why}")]
    Damaged {
        /// The game, challenge or account whose row it is.
        id: String,
        /// What is wrong.
        why: String,
    },
    /// Anything else (the database refused a query).
    #[error("database: {0}")]
    Other(String),
}

/// A change another server committed to a store shared by several: the
/// game and its ply after the change. The receiver loads what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// Game `game` changed (an action, a claimed invitation, a rematch, a
    /// resignation, a takeback…); it now has `ply` actions. A receiver
    /// whose room has other takebacks than the store's reloads it whole.
    Changed {
        /// The game.
        game: String,
        /// Its actions after the change.
        ply: Ply,
    },
    /// Notices may have been missed (the store reconnected): every game in
    /// memory must be loaded again.
    Missed,
    /// A lobby event of another server ([`LobbyStore::announce_lobby`]).
    Lobby(String),
}

/// The futures a [`Store`] returns.
pub type StoreFuture<T> = BoxFuture<'static, Result<T, StoreError>>;

/// Games: made, loaded, changed, listed; the seats sessions hold; aborts.
pub trait GameStore: Send + Sync + 'static {
    /// Inserts a new game; when `rematch_of` is given, links it from that
    /// game in the same transaction.
    fn create_game(&self, info: GameInfo, rematch_of: Option<String>) -> StoreFuture<()>;

    /// A game and its actions, or `None` if there is no such game.
    fn load_game(&self, id: String) -> StoreFuture<Option<StoredGame>>;

    /// A game and only its actions after ply `after` (what a server that
    /// has the first `after` in memory needs to catch up), or `None`.
    fn load_game_after(&self, id: String, after: Ply) -> StoreFuture<Option<StoredGame>>;

    /// Commits one action, and the result with it when it ends the game,
    /// and the game's new `deadline` ([`GameInfo::deadline`]); it clears a
    /// pending takeback request. A ply already stored, a game no longer
    /// being played, or one whose takebacks are not `takebacks` (another
    /// server took back since) is [`StoreError::Conflict`].
    fn append_action(
        &self,
        id: String,
        takebacks: u32,
        action: StoredAction,
        ending: Option<Outcome>,
        deadline: Option<i64>,
    ) -> StoreFuture<()>;

    /// Commits a resignation, a takeback or a takeback request, in one
    /// transaction with the check that the game is still being played and
    /// stands `at` ([`StoreError::Conflict`] otherwise: it happens at most
    /// once). `now` is Unix time in milliseconds.
    fn change_game(&self, id: String, at: At, change: GameChange, now: i64) -> StoreFuture<()>;

    /// Claims a friend game's invitation: if `code` is still the game's
    /// invitation, it is spent, `seat` gets the new secret `token` and the
    /// game starts at `now` (its `started_at`, with the `deadline` of the
    /// first action if timed); `false` (and nothing changes) otherwise.
    fn claim_invite(
        &self,
        id: String,
        code: String,
        seat: Player,
        claim: SeatClaim,
    ) -> StoreFuture<bool>;

    /// Sets (or with `None` revokes) the "continue on another device" code
    /// of a seat's holder.
    fn set_device(&self, id: String, seat: Seat, code: Option<String>) -> StoreFuture<()>;

    /// Records since when a seat has had no socket (`None`: back).
    fn set_away(&self, id: String, seat: Player, since: Option<i64>) -> StoreFuture<()>;

    /// Remembers that a browser session holds a seat of a game (its
    /// token): its account does, if it is logged in to one.
    fn remember_seat(&self, session: String, id: String, token: String) -> StoreFuture<()>;

    /// The token a browser session holds in a game, if any: its own, or
    /// its account's (never a BOT account's: a BOT plays only through the
    /// Bot API).
    fn session_token(&self, session: String, id: String) -> StoreFuture<Option<String>>;

    /// Games between people being played now, the latest begun first, at
    /// most `limit`.
    fn playing_now(&self, limit: u32) -> StoreFuture<Vec<GameInfo>>;

    /// A player's games (any seat), the latest first, with their results
    /// (`Result` text) once over.
    fn player_games(
        &self,
        player: String,
        limit: u32,
    ) -> StoreFuture<Vec<(GameInfo, Option<String>)>>;

    /// Games being played whose deadline is at or before `now` (Unix ms):
    /// a flag or an abort is due. Soonest first, at most `limit`.
    fn due_games(&self, now: i64, limit: u32) -> StoreFuture<Vec<String>>;

    /// Counts that player `player` (public id) aborted game `game` at `at`
    /// (once per player and game).
    fn record_abort(&self, player: String, game: String, at: i64) -> StoreFuture<()>;

    /// When player `player` aborted games after `since` (Unix ms), oldest
    /// first.
    fn aborts_since(&self, player: String, since: i64) -> StoreFuture<Vec<i64>>;
}

/// Browser sessions, their players, and accounts.
pub trait SessionStore: Send + Sync + 'static {
    /// Records a session id the server has just issued (a browser's
    /// session is only ever one of these: docs/SECURITY.md, sessions).
    fn create_session(&self, session: String, now: i64) -> StoreFuture<()>;

    /// Whether `session` was issued by a server and has not ended.
    fn session_exists(&self, session: String) -> StoreFuture<bool>;

    /// The player of a browser session, if it has one.
    fn player(&self, session: String) -> StoreFuture<Option<StoredPlayer>>;

    /// Makes the player of a browser session unless it has one; the one
    /// it has (a concurrent first visit made first wins).
    fn create_player(
        &self,
        session: String,
        player: StoredPlayer,
        now: i64,
    ) -> StoreFuture<StoredPlayer>;

    /// Sets the display name of a browser session's player.
    fn set_player_name(&self, session: String, name: String, now: i64) -> StoreFuture<()>;

    /// The account one of whose look-alike keys is `key`.
    fn account_by_key(&self, key: String) -> StoreFuture<Option<StoredAccount>>;

    /// Whether any of `keys` is an account's (a name that looks like it).
    fn keys_taken(&self, keys: Vec<String>) -> StoreFuture<bool>;

    /// Creates `account` with its look-alike `keys`, logged in at the new
    /// session `to` (issued here), which takes the anonymous session
    /// `from`'s player (the account's id is that player's); `from`'s seats
    /// become the account's (his games move to it) and `from` ends.
    /// `false`, and nothing changed, if a key is taken.
    fn create_account(
        &self,
        account: StoredAccount,
        keys: Vec<String>,
        from: String,
        to: String,
        now: i64,
    ) -> StoreFuture<bool>;

    /// Logs the new session `to` (issued here) in to `account`; the
    /// seats of the session `from` become the account's, and `from` ends
    /// (an id unknown here has no seats and nothing to end).
    fn log_in(&self, account: String, from: String, to: String, now: i64) -> StoreFuture<()>;

    /// Ends a session: it is no longer one, logged in to nothing, with
    /// no seats (its account keeps the account's).
    fn log_out(&self, session: String) -> StoreFuture<()>;

    /// Sets an account's password hash; every session of it ends
    /// (`from`, the one asking, too) and every API token of it is revoked,
    /// and the new session `to` (issued here) is logged in, with the
    /// account's seats.
    fn set_password(
        &self,
        account: String,
        hash: String,
        from: String,
        to: String,
        now: i64,
    ) -> StoreFuture<()>;

    /// Forgets the anonymous players (no account) last made or renamed at
    /// `before` or earlier who never took a seat nor played and
    /// have no challenge: throw-away sessions' rows. How many.
    fn forget_idle_players(&self, before: i64) -> StoreFuture<u64>;
}

/// The lobby's challenges and pairings.
pub trait LobbyStore: Send + Sync + 'static {
    /// Puts a challenge in the lobby.
    fn post_challenge(&self, challenge: StoredChallenge) -> StoreFuture<()>;

    /// Withdraws the open challenges of `session` (only `id`, if given);
    /// how many.
    fn cancel_challenges(&self, session: String, id: Option<String>) -> StoreFuture<u64>;

    /// The open challenges, newest first, at most `limit`.
    fn open_challenges(&self, limit: u32) -> StoreFuture<Vec<StoredChallenge>>;

    /// A challenge, open or taken (its game then), or `None`.
    fn challenge(&self, id: String) -> StoreFuture<Option<StoredChallenge>>;

    /// The oldest open quick challenges that `seek` (a quick one, already
    /// posted) pairs with: the same rules, clock and rating, another
    /// session. Each seeker looks after his own seek is stored, so of two
    /// that arrive together the later to look finds the other; both may,
    /// and [`LobbyStore::pair`] lets one of them make the pair.
    /// (The oldest `limit` of them, oldest first: a seeker picks one at
    /// random, so that a rush of seekers does not all race for the same.)
    fn find_matches(&self, seek: StoredChallenge, limit: u32) -> StoreFuture<Vec<StoredChallenge>>;

    /// Pairs: in one transaction, marks each of `taken` (open challenges)
    /// as taken by `game`, inserts `game`, and remembers the seat each
    /// session of `seats` holds (session, token), as
    /// [`GameStore::remember_seat`] does. `false`, and nothing
    /// changed, if one of `taken` was no longer open.
    fn pair(
        &self,
        taken: Vec<String>,
        game: GameInfo,
        seats: Vec<(String, String)>,
    ) -> StoreFuture<bool>;

    /// Refreshes `seen_at` of the open challenges of `sessions` (their
    /// creators are still in the lobby).
    fn touch_challenges(&self, sessions: Vec<String>, now: i64) -> StoreFuture<()>;

    /// Deletes the open challenges not seen since `unseen_before` (their
    /// creator's server is gone) and the taken ones older than
    /// `taken_before`; how many.
    fn expire_challenges(&self, unseen_before: i64, taken_before: i64) -> StoreFuture<u64>;

    /// Tells the other servers sharing the store of a lobby event
    /// (`changed`, or `paired GAME PLAYER PLAYER`); a store one process owns
    /// has nobody to tell.
    fn announce_lobby(&self, event: String);
}

/// Ratings, their history and leaderboards.
pub trait RatingStore: Send + Sync + 'static {
    /// An account's ratings, one per pace it has played rated.
    fn ratings_of(&self, account: String) -> StoreFuture<Vec<StoredRating>>;

    /// Applies a rated game's new ratings, in one transaction with a
    /// history row for each account: each update is made only if the
    /// account has played `before` rated games of the pace (another game
    /// rated meanwhile: `false`, nothing changed, the caller reads again);
    /// `false` too if the game was rated already.
    fn rate_game(&self, game: String, updates: Vec<RatingUpdate>, now: i64) -> StoreFuture<bool>;

    /// An account's rating after each of its rated games, oldest first.
    fn rating_history(&self, account: String) -> StoreFuture<Vec<HistoryPoint>>;

    /// The best ratings of a pace, at most `limit`: BOTs' only
    /// (`bots` `Some(true)`), people's only (`Some(false)`) or all.
    fn leaderboard(&self, pace: String, bots: Option<bool>, limit: u32)
        -> StoreFuture<Vec<Ranked>>;

    /// Rated games over (not aborted) that have no rating history yet: a
    /// server stopped between the end and the rating.
    fn unrated_games(&self, limit: u32) -> StoreFuture<Vec<String>>;
}

/// A game's chat.
pub trait ChatStore: Send + Sync + 'static {
    /// Adds a chat message to a game (its number the next one); the line.
    fn post_chat(
        &self,
        game: String,
        player: Player,
        text: String,
        at: i64,
    ) -> StoreFuture<ChatLine>;

    /// A game's chat messages after number `after`, in order (at most the
    /// last 100).
    fn chat_after(&self, game: String, after: u32) -> StoreFuture<Vec<ChatLine>>;

    /// Records that `reporter` reported message `n` of a game (once).
    fn report_chat(&self, game: String, n: u32, reporter: Player, at: i64) -> StoreFuture<()>;
}

/// The servers sharing the store: spectator counts, heartbeats, take-overs, notices, AI claims; and the store's health.
pub trait ServerStore: Send + Sync + 'static {
    /// Replaces server `server`'s spectator counts (games it has
    /// spectators of, and how many) with `counts`, as of `now`.
    fn set_watchers(&self, server: String, counts: Vec<(String, u32)>, now: i64)
        -> StoreFuture<()>;

    /// The spectators of each of `ids`, summed over the servers whose
    /// counts are newer than `since` (games without any left out).
    fn watchers(&self, ids: Vec<String>, since: i64) -> StoreFuture<Vec<(String, u32)>>;

    /// Server `server` is alive at `now` (its heartbeat), and holds
    /// `games` in memory: those of them that point at no server, or at one
    /// silent since before `dead_before`, now point at it (it has been
    /// serving them all along: no outage to credit).
    fn heartbeat(
        &self,
        server: String,
        now: i64,
        games: Vec<String>,
        dead_before: i64,
    ) -> StoreFuture<()>;

    /// Server `server` loads game `id`. If the game points at another
    /// server silent since before `dead_before`, or at none, it now points
    /// at `server`; in the first case the answer is that server's last
    /// heartbeat (when the game's outage began). Two servers taking over
    /// at once: one of them gets it.
    fn take_over(&self, id: String, server: String, dead_before: i64) -> StoreFuture<Option<i64>>;

    /// Why the store accepts no writes, once it has failed.
    fn failure(&self) -> Option<String>;

    /// The changes other servers commit, for a store shared by several
    /// servers; `None` for a store one process owns (SQLite).
    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>>;

    /// The number of actions stored for each of `ids` (games without an
    /// action are left out): how a server that shares its store finds the
    /// games it holds behind it (a notice lost: its sender died between
    /// the commit and the notice; or, without notices, a worker's move).
    fn latest_plies(&self, ids: Vec<String>) -> StoreFuture<Vec<(String, Ply)>>;

    /// This process's name among those sharing the store: its heartbeats
    /// ([`ServerStore::heartbeat`]) and AI claims are under it.
    fn origin(&self) -> String;

    /// Claims the AI's turn at `ply` of game `id` for this process, for
    /// `lease`: `true` if it is to compute it, that is if the game is
    /// marked due at `ply` (its AI to act there, [`ServerStore::due_ai_turns`])
    /// and no other process holds a claim on it that is unexpired and
    /// whose holder is alive (a heartbeat at or after `dead_before`).
    fn claim_ai_turn(
        &self,
        id: String,
        ply: Ply,
        lease: std::time::Duration,
        dead_before: i64,
    ) -> StoreFuture<bool>;

    /// The AI turns due that no live claim covers (the game's AI marked to
    /// act at that ply; the claim absent, lapsed, or its holder silent
    /// since before `dead_before`): (game, ply), longest waiting first, at
    /// most `limit`. A mark may be stale (a takeback, an old game):
    /// whoever claims it checks, and clears it with
    /// [`ServerStore::clear_ai_turn`].
    /// Each client address's oldest turn comes first, then each one's
    /// second, and so on (a flood from one address does not hold back
    /// another's game); each address's first `limit` at most (the caller
    /// orders each round by the addresses' [`ServerStore::ai_usage`]).
    fn due_ai_turns(&self, dead_before: i64, limit: u32) -> StoreFuture<Vec<DueTurn>>;

    /// The AI turns due of games created by client address `client`.
    fn ai_turns_due_of(&self, client: String) -> StoreFuture<u32>;

    /// The AI search each of `clients` used lately, as recorded: (client,
    /// milliseconds, when), to be faded by the reader.
    fn ai_usage(&self, clients: Vec<String>) -> StoreFuture<Vec<(String, f64, i64)>>;

    /// Records `client`'s AI search as `ms` (already faded and added to by
    /// the caller) at `now`.
    fn set_ai_usage(&self, client: String, ms: f64, now: i64) -> StoreFuture<()>;

    /// Records the client address (its [`crate::ai::ClientKey`] text) that
    /// created AI game `id`: a worker's searches are shared among them.
    fn set_ai_client(&self, id: String, client: String) -> StoreFuture<()>;

    /// Clears game `id`'s AI mark if it is still `ply` (the AI was found
    /// not to act there).
    fn clear_ai_turn(&self, id: String, ply: Ply) -> StoreFuture<()>;

    /// Gives up every AI claim of this process (it stops): the turns are
    /// due again at once for the others.
    fn release_ai_claims(&self) -> StoreFuture<()>;

    /// Asks for review job `id` of `record`, counted against `client`: a
    /// new job waits; one that exists is left as it is, unless it ended
    /// (done or failed) with another record (an address's next upload),
    /// which starts it again with this one. Not written when `client`
    /// already has `cap` jobs waiting or running. Ended uploads older than
    /// an hour are forgotten.
    fn request_review(
        &self,
        id: String,
        record: String,
        client: String,
        cap: u32,
        now: i64,
    ) -> StoreFuture<()>;

    /// Review job `id` as a visitor sees it, if it exists: whether its
    /// record is `record`, its status, the jobs waiting that were asked
    /// for before it, and its result with `result`.
    fn review_job(
        &self,
        id: String,
        record: String,
        result: bool,
    ) -> StoreFuture<Option<ReviewJob>>;

    /// The review jobs no live claim covers at `now` (waiting; or running,
    /// and the claim lapsed or its holder silent since before
    /// `dead_before`), at most `limit`: each client address's oldest first,
    /// then each one's second (one address's flood does not hold back
    /// another's).
    fn due_reviews(&self, now: i64, dead_before: i64, limit: u32) -> StoreFuture<Vec<DueReview>>;

    /// Claims review job `id` for process `server` (this one's
    /// [`ServerStore::origin`]) until `until`: `true` if it is to compute
    /// it (no other process holds it whose claim is unexpired at `now` and
    /// whose heartbeat is at or after `dead_before`, as
    /// [`ServerStore::claim_ai_turn`]).
    fn claim_review(
        &self,
        id: String,
        server: String,
        until: i64,
        now: i64,
        dead_before: i64,
    ) -> StoreFuture<bool>;

    /// Ends `server`'s claim on review job `id` with `status` (`done` or
    /// `failed`, and the result; `waiting`: given back, to be computed
    /// later); `false` if `server` held no claim on it.
    fn end_review(
        &self,
        id: String,
        server: String,
        status: String,
        result: Option<String>,
    ) -> StoreFuture<bool>;
}

/// A review job as a visitor sees it ([`ServerStore::review_job`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewJob {
    /// The job is of the record asked about.
    pub same: bool,
    /// `waiting`, `running`, `done` or `failed`.
    pub status: String,
    /// Jobs waiting that were asked for before it.
    pub ahead: u32,
    /// When asked for: the review's wire text (done) or the error (failed).
    pub result: Option<String>,
}

/// A review job to compute ([`ServerStore::due_reviews`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueReview {
    /// The job (`review:GAME` or `review-upload:CLIENT`).
    pub id: String,
    /// The record to review.
    pub record: String,
    /// The client address it is counted against.
    pub client: String,
    /// Its place in its address's line, from 1: the workers take the
    /// first of each address's line first, then the second, each round
    /// ordered by the addresses' search ([`crate::ai::usage`]).
    pub round: u32,
}

/// A tournament as stored: its terms, and its whole state (kept as JSON),
/// with the version every change of it compares and sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTournament {
    /// 10 base-32 characters.
    pub id: String,
    /// `arena` or `swiss` (which [`TournamentState`][crate::tournaments::state::TournamentState] it holds).
    pub kind: String,
    /// Its name.
    pub name: String,
    /// The creator's public id.
    pub creator: String,
    /// The address it was created from (an IPv4 address or an IPv6 /64,
    /// [`ClientKey`][crate::ai::ClientKey]'s text), if known: the cap per
    /// address counts it ([`TournamentStore::create_tournament_within`]).
    pub creator_addr: Option<String>,
    /// Its games' clock.
    pub clock: crate::clock::TimeControl,
    /// Its games' rules.
    pub rules: gore_core::Rules,
    /// Rated games.
    pub rated: bool,
    /// Unix ms: pairing begins.
    pub starts_at: i64,
    /// Unix ms: pairing ends.
    pub ends_at: i64,
    /// Over for good: ended, and its last game over.
    pub finished: bool,
    /// Unix ms.
    pub created_at: i64,
    /// The state.
    pub state: crate::tournaments::state::TournamentState,
    /// Its version: 1 when created, one more at each change.
    pub version: i64,
}

/// Which tournaments a list holds ([`TournamentStore::tournaments`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TournamentPhase {
    /// Not begun: the soonest first.
    Upcoming,
    /// Begun and not finished: the earliest begun first.
    Running,
    /// Finished: the latest ended first.
    Finished,
}

/// A finished game, as a tournament learns its result
/// ([`TournamentStore::game_ends`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameEnd {
    /// The game.
    pub game: String,
    /// Its result text (`30-18`, `… without glory`; `None` for an abort).
    pub result: Option<String>,
    /// How it ended off the board, if it did (who lost; an abort).
    pub forfeit: Option<Forfeit>,
    /// The public id of the player an abort counts against, if recorded
    /// ([`GameStore::record_abort`]).
    pub aborted_by: Option<String>,
    /// When it ended (Unix ms).
    pub ended_at: i64,
    /// Whether A and B went berserk ([`GameInfo::berserk`]).
    pub berserk: [bool; 2],
}

/// Tournaments: their state, their games, and the pairing lease.
pub trait TournamentStore: Send + Sync + 'static {
    /// Stores a new tournament.
    fn create_tournament(&self, t: StoredTournament) -> StoreFuture<()>;

    /// A tournament, or `None`.
    fn tournament(&self, id: String) -> StoreFuture<Option<StoredTournament>>;

    /// Stores a new tournament made by a person if its creator has fewer
    /// than `per_account` tournaments not finished, and its address
    /// ([`StoredTournament::creator_addr`]) fewer than `per_address`:
    /// `false`, and nothing stored, if either is full, or if another
    /// creation by the same creator or address took the same place at the
    /// same time (then a second try may find another).
    fn create_tournament_within(
        &self,
        t: StoredTournament,
        per_account: u16,
        per_address: u16,
    ) -> StoreFuture<bool>;

    /// The ids of every tournament begun at `now` and not finished, the
    /// earliest begun first: all of them, which the pairing ticks go
    /// through (the caps per account and address bound how many).
    fn running_tournament_ids(&self, now: i64) -> StoreFuture<Vec<String>>;

    /// The tournaments of a phase at `now`, at most `limit`.
    fn tournaments(
        &self,
        phase: TournamentPhase,
        now: i64,
        limit: u32,
    ) -> StoreFuture<Vec<StoredTournament>>;

    /// Saves a tournament's new `state` if it is still at `version`
    /// (then at `version + 1`), with `finished`, and in the same
    /// transaction inserts `games` (each with its number in the
    /// tournament) and gives each player his seat: `seats` are (account,
    /// game, token). `false`, and nothing changed, if another change came
    /// first.
    fn save_tournament(
        &self,
        id: String,
        version: i64,
        state: crate::tournaments::state::TournamentState,
        finished: bool,
        games: Vec<(u32, GameInfo)>,
        seats: Vec<(String, String, String)>,
    ) -> StoreFuture<bool>;

    /// Claims the pairing lease of tournament `id` for this process until
    /// `until`: `true` if it holds it now, that is if nobody held it, or
    /// this process did, or the holder's lease ran out (before `now`) or
    /// the holder is silent (no heartbeat since `dead_before`).
    fn claim_tournament(
        &self,
        id: String,
        now: i64,
        until: i64,
        dead_before: i64,
    ) -> StoreFuture<bool>;

    /// Which of `games` are over, and how.
    fn game_ends(&self, games: Vec<String>) -> StoreFuture<Vec<GameEnd>>;

    /// Account `account` joined tournament `id` (again: nothing changes).
    fn add_tournament_player(&self, id: String, account: String) -> StoreFuture<()>;

    /// The tournaments `account` joined, the latest start first, at most
    /// `limit`.
    fn tournaments_of(&self, account: String, limit: u32) -> StoreFuture<Vec<StoredTournament>>;
}

/// A personal API token as stored: never the token itself, only its
/// SHA-256 (`hash`, hex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredToken {
    /// Its public id (10 base-32 characters), to list and revoke it.
    pub id: String,
    /// The SHA-256 of the token, in hex.
    pub hash: String,
    /// The account it acts for.
    pub account: String,
    /// What its owner wrote to recognise it.
    pub description: String,
    /// Its scopes, e.g. `bot:play`, `read`.
    pub scopes: Vec<String>,
    /// Unix ms.
    pub created_at: i64,
}

/// A challenge addressed to one named player (the Bot API's), as stored,
/// with both accounts' names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBotChallenge {
    /// 10 base-32 characters.
    pub id: String,
    /// The challenger: account id, username, BOT.
    pub challenger: (String, String, bool),
    /// The challenged player: account id, username, BOT.
    pub dest: (String, String, bool),
    /// The rules.
    pub rules: gore_core::Rules,
    /// The clock (`None`: untimed).
    pub clock: Option<crate::clock::TimeControl>,
    /// The challenger's colour (`None`: random).
    pub colour: Option<Player>,
    /// Rated.
    pub rated: bool,
    /// `created` (open), `accepted`, `declined` or `canceled`.
    pub status: String,
    /// Why it was declined.
    pub reason: Option<String>,
    /// The game it made, once accepted.
    pub game: Option<String>,
    /// Unix ms.
    pub created_at: i64,
    /// Unix ms of its last change.
    pub updated_at: i64,
}

/// Personal API tokens, BOT accounts and the Bot API's challenges.
pub trait BotStore: Send + Sync + 'static {
    /// Stores a new token.
    fn create_token(&self, token: StoredToken) -> StoreFuture<()>;

    /// The token whose SHA-256 is `hash` and its account, as a player
    /// (`account` true), if it exists (a revoked one does not).
    fn token_owner(&self, hash: String) -> StoreFuture<Option<(StoredToken, StoredPlayer)>>;

    /// An account's tokens, the newest first.
    fn tokens_of(&self, account: String) -> StoreFuture<Vec<StoredToken>>;

    /// Deletes token `id` of `account`; how many (0 or 1).
    fn revoke_token(&self, account: String, id: String) -> StoreFuture<u64>;

    /// Makes `account` a BOT if it is one already or has played no game
    /// (no game names it as a player); how many accounts are BOTs after
    /// it (0: it has games, or there is no such account).
    fn make_bot(&self, account: String) -> StoreFuture<u64>;

    /// The seat's token `account` holds in game `id`, if any.
    fn account_seat(&self, account: String, id: String) -> StoreFuture<Option<String>>;

    /// Stores a new challenge (status `created`).
    fn post_bot_challenge(&self, c: StoredBotChallenge) -> StoreFuture<()>;

    /// A challenge, whatever its status.
    fn bot_challenge(&self, id: String) -> StoreFuture<Option<StoredBotChallenge>>;

    /// Moves an open challenge to `status` (`declined`, `canceled`) with
    /// `reason`, at `now`; `false` (nothing changed) if it was no longer
    /// open.
    fn close_bot_challenge(
        &self,
        id: String,
        status: String,
        reason: Option<String>,
        now: i64,
    ) -> StoreFuture<bool>;

    /// Accepts an open challenge: in one transaction, marks it accepted
    /// by `game`, inserts `game` and gives each account of `seats` its
    /// seat's token (account, token). `false`, and nothing changed, if it
    /// was no longer open.
    fn accept_bot_challenge(
        &self,
        id: String,
        game: GameInfo,
        seats: Vec<(String, String)>,
        now: i64,
    ) -> StoreFuture<bool>;

    /// The challenges from or to `account` that are open or changed at
    /// `since` or later (100 at most): his own first (so that his open
    /// ones are all there to count), each kind the oldest first.
    fn bot_challenges_of(
        &self,
        account: String,
        since: i64,
    ) -> StoreFuture<Vec<StoredBotChallenge>>;

    /// `account`'s event stream is open at `now` (a BOT is online while
    /// this is recent).
    fn mark_streaming(&self, account: String, now: i64) -> StoreFuture<()>;

    /// The BOT accounts by name, at most `limit`: each one's id, username
    /// and when its event stream was last seen open (`None` never).
    fn bot_accounts(&self, limit: u32) -> StoreFuture<Vec<(String, String, Option<i64>)>>;
}

/// An analysis of the board as a job in the store ([`BoardStore`]): what
/// the worker that takes it needs, and whose socket reads its findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardJob {
    /// Unique: the asking process's origin and a number.
    pub id: String,
    /// The process whose socket reads its batches ([`ServerStore::origin`]).
    pub origin: String,
    /// The client address it is counted against.
    pub client: String,
    /// The analysis's number on its socket (its messages' `id`).
    pub label: u64,
    /// The rule set, as the socket received it.
    pub rules: String,
    /// The start (GPN), as received.
    pub gpn: String,
    /// The actions from the start, as received.
    pub line: String,
    /// Its time at most, in ms (the asking server's caps applied).
    pub time_ms: u64,
    /// Its nodes at most.
    pub nodes: u64,
    /// Its place among its address's jobs, running ones counted (1: the
    /// oldest), as [`BoardStore::due_analyses`] lists it; 0 otherwise.
    pub round: u32,
}

/// Some of an analysis's messages, in the edge's words, one a line
/// ([`BoardStore::take_analysis_batches`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardBatch {
    /// The job.
    pub job: String,
    /// Its place among the job's batches.
    pub seq: i64,
    /// The messages, one a line.
    pub body: String,
    /// The job's last batch (its `done`).
    pub last: bool,
}

/// The analysis board's searches as jobs (issue 28): written by the web
/// server whose socket asks, computed by a process with analysis threads
/// (a `gore worker`), their findings sent back in batches.
pub trait BoardStore: Send + Sync + 'static {
    /// Writes `job`, waiting, unless its client already has `cap` jobs
    /// waiting or running: whether it was written.
    fn ask_analysis(&self, job: BoardJob, cap: u32, now: i64) -> StoreFuture<bool>;

    /// Job `id`'s jobs waiting before it, while it waits (`None`: taken,
    /// or gone).
    fn analysis_waiting(&self, id: String) -> StoreFuture<Option<u32>>;

    /// Stops job `id`: removed if it still waits (`true`), else its worker
    /// is asked to stop (it sends its last batch).
    fn stop_analysis(&self, id: String) -> StoreFuture<bool>;

    /// The jobs no live claim covers at `now` (as
    /// [`ServerStore::due_reviews`]), each client's oldest first, its
    /// first `limit` at most (the caller orders each round by the
    /// addresses' [`ServerStore::ai_usage`]).
    fn due_analyses(&self, now: i64, dead_before: i64, limit: u32) -> StoreFuture<Vec<BoardJob>>;

    /// Claims job `id` for process `server` until `until`, as
    /// [`ServerStore::claim_review`].
    fn claim_analysis(
        &self,
        id: String,
        server: String,
        until: i64,
        now: i64,
        dead_before: i64,
    ) -> StoreFuture<bool>;

    /// Appends `body` (if any) to `server`'s job `id`; `last` ends the
    /// job (it is removed). Whether a stop was asked for, while `server`
    /// holds the job (`None`: it does not, or it is gone: stop too).
    fn analysis_batch(
        &self,
        id: String,
        server: String,
        body: Option<String>,
        last: bool,
    ) -> StoreFuture<Option<bool>>;

    /// Gives `server`'s job `id` back (waiting), for another to compute.
    fn give_back_analysis(&self, id: String, server: String) -> StoreFuture<()>;

    /// Removes and returns the batches for process `origin`'s sockets.
    fn take_analysis_batches(&self, origin: String) -> StoreFuture<Vec<BoardBatch>>;

    /// Forgets the jobs and batches of processes silent since before
    /// `dead_before` (nobody reads them any more).
    fn forget_lost_analyses(&self, dead_before: i64) -> StoreFuture<()>;
}

/// What the game domain needs from a database: every concern's trait.
/// Implemented by every type that implements them all; a test fake
/// implements only the concern it needs (and forwards the rest).
pub trait Store:
    GameStore
    + SessionStore
    + LobbyStore
    + RatingStore
    + ChatStore
    + ServerStore
    + TournamentStore
    + BotStore
    + BoardStore
{
}

impl<T> Store for T where
    T: GameStore
        + SessionStore
        + LobbyStore
        + RatingStore
        + ChatStore
        + ServerStore
        + TournamentStore
        + BotStore
        + BoardStore
{
}
