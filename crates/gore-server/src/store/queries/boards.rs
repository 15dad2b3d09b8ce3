//! The analysis board's jobs (issue 28): asked for by a web server,
//! claimed and computed by a worker, their findings sent back in batches.

use super::*;
use crate::store::{BoardBatch, BoardJob, BoardStore};

fn job_from_row(r: &Row) -> Result<BoardJob, StoreError> {
    let id: String = col(r, "?", "id")?;
    let c = |name: &str| col::<String>(r, &id, name);
    Ok(BoardJob {
        origin: c("origin")?,
        client: c("client")?,
        rules: c("rules")?,
        gpn: c("gpn")?,
        line: c("line")?,
        label: col(r, &id, "label")?,
        time_ms: col(r, &id, "time_ms")?,
        nodes: col(r, &id, "nodes")?,
        id,
    })
}

fn batch_from_row(r: &Row) -> Result<BoardBatch, StoreError> {
    let job: String = col(r, "?", "job")?;
    Ok(BoardBatch {
        seq: col(r, &job, "seq")?,
        body: col(r, &job, "body")?,
        last: col(r, &job, "last")?,
        job,
    })
}

/// A live claim on a job at `$4` (now) by a process heard from since `$5`,
/// as the review jobs'.
const TAKEN: &str = "status = 'running' AND until_ms > $4
     AND server IN (SELECT id FROM servers WHERE alive_at >= $5)";

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

        // Each client's oldest first (running ones counted), as the reviews.
        fn due_analyses(now: i64, dead_before: i64, limit: u32) -> Vec<BoardJob> =
            mapped(job_from_row)
            "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY client
                 ORDER BY created_at) AS n FROM analysis_jobs) j
             WHERE (status = 'waiting' OR until_ms <= $1
                 OR server NOT IN (SELECT id FROM servers WHERE alive_at >= $2))
             ORDER BY n, created_at LIMIT $3";

        fn give_back_analysis(id: String, server: String) -> () = exec
            "UPDATE analysis_jobs SET status = 'waiting', server = NULL, until_ms = NULL
             WHERE id = $1 AND server = $2";

        fn take_analysis_batches(origin: String) -> Vec<BoardBatch> = mapped(batch_from_row)
            "DELETE FROM analysis_batches WHERE origin = $1 RETURNING job, seq, body, last";
    }

    fn stop_analysis(&self, id: String) -> StoreFuture<bool> {
        self.go(|db| async move {
            let gone = db
                .count(stmt(
                    "DELETE FROM analysis_jobs WHERE id = $1 AND status = 'waiting'",
                    vals![&id],
                ))
                .await?;
            if gone == 0 {
                db.done(vec![stmt(
                    "UPDATE analysis_jobs SET stop = TRUE WHERE id = $1",
                    vals![id],
                )])
                .await?;
            }
            Ok(gone == 1)
        })
    }

    fn claim_analysis(
        &self,
        id: String,
        server: String,
        until: i64,
        now: i64,
        dead_before: i64,
    ) -> StoreFuture<bool> {
        let sql = format!(
            "UPDATE analysis_jobs SET status = 'running', server = $2, until_ms = $3
             WHERE id = $1 AND NOT ({TAKEN} AND server <> $2)"
        );
        self.exec_one(stmt(sql, vals![id, server, until, now, dead_before]))
    }

    fn analysis_batch(
        &self,
        id: String,
        server: String,
        body: Option<String>,
        last: bool,
    ) -> StoreFuture<Option<bool>> {
        self.go(|db| async move {
            let mine = "FROM analysis_jobs WHERE id = $1 AND server = $2";
            let mut stmts = Vec::new();
            if let Some(body) = body {
                stmts.push(stmt(
                    format!(
                        "INSERT INTO analysis_batches (job, seq, origin, body, last)
                         SELECT id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM analysis_batches
                             WHERE job = $1), origin, $3, $4 {mine}"
                    ),
                    vals![&id, &server, body, last],
                ));
            }
            stmts.push(stmt(format!("SELECT stop {mine}"), vals![&id, &server]));
            if last {
                stmts.push(stmt(format!("DELETE {mine}"), vals![&id, &server]));
            }
            let answers = db.0.write(stmts).await?;
            let at = answers.len() - 1 - usize::from(last);
            match answers.get(at).and_then(|a| a.rows.first()) {
                Some(r) => Ok(Some(first(r)?)),
                None => Ok(None),
            }
        })
    }

    fn forget_lost_analyses(&self, dead_before: i64) -> StoreFuture<()> {
        let lost = "origin NOT IN (SELECT id FROM servers WHERE alive_at >= $1)";
        self.exec(vec![
            stmt(
                format!("DELETE FROM analysis_jobs WHERE {lost} AND created_at < $1"),
                vals![dead_before],
            ),
            stmt(
                format!("DELETE FROM analysis_batches WHERE {lost}"),
                vals![dead_before],
            ),
        ])
    }
}
