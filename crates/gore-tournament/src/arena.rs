//! Arena tournaments: a fixed duration, players come and go, and a free
//! player is paired as soon as another free player of near score is there.
//!
//! The model is lichess's arena. The state is the players (id, rating,
//! whether they are in the arena now), the games (who, when, the result,
//! the berserks) and the two times the tournament was created with; every
//! function that depends on time takes `now`. The rules, for players, are
//! in `docs/RULES.md` ("Tournaments"); in short:
//!
//! - [`Arena::pair`] pairs the free players (in the arena, not in a game)
//!   in rank order (score, then rating, then id): each with the nearest
//!   free player below him who was not his last opponent, nor had him as
//!   last opponent, whenever some pairing of them all avoids that. With an
//!   odd number, the player free the shortest time waits. Nothing is paired
//!   before the start or from the end on; games running then finish.
//! - [`Arena::record`] scores a game: 2 a win, 1 a draw, 0 a loss; after
//!   two wins in a row (the player is "on fire") a win scores 4 and a draw
//!   2, until he fails to win; a berserk win with at least
//!   [`ArenaConfig::berserk_min_actions`] actions of the berserker's own
//!   scores 1 more.
//! - [`Arena::standings`]: score, then performance, then rating, then id.

use crate::{Millis, Outcome, PlayerId, PlayerResult, Side};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The fewest actions of his own a berserker must have made in a game he
/// won for the berserk point (the default of
/// [`ArenaConfig::berserk_min_actions`]).
///
/// lichess asks for 7 moves, so that the point is earned at the board and
/// not from an opponent who resigns or leaves at once. A Goré game is
/// shorter than a chess game: 34–50 actions in all between players who
/// capture at every chance (docs/STRENGTH.md), some 20 each. Five actions
/// of one's own is past the opening sowings, when captures and trades have
/// begun, about a quarter of a quick game, as 7 moves are of a quick chess
/// game; and well past the one action each after which a rated game can no
/// longer be aborted.
pub const BERSERK_MIN_ACTIONS: u32 = 5;

/// What an arena is created with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaConfig {
    /// When pairing begins.
    pub starts_at: Millis,
    /// When pairing ends: from then on nothing is paired; the games still
    /// running finish and count.
    pub ends_at: Millis,
    /// The fewest actions of his own with which a berserker's win scores
    /// the berserk point.
    pub berserk_min_actions: u32,
    /// Whether streaks double the points (lichess lets a creator turn them
    /// off).
    pub streaks: bool,
}

impl ArenaConfig {
    /// An arena from `starts_at` to `ends_at`, with streaks and the default
    /// berserk threshold ([`BERSERK_MIN_ACTIONS`]).
    pub fn new(starts_at: Millis, ends_at: Millis) -> Self {
        ArenaConfig {
            starts_at,
            ends_at,
            berserk_min_actions: BERSERK_MIN_ACTIONS,
            streaks: true,
        }
    }
}

/// Where a player stands with the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// In the arena: paired whenever free.
    Joined,
    /// Stepped out (closed the page, pressed pause): keeps his score, is
    /// not paired, may come back with [`Arena::join`].
    Paused,
    /// Left for good: keeps his score in the standings, is never paired
    /// again and cannot rejoin.
    Withdrawn,
}

/// A player of the arena.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaPlayer {
    /// Who.
    pub id: PlayerId,
    /// His rating when he first joined (pairing and performance use it).
    pub rating: i32,
    /// In, paused or withdrawn.
    pub presence: Presence,
    /// Since when he has been free to be paired: when he (re)joined or his
    /// last game ended, whichever is later. Of an odd number of free
    /// players, the one free the shortest waits.
    pub free_since: Millis,
}

/// The number of a game within its arena (its index in [`Arena::games`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ArenaGameId(pub u32);

/// A game the arena paired: the server creates it with `a` as player A.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The game's number in this arena.
    pub game: ArenaGameId,
    /// Player A (South, moves first).
    pub a: PlayerId,
    /// Player B.
    pub b: PlayerId,
}

/// How a game of the arena finished, as the server reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// Which game.
    pub game: ArenaGameId,
    /// The result; `None` for a game aborted (no result: it counts for
    /// nobody and breaks no streak).
    pub outcome: Option<Outcome>,
    /// When it ended.
    pub ended_at: Millis,
    /// Whether player A went berserk (halved his clock).
    pub berserk_a: bool,
    /// Whether player B went berserk.
    pub berserk_b: bool,
    /// How many actions player A made in the game.
    pub actions_a: u32,
    /// How many actions player B made in the game.
    pub actions_b: u32,
}

impl GameResult {
    /// A finished game with `outcome`, no berserk, and enough actions on
    /// both sides for any bonus (fill in the fields for the rest).
    pub fn new(game: ArenaGameId, outcome: Outcome, ended_at: Millis) -> Self {
        GameResult {
            game,
            outcome: Some(outcome),
            ended_at,
            berserk_a: false,
            berserk_b: false,
            actions_a: u32::MAX,
            actions_b: u32::MAX,
        }
    }
}

/// A game of the arena: running until its result is recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaGame {
    /// Player A.
    pub a: PlayerId,
    /// Player B.
    pub b: PlayerId,
    /// When it was paired.
    pub started_at: Millis,
    /// Its result, once recorded.
    pub result: Option<GameResult>,
}

impl ArenaGame {
    /// Whether it is still being played.
    pub fn running(&self) -> bool {
        self.result.is_none()
    }

    fn side_of(&self, p: &PlayerId) -> Option<Side> {
        if &self.a == p {
            Some(Side::A)
        } else if &self.b == p {
            Some(Side::B)
        } else {
            None
        }
    }
}

/// What one finished game was worth to one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scored {
    /// The game.
    pub game: ArenaGameId,
    /// His result.
    pub result: PlayerResult,
    /// Whether he was on fire (two wins just before), doubling it.
    pub doubled: bool,
    /// Whether his berserk earned the extra point.
    pub berserk_point: bool,
    /// The points it scored.
    pub points: u32,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaStanding {
    /// 1 for the leader; players tied on everything still get distinct
    /// ranks, in id order.
    pub rank: u32,
    /// Who.
    pub player: PlayerId,
    /// His rating.
    pub rating: i32,
    /// His points.
    pub score: u32,
    /// Games finished (aborted ones not counted).
    pub games: u32,
    /// Of which won.
    pub wins: u32,
    /// Whether his next game counts double.
    pub on_fire: bool,
    /// His performance (see [`Arena::standings`]); `None` before his first
    /// finished game.
    pub performance: Option<i32>,
    /// In, paused or withdrawn.
    pub presence: Presence,
    /// Whether he is playing now.
    pub playing: bool,
}

/// Why the arena refused a call. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArenaError {
    /// No such player in this arena.
    UnknownPlayer(PlayerId),
    /// No such game in this arena.
    UnknownGame(ArenaGameId),
    /// That game's result was already recorded.
    AlreadyRecorded(ArenaGameId),
    /// The arena has ended: nobody joins any more.
    Over,
    /// He withdrew for good and cannot rejoin.
    Withdrawn(PlayerId),
    /// The creation times are the wrong way round.
    BadTimes,
}

impl fmt::Display for ArenaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaError::UnknownPlayer(p) => write!(f, "{p} is not in this arena"),
            ArenaError::UnknownGame(g) => write!(f, "game {} is not in this arena", g.0),
            ArenaError::AlreadyRecorded(g) => {
                write!(f, "game {} already has its result", g.0)
            }
            ArenaError::Over => f.write_str("the arena has ended"),
            ArenaError::Withdrawn(p) => write!(f, "{p} withdrew from this arena"),
            ArenaError::BadTimes => f.write_str("an arena must end after it starts"),
        }
    }
}

impl std::error::Error for ArenaError {}

/// The fewest DFS steps spent looking for a pairing with no repeated
/// opponent before settling for the plain nearest-rank one: finding one
/// takes a step a player when it exists, as it almost always does; the cap
/// only bounds the rare hopeless search in a large field.
const SEARCH_STEPS: usize = 200_000;

/// An arena tournament: its creation times, its players and its games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arena {
    /// What it was created with.
    pub config: ArenaConfig,
    /// Its players, by id.
    pub players: BTreeMap<PlayerId, ArenaPlayer>,
    /// Its games, in pairing order ([`ArenaGameId`] is the index).
    pub games: Vec<ArenaGame>,
    /// The games' numbers in the order their results were recorded (what
    /// streaks follow).
    pub finished: Vec<ArenaGameId>,
}

impl Arena {
    /// An empty arena. (Times the wrong way round make an arena that never
    /// pairs; [`Arena::try_new`] refuses them.)
    pub fn new(config: ArenaConfig) -> Self {
        Arena {
            config,
            players: BTreeMap::new(),
            games: Vec::new(),
            finished: Vec::new(),
        }
    }

    /// An empty arena, or [`ArenaError::BadTimes`] if it would end before
    /// it starts.
    pub fn try_new(config: ArenaConfig) -> Result<Self, ArenaError> {
        if config.ends_at <= config.starts_at {
            return Err(ArenaError::BadTimes);
        }
        Ok(Arena::new(config))
    }

    /// Whether pairing is over (`now` at or past the end).
    pub fn ended(&self, now: Millis) -> bool {
        now >= self.config.ends_at
    }

    /// Whether the arena is over for good: ended, and no game running.
    pub fn finished(&self, now: Millis) -> bool {
        self.ended(now) && self.games.iter().all(|g| !g.running())
    }

    /// A player joins, or comes back from a pause. His rating is kept from
    /// his first join. Refused once the arena has ended, or for a player
    /// who withdrew.
    pub fn join(&mut self, id: PlayerId, rating: i32, now: Millis) -> Result<(), ArenaError> {
        if self.ended(now) {
            return Err(ArenaError::Over);
        }
        match self.players.get_mut(&id) {
            Some(p) if p.presence == Presence::Withdrawn => Err(ArenaError::Withdrawn(id)),
            Some(p) => {
                if p.presence == Presence::Paused {
                    p.presence = Presence::Joined;
                    p.free_since = p.free_since.max(now);
                }
                Ok(())
            }
            None => {
                self.players.insert(
                    id.clone(),
                    ArenaPlayer {
                        id,
                        rating,
                        presence: Presence::Joined,
                        free_since: now,
                    },
                );
                Ok(())
            }
        }
    }

    /// A player steps out: not paired until he joins again. His running
    /// game, if any, goes on and counts.
    pub fn pause(&mut self, id: &PlayerId) -> Result<(), ArenaError> {
        let p = self
            .players
            .get_mut(id)
            .ok_or_else(|| ArenaError::UnknownPlayer(id.clone()))?;
        if p.presence == Presence::Joined {
            p.presence = Presence::Paused;
        }
        Ok(())
    }

    /// A player leaves for good. Before the start he is simply removed
    /// (he never played); after it he keeps his place in the standings
    /// but is never paired again.
    pub fn withdraw(&mut self, id: &PlayerId, now: Millis) -> Result<(), ArenaError> {
        if !self.players.contains_key(id) {
            return Err(ArenaError::UnknownPlayer(id.clone()));
        }
        let played = self.games.iter().any(|g| g.side_of(id).is_some());
        if now < self.config.starts_at && !played {
            self.players.remove(id);
        } else if let Some(p) = self.players.get_mut(id) {
            p.presence = Presence::Withdrawn;
        }
        Ok(())
    }

    /// The game a player is playing now, if any.
    pub fn current_game(&self, id: &PlayerId) -> Option<ArenaGameId> {
        self.games
            .iter()
            .position(|g| g.running() && g.side_of(id).is_some())
            .map(|i| ArenaGameId(i as u32))
    }

    /// A player's games, in pairing order.
    pub fn games_of(&self, id: &PlayerId) -> Vec<ArenaGameId> {
        (0..self.games.len())
            .filter(|&i| self.games[i].side_of(id).is_some())
            .map(|i| ArenaGameId(i as u32))
            .collect()
    }

    /// Records a game's result: frees both players and scores it.
    pub fn record(&mut self, result: GameResult) -> Result<(), ArenaError> {
        let index = result.game.0 as usize;
        let game = self
            .games
            .get_mut(index)
            .ok_or(ArenaError::UnknownGame(result.game))?;
        if game.result.is_some() {
            return Err(ArenaError::AlreadyRecorded(result.game));
        }
        let ended = result.ended_at;
        let (a, b) = (game.a.clone(), game.b.clone());
        game.result = Some(result.clone());
        self.finished.push(result.game);
        for id in [a, b] {
            if let Some(p) = self.players.get_mut(&id) {
                p.free_since = p.free_since.max(ended);
            }
        }
        Ok(())
    }

    /// What each of a player's finished games was worth to him, in the
    /// order they finished (aborted games left out).
    pub fn sheet(&self, id: &PlayerId) -> Vec<Scored> {
        self.sheets().remove(id).unwrap_or_default()
    }

    /// Every player's score sheet ([`Arena::sheet`]), in one pass over the
    /// finished games (the standings of a long arena ask for all of them:
    /// one pass each would be players × games).
    pub fn sheets(&self) -> BTreeMap<PlayerId, Vec<Scored>> {
        let mut out: BTreeMap<PlayerId, Vec<Scored>> = BTreeMap::new();
        for &gid in &self.finished {
            let Some(game) = self.games.get(gid.0 as usize) else {
                continue;
            };
            let Some(res) = game.result.as_ref() else {
                continue;
            };
            let Some(outcome) = res.outcome else { continue };
            for (side, id) in [(Side::A, &game.a), (Side::B, &game.b)] {
                let sheet = out.entry(id.clone()).or_default();
                // The streak: his last two scored games both won.
                let won = |s: Option<&Scored>| s.is_some_and(|s| s.result == PlayerResult::Win);
                let n = sheet.len();
                let last_two = [won(sheet.last()), n >= 2 && won(sheet.get(n - 2))];
                let result = outcome.for_side(side);
                let doubled = self.config.streaks && last_two[0] && last_two[1];
                let (berserk, actions) = match side {
                    Side::A => (res.berserk_a, res.actions_a),
                    Side::B => (res.berserk_b, res.actions_b),
                };
                let berserk_point = result == PlayerResult::Win
                    && berserk
                    && actions >= self.config.berserk_min_actions;
                let base = match result {
                    PlayerResult::Win => 2,
                    PlayerResult::Draw => 1,
                    PlayerResult::Loss => 0,
                };
                let points = base * if doubled { 2 } else { 1 } + u32::from(berserk_point);
                sheet.push(Scored {
                    game: gid,
                    result,
                    doubled,
                    berserk_point,
                    points,
                });
            }
        }
        out
    }

    /// The opponent of a player's most recently paired game, if any.
    fn last_opponent(&self, id: &PlayerId) -> Option<&PlayerId> {
        self.games.iter().rev().find_map(|g| match g.side_of(id) {
            Some(Side::A) => Some(&g.b),
            Some(Side::B) => Some(&g.a),
            None => None,
        })
    }

    /// Pairs the free players at `now` and records the new games as
    /// running; returns them (the server creates one game for each, the
    /// first player as A). Empty before the start and from the end on.
    ///
    /// The free players are ranked by score, then rating, then id; each,
    /// from the top, is paired with the nearest free player below him that
    /// was not his last opponent and did not have him as last opponent,
    /// backtracking if needed so that no pair repeats a last game whenever
    /// some pairing of them all avoids it; if none does, the nearest ranks
    /// are paired as they come. With an odd number, the player free the
    /// shortest time (the latest [`ArenaPlayer::free_since`]; of equals,
    /// the lowest ranked) waits for the next call.
    pub fn pair(&mut self, now: Millis) -> Vec<Pairing> {
        if now < self.config.starts_at || self.ended(now) {
            return Vec::new();
        }
        let busy: BTreeSet<&PlayerId> = self
            .games
            .iter()
            .filter(|g| g.running())
            .flat_map(|g| [&g.a, &g.b])
            .collect();
        let sheets = self.sheets();
        let score = |id: &PlayerId| {
            sheets
                .get(id)
                .map_or(0, |s| s.iter().map(|s| s.points).sum())
        };
        let mut free: Vec<(u32, i32, PlayerId, Millis)> = self
            .players
            .values()
            .filter(|p| p.presence == Presence::Joined && !busy.contains(&p.id))
            .map(|p| (score(&p.id), p.rating, p.id.clone(), p.free_since))
            .collect();
        // Rank order: score, then rating, higher first; then id.
        free.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)));
        if free.len() % 2 == 1 {
            // The latest free_since waits; of equals, the lowest ranked
            // (the last in rank order).
            let waiter = (0..free.len()).max_by_key(|&i| (free[i].3, i)).unwrap_or(0);
            free.remove(waiter);
        }
        let ids: Vec<PlayerId> = free.into_iter().map(|f| f.2).collect();
        let n = ids.len();
        let last: Vec<Option<&PlayerId>> = ids.iter().map(|p| self.last_opponent(p)).collect();
        let repeat = |i: usize, j: usize| last[i] == Some(&ids[j]) || last[j] == Some(&ids[i]);
        let mut partner = vec![usize::MAX; n];
        let mut steps = 0;
        let found = avoid_repeats(&mut partner, &repeat, &mut steps);
        if !found {
            partner = vec![usize::MAX; n];
            for i in (0..n).step_by(2) {
                partner[i] = i + 1;
                partner[i + 1] = i;
            }
        }
        let mut pairs = Vec::new();
        for i in 0..n {
            if partner[i] > i {
                let (x, y) = (ids[i].clone(), ids[partner[i]].clone());
                let (a, b) = if self.prefers_a(&x, &y) {
                    (x, y)
                } else {
                    (y, x)
                };
                pairs.push((a, b));
            }
        }
        let mut out = Vec::new();
        for (a, b) in pairs {
            let game = ArenaGameId(self.games.len() as u32);
            self.games.push(ArenaGame {
                a: a.clone(),
                b: b.clone(),
                started_at: now,
                result: None,
            });
            out.push(Pairing { game, a, b });
        }
        out
    }

    /// Whether `x` (ranked above `y`) should be player A against `y`: the
    /// one who has been A less often (games as A minus games as B) is; then
    /// the one who was B in his last game; then the higher ranked.
    fn prefers_a(&self, x: &PlayerId, y: &PlayerId) -> bool {
        let balance = |p: &PlayerId| -> i64 {
            self.games
                .iter()
                .map(|g| match g.side_of(p) {
                    Some(Side::A) => 1,
                    Some(Side::B) => -1,
                    None => 0,
                })
                .sum()
        };
        let last_side = |p: &PlayerId| self.games.iter().rev().find_map(|g| g.side_of(p));
        let (bx, by) = (balance(x), balance(y));
        if bx != by {
            return bx < by;
        }
        match (last_side(x), last_side(y)) {
            (Some(Side::B), Some(Side::A)) | (Some(Side::B), None) => true,
            (Some(Side::A), Some(Side::B)) | (None, Some(Side::B)) => false,
            _ => true,
        }
    }

    /// The standings: score, then performance (`None` last), then rating,
    /// all higher first, then id.
    ///
    /// A player's performance is the mean rating of his opponents in his
    /// finished games plus 500 × (wins − losses) / games, rounded down: a
    /// measure of the strength he played at, with each win against a player
    /// worth his rating + 500 and each loss his rating − 500.
    pub fn standings(&self) -> Vec<ArenaStanding> {
        let mut sheets = self.sheets();
        let playing: BTreeSet<&PlayerId> = self
            .games
            .iter()
            .filter(|g| g.running())
            .flat_map(|g| [&g.a, &g.b])
            .collect();
        let mut rows: Vec<ArenaStanding> = self
            .players
            .values()
            .map(|p| {
                let sheet = sheets.remove(&p.id).unwrap_or_default();
                let wins = sheet
                    .iter()
                    .filter(|s| s.result == PlayerResult::Win)
                    .count() as u32;
                let losses = sheet
                    .iter()
                    .filter(|s| s.result == PlayerResult::Loss)
                    .count() as i64;
                let mut rating_sum: i64 = 0;
                for s in &sheet {
                    if let Some(g) = self.games.get(s.game.0 as usize) {
                        let opp = if g.a == p.id { &g.b } else { &g.a };
                        rating_sum += self.players.get(opp).map_or(0, |o| i64::from(o.rating));
                    }
                }
                let games = sheet.len() as i64;
                let performance = (games > 0).then(|| {
                    let total = rating_sum + 500 * (i64::from(wins) - losses);
                    total.div_euclid(games) as i32
                });
                let last_two = sheet.iter().rev().take(2);
                let on_fire = self.config.streaks
                    && sheet.len() >= 2
                    && last_two.into_iter().all(|s| s.result == PlayerResult::Win);
                ArenaStanding {
                    rank: 0,
                    player: p.id.clone(),
                    rating: p.rating,
                    score: sheet.iter().map(|s| s.points).sum(),
                    games: sheet.len() as u32,
                    wins,
                    on_fire,
                    performance,
                    presence: p.presence,
                    playing: playing.contains(&p.id),
                }
            })
            .collect();
        rows.sort_by(|x, y| {
            y.score
                .cmp(&x.score)
                .then(y.performance.cmp(&x.performance))
                .then(y.rating.cmp(&x.rating))
                .then(x.player.cmp(&y.player))
        });
        for (i, r) in rows.iter_mut().enumerate() {
            r.rank = i as u32 + 1;
        }
        rows
    }

    /// The game to feature: the running game of the best-placed player who
    /// is playing now.
    pub fn leader_game(&self) -> Option<ArenaGameId> {
        self.standings()
            .iter()
            .find_map(|s| self.current_game(&s.player))
    }
}

/// Depth-first search for a perfect pairing of `0..n` (in rank order) with
/// no `repeat` pair: the first unpaired player takes the nearest allowed
/// one below him. The first solution found is the greedy one whenever the
/// greedy one has no repeat. Gives up (false) after [`SEARCH_STEPS`].
fn avoid_repeats(
    partner: &mut [usize],
    repeat: &dyn Fn(usize, usize) -> bool,
    steps: &mut usize,
) -> bool {
    let Some(i) = partner.iter().position(|&p| p == usize::MAX) else {
        return true;
    };
    for j in i + 1..partner.len() {
        if partner[j] != usize::MAX || repeat(i, j) {
            continue;
        }
        *steps += 1;
        if *steps > SEARCH_STEPS {
            return false;
        }
        partner[i] = j;
        partner[j] = i;
        if avoid_repeats(partner, repeat, steps) {
            return true;
        }
        partner[i] = usize::MAX;
        partner[j] = usize::MAX;
    }
    false
}
