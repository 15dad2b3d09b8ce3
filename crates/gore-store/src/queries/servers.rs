//! Several servers on one database: heartbeats, taking over a dead
//! server's games, spectator counts, and the claims on AI turns and
//! review jobs.

use super::*;
use crate::{DueReview, DueTurn, Notice, ReviewJob, ServerStore};

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
        ply: Ply,
        lease: std::time::Duration,
        dead_before: i64,
    ) -> StoreFuture<bool> {
        let now = now_ms();
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
            vals![
                id,
                ply,
                self.0.origin(),
                now + lease.as_millis() as i64,
                now,
                dead_before
            ],
        ))
    }

    one_statement! {
        fn watchers(ids: Vec<String>, since: i64) -> Vec<(String, u32)> =
            mapped(|r: &Row| game_count(r, "n"))
            "SELECT game_id, SUM(n) AS n FROM watchers WHERE game_id = ANY($1) AND at > $2
             GROUP BY game_id HAVING SUM(n) > 0";

        fn latest_plies(ids: Vec<String>) -> Vec<(String, Ply)> =
            mapped(|r: &Row| game_ply(r, "ply"))
            "SELECT game_id, max(ply) AS ply FROM actions WHERE game_id = ANY($1) GROUP BY game_id";

        // Each address's oldest turn first, then each one's second...,
        // counting the turns being searched: a flood of one address's
        // games does not hold back another's. Each address's first
        // `limit` (the caller orders each round by the addresses' search).
        fn due_ai_turns(dead_before: i64, limit: u32) -> Vec<DueTurn> = mapped(|r: &Row| {
                let (game, ply) = game_ply(r, "ai_turn")?;
                Ok(DueTurn { client: col(r, &game, "ai_client")?, round: col(r, &game, "n")?, game, ply })
            })
            "SELECT game_id, ai_turn, ai_client, n FROM (
                 SELECT id AS game_id, ai_turn, ai_client, updated_at,
                     ROW_NUMBER() OVER (PARTITION BY ai_client ORDER BY updated_at) AS n
                 FROM games WHERE ai_turn IS NOT NULL AND status = 'playing'
             ) due
             WHERE NOT EXISTS (SELECT 1 FROM ai_claims c
                 WHERE c.game_id = due.game_id AND c.ply = due.ai_turn AND c.until_ms > $1
                     AND c.server IN (SELECT id FROM servers WHERE alive_at >= $2))
                 AND n <= $3
             ORDER BY n, updated_at" [now_ms(), dead_before, limit];

        fn ai_usage(clients: Vec<String>) -> Vec<(String, f64, i64)> =
            mapped(|r: &Row| Ok((col(r, "?", "client")?, col(r, "?", "units")?, col(r, "?", "at_ms")?)))
            "SELECT client, units, at_ms FROM ai_usage WHERE client = ANY($1)";

        fn set_ai_usage(client: String, ms: f64, now: i64) -> () = exec
            "INSERT INTO ai_usage (client, units, at_ms) VALUES ($1, $2, $3)
             ON CONFLICT (client) DO UPDATE SET units = excluded.units, at_ms = excluded.at_ms";

        fn set_ai_client(id: String, client: String) -> () = exec
            "UPDATE games SET ai_client = $2 WHERE id = $1";

        fn clear_ai_turn(id: String, ply: Ply) -> () = exec
            "UPDATE games SET ai_turn = NULL WHERE id = $1 AND ai_turn = $2";
    }

    fn origin(&self) -> String {
        self.0.origin().to_string()
    }

    fn ai_turns_due_of(&self, client: String) -> StoreFuture<u32> {
        let n = self.first_mapped(
            stmt(
                "SELECT count(*) AS n FROM games
                 WHERE ai_client = $1 AND ai_turn IS NOT NULL AND status = 'playing'",
                vals![client],
            ),
            |r: &Row| col(r, "?", "n"),
        );
        Box::pin(async move { Ok(n.await?.unwrap_or(0)) })
    }

    fn release_ai_claims(&self) -> StoreFuture<()> {
        let origin = self.0.origin();
        self.exec(stmt(
            "DELETE FROM ai_claims WHERE server = $1",
            vals![origin],
        ))
    }

    fn request_review(
        &self,
        id: String,
        rec: String,
        client: String,
        cap: u32,
        now: i64,
    ) -> StoreFuture<()> {
        // An address's upload is replaced by its next one; ended uploads
        // are forgotten after an hour; a game's review is kept.
        self.exec(vec![
            stmt("DELETE FROM review_jobs WHERE id LIKE 'review-upload:%'
                 AND status IN ('done', 'failed') AND created_at < $1", vals![now - 3_600_000]),
            stmt("INSERT INTO review_jobs (id, record, client, status, created_at)
                 SELECT $1, $2, $3, 'waiting', $5 WHERE (SELECT count(*) FROM review_jobs
                     WHERE client = $3 AND status IN ('waiting', 'running')) < $4
             ON CONFLICT (id) DO UPDATE SET record = excluded.record, client = excluded.client,
                 status = 'waiting', result = NULL, created_at = excluded.created_at
             WHERE review_jobs.status IN ('done', 'failed') AND review_jobs.record <> excluded.record",
            vals![id, rec, client, cap, now]),
        ])
    }

    one_statement! {
        fn review_job(id: String, record: String, result: bool) -> Option<ReviewJob> =
            first_mapped(|r: &Row| Ok(ReviewJob { same: col(r, "?", "same")?,
                status: col(r, "?", "status")?, ahead: col(r, "?", "ahead")?, result: col(r, "?", "result")? }))
            "SELECT j.record = $2 AS same, j.status, CASE WHEN $3 THEN j.result END AS result,
                 (SELECT count(*) FROM review_jobs o WHERE o.status = 'waiting'
                     AND o.created_at < j.created_at) AS ahead
             FROM review_jobs j WHERE j.id = $1";

        // Each address's oldest first (running ones counted), as the AI
        // turns: its first `limit` at most, with their rounds (the caller
        // orders each round by the addresses' search).
        fn due_reviews(now: i64, dead_before: i64, limit: u32) -> Vec<DueReview> =
            mapped(|r: &Row| Ok(DueReview { id: col(r, "?", "id")?,
                record: col(r, "?", "record")?, client: col(r, "?", "client")?,
                round: col(r, "?", "n")? }))
            "SELECT id, record, client, n FROM (SELECT *,
                 ROW_NUMBER() OVER (PARTITION BY client ORDER BY created_at) AS n
                 FROM review_jobs WHERE status IN ('waiting', 'running')) j
             WHERE (status = 'waiting' OR until_ms <= $1
                 OR server NOT IN (SELECT id FROM servers WHERE alive_at >= $2))
                 AND n <= $3
             ORDER BY n, created_at";

        fn claim_review(id: String, server: String, until: i64, now: i64, dead_before: i64) -> bool =
            exec_one
            "UPDATE review_jobs SET status = 'running', server = $2, until_ms = $3 WHERE id = $1
                 AND (status = 'waiting' OR (status = 'running' AND (server = $2 OR until_ms <= $4
                     OR server NOT IN (SELECT id FROM servers WHERE alive_at >= $5))))";

        fn end_review(id: String, server: String, status: String, result: Option<String>) -> bool =
            exec_one
            "UPDATE review_jobs SET status = $3, result = $4, server = NULL, until_ms = NULL
             WHERE id = $1 AND server = $2 AND status = 'running'";
    }
}
