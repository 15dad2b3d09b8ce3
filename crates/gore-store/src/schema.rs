//! The schema: one list of migrations for both stores.
//!
//! Each [`Step`] raises the schema by one version; its SQL is a file of
//! the crate's `migrations/` folder, one text for both databases: where
//! SQLite and PostgreSQL differ (64-bit integers, booleans, `WITHOUT
//! ROWID`) it writes one of [`WORDS`], spelled for each ([`Step::text`];
//! `tests/fixtures/schema-*.sql` keep every released step's text, which
//! must not change). Both stores apply the same steps in the same order,
//! so a version number means the same tables and columns in either (a
//! PostgreSQL test compares them).
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
    /// Its SQL (one file of `migrations/`), run in one transaction, with
    /// [`WORDS`].
    pub sql: &'static str,
}

impl Step {
    /// The step's SQL for `dialect`: each of [`WORDS`] spelled for it.
    pub fn text(&self, dialect: Dialect) -> String {
        WORDS.iter().fold(self.sql.to_string(), |t, (w, spelt)| {
            t.replace(w, spelt[dialect as usize])
        })
    }
}

/// Each step: its file of `migrations/` (without `.sql`) and what it does.
macro_rules! steps {
    ($($file:literal => $about:literal;)*) => {
        &[$(Step {
            about: $about,
            sql: include_str!(concat!("../migrations/", $file, ".sql")),
        }),*]
    };
}

/// Every migration, oldest first. Never edit a step once released: add one.
pub const STEPS: &[Step] = steps! {
    "01-games-and-actions" => "games and actions";
    // Positions kept with each action (a game loads without replaying it),
    // one-time invitations, device links, and browser sessions. The
    // friend's seat of a game still waiting had its secret in the old
    // invitation link: that secret becomes the invitation code.
    "02-positions-invitations-devices-sessions" => "positions, invitations, device links, sessions";
    // Several servers on one database: which server computes an AI turn,
    // until when (a lease another server may take over once it lapses).
    "03-ai-turn-claims" => "AI turn claims";
    // Resignations, takebacks (how many; a game with any is casual) and a
    // friend game's pending takeback request.
    "04-resignations-and-takebacks" => "resignations and takebacks";
    // The ladder grew from 8 levels to 12: the perfect player's stored
    // level, 9, is now a real level, so it moves out of the range (to
    // `PERFECT_LEVEL`, 100). Games at levels 1-8 keep their numbers: a
    // stored level is the strength a game resumes at.
    "05-perfect-player-level" => "the perfect player's level out of the ladder's range";
    // Clocks (a time control, when the game began, the deadline of the
    // player to act, indexed so that any server finds the games whose time
    // is up) and the endings off the board beyond resigning: `reason`
    // takes `time`, `left` and `abort`, `loser` says who lost. Games
    // already begun count as begun when they were created.
    "06-clocks-and-endings" => "clocks, deadlines, and losses on time and by leaving";
    // Display names: each browser session's (generated on its first
    // visit, or chosen), and each seat's, copied into the game when the
    // seat is taken, so that a record keeps the names it was played under.
    "07-display-names" => "display names";
    // The lobby: open challenges (a quick pairing's seek is one too), each
    // until it is taken (`game_id`), cancelled, or its creator is gone
    // (`seen_at` no longer refreshed by the server holding his socket).
    // Games from the lobby are friend games without an invitation.
    "08-lobby-challenges" => "the lobby's challenges";
    // Accounts: a username (its look-alike keys unique), an argon2id
    // password hash, the browser sessions logged in to each; the seats'
    // players (public ids) and whether a game is rated; ratings per pace
    // and their history, one row per account and rated game.
    "09-accounts-and-ratings" => "accounts and ratings";
    // Chat in games between people: each game's messages in order, and
    // the players who reported one.
    "10-chat" => "chat";
    // Since when each seat of a game between people has had no socket
    // (its player left): his opponent may then claim the win.
    "11-players-away" => "players away";
    // Spectators of each game on each server (refreshed every few
    // seconds by the server that has them), summed for the lobby.
    "12-spectator-counts" => "spectator counts";
    // Sessions (issue 25, item 11): only ids the server issued and has not
    // ended are sessions (`sessions`); an account's seats are the
    // account's (`account_seats`), held by whichever of its sessions. The
    // sessions kept are those logged in and those of anonymous players;
    // ids that only held seats cannot be told from sessions logged out
    // (whose seats they kept), so they end, seats and all: their games
    // open again with the seat's link or token.
    "13-issued-sessions-account-seats" => "issued sessions and the accounts' seats";
    // Clocks are not charged for outages (issue 25): each server's last
    // heartbeat, the server each game was last served by, and the time
    // given back to a game's clocks (`ply:ms,...`).
    "14-heartbeats-and-clock-credits" => "server heartbeats and clock credits";
    // Issue 25: who aborted which game (the lobby keeps out a player who
    // aborts too often), and the players' age, for the sweep that forgets
    // anonymous players who never played.
    "15-aborts-and-idle-players" => "aborts; idle anonymous players";
    // Issue 28: AI workers. The ply at which a game's AI is to act (kept
    // with each action), so that a server or worker finds the turns no
    // live claim covers without loading every AI game; and the address
    // that created the game, which a worker's turns are shared among.
    // The games going on are marked at their last ply: whoever claims one
    // first finds out whether the AI is to act there, and clears the mark
    // if not.
    "16-ai-turns-due" => "AI turns due";
    // Issue 29: tournaments (arenas). Each tournament's whole state (the
    // gore-tournament crate's JSON) with a version for compare-and-set;
    // its games, so that a game's tournament is found; and the pairing
    // lease one server holds per tournament (like `ai_claims`).
    "17-tournaments" => "tournaments";
    // Issue 29, bots: personal API tokens (only their SHA-256 is kept),
    // BOT accounts (irreversible), which seats of a game are BOTs', and
    // challenges addressed to one named player (the Bot API's, apart
    // from the lobby's open ones: they live until answered, not while a
    // socket is open).
    "18-bots" => "bots: API tokens, BOT accounts, challenges to a player";
    // Issue 29, the bots' pages: when each account's event stream was
    // last seen open (a BOT is shown online while it is recent).
    "19-bots-online" => "when an account's event stream was last open";
    // Issue 29: kind `swiss`; no CHECK alters alike on both: tables rebuilt.
    "20-swiss" => "tournaments: Swiss events";
    // Issue 29, results on player pages: the tournaments each account
    // joined (his rank and score are the tournament's state's). Filled
    // from the tournaments' games: a player who joined an earlier
    // tournament and played no game in it is left out.
    "21-tournament-players" => "the tournaments each account joined";
    // Issue 29, berserk: which arena a game belongs to, and each side's
    // berserk (the halved clock every server enforces).
    "22-berserk" => "arena games and berserk";
    // Issue 28: reviews asked for, their results, and the claim of the
    // process computing each (like `ai_claims`), so that workers compute them.
    "23-review-jobs" => "review jobs";
    // Issue 28: the analysis board's searches as jobs, their findings in
    // batches for the asking server's sockets, so that workers run them.
    "24-analysis-jobs" => "analysis board jobs";
    // Issue 36: which Swiss event paired a game, so that a player's event
    // stream says a round of it began (as `arena` says for an arena's).
    "25-swiss-games" => "Swiss games";
    // Issue 37: the tournaments an account, and an address, may have not
    // finished at once. Each one created by a person takes a free slot
    // of its creator's and of its address's; a unique index over the
    // slots of those not finished makes the cap exact however many
    // servers create at once (a second insert of a slot is refused).
    "26-tournament-caps" => "tournaments: the creator's address and slots";
    // Issue 37: each client address's recent AI search, faded (the workers
    // serve the least first, as the server's pools do), and the AI turns
    // due of an address counted at a game's creation.
    "27-ai-usage" => "the AI search each address used lately";
};

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
