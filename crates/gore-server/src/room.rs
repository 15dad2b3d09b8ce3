//! One game in memory: the rules' [`Game`], its seats, the log shown to
//! clients, and the channel that carries every new state to the sockets.

use std::sync::Arc;
use std::time::Instant;

use gore_core::{Action, Game, HoleSet, Player, Position, Rules};
use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::db::{ActionRow, GameRow};
use crate::error::{ApiError, ErrorCode};

/// How a game is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Against the server's AI.
    Ai,
    /// Against a friend who opens the invitation link.
    Friend,
    /// Two people on one device.
    Local,
}

impl Mode {
    /// `ai`, `friend`, `local`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Ai => "ai",
            Mode::Friend => "friend",
            Mode::Local => "local",
        }
    }

    fn from_word(s: &str) -> Option<Mode> {
        match s {
            "ai" => Some(Mode::Ai),
            "friend" => Some(Mode::Friend),
            "local" => Some(Mode::Local),
            _ => None,
        }
    }
}

/// What a token holds: one player's seat, or both (a local game).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Seat {
    /// Player A.
    A,
    /// Player B.
    B,
    /// Both players (one device).
    #[serde(rename = "both")]
    Both,
}

impl Seat {
    /// `A`, `B`, `both`.
    pub fn as_str(self) -> &'static str {
        match self {
            Seat::A => "A",
            Seat::B => "B",
            Seat::Both => "both",
        }
    }

    /// Reads [`Seat::as_str`].
    pub fn from_word(s: &str) -> Option<Seat> {
        match s {
            "A" => Some(Seat::A),
            "B" => Some(Seat::B),
            "both" => Some(Seat::Both),
            _ => None,
        }
    }

    /// The seat of one player.
    pub fn of(p: Player) -> Seat {
        match p {
            Player::A => Seat::A,
            Player::B => Seat::B,
        }
    }

    /// Whether this seat may act for `p`.
    pub fn acts_for(self, p: Player) -> bool {
        matches!(
            (self, p),
            (Seat::Both, _) | (Seat::A, Player::A) | (Seat::B, Player::B)
        )
    }

    /// The other seat (`both` stays `both`): a rematch swaps the seats.
    pub fn swapped(self) -> Seat {
        match self {
            Seat::A => Seat::B,
            Seat::B => Seat::A,
            Seat::Both => Seat::Both,
        }
    }
}

/// Where a game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A friend game whose friend has not opened the invitation yet.
    Waiting,
    /// Being played.
    Playing,
    /// Finished.
    Over,
}

impl Status {
    /// `waiting`, `playing`, `over`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Playing => "playing",
            Status::Over => "over",
        }
    }

    fn from_word(s: &str) -> Option<Status> {
        match s {
            "waiting" => Some(Status::Waiting),
            "playing" => Some(Status::Playing),
            "over" => Some(Status::Over),
            _ => None,
        }
    }
}

/// The base-32 alphabet of game ids (no i, l, o, u).
const ID_ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
/// The length of a game id.
pub const ID_LEN: usize = 10;

/// A new random game id: 10 base-32 characters (50 bits).
pub fn new_id() -> String {
    let mut rng = rand::thread_rng();
    (0..ID_LEN)
        .map(|_| ID_ALPHABET[rng.gen_range(0..32)] as char)
        .collect()
}

/// Whether `s` could be a game id (checked before touching the database).
pub fn valid_id(s: &str) -> bool {
    s.len() == ID_LEN && s.bytes().all(|b| ID_ALPHABET.contains(&b))
}

/// A new secret: 128 random bits in 32 hex digits.
pub fn new_token() -> String {
    let bits: u128 = rand::thread_rng().gen();
    format!("{bits:032x}")
}

/// Compares secrets in time independent of where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Unix time in milliseconds (the rules core never reads the clock).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// One action of the log, as clients see it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// From 1.
    pub ply: usize,
    /// Who played it.
    pub player: Player,
    /// The action.
    pub action: Action,
    /// The holes a sowing captured.
    pub captured: HoleSet,
    /// The position after it; for the action that ends a game, before the
    /// final sweep (the game's position is after it).
    pub position: String,
}

impl Entry {
    fn json(&self) -> Value {
        json!({
            "ply": self.ply,
            "player": self.player.char().to_string(),
            "action": self.action.to_string(),
            "captured": self.captured.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
            "position": self.position,
        })
    }
}

/// A game's state as broadcast: the same for everyone, except `you` and
/// `legal`, which [`Snapshot::view`] fills in for each recipient.
#[derive(Debug)]
pub struct Snapshot {
    base: Value,
    legal: Vec<String>,
    /// Who may act now (none while waiting, once over, or on the AI's turn).
    actor: Option<Player>,
}

impl Snapshot {
    /// The state for the holder of `seat` (`None`: a spectator).
    pub fn view(&self, seat: Option<Seat>) -> Value {
        let mut v = self.base.clone();
        let legal: &[String] = match (seat, self.actor) {
            (Some(s), Some(p)) if s.acts_for(p) => &self.legal,
            _ => &[],
        };
        v["you"] = seat.map_or(Value::Null, |s| Value::from(s.as_str()));
        v["legal"] = json!(legal);
        v
    }
}

/// The outcome of a prepared action, ready to commit.
pub struct Prepared {
    /// The game after the action.
    pub game: Game,
    /// Its log entry.
    pub entry: Entry,
}

/// One game in memory.
pub struct GameRoom {
    /// The stored row (kept up to date with what was committed).
    pub row: GameRow,
    /// ai, friend or local.
    pub mode: Mode,
    /// The creator's seat.
    pub creator: Seat,
    /// The AI's seat in an ai game.
    pub ai_seat: Option<Player>,
    /// waiting, playing or over.
    pub status: Status,
    /// The rules' game.
    pub game: Game,
    log: Vec<Entry>,
    tx: broadcast::Sender<Arc<Snapshot>>,
    snapshot: Arc<Snapshot>,
    /// An AI task is working on this game.
    pub ai_busy: bool,
    /// Dropped from the rooms after a database failure: reload it.
    pub dead: bool,
    /// Last request that touched it.
    pub touched: Instant,
}

/// Why a stored game cannot be loaded.
#[derive(Debug, thiserror::Error)]
#[error("game {id}: {why}")]
pub struct LoadError {
    id: String,
    why: String,
}

/// Plays `action` on `game` once and returns its log entry, with the holes
/// it captured as the core reports them; on error `game` is unchanged.
fn play_logged(game: &mut Game, action: Action) -> Result<Entry, ApiError> {
    let player = game.position().to_move();
    let captured = game
        .play(action)
        .map_err(|e| ApiError::new(ErrorCode::IllegalAction, e.to_string()))?
        .effect
        .captured;
    Ok(Entry {
        ply: game.actions().len(),
        player,
        action,
        captured,
        // Before the final sweep: the board the action left.
        position: game.history().last().unwrap_or(game.position()).to_string(),
    })
}

impl GameRoom {
    /// Builds the room from its row and its stored actions, replaying them.
    pub fn load(row: GameRow, actions: &[ActionRow]) -> Result<GameRoom, LoadError> {
        let id = row.id.clone();
        let err = |why: String| LoadError {
            id: id.clone(),
            why,
        };
        let mode = Mode::from_word(&row.mode).ok_or_else(|| err(format!("mode {}", row.mode)))?;
        let creator =
            Seat::from_word(&row.creator).ok_or_else(|| err(format!("creator {}", row.creator)))?;
        let mut status =
            Status::from_word(&row.status).ok_or_else(|| err(format!("status {}", row.status)))?;
        let ai_seat = match (&row.ai_seat, mode) {
            (Some(s), Mode::Ai) => Some(s.parse().map_err(|_| err(format!("ai seat {s}")))?),
            (None, Mode::Ai) => return Err(err("ai game without an ai seat".into())),
            _ => None,
        };
        let rules: Rules = row.rules.parse().map_err(|e| err(format!("{e}")))?;
        let start =
            Position::from_gpn(&row.start, rules.variant).map_err(|e| err(format!("{e}")))?;
        let game = Game::from_position(start, rules.ply_cap);
        let (tx, _) = broadcast::channel(16);
        let mut room = GameRoom {
            row,
            mode,
            creator,
            ai_seat,
            status,
            game,
            log: Vec::new(),
            tx,
            snapshot: Arc::new(Snapshot {
                base: Value::Null,
                legal: Vec::new(),
                actor: None,
            }),
            ai_busy: false,
            dead: false,
            touched: Instant::now(),
        };
        for (i, a) in actions.iter().enumerate() {
            if a.ply as usize != i + 1 {
                return Err(err(format!("action {} is stored as ply {}", i + 1, a.ply)));
            }
            let action: Action = a
                .action
                .parse()
                .map_err(|e| err(format!("ply {}: {e}", a.ply)))?;
            // Stored actions were committed: played in place, not on copies.
            let entry = play_logged(&mut room.game, action)
                .map_err(|e| err(format!("ply {}: {}", a.ply, e.message)))?;
            room.log.push(entry);
        }
        if room.game.is_over() {
            status = Status::Over;
        }
        room.status = status;
        room.refresh();
        Ok(room)
    }

    /// The game id.
    pub fn id(&self) -> &str {
        &self.row.id
    }

    /// The seat a token holds, if any.
    pub fn seat_of(&self, token: &str) -> Option<Seat> {
        [
            (&self.row.token_a, Seat::A),
            (&self.row.token_b, Seat::B),
            (&self.row.token_both, Seat::Both),
        ]
        .into_iter()
        .find_map(|(t, seat)| t.as_deref().filter(|t| same_secret(t, token)).map(|_| seat))
    }

    /// The token of a seat, if it has one.
    pub fn token_of(&self, seat: Seat) -> Option<&str> {
        match seat {
            Seat::A => self.row.token_a.as_deref(),
            Seat::B => self.row.token_b.as_deref(),
            Seat::Both => self.row.token_both.as_deref(),
        }
    }

    /// The number of actions played.
    pub fn ply(&self) -> usize {
        self.game.actions().len()
    }

    /// Whether the server's AI is to act now.
    pub fn ai_to_move(&self) -> bool {
        self.status == Status::Playing
            && !self.game.is_over()
            && self.ai_seat == Some(self.game.position().to_move())
    }

    /// Checks whether `seat` may act now (the ply, if given, must be the
    /// current one) and returns the player it acts for.
    pub fn check_turn(&self, seat: Seat, ply: Option<u64>) -> Result<Player, ApiError> {
        if let Some(p) = ply {
            if p != self.ply() as u64 {
                return Err(ApiError::new(
                    ErrorCode::Stale,
                    format!(
                        "ply {p} is not the current one: {} actions have been played; reload the game",
                        self.ply()
                    ),
                ));
            }
        }
        if self.status == Status::Over || self.game.is_over() {
            return Err(ApiError::new(ErrorCode::GameOver, "the game is over"));
        }
        if self.status == Status::Waiting {
            return Err(ApiError::forbidden(
                "the game has not started: your friend has not opened the invitation yet",
            ));
        }
        let to_move = self.game.position().to_move();
        if !seat.acts_for(to_move) {
            return Err(ApiError::forbidden(format!(
                "not your turn: player {to_move} is to move"
            )));
        }
        Ok(to_move)
    }

    /// Plays `action` on a copy of the game (kept apart until the action
    /// is committed): the rules core checks it.
    pub fn prepare(&self, action: Action) -> Result<Prepared, ApiError> {
        let mut game = self.game.clone();
        let entry = play_logged(&mut game, action)?;
        Ok(Prepared { game, entry })
    }

    /// Takes a committed action in, and tells every socket.
    pub fn apply(&mut self, p: Prepared) {
        self.game = p.game;
        self.log.push(p.entry);
        if self.game.is_over() {
            self.status = Status::Over;
            self.row.status = "over".into();
            if let Some(o) = self.game.outcome() {
                self.row.result = Some(o.to_string());
                self.row.reason = Some(o.reason.as_str().into());
            }
        }
        self.changed();
    }

    /// Sets the status (a friend arriving), after it was committed.
    pub fn set_status(&mut self, status: Status) {
        self.status = status;
        self.row.status = status.as_str().into();
        self.changed();
    }

    /// Rebuilds the snapshot and broadcasts it.
    pub fn changed(&mut self) {
        self.refresh();
        // No receiver is not an error: nobody is watching.
        let _ = self.tx.send(self.snapshot.clone());
    }

    /// The current state.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot.clone()
    }

    /// A receiver of every later state.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Snapshot>> {
        self.tx.subscribe()
    }

    /// How many sockets are watching.
    pub fn watchers(&self) -> usize {
        self.tx.receiver_count()
    }

    /// Closes every socket's subscription (they reconnect and reload).
    pub fn close_channel(&mut self) {
        self.tx = broadcast::channel(16).0;
    }

    fn seats_json(&self) -> Value {
        let mut seats = serde_json::Map::new();
        for p in Player::ALL {
            let seat = Seat::of(p);
            let v = if self.ai_seat == Some(p) {
                json!({"kind": "ai", "level": self.row.level, "honourable": self.row.honourable, "joined": true})
            } else {
                let joined = !(self.mode == Mode::Friend
                    && self.status == Status::Waiting
                    && seat != self.creator);
                json!({"kind": "human", "joined": joined})
            };
            seats.insert(p.char().to_string(), v);
        }
        Value::Object(seats)
    }

    fn refresh(&mut self) {
        let pos = self.game.position();
        let over = self.game.is_over();
        let result = self.game.outcome().map(|o| {
            json!({
                "seeds": o.seeds,
                "winner": o.winner().map(|w| w.char().to_string()),
                "without_glory": o.without_glory(),
                "reason": o.reason.as_str(),
            })
        });
        let rematch = self
            .row
            .rematch
            .as_ref()
            .map(|id| json!({"id": id, "url": format!("/g/{id}")}));
        let base = json!({
            "id": self.row.id,
            "mode": self.mode.as_str(),
            "rules": self.game.rules().to_string(),
            "status": self.status.as_str(),
            "position": pos.to_string(),
            "start": self.game.start().to_string(),
            "to_move": if over { Value::Null } else { Value::from(pos.to_move().char().to_string()) },
            "seats": self.seats_json(),
            "you": null,
            "legal": [],
            "ply": self.ply(),
            "actions": self.log.iter().map(Entry::json).collect::<Vec<_>>(),
            "declined": {"A": self.game.has_declined(Player::A), "B": self.game.has_declined(Player::B)},
            "result": result,
            "rematch": rematch,
        });
        let actor =
            (self.status == Status::Playing && !over && !self.ai_to_move()).then(|| pos.to_move());
        let legal = if actor.is_some() {
            self.game
                .legal_actions()
                .iter()
                .map(|a| a.to_string())
                .collect()
        } else {
            Vec::new()
        };
        self.snapshot = Arc::new(Snapshot { base, legal, actor });
    }

    /// The game record, with the date and the players' names.
    pub fn record(&self) -> String {
        let mut r = gore_core::Record::from_game(&self.game);
        r.event = Some(format!("Goré online, game {}", self.row.id));
        r.date = Some(gore_core::iso_date(self.row.created_at));
        for p in Player::ALL {
            r.players[p.index()] = Some(if self.ai_seat == Some(p) {
                format!("gore-ai level {}", self.row.level)
            } else {
                format!("Player {p}")
            });
        }
        r.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_tokens() {
        let id = new_id();
        assert!(valid_id(&id), "{id}");
        assert!(!valid_id("ABCDEFGHIJ"));
        assert!(!valid_id("0123456789a"));
        assert!(!valid_id("01234567i9"));
        let t = new_token();
        assert_eq!(t.len(), 32);
        assert!(t.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(t, new_token());
        assert!(same_secret(&t, &t.clone()));
        assert!(!same_secret(&t, &new_token()));
        assert!(!same_secret(&t, &t[1..]));
    }

    /// A stored row of an ai game, created at `created_at`.
    fn row(created_at: i64) -> GameRow {
        GameRow {
            id: "0123456789".into(),
            mode: "ai".into(),
            rules: "standard".into(),
            start: "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -".into(),
            level: 3,
            honourable: false,
            creator: "A".into(),
            token_a: Some(new_token()),
            token_b: None,
            token_both: None,
            ai_seat: Some("B".into()),
            status: "playing".into(),
            created_at,
            updated_at: created_at,
            result: None,
            reason: None,
            rematch: None,
        }
    }

    /// What the server adds to the core's record: the game's own date (the
    /// day it was created, UTC, not the day of the download), the event and
    /// who sat where.
    #[test]
    fn the_record_names_the_event_the_date_and_the_players() {
        // 2000-02-29 23:59:59.999 UTC: the last millisecond of a leap day.
        let created = 951_868_799_999;
        let actions = [ActionRow {
            ply: 1,
            action: "a3".into(),
            created_at: created + 10_000,
        }];
        let room = GameRoom::load(row(created), &actions).unwrap();
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
        assert_eq!(r.actions, vec![Action::Sow(gore_core::Hole::A3)]);
        // One millisecond later is the next day.
        let next = GameRoom::load(row(created + 1), &actions).unwrap();
        let r = gore_core::Record::parse(&next.record()).unwrap();
        assert_eq!(r.date.as_deref(), Some("2000-03-01"));
    }
}
