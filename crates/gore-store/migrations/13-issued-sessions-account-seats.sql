CREATE TABLE sessions (
                    id          TEXT PRIMARY KEY,
                    created_at  BIGINT NOT NULL
                );
                INSERT INTO sessions (id, created_at)
                    SELECT session, created_at FROM account_sessions;
                INSERT INTO sessions (id, created_at)
                    SELECT p.session, p.created_at FROM players p
                    WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = p.id)
                      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = p.session);
CREATE TABLE account_seats (
                    account_id  TEXT NOT NULL,
                    game_id     TEXT NOT NULL REFERENCES games (id),
                    token       TEXT NOT NULL,
                    PRIMARY KEY (account_id, game_id)
                ){rowid};
INSERT INTO account_seats (account_id, game_id, token)
                    SELECT s.account_id, t.game_id, MIN(t.token) FROM session_seats t
                    JOIN account_sessions s ON s.session = t.session
                    GROUP BY s.account_id, t.game_id;
                DELETE FROM session_seats
                    WHERE session NOT IN (SELECT id FROM sessions)
                       OR session IN (SELECT session FROM account_sessions)