//! Ratings as the site keeps them: after a rated game ends, each account's
//! rating of the game's pace moves by Glicko-2 ([`super::rating`]); the
//! store applies both in one transaction, once per game (a history row per
//! account and game), and only over the ratings it was computed from, so
//! that two games ending together on two servers are applied one after the
//! other. A sweep rates the games a stopped server left unrated.

use std::sync::Arc;
use std::time::Duration;

use gore_core::Player;

use super::clock::{Clock, TimeControl};
use super::rating::{Pace, Rating, Score};
use super::{GameError, Room};
use crate::storage::{RatingUpdate, Store, StoreError, StoredRating};

/// The ratings service. Cheap to clone.
#[derive(Clone)]
pub struct Ratings(Arc<Inner>);

struct Inner {
    store: Arc<dyn Store>,
    clock: Clock,
    max_plies: u32,
}

fn store_error(e: StoreError) -> GameError {
    match e {
        StoreError::Failed(_) => GameError::Unavailable,
        e => {
            tracing::error!("ratings: {e}");
            GameError::Internal("the ratings could not be read or saved; try again".into())
        }
    }
}

/// The word of a pace (`fast`, `slow`, `correspondence`), as stored.
pub fn pace_word(p: Pace) -> &'static str {
    match p {
        Pace::Fast => "fast",
        Pace::Slow => "slow",
        Pace::Correspondence => "correspondence",
    }
}

/// Reads [`pace_word`].
pub fn pace_of_word(w: &str) -> Option<Pace> {
    match w {
        "fast" => Some(Pace::Fast),
        "slow" => Some(Pace::Slow),
        "correspondence" => Some(Pace::Correspondence),
        _ => None,
    }
}

/// A stored rating as the arithmetic's.
pub fn rating_of(r: &StoredRating) -> Rating {
    Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
        games: r.games,
    }
}

pub use crate::rating::RatingChange;

/// One pace's rating on a player's page or a leaderboard.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RatingView {
    /// `fast`, `slow` or `correspondence`.
    pub pace: String,
    /// The rating, rounded.
    pub rating: i64,
    /// The deviation, rounded.
    pub deviation: i64,
    /// Rated games of the pace.
    pub games: u32,
    /// Fewer than 10 games: shown with a `?`.
    pub provisional: bool,
    /// As shown: `1662?`.
    pub shown: String,
}

/// A rating after one game.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PointView {
    /// The pace.
    pub pace: String,
    /// The rating after the game, rounded.
    pub rating: i64,
    /// Unix ms.
    pub at: i64,
    /// The game.
    pub game: String,
}

/// One of a player's games.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameLine {
    /// The game.
    pub id: String,
    /// Its page (to replay it).
    pub url: String,
    /// The player's seat.
    pub seat: Player,
    /// The opponent's name (the AI's level for ai games).
    pub opponent: String,
    /// The opponent's username when he played the game logged in to an
    /// account that still bears that name: the page `/@/{name}` to link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent_account: Option<String>,
    /// `win`, `draw`, `loss` for him; `null` while it goes on or aborted.
    pub result: Option<String>,
    /// ai or friend.
    pub mode: super::Mode,
    /// The AI's level (ai games).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// Rated.
    pub rated: bool,
    /// The clock.
    pub clock: Option<TimeControl>,
    /// Unix ms.
    pub created_at: i64,
}

/// A player's results against one AI level.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AiRecord {
    /// The level (the top level for the perfect player).
    pub level: u8,
    /// His wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// His losses.
    pub losses: u32,
}

/// A player's page: `GET /api/players/{name}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlayerPage {
    /// His public id.
    pub id: String,
    /// His username.
    pub name: String,
    /// A BOT account (absent for people).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
    /// One per pace he has played rated.
    pub ratings: Vec<RatingView>,
    /// His rating after each rated game, oldest first.
    pub history: Vec<PointView>,
    /// His latest games (50 at most), the latest first.
    pub games: Vec<GameLine>,
    /// His results against the AI levels (of those games), by level.
    pub ai: Vec<AiRecord>,
}

/// A leaderboard's row.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LeaderRow {
    /// The username.
    pub name: String,
    /// A BOT account (absent for people): the page shows bots apart.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
    /// The rating.
    #[serde(flatten)]
    pub rating: RatingView,
}

/// A BOT on the bots' page (`GET /api/bots`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BotLine {
    /// The account's public id.
    pub id: String,
    /// Its username.
    pub name: String,
    /// Its event stream is open now: it hears challenges.
    pub online: bool,
    /// One per pace it has played rated.
    pub ratings: Vec<RatingView>,
}

fn view_of(r: &StoredRating) -> RatingView {
    let rating = rating_of(r);
    RatingView {
        pace: r.pace.clone(),
        rating: r.rating.round() as i64,
        deviation: r.deviation.round() as i64,
        games: r.games,
        provisional: rating.is_provisional(),
        shown: rating.shown(),
    }
}

/// Who won a finished game, from what the store keeps: the forfeit's
/// loser, else the seeds of its result (`30-18`); `None` if unknown.
pub fn winner_of(info: &super::GameInfo, result: Option<&str>) -> Option<Option<Player>> {
    if let Some(f) = info.forfeit {
        return f.loser().map(|l| Some(l.opponent()));
    }
    let score = result?.split(' ').next()?;
    let (a, b) = score.split_once('-')?;
    let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
    Some(match a.cmp(&b) {
        std::cmp::Ordering::Greater => Some(Player::A),
        std::cmp::Ordering::Less => Some(Player::B),
        std::cmp::Ordering::Equal => None,
    })
}

impl Ratings {
    /// The page of the account named `name` (or a name that looks like it).
    pub async fn page(&self, name: &str) -> Result<PlayerPage, GameError> {
        let store = &self.0.store;
        let key = super::names::keys(name.trim())[0].clone();
        let account = store
            .account_by_key(key)
            .await
            .map_err(store_error)?
            .ok_or(GameError::NoPlayer)?;
        let ratings = store
            .ratings_of(account.id.clone())
            .await
            .map_err(store_error)?;
        let history = store
            .rating_history(account.id.clone())
            .await
            .map_err(store_error)?;
        let games = store
            .player_games(account.id.clone(), 200)
            .await
            .map_err(store_error)?;
        let mut lines = Vec::new();
        let mut ai: std::collections::BTreeMap<u8, AiRecord> = Default::default();
        // Opponents' accounts, by public id: one look-up each.
        let mut accounts: std::collections::HashMap<String, Option<String>> = Default::default();
        for (info, result) in &games {
            let Some(seat) = Player::ALL
                .into_iter()
                .find(|p| info.players[p.index()].as_deref() == Some(account.id.as_str()))
            else {
                continue;
            };
            let over = info.status == super::Status::Over;
            let won = if over {
                winner_of(info, result.as_deref())
            } else {
                None
            };
            let outcome = won.map(|w| match w {
                Some(p) if p == seat => "win",
                Some(_) => "loss",
                None => "draw",
            });
            let level = (info.mode == super::Mode::Ai).then(|| info.level.get());
            if let (Some(level), Some(o)) = (level, outcome) {
                let r = ai.entry(level).or_insert(AiRecord {
                    level,
                    wins: 0,
                    draws: 0,
                    losses: 0,
                });
                match o {
                    "win" => r.wins += 1,
                    "loss" => r.losses += 1,
                    _ => r.draws += 1,
                }
            }
            if lines.len() < 50 {
                let opponent = match level {
                    Some(l) => format!("gore-ai level {l}"),
                    None => info.names[seat.opponent().index()]
                        .clone()
                        .unwrap_or_else(|| format!("Player {}", seat.opponent())),
                };
                let opponent_account = match (level, &info.players[seat.opponent().index()]) {
                    (None, Some(id)) => match accounts.get(id) {
                        Some(known) => known.clone(),
                        None => {
                            let known = self.account_named(&opponent, id).await?;
                            accounts.insert(id.clone(), known.clone());
                            known
                        }
                    },
                    _ => None,
                };
                lines.push(GameLine {
                    id: info.id.clone(),
                    url: format!("/g/{}", info.id),
                    seat,
                    opponent,
                    opponent_account,
                    result: outcome.map(str::to_string),
                    mode: info.mode,
                    level,
                    rated: info.rated,
                    clock: info.clock,
                    created_at: info.created_at,
                });
            }
        }
        Ok(PlayerPage {
            id: account.id,
            name: account.username,
            bot: account.bot,
            ratings: ratings.iter().map(view_of).collect(),
            history: history
                .into_iter()
                .map(|h| PointView {
                    pace: h.pace,
                    rating: h.rating.round() as i64,
                    at: h.at,
                    game: h.game,
                })
                .collect(),
            games: lines,
            ai: ai.into_values().collect(),
        })
    }

    /// The username of the account named `name` if it is the player `id`
    /// (a name in a game is the one its player had then: an anonymous
    /// player's is no account's, and no link is made for it).
    async fn account_named(&self, name: &str, id: &str) -> Result<Option<String>, GameError> {
        let key = super::names::keys(name.trim())[0].clone();
        let account = self
            .0
            .store
            .account_by_key(key)
            .await
            .map_err(store_error)?;
        Ok(account.filter(|a| a.id == id).map(|a| a.username))
    }

    /// The best of a pace (`fast`, `slow`, `correspondence`), 100 at most:
    /// BOTs only (`bots` `Some(true)`), people only (`Some(false)`) or
    /// both, so that a page shows bots apart and they crowd no person out.
    pub async fn leaderboard(
        &self,
        pace: &str,
        bots: Option<bool>,
    ) -> Result<Vec<LeaderRow>, GameError> {
        if pace_of_word(pace).is_none() {
            return Err(GameError::BadField {
                field: "pace",
                why: format!("`{pace}` is not fast, slow or correspondence"),
            });
        }
        let rows = self
            .0
            .store
            .leaderboard(pace.to_string(), bots, 100)
            .await
            .map_err(store_error)?;
        Ok(rows
            .iter()
            .map(|r| LeaderRow {
                name: r.username.clone(),
                bot: r.bot,
                rating: view_of(&r.rating),
            })
            .collect())
    }

    /// The BOT accounts (200 at most), by name, each with its ratings and
    /// whether its event stream is open now (seen within
    /// [`crate::events::ONLINE_WITHIN`]).
    pub async fn bots(&self) -> Result<Vec<BotLine>, GameError> {
        let store = &self.0.store;
        let accounts = store.bot_accounts(200).await.map_err(store_error)?;
        let mut ratings: std::collections::HashMap<String, Vec<RatingView>> = Default::default();
        for pace in [Pace::Fast, Pace::Slow, Pace::Correspondence] {
            // Every rated BOT of the pace: no more of them than of BOTs.
            for r in store
                .leaderboard(pace_word(pace).to_string(), Some(true), 200)
                .await
                .map_err(store_error)?
            {
                ratings.entry(r.id).or_default().push(view_of(&r.rating));
            }
        }
        let online_since = self.0.clock.now_ms() - crate::events::ONLINE_WITHIN.as_millis() as i64;
        Ok(accounts
            .into_iter()
            .map(|(id, name, seen)| BotLine {
                ratings: ratings.remove(&id).unwrap_or_default(),
                online: seen.is_some_and(|at| at >= online_since),
                id,
                name,
            })
            .collect())
    }

    /// The ratings of `store`; starts the sweep (a Tokio runtime is needed).
    pub fn new(store: Arc<dyn Store>, clock: Clock, max_plies: u32) -> Ratings {
        let r = Ratings(Arc::new(Inner {
            store,
            clock,
            max_plies,
        }));
        r.spawn_sweep();
        r
    }

    /// An account's rating of a pace (the start if it has played none).
    pub async fn of(&self, account: &str, pace: Pace) -> Result<(Rating, u32), GameError> {
        let all = self
            .0
            .store
            .ratings_of(account.to_string())
            .await
            .map_err(store_error)?;
        Ok(all
            .iter()
            .find(|r| r.pace == pace_word(pace))
            .map_or((Rating::START, 0), |r| (rating_of(r), r.games)))
    }

    /// How an account's rating of the pace of `clock` is shown (`1500?`).
    pub async fn shown(&self, account: &str, clock: TimeControl) -> Result<String, GameError> {
        Ok(self.of(account, clock.pace()).await?.0.shown())
    }

    /// How game `id` moved the ratings of `players` (A's, B's) of `pace`,
    /// from their rating histories: `None` for a player it has not rated
    /// (yet).
    pub async fn changes_of(
        &self,
        id: &str,
        players: [&str; 2],
        pace: Pace,
    ) -> Result<[Option<RatingChange>; 2], GameError> {
        let mut out = [None, None];
        for (slot, account) in out.iter_mut().zip(players) {
            let history = self
                .0
                .store
                .rating_history(account.to_string())
                .await
                .map_err(store_error)?;
            let mine: Vec<_> = history
                .iter()
                .filter(|h| h.pace == pace_word(pace))
                .collect();
            let Some(k) = mine.iter().position(|h| h.game == id) else {
                continue;
            };
            let before = if k == 0 {
                Rating::START.rating
            } else {
                mine[k - 1].rating
            };
            let after = Rating {
                rating: mine[k].rating,
                deviation: mine[k].deviation,
                volatility: Rating::START.volatility,
                // The history is oldest first: this game is his (k+1)th.
                games: k as u32 + 1,
            };
            *slot = Some(RatingChange {
                after: after.shown(),
                change: after.rating.round() as i64 - before.round() as i64,
            });
        }
        Ok(out)
    }

    /// Rates game `id` if it is a finished rated game not yet rated;
    /// `true` if this call rated it.
    pub async fn settle(&self, id: &str) -> Result<bool, GameError> {
        let store = &self.0.store;
        let Some(stored) = store.load_game(id.to_string()).await.map_err(store_error)? else {
            return Ok(false);
        };
        let info = stored.info.clone();
        let (Some(tc), [Some(a), Some(b)]) = (info.clock, info.players.clone()) else {
            return Ok(false);
        };
        // One player on both seats (paired before the lobby compared
        // players): nothing to rate.
        if !info.rated || a == b {
            return Ok(false);
        }
        let max = self.0.max_plies;
        let room = tokio::task::spawn_blocking(move || Room::load(stored, max))
            .await
            .map_err(|e| GameError::Internal(e.to_string()))?
            .map_err(GameError::Internal)?;
        let Some(winner) = room.result_winner() else {
            return Ok(false); // not over, or aborted
        };
        let score_a = match winner {
            Some(Player::A) => Score::Win,
            Some(Player::B) => Score::Loss,
            None => Score::Draw,
        };
        let pace = tc.pace();
        for _ in 0..5 {
            let (ra, na) = self.of(&a, pace).await?;
            let (rb, nb) = self.of(&b, pace).await?;
            let after_a = ra.after_game(&rb, score_a);
            let after_b = rb.after_game(&ra, score_a.reversed());
            let stored = |r: Rating| StoredRating {
                pace: pace_word(pace).into(),
                rating: r.rating,
                deviation: r.deviation,
                volatility: r.volatility,
                games: r.games,
            };
            let updates = vec![
                RatingUpdate {
                    account: a.clone(),
                    before: na,
                    after: stored(after_a),
                },
                RatingUpdate {
                    account: b.clone(),
                    before: nb,
                    after: stored(after_b),
                },
            ];
            if store
                .rate_game(id.to_string(), updates, self.0.clock.now_ms())
                .await
                .map_err(store_error)?
            {
                tracing::info!(
                    "game {id} rated: {:.0} → {:.0}, {:.0} → {:.0}",
                    ra.rating,
                    after_a.rating,
                    rb.rating,
                    after_b.rating
                );
                return Ok(true);
            }
            // Rated meanwhile (by another server), or another game of one
            // of them was: read again; a game rated already stops here.
            if store
                .rating_history(a.clone())
                .await
                .map_err(store_error)?
                .iter()
                .any(|h| h.game == id)
            {
                return Ok(false);
            }
        }
        Err(GameError::Internal(format!(
            "game {id}: the ratings kept moving; the sweep rates it later"
        )))
    }

    /// Every 30 s: the rated games left unrated (a server stopped between
    /// a game's end and its rating).
    fn spawn_sweep(&self) {
        let weak = Arc::downgrade(&self.0);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(30));
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                let r = Ratings(inner);
                match r.0.store.unrated_games(100).await {
                    Ok(ids) => {
                        for id in ids {
                            if let Err(e) = r.settle(&id).await {
                                tracing::warn!("ratings: {e}");
                            }
                        }
                    }
                    Err(e) => tracing::warn!("ratings: {e}"),
                }
            }
        });
    }
}
