//! One event stream per player (lichess's user socket and Bot API event
//! stream): what concerns a player outside any one game's page, in order.
//! A game started for him and why, a game of his finished, a challenge
//! received, withdrawn or declined. The events are read from the store,
//! never from one server's memory ([`crate::bots::Bots::events`]), so that a
//! player hears on any server of a game made on another; the Bot API's
//! `/api/stream/event` and the browser's user socket both read them.

use std::time::Duration;

use crate::storage::StoredBotChallenge;
use crate::{GameInfo, Mode};

/// A BOT whose event stream was seen open this recently is online (its
/// stream marks itself every [`MARK_EVERY`]: three marks missed, gone).
/// Here, not in `bots`, so that the ratings' list of BOTs reads it without
/// importing the module that imports the ratings.
pub const ONLINE_WITHIN: Duration = Duration::from_secs(15);
/// An open event stream says so this often.
pub const MARK_EVERY: Duration = Duration::from_secs(5);

/// What a player's event stream says.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayerEvent {
    /// A challenge from or to the player is open.
    Challenge(StoredBotChallenge),
    /// A challenge the stream announced was withdrawn by its challenger.
    ChallengeCanceled(StoredBotChallenge),
    /// A challenge the stream announced was declined.
    ChallengeDeclined(StoredBotChallenge),
    /// A game of the player's is being played, and why it began.
    GameStart(GameInfo, Source),
    /// A game of the player's ended, and its result (`None`: aborted).
    GameFinish(GameInfo, Option<String>),
}

/// Why a game began for a player (lichess's `source` of a `gameStart`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// An arena paired him: the tournament's id.
    Arena(String),
    /// A round of a Swiss event began with this game: the event's id.
    Swiss(String),
    /// A pairing between strangers: the lobby's quick pairing or open
    /// challenges.
    Lobby,
    /// Someone asked for this game: an invitation link claimed, or a
    /// challenge by name accepted (lichess says `friend` of both).
    Friend,
    /// A game against the AI, or on one device.
    Solo,
}

impl Source {
    /// Why `game` began, from its facts.
    pub fn of(game: &GameInfo) -> Source {
        if let Some(id) = &game.swiss {
            return Source::Swiss(id.clone());
        }
        match (&game.arena, game.mode, game.lobby) {
            (Some(id), _, _) => Source::Arena(id.clone()),
            (None, Mode::Friend, true) => Source::Lobby,
            (None, Mode::Friend, false) => Source::Friend,
            (None, Mode::Ai | Mode::Local, _) => Source::Solo,
        }
    }

    /// The source as the wire names it (lichess's words where it has one).
    pub fn as_str(&self) -> &'static str {
        match self {
            Source::Arena(_) => "arena",
            Source::Swiss(_) => "swiss",
            Source::Lobby => "lobby",
            Source::Friend => "friend",
            Source::Solo => "solo",
        }
    }

    /// The tournament that paired the game, if known.
    pub fn tournament(&self) -> Option<&str> {
        match self {
            Source::Arena(id) | Source::Swiss(id) => Some(id),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::Rules;

    /// Each way a game is made, by the constructor every maker uses, read
    /// back as its source.
    #[test]
    fn a_games_source_is_read_from_how_it_was_made() {
        let mut arena = GameInfo::new(Mode::Friend, Rules::STANDARD, 0);
        arena.seat_both();
        arena.lobby = true;
        arena.arena = Some("t1".into());
        assert_eq!(Source::of(&arena), Source::Arena("t1".into()));
        assert_eq!(Source::of(&arena).tournament(), Some("t1"));

        let mut swiss = GameInfo::new(Mode::Friend, Rules::STANDARD, 0);
        swiss.seat_both();
        swiss.lobby = true;
        swiss.swiss = Some("s1".into());
        assert_eq!(Source::of(&swiss), Source::Swiss("s1".into()));
        assert_eq!(Source::of(&swiss).as_str(), "swiss");
        assert_eq!(Source::of(&swiss).tournament(), Some("s1"));

        let mut lobby = GameInfo::new(Mode::Friend, Rules::STANDARD, 0);
        lobby.seat_both();
        lobby.lobby = true;
        assert_eq!(Source::of(&lobby), Source::Lobby);

        let mut challenge = GameInfo::new(Mode::Friend, Rules::STANDARD, 0);
        challenge.seat_both();
        assert_eq!(Source::of(&challenge), Source::Friend);

        let mut invitation = GameInfo::new(Mode::Friend, Rules::STANDARD, 0);
        invitation.tokens.set(crate::Seat::A, Some("t".into()));
        invitation.invite = Some("code".into());
        assert_eq!(Source::of(&invitation), Source::Friend);
        // Claimed: the invitation is spent, one seat was given later.
        invitation.invite = None;
        invitation.tokens.set(crate::Seat::B, Some("u".into()));
        invitation.started_at = Some(5);
        assert_eq!(Source::of(&invitation), Source::Friend);

        let ai = GameInfo::new(Mode::Ai, Rules::STANDARD, 0);
        assert_eq!(Source::of(&ai).as_str(), "solo");
    }
}
