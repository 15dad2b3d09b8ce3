//! A rematch: a new game like the old one, the seats swapped.

use std::net::IpAddr;

use super::command::{Command, Cx, Steps, Who};
use super::create::new_info;
use super::{player_of, Games, NewGameSpec, SeatGrant};
use crate::{GameError, Said, Seat};

/// The caller's rematch: made, or the other seat of the one made.
struct Rematch {
    /// The caller's address (the new game's AI counts against it).
    client: Option<IpAddr>,
}

impl Command for Rematch {
    type Done = SeatGrant;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<SeatGrant, GameError> {
        let seat = cx.seat()?;
        // A BOT answers no rematch (it never takes a seat but through a
        // challenge): one is asked by challenging it again.
        if cx.room.info.bots.contains(&true) {
            return Err(GameError::Refused(Said::new(
                "rematch_bot",
                "a game against a BOT has no rematch: challenge it again",
            )));
        }
        let new_seat = seat.swapped();
        // The caller's name and public id as they were in this game.
        let (name, player) = match player_of(seat) {
            Some(p) => (
                cx.room.info.names[p.index()].clone(),
                cx.room.info.players[p.index()].clone(),
            ),
            None => (None, None),
        };
        if let Some(new_id) = cx.room.info.rematch.clone() {
            let new_ref = cx.games.room(&new_id).await?;
            let join = JoinRematch {
                seat: new_seat,
                who: name.zip(player),
            };
            return cx.games.on_room(&new_ref, join).await;
        }
        let spec = NewGameSpec {
            mode: cx.room.info.mode,
            rules: cx.room.info.rules,
            start: cx.room.info.start,
            level: cx.room.info.level,
            perfect: cx.room.info.perfect,
            honourable: cx.room.info.honourable,
            colour: None,
            clock: cx.room.info.clock,
            name,
            player,
        };
        let info = new_info(&spec, new_seat, cx.games.now());
        let grant = cx
            .games
            .insert_game(info, Some(cx.room.info.id.clone()), self.client)
            .await?;
        cx.room.info.rematch = Some(grant.id.clone());
        cx.changed();
        Ok(grant)
    }
}

/// The other player of a game takes his seat in the rematch made (the
/// rematch's room, under its own lock): its creator's seat is his own
/// again; the other is claimed with the rematch's invitation.
struct JoinRematch {
    /// The seat in the rematch (his old one, swapped).
    seat: Seat,
    /// His display name and public id as they were in the old game.
    who: Option<(String, String)>,
}

impl Command for JoinRematch {
    type Done = SeatGrant;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<SeatGrant, GameError> {
        let info = &cx.room.info;
        if self.seat == info.creator {
            return Ok(SeatGrant {
                id: info.id.clone(),
                seat: self.seat,
                token: info.tokens.get(self.seat).unwrap_or_default().into(),
                invite: info.invite.clone(),
            });
        }
        match info.invite.clone() {
            Some(code) => {
                cx.games
                    .claim_locked(cx.room_ref, cx.room, &code, self.who)
                    .await
            }
            None => Err(GameError::Claimed(Said::new(
                "rematch_taken",
                "the other seat of this rematch is already taken",
            ))),
        }
    }
}

impl Games {
    /// A new game with the same mode, rules, start and level, the seats
    /// swapped. The first caller creates it; the other player of a friend
    /// game, calling later, gets the other seat of that same rematch.
    pub async fn rematch(
        &self,
        id: &str,
        token: Option<String>,
        client: Option<IpAddr>,
    ) -> Result<SeatGrant, GameError> {
        self.command(id, Who::Seat(token), Rematch { client }).await
    }
}
