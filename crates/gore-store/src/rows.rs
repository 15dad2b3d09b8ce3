//! The row mappers: rows of both databases into typed data. A value
//! that does not read is an error naming its row (the game, challenge or
//! account) and its column: [`StoreError::Damaged`].

use std::fmt::Display;
use std::str::FromStr;

use gore_ai::Level;
use gore_core::{Hole, Player, Position, Rules};

use super::sql::{FromValue, Row};
use super::{
    BoardBatch, BoardJob, HistoryPoint, Ranked, StoreError, StoredAccount, StoredAction,
    StoredBotChallenge, StoredChallenge, StoredPlayer, StoredRating, StoredToken,
};
use gore_domain::{ChatLine, GameInfo, Mode, PerSeat, Ply, Seat, Status, PERFECT_LEVEL};

pub(super) fn damaged(id: &str, why: impl Into<String>) -> StoreError {
    StoreError::Damaged {
        id: id.to_string(),
        why: why.into(),
    }
}

/// Column `c` of a row of `id` (a game, a challenge, an account), or the
/// row is damaged.
pub(super) fn col<T: FromValue>(r: &Row, id: &str, c: &str) -> Result<T, StoreError> {
    r.get(c).map_err(|e| damaged(id, e))
}

/// Column `c` of a row of `id` as text, parsed, or the row is damaged
/// (the column, its text and why).
pub(super) fn parsed<T: FromStr>(r: &Row, id: &str, c: &str) -> Result<T, StoreError>
where
    T::Err: Display,
{
    let s: String = col(r, id, c)?;
    s.parse()
        .map_err(|e| damaged(id, format!("{c} {s:?}: {e}")))
}

/// The same for a column that may be NULL.
pub(super) fn parsed_opt<T: FromStr>(r: &Row, id: &str, c: &str) -> Result<Option<T>, StoreError>
where
    T::Err: Display,
{
    let s: Option<String> = col(r, id, c)?;
    s.map(|s| {
        s.parse()
            .map_err(|e| damaged(id, format!("{c} {s:?}: {e}")))
    })
    .transpose()
}

/// A record read from a row of `id`: `row!(Type, r, id; a, b: "col", c
/// = expr)` is `Type { a: col(r, id, "a")?, b: col(r, id, "col")?, c: expr }`
/// (most mappers are only that).
macro_rules! row {
    ($ty:ident, $r:expr, $id:expr;
     $($f:ident $(: $c:literal)?),* $(; $($g:ident = $e:expr),*)?) => {
        $ty { $($f: col($r, $id, row!(@col $f $($c)?))?,)* $($($g: $e,)*)? }
    };
    (@col $f:ident) => { stringify!($f) };
    (@col $f:ident $c:literal) => { $c };
}

/// A row's first column.
pub(super) fn first<T: FromValue>(r: &Row) -> Result<T, StoreError> {
    r.first().map_err(StoreError::Other)
}

/// Reads a games row into typed data; a value that does not read is an
/// error naming the game and the column.
pub(super) fn info_from_row(r: &Row) -> Result<GameInfo, StoreError> {
    let id: String = col(r, "?", "id")?;
    let id = id.as_str();
    let word = |c: &str| -> Result<String, StoreError> { col(r, id, c) };
    let opt = |c: &str| -> Result<Option<String>, StoreError> { col(r, id, c) };
    let player = |c: &str| parsed_opt::<Player>(r, id, c);
    let mode = Mode::from_word(&word("mode")?).ok_or_else(|| damaged(id, "mode"))?;
    let rules: Rules = parsed(r, id, "rules")?;
    let start = Position::from_gpn(&word("start")?, rules.variant)
        .map_err(|e| damaged(id, format!("start: {e}")))?;
    let stored: i64 = col(r, id, "level")?;
    let perfect = stored == i64::from(PERFECT_LEVEL);
    let level = match u8::try_from(stored) {
        _ if perfect => Level::MAX,
        Ok(l) => Level::new(l).map_err(|e| damaged(id, format!("level: {e}")))?,
        Err(_) => return Err(damaged(id, format!("level {stored}"))),
    };
    let creator = Seat::from_word(&word("creator")?).ok_or_else(|| damaged(id, "creator"))?;
    let ai_seat = player("ai_seat")?;
    if (mode == Mode::Ai) != ai_seat.is_some() {
        return Err(damaged(id, "an ai game has one ai seat, others none"));
    }
    let status = Status::from_word(&word("status")?).ok_or_else(|| damaged(id, "status"))?;
    let reason = opt("reason")?;
    let forfeit =
        super::forfeit_from_columns(reason.as_deref(), player("resigned")?, player("loser")?)
            .map_err(|e| damaged(id, e))?;
    let clock = parsed_opt(r, id, "clock")?;
    Ok(GameInfo {
        forfeit,
        clock,
        names: [opt("name_a")?, opt("name_b")?],
        lobby: col(r, id, "lobby")?,
        away: [col(r, id, "away_a")?, col(r, id, "away_b")?],
        credits: super::credits_from_text(&word("clock_credits")?).map_err(|e| damaged(id, e))?,
        players: [opt("player_a")?, opt("player_b")?],
        rated: col(r, id, "rated")?,
        ratings: [opt("rating_a")?, opt("rating_b")?],
        started_at: col(r, id, "started_at")?,
        deadline: col(r, id, "deadline")?,
        takebacks: col(r, id, "takebacks")?,
        takeback: player("takeback_request")?,
        bots: [col(r, id, "bot_a")?, col(r, id, "bot_b")?],
        arena: opt("arena")?,
        swiss: opt("swiss")?,
        berserk: [col(r, id, "berserk_a")?, col(r, id, "berserk_b")?],
        mode,
        rules,
        start,
        level,
        perfect,
        honourable: col(r, id, "honourable")?,
        creator,
        ai_seat,
        status,
        created_at: col(r, id, "created_at")?,
        rematch: opt("rematch")?,
        tokens: PerSeat([opt("token_a")?, opt("token_b")?, opt("token_both")?]),
        invite: opt("invite")?,
        devices: PerSeat([opt("device_a")?, opt("device_b")?, opt("device_both")?]),
        id: id.to_string(),
    })
}

pub(super) fn action_from_row(r: &Row, info: &GameInfo) -> Result<StoredAction, StoreError> {
    let id = info.id.as_str();
    let ply = Ply::new(col(r, id, "ply")?);
    let at = format!("ply {ply}");
    let action: String = col(r, id, "action")?;
    let position: Option<String> = col(r, id, "position")?;
    let captured: Option<String> = col(r, id, "captured")?;
    Ok(StoredAction {
        ply,
        action: action
            .parse()
            .map_err(|e| damaged(id, format!("{at}: {e}")))?,
        captured: captured
            .unwrap_or_default()
            .split_whitespace()
            .map(|h| h.parse::<Hole>())
            .collect::<Result<_, _>>()
            .map_err(|e| damaged(id, format!("{at}: {e}")))?,
        position: position
            .map(|p| Position::from_gpn(&p, info.rules.variant))
            .transpose()
            .map_err(|e| damaged(id, format!("{at}: {e}")))?,
        at: col(r, id, "created_at")?,
    })
}

pub(super) fn challenge_from_row(r: &Row) -> Result<StoredChallenge, StoreError> {
    let id: String = col(r, "?", "id")?;
    let (rules, clock, colour) = (
        parsed(r, &id, "rules")?,
        parsed_opt(r, &id, "clock")?,
        parsed_opt(r, &id, "colour")?,
    );
    Ok(row!(StoredChallenge, r, &id;
        session, player, name, rated, quick, created_at, game: "game_id", rating;
        rules = rules, clock = clock, colour = colour, id = id))
}

/// A token row (scopes kept as one space-separated text).
pub(super) fn token_from_row(r: &Row) -> Result<StoredToken, StoreError> {
    let id: String = col(r, "?", "id")?;
    let scopes: String = col(r, &id, "scopes")?;
    Ok(
        row!(StoredToken, r, &id; hash, account: "account_id", description, created_at;
        scopes = scopes.split_whitespace().map(str::to_string).collect(), id = id),
    )
}

/// A token row joined with its account (`username`, `bot`).
pub(super) fn token_owner_from_row(r: &Row) -> Result<(StoredToken, StoredPlayer), StoreError> {
    let t = token_from_row(r)?;
    let p = StoredPlayer {
        id: t.account.clone(),
        name: col(r, &t.id, "username")?,
        account: true,
        bot: col(r, &t.id, "bot")?,
    };
    Ok((t, p))
}

/// A Bot API challenge's row, joined with both accounts' names and BOT
/// flags (`c_name`, `c_bot`, `d_name`, `d_bot`).
pub(super) fn bot_challenge_from_row(r: &Row) -> Result<StoredBotChallenge, StoreError> {
    let id: String = col(r, "?", "id")?;
    Ok(StoredBotChallenge {
        challenger: (
            col(r, &id, "challenger")?,
            col(r, &id, "c_name")?,
            col(r, &id, "c_bot")?,
        ),
        dest: (
            col(r, &id, "dest")?,
            col(r, &id, "d_name")?,
            col(r, &id, "d_bot")?,
        ),
        rules: parsed(r, &id, "rules")?,
        clock: parsed_opt(r, &id, "clock")?,
        colour: parsed_opt(r, &id, "colour")?,
        rated: col(r, &id, "rated")?,
        status: col(r, &id, "status")?,
        reason: col(r, &id, "reason")?,
        game: col(r, &id, "game_id")?,
        created_at: col(r, &id, "created_at")?,
        updated_at: col(r, &id, "updated_at")?,
        id,
    })
}

/// A ratings row of account `id`.
pub(super) fn rating_from_row(r: &Row, id: &str) -> Result<StoredRating, StoreError> {
    Ok(row!(StoredRating, r, id; pace, rating, deviation, volatility, games))
}

/// A chat row of game `id`: its player is A or B, or the row is damaged.
pub(super) fn chat_from_row(r: &Row, id: &str) -> Result<ChatLine, StoreError> {
    Ok(row!(ChatLine, r, id; n, text, at; from = parsed(r, id, "player")?))
}

pub(super) fn player_from_row(r: &Row) -> Result<StoredPlayer, StoreError> {
    let id: String = col(r, "?", "id")?;
    Ok(row!(StoredPlayer, r, &id; name, account, bot; id = id))
}

/// A games row and its result (`None` until over).
pub(super) fn info_and_result_from_row(r: &Row) -> Result<(GameInfo, Option<String>), StoreError> {
    let info = info_from_row(r)?;
    let result = col(r, &info.id, "result")?;
    Ok((info, result))
}

pub(super) fn account_from_row(r: &Row) -> Result<StoredAccount, StoreError> {
    let id: String = col(r, "?", "id")?;
    Ok(row!(StoredAccount, r, &id; username, password, bot; id = id))
}

/// A leaderboard's row: an account's id and username, and its rating.
pub(super) fn ranked_from_row(r: &Row) -> Result<Ranked, StoreError> {
    let id: String = col(r, "?", "id")?;
    Ok(row!(Ranked, r, &id; username, bot; rating = rating_from_row(r, &id)?, id = id))
}

/// A rating history row of account `id`.
pub(super) fn history_from_row(r: &Row, id: &str) -> Result<HistoryPoint, StoreError> {
    Ok(row!(HistoryPoint, r, id; game: "game_id", pace, rating, deviation, at))
}

/// An analysis board job row.
pub(super) fn board_job_from_row(r: &Row) -> Result<BoardJob, StoreError> {
    let id: String = col(r, "?", "id")?;
    // `n`: the job's place among its client's, where the query counts it.
    let round = col(r, &id, "n").unwrap_or(0);
    Ok(
        row!(BoardJob, r, &id; origin, client, label, rules, gpn, line, time_ms, nodes;
        id = id, round = round),
    )
}

/// A batch of an analysis board job's messages.
pub(super) fn board_batch_from_row(r: &Row) -> Result<BoardBatch, StoreError> {
    let job: String = col(r, "?", "job")?;
    Ok(row!(BoardBatch, r, &job; seq, body, last; job = job))
}
