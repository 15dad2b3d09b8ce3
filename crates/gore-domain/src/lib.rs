//! The game domain: games, their seats and turns, the AI's turns, and the
//! broadcast of every change. It knows neither HTTP, SQL nor JSON, and
//! cannot: no web framework, JSON library or SQL driver is among its
//! dependencies. It talks to a [`Store`](storage::Store), the port it
//! defines in [`storage`] and the `gore-store` crate implements, answers [`GameError`]s, which the
//! edges turn into error answers (error.rs, one mapping), and shows games
//! in its own types ([`GameState`], [`GameUpdate`], a [`Change`] per
//! change; the lobby's [`lobby::Snapshot`]). The edge writes them: a change
//! or a snapshot keeps the text the first socket of each audience encoded
//! with the edge's encoder, so that each is written once however many
//! sockets watch.
//!
//! The games live in `games/`, behind the one handle [`Games`]:
//!
//! - the machinery: `games/mod.rs` (the handle, the room registry and its
//!   janitor, a game's read), `sync.rs` (other servers' notices, catch-up,
//!   heartbeat, take-over), `referee.rs` (the clock referee, the ends of a
//!   game), `ai_turns.rs` (the AI's searches, leases and retries),
//!   `presence.rs` (players away and back, spectators);
//! - `act.rs`: THE table of a player's commands (`GameCommand`), which
//!   door offers which, and the one dispatch every door calls
//!   ([`Games::act`]);
//! - `command.rs`: the one path every change of a room runs through, a
//!   player's command or the server's own machinery (load the room, a
//!   task of its own, lock, touch, catch up, the caller's seat, a sign of
//!   life, the clock, the command's rule, the AI's turn); `room_ref.rs`,
//!   a room shared, its lock private to the games; `commit.rs`, every
//!   write of a game to the store, committed, applied, then broadcast;
//! - one file per player command or family, holding only its rule:
//!   `play.rs`, `resign.rs` (resign, abort, claim the win), `takeback.rs`,
//!   `chat.rs`, `seats.rs` (invitations, device links, remembered seats),
//!   `rematch.rs`, `create.rs`, `berserk.rs`, `give_time.rs`.
//!
//! Beside them: [`room`](Room) (one game in memory and its broadcast),
//! [`clock`], [`lobby`], [`accounts`], [`ratings`], [`analysis`] and the
//! others, one concern each; the AI's pool of search threads ([`ai`]) and
//! the solver's database as its leaf evaluation ([`oracle`]).

pub mod accounts;
pub mod ai;
pub mod analysis;
pub mod boards;
pub mod bots;
pub mod clock;
mod error;
pub mod events;
mod games;
mod jobs;
pub mod lobby;
pub mod names;
pub mod observe;
pub mod oracle;
pub mod passwords;
mod players;
mod ply;
pub mod puzzles;
pub mod rating;
pub mod ratings;
pub mod review;
mod room;
pub mod storage;
pub mod tournaments;

use gore_ai::Level;
use gore_core::{Forfeit, Player, Position, Rules};
use rand::Rng;
use serde::{Deserialize, Serialize};

pub use error::{GameError, Param, Said};
#[cfg(feature = "test-support")]
pub use games::testing;
pub use games::{
    Acted, AiRole, Door, GameCommand, GameSettings, Games, NewGameSpec, RoomRef, SeatGrant, Shown,
    Snapshot, Watch, CHAT_MAX_CHARS, CHAT_PER_10S, DEAD_AFTER, HEARTBEAT_EVERY, SPECTATORS_EVERY,
    SPECTATORS_FRESH,
};
pub use players::Players;
pub use ply::Ply;
pub use room::{
    Change, ClockState, GameResult, GameState, GameUpdate, HeadState, Played, Preview, Room,
    SeatState, SpectatorSlot,
};

/// One chat message of a game.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChatLine {
    /// From 1, in order.
    pub n: u32,
    /// Who wrote it.
    pub from: Player,
    /// The text (plain text, never markup).
    pub text: String,
    /// Unix ms.
    pub at: i64,
}

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

    /// Reads [`Mode::as_str`].
    pub fn from_word(s: &str) -> Option<Mode> {
        match s {
            "ai" => Some(Mode::Ai),
            "friend" => Some(Mode::Friend),
            "local" => Some(Mode::Local),
            _ => None,
        }
    }
}

/// What a token holds: one player's seat, or both (a local game).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

    /// The three seats.
    pub const ALL: [Seat; 3] = [Seat::A, Seat::B, Seat::Both];

    fn index(self) -> usize {
        match self {
            Seat::A => 0,
            Seat::B => 1,
            Seat::Both => 2,
        }
    }
}

/// Where a game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A friend game whose friend has not claimed the invitation yet.
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

    /// Reads [`Status::as_str`].
    pub fn from_word(s: &str) -> Option<Status> {
        match s {
            "waiting" => Some(Status::Waiting),
            "playing" => Some(Status::Playing),
            "over" => Some(Status::Over),
            _ => None,
        }
    }
}

/// One secret per seat (`None`: the seat has none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerSeat(pub [Option<String>; 3]);

impl PerSeat {
    /// The seat's secret.
    pub fn get(&self, seat: Seat) -> Option<&str> {
        self.0[seat.index()].as_deref()
    }

    /// Sets the seat's secret.
    pub fn set(&mut self, seat: Seat, v: Option<String>) {
        self.0[seat.index()] = v;
    }

    /// The seat whose secret is `secret`, compared in constant time.
    pub fn find(&self, secret: &str) -> Option<Seat> {
        Seat::ALL
            .into_iter()
            .find(|&s| self.get(s).is_some_and(|t| same_secret(t, secret)))
    }
}

/// The stored level of a game whose AI is the perfect player: out of the
/// range of gore-ai's levels (1 to [`gore_ai::MAX_LEVEL`]), with room for
/// the ladder to grow. Schema step 5 moved the old value, 9, here; the
/// step's SQL writes the number, a test checks they agree.
pub const PERFECT_LEVEL: u8 = 100;

// A ladder grown into the perfect player's number would not build.
const _: () = assert!(PERFECT_LEVEL > gore_ai::MAX_LEVEL);

/// A game's facts: what it is, who sits where, where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInfo {
    /// 10 base-32 characters.
    pub id: String,
    /// ai, friend or local.
    pub mode: Mode,
    /// The rule set it was created with.
    pub rules: Rules,
    /// Its start position.
    pub start: Position,
    /// The AI's level (kept for every game, used by ai games).
    pub level: Level,
    /// The AI plays from the solver's database (a no-trade ai game on a
    /// server started with `--solver-db`); `level` is then the top one,
    /// its play above the database's layers. Stored as level
    /// [`PERFECT_LEVEL`].
    pub perfect: bool,
    /// The AI accepts every offer.
    pub honourable: bool,
    /// The creator's seat.
    pub creator: Seat,
    /// The AI's seat in an ai game.
    pub ai_seat: Option<Player>,
    /// waiting, playing or over.
    pub status: Status,
    /// Unix time in milliseconds.
    pub created_at: i64,
    /// The rematch game, once asked for.
    pub rematch: Option<String>,
    /// Each seat's secret.
    pub tokens: PerSeat,
    /// A friend game's invitation code, until claimed.
    pub invite: Option<String>,
    /// Each seat's "continue on another device" code, until revoked.
    pub devices: PerSeat,
    /// How the game ended off the board, if it did (a resignation, a
    /// flag on time, a claim after the opponent left, an abort): the game
    /// is then over.
    pub forfeit: Option<Forfeit>,
    /// The game's clock (`None`: untimed).
    pub clock: Option<clock::TimeControl>,
    /// When both seats were taken and the game began (Unix ms; `None`
    /// while a friend game waits): the clocks count from it.
    pub started_at: Option<i64>,
    /// The display names of A's and B's seats, as they were when each was
    /// taken (`None`: the AI's seat, a seat not yet taken, a bot without
    /// a session, a game on one device).
    pub names: [Option<String>; 2],
    /// The public ids of A's and B's players (`None`: the AI, a seat not
    /// yet taken, a bot without a session).
    pub players: [Option<String>; 2],
    /// Rated: between two accounts, its result moves their ratings.
    pub rated: bool,
    /// A's and B's ratings in the game's pace when it began, as shown
    /// (`1500?`; rated games only).
    pub ratings: [Option<String>; 2],
    /// Since when (Unix ms) A's and B's seats have had no socket on any
    /// server, in a game between people (`None`: connected, or never):
    /// the later of the last socket's close and the player's last sign of
    /// life over HTTP.
    pub away: [Option<i64>; 2],
    /// Time given back to the clocks for outages (no server ran the game):
    /// `(ply, ms)`, the ms added to the thinking time of the player to act
    /// after `ply` actions (RULES.md, "Clocks and outages").
    pub credits: Vec<(Ply, i64)>,
    /// A game between two people paired in the lobby (a friend game
    /// without an invitation).
    pub lobby: bool,
    /// When the game ends if the player to act does nothing (a timed game
    /// being played; as [`clock::clocks`] computes it after the last
    /// change): the store keeps it so that any server can find the games
    /// whose time is up.
    pub deadline: Option<i64>,
    /// Takebacks granted so far (a game with any is casual).
    pub takebacks: u32,
    /// A friend game's pending takeback request: who asks.
    pub takeback: Option<Player>,
    /// Whether A's and B's players are BOT accounts (issue 29: a BOT is
    /// marked in every view). Known when the game is made and never
    /// changed: an account with games cannot become a BOT.
    pub bots: [bool; 2],
    /// The arena that paired this game (its tournament's id; `None` for
    /// any other game): only then may a player berserk.
    pub arena: Option<String>,
    /// The Swiss event that paired this game (its tournament's id; `None`
    /// for any other game).
    pub swiss: Option<String>,
    /// Whether A's and B's players went berserk (RULES.md, "Tournaments":
    /// half the base, no increment).
    pub berserk: [bool; 2],
}

impl GameInfo {
    /// A new game's facts, the one constructor of every new game
    /// (invitations, AI games, the lobby, challenges, tournaments,
    /// rematches): a fresh id, `mode` and `rules` from their start
    /// position, made `now`, and every other fact empty (no seat taken,
    /// untimed, casual, waiting). Whoever makes the game sets its seats
    /// and terms, then [`GameInfo::begin`] starts it.
    pub fn new(mode: Mode, rules: Rules, now: i64) -> GameInfo {
        GameInfo {
            id: new_id(),
            mode,
            rules,
            start: Position::new(rules.variant),
            level: Level::STANDARD,
            perfect: false,
            honourable: false,
            creator: Seat::A,
            ai_seat: None,
            status: Status::Waiting,
            created_at: now,
            rematch: None,
            tokens: PerSeat::default(),
            invite: None,
            devices: PerSeat::default(),
            forfeit: None,
            clock: None,
            started_at: None,
            names: [None, None],
            players: [None, None],
            rated: false,
            ratings: [None, None],
            away: [None, None],
            credits: Vec::new(),
            lobby: false,
            deadline: None,
            takebacks: 0,
            takeback: None,
            bots: [false, false],
            arena: None,
            swiss: None,
            berserk: [false, false],
        }
    }

    /// Both seats taken: the game begins at `now`, and its first deadline
    /// (the first action's, a timed game's) is computed here, once for
    /// every kind of game.
    pub fn begin(&mut self, now: i64) {
        self.status = Status::Playing;
        self.started_at = Some(now);
        self.deadline = self.clock.and_then(|tc| {
            clock::clocks(tc, now, &[], Some(self.start.to_move()), now)
                .deadline
                .map(|(at, _)| at)
        });
    }

    /// Fresh secrets for both seats, returned as A's and B's (a game
    /// between two players known when it is made).
    pub fn seat_both(&mut self) -> [String; 2] {
        let (a, b) = (new_token(), new_token());
        self.tokens.set(Seat::A, Some(a.clone()));
        self.tokens.set(Seat::B, Some(b.clone()));
        [a, b]
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

/// Whether `s` could be a game id (checked before touching the store).
pub fn valid_id(s: &str) -> bool {
    s.len() == ID_LEN && s.bytes().all(|b| ID_ALPHABET.contains(&b))
}

/// A new secret: 128 random bits in 32 hex digits.
pub fn new_token() -> String {
    let bits: u128 = rand::thread_rng().gen();
    format!("{bits:032x}")
}

/// Hex digits of a device secret's nonce (32 bits: it only tells devices
/// apart); the rest of its 32 are the MAC's first 96 bits.
const DEVICE_NONCE_HEX: usize = 8;

/// A device's own secret for a seat, made when it claims the seat's device
/// link `code`: a random nonce and an HMAC-SHA256, keyed by the seat's
/// secret, of the code and the nonce (32 hex digits, like a seat's
/// secret). It opens the seat only while `code` is the seat's link
/// ([`device_opens`]): revoking the link ends every device that claimed
/// it, and no device ever holds the seat's own secret. Derived rather than
/// stored, so that a revocation needs no list of devices.
pub fn device_secret(seat_secret: &str, code: &str) -> String {
    let nonce = format!("{:08x}", rand::thread_rng().gen::<u32>());
    device_secret_with(seat_secret, code, &nonce)
}

fn device_secret_with(seat_secret: &str, code: &str, nonce: &str) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(seat_secret.as_bytes())
        .expect("HMAC takes a key of any length");
    // The code's length is fixed (a token), so the message reads one way.
    mac.update(code.as_bytes());
    mac.update(nonce.as_bytes());
    let tag = mac.finalize().into_bytes();
    let mut s = nonce.to_string();
    for b in &tag[..(32 - DEVICE_NONCE_HEX) / 2] {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Whether `secret` is a device's secret ([`device_secret`]) for the seat
/// whose secret is `seat_secret` and whose link is `code`, compared in
/// constant time.
pub fn device_opens(seat_secret: &str, code: &str, secret: &str) -> bool {
    secret.len() == 32
        && secret.is_char_boundary(DEVICE_NONCE_HEX)
        && same_secret(
            &device_secret_with(seat_secret, code, &secret[..DEVICE_NONCE_HEX]),
            secret,
        )
}

/// Compares secrets in time independent of where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
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

    /// A device's secret opens its seat with the link it claimed only: not
    /// with another link, not for another seat, not altered; two claims
    /// get two secrets.
    #[test]
    fn device_secrets_hold_while_their_link_stands() {
        let (seat, code) = (new_token(), new_token());
        let d = device_secret(&seat, &code);
        assert_eq!(d.len(), 32);
        assert!(d.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(device_opens(&seat, &code, &d));
        assert_ne!(d, device_secret(&seat, &code));
        assert!(!device_opens(&seat, &new_token(), &d), "another link");
        assert!(!device_opens(&new_token(), &code, &d), "another seat");
        let mut bent = d.clone().into_bytes();
        bent[31] = if bent[31] == b'0' { b'1' } else { b'0' };
        assert!(!device_opens(
            &seat,
            &code,
            &String::from_utf8(bent).unwrap()
        ));
        assert!(!device_opens(&seat, &code, &d[..31]));
        assert!(!device_opens(
            &seat,
            &code,
            "é234567890123456789012345678901"
        ));
    }

    #[test]
    fn secrets_find_their_seat() {
        let mut s = PerSeat::default();
        s.set(Seat::B, Some("b-secret".into()));
        assert_eq!(s.find("b-secret"), Some(Seat::B));
        assert_eq!(s.find("a-secret"), None);
        assert_eq!(s.find(""), None, "no seat's empty secret matches");
    }
}
