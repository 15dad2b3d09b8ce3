CREATE TABLE api_tokens (
                id          TEXT PRIMARY KEY,
                hash        TEXT NOT NULL UNIQUE,
                account_id  TEXT NOT NULL,
                description TEXT NOT NULL,
                scopes      TEXT NOT NULL,
                created_at  {int8} NOT NULL
            );
            CREATE INDEX api_tokens_account ON api_tokens (account_id);
            ALTER TABLE accounts ADD COLUMN bot {bool} NOT NULL DEFAULT {false};
            ALTER TABLE games ADD COLUMN bot_a {bool} NOT NULL DEFAULT {false};
            ALTER TABLE games ADD COLUMN bot_b {bool} NOT NULL DEFAULT {false};
            CREATE TABLE bot_challenges (
                id          TEXT PRIMARY KEY,
                challenger  TEXT NOT NULL,
                dest        TEXT NOT NULL,
                rules       TEXT NOT NULL,
                clock       TEXT,
                colour      TEXT CHECK (colour IN ('A', 'B')),
                rated       {bool} NOT NULL,
                status      TEXT NOT NULL
                    CHECK (status IN ('created', 'accepted', 'declined', 'canceled')),
                reason      TEXT,
                game_id     TEXT,
                created_at  {int8} NOT NULL,
                updated_at  {int8} NOT NULL
            );
            CREATE INDEX bot_challenges_challenger ON bot_challenges (challenger, updated_at);
            CREATE INDEX bot_challenges_dest ON bot_challenges (dest, updated_at)