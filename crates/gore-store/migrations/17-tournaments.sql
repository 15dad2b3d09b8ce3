CREATE TABLE tournaments (
                id          TEXT PRIMARY KEY,
                kind        TEXT NOT NULL CHECK (kind IN ('arena')),
                name        TEXT NOT NULL,
                creator     TEXT NOT NULL,
                clock       TEXT NOT NULL,
                rules       TEXT NOT NULL,
                rated       {bool} NOT NULL,
                starts_at   BIGINT NOT NULL,
                ends_at     BIGINT NOT NULL,
                finished    {bool} NOT NULL DEFAULT {false},
                created_at  BIGINT NOT NULL,
                state       TEXT NOT NULL,
                version     BIGINT NOT NULL
            );
            CREATE INDEX tournaments_phase ON tournaments (finished, starts_at);
            CREATE TABLE tournament_games (
                tournament_id TEXT NOT NULL REFERENCES tournaments (id),
                n             INTEGER NOT NULL,
                game_id       TEXT NOT NULL REFERENCES games (id),
                PRIMARY KEY (tournament_id, n)
            );
            CREATE UNIQUE INDEX tournament_games_game ON tournament_games (game_id);
            CREATE TABLE tournament_leases (
                tournament_id TEXT PRIMARY KEY,
                server        TEXT NOT NULL,
                until_ms      BIGINT NOT NULL
            )