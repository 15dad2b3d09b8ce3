//! PostgreSQL restarted under two running servers (issue 9): while it is
//! down the servers acknowledge nothing (an action is refused `503
//! unavailable` and is not in the log afterwards); once it is back they
//! reconnect by themselves, take actions again, and the sockets on both
//! servers are caught up, notices included.
//!
//! The test stops and starts the cluster that `GORE_TEST_POSTGRES` points
//! at, with Debian's `pg_ctlcluster` (as root, as in `.ci/run`). It is the
//! only test of its binary, and cargo runs test binaries one at a time, so
//! no other test loses its database under it. Under `CI=true` a cluster
//! that cannot be restarted fails the test; elsewhere it warns.

mod support;

use std::process::Command;
use std::time::Duration;

use serde_json::json;
use support::*;

/// The Debian cluster (version, name) listening on `port`.
fn cluster_on(port: u16) -> Option<(String, String)> {
    let out = Command::new("pg_lsclusters").arg("-h").output().ok()?;
    String::from_utf8_lossy(&out.stdout).lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() > 2 && f[2] == port.to_string()).then(|| (f[0].to_string(), f[1].to_string()))
    })
}

fn pg_ctl(cluster: &(String, String), what: &str) -> bool {
    let mut cmd = Command::new("pg_ctlcluster");
    cmd.args([cluster.0.as_str(), cluster.1.as_str(), what]);
    if what == "stop" {
        // Fast: the servers' connections are cut, as in a crash or a
        // failover, rather than waited for.
        cmd.args(["-m", "fast"]);
    }
    cmd.status().is_ok_and(|s| s.success())
}

/// Starts the cluster again however the test ends.
struct Restart((String, String));

impl Drop for Restart {
    fn drop(&mut self) {
        if !pg_ctl(&self.0, "start") {
            eprintln!("*** could not start PostgreSQL {:?} again ***", self.0);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_restarted_under_two_servers() {
    let Some(base) = postgres_or_skip("the database-restart test") else {
        return;
    };
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let port = base
        .rsplit_once('@')
        .map_or(base.as_str(), |(_, h)| h)
        .split('/')
        .next()
        .and_then(|h| h.rsplit_once(':'))
        .and_then(|(_, p)| p.parse().ok())
        .unwrap_or(5432);
    // SAFETY: geteuid(2) reads the process's user id; no memory involved.
    let root = unsafe { libc::geteuid() } == 0;
    let Some(cluster) = cluster_on(port).filter(|_| root) else {
        assert!(
            !ci,
            "no Debian PostgreSQL cluster on port {port} that this user may restart"
        );
        eprintln!(
            "\n*** no cluster on port {port} to restart (as root): the test did NOT run ***\n"
        );
        return;
    };
    let db = fresh_database(&base, "restart").await;
    let (one, two) = (Gore::start(&db, &[]), Gore::start(&db, &[]));
    let c = http();
    let g = create(&c, &one.url, json!({"mode": "local"})).await;
    let id = g["id"].as_str().unwrap().to_string();
    let token = g["token"].as_str().unwrap().to_string();
    // The player's socket on the first server, a spectator on the second.
    let mut player = Watch::open(&one.url, &id, Some(&token)).await;
    let mut spectator = Watch::open(&two.url, &id, None).await;
    for _ in 0..2 {
        let (ply, action) = (
            player.view.head.ply.index(),
            player.view.head.legal[0].to_string(),
        );
        let (st, v) = act(&c, &one.url, &id, &token, &action, ply).await.unwrap();
        assert_eq!(st, 200, "{v}");
        assert!(player.until(20, |v| v.head.ply.index() == ply + 1).await);
        assert!(spectator.until(20, |v| v.head.ply.index() == ply + 1).await);
    }

    // Down.
    let restart = Restart(cluster.clone());
    assert!(pg_ctl(&cluster, "stop"), "pg_ctlcluster stop");
    let ply = player.view.head.ply.index();
    let action = player.view.head.legal[0].to_string();
    for server in [&one.url, &two.url] {
        let (st, v) = act(&c, server, &id, &token, &action, ply).await.unwrap();
        assert_eq!(st, 503, "an action acknowledged without its database: {v}");
        assert_eq!(v["error"]["code"], "unavailable", "{v}");
    }
    // Up again: the servers reconnect by themselves.
    drop(restart);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut k = 0;
    let played_on = loop {
        // Alternately on both servers, until one takes it.
        let server = [&one.url, &two.url][k % 2];
        k += 1;
        match act(&c, server, &id, &token, &action, ply).await {
            Ok((200, _)) => break server.clone(),
            Ok((503, _)) | Err(_) if tokio::time::Instant::now() < deadline => {
                // Waiting for PostgreSQL to accept connections again.
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            r => panic!("the action after the restart: {r:?}"),
        }
    };
    eprintln!("after the restart the action was taken by {played_on}");
    // Both sockets are caught up (the notices' connection was lost, so
    // each server loaded its games again) with exactly that one action.
    for w in [&mut player, &mut spectator] {
        assert!(
            w.until(30, |v| v.head.ply.index() == ply + 1).await,
            "a socket not caught up"
        );
        assert_eq!(w.view.actions.len(), ply + 1);
        assert_eq!(w.view.actions[ply].action.to_string(), action);
    }
    // And the next action, on the other server, reaches both sockets by
    // the notices again.
    let other = if played_on == one.url {
        &two.url
    } else {
        &one.url
    };
    let next_action = player.view.head.legal[0].to_string();
    let (st, v) = act(&c, other, &id, &token, &next_action, ply + 1)
        .await
        .unwrap();
    assert_eq!(st, 200, "{v}");
    for w in [&mut player, &mut spectator] {
        assert!(
            w.until(30, |v| v.head.ply.index() == ply + 2).await,
            "no notice after the restart"
        );
    }
}
