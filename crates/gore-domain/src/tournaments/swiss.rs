//! Swiss events on the server (issue 29): the `gore-tournament` crate's
//! [`Swiss`] (the Dutch system, byes, Buchholz and Sonneborn-Berger; the
//! rules in docs/RULES.md, "Swiss"), run as arenas are: the whole state
//! stored with a version for compare-and-set, results recorded and rounds
//! paired only by the holder of the tournament's pairing lease, each
//! round's games created in the transaction that saves the round.
//!
//! - At the start the holder pairs round 1; each later round as soon as
//!   every game of the one before has its result (read from the games'
//!   ends, each recorded once: the engine refuses a second record).
//! - An event with fewer than two players to pair at a round (or whose
//!   round cannot be paired without a rematch or a second bye) ends
//!   there; after its last round it is finished.
//! - A game aborted before both players acted is lost by the player the
//!   abort counts against, who is withdrawn (an absent player is not
//!   paired round after round); the round goes on.
//! - With `--tournaments-daily-swiss`, the server schedules a Swiss every
//!   day ([`DAILY`]) under an id derived from the day, so that several
//!   servers make each once.

use std::collections::BTreeMap;

use gore_tournament::swiss::{Round, Swiss, SwissError};
use gore_tournament::{Outcome, PlayerId};
use serde::{Deserialize, Serialize};

use super::{
    bad, hourly_id, outcome_of, store_error, NewTournament, Phase, SwissState, TournamentDetail,
    TournamentState, TournamentSummary, Tournaments, ABORT_GRACE_MS, RETRIES,
};
use crate::clock::TimeControl;
use crate::storage::{StoreError, StoredPlayer, StoredTournament};
use crate::{new_id, GameError, Said};

/// The fewest and most rounds of a Swiss event.
pub const SWISS_ROUNDS: (u32, u32) = (3, 15);
/// The server's daily Swiss: its pace, its rounds, and its start in hours
/// after midnight UTC.
pub const DAILY: (&str, u32, i64) = ("5+3", 7, 18);
/// A day, in ms.
const DAY_MS: i64 = 86_400_000;

/// One board of a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissBoard {
    /// 1 for the first.
    pub board: u32,
    /// The site's game.
    pub game: String,
    /// Its page.
    pub url: String,
    /// Player A's (public id, username).
    pub a: (String, String),
    /// Player B's.
    pub b: (String, String),
    /// Its result, once recorded.
    pub result: Option<Outcome>,
}

/// One round as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissRound {
    /// 1 for the first.
    pub round: u32,
    /// Its games, board 1 first.
    pub boards: Vec<SwissBoard>,
    /// Who had the bye (public id, username).
    pub bye: Option<(String, String)>,
    /// Every game has its result.
    pub complete: bool,
}

/// One line of a Swiss event's standings. Points and tie-breaks are
/// halves and quarters, exact as JSON numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwissLine {
    /// 1 for the leader.
    pub rank: u32,
    /// The account's public id.
    pub player: String,
    /// His username.
    pub name: String,
    /// His rating when he joined.
    pub rating: i32,
    /// His points (a win 1, a draw ½, the bye 1).
    pub points: f64,
    /// Buchholz.
    pub buchholz: f64,
    /// Sonneborn-Berger.
    pub sonneborn_berger: f64,
    /// Games won.
    pub won: u32,
    /// Games drawn.
    pub drawn: u32,
    /// Games lost.
    pub lost: u32,
    /// He withdrew (not paired again).
    pub withdrawn: bool,
    /// His game of the current round, while it is played.
    pub game: Option<String>,
}

/// A Swiss event's page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwissDetail {
    /// Its terms and phase.
    pub tournament: TournamentSummary,
    /// The rounds paired so far, round 1 first (the last is the current
    /// one while it is played).
    pub rounds: Vec<SwissRound>,
    /// The standings after the rounds whose every result is in.
    pub standings: Vec<SwissLine>,
    /// How many rounds those standings count.
    pub standings_after: u32,
}

/// A tournament's page, of either kind (`tournament.kind` tells which).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TournamentPage {
    /// An arena's.
    Arena(TournamentDetail),
    /// A Swiss event's.
    Swiss(SwissDetail),
}

/// A Swiss refusal as the site's.
fn swiss_error(e: SwissError) -> GameError {
    match e {
        SwissError::TooLate => GameError::Refused(Said::new(
            "tournament_too_late",
            "more than half the rounds have been paired: too late to join",
        )),
        SwissError::UnknownPlayer(_) => GameError::Refused(Said::new(
            "tournament_not_joined",
            "you have not joined this tournament",
        )),
        e => GameError::Internal(format!("tournament: {e}")),
    }
}

fn over() -> GameError {
    GameError::Refused(Said::new(
        "tournament_over",
        "this tournament has ended: nobody joins any more",
    ))
}

/// The expected length of a round at `clock`: both clocks spent, with an
/// increment for some 40 actions each. Only for the list's "ends" (the
/// next round begins when the last game of this one ends).
fn round_ms(clock: TimeControl) -> i64 {
    match clock {
        TimeControl::Fischer { base, increment } => 2 * (base + 40 * increment).as_millis() as i64,
        _ => DAY_MS,
    }
}

impl Tournaments {
    /// Creates a Swiss event of `new.rounds` rounds by `me` (his account,
    /// `name` and `clock` already checked): its id.
    pub(super) async fn create_swiss(
        &self,
        me: &StoredPlayer,
        new: NewTournament,
        name: &str,
        from: Option<String>,
    ) -> Result<String, GameError> {
        let (lo, hi) = SWISS_ROUNDS;
        let rounds = new.rounds.unwrap_or(0);
        if !(lo..=hi).contains(&rounds) {
            return Err(bad(
                "rounds",
                format!("a Swiss event has {lo} to {hi} rounds, not {rounds}"),
            ));
        }
        let now = self.now();
        if new.starts_at.is_some_and(|s| s < now - 60_000) {
            return Err(bad("starts_at", "the start is in the past"));
        }
        let starts_at = new.starts_at.unwrap_or(now).max(now);
        if starts_at > now + super::START_AHEAD_MS {
            return Err(bad("starts_at", "a tournament starts within a week"));
        }
        let swiss = Swiss::new(rounds).map_err(|e| bad("rounds", e.to_string()))?;
        let state = SwissState {
            swiss,
            names: [(me.id.clone(), me.name.clone())].into(),
            games: Vec::new(),
            ended: false,
        };
        let id = new_id();
        self.store_new(StoredTournament {
            id: id.clone(),
            kind: "swiss".into(),
            name: name.to_string(),
            creator: me.id.clone(),
            creator_addr: from,
            clock: new.clock,
            rules: new.rules,
            rated: new.rated,
            starts_at,
            ends_at: starts_at + i64::from(rounds) * round_ms(new.clock),
            finished: false,
            created_at: now,
            state: TournamentState::Swiss(state),
            version: 1,
        })
        .await?;
        tracing::info!("tournament {id} created (Swiss, {rounds} rounds)");
        Ok(id)
    }

    /// Makes sure today's daily Swiss (unless begun) and tomorrow's exist,
    /// each under an id derived from its day (`d` and the day's number in
    /// base 32), so that two servers make it once.
    pub(super) async fn schedule_daily(&self) -> Result<(), GameError> {
        let now = self.now();
        let day = now.div_euclid(DAY_MS);
        let (pace, rounds, hour) = DAILY;
        let clock: TimeControl = pace.parse().map_err(|e: String| GameError::Internal(e))?;
        for d in [day, day + 1] {
            let starts_at = d * DAY_MS + hour * 3_600_000;
            let id = format!("d{}", &hourly_id(d)[1..]);
            if starts_at <= now
                || self
                    .0
                    .store
                    .tournament(id.clone())
                    .await
                    .map_err(store_error)?
                    .is_some()
            {
                continue;
            }
            let swiss = Swiss::new(rounds).map_err(|e| GameError::Internal(e.to_string()))?;
            let made = self
                .0
                .store
                .create_tournament(StoredTournament {
                    id: id.clone(),
                    kind: "swiss".into(),
                    name: format!("Daily {pace} Swiss"),
                    creator: String::new(),
                    creator_addr: None,
                    clock,
                    rules: gore_core::Rules::STANDARD,
                    rated: true,
                    starts_at,
                    ends_at: starts_at + i64::from(rounds) * round_ms(clock),
                    finished: false,
                    created_at: now,
                    state: TournamentState::Swiss(SwissState {
                        swiss,
                        names: BTreeMap::new(),
                        games: Vec::new(),
                        ended: false,
                    }),
                    version: 1,
                })
                .await;
            match made {
                Ok(()) => tracing::info!("tournament {id}: the daily Swiss scheduled"),
                // Another server made it first.
                Err(StoreError::Conflict) => {}
                Err(e) => return Err(store_error(e)),
            }
        }
        Ok(())
    }

    /// Changes Swiss event `id` with `f`, saved over the version it was
    /// read at (read again and done again otherwise).
    async fn change_swiss(
        &self,
        id: &str,
        mut f: impl FnMut(&mut SwissState) -> Result<bool, GameError>,
    ) -> Result<(), GameError> {
        for _ in 0..RETRIES {
            let t = self.load(id).await?;
            let TournamentState::Swiss(mut s) = t.state.clone() else {
                return Err(GameError::NoTournament);
            };
            if t.finished || s.ended || s.swiss.finished() {
                return Err(over());
            }
            if !f(&mut s)? {
                return Ok(());
            }
            let state = TournamentState::Swiss(s);
            if self.save(&t, &state, Vec::new(), self.now()).await? {
                return Ok(());
            }
        }
        Err(GameError::Raced)
    }

    /// Account `me` joins Swiss event `id` (his rating of its pace kept
    /// for its pairing numbers): before the start, or until more than half
    /// the rounds are paired (he scores 0 for the rounds he missed, the
    /// current one too). Joining again is nothing; a withdrawn player
    /// does not come back.
    pub(super) async fn join_swiss(
        &self,
        t: &StoredTournament,
        me: &StoredPlayer,
    ) -> Result<(), GameError> {
        let rating = self.0.ratings.of(&me.id, t.clock.pace()).await?.0.rating;
        let rating = rating.round() as i32;
        let who = PlayerId::from(me.id.as_str());
        self.change_swiss(&t.id, |s| {
            match s.swiss.players.get(&who) {
                Some(p) if p.withdrawn => {
                    return Err(GameError::Refused(Said::new(
                        "tournament_withdrawn",
                        "you withdrew from this tournament: you cannot rejoin it",
                    )))
                }
                Some(_) => return Ok(false),
                None => {}
            }
            s.swiss.join(who.clone(), rating).map_err(swiss_error)?;
            s.names.insert(me.id.clone(), me.name.clone());
            Ok(true)
        })
        .await
    }

    /// Account `me` withdraws from Swiss event `id`: he is not paired
    /// again (his game of the current round, if any, is played out and
    /// counts); before the first round he is simply removed.
    pub(super) async fn withdraw_swiss(
        &self,
        id: &str,
        me: &StoredPlayer,
    ) -> Result<(), GameError> {
        let who = PlayerId::from(me.id.as_str());
        self.change_swiss(id, |s| {
            if s.swiss.players.get(&who).is_some_and(|p| p.withdrawn) {
                return Ok(false);
            }
            s.swiss.withdraw(&who).map_err(swiss_error)?;
            Ok(true)
        })
        .await
    }

    /// Under the pairing lease (the caller holds it): records the results
    /// of the current round's games that ended and, once the round is
    /// complete, pairs the next (at the start, the first) and creates its
    /// games, all saved at once. `t` is the state just read.
    pub(super) async fn run_swiss(
        &self,
        mut t: StoredTournament,
        began: std::time::Instant,
    ) -> Result<(), GameError> {
        for attempt in 0..RETRIES {
            if attempt > 0 {
                t = self.load(&t.id).await?;
            }
            let TournamentState::Swiss(mut s) = t.state.clone() else {
                return Ok(());
            };
            let now = self.now();
            if t.finished || now < t.starts_at {
                return Ok(());
            }
            let mut changed = self.record_swiss(&mut s, now).await?;
            let mut games = Vec::new();
            let complete = s.swiss.played.last().is_none_or(Round::complete);
            if complete && !s.ended && (s.swiss.played.len() as u32) < s.swiss.rounds {
                match s.swiss.pair_round() {
                    Ok(round) => {
                        let round = round.clone();
                        // Numbered in the tournament after the earlier rounds'.
                        let first = s.games.iter().map(Vec::len).sum::<usize>() as u32;
                        let mut ids = Vec::new();
                        for (n, g) in (first..).zip(&round.games) {
                            let info = self.game_for(&t, &s.names, (&g.a, &g.b), None, now).await?;
                            ids.push(info.id.clone());
                            games.push((n, info));
                        }
                        s.games.push(ids);
                    }
                    Err(SwissError::TooFewPlayers | SwissError::NoPairing) => {
                        tracing::info!(
                            "tournament {}: ends before round {}",
                            t.id,
                            s.swiss.played.len() + 1
                        );
                        s.ended = true;
                    }
                    Err(e) => return Err(GameError::Internal(format!("tournament: {e}"))),
                }
                changed = true;
            }
            if !changed {
                return Ok(());
            }
            let n = games.len();
            let round = s.swiss.played.len();
            if self
                .save(&t, &TournamentState::Swiss(s), games, now)
                .await?
            {
                if n > 0 {
                    tracing::info!("tournament {}: round {round} paired", t.id);
                }
                self.paired(&t.id, "swiss", n, began);
                return Ok(());
            }
        }
        Err(GameError::Raced)
    }

    /// Records the results of the current round's games that ended:
    /// whether any was.
    async fn record_swiss(&self, s: &mut SwissState, now: i64) -> Result<bool, GameError> {
        let r = s.swiss.played.len();
        let Some(round) = s.swiss.played.last() else {
            return Ok(false);
        };
        let open: Vec<(usize, String)> = round
            .games
            .iter()
            .enumerate()
            .filter(|(_, g)| g.outcome.is_none())
            .filter_map(|(b, _)| Some((b, s.games.get(r - 1)?.get(b)?.clone())))
            .collect();
        if open.is_empty() {
            return Ok(false);
        }
        let ends = self
            .0
            .store
            .game_ends(open.iter().map(|(_, g)| g.clone()).collect())
            .await
            .map_err(store_error)?;
        let mut changed = false;
        for e in &ends {
            let Some(&(board, _)) = open.iter().find(|(_, g)| *g == e.game) else {
                continue;
            };
            let game = &s.swiss.played[r - 1].games[board];
            let (a, b) = (game.a.clone(), game.b.clone());
            let outcome = match (outcome_of(e), &e.aborted_by) {
                (Some(o), _) => o,
                // An abort: lost by the player it counts against, who is
                // withdrawn. Its record follows the game's end closely
                // (RULES.md, "Aborting"): wait for it a little, then,
                // with none, a draw.
                (None, Some(p)) => {
                    let p = PlayerId::from(p.as_str());
                    let _ = s.swiss.withdraw(&p);
                    if p == a {
                        Outcome::BWins
                    } else if p == b {
                        Outcome::AWins
                    } else {
                        Outcome::Draw
                    }
                }
                (None, None) if now - e.ended_at < ABORT_GRACE_MS => continue,
                (None, None) => Outcome::Draw,
            };
            if s.swiss.record(r as u32, board, outcome).is_ok() {
                changed = true;
            }
        }
        Ok(changed)
    }

    /// The list's line of Swiss event `t`.
    pub(super) fn swiss_summary(
        t: &StoredTournament,
        s: &SwissState,
        now: i64,
    ) -> TournamentSummary {
        let phase = if t.finished || s.ended || s.swiss.finished() {
            Phase::Finished
        } else if now < t.starts_at {
            Phase::Upcoming
        } else {
            Phase::Running
        };
        let mut line = Self::summary_of(t, &s.names, phase, s.swiss.players.len());
        line.rounds = Some(s.swiss.rounds);
        line.round = Some(s.swiss.played.len() as u32);
        line
    }

    /// A tournament's page, of either kind.
    pub async fn page(&self, id: &str) -> Result<TournamentPage, GameError> {
        let t = self.load(id).await?;
        let TournamentState::Swiss(s) = &t.state else {
            return Ok(TournamentPage::Arena(self.detail(id).await?));
        };
        let name = |p: &PlayerId| s.names.get(p.as_str()).cloned().unwrap_or_default();
        let who = |p: &PlayerId| (p.0.clone(), name(p));
        let rounds: Vec<SwissRound> = s
            .swiss
            .played
            .iter()
            .enumerate()
            .map(|(r, round)| SwissRound {
                round: r as u32 + 1,
                boards: round
                    .games
                    .iter()
                    .enumerate()
                    .map(|(b, g)| {
                        let game = s
                            .games
                            .get(r)
                            .and_then(|ids| ids.get(b))
                            .cloned()
                            .unwrap_or_default();
                        SwissBoard {
                            board: b as u32 + 1,
                            url: format!("/g/{game}"),
                            game,
                            a: who(&g.a),
                            b: who(&g.b),
                            result: g.outcome,
                        }
                    })
                    .collect(),
                bye: round.bye.as_ref().map(who),
                complete: round.complete(),
            })
            .collect();
        let playing = |p: &str| {
            let current = rounds.last()?;
            let b = current
                .boards
                .iter()
                .find(|b| b.result.is_none() && (b.a.0 == p || b.b.0 == p))?;
            Some(b.game.clone())
        };
        let after = s.swiss.played.iter().take_while(|r| r.complete()).count() as u32;
        let standings = s
            .swiss
            .standings_after(after)
            .into_iter()
            .map(|l| SwissLine {
                rank: l.rank,
                name: name(&l.player),
                rating: l.rating,
                points: f64::from(l.points_x2) / 2.0,
                buchholz: f64::from(l.buchholz_x2) / 2.0,
                sonneborn_berger: f64::from(l.sonneborn_berger_x4) / 4.0,
                won: l.won,
                drawn: l.drawn,
                lost: l.lost,
                withdrawn: l.withdrawn,
                game: playing(l.player.as_str()),
                player: l.player.0,
            })
            .collect();
        Ok(TournamentPage::Swiss(SwissDetail {
            tournament: Self::swiss_summary(&t, s, self.now()),
            rounds,
            standings,
            standings_after: after,
        }))
    }
}
