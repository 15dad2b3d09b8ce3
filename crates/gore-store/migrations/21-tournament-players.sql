CREATE TABLE tournament_players (
                tournament_id TEXT NOT NULL REFERENCES tournaments (id),
                account_id    TEXT NOT NULL,
                PRIMARY KEY (account_id, tournament_id)
            );
            INSERT INTO tournament_players (tournament_id, account_id)
                SELECT tg.tournament_id, g.player_a FROM tournament_games tg
                    JOIN games g ON g.id = tg.game_id WHERE g.player_a IS NOT NULL
                UNION
                SELECT tg.tournament_id, g.player_b FROM tournament_games tg
                    JOIN games g ON g.id = tg.game_id WHERE g.player_b IS NOT NULL