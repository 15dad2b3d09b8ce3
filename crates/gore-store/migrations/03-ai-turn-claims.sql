CREATE TABLE ai_claims (
                game_id     TEXT NOT NULL,
                ply         INTEGER NOT NULL,
                server      TEXT NOT NULL,
                until_ms    BIGINT NOT NULL,
                PRIMARY KEY (game_id, ply)
            )