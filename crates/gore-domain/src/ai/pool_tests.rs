//! The pool's tests (src/ai/pool.rs): its policy, job by job.

use super::*;
use std::net::IpAddr;
use std::sync::mpsc;
use std::time::Duration;

/// Long enough that only a bug (a job that never starts) reaches it.
const PATIENCE: Duration = Duration::from_secs(60);

fn client(n: u8) -> ClientKey {
    ClientKey::ip(IpAddr::from([10, 0, 0, n]))
}

/// A job that reports `name` on `starts` when it starts, then holds its
/// thread until the returned sender is used (or dropped).
fn gated(
    starts: &mpsc::Sender<String>,
    client: ClientKey,
    game: &str,
    cost: u32,
) -> (AiJob<String>, mpsc::Sender<()>) {
    let (open, gate) = mpsc::channel::<()>();
    let starts = starts.clone();
    let name = game.to_string();
    let job = AiJob::new(client, game, cost, move |_stop| {
        starts.send(name.clone()).unwrap();
        let _ = gate.recv();
        name
    });
    (job, open)
}

/// A job that reports `name` when it starts and ends at once.
fn quick(starts: &mpsc::Sender<String>, client: ClientKey, game: &str, cost: u32) -> AiJob<String> {
    let starts = starts.clone();
    let name = game.to_string();
    AiJob::new(client, game, cost, move |_stop| {
        starts.send(name.clone()).unwrap();
        name
    })
}

fn started(starts: &mpsc::Receiver<String>) -> String {
    starts.recv_timeout(PATIENCE).expect("a job started")
}

#[test]
fn a_client_is_an_ipv4_address_or_an_ipv6_slash_64() {
    let ip = |s: &str| ClientKey::ip(s.parse().unwrap());
    assert_eq!(ip("192.0.2.1"), ip("192.0.2.1"));
    assert_ne!(
        ip("192.0.2.1"),
        ip("192.0.2.2"),
        "IPv4: one key per address"
    );
    assert_eq!(
        ip("2001:db8:1:2::1"),
        ip("2001:db8:1:2:ffff:ffff:ffff:fffe"),
        "one /64"
    );
    assert_ne!(ip("2001:db8:1:2::1"), ip("2001:db8:1:3::1"), "another /64");
    assert_eq!(ip("::ffff:192.0.2.1"), ip("192.0.2.1"), "v4-mapped");
    assert_eq!(
        ip("2001:db8:1:2:3:4:5:6"),
        ClientKey::Ip("2001:db8:1:2::".parse().unwrap())
    );
    assert_eq!(ip("2001:db8:1:2::7").to_string(), "2001:db8:1:2::/64");
    assert_ne!(ClientKey::named("10.0.0.1"), client(1));
}

#[tokio::test]
async fn searches_run_on_the_pools_own_threads() {
    let pool = AiPool::new(1, 4, 4, 0).unwrap();
    let name = pool
        .submit(AiJob::new(client(1), "g", 0, |_| {
            std::thread::current().name().map(str::to_string)
        }))
        .unwrap()
        .await
        .unwrap();
    assert_eq!(name.as_deref(), Some("gore-ai-0"));
}

#[tokio::test]
async fn one_job_per_game_until_it_answers() {
    let pool = AiPool::new(2, 4, 4, 10).unwrap();
    let (tx, starts) = mpsc::channel();
    let (job, open) = gated(&tx, client(1), "g", 1);
    let ticket = pool.submit(job).unwrap();
    assert_eq!(started(&starts), "g");
    // Another client, the same game: refused; another game: taken.
    let again = pool.submit(quick(&tx, client(2), "g", 1));
    assert_eq!(again.unwrap_err(), AiBusy::Game);
    assert!(pool.is_thinking("g"));
    open.send(()).unwrap();
    assert_eq!(ticket.await.unwrap(), "g");
    // Freed before the ticket resolved: no race here.
    assert!(!pool.is_thinking("g"));
    let next = pool.submit(quick(&tx, client(2), "g", 1)).unwrap();
    assert_eq!(next.await.unwrap(), "g");
}

#[tokio::test]
async fn a_clients_jobs_beyond_its_running_cap_wait_their_turn() {
    // Two threads, one job running per client, one more waiting.
    let pool = AiPool::with_waiting(2, 4, 1, 1, 10).unwrap();
    let (tx, starts) = mpsc::channel();
    let (a, open_a) = gated(&tx, client(1), "a", 1);
    let a = pool.submit(a).unwrap();
    assert_eq!(started(&starts), "a");
    // The client's second waits, though a thread is free.
    let (b, open_b) = gated(&tx, client(1), "b", 1);
    let mut b = pool.submit(b).unwrap();
    assert_eq!(b.place(), Some(0));
    assert_eq!(pool.stats().running, 1);
    // Its third is refused: two in flight.
    let c = pool.submit(quick(&tx, client(1), "c", 1));
    assert_eq!(c.unwrap_err(), AiBusy::Client { limit: 2 });
    // Another client takes the free thread at once.
    let d = pool.submit(quick(&tx, client(2), "d", 1)).unwrap();
    assert_eq!(started(&starts), "d");
    assert_eq!(d.await.unwrap(), "d");
    // The first ends: the second runs.
    open_a.send(()).unwrap();
    assert_eq!(a.await.unwrap(), "a");
    assert_eq!(started(&starts), "b");
    assert!(!b.withdraw(), "running: not withdrawn");
    open_b.send(()).unwrap();
    assert_eq!((&mut b).await.unwrap(), "b");
    assert_eq!(pool.client_jobs(&client(1)), 0);
}

#[tokio::test]
async fn a_waiting_job_withdrawn_leaves_the_queue_and_frees_its_slots() {
    let pool = AiPool::with_waiting(1, 4, 1, 1, 10).unwrap();
    let (tx, starts) = mpsc::channel();
    let (a, open_a) = gated(&tx, client(1), "a", 1);
    let a = pool.submit(a).unwrap();
    assert_eq!(started(&starts), "a");
    let mut b = pool.submit(quick(&tx, client(1), "b", 1)).unwrap();
    assert!(b.withdraw());
    assert_eq!(pool.stats().waiting, 0);
    assert!(!pool.is_thinking("b"));
    assert_eq!(pool.client_jobs(&client(1)), 1);
    drop(b);
    open_a.send(()).unwrap();
    assert_eq!(a.await.unwrap(), "a");
    assert!(starts.try_recv().is_err(), "b never ran");
}

#[tokio::test]
async fn a_client_has_at_most_its_cap_in_flight() {
    let pool = AiPool::new(1, 8, 2, 10).unwrap();
    let (tx, starts) = mpsc::channel();
    let (a, open_a) = gated(&tx, client(1), "a", 1);
    let a = pool.submit(a).unwrap();
    assert_eq!(started(&starts), "a");
    // One running, one waiting: the client's two.
    let (b, open_b) = gated(&tx, client(1), "b", 1);
    let b = pool.submit(b).unwrap();
    assert_eq!(pool.client_jobs(&client(1)), 2);
    let c = pool.submit(quick(&tx, client(1), "c", 1));
    assert_eq!(c.unwrap_err(), AiBusy::Client { limit: 2 });
    // The same /64 is the same client; another address is not.
    let v6 = |s: &str| ClientKey::ip(s.parse().unwrap());
    let (x1, open_x1) = gated(&tx, v6("2001:db8::1"), "x1", 1);
    let x1 = pool.submit(x1).unwrap();
    let x2 = pool.submit(quick(&tx, v6("2001:db8::2"), "x2", 1)).unwrap();
    let x3 = pool.submit(quick(&tx, v6("2001:db8::3"), "x3", 1));
    assert_eq!(x3.unwrap_err(), AiBusy::Client { limit: 2 });
    let other = pool.submit(quick(&tx, client(2), "d", 1)).unwrap();
    assert_eq!(
        pool.stats(),
        AiStats {
            waiting: 4,
            running: 1,
            running_expensive: 0,
            clients: 3
        }
    );
    open_a.send(()).unwrap();
    assert_eq!(a.await.unwrap(), "a");
    // Client 1 was served (a): the /64, never served and first to
    // come, takes the thread; a's place is free: c is taken.
    assert_eq!(started(&starts), "x1");
    assert_eq!(pool.client_jobs(&client(1)), 1);
    let c = pool.submit(quick(&tx, client(1), "c", 1)).unwrap();
    open_b.send(()).unwrap();
    open_x1.send(()).unwrap();
    assert_eq!(b.await.unwrap(), "b");
    assert_eq!(x1.await.unwrap(), "x1");
    assert_eq!(x2.await.unwrap(), "x2");
    assert_eq!(other.await.unwrap(), "d");
    assert_eq!(c.await.unwrap(), "c");
    let order: Vec<String> = starts.try_iter().collect();
    // One thread, keys in turn after x1: client 2 (never served),
    // client 1 (served before the /64), the /64, client 1 again.
    assert_eq!(order, ["d", "b", "x2", "c"]);
    assert_eq!(pool.stats(), AiStats::default());
}

#[tokio::test]
async fn the_queue_is_bounded() {
    let pool = AiPool::new(1, 2, 10, 10).unwrap();
    let (tx, starts) = mpsc::channel();
    let (blocker, open) = gated(&tx, client(1), "run", 1);
    let blocker = pool.submit(blocker).unwrap();
    assert_eq!(started(&starts), "run");
    let w1 = pool.submit(quick(&tx, client(2), "w1", 1)).unwrap();
    let w2 = pool.submit(quick(&tx, client(3), "w2", 1)).unwrap();
    let full = pool.submit(quick(&tx, client(4), "w3", 1));
    assert_eq!(full.unwrap_err(), AiBusy::Queue { limit: 2 });
    // A cheaper job is refused too: the bound is on the count.
    let cheap = pool.submit(quick(&tx, client(4), "w4", 0));
    assert_eq!(cheap.unwrap_err(), AiBusy::Queue { limit: 2 });
    assert_eq!(pool.stats().waiting, 2);
    assert_eq!(pool.stats().running, 1);
    open.send(()).unwrap();
    blocker.await.unwrap();
    w1.await.unwrap();
    w2.await.unwrap();
    // Refused jobs never ran.
    let order: Vec<String> = starts.try_iter().collect();
    assert_eq!(order, ["w1", "w2"]);
}

/// Issue 37 (Medium 5): with the analysis pool's queue full of the
/// flood's jobs, one per address, an address that searched less than
/// they did takes the place of the most served one's newest job (told
/// `Displaced`), and runs before the rest. By hand: each flooder ran
/// five jobs (a unit each: five units), the innocent one (one unit),
/// the blocker's address one; service fades, so the later flooder
/// has a little more: F2 (charged after F1) is the one displaced, and
/// F3 (charged last, the most served) is refused.
#[tokio::test]
async fn a_full_analysis_queue_gives_a_flooders_place_to_who_searched_less() {
    let pool = AiPool::with_waiting(1, 2, 1, 1, u32::MAX).unwrap();
    let (tx, starts) = mpsc::channel();
    let (innocent, flood) = (client(9), [client(1), client(2), client(3)]);
    let mut n = 0;
    let mut run = |who: &ClientKey| {
        n += 1;
        pool.submit(quick(&tx, who.clone(), &format!("past{n}"), 1))
            .unwrap()
    };
    run(&innocent).await.unwrap();
    for f in &flood {
        for _ in 0..5 {
            run(f).await.unwrap();
        }
    }
    let _ = starts.try_iter().count();
    let (blocker, open) = gated(&tx, client(8), "run", 1);
    let blocker = pool.submit(blocker).unwrap();
    assert_eq!(started(&starts), "run");
    let f1 = pool.submit(quick(&tx, flood[0].clone(), "f1", 1)).unwrap();
    let f2 = pool.submit(quick(&tx, flood[1].clone(), "f2", 1)).unwrap();
    assert_eq!(
        pool.check(&flood[2], 1),
        Err(AiBusy::Queue { limit: 2 }),
        "as served as those waiting: no place for it"
    );
    let f3 = pool.submit(quick(&tx, flood[2].clone(), "f3", 1));
    assert_eq!(f3.unwrap_err(), AiBusy::Queue { limit: 2 });
    assert_eq!(pool.check(&innocent, 1), Ok(()));
    let mine = pool.submit(quick(&tx, innocent.clone(), "i", 1)).unwrap();
    assert_eq!(pool.stats().waiting, 2, "a place changed hands");
    assert_eq!(mine.place(), Some(0), "the innocent next");
    assert_eq!(f2.await, Err(AiGone::Displaced));
    open.send(()).unwrap();
    blocker.await.unwrap();
    assert_eq!(mine.await.as_deref(), Ok("i"));
    assert_eq!(f1.await.as_deref(), Ok("f1"));
    let order: Vec<String> = starts.try_iter().collect();
    assert_eq!(order, ["i", "f1"]);
}

/// Issue 37: a job in slices holds its thread for a slice while only
/// addresses that searched more wait, and gives it, after a slice, to
/// an address that searched less; the rest of it goes first in its own
/// line, before the address that searched more. By hand: the heavy
/// address ran ten jobs (ten units), the long job's five (five, and a
/// unit a slice), the light one's one (one unit).
#[tokio::test]
async fn a_sliced_job_gives_its_thread_to_an_address_that_searched_less() {
    let pool = AiPool::with_waiting(1, 8, 1, 4, u32::MAX).unwrap();
    let (tx, starts) = mpsc::channel();
    let (heavy, light, long) = (client(1), client(2), client(3));
    for (who, n) in [(&heavy, 10), (&long, 5), (&light, 1)] {
        for k in 0..n {
            let job = quick(&tx, who.clone(), &format!("past{k}"), 1);
            pool.submit(job).unwrap().await.unwrap();
        }
    }
    let _ = starts.try_iter().count();
    let (open1, gate1) = mpsc::channel::<()>();
    let (open2, gate2) = mpsc::channel::<()>();
    let said = tx.clone();
    let say = move |s: &str| said.send(s.to_string()).unwrap();
    let job = AiJob::sliced(long.clone(), "long", 1, move |_| {
        say("long-1");
        let _ = gate1.recv();
        Slice::Again(Box::new(move |_| {
            say("long-2");
            let _ = gate2.recv();
            Slice::Again(Box::new(move |_| {
                say("long-3");
                Slice::Done("long")
            }))
        }))
    });
    let long_ticket = pool.submit(job).unwrap();
    assert_eq!(started(&starts), "long-1");
    let h = pool.submit(quick(&tx, heavy.clone(), "heavy", 1)).unwrap();
    open1.send(()).unwrap();
    assert_eq!(started(&starts), "long-2", "the heavy one waits");
    let l = pool.submit(quick(&tx, light.clone(), "light", 1)).unwrap();
    open2.send(()).unwrap();
    assert_eq!(long_ticket.await, Ok("long"));
    assert_eq!(h.await.as_deref(), Ok("heavy"));
    assert_eq!(l.await.as_deref(), Ok("light"));
    let order: Vec<String> = starts.try_iter().collect();
    assert_eq!(order, ["light", "long-3", "heavy"]);
    assert_eq!(pool.stats().clients, 0, "every slot freed");
}

/// A job paused after a slice has started: it does not take a place of
/// the queue's bound, which is for jobs not yet started (twenty
/// addresses' analyses, each paused in turn, filled the queue and shut
/// everyone else out, issue 37). One place: the long job pauses for the
/// light one, and a third address still gets in.
#[tokio::test]
async fn paused_jobs_do_not_fill_the_queue() {
    let pool = AiPool::with_waiting(1, 1, 1, 4, u32::MAX).unwrap();
    let (tx, starts) = mpsc::channel();
    let (light, long) = (client(2), client(3));
    for (who, n) in [(&long, 5), (&light, 1)] {
        for k in 0..n {
            let job = quick(&tx, who.clone(), &format!("past{k}"), 1);
            pool.submit(job).unwrap().await.unwrap();
        }
    }
    let _ = starts.try_iter().count();
    let (open, gate) = mpsc::channel::<()>();
    let said = tx.clone();
    let job = AiJob::sliced(long.clone(), "long", 1, move |_| {
        said.send("long-1".to_string()).unwrap();
        let _ = gate.recv();
        Slice::Again(Box::new(|_| Slice::Done("long")))
    });
    let long_ticket = pool.submit(job).unwrap();
    assert_eq!(started(&starts), "long-1");
    let (held, release) = gated(&tx, light.clone(), "light", 1);
    let light_ticket = pool.submit(held).unwrap();
    open.send(()).unwrap();
    assert_eq!(started(&starts), "light", "the long one paused for it");
    assert_eq!(pool.stats().waiting, 1, "the paused one waits");
    let third = pool.submit(quick(&tx, client(4), "third", 1));
    let third = third.expect("a place for a job not yet started");
    release.send(()).unwrap();
    assert_eq!(light_ticket.await.as_deref(), Ok("light"));
    assert_eq!(third.await.as_deref(), Ok("third"));
    assert_eq!(long_ticket.await, Ok("long"));
}

/// The games' pool never displaces a turn: a game waiting for its AI
/// keeps its place, whoever asks.
#[tokio::test]
async fn the_games_pool_displaces_no_turn() {
    let pool = AiPool::new(1, 1, 1, u32::MAX).unwrap();
    let (tx, starts) = mpsc::channel();
    for k in 0..3 {
        let job = quick(&tx, client(1), &format!("past{k}"), 1);
        pool.submit(job).unwrap().await.unwrap();
    }
    let (blocker, open) = gated(&tx, client(8), "run", 1);
    let blocker = pool.submit(blocker).unwrap();
    let _ = starts.try_iter().count();
    let turn = pool.submit(quick(&tx, client(1), "turn", 1)).unwrap();
    // A fresh address, less served than the turn's: refused all the same.
    let other = pool.submit(quick(&tx, client(2), "other", 1));
    assert_eq!(other.unwrap_err(), AiBusy::Queue { limit: 1 });
    open.send(()).unwrap();
    blocker.await.unwrap();
    assert_eq!(turn.await.as_deref(), Ok("turn"));
}

#[tokio::test]
async fn a_full_queue_still_takes_an_address_with_nothing_waiting() {
    // Two places; one address fills them: another address, with
    // nothing waiting, still gets in (one line more, up to two lines).
    let pool = AiPool::new(1, 2, 10, 10).unwrap();
    let (tx, starts) = mpsc::channel();
    let (blocker, open) = gated(&tx, client(1), "run", 1);
    let blocker = pool.submit(blocker).unwrap();
    assert_eq!(started(&starts), "run");
    let f1 = pool.submit(quick(&tx, client(1), "f1", 1)).unwrap();
    let f2 = pool.submit(quick(&tx, client(1), "f2", 1)).unwrap();
    let f3 = pool.submit(quick(&tx, client(1), "f3", 1));
    assert_eq!(f3.unwrap_err(), AiBusy::Queue { limit: 2 });
    assert_eq!(pool.check(&client(2), 1), Ok(()));
    let innocent = pool.submit(quick(&tx, client(2), "i", 1)).unwrap();
    assert_eq!(pool.stats().waiting, 3);
    // Two addresses wait now: a third is refused, and so is the
    // second's next job (its line is in).
    assert_eq!(pool.check(&client(3), 1), Err(AiBusy::Queue { limit: 2 }));
    let other = pool.submit(quick(&tx, client(3), "o", 1));
    assert_eq!(other.unwrap_err(), AiBusy::Queue { limit: 2 });
    let again = pool.submit(quick(&tx, client(2), "i2", 1));
    assert_eq!(again.unwrap_err(), AiBusy::Queue { limit: 2 });
    open.send(()).unwrap();
    blocker.await.unwrap();
    assert_eq!(innocent.await.unwrap(), "i");
    f1.await.unwrap();
    f2.await.unwrap();
    let order: Vec<String> = starts.try_iter().collect();
    assert_eq!(order, ["i", "f1", "f2"]);
}

#[tokio::test]
async fn check_says_what_submit_would_answer() {
    let pool = AiPool::new(2, 1, 1, 1).unwrap();
    let (tx, starts) = mpsc::channel();
    assert_eq!(pool.check(&client(1), 8), Ok(()));
    let (e1, open) = gated(&tx, client(1), "e1", 8);
    let e1 = pool.submit(e1).unwrap();
    assert_eq!(started(&starts), "e1");
    assert_eq!(pool.check(&client(1), 1), Err(AiBusy::Client { limit: 1 }));
    // The idle thread is the cheap lane: an expensive job would wait.
    assert_eq!(pool.check(&client(2), 8), Ok(()));
    let e2 = pool.submit(quick(&tx, client(2), "e2", 8)).unwrap();
    assert_eq!(pool.check(&client(3), 8), Err(AiBusy::Queue { limit: 1 }));
    // A cheap one still has the free thread.
    assert_eq!(pool.check(&client(3), 1), Ok(()));
    // Checking took nothing.
    assert_eq!(pool.stats().waiting, 1);
    assert_eq!(pool.client_jobs(&client(3)), 0);
    open.send(()).unwrap();
    e1.await.unwrap();
    e2.await.unwrap();
}

#[tokio::test]
async fn with_no_queue_a_job_runs_at_once_or_is_refused() {
    let pool = AiPool::new(2, 0, 10, 1).unwrap();
    let (tx, starts) = mpsc::channel();
    let (e1, open) = gated(&tx, client(1), "e1", 8);
    let e1 = pool.submit(e1).unwrap();
    assert_eq!(started(&starts), "e1");
    // A thread is idle, but it is the cheap lane.
    let e2 = pool.submit(quick(&tx, client(2), "e2", 8));
    assert_eq!(e2.unwrap_err(), AiBusy::Queue { limit: 0 });
    let (c1, open_c1) = gated(&tx, client(3), "c1", 1);
    let c1 = pool.submit(c1).unwrap();
    assert_eq!(started(&starts), "c1");
    let c2 = pool.submit(quick(&tx, client(4), "c2", 1));
    assert_eq!(c2.unwrap_err(), AiBusy::Queue { limit: 0 });
    open.send(()).unwrap();
    open_c1.send(()).unwrap();
    e1.await.unwrap();
    c1.await.unwrap();
}

#[tokio::test]
async fn one_address_is_served_first_come_first_served_whatever_the_cost() {
    let pool = AiPool::new(1, 16, 16, 100).unwrap();
    let (tx, starts) = mpsc::channel();
    let (blocker, open) = gated(&tx, client(1), "blocker", 8);
    let blocker = pool.submit(blocker).unwrap();
    assert_eq!(started(&starts), "blocker");
    let mut tickets = Vec::new();
    for (game, cost) in [
        ("e1", 8),
        ("e2", 8),
        ("c1", 1),
        ("m1", 3),
        ("c2", 1),
        ("e3", 8),
    ] {
        tickets.push(pool.submit(quick(&tx, client(2), game, cost)).unwrap());
    }
    open.send(()).unwrap();
    blocker.await.unwrap();
    for t in tickets {
        t.await.unwrap();
    }
    let order: Vec<String> = starts.try_iter().collect();
    // One client's line: in arrival order (cheapest-first, the old
    // policy, would have run c1, c2, m1 first).
    assert_eq!(order, ["e1", "e2", "c1", "m1", "c2", "e3"]);
}

#[tokio::test]
async fn a_waiting_ticket_knows_its_place() {
    let pool = AiPool::new(1, 16, 16, 100).unwrap();
    let (tx, starts) = mpsc::channel();
    let (blocker, open) = gated(&tx, client(1), "a0", 1);
    let blocker = pool.submit(blocker).unwrap();
    assert_eq!(started(&starts), "a0");
    assert_eq!(blocker.place(), None, "running");
    let a1 = pool.submit(quick(&tx, client(1), "a1", 1)).unwrap();
    let a2 = pool.submit(quick(&tx, client(1), "a2", 1)).unwrap();
    let b1 = pool.submit(quick(&tx, client(2), "b1", 1)).unwrap();
    // A was served (a0 runs): b1 first, then A's line in order.
    assert_eq!(b1.place(), Some(0));
    assert_eq!(a1.place(), Some(1));
    assert_eq!(a2.place(), Some(2));
    drop(a1);
    assert_eq!(a2.place(), Some(1), "a withdrawn job frees its place");
    assert_eq!(b1.place(), Some(0));
    open.send(()).unwrap();
    blocker.await.unwrap();
    assert_eq!(b1.await.unwrap(), "b1");
    assert_eq!(a2.await.unwrap(), "a2");
}

#[tokio::test]
async fn addresses_take_turns_whatever_the_cost() {
    let pool = AiPool::new(1, 16, 16, 100).unwrap();
    let (tx, starts) = mpsc::channel();
    let (blocker, open) = gated(&tx, client(9), "blocker", 8);
    let blocker = pool.submit(blocker).unwrap();
    assert_eq!(started(&starts), "blocker");
    // A floods (cheap jobs), then B asks once (an expensive one).
    let mut tickets = Vec::new();
    for (who, game, cost) in [(1, "a1", 1), (1, "a2", 1), (1, "a3", 1), (2, "b1", 8)] {
        tickets.push(pool.submit(quick(&tx, client(who), game, cost)).unwrap());
    }
    open.send(()).unwrap();
    blocker.await.unwrap();
    for t in tickets {
        t.await.unwrap();
    }
    let order: Vec<String> = starts.try_iter().collect();
    // B waits for one of A's jobs, not for all three.
    assert_eq!(order, ["a1", "b1", "a2", "a3"]);
}

#[tokio::test]
async fn one_thread_is_kept_for_cheap_jobs() {
    let pool = AiPool::new(3, 16, 16, 2).unwrap();
    let (tx, starts) = mpsc::channel();
    let (e1, open_e1) = gated(&tx, client(1), "e1", 8);
    let (e2, open_e2) = gated(&tx, client(2), "e2", 3);
    let e1 = pool.submit(e1).unwrap();
    let e2 = pool.submit(e2).unwrap();
    let mut running = [started(&starts), started(&starts)];
    running.sort();
    assert_eq!(running, ["e1", "e2"]);
    // Two of three threads are expensive: a third expensive job waits
    // though a thread is idle.
    let e3 = pool.submit(quick(&tx, client(3), "e3", 8)).unwrap();
    assert_eq!(pool.stats().waiting, 1);
    assert_eq!(pool.stats().running_expensive, 2);
    // A cheap job takes the idle thread at once, before e3.
    let c1 = pool.submit(quick(&tx, client(4), "c1", 2)).unwrap();
    assert_eq!(c1.await.unwrap(), "c1");
    assert_eq!(started(&starts), "c1");
    // e3 still waits: the lane stays free.
    assert_eq!(pool.stats().waiting, 1);
    let c2 = pool.submit(quick(&tx, client(4), "c2", 0)).unwrap();
    assert_eq!(c2.await.unwrap(), "c2");
    assert_eq!(started(&starts), "c2");
    // An expensive job ends: e3 takes its thread.
    open_e2.send(()).unwrap();
    e2.await.unwrap();
    assert_eq!(e3.await.unwrap(), "e3");
    assert_eq!(started(&starts), "e3");
    open_e1.send(()).unwrap();
    e1.await.unwrap();
    assert_eq!(pool.stats(), AiStats::default());
}

#[tokio::test]
async fn one_thread_runs_expensive_jobs_too() {
    let pool = AiPool::new(1, 0, 4, 0).unwrap();
    let t = pool.submit(AiJob::new(client(1), "g", 8, |_| 8)).unwrap();
    assert_eq!(t.await, Ok(8));
}

#[tokio::test]
async fn a_panic_frees_its_slots_and_keeps_its_thread() {
    let pool = AiPool::new(1, 4, 1, 10).unwrap();
    let boom = pool
        .submit(AiJob::new(client(1), "g", 1, |_| -> u32 {
            panic!("a search that fails")
        }))
        .unwrap();
    assert_eq!(boom.await, Err(AiGone::Stopped));
    assert_eq!(pool.stats(), AiStats::default());
    // The same client (cap 1) and game, on the same single thread.
    let fine = pool.submit(AiJob::new(client(1), "g", 1, |_| 7)).unwrap();
    assert_eq!(fine.await, Ok(7));
    // A panic with a formatted message, then work again.
    let boom = pool
        .submit(AiJob::new(client(1), "g", 1, |_| -> u32 {
            panic!("search {} failed", 2)
        }))
        .unwrap();
    assert_eq!(boom.await, Err(AiGone::Stopped));
    let fine = pool.submit(AiJob::new(client(1), "g", 1, |_| 9)).unwrap();
    assert_eq!(fine.await, Ok(9));
}

#[tokio::test]
async fn a_dropped_waiting_ticket_leaves_the_queue() {
    let pool = AiPool::new(1, 1, 1, 10).unwrap();
    let (tx, starts) = mpsc::channel();
    let (blocker, open) = gated(&tx, client(1), "blocker", 1);
    let blocker = pool.submit(blocker).unwrap();
    assert_eq!(started(&starts), "blocker");
    let w = pool.submit(quick(&tx, client(2), "w", 1)).unwrap();
    assert_eq!(pool.stats().waiting, 1);
    drop(w);
    // Its queue place, game and client are free at once.
    assert_eq!(pool.stats().waiting, 0);
    assert_eq!(pool.client_jobs(&client(2)), 0);
    let w2 = pool.submit(quick(&tx, client(2), "w", 1)).unwrap();
    open.send(()).unwrap();
    blocker.await.unwrap();
    w2.await.unwrap();
    // The withdrawn job never ran; its successor ran once.
    let order: Vec<String> = starts.try_iter().collect();
    assert_eq!(order, ["w"]);
}

#[tokio::test]
async fn a_dropped_running_ticket_stops_its_search() {
    let pool = AiPool::new(1, 4, 4, 10).unwrap();
    let (tx, events) = mpsc::channel::<&str>();
    let ticket = pool
        .submit(AiJob::new(client(1), "g", 1, move |stop: &AtomicBool| {
            tx.send("started").unwrap();
            // A search that ends only when told to.
            while !stop.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            tx.send("stopped").unwrap();
        }))
        .unwrap();
    assert_eq!(events.recv_timeout(PATIENCE), Ok("started"));
    drop(ticket);
    assert_eq!(events.recv_timeout(PATIENCE), Ok("stopped"));
    // The single thread runs the next job only after the stopped one
    // gave its slots back.
    let next = pool.submit(AiJob::new(client(2), "h", 1, |_| 1)).unwrap();
    assert_eq!(next.await, Ok(1));
    assert!(!pool.is_thinking("g"));
    assert_eq!(pool.stats(), AiStats::default());
}

#[tokio::test]
async fn a_stopped_pool_answers_every_ticket() {
    let pool = AiPool::new(1, 4, 4, 10).unwrap();
    let (tx, events) = mpsc::channel::<&str>();
    let running = pool
        .submit(AiJob::new(client(1), "g", 1, move |stop: &AtomicBool| {
            tx.send("started").unwrap();
            while !stop.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            "stopped"
        }))
        .unwrap();
    assert_eq!(events.recv_timeout(PATIENCE), Ok("started"));
    let waiting = pool
        .submit(AiJob::new(client(2), "h", 1, |_| "ran"))
        .unwrap();
    drop(pool);
    assert_eq!(waiting.await, Err(AiGone::Stopped));
    // The running search was told to stop, and still answers.
    assert_eq!(running.await, Ok("stopped"));
}
