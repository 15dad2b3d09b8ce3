//! The analysis board's jobs (issue 28): asked for by a web server,
//! claimed and computed by a worker, their findings sent back in batches.

use super::*;
use crate::rows::{board_batch_from_row, board_job_from_row};
use crate::{BoardBatch, BoardJob, BoardStore};

impl<E: Executor> BoardStore for Db<E> {
    one_statement! {
        fn ask_analysis(j: BoardJob, cap: u32, now: i64) -> bool = exec_one
            "INSERT INTO analysis_jobs (id, origin, client, label, rules, gpn, line, time_ms,
                 nodes, status, created_at)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, 'waiting', $11
             WHERE (SELECT count(*) FROM analysis_jobs WHERE client = $3) < $10"
            [j.id, j.origin, j.client, j.label, j.rules, j.gpn, j.line, j.time_ms, j.nodes, cap,
             now];

        fn analysis_waiting(id: String) -> Option<u32> = first_mapped(first)
            "SELECT (SELECT count(*) FROM analysis_jobs o WHERE o.status = 'waiting'
                 AND (o.created_at, o.id) < (j.created_at, j.id))
             FROM analysis_jobs j WHERE j.id = $1 AND j.status = 'waiting'";

        // Each client's oldest first (running ones counted), as the reviews;
        // each client's first `limit` (the caller orders each round).
        fn due_analyses(now: i64, dead_before: i64, limit: u32) -> Vec<BoardJob> =
            mapped(board_job_from_row)
            "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY client
                 ORDER BY created_at) AS n FROM analysis_jobs) j
             WHERE (status = 'waiting' OR until_ms <= $1
                 OR server NOT IN (SELECT id FROM servers WHERE alive_at >= $2))
                 AND n <= $3
             ORDER BY n, created_at";

        // Unless another process holds a live claim (as the reviews').
        fn claim_analysis(id: String, server: String, until: i64, now: i64, dead_before: i64)
            -> bool = exec_one
            "UPDATE analysis_jobs SET status = 'running', server = $2, until_ms = $3
             WHERE id = $1 AND NOT (status = 'running' AND server <> $2 AND until_ms > $4
                 AND server IN (SELECT id FROM servers WHERE alive_at >= $5))";

        fn give_back_analysis(id: String, server: String) -> () = exec
            "UPDATE analysis_jobs SET status = 'waiting', server = NULL, until_ms = NULL
             WHERE id = $1 AND server = $2";
    }

    fn take_analysis_batches(&self, origin: String) -> StoreFuture<Vec<BoardBatch>> {
        // Looked for first: most looks find none, and a read takes no lock.
        let any = "SELECT 1 FROM analysis_batches WHERE origin = $1 LIMIT 1";
        let take = "DELETE FROM analysis_batches WHERE origin = $1 RETURNING job, seq, body, last";
        self.go(|db| async move {
            if db.rows(stmt(any, vals![&origin])).await?.is_empty() {
                return Ok(Vec::new());
            }
            let taken = db.0.write(vec![stmt(take, vals![origin])]).await?;
            let rows = taken.into_iter().flat_map(|a| a.rows);
            rows.map(|r| board_batch_from_row(&r)).collect()
        })
    }

    fn stop_analysis(&self, id: String) -> StoreFuture<bool> {
        // Withdrawn if it waits, else flagged for its worker.
        let gone = "DELETE FROM analysis_jobs WHERE id = $1 AND status = 'waiting'";
        let flag = "UPDATE analysis_jobs SET stop = TRUE WHERE id = $1";
        let done = self
            .0
            .write(vec![stmt(gone, vals![&id]), stmt(flag, vals![id])]);
        Box::pin(async move { Ok(done.await?.first().is_some_and(|a| a.count == 1)) })
    }

    fn analysis_batch(
        &self,
        id: String,
        server: String,
        body: Option<String>,
        last: bool,
    ) -> StoreFuture<Option<bool>> {
        let mine = "FROM analysis_jobs WHERE id = $1 AND server = $2";
        let stop = stmt(format!("SELECT stop {mine}"), vals![&id, &server]);
        self.go(|db| async move {
            if body.is_none() && !last {
                return db.rows(stop).await?.first().map(first).transpose();
            }
            let mut stmts = vec![stop];
            if let Some(body) = body {
                let add = format!(
                    "INSERT INTO analysis_batches (job, seq, origin, body, last) SELECT id,
                     (SELECT COALESCE(MAX(seq), 0) + 1 FROM analysis_batches WHERE job = $1),
                     origin, $3, $4 {mine}"
                );
                stmts.insert(0, stmt(add, vals![&id, &server, body, last]));
            }
            stmts.extend(last.then(|| stmt(format!("DELETE {mine}"), vals![&id, &server])));
            let answers = db.0.write(stmts).await?;
            let looked = answers.get(answers.len() - 1 - usize::from(last));
            looked.and_then(|a| a.rows.first()).map(first).transpose()
        })
    }

    fn forget_lost_analyses(&self, dead_before: i64) -> StoreFuture<()> {
        let lost = "origin NOT IN (SELECT id FROM servers WHERE alive_at >= $1)";
        let jobs = format!("DELETE FROM analysis_jobs WHERE {lost} AND created_at < $1");
        let batches = format!("DELETE FROM analysis_batches WHERE {lost}");
        self.exec(
            [jobs, batches]
                .map(|q| stmt(q, vals![dead_before]))
                .to_vec(),
        )
    }
}
