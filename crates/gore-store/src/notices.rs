//! The notice bus between servers sharing one PostgreSQL database: each
//! server announces the games it changed (`NOTIFY`, batched, after the
//! commits) and hears the others' (`LISTEN`), on connections of its own,
//! apart from the store's pool and its durability (a notice is a hint,
//! never the truth: the store is). The PostgreSQL store starts both
//! tasks ([`crate::postgres`]).

use tokio_postgres::NoTls;

use crate::Notice;

/// The channel every server notifies and listens on.
const CHANNEL: &str = "gore_changes";

/// The most changes one notice carries (a payload stays well under
/// PostgreSQL's 8000 bytes).
const NOTICE_BATCH: usize = 250;

/// Announces this server's committed changes to the others: one `NOTIFY`
/// ("ORIGIN GAME PLY;GAME PLY;…") for all the changes committed since the
/// last, on a connection of its own with `synchronous_commit = off`.
///
/// Why not `NOTIFY` in each change's transaction: PostgreSQL takes one
/// lock for the whole cluster from a notifying transaction's commit until
/// its commit record is flushed, so notifying commits cannot share a disk
/// flush and queue up one flush at a time (docs/DEPLOY.md, "Where the limit
/// is", has the figures). Here the changes commit (durably, in groups) on
/// their own, and the notice, which is a hint and never the truth,
/// follows. A server killed between a commit and its notice leaves the
/// others behind until their catch-up sweep
/// ([`ServerStore::latest_plies`](crate::ServerStore::latest_plies)) finds it.
pub(crate) fn spawn_notifier(
    config: tokio_postgres::Config,
    origin: String,
    mut outbox: tokio::sync::mpsc::UnboundedReceiver<(String, u32)>,
) {
    tokio::spawn(async move {
        let mut client: Option<tokio_postgres::Client> = None;
        let mut batch: Vec<(String, u32)> = Vec::new();
        loop {
            if batch.is_empty() {
                match outbox.recv().await {
                    Some(change) => batch.push(change),
                    None => return, // the store was dropped
                }
            }
            while let Some(Ok(change)) = (batch.len() < NOTICE_BATCH).then(|| outbox.try_recv()) {
                batch.push(change);
            }
            if client.as_ref().is_none_or(|c| c.is_closed()) {
                client = None;
                if let Ok((c, connection)) = config.connect(NoTls).await {
                    tokio::spawn(connection);
                    // A notice is a hint: its transaction need not wait
                    // for the disk (the changes it names did).
                    let off = c.batch_execute("SET synchronous_commit = off").await;
                    client = off.ok().map(|()| c);
                }
            }
            let payload = notice_payload(&origin, &batch);
            let sent = match &client {
                Some(c) => c
                    .execute("SELECT pg_notify('gore_changes', $1)", &[&payload])
                    .await
                    .is_ok(),
                None => false,
            };
            if sent {
                batch.clear();
            } else {
                // The database is away: the batch is kept and sent once it
                // is back (the listeners reload everything then anyway).
                client = None;
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
        }
    });
}

/// A notice's payload: "ORIGIN GAME PLY;GAME PLY;…".
fn notice_payload(origin: &str, changes: &[(String, u32)]) -> String {
    let list: Vec<String> = changes.iter().map(|(g, p)| format!("{g} {p}")).collect();
    format!("{origin} {}", list.join(";"))
}

/// Reads a notice's payload: nothing for this store's own; what parses of
/// a malformed one.
fn parse_notice(payload: &str, origin: &str) -> Vec<Notice> {
    let Some((from, list)) = payload.split_once(' ') else {
        return Vec::new();
    };
    if from == origin {
        return Vec::new();
    }
    list.split(';')
        .filter_map(|change| {
            let (game, ply) = change.split_once(' ')?;
            if let Some(event) = game.strip_prefix('~') {
                return Some(Notice::Lobby(event.replace('/', " ")));
            }
            Some(Notice::Changed {
                game: game.to_string(),
                ply: ply.parse().ok()?,
            })
        })
        .collect()
}

/// Listens to [`CHANNEL`] on a connection of its own, for as long as the
/// store lives; after a lost connection it connects again and sends
/// [`Notice::Missed`] (what was notified meanwhile is lost).
pub(crate) fn spawn_listener(
    config: tokio_postgres::Config,
    origin: String,
    tx: tokio::sync::broadcast::Sender<Notice>,
    ready: tokio::sync::oneshot::Sender<()>,
) {
    tokio::spawn(async move {
        let mut first = true;
        let mut ready = Some(ready);
        loop {
            if tx.receiver_count() == 0 && !first {
                // Nobody listens any more (the store was dropped).
                return;
            }
            match config.connect(NoTls).await {
                Ok((client, mut connection)) => {
                    let (msgs_tx, mut msgs) = tokio::sync::mpsc::unbounded_channel();
                    let driver = tokio::spawn(async move {
                        let mut stream =
                            futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                        use futures_util::StreamExt;
                        while let Some(Ok(m)) = stream.next().await {
                            if msgs_tx.send(m).is_err() {
                                return;
                            }
                        }
                    });
                    let listening = client.batch_execute(&format!("LISTEN {CHANNEL}")).await;
                    if listening.is_ok() {
                        if !first {
                            let _ = tx.send(Notice::Missed);
                        }
                        first = false;
                        if let Some(r) = ready.take() {
                            let _ = r.send(());
                        }
                        while let Some(m) = msgs.recv().await {
                            if let tokio_postgres::AsyncMessage::Notification(n) = m {
                                for notice in parse_notice(n.payload(), &origin) {
                                    let _ = tx.send(notice);
                                }
                            }
                        }
                    }
                    driver.abort();
                    tracing::warn!("database: the LISTEN connection was lost; connecting again");
                }
                Err(e) => tracing::warn!("database: cannot LISTEN: {e}"),
            }
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        }
    });
}
