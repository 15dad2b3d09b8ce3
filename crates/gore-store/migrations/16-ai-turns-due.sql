ALTER TABLE games ADD COLUMN ai_turn INTEGER;
            ALTER TABLE games ADD COLUMN ai_client TEXT;
            UPDATE games SET ai_turn = (SELECT count(*) FROM actions WHERE actions.game_id = games.id)
                WHERE mode = 'ai' AND status = 'playing';
            CREATE INDEX games_ai_turn ON games (ai_turn) WHERE ai_turn IS NOT NULL