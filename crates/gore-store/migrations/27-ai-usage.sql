CREATE TABLE ai_usage (
                client  TEXT PRIMARY KEY,
                units   {real} NOT NULL,
                at_ms   BIGINT NOT NULL
            );
            CREATE INDEX games_ai_due ON games (ai_client) WHERE ai_turn IS NOT NULL
