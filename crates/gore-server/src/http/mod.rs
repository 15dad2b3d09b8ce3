//! The routes: pages, assets, the JSON API and the sockets' upgrades.
//! This file holds the router, the middleware every answer passes
//! (the host and origin checks, the rate limit, the security headers) and
//! the pages; the API's handlers are by area in the files beside it
//! (games, lobby, accounts, learn), the sockets' upgrades with their
//! sockets (src/ws.rs, src/lobby_ws.rs, src/analysis_ws.rs), and what
//! every edge reads from a request in src/extract.rs.

mod accounts;
mod bots;
mod games;
mod learn;
mod lobby;
pub(crate) mod ops;
mod tournaments;

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::assets;
use crate::domain::GameError;
use crate::doors;
use crate::error::{ApiError, ErrorCode};
use crate::extract::SeatToken;
pub use crate::extract::BODY_LIMIT;
use crate::limit::Verdict;
use crate::net::{self, ClientIp, PublicUrl};
use crate::state::AppState;
use accounts::*;
use games::*;
use learn::*;
use lobby::*;
use tournaments::*;

/// The router of the whole app.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/g/{id}", get(game_page))
        .route("/rules", get(page))
        .route("/assets/{*path}", get(asset))
        .route("/join/{id}/{code}", get(page))
        .route("/continue/{id}/{code}", get(page))
        .route("/api/games", post(create))
        .route("/api/solver", get(solver))
        .route("/api/lessons", get(lessons))
        .route("/api/lessons/{id}/check", post(check_lesson))
        .route("/api/me", get(me))
        .route("/api/lobby", get(lobby_view))
        .route("/api/players/{name}", get(player_page))
        .route("/api/leaderboard/{pace}", get(leaderboard))
        .route("/@/{name}", get(page))
        .route("/leaderboard", get(page))
        .route("/bots", get(page))
        .route("/api/bots", get(bot_list))
        .route("/tournaments", get(page))
        .route("/tournament/{id}", get(page))
        .route("/analysis", get(page))
        .route("/review", get(page))
        .route("/review/{id}", get(page))
        .route("/learn", get(page))
        .route("/puzzles", get(crate::puzzles_http::page))
        .route("/api/puzzles/next", get(crate::puzzles_http::next))
        .route("/api/puzzles/themes", get(crate::puzzles_http::themes))
        .route("/api/puzzles/{id}/solve", post(crate::puzzles_http::solve))
        .route("/api/lobby/seek", post(lobby_seek))
        .route("/api/lobby/challenges", post(lobby_post))
        .route(
            "/api/lobby/challenges/{id}",
            get(lobby_outcome).delete(lobby_cancel),
        )
        .route("/api/lobby/challenges/{id}/accept", post(lobby_accept))
        .route("/api/lobby/ws", get(crate::lobby_ws::upgrade))
        .route("/api/user/ws", get(crate::user_ws::upgrade))
        .route("/api/analysis/position", post(analysis_position))
        .route("/api/analysis/ws", get(crate::analysis_ws::upgrade))
        .route("/api/me/name", post(rename))
        .route("/api/account/signup", post(sign_up))
        .route("/api/account/login", post(log_in))
        .route("/api/account/logout", post(log_out))
        .route("/api/account/password", post(change_password))
        .route("/api/account", get(bots::account))
        .route(
            "/api/account/tokens",
            post(bots::create_token).get(bots::list_tokens),
        )
        .route(
            "/api/account/tokens/{id}",
            axum::routing::delete(bots::revoke_token),
        )
        .route("/api/bot/account/upgrade", post(bots::upgrade))
        .route("/api/stream/event", get(bots::event_stream))
        .route(
            "/api/challenge/{name}",
            post(bots::challenge).get(bots::challenge_state),
        )
        .route("/api/challenge/{id}/accept", post(bots::accept))
        .route("/api/challenge/{id}/decline", post(bots::decline))
        .route("/api/challenge/{id}/cancel", post(bots::cancel))
        .route("/api/bot/game/stream/{id}", get(bots::game_stream))
        .route("/api/bot/game/{id}/move/{action}", post(doors::bot_move))
        .route(
            "/api/bot/game/{id}/takeback/{accept}",
            post(doors::bot_takeback_answer),
        )
        // Every other command, by its name (src/doors.rs).
        .route("/api/bot/game/{id}/{command}", post(doors::bot_command))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/actions", post(doors::http_action))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/continue", post(continue_here))
        .route(
            "/api/games/{id}/devices",
            post(device_link).delete(revoke_device),
        )
        .route("/api/games/{id}/rematch", post(rematch))
        // Every other command, by its name (src/doors.rs).
        .route("/api/games/{id}/{command}", post(doors::http_command))
        .route(
            "/api/games/{id}/chat/{n}/report",
            post(doors::http_report_chat),
        )
        .route(
            "/api/games/{id}/takeback/answer",
            post(doors::http_takeback_answer),
        )
        .route("/api/games/{id}/record", get(record))
        .route("/api/games/{id}/review", get(game_review))
        .route("/api/games/{id}/review/status", get(game_review_status))
        .route("/api/review", post(upload_review))
        .route("/api/review/status", get(upload_review_status))
        .route("/api/games/{id}/ws", get(crate::ws::upgrade))
        .route(
            "/api/tournaments",
            get(list_tournaments).post(create_tournament),
        )
        .route("/api/tournaments/{id}", get(tournament))
        .route(
            "/api/tournaments/{id}/players/{player}",
            get(tournament_player),
        )
        .route("/api/tournaments/{id}/join", post(join_tournament))
        .route("/api/tournaments/{id}/pause", post(pause_tournament))
        .route("/api/tournaments/{id}/withdraw", post(withdraw_tournament))
        .fallback(fallback)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(state.clone(), rate_limit))
        // Outermost: the Host check comes first, every answer gets the
        // headers.
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        // After the layers above, so outside them: a balancer asks by the
        // server's own address (no Host check) and often (no rate limit).
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        // The request id and span, the drain, the count of refusals.
        .layer(middleware::from_fn_with_state(state.clone(), ops::observe))
        .with_state(state)
}

/// Whether a request comes from this site (or from a tool: no `Origin`):
/// `--public-url`'s origin when set, else the `Host` it was sent to, over
/// the scheme it came by (`https` when a trusted proxy says so, else
/// `http`: the server itself speaks plain HTTP), so that a page of the
/// same host over the other scheme is another site.
fn same_origin(headers: &HeaderMap, public: Option<&PublicUrl>, https: bool) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    if let Some(public) = public {
        return origin.to_str().is_ok_and(|o| public.origin_matches(o));
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let scheme = if https { "https://" } else { "http://" };
    let origin = origin.to_str().ok().map(|o| {
        o.get(..scheme.len())
            .filter(|s| s.eq_ignore_ascii_case(scheme))
            .map_or("", |_| &o[scheme.len()..])
    });
    matches!((origin, host), (Some(o), Some(h)) if !o.is_empty() && o.eq_ignore_ascii_case(h))
}

/// Per-address rate limit on the API, invitations and game pages: `429
/// rate_limited` when an address goes over. A game page (`/g/{id}`) looks
/// the game up in the database (7,000 random ids a second from one address
/// before); the other pages and the assets are served from memory and not
/// counted, so that a classroom behind one address can load the app.
///
/// An address far over its limit ([`Verdict::Close`]) is answered with
/// `Connection: close` and its connection closed.
async fn rate_limit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let counted = ["/api/", "/join/", "/g/"]
        .iter()
        .any(|p| path.starts_with(p));
    if let Some(ip) = client_ip_of(&req).filter(|_| counted) {
        match state.limiter().check_at(ip, state.config().clock.instant()) {
            Verdict::Allow => {}
            Verdict::Refuse => return ApiError::rate_limited().into_response(),
            Verdict::Close => {
                let mut res = ApiError::rate_limited().into_response();
                res.headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
                return res;
            }
        }
    }
    // A first visit's inline page is a few hundred KB for a request of a
    // few hundred bytes: an address gets a few a second, then plain pages
    // (which name their assets) until its bucket fills again. Asked of
    // the bucket only by the requests that would get one.
    let page = !path.starts_with("/api/") && !path.starts_with("/assets/v/");
    let inline = match client_ip_of(&req) {
        Some(ip) if page && crate::assets::wants_inline(req.headers()) => state
            .inline_pages()
            .allow_at(ip, state.config().clock.instant()),
        _ => true,
    };
    crate::assets::with_inline(inline, next.run(req)).await
}

/// The client's address: [`ClientIp`], else the TCP peer's.
fn client_ip_of(req: &Request) -> Option<IpAddr> {
    req.extensions()
        .get::<ClientIp>()
        .map(|ClientIp(ip)| *ip)
        .or_else(|| {
            req.extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(a)| a.ip())
        })
}

/// Refuses another `Host` than `--public-url`'s (`421 wrong_host`, against
/// DNS rebinding) and cross-site writes and sockets; gives a 405 its JSON
/// body; marks cookies `Secure` over HTTPS; adds the security headers.
async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let config = state.config();
    let public = config.public_url.as_deref().and_then(PublicUrl::parse);
    let trusted_peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .is_some_and(|ConnectInfo(a)| net::is_trusted(a.ip(), config));
    let secure = net::secure_cookies(config, req.headers(), trusted_peer);
    let host_ok = public.as_ref().is_none_or(|p| {
        req.headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .is_some_and(|h| p.host_matches(h))
    });
    let writes = req.method() != Method::GET && req.method() != Method::HEAD;
    let socket = req.uri().path().ends_with("/ws");
    let method = req.method().clone();
    let mut res = if !host_ok {
        ApiError::new(
            ErrorCode::WrongHost,
            "this server does not serve that host name",
        )
        .into_response()
    } else if (writes || socket) && !same_origin(req.headers(), public.as_ref(), secure) {
        ApiError::forbidden("cross-site request refused").into_response()
    } else {
        next.run(req).await
    };
    if res.status() == StatusCode::METHOD_NOT_ALLOWED {
        res = method_not_allowed(&method, res);
    }
    let h = res.headers_mut();
    if secure {
        let cookies: Vec<HeaderValue> = h.get_all(header::SET_COOKIE).iter().cloned().collect();
        if !cookies.is_empty() {
            h.remove(header::SET_COOKIE);
            for c in cookies {
                h.append(header::SET_COOKIE, with_secure(c));
            }
        }
    }
    // A page carrying its code inline has its own policy (src/assets.rs).
    h.entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(
            crate::assets::CONTENT_SECURITY_POLICY,
        ));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    res
}

/// A cookie with `; Secure` (unless it has it).
fn with_secure(cookie: HeaderValue) -> HeaderValue {
    let has = cookie.to_str().is_ok_and(|c| {
        c.split(';')
            .any(|a| a.trim().eq_ignore_ascii_case("secure"))
    });
    if has {
        return cookie;
    }
    let mut bytes = cookie.as_bytes().to_vec();
    bytes.extend_from_slice(b"; Secure");
    HeaderValue::from_bytes(&bytes).unwrap_or(cookie)
}

/// The router's 405 as `method_not_allowed`, keeping its `Allow`.
fn method_not_allowed(method: &Method, res: Response) -> Response {
    let allow = res.headers().get(header::ALLOW).cloned();
    let list = allow
        .as_ref()
        .and_then(|a| a.to_str().ok())
        .unwrap_or("")
        .to_string();
    let mut out = ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{method} is not allowed here (allowed: {list})"),
    )
    .into_response();
    if let Some(a) = allow {
        out.headers_mut().insert(header::ALLOW, a);
    }
    out
}

async fn page(uri: Uri, headers: HeaderMap) -> Response {
    assets::index(uri.path(), &headers)
}

/// `/g/{id}`: the page, or for a game that does not exist the not-found
/// page with status 404.
async fn game_page(
    State(state): State<AppState>,
    Path(id): Path<String>,
    SeatToken(token): SeatToken,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    match state.games().view(&id, token.as_deref()).await {
        Err(GameError::NoGame) => assets::not_found(&headers),
        // Another failure (the database) is the game page's to report.
        Err(_) => assets::index(uri.path(), &headers),
        Ok(view) => {
            // The page's first request is the game's state: its answer,
            // the API's own (`GET /api/games/{id}` for this visitor), goes
            // in the page, a round trip saved. (The id is a valid one:
            // only [0-9a-z].)
            let data = serde_json::to_string(&crate::api::GameView::from(view))
                .map(|json| vec![(format!("/api/games/{id}"), json)])
                .unwrap_or_default();
            assets::index_with(uri.path(), &headers, &data).await
        }
    }
}

async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    assets::asset(&path, &headers)
}

async fn fallback(uri: Uri, headers: HeaderMap) -> Response {
    if uri.path().starts_with("/api/") || uri.path() == "/api" {
        ApiError::new(crate::error::ErrorCode::NotFound, "no such endpoint").into_response()
    } else {
        assets::not_found(&headers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::parse_json;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Body {
        action: String,
        ply: Option<u64>,
    }

    fn message(r: Result<Body, ApiError>) -> String {
        let e = r.expect_err("accepted");
        assert_eq!(e.code, ErrorCode::BadRequest);
        e.message
    }

    #[test]
    fn one_object_and_nothing_after() {
        let ok: Body = parse_json(b" \n{\"action\":\"a1\",\"ply\":0}\r\n ").unwrap();
        assert_eq!(
            ok,
            Body {
                action: "a1".into(),
                ply: Some(0)
            }
        );
        let m = message(parse_json(br#"{"action":"a1","ply":0} trailing {{{"#));
        assert!(m.contains("trailing"), "{m}");
        let m = message(parse_json(br#"{"action":"a1","ply":0}{"action":"a2"}"#));
        assert!(m.contains("trailing"), "{m}");
        for not_object in [
            &br#"["a1",0]"#[..],
            b"\"a1\"",
            b"7",
            b"null",
            b"",
            b"  ",
            b"\xef\xbb\xbf{}",
        ] {
            let m = message(parse_json(not_object));
            assert!(m.contains("JSON object"), "{not_object:?}: {m}");
        }
        // A field is still named.
        let m = message(parse_json(br#"{"action": 5}"#));
        assert!(m.starts_with("action:"), "{m}");
    }

    #[test]
    fn secure_is_added_once() {
        let c = with_secure(HeaderValue::from_static("gore_x=1; Path=/; HttpOnly"));
        assert_eq!(c, "gore_x=1; Path=/; HttpOnly; Secure");
        assert_eq!(with_secure(c.clone()), c);
    }
}
