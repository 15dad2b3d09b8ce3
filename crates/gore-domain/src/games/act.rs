//! THE table of a player's commands on a game (lichess's round actor has
//! one for human, bot and engine moves): [`GameCommand`] names every
//! command, [`Door`] every way in, [`GameCommand::offered`] is the one
//! list of which command comes through which door, and [`Games::act`] the
//! one dispatch that the game socket, the HTTP routes and the Bot API all
//! call. Each arm runs the command's rule (a file of its own) through the
//! one path of [`super::command`].
//!
//! A new command is a variant here, an arm of [`Games::act`], and its rule
//! in a file of its own; every door reaches it by its name
//! ([`GameCommand::NAMES`]) with no more code (CONTRIBUTING.md, "A new
//! command").

use std::net::IpAddr;

use super::Games;
use crate::ChatLine;
use crate::{GameError, GameState, Ply, Said};

/// How a command came to the server: the game socket, the site's HTTP
/// routes, or the Bot API (lichess's URLs, a BOT account's token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Door {
    /// `POST /api/games/{id}/…` with a seat's token.
    Http,
    /// A message on the game's socket.
    Socket,
    /// `POST /api/bot/game/{id}/…` with a BOT's token.
    Bot,
}

impl Door {
    /// Every door.
    pub const ALL: [Door; 3] = [Door::Http, Door::Socket, Door::Bot];

    /// The door's name, as the metrics label it.
    pub fn as_str(self) -> &'static str {
        match self {
            Door::Http => "http",
            Door::Socket => "socket",
            Door::Bot => "bot",
        }
    }

    /// Whether a command through this door is answered the whole state
    /// (HTTP); through a socket or the Bot API the caller hears of it by
    /// the update every listener gets, and no whole state is built.
    fn answers_state(self) -> bool {
        self == Door::Http
    }
}

/// A player's command on a game, whichever door it came through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameCommand {
    /// Play an action (an action token, as the client wrote it).
    Play {
        /// The action token.
        action: String,
        /// The actions the caller has seen (a stale caller is refused).
        ply: Option<Ply>,
    },
    /// Resign (in a local game, for the player to move).
    Resign,
    /// Abort, before each player has made an action.
    Abort,
    /// Claim the win: the opponent left.
    Claim,
    /// Go berserk (an arena game, before the caller's first action).
    Berserk,
    /// Take back: at once in ai and local games, a request to the
    /// opponent in games between people.
    Takeback,
    /// Answer the opponent's takeback request.
    TakebackAnswer {
        /// Grant it.
        accept: bool,
    },
    /// A chat message (a seated player of a game between people).
    Chat {
        /// One line of text.
        text: String,
    },
    /// Report chat message `n` of the opponent.
    ReportChat {
        /// The message's number.
        n: u32,
    },
    /// Give the opponent 15 seconds (lichess's "moretime").
    GiveTime,
}

impl GameCommand {
    /// Every command's name, as every door spells it: the socket's `type`,
    /// the last segment of its HTTP and Bot API routes.
    pub const NAMES: &'static [&'static str] = &[
        "action",
        "resign",
        "abort",
        "claim",
        "berserk",
        "takeback",
        "takeback_answer",
        "chat",
        "report_chat",
        "give_time",
    ];

    /// The command's name (one of [`GameCommand::NAMES`]).
    pub fn name(&self) -> &'static str {
        match self {
            GameCommand::Play { .. } => "action",
            GameCommand::Resign => "resign",
            GameCommand::Abort => "abort",
            GameCommand::Claim => "claim",
            GameCommand::Berserk => "berserk",
            GameCommand::Takeback => "takeback",
            GameCommand::TakebackAnswer { .. } => "takeback_answer",
            GameCommand::Chat { .. } => "chat",
            GameCommand::ReportChat { .. } => "report_chat",
            GameCommand::GiveTime => "give_time",
        }
    }

    /// The command named `name` if it has no fields (`resign`,
    /// `give_time`…): how every door reads one, from its name alone.
    pub fn without_fields(name: &str) -> Option<GameCommand> {
        Some(match name {
            "resign" => GameCommand::Resign,
            "abort" => GameCommand::Abort,
            "claim" => GameCommand::Claim,
            "berserk" => GameCommand::Berserk,
            "takeback" => GameCommand::Takeback,
            "give_time" => GameCommand::GiveTime,
            _ => return None,
        })
    }

    /// THE list of which command comes through which door: every command
    /// through every door, but a report of the chat, which is a person's
    /// (a BOT's author reads his logs, not a chat window).
    pub fn offered(&self, door: Door) -> bool {
        !matches!((self, door), (GameCommand::ReportChat { .. }, Door::Bot))
    }
}

/// What a command answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Acted {
    /// The game as the caller sees it (HTTP), or nothing (the caller hears
    /// of it with every listener).
    State(Option<Box<GameState>>),
    /// The chat line stored.
    Chat(ChatLine),
    /// Done, with nothing to say (a report).
    Done,
}

impl Games {
    /// Runs `command` on game `id` for the holder of `token`, come through
    /// `door` from `client` (if known: the AI's answer to an action counts
    /// against it). The one entrance of every player command.
    pub async fn act(
        &self,
        id: &str,
        door: Door,
        token: Option<String>,
        client: Option<IpAddr>,
        command: GameCommand,
    ) -> Result<Acted, GameError> {
        if !command.offered(door) {
            return Err(GameError::Refused(
                Said::new(
                    "command_not_here",
                    format!("{} is not offered through this door", command.name()),
                )
                .with("command", command.name()),
            ));
        }
        let state = |s: GameState| Acted::State(door.answers_state().then(|| Box::new(s)));
        Ok(match command {
            GameCommand::Play { action, ply } if door.answers_state() => Acted::State(Some(
                Box::new(self.play(id, token, action, ply, client).await?),
            )),
            GameCommand::Play { action, ply } => {
                self.play_quietly(id, token, action, ply, client).await?;
                Acted::State(None)
            }
            GameCommand::Resign => state(self.resign(id, token).await?),
            GameCommand::Abort => state(self.abort(id, token).await?),
            GameCommand::Claim => state(self.claim_win(id, token).await?),
            GameCommand::Berserk => state(self.berserk(id, token).await?),
            GameCommand::Takeback => state(self.takeback(id, token).await?),
            GameCommand::TakebackAnswer { accept } => {
                state(self.answer_takeback(id, token, accept).await?)
            }
            GameCommand::Chat { text } => Acted::Chat(self.chat(id, token, &text).await?),
            GameCommand::ReportChat { n } => {
                self.report_chat(id, token, n).await?;
                Acted::Done
            }
            GameCommand::GiveTime => state(self.give_time(id, token).await?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names are the table's: each command's name is listed once,
    /// and the list has no name no command has (a hand-kept list that a
    /// new variant could leave behind).
    #[test]
    fn every_command_has_one_listed_name() {
        let all = [
            GameCommand::Play {
                action: "1".into(),
                ply: None,
            },
            GameCommand::Resign,
            GameCommand::Abort,
            GameCommand::Claim,
            GameCommand::Berserk,
            GameCommand::Takeback,
            GameCommand::TakebackAnswer { accept: true },
            GameCommand::Chat { text: "hi".into() },
            GameCommand::ReportChat { n: 1 },
            GameCommand::GiveTime,
        ];
        let names: Vec<&str> = all.iter().map(GameCommand::name).collect();
        assert_eq!(names, GameCommand::NAMES);
        // A command without fields is read from its name alone; one with
        // fields never is.
        for c in &all {
            let fieldless = !matches!(
                c,
                GameCommand::Play { .. }
                    | GameCommand::TakebackAnswer { .. }
                    | GameCommand::Chat { .. }
                    | GameCommand::ReportChat { .. }
            );
            let read = GameCommand::without_fields(c.name());
            assert_eq!(read.as_ref(), fieldless.then_some(c), "{}", c.name());
        }
        // A person's socket and HTTP take every command; a BOT all but the
        // report.
        for c in &all {
            assert!(c.offered(Door::Http) && c.offered(Door::Socket));
            assert_eq!(c.offered(Door::Bot), c.name() != "report_chat");
        }
    }
}
