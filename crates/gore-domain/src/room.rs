//! One game in memory: its facts, the rules' [`Game`], the log shown to
//! clients, and the channel that carries every change to the sockets.
//! What a room shows (its states and updates) is in [`state`], in the
//! domain's terms: the edge chooses how they are written, and the room
//! keeps each text it is given so that it is written once per change and
//! audience.

mod state;

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use gore_core::{Action, Effect, Game, Hole, HoleSet, Player, Position, Sowing};
use tokio::sync::broadcast;

use super::clock::{clocks_with, Clock, Clocks, Due, TimeControl};
use super::{GameError, GameInfo, Mode, Ply, Said, Seat, Status};
use crate::storage::{StoredAction, StoredGame};
use gore_core::Forfeit;
pub use state::{
    ClockState, GameResult, GameState, GameUpdate, HeadState, Played, Preview, SeatState,
};

/// One change of a game, for every socket that watches it: the update
/// with the actor's legal actions, and without, each encoded at most once
/// (by the first socket that sends it, with the edge's encoder) and then
/// shared by every socket of its audience.
#[derive(Debug)]
pub struct Change {
    /// The ply the change follows.
    pub since: Ply,
    /// The ply after it.
    pub ply: Ply,
    /// The room's count of changes after this one: a socket whose state
    /// is as new ignores it.
    pub serial: u64,
    /// The log was shortened (a takeback) or rebuilt: every socket is
    /// sent the whole state, never an update.
    pub whole: bool,
    actor: Option<Player>,
    /// The update as the actor sees it, and as everyone else does (`None`
    /// for a whole change: nothing to send but the state).
    updates: Option<(GameUpdate, GameUpdate)>,
    /// Their texts, once encoded: the actor's, the others'.
    texts: [OnceLock<Arc<str>>; 2],
}

impl Change {
    /// The update for a socket holding `seat` (`None` for a whole change).
    pub fn update_for(&self, seat: Option<Seat>) -> Option<&GameUpdate> {
        let (mine, others) = self.updates.as_ref()?;
        Some(if self.is_actor(seat) { mine } else { others })
    }

    fn is_actor(&self, seat: Option<Seat>) -> bool {
        matches!((seat, self.actor), (Some(s), Some(p)) if s.acts_for(p))
    }

    /// The update for a socket holding `seat`, as `encode` writes it:
    /// encoded by the first socket of its audience to ask, then shared
    /// (every socket passes the same encoder: the edge's). Empty for a
    /// whole change.
    pub fn text_for(
        &self,
        seat: Option<Seat>,
        encode: impl FnOnce(&GameUpdate) -> String,
    ) -> Arc<str> {
        let Some(update) = self.update_for(seat) else {
            return Arc::from("");
        };
        // With no actor both audiences see the same update: one text.
        let i = usize::from(!(self.actor.is_some() && self.is_actor(seat)));
        self.texts[i]
            .get_or_init(|| Arc::from(encode(update)))
            .clone()
    }
}

/// One game in memory.
pub struct Room {
    /// Its facts (kept equal to what was committed).
    pub info: GameInfo,
    /// The rules' game.
    pub game: Game,
    log: Vec<Played>,
    tx: broadcast::Sender<Arc<Change>>,
    /// An AI task owns this game's AI turns.
    pub ai_busy: bool,
    /// Whose the AI's searches count as (crate::ai's cap per client): the
    /// address that created the game or last acted in it, if known.
    pub ai_client: Option<crate::ai::ClientKey>,
    /// Dropped from memory after a store failure: the next request loads
    /// the truth again.
    pub dead: bool,
    /// The last request that touched it.
    pub touched: Instant,
    /// The whole state as a spectator sees it, encoded, and the change it
    /// follows: a crowd of spectators arriving costs one encoding per
    /// change.
    spectator: std::sync::Mutex<Option<(u64, Arc<str>)>>,
    /// Changes sent so far (the `serial` of the last [`Change`]).
    serial: u64,
    /// When each action was committed (Unix ms), in order: the clocks
    /// count from them.
    times: Vec<i64>,
    /// The server's time (set by the service: the system's, or a test's).
    pub clock: Clock,
    /// The chat's messages, to the seated sockets.
    chat_tx: broadcast::Sender<Arc<super::ChatLine>>,
    /// The last chat message sent to the sockets here.
    pub chat_seen: u32,
    /// Sockets of A's and B's seats open on this server.
    pub present: [usize; 2],
    /// Spectators' sockets open on this server.
    pub spectators: usize,
    /// One clone per spectator's socket admitted here (its count is the
    /// number, under the room's lock): the per-game cap is theirs alone.
    spectator_slots: Arc<()>,
    /// A rated game's rating changes once it is rated (A's, B's): read
    /// from the store when the room is loaded, set when the game is rated.
    pub rating_changes: [Option<crate::rating::RatingChange>; 2],
}

/// A spectator's place on a game, held by his socket until it closes.
// Never read: its clone is what counts (dropped, the place is free).
pub struct SpectatorSlot(#[allow(dead_code)] Arc<()>);

/// In a timed game, a player disconnected this long may be claimed
/// against (RULES.md, "Leaving": 60 s).
pub const LEAVE_TIMED_MS: i64 = 60_000;
/// In an untimed game between people, a player who has not acted for this
/// long may be claimed against (3 days).
pub const LEAVE_UNTIMED_MS: i64 = 3 * 86_400_000;
/// A sign of life of a player without a socket moves his away time only
/// when it is at least this much later than the one recorded: a flood of
/// requests costs at most a write a second, and a claim can come at most
/// this much early.
pub const SIGN_OF_LIFE_MS: i64 = 1_000;

/// The log entry of the action just played on `game`, which did `effect`.
fn entry_of(game: &Game, player: Player, effect: &Effect) -> Played {
    Played {
        ply: Ply::of_len(game.actions().len()),
        player,
        action: *game.actions().last().expect("an action was just played"),
        captured: effect.captures(),
        // Before the final sweep: the board the action left.
        position: *game.history().last().unwrap_or(game.position()),
        path: effect.path(),
    }
}

/// What `action`, played from `before`, did, rebuilt from what the store
/// kept (the holes it captured): no sowing again.
fn stored_effect(before: &Position, action: Action, captured: &[Hole]) -> Effect {
    Effect {
        sowing: match action {
            Action::Sow(h) => Some(Sowing::new(
                h,
                before.seeds(h),
                before.variant().skip_origin,
            )),
            _ => None,
        },
        captured: captured.iter().copied().collect::<HoleSet>(),
        seeds_captured: 0,
    }
}

impl Room {
    /// A room for a new game (no action yet).
    pub fn new(info: GameInfo, max_plies: u32) -> Room {
        let cap = effective_cap(info.rules.ply_cap, max_plies, 0);
        let game = Game::from_position(info.start, cap);
        Room::with(info, game, Vec::new(), Vec::new())
    }

    fn with(mut info: GameInfo, game: Game, log: Vec<Played>, times: Vec<i64>) -> Room {
        if game.is_over() {
            info.status = Status::Over;
        }
        Room {
            info,
            game,
            log,
            tx: broadcast::channel(64).0,
            ai_busy: false,
            ai_client: None,
            dead: false,
            touched: Instant::now(),
            spectator: std::sync::Mutex::new(None),
            serial: 0,
            times,
            clock: Clock::system(),
            chat_tx: broadcast::channel(64).0,
            chat_seen: 0,
            present: [0, 0],
            spectators: 0,
            spectator_slots: Arc::new(()),
            rating_changes: [None, None],
        }
    }

    /// Builds the room of a stored game: from the positions the store
    /// kept (no sowing again), or, for games stored before positions were
    /// kept, by replaying the actions.
    pub fn load(stored: StoredGame, max_plies: u32) -> Result<Room, String> {
        let StoredGame { info, actions } = stored;
        let cap = effective_cap(info.rules.ply_cap, max_plies, actions.len());
        for (i, a) in actions.iter().enumerate() {
            if a.ply != Ply::of_len(i + 1) {
                return Err(format!("action {} is stored as ply {}", i + 1, a.ply));
            }
        }
        let kept: Option<Vec<_>> = actions
            .iter()
            .map(|a| a.position.map(|p| (a.action, p)))
            .collect();
        let (game, log) = match kept {
            Some(steps) => {
                let game = Game::from_history(info.start, cap, steps).map_err(|e| e.to_string())?;
                let log = actions
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let before = &game.history()[i];
                        let effect = stored_effect(before, a.action, &a.captured);
                        Played {
                            ply: Ply::of_len(i + 1),
                            player: before.to_move(),
                            action: a.action,
                            captured: effect.captures(),
                            position: game.history()[i + 1],
                            path: effect.path(),
                        }
                    })
                    .collect();
                (game, log)
            }
            None => {
                let mut game = Game::from_position(info.start, cap);
                let mut log = Vec::with_capacity(actions.len());
                for a in &actions {
                    let player = game.position().to_move();
                    let played = game
                        .play(a.action)
                        .map_err(|e| format!("ply {}: {e}", a.ply))?;
                    log.push(entry_of(&game, player, &played.effect));
                }
                (game, log)
            }
        };
        let times = actions.iter().map(|a| a.at).collect();
        Ok(Room::with(info, game, log, times))
    }

    /// Takes the actions after `ply` back (an action the store refused):
    /// the game is rebuilt from the positions it went through, without
    /// sowing again; the sockets are not told (they never heard of them).
    pub fn rewind(&mut self, ply: Ply, status: Status) -> Result<(), String> {
        if ply >= self.ply() {
            return Ok(());
        }
        self.truncate(ply)?;
        self.info.status = status;
        Ok(())
    }

    /// The game and its log cut back to their first `ply` actions, rebuilt
    /// from the positions the game went through (no sowing again); the
    /// spectators' cached state goes with them.
    fn truncate(&mut self, ply: Ply) -> Result<(), String> {
        let ply = ply.index();
        let steps = self.game.actions()[..ply]
            .iter()
            .copied()
            .zip(self.game.history()[1..=ply].iter().copied());
        self.game = Game::from_history(*self.game.start(), self.game.rules().ply_cap, steps)
            .map_err(|e| e.to_string())?;
        self.log.truncate(ply);
        self.times.truncate(ply);
        *self.spectator.lock().unwrap_or_else(|e| e.into_inner()) = None;
        Ok(())
    }

    /// Takes in what another server committed: `stored` holds the game's
    /// facts and its actions after this room's (as
    /// [`GameStore::load_game_after`](crate::storage::GameStore::load_game_after)
    /// gives them), played here too (the rules check them again); then
    /// tells the sockets. `Ok(false)` when nothing changed. An `Err` means
    /// the store and the room disagree: the caller drops the room.
    pub fn catch_up(&mut self, stored: StoredGame) -> Result<bool, String> {
        let since = self.ply();
        if stored.info.takebacks != self.info.takebacks {
            return Err(format!(
                "the store's game has {} takebacks, this server's {}",
                stored.info.takebacks, self.info.takebacks
            ));
        }
        if let Some(first) = stored.actions.first() {
            if first.ply != since.next() {
                return Err(format!(
                    "the store's next action is ply {}, this server has {since}",
                    first.ply
                ));
            }
        }
        for a in &stored.actions {
            let player = self.game.position().to_move();
            let played = self
                .game
                .play(a.action)
                .map_err(|e| format!("ply {}: {e}", a.ply))?;
            self.log.push(entry_of(&self.game, player, &played.effect));
            self.times.push(a.at);
        }
        let mut info = stored.info;
        if self.game.is_over() {
            info.status = Status::Over;
            info.takeback = None;
        }
        if self.ply() == since && info == self.info {
            return Ok(false);
        }
        self.info = info;
        self.changed(since);
        Ok(true)
    }

    /// Takes in the whole game as the store has it (another server took
    /// back, so the log is not an extension of this room's): the room
    /// becomes the stored game, and every socket is sent the whole state.
    pub fn reload(&mut self, stored: StoredGame, max_plies: u32) -> Result<(), String> {
        let fresh = Room::load(stored, max_plies)?;
        self.info = fresh.info;
        self.game = fresh.game;
        self.log = fresh.log;
        self.times = fresh.times;
        self.send_whole();
        Ok(())
    }

    /// The game id.
    pub fn id(&self) -> &str {
        &self.info.id
    }

    /// The number of actions played.
    pub fn ply(&self) -> Ply {
        Ply::of_len(self.game.actions().len())
    }

    /// The seat a token holds, if any: the seat's own secret, or the
    /// secret of a device that claimed the seat's link, while the link
    /// stands ([`super::device_opens`]).
    pub fn seat_of(&self, token: &str) -> Option<Seat> {
        self.info.tokens.find(token).or_else(|| {
            Seat::ALL.into_iter().find(|&s| {
                match (self.info.tokens.get(s), self.info.devices.get(s)) {
                    (Some(secret), Some(code)) => super::device_opens(secret, code, token),
                    _ => false,
                }
            })
        })
    }

    /// Whether the game is over: on the board, or by a forfeit.
    pub fn is_over(&self) -> bool {
        self.game.is_over() || self.info.forfeit.is_some() || self.info.status == Status::Over
    }

    /// The clocks at `now` of a timed game (`None`: untimed); while it
    /// waits for the friend, the whole times, nothing running.
    pub fn clocks_at(&self, now: i64) -> Option<Clocks> {
        let to_act = (!self.is_over()).then(|| self.game.position().to_move());
        let mut c = self.clocks_after(self.ply(), to_act, now)?;
        // Lost on time: his clock shows the nothing he had left.
        if let Some(Forfeit::Time(p)) = self.info.forfeit {
            c.left[p.index()] = 0;
        }
        Some(c)
    }

    /// The clocks at `now` had the game only its first `ply` actions, with
    /// `to_act` to act.
    fn clocks_after(&self, ply: Ply, to_act: Option<Player>, now: i64) -> Option<Clocks> {
        let ply = ply.index();
        let tc = self.info.clock?;
        let Some(started) = self.info.started_at else {
            // Waiting for the friend: the whole times, nothing running or due.
            return Some(clocks_with(tc, self.info.berserk, 0, &[], None, now));
        };
        // Outages are cut out of the time line (RULES.md, "Clocks and
        // outages"): each action's time, and now, move back by the time
        // credited before them, and the deadline forward again.
        let credited = |k: usize| -> i64 {
            self.info
                .credits
                .iter()
                .filter(|&&(p, _)| p.index() < k)
                .map(|&(_, ms)| ms)
                .sum()
        };
        let played: Vec<(Player, i64)> = self
            .log
            .iter()
            .zip(&self.times)
            .take(ply)
            .enumerate()
            .map(|(i, (e, &t))| (e.player, t - credited(i + 1)))
            .collect();
        let shift = credited(ply + 1);
        let mut c = clocks_with(tc, self.info.berserk, started, &played, to_act, now - shift);
        if let Some((at, _)) = c.deadline.as_mut() {
            *at += shift;
        }
        // The running clock shows at most what its player had when his
        // period began: time credited to this very period (a gift of his
        // opponent's, RULES.md "Giving time") may raise that bound.
        if let (Some(q), Some((at, _))) = (c.running, c.deadline) {
            let now_credited = credited(ply + 1) - credited(ply);
            let i = q.index();
            c.left[i] = (at - now).clamp(0, c.left[i] + now_credited);
        }
        Some(c)
    }

    /// When the time of the player to act began to run (his opponent's
    /// last action, or the game's start), if a clock is running or a
    /// first action is due: an outage since then is credited to him.
    pub fn period_start(&self) -> Option<i64> {
        if self.info.status != Status::Playing || self.is_over() {
            return None;
        }
        self.clocks_at(self.clock.now_ms())?.deadline?;
        self.times.last().copied().or(self.info.started_at)
    }

    /// The credits with `ms` more given to the player to act now (those
    /// of plies taken back dropped).
    pub fn credits_with(&self, ms: i64) -> Vec<(Ply, i64)> {
        let ply = self.ply();
        let mut credits: Vec<(Ply, i64)> = self
            .info
            .credits
            .iter()
            .copied()
            .filter(|&(p, _)| p <= ply)
            .collect();
        credits.push((ply, ms));
        credits
    }

    /// Writes a change of the game's facts into the room: the one place
    /// where each simple change (a takeback's request, the clocks'
    /// credits, a berserk) is applied, by the commit path
    /// ([`crate::Games`]'s `commit_change`) and nowhere else. Whether it
    /// moves the deadline, the path works out from the room it leaves.
    /// A forfeit and a takeback have their own paths (the end of a game,
    /// the log cut): nothing here.
    pub fn apply(&mut self, change: &crate::storage::GameChange) {
        use crate::storage::GameChange;
        match change {
            GameChange::Request(p) => self.info.takeback = *p,
            GameChange::Credit { credits, .. } => self.info.credits.clone_from(credits),
            GameChange::Berserk { player, .. } => self.info.berserk[player.index()] = true,
            GameChange::Forfeit { .. } | GameChange::TakeBack { .. } => {}
        }
    }

    /// The deadline to store once the actions after `ply` are taken back.
    pub fn deadline_at(&self, ply: Ply) -> Option<i64> {
        let to_act = self.game.history().get(ply.index()).map(|p| p.to_move());
        self.clocks_after(ply, to_act, self.clock.now_ms())
            .and_then(|c| c.deadline)
            .map(|(at, _)| at)
    }

    /// The deadline to store after the last change (`None`: nothing is
    /// due, the game is untimed, waiting or over).
    pub fn deadline(&self) -> Option<i64> {
        let now = self.clock.now_ms();
        self.clocks_at(now)
            .and_then(|c| c.deadline)
            .map(|(at, _)| at)
    }

    /// What is due now, if the time of the player to act is up (a flag or
    /// an abort): the service commits it before anything else.
    pub fn due(&self) -> Option<Forfeit> {
        if self.info.status != Status::Playing || self.is_over() {
            return None;
        }
        let now = self.clock.now_ms();
        match self.clocks_at(now)?.deadline? {
            (at, Due::Flag(p)) if at <= now => Some(Forfeit::Time(p)),
            (at, Due::Abort) if at <= now => Some(Forfeit::Abort),
            _ => None,
        }
    }

    /// A finished game's winner (`Some(None)`: a draw); `None` while it
    /// goes on, and for an aborted game (no result).
    pub fn result_winner(&self) -> Option<Option<Player>> {
        match self.info.forfeit {
            Some(f) => f.loser().map(|l| Some(l.opponent())),
            None => self.game.outcome().map(|o| o.winner()),
        }
    }

    /// Whether each player has made an action (then the game can no
    /// longer be aborted).
    pub fn both_have_acted(&self) -> bool {
        Player::ALL.iter().all(|&p| self.actions_by(p) > 0)
    }

    /// How many actions `p` has made (an arena's berserk point counts
    /// them).
    pub fn actions_by(&self, p: Player) -> u32 {
        self.log.iter().filter(|e| e.player == p).count() as u32
    }

    /// Whether `p` may go berserk now (RULES.md, "Tournaments"): an arena
    /// game with a Fischer clock being played, he has made no action and
    /// has not gone berserk.
    pub fn berserkable(&self, p: Player) -> bool {
        self.info.arena.is_some()
            && matches!(self.info.clock, Some(TimeControl::Fischer { .. }))
            && self.info.status == Status::Playing
            && !self.is_over()
            && !self.info.berserk[p.index()]
            && self.actions_by(p) == 0
    }

    /// Whether the server's AI is to act now.
    pub fn ai_to_move(&self) -> bool {
        self.info.status == Status::Playing
            && !self.game.is_over()
            && self.info.ai_seat == Some(self.game.position().to_move())
    }

    /// Who may act now: none while waiting, once over, or on the AI's turn.
    fn actor(&self) -> Option<Player> {
        (self.info.status == Status::Playing && !self.is_over() && !self.ai_to_move())
            .then(|| self.game.position().to_move())
    }

    /// Checks that `seat` may act now (at `ply`, if given).
    pub fn check_turn(&self, seat: Seat, ply: Option<Ply>) -> Result<Player, GameError> {
        if let Some(p) = ply {
            if p != self.ply() {
                return Err(GameError::Stale {
                    sent: p,
                    current: self.ply(),
                });
            }
        }
        self.check_playing()?;
        let to_move = self.game.position().to_move();
        if !seat.acts_for(to_move) {
            return Err(GameError::NotYourTurn(to_move));
        }
        Ok(to_move)
    }

    /// Checks that the game is being played: not over, not waiting.
    pub fn check_playing(&self) -> Result<(), GameError> {
        if self.is_over() {
            return Err(GameError::Over);
        }
        if self.info.status == Status::Waiting {
            return Err(GameError::Waiting);
        }
        Ok(())
    }

    /// Where the game stands, as the store checks it.
    pub fn at(&self) -> crate::storage::At {
        crate::storage::At {
            ply: self.ply(),
            takebacks: self.info.takebacks,
        }
    }

    /// Who resigns when the holder of `seat` resigns: his player; in a
    /// local game, the player to move; never the AI.
    pub fn resigner(&self, seat: Seat) -> Result<Player, GameError> {
        self.check_playing()?;
        Ok(match seat {
            Seat::A => Player::A,
            Seat::B => Player::B,
            Seat::Both => self.game.position().to_move(),
        })
    }

    /// The result of a forfeit now, as the store keeps it: the captured
    /// totals as they stood, and "without glory" if the winner declined an
    /// offer; `None` for an abort (no result).
    pub fn forfeit_result(&self, forfeit: Forfeit) -> Option<String> {
        let loser = forfeit.loser()?;
        let pos = self.game.position();
        let mut text = format!("{}-{}", pos.captured(Player::A), pos.captured(Player::B));
        if self.game.has_declined(loser.opponent()) {
            text.push_str(" without glory");
        }
        Some(text)
    }

    /// Ends the game by a forfeit (committed by the caller).
    pub fn forfeit(&mut self, forfeit: Forfeit) {
        self.info.forfeit = Some(forfeit);
        self.info.status = Status::Over;
        self.info.takeback = None;
        self.info.deadline = None;
    }

    /// The ply to go back to for `player` to be to move again before his
    /// last action (the actions after it undone); `None` if he has not
    /// acted.
    pub fn before_last_of(&self, player: Player) -> Option<Ply> {
        (0..self.ply().index())
            .rev()
            .find(|&i| self.game.history()[i].to_move() == player)
            .map(Ply::of_len)
    }

    /// Takes back every action after ply `to` (committed by the caller):
    /// the game is rebuilt from the positions it kept, without sowing
    /// again; the takebacks count one more.
    pub fn take_back_to(&mut self, to: Ply) -> Result<(), GameError> {
        self.truncate(to)
            .map_err(|e| GameError::Internal(format!("the takeback failed: {e}")))?;
        self.info.takebacks += 1;
        self.info.takeback = None;
        self.info.status = if self.game.is_over() {
            Status::Over
        } else {
            Status::Playing
        };
        Ok(())
    }

    /// Plays `action` on the game in place and returns what to store; on
    /// an illegal action nothing changes. The caller commits the result
    /// before anyone sees it, and drops the room if that fails.
    pub fn play(&mut self, action: Action, at: i64) -> Result<StoredAction, GameError> {
        let player = self.game.position().to_move();
        let played = self.game.play(action).map_err(GameError::Illegal)?;
        let entry = entry_of(&self.game, player, &played.effect);
        let stored = StoredAction {
            ply: entry.ply,
            action,
            captured: entry.captured.clone(),
            position: self.game.history().last().copied(),
            at,
        };
        self.log.push(entry);
        self.times.push(at);
        // An action cancels a pending takeback request.
        self.info.takeback = None;
        if self.game.is_over() {
            self.info.status = Status::Over;
        }
        Ok(stored)
    }

    /// The whole state as a spectator sees it, as `encode` writes it:
    /// encoded once per change for every spectator (every caller passes
    /// the same encoder: the edge's).
    pub fn spectator_state(&self, encode: impl FnOnce(GameState) -> String) -> Arc<str> {
        let mut cache = self.spectator.lock().unwrap_or_else(|e| e.into_inner());
        // A running clock's figures are for the moment they are made: not
        // cached.
        let ticking = self
            .clocks_at(self.clock.now_ms())
            .is_some_and(|c| c.deadline.is_some());
        match &*cache {
            Some((serial, text)) if *serial == self.serial && !ticking => text.clone(),
            _ => {
                let text: Arc<str> = encode(self.view(None)).into();
                *cache = Some((self.serial, text.clone()));
                text
            }
        }
    }

    /// Tells every socket what changed since `since`.
    pub fn changed(&mut self, since: Ply) {
        // A change without a new action (a friend arriving, a rematch)
        // changes the state at the same ply.
        *self.spectator.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let actor = self.actor();
        let for_others = self.update_from(since, false);
        let for_actor = if actor.is_some() {
            self.update_from(since, true)
        } else {
            for_others.clone()
        };
        self.serial += 1;
        // No receiver is not an error: nobody is watching.
        let _ = self.tx.send(Arc::new(Change {
            since,
            ply: self.ply(),
            serial: self.serial,
            whole: false,
            actor,
            updates: Some((for_actor, for_others)),
            texts: Default::default(),
        }));
    }

    /// Tells every socket to take the whole state again (the log was
    /// shortened: an update would only ever append).
    pub fn send_whole(&mut self) {
        *self.spectator.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.serial += 1;
        let _ = self.tx.send(Arc::new(Change {
            since: self.ply(),
            ply: self.ply(),
            serial: self.serial,
            whole: true,
            actor: None,
            updates: None,
            texts: Default::default(),
        }));
    }

    /// The count of changes sent so far: a state made now includes them.
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// A receiver of every later change.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Change>> {
        self.tx.subscribe()
    }

    /// A receiver of the chat's later messages.
    pub fn chat_subscribe(&self) -> broadcast::Receiver<Arc<super::ChatLine>> {
        self.chat_tx.subscribe()
    }

    /// Sends chat messages to this server's sockets (those not sent yet).
    pub fn chat_send(&mut self, lines: Vec<super::ChatLine>) {
        for line in lines {
            if line.n > self.chat_seen {
                self.chat_seen = line.n;
                let _ = self.chat_tx.send(Arc::new(line));
            }
        }
    }

    /// A place for one more spectator's socket, unless `cap` of them are
    /// open here already. The players' sockets take none: spectators can
    /// never lock a player out of his own game (issue 25).
    pub fn spectator_slot(&self, cap: usize) -> Option<SpectatorSlot> {
        (Arc::strong_count(&self.spectator_slots) - 1 < cap)
            .then(|| SpectatorSlot(self.spectator_slots.clone()))
    }

    /// How many sockets are watching.
    pub fn watchers(&self) -> usize {
        self.tx.receiver_count()
    }

    /// Closes every socket's subscription (they reconnect and reload).
    pub fn close_channel(&mut self) {
        self.tx = broadcast::channel(64).0;
    }

    /// For how long (ms) a player of a game being played has had no
    /// socket, as of now.
    fn away_for(&self, p: Player) -> Option<i64> {
        if self.is_over() || self.info.status != Status::Playing {
            return None;
        }
        let since = self.info.away[p.index()]?;
        Some((self.clock.now_ms() - since).max(0))
    }

    /// A request of `p` (an action, a read of the game with his seat, any
    /// request on HTTP) at `now`: if he has no socket in a game between
    /// people being played, his away time counts from here (RULES.md,
    /// "Leaving": from his last sign of life, never from a socket's close
    /// alone). The new moment to record, if it moves.
    pub fn sign_of_life(&self, p: Player, now: i64) -> Option<i64> {
        if self.info.mode != Mode::Friend || self.is_over() {
            return None;
        }
        let since = self.info.away[p.index()]?;
        (now - since >= SIGN_OF_LIFE_MS).then_some(now)
    }

    /// When the opponent of `p` may claim the game (Unix ms), as the rules
    /// say of leaving, or why he may not.
    pub fn claimable_at(&self, p: Player) -> Result<i64, GameError> {
        let opp = p.opponent();
        match self.info.clock {
            Some(super::clock::TimeControl::Correspondence { .. }) => {
                Err(GameError::Refused(Said::new(
                    "claim_correspondence",
                    "in a correspondence game the clock decides: a player who does not act loses \
                 on time",
                )))
            }
            Some(super::clock::TimeControl::Fischer { .. }) => {
                let since = self.info.away[opp.index()].ok_or(GameError::Refused(Said::new(
                    "opponent_connected",
                    "your opponent is connected: nothing to claim",
                )))?;
                Ok(since + LEAVE_TIMED_MS)
            }
            None => {
                if self.game.position().to_move() != opp {
                    return Err(GameError::Refused(Said::new(
                        "claim_your_move",
                        "it is your move: nothing to claim",
                    )));
                }
                let last = self
                    .times
                    .last()
                    .copied()
                    .or(self.info.started_at)
                    .unwrap_or(self.info.created_at);
                Ok(last + LEAVE_UNTIMED_MS)
            }
        }
    }

    /// The game record, with the date and the players' names.
    pub fn record(&self) -> String {
        let mut r = gore_core::Record::from_game(&self.game);
        // The rules the game was created with; the operator's ply limit
        // shows only in a game it ended, so that the record replays to the
        // same result.
        if self.game.outcome().map(|o| o.reason) != Some(gore_core::EndReason::PlyCap) {
            r.rules = self.info.rules;
        }
        if let Some(f) = self.info.forfeit {
            let pos = self.game.position();
            r.result = Some(match f.loser() {
                Some(p) => gore_core::RecordResult::Finished {
                    seeds: Player::ALL.map(|p| pos.captured(p)),
                    without_glory: self.game.has_declined(p.opponent()),
                },
                None => gore_core::RecordResult::Unfinished,
            });
            r.forfeit = Some(f);
        }
        if let Some(tc) = self.info.clock {
            r.extra.push(("TimeControl".into(), tc.to_string()));
        }
        if self.info.takebacks > 0 {
            // A casual game: the record says so.
            r.extra
                .push(("Takebacks".into(), self.info.takebacks.to_string()));
        }
        r.event = Some(format!("Goré online, game {}", self.info.id));
        r.date = Some(gore_core::iso_date(self.info.created_at));
        for p in Player::ALL {
            r.players[p.index()] = Some(if self.info.ai_seat == Some(p) {
                if self.info.perfect {
                    "gore-ai perfect".to_string()
                } else {
                    format!("gore-ai level {}", self.info.level)
                }
            } else {
                self.info.names[p.index()]
                    .clone()
                    .unwrap_or_else(|| format!("Player {p}"))
            });
        }
        r.to_string()
    }
}

/// The ply cap a game is played under: the rules' own, and the operator's
/// `--max-plies`, but never one that a game already stored has passed
/// (it then ends at its next action).
fn effective_cap(rules_cap: Option<u32>, max_plies: u32, stored: usize) -> Option<u32> {
    let operator = max_plies.max(stored as u32 + u32::from(stored as u32 >= max_plies));
    Some(rules_cap.map_or(operator, |c| c.min(operator)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PerSeat;
    use gore_ai::Level;
    use gore_core::{Hole, Position, Rules};

    /// A stored ai game, created at `created_at`.
    fn info(created_at: i64) -> GameInfo {
        GameInfo {
            id: "0123456789".into(),
            mode: Mode::Ai,
            rules: Rules::STANDARD,
            start: Position::new(Rules::STANDARD.variant),
            level: Level::new(3).unwrap(),
            perfect: false,
            honourable: false,
            creator: Seat::A,
            ai_seat: Some(Player::B),
            status: Status::Playing,
            created_at,
            rematch: None,
            tokens: PerSeat::default(),
            invite: None,
            devices: PerSeat::default(),
            forfeit: None,
            clock: None,
            names: [None, None],
            away: [None, None],
            credits: Vec::new(),
            lobby: false,
            players: [None, None],
            rated: false,
            ratings: [None, None],
            started_at: Some(created_at),
            deadline: None,
            takebacks: 0,
            takeback: None,
            bots: [false, false],
            arena: None,
            swiss: None,
            berserk: [false, false],
        }
    }

    fn stored(created_at: i64, actions: &[&str], keep_positions: bool) -> StoredGame {
        let mut g = Game::new(Rules::STANDARD);
        let actions = actions
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let action: Action = a.parse().unwrap();
                let p = g.play(action).unwrap();
                StoredAction {
                    ply: Ply::of_len(i + 1),
                    action,
                    captured: p.effect.captured.iter().collect(),
                    position: keep_positions.then(|| *g.history().last().unwrap()),
                    at: created_at,
                }
            })
            .collect();
        StoredGame {
            info: info(created_at),
            actions,
        }
    }

    /// What the server adds to the core's record: the game's own date (the
    /// day it was created, UTC, not the day of the download), the event and
    /// who sat where.
    #[test]
    fn the_record_names_the_event_the_date_and_the_players() {
        // 2000-02-29 23:59:59.999 UTC: the last millisecond of a leap day.
        let created = 951_868_799_999;
        let room = Room::load(stored(created, &["a3"], true), 2000).unwrap();
        let text = room.record();
        let r = gore_core::Record::parse(&text).unwrap();
        assert_eq!(r.date.as_deref(), Some("2000-02-29"), "{text}");
        assert_eq!(
            r.event.as_deref(),
            Some("Goré online, game 0123456789"),
            "{text}"
        );
        assert_eq!(r.players[0].as_deref(), Some("Player A"), "{text}");
        assert_eq!(r.players[1].as_deref(), Some("gore-ai level 3"), "{text}");
        assert_eq!(r.actions, vec![Action::Sow(Hole::A3)]);
        // One millisecond later is the next day.
        let next = Room::load(stored(created + 1, &["a3"], true), 2000).unwrap();
        let r = gore_core::Record::parse(&next.record()).unwrap();
        assert_eq!(r.date.as_deref(), Some("2000-03-01"));
    }

    /// An action the store refused, taken back: the room is the room of
    /// the shorter game, as if the action had never been played (the
    /// reference: a room loaded from the first plies alone), and it plays
    /// on from there.
    /// Outages credited are cut out of the clocks' time line. Hand
    /// arithmetic, 3+2: first actions at 0 s (free); A at 10 s (180 s less
    /// 10 plus 2: 172); B at 100 s, 65 s of his 90 s an outage (180 s less
    /// 25 plus 2: 157); A to act since 100 s, now 130 s: 142 left, the
    /// deadline at 272 s (100 plus 172). 5 s more credited now: 147, the
    /// deadline at 277 s. A credit of a ply beyond the game's (taken back)
    /// counts for nothing.
    #[test]
    fn credited_outages_are_cut_out_of_the_clocks() {
        let mut g = stored(0, &["a3", "b3", "a1", "b1"], true);
        for (a, at) in g.actions.iter_mut().zip([0, 0, 10_000, 100_000]) {
            a.at = at;
        }
        g.info.mode = Mode::Friend;
        g.info.ai_seat = None;
        g.info.clock = Some("3+2".parse().unwrap());
        g.info.credits = vec![(Ply::new(3), 65_000), (Ply::new(9), 1_000_000)];
        let mut room = Room::load(g, 2_000).unwrap();
        room.clock = Clock::manual(130_000);
        let c = room.clocks_at(130_000).unwrap();
        assert_eq!(c.left, [142_000, 157_000]);
        assert_eq!(c.deadline, Some((272_000, Due::Flag(Player::A))));
        assert_eq!(room.period_start(), Some(100_000));
        room.info.credits = room.credits_with(5_000);
        assert_eq!(
            room.info.credits,
            vec![(Ply::new(3), 65_000), (Ply::new(4), 5_000)]
        );
        let c = room.clocks_at(130_000).unwrap();
        assert_eq!(c.left, [147_000, 157_000]);
        assert_eq!(room.deadline(), Some(277_000));
    }

    #[test]
    fn rewind_gives_the_room_of_the_shorter_game() {
        let actions = ["a3", "b1", "a1", "b2"];
        let mut room = Room::load(stored(0, &actions, true), 2000).unwrap();
        room.rewind(Ply::new(2), Status::Playing).unwrap();
        let reference = Room::load(stored(0, &actions[..2], true), 2000).unwrap();
        assert_eq!(room.game, reference.game);
        assert_eq!(room.view(None), reference.view(None));
        // A game that was over is playing again.
        room.info.status = Status::Over;
        room.rewind(Ply::new(1), Status::Playing).unwrap();
        assert_eq!(room.info.status, Status::Playing);
        assert_eq!(room.ply(), Ply::new(1));
        room.play("b1".parse().unwrap(), 0).unwrap();
        assert_eq!(room.game, reference.game);
        // Rewinding to the present (or beyond) changes nothing.
        room.rewind(Ply::new(5), Status::Over).unwrap();
        assert_eq!(room.info.status, Status::Playing);
    }

    /// Loading from the kept positions and replaying the actions (old rows)
    /// give the same room: same game, same log.
    #[test]
    fn kept_positions_and_replay_load_the_same_room() {
        let actions = ["a3", "b1", "a1", "b2", "a4", "b3"];
        let kept = Room::load(stored(0, &actions, true), 2000).unwrap();
        let replayed = Room::load(stored(0, &actions, false), 2000).unwrap();
        assert_eq!(kept.game, replayed.game);
        assert_eq!(kept.log, replayed.log);
        assert_eq!(kept.log.len(), 6);
        assert_eq!(kept.log[1].player, Player::B);
    }

    /// `--max-plies` ends a game as a ply cap does; a stored game longer
    /// than the cap ends at its next action instead of being cut.
    #[test]
    fn the_operator_ply_limit() {
        assert_eq!(effective_cap(None, 2000, 0), Some(2000));
        assert_eq!(effective_cap(Some(50), 2000, 0), Some(50));
        assert_eq!(effective_cap(None, 4, 4), Some(5));
        assert_eq!(effective_cap(None, 4, 9), Some(10));
        let mut room = Room::new(info(0), 2);
        room.play("a3".parse().unwrap(), 0).unwrap();
        assert!(!room.game.is_over());
        room.play("b1".parse().unwrap(), 0).unwrap();
        assert_eq!(
            room.game.outcome().map(|o| o.reason),
            Some(gore_core::EndReason::PlyCap)
        );
        assert_eq!(room.info.status, Status::Over);
        // The record of a game the limit ended names it, so that a replay
        // ends the same way; another game's names the rules it was made with.
        let r = gore_core::Record::parse(&room.record()).unwrap();
        assert_eq!(r.rules.to_string(), "ply-cap=2");
        assert_eq!(r.replay().unwrap().outcome(), room.game.outcome());
        let short = Room::load(stored(0, &["a3"], true), 2).unwrap();
        let r = gore_core::Record::parse(&short.record()).unwrap();
        assert_eq!(r.rules, Rules::STANDARD);
    }

    /// Each change is encoded at most once per audience, by the encoder
    /// the first socket passes: the actor's update (his legal actions)
    /// and the others' (none) are two texts, shared by every socket of
    /// their audience; with nobody to act, one text for all; a whole
    /// change carries no update. The spectators' state is encoded once per
    /// change, and again after the next.
    #[test]
    fn each_audience_is_encoded_once() {
        use std::cell::Cell;
        let local = GameInfo {
            mode: Mode::Local,
            ai_seat: None,
            ..info(0)
        };
        let mut room = Room::new(local, 2000);
        let mut rx = room.subscribe();
        room.play("a3".parse().unwrap(), 0).unwrap();
        room.changed(Ply::new(0));
        let c = rx.try_recv().unwrap();
        let calls = Cell::new(0);
        let encode = |u: &GameUpdate| {
            calls.set(calls.get() + 1);
            format!("{} legal", u.head.legal.len())
        };
        // B to move with every hole of his full: 4 sowings.
        assert_eq!(&*c.text_for(Some(Seat::Both), encode), "4 legal");
        assert_eq!(&*c.text_for(Some(Seat::Both), encode), "4 legal");
        assert_eq!(&*c.text_for(None, encode), "0 legal");
        assert_eq!(&*c.text_for(Some(Seat::A), encode), "0 legal");
        assert_eq!(calls.get(), 2);
        assert_eq!(c.update_for(None).unwrap().actions.len(), 1);

        // Over: nobody acts, one text for everyone.
        room.forfeit(Forfeit::Resign(Player::B));
        room.changed(Ply::new(1));
        let c = rx.try_recv().unwrap();
        calls.set(0);
        assert_eq!(&*c.text_for(Some(Seat::Both), encode), "0 legal");
        assert_eq!(&*c.text_for(None, encode), "0 legal");
        assert_eq!(calls.get(), 1);

        room.send_whole();
        let c = rx.try_recv().unwrap();
        assert!(c.whole && c.update_for(None).is_none());
        assert_eq!(&*c.text_for(None, |_| unreachable!()), "");

        let states = Cell::new(0);
        let spectate = |s: GameState| {
            states.set(states.get() + 1);
            format!("{} {:?}", s.head.ply, s.you)
        };
        assert_eq!(&*room.spectator_state(spectate), "1 None");
        assert_eq!(&*room.spectator_state(spectate), "1 None");
        assert_eq!(states.get(), 1);
        room.changed(Ply::new(1));
        assert_eq!(&*room.spectator_state(spectate), "1 None");
        assert_eq!(states.get(), 2);
    }

    /// Taking back rebuilds the game from the positions it kept: the same
    /// game as one that never played the actions taken back; the sockets
    /// are told to reload (a whole change, after the updates, in order).
    /// `before_last_of` finds a player's last action across an offer and
    /// its answer: B declined A's offer and then sowed, so B's last action
    /// is the sowing (ply 3) and A's the offer (ply 1).
    #[test]
    fn a_takeback_is_the_game_without_those_actions() {
        let start = Position::from_gpn(
            "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 A -",
            Rules::STANDARD.variant,
        )
        .unwrap();
        let local = GameInfo {
            mode: Mode::Local,
            ai_seat: None,
            start,
            ..info(0)
        };
        let mut room = Room::new(local.clone(), 2000);
        let mut rx = room.subscribe();
        for (i, a) in ["offer:a2", "decline", "b3"].iter().enumerate() {
            room.play(a.parse().unwrap(), 0).unwrap();
            room.changed(Ply::of_len(i));
        }
        assert_eq!(room.before_last_of(Player::B), Some(Ply::new(2)));
        assert_eq!(room.before_last_of(Player::A), Some(Ply::ZERO));
        room.take_back_to(Ply::new(2)).unwrap();
        room.send_whole();
        let mut once = Room::new(local, 2000);
        for a in ["offer:a2", "decline"] {
            once.play(a.parse().unwrap(), 0).unwrap();
        }
        assert_eq!(room.game, once.game);
        assert_eq!(room.log, once.log);
        assert_eq!(room.info.takebacks, 1);
        assert!(room.game.has_declined(Player::B), "the decline stands");
        let serials: Vec<(u64, bool)> = (0..4)
            .map(|_| {
                let c = rx.try_recv().unwrap();
                (c.serial, c.whole)
            })
            .collect();
        assert_eq!(serials, [(1, false), (2, false), (3, false), (4, true)]);
        assert_eq!(room.view(None).takebacks, 1);
    }
}
