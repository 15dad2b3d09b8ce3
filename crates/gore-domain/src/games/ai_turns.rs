//! The AI's turns: its searches in the AI pool (crate::ai), the leases
//! that let one server of several compute a turn, the retry of turns
//! refused for want of capacity, and the solver database's perfect player
//! and leaf evaluation.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gore_ai::{Engine, Level, Options};
use gore_core::{Action, Rules};
use gore_solver::perfect::Perfect;

use super::command::{Command, Cx, Steps};
use super::{store_error, Games, RoomRef};
use crate::ai::{AiBusy, AiJob, AiTicket, ClientKey};
use crate::storage::At;
use crate::{GameError, Mode, Ply, Room};

/// A search of the AI's turn and where the game stood when it began.
type Turn = (AiTicket<Option<Action>>, At, String);

/// The AI's next turn in a room: the search given (`first`), or one
/// claimed (several servers on one store) and submitted to the pool; none
/// when the AI is not to act, another server has the turn, or the pool
/// is full (the game goes on the retry list). Clears `ai_busy` when it
/// stops, under the same lock as the check.
struct AiTurn {
    first: Option<AiTicket<Option<Action>>>,
}

impl Command for AiTurn {
    type Done = Option<Turn>;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(mut self, cx: &mut Cx<'_>) -> Result<Option<Turn>, GameError> {
        let games = cx.games;
        let room = &mut *cx.room;
        // (A worker stopping takes up no further turn.)
        if !room.ai_to_move() || room.dead || (self.first.is_none() && !games.searches()) {
            room.ai_busy = false;
            return Ok(None);
        }
        let id = room.info.id.clone();
        let ticket = match self.first.take() {
            Some(t) => t,
            None => {
                // Several servers on one store: one computes the turn,
                // the one whose claim the store accepts.
                let claimed = games.claim_ai_turn(id.clone(), room.ply()).await?;
                tracing::debug!(
                    "game {id}: the AI's turn at ply {} claimed by {}: {claimed}",
                    room.ply(),
                    games.0.server
                );
                if !claimed {
                    room.ai_busy = false;
                    return Ok(None);
                }
                let job = games.ai_job(room);
                let client = job.client.clone();
                match games.0.ai.submit(job) {
                    Ok(t) => t,
                    Err(e) => {
                        // Under the room's lock, so that a retry cannot
                        // find it still busy and give up.
                        room.ai_busy = false;
                        tracing::debug!(
                            "game {id}: the AI's turn for {client} waits for capacity: {e} \
                             (AI: {})",
                            games.0.ai.stats()
                        );
                        games.retry_later(id);
                        return Ok(None);
                    }
                }
            }
        };
        Ok(Some((ticket, room.at(), id)))
    }
}

/// The AI's chosen action, played if the game still stands where its
/// search began (`true`).
struct AiPlay {
    at: At,
    action: Action,
}

impl Command for AiPlay {
    type Done = bool;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<bool, GameError> {
        if cx.room.at() != self.at || cx.room.dead || !cx.room.ai_to_move() {
            return Ok(false);
        }
        cx.commit(self.action).await?;
        Ok(true)
    }
}

impl Games {
    /// How long a server's claim on an AI turn lasts: longer than any
    /// search (the top level's time, five times over at most).
    pub(super) fn ai_lease(&self) -> Duration {
        self.0.settings.ai_time * 10 + Duration::from_secs(5)
    }

    /// The perfect player for an ai game of `rules`, or why there is none.
    pub(super) fn perfect_for(&self, mode: Mode, rules: Rules) -> Result<Arc<Perfect>, GameError> {
        let bad = |why: &str| GameError::BadField {
            field: "perfect",
            why: why.into(),
        };
        if mode != Mode::Ai {
            return Err(bad("the perfect player is an AI: ai games only"));
        }
        if !rules.variant.no_trades {
            return Err(bad(
                "the perfect player plays only games without trades (rules no-trades)",
            ));
        }
        if self.0.settings.perfect.is_empty() {
            return Err(bad(
                "this server has no solver database (gore serve --solver-db DIR)",
            ));
        }
        self.0
            .settings
            .perfect
            .iter()
            .find(|p| p.check(rules.variant).is_ok())
            .cloned()
            .ok_or_else(|| bad("this server's solver database has no layer of these rules"))
    }

    /// The leaf evaluation the AI at `level` gets in games of `rules`: the
    /// database's, for the top level only (the levels below keep the
    /// character their ladder was tuned with).
    pub(super) fn oracle_for(
        &self,
        level: Level,
        rules: Rules,
    ) -> Option<Arc<dyn gore_ai::Oracle>> {
        oracle_for(&self.0.settings.oracles, level, rules)
    }

    /// The no-trade rule sets this server plays perfectly (the page offers
    /// the perfect level for them).
    pub fn perfect_rules(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (skip, name) in [(false, "no-trades"), (true, "no-trades,skip-origin")] {
            let mut variant = gore_core::Variant::STANDARD;
            variant.no_trades = true;
            variant.skip_origin = skip;
            if self
                .0
                .settings
                .perfect
                .iter()
                .any(|p| p.check(variant).is_ok())
            {
                v.push(name);
            }
        }
        v
    }

    /// Starts the AI on this game if it is to act and not already busy,
    /// and this process searches (not a web server whose AI is the
    /// workers', nor a worker stopping).
    pub fn start_ai(&self, room: RoomRef) {
        if !self.searches() {
            return;
        }
        let games = self.clone();
        tokio::spawn(async move {
            let idle = games.in_room(&room, |r| {
                let idle = !r.ai_busy && r.ai_to_move() && !r.dead;
                r.ai_busy |= idle;
                idle
            });
            if let Ok(true) = idle.await {
                games.spawn_ai_turns(room, None);
            }
        });
    }

    /// Whether this process computes AI turns now.
    pub(super) fn searches(&self) -> bool {
        self.0.settings.ai_role != super::AiRole::Elsewhere
            && !self.0.ai_stopped.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Claims the AI's turn at `ply` of game `id` for this process (see
    /// [`crate::storage::ServerStore::claim_ai_turn`]).
    pub(super) async fn claim_ai_turn(&self, id: String, ply: Ply) -> Result<bool, GameError> {
        if !self.0.beaten.load(std::sync::atomic::Ordering::SeqCst) {
            // A claim of a process with no heartbeat yet would look like a
            // dead one's to the others, who would search the turn too.
            self.heartbeat().await;
        }
        let dead_before = self.now() - super::sync::DEAD_AFTER.as_millis() as i64;
        self.0
            .store
            .claim_ai_turn(id, ply, self.ai_lease(), dead_before)
            .await
            .map_err(store_error)
    }

    /// Runs [`Games::ai_turns`] on a game whose `ai_busy` the caller set.
    pub(super) fn spawn_ai_turns(&self, room: RoomRef, first: Option<AiTicket<Option<Action>>>) {
        let games = self.clone();
        tokio::spawn(async move {
            if let Err(e) = games.ai_turns(&room, first).await {
                tracing::warn!("AI: {e}");
                let _ = games.in_room(&room, |r| r.ai_busy = false).await;
            }
        });
    }

    /// The search of the AI's next action in this room: an AI pool job
    /// counted against the address of whoever created the game or last
    /// acted in it (the game's id when none is known, as after a restart),
    /// its cost the level.
    pub(super) fn ai_job(&self, room: &Room) -> AiJob<Option<Action>> {
        let level = room.info.level;
        let options = Options {
            level,
            honourable: room.info.honourable,
            hash_mb: 16,
            seed: ai_seed(room.id(), room.ply()),
            ..Options::default()
        };
        // The top level thinks for the time given; the others search to
        // their own depth, with the time as a safety net only.
        let ai_time = self.0.settings.ai_time;
        let limits = level.limits_within(ai_time, ai_time * 5);
        let game = room.game.clone();
        let client = room
            .ai_client
            .clone()
            .unwrap_or_else(|| ClientKey::named(room.info.id.clone()));
        // The perfect player inside its database: a fraction of a second,
        // so a cheap job (the kept thread's); above it, the top level's
        // search.
        let perfect = if room.info.perfect {
            self.perfect_for(room.info.mode, room.info.rules)
                .ok()
                .filter(|p| p.covers(&game))
        } else {
            None
        };
        if let Some(perfect) = perfect {
            return AiJob::new(
                client,
                room.info.id.clone(),
                1,
                move |_stop: &AtomicBool| {
                    match perfect.choose(&game) {
                        Ok(c) => Some(c.action),
                        // Not expected (covers was checked): the search instead.
                        Err(_) => {
                            Engine::new(options).choose(&game, &limits, &AtomicBool::new(false))
                        }
                    }
                },
            );
        }
        let oracle = self.oracle_for(level, room.info.rules);
        AiJob::new(
            client,
            room.info.id.clone(),
            u32::from(level.get()),
            move |stop: &AtomicBool| {
                let mut engine = Engine::new(options);
                engine.set_oracle(oracle);
                engine.choose(&game, &limits, stop)
            },
        )
    }

    /// The AI acts while it is to act (an answer to an offer, then its
    /// own turn); each action committed, then broadcast. `first` is the
    /// search already submitted for the current ply, if any. A search the
    /// pool refuses leaves the game on the retry list, taken up when any
    /// search ends. Clears `ai_busy` when it stops, under the same lock as
    /// the check.
    pub(super) async fn ai_turns(
        &self,
        room_ref: &RoomRef,
        mut first: Option<AiTicket<Option<Action>>>,
    ) -> Result<(), GameError> {
        loop {
            let Some((ticket, ply, id)) = self
                .on_room(
                    room_ref,
                    AiTurn {
                        first: first.take(),
                    },
                )
                .await?
            else {
                return Ok(());
            };
            let started = Instant::now();
            let chosen = ticket.await;
            // A search ended: capacity is free for the games waiting.
            self.retry_ai();
            if self.0.settings.ai_role == super::AiRole::Worker {
                // For the workers' order: this address searched so long.
                let client = self
                    .in_room(room_ref, |r| r.ai_client.as_ref().map(|c| c.to_string()))
                    .await?;
                if let Some(client) = client {
                    let ms = started.elapsed().as_secs_f64() * 1000.0;
                    self.charge_ai_usage(client, ms).await;
                }
            }
            let chosen = chosen.map_err(|e| GameError::Internal(e.to_string()))?;
            let Some(action) = chosen else {
                tracing::debug!("game {id}: the AI's search found no action");
                self.in_room(room_ref, |r| r.ai_busy = false).await?;
                return Ok(());
            };
            // A takeback meanwhile (perhaps back to this very ply), or a
            // resignation: the search was for another game; the loop
            // looks again.
            if self.on_room(room_ref, AiPlay { at: ply, action }).await? {
                tracing::debug!(
                    "game {id}: the AI played {action} at ply {} in {:?} ({})",
                    ply.ply.next(),
                    started.elapsed(),
                    self.0.server
                );
            } else {
                tracing::debug!(
                    "game {id}: the AI's search at ply {} is not played: the game moved on ({})",
                    ply.ply,
                    self.0.server
                );
            }
        }
    }

    /// Puts a game on the list of AI turns to retry.
    pub(super) fn retry_later(&self, id: String) {
        let mut list = self.0.ai_retry.lock().unwrap_or_else(|e| e.into_inner());
        if !list.contains(&id) {
            list.push(id);
        }
    }

    /// Retries the AI turns refused for want of capacity, oldest first;
    /// those refused again go back on the list. Games no longer in memory
    /// are dropped from it (loading them starts their AI again).
    pub(super) fn retry_ai(&self) {
        let ids = std::mem::take(&mut *self.0.ai_retry.lock().unwrap_or_else(|e| e.into_inner()));
        for id in ids {
            let room = self.rooms().get(&id).and_then(|c| c.get().cloned());
            if let Some(room) = room {
                self.start_ai(room);
            }
        }
    }
}

/// The oracle among `oracles` for the AI at `level` in games of `rules`:
/// the top level's only, of the same `skip-origin`.
pub(super) fn oracle_for(
    oracles: &[Arc<crate::oracle::DbOracle>],
    level: Level,
    rules: Rules,
) -> Option<Arc<dyn gore_ai::Oracle>> {
    if !level.is_max() {
        return None;
    }
    let skip = rules.variant.skip_origin;
    oracles
        .iter()
        .find(|o| o.skip_origin() == skip)
        .map(|o| Arc::clone(o) as Arc<dyn gore_ai::Oracle>)
}

/// A refusal of the AI pool, as a domain error.
pub(super) fn ai_refused(e: AiBusy) -> GameError {
    GameError::Busy(e.to_string())
}

/// The AI's seed: from the game id and the ply, so that a game replays
/// the same.
pub(super) fn ai_seed(id: &str, ply: Ply) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ u64::from(ply).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[cfg(test)]
mod oracle_tests {
    use super::*;
    use crate::oracle::DbOracle;
    use gore_core::Position;

    /// The top level gets the database of its game's `skip-origin`, in
    /// games with trades too; the levels below get none. Told apart by what
    /// each oracle answers: a board of 3 seeds in A's first hole is all A's
    /// under both rule sets, and the databases here hold only `no-trades`
    /// (layers 0-6) and `no-trades,skip-origin` (layers 0-4).
    #[test]
    fn only_the_top_level_asks_the_database_of_its_rules() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for (skip, top) in [(false, 6), (true, 4)] {
            for layer in gore_solver::naive::memory(top, skip).layers {
                gore_solver::disk::write_layer(dir.path(), &layer, skip).expect("written");
            }
        }
        let oracles: Vec<Arc<DbOracle>> = [false, true]
            .into_iter()
            .map(|skip| Arc::new(DbOracle::open(dir.path(), skip).expect("opened")))
            .collect();
        let standard: Rules = "standard".parse().unwrap();
        let skip_rules: Rules = "skip-origin".parse().unwrap();
        for level in Level::all() {
            let o = oracle_for(&oracles, level, standard);
            assert_eq!(o.is_some(), level.is_max(), "level {level}");
        }
        let top = Level::MAX;
        // 5 seeds on the board: inside the plain database, beyond the other.
        let five = "3,2,0,0/0,0,0,0 AAAA/BBBB 20-23 A -";
        let plain = oracle_for(&oracles, top, standard).unwrap();
        let p = Position::from_gpn(five, standard.variant).unwrap();
        assert!(
            plain.score(&p).is_some(),
            "the plain database holds 5 seeds"
        );
        let skipping = oracle_for(&oracles, top, skip_rules).unwrap();
        let q = Position::from_gpn(five, skip_rules.variant).unwrap();
        assert_eq!(
            skipping.score(&q),
            None,
            "the skip-origin database stops at 4"
        );
    }
}

#[cfg(test)]
mod pool_split_tests {
    use super::*;
    use crate::ai::{cheap_level, CHEAP_DEPTH};

    /// The pool's cheap lane is exactly the levels whose own depth cap is
    /// short: every level up to `cheap_level()` searches at most
    /// CHEAP_DEPTH plies, every level above deeper or without a cap (so the
    /// split is a prefix of the ladder, as a cost threshold needs). The
    /// weakest level is cheap and the top level, bounded by time only, is
    /// not, whatever the ladder.
    #[test]
    fn the_cheap_lane_is_the_shallow_levels() {
        let cheap = cheap_level();
        for level in Level::all() {
            let depth = level.profile().depth;
            let shallow = depth.is_some_and(|d| d <= CHEAP_DEPTH);
            assert_eq!(
                u32::from(level.get()) <= cheap,
                shallow,
                "level {} (depth {depth:?}) against cheap_max {cheap}",
                level.get()
            );
        }
        assert!(cheap >= 1);
        assert!(cheap < u32::from(Level::MAX.get()));
    }
}
