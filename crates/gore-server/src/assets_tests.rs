//! The assets' unit tests: content types, compression, the module
//! graph, the pages' HTML.

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
    let sites = import_sites(text);
    let dynamic: Vec<&str> = sites
        .iter()
        .filter(|s| s.dynamic)
        .map(|s| s.module.as_str())
        .collect();
    assert_eq!(dynamic, ["z.js"]);
}

#[test]
fn imports_are_rewritten_bare_and_comments_left_alone() {
    let text = "import { a } from './a.js';\nimport {\n  b,\n} from \"./b.js\";\nimport './d.js';\n// import { x } from './x.js';\n * @type {import('./y.js').Y}\nconst s = /** @type {import('./w.js').W} */ (v);\nconst z = (await import('./game.js')).gamePage;\n";
    let out = rewrite_imports(text);
    assert!(out.contains("from 'gore/a.js';"), "{out}");
    assert!(out.contains("} from \"gore/b.js\";"), "{out}");
    assert!(out.contains("import 'gore/d.js';"), "{out}");
    assert!(out.contains("(await import('gore/game.js'))"), "{out}");
    // Comments keep their text.
    assert!(out.contains("// import { x } from './x.js';"), "{out}");
    assert!(out.contains("{import('./y.js').Y}"), "{out}");
    assert!(out.contains("{import('./w.js').W}"), "{out}");
    // Everything else is as it was.
    assert_eq!(out.replace("gore/", "./"), text);
}

/// A page's text between `open` and the next `</script>`.
fn element<'a>(html: &'a str, open: &str) -> &'a str {
    let i = html.find(open).unwrap_or_else(|| panic!("no {open}")) + open.len();
    &html[i..i + html[i..].find("</script>").unwrap()]
}

fn inline_page(kind: &'static str, lang: &'static str) -> String {
    site().pages[&(kind, lang)].inline.html.clone()
}

/// The inline pages' import maps, as JSON.
fn import_map(html: &str) -> serde_json::Map<String, serde_json::Value> {
    let map: serde_json::Value =
        serde_json::from_str(element(html, "<script type=\"importmap\">")).unwrap();
    map["imports"].as_object().unwrap().clone()
}

fn decoded(data: &str) -> String {
    let body = data
        .strip_prefix("data:text/javascript;charset=utf-8,")
        .unwrap_or_else(|| panic!("not a module's data: URL: {data}"));
    percent_encoding::percent_decode_str(body)
        .decode_utf8()
        .unwrap()
        .into_owned()
}

#[test]
fn an_inline_page_carries_its_whole_graph_and_maps_every_import() {
    let s = site();
    let base = format!("/assets/v/{}/", s.version);
    for (kind, entry) in KINDS {
        for lang in LANGS {
            let html = inline_page(kind, lang);
            let map = import_map(&html);
            let mut graph = module_closure(&s.files, "js/main.js");
            if let Some(e) = entry {
                graph.extend(module_closure(&s.files, e));
            }
            for name in s.files.keys().filter(|n| n.starts_with("js/")) {
                let bare = format!("gore/{}", &name[3..]);
                let to = map[&bare].as_str().unwrap();
                if !graph.contains(name) {
                    assert_eq!(to, format!("{base}{name}"), "{kind}: {bare}");
                    continue;
                }
                // Its versioned address is the same module.
                assert_eq!(map[&format!("{base}{name}")], to, "{kind}: {name}");
                // It decodes back to the file, its imports made bare.
                let source = decoded(to);
                let file = std::str::from_utf8(&s.files[name].raw).unwrap();
                assert_eq!(source, rewrite_imports(file), "{kind}: {name}");
                // No relative import left; every bare one mapped.
                assert!(
                    import_sites(&source).is_empty(),
                    "{kind}: {name} imports relatively"
                );
                for q in ['\'', '"'] {
                    for lead in [
                        format!("from {q}"),
                        format!("import {q}"),
                        format!("import({q}"),
                    ] {
                        for (i, _) in source.match_indices(&format!("{lead}gore/")) {
                            let spec = &source[i + lead.len()..];
                            let spec = &spec[..spec.find(q).unwrap()];
                            assert!(
                                map.contains_key(spec),
                                "{kind}: {name} imports {spec}, unmapped"
                            );
                        }
                    }
                }
            }
            assert_eq!(
                map.len(),
                s.files.keys().filter(|n| n.starts_with("js/")).count() + graph.len(),
                "{kind}"
            );
            // Nothing to fetch: no stylesheet, module or strings named.
            assert!(!html.contains("rel=\"stylesheet\""), "{kind}");
            assert!(!html.contains("modulepreload"), "{kind}");
            assert!(!html.contains("<script type=\"module\""), "{kind}");
            assert!(html.contains("<style>"), "{kind}");
            for l in ["en", lang] {
                let words: serde_json::Value = serde_json::from_str(element(
                    &html,
                    &format!("<script type=\"application/json\" id=\"gore-i18n-{l}\">"),
                ))
                .unwrap();
                assert!(words["nav.home"].is_string(), "{kind} {l}");
            }
            assert!(html.contains(&format!("<meta name=\"gore-assets\" content=\"{base}\">")));
        }
    }
}

#[test]
fn nothing_inside_an_inline_page_ends_its_element_early() {
    for (kind, _) in KINDS {
        for lang in LANGS {
            let html = inline_page(kind, lang).to_ascii_lowercase();
            // Every `</script` closes one `<script`, every `</style`
            // the `<style>`, and nothing opens a comment.
            assert_eq!(
                html.matches("</script").count(),
                html.matches("<script").count(),
                "{kind} {lang}"
            );
            assert_eq!(html.matches("</style").count(), 1, "{kind} {lang}");
            assert_eq!(html.matches("<style").count(), 1, "{kind} {lang}");
            assert!(!html.contains("<!--"), "{kind} {lang}");
        }
    }
    // Data with `</script>` in it (a name, a chat line) stays data.
    let blocks = data_blocks(&[(
        "/api/games/x".into(),
        r#"{"name":"</script><script>alert(1)</script>"}"#.into(),
    )]);
    assert_eq!(blocks.matches("</script").count(), 1, "{blocks}");
    let json = element(&blocks, "data-gore-url=\"/api/games/x\">");
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(v["name"], "</script><script>alert(1)</script>");
}

#[test]
fn the_inline_pages_policy_allows_its_own_inline_code_only() {
    for (kind, _) in KINDS {
        let p = &site().pages[&(kind, "fr")];
        let html = inline_page(kind, "fr");
        let csp = p.inline_csp.to_str().unwrap();
        let map = element(&html, "<script type=\"importmap\">");
        let boot = element(&html, "<script>");
        let css = &html[html.find("<style>").unwrap() + 7..html.find("</style>").unwrap()];
        let script_src = csp
            .split(';')
            .find(|d| d.trim().starts_with("script-src"))
            .unwrap();
        let style_src = csp
            .split(';')
            .find(|d| d.trim().starts_with("style-src"))
            .unwrap();
        assert_eq!(
            script_src.trim(),
            format!(
                "script-src 'self' 'strict-dynamic' {} {}",
                csp_hash(map),
                csp_hash(boot)
            ),
            "{kind}"
        );
        assert_eq!(
            style_src.trim(),
            format!("style-src 'self' {}", csp_hash(css))
        );
        // The rest is the site's.
        assert_eq!(
            csp.replace(script_src, " script-src 'self'")
                .replace(style_src, " style-src 'self'"),
            crate::assets::CONTENT_SECURITY_POLICY,
        );
        // The known digest of a known text.
        assert_eq!(
            csp_hash("abc"),
            "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='"
        );
    }
}

#[test]
fn the_cookie_chooses_the_plain_page_and_every_page_sets_it() {
    let s = site();
    let get_as = |cookie: Option<&str>, encodings: &str| {
        let mut h = HeaderMap::new();
        if let Some(c) = cookie {
            h.insert(header::COOKIE, HeaderValue::from_str(c).unwrap());
        }
        if !encodings.is_empty() {
            h.insert(
                header::ACCEPT_ENCODING,
                HeaderValue::from_str(encodings).unwrap(),
            );
        }
        let res = index("/learn", &h);
        let vary = res.headers()[header::VARY].to_str().unwrap().to_string();
        let set = res.headers()[header::SET_COOKIE]
            .to_str()
            .unwrap()
            .to_string();
        let csp = res.headers().get(header::CONTENT_SECURITY_POLICY).is_some();
        let etag = res.headers()[header::ETAG].to_str().unwrap().to_string();
        (etag, vary, set, csp)
    };
    let get = |cookie: Option<&str>| get_as(cookie, "br");
    let plain_raw = format!(
        "\"{:016x}\"",
        fnv(&s.pages[&("learn", "en")].plain.raw, FNV_START)
    );
    let plain = format!("{}-br\"", plain_raw.trim_end_matches('"'));
    let inline = format!(
        "\"{:016x}-br\"",
        fnv(s.pages[&("learn", "en")].inline.html.as_bytes(), FNV_START)
    );
    // A client that takes no compressed answer never gets the inline page
    // (hundreds of KB raw, for a request of a few hundred bytes).
    let (etag, _, _, csp) = get_as(None, "");
    assert_eq!(etag, plain_raw);
    assert!(!csp);
    let current = format!("theme=dark; gore_assets={}; other=1", s.version);
    assert_eq!(get(Some(&current)).0, plain);
    assert!(
        !get(Some(&current)).3,
        "the site's policy, set by the router"
    );
    for other in [
        None,
        Some("gore_assets=0123456789ab"),
        Some("gore_assets="),
        Some("x=1"),
    ] {
        let (etag, _, _, csp) = get(other);
        assert_eq!(etag, inline, "{other:?}");
        assert!(csp, "{other:?}");
    }
    let (_, vary, set, _) = get(None);
    assert_eq!(vary, "Accept-Encoding, Accept-Language, Cookie");
    assert_eq!(
        set,
        format!(
            "gore_assets={}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly",
            s.version
        )
    );
    // The rules' text in the reader's language, in both.
    for p in [
        &s.pages[&("rules", "eu")].plain,
        s.pages[&("rules", "eu")].inline.get(),
    ] {
        let html = std::str::from_utf8(&p.raw).unwrap();
        let open = format!("data-gore-url=\"/assets/v/{}/rules/eu.html\">", s.version);
        let text: String = serde_json::from_str(element(html, &open)).unwrap();
        assert_eq!(text.as_bytes(), &s.files["rules/eu.html"].raw[..]);
    }
    // The lessons, the same for all, are in both.
    for p in [
        &s.pages[&("learn", "es")].plain,
        s.pages[&("learn", "es")].inline.get(),
    ] {
        let html = std::str::from_utf8(&p.raw).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(element(html, "data-gore-url=\"/api/lessons\">")).unwrap();
        assert!(v["lessons"].as_array().is_some_and(|l| l.len() > 3), "{v}");
    }
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
    let html = String::from_utf8(s.pages[&("home", "eu")].plain.raw.clone()).unwrap();
    assert!(html.contains("i18n/eu.json") && html.contains("i18n/en.json"));
    let html = String::from_utf8(s.pages[&("home", "en")].plain.raw.clone()).unwrap();
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
        let html = String::from_utf8(s.pages[&(kind, "en")].plain.raw.clone()).unwrap();
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
        ("tournaments", "tournaments.js", "home.js"),
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
    assert_eq!(kind_of("/tournaments"), "tournaments");
    assert_eq!(kind_of("/tournament/xyb7td0874"), "tournaments");
    assert_eq!(kind_of("/nowhere"), "other");
    assert_eq!(kind_of("/join/abc/def"), "claim");
    assert_eq!(kind_of("/rules"), "rules");
}

/// Issue 37: a page carrying API answers is compressed for the one
/// encoding asked for, once per distinct page (a second visitor of the
/// same game at the same ply is sent the kept one), and carries no answer
/// beyond [`DATA_MAX`] (a 1,500-ply game's state was 615 KB inside the
/// page, compressed anew, both ways, for each request).
#[tokio::test]
async fn pages_with_answers_are_compressed_once_and_bounded() {
    let headers = |enc: &str| {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(enc).unwrap());
        h
    };
    let small = vec![("/api/games/abc".to_string(), "{\"x\":1}".to_string())];
    let body = |res: Response| async move {
        let enc = res
            .headers()
            .get(header::CONTENT_ENCODING)
            .map(|v| v.to_str().unwrap().to_string());
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (enc, bytes)
    };
    let kept = || carrying().lock().unwrap().len();
    assert_eq!(kept(), 0);
    let (enc, first) = body(index_with("/g/abc", &headers("br"), &small).await).await;
    assert_eq!(enc.as_deref(), Some("br"));
    let cached = carrying().lock().unwrap().iter().next().unwrap().1.clone();
    // Brotli only: no gzip made, and the raw page not kept beside it.
    assert!(cached.br.is_some() && cached.gzip.is_none() && cached.raw.is_empty());
    let (_, again) = body(index_with("/g/abc", &headers("br"), &small).await).await;
    assert_eq!((kept(), &first), (1, &again), "made once, sent twice");
    // The page is what it carries: the answer is inside.
    let mut html = Vec::new();
    std::io::Read::read_to_end(&mut brotli::Decompressor::new(&first[..], 4096), &mut html)
        .unwrap();
    let html = String::from_utf8(html).unwrap();
    assert!(html.contains("data-gore-url=\"/api/games/abc\">{\"x\":1}</script>"));
    // Gzip for a client that takes only gzip: another page kept.
    let (enc, _) = body(index_with("/g/abc", &headers("gzip"), &small).await).await;
    assert_eq!((enc.as_deref(), kept()), (Some("gzip"), 2));
    // An answer beyond the bound is left for the page to ask for.
    let big = vec![("/api/games/abd".to_string(), "7".repeat(DATA_MAX + 1))];
    let (_, page) = body(index_with("/g/abd", &headers("br"), &big).await).await;
    let mut html = Vec::new();
    std::io::Read::read_to_end(&mut brotli::Decompressor::new(&page[..], 4096), &mut html).unwrap();
    assert!(!String::from_utf8(html).unwrap().contains("/api/games/abd"));
    assert_eq!(kept(), 2, "the plain page is not kept again");
}
