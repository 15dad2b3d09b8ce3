//! The chat of a game between people: a seated player's messages, their
//! rate limit, reports, and their delivery to the players' sockets on
//! every server.

use gore_core::Player;

use super::command::{Command, Cx, Steps, Who};
use super::{store_error, Games};
use crate::{ChatLine, GameError, Mode, Said, Seat};

/// The longest chat message, in characters.
pub const CHAT_MAX_CHARS: usize = 200;
/// Chat messages per seat in 10 seconds, at most.
pub const CHAT_PER_10S: usize = 5;

/// The chatting player of the caller's seat. The message itself is
/// checked and stored after the room's lock is let go (the delivery
/// takes the lock again, and a chat line never waits for a move).
struct Chatter {
    /// Writing is a sign of life; reporting is not.
    alive: bool,
}

impl Command for Chatter {
    type Done = Player;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<Player, GameError> {
        if self.alive {
            if cx.room.info.mode != Mode::Friend {
                return Err(GameError::Refused(Said::new(
                    "chat_not_people",
                    "chat is for games between two people",
                )));
            }
            let seat = cx.seat()?;
            cx.games.alive(cx.room, seat).await;
        }
        cx.player()
    }
}

impl Games {
    /// Sends a seated player's chat message (games between people): plain
    /// text, 1 to [`CHAT_MAX_CHARS`] characters, at most
    /// [`CHAT_PER_10S`] messages per seat in 10 seconds. Stored, then sent
    /// to both players' sockets on every server (spectators get none).
    pub(super) async fn chat(
        &self,
        id: &str,
        token: Option<String>,
        text: &str,
    ) -> Result<ChatLine, GameError> {
        let player = self
            .command(id, Who::Seat(token), Chatter { alive: true })
            .await?;
        let text = text.trim();
        let n = text.chars().count();
        if n == 0 || n > CHAT_MAX_CHARS {
            return Err(GameError::Invalid {
                field: "text",
                said: Said::new(
                    "chat_length",
                    format!("a message has 1 to {CHAT_MAX_CHARS} characters"),
                )
                .with("max", CHAT_MAX_CHARS),
            });
        }
        if text.chars().any(|c| c.is_control()) {
            return Err(GameError::Invalid {
                field: "text",
                said: Said::new("chat_one_line", "a message is one line of text"),
            });
        }
        let now = self.now();
        {
            let mut times = self.0.chat_times.lock().unwrap_or_else(|e| e.into_inner());
            let q = times.entry((id.to_string(), player)).or_default();
            while q.front().is_some_and(|&t| t <= now - 10_000) {
                q.pop_front();
            }
            if q.len() >= CHAT_PER_10S {
                return Err(GameError::ChatTooFast(CHAT_PER_10S));
            }
            q.push_back(now);
        }
        let line = self
            .0
            .store
            .post_chat(id.to_string(), player, text.to_string(), now)
            .await
            .map_err(store_error)?;
        self.0.store.announce_lobby(format!("chat {id}"));
        self.deliver_chat(id.to_string()).await;
        Ok(line)
    }

    /// The chat so far, for a seated player (spectators get none).
    pub async fn chat_history(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<Vec<ChatLine>, GameError> {
        let room_ref = self.room(id).await?;
        let seated = room_ref
            .read(|room| {
                let seat = token.and_then(|t| room.seat_of(t));
                matches!(seat, Some(Seat::A | Seat::B)) && room.info.mode == Mode::Friend
            })
            .await;
        if !seated {
            return Ok(Vec::new());
        }
        self.0
            .store
            .chat_after(id.to_string(), 0)
            .await
            .map_err(store_error)
    }

    /// Reports message `n` for the seated player: recorded (the page
    /// hides that player's messages for the reporter).
    pub(super) async fn report_chat(
        &self,
        id: &str,
        token: Option<String>,
        n: u32,
    ) -> Result<(), GameError> {
        let reporter = self
            .command(id, Who::Seat(token), Chatter { alive: false })
            .await?;
        self.0
            .store
            .report_chat(id.to_string(), n, reporter, self.now())
            .await
            .map_err(store_error)
    }

    /// Sends the chat messages of a game in memory that its sockets here
    /// have not had.
    pub(super) async fn deliver_chat(&self, id: String) {
        let Some(room_ref) = self.rooms().get(&id).and_then(|c| c.get().cloned()) else {
            return;
        };
        let seen = room_ref.read(|r| r.chat_seen).await;
        match self.0.store.chat_after(id, seen).await {
            Ok(lines) => {
                let _ = self.in_room(&room_ref, move |r| r.chat_send(lines)).await;
            }
            Err(e) => tracing::warn!("chat: {e}"),
        }
    }
}
