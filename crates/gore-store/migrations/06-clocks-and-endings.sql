ALTER TABLE games ADD COLUMN clock TEXT;
            ALTER TABLE games ADD COLUMN started_at BIGINT;
            ALTER TABLE games ADD COLUMN deadline BIGINT;
            ALTER TABLE games ADD COLUMN loser TEXT CHECK (loser IN ('A', 'B'));
            UPDATE games SET started_at = created_at WHERE status <> 'waiting';
            CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL