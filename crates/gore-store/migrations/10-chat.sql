CREATE TABLE chat (
                game_id     TEXT NOT NULL,
                n           INTEGER NOT NULL,
                player      TEXT NOT NULL CHECK (player IN ('A', 'B')),
                text        TEXT NOT NULL,
                at          BIGINT NOT NULL,
                PRIMARY KEY (game_id, n)
            );
            CREATE TABLE chat_reports (
                game_id     TEXT NOT NULL,
                n           INTEGER NOT NULL,
                reporter    TEXT NOT NULL CHECK (reporter IN ('A', 'B')),
                at          BIGINT NOT NULL,
                PRIMARY KEY (game_id, n, reporter)
            )