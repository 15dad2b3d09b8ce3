//! Creations refused lately: refused again at once, without the database
//! (issue 37: each refusal there is three write transactions, and a flood
//! of them cost more than creations did).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::{GameError, Said};

use super::{OPEN_PER_ACCOUNT, OPEN_PER_ADDRESS};

/// How long a refused creation is refused again without asking the
/// database (a place freed meanwhile is seen after it).
pub const REFUSED_FOR_MS: i64 = 10_000;
/// Pairs refused lately kept at most (a stranger grows the map with his
/// addresses: past this, the expired are dropped, then all).
const REFUSED_KEPT: usize = 4_096;

/// A creator and the address he created from.
pub(super) type Pair = (String, Option<String>);

/// The pairs refused lately, and until when.
#[derive(Debug, Default)]
pub(super) struct Refused(Mutex<HashMap<Pair, i64>>);

impl Refused {
    /// Whether `pair` was refused less than [`REFUSED_FOR_MS`] before `now`.
    pub(super) fn lately(&self, pair: &Pair, now: i64) -> bool {
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(pair).is_some_and(|&until| until > now)
    }

    /// `pair` was refused at `now`.
    pub(super) fn note(&self, pair: Pair, now: i64) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= REFUSED_KEPT {
            map.retain(|_, until| *until > now);
            if map.len() >= REFUSED_KEPT {
                map.clear();
            }
        }
        map.insert(pair, now + REFUSED_FOR_MS);
    }
}

/// The refusal of a creation beyond the caps, naming them.
pub(super) fn too_many_tournaments() -> GameError {
    GameError::Refused(
        Said::new(
            "too_many_tournaments",
            format!(
                "{OPEN_PER_ACCOUNT} tournaments not over at most for an account \
                 ({OPEN_PER_ADDRESS} from one address): wait until one is over"
            ),
        )
        .with("max", usize::from(OPEN_PER_ACCOUNT))
        .with("address_max", usize::from(OPEN_PER_ADDRESS)),
    )
}
