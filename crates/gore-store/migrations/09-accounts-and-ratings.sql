CREATE TABLE accounts (
                    id          TEXT PRIMARY KEY,
                    username    TEXT NOT NULL,
                    password    TEXT NOT NULL,
                    created_at  BIGINT NOT NULL,
                    updated_at  BIGINT NOT NULL
                );
                CREATE TABLE account_keys (
                    key         TEXT PRIMARY KEY,
                    account_id  TEXT NOT NULL
                );
                CREATE TABLE account_sessions (
                    session     TEXT PRIMARY KEY,
                    account_id  TEXT NOT NULL,
                    created_at  BIGINT NOT NULL
                );
                CREATE INDEX account_sessions_account ON account_sessions (account_id);
                ALTER TABLE games ADD COLUMN player_a TEXT;
                ALTER TABLE games ADD COLUMN player_b TEXT;
                ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;
                ALTER TABLE games ADD COLUMN rating_a TEXT;
                ALTER TABLE games ADD COLUMN rating_b TEXT;
                ALTER TABLE challenges ADD COLUMN rating TEXT;
                CREATE INDEX games_player_a ON games (player_a);
                CREATE INDEX games_player_b ON games (player_b);
CREATE TABLE ratings (
                    account_id  TEXT NOT NULL,
                    pace        TEXT NOT NULL,
                    rating      {real} NOT NULL,
                    deviation   {real} NOT NULL,
                    volatility  {real} NOT NULL,
                    games       INTEGER NOT NULL,
                    updated_at  {int8} NOT NULL,
                    PRIMARY KEY (account_id, pace)
                );
                CREATE TABLE rating_history (
                    account_id  TEXT NOT NULL,
                    game_id     TEXT NOT NULL,
                    pace        TEXT NOT NULL,
                    rating      {real} NOT NULL,
                    deviation   {real} NOT NULL,
                    at          {int8} NOT NULL,
                    PRIMARY KEY (account_id, game_id)
                )