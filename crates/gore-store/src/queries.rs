//! Every query of the store, written once: [`Db`] implements the store's
//! traits over an [`Executor`] (SQLite's or PostgreSQL's; what goes where:
//! [`super`]). A write is a list of statements ([`Executor::write`]),
//! never a conversation with the database: PostgreSQL sends it in one
//! round trip, SQLite runs it on its writer thread.

use std::future::Future;

use gore_core::{Hole, Outcome, Player};

use super::rows::{
    account_from_row, action_from_row, challenge_from_row, chat_from_row, col, first,
    history_from_row, info_and_result_from_row, info_from_row, player_from_row, ranked_from_row,
    rating_from_row,
};
use super::sql::{stmt, vals, Executor, Row, Stmt, Value};
use super::{
    At, ChatStore, GameChange, GameStore, HistoryPoint, LobbyStore, Ranked, RatingStore,
    RatingUpdate, SeatClaim, SessionStore, StoreError, StoreFuture, StoredAccount, StoredAction,
    StoredChallenge, StoredGame, StoredPlayer, StoredRating,
};
use gore_domain::{now_ms, ChatLine, GameInfo, Ply, Seat, PERFECT_LEVEL};

/// The store over executor `E`: [`super::sqlite::SqliteStore`] and
/// [`super::postgres::PgStore`]. Cheap to clone. The executor is public
/// so that a test can wrap one (a fake at the executor's seam keeps every
/// query real).
#[derive(Clone)]
pub struct Db<E>(pub E);

/// A row's game and a ply of it (column `c`).
fn game_ply(r: &Row, c: &str) -> Result<(String, Ply), StoreError> {
    let (g, n) = game_count(r, c)?;
    Ok((g, Ply::new(n)))
}

/// A row's game and a count of it (column `c`).
fn game_count(r: &Row, c: &str) -> Result<(String, u32), StoreError> {
    let g: String = col(r, "?", "game_id")?;
    let n = col(r, &g, c)?;
    Ok((g, n))
}

/// Trait methods that are one statement: `fn name(arg: T, …) -> R =
/// helper(mapper) "SQL" [values];` is `fn name(&self, arg: T, …) ->
/// StoreFuture<R>` answering `self.helper(stmt("SQL", vals![values]),
/// mapper)`, the helper one of [`Db`]'s (`exec`, `exec_count`, `exists`,
/// `mapped`, `first_mapped`); without `[values]`, the arguments are bound
/// in order (the first is `$1`).
macro_rules! one_statement {
    ($(fn $name:ident($($arg:ident: $t:ty),*) -> $r:ty =
        $how:ident $(($map:expr))? $sql:literal $([$($p:expr),* $(,)?])?;)*) => {$(
        fn $name(&self, $($arg: $t),*) -> StoreFuture<$r> {
            let values = one_statement!(@values [$($arg),*] $([$($p),*])?);
            self.$how(stmt($sql, values) $(, $map)?)
        }
    )*};
    (@values [$($arg:ident),*]) => { vals![$($arg),*] };
    (@values [$($arg:ident),*] [$($p:expr),*]) => { vals![$($p),*] };
}

fn insert_game(g: &GameInfo) -> Stmt {
    stmt(
        "INSERT INTO games (id, mode, rules, start, level, honourable, creator, token_a,
             token_b, token_both, ai_seat, status, created_at, updated_at, rematch, invite,
             device_a, device_b, device_both, clock, started_at, deadline, name_a, name_b,
             lobby, player_a, player_b, rated, rating_a, rating_b, ai_turn, bot_a, bot_b, arena,
             berserk_a, berserk_b, swiss)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14, $15, $16,
             $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33,
             $34, $35, $36)",
        vals![
            &g.id,
            g.mode.as_str(),
            g.rules.to_string(),
            g.start.to_string(),
            if g.perfect {
                PERFECT_LEVEL
            } else {
                u8::from(g.level)
            },
            g.honourable,
            g.creator.as_str(),
            g.tokens.0[0].clone(),
            g.tokens.0[1].clone(),
            g.tokens.0[2].clone(),
            g.ai_seat,
            g.status.as_str(),
            g.created_at,
            g.rematch.clone(),
            g.invite.clone(),
            g.devices.0[0].clone(),
            g.devices.0[1].clone(),
            g.devices.0[2].clone(),
            g.clock.map(|c| c.to_string()),
            g.started_at,
            g.deadline,
            g.names[0].clone(),
            g.names[1].clone(),
            g.lobby,
            g.players[0].clone(),
            g.players[1].clone(),
            g.rated,
            g.ratings[0].clone(),
            g.ratings[1].clone(),
            // An AI that opens the game is due at once.
            (g.mode == gore_domain::Mode::Ai
                && g.status == gore_domain::Status::Playing
                && g.ai_seat == Some(g.start.to_move()))
            .then_some(0u32),
            g.bots[0],
            g.bots[1],
            g.arena.clone(),
            g.berserk[0],
            g.berserk[1],
            g.swiss.clone(),
        ],
    )
}

/// Locks game `id`'s row for the rest of the transaction, if it is being
/// played with `takebacks` takebacks (else the write is a conflict).
/// Every change of a game's actions takes this lock first, so that they
/// are one after the other on PostgreSQL; the statements after it see
/// what committed before (each statement of a `READ COMMITTED`
/// transaction has a snapshot of its own).
fn lock_at(id: &str, takebacks: u32) -> Stmt {
    stmt(
        "SELECT 1 FROM games WHERE id = $1 AND status = 'playing' AND takebacks = $2
         FOR UPDATE",
        vals![id, takebacks],
    )
    .expect(1)
}

/// Checks that game `id` has `ply` actions (after [`lock_at`]).
fn check_ply(id: &str, ply: Ply) -> Stmt {
    stmt(
        "SELECT 1 FROM games WHERE id = $1
             AND (SELECT count(*) FROM actions WHERE game_id = $1) = $2",
        vals![id, ply],
    )
    .expect(1)
}

/// Remembers a seat for a session: its account's if it is logged in to
/// one, else its own (two statements, one of which inserts).
fn remember(session: &str, id: &str, token: &str) -> [Stmt; 2] {
    [
        stmt(
            "INSERT INTO account_seats (account_id, game_id, token)
             SELECT account_id, $2::TEXT, $3::TEXT FROM account_sessions WHERE session = $1
             ON CONFLICT (account_id, game_id) DO UPDATE SET token = excluded.token",
            vals![session, id, token],
        ),
        stmt(
            "INSERT INTO session_seats (session, game_id, token)
             SELECT $1::TEXT, $2::TEXT, $3::TEXT
             WHERE NOT EXISTS (SELECT 1 FROM account_sessions WHERE session = $1)
             ON CONFLICT (session, game_id) DO UPDATE SET token = excluded.token",
            vals![session, id, token],
        ),
    ]
}

/// Gives `account` its seat of a new game.
fn account_seat(account: &str, game: &str, token: &str) -> Stmt {
    stmt(
        "INSERT INTO account_seats (account_id, game_id, token) VALUES ($1, $2, $3)",
        vals![account, game, token],
    )
}

/// Issues session `id`, logged in to `account` if given.
fn start_session(id: &str, account: Option<&str>, now: i64) -> Vec<Stmt> {
    let mut v = vec![stmt(
        "INSERT INTO sessions (id, created_at) VALUES ($1, $2)",
        vals![id, now],
    )];
    if let Some(a) = account {
        v.push(stmt(
            "INSERT INTO account_sessions (session, account_id, created_at) VALUES ($1, $2, $3)",
            vals![id, a, now],
        ));
    }
    v
}

/// Ends a session: its own seats go (an account keeps its own), and with
/// them its log-in.
fn end_session(id: &str) -> Vec<Stmt> {
    [
        "DELETE FROM session_seats WHERE session = $1",
        "DELETE FROM account_sessions WHERE session = $1",
        "DELETE FROM sessions WHERE id = $1",
    ]
    .into_iter()
    .map(|q| stmt(q, vals![id]))
    .collect()
}

/// Gives the seats session `from` holds of its own to `account` (a seat
/// the account already holds in a game stays), then ends `from`.
fn end_into_account(from: &str, account: &str) -> Vec<Stmt> {
    let mut v = vec![stmt(
        "INSERT INTO account_seats (account_id, game_id, token)
         SELECT $2::TEXT, game_id, token FROM session_seats WHERE session = $1
         ON CONFLICT (account_id, game_id) DO NOTHING",
        vals![from, account],
    )];
    v.extend(end_session(from));
    v
}

impl<E: Executor> Db<E> {
    /// The store's future of `f` run on a clone of the store.
    fn go<T, F>(&self, f: impl FnOnce(Db<E>) -> F) -> StoreFuture<T>
    where
        F: Future<Output = Result<T, StoreError>> + Send + 'static,
    {
        Box::pin(f(self.clone()))
    }

    /// One read's rows.
    async fn rows(&self, s: Stmt) -> Result<Vec<Row>, StoreError> {
        Ok(self.0.read(vec![s]).await?.pop().unwrap_or_default())
    }

    /// A write of one statement: the rows it touched.
    async fn count(&self, s: Stmt) -> Result<u64, StoreError> {
        Ok(self.0.write(vec![s]).await?.first().map_or(0, |a| a.count))
    }

    /// A write whose answers are not needed.
    async fn done(&self, stmts: Vec<Stmt>) -> Result<(), StoreError> {
        self.0.write(stmts).await.map(drop)
    }

    /// A write that may find the game or lobby moved on: `false` then.
    async fn applied(&self, stmts: Vec<Stmt>) -> Result<bool, StoreError> {
        match self.0.write(stmts).await {
            Ok(_) => Ok(true),
            Err(StoreError::Conflict) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// A write (one statement or several) whose answers are not needed,
    /// as the store's future.
    fn exec(&self, stmts: impl Into<Vec<Stmt>>) -> StoreFuture<()> {
        let stmts = stmts.into();
        self.go(|db| async move { db.done(stmts).await })
    }

    /// A write of one statement, the rows it touched as the store's future.
    fn exec_count(&self, s: Stmt) -> StoreFuture<u64> {
        self.go(|db| async move { db.count(s).await })
    }

    /// A write of one statement: whether it touched one row, as the
    /// store's future.
    fn exec_one(&self, s: Stmt) -> StoreFuture<bool> {
        self.go(|db| async move { Ok(db.count(s).await? == 1) })
    }

    /// Each row of a read, mapped.
    fn mapped<T, M>(&self, s: Stmt, map: M) -> StoreFuture<Vec<T>>
    where
        T: Send + 'static,
        M: Fn(&Row) -> Result<T, StoreError> + Send + 'static,
    {
        self.go(|db| async move { db.rows(s).await?.iter().map(map).collect() })
    }

    /// The first row of a read, mapped, if there is one.
    fn first_mapped<T, M>(&self, s: Stmt, map: M) -> StoreFuture<Option<T>>
    where
        T: Send + 'static,
        M: Fn(&Row) -> Result<T, StoreError> + Send + 'static,
    {
        let all = self.mapped(s, map);
        Box::pin(async move { Ok(all.await?.into_iter().next()) })
    }

    /// Whether a read finds a row.
    fn exists(&self, s: Stmt) -> StoreFuture<bool> {
        self.go(|db| async move { Ok(!db.rows(s).await?.is_empty()) })
    }

    /// Sets `column` of game `id`, announced.
    fn set_game_column(&self, id: String, column: &str, value: Value) -> StoreFuture<()> {
        let s = stmt(
            format!("UPDATE games SET {column} = $2 WHERE id = $1"),
            vec![id.as_str().into(), value],
        );
        self.go(|db| async move {
            db.done(vec![s]).await?;
            db.0.announce(id, Ply::ZERO);
            Ok(())
        })
    }
}

impl<E: Executor> GameStore for Db<E> {
    one_statement! {
        fn session_token(session: String, id: String) -> Option<String> = first_mapped(first)
            "SELECT t.token FROM account_seats t
             JOIN account_sessions s ON s.account_id = t.account_id
             JOIN accounts a ON a.id = t.account_id AND NOT a.bot
             WHERE s.session = $1 AND t.game_id = $2
             UNION ALL
             SELECT token FROM session_seats WHERE session = $1 AND game_id = $2
             LIMIT 1";

        fn playing_now(limit: u32) -> Vec<GameInfo> = mapped(info_from_row)
            "SELECT * FROM games WHERE mode = 'friend' AND status = 'playing'
             ORDER BY started_at DESC LIMIT $1";

        fn player_games(player: String, limit: u32) -> Vec<(GameInfo, Option<String>)> =
            mapped(info_and_result_from_row)
            "SELECT * FROM games WHERE player_a = $1 OR player_b = $1
             ORDER BY created_at DESC LIMIT $2";

        fn due_games(now: i64, limit: u32) -> Vec<String> = mapped(first)
            "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1
                 AND status = 'playing'
             ORDER BY deadline LIMIT $2";

        fn record_abort(player: String, game: String, at: i64) -> () = exec
            "INSERT INTO aborts (player, game_id, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";

        fn aborts_since(player: String, since: i64) -> Vec<i64> = mapped(first)
            "SELECT at FROM aborts WHERE player = $1 AND at > $2 ORDER BY at";
    }

    fn create_game(&self, info: GameInfo, rematch_of: Option<String>) -> StoreFuture<()> {
        self.go(|db| async move {
            let mut stmts = vec![insert_game(&info)];
            if let Some(old) = &rematch_of {
                stmts.push(stmt(
                    "UPDATE games SET rematch = $2, updated_at = $3 WHERE id = $1",
                    vals![old, &info.id, info.created_at],
                ));
            }
            db.done(stmts).await?;
            if let Some(old) = rematch_of {
                db.0.announce(old, Ply::ZERO);
            }
            Ok(())
        })
    }

    fn load_game(&self, id: String) -> StoreFuture<Option<StoredGame>> {
        self.load_game_after(id, Ply::ZERO)
    }

    fn load_game_after(&self, id: String, after: Ply) -> StoreFuture<Option<StoredGame>> {
        self.go(|db| async move {
            let mut found =
                db.0.read(vec![
                    stmt("SELECT * FROM games WHERE id = $1", vals![&id]),
                    stmt(
                        "SELECT ply, action, created_at, position, captured FROM actions
                         WHERE game_id = $1 AND ply > $2 ORDER BY ply",
                        vals![&id, after],
                    ),
                ])
                .await?;
            let rows = found.pop().unwrap_or_default();
            let Some(row) = found.pop().and_then(|g| g.into_iter().next()) else {
                return Ok(None);
            };
            let info = info_from_row(&row)?;
            let actions = rows
                .iter()
                .map(|r| action_from_row(r, &info))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Some(StoredGame { info, actions }))
        })
    }

    fn append_action(
        &self,
        id: String,
        takebacks: u32,
        a: StoredAction,
        ending: Option<Outcome>,
        deadline: Option<i64>,
    ) -> StoreFuture<()> {
        self.go(|db| async move {
            // The game's row first: a takeback or resignation committing
            // meanwhile is seen (a conflict), and the primary key refuses
            // a second commit of the ply.
            let mut stmts =
                vec![
                lock_at(&id, takebacks),
                stmt(
                    "INSERT INTO actions (game_id, ply, action, created_at, position, captured)
                     VALUES ($1, $2, $3, $4, $5, $6)",
                    vals![
                        &id,
                        a.ply,
                        a.action.to_string(),
                        a.at,
                        a.position.map(|p| p.to_string()),
                        a.captured.iter().map(Hole::to_string).collect::<Vec<_>>().join(" "),
                    ],
                ),
                match ending {
                    Some(o) => stmt(
                        "UPDATE games SET status = 'over', result = $2, reason = $3,
                             updated_at = $4, takeback_request = NULL, deadline = NULL,
                             ai_turn = NULL
                         WHERE id = $1",
                        vals![&id, o.to_string(), o.reason.as_str(), a.at],
                    ),
                    // The AI is due next when its seat is to act.
                    None => stmt(
                        "UPDATE games SET updated_at = $2, takeback_request = NULL, deadline = $3,
                             ai_turn = CASE WHEN ai_seat = $4 THEN CAST($5 AS INTEGER) ELSE NULL END
                         WHERE id = $1",
                        vals![&id, a.at, deadline, a.position.map(|p| p.to_move()), a.ply],
                    ),
                },
            ];
            // The claims of a game over are spent. (Those of a game going
            // on are kept: a claim racing this commit finds its turn's row
            // held and is refused, where a deleted row would let it in.)
            if ending.is_some() {
                stmts.push(stmt("DELETE FROM ai_claims WHERE game_id = $1", vals![&id]));
            }
            db.done(stmts).await?;
            db.0.announce(id, a.ply);
            Ok(())
        })
    }

    fn change_game(&self, id: String, at: At, change: GameChange, now: i64) -> StoreFuture<()> {
        self.go(|db| async move {
            let mut stmts = vec![lock_at(&id, at.takebacks), check_ply(&id, at.ply)];
            let mut ply = at.ply;
            match change {
                GameChange::Forfeit { forfeit, result } => {
                    let (reason, resigned, loser) = super::forfeit_columns(forfeit);
                    stmts.push(stmt(
                        "UPDATE games SET status = 'over', result = $2, reason = $3,
                             resigned = $4, loser = $5, takeback_request = NULL,
                             deadline = NULL, updated_at = $6, ai_turn = NULL
                         WHERE id = $1",
                        vals![&id, result, reason, resigned, loser, now],
                    ))
                }
                GameChange::TakeBack { to, deadline } => {
                    ply = to;
                    stmts.push(stmt(
                        "DELETE FROM actions WHERE game_id = $1 AND ply > $2",
                        vals![&id, to],
                    ));
                    // Claims on AI turns of the plies taken back are void:
                    // the next AI turn is claimed afresh.
                    stmts.push(stmt(
                        "DELETE FROM ai_claims WHERE game_id = $1 AND ply >= $2",
                        vals![&id, to],
                    ));
                    // Whether the AI is to act after it is not known here:
                    // the turn is marked due, and its claimer finds out.
                    stmts.push(stmt(
                        "UPDATE games SET takebacks = takebacks + 1, takeback_request = NULL,
                             updated_at = $2, deadline = $3,
                             ai_turn = CASE WHEN mode = 'ai' THEN CAST($4 AS INTEGER) ELSE NULL END
                         WHERE id = $1",
                        vals![&id, now, deadline, to],
                    ));
                }
                GameChange::Request(who) => stmts.push(stmt(
                    "UPDATE games SET takeback_request = $2, updated_at = $3 WHERE id = $1",
                    vals![&id, who, now],
                )),
                GameChange::Credit { credits, deadline } => stmts.push(stmt(
                    "UPDATE games SET clock_credits = $2, deadline = $3 WHERE id = $1",
                    vals![&id, super::credits_text(&credits), deadline],
                )),
                GameChange::Berserk { player, deadline } => stmts.push(stmt(
                    "UPDATE games SET berserk_a = (berserk_a OR $2 = 'A'), deadline = $3,
                         berserk_b = (berserk_b OR $2 = 'B'), updated_at = $4 WHERE id = $1",
                    vals![&id, player, deadline, now],
                )),
            }
            db.done(stmts).await?;
            db.0.announce(id, ply);
            Ok(())
        })
    }

    fn claim_invite(
        &self,
        id: String,
        code: String,
        seat: Player,
        claim: SeatClaim,
    ) -> StoreFuture<bool> {
        let (column, name, player) = match seat {
            Player::A => ("token_a", "name_a", "player_a"),
            Player::B => ("token_b", "name_b", "player_b"),
        };
        self.go(|db| async move {
            let n = db
                .count(stmt(
                    format!(
                        "UPDATE games SET invite = NULL, {column} = $3, status = 'playing',
                             updated_at = $4, started_at = $4, deadline = $5, {name} = $6,
                             {player} = $7
                         WHERE id = $1 AND invite = $2 AND status = 'waiting'"
                    ),
                    vals![
                        &id,
                        code,
                        claim.token,
                        claim.now,
                        claim.deadline,
                        claim.name,
                        claim.player
                    ],
                ))
                .await?;
            if n == 1 {
                db.0.announce(id, Ply::ZERO);
            }
            Ok(n == 1)
        })
    }

    fn set_device(&self, id: String, seat: Seat, code: Option<String>) -> StoreFuture<()> {
        let column = format!("device_{}", seat.as_str().to_lowercase());
        self.set_game_column(id, &column, code.into())
    }

    fn set_away(&self, id: String, seat: Player, since: Option<i64>) -> StoreFuture<()> {
        let column = format!("away_{}", seat.char().to_ascii_lowercase());
        self.set_game_column(id, &column, since.into())
    }

    fn remember_seat(&self, session: String, id: String, token: String) -> StoreFuture<()> {
        self.exec(remember(&session, &id, &token))
    }
}

impl<E: Executor> SessionStore for Db<E> {
    one_statement! {
        fn session_exists(session: String) -> bool = exists
            "SELECT 1 FROM sessions WHERE id = $1";

        // The account the session is logged in to, else its anonymous player.
        fn player(session: String) -> Option<StoredPlayer> = first_mapped(player_from_row)
            "SELECT a.id, a.username AS name, TRUE AS account, a.bot
             FROM account_sessions s JOIN accounts a ON a.id = s.account_id WHERE s.session = $1
             UNION ALL
             SELECT id, name, FALSE AS account, FALSE AS bot FROM players WHERE session = $1
             ORDER BY account DESC LIMIT 1";

        fn set_player_name(session: String, name: String, now: i64) -> () = exec
            "UPDATE players SET name = $2, updated_at = $3 WHERE session = $1";

        fn account_by_key(key: String) -> Option<StoredAccount> = first_mapped(account_from_row)
            "SELECT a.id, a.username, a.password, a.bot FROM account_keys k
             JOIN accounts a ON a.id = k.account_id WHERE k.key = $1";

        fn keys_taken(keys: Vec<String>) -> bool = exists
            "SELECT 1 FROM account_keys WHERE key = ANY($1)";

        // The anonymous players unchanged since `before` (or earlier) with
        // nothing of theirs left: no account, no seat, no game, no challenge.
        fn forget_idle_players(before: i64) -> u64 = exec_count
            "DELETE FROM players WHERE updated_at <= $1
                AND NOT EXISTS (SELECT 1 FROM account_sessions a WHERE a.session = players.session)
                AND NOT EXISTS (SELECT 1 FROM session_seats s WHERE s.session = players.session)
                AND NOT EXISTS (SELECT 1 FROM games g WHERE g.player_a = players.id)
                AND NOT EXISTS (SELECT 1 FROM games g WHERE g.player_b = players.id)
                AND NOT EXISTS (SELECT 1 FROM challenges c WHERE c.session = players.session)";
    }

    fn create_session(&self, session: String, now: i64) -> StoreFuture<()> {
        self.exec(start_session(&session, None, now))
    }

    fn create_player(
        &self,
        session: String,
        p: StoredPlayer,
        now: i64,
    ) -> StoreFuture<StoredPlayer> {
        self.go(|db| async move {
            db.done(vec![stmt(
                "INSERT INTO players (session, id, name, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $4) ON CONFLICT (session) DO NOTHING",
                vals![&session, p.id, p.name, now],
            )])
            .await?;
            db.player(session)
                .await?
                .ok_or_else(|| StoreError::Other("the player just made is missing".into()))
        })
    }

    fn create_account(
        &self,
        a: StoredAccount,
        keys: Vec<String>,
        from: String,
        to: String,
        now: i64,
    ) -> StoreFuture<bool> {
        self.go(|db| async move {
            let mut stmts: Vec<Stmt> = keys
                .into_iter()
                .map(|k| {
                    stmt(
                        "INSERT INTO account_keys (key, account_id) VALUES ($1, $2)",
                        vals![k, &a.id],
                    )
                })
                .collect();
            stmts.push(stmt(
                "INSERT INTO accounts (id, username, password, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $4)",
                vals![&a.id, &a.username, a.password, now],
            ));
            stmts.push(stmt(
                "UPDATE players SET session = $2, name = $3, updated_at = $4 WHERE session = $1",
                vals![&from, &to, a.username, now],
            ));
            stmts.extend(end_into_account(&from, &a.id));
            stmts.extend(start_session(&to, Some(&a.id), now));
            db.applied(stmts).await
        })
    }

    fn log_in(&self, account: String, from: String, to: String, now: i64) -> StoreFuture<()> {
        let mut stmts = end_into_account(&from, &account);
        stmts.extend(start_session(&to, Some(&account), now));
        self.exec(stmts)
    }

    fn log_out(&self, session: String) -> StoreFuture<()> {
        self.exec(end_session(&session))
    }

    fn set_password(
        &self,
        account: String,
        hash: String,
        from: String,
        to: String,
        now: i64,
    ) -> StoreFuture<()> {
        let mut stmts = vec![
            stmt(
                "UPDATE accounts SET password = $2, updated_at = $3 WHERE id = $1",
                vals![&account, hash, now],
            ),
            // Every session of the account ends, the one asking too.
            stmt(
                "DELETE FROM session_seats WHERE session = $2 OR session IN
                     (SELECT session FROM account_sessions WHERE account_id = $1)",
                vals![&account, &from],
            ),
            stmt(
                "DELETE FROM sessions WHERE id = $2 OR id IN
                     (SELECT session FROM account_sessions WHERE account_id = $1)",
                vals![&account, &from],
            ),
            stmt(
                "DELETE FROM account_sessions WHERE account_id = $1 OR session = $2",
                vals![&account, &from],
            ),
            // And every personal API token: a stolen one must not outlive
            // the password that let its thief make it.
            stmt(
                "DELETE FROM api_tokens WHERE account_id = $1",
                vals![&account],
            ),
        ];
        stmts.extend(start_session(&to, Some(&account), now));
        self.exec(stmts)
    }
}

impl<E: Executor> LobbyStore for Db<E> {
    one_statement! {
        fn cancel_challenges(session: String, id: Option<String>) -> u64 = exec_count
            "DELETE FROM challenges WHERE session = $1 AND game_id IS NULL
                 AND ($2::TEXT IS NULL OR id = $2)";

        fn open_challenges(limit: u32) -> Vec<StoredChallenge> = mapped(challenge_from_row)
            "SELECT * FROM challenges WHERE game_id IS NULL
             ORDER BY created_at DESC, id DESC LIMIT $1";

        fn challenge(id: String) -> Option<StoredChallenge> = first_mapped(challenge_from_row)
            "SELECT * FROM challenges WHERE id = $1";

        fn expire_challenges(unseen_before: i64, taken_before: i64) -> u64 = exec_count
            "DELETE FROM challenges WHERE (game_id IS NULL AND seen_at < $1)
                 OR (game_id IS NOT NULL AND created_at < $2)";

        fn post_challenge(ch: StoredChallenge) -> () = exec
            "INSERT INTO challenges (id, session, player, name, rules, clock, colour,
                 rated, quick, created_at, seen_at, rating)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11)"
            [
                ch.id,
                ch.session,
                ch.player,
                ch.name,
                ch.rules.to_string(),
                ch.clock.map(|t| t.to_string()),
                ch.colour,
                ch.rated,
                ch.quick,
                ch.created_at,
                ch.rating,
            ];

        fn find_matches(seek: StoredChallenge, limit: u32) -> Vec<StoredChallenge> =
            mapped(challenge_from_row)
            "SELECT * FROM challenges WHERE game_id IS NULL AND quick
                 AND clock IS NOT DISTINCT FROM $1 AND rules = $2 AND rated = $3
                 AND player <> $4
             ORDER BY created_at, id LIMIT $5"
            [
                seek.clock.map(|t| t.to_string()),
                seek.rules.to_string(),
                seek.rated,
                seek.player,
                limit,
            ];
    }

    fn pair(
        &self,
        taken: Vec<String>,
        game: GameInfo,
        seats: Vec<(String, String)>,
    ) -> StoreFuture<bool> {
        // Rows locked in one order by every pairing: two that race for the
        // same seeks wait for each other instead of deadlocking.
        let mut taken = taken;
        taken.sort();
        let mut stmts: Vec<Stmt> = taken
            .iter()
            .map(|id| {
                stmt(
                    "UPDATE challenges SET game_id = $2 WHERE id = $1 AND game_id IS NULL",
                    vals![id, &game.id],
                )
                .expect(1)
            })
            .collect();
        stmts.push(insert_game(&game));
        for (session, token) in seats {
            stmts.extend(remember(&session, &game.id, &token));
        }
        self.go(|db| async move { db.applied(stmts).await })
    }

    fn touch_challenges(&self, sessions: Vec<String>, now: i64) -> StoreFuture<()> {
        if sessions.is_empty() {
            return Box::pin(async { Ok(()) });
        }
        self.exec(stmt(
            "UPDATE challenges SET seen_at = $2 WHERE session = ANY($1) AND game_id IS NULL",
            vals![sessions, now],
        ))
    }

    fn announce_lobby(&self, event: String) {
        self.0.announce_lobby(event);
    }
}

impl<E: Executor> RatingStore for Db<E> {
    one_statement! {
        fn leaderboard(pace: String, bots: Option<bool>, limit: u32) -> Vec<Ranked> =
            mapped(ranked_from_row)
            "SELECT a.id, a.username, a.bot, r.pace, r.rating, r.deviation, r.volatility, r.games
             FROM ratings r JOIN accounts a ON a.id = r.account_id WHERE r.pace = $1
             AND a.bot IN ($2, $3) ORDER BY r.rating DESC, a.username LIMIT $4"
            [pace, bots.unwrap_or(false), bots.unwrap_or(true), limit];

        fn ratings_of(account: String) -> Vec<StoredRating> =
            mapped(move |r| rating_from_row(r, &account))
            "SELECT pace, rating, deviation, volatility, games FROM ratings
             WHERE account_id = $1 ORDER BY pace" [&account];

        fn rating_history(account: String) -> Vec<HistoryPoint> =
            mapped(move |r| history_from_row(r, &account))
            "SELECT game_id, pace, rating, deviation, at FROM rating_history
             WHERE account_id = $1 ORDER BY at, game_id" [&account];

        fn unrated_games(limit: u32) -> Vec<String> = mapped(first)
            "SELECT id FROM games g WHERE rated AND status = 'over'
                 AND (reason IS NULL OR reason <> 'abort') AND player_a <> player_b
                 AND NOT EXISTS (SELECT 1 FROM rating_history h WHERE h.game_id = g.id)
             LIMIT $1";
    }

    fn rate_game(&self, game: String, updates: Vec<RatingUpdate>, now: i64) -> StoreFuture<bool> {
        let mut stmts = Vec::new();
        for u in updates {
            let a = u.after;
            let values = vals![
                &u.account,
                &a.pace,
                a.rating,
                a.deviation,
                a.volatility,
                a.games,
                now
            ];
            stmts.push(if u.before == 0 {
                stmt(
                    "INSERT INTO ratings (account_id, pace, rating, deviation, volatility,
                         games, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    values,
                )
                .expect(1)
            } else {
                let mut values = values;
                values.push(u.before.into());
                stmt(
                    "UPDATE ratings SET rating = $3, deviation = $4, volatility = $5,
                         games = $6, updated_at = $7
                     WHERE account_id = $1 AND pace = $2 AND games = $8",
                    values,
                )
                .expect(1)
            });
            stmts.push(stmt(
                "INSERT INTO rating_history (account_id, game_id, pace, rating, deviation, at)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                vals![u.account, &game, a.pace, a.rating, a.deviation, now],
            ));
        }
        self.go(|db| async move { db.applied(stmts).await })
    }
}

impl<E: Executor> ChatStore for Db<E> {
    one_statement! {
        fn report_chat(game: String, n: u32, reporter: Player, at: i64) -> () = exec
            "INSERT INTO chat_reports (game_id, n, reporter, at) VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING";

        fn chat_after(game: String, after: u32) -> Vec<ChatLine> =
            mapped(move |r| chat_from_row(r, &game))
            "SELECT n, player, text, at FROM (SELECT * FROM chat WHERE game_id = $1
                 AND n > $2 ORDER BY n DESC LIMIT 100) t ORDER BY n" [&game, after];
    }

    fn post_chat(
        &self,
        game: String,
        player: Player,
        text: String,
        at: i64,
    ) -> StoreFuture<ChatLine> {
        self.go(|db| async move {
            // The game's row locked first: the messages of a game are
            // numbered one after the other, whatever the server (the
            // number is read after the lock, by a statement of its own).
            let answers =
                db.0.write(vec![
                    stmt("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", vals![&game]),
                    stmt(
                        "INSERT INTO chat (game_id, n, player, text, at)
                         SELECT $1::TEXT, COALESCE(MAX(n), 0) + 1, $2::TEXT, $3::TEXT, $4::BIGINT
                         FROM chat WHERE game_id = $1
                         RETURNING n",
                        vals![&game, player, &text, at],
                    ),
                ])
                .await?;
            let n = answers
                .get(1)
                .and_then(|a| a.rows.first())
                .ok_or_else(|| StoreError::Other("chat: no number".into()))?
                .first()
                .map_err(StoreError::Other)?;
            Ok(ChatLine {
                n,
                from: player,
                text,
                at,
            })
        })
    }
}

mod boards;
mod bots;
mod servers;
mod tournaments;
