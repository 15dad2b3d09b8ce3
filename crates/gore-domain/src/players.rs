//! Players as the domain knows them before accounts: a browser session and
//! its display name ([`super::names`]), generated on its first visit and
//! changed when the player chooses one. The name is copied into each game
//! when the player takes a seat.
//!
//! A session is an id this server issued ([`Players::new_session`]) and has
//! not ended: an id a client makes up is no session (no fixation), and
//! one that ended (logged out, rotated) is none any more.

use std::sync::Arc;

use super::clock::Clock;
use super::names::{Name, NameError};
use super::{GameError, Said};
use crate::storage::{Store, StoreError, StoredPlayer};

/// The players' names, kept in the store. Cheap to clone.
#[derive(Clone)]
pub struct Players {
    store: Arc<dyn Store>,
    clock: Clock,
}

fn store_error(e: StoreError) -> GameError {
    match e {
        StoreError::Failed(_) => GameError::Unavailable,
        e => {
            tracing::error!("{e}");
            GameError::Internal("the server could not read or save the name; try again".into())
        }
    }
}

impl Players {
    /// The players of `store`.
    pub fn new(store: Arc<dyn Store>, clock: Clock) -> Players {
        Players { store, clock }
    }

    /// Issues a new session: a fresh secret, recorded, so that it is
    /// accepted when the browser sends it back.
    pub async fn new_session(&self) -> Result<String, GameError> {
        let session = super::new_token();
        self.store
            .create_session(session.clone(), self.clock.now_ms())
            .await
            .map_err(store_error)?;
        Ok(session)
    }

    /// Whether `session` is one: issued by a server and not ended.
    pub async fn is_session(&self, session: &str) -> Result<bool, GameError> {
        self.store
            .session_exists(session.to_string())
            .await
            .map_err(store_error)
    }

    /// The player of a browser session: its own, or a new one with a
    /// generated name (stored, so that it stays the same).
    pub async fn player_of(&self, session: &str) -> Result<StoredPlayer, GameError> {
        if let Some(p) = self
            .store
            .player(session.to_string())
            .await
            .map_err(store_error)?
        {
            return Ok(p);
        }
        let fresh = StoredPlayer {
            id: super::new_id(),
            name: Name::generate(&mut rand::thread_rng()).to_string(),
            account: false,
            bot: false,
        };
        self.store
            .create_player(session.to_string(), fresh, self.clock.now_ms())
            .await
            .map_err(store_error)
    }

    /// Gives a session the name it chose, checked ([`Name::parse`]); the
    /// refusal names the rule. Games already begun keep the old name.
    pub async fn rename(&self, session: &str, wanted: &str) -> Result<String, GameError> {
        let name = Name::parse(wanted).map_err(|e: NameError| GameError::Invalid {
            field: "name",
            said: e.said(),
        })?;
        let me = self.player_of(session).await?;
        if me.account {
            return Err(GameError::Invalid {
                field: "name",
                said: Said::new("name_is_username", "an account's name is its username"),
            });
        }
        // An account's name (or one like it) is his alone.
        let mut k = super::names::keys(name.as_str()).to_vec();
        k.dedup();
        if self.store.keys_taken(k).await.map_err(store_error)? {
            return Err(GameError::Invalid {
                field: "name",
                said: Said::new(
                    "name_is_account",
                    "this name is an account's, or looks like one: choose another",
                ),
            });
        }
        self.store
            .set_player_name(session.to_string(), name.to_string(), self.clock.now_ms())
            .await
            .map_err(store_error)?;
        Ok(name.to_string())
    }
}
