//! Tournaments: their state, their games, and the pairing lease.

use super::*;
use crate::rows::{damaged, parsed};
use crate::{GameEnd, StoredTournament, TournamentPhase, TournamentStore};
use gore_domain::tournaments::TournamentState;

/// A tournament's state as its column keeps it.
fn json_text(state: &TournamentState) -> String {
    serde_json::to_string(state).unwrap_or_default()
}

/// The insert of a new tournament; with `caps` (per account, per
/// address), in the lowest free slot of its creator's and of its
/// address's (no slot, `NULL`, when all are taken).
fn insert_tournament(t: StoredTournament, caps: Option<(u16, u16)>) -> Stmt {
    // The lowest slot below `cap` that no tournament not finished with
    // the same `by` (the parameter `$p`) holds, `NULL` if none: the
    // slots are written out (`SELECT 0 AS n UNION ALL …`), as both
    // databases read them.
    let slot = |cap: u16, col: &str, by: &str, p: &str| {
        if cap == 0 {
            return "NULL".to_string();
        }
        let slots = (0..cap)
            .map(|n| format!("SELECT {n} AS n"))
            .collect::<Vec<_>>()
            .join(" UNION ALL ");
        format!(
            "(SELECT MIN(s.n) FROM ({slots}) s WHERE s.n NOT IN (SELECT {col} FROM tournaments
                 WHERE {by} = {p} AND finished = $15 AND {col} IS NOT NULL))"
        )
    };
    let (creator_slot, addr_slot) = match caps {
        Some((account, address)) => (
            slot(account, "creator_slot", "creator", "$4"),
            // Without an address, no cap of one: slot 0 (a NULL address
            // equals no other in the unique index).
            if t.creator_addr.is_some() {
                slot(address, "addr_slot", "creator_addr", "$14")
            } else {
                "0".to_string()
            },
        ),
        None => ("NULL".into(), "NULL".into()),
    };
    let mut values = vals![
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
        t.creator_addr,
    ];
    if caps.is_some() {
        values.extend(vals![false]);
    }
    stmt(
        format!(
            "INSERT INTO tournaments (id, kind, name, creator, clock, rules, rated, starts_at,
                 ends_at, finished, created_at, state, version, creator_addr, creator_slot,
                 addr_slot)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                 {creator_slot}, {addr_slot})"
        ),
        values,
    )
}

/// A tournaments row.
fn tournament_from_row(r: &Row) -> Result<StoredTournament, StoreError> {
    let id: String = col(r, "?", "id")?;
    let state: String = col(r, &id, "state")?;
    Ok(StoredTournament {
        kind: col(r, &id, "kind")?,
        name: col(r, &id, "name")?,
        creator: col(r, &id, "creator")?,
        creator_addr: col(r, &id, "creator_addr")?,
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
        self.exec(insert_tournament(t, None))
    }

    fn create_tournament_within(
        &self,
        t: StoredTournament,
        per_account: u16,
        per_address: u16,
    ) -> StoreFuture<bool> {
        let id = t.id.clone();
        let stmts = vec![
            insert_tournament(t, Some((per_account, per_address))),
            // A full cap leaves a slot empty (no free one): the insert is
            // taken back. Two creations taking one slot at once: the
            // unique index refuses the second (a conflict, as this).
            stmt(
                "SELECT id FROM tournaments WHERE id = $1 AND creator_slot IS NOT NULL
                     AND addr_slot IS NOT NULL",
                vals![id],
            )
            .expect(1),
        ];
        self.go(|db| async move { db.applied(stmts).await })
    }

    fn running_tournament_ids(&self, now: i64) -> StoreFuture<Vec<String>> {
        let s = stmt(
            "SELECT id FROM tournaments WHERE finished = $1 AND starts_at <= $2
             ORDER BY starts_at, id",
            vals![false, now],
        );
        self.mapped(s, |r| col(r, "?", "id"))
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
