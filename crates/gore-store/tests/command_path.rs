//! The domain's one command path (crates/gore-domain, `test-support`),
//! on SQLite in a temporary directory and a manual
//! clock, without the housekeeping tasks (no referee races the test): a
//! stale token is refused before the rule runs, a rule's refusal changes
//! and tells nothing, a command after the deadline ends the game by the
//! clock instead, and a command runs to its end when its caller goes away.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gore_ai::Level;
use gore_core::{Action, Forfeit, Position, Rules};
use tokio::sync::oneshot;

use gore_domain::clock::{Clock, FIRST_ACTION};
use gore_domain::testing::{command, idle, Command, Cx, Steps, Who};
use gore_domain::{
    new_token, Acted, AiRole, Door, GameCommand, GameError, GameSettings, GameState, Games, Mode,
    NewGameSpec, Ply, Seat, SeatGrant, Status,
};
use gore_store::sqlite::{SqliteOptions, SqliteStore};
use gore_store::Store;

/// The state a command answered over HTTP.
fn state(acted: Acted) -> GameState {
    match acted {
        Acted::State(Some(s)) => *s,
        other => panic!("no state: {other:?}"),
    }
}

/// Games on a fresh SQLite file, their clock standing still.
struct Fixture {
    games: Games,
    store: Arc<dyn Store>,
    clock: Clock,
    _dir: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store: Arc<dyn Store> = Arc::new(
        SqliteStore::open(&dir.path().join("games.sqlite3"), SqliteOptions::default())
            .expect("the store opens"),
    );
    let clock = Clock::manual(1_700_000_000_000);
    let settings = GameSettings {
        max_plies: 1000,
        ai_time: Duration::from_millis(50),
        ai_threads: 1,
        ai_queue: 4,
        ai_per_client: 2,
        perfect: Vec::new(),
        oracles: Vec::new(),
        clock: clock.clone(),
        ai_role: AiRole::Serve,
    };
    let games = idle(store.clone(), settings).expect("the games start");
    Fixture {
        games,
        store,
        clock,
        _dir: dir,
    }
}

fn spec(mode: Mode, clock: Option<&str>) -> NewGameSpec {
    let rules = Rules::STANDARD;
    NewGameSpec {
        mode,
        rules,
        start: Position::new(rules.variant),
        level: Level::MIN,
        perfect: false,
        honourable: false,
        colour: Some(gore_core::Player::A),
        clock: clock.map(|c| c.parse().expect("a time control")),
        name: None,
        player: None,
    }
}

/// A timed friend game, its invitation claimed: returns A's and B's
/// grants. A is to make the first action, within [`FIRST_ACTION`].
async fn timed_game(f: &Fixture) -> (SeatGrant, SeatGrant) {
    let a = f
        .games
        .create(spec(Mode::Friend, Some("3+2")), None)
        .await
        .expect("created");
    let code = a.invite.clone().expect("an invitation");
    let b = f
        .games
        .claim_invite(&a.id, &code, None)
        .await
        .expect("claimed");
    (a, b)
}

/// `command` over HTTP for the holder of `token`, its answer dropped.
async fn cmd(
    games: &Games,
    id: &str,
    token: Option<String>,
    command: GameCommand,
) -> Result<(), GameError> {
    games
        .act(id, Door::Http, token, None, command)
        .await
        .map(drop)
}

/// A legal action in the game's current position.
async fn a_legal_action(games: &Games, id: &str) -> Action {
    let room_ref = games.room(id).await.expect("the room");
    let room = room_ref.lock_for_test().await;
    let legal = room.game.legal_actions();
    *legal.iter().next().expect("a legal action at the start")
}

/// A command that only records that its rule (or its answer on time)
/// ran; with `CLOCK`, the path enforces the clock first.
struct Probe<const CLOCK: bool> {
    ran: Arc<AtomicBool>,
    /// An action to commit, and whom to tell once committed.
    play: Option<(Action, oneshot::Sender<()>)>,
}

impl<const CLOCK: bool> Probe<CLOCK> {
    fn new() -> (Probe<CLOCK>, Arc<AtomicBool>) {
        let ran = Arc::new(AtomicBool::new(false));
        let probe = Probe {
            ran: ran.clone(),
            play: None,
        };
        (probe, ran)
    }
}

impl<const CLOCK: bool> Command for Probe<CLOCK> {
    type Done = &'static str;
    const STEPS: Steps = Steps {
        clock: CLOCK,
        ..Steps::SEAT
    };

    fn time_up(self, _cx: &Cx<'_>) -> Result<&'static str, GameError> {
        Ok("time up")
    }

    async fn rule(self, cx: &mut Cx<'_>) -> Result<&'static str, GameError> {
        self.ran.store(true, Ordering::SeqCst);
        if let Some((action, done)) = self.play {
            cx.commit(action).await?;
            let _ = done.send(());
        }
        Ok("rule")
    }
}

/// A token that opens no seat, or none at all, is refused `NoSeat` by the
/// path, and the rule never runs; the seat's own token runs it.
#[tokio::test]
async fn a_stale_token_is_refused_before_the_rule_runs() {
    let f = fixture();
    let a = f
        .games
        .create(spec(Mode::Ai, None), None)
        .await
        .expect("created");
    for token in [Some(new_token()), None, Some(String::new())] {
        let (probe, ran) = Probe::<false>::new();
        let r = command(&f.games, &a.id, Who::Seat(token.clone()), probe).await;
        assert!(matches!(r, Err(GameError::NoSeat)), "{token:?}: {r:?}");
        assert!(!ran.load(Ordering::SeqCst), "{token:?}: the rule ran");
    }
    // A public command too: a stale token resigns nothing.
    let r = cmd(&f.games, &a.id, Some(new_token()), GameCommand::Resign).await;
    assert!(matches!(r, Err(GameError::NoSeat)), "{r:?}");
    let stored = f.store.load_game(a.id.clone()).await.unwrap().unwrap();
    assert_eq!(stored.info.status, Status::Playing);
    assert_eq!(stored.info.forfeit, None);

    let (probe, ran) = Probe::<false>::new();
    let r = command(&f.games, &a.id, Who::Seat(Some(a.token.clone())), probe).await;
    assert_eq!(r.expect("the seat's token"), "rule");
    assert!(ran.load(Ordering::SeqCst));
}

/// Every seated command goes through the path's seat step: with a
/// token that opens no seat each is refused `NoSeat`, and the game, in
/// the store and in memory, is as it was.
#[tokio::test]
async fn every_seated_command_refuses_a_stale_token() {
    let f = fixture();
    let (a, _b) = timed_game(&f).await;
    let before = f.store.load_game(a.id.clone()).await.unwrap().unwrap();
    let id = a.id.as_str();
    let stale = || Some(new_token());
    let action = a_legal_action(&f.games, id).await.to_string();
    let g = &f.games;
    let refusals: Vec<(&str, Result<(), GameError>)> = vec![
        (
            "play",
            g.act(
                id,
                Door::Http,
                stale(),
                None,
                GameCommand::Play {
                    action: action.clone(),
                    ply: None,
                },
            )
            .await
            .map(drop),
        ),
        (
            "play_quietly",
            g.act(
                id,
                Door::Socket,
                stale(),
                None,
                GameCommand::Play { action, ply: None },
            )
            .await
            .map(drop),
        ),
        ("resign", cmd(g, id, stale(), GameCommand::Resign).await),
        ("abort", cmd(g, id, stale(), GameCommand::Abort).await),
        ("claim", cmd(g, id, stale(), GameCommand::Claim).await),
        ("takeback", cmd(g, id, stale(), GameCommand::Takeback).await),
        (
            "answer_takeback",
            cmd(g, id, stale(), GameCommand::TakebackAnswer { accept: true }).await,
        ),
        (
            "chat",
            cmd(
                g,
                id,
                stale(),
                GameCommand::Chat {
                    text: "hello".into(),
                },
            )
            .await,
        ),
        (
            "report_chat",
            cmd(g, id, stale(), GameCommand::ReportChat { n: 1 }).await,
        ),
        (
            "give_time",
            cmd(g, id, stale(), GameCommand::GiveTime).await,
        ),
        ("device_code", g.device_code(id, stale()).await.map(drop)),
        ("revoke_device", g.revoke_device(id, stale()).await),
        ("rematch", g.rematch(id, stale(), None).await.map(drop)),
    ];
    for (name, r) in refusals {
        assert!(matches!(r, Err(GameError::NoSeat)), "{name}: {r:?}");
    }
    let after = f.store.load_game(a.id.clone()).await.unwrap().unwrap();
    assert_eq!(after.info, before.info);
    assert!(after.actions.is_empty());
    let room_ref = f.games.room(id).await.unwrap();
    let room = room_ref.lock_for_test().await;
    assert_eq!(room.info, before.info);
}

/// Commands refused by their rule (an action that does not parse, a
/// takeback with nothing to take back, an answer to no request, an abort
/// of a game on one device) leave the store and the room as they were and
/// send the sockets nothing.
#[tokio::test]
async fn a_refused_rule_changes_and_publishes_nothing() {
    let f = fixture();
    let g = f
        .games
        .create(spec(Mode::Local, None), None)
        .await
        .expect("created");
    assert_eq!(g.seat, Seat::Both);
    let room_ref = f.games.room(&g.id).await.unwrap();
    let (mut rx, serial) = {
        let room = room_ref.lock_for_test().await;
        (room.subscribe(), room.serial())
    };
    let token = || Some(g.token.clone());
    let r = cmd(
        &f.games,
        &g.id,
        token(),
        GameCommand::Play {
            action: "not an action".into(),
            ply: None,
        },
    )
    .await;
    assert!(matches!(r, Err(GameError::BadAction(_))), "{r:?}");
    let r = cmd(&f.games, &g.id, token(), GameCommand::Takeback).await;
    assert!(matches!(r, Err(GameError::Refused(_))), "{r:?}");
    let r = cmd(
        &f.games,
        &g.id,
        token(),
        GameCommand::TakebackAnswer { accept: true },
    )
    .await;
    assert!(matches!(r, Err(GameError::Refused(_))), "{r:?}");
    let r = cmd(&f.games, &g.id, token(), GameCommand::Abort).await;
    assert!(matches!(r, Err(GameError::Refused(_))), "{r:?}");

    assert!(
        matches!(
            rx.try_recv(),
            Err(tokio::sync::broadcast::error::TryRecvError::Empty)
        ),
        "nothing was sent"
    );
    {
        let room = room_ref.lock_for_test().await;
        assert_eq!(room.serial(), serial);
        assert_eq!(room.ply(), Ply::ZERO);
        assert_eq!(room.info.status, Status::Playing);
        assert_eq!(room.info.forfeit, None);
    }
    let stored = f.store.load_game(g.id.clone()).await.unwrap().unwrap();
    assert!(stored.actions.is_empty());
    assert_eq!(stored.info.status, Status::Playing);
    assert_eq!(stored.info.forfeit, None);

    // The same path does send a command its rule accepts.
    let action = a_legal_action(&f.games, &g.id).await;
    f.games
        .act(
            &g.id,
            Door::Socket,
            token(),
            None,
            GameCommand::Play {
                action: action.to_string(),
                ply: Some(Ply::ZERO),
            },
        )
        .await
        .expect("a legal action");
    let change = rx.try_recv().expect("the action was sent");
    assert_eq!((change.since, change.ply), (Ply::ZERO, Ply::new(1)));
}

/// Past the first action's deadline, a command with the clock step finds
/// the game ended by the clock (an abort: the first action never came)
/// and is answered on time, its rule never run; a resignation then is the
/// clock's abort, not a resignation; an action is refused as too late.
#[tokio::test]
async fn a_command_after_the_deadline_ends_the_game_by_the_clock_instead() {
    let f = fixture();
    let late = FIRST_ACTION + Duration::from_secs(1);

    let (a, _b) = timed_game(&f).await;
    f.clock.advance(late);
    let (probe, ran) = Probe::<true>::new();
    let r = command(&f.games, &a.id, Who::Seat(Some(a.token.clone())), probe).await;
    assert_eq!(r.expect("answered"), "time up");
    assert!(
        !ran.load(Ordering::SeqCst),
        "the rule ran after the deadline"
    );
    let stored = f.store.load_game(a.id.clone()).await.unwrap().unwrap();
    assert_eq!(stored.info.status, Status::Over);
    assert_eq!(stored.info.forfeit, Some(Forfeit::Abort));

    // Without the clock step the rule runs (on the game as it stands).
    let (a, _b) = timed_game(&f).await;
    f.clock.advance(late);
    let (probe, ran) = Probe::<false>::new();
    let r = command(&f.games, &a.id, Who::Seat(Some(a.token.clone())), probe).await;
    assert_eq!(r.expect("answered"), "rule");
    assert!(ran.load(Ordering::SeqCst));

    let (a, _b) = timed_game(&f).await;
    f.clock.advance(late);
    let view = state(
        f.games
            .act(
                &a.id,
                Door::Http,
                Some(a.token.clone()),
                None,
                GameCommand::Resign,
            )
            .await
            .expect("answered with the state"),
    );
    assert_eq!(view.you, Some(Seat::A));
    let stored = f.store.load_game(a.id.clone()).await.unwrap().unwrap();
    assert_eq!(
        stored.info.forfeit,
        Some(Forfeit::Abort),
        "not a resignation"
    );

    let (a, _b) = timed_game(&f).await;
    let action = a_legal_action(&f.games, &a.id).await;
    f.clock.advance(late);
    let r = cmd(
        &f.games,
        &a.id,
        Some(a.token.clone()),
        GameCommand::Play {
            action: action.to_string(),
            ply: None,
        },
    )
    .await;
    assert!(
        matches!(r, Err(GameError::Refused(ref why)) if why.text.contains("time is up")),
        "{r:?}"
    );
    let stored = f.store.load_game(a.id.clone()).await.unwrap().unwrap();
    assert!(stored.actions.is_empty(), "the late action was not stored");
    assert_eq!(stored.info.forfeit, Some(Forfeit::Abort));
}

/// A caller that goes away (its request's future dropped) while the room
/// is busy does not cut its command: the command runs, commits and is
/// told it did, after the caller is gone.
#[tokio::test]
async fn a_command_runs_to_its_end_when_its_caller_goes_away() {
    let f = fixture();
    let g = f
        .games
        .create(spec(Mode::Local, None), None)
        .await
        .expect("created");
    let action = a_legal_action(&f.games, &g.id).await;
    let room_ref = f.games.room(&g.id).await.unwrap();
    let (told, committed) = oneshot::channel();
    let probe = Probe::<false> {
        ran: Arc::new(AtomicBool::new(false)),
        play: Some((action, told)),
    };
    {
        // The room is busy: the command waits for its lock.
        let busy = room_ref.lock_for_test().await;
        let mut caller = Box::pin(command(
            &f.games,
            &g.id,
            Who::Seat(Some(g.token.clone())),
            probe,
        ));
        let polled = tokio::time::timeout(Duration::ZERO, &mut caller).await;
        assert!(polled.is_err(), "the command cannot have run yet");
        drop(caller);
        assert_eq!(busy.ply(), Ply::ZERO);
    }
    committed.await.expect("the command ran to its end");
    let stored = f.store.load_game(g.id.clone()).await.unwrap().unwrap();
    assert_eq!(stored.actions.len(), 1);
    assert_eq!(room_ref.lock_for_test().await.ply(), Ply::new(1));
}
