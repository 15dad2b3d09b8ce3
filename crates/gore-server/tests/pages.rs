//! Issue 37: the first visit's inline page (the whole app in one answer,
//! a few hundred KB) is not an amplifier. An address gets a few a second,
//! then plain pages (a few KB, naming their assets); a client that takes
//! no compressed answer never gets it raw.

mod common;

use std::net::Ipv4Addr;

use common::*;
use gore_server::domain::clock::Clock;

/// A page's answer as a first visit asks for it: whether it was the
/// inline page (it carries its own Content-Security-Policy, with the
/// hashes of its inline code), and its size on the wire.
async fn first_visit(c: &reqwest::Client, s: &Server, path: &str, enc: &str) -> (bool, usize) {
    let mut req = c.get(s.at(path));
    if !enc.is_empty() {
        req = req.header("accept-encoding", enc);
    }
    let r = req.send().await.unwrap();
    assert_eq!(r.status(), 200, "{path}");
    let inline = r
        .headers()
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("'sha256-"));
    (inline, r.bytes().await.unwrap().len())
}

/// Before, 8 addresses fetched 7.5 GB of pages in 15 s, every one of
/// them the inline page (raw without `Accept-Encoding`). The clock stands
/// still here: the address's bucket does not fill again.
#[tokio::test(flavor = "multi_thread")]
async fn first_visit_pages_are_limited_per_address_and_never_raw() {
    let s = server_with_clock(&Clock::manual(1_796_083_200_000)).await;
    let one = client_from(Ipv4Addr::new(127, 0, 0, 1));
    let burst = 2 * gore_server::INLINE_PAGES_PER_SECOND as usize;
    let mut inline_sizes = Vec::new();
    for n in 0..burst {
        let (inline, size) = first_visit(&one, &s, "/learn", "br").await;
        assert!(inline, "visit {n}");
        inline_sizes.push(size);
    }
    // Beyond the burst, the plain page, on every kind of page.
    for path in ["/learn", "/", "/rules", "/no/such/page"] {
        let r = one
            .get(s.at(path))
            .header("accept-encoding", "br")
            .send()
            .await
            .unwrap();
        let csp = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(!csp.contains("'sha256-"), "{path}: {csp}");
    }
    let (inline, plain_size) = first_visit(&one, &s, "/learn", "br").await;
    assert!(!inline);
    assert!(
        plain_size * 5 < inline_sizes[0],
        "plain {plain_size} B, inline {} B",
        inline_sizes[0]
    );
    // Another address still gets it; raw, nobody does.
    let other = client_from(Ipv4Addr::new(127, 0, 0, 2));
    assert!(first_visit(&other, &s, "/learn", "gzip").await.0);
    let third = client_from(Ipv4Addr::new(127, 0, 0, 3));
    let (inline, raw_size) = first_visit(&third, &s, "/learn", "").await;
    assert!(!inline, "{raw_size} B raw");
    assert!(raw_size < 20_000, "{raw_size} B raw");
}
