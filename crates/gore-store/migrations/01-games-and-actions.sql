CREATE TABLE games (
                id          TEXT PRIMARY KEY,
                mode        TEXT NOT NULL CHECK (mode IN ('ai', 'friend', 'local')),
                rules       TEXT NOT NULL,
                start       TEXT NOT NULL,
                level       {int2} NOT NULL,
                honourable  {bool} NOT NULL DEFAULT {false},
                creator     TEXT NOT NULL CHECK (creator IN ('A', 'B', 'both')),
                token_a     TEXT,
                token_b     TEXT,
                token_both  TEXT,
                ai_seat     TEXT CHECK (ai_seat IN ('A', 'B')),
                status      TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'over')),
                created_at  {int8} NOT NULL,
                updated_at  {int8} NOT NULL,
                result      TEXT,
                reason      TEXT,
                rematch     TEXT
            );
            CREATE INDEX games_mode_status ON games (mode, status);
            CREATE TABLE actions (
                game_id     TEXT NOT NULL REFERENCES games (id),
                ply         INTEGER NOT NULL CHECK (ply >= 1),
                action      TEXT NOT NULL,
                created_at  {int8} NOT NULL,
                PRIMARY KEY (game_id, ply)
            ){rowid}