//! The Bot API's bodies and lines (docs/API.md, "Bots"): tokens,
//! challenges, and the NDJSON lines of the event and game streams, shaped
//! like lichess's (`challenge`, `gameStart`, `gameFull`, `gameState`…) with
//! Goré's seats (`A`, `B`), rules and action tokens.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::game::{GameView, SeatView};
use crate::domain::events::PlayerEvent;
use crate::domain::storage::{StoredBotChallenge, StoredToken};
use crate::domain::{GameInfo, Status};

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

fn user(p: &(String, String, bool)) -> Value {
    json!({"id": p.0, "name": p.1, "bot": p.2})
}

/// A challenge as the API shows it.
pub fn challenge_json(c: &StoredBotChallenge) -> Value {
    let mut v = json!({
        "id": c.id,
        "status": c.status,
        "challenger": user(&c.challenger),
        "destUser": user(&c.dest),
        "rules": c.rules.to_string(),
        "clock": c.clock.map(|t| t.to_string()),
        "rated": c.rated,
        "colour": c.colour.map_or("random".to_string(), |p| p.to_string()),
    });
    if let Some(r) = &c.reason {
        v["declineReason"] = json!(r);
    }
    if let Some(g) = &c.game {
        v["game"] = json!(g);
    }
    v
}

/// A game as the event stream shows it to the player `me` (public id).
fn game_json(g: &GameInfo, me: &str, result: Option<&str>) -> Value {
    let mine = g.players.iter().position(|p| p.as_deref() == Some(me));
    let colour = mine.map(|i| if i == 0 { "A" } else { "B" });
    let theirs = mine.map(|i| 1 - i);
    let opponent = theirs.map(|i| {
        json!({
            "id": g.players[i],
            "name": g.names[i],
            "bot": g.bots[i],
            "rating": g.ratings[i],
        })
    });
    let mut v = json!({
        "id": g.id,
        "url": format!("/g/{}", g.id),
        "colour": colour,
        "opponent": opponent,
        "rules": g.rules.to_string(),
        "clock": g.clock.map(|t| t.to_string()),
        "rated": g.rated,
        "status": if g.status == Status::Over { "over" } else { "started" },
    });
    if g.status == Status::Over {
        let winner = crate::domain::ratings::winner_of(g, result).flatten();
        v["winner"] = json!(winner.map(|p| p.to_string()));
        v["result"] = json!(result);
    }
    v
}

/// One line of the event stream of the player `me` (public id).
pub fn event_json(e: &PlayerEvent, me: &str) -> Value {
    match e {
        PlayerEvent::Challenge(c) => json!({"type": "challenge", "challenge": challenge_json(c)}),
        PlayerEvent::ChallengeCanceled(c) => {
            json!({"type": "challengeCanceled", "challenge": challenge_json(c)})
        }
        PlayerEvent::ChallengeDeclined(c) => {
            json!({"type": "challengeDeclined", "challenge": challenge_json(c)})
        }
        PlayerEvent::GameStart(g, source) => {
            let mut game = game_json(g, me, None);
            game["source"] = json!(source.as_str());
            if let Some(t) = source.tournament() {
                game["tournamentId"] = json!(t);
            }
            json!({"type": "gameStart", "game": game})
        }
        PlayerEvent::GameFinish(g, r) => {
            json!({"type": "gameFinish", "game": game_json(g, me, r.as_deref())})
        }
    }
}

/// A game stream's `gameState`: the actions so far (tokens, space
/// separated), the position, whose turn, the clocks (ms left) and the
/// status (`started`, or the result's reason), with the winner at the end;
/// in an arena game, who went berserk (`aberserk`, `bberserk`).
pub fn game_state(v: &GameView) -> Value {
    let actions: Vec<String> = v.actions.iter().map(|e| e.action.to_string()).collect();
    let h = &v.head;
    let status = match (&h.status, &h.result) {
        (_, Some(r)) => r.reason.clone(),
        (Status::Waiting, None) => "created".into(),
        _ => "started".into(),
    };
    let mut out = json!({
        "type": "gameState",
        "actions": actions.join(" "),
        "ply": h.ply,
        "position": h.position,
        "to_move": h.to_move.map(|p| p.to_string()),
        "clock": h.clock.as_ref().map(|c| json!({"A": c.left.a, "B": c.left.b})),
        "status": status,
    });
    // An arena game's berserks, as lichess's `wberserk` and `bberserk`
    // (only when true).
    for (k, b) in [("aberserk", h.berserk.a), ("bberserk", h.berserk.b)] {
        if b {
            out[k] = json!(true);
        }
    }
    if let Some(r) = &h.result {
        out["winner"] = json!(r.winner.map(|p| p.to_string()));
        out["seeds"] = json!(r.seeds);
    }
    out
}

fn seat_json(s: &SeatView) -> Value {
    match s {
        SeatView::Human {
            name, rating, bot, ..
        } => json!({"name": name, "rating": rating, "bot": bot}),
        SeatView::Ai { level, .. } => json!({"ai": level}),
    }
}

/// A game stream's first line, `gameFull`: the game's facts (rules,
/// players, clock, start) and its `state`.
pub fn game_full(v: &GameView) -> Value {
    let h = &v.head;
    json!({
        "type": "gameFull",
        "id": v.id,
        "rules": v.rules.to_string(),
        "rated": h.rated,
        "clock": h.clock.as_ref().map(|c| c.control.to_string()),
        "A": seat_json(&h.seats.a),
        "B": seat_json(&h.seats.b),
        "you": v.you,
        "start": v.start,
        "state": game_state(v),
    })
}
