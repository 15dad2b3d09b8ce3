//! Game reviews: a finished game's (by its id) or an uploaded record's,
//! computed by [`gore_learn::review`] on the analysis pool (never the
//! games' AI pool) at a budget the server decides, bounded per client by
//! the pool and served in turn with the analyses, address by address
//! ([`crate::ai::FairQueue`]: a review no longer jumps ahead of them). A game's review is kept in a bounded LRU cache, so that a
//! second visitor gets it at once; visitors asking while it is computed
//! wait for the same computation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use gore_core::{Record, RecordResult};
use gore_learn::review::{annotate, review, Budget, Review};
use gore_solver::disk::Database;
use tokio::sync::OnceCell;

use crate::ai::{AiJob, AiPool, ClientKey};
use crate::domain::{GameError, Said};

/// The budget of the server's reviews: depth 8, at most 100 000 nodes a
/// search (deterministic: the same game always gets the same review).
pub const BUDGET: Budget = Budget {
    depth: 8,
    nodes: 100_000,
};

/// The most actions a reviewed record may hold (the server's games end by
/// `--max-plies` long before; an upload is refused beyond).
pub const MAX_ACTIONS: usize = 600;

/// The most bytes of an uploaded record.
pub const MAX_RECORD_BYTES: usize = 12 * 1024;

/// Finished games' reviews kept in memory.
pub const CACHE: usize = 64;

/// A review and the record it annotates.
#[derive(Debug, Clone, PartialEq)]
pub struct Reviewed {
    /// The record as reviewed (its comments the evaluations).
    pub record: Record,
    /// The review.
    pub review: Review,
}

type Slot = Arc<OnceCell<Arc<Reviewed>>>;

/// Where a review is: what `GET /api/games/{id}/review/status` and
/// `GET /api/review/status` tell a visitor whose review request waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewState {
    /// Computed (a finished game's, in the cache).
    Done,
    /// Waiting for a thread of the analysis pool, `place` jobs before it.
    Queued {
        /// Jobs that will run before it if no other comes.
        place: usize,
    },
    /// Being computed.
    Running,
    /// Neither asked for nor kept.
    Absent,
}

/// The state of job `job` on `pool`.
fn state_of(pool: &AiPool, job: &str) -> ReviewState {
    match pool.place_of(job) {
        None => ReviewState::Absent,
        Some(None) => ReviewState::Running,
        Some(Some(place)) => ReviewState::Queued { place },
    }
}

/// Where `client`'s review of an uploaded record is.
pub fn upload_state(pool: &AiPool, client: &ClientKey) -> ReviewState {
    state_of(pool, &upload_job(client))
}

/// The pool's name of `client`'s upload review (one at a time).
fn upload_job(client: &ClientKey) -> String {
    format!("review-upload:{client}")
}

/// The cache of finished games' reviews, least recently used first out.
#[derive(Default)]
pub struct Reviews {
    inner: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    slots: HashMap<String, (Slot, u64)>,
    tick: u64,
}

impl Reviews {
    /// An empty cache.
    pub fn new() -> Reviews {
        Reviews::default()
    }

    /// The slot of game `id`, made if absent (evicting the least recently
    /// used finished review beyond [`CACHE`]).
    fn slot(&self, id: &str) -> Slot {
        let mut c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        c.tick += 1;
        let tick = c.tick;
        if let Some((slot, used)) = c.slots.get_mut(id) {
            *used = tick;
            return slot.clone();
        }
        if c.slots.len() >= CACHE {
            // Reviews under way are never evicted: their waiters hold them.
            let oldest = c
                .slots
                .iter()
                .filter(|(_, (s, _))| s.initialized() || Arc::strong_count(s) == 1)
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                c.slots.remove(&k);
            }
        }
        let slot: Slot = Arc::new(OnceCell::new());
        c.slots.insert(id.to_string(), (slot.clone(), tick));
        slot
    }

    /// Where game `id`'s review is.
    pub fn state(&self, id: &str, pool: &AiPool) -> ReviewState {
        if self.cached(id) {
            return ReviewState::Done;
        }
        state_of(pool, &format!("review:{id}"))
    }

    /// Whether game `id`'s review is in the cache.
    pub fn cached(&self, id: &str) -> bool {
        let c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        c.slots.get(id).is_some_and(|(s, _)| s.initialized())
    }

    /// The review of finished game `id` whose record is `text`: from the
    /// cache, or computed on `pool` for `client`. A game not finished (or
    /// aborted) is refused.
    pub async fn of_game(
        &self,
        id: &str,
        text: &str,
        pool: &AiPool,
        solved: &[Arc<Database>],
        client: ClientKey,
    ) -> Result<Arc<Reviewed>, GameError> {
        let record = Record::parse(text).map_err(|e| GameError::Internal(e.to_string()))?;
        if !matches!(record.result, Some(RecordResult::Finished { .. })) {
            return Err(GameError::Refused(Said::new(
                "review_unfinished",
                "the game is not finished: its review comes once it has ended",
            )));
        }
        let slot = self.slot(id);
        let job = format!("review:{id}");
        let got = slot
            .get_or_try_init(|| compute(record, pool, solved, client, job))
            .await?;
        Ok(got.clone())
    }
}

/// Reads an uploaded record: its size, its syntax and its replay, each
/// refusal naming the field `record` (and the line or the action).
pub fn read_upload(text: &str) -> Result<Record, GameError> {
    let bad = |why: String| GameError::BadField {
        field: "record",
        why,
    };
    if text.len() > MAX_RECORD_BYTES {
        return Err(bad(format!(
            "the record is {} bytes; at most {MAX_RECORD_BYTES}",
            text.len()
        )));
    }
    let record = Record::parse(text).map_err(|e| bad(e.to_string()))?;
    if record.actions.len() > MAX_ACTIONS {
        return Err(bad(format!(
            "the record has {} actions; a review takes at most {MAX_ACTIONS}",
            record.actions.len()
        )));
    }
    record.replay().map_err(|e| bad(e.to_string()))?;
    Ok(record)
}

/// The review of an uploaded record (see [`read_upload`]), computed on
/// `pool` for `client` (not cached: uploads are the client's own).
pub async fn of_upload(
    text: &str,
    pool: &AiPool,
    solved: &[Arc<Database>],
    client: ClientKey,
) -> Result<Arc<Reviewed>, GameError> {
    let record = read_upload(text)?;
    let job = upload_job(&client);
    compute(record, pool, solved, client, job).await
}

/// Runs the review on the analysis pool.
async fn compute(
    record: Record,
    pool: &AiPool,
    solved: &[Arc<Database>],
    client: ClientKey,
    job: String,
) -> Result<Arc<Reviewed>, GameError> {
    let db = solved
        .iter()
        .find(|d| d.skip_origin() == record.rules.variant.skip_origin)
        .cloned();
    let ticket = pool
        .submit(AiJob::new(client, job, 0, move |stop| {
            let r = review(&record, BUDGET, db.as_deref(), stop)?;
            Ok::<_, gore_learn::review::ReviewError>(Reviewed {
                record: annotate(&record, &r),
                review: r,
            })
        }))
        .map_err(|e| GameError::Busy(format!("review: {}", super::analysis::busy_text(e))))?;
    let done = ticket
        .await
        .map_err(|e| GameError::Internal(e.to_string()))?;
    done.map(Arc::new)
        .map_err(|e| GameError::Internal(format!("review: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished review, as a cache slot holds it.
    fn done() -> Arc<Reviewed> {
        let record = Record::new(gore_core::Rules::STANDARD);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let review = review(&record, BUDGET, None, &stop).unwrap();
        Arc::new(Reviewed { record, review })
    }

    #[test]
    fn the_cache_keeps_the_most_recently_used_reviews() {
        let reviews = Reviews::new();
        let r = done();
        for i in 0..CACHE {
            reviews.slot(&format!("g{i}")).set(r.clone()).unwrap();
        }
        // g0 used again: g1 is now the least recently used.
        assert!(reviews.slot("g0").initialized());
        reviews.slot("new").set(r.clone()).unwrap();
        assert!(reviews.cached("g0"));
        assert!(!reviews.cached("g1"), "the least recently used went");
        assert!(reviews.cached("g2") && reviews.cached("new"));
        let c = reviews.inner.lock().unwrap();
        assert_eq!(c.slots.len(), CACHE);
    }

    #[test]
    fn a_review_under_way_is_not_evicted() {
        let reviews = Reviews::new();
        // The first slot is held by its computation (not initialized).
        let under_way = reviews.slot("busy");
        let r = done();
        for i in 0..CACHE {
            reviews.slot(&format!("g{i}")).set(r.clone()).unwrap();
        }
        assert_eq!(Arc::strong_count(&under_way), 2, "still in the cache");
        assert!(
            !reviews.cached("g0"),
            "the oldest finished one went instead"
        );
    }
}
