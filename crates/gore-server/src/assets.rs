//! The web app's files, embedded in the binary from `assets/`.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "assets/"]
struct Assets;

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

/// `/assets/<path>`: the file, with its type and an ETag; 404 if absent.
pub fn asset(path: &str, headers: &HeaderMap) -> Response {
    if path.is_empty() || path.contains("..") || path.contains('\\') || path.starts_with('/') {
        return not_found();
    }
    let Some(file) = Assets::get(path) else {
        return not_found();
    };
    let etag = format!(
        "\"{}\"",
        file.metadata
            .sha256_hash()
            .iter()
            .take(12)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    let cached = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let mut res = if cached {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let t = content_type(path, file.metadata.mimetype());
        let mut res = Response::new(Body::from(file.data.into_owned()));
        if let Ok(v) = HeaderValue::from_str(&t) {
            res.headers_mut().insert(header::CONTENT_TYPE, v);
        }
        res
    };
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    res
}

/// The single page of the app (`/`, `/g/{id}`, `/rules`): the front end
/// routes.
pub fn index(headers: &HeaderMap) -> Response {
    if Assets::get("index.html").is_some() {
        return asset("index.html", headers);
    }
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        "<!doctype html><meta charset=utf-8><title>Goré</title><p>Goré: the web app is missing from this build.",
    )
        .into_response()
}

/// A plain 404 page.
pub fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "not found\n",
    )
        .into_response()
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
}
