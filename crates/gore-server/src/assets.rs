//! The web app's files, embedded in the binary from `assets/`, served
//! precompressed and under versioned addresses.
//!
//! At first use every file is compressed once (brotli and gzip) and the
//! whole set gets a version, a hash of all the files' contents. The page
//! (index.html) names its assets under `/assets/v/<version>/…`, and those
//! answers are cached for a year as `immutable`: a new build has a new
//! version, so a browser never revalidates an asset and never keeps a stale
//! one. Relative imports between the ES modules stay inside the versioned
//! folder. The page itself is `no-cache` (revalidated by ETag). Plain
//! `/assets/<path>` still answers, `no-cache`, for older pages and tools.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "assets/"]
struct Assets;

/// How long a versioned asset may be kept: a year, never revalidated.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// The pages and unversioned assets: kept, but asked again each time.
const NO_CACHE: &str = "no-cache";

/// What the page needs from the server before it runs: the defaults of a
/// new game (the same as the API's, [`crate::api::DEFAULT_LEVEL`] and
/// [`crate::api::DEFAULT_COLOUR`]), so that the home page shows what the
/// server would choose, and the paces it offers
/// ([`crate::domain::clock::PACES`]).
fn defaults_json() -> String {
    let paces: Vec<String> = crate::domain::clock::PACES
        .iter()
        .map(|p| format!("\"{p}\""))
        .collect();
    format!(
        "{{\"level\":{},\"levels\":{},\"colour\":\"{}\",\"paces\":[{}]}}",
        crate::api::DEFAULT_LEVEL.get(),
        gore_ai::MAX_LEVEL,
        crate::api::DEFAULT_COLOUR,
        paces.join(",")
    )
}

/// The content type of a file name, by its extension.
fn content_type(path: &str, guessed: &str) -> String {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    let t = match ext.to_ascii_lowercase().as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" | "md" | "gore" => "text/plain; charset=utf-8",
        _ => "",
    };
    if !t.is_empty() {
        t.to_string()
    } else if guessed.starts_with("text/") && !guessed.contains("charset") {
        format!("{guessed}; charset=utf-8")
    } else {
        guessed.to_string()
    }
}

/// Whether a type is worth compressing (images other than SVG, fonts are
/// compressed already).
fn compressible(ctype: &str) -> bool {
    ctype.starts_with("text/")
        || ctype.starts_with("application/json")
        || ctype.starts_with("application/manifest+json")
        || ctype.starts_with("image/svg+xml")
}

/// FNV-1a, 64 bits: enough to tell two builds' files apart (a version and
/// ETags, not a defence against anyone).
fn fnv(bytes: &[u8], mut h: u64) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// One file, ready to send in each encoding.
struct File {
    ctype: HeaderValue,
    etag: String,
    raw: Vec<u8>,
    br: Option<Vec<u8>>,
    gzip: Option<Vec<u8>>,
}

impl File {
    fn new(path: &str, data: Vec<u8>, guessed: &str) -> File {
        let ctype = content_type(path, guessed);
        let (br, gzip) = if compressible(&ctype) && data.len() > 256 {
            (Some(brotli(&data)), Some(gzip(&data)))
        } else {
            (None, None)
        };
        File {
            ctype: HeaderValue::from_str(&ctype)
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
            etag: format!("\"{:016x}\"", fnv(&data, FNV_START)),
            raw: data,
            br,
            gzip,
        }
    }
}

/// Brotli's quality: 9 is within a few per cent of 11 on these files, at a
/// fifth of the time (the server compresses everything as it starts).
const BROTLI_QUALITY: u32 = 9;

fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 3);
    {
        // The window need not be larger than the file (a larger one only
        // costs time to allocate and clear).
        let bits = (usize::BITS - data.len().leading_zeros()).clamp(16, 22);
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, BROTLI_QUALITY, bits);
        // Writing into a Vec cannot fail.
        let _ = w.write_all(data);
        let _ = w.flush();
    }
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut w = flate2::write::GzEncoder::new(
        Vec::with_capacity(data.len() / 3),
        flate2::Compression::best(),
    );
    let _ = w.write_all(data);
    w.finish().unwrap_or_default()
}

/// Every file of this build, compressed, and its version.
struct Site {
    version: String,
    files: BTreeMap<String, File>,
    /// index.html with its assets' addresses versioned, the defaults and
    /// preloads added, for each kind of page ([`KINDS`]) and language
    /// ([`LANGS`]): as served with status 200 and as 404.
    pages: BTreeMap<(&'static str, &'static str), File>,
}

/// The kinds of page, each with the module that draws it (what main.js
/// imports for its addresses: [`kind_of`]), whose whole graph of static
/// imports the page preloads.
const KINDS: [(&str, Option<&str>); 11] = [
    ("home", Some("js/home.js")),
    ("game", Some("js/game.js")),
    ("rules", Some("js/rules.js")),
    ("claim", Some("js/claim.js")),
    ("learn", Some("js/learn.js")),
    ("puzzles", Some("js/puzzles.js")),
    ("analysis", Some("js/analysis.js")),
    ("review", Some("js/review.js")),
    ("player", Some("js/player.js")),
    ("other", None),
    ("not-found", None),
];

/// The languages of the app (assets/i18n, i18n.js's `LANGS`): a page
/// preloads the strings of the one its reader's browser asks for first.
const LANGS: [&str; 4] = ["en", "es", "fr", "eu"];

static SITE: OnceLock<Site> = OnceLock::new();

fn site() -> &'static Site {
    SITE.get_or_init(build_site)
}

/// Compresses everything now rather than on the first request (`gore
/// serve` calls it before it says it is ready).
pub fn prepare() {
    site();
}

fn build_site() -> Site {
    let mut names: Vec<String> = Assets::iter().map(|p| p.into_owned()).collect();
    names.sort();
    let mut h = FNV_START;
    let mut raw = Vec::new();
    for name in &names {
        if let Some(f) = Assets::get(name) {
            h = fnv(name.as_bytes(), h);
            h = fnv(&f.data, h);
            raw.push((
                name.clone(),
                f.data.into_owned(),
                f.metadata.mimetype().to_string(),
            ));
        }
    }
    let version = format!("{:012x}", h >> 16);
    let mut files = BTreeMap::new();
    for (name, data, guessed) in raw {
        let file = File::new(&name, data, &guessed);
        files.insert(name, file);
    }
    let mut pages = BTreeMap::new();
    for (kind, entry) in KINDS {
        for lang in LANGS {
            let html = page_html(&version, &files, kind, entry, lang);
            pages.insert((kind, lang), File::new("index.html", html.into_bytes(), ""));
        }
    }
    Site {
        version,
        files,
        pages,
    }
}

/// The modules a script needs, itself included, by their static imports
/// (`from './x.js'`), transitively: what a page preloads so that the
/// browser fetches them at once rather than one import after another.
fn module_closure(files: &BTreeMap<String, File>, entry: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![entry.to_string()];
    while let Some(path) = todo.pop() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let Some(text) = files
            .get(&path)
            .and_then(|f| std::str::from_utf8(&f.raw).ok())
        else {
            continue;
        };
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        todo.extend(
            static_imports(text)
                .into_iter()
                .map(|m| format!("{dir}/{m}")),
        );
    }
    seen
}

/// The modules of the same folder a module imports statically: `from
/// './x.js'` ending an `import` or `export` (on one line or the last of
/// several) and `import './x.js'`, either quote; not the dynamic
/// `import('./x.js')` (a page's own, loaded when needed) nor the JSDoc
/// types' `import('./x.js')` in comments.
fn static_imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with("//") || line.starts_with('*') || line.starts_with("/*") {
            continue;
        }
        for quote in ['\'', '"'] {
            for lead in [format!("from {quote}./"), format!("import {quote}./")] {
                let mut rest = line;
                while let Some(i) = rest.find(&lead) {
                    let after = &rest[i + lead.len()..];
                    if let Some(end) = after.find(quote) {
                        out.push(after[..end].to_string());
                    }
                    rest = after;
                }
            }
        }
    }
    out
}

/// The language a request's `Accept-Language` asks for first among the
/// app's (as i18n.js reads `navigator.languages`), English when none.
fn lang_of(headers: &HeaderMap) -> &'static str {
    let mut wanted: Vec<(f32, usize, &'static str)> = Vec::new();
    for v in headers.get_all(header::ACCEPT_LANGUAGE) {
        let Ok(v) = v.to_str() else { continue };
        for part in v.split(',') {
            let mut it = part.split(';');
            let tag = it.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = it
                .find_map(|p| {
                    p.trim()
                        .strip_prefix("q=")
                        .and_then(|q| q.trim().parse::<f32>().ok())
                })
                .unwrap_or(1.0);
            let base = tag.split('-').next().unwrap_or("");
            if let Some(l) = LANGS.iter().find(|l| **l == base) {
                if q > 0.0 {
                    wanted.push((q, wanted.len(), l));
                }
            }
        }
    }
    // The highest weight, the first written among equals.
    wanted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    wanted.first().map_or("en", |w| w.2)
}

/// index.html for a kind of page and a language: its assets under the
/// version, every module the page runs preloaded (main.js's and its
/// `entry`'s graphs), the strings it reads, the defaults of a new game,
/// and for the not-found page a mark that makes the app show its own
/// "not found".
fn page_html(
    version: &str,
    files: &BTreeMap<String, File>,
    kind: &str,
    entry: Option<&str>,
    lang: &str,
) -> String {
    let Some(index) = files
        .get("index.html")
        .and_then(|f| std::str::from_utf8(&f.raw).ok())
    else {
        return "<!doctype html><meta charset=utf-8><title>Goré</title>\
                <p>Goré: the web app is missing from this build."
            .to_string();
    };
    let base = format!("/assets/v/{version}/");
    let mut html = index.replace("\"/assets/", &format!("\"{base}"));
    let mut head = String::new();
    head.push_str(&format!(
        "<meta name=\"gore-defaults\" content=\"{}\">\n",
        defaults_json().replace('"', "&quot;")
    ));
    if kind == "not-found" {
        head.push_str("<meta name=\"gore-page\" content=\"not-found\">\n");
    }
    let mut preload: BTreeSet<String> = module_closure(files, "js/main.js");
    if let Some(e) = entry {
        preload.extend(module_closure(files, e));
    }
    for m in preload {
        head.push_str(&format!(
            "<link rel=\"modulepreload\" href=\"{base}{m}\">\n"
        ));
    }
    // The data a page always asks for first, at fixed addresses: asked for
    // with the code rather than a round trip after it has run (the game's
    // state is preloaded by its own answer's `Link` header).
    let data: &[&str] = match kind {
        "home" => &["/api/me", "/api/solver"],
        "learn" => &["/api/lessons"],
        _ => &[],
    };
    for d in data {
        head.push_str(&format!(
            "<link rel=\"preload\" href=\"{d}\" as=\"fetch\" crossorigin=\"anonymous\">\n"
        ));
    }
    // Every page reads the English strings (the fallback of the others),
    // and those of the reader's language: asked for at once rather than
    // once main.js has run.
    let mut langs = vec!["en"];
    if lang != "en" {
        langs.push(lang);
    }
    for l in langs {
        head.push_str(&format!(
            "<link rel=\"preload\" href=\"{base}i18n/{l}.json\" as=\"fetch\" crossorigin=\"anonymous\">\n"
        ));
    }
    html = html.replacen("</head>", &format!("{head}</head>"), 1);
    html
}

/// Which encoding the request accepts, best first: brotli, gzip, none.
/// (`q=0` refuses one; other weights are not ranked: brotli is smaller.)
fn accepted(headers: &HeaderMap) -> (bool, bool) {
    let mut br = false;
    let mut gz = false;
    for v in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(v) = v.to_str() else { continue };
        for part in v.split(',') {
            let mut it = part.split(';');
            let name = it.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = it.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            if refused {
                continue;
            }
            match name.as_str() {
                "br" => br = true,
                "gzip" | "x-gzip" => gz = true,
                "*" => {
                    br = true;
                    gz = true;
                }
                _ => {}
            }
        }
    }
    (br, gz)
}

/// The answer for a file: the best encoding the request accepts, its ETag
/// (one per encoding, as the bodies differ), 304 when the browser has it.
fn send(file: &File, headers: &HeaderMap, status: StatusCode, cache: &'static str) -> Response {
    let (br, gz) = accepted(headers);
    let (body, encoding) = match (&file.br, &file.gzip) {
        (Some(b), _) if br => (b, Some("br")),
        (_, Some(g)) if gz => (g, Some("gzip")),
        _ => (&file.raw, None),
    };
    let etag = match encoding {
        Some(e) => format!("{}-{e}\"", file.etag.trim_end_matches('"')),
        None => file.etag.clone(),
    };
    let cached = status == StatusCode::OK
        && headers
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(',')
                    .any(|t| t.trim().trim_start_matches("W/") == etag || t.trim() == "*")
            });
    let mut res = if cached {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = Response::new(Body::from(body.clone()));
        *r.status_mut() = status;
        let h = r.headers_mut();
        h.insert(header::CONTENT_TYPE, file.ctype.clone());
        if let Some(e) = encoding {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(e));
        }
        r
    };
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if file.br.is_some() || file.gzip.is_some() {
        h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    }
    if status == StatusCode::OK {
        if let Ok(v) = HeaderValue::from_str(&etag) {
            h.insert(header::ETAG, v);
        }
    }
    res
}

/// `/assets/<path>`: `v/<version>/<file>` for this build's version cached
/// for good, `<file>` revalidated each time; anything else the not-found
/// page.
pub fn asset(path: &str, headers: &HeaderMap) -> Response {
    if path.is_empty() || path.contains("..") || path.contains('\\') || path.starts_with('/') {
        return not_found(headers);
    }
    let s = site();
    let (file, cache) = match path.strip_prefix("v/") {
        Some(rest) => match rest.split_once('/') {
            Some((v, file)) if v == s.version => (file, IMMUTABLE),
            _ => return not_found(headers),
        },
        None => (path, NO_CACHE),
    };
    match s.files.get(file) {
        Some(f) => send(f, headers, StatusCode::OK, cache),
        _ => not_found(headers),
    }
}

/// Which page a path shows, for what it preloads (main.js's routes).
fn kind_of(path: &str) -> &'static str {
    let path = match path.trim_end_matches('/') {
        "" => "/",
        p => p,
    };
    if path == "/" {
        "home"
    } else if path.starts_with("/g/") {
        "game"
    } else if path == "/rules" {
        "rules"
    } else if path.starts_with("/join/") || path.starts_with("/continue/") {
        "claim"
    } else if path == "/learn" {
        "learn"
    } else if path == "/puzzles" {
        "puzzles"
    } else if path == "/analysis" {
        "analysis"
    } else if path == "/review" || path.starts_with("/review/") {
        "review"
    } else if path.starts_with("/@/") || path == "/leaderboard" {
        "player"
    } else {
        "other"
    }
}

/// A page for the reader's language; its answer varies with it too.
fn page(kind: &'static str, headers: &HeaderMap, status: StatusCode) -> Response {
    let s = site();
    let mut res = send(
        &s.pages[&(kind, lang_of(headers))],
        headers,
        status,
        NO_CACHE,
    );
    res.headers_mut().insert(
        header::VARY,
        HeaderValue::from_static("Accept-Encoding, Accept-Language"),
    );
    res
}

/// The single page of the app (`/`, `/g/{id}`, `/rules`, the links): the
/// front end routes.
pub fn index(path: &str, headers: &HeaderMap) -> Response {
    page(kind_of(path), headers, StatusCode::OK)
}

/// The app's own not-found page, status 404: the page, marked so that the
/// app shows "not found" in the reader's language.
pub fn not_found(headers: &HeaderMap) -> Response {
    page("not-found", headers, StatusCode::NOT_FOUND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types() {
        assert_eq!(
            content_type("app.js", "application/javascript"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("i18n/fr.json", ""), "application/json");
        assert_eq!(content_type("x.css", ""), "text/css; charset=utf-8");
        assert_eq!(
            content_type("x.weird", "application/octet-stream"),
            "application/octet-stream"
        );
        assert_eq!(content_type("x.csv", "text/csv"), "text/csv; charset=utf-8");
    }

    #[test]
    fn index_exists() {
        assert!(Assets::get("index.html").is_some());
        assert_eq!(
            asset("../Cargo.toml", &HeaderMap::new()).status(),
            StatusCode::NOT_FOUND
        );
    }

    #[test]
    fn accept_encoding() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
            accepted(&m)
        };
        assert_eq!(h("gzip, deflate, br, zstd"), (true, true));
        assert_eq!(h("gzip"), (false, true));
        assert_eq!(h("br;q=0, gzip;q=0.5"), (false, true));
        assert_eq!(h("identity"), (false, false));
        assert_eq!(h("*"), (true, true));
        assert_eq!(accepted(&HeaderMap::new()), (false, false));
    }

    #[test]
    fn imports_are_read_as_written() {
        let text = "import { a } from './a.js';\nimport {\n  b,\n} from \"./b.js\";\nexport { c } from './c.js';\nimport './d.js';\n// import { x } from './x.js';\n * @type {import('./y.js').Y}\nconst z = await import('./z.js');\n";
        assert_eq!(static_imports(text), ["a.js", "b.js", "c.js", "d.js"]);
    }

    #[test]
    fn the_readers_language_is_preloaded() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::ACCEPT_LANGUAGE, HeaderValue::from_str(v).unwrap());
            lang_of(&m)
        };
        assert_eq!(h("es-ES,es;q=0.9,en;q=0.8"), "es");
        assert_eq!(h("de-DE,de;q=0.9,fr;q=0.5,en;q=0.7"), "en");
        assert_eq!(h("de, eu;q=0.4"), "eu");
        assert_eq!(h("es;q=0, fr"), "fr");
        assert_eq!(lang_of(&HeaderMap::new()), "en");
        let s = site();
        let html = String::from_utf8(s.pages[&("home", "eu")].raw.clone()).unwrap();
        assert!(html.contains("i18n/eu.json") && html.contains("i18n/en.json"));
        let html = String::from_utf8(s.pages[&("home", "en")].raw.clone()).unwrap();
        assert!(!html.contains("i18n/eu.json"));
    }

    #[test]
    fn imports_are_followed() {
        let s = site();
        let home = module_closure(&s.files, "js/home.js");
        assert!(
            home.contains("js/i18n.js") && home.contains("js/api.js"),
            "{home:?}"
        );
        assert!(!home.contains("js/game.js"), "{home:?}");
        // Each page preloads its own module, not another page's.
        let preloads = |kind: &'static str| {
            let html = String::from_utf8(s.pages[&(kind, "en")].raw.clone()).unwrap();
            html.lines()
                .filter(|l| l.contains("modulepreload"))
                .filter_map(|l| l.split("/js/").nth(1))
                .map(|l| l.trim_end_matches("\">").to_string())
                .collect::<Vec<_>>()
        };
        for (kind, own, not) in [
            ("home", "home.js", "game.js"),
            ("game", "game.js", "home.js"),
            ("rules", "rules.js", "game.js"),
            ("claim", "claim.js", "game.js"),
            ("learn", "learn.js", "game.js"),
            ("puzzles", "puzzles.js", "home.js"),
            ("analysis", "analysis.js", "home.js"),
            ("review", "review.js", "home.js"),
            ("player", "player.js", "home.js"),
        ] {
            let p = preloads(kind);
            assert!(
                p.iter().any(|m| m == own) && p.iter().any(|m| m == "main.js"),
                "{kind}: {p:?}"
            );
            assert!(!p.iter().any(|m| m == not), "{kind}: {p:?}");
        }
        assert_eq!(kind_of("/g/abc"), "game");
        assert_eq!(kind_of("/learn"), "learn");
        assert_eq!(kind_of("/review/abc"), "review");
        assert_eq!(kind_of("/@/Koffi"), "player");
        assert_eq!(kind_of("/leaderboard/"), "player");
        assert_eq!(kind_of("/nowhere"), "other");
        assert_eq!(kind_of("/join/abc/def"), "claim");
        assert_eq!(kind_of("/rules"), "rules");
    }
}
