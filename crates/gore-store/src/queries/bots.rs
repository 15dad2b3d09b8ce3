//! The Bot API: tokens, BOT accounts, challenges to a named player.

use super::*;
use crate::rows::{bot_challenge_from_row, token_from_row, token_owner_from_row};
use crate::{BotStore, StoredBotChallenge, StoredToken};

/// A Bot API challenge with both accounts' names and BOT flags.
const BOT_CHALLENGE: &str = "SELECT c.*, ca.username AS c_name, ca.bot AS c_bot,
         da.username AS d_name, da.bot AS d_bot
     FROM bot_challenges c
     JOIN accounts ca ON ca.id = c.challenger
     JOIN accounts da ON da.id = c.dest";

impl<E: Executor> BotStore for Db<E> {
    one_statement! {
        fn create_token(t: StoredToken) -> () = exec
            "INSERT INTO api_tokens (id, hash, account_id, description, scopes, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)"
            [t.id, t.hash, t.account, t.description, t.scopes.join(" "), t.created_at];

        fn token_owner(hash: String) -> Option<(StoredToken, StoredPlayer)> =
            first_mapped(token_owner_from_row)
            "SELECT t.*, a.username, a.bot FROM api_tokens t
             JOIN accounts a ON a.id = t.account_id WHERE t.hash = $1";

        fn tokens_of(account: String) -> Vec<StoredToken> = mapped(token_from_row)
            "SELECT * FROM api_tokens WHERE account_id = $1 ORDER BY created_at DESC, id";

        fn revoke_token(account: String, id: String) -> u64 = exec_count
            "DELETE FROM api_tokens WHERE account_id = $1 AND id = $2";

        // Irreversible, and only for an account that has played no game:
        // a BOT's games are all BOT games from the first.
        fn make_bot(account: String) -> u64 = exec_count
            "UPDATE accounts SET bot = TRUE WHERE id = $1 AND (bot OR NOT EXISTS
                 (SELECT 1 FROM games g WHERE g.player_a = $1 OR g.player_b = $1))";

        fn account_seat(account: String, id: String) -> Option<String> = first_mapped(first)
            "SELECT token FROM account_seats WHERE account_id = $1 AND game_id = $2";

        fn post_bot_challenge(c: StoredBotChallenge) -> () = exec
            "INSERT INTO bot_challenges (id, challenger, dest, rules, clock, colour, rated,
                 status, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'created', $8, $8)"
            [c.id, c.challenger.0, c.dest.0, c.rules.to_string(),
             c.clock.map(|t| t.to_string()), c.colour, c.rated, c.created_at];

        fn close_bot_challenge(id: String, status: String, reason: Option<String>, now: i64)
            -> bool = exec_one
            "UPDATE bot_challenges SET status = $2, reason = $3, updated_at = $4
             WHERE id = $1 AND status = 'created'";

        fn mark_streaming(account: String, now: i64) -> () = exec
            "UPDATE accounts SET streaming_at = $2 WHERE id = $1";

        fn bot_accounts(limit: u32) -> Vec<(String, String, Option<i64>)> = mapped(|r| Ok((
            col(r, "?", "id")?, col(r, "?", "username")?, col(r, "?", "streaming_at")?)))
            "SELECT id, username, streaming_at FROM accounts WHERE bot ORDER BY username LIMIT $1";
    }

    fn bot_challenge(&self, id: String) -> StoreFuture<Option<StoredBotChallenge>> {
        self.first_mapped(
            stmt(format!("{BOT_CHALLENGE} WHERE c.id = $1"), vals![id]),
            bot_challenge_from_row,
        )
    }

    fn accept_bot_challenge(
        &self,
        id: String,
        game: GameInfo,
        seats: Vec<(String, String)>,
        now: i64,
    ) -> StoreFuture<bool> {
        let mut stmts = vec![stmt(
            "UPDATE bot_challenges SET status = 'accepted', game_id = $2, updated_at = $3
             WHERE id = $1 AND status = 'created'",
            vals![&id, &game.id, now],
        )
        .expect(1)];
        stmts.push(insert_game(&game));
        stmts.extend(seats.iter().map(|(a, t)| account_seat(a, &game.id, t)));
        self.go(|db| async move { db.applied(stmts).await })
    }

    fn bot_challenges_of(
        &self,
        account: String,
        since: i64,
    ) -> StoreFuture<Vec<StoredBotChallenge>> {
        self.mapped(
            stmt(
                format!(
                    "{BOT_CHALLENGE} WHERE (c.challenger = $1 OR c.dest = $1)
                         AND (c.status = 'created' OR c.updated_at >= $2)
                     ORDER BY (c.challenger = $1) DESC, c.created_at, c.id LIMIT 100"
                ),
                vals![account, since],
            ),
            bot_challenge_from_row,
        )
    }
}
