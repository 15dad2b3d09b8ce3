//! The edge files import each other without a circle (issue 26): the
//! routes (src/http/), the sockets, the puzzles' routes, and what they
//! share (src/extract.rs, src/socket.rs). Read from the source, so that a
//! new `use crate::http::…` in a socket fails here, not in review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The edge modules, each with its files (a folder: every file in it).
const EDGES: [&str; 9] = [
    "http",
    "doors",
    "user_ws",
    "ws",
    "lobby_ws",
    "analysis_ws",
    "puzzles_http",
    "extract",
    "socket",
];

fn files_of(src: &Path, module: &str) -> Vec<PathBuf> {
    let file = src.join(format!("{module}.rs"));
    if file.is_file() {
        return vec![file];
    }
    let dir = src.join(module);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{module}: no source");
    files
}

/// The edge modules `text` names as `crate::NAME` in its code (paths and
/// `use` lines alike; comments, where a doc link is no import, left out),
/// `module` itself left out.
fn named_edges(text: &str, module: &str) -> BTreeSet<&'static str> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    let text = code.as_str();
    EDGES
        .iter()
        .copied()
        .filter(|&e| e != module)
        .filter(|e| {
            let needle = format!("crate::{e}");
            text.match_indices(&needle).any(|(i, _)| {
                // `crate::ws` is not `crate::ws_extra`.
                !text[i + needle.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        })
        .collect()
}

/// A circle in `graph`, if any (each module with the ones it imports).
fn circle(graph: &BTreeMap<&'static str, BTreeSet<&'static str>>) -> Option<Vec<&'static str>> {
    fn visit(
        m: &'static str,
        graph: &BTreeMap<&'static str, BTreeSet<&'static str>>,
        path: &mut Vec<&'static str>,
        done: &mut BTreeSet<&'static str>,
    ) -> Option<Vec<&'static str>> {
        if let Some(i) = path.iter().position(|&p| p == m) {
            let mut c = path[i..].to_vec();
            c.push(m);
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m);
        for &n in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(n, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m);
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|&m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_edge_files_import_each_other_without_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph: BTreeMap<&'static str, BTreeSet<&'static str>> = EDGES
        .iter()
        .map(|&m| {
            let text: String = files_of(&src, m)
                .iter()
                .map(|f| std::fs::read_to_string(f).expect("readable source"))
                .collect();
            (m, named_edges(&text, m))
        })
        .collect();
    assert_eq!(circle(&graph), None, "imports: {graph:?}");
    // What they share imports none of them.
    assert!(graph["extract"].is_empty(), "{:?}", graph["extract"]);
    assert!(graph["socket"].is_empty(), "{:?}", graph["socket"]);
}

#[test]
fn a_circle_is_found() {
    // The check itself, on the circle issue 26 found (http → lobby_ws →
    // http, puzzles_http → http) and on a line without one.
    let set = |v: &[&'static str]| v.iter().copied().collect::<BTreeSet<_>>();
    let mut graph = BTreeMap::from([
        ("http", set(&["lobby_ws", "puzzles_http"])),
        ("lobby_ws", set(&["http"])),
        ("puzzles_http", set(&["http"])),
    ]);
    let c = circle(&graph).expect("a circle");
    assert_eq!(c.first(), c.last());
    assert!(c.contains(&"http"), "{c:?}");
    graph.insert("lobby_ws", set(&["extract"]));
    graph.insert("puzzles_http", set(&["extract"]));
    assert_eq!(circle(&graph), None);
    assert_eq!(
        named_edges(
            "//! [`crate::ws`]\nuse crate::ws_extra; crate::socket::run",
            "http"
        ),
        set(&["socket"])
    );
}

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// The names of the `[dependencies]` of the crate at `dir` (its
/// Cargo.toml), dev-dependencies left out.
fn dependencies(dir: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).expect("a manifest");
    let mut deps = BTreeSet::new();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        if inside && !line.starts_with('#') {
            if let Some((name, _)) = line.split_once('=') {
                let name = name.trim();
                deps.insert(name.split('.').next().unwrap_or(name).to_string());
            }
        }
    }
    deps
}

#[test]
fn the_domain_and_the_store_are_crates_that_cannot_name_what_is_above_them() {
    // Issue 36: the domain (crates/gore-domain) and the store
    // (crates/gore-store) are crates of their own, so the compiler keeps
    // the layers: the domain cannot name a web framework, JSON, an SQL
    // driver or the store, because none is its dependency; the store
    // cannot name the web edge. This checks the manifests that make it so.
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let domain = dependencies(&crates.join("gore-domain"));
    assert!(domain.contains("gore-core"), "{domain:?}");
    for banned in [
        "axum",
        "hyper",
        "tower",
        "serde_json",
        "rusqlite",
        "tokio-postgres",
        "deadpool-postgres",
        "gore-store",
        "gore-server",
    ] {
        assert!(!domain.contains(banned), "the domain depends on {banned}");
    }
    let store = dependencies(&crates.join("gore-store"));
    assert!(store.contains("gore-domain"), "{store:?}");
    for banned in ["axum", "hyper", "tower", "gore-server"] {
        assert!(!store.contains(banned), "the store depends on {banned}");
    }
    let server = dependencies(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(server.contains("gore-domain") && server.contains("gore-store"));
}

/// The lines of `f`.
fn lines_of(f: &Path) -> usize {
    std::fs::read_to_string(f)
        .expect("readable source")
        .lines()
        .count()
}

#[test]
fn no_server_file_is_over_1200_lines() {
    // Issue 26's measure of a server shaped for change: a file that grows
    // past 1,200 lines is split by concern, in the web edge, the domain
    // and the store alike. (The store's 3,600-line budget of issue 26 went
    // with issue 36: in a crate of its own it has room to grow, and each
    // query is still written once, in src/queries.)
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let long: Vec<(String, usize)> = ["gore-server", "gore-domain", "gore-store"]
        .iter()
        .flat_map(|c| sources(&crates.join(c).join("src")))
        .map(|f| (f.display().to_string(), lines_of(&f)))
        .filter(|(_, n)| *n > 1200)
        .collect();
    assert!(long.is_empty(), "files over 1,200 lines: {long:?}");
}
