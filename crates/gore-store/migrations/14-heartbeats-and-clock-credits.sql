CREATE TABLE servers (
                id          TEXT PRIMARY KEY,
                alive_at    BIGINT NOT NULL
            );
            ALTER TABLE games ADD COLUMN server TEXT;
            ALTER TABLE games ADD COLUMN clock_credits TEXT NOT NULL DEFAULT ''