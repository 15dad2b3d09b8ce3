CREATE TABLE players (
                session     TEXT PRIMARY KEY,
                id          TEXT NOT NULL UNIQUE,
                name        TEXT NOT NULL,
                created_at  BIGINT NOT NULL,
                updated_at  BIGINT NOT NULL
            );
            ALTER TABLE games ADD COLUMN name_a TEXT;
            ALTER TABLE games ADD COLUMN name_b TEXT