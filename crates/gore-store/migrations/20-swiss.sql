-- Neither database alters a CHECK in the same words (SQLite not at all):
            -- both tables are copied aside, rebuilt as step 17 made them with
            -- the wider CHECK, and filled again, the child out first and in
            -- last, so that its foreign key to tournaments is kept on both.
            CREATE TABLE tournaments_kept AS SELECT * FROM tournaments;
            CREATE TABLE tournament_games_kept AS SELECT * FROM tournament_games;
            DROP TABLE tournament_games;
            DROP TABLE tournaments;
            CREATE TABLE tournaments (
                id          TEXT PRIMARY KEY,
                kind        TEXT NOT NULL CHECK (kind IN ('arena', 'swiss')),
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
            INSERT INTO tournaments SELECT * FROM tournaments_kept;
            CREATE TABLE tournament_games (
                tournament_id TEXT NOT NULL REFERENCES tournaments (id),
                n             INTEGER NOT NULL,
                game_id       TEXT NOT NULL REFERENCES games (id),
                PRIMARY KEY (tournament_id, n)
            );
            CREATE UNIQUE INDEX tournament_games_game ON tournament_games (game_id);
            INSERT INTO tournament_games SELECT * FROM tournament_games_kept;
            DROP TABLE tournament_games_kept;
            DROP TABLE tournaments_kept