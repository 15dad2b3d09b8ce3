//! A new game: its facts and secrets drawn, stored, its room made, and
//! the AI's first turn if it moves first.

use std::net::IpAddr;
use std::sync::Arc;

use gore_core::Player;
use rand::Rng;
use tokio::sync::OnceCell;

use super::ai_turns::ai_refused;
use super::{player_of, store_error, Games, NewGameSpec, RoomRef, SeatGrant};
use crate::ai::ClientKey;
use crate::storage::StoreError;
use crate::{new_id, new_token, GameError, GameInfo, Mode, Room, Seat};

impl Games {
    /// Creates a game for the client at `client` (if known); returns the
    /// creator's seat. An ai game whose AI moves first is refused `Busy`
    /// when the AI could not take its turn now (the creator's cap, or the
    /// queue full): better a clear refusal than a game that waits.
    pub async fn create(
        &self,
        spec: NewGameSpec,
        client: Option<IpAddr>,
    ) -> Result<SeatGrant, GameError> {
        let colour = spec.colour.unwrap_or_else(|| {
            if rand::thread_rng().gen() {
                Player::A
            } else {
                Player::B
            }
        });
        let creator = match spec.mode {
            Mode::Local => Seat::Both,
            _ => Seat::of(colour),
        };
        if spec.perfect {
            self.perfect_for(spec.mode, spec.rules)?;
        }
        if spec.clock.is_some() && spec.mode != Mode::Friend {
            return Err(GameError::BadField {
                field: "clock",
                why: "clocks are for games between people: friend games".into(),
            });
        }
        let info = new_info(&spec, creator, self.now());
        self.insert_game(info, None, client).await
    }

    /// Stores a new game and makes its room; returns the creator's seat.
    pub(super) async fn insert_game(
        &self,
        mut info: GameInfo,
        rematch_of: Option<String>,
        client: Option<IpAddr>,
    ) -> Result<SeatGrant, GameError> {
        if self.failure().is_some() {
            return Err(GameError::Unavailable);
        }
        let ai_client = client.map(ClientKey::ip);
        // The workers search (`--ai-threads 0`): no pool here refuses an
        // address's flood of AI-first games, so the store counts its turns
        // due, against the pool's cap (issue 37: 20 addresses made 1,416
        // level-12 games in 20 s, and an innocent's waited behind them).
        if info.mode == Mode::Ai && !self.searches() {
            if let Some(key) = &ai_client {
                let due = self
                    .0
                    .store
                    .ai_turns_due_of(key.to_string())
                    .await
                    .map_err(store_error)?;
                let limit = self.0.settings.ai_per_client;
                if due as usize >= limit {
                    return Err(ai_refused(crate::ai::AiBusy::Client { limit }));
                }
            }
        }
        let mut tries = 0;
        let (room, first) = loop {
            let mut room = Room::new(info.clone(), self.0.settings.max_plies);
            room.clock = self.0.settings.clock.clone();
            room.ai_client = ai_client.clone();
            // An AI that moves first takes its place in the AI pool before
            // the game is stored: refused (the creator's cap, the queue
            // full), nothing is stored and the creator is told `busy`.
            // (A web server whose AI is the workers' leaves it to them:
            // the game is stored with its AI turn due.)
            let first = if room.ai_to_move() && self.searches() {
                let job = self.ai_job(&room);
                let key = job.client.clone();
                let ticket = self.0.ai.submit(job).map_err(|e| {
                    tracing::info!(
                        "new game refused for {key}: {e} (AI: {})",
                        self.0.ai.stats()
                    );
                    ai_refused(e)
                })?;
                room.ai_busy = true;
                Some(ticket)
            } else {
                None
            };
            match self
                .0
                .store
                .create_game(info.clone(), rematch_of.clone())
                .await
            {
                Ok(()) => break (room, first),
                // 50 random bits rarely collide; draw again if they do (the
                // AI's job for the old id is withdrawn with its ticket).
                Err(StoreError::Conflict) if tries < 3 => {
                    tries += 1;
                    info.id = new_id();
                }
                Err(e) => return Err(store_error(e)),
            }
        };
        let grant = SeatGrant {
            id: info.id.clone(),
            seat: info.creator,
            token: info.tokens.get(info.creator).unwrap_or_default().into(),
            invite: info.invite.clone(),
        };
        let id = info.id.clone();
        tracing::info!(
            "game {id} created ({} {})",
            info.mode.as_str(),
            info.creator.as_str()
        );
        if let (Mode::Ai, Some(client)) = (info.mode, &room.ai_client) {
            // For the workers, who share their searches among addresses; a
            // failure only leaves this game sharing the unknown's turn.
            if let Err(e) = self
                .0
                .store
                .set_ai_client(id.clone(), client.to_string())
                .await
            {
                tracing::warn!("game {id}: its address not recorded: {e}");
            }
        }
        let room = RoomRef::new(room);
        let cell = Arc::new(OnceCell::new_with(Some(room.clone())));
        self.rooms().insert(id, cell);
        let first = match first {
            // Several servers on one store: the first turn is this
            // server's too (no other knew the game before it was stored,
            // but any may load it now).
            Some(ticket) => match self.claim_ai_turn(grant.id.clone(), crate::Ply::ZERO).await {
                Ok(true) => Some(ticket),
                _ => {
                    drop(ticket); // stops the search
                    let _ = self.in_room(&room, |r| r.ai_busy = false).await;
                    None
                }
            },
            None => None,
        };
        match first {
            Some(ticket) => self.spawn_ai_turns(room, Some(ticket)),
            None => self.start_ai(room),
        }
        Ok(grant)
    }
}

/// A new game's facts, with fresh id and secrets: the creator's seat gets
/// its secret; a friend game's other seat gets an invitation code instead,
/// which mints that seat's secret when it is claimed.
pub(super) fn new_info(spec: &NewGameSpec, creator: Seat, now: i64) -> GameInfo {
    let mut info = GameInfo::new(spec.mode, spec.rules, now);
    info.start = spec.start;
    info.level = spec.level;
    info.perfect = spec.perfect;
    info.honourable = spec.honourable;
    info.creator = creator;
    info.clock = spec.clock;
    match (spec.mode, creator) {
        (Mode::Local, _) | (_, Seat::Both) => info.tokens.set(Seat::Both, Some(new_token())),
        (Mode::Ai, seat) => {
            info.tokens.set(seat, Some(new_token()));
            info.ai_seat = Some(if seat == Seat::A {
                Player::B
            } else {
                Player::A
            });
        }
        (Mode::Friend, seat) => {
            info.tokens.set(seat, Some(new_token()));
            info.invite = Some(new_token());
        }
    }
    if let Some(i) = player_of(creator).map(Player::index) {
        info.names[i] = spec.name.clone();
        info.players[i] = spec.player.clone();
    }
    // A friend game waits for the friend; the others begin now.
    if spec.mode != Mode::Friend {
        info.begin(now);
    }
    info
}
