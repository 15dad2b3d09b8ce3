//! What the games report as they run, for whoever watches the server
//! (its metrics): a port, as `storage` is, so that the domain knows
//! nothing of how it is counted. Every method does nothing by default.

use std::time::Duration;

/// Told of the domain's events; cheap and never blocking (it is called
/// under a room's lock).
pub trait Observer: Send + Sync + 'static {
    /// A change of a game was committed to the store (`ok`) or refused
    /// by it, after `took`.
    fn committed(&self, took: Duration, ok: bool) {
        let _ = (took, ok);
    }

    /// A notice of another server's change arrived (several servers).
    fn notice(&self) {}

    /// A game in memory was caught up with the store after a notice,
    /// `took` after the notice arrived.
    fn caught_up(&self, took: Duration) {
        let _ = took;
    }

    /// A tournament of `kind` (`"arena"` or `"swiss"`) paired `games`
    /// games (at least one) in a pass of its holder that took `took`,
    /// from its start to the commit of the games.
    fn paired(&self, kind: &'static str, games: usize, took: Duration) {
        let _ = (kind, games, took);
    }
}

/// The observer that is told nothing: the default.
pub struct Unobserved;

impl Observer for Unobserved {}
