//! An in-memory store shared by several servers of one test, with the
//! semantics the `Store` trait asks of a store shared by several servers
//! (a conflict per ply, takebacks and resignations checked where the game
//! stands, notices to the other servers, leased AI claims): the domain's
//! side of the coordination, tested without a database.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gore_core::{Outcome, Player};
use gore_server::domain::{GameInfo, Seat, Status};
use gore_server::store::{
    At, ChatStore, GameChange, GameStore, HistoryPoint, LobbyStore, Notice, Ranked, RatingStore,
    RatingUpdate, ServerStore, SessionStore, Store, StoreError, StoreFuture, StoredAccount,
    StoredAction, StoredChallenge, StoredGame, StoredPlayer, StoredRating,
};
use gore_server::AppState;
use tokio::sync::broadcast;

use super::{config_in, Server};

#[derive(Default)]
pub struct Data {
    pub games: HashMap<String, StoredGame>,
    pub sessions: HashMap<(String, String), String>,
    pub claims: HashMap<(String, u32), (usize, Instant)>,
    pub players: HashMap<String, StoredPlayer>,
    pub challenges: HashMap<String, (StoredChallenge, i64)>,
    pub accounts: HashMap<String, StoredAccount>,
    pub account_keys: HashMap<String, String>,
    pub account_sessions: HashMap<String, String>,
    /// The sessions issued and not ended.
    pub issued: HashSet<String>,
    /// The accounts' seats: (account, game) → token.
    pub account_seats: HashMap<(String, String), String>,
    pub ratings: HashMap<(String, String), StoredRating>,
    pub history: Vec<(String, HistoryPoint)>,
    pub chat: HashMap<String, Vec<gore_server::store::ChatLine>>,
    pub watchers: HashMap<(String, String), (u32, i64)>,
    /// Each server's last heartbeat.
    pub servers: HashMap<String, i64>,
    /// The server each game points at.
    pub game_server: HashMap<String, String>,
    /// (player, game) → when he aborted it.
    pub aborts: HashMap<(String, String), i64>,
    /// session → when its player was made or renamed.
    pub player_made: HashMap<String, i64>,
}

/// One database, several handles on it (one per server).
#[derive(Clone)]
pub struct Shared {
    pub data: Arc<Mutex<Data>>,
    /// Every change, with the handle that made it.
    pub changes: broadcast::Sender<(usize, Notice)>,
}

pub struct Handle {
    shared: Shared,
    me: usize,
}

impl Shared {
    pub fn new() -> Shared {
        Shared {
            data: Arc::default(),
            changes: broadcast::channel(1024).0,
        }
    }

    pub fn handle(&self, me: usize) -> Arc<dyn Store> {
        Arc::new(Handle {
            shared: self.clone(),
            me,
        })
    }
}

impl Handle {
    fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Data) -> Result<(T, Option<(String, u32)>), StoreError>,
    ) -> StoreFuture<T> {
        let r = f(&mut self.shared.data.lock().unwrap());
        if let Ok((_, Some((game, ply)))) = &r {
            let _ = self.shared.changes.send((
                self.me,
                Notice::Changed {
                    game: game.clone(),
                    ply: *ply,
                },
            ));
        }
        Box::pin(async move { r.map(|(v, _)| v) })
    }
}

/// Remembers a seat: the session's account's if it is logged in.
fn remember(d: &mut Data, session: String, game: String, token: String) {
    match d.account_sessions.get(&session) {
        Some(a) => d.account_seats.insert((a.clone(), game), token),
        None => d.sessions.insert((session, game), token),
    };
}

/// Ends a session: its own seats and its log-in go.
fn end_session(d: &mut Data, session: &str) {
    d.sessions.retain(|(s, _), _| s != session);
    d.account_sessions.remove(session);
    d.issued.remove(session);
}

/// Gives the session's own seats to the account (a seat it holds in a
/// game stays), then ends the session.
fn end_into_account(d: &mut Data, from: &str, account: &str) {
    let moved: Vec<(String, String)> = d
        .sessions
        .iter()
        .filter(|((s, _), _)| s == from)
        .map(|((_, g), t)| (g.clone(), t.clone()))
        .collect();
    for (game, token) in moved {
        d.account_seats
            .entry((account.to_string(), game))
            .or_insert(token);
    }
    end_session(d, from);
}

/// Issues a session logged in to `account`.
fn start_logged_in(d: &mut Data, session: String, account: String) {
    d.issued.insert(session.clone());
    d.account_sessions.insert(session, account);
}

fn ply_of(g: &StoredGame) -> u32 {
    g.actions.len() as u32
}

impl GameStore for Handle {
    fn create_game(&self, info: GameInfo, rematch_of: Option<String>) -> StoreFuture<()> {
        self.write(move |d| {
            if d.games.contains_key(&info.id) {
                return Err(StoreError::Conflict);
            }
            let old = rematch_of.and_then(|old| {
                let g = d.games.get_mut(&old)?;
                g.info.rematch = Some(info.id.clone());
                Some((old, ply_of(g)))
            });
            d.games.insert(
                info.id.clone(),
                StoredGame {
                    info,
                    actions: Vec::new(),
                },
            );
            Ok(((), old))
        })
    }

    fn load_game(&self, id: String) -> StoreFuture<Option<StoredGame>> {
        let g = self.shared.data.lock().unwrap().games.get(&id).cloned();
        Box::pin(async move { Ok(g) })
    }

    fn append_action(
        &self,
        id: String,
        takebacks: u32,
        a: StoredAction,
        e: Option<Outcome>,
        deadline: Option<i64>,
    ) -> StoreFuture<()> {
        self.write(move |d| {
            let g = d
                .games
                .get_mut(&id)
                .ok_or(StoreError::Other("no game".into()))?;
            if a.ply as usize != g.actions.len() + 1
                || g.info.takebacks != takebacks
                || g.info.status != Status::Playing
            {
                return Err(StoreError::Conflict);
            }
            g.actions.push(a);
            g.info.takeback = None;
            g.info.deadline = deadline;
            if e.is_some() {
                g.info.status = Status::Over;
                g.info.deadline = None;
            }
            Ok(((), Some((id, ply_of(g)))))
        })
    }

    fn change_game(&self, id: String, at: At, change: GameChange, _now: i64) -> StoreFuture<()> {
        self.write(move |d| {
            let g = d
                .games
                .get_mut(&id)
                .ok_or(StoreError::Other("no game".into()))?;
            if ply_of(g) != at.ply
                || g.info.takebacks != at.takebacks
                || g.info.status != Status::Playing
            {
                return Err(StoreError::Conflict);
            }
            match change {
                GameChange::Forfeit { forfeit, .. } => {
                    g.info.status = Status::Over;
                    g.info.forfeit = Some(forfeit);
                    g.info.takeback = None;
                    g.info.deadline = None;
                }
                GameChange::TakeBack { to, deadline } => {
                    g.info.deadline = deadline;
                    g.actions.truncate(to as usize);
                    g.info.takebacks += 1;
                    g.info.takeback = None;
                    d.claims.retain(|(game, ply), _| *game != id || *ply < to);
                }
                GameChange::Request(who) => g.info.takeback = who,
                GameChange::Credit { credits, deadline } => {
                    g.info.credits = credits;
                    g.info.deadline = deadline;
                }
            }
            let g = &d.games[&id];
            Ok(((), Some((id.clone(), ply_of(g)))))
        })
    }

    fn claim_invite(
        &self,
        id: String,
        code: String,
        seat: Player,
        claim: gore_server::store::SeatClaim,
    ) -> StoreFuture<bool> {
        self.write(move |d| {
            let g = d
                .games
                .get_mut(&id)
                .ok_or(StoreError::Other("no game".into()))?;
            if g.info.invite.as_deref() != Some(code.as_str()) || g.info.status != Status::Waiting {
                return Ok((false, None));
            }
            g.info.invite = None;
            g.info.tokens.set(Seat::of(seat), Some(claim.token));
            g.info.status = Status::Playing;
            g.info.started_at = Some(claim.now);
            g.info.deadline = claim.deadline;
            g.info.names[seat.index()] = claim.name;
            Ok((true, Some((id, ply_of(g)))))
        })
    }

    fn set_device(&self, id: String, seat: Seat, code: Option<String>) -> StoreFuture<()> {
        self.write(move |d| {
            let g = d
                .games
                .get_mut(&id)
                .ok_or(StoreError::Other("no game".into()))?;
            g.info.devices.set(seat, code);
            Ok(((), Some((id, ply_of(g)))))
        })
    }

    fn record_abort(&self, player: String, game: String, at: i64) -> StoreFuture<()> {
        self.write(move |d| {
            d.aborts.entry((player, game)).or_insert(at);
            Ok(((), None))
        })
    }

    fn aborts_since(&self, player: String, since: i64) -> StoreFuture<Vec<i64>> {
        let d = self.shared.data.lock().unwrap();
        let mut v: Vec<i64> = d
            .aborts
            .iter()
            .filter(|((p, _), &at)| *p == player && at > since)
            .map(|(_, &at)| at)
            .collect();
        v.sort();
        Box::pin(async move { Ok(v) })
    }

    fn player_games(
        &self,
        player: String,
        limit: u32,
    ) -> StoreFuture<Vec<(GameInfo, Option<String>)>> {
        let d = self.shared.data.lock().unwrap();
        let mut v: Vec<(GameInfo, Option<String>)> = d
            .games
            .values()
            .filter(|g| {
                g.info
                    .players
                    .iter()
                    .any(|p| p.as_deref() == Some(player.as_str()))
            })
            .map(|g| (g.info.clone(), None))
            .collect();
        v.sort_by_key(|(g, _)| std::cmp::Reverse(g.created_at));
        v.truncate(limit as usize);
        Box::pin(async move { Ok(v) })
    }

    fn playing_now(&self, limit: u32) -> StoreFuture<Vec<GameInfo>> {
        let mut v: Vec<GameInfo> = self
            .shared
            .data
            .lock()
            .unwrap()
            .games
            .values()
            .filter(|g| {
                g.info.mode == gore_server::Mode::Friend && g.info.status == Status::Playing
            })
            .map(|g| g.info.clone())
            .collect();
        v.sort_by_key(|g| std::cmp::Reverse(g.started_at));
        v.truncate(limit as usize);
        Box::pin(async move { Ok(v) })
    }

    fn set_away(&self, id: String, seat: Player, since: Option<i64>) -> StoreFuture<()> {
        self.write(move |d| {
            let g = d
                .games
                .get_mut(&id)
                .ok_or(StoreError::Other("no game".into()))?;
            g.info.away[seat.index()] = since;
            Ok(((), Some((id, ply_of(g)))))
        })
    }

    fn due_games(&self, now: i64, limit: u32) -> StoreFuture<Vec<String>> {
        let mut due: Vec<(i64, String)> = self
            .shared
            .data
            .lock()
            .unwrap()
            .games
            .values()
            .filter(|g| g.info.status == Status::Playing)
            .filter_map(|g| {
                g.info
                    .deadline
                    .filter(|&d| d <= now)
                    .map(|d| (d, g.info.id.clone()))
            })
            .collect();
        due.sort();
        due.truncate(limit as usize);
        Box::pin(async move { Ok(due.into_iter().map(|(_, id)| id).collect()) })
    }

    fn remember_seat(&self, session: String, id: String, token: String) -> StoreFuture<()> {
        self.write(move |d| {
            remember(d, session, id, token);
            Ok(((), None))
        })
    }

    fn session_token(&self, session: String, id: String) -> StoreFuture<Option<String>> {
        let d = self.shared.data.lock().unwrap();
        let t = d
            .account_sessions
            .get(&session)
            .and_then(|a| d.account_seats.get(&(a.clone(), id.clone())))
            .or_else(|| d.sessions.get(&(session, id)))
            .cloned();
        Box::pin(async move { Ok(t) })
    }

    fn active_ai_games(&self, _limit: u32) -> StoreFuture<Vec<String>> {
        let ids = self
            .shared
            .data
            .lock()
            .unwrap()
            .games
            .values()
            .filter(|g| g.info.ai_seat.is_some() && g.info.status == Status::Playing)
            .map(|g| g.info.id.clone())
            .collect();
        Box::pin(async move { Ok(ids) })
    }
}

impl SessionStore for Handle {
    fn create_session(&self, session: String, _now: i64) -> StoreFuture<()> {
        self.write(move |d| {
            d.issued.insert(session);
            Ok(((), None))
        })
    }

    fn session_exists(&self, session: String) -> StoreFuture<bool> {
        let e = self.shared.data.lock().unwrap().issued.contains(&session);
        Box::pin(async move { Ok(e) })
    }

    fn player(&self, session: String) -> StoreFuture<Option<StoredPlayer>> {
        let d = self.shared.data.lock().unwrap();
        let p = match d
            .account_sessions
            .get(&session)
            .and_then(|a| d.accounts.get(a))
        {
            Some(a) => Some(StoredPlayer {
                id: a.id.clone(),
                name: a.username.clone(),
                account: true,
            }),
            None => d.players.get(&session).cloned(),
        };
        Box::pin(async move { Ok(p) })
    }

    fn account_by_key(&self, key: String) -> StoreFuture<Option<StoredAccount>> {
        let d = self.shared.data.lock().unwrap();
        let a = d
            .account_keys
            .get(&key)
            .and_then(|id| d.accounts.get(id))
            .cloned();
        Box::pin(async move { Ok(a) })
    }

    fn keys_taken(&self, keys: Vec<String>) -> StoreFuture<bool> {
        let d = self.shared.data.lock().unwrap();
        let t = keys.iter().any(|k| d.account_keys.contains_key(k));
        Box::pin(async move { Ok(t) })
    }

    fn create_account(
        &self,
        a: StoredAccount,
        keys: Vec<String>,
        from: String,
        to: String,
        _now: i64,
    ) -> StoreFuture<bool> {
        self.write(move |d| {
            if keys.iter().any(|k| d.account_keys.contains_key(k)) {
                return Ok((false, None));
            }
            for k in keys {
                d.account_keys.insert(k, a.id.clone());
            }
            if let Some(mut p) = d.players.remove(&from) {
                p.name = a.username.clone();
                d.players.insert(to.clone(), p);
            }
            end_into_account(d, &from, &a.id);
            start_logged_in(d, to, a.id.clone());
            d.accounts.insert(a.id.clone(), a);
            Ok((true, None))
        })
    }

    fn forget_idle_players(&self, before: i64) -> StoreFuture<u64> {
        self.write(move |d| {
            let idle: Vec<String> = d
                .players
                .iter()
                .filter(|(session, p)| {
                    d.player_made.get(*session).is_some_and(|&at| at <= before)
                        && !d.account_sessions.contains_key(*session)
                        && !d.sessions.keys().any(|(s, _)| s == *session)
                        && !d
                            .games
                            .values()
                            .any(|g| g.info.players.iter().any(|q| q.as_deref() == Some(&p.id)))
                        && !d.challenges.values().any(|(c, _)| c.session == **session)
                })
                .map(|(s, _)| s.clone())
                .collect();
            for s in &idle {
                d.players.remove(s);
                d.player_made.remove(s);
            }
            Ok((idle.len() as u64, None))
        })
    }

    fn log_in(&self, account: String, from: String, to: String, _now: i64) -> StoreFuture<()> {
        self.write(move |d| {
            end_into_account(d, &from, &account);
            start_logged_in(d, to, account);
            Ok(((), None))
        })
    }

    fn log_out(&self, session: String) -> StoreFuture<()> {
        self.write(move |d| {
            end_session(d, &session);
            Ok(((), None))
        })
    }

    fn set_password(
        &self,
        account: String,
        hash: String,
        from: String,
        to: String,
        _now: i64,
    ) -> StoreFuture<()> {
        self.write(move |d| {
            if let Some(a) = d.accounts.get_mut(&account) {
                a.password = hash;
            }
            let ended: Vec<String> = d
                .account_sessions
                .iter()
                .filter(|(_, a)| **a == account)
                .map(|(s, _)| s.clone())
                .chain([from])
                .collect();
            for s in &ended {
                end_session(d, s);
            }
            start_logged_in(d, to, account);
            Ok(((), None))
        })
    }

    fn create_player(
        &self,
        session: String,
        p: StoredPlayer,
        now: i64,
    ) -> StoreFuture<StoredPlayer> {
        self.write(move |d| {
            d.player_made.entry(session.clone()).or_insert(now);
            Ok((d.players.entry(session).or_insert(p).clone(), None))
        })
    }

    fn set_player_name(&self, session: String, name: String, now: i64) -> StoreFuture<()> {
        self.write(move |d| {
            if let Some(p) = d.players.get_mut(&session) {
                p.name = name;
                d.player_made.insert(session, now);
            }
            Ok(((), None))
        })
    }
}

impl LobbyStore for Handle {
    fn post_challenge(&self, c: StoredChallenge) -> StoreFuture<()> {
        self.write(move |d| {
            if d.challenges.contains_key(&c.id) {
                return Err(StoreError::Conflict);
            }
            let seen = c.created_at;
            d.challenges.insert(c.id.clone(), (c, seen));
            Ok(((), None))
        })
    }

    fn cancel_challenges(&self, session: String, id: Option<String>) -> StoreFuture<u64> {
        self.write(move |d| {
            let before = d.challenges.len();
            d.challenges.retain(|k, (c, _)| {
                !(c.session == session && c.game.is_none() && id.as_ref().is_none_or(|i| i == k))
            });
            Ok(((before - d.challenges.len()) as u64, None))
        })
    }

    fn open_challenges(&self, limit: u32) -> StoreFuture<Vec<StoredChallenge>> {
        let mut v: Vec<StoredChallenge> = self
            .shared
            .data
            .lock()
            .unwrap()
            .challenges
            .values()
            .filter(|(c, _)| c.game.is_none())
            .map(|(c, _)| c.clone())
            .collect();
        v.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        v.truncate(limit as usize);
        Box::pin(async move { Ok(v) })
    }

    fn challenge(&self, id: String) -> StoreFuture<Option<StoredChallenge>> {
        let c = self
            .shared
            .data
            .lock()
            .unwrap()
            .challenges
            .get(&id)
            .map(|(c, _)| c.clone());
        Box::pin(async move { Ok(c) })
    }

    fn find_matches(&self, seek: StoredChallenge, limit: u32) -> StoreFuture<Vec<StoredChallenge>> {
        let d = self.shared.data.lock().unwrap();
        let mut m: Vec<StoredChallenge> = d
            .challenges
            .values()
            .map(|(c, _)| c)
            .filter(|c| {
                c.game.is_none()
                    && c.quick
                    && c.clock == seek.clock
                    && c.rules == seek.rules
                    && c.rated == seek.rated
                    && c.player != seek.player
            })
            .cloned()
            .collect();
        m.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        m.truncate(limit as usize);
        Box::pin(async move { Ok(m) })
    }

    fn pair(
        &self,
        taken: Vec<String>,
        game: GameInfo,
        seats: Vec<(String, String)>,
    ) -> StoreFuture<bool> {
        self.write(move |d| {
            let open = taken
                .iter()
                .all(|id| d.challenges.get(id).is_some_and(|(c, _)| c.game.is_none()));
            if !open {
                return Ok((false, None));
            }
            for id in &taken {
                if let Some((c, _)) = d.challenges.get_mut(id) {
                    c.game = Some(game.id.clone());
                }
            }
            for (session, token) in seats {
                remember(d, session, game.id.clone(), token);
            }
            let id = game.id.clone();
            d.games.insert(
                id.clone(),
                StoredGame {
                    info: game,
                    actions: Vec::new(),
                },
            );
            Ok((true, Some((id, 0))))
        })
    }

    fn touch_challenges(&self, sessions: Vec<String>, now: i64) -> StoreFuture<()> {
        self.write(move |d| {
            for (c, seen) in d.challenges.values_mut() {
                if sessions.contains(&c.session) {
                    *seen = now;
                }
            }
            Ok(((), None))
        })
    }

    fn expire_challenges(&self, unseen_before: i64, taken_before: i64) -> StoreFuture<u64> {
        self.write(move |d| {
            let before = d.challenges.len();
            d.challenges.retain(|_, (c, seen)| match c.game {
                None => *seen >= unseen_before,
                Some(_) => c.created_at >= taken_before,
            });
            Ok(((before - d.challenges.len()) as u64, None))
        })
    }

    fn announce_lobby(&self, event: String) {
        let _ = self.shared.changes.send((self.me, Notice::Lobby(event)));
    }
}

impl RatingStore for Handle {
    fn ratings_of(&self, account: String) -> StoreFuture<Vec<StoredRating>> {
        let d = self.shared.data.lock().unwrap();
        let mut v: Vec<StoredRating> = d
            .ratings
            .iter()
            .filter(|((a, _), _)| *a == account)
            .map(|(_, r)| r.clone())
            .collect();
        v.sort_by(|a, b| a.pace.cmp(&b.pace));
        Box::pin(async move { Ok(v) })
    }

    fn rate_game(&self, game: String, updates: Vec<RatingUpdate>, now: i64) -> StoreFuture<bool> {
        self.write(move |d| {
            for u in &updates {
                let have = d
                    .ratings
                    .get(&(u.account.clone(), u.after.pace.clone()))
                    .map_or(0, |r| r.games);
                let rated = d
                    .history
                    .iter()
                    .any(|(a, h)| *a == u.account && h.game == game);
                if have != u.before || rated {
                    return Ok((false, None));
                }
            }
            for u in updates {
                d.history.push((
                    u.account.clone(),
                    HistoryPoint {
                        game: game.clone(),
                        pace: u.after.pace.clone(),
                        rating: u.after.rating,
                        deviation: u.after.deviation,
                        at: now,
                    },
                ));
                d.ratings.insert((u.account, u.after.pace.clone()), u.after);
            }
            Ok((true, None))
        })
    }

    fn rating_history(&self, account: String) -> StoreFuture<Vec<HistoryPoint>> {
        let d = self.shared.data.lock().unwrap();
        let v: Vec<HistoryPoint> = d
            .history
            .iter()
            .filter(|(a, _)| *a == account)
            .map(|(_, h)| h.clone())
            .collect();
        Box::pin(async move { Ok(v) })
    }

    fn leaderboard(&self, pace: String, limit: u32) -> StoreFuture<Vec<Ranked>> {
        let d = self.shared.data.lock().unwrap();
        let mut v: Vec<Ranked> = d
            .ratings
            .iter()
            .filter(|((_, p), _)| *p == pace)
            .filter_map(|((a, _), r)| {
                d.accounts.get(a).map(|acc| Ranked {
                    id: a.clone(),
                    username: acc.username.clone(),
                    rating: r.clone(),
                })
            })
            .collect();
        v.sort_by(|a, b| b.rating.rating.total_cmp(&a.rating.rating));
        v.truncate(limit as usize);
        Box::pin(async move { Ok(v) })
    }

    fn unrated_games(&self, limit: u32) -> StoreFuture<Vec<String>> {
        let d = self.shared.data.lock().unwrap();
        let mut v: Vec<String> = d
            .games
            .values()
            .filter(|g| {
                g.info.rated
                    && g.info.status == Status::Over
                    && g.info.forfeit != Some(gore_core::Forfeit::Abort)
                    && g.info.players[0] != g.info.players[1]
                    && !d.history.iter().any(|(_, h)| h.game == g.info.id)
            })
            .map(|g| g.info.id.clone())
            .collect();
        v.truncate(limit as usize);
        Box::pin(async move { Ok(v) })
    }
}

impl ChatStore for Handle {
    fn post_chat(
        &self,
        game: String,
        player: Player,
        text: String,
        at: i64,
    ) -> StoreFuture<gore_server::store::ChatLine> {
        self.write(move |d| {
            let lines = d.chat.entry(game).or_default();
            let line = gore_server::store::ChatLine {
                n: lines.len() as u32 + 1,
                from: player,
                text,
                at,
            };
            lines.push(line.clone());
            Ok((line, None))
        })
    }

    fn chat_after(
        &self,
        game: String,
        after: u32,
    ) -> StoreFuture<Vec<gore_server::store::ChatLine>> {
        let d = self.shared.data.lock().unwrap();
        let v: Vec<_> = d
            .chat
            .get(&game)
            .map(|l| l.iter().filter(|c| c.n > after).cloned().collect())
            .unwrap_or_default();
        Box::pin(async move { Ok(v) })
    }

    fn report_chat(&self, _game: String, _n: u32, _reporter: Player, _at: i64) -> StoreFuture<()> {
        Box::pin(async { Ok(()) })
    }
}

impl ServerStore for Handle {
    fn heartbeat(
        &self,
        server: String,
        now: i64,
        games: Vec<String>,
        dead_before: i64,
    ) -> StoreFuture<()> {
        self.write(move |d| {
            d.servers.insert(server.clone(), now);
            for g in games {
                let orphan = match d.game_server.get(&g) {
                    None => true,
                    Some(s) => d.servers.get(s).is_none_or(|&at| at < dead_before),
                };
                if orphan && d.games.contains_key(&g) {
                    d.game_server.insert(g, server.clone());
                }
            }
            Ok(((), None))
        })
    }

    fn take_over(&self, id: String, server: String, dead_before: i64) -> StoreFuture<Option<i64>> {
        self.write(move |d| {
            if !d.games.contains_key(&id) {
                return Ok((None, None));
            }
            let credit = match d.game_server.get(&id) {
                Some(w) if *w == server => return Ok((None, None)),
                Some(w) => match d.servers.get(w) {
                    Some(&at) if at >= dead_before => return Ok((None, None)),
                    at => at.copied(),
                },
                None => None,
            };
            d.game_server.insert(id, server);
            Ok((credit, None))
        })
    }

    fn set_watchers(
        &self,
        server: String,
        counts: Vec<(String, u32)>,
        now: i64,
    ) -> StoreFuture<()> {
        self.write(move |d| {
            d.watchers.retain(|(_, s), _| *s != server);
            for (g, n) in counts {
                d.watchers.insert((g, server.clone()), (n, now));
            }
            Ok(((), None))
        })
    }

    fn watchers(&self, ids: Vec<String>, since: i64) -> StoreFuture<Vec<(String, u32)>> {
        let d = self.shared.data.lock().unwrap();
        let v: Vec<(String, u32)> = ids
            .into_iter()
            .filter_map(|id| {
                let n: u32 = d
                    .watchers
                    .iter()
                    .filter(|((g, _), (_, at))| *g == id && *at > since)
                    .map(|(_, (n, _))| *n)
                    .sum();
                (n > 0).then_some((id, n))
            })
            .collect();
        Box::pin(async move { Ok(v) })
    }

    fn failure(&self) -> Option<String> {
        None
    }

    fn latest_plies(&self, ids: Vec<String>) -> StoreFuture<Vec<(String, u32)>> {
        let d = self.shared.data.lock().unwrap();
        let plies = ids
            .into_iter()
            .filter_map(|id| {
                let n = d.games.get(&id)?.actions.len() as u32;
                (n > 0).then_some((id, n))
            })
            .collect();
        Box::pin(async move { Ok(plies) })
    }

    fn notices(&self) -> Option<broadcast::Receiver<Notice>> {
        let (tx, rx) = broadcast::channel(1024);
        let mut all = self.shared.changes.subscribe();
        let me = self.me;
        tokio::spawn(async move {
            while let Ok((from, n)) = all.recv().await {
                if from != me && tx.send(n).is_err() {
                    return;
                }
            }
        });
        Some(rx)
    }

    fn claim_ai_turn(&self, id: String, ply: u32, lease: Duration) -> StoreFuture<bool> {
        let mut d = self.shared.data.lock().unwrap();
        let now = Instant::now();
        let ok = match d.claims.get(&(id.clone(), ply)) {
            Some(&(who, until)) if who != self.me && until > now => false,
            _ => {
                d.claims.insert((id, ply), (self.me, now + lease));
                true
            }
        };
        Box::pin(async move { Ok(ok) })
    }
}

/// A server of this test on the shared store, as handle `me`.
pub async fn server_on(shared: &Shared, me: usize) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(&dir);
    let state = AppState::with_store(config, shared.handle(me)).unwrap();
    Server::serve(dir, state).await
}
