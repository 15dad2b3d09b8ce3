//! The network edge: the accept loop and what it decides about a
//! connection before the app sees a request.
//!
//! axum's own `serve` keeps a connection as long as the client likes, so
//! the server drives hyper itself (docs/SECURITY.md, "Connections"):
//!
//! - a request's headers must arrive within `read_timeout` of its first
//!   byte (of the connection's opening, for the first request), and its
//!   body within `read_timeout` of its headers;
//! - a keep-alive connection that moves no byte for `idle_timeout` between
//!   requests is closed (as is one whose client stops reading an answer);
//! - at most `max_conns_per_ip` open connections per client address (an
//!   IPv6 /64); more are answered `503 busy` with `Connection: close`;
//! - when file descriptors run low (90 % of `RLIMIT_NOFILE`, less those
//!   open at start) new connections are closed at once, logged once, and an
//!   `accept` error (`EMFILE`) backs off instead of spinning.
//!
//! Hyper's own `header_read_timeout` is not used: it runs from the end of
//! the previous answer, so it would make the idle timeout the read timeout.
//!
//! Each request carries the extensions `ConnectInfo<SocketAddr>` (the TCP
//! peer) and [`ClientIp`] (the client's address, through a trusted proxy).

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, Request};
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tower::Service;

use crate::config::Config;
use crate::error::ApiError;
use crate::limit;

/// The client's address, as a request extension: the TCP peer's, or the
/// one a trusted proxy names in `X-Forwarded-For` ([`client_ip`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

/// An IPv4-mapped IPv6 address as its IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// Whether `ip` is one of the proxies of `--trust-proxy`.
pub fn is_trusted(ip: IpAddr, config: &Config) -> bool {
    config.trust_proxy.iter().any(|c| c.contains(ip))
}

/// One `X-Forwarded-For` entry: an address, perhaps with a port
/// (`1.2.3.4:5`, `[::1]:5`) or quoted.
fn parse_hop(s: &str) -> Option<IpAddr> {
    let s = s.trim().trim_matches('"');
    s.parse::<IpAddr>()
        .ok()
        .or_else(|| s.parse::<SocketAddr>().ok().map(|a| a.ip()))
        .map(canonical)
}

/// The client's address. The TCP peer's, unless the peer is a trusted
/// proxy: then the rightmost `X-Forwarded-For` address that is not itself
/// a trusted proxy (each proxy appends the address it saw; what lies left
/// of the first untrusted one is the client's to invent). An unreadable
/// entry ends the walk at the last trusted address read.
pub fn client_ip(peer: SocketAddr, headers: &HeaderMap, config: &Config) -> IpAddr {
    let peer = canonical(peer.ip());
    if !is_trusted(peer, config) {
        return peer;
    }
    // Several headers are one list, in order.
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .flat_map(|v| std::str::from_utf8(v.as_bytes()).unwrap_or("?").split(','))
        .collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        match parse_hop(hop) {
            Some(ip) => {
                client = ip;
                if !is_trusted(ip, config) {
                    return ip;
                }
            }
            None => return client,
        }
    }
    client
}

/// Whether cookies get `Secure`: the site is `https` (`--public-url
/// https://…`), or a trusted proxy (`trusted_peer`) says the request came
/// over `X-Forwarded-Proto: https` (its first entry: the client's leg).
pub fn secure_cookies(config: &Config, headers: &HeaderMap, trusted_peer: bool) -> bool {
    if config
        .public_url
        .as_deref()
        .and_then(PublicUrl::parse)
        .is_some_and(|u| u.https)
    {
        return true;
    }
    trusted_peer
        && headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"))
}

/// `--public-url`, read: the scheme and the authority (lower case, the
/// scheme's default port dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    /// `https://…`.
    pub https: bool,
    /// `host[:port]`.
    pub authority: String,
}

impl PublicUrl {
    /// `http(s)://host[:port][/…]`; `None` for anything else.
    pub fn parse(url: &str) -> Option<PublicUrl> {
        let url = url.trim();
        let (https, rest) = if url.len() > 8 && url[..8].eq_ignore_ascii_case("https://") {
            (true, &url[8..])
        } else if url.len() > 7 && url[..7].eq_ignore_ascii_case("http://") {
            (false, &url[7..])
        } else {
            return None;
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.is_empty() || authority.contains(['@', ' ']) {
            return None;
        }
        Some(PublicUrl {
            https,
            authority: normalize_authority(authority, https),
        })
    }

    /// Whether a `Host` header names this site.
    pub fn host_matches(&self, host: &str) -> bool {
        normalize_authority(host, self.https) == self.authority
    }

    /// Whether an `Origin` header names this site (scheme and authority).
    pub fn origin_matches(&self, origin: &str) -> bool {
        PublicUrl::parse(origin).is_some_and(|o| o == *self)
    }
}

/// Lower case, without the scheme's default port.
fn normalize_authority(a: &str, https: bool) -> String {
    let a = a.trim().to_ascii_lowercase();
    let default = if https { ":443" } else { ":80" };
    match a.strip_suffix(default) {
        Some(h) if !h.is_empty() => h.to_string(),
        _ => a,
    }
}

// ---------------------------------------------------------------------
// Connection clocks

/// When a connection is to be closed for silence: a head that takes
/// longer than `read` from its first byte, or no byte either way for
/// `idle` between requests. No deadline while a request is being answered
/// (the handlers' time is the server's own; bodies have their own).
struct ConnClock {
    read: Duration,
    idle: Duration,
    state: Mutex<ClockState>,
    /// Wakes the watchdog when a deadline moves earlier (a head begins).
    changed: Notify,
}

struct ClockState {
    /// Requests being answered.
    busy: usize,
    /// The first byte of a head not yet complete (the opening, at first).
    head_since: Option<Instant>,
    /// The last byte moved or request answered.
    last: Instant,
}

impl ConnClock {
    fn new(read: Duration, idle: Duration, now: Instant) -> ConnClock {
        ConnClock {
            read,
            idle,
            state: Mutex::new(ClockState {
                busy: 0,
                head_since: Some(now),
                last: now,
            }),
            changed: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ClockState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes came in.
    fn on_read(&self, now: Instant) {
        let mut s = self.lock();
        s.last = s.last.max(now);
        if s.busy == 0 && s.head_since.is_none() {
            s.head_since = Some(now);
            drop(s);
            self.changed.notify_one();
        }
    }

    /// Bytes went out.
    fn on_write(&self, now: Instant) {
        let mut s = self.lock();
        s.last = s.last.max(now);
    }

    /// A request's head is complete; its answer begins.
    fn begin(&self) {
        let mut s = self.lock();
        s.busy += 1;
        s.head_since = None;
    }

    /// An answer is ready.
    fn end(&self, now: Instant) {
        let mut s = self.lock();
        s.busy = s.busy.saturating_sub(1);
        s.last = s.last.max(now);
    }

    /// When the connection is to be closed, as things stand.
    fn deadline(&self) -> Option<Instant> {
        let s = self.lock();
        if s.busy > 0 {
            None
        } else if let Some(h) = s.head_since {
            Some((h + self.read).min(s.last + self.idle))
        } else {
            Some(s.last + self.idle)
        }
    }
}

/// Ends an answer when dropped (answered, or abandoned).
struct Busy(Arc<ConnClock>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.end(Instant::now());
    }
}

// ---------------------------------------------------------------------
// Connection counts

/// Open connections: all of them (file descriptors) and per address.
#[derive(Default)]
struct Conns {
    total: AtomicUsize,
    per_ip: Mutex<HashMap<IpAddr, usize>>,
}

/// One open connection, counted until dropped (with the socket: it lives
/// in the stream, so an upgraded WebSocket still counts).
struct Slot {
    conns: Arc<Conns>,
    ip: Option<IpAddr>,
}

impl Conns {
    /// A slot for a connection of `ip` (`None`: not counted per address),
    /// unless `ip` already has `max`.
    fn open(self: &Arc<Self>, ip: Option<IpAddr>, max: usize) -> Option<Slot> {
        if let Some(ip) = ip {
            let mut map = self.per_ip.lock().unwrap_or_else(|e| e.into_inner());
            let n = map.entry(ip).or_insert(0);
            if *n >= max {
                return None;
            }
            *n += 1;
        }
        self.total.fetch_add(1, Ordering::Relaxed);
        Some(Slot {
            conns: self.clone(),
            ip,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.conns.total.fetch_sub(1, Ordering::Relaxed);
        if let Some(ip) = self.ip {
            let mut map = self.conns.per_ip.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(n) = map.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&ip);
                }
            }
        }
    }
}

/// The TCP stream, telling its clock of every byte, holding its slot.
struct Tracked {
    io: TcpStream,
    clock: Arc<ConnClock>,
    _slot: Slot,
    _counted: crate::metrics::ConnectionOpen,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.clock.on_read(Instant::now());
        }
        r
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.clock.on_write(Instant::now());
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.clock.on_write(Instant::now());
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

// ---------------------------------------------------------------------
// Request bodies

/// A body that must arrive whole by a deadline (`read_timeout` after its
/// headers); after it, reading fails and the answer is `bad_request`.
struct TimedBody {
    inner: Incoming,
    deadline: tokio::time::Instant,
    timeout: Duration,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

/// The error of a body not sent in time.
#[derive(Debug, thiserror::Error)]
#[error("the request body was not sent within {0} s")]
struct BodyTimeout(u64);

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(r) => Poll::Ready(r.map(|r| r.map_err(Into::into))),
            Poll::Pending => {
                let deadline = this.deadline;
                let sleep = this
                    .sleep
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        Poll::Ready(Some(Err(BodyTimeout(this.timeout.as_secs().max(1)).into())))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

// ---------------------------------------------------------------------
// File descriptors

/// Connections that may be open at once before descriptors run low: 90 %
/// of the soft `RLIMIT_NOFILE`, less what is open when the server starts
/// (the database, the listener, the runtime). The other 10 % is the
/// reserve: SQLite's journal, logs, `accept` itself.
pub(crate) fn fd_capacity() -> usize {
    let limit = nofile_limit();
    let open = std::fs::read_dir("/proc/self/fd").map_or(32, |d| d.count());
    (limit.saturating_mul(9) / 10).saturating_sub(open).max(1)
}

/// File descriptors open now, and the soft limit on them (for the
/// metrics).
pub(crate) fn descriptors() -> (usize, usize) {
    let open = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count());
    (open, nofile_limit())
}

/// The soft limit on open files (a large number when unlimited or unknown).
fn nofile_limit() -> usize {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one `rlimit` through a valid pointer.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 {
            if lim.rlim_cur == libc::RLIM_INFINITY {
                return 1 << 20;
            }
            return usize::try_from(lim.rlim_cur).unwrap_or(1 << 20);
        }
    }
    1 << 20
}

/// Whether an `accept` error is about the one connection (it was reset
/// before it was taken), not about the server.
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset | Interrupted
    )
}

// ---------------------------------------------------------------------
// The accept loop

/// Refusals being written at once, at most (each holds a descriptor for a
/// second at most); beyond, a connection over its address's cap is closed
/// without an answer.
const MAX_REFUSING: usize = 64;

/// Serves `router` on `listener` until `shutdown` completes, then lets
/// open requests finish for `grace` at most.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    config: Arc<Config>,
    metrics: crate::metrics::Metrics,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> std::io::Result<()> {
    let capacity = fd_capacity();
    tracing::debug!("at most {capacity} connections before descriptors run low");
    let conns = Arc::new(Conns::default());
    let refusing = Arc::new(AtomicUsize::new(0));
    let (stop_tx, stop_rx) = watch::channel(false);
    // Every connection task holds a sender: when all are gone, recv ends.
    let (done_tx, mut done_rx) = tokio::sync::mpsc::channel::<()>(1);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut fd_low = false;
    let mut accept_failing = false;
    let mut backoff = Duration::from_millis(10);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) if is_connection_error(&e) => continue,
                Err(e) => {
                    // EMFILE and kin: no descriptor to take the connection
                    // with. Wait for some to free up rather than spin.
                    if !accept_failing {
                        tracing::warn!("cannot accept connections: {e}; retrying with backoff");
                        accept_failing = true;
                    }
                    tokio::select! {
                        () = &mut shutdown => break,
                        () = tokio::time::sleep(backoff) => {}
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(1));
                    continue;
                }
            },
        };
        if accept_failing {
            tracing::info!("accepting connections again");
            accept_failing = false;
        }
        backoff = Duration::from_millis(10);
        let open = conns.total.load(Ordering::Relaxed);
        // Leave the low state only well under the mark, so that a server
        // at the edge does not log every connection.
        if fd_low && open < capacity - capacity / 10 {
            tracing::info!("file descriptors available again: accepting connections");
            fd_low = false;
        }
        if fd_low || open >= capacity {
            if !fd_low {
                tracing::warn!(
                    "file descriptors low ({open} connections open, the limit leaves room for \
                     {capacity}): closing new connections until some close"
                );
                fd_low = true;
            }
            metrics.connection_refused(crate::metrics::ConnRefusal::Descriptors);
            drop(stream);
            continue;
        }
        let _ = stream.set_nodelay(true);
        let key = limit::key(peer.ip());
        // A trusted proxy carries many clients: its connections are not
        // capped per address (the rate limit still sees each client).
        let counted = (!is_trusted(peer.ip(), &config)).then_some(key);
        let Some(slot) = conns.open(counted, config.max_conns_per_ip) else {
            metrics.connection_refused(crate::metrics::ConnRefusal::Busy);
            if refusing.load(Ordering::Relaxed) < MAX_REFUSING {
                if let Some(slot) = conns.open(None, 0) {
                    tokio::spawn(refuse_busy(stream, slot, refusing.clone()));
                }
            }
            continue;
        };
        tokio::spawn(connection(
            stream,
            peer,
            (slot, metrics.connection_opened()),
            router.clone(),
            config.clone(),
            stop_rx.clone(),
            done_tx.clone(),
        ));
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(done_tx);
    let _ = tokio::time::timeout(grace, done_rx.recv()).await;
    Ok(())
}

/// Answers `503 busy` with `Connection: close` to a connection over its
/// address's cap, without reading its request (then reads and drops what
/// it sent for a second at most, so that the close does not reset the
/// answer away).
async fn refuse_busy(mut stream: TcpStream, _slot: Slot, refusing: Arc<AtomicUsize>) {
    refusing.fetch_add(1, Ordering::Relaxed);
    let body = ApiError::busy(
        "too many connections from your address; close some and try again in a moment",
    )
    .body()
    .to_string();
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\
         x-content-type-options: nosniff\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut buf = [0u8; 1024];
        while stream.read(&mut buf).await? > 0 {}
        Ok::<(), std::io::Error>(())
    })
    .await;
    refusing.fetch_sub(1, Ordering::Relaxed);
}

/// Serves one connection until it closes, times out, or the server stops.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    (slot, counted): (Slot, crate::metrics::ConnectionOpen),
    router: Router,
    config: Arc<Config>,
    mut stop: watch::Receiver<bool>,
    _done: tokio::sync::mpsc::Sender<()>,
) {
    let clock = Arc::new(ConnClock::new(
        config.read_timeout,
        config.idle_timeout,
        Instant::now(),
    ));
    let io = Tracked {
        io: stream,
        clock: clock.clone(),
        _slot: slot,
        _counted: counted,
    };
    let svc_clock = clock.clone();
    let svc = hyper::service::service_fn(move |mut req: Request<Incoming>| {
        svc_clock.begin();
        let busy = Busy(svc_clock.clone());
        let ip = client_ip(peer, req.headers(), &config);
        req.extensions_mut().insert(ConnectInfo(peer));
        req.extensions_mut().insert(ClientIp(ip));
        let timeout = config.read_timeout;
        let req = req.map(|inner| TimedBody {
            inner,
            deadline: tokio::time::Instant::now() + timeout,
            timeout,
            sleep: None,
        });
        let fut = router.clone().call(req);
        async move {
            let res = fut.await;
            drop(busy);
            Ok::<_, Infallible>(match res {
                Ok(r) => r,
                Err(never) => match never {},
            })
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        // Ours is the connection's clock (see the module's comment).
        .header_read_timeout(None)
        .serve_connection(TokioIo::new(io), svc)
        .with_upgrades();
    let mut conn = std::pin::pin!(conn);
    let mut stopping = *stop.borrow();
    if stopping {
        conn.as_mut().graceful_shutdown();
    }
    loop {
        let deadline = clock.deadline();
        let timer = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(tokio::time::Instant::from_std(d)).await,
                // Busy: look again after a while (an answer may end).
                None => tokio::time::sleep(clock.idle).await,
            }
        };
        tokio::select! {
            r = &mut conn => {
                if let Err(e) = r {
                    tracing::debug!("connection from {peer}: {e}");
                }
                break;
            }
            () = timer => {
                if clock.deadline().is_some_and(|d| d <= Instant::now()) {
                    tracing::debug!("connection from {peer}: timed out");
                    break; // dropping the connection closes it
                }
            }
            () = clock.changed.notified() => {}
            r = stop.changed(), if !stopping => {
                if r.is_ok() {
                    stopping = true;
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn config(trust: &[&str]) -> Config {
        Config {
            trust_proxy: trust.iter().map(|c| c.parse().unwrap()).collect(),
            ..Config::default()
        }
    }

    fn xff(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn peer(s: &str) -> SocketAddr {
        SocketAddr::new(ip(s), 40000)
    }

    #[test]
    fn forwarded_for_is_believed_only_from_a_trusted_proxy() {
        let none = config(&[]);
        let h = xff(&["203.0.113.9"]);
        assert_eq!(
            client_ip(peer("198.51.100.1"), &h, &none),
            ip("198.51.100.1")
        );
        let proxy = config(&["10.0.0.0/8"]);
        assert_eq!(
            client_ip(peer("198.51.100.1"), &h, &proxy),
            ip("198.51.100.1")
        );
        assert_eq!(client_ip(peer("10.1.1.1"), &h, &proxy), ip("203.0.113.9"));
        // A trusted proxy without the header: the proxy itself.
        assert_eq!(
            client_ip(peer("10.1.1.1"), &HeaderMap::new(), &proxy),
            ip("10.1.1.1")
        );
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let c = config(&["10.0.0.0/8", "::1"]);
        // The client wrote "1.1.1.1, 2.2.2.2"; proxies appended the rest.
        let h = xff(&["1.1.1.1, 2.2.2.2", "203.0.113.7, 10.0.0.5"]);
        assert_eq!(client_ip(peer("10.0.0.1"), &h, &c), ip("203.0.113.7"));
        // A v4-mapped peer is its v4 address; ports and quotes are read.
        let h = xff(&["\"[2001:db8::7]:443\""]);
        assert_eq!(
            client_ip(peer("::ffff:10.0.0.1"), &h, &c),
            ip("2001:db8::7")
        );
        let h = xff(&["198.51.100.3:5555"]);
        assert_eq!(client_ip(peer("::1"), &h, &c), ip("198.51.100.3"));
        // Only proxies: the leftmost of them.
        let h = xff(&["10.9.9.9, 10.0.0.5"]);
        assert_eq!(client_ip(peer("10.0.0.1"), &h, &c), ip("10.9.9.9"));
        // Garbage ends the walk at the last trusted address read.
        let h = xff(&["203.0.113.1, nonsense, 10.0.0.5"]);
        assert_eq!(client_ip(peer("10.0.0.1"), &h, &c), ip("10.0.0.5"));
        let h = xff(&["unknown"]);
        assert_eq!(client_ip(peer("10.0.0.1"), &h, &c), ip("10.0.0.1"));
    }

    #[test]
    fn cookies_are_secure_over_https_only() {
        let mut h = HeaderMap::new();
        let plain = config(&[]);
        assert!(!secure_cookies(&plain, &h, false));
        let https = Config {
            public_url: Some("HTTPS://gore.example/".into()),
            ..Config::default()
        };
        assert!(secure_cookies(&https, &h, false));
        let http = Config {
            public_url: Some("http://gore.example".into()),
            ..Config::default()
        };
        assert!(!secure_cookies(&http, &h, false));
        h.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        assert!(
            !secure_cookies(&plain, &h, false),
            "from anyone: not believed"
        );
        assert!(secure_cookies(&plain, &h, true), "from a trusted proxy");
        h.insert("x-forwarded-proto", HeaderValue::from_static("http, https"));
        assert!(
            !secure_cookies(&plain, &h, true),
            "the client's leg was http"
        );
    }

    #[test]
    fn public_urls_hosts_and_origins() {
        let u = PublicUrl::parse("https://Gore.Example/app").unwrap();
        assert_eq!(u.authority, "gore.example");
        assert!(u.https);
        assert!(u.host_matches("gore.example"));
        assert!(u.host_matches("GORE.example:443"));
        assert!(!u.host_matches("gore.example:8443"));
        assert!(!u.host_matches("evil.example"));
        assert!(!u.host_matches("127.0.0.1:8080"));
        assert!(u.origin_matches("https://gore.example"));
        assert!(u.origin_matches("https://gore.example:443"));
        assert!(!u.origin_matches("http://gore.example"), "another scheme");
        assert!(!u.origin_matches("https://gore.example.evil"));
        assert!(!u.origin_matches("null"));
        let p = PublicUrl::parse("http://127.0.0.1:8080").unwrap();
        assert!(p.host_matches("127.0.0.1:8080") && !p.host_matches("127.0.0.1"));
        assert!(PublicUrl::parse("gore.example").is_none());
        assert!(PublicUrl::parse("ftp://gore.example").is_none());
        assert!(PublicUrl::parse("https://").is_none());
        assert!(PublicUrl::parse("https://user@gore.example").is_none());
    }

    #[test]
    fn the_clock_of_a_connection() {
        let read = Duration::from_secs(10);
        let idle = Duration::from_secs(60);
        let t0 = Instant::now();
        let s = |n: u64| Duration::from_secs(n);
        let c = ConnClock::new(read, idle, t0);
        // A new connection: its first head within `read`.
        assert_eq!(c.deadline(), Some(t0 + read));
        c.on_read(t0 + s(3));
        assert_eq!(
            c.deadline(),
            Some(t0 + read),
            "bytes of the head do not extend it"
        );
        c.begin();
        assert_eq!(c.deadline(), None, "no deadline while answering");
        c.on_read(t0 + s(30)); // body bytes
        c.on_write(t0 + s(40));
        assert_eq!(c.deadline(), None);
        c.end(t0 + s(41));
        assert_eq!(
            c.deadline(),
            Some(t0 + s(41) + idle),
            "idle between requests"
        );
        c.on_write(t0 + s(50)); // the answer still being written
        assert_eq!(c.deadline(), Some(t0 + s(50) + idle));
        c.on_read(t0 + s(100)); // the next request's first byte
        assert_eq!(c.deadline(), Some(t0 + s(100) + read));
        c.on_read(t0 + s(105));
        assert_eq!(c.deadline(), Some(t0 + s(100) + read));
    }

    #[test]
    fn connections_are_counted_per_address_and_freed() {
        let conns = Arc::new(Conns::default());
        let a = Some(ip("192.0.2.1"));
        let s1 = conns.open(a, 2).unwrap();
        let s2 = conns.open(a, 2).unwrap();
        assert!(conns.open(a, 2).is_none(), "a third over a cap of 2");
        let other = conns.open(Some(ip("192.0.2.2")), 2).unwrap();
        let uncounted = conns.open(None, 0).unwrap();
        assert_eq!(conns.total.load(Ordering::Relaxed), 4);
        drop(s1);
        let s3 = conns.open(a, 2).unwrap();
        drop((s2, s3, other, uncounted));
        assert_eq!(conns.total.load(Ordering::Relaxed), 0);
        assert!(conns.per_ip.lock().unwrap().is_empty());
    }
}
