//! The Bot API's bodies and lines (docs/API.md, "Bots"): tokens,
//! challenges, and the NDJSON lines of the event and game streams, shaped
//! like lichess's (`challenge`, `gameStart`, `gameFull`, `gameState`…) with
//! Goré's seats (`A`, `B`), rules and action tokens.

use serde::{Deserialize, Serialize};

use super::game::{GameView, SeatView};
use crate::domain::events::{PlayerEvent, Source};
use crate::domain::storage::{StoredBotChallenge, StoredToken};
use crate::domain::{GameInfo, Ply, Status};

/// The body of `POST /api/account/tokens`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenBody {
    /// What the owner calls it (one line, 1 to 100 characters).
    pub description: String,
    /// Some of `bot:play`, `read`.
    pub scopes: Vec<String>,
}

/// A token as listed (never the token itself but when it is made).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenView {
    /// Its id, to revoke it.
    pub id: String,
    /// The token: only in the answer that made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Its description.
    pub description: String,
    /// Its scopes.
    pub scopes: Vec<String>,
    /// Unix ms.
    pub created_at: i64,
}

impl From<&StoredToken> for TokenView {
    fn from(t: &StoredToken) -> TokenView {
        TokenView {
            id: t.id.clone(),
            token: None,
            description: t.description.clone(),
            scopes: t.scopes.clone(),
            created_at: t.created_at,
        }
    }
}

/// `GET /api/account/tokens`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenList {
    /// The newest first.
    pub tokens: Vec<TokenView>,
}

/// `GET /api/account` (with a token): the account it acts for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// The public id.
    pub id: String,
    /// The username.
    pub username: String,
    /// A BOT account.
    pub bot: bool,
    /// The token's scopes.
    pub scopes: Vec<String>,
}

/// The body of `POST /api/challenge/{username}` (every field optional).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotChallengeBody {
    /// A rule set (docs/NOTATION.md); `standard` if absent.
    #[serde(default)]
    pub rules: Option<String>,
    /// `M+S`, `Nd` or `none`; untimed if absent.
    #[serde(default)]
    pub clock: Option<String>,
    /// Rated (a clock needed).
    #[serde(default)]
    pub rated: bool,
    /// The challenger's seat: `A`, `B` or `random`.
    #[serde(default)]
    pub colour: Option<String>,
}

/// The body of `POST /api/challenge/{id}/decline` (optional).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclineBody {
    /// One of the reasons (`generic` if absent).
    #[serde(default)]
    pub reason: Option<String>,
}

/// A player as a challenge names him.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotUser {
    /// His public id.
    pub id: String,
    /// His username.
    pub name: String,
    /// A BOT account.
    pub bot: bool,
}

impl From<&(String, String, bool)> for BotUser {
    fn from(p: &(String, String, bool)) -> BotUser {
        BotUser {
            id: p.0.clone(),
            name: p.1.clone(),
            bot: p.2,
        }
    }
}

/// A challenge as the API shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChallengeView {
    /// Its id.
    pub id: String,
    /// `created`, `accepted`, `declined` or `canceled`.
    pub status: String,
    /// Who challenged.
    pub challenger: BotUser,
    /// Who is challenged.
    pub dest_user: BotUser,
    /// The rule set (docs/NOTATION.md).
    pub rules: String,
    /// `M+S`, `Nd`, or `null`: untimed.
    pub clock: Option<String>,
    /// Rated.
    pub rated: bool,
    /// The challenger's seat: `A`, `B` or `random`.
    pub colour: String,
    /// Why it was declined (declined ones only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decline_reason: Option<String>,
    /// The game it made (accepted ones only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
}

impl From<&StoredBotChallenge> for ChallengeView {
    fn from(c: &StoredBotChallenge) -> ChallengeView {
        ChallengeView {
            id: c.id.clone(),
            status: c.status.clone(),
            challenger: BotUser::from(&c.challenger),
            dest_user: BotUser::from(&c.dest),
            rules: c.rules.to_string(),
            clock: c.clock.map(|t| t.to_string()),
            rated: c.rated,
            colour: c.colour.map_or("random".to_string(), |p| p.to_string()),
            decline_reason: c.reason.clone(),
            game: c.game.clone(),
        }
    }
}

/// The answer of `POST /api/challenge/{username}` and of an accept that
/// was too late: the challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeAnswer {
    /// The challenge as it stands.
    pub challenge: ChallengeView,
}

/// The answer of a Bot API call that changes something and says no more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Done {
    /// Always `true`.
    pub ok: bool,
}

impl Done {
    /// `{"ok": true}`.
    pub const OK: Done = Done { ok: true };
}

/// The answer of `POST /api/challenge/{id}/accept`: the game it made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accepted {
    /// Always `true`.
    pub ok: bool,
    /// The game's id.
    pub game: String,
    /// Its page.
    pub url: String,
}

/// A game's opponent, as the event stream shows him.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventOpponent {
    /// His public id (`null` for the AI or a guest).
    pub id: Option<String>,
    /// His display name.
    pub name: Option<String>,
    /// A BOT account.
    pub bot: bool,
    /// His rating when the game began (rated games).
    pub rating: Option<String>,
}

/// A game as the event stream shows it to one of its players.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventGame {
    /// Its id.
    pub id: String,
    /// Its page.
    pub url: String,
    /// The player's seat, `A` or `B`.
    pub colour: Option<String>,
    /// The other seat's player.
    pub opponent: Option<EventOpponent>,
    /// The rule set.
    pub rules: String,
    /// `M+S`, `Nd`, or `null`: untimed.
    pub clock: Option<String>,
    /// Rated.
    pub rated: bool,
    /// `started` or `over`.
    pub status: String,
    /// Why it began (a `gameStart`'s): `arena`, `swiss`, `lobby`,
    /// `friend` or `solo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The arena that paired it (lichess's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament_id: Option<String>,
    /// The Swiss event whose round it is (lichess's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swiss_id: Option<String>,
    /// Over: the winner, `A`, `B`, or `null` for a draw or an abort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<Option<String>>,
    /// Over: the result (`null`: aborted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Option<String>>,
}

impl EventGame {
    /// `g` as the player `me` (public id) sees it, `result` its result
    /// once over.
    fn of(g: &GameInfo, me: &str, result: Option<&str>) -> EventGame {
        let mine = g.players.iter().position(|p| p.as_deref() == Some(me));
        let over = g.status == Status::Over;
        EventGame {
            id: g.id.clone(),
            url: format!("/g/{}", g.id),
            colour: mine.map(|i| if i == 0 { "A" } else { "B" }.to_string()),
            opponent: mine.map(|i| 1 - i).map(|i| EventOpponent {
                id: g.players[i].clone(),
                name: g.names[i].clone(),
                bot: g.bots[i],
                rating: g.ratings[i].clone(),
            }),
            rules: g.rules.to_string(),
            clock: g.clock.map(|t| t.to_string()),
            rated: g.rated,
            status: if over { "over" } else { "started" }.to_string(),
            source: None,
            tournament_id: None,
            swiss_id: None,
            winner: over.then(|| {
                crate::domain::ratings::winner_of(g, result)
                    .flatten()
                    .map(|p| p.to_string())
            }),
            result: over.then(|| result.map(str::to_string)),
        }
    }
}

/// One line of a player's event stream (the Bot API's and the user
/// socket's), tagged by `type` as lichess's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum BotEvent {
    /// A challenge from or to the player is open.
    Challenge {
        /// It.
        challenge: ChallengeView,
    },
    /// A challenge was withdrawn.
    ChallengeCanceled {
        /// It.
        challenge: ChallengeView,
    },
    /// A challenge was declined.
    ChallengeDeclined {
        /// It.
        challenge: ChallengeView,
    },
    /// A game of the player's began.
    GameStart {
        /// It, with why it began.
        game: EventGame,
    },
    /// A game of the player's ended.
    GameFinish {
        /// It, with its result.
        game: EventGame,
    },
}

impl BotEvent {
    /// The event `e` as the player `me` (public id) reads it.
    pub fn of(e: &PlayerEvent, me: &str) -> BotEvent {
        match e {
            PlayerEvent::Challenge(c) => BotEvent::Challenge {
                challenge: c.into(),
            },
            PlayerEvent::ChallengeCanceled(c) => BotEvent::ChallengeCanceled {
                challenge: c.into(),
            },
            PlayerEvent::ChallengeDeclined(c) => BotEvent::ChallengeDeclined {
                challenge: c.into(),
            },
            PlayerEvent::GameStart(g, source) => {
                let mut game = EventGame::of(g, me, None);
                game.source = Some(source.as_str().to_string());
                // lichess's names: an arena's `tournamentId`, a Swiss's
                // `swissId`.
                match source {
                    Source::Arena(t) => game.tournament_id = Some(t.clone()),
                    Source::Swiss(t) => game.swiss_id = Some(t.clone()),
                    _ => {}
                }
                BotEvent::GameStart { game }
            }
            PlayerEvent::GameFinish(g, r) => BotEvent::GameFinish {
                game: EventGame::of(g, me, r.as_deref()),
            },
        }
    }
}

/// The clocks of a game stream's `gameState`: ms left by seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotClock {
    /// Seat A's.
    #[serde(rename = "A")]
    pub a: i64,
    /// Seat B's.
    #[serde(rename = "B")]
    pub b: i64,
}

/// A game stream's `gameState`: the actions so far (tokens, space
/// separated), the position, whose turn, the clocks (ms left) and the
/// status (`started`, or the result's reason), with the winner at the end;
/// in an arena game, who went berserk (`aberserk`, `bberserk`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotGameState {
    /// Always `gameState`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The actions so far, space separated.
    pub actions: String,
    /// How many.
    pub ply: Ply,
    /// The position (GPN).
    pub position: String,
    /// Whose turn (`null` when over).
    pub to_move: Option<String>,
    /// The clocks (timed games).
    pub clock: Option<BotClock>,
    /// `created`, `started`, or the result's reason.
    pub status: String,
    /// Seat A went berserk (lichess's `wberserk`; only when true).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aberserk: bool,
    /// Seat B went berserk (only when true).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bberserk: bool,
    /// Over: the winner, `A`, `B` or `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<Option<String>>,
    /// Over: the seeds each seat ended with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<[u8; 2]>,
}

impl BotGameState {
    /// The game's state in `v`.
    pub fn of(v: &GameView) -> BotGameState {
        let actions: Vec<String> = v.actions.iter().map(|e| e.action.to_string()).collect();
        let h = &v.head;
        let status = match (&h.status, &h.result) {
            (_, Some(r)) => r.reason.clone(),
            (Status::Waiting, None) => "created".into(),
            _ => "started".into(),
        };
        BotGameState {
            kind: "gameState".into(),
            actions: actions.join(" "),
            ply: h.ply,
            position: h.position.clone(),
            to_move: h.to_move.map(|p| p.to_string()),
            clock: h.clock.as_ref().map(|c| BotClock {
                a: c.left.a,
                b: c.left.b,
            }),
            status,
            aberserk: h.berserk.a,
            bberserk: h.berserk.b,
            winner: h.result.as_ref().map(|r| r.winner.map(|p| p.to_string())),
            seeds: h.result.as_ref().map(|r| r.seeds),
        }
    }

    /// Whether the game moved between `self` and `other` (an action, its
    /// end, a berserk): the clocks move on their own and are no news.
    pub fn same_moment(&self, other: &BotGameState) -> bool {
        (
            self.ply,
            &self.status,
            &self.actions,
            self.aberserk,
            self.bberserk,
        ) == (
            other.ply,
            &other.status,
            &other.actions,
            other.aberserk,
            other.bberserk,
        )
    }
}

/// A seat as a game stream's `gameFull` names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BotSeat {
    /// A person or a BOT.
    Human {
        /// His display name.
        name: Option<String>,
        /// His rating when the game began (rated games).
        rating: Option<String>,
        /// A BOT account.
        bot: bool,
    },
    /// The server's AI.
    Ai {
        /// Its level.
        ai: u8,
    },
}

impl From<&SeatView> for BotSeat {
    fn from(s: &SeatView) -> BotSeat {
        match s {
            SeatView::Human {
                name, rating, bot, ..
            } => BotSeat::Human {
                name: name.clone(),
                rating: rating.clone(),
                bot: *bot,
            },
            SeatView::Ai { level, .. } => BotSeat::Ai { ai: *level },
        }
    }
}

/// A game stream's first line, `gameFull`: the game's facts (rules,
/// players, clock, start) and its `state`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameFull {
    /// Always `gameFull`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The game's id.
    pub id: String,
    /// The rule set.
    pub rules: String,
    /// Rated.
    pub rated: bool,
    /// `M+S`, `Nd`, or `null`: untimed.
    pub clock: Option<String>,
    /// Seat A.
    #[serde(rename = "A")]
    pub a: BotSeat,
    /// Seat B.
    #[serde(rename = "B")]
    pub b: BotSeat,
    /// The caller's seat.
    pub you: Option<crate::domain::Seat>,
    /// The start position (GPN).
    pub start: String,
    /// The state now.
    pub state: BotGameState,
}

impl GameFull {
    /// The game in `v`.
    pub fn of(v: &GameView) -> GameFull {
        let h = &v.head;
        GameFull {
            kind: "gameFull".into(),
            id: v.id.clone(),
            rules: v.rules.to_string(),
            rated: h.rated,
            clock: h.clock.as_ref().map(|c| c.control.to_string()),
            a: (&h.seats.a).into(),
            b: (&h.seats.b).into(),
            you: v.you,
            start: v.start.clone(),
            state: BotGameState::of(v),
        }
    }
}
