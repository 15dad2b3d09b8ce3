//! Several servers on one database: heartbeats, taking over a dead
//! server's games, spectator counts, and the claims on AI turns.

use super::*;
use crate::store::{DueTurn, Notice, ServerStore};

impl<E: Executor> ServerStore for Db<E> {
    fn set_watchers(
        &self,
        server: String,
        counts: Vec<(String, u32)>,
        now: i64,
    ) -> StoreFuture<()> {
        let mut stmts = vec![stmt(
            "DELETE FROM watchers WHERE server = $1",
            vals![&server],
        )];
        for (g, n) in counts {
            stmts.push(stmt(
                "INSERT INTO watchers (game_id, server, n, at) VALUES ($1, $2, $3, $4)",
                vals![g, &server, n, now],
            ));
        }
        self.exec(stmts)
    }

    fn watchers(&self, ids: Vec<String>, since: i64) -> StoreFuture<Vec<(String, u32)>> {
        self.go(|db| async move {
            let s = stmt(
                "SELECT game_id, SUM(n) AS n FROM watchers
                 WHERE game_id = ANY($1) AND at > $2 GROUP BY game_id",
                vals![ids, since],
            );
            let mut counts = db.mapped(s, |r| game_count(r, "n")).await?;
            counts.retain(|(_, n)| *n > 0);
            Ok(counts)
        })
    }

    fn heartbeat(
        &self,
        server: String,
        now: i64,
        games: Vec<String>,
        dead_before: i64,
    ) -> StoreFuture<()> {
        let mut stmts = vec![stmt(
            "INSERT INTO servers (id, alive_at) VALUES ($1, $2)
             ON CONFLICT (id) DO UPDATE SET alive_at = excluded.alive_at",
            vals![&server, now],
        )];
        if !games.is_empty() {
            stmts.push(stmt(
                "UPDATE games SET server = $2 WHERE id = ANY($1) AND (server IS NULL
                     OR server NOT IN (SELECT id FROM servers WHERE alive_at >= $3))",
                vals![games, server, dead_before],
            ));
        }
        self.exec(stmts)
    }

    fn take_over(&self, id: String, server: String, dead_before: i64) -> StoreFuture<Option<i64>> {
        self.go(|db| async move {
            let rows = db
                .rows(stmt(
                    "SELECT g.server, s.alive_at FROM games g
                     LEFT JOIN servers s ON s.id = g.server WHERE g.id = $1",
                    vals![&id],
                ))
                .await?;
            let Some(r) = rows.first() else {
                return Ok(None);
            };
            let was: Option<String> = col(r, &id, "server")?;
            let alive_at: Option<i64> = col(r, &id, "alive_at")?;
            let credit = match (&was, alive_at) {
                (Some(w), _) if *w == server => return Ok(None),
                (Some(_), Some(at)) if at >= dead_before => return Ok(None),
                (Some(_), at) => at,
                (None, _) => None,
            };
            // Compare and set: of two servers taking over at once, one
            // changes the row; the other is told there is nothing to credit.
            let taken = db
                .applied(vec![stmt(
                    "UPDATE games SET server = $2 WHERE id = $1 AND server IS NOT DISTINCT FROM $3",
                    vals![id, server, was],
                )
                .expect(1)])
                .await?;
            Ok(credit.filter(|_| taken))
        })
    }

    fn failure(&self) -> Option<String> {
        self.0.failure()
    }

    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        self.0.notices()
    }

    fn claim_ai_turn(
        &self,
        id: String,
        ply: u32,
        lease: std::time::Duration,
        dead_before: i64,
    ) -> StoreFuture<bool> {
        let now = now_ms();
        let until = now + lease.as_millis() as i64;
        // Only a turn the game is marked due at (a process whose copy of
        // the game is behind does not search a turn already played);
        // taken if free, lapsed, its holder dead (no heartbeat since
        // `dead_before`), or already this process's. The row's lock makes
        // two claims one after the other.
        self.exec_one(stmt(
            "INSERT INTO ai_claims (game_id, ply, server, until_ms)
                     SELECT $1, $2, $3, $4 WHERE EXISTS
                         (SELECT 1 FROM games WHERE id = $1 AND ai_turn = $2 AND status = 'playing')
                     ON CONFLICT (game_id, ply) DO UPDATE
                         SET server = excluded.server, until_ms = excluded.until_ms
                         WHERE ai_claims.server = excluded.server OR ai_claims.until_ms <= $5
                             OR ai_claims.server NOT IN
                                 (SELECT id FROM servers WHERE alive_at >= $6)",
            vals![id, ply, self.0.origin(), until, now, dead_before],
        ))
    }

    fn due_ai_turns(&self, dead_before: i64, limit: u32) -> StoreFuture<Vec<DueTurn>> {
        self.go(|db| async move {
            // Each address's oldest turn first, then each one's second...,
            // counting the turns being searched: a flood of one address's
            // games does not hold back another's.
            let s = stmt(
                "SELECT game_id, ai_turn, ai_client FROM (
                     SELECT id AS game_id, ai_turn, ai_client, updated_at,
                         ROW_NUMBER() OVER (PARTITION BY ai_client ORDER BY updated_at) AS n
                     FROM games WHERE ai_turn IS NOT NULL AND status = 'playing'
                 ) due
                 WHERE NOT EXISTS (SELECT 1 FROM ai_claims c
                     WHERE c.game_id = due.game_id AND c.ply = due.ai_turn AND c.until_ms > $1
                         AND c.server IN (SELECT id FROM servers WHERE alive_at >= $2))
                 ORDER BY n, updated_at LIMIT $3",
                vals![now_ms(), dead_before, limit],
            );
            db.mapped(s, |r| {
                let (game, ply) = game_count(r, "ai_turn")?;
                let client = col(r, &game, "ai_client")?;
                Ok(DueTurn { game, ply, client })
            })
            .await
        })
    }

    one_statement! {
        fn latest_plies(ids: Vec<String>) -> Vec<(String, u32)> = mapped(|r| game_count(r, "ply"))
            "SELECT game_id, max(ply) AS ply FROM actions WHERE game_id = ANY($1) GROUP BY game_id";

        fn set_ai_client(id: String, client: String) -> () = exec
            "UPDATE games SET ai_client = $2 WHERE id = $1";

        fn clear_ai_turn(id: String, ply: u32) -> () = exec
            "UPDATE games SET ai_turn = NULL WHERE id = $1 AND ai_turn = $2";
    }

    fn origin(&self) -> String {
        self.0.origin().to_string()
    }

    fn release_ai_claims(&self) -> StoreFuture<()> {
        let origin = self.0.origin();
        self.exec(stmt(
            "DELETE FROM ai_claims WHERE server = $1",
            vals![origin],
        ))
    }
}
