//! A game's room in memory, shared ([`RoomRef`]), and the one lock on
//! it. Its lock is private to the games: the edges and the rest of the
//! domain cannot take it (the compiler keeps them out), and among the
//! games only the path of command.rs takes it for a change
//! (tests/layout.rs); the others read.

use std::sync::Arc;

use tokio::sync::{Mutex, MutexGuard};

use crate::Room;

/// A game's room in memory, shared by whoever holds the game: the
/// registry, its sockets, its AI. Its lock is private to the games (the
/// edges cannot name it), and only the path (command.rs) takes it for a
/// change (tests/layout.rs); a read goes through its `read` or `peek`.
#[derive(Clone)]
pub struct RoomRef(Arc<Mutex<Room>>);

impl std::fmt::Debug for RoomRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RoomRef")
    }
}

impl RoomRef {
    /// A room, shared from now on.
    pub(super) fn new(room: Room) -> Self {
        RoomRef(Arc::new(Mutex::new(room)))
    }

    /// The room's lock, for a change: taken by the path alone
    /// (command.rs; tests/layout.rs keeps it so). Everything else reads.
    pub(super) async fn lock(&self) -> MutexGuard<'_, Room> {
        self.0.lock().await
    }

    /// Reads the room, waiting for the command changing it now, if any.
    pub(super) async fn read<T>(&self, f: impl FnOnce(&Room) -> T) -> T {
        f(&*self.0.lock().await)
    }

    /// Reads the room if nothing is changing it now (`None` if something
    /// is: housekeeping that looks at every room leaves it to its next
    /// look rather than wait).
    pub(super) fn peek<T>(&self, f: impl FnOnce(&Room) -> T) -> Option<T> {
        self.0.try_lock().ok().map(|r| f(&r))
    }

    /// The room's lock, for the path's own tests only (the `test-support`
    /// feature, which no server build turns on): to hold a room busy, or
    /// look at it between two steps.
    #[cfg(feature = "test-support")]
    pub async fn lock_for_test(&self) -> MutexGuard<'_, Room> {
        self.0.lock().await
    }

    /// Whether `self` and `other` are the same room.
    pub(super) fn same(&self, other: &RoomRef) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
