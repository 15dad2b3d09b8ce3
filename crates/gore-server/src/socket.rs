//! The socket loop the game, lobby and analysis sockets share: the first
//! messages, pings, the idle and silence timeouts, the size and rate
//! limits of a client's messages, the count of bad ones (five close the
//! socket), writes that must end within the idle timeout, and the close
//! frames. Written once here; each kind of socket ([`crate::ws`],
//! [`crate::lobby_ws`], [`crate::analysis_ws`]) is a [`Kind`] that reads
//! and answers its own messages and events, and this loop never looks
//! inside them.
//!
//! The loop runs over any stream and sink of [`Message`]s (a split
//! [`axum::extract::ws::WebSocket`] in the server, channels in the tests).
//! The upgrade's limits ([`limited`]) and the count of open sockets
//! ([`socket_slot`]) are here too, for the three kinds' routes.

use std::future::Future;
use std::net::IpAddr;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocketUpgrade};
use futures_util::{Sink, SinkExt, Stream, StreamExt};

use crate::error::ApiError;
use crate::limit::RateLimiter;
use crate::state::{AppState, SocketSlot, SocketsFull};

/// Larger frames are not even read: the socket is dropped.
pub const HARD_LIMIT: usize = 64 * 1024;
/// The socket's read buffer (a client's messages are 4 KiB at most).
pub const READ_BUFFER: usize = 4 * 1024;
/// Written at once beyond this (the states are sent whole).
pub const WRITE_BUFFER: usize = 4 * 1024;
/// A message waiting to be written, at most (a 2,000-ply state is a few
/// hundred KiB).
pub const MAX_WRITE_BUFFER: usize = 8 * 1024 * 1024;
/// Bad or rate-limited messages before the socket is closed.
pub const ABUSE_LIMIT: u32 = 5;
/// The server pings this often at most (and at half the idle timeout).
const PING_EVERY: Duration = Duration::from_secs(30);
/// A close frame waits this long at most for a client that reads nothing.
const CLOSE_WITHIN: Duration = Duration::from_secs(1);

/// What differs between the kinds in how the loop treats a client's frames.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// The largest text message a client may send.
    pub message_limit: usize,
    /// Whether a binary frame over `message_limit` is answered `too_large`
    /// (else every binary frame is `bad_request`).
    pub binary_too_large: bool,
    /// Whether ping and pong frames take a token from the address's rate
    /// limiter (tungstenite answers pings itself, so a flood of them costs
    /// like messages do), an empty bucket counting as abuse.
    pub count_control_frames: bool,
}

/// How a kind's step ends the socket.
#[derive(Debug, Clone)]
pub enum End {
    /// Closed without a close frame.
    Quietly,
    /// Closed with this frame.
    With(CloseFrame),
}

/// What one event or message makes the socket do: send `send` in order,
/// count one bad message if `abuse`, then close if `end` says so.
#[derive(Debug, Default)]
pub struct Reply {
    /// Sent in order, each within the idle timeout.
    pub send: Vec<Message>,
    /// The message was bad or over a budget: counted towards
    /// [`ABUSE_LIMIT`].
    pub abuse: bool,
    /// Close the socket after `send`.
    pub end: Option<End>,
}

impl Reply {
    /// Nothing to send.
    pub fn none() -> Reply {
        Reply::default()
    }

    /// Sends `messages`.
    pub fn send(messages: impl IntoIterator<Item = Message>) -> Reply {
        Reply {
            send: messages.into_iter().collect(),
            ..Reply::default()
        }
    }

    /// Sends `message`, a refusal counted as abuse when `abuse`.
    pub fn refused(message: Message, abuse: bool) -> Reply {
        Reply {
            send: vec![message],
            abuse,
            end: None,
        }
    }

    /// Closes the socket (`frame`: with that close frame).
    pub fn close(frame: Option<CloseFrame>) -> Reply {
        Reply {
            end: Some(frame.map_or(End::Quietly, End::With)),
            ..Reply::default()
        }
    }
}

/// One kind of socket: its first messages, its own events (a game's
/// changes, the lobby's, an analysis's findings), and its client's
/// messages once the loop has checked their size and rate.
pub trait Kind: Send {
    /// What the kind's own sources deliver.
    type Event: Send;
    /// A client's message, read.
    type In: Send;

    /// How the loop treats this kind's frames.
    const POLICY: Policy;

    /// The kind, as the metrics count open sockets.
    const METRIC: crate::metrics::SocketKind;

    /// The messages sent first; the socket closes if one is not read
    /// within the idle timeout.
    fn hello(&mut self) -> impl Future<Output = Vec<Message>> + Send;

    /// Called once the hello was sent, before the first event or message.
    fn opened(&mut self) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// The next event of the kind's sources. It races the client's
    /// messages and the timers, so it must be cancel-safe (a channel's
    /// `recv`, a ticket polled by reference); pending forever when there
    /// is none.
    fn next_event(&mut self) -> impl Future<Output = Self::Event> + Send;

    /// What `event` makes the socket do.
    fn on_event(&mut self, event: Self::Event) -> impl Future<Output = Reply> + Send;

    /// Called at each text message before it is read: `Err` closes the
    /// socket with that frame (the lobby's session ended).
    fn admit(&mut self) -> impl Future<Output = Result<(), CloseFrame>> + Send {
        async { Ok(()) }
    }

    /// Reads a text message (within the size limit, the rate allowed);
    /// an error is answered and counted as abuse.
    fn parse(&self, text: &str) -> Result<Self::In, ApiError>;

    /// What a message makes the socket do.
    fn on_message(&mut self, msg: Self::In) -> impl Future<Output = Reply> + Send;

    /// An error, as this kind's message to its client.
    fn error(&self, error: ApiError) -> Message;

    /// Called once the socket is done, whichever way it ended (after
    /// [`Kind::opened`] or not).
    fn closed(self) -> impl Future<Output = ()> + Send;
}

/// The loop's settings for one socket.
pub struct Setup<'a> {
    /// A client that sends nothing (not even a pong) for this long, or
    /// reads nothing, is gone: the socket is closed (`1001 idle`).
    pub idle: Duration,
    /// A client that sends no text message for this long is closed
    /// (`1001 silent`): pongs prove a client is there, not that it uses
    /// the socket.
    pub silence: Duration,
    /// The client's address, whose bucket the messages take tokens from
    /// (unknown: not limited).
    pub ip: Option<IpAddr>,
    /// The per-address rate limiter.
    pub limiter: &'a RateLimiter,
    /// The server's time, which the limiter's buckets refill by.
    pub clock: &'a crate::domain::clock::Clock,
    /// Where open sockets are counted.
    pub metrics: &'a crate::metrics::Metrics,
    /// Turns `true` when the server drains: the socket is closed with
    /// [`DRAINING`], and its page reconnects (to another server).
    pub drain: tokio::sync::watch::Receiver<bool>,
}

/// The close frame of a socket whose server is stopping: `1012` (service
/// restart), which the web app answers by reconnecting.
pub const DRAINING: (u16, &str) = (1012, "draining: reconnect to another server");

impl<'a> Setup<'a> {
    /// The server's settings ([`crate::Config::ws_idle_timeout`],
    /// [`crate::Config::ws_silence_timeout`], 10 ms at least) for a client
    /// at `ip`.
    pub fn of(state: &'a AppState, ip: Option<IpAddr>) -> Setup<'a> {
        let config = state.config();
        Setup {
            idle: config.ws_idle_timeout.max(Duration::from_millis(10)),
            silence: config.ws_silence_timeout.max(Duration::from_millis(10)),
            ip,
            limiter: state.limiter(),
            clock: &config.clock,
            metrics: state.metrics(),
            drain: state.drain_watch(),
        }
    }
}

/// Serves one socket of kind `kind` until it closes: the hello, then the
/// kind's events and the client's messages as they come.
pub async fn run<K, Tx, Rx, E>(mut kind: K, mut tx: Tx, mut rx: Rx, setup: Setup<'_>)
where
    K: Kind,
    Tx: Sink<Message> + Unpin,
    Rx: Stream<Item = Result<Message, E>> + Unpin,
{
    let _open = setup.metrics.socket_opened(K::METRIC);
    let mut sent = true;
    for m in kind.hello().await {
        if !send_within(&mut tx, setup.idle, m).await {
            sent = false;
            break;
        }
    }
    if sent {
        kind.opened().await;
        serve(&mut kind, &mut tx, &mut rx, &setup).await;
    }
    kind.closed().await;
}

/// What woke the loop.
enum Step<Ev> {
    Event(Ev),
    Incoming(Option<Result<Message, ()>>),
    Drain,
    Silent,
    Idle,
    Ping,
}

async fn serve<K, Tx, Rx, E>(kind: &mut K, tx: &mut Tx, rx: &mut Rx, setup: &Setup<'_>)
where
    K: Kind,
    Tx: Sink<Message> + Unpin,
    Rx: Stream<Item = Result<Message, E>> + Unpin,
{
    let idle = setup.idle;
    let mut abuse = 0u32;
    let mut ping = tokio::time::interval(PING_EVERY.min(idle / 2));
    ping.tick().await;
    let silence = tokio::time::sleep(idle);
    tokio::pin!(silence);
    let quiet = tokio::time::sleep(setup.silence);
    tokio::pin!(quiet);
    let mut drain = setup.drain.clone();
    loop {
        let step = tokio::select! {
            ev = kind.next_event() => Step::Event(ev),
            // At once when the server already drains; with the state gone
            // (an error), the branch is off.
            Ok(_) = drain.wait_for(|d| *d) => Step::Drain,
            () = &mut quiet => Step::Silent,
            () = &mut silence => Step::Idle,
            incoming = rx.next() => Step::Incoming(incoming.map(|r| r.map_err(|_| ()))),
            _ = ping.tick() => Step::Ping,
        };
        let reply = match step {
            Step::Event(ev) => kind.on_event(ev).await,
            Step::Drain => Reply::close(Some(frame(DRAINING.0, DRAINING.1))),
            Step::Silent => Reply::close(Some(frame(1001, "silent"))),
            Step::Idle => Reply::close(Some(frame(1001, "idle"))),
            Step::Ping => Reply::send([Message::Ping(Default::default())]),
            Step::Incoming(incoming) => {
                let now = tokio::time::Instant::now();
                silence.as_mut().reset(now + idle);
                if matches!(incoming, Some(Ok(Message::Text(_)))) {
                    quiet.as_mut().reset(now + setup.silence);
                }
                match incoming {
                    None | Some(Err(())) | Some(Ok(Message::Close(_))) => break,
                    Some(Ok(Message::Text(t))) => match kind.admit().await {
                        Err(close) => Reply::close(Some(close)),
                        Ok(()) => match read(kind, setup, t.as_str()) {
                            Ok(msg) => kind.on_message(msg).await,
                            Err(e) => Reply::refused(kind.error(e), true),
                        },
                    },
                    Some(Ok(Message::Binary(b))) => {
                        let e = if K::POLICY.binary_too_large && b.len() > K::POLICY.message_limit {
                            ApiError::too_large("the message", K::POLICY.message_limit)
                        } else {
                            ApiError::bad_request("message: send JSON text, not binary")
                        };
                        Reply::refused(kind.error(e), true)
                    }
                    Some(Ok(_)) => Reply {
                        abuse: K::POLICY.count_control_frames && !allowed(setup),
                        ..Reply::none()
                    },
                }
            }
        };
        for m in reply.send {
            if !send_within(tx, idle, m).await {
                return;
            }
        }
        match reply.end {
            Some(End::Quietly) => return,
            Some(End::With(f)) => return close(tx, f).await,
            None => {}
        }
        abuse += u32::from(reply.abuse);
        if abuse >= ABUSE_LIMIT {
            return close(tx, frame(1008, "too many bad or rate-limited messages")).await;
        }
    }
}

/// A text message within the size limit, from an address within its rate,
/// read by its kind.
fn read<K: Kind>(kind: &K, setup: &Setup<'_>, text: &str) -> Result<K::In, ApiError> {
    let limit = K::POLICY.message_limit;
    if text.len() > limit {
        return Err(ApiError::too_large("the message", limit));
    }
    // Counts as abuse: a client that keeps sending while refused is
    // closed like one that sends garbage.
    if !allowed(setup) {
        return Err(ApiError::rate_limited());
    }
    kind.parse(text)
}

/// Whether the client's address may send one more (always, unknown).
fn allowed(setup: &Setup<'_>) -> bool {
    setup
        .ip
        .is_none_or(|ip| setup.limiter.allow_at(ip, setup.clock.instant()))
}

/// A close frame.
pub fn frame(code: u16, reason: &str) -> CloseFrame {
    CloseFrame {
        code,
        reason: reason.into(),
    }
}

/// Sends close frame `f`, waiting [`CLOSE_WITHIN`] at most.
async fn close<Tx: Sink<Message> + Unpin>(tx: &mut Tx, f: CloseFrame) {
    let _ = tokio::time::timeout(CLOSE_WITHIN, tx.send(Message::Close(Some(f)))).await;
}

/// Sends `m` unless the client reads nothing for `idle`; whether it went.
async fn send_within<Tx: Sink<Message> + Unpin>(tx: &mut Tx, idle: Duration, m: Message) -> bool {
    matches!(tokio::time::timeout(idle, tx.send(m)).await, Ok(Ok(())))
}

/// A socket's place among its address's and the server's (`busy` when
/// either has as many open sockets as it may); none when the address is
/// unknown.
pub fn socket_slot(state: &AppState, ip: Option<IpAddr>) -> Result<Option<SocketSlot>, ApiError> {
    if state.is_draining() {
        return Err(ApiError::new(
            crate::error::ErrorCode::Draining,
            "this server is stopping; try again in a moment",
        ));
    }
    ip.map(|ip| {
        state.socket_slot(ip).map_err(|full| {
            ApiError::busy(match full {
                SocketsFull::Address => {
                    "too many open sockets from your address; close some games or tabs"
                }
                SocketsFull::Server => {
                    "the server has as many open sockets as it can take; try again later"
                }
            })
        })
    })
    .transpose()
}

/// Every socket's limits: larger frames are not read, and the buffers are
/// small because an idle socket holds them all its life (tungstenite's
/// defaults are 128 KiB each; docs/BENCHMARKS.md).
pub fn limited(upgrade: WebSocketUpgrade) -> WebSocketUpgrade {
    upgrade
        .max_message_size(HARD_LIMIT)
        .max_frame_size(HARD_LIMIT)
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_write_buffer_size(MAX_WRITE_BUFFER)
}

#[cfg(test)]
mod tests {
    //! The loop with a fake kind over channels: what a client sees.
    use std::net::Ipv4Addr;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Instant;

    use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

    use super::*;

    /// Echoes `{…}` messages and sends its events; `None` as an event
    /// ends it (`1012 gone`).
    struct Echo {
        events: UnboundedReceiver<Option<String>>,
        opened: Arc<AtomicBool>,
        closed: Arc<AtomicBool>,
    }

    impl Kind for Echo {
        type Event = Option<Option<String>>;
        type In = String;

        const METRIC: crate::metrics::SocketKind = crate::metrics::SocketKind::Game;
        const POLICY: Policy = Policy {
            message_limit: 16,
            binary_too_large: true,
            count_control_frames: true,
        };

        async fn hello(&mut self) -> Vec<Message> {
            vec![Message::Text("hello".into())]
        }

        async fn opened(&mut self) {
            self.opened.store(true, Ordering::SeqCst);
        }

        async fn next_event(&mut self) -> Self::Event {
            self.events.recv().await
        }

        async fn on_event(&mut self, event: Self::Event) -> Reply {
            match event.flatten() {
                Some(s) => Reply::send([Message::Text(s.into())]),
                None => Reply::close(Some(frame(1012, "gone"))),
            }
        }

        fn parse(&self, text: &str) -> Result<String, ApiError> {
            match text.starts_with('{') {
                true => Ok(text.to_string()),
                false => Err(ApiError::bad_request("not an object")),
            }
        }

        async fn on_message(&mut self, msg: String) -> Reply {
            Reply::send([Message::Text(format!("echo {msg}").into())])
        }

        fn error(&self, error: ApiError) -> Message {
            Message::Text(format!("error {:?}", error.code).into())
        }

        async fn closed(self) {
            self.closed.store(true, Ordering::SeqCst);
        }
    }

    /// The client's side of a socket served by the loop.
    struct Client {
        to_server: UnboundedSender<Result<Message, ()>>,
        from_server: UnboundedReceiver<Message>,
        events: UnboundedSender<Option<String>>,
        opened: Arc<AtomicBool>,
        closed: Arc<AtomicBool>,
        served: tokio::task::JoinHandle<()>,
    }

    impl Client {
        fn send(&self, m: Message) {
            self.to_server.send(Ok(m)).expect("the loop reads");
        }

        fn text(&self, t: &str) {
            self.send(Message::Text(t.into()));
        }

        /// The next message from the server (a generous bound: the
        /// loop answers at once, or at its timeout).
        async fn next(&mut self) -> Message {
            tokio::time::timeout(Duration::from_secs(30), self.from_server.recv())
                .await
                .expect("the server answers")
                .expect("the server is still there")
        }

        async fn next_text(&mut self) -> String {
            match self.next().await {
                Message::Text(t) => t.to_string(),
                other => panic!("expected a text, got {other:?}"),
            }
        }

        /// The close frame (after how many pings), then the loop's end
        /// (`closed` called).
        async fn closed_with(mut self, code: u16, reason: &str) -> usize {
            let mut pings = 0;
            loop {
                match self.next().await {
                    Message::Ping(_) => pings += 1,
                    Message::Close(Some(f)) => {
                        assert_eq!((f.code, f.reason.as_str()), (code, reason));
                        break;
                    }
                    other => panic!("expected a close frame, got {other:?}"),
                }
            }
            tokio::time::timeout(Duration::from_secs(30), self.served)
                .await
                .expect("the loop ends")
                .expect("the loop did not panic");
            assert!(self.closed.load(Ordering::SeqCst));
            pings
        }
    }

    const IP: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 7));

    /// Serves an [`Echo`] socket with `idle` and `silence`, from [`IP`]
    /// counted by `limiter`.
    fn serve_echo(idle: Duration, silence: Duration, limiter: Arc<RateLimiter>) -> Client {
        let (to_server, rx) = unbounded_channel::<Result<Message, ()>>();
        let (tx, from_server) = unbounded_channel::<Message>();
        let (events, events_rx) = unbounded_channel();
        let opened = Arc::new(AtomicBool::new(false));
        let closed = Arc::new(AtomicBool::new(false));
        let kind = Echo {
            events: events_rx,
            opened: opened.clone(),
            closed: closed.clone(),
        };
        let rx = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|m| (m, rx))
        }));
        let tx = Box::pin(futures_util::sink::unfold(
            tx,
            |tx, m: Message| async move { tx.send(m).map(|()| tx) },
        ));
        let served = tokio::spawn(async move {
            let metrics = crate::metrics::Metrics::new();
            let clock = crate::domain::clock::Clock::system();
            let (_drain, drain_rx) = tokio::sync::watch::channel(false);
            let setup = Setup {
                idle,
                silence,
                ip: Some(IP),
                limiter: &limiter,
                clock: &clock,
                metrics: &metrics,
                drain: drain_rx,
            };
            run(kind, tx, rx, setup).await;
        });
        Client {
            to_server,
            from_server,
            events,
            opened,
            closed,
            served,
        }
    }

    const LONG: Duration = Duration::from_secs(600);

    #[tokio::test]
    async fn a_silent_client_is_closed_after_the_silence_timeout() {
        let mut c = serve_echo(
            LONG,
            Duration::from_millis(50),
            Arc::new(RateLimiter::new(0)),
        );
        assert_eq!(c.next_text().await, "hello");
        // Pongs do not count as speaking: the silence still closes it.
        c.send(Message::Pong(Default::default()));
        assert_eq!(c.closed_with(1001, "silent").await, 0);
    }

    #[tokio::test]
    async fn an_idle_client_is_closed_after_the_idle_timeout() {
        let mut c = serve_echo(
            Duration::from_millis(50),
            LONG,
            Arc::new(RateLimiter::new(0)),
        );
        assert_eq!(c.next_text().await, "hello");
        // Pinged at half the idle timeout, then closed: it never answered.
        assert!(c.closed_with(1001, "idle").await >= 1);
    }

    #[tokio::test]
    async fn over_rate_messages_are_refused_and_five_close_the_socket() {
        // The address's bucket (2 tokens) emptied an hour from now: no
        // token comes back while the test runs.
        let limiter = Arc::new(RateLimiter::new(1));
        let later = Instant::now() + Duration::from_secs(3600);
        assert!(limiter.allow_at(IP, later) && limiter.allow_at(IP, later));
        let mut c = serve_echo(LONG, LONG, limiter);
        assert_eq!(c.next_text().await, "hello");
        for _ in 0..ABUSE_LIMIT {
            c.text("{}");
        }
        for _ in 0..ABUSE_LIMIT {
            assert_eq!(c.next_text().await, "error RateLimited");
        }
        let pings = c.closed_with(1008, "too many bad or rate-limited messages");
        assert_eq!(pings.await, 0);
    }

    #[tokio::test]
    async fn bad_messages_are_answered_and_counted_good_ones_are_served() {
        let mut c = serve_echo(LONG, LONG, Arc::new(RateLimiter::new(0)));
        assert_eq!(c.next_text().await, "hello");
        assert!(c.opened.load(Ordering::SeqCst));
        c.text("{a}");
        assert_eq!(c.next_text().await, "echo {a}");
        c.events
            .send(Some("news".into()))
            .expect("the kind listens");
        assert_eq!(c.next_text().await, "news");
        // Four bad ones, a good one between them: still open.
        c.text("{ seventeen bytes");
        assert_eq!(c.next_text().await, "error TooLarge");
        c.send(Message::Binary(vec![0; 17].into()));
        assert_eq!(c.next_text().await, "error TooLarge");
        c.send(Message::Binary(vec![0; 3].into()));
        assert_eq!(c.next_text().await, "error BadRequest");
        c.text("{b}");
        assert_eq!(c.next_text().await, "echo {b}");
        c.text("nope");
        assert_eq!(c.next_text().await, "error BadRequest");
        // The fifth closes it.
        c.text("nope");
        assert_eq!(c.next_text().await, "error BadRequest");
        let pings = c.closed_with(1008, "too many bad or rate-limited messages");
        assert_eq!(pings.await, 0);
    }

    #[tokio::test]
    async fn a_kind_ends_its_socket_with_its_frame() {
        let mut c = serve_echo(LONG, LONG, Arc::new(RateLimiter::new(0)));
        assert_eq!(c.next_text().await, "hello");
        c.events.send(None).expect("the kind listens");
        assert_eq!(c.closed_with(1012, "gone").await, 0);
    }

    #[tokio::test]
    async fn a_client_gone_ends_the_loop_without_a_frame() {
        let mut c = serve_echo(LONG, LONG, Arc::new(RateLimiter::new(0)));
        assert_eq!(c.next_text().await, "hello");
        c.send(Message::Close(None));
        tokio::time::timeout(Duration::from_secs(30), &mut c.served)
            .await
            .expect("the loop ends")
            .expect("the loop did not panic");
        assert!(c.closed.load(Ordering::SeqCst));
        assert!(c.from_server.try_recv().is_err(), "nothing after");
    }
}
