//! Tournaments: their state, their games, and the pairing lease.

use super::*;
use crate::rows::{damaged, parsed};
use crate::{GameEnd, StoredTournament, TournamentPhase, TournamentStore};
use gore_domain::tournaments::TournamentState;

/// A tournament's state as its column keeps it.
fn json_text(state: &TournamentState) -> String {
    serde_json::to_string(state).unwrap_or_default()
}

/// A tournaments row.
fn tournament_from_row(r: &Row) -> Result<StoredTournament, StoreError> {
    let id: String = col(r, "?", "id")?;
    let state: String = col(r, &id, "state")?;
    Ok(StoredTournament {
        kind: col(r, &id, "kind")?,
        name: col(r, &id, "name")?,
        creator: col(r, &id, "creator")?,
        clock: parsed(r, &id, "clock")?,
        rules: parsed(r, &id, "rules")?,
        rated: col(r, &id, "rated")?,
        starts_at: col(r, &id, "starts_at")?,
        ends_at: col(r, &id, "ends_at")?,
        finished: col(r, &id, "finished")?,
        created_at: col(r, &id, "created_at")?,
        state: serde_json::from_str(&state).map_err(|e| damaged(&id, format!("state: {e}")))?,
        version: col(r, &id, "version")?,
        id,
    })
}

impl<E: Executor> TournamentStore for Db<E> {
    one_statement! {
        fn tournament(id: String) -> Option<StoredTournament> = first_mapped(tournament_from_row)
            "SELECT * FROM tournaments WHERE id = $1";

        fn add_tournament_player(id: String, account: String) -> () = exec
            "INSERT INTO tournament_players (tournament_id, account_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING";

        fn tournaments_of(account: String, limit: u32) -> Vec<StoredTournament> =
            mapped(tournament_from_row) "SELECT t.* FROM tournaments t JOIN tournament_players p
             ON p.tournament_id = t.id WHERE p.account_id = $1 ORDER BY t.starts_at DESC LIMIT $2";
    }

    fn create_tournament(&self, t: StoredTournament) -> StoreFuture<()> {
        self.exec(stmt(
            "INSERT INTO tournaments (id, kind, name, creator, clock, rules, rated, starts_at,
                 ends_at, finished, created_at, state, version)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            vals![
                t.id,
                t.kind,
                t.name,
                t.creator,
                t.clock.to_string(),
                t.rules.to_string(),
                t.rated,
                t.starts_at,
                t.ends_at,
                t.finished,
                t.created_at,
                json_text(&t.state),
                t.version,
            ],
        ))
    }

    fn tournaments(
        &self,
        phase: TournamentPhase,
        now: i64,
        limit: u32,
    ) -> StoreFuture<Vec<StoredTournament>> {
        // Not finished and begun or not, or finished (every start is
        // before the end of time).
        let (finished, cmp, order, at) = match phase {
            TournamentPhase::Upcoming => (false, ">", "starts_at", now),
            TournamentPhase::Running => (false, "<=", "starts_at", now),
            TournamentPhase::Finished => (true, "<=", "ends_at DESC", i64::MAX),
        };
        let s = stmt(
            format!(
                "SELECT * FROM tournaments WHERE finished = $1 AND starts_at {cmp} $2
                 ORDER BY {order}, id LIMIT $3"
            ),
            vals![finished, at, limit],
        );
        self.mapped(s, tournament_from_row)
    }

    fn save_tournament(
        &self,
        id: String,
        version: i64,
        state: TournamentState,
        finished: bool,
        games: Vec<(u32, GameInfo)>,
        seats: Vec<(String, String, String)>,
    ) -> StoreFuture<bool> {
        // The compare-and-set first: a change that lost the race inserts
        // no game (the whole write is rolled back).
        let mut stmts = vec![stmt(
            "UPDATE tournaments SET state = $3, version = version + 1, finished = $4
             WHERE id = $1 AND version = $2",
            vals![&id, version, json_text(&state), finished],
        )
        .expect(1)];
        for (n, g) in &games {
            stmts.push(insert_game(g));
            stmts.push(stmt(
                "INSERT INTO tournament_games (tournament_id, n, game_id) VALUES ($1, $2, $3)",
                vals![&id, *n, &g.id],
            ));
        }
        stmts.extend(seats.iter().map(|(a, g, t)| account_seat(a, g, t)));
        self.go(|db| async move { db.applied(stmts).await })
    }

    fn claim_tournament(
        &self,
        id: String,
        now: i64,
        until: i64,
        dead_before: i64,
    ) -> StoreFuture<bool> {
        // As an AI claim: taken if free, lapsed, its holder silent, or
        // already this process's; the row's lock orders two claims.
        self.exec_one(stmt(
            "INSERT INTO tournament_leases (tournament_id, server, until_ms)
                     VALUES ($1, $2, $3)
                     ON CONFLICT (tournament_id) DO UPDATE
                         SET server = excluded.server, until_ms = excluded.until_ms
                         WHERE tournament_leases.server = excluded.server
                             OR tournament_leases.until_ms <= $4
                             OR tournament_leases.server NOT IN
                                 (SELECT id FROM servers WHERE alive_at >= $5)",
            vals![id, self.0.origin(), until, now, dead_before],
        ))
    }

    fn game_ends(&self, games: Vec<String>) -> StoreFuture<Vec<GameEnd>> {
        let s = stmt(
            "SELECT *, (SELECT MIN(a.player) FROM aborts a WHERE a.game_id = games.id)
                 AS aborted_by
             FROM games WHERE id = ANY($1) AND status = 'over'",
            vals![games],
        );
        self.mapped(s, |r| {
            let (info, result) = info_and_result_from_row(r)?;
            Ok(GameEnd {
                result,
                ended_at: col(r, &info.id, "updated_at")?,
                aborted_by: col(r, &info.id, "aborted_by")?,
                forfeit: info.forfeit,
                berserk: info.berserk,
                game: info.id,
            })
        })
    }
}
