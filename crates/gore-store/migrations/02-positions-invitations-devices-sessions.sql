ALTER TABLE actions ADD COLUMN position TEXT;
                ALTER TABLE actions ADD COLUMN captured TEXT;
                ALTER TABLE games ADD COLUMN invite TEXT;
                ALTER TABLE games ADD COLUMN device_a TEXT;
                ALTER TABLE games ADD COLUMN device_b TEXT;
                ALTER TABLE games ADD COLUMN device_both TEXT;
                UPDATE games SET invite = token_b, token_b = NULL
                    WHERE mode = 'friend' AND status = 'waiting' AND creator = 'A';
                UPDATE games SET invite = token_a, token_a = NULL
                    WHERE mode = 'friend' AND status = 'waiting' AND creator = 'B';
CREATE TABLE session_seats (
                    session     TEXT NOT NULL,
                    game_id     TEXT NOT NULL REFERENCES games (id),
                    token       TEXT NOT NULL,
                    PRIMARY KEY (session, game_id)
                ){rowid}