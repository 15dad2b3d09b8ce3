//! What every browser test needs: a `gore serve`, a headless Chromium,
//! and helpers that read the page as a player sees it. Each browser test
//! file says `mod browser_support; use browser_support::*;`.
#![allow(dead_code)]

pub use std::io::{BufRead, BufReader};
pub use std::path::{Path, PathBuf};
pub use std::process::{Child, Command, Stdio};
pub use std::sync::Mutex;
pub use std::time::{Duration, Instant};

pub use chromiumoxide::browser::{Browser, BrowserConfig};
pub use chromiumoxide::cdp::browser_protocol::emulation::SetUserAgentOverrideParams;
pub use chromiumoxide::cdp::browser_protocol::page::Viewport as ClipViewport;
pub use chromiumoxide::handler::viewport::Viewport;
pub use chromiumoxide::page::ScreenshotParams;
pub use chromiumoxide::Page;
pub use futures::StreamExt;
pub use serde_json::Value;

/// One browser test at a time: each starts a server and one or two
/// Chromiums, which is plenty for a small machine.
pub static SERIAL: Mutex<()> = Mutex::new(());

pub type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

// ---------------------------------------------------------------- setup --

/// Debian's Chromium, or `$CHROMIUM`.
pub fn chromium() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(p) = std::env::var("CHROMIUM") {
        candidates.push(p.into());
    }
    candidates.push("/usr/bin/chromium".into());
    candidates.push("/usr/bin/chromium-browser".into());
    candidates.into_iter().find(|p| p.is_file())
}

/// The browser, or `None` after a loud warning (a failure on CI).
pub fn browser_or_skip(test: &str) -> Option<PathBuf> {
    if let Some(p) = chromium() {
        return Some(p);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let msg = format!(
        "\n\
         ************************************************************\n\
         *  BROWSER TEST {test} SKIPPED: Chromium not found\n\
         *  (looked for $CHROMIUM, /usr/bin/chromium).\n\
         *  Install it with: apt-get install -y chromium\n\
         ************************************************************\n"
    );
    if ci {
        panic!("{msg}(CI=true: a missing browser is a failure)");
    }
    eprintln!("{msg}");
    None
}

pub fn screenshots_dir() -> PathBuf {
    // tests run in the crate's folder; the workspace target is two up.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/screenshots");
    std::fs::create_dir_all(&dir).expect("create target/screenshots");
    dir
}

/// A `gore serve` on a free port with a fresh database.
pub struct Server {
    pub child: Child,
    pub url: String,
    pub db: PathBuf,
    pub _dir: tempfile::TempDir,
}

impl Server {
    pub fn start() -> Server {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db.sqlite3");
        let (child, url) = Server::spawn(&db, 0);
        Server {
            child,
            url,
            db,
            _dir: dir,
        }
    }

    pub fn spawn(db: &Path, port: u16) -> (Child, String) {
        Server::spawn_with(db, port, &[])
    }

    /// [`Server::spawn`] with more options for `gore serve`.
    pub fn spawn_with(db: &Path, port: u16, extra: &[&str]) -> (Child, String) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
            .args(["serve", "--port", &port.to_string(), "--db"])
            .arg(db)
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start gore serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the ready line");
        let url = line
            .trim()
            .strip_prefix("Goré is ready: open ")
            .unwrap_or_else(|| panic!("unexpected first line from gore serve: {line:?}"))
            .trim_end_matches('/')
            .to_string();
        (child, url)
    }

    pub fn port(&self) -> u16 {
        self.url.rsplit(':').next().unwrap().parse().unwrap()
    }

    /// Stops the server (as a crash would).
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again on the same port and database.
    pub fn restart(&mut self) {
        let port = self.port();
        let mut tries = 0;
        loop {
            // The port may take a moment to be free again.
            if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() || tries > 50 {
                break;
            }
            tries += 1;
            std::thread::sleep(Duration::from_millis(100));
        }
        let (child, url) = Server::spawn(&self.db, port);
        assert_eq!(url, self.url);
        self.child = child;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One Chromium with its own profile (its own cookies and localStorage).
pub struct Chrome {
    pub browser: Browser,
    pub handler: tokio::task::JoinHandle<()>,
    pub _profile: tempfile::TempDir,
}

impl Chrome {
    pub async fn launch(exe: &Path, width: u32, height: u32) -> Res<Chrome> {
        let profile = tempfile::tempdir()?;
        let config = BrowserConfig::builder()
            .chrome_executable(exe)
            .no_sandbox()
            .user_data_dir(profile.path())
            .viewport(Viewport {
                width,
                height,
                device_scale_factor: Some(1.0),
                emulating_mobile: width < 500,
                is_landscape: false,
                has_touch: width < 500,
            })
            .window_size(width, height)
            .args([
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ])
            .arg("--lang=en-US")
            .launch_timeout(Duration::from_secs(60))
            .request_timeout(Duration::from_secs(60))
            .build()?;
        let (browser, mut handler) = Browser::launch(config).await?;
        let handler = tokio::spawn(async move {
            while let Some(event) = handler.next().await {
                if event.is_err() {
                    // Unknown events from a newer Chromium are not fatal.
                    continue;
                }
            }
        });
        Ok(Chrome {
            browser,
            handler,
            _profile: profile,
        })
    }

    /// A new tab at `url`, loaded. Bounded (60 s times [`SLACK`]): a tab
    /// whose load the browser never reports fails the test, not hangs CI.
    pub async fn page(&self, url: &str) -> Res<Page> {
        // A blank tab, then the page navigated from itself and waited on
        // by its document: CDP's load event for a tab opened straight at a
        // URL was now and then never reported on a busy machine ("the
        // browser never finished opening …/analysis", issue 27 point 27).
        let open = async {
            let page = self.browser.new_page("about:blank").await?;
            if !url.starts_with("http") {
                return Res::Ok(page);
            }
            go(&page, url).await;
            wait_for(
                &page,
                "location.protocol.startsWith('http') && document.readyState !== 'loading'",
                &format!("{url} to open"),
                60,
            )
            .await?;
            Res::Ok(page)
        };
        tokio::time::timeout(Duration::from_secs(60 * SLACK), open)
            .await
            .map_err(|_| format!("the browser never finished opening {url}"))?
    }

    pub async fn close(mut self) {
        let _ = self.browser.close().await;
        let _ = self.browser.wait().await;
        self.handler.abort();
    }
}

// -------------------------------------------------------------- helpers --

/// Evaluates JavaScript (an expression, or a function body when it starts
/// with `return`) and returns its JSON value.
pub async fn js(page: &Page, code: &str) -> Res<Value> {
    let expr = if code.trim_start().starts_with("return") {
        format!("(() => {{ {code} }})()")
    } else {
        code.to_string()
    };
    let result = page.evaluate(expr).await?;
    Ok(result.value().cloned().unwrap_or(Value::Null))
}

/// How much slower than a quiet machine a loaded one may run the page and
/// the server: every deadline of `wait_for` is multiplied by it. They only
/// bound how long a failing test waits, so a large factor costs nothing.
pub const SLACK: u64 = 3;

/// Waits until `cond` (a JavaScript expression) is true, `secs` seconds on
/// a quiet machine (times [`SLACK`]).
pub async fn wait_for(page: &Page, cond: &str, what: &str, secs: u64) -> Res<()> {
    let start = Instant::now();
    let secs = secs * SLACK;
    loop {
        if let Ok(Value::Bool(true)) = js(page, &format!("!!({cond})")).await {
            return Ok(());
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let text = js(
                page,
                "document.body ? document.body.innerText.slice(0, 1500) : ''",
            )
            .await
            .unwrap_or(Value::Null);
            return Err(format!(
                "timed out after {secs} s waiting for {what} ({cond}); page text: {text}"
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
}

/// `s` as a JavaScript string literal.
fn js_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

/// Waits until the element with id `id` is on the page.
pub async fn wait_id(page: &Page, id: &str, what: &str, secs: u64) -> Res<()> {
    let cond = format!("document.getElementById({})", js_str(id));
    wait_for(page, &cond, what, secs).await
}

/// Waits until an element `selector` finds is on the page.
pub async fn wait_el(page: &Page, selector: &str, what: &str, secs: u64) -> Res<()> {
    let cond = format!("document.querySelector({})", js_str(selector));
    wait_for(page, &cond, what, secs).await
}

/// Waits until no element `selector` finds is on the page.
pub async fn wait_gone(page: &Page, selector: &str, what: &str, secs: u64) -> Res<()> {
    let cond = format!("!document.querySelector({})", js_str(selector));
    wait_for(page, &cond, what, secs).await
}

/// Waits until the element with id `id` is on the page and not hidden
/// (a condition that throws, on an element not there yet, is not met).
pub async fn wait_shown(page: &Page, id: &str, what: &str, secs: u64) -> Res<()> {
    let cond = format!("!document.getElementById({}).hidden", js_str(id));
    wait_for(page, &cond, what, secs).await
}

/// Waits until the element with id `id` is on the page and hidden.
pub async fn wait_hidden(page: &Page, id: &str, what: &str, secs: u64) -> Res<()> {
    let cond = format!("document.getElementById({}).hidden", js_str(id));
    wait_for(page, &cond, what, secs).await
}

/// Waits until the control with id `id` is on the page and enabled.
pub async fn wait_enabled(page: &Page, id: &str, what: &str, secs: u64) -> Res<()> {
    let cond = format!("!document.getElementById({}).disabled", js_str(id));
    wait_for(page, &cond, what, secs).await
}

/// Waits until `selector` finds exactly `n` elements.
pub async fn wait_count(page: &Page, selector: &str, n: usize, what: &str, secs: u64) -> Res<()> {
    let cond = format!(
        "document.querySelectorAll({}).length === {n}",
        js_str(selector)
    );
    wait_for(page, &cond, what, secs).await
}

/// Waits until the element with id `id` is on the page with exactly the
/// text `text`.
pub async fn wait_text(page: &Page, id: &str, text: &str, what: &str, secs: u64) -> Res<()> {
    let cond = format!(
        "document.getElementById({}).textContent === {}",
        js_str(id),
        js_str(text)
    );
    wait_for(page, &cond, what, secs).await
}

/// Waits until the element with id `id` is on the page with a text that
/// starts with `prefix`.
pub async fn wait_text_starts(
    page: &Page,
    id: &str,
    prefix: &str,
    what: &str,
    secs: u64,
) -> Res<()> {
    let cond = format!(
        "document.getElementById({}).textContent.startsWith({})",
        js_str(id),
        js_str(prefix)
    );
    wait_for(page, &cond, what, secs).await
}

/// Waits until the page's path starts with `prefix` and the element with
/// id `id` is on it (the new page has drawn).
pub async fn wait_page(page: &Page, prefix: &str, id: &str, what: &str, secs: u64) -> Res<()> {
    let cond = format!(
        "location.pathname.startsWith({}) && document.getElementById({})",
        js_str(prefix),
        js_str(id)
    );
    wait_for(page, &cond, what, secs).await
}

/// Waits until the element with id `id` is on the page with its
/// `data-*` attribute `key` (in the dataset's camelCase) equal to `value`.
pub async fn wait_data(
    page: &Page,
    id: &str,
    key: &str,
    value: &str,
    what: &str,
    secs: u64,
) -> Res<()> {
    let cond = format!(
        "document.getElementById({}).dataset[{}] === {}",
        js_str(id),
        js_str(key),
        js_str(value)
    );
    wait_for(page, &cond, what, secs).await
}

/// Waits until the page's path is `path` and the element with id `id` is
/// on it (the new page has drawn).
pub async fn wait_at(page: &Page, path: &str, id: &str, what: &str, secs: u64) -> Res<()> {
    let cond = format!(
        "location.pathname === {} && document.getElementById({})",
        js_str(path),
        js_str(id)
    );
    wait_for(page, &cond, what, secs).await
}

/// Waits until the game page shows more than `ply` actions.
pub async fn wait_ply_above(page: &Page, ply: u64, what: &str, secs: u64) -> Res<()> {
    let cond = format!("Number(document.getElementById('game-page').dataset.ply) > {ply}");
    wait_for(page, &cond, what, secs).await
}

/// Waits until the game page shows more than `ply` actions, or the game
/// over.
pub async fn wait_ply_above_or_over(page: &Page, ply: u64, what: &str, secs: u64) -> Res<()> {
    let cond = format!(
        "(g => g.dataset.status === 'over' || Number(g.dataset.ply) > {ply})\
         (document.getElementById('game-page'))"
    );
    wait_for(page, &cond, what, secs).await
}

/// Clicks the element a selector finds, as a mouse would. A page that
/// draws itself again (an update from the server) can replace the element
/// between finding and clicking it ("Could not find node with given id"),
/// and a button can appear a moment after what shows it: the click is
/// tried again until the element is there to take it (10 s, times the
/// slack).
pub async fn click(page: &Page, selector: &str) -> Res<()> {
    let start = Instant::now();
    loop {
        let tried = async {
            let el = page.find_element(selector).await?;
            el.scroll_into_view().await?;
            el.click().await?;
            Res::Ok(())
        };
        let e = match tried.await {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        // CDP's node ids go stale when the page redraws between the find
        // and the click (on a loaded machine, every time): the page clicks
        // its own element then, in one step.
        let sel = serde_json::to_string(selector)?;
        let js_click = format!(
            "(e => e && !e.disabled ? (e.scrollIntoView({{block: 'center'}}), e.click(), true) : false)\
             (document.querySelector({sel}))"
        );
        if page
            .evaluate(js_click)
            .await
            .ok()
            .and_then(|v| v.into_value::<bool>().ok())
            == Some(true)
        {
            return Ok(());
        }
        if start.elapsed() > Duration::from_secs(10 * SLACK) {
            return Err(format!("no element {selector} to click: {e}").into());
        }
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
}

/// A screenshot of the whole page. (chromiumoxide's `full_page` resets
/// the emulated screen afterwards, so the page is captured beyond the
/// viewport instead, keeping a phone-sized screen phone-sized.)
pub async fn shot(page: &Page, name: &str) -> Res<()> {
    let path = screenshots_dir().join(format!("{name}.png"));
    let m = page.layout_metrics().await?;
    let clip = ClipViewport {
        x: 0.0,
        y: 0.0,
        width: m.css_content_size.width,
        height: m.css_content_size.height,
        scale: 1.0,
    };
    page.save_screenshot(
        ScreenshotParams::builder()
            .capture_beyond_viewport(true)
            .clip(clip)
            .build(),
        &path,
    )
    .await?;
    Ok(())
}

/// Sets a form control's value (a `<select>` or an `<input>`) and tells
/// the page with a `change` event, as choosing or typing and leaving would.
pub async fn set_value(page: &Page, id: &str, value: &str) -> Res<()> {
    let found = js(
        page,
        &format!(
            "(() => {{ const e = document.getElementById({}); if (!e) return false; e.value = {}; e.dispatchEvent(new Event('change', {{bubbles: true}})); return true; }})()",
            serde_json::to_string(id)?,
            serde_json::to_string(value)?
        ),
    )
    .await?;
    if found != Value::Bool(true) {
        return Err(format!("no element #{id}").into());
    }
    Ok(())
}

/// Switches the language with the page's own switch and waits until the
/// page says it is in it.
pub async fn choose_lang(page: &Page, lang: &str) -> Res<()> {
    set_value(page, "lang-select", lang).await?;
    wait_for(
        page,
        &format!("document.documentElement.lang === '{lang}'"),
        "the language",
        10,
    )
    .await
}

/// Presses a key where the focus is.
pub async fn key(page: &Page, k: &str) -> Res<()> {
    page.find_element("body").await?.press_key(k).await?;
    Ok(())
}

/// What has the focus: `body`, `hole:a1` for a board hole, `#id`, or a
/// tag and the start of its text.
pub async fn focused(page: &Page) -> Res<String> {
    let v = js(
        page,
        "(() => { const e = document.activeElement; if (!e || e === document.body) return 'body'; if (e.dataset && e.dataset.hole) return 'hole:' + e.dataset.hole; return e.id ? '#' + e.id : e.tagName + ':' + (e.textContent || '').trim().slice(0, 30); })()",
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

/// Presses Tab until `want` (as [`focused`] names it) has the focus, at
/// most 40 times; the error lists what had it on the way.
pub async fn tab_to(page: &Page, want: &str) -> Res<()> {
    let mut seen = Vec::new();
    for _ in 0..40 {
        key(page, "Tab").await?;
        let f = focused(page).await?;
        if f == want {
            return Ok(());
        }
        seen.push(f);
    }
    Err(format!("Tab never reached {want}: {seen:?}").into())
}

/// The text of the first element a selector finds (empty when none).
pub async fn text(page: &Page, selector: &str) -> Res<String> {
    let v = js(
        page,
        &format!(
            "(() => {{ const e = document.querySelector({}); return e ? e.textContent : null; }})()",
            serde_json::to_string(selector)?
        ),
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

/// What the game page offers the player now.
#[derive(Debug)]
pub struct View {
    pub status: String,
    pub busy: bool,
    pub ply: u64,
    pub holes: Vec<String>,
    pub accept: bool,
    pub pass: bool,
    pub offer: bool,
}

pub async fn view(page: &Page) -> Res<View> {
    let r = view_inner(page).await;
    if r.is_err() {
        let _ = shot(page, "fail-view").await;
    }
    r
}

pub async fn view_inner(page: &Page) -> Res<View> {
    let v = js(
        page,
        r#"(() => {
            const g = document.getElementById('game-page');
            if (!g) return null;
            return {
                status: g.dataset.status || '',
                busy: g.dataset.busy === '1',
                ply: Number(g.dataset.ply || 0),
                holes: [...document.querySelectorAll('.hole[aria-disabled="false"]')].map(e => e.dataset.hole),
                accept: !!document.getElementById('accept-btn'),
                pass: !!document.getElementById('pass-btn'),
                offer: !!document.getElementById('offer-btn'),
            };
        })()"#,
    )
    .await?;
    if v.is_null() {
        return Err("not on a game page".into());
    }
    Ok(View {
        status: v["status"].as_str().unwrap_or_default().to_string(),
        busy: v["busy"].as_bool().unwrap_or(false),
        ply: v["ply"].as_u64().unwrap_or(0),
        holes: v["holes"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|h| h.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        accept: v["accept"].as_bool().unwrap_or(false),
        pass: v["pass"].as_bool().unwrap_or(false),
        offer: v["offer"].as_bool().unwrap_or(false),
    })
}

/// Checks that the game page drew each action once and applied each of
/// them once: `window.goreShown` (the plies animated on the board) counts
/// up by one from the first state, and among the messages the page took
/// (`window.goreTrace`) each action arrived in exactly one, an update of the
/// socket (actions went over the socket, so no HTTP answer or poll brought
/// one, and no duplicate state was taken again). `fallbacks_allowed` for a
/// page whose socket was cut on purpose.
pub async fn rendered_once(page: &Page, who: &str, fallbacks_allowed: bool) -> Res<()> {
    let v = js(
        page,
        "return { trace: window.goreTrace || [], shown: window.goreShown || [],          ply: Number(document.getElementById('game-page').dataset.ply) }",
    )
    .await?;
    let trace = v["trace"].as_array().ok_or("no window.goreTrace")?;
    let shown: Vec<u64> = serde_json::from_value(v["shown"].clone())?;
    let ply = v["ply"].as_u64().ok_or("no ply")?;
    let first = trace
        .first()
        .and_then(|e| e["ply"].as_u64())
        .ok_or("an empty trace")?;
    let expected: Vec<u64> = (first + 1..=ply).collect();
    assert_eq!(shown, expected, "{who}: the actions drawn on the board");
    let mut brought = vec![0u32; ply as usize + 1];
    for e in trace.iter().filter(|e| e["applied"] == Value::Bool(true)) {
        let (to, added) = (e["ply"].as_u64().unwrap(), e["added"].as_u64().unwrap());
        for k in to - added + 1..=to {
            brought[k as usize] += 1;
        }
        let kind = e["kind"].as_str().unwrap_or_default();
        if added > 0 && !fallbacks_allowed {
            assert_eq!(kind, "update", "{who}: an action came by {kind}: {e}");
        }
    }
    for k in first + 1..=ply {
        assert_eq!(
            brought[k as usize], 1,
            "{who}: action {k} was taken {} times; trace: {trace:?}",
            brought[k as usize]
        );
    }
    // A whole state taken again at a ply the page already had (the answer
    // to an HTTP action after the socket's copy) is the double render this
    // forbids; it brings no action, so only this count sees it.
    let again = trace
        .iter()
        .filter(|e| {
            e["applied"] == Value::Bool(true)
                && e["kind"] != "update"
                && e["added"] == 0
                && e["ply"].as_u64().unwrap_or(0) > first
        })
        .count();
    if !fallbacks_allowed {
        assert_eq!(
            again, 0,
            "{who}: a state it already had was taken again: {trace:?}"
        );
    }
    Ok(())
}

/// A small deterministic generator for choosing holes.
pub struct Lcg(pub u64);
impl Lcg {
    pub fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// Sets the animation speed (kept in localStorage, read at each move).
pub async fn set_speed(page: &Page, speed: &str) -> Res<()> {
    js(
        page,
        &format!("localStorage.setItem('gore.animation', '{speed}')"),
    )
    .await?;
    Ok(())
}

/// From the home page: choose the options and start a game; returns once
/// the game page shows. The options are behind "Level, side and rules"
/// (`#game-options`), the game starts with one of the play buttons
/// (`#play-ai`, `#play-friend`, `#play-local`).
pub async fn new_game(page: &Page, mode: &str, colour: &str, level: u8) -> Res<()> {
    wait_for(
        page,
        "document.getElementById('play-ai')",
        "the home page's play buttons",
        20,
    )
    .await?;
    js(page, "document.getElementById('game-options').open = true").await?;
    if mode == "ai" {
        js(
            page,
            &format!(
                "(() => {{ const s = document.getElementById('level'); s.value = '{level}'; s.dispatchEvent(new Event('change', {{bubbles: true}})); }})()"
            ),
        )
        .await?;
    }
    if mode != "local" {
        click(page, &format!("#colour-{colour}")).await?;
    }
    click(page, &format!("#play-{mode}")).await?;
    wait_for(
        page,
        "location.pathname.startsWith('/g/') && document.getElementById('game-page')",
        "the game page",
        20,
    )
    .await?;
    live(page).await
}

/// Waits for the game page's socket: actions go over it once it is open
/// (before, by HTTP, which [`rendered_once`] would count as a fallback).
pub async fn live(page: &Page) -> Res<()> {
    wait_for(
        page,
        "document.querySelector('#conn.conn-open')",
        "the live connection",
        20,
    )
    .await
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

// -------------------------------------------------------- accessibility --

/// axe-core's script, installed by `npm ci --prefix .ci` (pinned in
/// .ci/package.json), or `None` after a loud warning (a failure on CI).
pub fn axe_script() -> Option<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node_modules/axe-core/axe.min.js");
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) => {
            let msg = format!(
                "\n\
                 ************************************************************\n\
                 *  ACCESSIBILITY CHECK SKIPPED: {} unreadable ({e})\n\
                 *  Install it with: npm ci --prefix .ci\n\
                 ************************************************************\n",
                path.display()
            );
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{msg}(CI=true: a missing axe-core is a failure)");
            }
            eprintln!("{msg}");
            None
        }
    }
}

/// Runs axe-core on the page as it is now and returns its serious and
/// critical violations: a JSON array of `{id, impact, help, nodes: [{target,
/// html, summary}]}`, empty when there is none (or when axe-core is not
/// installed outside CI: see [`axe_script`]). Use as
/// `let v = axe(&page).await?; assert!(v.as_array().unwrap().is_empty(), "{v:#}")`.
pub async fn axe(page: &Page) -> Res<Value> {
    let Some(script) = axe_script() else {
        return Ok(Value::Array(vec![]));
    };
    // Injected through the DevTools protocol, which the page's CSP does
    // not govern (a <script> element would be refused by script-src 'self').
    let loaded = js(page, "typeof window.axe === 'object'").await?;
    if loaded != Value::Bool(true) {
        page.evaluate(script).await?;
    }
    let result = page
        .evaluate(
            r#"(async () => {
                const r = await window.axe.run(document, {
                    resultTypes: ['violations'],
                });
                return r.violations
                    .filter(v => v.impact === 'serious' || v.impact === 'critical')
                    .map(v => ({
                        id: v.id,
                        impact: v.impact,
                        help: v.help,
                        nodes: v.nodes.slice(0, 8).map(n => ({
                            target: n.target,
                            html: n.html.slice(0, 200),
                            summary: n.failureSummary,
                        })),
                    }));
            })()"#,
        )
        .await?;
    Ok(result.value().cloned().unwrap_or(Value::Array(vec![])))
}

/// Asserts that axe finds no serious or critical violation; `what` names
/// the page in the failure.
pub async fn assert_accessible(page: &Page, what: &str) -> Res<()> {
    let v = axe(page).await?;
    let n = v.as_array().map_or(0, Vec::len);
    if n > 0 {
        let _ = shot(page, &format!("fail-axe-{what}")).await;
        return Err(format!("{what}: {n} serious or critical axe violations: {v:#}").into());
    }
    Ok(())
}

/// A `gore serve` on a free port with a fresh database and more options
/// (e.g. `--solver-db DIR`).
pub fn start_server_with(extra: &[&str]) -> Server {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db.sqlite3");
    let (child, url) = Server::spawn_with(&db, 0, extra);
    Server {
        child,
        url,
        db,
        _dir: dir,
    }
}

// Game pages, as several suites drive them.

/// Creates a game from the page (its cookie gives this browser the seat)
/// and remembers it as the home page would; returns the answer.
pub async fn create(page: &Page, body: &str) -> Res<Value> {
    let v = js(
        page,
        &format!(
            r#"fetch('/api/games', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({body})}})
            .then(r => r.json()).then(j => {{
                const list = JSON.parse(localStorage.getItem('gore.games') || '[]');
                list.unshift({{id: j.id, mode: {body}.mode, seat: j.seat, invite: j.invite}});
                localStorage.setItem('gore.games', JSON.stringify(list));
                return j;
            }})"#
        ),
    )
    .await?;
    if v["id"].as_str().is_none() {
        return Err(format!("no game created: {v}").into());
    }
    Ok(v)
}

/// Opens a game page and waits for its socket.
pub async fn open(page: &Page, server: &Server, url: &str) -> Res<()> {
    visit(page, format!("{}{url}", server.url)).await?;
    wait_for(
        page,
        "document.getElementById('game-page')",
        "the game page",
        20,
    )
    .await?;
    live(page).await
}

pub async fn ply_is(page: &Page, n: u64, what: &str) -> Res<()> {
    wait_for(
        page,
        &format!("(g => g && g.dataset.ply === '{n}' && g.dataset.busy === '0')(document.getElementById('game-page'))"),
        what,
        20,
    )
    .await
}

/// Follows the header's link to `href`, opening the Menu first where the
/// links are behind it (a phone's width).
pub async fn nav_to(page: &Page, href: &str) -> Res<()> {
    let hidden = js(
        page,
        "getComputedStyle(document.getElementById('menu-button')).display !== 'none' \
         && document.getElementById('menu-button').getAttribute('aria-expanded') !== 'true'",
    )
    .await?;
    if hidden == Value::Bool(true) {
        click(page, "#menu-button").await?;
    }
    click(page, &format!(".site-header nav a[href='{href}']")).await
}

/// Navigates `page` to `url` from the page itself and waits for the new
/// document: CDP's `Page.navigate` waits on a load event that a busy
/// machine now and then never reported (issue 27, point 27).
pub async fn visit(page: &Page, url: impl AsRef<str>) -> Res<()> {
    let url = url.as_ref();
    js(page, "window.__goreLeft = true").await?;
    go(page, url).await;
    wait_for(
        page,
        "window.__goreLeft === undefined && location.protocol.startsWith('http') && document.readyState !== 'loading'",
        &format!("{url} to open"),
        60,
    )
    .await
}

/// Starts a navigation to `url` from the page itself. Callers wait for what
/// the new page shows (`wait_for`) instead of CDP's load event, which a
/// busy machine sometimes never reports. An error here is the old page's
/// context going away mid-call: the navigation has started.
pub async fn go(page: &Page, url: &str) {
    let _ = js(page, &format!("location.assign({url:?})")).await;
}
