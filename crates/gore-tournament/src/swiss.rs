//! Swiss tournaments: a fixed number of rounds, everyone paired each round
//! by the Dutch system, byes, and the Buchholz and Sonneborn-Berger
//! tie-breaks.
//!
//! The pairing follows FIDE's Dutch system (C.04.3) in its main lines,
//! simplified where a full implementation of its 21 quality criteria is
//! not needed for an online event; `docs/RULES.md` ("Tournaments",
//! "Swiss") states the rules as implemented for players. In short:
//!
//! - **Pairing numbers**: players ordered by rating, higher first, then id.
//!   Ranking for pairing: score, then pairing number. Side A plays the part
//!   of White.
//! - **Scores**: a win 1, a draw ½, a loss 0, the bye 1, a round missed
//!   (joined late, withdrawn) 0. Kept in half points.
//! - **The bye** (odd number of players): to the lowest-ranked player who
//!   has not had one and whose bye leaves the others pairable; at most one
//!   each.
//! - **Absolute criteria**: no rematch (C1); two players with the same
//!   absolute colour preference do not meet (C3). Where no pairing of the
//!   round satisfies both (FIDE exempts only the last round's
//!   topscorers), C3 narrows to "two players who both played their last
//!   two games on the same side do not meet" (so nobody plays a side three
//!   games running while that can be avoided), and if even that fails, to
//!   C1 alone. Completion (C4): a bracket's pairing must leave the players
//!   below it pairable.
//! - **Brackets**, top score down: the players moved down from above
//!   (MDPs) are paired first, S1 = the MDPs against S2 = the residents;
//!   then the remaining residents as a homogeneous bracket, S1 = top half
//!   against S2 = bottom half. Candidates in FIDE's order: transpositions
//!   of S2, then exchanges of one S1 player with one S2 player (smallest
//!   difference of bracket numbers first). Of all candidates that pass the
//!   absolute criteria, the best by: fewest players floating down, fewest
//!   colour preferences not met, fewest strong or absolute ones not met,
//!   fewest floating down again after floating down the round before,
//!   fewest floating up again; the first in FIDE's order among equals.
//!   At most [`CANDIDATE_BUDGET`] candidates are examined per bracket.
//! - **Colours** (FIDE's E rules): both preferences when compatible; else
//!   the stronger; else alternate from the last round they differed; else
//!   the higher ranked player's preference; with no preference at all, A
//!   to the higher ranked player if his pairing number is odd.
//! - **Tie-breaks**: Buchholz, then Sonneborn-Berger, then pairing number;
//!   unplayed rounds treated as FIDE did from 2009 to 2023 (see
//!   [`Swiss::standings_after`]).

use crate::{Outcome, PlayerId, PlayerResult, Side};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::fmt;

/// The most candidate pairings of one bracket examined (the first perfect
/// one stops the search sooner; with a large field the first usually is).
pub const CANDIDATE_BUDGET: usize = 20_000;

/// The most steps of the completion search (whether the players left can
/// all be paired) before it gives up and answers yes; exact below it, and
/// small fields never reach it.
const MATCH_BUDGET: usize = 2_000_000;

/// A player of a Swiss event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissPlayer {
    /// Who.
    pub id: PlayerId,
    /// His rating when he joined (his pairing number comes from it).
    pub rating: i32,
    /// The number of rounds already paired when he joined (he missed them).
    pub joined_before_round: u32,
    /// Whether he withdrew: he keeps his results but is not paired again.
    pub withdrawn: bool,
}

/// One game of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissGame {
    /// Player A (moves first; White's part in FIDE's rules).
    pub a: PlayerId,
    /// Player B.
    pub b: PlayerId,
    /// The result, once recorded.
    pub outcome: Option<Outcome>,
}

/// One round: its games, board 1 first, and its bye.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Round {
    /// The games, board 1 first (the highest scores first).
    pub games: Vec<SwissGame>,
    /// The player who has the bye this round (1 point, no game).
    pub bye: Option<PlayerId>,
}

impl Round {
    /// Whether every game has its result.
    pub fn complete(&self) -> bool {
        self.games.iter().all(|g| g.outcome.is_some())
    }
}

/// Why the Swiss event refused a call. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SwissError {
    /// A Swiss event needs at least one round.
    NoRounds,
    /// He is already in the event.
    AlreadyJoined(PlayerId),
    /// More than half the rounds have been paired: too late to join.
    TooLate,
    /// No such player.
    UnknownPlayer(PlayerId),
    /// The current round still has games without a result.
    RoundNotFinished,
    /// Every round has been paired.
    AllRoundsPaired,
    /// Fewer than two players to pair.
    TooFewPlayers,
    /// No pairing of the round avoids a rematch (or a second bye): the
    /// event should end here, as lichess ends one whose players have all
    /// met.
    NoPairing,
    /// No such round or board.
    UnknownGame {
        /// The round asked for (1 for the first).
        round: u32,
        /// The board asked for (0 for board 1).
        board: usize,
    },
    /// That game already has its result.
    AlreadyRecorded {
        /// The round (1 for the first).
        round: u32,
        /// The board (0 for board 1).
        board: usize,
    },
}

impl fmt::Display for SwissError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SwissError::NoRounds => f.write_str("a Swiss event needs at least one round"),
            SwissError::AlreadyJoined(p) => write!(f, "{p} is already in this event"),
            SwissError::TooLate => f.write_str("more than half the rounds have begun"),
            SwissError::UnknownPlayer(p) => write!(f, "{p} is not in this event"),
            SwissError::RoundNotFinished => f.write_str("the round still has games in play"),
            SwissError::AllRoundsPaired => f.write_str("every round has been paired"),
            SwissError::TooFewPlayers => f.write_str("fewer than two players to pair"),
            SwissError::NoPairing => {
                f.write_str("no pairing of this round avoids a rematch or a second bye")
            }
            SwissError::UnknownGame { round, board } => {
                write!(f, "round {round} has no board {}", board + 1)
            }
            SwissError::AlreadyRecorded { round, board } => {
                write!(
                    f,
                    "round {round}, board {} already has its result",
                    board + 1
                )
            }
        }
    }
}

impl std::error::Error for SwissError {}

/// One line of the standings. Points are kept in halves and Sonneborn-
/// Berger in quarters, so that every sum is exact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissStanding {
    /// 1 for the leader (distinct ranks; a tie on everything goes by
    /// pairing number).
    pub rank: u32,
    /// Who.
    pub player: PlayerId,
    /// His rating.
    pub rating: i32,
    /// His pairing number (1 = highest rated).
    pub pairing_number: u32,
    /// Points × 2 (a win 2, a draw 1, the bye 2).
    pub points_x2: u32,
    /// Buchholz × 2.
    pub buchholz_x2: u32,
    /// Sonneborn-Berger × 4.
    pub sonneborn_berger_x4: u32,
    /// Games won, drawn, lost (the bye not counted).
    pub won: u32,
    /// Games drawn.
    pub drawn: u32,
    /// Games lost.
    pub lost: u32,
    /// Whether he withdrew.
    pub withdrawn: bool,
}

/// A player's part in one round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Played {
        opp: usize,
        side: Side,
        result: Option<PlayerResult>,
    },
    Bye,
    Absent,
}

/// How strongly a player wants a side (FIDE A.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    Mild,
    Strong,
    Absolute,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pref {
    side: Side,
    strength: Strength,
    /// Whether it comes from his last two games on the same side (a third
    /// would follow if it were not met).
    two_same: bool,
}

/// How much of the absolute criteria a round's pairing keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    /// No rematch (C1); no two players with the same absolute colour
    /// preference (C3).
    Strict,
    /// No rematch; no two players who both played their last two games on
    /// the same side (one of them would play it a third time).
    Sides,
    /// No rematch only.
    Loose,
}

/// A Swiss event: its number of rounds, its players and the rounds paired
/// so far.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Swiss {
    /// The number of rounds it was created with.
    pub rounds: u32,
    /// Its players, by id.
    pub players: BTreeMap<PlayerId, SwissPlayer>,
    /// The rounds paired so far, round 1 first.
    pub played: Vec<Round>,
}

/// Everything the pairing of one round reads, indexed by pairing number
/// − 1.
struct Field {
    ids: Vec<PlayerId>,
    parts: Vec<Vec<Part>>,
    score: Vec<u32>,
    had_bye: Vec<bool>,
    pref: Vec<Option<Pref>>,
    cd: Vec<i32>,
    sides: Vec<Vec<Side>>,
    /// Floated down / up in the last round.
    floated_down: Vec<bool>,
    floated_up: Vec<bool>,
    met: HashSet<(usize, usize)>,
}

impl Swiss {
    /// A new event of `rounds` rounds, no player yet.
    pub fn new(rounds: u32) -> Result<Self, SwissError> {
        if rounds == 0 {
            return Err(SwissError::NoRounds);
        }
        Ok(Swiss {
            rounds,
            players: BTreeMap::new(),
            played: Vec::new(),
        })
    }

    /// A player joins: before the start, or until more than half the
    /// rounds have been paired (he scores 0 for the rounds he missed).
    pub fn join(&mut self, id: PlayerId, rating: i32) -> Result<(), SwissError> {
        if self.players.contains_key(&id) {
            return Err(SwissError::AlreadyJoined(id));
        }
        if self.played.len() as u32 * 2 > self.rounds {
            return Err(SwissError::TooLate);
        }
        self.players.insert(
            id.clone(),
            SwissPlayer {
                id,
                rating,
                joined_before_round: self.played.len() as u32,
                withdrawn: false,
            },
        );
        Ok(())
    }

    /// A player withdraws. Before the first round is paired he is simply
    /// removed; after it he is not paired in any later round and his
    /// results stand (his game in the current round, if any, is played
    /// out or recorded as the server decides).
    pub fn withdraw(&mut self, id: &PlayerId) -> Result<(), SwissError> {
        if self.played.is_empty() {
            return self
                .players
                .remove(id)
                .map(|_| ())
                .ok_or_else(|| SwissError::UnknownPlayer(id.clone()));
        }
        let p = self
            .players
            .get_mut(id)
            .ok_or_else(|| SwissError::UnknownPlayer(id.clone()))?;
        p.withdrawn = true;
        Ok(())
    }

    /// Whether every round has been paired and played.
    pub fn finished(&self) -> bool {
        self.played.len() as u32 == self.rounds && self.played.iter().all(Round::complete)
    }

    /// Records the result of a game: `round` counts from 1, `board` from 0.
    pub fn record(&mut self, round: u32, board: usize, outcome: Outcome) -> Result<(), SwissError> {
        let game = round
            .checked_sub(1)
            .and_then(|r| self.played.get_mut(r as usize))
            .and_then(|r| r.games.get_mut(board))
            .ok_or(SwissError::UnknownGame { round, board })?;
        if game.outcome.is_some() {
            return Err(SwissError::AlreadyRecorded { round, board });
        }
        game.outcome = Some(outcome);
        Ok(())
    }

    /// The players in pairing-number order (rating, higher first, then id).
    fn by_number(&self) -> Vec<&SwissPlayer> {
        let mut v: Vec<&SwissPlayer> = self.players.values().collect();
        v.sort_by(|x, y| y.rating.cmp(&x.rating).then(x.id.cmp(&y.id)));
        v
    }

    /// Each player's part in each of the first `n` rounds.
    fn parts(&self, order: &[&SwissPlayer], n: usize) -> Vec<Vec<Part>> {
        let index: BTreeMap<&PlayerId, usize> =
            order.iter().enumerate().map(|(i, p)| (&p.id, i)).collect();
        let mut parts = vec![vec![Part::Absent; n]; order.len()];
        for (r, round) in self.played.iter().take(n).enumerate() {
            for g in &round.games {
                let (Some(&a), Some(&b)) = (index.get(&g.a), index.get(&g.b)) else {
                    continue;
                };
                parts[a][r] = Part::Played {
                    opp: b,
                    side: Side::A,
                    result: g.outcome.map(|o| o.for_side(Side::A)),
                };
                parts[b][r] = Part::Played {
                    opp: a,
                    side: Side::B,
                    result: g.outcome.map(|o| o.for_side(Side::B)),
                };
            }
            if let Some(&i) = round.bye.as_ref().and_then(|b| index.get(b)) {
                parts[i][r] = Part::Bye;
            }
        }
        parts
    }

    /// A round's points × 2 for one part.
    fn points_x2(part: Part) -> u32 {
        match part {
            Part::Played {
                result: Some(PlayerResult::Win),
                ..
            }
            | Part::Bye => 2,
            Part::Played {
                result: Some(PlayerResult::Draw),
                ..
            } => 1,
            _ => 0,
        }
    }

    fn field(&self) -> Field {
        let order = self.by_number();
        let n = self.played.len();
        let parts = self.parts(&order, n);
        let m = order.len();
        let mut f = Field {
            ids: order.iter().map(|p| p.id.clone()).collect(),
            score: parts
                .iter()
                .map(|ps| ps.iter().map(|&p| Self::points_x2(p)).sum())
                .collect(),
            had_bye: parts.iter().map(|ps| ps.contains(&Part::Bye)).collect(),
            pref: vec![None; m],
            cd: vec![0; m],
            sides: vec![Vec::new(); m],
            floated_down: vec![false; m],
            floated_up: vec![false; m],
            met: HashSet::new(),
            parts,
        };
        for i in 0..m {
            for part in &f.parts[i] {
                if let Part::Played { opp, side, .. } = *part {
                    f.sides[i].push(side);
                    f.met.insert((i.min(opp), i.max(opp)));
                }
            }
            let s = &f.sides[i];
            let cd: i32 = s.iter().map(|&x| if x == Side::A { 1 } else { -1 }).sum();
            f.cd[i] = cd;
            f.pref[i] = s.last().map(|&last| {
                let two_same = s.len() >= 2 && s[s.len() - 2] == last;
                // Two games running on one side first: where it and the
                // colour difference disagree (A A A A B B), avoiding a
                // third running matters more here.
                let (side, strength) = if two_same {
                    (last.other(), Strength::Absolute)
                } else if cd > 1 {
                    (Side::B, Strength::Absolute)
                } else if cd < -1 {
                    (Side::A, Strength::Absolute)
                } else if cd == 1 {
                    (Side::B, Strength::Strong)
                } else if cd == -1 {
                    (Side::A, Strength::Strong)
                } else {
                    (last.other(), Strength::Mild)
                };
                Pref {
                    side,
                    strength,
                    two_same,
                }
            });
        }
        // Floats of the last round: compare scores before it.
        if n > 0 {
            let before: Vec<u32> = f
                .parts
                .iter()
                .map(|ps| ps[..n - 1].iter().map(|&p| Self::points_x2(p)).sum())
                .collect();
            for i in 0..m {
                match f.parts[i][n - 1] {
                    Part::Bye => f.floated_down[i] = true,
                    Part::Played { opp, .. } => {
                        f.floated_down[i] = before[i] > before[opp];
                        f.floated_up[i] = before[i] < before[opp];
                    }
                    Part::Absent => {}
                }
            }
        }
        f
    }

    /// Pairs the next round and returns it. Refused while the current
    /// round has games without a result, once every round is paired, with
    /// fewer than two players to pair, or when no pairing avoids a rematch
    /// or a second bye (then the event should end).
    pub fn pair_round(&mut self) -> Result<&Round, SwissError> {
        if self.played.len() as u32 >= self.rounds {
            return Err(SwissError::AllRoundsPaired);
        }
        if !self.played.last().is_none_or(Round::complete) {
            return Err(SwissError::RoundNotFinished);
        }
        let f = self.field();
        let active: Vec<usize> = (0..f.ids.len())
            .filter(|&i| !self.players[&f.ids[i]].withdrawn)
            .collect();
        if active.len() < 2 {
            return Err(SwissError::TooFewPlayers);
        }
        let (pairs, bye) = pair_field(&f, &active).ok_or(SwissError::NoPairing)?;
        let mut games: Vec<(u32, u32, usize, SwissGame)> = pairs
            .into_iter()
            .map(|(x, y)| {
                let (a, b) = allocate(&f, x, y);
                let hi = f.score[x].max(f.score[y]);
                let sum = f.score[x] + f.score[y];
                let game = SwissGame {
                    a: f.ids[a].clone(),
                    b: f.ids[b].clone(),
                    outcome: None,
                };
                (hi, sum, x.min(y), game)
            })
            .collect();
        // Boards: the higher score first, then the higher sum, then the
        // better pairing number.
        games.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)));
        self.played.push(Round {
            games: games.into_iter().map(|g| g.3).collect(),
            bye: bye.map(|i| f.ids[i].clone()),
        });
        Ok(self.played.last().expect("just pushed"))
    }

    /// The standings after the rounds whose results are all in.
    pub fn standings(&self) -> Vec<SwissStanding> {
        let done = self.played.iter().take_while(|r| r.complete()).count() as u32;
        self.standings_after(done)
    }

    /// The standings after round `n` (0: before the first; counted up to
    /// the rounds paired): points, then Buchholz, then Sonneborn-Berger,
    /// higher first, then pairing number.
    ///
    /// **Buchholz** is the sum of the opponents' points; **Sonneborn-
    /// Berger** the points of the opponents a player beat plus half those
    /// of the ones he drew. Unplayed rounds, as FIDE's rules did from 2009
    /// to 2023: an opponent's own unplayed rounds (his byes, the rounds he
    /// missed) count as draws in the points used here; a player's own
    /// unplayed round R (his bye, or a round he missed) counts as a game
    /// against a virtual opponent with his points before round R, plus 1
    /// minus what he scored in round R, plus ½ for each round after R (up
    /// to n) — and for Sonneborn-Berger that opponent counts as beaten
    /// when the round was his bye, and not at all when he missed it.
    pub fn standings_after(&self, n: u32) -> Vec<SwissStanding> {
        let n = (n as usize).min(self.played.len());
        let order = self.by_number();
        let parts = self.parts(&order, n);
        let points: Vec<u32> = parts
            .iter()
            .map(|ps| ps.iter().map(|&p| Self::points_x2(p)).sum())
            .collect();
        // Points with unplayed rounds as draws (1 half point each).
        let adjusted: Vec<u32> = parts
            .iter()
            .map(|ps| {
                ps.iter()
                    .map(|&p| match p {
                        Part::Bye | Part::Absent => 1,
                        _ => Self::points_x2(p),
                    })
                    .sum()
            })
            .collect();
        let mut rows: Vec<SwissStanding> = order
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (mut bh, mut sb) = (0u32, 0u32);
                let (mut won, mut drawn, mut lost) = (0, 0, 0);
                let mut before = 0u32; // his points × 2 before round r
                for (r, &part) in parts[i].iter().enumerate() {
                    let got = Self::points_x2(part);
                    match part {
                        Part::Played { opp, result, .. } => {
                            let o = adjusted[opp];
                            bh += o;
                            match result {
                                Some(PlayerResult::Win) => {
                                    sb += 2 * o;
                                    won += 1;
                                }
                                Some(PlayerResult::Draw) => {
                                    sb += o;
                                    drawn += 1;
                                }
                                Some(PlayerResult::Loss) => lost += 1,
                                None => {}
                            }
                        }
                        Part::Bye | Part::Absent => {
                            // Virtual opponent, × 2: before + (2 − got) +
                            // one half point per later round.
                            let later = (n - r - 1) as u32;
                            let virt = before + (2 - got) + later;
                            bh += virt;
                            sb += got * virt;
                        }
                    }
                    before += got;
                }
                SwissStanding {
                    rank: 0,
                    player: p.id.clone(),
                    rating: p.rating,
                    pairing_number: i as u32 + 1,
                    points_x2: points[i],
                    buchholz_x2: bh,
                    sonneborn_berger_x4: sb,
                    won,
                    drawn,
                    lost,
                    withdrawn: p.withdrawn,
                }
            })
            .collect();
        rows.sort_by(|x, y| {
            y.points_x2
                .cmp(&x.points_x2)
                .then(y.buchholz_x2.cmp(&x.buchholz_x2))
                .then(y.sonneborn_berger_x4.cmp(&x.sonneborn_berger_x4))
                .then(x.pairing_number.cmp(&y.pairing_number))
        });
        for (k, r) in rows.iter_mut().enumerate() {
            r.rank = k as u32 + 1;
        }
        rows
    }
}

/// Whether `x` and `y` may meet at `level`.
fn allowed(f: &Field, level: Level, x: usize, y: usize) -> bool {
    if x == y || f.met.contains(&(x.min(y), x.max(y))) {
        return false;
    }
    match (level, f.pref[x], f.pref[y]) {
        (Level::Strict, Some(p), Some(q)) => {
            !(p.strength == Strength::Absolute
                && q.strength == Strength::Absolute
                && p.side == q.side)
        }
        (Level::Sides, Some(p), Some(q)) => !(p.two_same && q.two_same && p.side == q.side),
        _ => true,
    }
}

/// A perfect pairing of `players` under [`allowed`], if one exists: the
/// most constrained player first, with failed sets remembered. Past
/// [`MATCH_BUDGET`] steps it answers as if one existed (an empty answer).
fn perfect_matching(f: &Field, level: Level, players: &[usize]) -> Option<Vec<(usize, usize)>> {
    if players.len() % 2 == 1 {
        return None;
    }
    let n = players.len();
    let ok: Vec<Vec<bool>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| allowed(f, level, players[i], players[j]))
                .collect()
        })
        .collect();
    let mut free = vec![true; n];
    let mut out = Vec::new();
    let mut failed: HashSet<Vec<bool>> = HashSet::new();
    let mut steps = 0usize;
    match search(&ok, &mut free, &mut out, &mut failed, &mut steps) {
        Some(true) => Some(
            out.into_iter()
                .map(|(i, j)| (players[i], players[j]))
                .collect(),
        ),
        Some(false) => None,
        None => Some(Vec::new()),
    }
}

/// The search of [`perfect_matching`]: `Some(found)`, or `None` when the
/// budget ran out.
fn search(
    ok: &[Vec<bool>],
    free: &mut [bool],
    out: &mut Vec<(usize, usize)>,
    failed: &mut HashSet<Vec<bool>>,
    steps: &mut usize,
) -> Option<bool> {
    let n = free.len();
    let pick = (0..n)
        .filter(|&i| free[i])
        .min_by_key(|&i| (0..n).filter(|&j| free[j] && ok[i][j]).count());
    let Some(i) = pick else { return Some(true) };
    if failed.contains(free) {
        return Some(false);
    }
    free[i] = false;
    for j in 0..n {
        if !free[j] || !ok[i][j] {
            continue;
        }
        *steps += 1;
        if *steps > MATCH_BUDGET {
            free[i] = true;
            return None;
        }
        free[j] = false;
        out.push((i, j));
        match search(ok, free, out, failed, steps) {
            Some(true) => return Some(true),
            None => {
                free[i] = true;
                free[j] = true;
                return None;
            }
            Some(false) => {}
        }
        out.pop();
        free[j] = true;
    }
    free[i] = true;
    failed.insert(free.to_vec());
    Some(false)
}

/// The players ranked for pairing: score, higher first, then pairing
/// number.
fn ranked(f: &Field, players: &[usize]) -> Vec<usize> {
    let mut v = players.to_vec();
    v.sort_by(|&x, &y| f.score[y].cmp(&f.score[x]).then(x.cmp(&y)));
    v
}

/// Pairs the active players of a round: its pairs and its bye.
fn pair_field(f: &Field, active: &[usize]) -> Option<(Pairs, Option<usize>)> {
    let order = ranked(f, active);
    for level in [Level::Strict, Level::Sides, Level::Loose] {
        let byes: Vec<Option<usize>> = if order.len().is_multiple_of(2) {
            vec![None]
        } else {
            // The lowest ranked first; at most one bye each.
            order
                .iter()
                .rev()
                .filter(|&&i| !f.had_bye[i])
                .map(|&i| Some(i))
                .collect()
        };
        for bye in byes {
            let rest: Vec<usize> = order.iter().copied().filter(|&i| Some(i) != bye).collect();
            if perfect_matching(f, level, &rest).is_some() {
                return Some((pair_brackets(f, level, &rest), bye));
            }
        }
    }
    None
}

/// Pairs of players (indices of the [`Field`]).
type Pairs = Vec<(usize, usize)>;

/// What sees each candidate of a bracket: its pairs and its floaters;
/// true stops the enumeration.
type CandidateVisit<'a> = dyn FnMut(&[(usize, usize)], &[usize]) -> bool + 'a;

/// What sees each way of pairing S1 into S2; true stops the enumeration.
type SelectionVisit<'a> = dyn FnMut(&[(usize, usize)]) -> bool + 'a;

/// The quality of a bracket's candidate: smaller is better, compared in
/// order.
type Quality = (usize, usize, usize, usize, usize);

/// Pairs `players` (an even number, known to be pairable) bracket by
/// bracket, top score down.
fn pair_brackets(f: &Field, level: Level, players: &[usize]) -> Vec<(usize, usize)> {
    let order = ranked(f, players);
    let mut pairs = Vec::new();
    let mut mdps: Vec<usize> = Vec::new();
    let mut k = 0;
    while k < order.len() {
        let s = f.score[order[k]];
        let mut end = k;
        while end < order.len() && f.score[order[end]] == s {
            end += 1;
        }
        let residents = &order[k..end];
        let below = &order[end..];
        let last = below.is_empty();
        let mut best: Option<(Quality, Pairs, Vec<usize>)> = None;
        let floor = (mdps.len() + residents.len()) % 2;
        let mut seen = 0usize;
        bracket_candidates(f, level, &mdps, residents, &mut |cand, floaters| {
            seen += 1;
            if last && !floaters.is_empty() {
                return seen >= CANDIDATE_BUDGET;
            }
            let q = quality(f, cand, floaters);
            if best.as_ref().is_some_and(|b| b.0 <= q) {
                return seen >= CANDIDATE_BUDGET;
            }
            // Completion: the floaters and everyone below stay pairable.
            let mut rest: Vec<usize> = floaters.to_vec();
            rest.extend_from_slice(below);
            if !last && perfect_matching(f, level, &rest).is_none() {
                return seen >= CANDIDATE_BUDGET;
            }
            let perfect = q == (floor, 0, 0, 0, 0);
            best = Some((q, cand.to_vec(), floaters.to_vec()));
            perfect || seen >= CANDIDATE_BUDGET
        });
        match best {
            Some((_, cand, floaters)) => {
                pairs.extend(cand);
                mdps = floaters;
            }
            None => {
                // Only the last bracket can get here (everything may float
                // from any other), and only past the budget: the
                // completion search's own pairing is valid.
                let mut rest = mdps.clone();
                rest.extend_from_slice(residents);
                match perfect_matching(f, level, &rest) {
                    Some(found) if !found.is_empty() || rest.is_empty() => pairs.extend(found),
                    // The search's budget ran out too (a field far beyond
                    // any event's): pair in rank order rather than leave
                    // anyone out.
                    _ => pairs.extend(
                        rest.chunks(2)
                            .filter(|c| c.len() == 2)
                            .map(|c| (c[0], c[1])),
                    ),
                }
                mdps = Vec::new();
            }
        }
        k = end;
    }
    pairs
}

/// The quality of a candidate: players floating down; colour preferences
/// not met; strong or absolute ones not met; floating down after floating
/// down last round; floating up after floating up last round.
fn quality(f: &Field, pairs: &[(usize, usize)], floaters: &[usize]) -> Quality {
    let (mut unmet, mut strong_unmet, mut up_again) = (0, 0, 0);
    for &(x, y) in pairs {
        let (a, _) = allocate(f, x, y);
        for p in [x, y] {
            if let Some(pref) = f.pref[p] {
                let got = if p == a { Side::A } else { Side::B };
                if got != pref.side {
                    unmet += 1;
                    if pref.strength >= Strength::Strong {
                        strong_unmet += 1;
                    }
                }
            }
        }
        // The lower scored of a pair of unequal scores floats up.
        let low = if f.score[x] < f.score[y] {
            Some(x)
        } else if f.score[y] < f.score[x] {
            Some(y)
        } else {
            None
        };
        if low.is_some_and(|l| f.floated_up[l]) {
            up_again += 1;
        }
    }
    let down_again = floaters.iter().filter(|&&p| f.floated_down[p]).count();
    (floaters.len(), unmet, strong_unmet, down_again, up_again)
}

/// Calls `visit(pairs, floaters)` for each candidate pairing of a bracket
/// in FIDE's order, until it returns true. MDPs first (as many as can be
/// paired, S1 = MDPs, S2 = residents), then the remainder as a homogeneous
/// bracket.
fn bracket_candidates(
    f: &Field,
    level: Level,
    mdps: &[usize],
    residents: &[usize],
    visit: &mut CandidateVisit<'_>,
) {
    let max_m1 = mdps.len().min(residents.len());
    for m1 in (0..=max_m1).rev() {
        let mut stop = false;
        for_combinations(mdps, m1, &mut |s1| {
            let floating_mdps: Vec<usize> =
                mdps.iter().copied().filter(|p| !s1.contains(p)).collect();
            for_selections(f, level, s1, residents, &mut |mdp_pairs| {
                let remainder: Vec<usize> = residents
                    .iter()
                    .copied()
                    .filter(|r| !mdp_pairs.iter().any(|&(_, y)| y == *r))
                    .collect();
                homogeneous(f, level, &remainder, &mut |hom_pairs, hom_floaters| {
                    let mut pairs = mdp_pairs.to_vec();
                    pairs.extend_from_slice(hom_pairs);
                    let mut floaters = floating_mdps.clone();
                    floaters.extend_from_slice(hom_floaters);
                    stop = visit(&pairs, &floaters);
                    stop
                });
                stop
            });
            stop
        });
        if stop {
            return;
        }
    }
}

/// Calls `visit` with each `k`-subset of `items`, in lexicographic order of
/// positions, until it returns true.
fn for_combinations(items: &[usize], k: usize, visit: &mut dyn FnMut(&[usize]) -> bool) {
    fn go(
        items: &[usize],
        k: usize,
        from: usize,
        cur: &mut Vec<usize>,
        visit: &mut dyn FnMut(&[usize]) -> bool,
    ) -> bool {
        if cur.len() == k {
            return visit(cur);
        }
        for i in from..items.len() {
            cur.push(items[i]);
            if go(items, k, i + 1, cur, visit) {
                return true;
            }
            cur.pop();
        }
        false
    }
    go(items, k, 0, &mut Vec::new(), visit);
}

/// Calls `visit` with each way of pairing `s1[i]` with a distinct member
/// of `s2` (ordered selections of S2 in lexicographic order: FIDE's
/// transpositions), skipping pairs that may not meet, until it returns
/// true. Returns whether it stopped.
fn for_selections(
    f: &Field,
    level: Level,
    s1: &[usize],
    s2: &[usize],
    visit: &mut SelectionVisit<'_>,
) -> bool {
    fn go(
        f: &Field,
        level: Level,
        s1: &[usize],
        s2: &[usize],
        used: &mut [bool],
        cur: &mut Vec<(usize, usize)>,
        visit: &mut SelectionVisit<'_>,
    ) -> bool {
        let i = cur.len();
        if i == s1.len() {
            return visit(cur);
        }
        for j in 0..s2.len() {
            if used[j] || !allowed(f, level, s1[i], s2[j]) {
                continue;
            }
            used[j] = true;
            cur.push((s1[i], s2[j]));
            if go(f, level, s1, s2, used, cur, visit) {
                return true;
            }
            cur.pop();
            used[j] = false;
        }
        false
    }
    go(
        f,
        level,
        s1,
        s2,
        &mut vec![false; s2.len()],
        &mut Vec::new(),
        visit,
    )
}

/// Calls `visit(pairs, floaters)` for each candidate of a homogeneous
/// bracket (`players` in rank order) in FIDE's order, until it returns
/// true: the most pairs first; for each number of pairs p, S1 = the top p
/// and S2 = the rest, first with S1 as it is, then with one S1 player
/// exchanged for one S2 player (the smallest difference of bracket numbers
/// first, then the lowest S1 player); for each, the transpositions of S2.
fn homogeneous(f: &Field, level: Level, players: &[usize], visit: &mut CandidateVisit<'_>) -> bool {
    let n = players.len();
    for p in (0..=n / 2).rev() {
        let mut variants: Vec<(usize, usize)> = vec![(usize::MAX, usize::MAX)];
        let mut swaps: Vec<(usize, usize)> =
            (0..p).flat_map(|i| (p..n).map(move |j| (i, j))).collect();
        swaps.sort_by(|x, y| (x.1 - x.0).cmp(&(y.1 - y.0)).then(y.0.cmp(&x.0)));
        variants.extend(swaps);
        for (i, j) in variants {
            let mut s1: Vec<usize> = players[..p].to_vec();
            let mut s2: Vec<usize> = players[p..].to_vec();
            if i != usize::MAX {
                std::mem::swap(&mut s1[i], &mut s2[j - p]);
                s1.sort_by_key(|x| players.iter().position(|y| y == x));
                s2.sort_by_key(|x| players.iter().position(|y| y == x));
            }
            let stopped = for_selections(f, level, &s1, &s2, &mut |pairs| {
                let floaters: Vec<usize> = s2
                    .iter()
                    .copied()
                    .filter(|q| !pairs.iter().any(|&(_, y)| y == *q))
                    .collect();
                visit(pairs, &floaters)
            });
            if stopped {
                return true;
            }
        }
    }
    false
}

/// Who is A of `x` and `y` (FIDE's colour rules E.1–E.5): returns (A, B).
fn allocate(f: &Field, x: usize, y: usize) -> (usize, usize) {
    // Rank: score, then pairing number (the index).
    let x_higher = f.score[x] > f.score[y] || (f.score[x] == f.score[y] && x < y);
    let (hi, lo) = if x_higher { (x, y) } else { (y, x) };
    let give = |p: usize, side: Side| {
        let q = if p == hi { lo } else { hi };
        if side == Side::A {
            (p, q)
        } else {
            (q, p)
        }
    };
    match (f.pref[hi], f.pref[lo]) {
        (None, None) => {
            // E.5: the initial colour (A) to an odd pairing number.
            let odd = (hi + 1) % 2 == 1;
            give(hi, if odd { Side::A } else { Side::B })
        }
        (Some(p), None) => give(hi, p.side),
        (None, Some(q)) => give(lo, q.side),
        (Some(p), Some(q)) if p.side != q.side => give(hi, p.side),
        (Some(p), Some(q)) => {
            // E.2: the stronger preference; both absolute: the wider
            // colour difference.
            if p.strength != q.strength {
                return if p.strength > q.strength {
                    give(hi, p.side)
                } else {
                    give(lo, q.side)
                };
            }
            // (A player whose last two games were on the same side first:
            // only the looser levels pair two such, and then he must not
            // get it a third time.)
            if p.two_same != q.two_same {
                return if p.two_same {
                    give(hi, p.side)
                } else {
                    give(lo, q.side)
                };
            }
            if p.strength == Strength::Absolute && f.cd[hi].abs() != f.cd[lo].abs() {
                return if f.cd[hi].abs() > f.cd[lo].abs() {
                    give(hi, p.side)
                } else {
                    give(lo, q.side)
                };
            }
            // E.3: alternate from the latest round they had different
            // sides, counting back over the games each played.
            let (sh, sl) = (&f.sides[hi], &f.sides[lo]);
            for k in 1..=sh.len().min(sl.len()) {
                let (a, b) = (sh[sh.len() - k], sl[sl.len() - k]);
                if a != b {
                    return give(hi, a.other());
                }
            }
            // E.4: the higher ranked player's preference.
            give(hi, p.side)
        }
    }
}
