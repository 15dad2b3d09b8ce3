//! Bots (issue 29): personal API tokens, BOT accounts, and the Bot API's
//! challenges to a named player and the events of a bot's stream.
//!
//! A token is 256 random bits shown once to its owner (`gore_` and 64 hex
//! digits); the store keeps only its SHA-256. A token acts for its account
//! with its scopes (`bot:play`, `read`) on the Bot API's routes only: the
//! browser's pages, the password and the tokens themselves want the
//! session cookie.
//!
//! Everything here is read from the store, never from one server's
//! memory, so that a bot's event stream on one server hears of a
//! challenge or a game made through another: each stream reads what
//! concerns its account when woken (a change made here, or another
//! server's notice) and at least every [`POLL_EVERY`].

mod feed;
pub use feed::{Bell, Follow, API_STREAMS_PER_ACCOUNT};

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use gore_core::{Player, Rules};
use rand::Rng;
use sha2::{Digest, Sha256};
use tokio::sync::broadcast;

use super::clock::{Clock, TimeControl};
use super::events::{PlayerEvent, Source};
use super::lobby::{game_between, Party, Terms};
use super::{new_id, GameError, Said, Status};
use crate::storage::{Notice, Store, StoreError, StoredBotChallenge, StoredPlayer, StoredToken};

/// The scopes a token may have: playing as a bot (the game and event
/// streams, challenges, actions, the upgrade to a BOT) and reading (the
/// account, the streams).
pub const SCOPES: &[&str] = &["bot:play", "read"];
/// What every token begins with (so that it is never taken for a seat's
/// secret, which is 32 hex digits).
pub const TOKEN_PREFIX: &str = "gore_";
/// Open challenges from one account at most (a flood of them would fill
/// a BOT's stream and the store).
pub const OPEN_CHALLENGES: usize = 20;
/// A challenge nobody answered lapses after this long: it is canceled, as
/// if withdrawn, so that none stays open for good in a BOT's stream or
/// against its challenger's [`OPEN_CHALLENGES`].
pub const CHALLENGE_LAPSES: Duration = Duration::from_secs(20 * 60);
/// Tokens per account at most.
pub const TOKENS_PER_ACCOUNT: usize = 20;
/// The longest description of a token, in characters.
pub const DESCRIPTION_MAX: usize = 100;
/// The reasons a challenge may be declined with (lichess's, adapted:
/// `rules` for its `variant` and `standard`).
pub const DECLINE_REASONS: &[&str] = &[
    "generic",
    "later",
    "tooFast",
    "tooSlow",
    "timeControl",
    "rated",
    "casual",
    "rules",
    "noBot",
    "onlyBot",
];
/// An event stream reads the store at least this often (other servers'
/// changes it was not woken for: a lost notice, a game's end).
pub const POLL_EVERY: Duration = Duration::from_secs(1);
pub use crate::events::{MARK_EVERY, ONLINE_WITHIN};
/// The lobby notice with which a server wakes the others' event streams.
const NOTICE: &str = "bots";

/// A request authenticated by a token: its account and scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The account, as a player (`account` true).
    pub player: StoredPlayer,
    /// The token's scopes.
    pub scopes: Vec<String>,
}

impl Caller {
    /// Refuses a token without `scope` (`403`, reason `token_scope`).
    pub fn needs(&self, scope: &'static str) -> Result<(), GameError> {
        if self.scopes.iter().any(|s| s == scope) {
            return Ok(());
        }
        Err(GameError::Forbidden(
            Said::new(
                "token_scope",
                format!("this token lacks the scope `{scope}`: make one that has it"),
            )
            .with("scope", scope),
        ))
    }
}

/// A token just made: the only time the token itself is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToken {
    /// The token (`gore_` and 64 hex digits).
    pub token: String,
    /// As stored (its hash, never shown).
    pub stored: StoredToken,
}

/// What one event stream has said so far.
#[derive(Debug, Clone, Default)]
pub struct Cursor {
    since: i64,
    challenges: HashSet<String>,
    closed: HashSet<String>,
    started: HashSet<String>,
    finished: HashSet<String>,
}

/// The account's games an event stream looks at (the latest).
const GAMES_LOOKED_AT: u32 = 50;

/// Tokens, BOT accounts and the Bot API's challenges. Cheap to clone.
#[derive(Clone)]
pub struct Bots(Arc<Inner>);

struct Inner {
    store: Arc<dyn Store>,
    clock: Clock,
    ratings: super::ratings::Ratings,
    /// Rings the accounts' readers of this server: something changed
    /// for these accounts (or, `None`, for any).
    bell: broadcast::Sender<feed::Ring>,
    /// The readers of the accounts with an event stream here.
    feeds: feed::Feeds,
}

fn store_error(e: StoreError) -> GameError {
    match e {
        StoreError::Failed(_) => GameError::Unavailable,
        StoreError::Conflict => GameError::Raced,
        e => {
            tracing::error!("bots: {e}");
            GameError::Internal("the server could not read or save this; try again".into())
        }
    }
}

/// The SHA-256 of a token, in hex. A token is 256 random bits, so a fast
/// hash is enough to keep a stolen table useless: there is no dictionary
/// to try, unlike a password (argon2 would cost each API request a
/// password's work for nothing).
fn hash_of(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn gone() -> GameError {
    GameError::Claimed(Said::new(
        "challenge_gone",
        "this challenge was accepted, declined or withdrawn",
    ))
}

fn no_challenge() -> GameError {
    GameError::NotFound(Said::new("no_challenge", "no such challenge"))
}

impl Bots {
    /// The bots over `store`; listens to the other servers' notices (a
    /// Tokio runtime is needed).
    pub fn new(store: Arc<dyn Store>, clock: Clock, ratings: super::ratings::Ratings) -> Bots {
        let notices = store.notices();
        let bots = Bots(Arc::new(Inner {
            store,
            clock,
            ratings,
            bell: broadcast::channel(64).0,
            feeds: Default::default(),
        }));
        if let Some(mut rx) = notices {
            let weak = Arc::downgrade(&bots.0);
            tokio::spawn(async move {
                loop {
                    let n = rx.recv().await;
                    let Some(inner) = weak.upgrade() else { return };
                    // A game's changes are not rung (every action of every
                    // game would wake every stream): a game's end is found
                    // by the next poll.
                    let ring = match n {
                        Ok(Notice::Lobby(e)) => match e.strip_prefix(NOTICE) {
                            // The accounts concerned, after a colon.
                            Some(names) => names
                                .strip_prefix(':')
                                .map(|names| names.split(',').map(String::from).collect()),
                            None => continue,
                        },
                        Ok(Notice::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => None,
                        Ok(Notice::Changed { .. }) => continue,
                        Err(broadcast::error::RecvError::Closed) => return,
                    };
                    let _ = inner.bell.send(ring);
                }
            });
        }
        bots
    }

    fn now(&self) -> i64 {
        self.0.clock.now_ms()
    }

    /// Something changed for the accounts `names`: their readers here and
    /// on the other servers read again (no other account's does).
    fn ring(&self, names: &[&str]) {
        let _ = self
            .0
            .bell
            .send(Some(names.iter().map(|n| n.to_string()).collect()));
        self.0
            .store
            .announce_lobby(format!("{NOTICE}:{}", names.join(",")));
    }

    /// Makes a token for the account `me` (logged in through a browser
    /// session): its description (1 to [`DESCRIPTION_MAX`] characters, one
    /// line) and scopes (some of [`SCOPES`]).
    pub async fn create_token(
        &self,
        me: &StoredPlayer,
        description: &str,
        scopes: &[String],
    ) -> Result<NewToken, GameError> {
        if !me.account {
            return Err(GameError::NeedsAccount(Said::new(
                "token_needs_account",
                "API tokens are for accounts: sign up or log in",
            )));
        }
        let description = description.trim();
        let n = description.chars().count();
        if n == 0 || n > DESCRIPTION_MAX || description.chars().any(char::is_control) {
            return Err(GameError::BadField {
                field: "description",
                why: format!("one line of 1 to {DESCRIPTION_MAX} characters"),
            });
        }
        let mut wanted: Vec<String> = Vec::new();
        for s in scopes {
            if !SCOPES.contains(&s.as_str()) {
                return Err(GameError::BadField {
                    field: "scopes",
                    why: format!("`{s}` is not a scope ({})", SCOPES.join(", ")),
                });
            }
            if !wanted.contains(s) {
                wanted.push(s.clone());
            }
        }
        if wanted.is_empty() {
            return Err(GameError::BadField {
                field: "scopes",
                why: format!("at least one of {}", SCOPES.join(", ")),
            });
        }
        let store = &self.0.store;
        let had = store.tokens_of(me.id.clone()).await.map_err(store_error)?;
        if had.len() >= TOKENS_PER_ACCOUNT {
            return Err(GameError::Refused(
                Said::new(
                    "too_many_tokens",
                    format!("an account has {TOKENS_PER_ACCOUNT} tokens at most: revoke one"),
                )
                .with("max", TOKENS_PER_ACCOUNT),
            ));
        }
        let bits: [u8; 32] = rand::thread_rng().gen();
        let token: String = std::iter::once(TOKEN_PREFIX.to_string())
            .chain(bits.iter().map(|b| format!("{b:02x}")))
            .collect();
        let stored = StoredToken {
            id: new_id(),
            hash: hash_of(&token),
            account: me.id.clone(),
            description: description.to_string(),
            scopes: wanted,
            created_at: self.now(),
        };
        store
            .create_token(stored.clone())
            .await
            .map_err(store_error)?;
        Ok(NewToken { token, stored })
    }

    /// The account's tokens (without the tokens themselves).
    pub async fn tokens(&self, me: &StoredPlayer) -> Result<Vec<StoredToken>, GameError> {
        if !me.account {
            return Ok(Vec::new());
        }
        self.0
            .store
            .tokens_of(me.id.clone())
            .await
            .map_err(store_error)
    }

    /// Revokes token `id` of the account: it no longer authenticates.
    pub async fn revoke(&self, me: &StoredPlayer, id: &str) -> Result<(), GameError> {
        let n = self
            .0
            .store
            .revoke_token(me.id.clone(), id.to_string())
            .await
            .map_err(store_error)?;
        if n == 0 || !me.account {
            return Err(GameError::NotFound(Said::new("no_token", "no such token")));
        }
        Ok(())
    }

    /// The caller of a request by its `Authorization` header's value:
    /// `Bearer gore_…`, a token that exists. Malformed, unknown or revoked:
    /// `401` (reason `bad_token`).
    pub async fn authenticate(&self, authorization: Option<&str>) -> Result<Caller, GameError> {
        let bad = |why: &str| {
            GameError::BadToken(Said::new(
                "bad_token",
                format!("{why}: send `Authorization: Bearer <token>` with a token of yours"),
            ))
        };
        let Some(value) = authorization else {
            return Err(bad("no API token"));
        };
        let token = value
            .strip_prefix("Bearer ")
            .map(str::trim)
            .ok_or_else(|| bad("not a bearer token"))?;
        token
            .strip_prefix(TOKEN_PREFIX)
            .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| bad("a malformed token"))?;
        let (stored, player) = self
            .0
            .store
            .token_owner(hash_of(token))
            .await
            .map_err(store_error)?
            .ok_or_else(|| bad("an unknown or revoked token"))?;
        Ok(Caller {
            player,
            scopes: stored.scopes,
        })
    }

    /// Makes the caller's account a BOT, for good: only an account that
    /// has played no game (`409 refused`, reason `bot_has_games`); a BOT
    /// already is answered as done.
    pub async fn upgrade(&self, caller: &Caller) -> Result<(), GameError> {
        caller.needs("bot:play")?;
        let n = self
            .0
            .store
            .make_bot(caller.player.id.clone())
            .await
            .map_err(store_error)?;
        if n == 0 {
            return Err(GameError::Refused(Said::new(
                "bot_has_games",
                "an account that has played games cannot become a BOT: make a new account",
            )));
        }
        tracing::info!("account {} is a BOT", caller.player.id);
        Ok(())
    }

    /// The seat's token the account `me` holds in game `id`: `404` for no
    /// such game, `403` (`no_seat`) for someone else's.
    pub async fn seat(&self, me: &StoredPlayer, id: &str) -> Result<String, GameError> {
        if !super::valid_id(id) {
            return Err(GameError::NoGame);
        }
        if let Some(t) = self
            .0
            .store
            .account_seat(me.id.clone(), id.to_string())
            .await
            .map_err(store_error)?
        {
            return Ok(t);
        }
        match self
            .0
            .store
            // No action is after this ply (a 32-bit signed column's
            // largest): the game's row alone.
            .load_game_after(id.to_string(), crate::Ply::new(i32::MAX as u32))
            .await
            .map_err(store_error)?
        {
            None => Err(GameError::NoGame),
            Some(_) => Err(GameError::NoSeat),
        }
    }

    /// Challenges the account named `dest` (a look-alike finds it) from
    /// the account `me`: open until accepted, declined or withdrawn, or
    /// until it lapses ([`CHALLENGE_LAPSES`]). One open challenge to one
    /// player at a time, [`OPEN_CHALLENGES`] in all.
    pub async fn challenge(
        &self,
        me: &StoredPlayer,
        dest: &str,
        rules: Rules,
        clock: Option<TimeControl>,
        colour: Option<Player>,
        rated: bool,
    ) -> Result<StoredBotChallenge, GameError> {
        if !me.account {
            return Err(GameError::NeedsAccount(Said::new(
                "challenge_needs_account",
                "challenges are between accounts: sign up or log in",
            )));
        }
        if rated && clock.is_none() {
            return Err(GameError::Invalid {
                field: "clock",
                said: Said::new(
                    "rated_needs_clock",
                    "a rated game has a clock: its pace is the rating's",
                ),
            });
        }
        let store = &self.0.store;
        // The name as written, then in lowercase (`HUMANO` is `Humano`,
        // though a capital `M` alone does not look like `rn`).
        let mut them = None;
        for key in super::names::keys(dest.trim()) {
            them = store.account_by_key(key).await.map_err(store_error)?;
            if them.is_some() {
                break;
            }
        }
        let them = them.ok_or(GameError::NoPlayer)?;
        if them.id == me.id {
            return Err(GameError::Refused(Said::new(
                "own_challenge",
                "you cannot challenge yourself",
            )));
        }
        let now = self.now();
        let mut mine = store
            .bot_challenges_of(me.id.clone(), now)
            .await
            .map_err(store_error)?;
        self.lapse(&mut mine).await?;
        mine.retain(|c| c.status == "created" && c.challenger.0 == me.id);
        // One at a time to one player: a flood of accounts each with its
        // OPEN_CHALLENGES would otherwise fill one BOT's stream.
        if mine.iter().any(|c| c.dest.0 == them.id) {
            return Err(GameError::Refused(
                Said::new(
                    "challenge_pending",
                    format!(
                        "you have challenged {} already: wait for the answer, or cancel it",
                        them.username
                    ),
                )
                .with("name", them.username.clone()),
            ));
        }
        let open = mine.len();
        if open >= OPEN_CHALLENGES {
            return Err(GameError::Refused(
                Said::new(
                    "too_many_challenges",
                    format!(
                        "{OPEN_CHALLENGES} open challenges at most: cancel one, or wait for answers"
                    ),
                )
                .with("max", OPEN_CHALLENGES),
            ));
        }
        let c = StoredBotChallenge {
            id: new_id(),
            challenger: (me.id.clone(), me.name.clone(), me.bot),
            dest: (them.id, them.username, them.bot),
            rules,
            clock,
            colour,
            rated,
            status: "created".into(),
            reason: None,
            game: None,
            created_at: now,
            updated_at: now,
        };
        store
            .post_bot_challenge(c.clone())
            .await
            .map_err(store_error)?;
        self.ring(&[&c.challenger.0, &c.dest.0]);
        Ok(c)
    }

    /// The event stream of account `me` is open now (the bots' page shows
    /// a BOT online while it is).
    pub async fn streaming(&self, me: &StoredPlayer) -> Result<(), GameError> {
        self.0
            .store
            .mark_streaming(me.id.clone(), self.now())
            .await
            .map_err(store_error)
    }

    /// Challenge `id`, for one of its two players (anyone else: `404`).
    pub async fn challenge_of(
        &self,
        me: &StoredPlayer,
        id: &str,
    ) -> Result<StoredBotChallenge, GameError> {
        if !super::valid_id(id) {
            return Err(no_challenge());
        }
        let mut c = self
            .0
            .store
            .bot_challenge(id.to_string())
            .await
            .map_err(store_error)?
            .filter(|c| c.challenger.0 == me.id || c.dest.0 == me.id)
            .ok_or_else(no_challenge)?;
        self.lapse(std::slice::from_mut(&mut c)).await?;
        Ok(c)
    }

    /// Cancels each of `challenges` open for [`CHALLENGE_LAPSES`] or more
    /// and shows it so (an answer that came first is read again instead).
    async fn lapse(&self, challenges: &mut [StoredBotChallenge]) -> Result<(), GameError> {
        let now = self.now();
        let lapses = CHALLENGE_LAPSES.as_millis() as i64;
        let store = &self.0.store;
        let mut rang: Vec<String> = Vec::new();
        for c in challenges.iter_mut() {
            if c.status != "created" || now - c.created_at < lapses {
                continue;
            }
            let id = c.id.clone();
            let closed = store
                .close_bot_challenge(id.clone(), "canceled".into(), None, now)
                .await
                .map_err(store_error)?;
            if closed {
                tracing::info!("challenge {id}: lapsed");
                (c.status, c.updated_at) = ("canceled".into(), now);
                rang.extend([c.challenger.0.clone(), c.dest.0.clone()]);
            } else if let Some(again) = store.bot_challenge(id).await.map_err(store_error)? {
                *c = again;
            }
        }
        if !rang.is_empty() {
            self.ring(&rang.iter().map(String::as_str).collect::<Vec<_>>());
        }
        Ok(())
    }

    /// The challenged player accepts: the game, made as every challenge's
    /// (`lobby::game_between`), its seats the two accounts'.
    pub async fn accept(&self, me: &StoredPlayer, id: &str) -> Result<String, GameError> {
        let c = self.challenge_of(me, id).await?;
        if c.dest.0 != me.id {
            return Err(GameError::Refused(Said::new(
                "own_challenge",
                "this is your own challenge: the player you challenged accepts it",
            )));
        }
        if c.status != "created" {
            return Err(gone());
        }
        let (mut theirs, mut mine) = (None, None);
        if let (true, Some(tc)) = (c.rated, c.clock) {
            theirs = Some(self.0.ratings.shown(&c.challenger.0, tc).await?);
            mine = Some(self.0.ratings.shown(&me.id, tc).await?);
        }
        let terms = Terms {
            rules: c.rules,
            clock: c.clock,
            colour: c.colour,
            rated: c.rated,
        };
        let creator = Party {
            player: c.challenger.0.clone(),
            name: c.challenger.1.clone(),
            rating: theirs,
            bot: c.challenger.2,
        };
        let other = Party {
            player: me.id.clone(),
            name: me.name.clone(),
            rating: mine,
            bot: me.bot,
        };
        let (info, [tc, tm]) = game_between(&terms, creator, other, self.now());
        let game = info.id.clone();
        let seats = vec![(c.challenger.0.clone(), tc), (me.id.clone(), tm)];
        if !self
            .0
            .store
            .accept_bot_challenge(c.id.clone(), info, seats, self.now())
            .await
            .map_err(store_error)?
        {
            return Err(gone());
        }
        tracing::info!("challenge {}: game {game}", c.id);
        self.ring(&[&c.challenger.0, &c.dest.0]);
        Ok(game)
    }

    /// The challenged player declines, with one of [`DECLINE_REASONS`]
    /// (`generic` if none).
    pub async fn decline(
        &self,
        me: &StoredPlayer,
        id: &str,
        reason: Option<&str>,
    ) -> Result<(), GameError> {
        let reason = reason.unwrap_or("generic");
        if !DECLINE_REASONS.contains(&reason) {
            return Err(GameError::BadField {
                field: "reason",
                why: format!("`{reason}` is not one of {}", DECLINE_REASONS.join(", ")),
            });
        }
        let c = self.challenge_of(me, id).await?;
        if c.dest.0 != me.id {
            return Err(GameError::Refused(Said::new(
                "own_challenge",
                "this is your own challenge: cancel it instead",
            )));
        }
        self.close(&c, "declined", Some(reason)).await
    }

    /// The challenger withdraws his challenge.
    pub async fn cancel(&self, me: &StoredPlayer, id: &str) -> Result<(), GameError> {
        let c = self.challenge_of(me, id).await?;
        if c.challenger.0 != me.id {
            return Err(GameError::Refused(Said::new(
                "not_own_challenge",
                "this challenge is to you: decline it instead",
            )));
        }
        self.close(&c, "canceled", None).await
    }

    async fn close(
        &self,
        c: &StoredBotChallenge,
        status: &str,
        reason: Option<&str>,
    ) -> Result<(), GameError> {
        if !self
            .0
            .store
            .close_bot_challenge(
                c.id.clone(),
                status.into(),
                reason.map(str::to_string),
                self.now(),
            )
            .await
            .map_err(store_error)?
        {
            return Err(gone());
        }
        self.ring(&[&c.challenger.0, &c.dest.0]);
        Ok(())
    }

    /// A new event stream's cursor, from now.
    pub fn cursor(&self) -> Cursor {
        Cursor {
            since: self.now(),
            ..Cursor::default()
        }
    }

    /// What the stream of account `me` has not said yet: the open
    /// challenges from and to him, those of them closed since, his games
    /// begun and ended. The first call says the open challenges and the
    /// games being played.
    pub async fn events(
        &self,
        me: &StoredPlayer,
        cursor: &mut Cursor,
    ) -> Result<Vec<PlayerEvent>, GameError> {
        let store = &self.0.store;
        let mut out = Vec::new();
        // A second's margin: a change stored with a clock a little behind.
        let since = cursor.since - 1_000;
        let mut challenges = store
            .bot_challenges_of(me.id.clone(), since)
            .await
            .map_err(store_error)?;
        self.lapse(&mut challenges).await?;
        for c in challenges {
            match c.status.as_str() {
                "created" if cursor.challenges.insert(c.id.clone()) => {
                    out.push(PlayerEvent::Challenge(c));
                }
                "canceled" | "declined"
                    if cursor.challenges.contains(&c.id) && cursor.closed.insert(c.id.clone()) =>
                {
                    out.push(if c.status == "canceled" {
                        PlayerEvent::ChallengeCanceled(c)
                    } else {
                        PlayerEvent::ChallengeDeclined(c)
                    });
                }
                _ => {}
            }
        }
        let mut games = store
            .player_games(me.id.clone(), GAMES_LOOKED_AT)
            .await
            .map_err(store_error)?;
        // Oldest first: events in the order the games began. The games
        // that ended are told before those that began: a player whose
        // next game (an arena's pairing) came in the same read hears of
        // the end first, whatever the order of their times.
        games.reverse();
        let mut begun = Vec::new();
        for (g, result) in games {
            let new = g.created_at >= since;
            match g.status {
                Status::Playing if cursor.started.insert(g.id.clone()) => {
                    let source = Source::of(&g);
                    begun.push(PlayerEvent::GameStart(g, source));
                }
                Status::Over if cursor.started.contains(&g.id) || new => {
                    if cursor.started.insert(g.id.clone()) {
                        out.push(PlayerEvent::GameStart(g.clone(), Source::of(&g)));
                    }
                    if cursor.finished.insert(g.id.clone()) {
                        out.push(PlayerEvent::GameFinish(g, result));
                    }
                }
                _ => {}
            }
        }
        out.extend(begun);
        Ok(out)
    }
}
