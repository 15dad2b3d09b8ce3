//! The schema: one list of migrations for both stores.
//!
//! Each [`Step`] raises the schema by one version and holds its SQL, one
//! text for both databases: where SQLite and PostgreSQL differ (64-bit
//! integers, booleans, `WITHOUT ROWID`) it writes one of [`WORDS`],
//! spelled for each ([`Step::text`]; `tests/fixtures/schema-*.sql` keep
//! every released step's text, which must not change). Both stores apply
//! the same steps in the same order, so a version number means the same
//! tables and columns in either (a PostgreSQL test compares them).
//!
//! SQLite keeps its version in `PRAGMA user_version` (as it always has:
//! files made before PostgreSQL came migrate unchanged); PostgreSQL in a
//! `schema_version` table, one row per step applied, migrated under an
//! advisory lock so that servers starting together migrate once.
//!
//! Hand-rolled rather than refinery or sqlx's migrations: those keep their
//! own history table and would not know the `user_version` of existing
//! SQLite files, and these dozen lines are all the two stores need.

/// Which database a text is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

/// The words the two databases spell otherwise: as a step's text writes
/// them, then as SQLite and PostgreSQL spell them. (Texts both databases
/// ran as they are write `BIGINT` and `BOOLEAN`, which SQLite reads as
/// integers; a released text keeps its words.)
pub const WORDS: &[(&str, [&str; 2])] = &[
    ("{int8}", ["INTEGER", "BIGINT"]),
    ("{int2}", ["INTEGER", "SMALLINT"]),
    ("{bool}", ["INTEGER", "BOOLEAN"]),
    ("{false}", ["0", "FALSE"]),
    ("{real}", ["REAL", "DOUBLE PRECISION"]),
    ("{rowid}", [" WITHOUT ROWID", ""]),
];

/// One migration: from version `n - 1` to `n`, where `n` is its place in
/// [`STEPS`] counted from 1.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// What it does, for the log.
    pub about: &'static str,
    /// Its SQL, run in order in one transaction, with [`WORDS`].
    pub sql: &'static [&'static str],
}

impl Step {
    /// The whole step's SQL for `dialect`: its texts, each of [`WORDS`]
    /// spelled for `dialect`, joined.
    pub fn text(&self, dialect: Dialect) -> String {
        let spell = |text: &&str| {
            let words = WORDS.iter();
            words.fold(text.to_string(), |t, (w, spelt)| {
                t.replace(w, spelt[dialect as usize])
            })
        };
        self.sql.iter().map(spell).collect::<Vec<_>>().join(";\n")
    }
}

/// Every migration, oldest first. Never edit a step once released: add one.
pub const STEPS: &[Step] = &[
    Step {
        about: "games and actions",
        sql: &["CREATE TABLE games (
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
            ){rowid}"],
    },
    // Positions kept with each action (a game loads without replaying it),
    // one-time invitations, device links, and browser sessions. The
    // friend's seat of a game still waiting had its secret in the old
    // invitation link: that secret becomes the invitation code.
    Step {
        about: "positions, invitations, device links, sessions",
        sql: &[
            "ALTER TABLE actions ADD COLUMN position TEXT;
                ALTER TABLE actions ADD COLUMN captured TEXT;
                ALTER TABLE games ADD COLUMN invite TEXT;
                ALTER TABLE games ADD COLUMN device_a TEXT;
                ALTER TABLE games ADD COLUMN device_b TEXT;
                ALTER TABLE games ADD COLUMN device_both TEXT;
                UPDATE games SET invite = token_b, token_b = NULL
                    WHERE mode = 'friend' AND status = 'waiting' AND creator = 'A';
                UPDATE games SET invite = token_a, token_a = NULL
                    WHERE mode = 'friend' AND status = 'waiting' AND creator = 'B'",
            "CREATE TABLE session_seats (
                    session     TEXT NOT NULL,
                    game_id     TEXT NOT NULL REFERENCES games (id),
                    token       TEXT NOT NULL,
                    PRIMARY KEY (session, game_id)
                ){rowid}",
        ],
    },
    // Several servers on one database: which server computes an AI turn,
    // until when (a lease another server may take over once it lapses).
    Step {
        about: "AI turn claims",
        sql: &["CREATE TABLE ai_claims (
                game_id     TEXT NOT NULL,
                ply         INTEGER NOT NULL,
                server      TEXT NOT NULL,
                until_ms    BIGINT NOT NULL,
                PRIMARY KEY (game_id, ply)
            )"],
    },
    // Resignations, takebacks (how many; a game with any is casual) and a
    // friend game's pending takeback request.
    Step {
        about: "resignations and takebacks",
        sql: &[
            "ALTER TABLE games ADD COLUMN resigned TEXT CHECK (resigned IN ('A', 'B'));
            ALTER TABLE games ADD COLUMN takebacks INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE games ADD COLUMN takeback_request TEXT
                CHECK (takeback_request IN ('A', 'B'))",
        ],
    },
    // The ladder grew from 8 levels to 12: the perfect player's stored
    // level, 9, is now a real level, so it moves out of the range (to
    // `PERFECT_LEVEL`, 100). Games at levels 1-8 keep their numbers: a
    // stored level is the strength a game resumes at.
    Step {
        about: "the perfect player's level out of the ladder's range",
        sql: &["UPDATE games SET level = 100 WHERE level = 9"],
    },
    // Clocks (a time control, when the game began, the deadline of the
    // player to act, indexed so that any server finds the games whose time
    // is up) and the endings off the board beyond resigning: `reason`
    // takes `time`, `left` and `abort`, `loser` says who lost. Games
    // already begun count as begun when they were created.
    Step {
        about: "clocks, deadlines, and losses on time and by leaving",
        sql: &["ALTER TABLE games ADD COLUMN clock TEXT;
            ALTER TABLE games ADD COLUMN started_at BIGINT;
            ALTER TABLE games ADD COLUMN deadline BIGINT;
            ALTER TABLE games ADD COLUMN loser TEXT CHECK (loser IN ('A', 'B'));
            UPDATE games SET started_at = created_at WHERE status <> 'waiting';
            CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL"],
    },
    // Display names: each browser session's (generated on its first
    // visit, or chosen), and each seat's, copied into the game when the
    // seat is taken, so that a record keeps the names it was played under.
    Step {
        about: "display names",
        sql: &["CREATE TABLE players (
                session     TEXT PRIMARY KEY,
                id          TEXT NOT NULL UNIQUE,
                name        TEXT NOT NULL,
                created_at  BIGINT NOT NULL,
                updated_at  BIGINT NOT NULL
            );
            ALTER TABLE games ADD COLUMN name_a TEXT;
            ALTER TABLE games ADD COLUMN name_b TEXT"],
    },
    // The lobby: open challenges (a quick pairing's seek is one too), each
    // until it is taken (`game_id`), cancelled, or its creator is gone
    // (`seen_at` no longer refreshed by the server holding his socket).
    // Games from the lobby are friend games without an invitation.
    Step {
        about: "the lobby's challenges",
        sql: &["CREATE TABLE challenges (
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
            ALTER TABLE games ADD COLUMN lobby BOOLEAN NOT NULL DEFAULT FALSE"],
    },
    // Accounts: a username (its look-alike keys unique), an argon2id
    // password hash, the browser sessions logged in to each; the seats'
    // players (public ids) and whether a game is rated; ratings per pace
    // and their history, one row per account and rated game.
    Step {
        about: "accounts and ratings",
        sql: &[
            "CREATE TABLE accounts (
                    id          TEXT PRIMARY KEY,
                    username    TEXT NOT NULL,
                    password    TEXT NOT NULL,
                    created_at  BIGINT NOT NULL,
                    updated_at  BIGINT NOT NULL
                );
                CREATE TABLE account_keys (
                    key         TEXT PRIMARY KEY,
                    account_id  TEXT NOT NULL
                );
                CREATE TABLE account_sessions (
                    session     TEXT PRIMARY KEY,
                    account_id  TEXT NOT NULL,
                    created_at  BIGINT NOT NULL
                );
                CREATE INDEX account_sessions_account ON account_sessions (account_id);
                ALTER TABLE games ADD COLUMN player_a TEXT;
                ALTER TABLE games ADD COLUMN player_b TEXT;
                ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;
                ALTER TABLE games ADD COLUMN rating_a TEXT;
                ALTER TABLE games ADD COLUMN rating_b TEXT;
                ALTER TABLE challenges ADD COLUMN rating TEXT;
                CREATE INDEX games_player_a ON games (player_a);
                CREATE INDEX games_player_b ON games (player_b)",
            "CREATE TABLE ratings (
                    account_id  TEXT NOT NULL,
                    pace        TEXT NOT NULL,
                    rating      {real} NOT NULL,
                    deviation   {real} NOT NULL,
                    volatility  {real} NOT NULL,
                    games       INTEGER NOT NULL,
                    updated_at  {int8} NOT NULL,
                    PRIMARY KEY (account_id, pace)
                );
                CREATE TABLE rating_history (
                    account_id  TEXT NOT NULL,
                    game_id     TEXT NOT NULL,
                    pace        TEXT NOT NULL,
                    rating      {real} NOT NULL,
                    deviation   {real} NOT NULL,
                    at          {int8} NOT NULL,
                    PRIMARY KEY (account_id, game_id)
                )",
        ],
    },
    // Chat in games between people: each game's messages in order, and
    // the players who reported one.
    Step {
        about: "chat",
        sql: &["CREATE TABLE chat (
                game_id     TEXT NOT NULL,
                n           INTEGER NOT NULL,
                player      TEXT NOT NULL CHECK (player IN ('A', 'B')),
                text        TEXT NOT NULL,
                at          BIGINT NOT NULL,
                PRIMARY KEY (game_id, n)
            );
            CREATE TABLE chat_reports (
                game_id     TEXT NOT NULL,
                n           INTEGER NOT NULL,
                reporter    TEXT NOT NULL CHECK (reporter IN ('A', 'B')),
                at          BIGINT NOT NULL,
                PRIMARY KEY (game_id, n, reporter)
            )"],
    },
    // Since when each seat of a game between people has had no socket
    // (its player left): his opponent may then claim the win.
    Step {
        about: "players away",
        sql: &["ALTER TABLE games ADD COLUMN away_a BIGINT;
            ALTER TABLE games ADD COLUMN away_b BIGINT"],
    },
    // Spectators of each game on each server (refreshed every few
    // seconds by the server that has them), summed for the lobby.
    Step {
        about: "spectator counts",
        sql: &["CREATE TABLE watchers (
                game_id     TEXT NOT NULL,
                server      TEXT NOT NULL,
                n           INTEGER NOT NULL,
                at          BIGINT NOT NULL,
                PRIMARY KEY (game_id, server)
            )"],
    },
    // Sessions (issue 25, item 11): only ids the server issued and has not
    // ended are sessions (`sessions`); an account's seats are the
    // account's (`account_seats`), held by whichever of its sessions. The
    // sessions kept are those logged in and those of anonymous players;
    // ids that only held seats cannot be told from sessions logged out
    // (whose seats they kept), so they end, seats and all: their games
    // open again with the seat's link or token.
    Step {
        about: "issued sessions and the accounts' seats",
        sql: &[
            "CREATE TABLE sessions (
                    id          TEXT PRIMARY KEY,
                    created_at  BIGINT NOT NULL
                );
                INSERT INTO sessions (id, created_at)
                    SELECT session, created_at FROM account_sessions;
                INSERT INTO sessions (id, created_at)
                    SELECT p.session, p.created_at FROM players p
                    WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = p.id)
                      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = p.session)",
            "CREATE TABLE account_seats (
                    account_id  TEXT NOT NULL,
                    game_id     TEXT NOT NULL REFERENCES games (id),
                    token       TEXT NOT NULL,
                    PRIMARY KEY (account_id, game_id)
                ){rowid}",
            "INSERT INTO account_seats (account_id, game_id, token)
                    SELECT s.account_id, t.game_id, MIN(t.token) FROM session_seats t
                    JOIN account_sessions s ON s.session = t.session
                    GROUP BY s.account_id, t.game_id;
                DELETE FROM session_seats
                    WHERE session NOT IN (SELECT id FROM sessions)
                       OR session IN (SELECT session FROM account_sessions)",
        ],
    },
    // Clocks are not charged for outages (issue 25): each server's last
    // heartbeat, the server each game was last served by, and the time
    // given back to a game's clocks (`ply:ms,...`).
    Step {
        about: "server heartbeats and clock credits",
        sql: &["CREATE TABLE servers (
                id          TEXT PRIMARY KEY,
                alive_at    BIGINT NOT NULL
            );
            ALTER TABLE games ADD COLUMN server TEXT;
            ALTER TABLE games ADD COLUMN clock_credits TEXT NOT NULL DEFAULT ''"],
    },
    // Issue 25: who aborted which game (the lobby keeps out a player who
    // aborts too often), and the players' age, for the sweep that forgets
    // anonymous players who never played.
    Step {
        about: "aborts; idle anonymous players",
        sql: &["CREATE TABLE aborts (
                player      TEXT NOT NULL,
                game_id     TEXT NOT NULL,
                at          BIGINT NOT NULL,
                PRIMARY KEY (player, game_id)
            );
            CREATE INDEX aborts_player_at ON aborts (player, at);
            CREATE INDEX players_updated ON players (updated_at)"],
    },
    // Issue 28: AI workers. The ply at which a game's AI is to act (kept
    // with each action), so that a server or worker finds the turns no
    // live claim covers without loading every AI game; and the address
    // that created the game, which a worker's turns are shared among.
    // The games going on are marked at their last ply: whoever claims one
    // first finds out whether the AI is to act there, and clears the mark
    // if not.
    Step {
        about: "AI turns due",
        sql: &["ALTER TABLE games ADD COLUMN ai_turn INTEGER;
            ALTER TABLE games ADD COLUMN ai_client TEXT;
            UPDATE games SET ai_turn = (SELECT count(*) FROM actions WHERE actions.game_id = games.id)
                WHERE mode = 'ai' AND status = 'playing';
            CREATE INDEX games_ai_turn ON games (ai_turn) WHERE ai_turn IS NOT NULL"],
    },
    // Issue 29: tournaments (arenas). Each tournament's whole state (the
    // gore-tournament crate's JSON) with a version for compare-and-set;
    // its games, so that a game's tournament is found; and the pairing
    // lease one server holds per tournament (like `ai_claims`).
    Step {
        about: "tournaments",
        sql: &["CREATE TABLE tournaments (
                id          TEXT PRIMARY KEY,
                kind        TEXT NOT NULL CHECK (kind IN ('arena')),
                name        TEXT NOT NULL,
                creator     TEXT NOT NULL,
                clock       TEXT NOT NULL,
                rules       TEXT NOT NULL,
                rated       {bool} NOT NULL,
                starts_at   BIGINT NOT NULL,
                ends_at     BIGINT NOT NULL,
                finished    {bool} NOT NULL DEFAULT {false},
                created_at  BIGINT NOT NULL,
                state       TEXT NOT NULL,
                version     BIGINT NOT NULL
            );
            CREATE INDEX tournaments_phase ON tournaments (finished, starts_at);
            CREATE TABLE tournament_games (
                tournament_id TEXT NOT NULL REFERENCES tournaments (id),
                n             INTEGER NOT NULL,
                game_id       TEXT NOT NULL REFERENCES games (id),
                PRIMARY KEY (tournament_id, n)
            );
            CREATE UNIQUE INDEX tournament_games_game ON tournament_games (game_id);
            CREATE TABLE tournament_leases (
                tournament_id TEXT PRIMARY KEY,
                server        TEXT NOT NULL,
                until_ms      BIGINT NOT NULL
            )"],
    },
    // Issue 29, bots: personal API tokens (only their SHA-256 is kept),
    // BOT accounts (irreversible), which seats of a game are BOTs', and
    // challenges addressed to one named player (the Bot API's, apart
    // from the lobby's open ones: they live until answered, not while a
    // socket is open).
    Step {
        about: "bots: API tokens, BOT accounts, challenges to a player",
        sql: &["CREATE TABLE api_tokens (
                id          TEXT PRIMARY KEY,
                hash        TEXT NOT NULL UNIQUE,
                account_id  TEXT NOT NULL,
                description TEXT NOT NULL,
                scopes      TEXT NOT NULL,
                created_at  {int8} NOT NULL
            );
            CREATE INDEX api_tokens_account ON api_tokens (account_id);
            ALTER TABLE accounts ADD COLUMN bot {bool} NOT NULL DEFAULT {false};
            ALTER TABLE games ADD COLUMN bot_a {bool} NOT NULL DEFAULT {false};
            ALTER TABLE games ADD COLUMN bot_b {bool} NOT NULL DEFAULT {false};
            CREATE TABLE bot_challenges (
                id          TEXT PRIMARY KEY,
                challenger  TEXT NOT NULL,
                dest        TEXT NOT NULL,
                rules       TEXT NOT NULL,
                clock       TEXT,
                colour      TEXT CHECK (colour IN ('A', 'B')),
                rated       {bool} NOT NULL,
                status      TEXT NOT NULL
                    CHECK (status IN ('created', 'accepted', 'declined', 'canceled')),
                reason      TEXT,
                game_id     TEXT,
                created_at  {int8} NOT NULL,
                updated_at  {int8} NOT NULL
            );
            CREATE INDEX bot_challenges_challenger ON bot_challenges (challenger, updated_at);
            CREATE INDEX bot_challenges_dest ON bot_challenges (dest, updated_at)"],
    },
];

/// The schema version this server writes.
pub const VERSION: usize = STEPS.len();

/// The steps a database at schema `version` has yet to run, each with the
/// version it brings; a version newer than this server's is refused.
pub fn pending(version: i64) -> anyhow::Result<impl Iterator<Item = (i64, &'static Step)>> {
    if version < 0 || version as usize > VERSION {
        anyhow::bail!(
            "the database's schema version is {version}, newer than this server's \
             ({VERSION}); use a newer gore"
        );
    }
    Ok((1..).zip(STEPS).skip(version as usize))
}
