CREATE TABLE challenges (
                id          TEXT PRIMARY KEY,
                session     TEXT NOT NULL,
                player      TEXT NOT NULL,
                name        TEXT NOT NULL,
                rules       TEXT NOT NULL,
                clock       TEXT,
                colour      TEXT CHECK (colour IN ('A', 'B')),
                rated       BOOLEAN NOT NULL,
                quick       BOOLEAN NOT NULL,
                created_at  BIGINT NOT NULL,
                seen_at     BIGINT NOT NULL,
                game_id     TEXT
            );
            CREATE INDEX challenges_open ON challenges (quick, clock, created_at)
                WHERE game_id IS NULL;
            ALTER TABLE games ADD COLUMN lobby BOOLEAN NOT NULL DEFAULT FALSE