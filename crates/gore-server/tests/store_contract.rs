//! The store's contract: every method of the store's traits, on SQLite
//! always and on PostgreSQL when `GORE_TEST_POSTGRES` is set (a fresh
//! database each). Each test runs its body against each store; the
//! expected values follow from the traits' documents, not from either
//! implementation.
//!
//! With the drift the two copies of the store once had: a damaged row
//! names its game and is an error in both, as are a bad rating count and
//! a chat line whose player is neither A nor B.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::{fresh_pg_database, pg_connect, postgres_url};
use gore_ai::Level;
use gore_core::{Forfeit, Player, Position, Rules};
use gore_server::domain::{GameInfo, Mode, PerSeat, Ply, Seat, Status, PERFECT_LEVEL};
use gore_server::store::postgres::{PgOptions, PgStore};
use gore_server::store::schema::{Dialect, STEPS};
use gore_server::store::sql::{for_sqlite, Row, Value};
use gore_server::store::sqlite::SqliteStore;
use gore_server::store::{
    credits_from_text, credits_text, At, BoardJob, GameChange, GameStore, RatingUpdate, SeatClaim,
    Store, StoreError, StoredAccount, StoredAction, StoredBotChallenge, StoredChallenge,
    StoredPlayer, StoredRating, StoredToken,
};

/// A store under test, and a way to reach its database behind its back
/// (to damage rows).
struct Under {
    name: &'static str,
    store: Arc<dyn Store>,
    raw: Raw,
    _dir: Option<tempfile::TempDir>,
}

enum Raw {
    Sqlite(PathBuf),
    Pg(String),
}

impl Raw {
    /// Runs `sql` (with `sqlite` instead on SQLite) outside the store.
    async fn exec(&self, sql: &str, sqlite: &str) {
        match self {
            Raw::Sqlite(path) => {
                let c = rusqlite::Connection::open(path).unwrap();
                c.execute_batch(sqlite).unwrap();
            }
            Raw::Pg(url) => pg_connect(url).await.batch_execute(sql).await.unwrap(),
        }
    }
}

/// SQLite on a temporary file; PostgreSQL too with `GORE_TEST_POSTGRES`.
async fn stores() -> Vec<Under> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("contract.sqlite3");
    let mut v = vec![Under {
        name: "sqlite",
        store: Arc::new(SqliteStore::open(&path, Default::default()).unwrap()),
        raw: Raw::Sqlite(path),
        _dir: Some(dir),
    }];
    if let Some(base) = postgres_url() {
        let url = fresh_pg_database(&base).await;
        v.push(Under {
            name: "postgres",
            store: Arc::new(PgStore::connect(&url, PgOptions::default()).await.unwrap()),
            raw: Raw::Pg(url),
            _dir: None,
        });
    }
    v
}

/// A game between people waiting for its friend, made at `at`.
fn game(id: &str, at: i64) -> GameInfo {
    let rules = Rules::STANDARD;
    GameInfo {
        id: id.to_string(),
        mode: Mode::Friend,
        rules,
        start: Position::new(rules.variant),
        level: gore_ai::Level::new(3).unwrap(),
        perfect: false,
        honourable: false,
        creator: Seat::A,
        ai_seat: None,
        status: Status::Waiting,
        created_at: at,
        rematch: None,
        tokens: PerSeat([Some(format!("ta-{id}")), None, None]),
        invite: Some(format!("inv-{id}")),
        devices: PerSeat([None, None, None]),
        forfeit: None,
        clock: None,
        started_at: None,
        names: [Some("Ama".into()), None],
        players: [Some(format!("pa-{id}")), None],
        rated: false,
        ratings: [None, None],
        away: [None, None],
        credits: vec![],
        lobby: false,
        deadline: None,
        takebacks: 0,
        takeback: None,
        bots: [false, false],
        arena: None,
        swiss: None,
        berserk: [false, false],
    }
}

/// The same game, being played by two players.
fn playing(id: &str, at: i64) -> GameInfo {
    let mut g = game(id, at);
    g.status = Status::Playing;
    g.invite = None;
    g.tokens = PerSeat([Some(format!("ta-{id}")), Some(format!("tb-{id}")), None]);
    g.players = [Some(format!("pa-{id}")), Some(format!("pb-{id}"))];
    g.started_at = Some(at);
    g
}

fn action(ply: u32, a: &str, at: i64) -> StoredAction {
    StoredAction {
        ply: Ply::new(ply),
        action: a.parse().unwrap(),
        captured: vec![],
        position: None,
        at,
    }
}

fn challenge(id: &str, session: &str, player: &str, at: i64) -> StoredChallenge {
    StoredChallenge {
        id: id.to_string(),
        session: session.to_string(),
        player: player.to_string(),
        name: format!("name-{player}"),
        rules: Rules::STANDARD,
        clock: Some("5+3".parse().unwrap()),
        colour: Some(Player::A),
        rated: false,
        quick: true,
        created_at: at,
        game: None,
        rating: None,
    }
}

fn conflict<T: std::fmt::Debug>(r: Result<T, StoreError>, what: &str) {
    assert!(matches!(r, Err(StoreError::Conflict)), "{what}: {r:?}");
}

/// A game made, its actions appended in order, read back whole and after
/// a ply; a second commit of a ply, or one at another takeback count, is
/// a conflict; a rematch is linked from its game.
#[tokio::test]
async fn games_are_created_played_and_loaded() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        assert!(
            s.load_game("nothing".into()).await.unwrap().is_none(),
            "{n}"
        );
        s.create_game(playing("g1", 100), None).await.unwrap();
        conflict(s.create_game(playing("g1", 100), None).await, "same id");
        s.append_action("g1".into(), 0, action(1, "a3", 200), None, Some(5_000))
            .await
            .unwrap();
        conflict(
            s.append_action("g1".into(), 0, action(1, "a1", 201), None, None)
                .await,
            "ply 1 again",
        );
        conflict(
            s.append_action("g1".into(), 1, action(2, "b3", 202), None, None)
                .await,
            "another takeback count",
        );
        s.append_action("g1".into(), 0, action(2, "b3", 300), None, None)
            .await
            .unwrap();
        let g = s.load_game("g1".into()).await.unwrap().unwrap();
        assert_eq!(g.info.status, Status::Playing, "{n}");
        assert_eq!(g.info.players, playing("g1", 100).players, "{n}");
        assert_eq!(g.info.deadline, None, "{n}: the last action's deadline");
        let plies: Vec<(u32, String, i64)> = g
            .actions
            .iter()
            .map(|a| (a.ply.get(), a.action.to_string(), a.at))
            .collect();
        assert_eq!(plies, [(1, "a3".into(), 200), (2, "b3".into(), 300)], "{n}");
        let after = s
            .load_game_after("g1".into(), Ply::new(1))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(after.actions.len(), 1, "{n}");
        assert_eq!(after.actions[0].ply, Ply::new(2), "{n}");
        // A rematch: the old game points at the new one.
        s.create_game(game("g2", 400), Some("g1".into()))
            .await
            .unwrap();
        let old = s.load_game("g1".into()).await.unwrap().unwrap();
        assert_eq!(old.info.rematch.as_deref(), Some("g2"), "{n}");
    }
}

/// Takeback requests, takebacks (the log shortened, the count one more),
/// credits and forfeits, each only where the game stands; a game over
/// takes nothing more.
#[tokio::test]
async fn games_change_only_where_they_stand() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        s.create_game(playing("g1", 100), None).await.unwrap();
        for (ply, a) in [(1, "a3"), (2, "b3")] {
            s.append_action("g1".into(), 0, action(ply, a, 100), None, None)
                .await
                .unwrap();
        }
        let at = |ply: u32, takebacks| At {
            ply: Ply::new(ply),
            takebacks,
        };
        conflict(
            s.change_game("g1".into(), at(1, 0), GameChange::Request(None), 1)
                .await,
            "a stale ply",
        );
        s.change_game(
            "g1".into(),
            at(2, 0),
            GameChange::Request(Some(Player::B)),
            1,
        )
        .await
        .unwrap();
        let g = s.load_game("g1".into()).await.unwrap().unwrap();
        assert_eq!(g.info.takeback, Some(Player::B), "{n}");
        s.change_game(
            "g1".into(),
            at(2, 0),
            GameChange::TakeBack {
                to: Ply::new(1),
                deadline: Some(9_000),
            },
            2,
        )
        .await
        .unwrap();
        let g = s.load_game("g1".into()).await.unwrap().unwrap();
        assert_eq!(
            (g.actions.len(), g.info.takebacks, g.info.takeback),
            (1, 1, None),
            "{n}"
        );
        assert_eq!(g.info.deadline, Some(9_000), "{n}");
        conflict(
            s.change_game("g1".into(), at(1, 0), GameChange::Request(None), 3)
                .await,
            "the takebacks moved on",
        );
        let credits = vec![(Ply::new(1), 65_000), (Ply::new(3), 1_500)];
        s.change_game(
            "g1".into(),
            at(1, 1),
            GameChange::Credit {
                credits: credits.clone(),
                deadline: Some(70_000),
            },
            4,
        )
        .await
        .unwrap();
        let g = s.load_game("g1".into()).await.unwrap().unwrap();
        assert_eq!(g.info.credits, credits, "{n}");
        s.change_game(
            "g1".into(),
            at(1, 1),
            GameChange::Forfeit {
                forfeit: Forfeit::Resign(Player::B),
                result: Some("30-18".into()),
            },
            5,
        )
        .await
        .unwrap();
        let g = s.load_game("g1".into()).await.unwrap().unwrap();
        assert_eq!(g.info.status, Status::Over, "{n}");
        assert_eq!(g.info.forfeit, Some(Forfeit::Resign(Player::B)), "{n}");
        assert_eq!(g.info.deadline, None, "{n}");
        conflict(
            s.append_action("g1".into(), 1, action(2, "b1", 6), None, None)
                .await,
            "a game over",
        );
        conflict(
            s.change_game(
                "g1".into(),
                at(1, 1),
                GameChange::Forfeit {
                    forfeit: Forfeit::Time(Player::A),
                    result: None,
                },
                7,
            )
            .await,
            "a second forfeit",
        );
    }
}

/// An invitation is claimed once; devices and absences are kept per seat.
#[tokio::test]
async fn invitations_devices_and_absences() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        s.create_game(game("g1", 100), None).await.unwrap();
        let claim = SeatClaim {
            token: "tb".into(),
            name: Some("Kofi".into()),
            player: Some("pb".into()),
            now: 500,
            deadline: Some(30_500),
        };
        assert!(
            !s.claim_invite("g1".into(), "wrong".into(), Player::B, claim.clone())
                .await
                .unwrap(),
            "{n}"
        );
        assert!(s
            .claim_invite("g1".into(), "inv-g1".into(), Player::B, claim.clone())
            .await
            .unwrap());
        assert!(
            !s.claim_invite("g1".into(), "inv-g1".into(), Player::B, claim)
                .await
                .unwrap(),
            "{n}: spent"
        );
        s.set_device("g1".into(), Seat::B, Some("dev".into()))
            .await
            .unwrap();
        s.set_away("g1".into(), Player::A, Some(700)).await.unwrap();
        let g = s.load_game("g1".into()).await.unwrap().unwrap().info;
        assert_eq!(g.status, Status::Playing, "{n}");
        assert_eq!(g.invite, None, "{n}");
        assert_eq!(g.tokens.get(Seat::B), Some("tb"), "{n}");
        assert_eq!(g.names[1].as_deref(), Some("Kofi"), "{n}");
        assert_eq!(g.players[1].as_deref(), Some("pb"), "{n}");
        assert_eq!((g.started_at, g.deadline), (Some(500), Some(30_500)), "{n}");
        assert_eq!(g.devices.get(Seat::B), Some("dev"), "{n}");
        assert_eq!(g.away, [Some(700), None], "{n}");
        s.set_device("g1".into(), Seat::B, None).await.unwrap();
        s.set_away("g1".into(), Player::A, None).await.unwrap();
        let g = s.load_game("g1".into()).await.unwrap().unwrap().info;
        assert_eq!(
            (g.devices.get(Seat::B), g.away),
            (None, [None, None]),
            "{n}"
        );
    }
}

/// Sessions issued and ended, their players (the first made wins) and
/// the seats they hold.
#[tokio::test]
async fn sessions_players_and_seats() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        assert!(!s.session_exists("s1".into()).await.unwrap(), "{n}");
        s.create_session("s1".into(), 10).await.unwrap();
        assert!(s.session_exists("s1".into()).await.unwrap(), "{n}");
        assert_eq!(s.player("s1".into()).await.unwrap(), None, "{n}");
        let p = |id: &str, name: &str| StoredPlayer {
            id: id.into(),
            name: name.into(),
            account: false,
            bot: false,
        };
        let made = s
            .create_player("s1".into(), p("p1", "Ama"), 10)
            .await
            .unwrap();
        assert_eq!(made, p("p1", "Ama"), "{n}");
        let again = s
            .create_player("s1".into(), p("p2", "Esi"), 11)
            .await
            .unwrap();
        assert_eq!(again, p("p1", "Ama"), "{n}: the first made wins");
        s.set_player_name("s1".into(), "Adwoa".into(), 12)
            .await
            .unwrap();
        assert_eq!(s.player("s1".into()).await.unwrap(), Some(p("p1", "Adwoa")));
        s.create_game(game("g1", 1), None).await.unwrap();
        assert_eq!(
            s.session_token("s1".into(), "g1".into()).await.unwrap(),
            None
        );
        s.remember_seat("s1".into(), "g1".into(), "t1".into())
            .await
            .unwrap();
        s.remember_seat("s1".into(), "g1".into(), "t2".into())
            .await
            .unwrap();
        assert_eq!(
            s.session_token("s1".into(), "g1".into()).await.unwrap(),
            Some("t2".into()),
            "{n}: the latest seat"
        );
        s.log_out("s1".into()).await.unwrap();
        assert!(!s.session_exists("s1".into()).await.unwrap(), "{n}");
        assert_eq!(
            s.session_token("s1".into(), "g1".into()).await.unwrap(),
            None
        );
    }
}

/// Accounts: made once per look-alike key, from an anonymous session
/// whose player and seats they take; logged in elsewhere with the seats
/// of the new session; a new password ends every session of it.
#[tokio::test]
async fn accounts_take_their_sessions_seats() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        s.create_game(game("g1", 1), None).await.unwrap();
        s.create_game(game("g2", 1), None).await.unwrap();
        s.create_session("anon".into(), 1).await.unwrap();
        let player = StoredPlayer {
            id: "p1".into(),
            name: "ama".into(),
            account: false,
            bot: false,
        };
        s.create_player("anon".into(), player, 1).await.unwrap();
        s.remember_seat("anon".into(), "g1".into(), "t1".into())
            .await
            .unwrap();
        assert!(!s
            .keys_taken(vec!["ama".into(), "arna".into()])
            .await
            .unwrap());
        let account = StoredAccount {
            id: "p1".into(),
            username: "Ama".into(),
            password: "hash1".into(),
            bot: false,
        };
        let keys = vec!["ama".to_string(), "arna".to_string()];
        assert!(s
            .create_account(
                account.clone(),
                keys.clone(),
                "anon".into(),
                "in1".into(),
                2
            )
            .await
            .unwrap());
        assert!(
            s.keys_taken(vec!["x".into(), "arna".into()]).await.unwrap(),
            "{n}"
        );
        assert_eq!(
            s.account_by_key("arna".into()).await.unwrap(),
            Some(account.clone()),
            "{n}"
        );
        assert_eq!(s.account_by_key("nobody".into()).await.unwrap(), None);
        let other = StoredAccount {
            id: "p2".into(),
            ..account.clone()
        };
        s.create_session("anon2".into(), 3).await.unwrap();
        assert!(
            !s.create_account(other, keys, "anon2".into(), "in2".into(), 3)
                .await
                .unwrap(),
            "{n}: a key taken"
        );
        assert!(!s.session_exists("anon".into()).await.unwrap(), "{n}");
        assert_eq!(
            s.player("in1".into()).await.unwrap(),
            Some(StoredPlayer {
                id: "p1".into(),
                name: "Ama".into(),
                account: true,
                bot: false,
            }),
            "{n}"
        );
        assert_eq!(
            s.session_token("in1".into(), "g1".into()).await.unwrap(),
            Some("t1".into()),
            "{n}: the account holds the seat"
        );
        // Another device: its anonymous seat becomes the account's.
        s.create_session("phone".into(), 4).await.unwrap();
        s.remember_seat("phone".into(), "g2".into(), "t2".into())
            .await
            .unwrap();
        s.log_in("p1".into(), "phone".into(), "in3".into(), 5)
            .await
            .unwrap();
        assert!(!s.session_exists("phone".into()).await.unwrap(), "{n}");
        for session in ["in1", "in3"] {
            assert_eq!(
                s.session_token(session.into(), "g2".into()).await.unwrap(),
                Some("t2".into()),
                "{n}: {session}"
            );
        }
        s.set_password("p1".into(), "hash2".into(), "in3".into(), "in4".into(), 6)
            .await
            .unwrap();
        for gone in ["in1", "in3"] {
            assert!(!s.session_exists(gone.into()).await.unwrap(), "{n}: {gone}");
        }
        assert!(s.session_exists("in4".into()).await.unwrap(), "{n}");
        let a = s.account_by_key("ama".into()).await.unwrap().unwrap();
        assert_eq!(a.password, "hash2", "{n}");
        assert_eq!(
            s.session_token("in4".into(), "g1".into()).await.unwrap(),
            Some("t1".into()),
            "{n}"
        );
    }
}

/// Idle anonymous players are forgotten; those with a seat, an account
/// or made since are kept.
#[tokio::test]
async fn idle_players_are_forgotten() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        s.create_game(game("g1", 1), None).await.unwrap();
        for (session, id, at) in [("idle", "p1", 10), ("seated", "p2", 10), ("new", "p3", 50)] {
            s.create_session(session.into(), at).await.unwrap();
            let p = StoredPlayer {
                id: id.into(),
                name: id.into(),
                account: false,
                bot: false,
            };
            s.create_player(session.into(), p, at).await.unwrap();
        }
        s.remember_seat("seated".into(), "g1".into(), "t".into())
            .await
            .unwrap();
        assert_eq!(s.forget_idle_players(20).await.unwrap(), 1, "{n}");
        assert_eq!(s.player("idle".into()).await.unwrap(), None, "{n}");
        assert!(s.player("seated".into()).await.unwrap().is_some(), "{n}");
        assert!(s.player("new".into()).await.unwrap().is_some(), "{n}");
    }
}

/// Challenges posted, listed newest first, matched oldest first with
/// another player's of the same terms, paired once, refreshed, expired
/// and withdrawn.
#[tokio::test]
async fn the_lobby_pairs_each_challenge_once() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        let (c1, c2, c3) = (
            challenge("c1", "s1", "p1", 100),
            challenge("c2", "s2", "p2", 200),
            challenge("c3", "s3", "p3", 300),
        );
        let mut untimed = challenge("c4", "s4", "p4", 400);
        untimed.clock = None;
        for c in [&c1, &c2, &c3, &untimed] {
            s.post_challenge(c.clone()).await.unwrap();
        }
        let ids = |v: Vec<StoredChallenge>| v.into_iter().map(|c| c.id).collect::<Vec<_>>();
        assert_eq!(ids(s.open_challenges(3).await.unwrap()), ["c4", "c3", "c2"]);
        assert_eq!(s.challenge("c1".into()).await.unwrap(), Some(c1.clone()));
        assert_eq!(
            ids(s.find_matches(c3.clone(), 5).await.unwrap()),
            ["c1", "c2"]
        );
        let mut g = playing("g1", 500);
        g.lobby = true;
        let seats = vec![("s1".to_string(), "ta".to_string())];
        assert!(s
            .pair(vec!["c3".into(), "c1".into()], g.clone(), seats.clone())
            .await
            .unwrap());
        let mut g2 = playing("g2", 500);
        g2.lobby = true;
        assert!(
            !s.pair(vec!["c2".into(), "c1".into()], g2, seats)
                .await
                .unwrap(),
            "{n}: c1 is taken"
        );
        assert!(s.load_game("g2".into()).await.unwrap().is_none(), "{n}");
        assert_eq!(
            s.challenge("c1".into())
                .await
                .unwrap()
                .unwrap()
                .game
                .as_deref(),
            Some("g1")
        );
        assert_eq!(
            s.session_token("s1".into(), "g1".into()).await.unwrap(),
            Some("ta".into())
        );
        assert_eq!(
            ids(s.open_challenges(10).await.unwrap()),
            ["c4", "c2"],
            "{n}"
        );
        // c2 seen lately, c4 not: only c4 expires (and the taken ones,
        // older than 1000).
        s.touch_challenges(vec!["s2".into()], 900).await.unwrap();
        assert_eq!(s.expire_challenges(800, 1_000).await.unwrap(), 3, "{n}");
        assert_eq!(ids(s.open_challenges(10).await.unwrap()), ["c2"], "{n}");
        assert_eq!(
            s.cancel_challenges("s2".into(), Some("other".into()))
                .await
                .unwrap(),
            0
        );
        assert_eq!(
            s.cancel_challenges("s2".into(), None).await.unwrap(),
            1,
            "{n}"
        );
        assert!(s.open_challenges(10).await.unwrap().is_empty(), "{n}");
    }
}

/// Games being played now (between people), a player's games with their
/// results, due games and AI games.
#[tokio::test]
async fn games_are_listed() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        let mut due = playing("due", 100);
        due.deadline = Some(1_000);
        let mut later = playing("later", 200);
        later.deadline = Some(5_000);
        let mut ai = playing("ai", 300);
        ai.mode = Mode::Ai;
        ai.ai_seat = Some(Player::B);
        for g in [&due, &later, &ai] {
            s.create_game(g.clone(), None).await.unwrap();
        }
        s.create_game(game("waiting", 400), None).await.unwrap();
        let listed: Vec<String> = s
            .playing_now(10)
            .await
            .unwrap()
            .into_iter()
            .map(|g| g.id)
            .collect();
        assert_eq!(listed, ["later", "due"], "{n}: latest begun first");
        assert_eq!(s.due_games(2_000, 10).await.unwrap(), ["due"], "{n}");
        assert_eq!(s.due_games(5_000, 1).await.unwrap(), ["due"], "{n}");
        // The AI of "ai" plays B: A opens, so no AI turn is due.
        assert!(s.due_ai_turns(0, 10).await.unwrap().is_empty(), "{n}");
        s.change_game(
            "due".into(),
            At {
                ply: Ply::ZERO,
                takebacks: 0,
            },
            GameChange::Forfeit {
                forfeit: Forfeit::Time(Player::A),
                result: Some("0-48".into()),
            },
            1_500,
        )
        .await
        .unwrap();
        let mine = s.player_games("pa-due".into(), 10).await.unwrap();
        assert_eq!(mine.len(), 1, "{n}");
        assert_eq!(mine[0].0.id, "due", "{n}");
        assert_eq!(mine[0].1.as_deref(), Some("0-48"), "{n}");
        assert!(s.due_games(2_000, 10).await.unwrap().is_empty(), "{n}");
    }
}

/// Issue 28, AI workers. An AI game is due where its AI is to act: at
/// its start when the AI opens, after each action that leaves the AI's
/// seat to act, after a takeback (a mark its claimer checks); a live
/// claim hides the turn, a lapsed one or a silent holder's shows it again;
/// the claims before an action are spent with it; a stale mark is
/// cleared only at its own ply.
#[tokio::test]
async fn ai_turns_due_are_marked_and_claimed() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        // The standard start: A opens (RULES.md), so the AI playing A is
        // due at once and the AI playing B is not.
        let start = Position::new(Rules::STANDARD.variant);
        assert_eq!(start.to_move(), Player::A);
        let mut opens = playing("opens", 100);
        opens.mode = Mode::Ai;
        opens.ai_seat = Some(Player::A);
        let mut answers = playing("answers", 200);
        answers.mode = Mode::Ai;
        answers.ai_seat = Some(Player::B);
        let friend = playing("friend", 300);
        for g in [&opens, &answers, &friend] {
            s.create_game(g.clone(), None).await.unwrap();
        }
        let due = |d: i64| async move {
            let due = s.due_ai_turns(d, 10).await.unwrap();
            due.into_iter()
                .map(|t| (t.game, t.ply.get()))
                .collect::<Vec<_>>()
        };
        assert_eq!(due(0).await, [("opens".to_string(), 0)], "{n}");
        // Claimed by this process, alive: hidden; its holder silent: shown.
        let now = gore_server::domain::now_ms();
        s.heartbeat(s.origin(), now, vec![], 0).await.unwrap();
        let long = Duration::from_secs(600);
        for (g, ply) in [("opens", 1), ("answers", 0), ("friend", 0)] {
            assert!(
                !s.claim_ai_turn(g.into(), Ply::new(ply), long, now)
                    .await
                    .unwrap(),
                "{n}: {g} is not due at {ply}"
            );
        }
        assert!(s
            .claim_ai_turn("opens".into(), Ply::ZERO, long, now)
            .await
            .unwrap());
        assert!(due(now).await.is_empty(), "{n}: a live claim hides it");
        assert_eq!(
            due(now + 1).await,
            [("opens".to_string(), 0)],
            "{n}: its holder fell silent"
        );
        // The person (A) opens "answers": B, the AI, is to act at ply 1.
        let a3: gore_core::Action = "a3".parse().unwrap();
        let after = start.play(a3).unwrap();
        assert_eq!(after.to_move(), Player::B);
        let mut played = action(1, "a3", 400);
        played.position = Some(after);
        s.append_action("answers".into(), 0, played.clone(), None, None)
            .await
            .unwrap();
        assert_eq!(
            due(now).await,
            [("answers".to_string(), 1)],
            "{n}: the AI of answers to act"
        );
        // The AI of "opens" plays, and B (a person) is to act: nothing
        // due there.
        s.append_action("opens".into(), 0, played, None, None)
            .await
            .unwrap();
        assert_eq!(
            due(now + 1).await,
            [("answers".to_string(), 1)],
            "{n}: opens is the person's to play"
        );
        // A stale mark is cleared at its own ply only.
        s.clear_ai_turn("answers".into(), Ply::ZERO).await.unwrap();
        assert_eq!(due(now).await.len(), 1, "{n}: another ply's mark stays");
        s.clear_ai_turn("answers".into(), Ply::new(1))
            .await
            .unwrap();
        assert!(due(now).await.is_empty(), "{n}");
        // A takeback marks the AI game due at the ply it goes back to.
        s.change_game(
            "answers".into(),
            At {
                ply: Ply::new(1),
                takebacks: 0,
            },
            GameChange::TakeBack {
                to: Ply::ZERO,
                deadline: None,
            },
            500,
        )
        .await
        .unwrap();
        assert_eq!(due(now).await, [("answers".to_string(), 0)], "{n}");
        // Giving up this process's claims shows its turns again.
        assert!(s
            .claim_ai_turn("answers".into(), Ply::ZERO, long, now)
            .await
            .unwrap());
        assert!(due(now).await.is_empty(), "{n}");
        s.release_ai_claims().await.unwrap();
        assert_eq!(due(now).await, [("answers".to_string(), 0)], "{n}");
    }
}

/// The AI turns due come each address's oldest first, then each one's
/// second: a flood of one address's games (older) does not hold back
/// another address's newer game.
#[tokio::test]
async fn due_ai_turns_take_each_address_in_turn() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        // Three games of X (oldest), then one of Y, then one of unknown
        // origin (a game from before addresses were kept): each AI opens.
        for (id, at, client) in [
            ("x1", 100, Some("10.0.0.1")),
            ("x2", 200, Some("10.0.0.1")),
            ("x3", 300, Some("10.0.0.1")),
            ("y1", 400, Some("10.0.0.2")),
            ("old", 500, None),
        ] {
            let mut g = playing(id, at);
            g.mode = Mode::Ai;
            g.ai_seat = Some(Player::A);
            s.create_game(g, None).await.unwrap();
            if let Some(c) = client {
                s.set_ai_client(id.into(), c.into()).await.unwrap();
            }
        }
        let order: Vec<String> = s
            .due_ai_turns(0, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.game)
            .collect();
        assert_eq!(order, ["x1", "y1", "old", "x2", "x3"], "{n}");
        let first = s.due_ai_turns(0, 2).await.unwrap();
        assert_eq!(first[1].game, "y1", "{n}");
        assert_eq!(first[1].client.as_deref(), Some("10.0.0.2"), "{n}");
        // Each address's first `limit`, each with its round (issue 37).
        let rounds: Vec<(String, u32)> = first.into_iter().map(|t| (t.game, t.round)).collect();
        let want = [("x1", 1), ("y1", 1), ("old", 1), ("x2", 2)];
        let want: Vec<(String, u32)> = want.iter().map(|(g, r)| (g.to_string(), *r)).collect();
        assert_eq!(rounds, want, "{n}");
        // The turns due of an address, counted for its cap; the search
        // each address used, as recorded.
        assert_eq!(
            s.ai_turns_due_of("10.0.0.1".into()).await.unwrap(),
            3,
            "{n}"
        );
        assert_eq!(
            s.ai_turns_due_of("10.9.9.9".into()).await.unwrap(),
            0,
            "{n}"
        );
        s.set_ai_usage("10.0.0.1".into(), 1500.5, 42).await.unwrap();
        s.set_ai_usage("10.0.0.1".into(), 2500.25, 43)
            .await
            .unwrap();
        s.set_ai_usage("10.0.0.2".into(), 7.0, 44).await.unwrap();
        let mut usage = s
            .ai_usage(vec!["10.0.0.1".into(), "10.0.0.3".into()])
            .await
            .unwrap();
        usage.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(usage, [("10.0.0.1".to_string(), 2500.25, 43)], "{n}");
        // X's first two being searched (live claims) count: X's third
        // comes after Y's and the unknown's first, not before them.
        let now = gore_server::domain::now_ms();
        s.heartbeat(s.origin(), now, vec![], 0).await.unwrap();
        let long = Duration::from_secs(600);
        for g in ["x1", "x2"] {
            assert!(s
                .claim_ai_turn(g.into(), Ply::ZERO, long, now)
                .await
                .unwrap());
        }
        let order: Vec<String> = s
            .due_ai_turns(now, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.game)
            .collect();
        assert_eq!(order, ["y1", "old", "x3"], "{n}");
    }
}

/// Review jobs (issue 28): asked for once per id, capped per address,
/// taken each address's oldest first (those claimed counted), claimed by
/// one live process, ended only by their holder, an upload replaced by the
/// address's next record once ended.
#[tokio::test]
async fn review_jobs_are_asked_claimed_and_ended_in_turn() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        let ask = |id: &str, rec: &str, client: &str, at: i64| {
            s.request_review(id.into(), rec.into(), client.into(), 3, at)
        };
        for (id, at, client) in [("x1", 100, "X"), ("x2", 200, "X"), ("x3", 300, "X")] {
            ask(id, "rec", client, at).await.unwrap();
        }
        // X's fourth is over its cap of 3: not written.
        ask("x4", "rec", "X", 350).await.unwrap();
        assert!(
            s.review_job("x4".into(), "rec".into(), false)
                .await
                .unwrap()
                .is_none(),
            "{n}"
        );
        ask("y1", "rec", "Y", 400).await.unwrap();
        // Asked again: unchanged (its time too).
        ask("x1", "rec", "X", 500).await.unwrap();
        let due = |now: i64| async move {
            let v = s.due_reviews(now, 0, 10).await.unwrap();
            v.into_iter().map(|j| j.id).collect::<Vec<_>>()
        };
        assert_eq!(due(0).await, ["x1", "y1", "x2", "x3"], "{n}");
        // With each job's round in its address's line, which the workers
        // order by the addresses' search (usage::fair_order_by); `limit`
        // is the rounds taken.
        let rounds: Vec<u32> = s
            .due_reviews(0, 0, 10)
            .await
            .unwrap()
            .iter()
            .map(|j| j.round)
            .collect();
        assert_eq!(rounds, [1, 1, 2, 3], "{n}");
        assert_eq!(s.due_reviews(0, 0, 1).await.unwrap().len(), 2, "{n}");
        let y1 = s
            .review_job("y1".into(), "rec".into(), false)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (y1.same, y1.status.as_str(), y1.ahead),
            (true, "waiting", 3),
            "{n}"
        );
        // X's first two claimed by a live process: X's third after Y's first.
        let now = gore_server::domain::now_ms();
        let me = s.origin();
        s.heartbeat(me.clone(), now, vec![], 0).await.unwrap();
        let until = now + 600_000;
        for id in ["x1", "x2"] {
            assert!(s
                .claim_review(id.into(), me.clone(), until, now, now - 5000)
                .await
                .unwrap());
        }
        assert_eq!(due(now).await, ["y1", "x3"], "{n}");
        // Another process cannot take a live claim, nor end it.
        assert!(
            !s.claim_review("x1".into(), "other".into(), until, now, now - 5000)
                .await
                .unwrap(),
            "{n}"
        );
        assert!(
            !s.end_review("x1".into(), "other".into(), "done".into(), None)
                .await
                .unwrap(),
            "{n}"
        );
        // Its holder silent (no heartbeat since `dead_before`): due again, and taken.
        assert_eq!(due_dead(s, now).await, ["x1", "y1", "x2", "x3"], "{n}");
        assert!(
            s.claim_review("x1".into(), "other".into(), until, now, now + 1)
                .await
                .unwrap(),
            "{n}"
        );
        assert!(
            !s.end_review("x1".into(), me.clone(), "done".into(), Some("mine".into()))
                .await
                .unwrap(),
            "{n}"
        );
        assert!(
            s.end_review(
                "x1".into(),
                "other".into(),
                "done".into(),
                Some("{}".into())
            )
            .await
            .unwrap(),
            "{n}"
        );
        let x1 = s
            .review_job("x1".into(), "rec".into(), true)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (x1.status.as_str(), x1.result.as_deref()),
            ("done", Some("{}")),
            "{n}"
        );
        // Ended with this record, asked again with another: it starts again.
        ask("x1", "rec2", "X", 600).await.unwrap();
        let x1 = s
            .review_job("x1".into(), "rec2".into(), true)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (x1.same, x1.status.as_str(), x1.result),
            (true, "waiting", None),
            "{n}"
        );
        // While it waits, another record is not taken: the job says so.
        ask("x1", "rec3", "X", 700).await.unwrap();
        let x1 = s
            .review_job("x1".into(), "rec3".into(), false)
            .await
            .unwrap()
            .unwrap();
        assert!(!x1.same, "{n}");
    }
}

/// The analysis board's jobs (issue 28): capped per address, waiting in
/// order, claimed by one live process, their batches numbered in order for
/// the asking process only and taken once, a stop seen by the holder, the
/// last batch ending the job, a lost asker's jobs forgotten.
#[tokio::test]
async fn board_jobs_are_asked_claimed_batched_and_stopped() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        let job = |id: &str, origin: &str, client: &str| BoardJob {
            id: id.into(),
            origin: origin.into(),
            client: client.into(),
            label: 7,
            rules: "standard".into(),
            gpn: String::new(),
            line: "a1".into(),
            time_ms: 1500,
            nodes: 9_000_000_000,
            round: 0,
        };
        let now = gore_server::domain::now_ms();
        let web = "web-1".to_string();
        s.heartbeat(web.clone(), now, vec![], 0).await.unwrap();
        // X may have 2: its third is refused; Y's is taken.
        for (id, at, ok) in [("b1", 100, true), ("b2", 200, true), ("b3", 300, false)] {
            let asked = s.ask_analysis(job(id, &web, "X"), 2, at).await.unwrap();
            assert_eq!(asked, ok, "{n} {id}");
        }
        assert!(
            s.ask_analysis(job("c1", &web, "Y"), 2, 150).await.unwrap(),
            "{n}"
        );
        let place = |id: &str| s.analysis_waiting(id.into());
        assert_eq!(place("b1").await.unwrap(), Some(0), "{n}");
        assert_eq!(place("c1").await.unwrap(), Some(1), "{n}");
        assert_eq!(place("b2").await.unwrap(), Some(2), "{n}");
        assert_eq!(place("b3").await.unwrap(), None, "{n}");
        // Each address's oldest first; read back whole (the u64s too).
        let due = s.due_analyses(now, now - 5000, 10).await.unwrap();
        let ids: Vec<&str> = due.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["b1", "c1", "b2"], "{n}");
        // Each with its place among its address's (issue 37: the worker
        // orders each round by the addresses' recent search).
        let rounds: Vec<u32> = due.iter().map(|j| j.round).collect();
        assert_eq!(rounds, [1, 1, 2], "{n}");
        let b1 = BoardJob {
            round: 1,
            ..job("b1", &web, "X")
        };
        assert_eq!(due[0], b1, "{n}");
        let firsts: Vec<String> = s
            .due_analyses(now, now - 5000, 1)
            .await
            .unwrap()
            .into_iter()
            .map(|j| j.id)
            .collect();
        assert_eq!(firsts, ["b1", "c1"], "each address's first only: {n}");
        // A worker claims b1; another cannot while it lives.
        let me = "worker-1".to_string();
        s.heartbeat(me.clone(), now, vec![], 0).await.unwrap();
        let claim = |id: &str, who: &str, dead_before: i64| {
            s.claim_analysis(id.into(), who.into(), now + 60_000, now, dead_before)
        };
        assert!(claim("b1", &me, now - 5000).await.unwrap(), "{n}");
        assert!(!claim("b1", "worker-2", now - 5000).await.unwrap(), "{n}");
        assert_eq!(place("b1").await.unwrap(), None, "{n}");
        assert_eq!(place("c1").await.unwrap(), Some(0), "{n}");
        let ids = |v: Vec<BoardJob>| v.into_iter().map(|j| j.id).collect::<Vec<_>>();
        assert_eq!(
            ids(s.due_analyses(now, now - 5000, 10).await.unwrap()),
            ["c1", "b2"],
            "{n}"
        );
        // Batches: only the holder writes; numbered in order.
        let batch = |who: &str, body: Option<&str>, last: bool| {
            s.analysis_batch("b1".into(), who.into(), body.map(Into::into), last)
        };
        assert_eq!(
            batch("worker-2", Some("x"), false).await.unwrap(),
            None,
            "{n}"
        );
        assert_eq!(
            batch(&me, Some("one\ntwo"), false).await.unwrap(),
            Some(false),
            "{n}"
        );
        assert_eq!(batch(&me, None, false).await.unwrap(), Some(false), "{n}");
        assert_eq!(
            batch(&me, Some("three"), false).await.unwrap(),
            Some(false),
            "{n}"
        );
        assert!(
            s.take_analysis_batches("web-2".into())
                .await
                .unwrap()
                .is_empty(),
            "{n}"
        );
        let mut got = s.take_analysis_batches(web.clone()).await.unwrap();
        got.sort_by_key(|b| b.seq);
        let seen: Vec<(i64, &str, bool)> = got
            .iter()
            .map(|b| (b.seq, b.body.as_str(), b.last))
            .collect();
        assert_eq!(seen, [(1, "one\ntwo", false), (2, "three", false)], "{n}");
        assert!(
            s.take_analysis_batches(web.clone())
                .await
                .unwrap()
                .is_empty(),
            "{n}"
        );
        // A stop: a waiting job goes at once; a running one is flagged.
        assert!(s.stop_analysis("b2".into()).await.unwrap(), "{n}");
        assert!(!s.stop_analysis("b1".into()).await.unwrap(), "{n}");
        assert_eq!(batch(&me, None, false).await.unwrap(), Some(true), "{n}");
        // Its last batch ends it: no longer due, nor the holder's.
        assert_eq!(
            batch(&me, Some("done"), true).await.unwrap(),
            Some(true),
            "{n}"
        );
        let last = s.take_analysis_batches(web.clone()).await.unwrap();
        assert_eq!(last.len(), 1, "{n}");
        assert!(last[0].last && last[0].body == "done", "{n}");
        assert_eq!(batch(&me, Some("late"), false).await.unwrap(), None, "{n}");
        assert_eq!(
            ids(s.due_analyses(now, now - 5000, 10).await.unwrap()),
            ["c1"],
            "{n}"
        );
        // Claimed, then its holder silent: due again and taken; given back.
        assert!(claim("c1", &me, now - 5000).await.unwrap(), "{n}");
        assert!(claim("c1", "worker-2", now + 1).await.unwrap(), "{n}");
        s.give_back_analysis("c1".into(), me.clone()).await.unwrap();
        assert_eq!(place("c1").await.unwrap(), None, "{n}");
        s.give_back_analysis("c1".into(), "worker-2".into())
            .await
            .unwrap();
        assert_eq!(place("c1").await.unwrap(), Some(0), "{n}");
        // The asker silent: its jobs are forgotten.
        s.forget_lost_analyses(now - 5000).await.unwrap();
        assert_eq!(place("c1").await.unwrap(), Some(0), "{n}");
        s.forget_lost_analyses(now + 1).await.unwrap();
        assert_eq!(place("c1").await.unwrap(), None, "{n}");
        assert!(
            s.due_analyses(now, now - 5000, 10)
                .await
                .unwrap()
                .is_empty(),
            "{n}"
        );
    }
}

/// The review jobs due at `now` when every holder counts as dead.
async fn due_dead(s: &Arc<dyn Store>, now: i64) -> Vec<String> {
    let v = s.due_reviews(now, now + 1, 10).await.unwrap();
    v.into_iter().map(|j| j.id).collect()
}

fn rating(pace: &str, rating: f64, games: u32) -> StoredRating {
    StoredRating {
        pace: pace.into(),
        rating,
        deviation: 200.0,
        volatility: 0.06,
        games,
    }
}

/// A rated game rated once, each account's update only from the games it
/// had; its history, the leaderboard, and the games left to rate.
#[tokio::test]
async fn ratings_are_applied_once() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        for (session, id, name) in [("s1", "p1", "Ama"), ("s2", "p2", "Kofi")] {
            s.create_session(session.into(), 1).await.unwrap();
            let a = StoredAccount {
                id: id.into(),
                username: name.into(),
                password: "h".into(),
                bot: false,
            };
            let keys = vec![name.to_lowercase()];
            assert!(s
                .create_account(a, keys, session.into(), format!("in-{id}"), 1)
                .await
                .unwrap());
        }
        let mut g = playing("g1", 10);
        g.rated = true;
        g.players = [Some("p1".into()), Some("p2".into())];
        s.create_game(g, None).await.unwrap();
        s.change_game(
            "g1".into(),
            At {
                ply: Ply::ZERO,
                takebacks: 0,
            },
            GameChange::Forfeit {
                forfeit: Forfeit::Resign(Player::B),
                result: Some("24-24".into()),
            },
            20,
        )
        .await
        .unwrap();
        assert_eq!(s.unrated_games(10).await.unwrap(), ["g1"], "{n}");
        let update = |account: &str, before, r| RatingUpdate {
            account: account.into(),
            before,
            after: rating("fast", r, before + 1),
        };
        let updates = vec![update("p1", 0, 1_600.0), update("p2", 0, 1_400.0)];
        assert!(s.rate_game("g1".into(), updates.clone(), 30).await.unwrap());
        assert!(
            !s.rate_game("g1".into(), updates, 31).await.unwrap(),
            "{n}: rated already"
        );
        assert!(
            !s.rate_game("g9".into(), vec![update("p1", 5, 1.0)], 32)
                .await
                .unwrap(),
            "{n}: p1 has played 1, not 5"
        );
        assert!(s.unrated_games(10).await.unwrap().is_empty(), "{n}");
        assert_eq!(
            s.ratings_of("p1".into()).await.unwrap(),
            [rating("fast", 1_600.0, 1)],
            "{n}"
        );
        let h = s.rating_history("p2".into()).await.unwrap();
        assert_eq!(h.len(), 1, "{n}");
        assert_eq!(
            (h[0].game.as_str(), h[0].rating, h[0].at),
            ("g1", 1_400.0, 30)
        );
        let board = s.leaderboard("fast".into(), None, 10).await.unwrap();
        let names: Vec<&str> = board.iter().map(|r| r.username.as_str()).collect();
        assert_eq!(names, ["Ama", "Kofi"], "{n}");
        assert_eq!(board[0].rating, rating("fast", 1_600.0, 1), "{n}");
        assert!(s
            .leaderboard("slow".into(), None, 10)
            .await
            .unwrap()
            .is_empty());
    }
}

/// Chat lines numbered from 1 in order, read after a number, reported
/// once per reporter.
#[tokio::test]
async fn chat_lines_are_numbered() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        s.create_game(playing("g1", 1), None).await.unwrap();
        let first = s
            .post_chat("g1".into(), Player::A, "hello".into(), 10)
            .await
            .unwrap();
        let second = s
            .post_chat("g1".into(), Player::B, "hi".into(), 11)
            .await
            .unwrap();
        assert_eq!((first.n, second.n), (1, 2), "{n}");
        let lines = s.chat_after("g1".into(), 0).await.unwrap();
        assert_eq!(lines, [first, second.clone()], "{n}");
        assert_eq!(s.chat_after("g1".into(), 1).await.unwrap(), [second]);
        s.report_chat("g1".into(), 1, Player::B, 12).await.unwrap();
        s.report_chat("g1".into(), 1, Player::B, 13).await.unwrap();
    }
}

/// Aborts counted once per game; heartbeats and take-overs of games
/// whose server went silent; spectator counts summed over the servers
/// that counted lately.
#[tokio::test]
async fn servers_share_their_games() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        for (game, at) in [("g1", 100), ("g1", 150), ("g2", 200)] {
            s.record_abort("p1".into(), game.into(), at).await.unwrap();
        }
        assert_eq!(s.aborts_since("p1".into(), 0).await.unwrap(), [100, 200]);
        assert_eq!(s.aborts_since("p1".into(), 100).await.unwrap(), [200]);
        s.create_game(playing("g1", 1), None).await.unwrap();
        s.create_game(playing("g2", 1), None).await.unwrap();
        // Server one serves g1 from 1000; it is silent after.
        s.heartbeat("one".into(), 1_000, vec!["g1".into()], 500)
            .await
            .unwrap();
        assert_eq!(
            s.take_over("g1".into(), "two".into(), 900).await.unwrap(),
            None,
            "{n}: one is alive"
        );
        assert_eq!(
            s.take_over("g1".into(), "two".into(), 1_500).await.unwrap(),
            Some(1_000),
            "{n}: one is dead since its last beat"
        );
        assert_eq!(
            s.take_over("g1".into(), "two".into(), 1_500).await.unwrap(),
            None
        );
        assert_eq!(
            s.take_over("g2".into(), "two".into(), 1_500).await.unwrap(),
            None,
            "{n}: nobody served g2: nothing to credit"
        );
        s.set_watchers(
            "one".into(),
            vec![("g1".into(), 2), ("g2".into(), 1)],
            2_000,
        )
        .await
        .unwrap();
        s.set_watchers("two".into(), vec![("g1".into(), 3)], 3_000)
            .await
            .unwrap();
        let mut w = s
            .watchers(vec!["g1".into(), "g2".into(), "g3".into()], 1_000)
            .await
            .unwrap();
        w.sort();
        assert_eq!(w, [("g1".into(), 5), ("g2".into(), 1)], "{n}");
        assert_eq!(
            s.watchers(vec!["g1".into()], 2_500).await.unwrap(),
            [("g1".into(), 3)],
            "{n}: one's counts are stale"
        );
        s.set_watchers("two".into(), vec![], 3_100).await.unwrap();
        assert!(s
            .watchers(vec!["g1".into()], 2_500)
            .await
            .unwrap()
            .is_empty());
        assert_eq!(s.failure(), None, "{n}");
        s.append_action("g1".into(), 0, action(1, "a3", 1), None, None)
            .await
            .unwrap();
        let plies = s
            .latest_plies(vec!["g1".into(), "g2".into()])
            .await
            .unwrap();
        // Every store tells (an AI worker may share even an SQLite file).
        assert_eq!(plies, [("g1".to_string(), Ply::new(1))], "{n}");
        // No AI turn is due in a game between people.
        assert!(!s
            .claim_ai_turn("g1".into(), Ply::new(2), Duration::from_secs(60), 0)
            .await
            .unwrap());
        s.announce_lobby("changed".into());
    }
}

/// A row that does not read names its game (or account) and is an error,
/// in both stores.
#[tokio::test]
async fn damaged_rows_are_errors_that_name_their_row() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        s.create_game(playing("g1", 1), None).await.unwrap();
        let sql = "UPDATE games SET rules = 'no such rules' WHERE id = 'g1'";
        u.raw.exec(sql, sql).await;
        match s.load_game("g1".into()).await {
            Err(StoreError::Damaged { id, why }) => {
                assert_eq!(id, "g1", "{n}");
                assert!(why.contains("rules"), "{n}: {why}");
            }
            other => panic!("{n}: {other:?}"),
        }
        assert!(s.playing_now(10).await.is_err(), "{n}");
        // A rating count below zero.
        s.create_session("s1".into(), 1).await.unwrap();
        let a = StoredAccount {
            id: "p1".into(),
            username: "Ama".into(),
            password: "h".into(),
            bot: false,
        };
        s.create_account(a, vec!["ama".into()], "s1".into(), "in".into(), 1)
            .await
            .unwrap();
        let update = RatingUpdate {
            account: "p1".into(),
            before: 0,
            after: rating("fast", 1_500.0, 1),
        };
        assert!(s.rate_game("g0".into(), vec![update], 2).await.unwrap());
        let sql = "UPDATE ratings SET games = -1";
        u.raw.exec(sql, sql).await;
        match s.ratings_of("p1".into()).await {
            Err(StoreError::Damaged { id, why }) => {
                assert_eq!(id, "p1", "{n}");
                assert!(why.contains("games"), "{n}: {why}");
            }
            other => panic!("{n}: {other:?}"),
        }
        // A chat line of neither player (past the schema's check).
        s.post_chat("g2".into(), Player::A, "hi".into(), 1)
            .await
            .unwrap();
        u.raw
            .exec(
                "ALTER TABLE chat DROP CONSTRAINT chat_player_check;
                 UPDATE chat SET player = 'C'",
                "PRAGMA ignore_check_constraints = ON; UPDATE chat SET player = 'C'",
            )
            .await;
        match s.chat_after("g2".into(), 0).await {
            Err(StoreError::Damaged { id, why }) => {
                assert_eq!(id, "g2", "{n}");
                assert!(why.contains("C"), "{n}: {why}");
            }
            other => panic!("{n}: {other:?}"),
        }
    }
}

/// A game's clock credits read back what they write, and a bad one is
/// named.
#[test]
fn clock_credits_read_what_they_write_and_name_a_bad_one() {
    let credits = vec![(Ply::ZERO, 65_000), (Ply::new(12), 3_500)];
    assert_eq!(credits_text(&credits), "0:65000,12:3500");
    assert_eq!(credits_from_text("0:65000,12:3500"), Ok(credits));
    assert_eq!(credits_from_text(""), Ok(vec![]));
    let e = credits_from_text("0:65000,x:1").unwrap_err();
    assert!(e.contains("`x:1`"), "{e}");
}

// SQLite files made by older servers migrate (PostgreSQL's migration is
// in tests/postgres.rs).

/// Sessions before they were issued (issue 25 item 11): after the
/// migration, logged-in sessions and anonymous players' stay sessions,
/// the seats of the logged-in are their account's; a session whose
/// player became an account but is no longer logged in (logged out),
/// and ids that only held seats, are sessions no more, seats and all.
#[test]
fn sessions_migrate_to_issued_ones_and_account_seats() {
    let step = STEPS
        .iter()
        .position(|s| s.about == "issued sessions and the accounts' seats")
        .unwrap();
    let mut c = rusqlite::Connection::open_in_memory().unwrap();
    for s in &STEPS[..step] {
        c.execute_batch(&s.text(Dialect::Sqlite)).unwrap();
    }
    // Seats of games not made here: their rows are beside the point.
    c.execute_batch(
        "PRAGMA foreign_keys = OFF;
         INSERT INTO accounts VALUES ('acc', 'Koffi', 'h', 1, 1);
         INSERT INTO players VALUES ('signedup', 'acc', 'Koffi', 1, 1);
         INSERT INTO players VALUES ('anon', 'p2', 'Anon', 2, 2);
         INSERT INTO account_sessions VALUES ('in', 'acc', 3);
         INSERT INTO session_seats VALUES ('in', 'g1', 't1');
         INSERT INTO session_seats VALUES ('anon', 'g2', 't2');
         INSERT INTO session_seats VALUES ('signedup', 'g3', 't3');
         INSERT INTO session_seats VALUES ('device', 'g4', 't4')",
    )
    .unwrap();
    let tx = c.transaction().unwrap();
    tx.execute_batch(&STEPS[step].text(Dialect::Sqlite))
        .unwrap();
    tx.commit().unwrap();
    let list = |q: &str| -> Vec<String> {
        c.prepare(q)
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    assert_eq!(list("SELECT id FROM sessions ORDER BY id"), ["anon", "in"]);
    assert_eq!(
        list("SELECT account_id || game_id || token FROM account_seats"),
        ["accg1t1"]
    );
    assert_eq!(
        list("SELECT session || game_id || token FROM session_seats"),
        ["anong2t2"]
    );
}

/// Issue 29, results on player pages: the step that keeps which accounts
/// joined which tournaments fills it from the tournaments' games (each
/// account that played a game of one, once), and from nothing else.
#[test]
fn tournament_players_are_filled_from_the_tournaments_games() {
    let step = STEPS
        .iter()
        .position(|s| s.about == "the tournaments each account joined")
        .unwrap();
    let c = rusqlite::Connection::open_in_memory().unwrap();
    for s in &STEPS[..step] {
        c.execute_batch(&s.text(Dialect::Sqlite)).unwrap();
    }
    c.execute_batch(
        "PRAGMA foreign_keys = OFF;
         INSERT INTO tournaments (id, kind, name, creator, clock, rules, rated, starts_at,
             ends_at, created_at, state, version)
             VALUES ('t1', 'arena', 'Friday', 'ana', '3+2', 'standard', 1, 1, 2, 1, '{}', 1);
         INSERT INTO games (id, mode, rules, start, level, creator, token_a, status,
             created_at, updated_at, player_a, player_b)
             VALUES ('g1', 'friend', 'standard', 's', 1, 'A', 'x', 'over', 1, 1, 'ana', 'bea'),
                    ('g2', 'friend', 'standard', 's', 1, 'A', 'y', 'over', 1, 1, 'bea', 'ana'),
                    ('g3', 'friend', 'standard', 's', 1, 'A', 'z', 'over', 1, 1, 'cai', 'dan');
         INSERT INTO tournament_games VALUES ('t1', 0, 'g1'), ('t1', 1, 'g2')",
    )
    .unwrap();
    c.execute_batch(&STEPS[step].text(Dialect::Sqlite)).unwrap();
    let rows: Vec<String> = c
        .prepare("SELECT tournament_id || ':' || account_id FROM tournament_players ORDER BY 1")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(rows, ["t1:ana", "t1:bea"]);
}

/// A file at schema version 4 (ladder of 8 levels, the perfect player
/// stored as level 9) with a perfect game and a level-5 game: after the
/// migration the first reads as perfect, the second as level 5.
#[tokio::test]
async fn the_old_perfect_level_migrates_and_other_levels_keep_their_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite3");
    let mut c = rusqlite::Connection::open(&path).unwrap();
    for (i, step) in STEPS[..4].iter().enumerate() {
        let tx = c.transaction().unwrap();
        tx.execute_batch(&step.text(Dialect::Sqlite)).unwrap();
        tx.pragma_update(None, "user_version", (i + 1) as i64)
            .unwrap();
        tx.commit().unwrap();
    }
    let rules = Rules::STANDARD;
    let start = Position::new(rules.variant).to_string();
    for (id, level) in [("perfect000", 9), ("level50000", 5), ("level80000", 8)] {
        c.execute(
            "INSERT INTO games (id, mode, rules, start, level, creator, token_a, ai_seat,
                 status, created_at, updated_at)
             VALUES (?1, 'ai', ?2, ?3, ?4, 'A', 'tok', 'B', 'playing', 1, 1)",
            rusqlite::params![id, rules.to_string(), start, level],
        )
        .unwrap();
    }
    drop(c);
    let store = SqliteStore::open(&path, Default::default()).unwrap();
    let read = |id: &str| {
        let f = store.load_game(id.to_string());
        async move { f.await.unwrap().unwrap().info }
    };
    let perfect = read("perfect000").await;
    assert!(perfect.perfect);
    assert_eq!(perfect.level, Level::MAX);
    let five = read("level50000").await;
    assert!(!five.perfect);
    assert_eq!(five.level.get(), 5);
    let eight = read("level80000").await;
    assert!(!eight.perfect);
    assert_eq!(eight.level.get(), 8);
    let c = rusqlite::Connection::open(&path).unwrap();
    let stored: u8 = c
        .query_row("SELECT level FROM games WHERE id = 'perfect000'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(stored, PERFECT_LEVEL);
}

// The statements' rewrite for SQLite, the values both drivers answer, and
// the schema's steps.

/// Placeholders, casts, arrays and row locks each rewritten; the rest
/// (strings, `excluded.`, `||`) left as written.
#[test]
fn statements_are_rewritten_for_sqlite() {
    assert_eq!(
        for_sqlite("SELECT 1 FROM games WHERE id = $1 AND takebacks = $12 FOR UPDATE"),
        "SELECT 1 FROM games WHERE id = ?1 AND takebacks = ?12"
    );
    assert_eq!(
        for_sqlite("SELECT $2::TEXT, $3::BIGINT WHERE ($2::TEXT IS NULL OR id = $2)"),
        "SELECT ?2, ?3 WHERE (?2 IS NULL OR id = ?2)"
    );
    assert_eq!(
        for_sqlite("UPDATE games SET server = $2 WHERE id = ANY($1)"),
        "UPDATE games SET server = ?2 WHERE id IN rarray(?1)"
    );
    assert_eq!(
        for_sqlite("SELECT 'a:b' || x FROM t ON CONFLICT (k) DO UPDATE SET v = excluded.v"),
        "SELECT 'a:b' || x FROM t ON CONFLICT (k) DO UPDATE SET v = excluded.v"
    );
}

#[test]
fn values_read_back_and_refuse_what_does_not_fit() {
    let row = Row::new(
        vec!["n".to_string(), "b".into(), "t".into(), "x".into()].into(),
        vec![Value::Int(-1), Value::Int(1), Value::from("A"), Value::Null],
    );
    assert_eq!(row.get::<i64>("n"), Ok(-1));
    assert!(row.get::<u32>("n").unwrap_err().contains("n: -1"));
    assert_eq!(row.get::<bool>("b"), Ok(true));
    assert_eq!(row.get::<Option<String>>("x"), Ok(None));
    assert!(row.get::<String>("x").is_err());
    assert!(row.get::<i64>("t").is_err());
    assert!(row.get::<i64>("nope").unwrap_err().contains("no column"));
}

/// The step that moved the perfect player's level writes the value the
/// stores read (out of the ladder's range: checked where it is defined).
#[test]
fn the_step_writes_the_perfect_level_the_stores_read() {
    assert_eq!(
        STEPS[4].text(Dialect::Sqlite),
        format!("UPDATE games SET level = {PERFECT_LEVEL} WHERE level = 9")
    );
}

/// A released step runs the SQL it always ran: the text of every step as
/// released, per dialect, is kept in `tests/fixtures/` (a new step is
/// appended there once released; those after the kept ones are unchecked).
#[test]
fn released_steps_run_the_sql_they_always_ran() {
    for (d, file) in [
        (Dialect::Sqlite, "schema-sqlite.sql"),
        (Dialect::Postgres, "schema-postgres.sql"),
    ] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(file);
        let kept = std::fs::read_to_string(&path).unwrap();
        let kept: Vec<&str> = kept.split("-- step ").skip(1).collect();
        assert!(
            !kept.is_empty() && kept.len() <= STEPS.len(),
            "{file}: no steps, or more than the schema's"
        );
        for (i, (text, step)) in kept.iter().zip(STEPS).enumerate() {
            let now = format!("{}: {}\n{}\n", i + 1, step.about, step.text(d));
            assert_eq!(*text, now, "step {} ({d:?}) is not the SQL it was", i + 1);
        }
    }
}

#[test]
fn every_step_has_text_for_both_dialects() {
    for (i, step) in STEPS.iter().enumerate() {
        for d in [Dialect::Sqlite, Dialect::Postgres] {
            let t = step.text(d);
            assert!(!t.trim().is_empty(), "step {} {d:?}", i + 1);
            // PostgreSQL has no WITHOUT ROWID; SQLite's text may.
            if d == Dialect::Postgres {
                assert!(!t.contains("WITHOUT ROWID"), "step {}", i + 1);
            }
        }
    }
}

/// An account `id` named `name`, made from a new anonymous session.
async fn make_account(s: &Arc<dyn Store>, id: &str, name: &str) {
    let from = format!("anon-{id}");
    s.create_session(from.clone(), 1).await.unwrap();
    let p = StoredPlayer {
        id: id.into(),
        name: name.into(),
        account: false,
        bot: false,
    };
    s.create_player(from.clone(), p, 1).await.unwrap();
    let a = StoredAccount {
        id: id.into(),
        username: name.into(),
        password: "h".into(),
        bot: false,
    };
    let key = name.to_lowercase();
    assert!(s
        .create_account(a, vec![key], from, format!("in-{id}"), 2)
        .await
        .unwrap());
}

/// Issue 29: tokens kept by their hash and revoked by their owner only;
/// an account becomes a BOT only without games, for good; a challenge is
/// accepted, declined or cancelled once, its acceptance inserting the game
/// and both accounts' seats in one transaction; the challenges of an
/// account, open or changed since.
#[tokio::test]
async fn tokens_bots_and_challenges() {
    for u in stores().await {
        let (s, n) = (&u.store, u.name);
        make_account(s, "p1", "Robo").await;
        make_account(s, "p2", "Ana").await;
        let t = StoredToken {
            id: "t1".into(),
            hash: "h1".into(),
            account: "p1".into(),
            description: "engine".into(),
            scopes: vec!["bot:play".into(), "read".into()],
            created_at: 5,
        };
        s.create_token(t.clone()).await.unwrap();
        let (got, owner) = s.token_owner("h1".into()).await.unwrap().expect("found");
        assert_eq!(got, t, "{n}");
        assert_eq!((owner.id.as_str(), owner.name.as_str()), ("p1", "Robo"));
        assert!(owner.account && !owner.bot, "{n}");
        assert_eq!(s.token_owner("h2".into()).await.unwrap(), None, "{n}");
        assert_eq!(s.tokens_of("p1".into()).await.unwrap(), vec![t.clone()]);
        assert_eq!(s.revoke_token("p2".into(), "t1".into()).await.unwrap(), 0);
        assert_eq!(s.revoke_token("p1".into(), "t1".into()).await.unwrap(), 1);
        assert_eq!(s.token_owner("h1".into()).await.unwrap(), None, "{n}");

        // A BOT: without games only, and again.
        assert_eq!(s.make_bot("p1".into()).await.unwrap(), 1, "{n}");
        assert_eq!(s.make_bot("p1".into()).await.unwrap(), 1, "{n}");
        let mut g = playing("g1", 10);
        g.players = [Some("p2".into()), Some("pb".into())];
        s.create_game(g, None).await.unwrap();
        assert_eq!(s.make_bot("p2".into()).await.unwrap(), 0, "{n}");
        assert_eq!(s.make_bot("nobody".into()).await.unwrap(), 0, "{n}");
        let robo = s.account_by_key("robo".into()).await.unwrap().unwrap();
        let ana = s.account_by_key("ana".into()).await.unwrap().unwrap();
        assert!(robo.bot && !ana.bot, "{n}");

        // Challenges.
        let c = |id: &str, at: i64| StoredBotChallenge {
            id: id.into(),
            challenger: ("p2".into(), "Ana".into(), false),
            dest: ("p1".into(), "Robo".into(), true),
            rules: Rules::STANDARD,
            clock: Some("5+3".parse().unwrap()),
            colour: Some(Player::A),
            rated: true,
            status: "created".into(),
            reason: None,
            game: None,
            created_at: at,
            updated_at: at,
        };
        s.post_bot_challenge(c("c1", 20)).await.unwrap();
        s.post_bot_challenge(c("c2", 21)).await.unwrap();
        assert_eq!(
            s.bot_challenge("c1".into()).await.unwrap(),
            Some(c("c1", 20))
        );
        assert_eq!(s.bot_challenge("zz".into()).await.unwrap(), None, "{n}");
        assert!(s
            .close_bot_challenge("c1".into(), "declined".into(), Some("later".into()), 30)
            .await
            .unwrap());
        assert!(!s
            .close_bot_challenge("c1".into(), "canceled".into(), None, 31)
            .await
            .unwrap());
        let declined = s.bot_challenge("c1".into()).await.unwrap().unwrap();
        assert_eq!(
            (
                declined.status.as_str(),
                declined.reason.as_deref(),
                declined.updated_at
            ),
            ("declined", Some("later"), 30),
            "{n}"
        );
        let mut game = playing("g2", 40);
        game.players = [Some("p2".into()), Some("p1".into())];
        game.bots = [false, true];
        let seats = vec![("p2".into(), "ta-g2".into()), ("p1".into(), "tb-g2".into())];
        assert!(s
            .accept_bot_challenge("c2".into(), game.clone(), seats.clone(), 40)
            .await
            .unwrap());
        let mut again = game.clone();
        again.id = "g3".into();
        assert!(!s
            .accept_bot_challenge("c2".into(), again, seats, 41)
            .await
            .unwrap());
        assert!(s.load_game("g3".into()).await.unwrap().is_none(), "{n}");
        let stored = s.load_game("g2".into()).await.unwrap().unwrap();
        assert_eq!(stored.info.bots, [false, true], "{n}");
        assert_eq!(
            s.account_seat("p1".into(), "g2".into()).await.unwrap(),
            Some("tb-g2".into())
        );
        assert_eq!(
            s.account_seat("p1".into(), "g1".into()).await.unwrap(),
            None
        );
        // A BOT's seat is never a browser session's.
        assert_eq!(
            s.session_token("in-p1".into(), "g2".into()).await.unwrap(),
            None,
            "{n}"
        );
        assert_eq!(
            s.session_token("in-p2".into(), "g2".into()).await.unwrap(),
            Some("ta-g2".into()),
            "{n}"
        );
        let accepted = s.bot_challenge("c2".into()).await.unwrap().unwrap();
        assert_eq!(accepted.game.as_deref(), Some("g2"), "{n}");
        // Open or changed since 35: c2 only; since 0: both.
        let ids = |v: Vec<StoredBotChallenge>| v.into_iter().map(|c| c.id).collect::<Vec<_>>();
        assert_eq!(
            ids(s.bot_challenges_of("p1".into(), 35).await.unwrap()),
            ["c2"]
        );
        assert_eq!(
            ids(s.bot_challenges_of("p2".into(), 0).await.unwrap()),
            ["c1", "c2"]
        );
        assert!(s
            .bot_challenges_of("pb".into(), 0)
            .await
            .unwrap()
            .is_empty());
    }
}

/// Issue 37: the caps on tournaments not finished, per creator and per
/// address, hold exactly even for creations at the same time (a unique
/// slot each), and a finished tournament frees its places; those the
/// server schedules (no cap) take none.
#[tokio::test(flavor = "multi_thread")]
async fn tournament_caps_hold_for_creations_at_once() {
    use gore_server::store::StoredTournament;
    let t = |id: String, creator: &str, addr: Option<&str>| StoredTournament {
        id,
        kind: "arena".into(),
        name: "t".into(),
        creator: creator.into(),
        creator_addr: addr.map(str::to_string),
        clock: "3+2".parse().unwrap(),
        rules: Rules::STANDARD,
        rated: false,
        starts_at: 1_000,
        ends_at: 601_000,
        finished: false,
        created_at: 1_000,
        state: gore_server::domain::tournaments::ArenaState {
            arena: gore_tournament::arena::Arena::new(gore_tournament::arena::ArenaConfig::new(
                1_000, 601_000,
            )),
            names: Default::default(),
            games: Vec::new(),
            bots: false,
            bot_players: Default::default(),
        }
        .into(),
        version: 1,
    };
    for u in stores().await {
        let s = &u.store;
        // Ten at once, again and again until none is stored (of tries at
        // once for one free slot, one at least is stored and the others
        // refused): what gets in.
        let flood =
            |name: &'static str, creator: fn(u32, u32) -> String, addr: fn(u32) -> String| {
                let s = s.clone();
                async move {
                    let mut stored = 0;
                    for round in 0..10 {
                        let tries = (0..10).map(|n| {
                            let s = s.clone();
                            let t = t(
                                format!("{name}{round}{n:08}"),
                                &creator(round, n),
                                Some(&addr(n)),
                            );
                            async move { s.create_tournament_within(t, 3, 6).await.unwrap() }
                        });
                        let now = futures_util::future::join_all(tries)
                            .await
                            .into_iter()
                            .filter(|&b| b)
                            .count();
                        if now == 0 {
                            break;
                        }
                        stored += now;
                    }
                    stored
                }
            };
        // One creator from ten addresses: three.
        let one_creator = flood("a", |_, _| "ana".into(), |n| format!("10.0.0.{n}")).await;
        assert_eq!(one_creator, 3, "{}", u.name);
        // One address, many creators: six.
        let one_address = flood("b", |r, n| format!("p{r}{n}"), |_| "10.9.9.9".into()).await;
        assert_eq!(one_address, 6, "{}", u.name);
        // Without an address, the creator's cap alone; the scheduled ones
        // (no cap) are not counted.
        s.create_tournament(t("h000000001".into(), "", None))
            .await
            .unwrap();
        for n in 0..3 {
            assert!(
                s.create_tournament_within(t(format!("c{n:09}"), "cai", None), 3, 6)
                    .await
                    .unwrap(),
                "{}",
                u.name
            );
        }
        assert!(!s
            .create_tournament_within(t("c999999999".into(), "cai", None), 3, 6)
            .await
            .unwrap());
        // One of Cai's finished: a place again.
        let first = s.tournament("c000000000".into()).await.unwrap().unwrap();
        assert!(s
            .save_tournament(first.id, 1, first.state, true, vec![], vec![])
            .await
            .unwrap());
        assert!(
            s.create_tournament_within(t("c999999999".into(), "cai", None), 3, 6)
                .await
                .unwrap(),
            "{}",
            u.name
        );
        let running = s.running_tournament_ids(2_000).await.unwrap();
        assert_eq!(running.len(), 3 + 6 + 1 + 3, "{}: {running:?}", u.name);
    }
}
