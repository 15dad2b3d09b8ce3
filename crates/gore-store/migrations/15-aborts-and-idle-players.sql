CREATE TABLE aborts (
                player      TEXT NOT NULL,
                game_id     TEXT NOT NULL,
                at          BIGINT NOT NULL,
                PRIMARY KEY (player, game_id)
            );
            CREATE INDEX aborts_player_at ON aborts (player, at);
            CREATE INDEX players_updated ON players (updated_at)