//! The lobby: open challenges (a quick pairing's seek is one too), games
//! being played now, and pairing. The store holds every challenge, so that
//! a challenge posted on one server is taken through another; each server
//! sends its own lobby sockets a snapshot of the lobby whenever it changes
//! (here or, through the store's notices, on another server), and tells
//! the two players of each new pair.
//!
//! Quick pairing is a seek posted and then matched: once his seek is
//! stored, a seeker looks for one of the oldest open seeks of the same pace
//! by someone else (at random among them, so that a rush does not race for
//! one), and keeps looking while any is open, so that of two seekers
//! arriving together on two servers
//! the later to look always finds the other (neither waits in vain); if
//! both find each other, one transaction takes both seeks or neither, and
//! the one refused finds his own seek taken: paired all the same.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex, OnceLock};
use std::time::Duration;

use gore_core::{Player, Rules};
use rand::Rng;
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, Notify};

use super::clock::{Clock, TimeControl};
use super::{new_id, GameError, GameInfo, Mode, Said, Seat};
use crate::storage::{Notice, Store, StoreError, StoredChallenge, StoredPlayer};

/// Open challenges the lobby lists, newest first.
pub const LISTED_CHALLENGES: u32 = 100;
/// Games being played the lobby lists.
pub const LISTED_GAMES: u32 = 30;
/// A creator's server refreshes his challenges this often while he is in
/// the lobby.
const TOUCH_EVERY: Duration = Duration::from_secs(10);
/// A challenge not refreshed for this long is gone (its creator's server
/// stopped).
const UNSEEN_FOR: i64 = 30_000;
/// A taken challenge is kept this long (a creator who asks learns his game).
const TAKEN_FOR: i64 = 120_000;
/// The lobby is read again this often even without an event (games end
/// on their own).
const REFRESH_EVERY: Duration = Duration::from_secs(5);
/// A seeker picks his match at random among the oldest this many seeks of
/// his pace: a rush of seekers spreads over them instead of all racing
/// for the oldest one.
const MATCH_CANDIDATES: u32 = 32;
/// Changes of the lobby within this long make one snapshot.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// A player who aborted this many games (by hand, by resigning or leaving
/// before each player had acted, or by never making his first action)
/// within [`ABORT_WINDOW_MS`] may not seek, post or accept in the lobby
/// until the oldest of them leaves the window (RULES.md, "Aborting").
pub const ABORT_LIMIT: usize = 3;
/// See [`ABORT_LIMIT`]: an hour.
pub const ABORT_WINDOW_MS: i64 = 3_600_000;

/// Open seeks and challenges from one address at most, by default (issue
/// 25: one address's throw-away sessions placed 639 ghost seeks in 30 s).
/// A household or a club behind one address seeks with a few; more is a
/// flood. The operator's `--max-seeks-per-ip` sets it (a load test's one
/// address needs more).
pub const SEEKS_PER_ADDRESS: usize = 8;
/// Anonymous players with nothing of theirs (no account, seat, game or
/// challenge) not made nor renamed for this long are forgotten: throw-away sessions'
/// rows (a day, so that a visitor who named himself keeps his name while
/// he comes back).
pub const IDLE_PLAYER_MS: i64 = 86_400_000;
/// The sweep of idle anonymous players runs this often.
const FORGET_EVERY: Duration = Duration::from_secs(600);

/// A challenge as the lobby lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeView {
    /// Its id.
    pub id: String,
    /// The creator's public id.
    pub by: String,
    /// The creator's display name.
    pub name: String,
    /// The rules.
    pub rules: Rules,
    /// The clock (`null`: untimed).
    pub clock: Option<TimeControl>,
    /// The creator's colour (`null`: random).
    pub colour: Option<Player>,
    /// Rated.
    pub rated: bool,
    /// A quick pairing's seek.
    pub quick: bool,
    /// The creator's rating in its pace (`1500?`; rated challenges).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<String>,
}

/// A game being played, as the lobby lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayingView {
    /// The game id.
    pub id: String,
    /// Its page.
    pub url: String,
    /// A's and B's names.
    pub names: [Option<String>; 2],
    /// The clock.
    pub clock: Option<TimeControl>,
    /// The rules.
    pub rules: Rules,
    /// A's and B's ratings when it began (rated games).
    pub ratings: [Option<String>; 2],
    /// Whether A and B are BOT accounts.
    #[serde(default)]
    pub bots: [bool; 2],
    /// Its spectators, on every server.
    pub spectators: u32,
}

/// The lobby's state, as every lobby socket receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyView {
    /// The paces of quick pairing (the operator's, `--paces`).
    pub paces: Vec<TimeControl>,
    /// Open challenges, newest first.
    pub challenges: Vec<ChallengeView>,
    /// Games between people being played, the latest begun first.
    pub games: Vec<PlayingView>,
}

/// One state of the lobby, for every lobby socket: written at most once,
/// by the first socket to send it with the edge's encoder, then shared.
#[derive(Debug)]
pub struct Snapshot {
    /// The lobby.
    pub view: LobbyView,
    text: OnceLock<Arc<str>>,
}

impl Snapshot {
    /// A snapshot of `view`, not yet written.
    pub fn new(view: LobbyView) -> Snapshot {
        Snapshot {
            view,
            text: OnceLock::new(),
        }
    }

    /// The lobby as `encode` writes it: encoded by the first caller, then
    /// shared (every socket passes the same encoder: the edge's).
    pub fn text(&self, encode: impl FnOnce(&LobbyView) -> String) -> Arc<str> {
        self.text
            .get_or_init(|| Arc::from(encode(&self.view)))
            .clone()
    }
}

/// What a lobby socket hears.
#[derive(Debug, Clone)]
pub enum LobbyEvent {
    /// The lobby changed: the new state, encoded once for every socket.
    Snapshot(Arc<Snapshot>),
    /// Two players were paired: `game`, between the players `players`
    /// (public ids).
    Paired {
        /// The game.
        game: String,
        /// Its two players.
        players: [String; 2],
    },
}

/// The answer to a seek.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seek {
    /// Paired at once: the game.
    Paired(String),
    /// Waiting in the lobby: the seek's id.
    Waiting(String),
}

/// A challenge to post (the creator is given apart).
#[derive(Debug, Clone)]
pub struct NewChallenge {
    /// The rules.
    pub rules: Rules,
    /// The clock.
    pub clock: Option<TimeControl>,
    /// The creator's colour (`None`: random).
    pub colour: Option<Player>,
    /// Rated.
    pub rated: bool,
}

/// The lobby of this server, over the shared store. Cheap to clone.
#[derive(Clone)]
pub struct Lobby(Arc<Inner>);

struct Inner {
    store: Arc<dyn Store>,
    clock: Clock,
    paces: Vec<TimeControl>,
    ratings: super::ratings::Ratings,
    /// Seeks and challenges waiting per address at most.
    seeks_per_address: usize,
    tx: broadcast::Sender<LobbyEvent>,
    /// The last snapshot sent.
    last: StdMutex<Option<Arc<Snapshot>>>,
    /// A change to send.
    dirty: AtomicBool,
    wake: Arc<Notify>,
    /// Lobby sockets of this server, per session, and its address.
    present: StdMutex<HashMap<String, (usize, Option<IpAddr>)>>,
    /// The seeks and challenges left waiting through this server, per
    /// address: session → challenge id (some may have been taken or
    /// withdrawn since: checked when counted).
    waiting: StdMutex<HashMap<IpAddr, HashMap<String, String>>>,
}

fn store_error(e: StoreError) -> GameError {
    match e {
        StoreError::Failed(_) => GameError::Unavailable,
        StoreError::Conflict => GameError::Raced,
        e => {
            tracing::error!("lobby: {e}");
            GameError::Internal("the lobby could not be read or changed; try again".into())
        }
    }
}

impl Lobby {
    /// The lobby over `store`; starts its tasks (a Tokio runtime is needed).
    pub fn new(
        store: Arc<dyn Store>,
        clock: Clock,
        paces: Vec<TimeControl>,
        ratings: super::ratings::Ratings,
        seeks_per_address: usize,
    ) -> Lobby {
        let notices = store.notices();
        let lobby = Lobby(Arc::new(Inner {
            store,
            clock,
            paces,
            ratings,
            seeks_per_address,
            tx: broadcast::channel(256).0,
            last: StdMutex::new(None),
            dirty: AtomicBool::new(true),
            wake: Arc::new(Notify::new()),
            present: StdMutex::new(HashMap::new()),
            waiting: StdMutex::new(HashMap::new()),
        }));
        lobby.spawn_snapshots();
        lobby.spawn_keeper();
        lobby.spawn_forgetter();
        if let Some(n) = notices {
            lobby.spawn_listener(n);
        }
        lobby
    }

    fn now(&self) -> i64 {
        self.0.clock.now_ms()
    }

    /// Every later lobby event.
    pub fn subscribe(&self) -> broadcast::Receiver<LobbyEvent> {
        self.0.tx.subscribe()
    }

    /// The lobby as last sent (`None` before the first snapshot).
    pub fn snapshot(&self) -> Option<Arc<Snapshot>> {
        self.0
            .last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The lobby now, read from the store.
    pub async fn view(&self) -> Result<LobbyView, GameError> {
        let challenges = self
            .0
            .store
            .open_challenges(LISTED_CHALLENGES)
            .await
            .map_err(store_error)?;
        let games = self
            .0
            .store
            .playing_now(LISTED_GAMES)
            .await
            .map_err(store_error)?;
        let since = self.now() - super::SPECTATORS_FRESH.as_millis() as i64;
        let watching: HashMap<String, u32> = self
            .0
            .store
            .watchers(games.iter().map(|g| g.id.clone()).collect(), since)
            .await
            .map_err(store_error)?
            .into_iter()
            .collect();
        Ok(LobbyView {
            paces: self.0.paces.clone(),
            challenges: challenges
                .into_iter()
                .map(|c| ChallengeView {
                    id: c.id,
                    by: c.player,
                    name: c.name,
                    rules: c.rules,
                    clock: c.clock,
                    colour: c.colour,
                    rated: c.rated,
                    quick: c.quick,
                    rating: c.rating,
                })
                .collect(),
            games: games
                .into_iter()
                .map(|g| PlayingView {
                    url: format!("/g/{}", g.id),
                    spectators: watching.get(&g.id).copied().unwrap_or(0),
                    id: g.id,
                    names: g.names,
                    clock: g.clock,
                    rules: g.rules,
                    ratings: g.ratings,
                    bots: g.bots,
                })
                .collect(),
        })
    }

    /// Something changed: a snapshot soon, here and on the other servers.
    fn changed(&self) {
        self.mark();
        self.0.store.announce_lobby("changed".into());
    }

    fn mark(&self) {
        self.0.dirty.store(true, Ordering::SeqCst);
        self.0.wake.notify_one();
    }

    /// Sends a snapshot whenever the lobby changed (the changes of a short
    /// while make one), if it differs from the last.
    fn spawn_snapshots(&self) {
        let weak = Arc::downgrade(&self.0);
        // Waiting on its own handle of the bell keeps no lobby alive.
        let bell = self.0.wake.clone();
        tokio::spawn(async move {
            loop {
                let Some(inner) = weak.upgrade() else { return };
                let lobby = Lobby(inner);
                if !lobby.0.dirty.swap(false, Ordering::SeqCst) {
                    drop(lobby);
                    // Games also end without a lobby event: a fresh look
                    // now and then (sent only if it differs).
                    tokio::select! {
                        () = bell.notified() => {}
                        () = tokio::time::sleep(REFRESH_EVERY) => {
                            if let Some(inner) = weak.upgrade() {
                                inner.dirty.store(true, Ordering::SeqCst);
                            }
                        }
                    }
                    continue;
                }
                tokio::time::sleep(DEBOUNCE).await;
                lobby.0.dirty.store(false, Ordering::SeqCst);
                match lobby.view().await {
                    Ok(view) => {
                        let mut last = lobby.0.last.lock().unwrap_or_else(|e| e.into_inner());
                        // Equal views are equal texts: nothing new to send.
                        if last.as_ref().is_none_or(|s| s.view != view) {
                            let snapshot = Arc::new(Snapshot::new(view));
                            *last = Some(snapshot.clone());
                            let _ = lobby.0.tx.send(LobbyEvent::Snapshot(snapshot));
                        }
                    }
                    Err(e) => tracing::warn!("lobby: cannot read it: {e}"),
                }
            }
        });
    }

    /// Refreshes the challenges of the players in this server's lobby, and
    /// removes those whose creator's server is gone.
    fn spawn_keeper(&self) {
        let weak = Arc::downgrade(&self.0);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(TOUCH_EVERY);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                let lobby = Lobby(inner);
                let sessions: Vec<String> = lobby
                    .0
                    .present
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .keys()
                    .cloned()
                    .collect();
                let now = lobby.now();
                if let Err(e) = lobby.0.store.touch_challenges(sessions, now).await {
                    tracing::warn!("lobby: {e}");
                }
                match lobby
                    .0
                    .store
                    .expire_challenges(now - UNSEEN_FOR, now - TAKEN_FOR)
                    .await
                {
                    Ok(0) => {}
                    Ok(_) => lobby.changed(),
                    Err(e) => tracing::warn!("lobby: {e}"),
                }
            }
        });
    }

    /// Several servers: another server's lobby events.
    fn spawn_listener(&self, mut notices: broadcast::Receiver<Notice>) {
        let weak = Arc::downgrade(&self.0);
        tokio::spawn(async move {
            loop {
                let n = notices.recv().await;
                let Some(inner) = weak.upgrade() else { return };
                let lobby = Lobby(inner);
                match n {
                    Ok(Notice::Lobby(event)) => {
                        let mut words = event.split(' ');
                        if let (Some("paired"), Some(g), Some(a), Some(b)) =
                            (words.next(), words.next(), words.next(), words.next())
                        {
                            let _ = lobby.0.tx.send(LobbyEvent::Paired {
                                game: g.to_string(),
                                players: [a.to_string(), b.to_string()],
                            });
                        }
                        lobby.mark();
                    }
                    Ok(Notice::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        lobby.mark()
                    }
                    Ok(Notice::Changed { .. }) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }

    /// Every 10 minutes: forgets the idle anonymous players
    /// ([`Lobby::forget_idle_players`]).
    fn spawn_forgetter(&self) {
        let weak = Arc::downgrade(&self.0);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(FORGET_EVERY);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                if let Err(e) = Lobby(inner).forget_idle_players().await {
                    tracing::warn!("lobby: {e}");
                }
            }
        });
    }

    /// Forgets the anonymous players with nothing of theirs (no account,
    /// seat, game or challenge) not made nor renamed for [`IDLE_PLAYER_MS`]
    /// by the server's clock; how many. The sweep calls it; tests too.
    pub async fn forget_idle_players(&self) -> Result<u64, GameError> {
        let n = self
            .0
            .store
            .forget_idle_players(self.now() - IDLE_PLAYER_MS)
            .await
            .map_err(store_error)?;
        if n > 0 {
            tracing::info!("lobby: {n} idle anonymous players forgotten");
        }
        Ok(n)
    }

    /// A lobby socket of `session` (from `ip`) opened here.
    pub fn enter(&self, session: &str, ip: Option<IpAddr>) {
        let mut present = self.0.present.lock().unwrap_or_else(|e| e.into_inner());
        let entry = present.entry(session.to_string()).or_insert((0, ip));
        entry.0 += 1;
        entry.1 = ip;
    }

    /// Whether `session` has a lobby socket open here.
    fn is_present(&self, session: &str) -> bool {
        self.0
            .present
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(session)
    }

    /// A seek or challenge waits only while its creator is in the lobby
    /// (his lobby socket open on this server: the server then withdraws it
    /// when the socket closes), and an address has at most
    /// [`SEEKS_PER_ADDRESS`] (the operator's) waiting: ghosts of throw-away sessions that
    /// never play are not paired with anyone.
    async fn check_may_wait(&self, session: &str, ip: Option<IpAddr>) -> Result<(), GameError> {
        if !self.is_present(session) {
            return Err(GameError::Refused(Said::new(
                "not_in_lobby",
                "a seek or challenge waits only while its creator is in the lobby: \
                 open the lobby socket (GET /api/lobby/ws) on this server first",
            )));
        }
        let Some(ip) = ip else { return Ok(()) };
        let others: Vec<(String, String)> = self
            .0
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&ip)
            .map(|m| {
                m.iter()
                    .filter(|(s, _)| s.as_str() != session)
                    .map(|(s, c)| (s.clone(), c.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let cap = self.0.seeks_per_address;
        if others.len() < cap {
            return Ok(());
        }
        // Those taken or withdrawn since no longer count.
        let mut gone = Vec::new();
        for (s, id) in &others {
            let open = self
                .0
                .store
                .challenge(id.clone())
                .await
                .map_err(store_error)?
                .is_some_and(|c| c.game.is_none());
            if !open {
                gone.push(s.clone());
            }
        }
        let mut waiting = self.0.waiting.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = waiting.get_mut(&ip) {
            for s in &gone {
                m.remove(s);
            }
        }
        if others.len() - gone.len() >= cap {
            return Err(GameError::Busy(format!(
                "seek limit: {cap} open seeks and challenges from one address at most; \
                 wait for one of them to be taken or withdrawn"
            )));
        }
        Ok(())
    }

    /// Remembers the seek or challenge `id` of `session` waiting, for its
    /// address's count.
    fn waits(&self, session: &str, ip: Option<IpAddr>, id: &str) {
        if let Some(ip) = ip {
            self.0
                .waiting
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(ip)
                .or_default()
                .insert(session.to_string(), id.to_string());
        }
    }

    /// Forgets what `session` has waiting in its address's count.
    fn stops_waiting(&self, session: &str, ip: Option<IpAddr>) {
        let Some(ip) = ip else { return };
        let mut waiting = self.0.waiting.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = waiting.get_mut(&ip) {
            m.remove(session);
            if m.is_empty() {
                waiting.remove(&ip);
            }
        }
    }

    /// A lobby socket of `session` closed here: when it was his last, his
    /// open challenges are withdrawn (he left the lobby).
    pub async fn leave(&self, session: &str) {
        let (last, ip) = {
            let mut present = self.0.present.lock().unwrap_or_else(|e| e.into_inner());
            match present.get_mut(session) {
                Some((n, ip)) if *n > 1 => {
                    *n -= 1;
                    (false, *ip)
                }
                p => {
                    let ip = p.and_then(|(_, ip)| *ip);
                    present.remove(session);
                    (true, ip)
                }
            }
        };
        if last {
            self.stops_waiting(session, ip);
            match self
                .0
                .store
                .cancel_challenges(session.to_string(), None)
                .await
            {
                Ok(0) => {}
                Ok(_) => self.changed(),
                Err(e) => tracing::warn!("lobby: {e}"),
            }
        }
    }

    /// The sessions with a lobby socket here (tests).
    pub fn present(&self) -> HashSet<String> {
        self.0
            .present
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// Quick pairing: pairs `me` with the first who wants the same clock
    /// (standard rules, random colours), or leaves his seek in the lobby.
    /// His other open challenges are withdrawn: one at a time.
    pub async fn seek(
        &self,
        session: &str,
        ip: Option<IpAddr>,
        me: &StoredPlayer,
        clock: TimeControl,
        rated: bool,
    ) -> Result<Seek, GameError> {
        check_not_bot(me)?;
        check_rated(rated, me, Some(clock))?;
        self.check_aborts(me).await?;
        self.check_may_wait(session, ip).await?;
        let rating = self.rating_shown(rated, me, Some(clock)).await?;
        let store = &self.0.store;
        store
            .cancel_challenges(session.to_string(), None)
            .await
            .map_err(store_error)?;
        let mine = StoredChallenge {
            rating,
            id: new_id(),
            session: session.to_string(),
            player: me.id.clone(),
            name: me.name.clone(),
            rules: Rules::STANDARD,
            clock: Some(clock),
            colour: None,
            rated,
            quick: true,
            created_at: self.now(),
            game: None,
        };
        store
            .post_challenge(mine.clone())
            .await
            .map_err(store_error)?;
        // Until paired or nobody else seeks: every failed attempt means
        // another pair was made, so this ends; and a seeker who stops
        // because nobody else seeks will be found by the next one.
        loop {
            let candidates = store
                .find_matches(mine.clone(), MATCH_CANDIDATES)
                .await
                .map_err(store_error)?;
            if candidates.is_empty() {
                break;
            }
            let theirs = candidates[rand::thread_rng().gen_range(0..candidates.len())].clone();
            let (game, seats) = self.game_for(&theirs, session, me, mine.rating.clone());
            let id = game.id.clone();
            let players = [theirs.player.clone(), me.id.clone()];
            if store
                .pair(vec![theirs.id.clone(), mine.id.clone()], game, seats)
                .await
                .map_err(store_error)?
            {
                self.paired(id.clone(), players);
                return Ok(Seek::Paired(id));
            }
            // Taken by another: mine may have been, too.
            if let Some(g) = store
                .challenge(mine.id.clone())
                .await
                .map_err(store_error)?
                .and_then(|c| c.game)
            {
                return Ok(Seek::Paired(g));
            }
        }
        self.waits(session, ip, &mine.id);
        self.changed();
        Ok(Seek::Waiting(mine.id))
    }

    /// Posts a challenge anyone may accept; its id. The creator's other
    /// open challenges are withdrawn.
    pub async fn post(
        &self,
        session: &str,
        ip: Option<IpAddr>,
        me: &StoredPlayer,
        new: NewChallenge,
    ) -> Result<String, GameError> {
        check_not_bot(me)?;
        check_rated(new.rated, me, new.clock)?;
        self.check_aborts(me).await?;
        self.check_may_wait(session, ip).await?;
        let rating = self.rating_shown(new.rated, me, new.clock).await?;
        let store = &self.0.store;
        store
            .cancel_challenges(session.to_string(), None)
            .await
            .map_err(store_error)?;
        let id = new_id();
        store
            .post_challenge(StoredChallenge {
                rating,
                id: id.clone(),
                session: session.to_string(),
                player: me.id.clone(),
                name: me.name.clone(),
                rules: new.rules,
                clock: new.clock,
                colour: new.colour,
                rated: new.rated,
                quick: false,
                created_at: self.now(),
                game: None,
            })
            .await
            .map_err(store_error)?;
        self.waits(session, ip, &id);
        self.changed();
        Ok(id)
    }

    /// Accepts challenge `id` for `me`: the game.
    pub async fn accept(
        &self,
        session: &str,
        me: &StoredPlayer,
        id: &str,
    ) -> Result<String, GameError> {
        let store = &self.0.store;
        let gone = GameError::Claimed(Said::new(
            "challenge_gone",
            "this challenge was taken or withdrawn",
        ));
        check_not_bot(me)?;
        if !super::valid_id(id) {
            return Err(GameError::NoGame);
        }
        let c = store
            .challenge(id.to_string())
            .await
            .map_err(store_error)?
            .ok_or(GameError::NoGame)?;
        if c.game.is_some() {
            return Err(gone);
        }
        // The same player (an account's other session too) never plays
        // himself: no rating from one's own games.
        if c.session == session || c.player == me.id {
            return Err(GameError::Refused(Said::new(
                "own_challenge",
                "this is your own challenge: someone else accepts it",
            )));
        }
        self.check_aborts(me).await?;
        if c.rated && !me.account {
            return Err(GameError::NeedsAccount(Said::new(
                "rated_accept_needs_account",
                "a rated challenge is for accounts: sign up or log in to accept it",
            )));
        }
        let mine_shown = self.rating_shown(c.rated, me, c.clock).await?;
        let (game, seats) = self.game_for(&c, session, me, mine_shown);
        let game_id = game.id.clone();
        if !store
            .pair(vec![c.id.clone()], game, seats)
            .await
            .map_err(store_error)?
        {
            return Err(gone);
        }
        // He plays now: his own challenges leave the lobby.
        store
            .cancel_challenges(session.to_string(), None)
            .await
            .map_err(store_error)?;
        self.paired(game_id.clone(), [c.player, me.id.clone()]);
        Ok(game_id)
    }

    /// Withdraws the caller's open challenges (`id` only, if given); how
    /// many.
    pub async fn cancel(&self, session: &str, id: Option<&str>) -> Result<u64, GameError> {
        let n = self
            .0
            .store
            .cancel_challenges(session.to_string(), id.map(str::to_string))
            .await
            .map_err(store_error)?;
        if n > 0 {
            self.changed();
        }
        Ok(n)
    }

    /// The game a challenge of the caller's made, if taken.
    pub async fn outcome(&self, session: &str, id: &str) -> Result<Option<String>, GameError> {
        if !super::valid_id(id) {
            return Err(GameError::NoGame);
        }
        match self
            .0
            .store
            .challenge(id.to_string())
            .await
            .map_err(store_error)?
        {
            Some(c) if c.session == session => Ok(c.game),
            _ => Err(GameError::NoGame),
        }
    }

    /// Refuses a player who reached the abort limit ([`ABORT_LIMIT`]).
    async fn check_aborts(&self, me: &StoredPlayer) -> Result<(), GameError> {
        let now = self.now();
        let recent = self
            .0
            .store
            .aborts_since(me.id.clone(), now - ABORT_WINDOW_MS)
            .await
            .map_err(store_error)?;
        if recent.len() < ABORT_LIMIT {
            return Ok(());
        }
        // Back once all but ABORT_LIMIT - 1 of them are out of the window.
        let back = recent[recent.len() - ABORT_LIMIT] + ABORT_WINDOW_MS;
        Err(GameError::TooManyAborts {
            limit: ABORT_LIMIT,
            minutes: (back - now + 59_999) / 60_000,
        })
    }

    /// The player's rating as shown, for a rated challenge.
    async fn rating_shown(
        &self,
        rated: bool,
        me: &StoredPlayer,
        clock: Option<TimeControl>,
    ) -> Result<Option<String>, GameError> {
        match (rated, clock) {
            (true, Some(tc)) => Ok(Some(self.0.ratings.shown(&me.id, tc).await?)),
            _ => Ok(None),
        }
    }

    fn paired(&self, game: String, players: [String; 2]) {
        tracing::info!("lobby: game {game} paired");
        let _ = self.0.tx.send(LobbyEvent::Paired {
            game: game.clone(),
            players: players.clone(),
        });
        self.0
            .store
            .announce_lobby(format!("paired {game} {} {}", players[0], players[1]));
        self.changed();
    }

    /// The game of challenge `c` accepted by `me` (session `session`): the
    /// creator's colour if he chose one, else drawn; both seats taken, the
    /// game begun; and each session's seat.
    fn game_for(
        &self,
        c: &StoredChallenge,
        session: &str,
        me: &StoredPlayer,
        my_rating: Option<String>,
    ) -> (GameInfo, Vec<(String, String)>) {
        let creator = Party {
            player: c.player.clone(),
            name: c.name.clone(),
            rating: c.rating.clone(),
            bot: false,
        };
        let other = Party {
            player: me.id.clone(),
            name: me.name.clone(),
            rating: my_rating,
            bot: false,
        };
        let terms = Terms {
            rules: c.rules,
            clock: c.clock,
            colour: c.colour,
            rated: c.rated,
        };
        let (mut info, [creator_token, other_token]) =
            game_between(&terms, creator, other, self.now());
        info.lobby = true;
        let seats = vec![
            (c.session.clone(), creator_token),
            (session.to_string(), other_token),
        ];
        (info, seats)
    }
}

/// One side of a game between two people made by a challenge.
#[derive(Debug, Clone)]
pub(crate) struct Party {
    /// His public id.
    pub player: String,
    /// His display name.
    pub name: String,
    /// His rating in the game's pace as shown (rated games).
    pub rating: Option<String>,
    /// A BOT account.
    pub bot: bool,
}

/// What a challenge asks for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Terms {
    /// The rules.
    pub rules: Rules,
    /// The clock.
    pub clock: Option<TimeControl>,
    /// The creator's colour (`None`: drawn).
    pub colour: Option<Player>,
    /// Rated.
    pub rated: bool,
}

/// The game of a challenge accepted, begun at `now`, between its
/// `creator` (his colour if he chose one, else drawn) and `other`: every
/// game between two people a challenge makes (the lobby's, the Bot
/// API's) is made here. Its seats' tokens, the creator's first.
pub(crate) fn game_between(
    terms: &Terms,
    creator_party: Party,
    other: Party,
    now: i64,
) -> (GameInfo, [String; 2]) {
    let creator = terms.colour.unwrap_or_else(|| {
        if rand::thread_rng().gen() {
            Player::A
        } else {
            Player::B
        }
    });
    let mut info = GameInfo::new(Mode::Friend, terms.rules, now);
    let [ta, tb] = info.seat_both();
    let (c, o) = (creator.index(), creator.opponent().index());
    info.creator = Seat::of(creator);
    info.names[c] = Some(creator_party.name);
    info.names[o] = Some(other.name);
    info.players[c] = Some(creator_party.player);
    info.players[o] = Some(other.player);
    if terms.rated {
        info.ratings[c] = creator_party.rating;
        info.ratings[o] = other.rating;
    }
    info.bots[c] = creator_party.bot;
    info.bots[o] = other.bot;
    info.clock = terms.clock;
    info.rated = terms.rated;
    info.begin(now);
    let tokens = if creator == Player::A {
        [ta, tb]
    } else {
        [tb, ta]
    };
    (info, tokens)
}

/// A BOT never seeks, posts nor accepts in the lobby (issue 29): it is
/// challenged by name, through the Bot API.
pub fn check_not_bot(me: &StoredPlayer) -> Result<(), GameError> {
    if me.bot {
        return Err(GameError::Forbidden(Said::new(
            "bot_not_here",
            "a BOT account plays only through the Bot API, never in the lobby or from a browser",
        )));
    }
    Ok(())
}

/// A rated game is between accounts, with a clock (its pace names the
/// rating).
fn check_rated(
    rated: bool,
    me: &StoredPlayer,
    clock: Option<TimeControl>,
) -> Result<(), GameError> {
    if !rated {
        return Ok(());
    }
    if !me.account {
        return Err(GameError::NeedsAccount(Said::new(
            "rated_needs_accounts",
            "rated games are between accounts: sign up or log in, or play casual",
        )));
    }
    if clock.is_none() {
        return Err(GameError::Invalid {
            field: "clock",
            said: Said::new(
                "rated_needs_clock",
                "a rated game has a clock: its pace is the rating's",
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot is written once, by the first socket to send it; the
    /// others share that text.
    #[test]
    fn a_snapshot_is_encoded_once() {
        let snapshot = Snapshot::new(LobbyView {
            paces: vec!["5+3".parse().unwrap()],
            challenges: Vec::new(),
            games: Vec::new(),
        });
        let calls = std::cell::Cell::new(0);
        let encode = |v: &LobbyView| {
            calls.set(calls.get() + 1);
            format!("{} paces", v.paces.len())
        };
        let first = snapshot.text(encode);
        let second = snapshot.text(encode);
        assert_eq!(&*first, "1 paces");
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(calls.get(), 1);
    }
}
