CREATE TABLE watchers (
                game_id     TEXT NOT NULL,
                server      TEXT NOT NULL,
                n           INTEGER NOT NULL,
                at          BIGINT NOT NULL,
                PRIMARY KEY (game_id, server)
            )