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
//!
//! Each page comes in two forms, both built at start. A browser whose
//! `gore_assets` cookie names this build's version has the assets in its
//! cache: it gets the *plain* page, which names them (and preloads the
//! page's whole module graph). Any other request — a first visit, or the
//! first after a new build — gets the *inline* page, which needs no request
//! to draw: the stylesheet in a `<style>`, every module of the page's graph
//! as a `data:` URL in an import map (their relative imports rewritten as
//! `gore/x.js`), the strings of English and the reader's language, and the
//! data the page reads first. On a slow connection every request costs a
//! round trip (2 s on DevTools' "Slow 3G"); the inline page costs none.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use rust_embed::RustEmbed;
use sha2::Digest as _;

/// The policy of every answer: the app's own scripts, styles and
/// connections only (it has no inline script or style), never framed.
/// A first visit's page, which carries its code inline, adds the hashes of
/// its inline elements and `'strict-dynamic'` (below).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

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
        File::compressed(
            path,
            data,
            guessed,
            BROTLI_QUALITY,
            flate2::Compression::best(),
        )
    }

    fn compressed(
        path: &str,
        data: Vec<u8>,
        guessed: &str,
        quality: u32,
        level: flate2::Compression,
    ) -> File {
        let ctype = content_type(path, guessed);
        let (br, gzip) = if compressible(&ctype) && data.len() > 256 {
            (Some(brotli(&data, quality)), Some(gzip(&data, level)))
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

fn brotli(data: &[u8], quality: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 3);
    {
        // The window need not be larger than the file (a larger one only
        // costs time to allocate and clear).
        let bits = (usize::BITS - data.len().leading_zeros()).clamp(16, 22);
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, quality, bits);
        // Writing into a Vec cannot fail.
        let _ = w.write_all(data);
        let _ = w.flush();
    }
    out
}

fn gzip(data: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut w = flate2::write::GzEncoder::new(Vec::with_capacity(data.len() / 3), level);
    let _ = w.write_all(data);
    w.finish().unwrap_or_default()
}

/// A page compressed when first sent, then kept.
struct Lazy {
    html: String,
    file: OnceLock<File>,
}

impl Lazy {
    fn new(html: String) -> Lazy {
        Lazy {
            html,
            file: OnceLock::new(),
        }
    }

    fn get(&self) -> &File {
        self.file
            .get_or_init(|| File::new("index.html", self.html.clone().into_bytes(), ""))
    }
}

/// Every file of this build, compressed, and its version.
struct Site {
    version: String,
    files: BTreeMap<String, File>,
    /// index.html with its assets' addresses versioned, the defaults and
    /// preloads added, for each kind of page ([`KINDS`]) and language
    /// ([`LANGS`]): as served with status 200 and as 404.
    pages: BTreeMap<(&'static str, &'static str), Page>,
}

/// One page in its two forms.
struct Page {
    /// For a browser that has this build's assets (its cookie says so):
    /// they are named and preloaded.
    plain: File,
    /// For a first visit: everything the page needs to draw, inside. Its
    /// HTML is made at start, compressed when first asked for: the 44
    /// inline pages are 200 kB each, and compressing them all made `gore
    /// serve` (and every test server) start seconds later.
    inline: Lazy,
    /// The inline page's Content-Security-Policy: the site's, allowing
    /// that page's own inline code by its hash.
    inline_csp: HeaderValue,
}

/// The kinds of page, each with the module that draws it (what main.js
/// imports for its addresses: [`kind_of`]), whose whole graph of static
/// imports the page preloads.
const KINDS: [(&str, Option<&str>); 12] = [
    ("home", Some("js/home.js")),
    ("game", Some("js/game.js")),
    ("rules", Some("js/rules.js")),
    ("claim", Some("js/claim.js")),
    ("learn", Some("js/learn.js")),
    ("puzzles", Some("js/puzzles.js")),
    ("analysis", Some("js/analysis.js")),
    ("review", Some("js/review.js")),
    ("player", Some("js/player.js")),
    ("tournaments", Some("js/tournaments.js")),
    ("other", None),
    ("not-found", None),
];

/// The languages of the app (assets/i18n, i18n.js's `LANGS`): a page
/// preloads the strings of the one its reader's browser asks for first.
const LANGS: [&str; 4] = ["en", "es", "fr", "eu"];

/// The translations: for each key, its text in each of [`LANGS`]
/// (`{"nav.home": {"en": "Home", "es": "Inicio", …}, …}`).
const STRINGS: &str = "i18n/strings.json";

/// Each language's strings (`{"nav.home": "Home", …}`) from the table of
/// [`STRINGS`]. A string without a language's text is left out of that
/// language's (i18n.js shows the English); tests/assets.rs keeps the
/// table whole. A table that does not parse gives every language none
/// (and that test fails).
fn languages_of(table: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let table: BTreeMap<String, BTreeMap<String, String>> = serde_json::from_slice(table)
        .unwrap_or_else(|e| {
            tracing::error!("{STRINGS}: {e}");
            BTreeMap::new()
        });
    LANGS
        .iter()
        .map(|&lang| {
            let strings: BTreeMap<&str, &str> = table
                .iter()
                .filter_map(|(k, texts)| Some((k.as_str(), texts.get(lang)?.as_str())))
                .collect();
            (lang, serde_json::to_vec(&strings).unwrap_or_default())
        })
        .collect()
}

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
    // The translations are one table, every language of a string side by
    // side (a new string is one edit, a missing translation shows): the
    // page fetches each language's strings from `i18n/{lang}.json`, made
    // from it here.
    if let Some(i) = raw.iter().position(|(n, _, _)| n == STRINGS) {
        let (_, table, _) = raw.remove(i);
        for (lang, json) in languages_of(&table) {
            raw.push((format!("i18n/{lang}.json"), json, "application/json".into()));
        }
    }
    let mut files = BTreeMap::new();
    for (name, data, guessed) in raw {
        let file = File::new(&name, data, &guessed);
        files.insert(name, file);
    }
    let mut pages = BTreeMap::new();
    for (kind, entry) in KINDS {
        for lang in LANGS {
            let (plain, _) = page_html(&version, &files, kind, entry, lang, false);
            let (inline, csp) = page_html(&version, &files, kind, entry, lang, true);
            pages.insert(
                (kind, lang),
                Page {
                    plain: File::new("index.html", plain.into_bytes(), ""),
                    inline: Lazy::new(inline),
                    inline_csp: HeaderValue::from_str(&csp)
                        .unwrap_or(HeaderValue::from_static(CONTENT_SECURITY_POLICY)),
                },
            );
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

/// Where a module's code names another module of its folder: the
/// specifier `'./x.js'` of `from './x.js'` (ending an `import` or `export`
/// on one line or the last of several), of `import './x.js'`, or of the
/// dynamic `import('./x.js')`; either quote. Not in comments: neither
/// lines of comment nor the JSDoc types' `/** @type {import('./x.js').T} */`
/// written inline.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ImportSite {
    /// The byte offset of the specifier's `./` in the code.
    at: usize,
    /// The module named, without its `./` (`i18n.js`).
    module: String,
    /// `import('./x.js')`: loaded when the code asks, not with the module.
    dynamic: bool,
}

/// Every [`ImportSite`] of a module's code, in order.
fn import_sites(text: &str) -> Vec<ImportSite> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") || trimmed.starts_with('*') || trimmed.starts_with("/*") {
            continue;
        }
        let comments = comment_spans(line);
        for quote in ['\'', '"'] {
            for (lead, dynamic) in [
                (format!("from {quote}./"), false),
                (format!("import {quote}./"), false),
                (format!("import({quote}./"), true),
            ] {
                for (i, _) in line.match_indices(&lead) {
                    if comments.iter().any(|&(a, b)| a <= i && i < b) {
                        continue;
                    }
                    let after = &line[i + lead.len()..];
                    if let Some(end) = after.find(quote) {
                        out.push(ImportSite {
                            at: start + i + lead.len() - 2,
                            module: after[..end].to_string(),
                            dynamic,
                        });
                    }
                }
            }
        }
    }
    out.sort_by_key(|s| s.at);
    out
}

/// The `/* … */` comments of one line, as byte ranges (one left open runs
/// to the line's end).
fn comment_spans(line: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(a) = line[from..].find("/*") {
        let a = from + a;
        let b = line[a + 2..]
            .find("*/")
            .map_or(line.len(), |b| a + 2 + b + 2);
        spans.push((a, b));
        from = b;
    }
    spans
}

/// The modules of the same folder a module imports statically (what its
/// page preloads); not those it imports dynamically (a page's own, loaded
/// when needed).
fn static_imports(text: &str) -> Vec<String> {
    import_sites(text)
        .into_iter()
        .filter(|s| !s.dynamic)
        .map(|s| s.module)
        .collect()
}

/// A module's code with every import of its folder, static or dynamic,
/// made bare: `'./x.js'` becomes `'gore/x.js'`, which the inline page's
/// import map resolves (a `data:` module has no folder to resolve `./`
/// against).
fn rewrite_imports(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    let mut last = 0;
    for site in import_sites(text) {
        out.push_str(&text[last..site.at]);
        out.push_str(BARE);
        last = site.at + 2;
    }
    out.push_str(&text[last..]);
    out
}

/// The prefix of the bare specifiers of the app's modules (`gore/x.js`).
const BARE: &str = "gore/";

/// What a `data:` URL's source must have percent-encoded: the URL parser
/// drops newlines and tabs (controls) and ends the data at `#`; `%` would
/// be read as an escape; quotes, backslashes and angle brackets would need
/// escaping in the JSON and the HTML around it; non-ASCII is always
/// encoded (as UTF-8). Spaces stay (a fifth of the code: encoded, they
/// made the page a third larger): the parser keeps them inside a URL, and
/// a module's source ends with an encoded newline, never a space.
const DATA_URL: &AsciiSet = &CONTROLS
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'\\')
    .add(b'`');

/// A module's code as a `data:` URL.
fn data_url(source: &str) -> String {
    format!(
        "data:text/javascript;charset=utf-8,{}",
        utf8_percent_encode(source, DATA_URL)
    )
}

/// JSON as it may stand inside a `<script>` element: every `<` (inside a
/// string, as JSON has it nowhere else) written `\u003c`, so that neither
/// `</script` nor `<!--` can appear.
fn json_in_html(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// The CSP source that allows an inline element by its content's SHA-256.
fn csp_hash(text: &str) -> String {
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest.as_slice())
    )
}

/// The inline page's one classic script: it starts the app from the
/// import map. A module script written in the page would be
/// "parser-inserted", and the `data:` modules it imports would need
/// `data:` in `script-src`; a script element made by this allowed script
/// is not, so `'strict-dynamic'` lets it and what it imports load, and
/// nothing else.
const BOOTSTRAP: &str = "(function(){var s=document.createElement('script');s.type='module';\
s.src='data:text/javascript,import%20%22gore%2Fmain.js%22';document.body.appendChild(s);})();";

/// The data a page always reads first and that is the same for everyone:
/// carried in the page, `(its address, its JSON)`: the lessons' list, the
/// rules' text in the reader's language (a JSON string).
fn static_data(
    files: &BTreeMap<String, File>,
    base: &str,
    kind: &str,
    lang: &str,
) -> Vec<(String, String)> {
    match kind {
        "learn" => serde_json::to_string(&crate::api::LessonList::all())
            .map(|j| vec![("/api/lessons".to_string(), j)])
            .unwrap_or_default(),
        "rules" => {
            let path = format!("rules/{lang}.html");
            files
                .get(&path)
                .and_then(|f| std::str::from_utf8(&f.raw).ok())
                .and_then(|text| serde_json::to_string(text).ok())
                .map(|j| vec![(format!("{base}{path}"), j)])
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// The elements that carry API answers in the page, read once by api.js's
/// GET instead of asking the server.
fn data_blocks(data: &[(String, String)]) -> String {
    let mut out = String::new();
    for (url, json) in data {
        out.push_str(&format!(
            "<script type=\"application/json\" data-gore-url=\"{}\">{}</script>\n",
            url.replace('&', "&amp;").replace('"', "&quot;"),
            json_in_html(json)
        ));
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

/// index.html for a kind of page and a language, and the
/// Content-Security-Policy it needs: its assets under the version, the
/// defaults of a new game, the data it reads first where the page can
/// carry it, and for the not-found page a mark that makes the app show its
/// own "not found". The plain page (`inline` false) preloads every module
/// the page runs (main.js's and its `entry`'s graphs) and the strings it
/// reads; the inline page carries them (see the module's doc).
fn page_html(
    version: &str,
    files: &BTreeMap<String, File>,
    kind: &str,
    entry: Option<&str>,
    lang: &str,
    inline: bool,
) -> (String, String) {
    let csp = CONTENT_SECURITY_POLICY.to_string();
    let Some(index) = files
        .get("index.html")
        .and_then(|f| std::str::from_utf8(&f.raw).ok())
    else {
        let missing = "<!doctype html><meta charset=utf-8><title>Goré</title>\
                       <p>Goré: the web app is missing from this build.";
        return (missing.to_string(), csp);
    };
    let base = format!("/assets/v/{version}/");
    let mut html = index.replace("\"/assets/", &format!("\"{base}"));
    let mut head = String::new();
    head.push_str(&format!(
        "<meta name=\"gore-defaults\" content=\"{}\">\n",
        defaults_json().replace('"', "&quot;")
    ));
    // Where the assets are, for the modules that fetch one by address
    // (i18n.js's assetUrl): the same in both forms of the page, as
    // `import.meta.url` is a `data:` URL in the inline one.
    head.push_str(&format!("<meta name=\"gore-assets\" content=\"{base}\">\n"));
    if kind == "not-found" {
        head.push_str("<meta name=\"gore-page\" content=\"not-found\">\n");
    }
    head.push_str(&data_blocks(&static_data(files, &base, kind, lang)));
    // The data a page always asks for first, at fixed addresses, that
    // differs by visitor or server: asked for with the code rather than a
    // round trip after it has run (the lessons and the rules are in the
    // page: [`static_data`]; the game's state is put in by its handler).
    let data: &[&str] = match kind {
        "home" => &["/api/me", "/api/solver"],
        _ => &[],
    };
    for d in data {
        head.push_str(&format!(
            "<link rel=\"preload\" href=\"{d}\" as=\"fetch\" crossorigin=\"anonymous\">\n"
        ));
    }
    let mut modules: BTreeSet<String> = module_closure(files, "js/main.js");
    if let Some(e) = entry {
        modules.extend(module_closure(files, e));
    }
    // Every page reads the English strings (the fallback of the others),
    // and those of the reader's language.
    let mut langs = vec!["en"];
    if lang != "en" {
        langs.push(lang);
    }
    if !inline {
        // Asked for at once rather than one import level at a time, or
        // once main.js has run.
        for m in &modules {
            head.push_str(&format!(
                "<link rel=\"modulepreload\" href=\"{base}{m}\">\n"
            ));
        }
        for l in langs {
            head.push_str(&format!(
                "<link rel=\"preload\" href=\"{base}i18n/{l}.json\" as=\"fetch\" crossorigin=\"anonymous\">\n"
            ));
        }
        html = html.replacen("</head>", &format!("{head}</head>"), 1);
        return (html, csp);
    }
    let text = |path: &str| {
        files
            .get(path)
            .and_then(|f| std::str::from_utf8(&f.raw).ok())
            .unwrap_or_default()
    };
    let mut script_src = String::from("script-src 'self' 'strict-dynamic'");
    let mut style_src = String::from("style-src 'self'");
    // The stylesheet (it has no `<`: nothing in it can end the element).
    let link = format!("<link rel=\"stylesheet\" href=\"{base}css/app.css\">");
    let css = text("css/app.css");
    if !css.contains('<') && html.contains(&link) {
        html = html.replacen(&link, &format!("<style>{css}</style>"), 1);
        style_src.push_str(&format!(" {}", csp_hash(css)));
    }
    // Every module of the app is in the map: the page's own as `data:`
    // URLs (under their bare names and their versioned addresses, so that
    // a module fetched later that imports `./i18n.js` gets the same
    // instance), the others at their versioned addresses.
    let mut map = serde_json::Map::new();
    for name in files
        .keys()
        .filter(|n| n.starts_with("js/") && n.ends_with(".js"))
    {
        let bare = format!("{BARE}{}", &name[3..]);
        let url = format!("{base}{name}");
        if modules.contains(name) {
            let data = data_url(&rewrite_imports(text(name)));
            map.insert(url, data.clone().into());
            map.insert(bare, data.into());
        } else {
            map.insert(bare, url.into());
        }
    }
    let map = json_in_html(&serde_json::json!({ "imports": map }).to_string());
    let main = format!("<script type=\"module\" src=\"{base}js/main.js\"></script>");
    html = html.replacen(
        &main,
        &format!("<script type=\"importmap\">{map}</script>"),
        1,
    );
    script_src.push_str(&format!(" {} {}", csp_hash(&map), csp_hash(BOOTSTRAP)));
    for l in &langs {
        head.push_str(&format!(
            "<script type=\"application/json\" id=\"gore-i18n-{l}\">{}</script>\n",
            json_in_html(text(&format!("i18n/{l}.json")))
        ));
    }
    // What the plain page would fetch (every module, the stylesheet, these
    // strings): the app puts it in the browser's cache once the page is
    // drawn, for the next visit, which the cookie sends to the plain page.
    let mut cache: Vec<String> = files
        .keys()
        .filter(|n| n.starts_with("js/") && n.ends_with(".js"))
        .map(|n| format!("{base}{n}"))
        .collect();
    cache.push(format!("{base}css/app.css"));
    cache.extend(langs.iter().map(|l| format!("{base}i18n/{l}.json")));
    head.push_str(&format!(
        "<script type=\"application/json\" id=\"gore-cache\">{}</script>\n",
        json_in_html(&serde_json::Value::from(cache).to_string())
    ));
    html = html.replacen("</head>", &format!("{head}</head>"), 1);
    // Last in the body: the app may look for any element of the page.
    html = html.replacen(
        "</body>",
        &format!("<script>{BOOTSTRAP}</script>\n</body>"),
        1,
    );
    let csp = csp.replacen("script-src 'self'", &script_src, 1).replacen(
        "style-src 'self'",
        &style_src,
        1,
    );
    (html, csp)
}

/// Whether the request's cookie says the browser has this version's
/// assets (it had a page of this build).
fn returning(headers: &HeaderMap, version: &str) -> bool {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .any(|c| {
            c.trim()
                .strip_prefix(COOKIE)
                .and_then(|v| v.strip_prefix('='))
                == Some(version)
        })
}

/// The cookie that says which build's assets the browser has.
const COOKIE: &str = "gore_assets";

/// `html` with the API answers in `data` inside (before `</head>`).
fn with_data(html: &[u8], data: &[(String, String)]) -> Vec<u8> {
    let blocks = data_blocks(data);
    let html = String::from_utf8_lossy(html);
    html.replacen("</head>", &format!("{blocks}</head>"), 1)
        .into_bytes()
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
    } else if path.starts_with("/@/") || path == "/leaderboard" || path == "/bots" {
        "player"
    } else if path == "/tournaments" || path.starts_with("/tournament/") {
        "tournaments"
    } else {
        "other"
    }
}

tokio::task_local! {
    /// Whether this request may get a first visit's inline page, as the
    /// edge's per-address limit says ([`with_inline`]).
    static INLINE_ALLOWED: bool;
}

/// Runs `f` (a request's handling) with first visits' inline pages
/// allowed or not: an address over its share of them gets the plain page,
/// a twentieth of the size (it loads its assets as a returning browser
/// does). Outside (tests of this module), they are allowed.
pub async fn with_inline<F: std::future::Future>(allowed: bool, f: F) -> F::Output {
    INLINE_ALLOWED.scope(allowed, f).await
}

/// Whether a request would get the inline page if allowed: it has no
/// cookie of this build's assets.
pub fn wants_inline(headers: &HeaderMap) -> bool {
    !returning(headers, &site().version)
}

/// Whether `headers` get the plain page: a browser with this build's
/// assets, a client that takes no compressed answer (the inline page raw
/// is hundreds of KB: never sent so), or an address over its share of
/// inline pages.
fn plain_for(headers: &HeaderMap) -> bool {
    let (br, gz) = accepted(headers);
    !wants_inline(headers) || !(br || gz) || !INLINE_ALLOWED.try_with(|a| *a).unwrap_or(true)
}

/// A page for the reader's language, plain or inline ([`plain_for`]),
/// with its answer's headers (it varies with the language and the cookie
/// too, and sets the cookie).
fn page(kind: &'static str, headers: &HeaderMap, status: StatusCode) -> Response {
    let s = site();
    let p = &s.pages[&(kind, lang_of(headers))];
    let plain = plain_for(headers);
    let file = if plain { &p.plain } else { p.inline.get() };
    let res = send(file, headers, status, NO_CACHE);
    page_headers(res, p, plain)
}

fn page_headers(mut res: Response, p: &Page, plain: bool) -> Response {
    let h = res.headers_mut();
    h.insert(
        header::VARY,
        HeaderValue::from_static("Accept-Encoding, Accept-Language, Cookie"),
    );
    if !plain {
        h.insert(header::CONTENT_SECURITY_POLICY, p.inline_csp.clone());
    }
    if let Ok(v) = HeaderValue::from_str(&format!(
        "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly",
        site().version
    )) {
        h.append(header::SET_COOKIE, v);
    }
    res
}

/// The single page of the app (`/`, `/g/{id}`, `/rules`, the links): the
/// front end routes.
pub fn index(path: &str, headers: &HeaderMap) -> Response {
    page(kind_of(path), headers, StatusCode::OK)
}

/// The most a page carries of API answers: a longer answer (a long game's
/// state is hundreds of KB) is left for the page to ask for.
pub const DATA_MAX: usize = 32 * 1024;
/// Pages with answers inside kept compressed, the latest used: a crowd
/// watching one game at one ply costs one compression.
const CARRYING_KEPT: usize = 64;
/// Pages with answers inside compressed at once, off the async threads
/// (the rest wait their turn): a flood of them holds two blocking threads,
/// never the runtime's.
const COMPRESSING_AT_ONCE: usize = 2;

/// A page carrying answers, as compressed for one encoding, by the
/// SHA-256 of its HTML and the encoding.
type Carrying = std::sync::Mutex<hashlink::LruCache<([u8; 32], Encoding), std::sync::Arc<File>>>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Encoding {
    Brotli,
    Gzip,
    Identity,
}

fn carrying() -> &'static Carrying {
    static KEPT: OnceLock<Carrying> = OnceLock::new();
    KEPT.get_or_init(|| std::sync::Mutex::new(hashlink::LruCache::new(CARRYING_KEPT)))
}

fn compressing() -> &'static tokio::sync::Semaphore {
    static AT_ONCE: OnceLock<tokio::sync::Semaphore> = OnceLock::new();
    AT_ONCE.get_or_init(|| tokio::sync::Semaphore::new(COMPRESSING_AT_ONCE))
}

/// [`index`] with the answers of API requests the page makes first
/// (`(address, JSON)`), which it then reads from itself: a round trip
/// saved. Answers beyond [`DATA_MAX`] in all are left out. The page is
/// compressed for the one encoding the request takes, off the async
/// threads, and kept ([`CARRYING_KEPT`]): the same page again (another
/// spectator at the same ply) is not compressed again.
pub async fn index_with(path: &str, headers: &HeaderMap, data: &[(String, String)]) -> Response {
    let size: usize = data.iter().map(|(u, j)| u.len() + j.len()).sum();
    if data.is_empty() || size > DATA_MAX {
        return index(path, headers);
    }
    let kind = kind_of(path);
    let s = site();
    let p = &s.pages[&(kind, lang_of(headers))];
    let plain = plain_for(headers);
    let base = if plain { &p.plain } else { p.inline.get() };
    let html = with_data(&base.raw, data);
    let (br, gz) = accepted(headers);
    let encoding = match (br, gz) {
        (true, _) => Encoding::Brotli,
        (_, true) => Encoding::Gzip,
        _ => Encoding::Identity,
    };
    let key = (<[u8; 32]>::from(sha2::Sha256::digest(&html)), encoding);
    let kept = carrying()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .cloned();
    let file = match kept {
        Some(f) => f,
        None => {
            let permit = compressing().acquire().await;
            let made = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                std::sync::Arc::new(one_encoding(html, encoding))
            })
            .await;
            let Ok(file) = made else {
                return crate::error::ApiError::internal("the page could not be made")
                    .into_response();
            };
            carrying()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key, file.clone());
            file
        }
    };
    page_headers(send(&file, headers, StatusCode::OK, NO_CACHE), p, plain)
}

/// A page made for its answers, compressed for one encoding only (its
/// raw HTML dropped once compressed: that encoding is all it is sent in).
fn one_encoding(html: Vec<u8>, encoding: Encoding) -> File {
    let etag = format!("\"{:016x}\"", fnv(&html, FNV_START));
    let (raw, br, gzip) = match encoding {
        Encoding::Brotli => (Vec::new(), Some(brotli(&html, 5)), None),
        Encoding::Gzip => (
            Vec::new(),
            None,
            Some(gzip(&html, flate2::Compression::default())),
        ),
        Encoding::Identity => (html, None, None),
    };
    File {
        ctype: HeaderValue::from_static("text/html; charset=utf-8"),
        etag,
        raw,
        br,
        gzip,
    }
}

/// The app's own not-found page, status 404: the page, marked so that the
/// app shows "not found" in the reader's language.
pub fn not_found(headers: &HeaderMap) -> Response {
    page("not-found", headers, StatusCode::NOT_FOUND)
}

#[cfg(test)]
#[path = "assets_tests.rs"]
mod tests;
