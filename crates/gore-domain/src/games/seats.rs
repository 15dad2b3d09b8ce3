//! The ways to a seat: a friend game's invitation, the links that open a
//! seat on another device, the seats a browser session remembers.

use super::command::{Command, Cx, Steps, Who};
use super::{player_of, store_error, Games, RoomRef, SeatGrant};
use crate::clock;
use crate::{device_secret, new_token, same_secret, valid_id, GameError, Mode, Said};
use crate::{Room, Status};

/// Claims a friend game's invitation with its code.
struct ClaimInvite {
    /// The invitation's code.
    code: String,
    /// The claimer's display name and public id.
    who: Option<(String, String)>,
}

impl Command for ClaimInvite {
    type Done = SeatGrant;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<SeatGrant, GameError> {
        cx.games
            .claim_locked(cx.room_ref, cx.room, &self.code, self.who)
            .await
    }
}

/// Makes the caller's device link (or answers the one made before).
struct DeviceCode;

impl Command for DeviceCode {
    type Done = String;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<String, GameError> {
        let seat = cx.seat()?;
        if let Some(code) = cx.room.info.devices.get(seat) {
            return Ok(code.to_string());
        }
        let code = new_token();
        cx.games
            .commit_device(cx.room, seat, Some(code.clone()))
            .await?;
        Ok(code)
    }
}

/// Revokes the caller's device link.
struct RevokeDevice;

impl Command for RevokeDevice {
    type Done = ();
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<(), GameError> {
        let seat = cx.seat()?;
        cx.games.commit_device(cx.room, seat, None).await
    }
}

impl Games {
    /// Claims a friend game's invitation: the friend's seat gets a new
    /// secret, the game starts, and the code is spent. A code already
    /// spent is `Claimed`; a code that never was this game's, `NoGame`.
    /// `who` is the claimer's display name and public id.
    pub async fn claim_invite(
        &self,
        id: &str,
        code: &str,
        who: Option<(String, String)>,
    ) -> Result<SeatGrant, GameError> {
        let claim = ClaimInvite {
            code: code.to_string(),
            who,
        };
        self.command(id, Who::Anyone, claim).await
    }

    /// The link code that opens the caller's seat on another device
    /// (made the first time, then the same until revoked).
    pub async fn device_code(&self, id: &str, token: Option<String>) -> Result<String, GameError> {
        self.command(id, Who::Seat(token), DeviceCode).await
    }

    /// Revokes the caller's device link: opening it is then refused, and
    /// the devices that claimed it no longer hold the seat.
    pub async fn revoke_device(&self, id: &str, token: Option<String>) -> Result<(), GameError> {
        self.command(id, Who::Seat(token), RevokeDevice).await
    }

    pub(super) async fn claim_locked(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        code: &str,
        who: Option<(String, String)>,
    ) -> Result<SeatGrant, GameError> {
        let (name, player_id) = match who {
            Some((n, p)) => (Some(n), Some(p)),
            None => (None, None),
        };
        if room.info.mode != Mode::Friend {
            return Err(GameError::NoGame);
        }
        let Some(invite) = room.info.invite.clone() else {
            return Err(GameError::Claimed(Said::new(
                "invitation_used",
                "this invitation has already been used by another browser; \
                 ask your friend for a new game",
            )));
        };
        if !same_secret(&invite, code) {
            return Err(GameError::NoGame);
        }
        if room.dead {
            return Err(GameError::Internal(
                "the game is being reloaded; try again".into(),
            ));
        }
        let seat = room.info.creator.swapped();
        let player = player_of(seat).ok_or(GameError::NoSeat)?;
        let token = new_token();
        let now = self.now();
        // The first action's deadline, from now (a timed game).
        let deadline = room.info.clock.and_then(|tc| {
            let to_act = room.game.position().to_move();
            clock::clocks(tc, now, &[], Some(to_act), now)
                .deadline
                .map(|(at, _)| at)
        });
        let claim = crate::storage::SeatClaim {
            token: token.clone(),
            name: name.clone(),
            player: player_id.clone(),
            now,
            deadline,
        };
        let claimed = self
            .commit_claim(room_ref, room, invite, player, claim)
            .await?;
        if !claimed {
            // Another server claimed it first: what is in memory is old.
            self.evict(room_ref, room);
            return Err(GameError::Claimed(Said::new(
                "invitation_used",
                "this invitation has already been used by another browser; \
                 ask your friend for a new game",
            )));
        }
        room.info.invite = None;
        room.info.tokens.set(seat, Some(token.clone()));
        room.info.status = Status::Playing;
        room.info.started_at = Some(now);
        room.info.deadline = deadline;
        room.info.names[player.index()] = name;
        room.info.players[player.index()] = player_id;
        let ply = room.ply();
        room.changed(ply);
        tracing::info!("game {}: the friend has arrived", room.id());
        Ok(SeatGrant {
            id: room.info.id.clone(),
            seat,
            token,
            invite: None,
        })
    }

    /// Opens a device link: the seat it was made for, with this device's
    /// own secret (never the seat's), which revoking the link ends.
    pub async fn claim_device(&self, id: &str, code: &str) -> Result<SeatGrant, GameError> {
        let room_ref = self.room(id).await?;
        room_ref
            .read(|room| {
                let seat = room
                    .info
                    .devices
                    .find(code)
                    .ok_or(GameError::Claimed(Said::new(
                        "link_revoked",
                        "this link was revoked, or is not this game's: ask for a new one",
                    )))?;
                let secret = room.info.tokens.get(seat).ok_or(GameError::NoSeat)?;
                Ok(SeatGrant {
                    id: room.info.id.clone(),
                    seat,
                    token: device_secret(secret, code),
                    invite: None,
                })
            })
            .await
    }

    /// Remembers that a browser session holds a seat.
    pub async fn remember_seat(
        &self,
        session: String,
        id: String,
        token: String,
    ) -> Result<(), GameError> {
        self.0
            .store
            .remember_seat(session, id, token)
            .await
            .map_err(store_error)
    }

    /// The token a browser session holds in a game.
    pub async fn session_token(
        &self,
        session: &str,
        id: &str,
    ) -> Result<Option<String>, GameError> {
        if !valid_id(id) {
            return Ok(None);
        }
        self.0
            .store
            .session_token(session.to_string(), id.to_string())
            .await
            .map_err(store_error)
    }
}
