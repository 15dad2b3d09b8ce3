//! The puzzles' edge: `GET /api/puzzles/next`, `GET /api/puzzles/themes` and
//! `POST /api/puzzles/{id}/solve` read the request, ask the puzzle book
//! (`domain::puzzles`) and write the typed answer (api.rs). The player's
//! puzzle rating lives in the browser; the server keeps no state per player.

use std::collections::HashMap;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use gore_core::Action;
use gore_learn::puzzles::{update_rating, Puzzle, Theme, RATING_K, START_RATING};

use crate::api::{PuzzleThemes, PuzzleView, SolveBody, SolveResult, ThemeCount};
use crate::error::{ApiError, ErrorCode};
use crate::extract::JsonBody;
use crate::state::AppState;

/// Recently seen ids the client may send, at most.
const MAX_SEEN: usize = 50;

fn view(p: &Puzzle) -> PuzzleView {
    PuzzleView {
        id: p.id.clone(),
        rules: p.rules().to_string(),
        gpn: p.position.to_string(),
        to_move: p.to_move(),
        rating: p.rating,
        legal: p
            .position
            .legal_actions()
            .iter()
            .map(|a| a.to_string())
            .collect(),
    }
}

/// The positions of the solution, for stepping through it: the puzzle's,
/// then after the answer and after each action of the line (the file's
/// line is checked legal when the book is read; it stops at the first
/// action that would not play).
fn solution_positions(p: &Puzzle) -> Vec<String> {
    let mut at = p.position;
    let mut out = vec![at.to_string()];
    for &a in std::iter::once(&p.answer).chain(p.line.iter()) {
        match at.play(a) {
            Ok(next) => at = next,
            Err(_) => break,
        }
        out.push(at.to_string());
    }
    out
}

/// `GET /api/puzzles/next?rating=R&theme=T&seen=ID,ID`: a puzzle near the
/// rating (1500 by default), of the theme if given, not one of `seen` if
/// another remains.
pub async fn next(
    State(state): State<AppState>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::bad_request(format!("query: {e}")))?;
    if let Some(k) = q
        .keys()
        .find(|k| !matches!(k.as_str(), "rating" | "theme" | "seen"))
    {
        return Err(ApiError::bad_request(format!(
            "{k}: unknown parameter (rating, theme, seen)"
        )));
    }
    let rating = match q.get("rating").map(|s| s.trim()) {
        None | Some("") => START_RATING,
        Some(s) => s
            .parse::<i32>()
            .ok()
            .filter(|r| (0..=4000).contains(r))
            .ok_or_else(|| ApiError::bad_request("rating: a whole number from 0 to 4000"))?,
    };
    let theme = match q.get("theme").map(|s| s.trim()) {
        None | Some("") | Some("all") => None,
        Some(s) => Some(Theme::from_name(s).ok_or_else(|| {
            let names: Vec<&str> = Theme::ALL.iter().map(|t| t.as_str()).collect();
            ApiError::bad_request(format!("theme: unknown theme {s:?} ({})", names.join(", ")))
        })?),
    };
    // The latest first (the browser's order): the variety of themes
    // looks at the last ones.
    let seen: Vec<&str> = q
        .get("seen")
        .map(|s| {
            s.split(',')
                .filter(|x| !x.is_empty())
                .take(MAX_SEEN)
                .collect()
        })
        .unwrap_or_default();
    let puzzle = state
        .puzzles()
        .next(rating, theme, &seen, &mut rand::thread_rng())
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "theme: no puzzle has this theme"))?;
    Ok(Json(view(puzzle)).into_response())
}

/// What the puzzles page asks for first when the browser holds no puzzle
/// history (no rating, nothing seen, all themes): `puzzles.js`'s address.
pub const FIRST_ASKED: &str = "/api/puzzles/next?rating=1500&seen=";

/// `/puzzles`: the page, carrying the puzzle a new solver would be served
/// at [`FIRST_ASKED`], so that a first visit draws its board without a
/// round trip (a returning solver's page asks with his own rating and
/// history, and the carried answer goes unread).
pub async fn page(State(state): State<AppState>, uri: Uri, headers: HeaderMap) -> Response {
    let data = state
        .puzzles()
        .next(START_RATING, None, &[], &mut rand::thread_rng())
        .and_then(|p| serde_json::to_string(&view(p)).ok())
        .map(|json| vec![(FIRST_ASKED.to_string(), json)])
        .unwrap_or_default();
    crate::assets::index_with(uri.path(), &headers, &data).await
}

/// `GET /api/puzzles/themes`: the themes that have puzzles, with counts.
pub async fn themes(State(state): State<AppState>) -> Json<PuzzleThemes> {
    Json(PuzzleThemes {
        themes: state
            .puzzles()
            .themes()
            .into_iter()
            .map(|(t, count)| ThemeCount {
                theme: t.as_str().to_string(),
                count,
            })
            .collect(),
    })
}

/// `POST /api/puzzles/{id}/solve {"action": …}`: right or not, and the
/// solution.
pub async fn solve(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Result<JsonBody<SolveBody>, ApiError>,
) -> Result<Response, ApiError> {
    let book = state.puzzles();
    let puzzle = book
        .get(&id)
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such puzzle"))?;
    let JsonBody(body) = body?;
    let action: Action = body
        .action
        .parse()
        .map_err(|e| ApiError::bad_request(format!("action: {e}")))?;
    puzzle
        .position
        .check(action)
        .map_err(|e| ApiError::new(ErrorCode::IllegalAction, format!("action: {e}")))?;
    let before = match body.rating {
        None => START_RATING,
        Some(r) if (0..=4000).contains(&r) => r,
        Some(_) => {
            return Err(ApiError::bad_request(
                "rating: a whole number from 0 to 4000",
            ))
        }
    };
    let correct = book.solve(&id, action).is_some_and(|v| v.correct);
    Ok(Json(SolveResult {
        correct,
        answer: puzzle.answer.to_string(),
        answers: puzzle.answers().iter().map(|a| a.to_string()).collect(),
        margin: puzzle.margin,
        depth: puzzle.proof.depths().0,
        deep: puzzle.proof.depths().1,
        themes: puzzle.themes.iter().map(|t| t.to_string()).collect(),
        line: puzzle.line.iter().map(|a| a.to_string()).collect(),
        positions: solution_positions(puzzle),
        rating: puzzle.rating,
        new_rating: update_rating(before, puzzle.rating, correct, RATING_K),
    })
    .into_response())
}

#[cfg(test)]
mod tests {
    /// The carried puzzle's address is the page's first request for a new
    /// solver (puzzles.js: `rating` defaults to the start rating, `seen`
    /// empty, no theme).
    #[test]
    fn the_first_address_is_a_new_solvers() {
        let js = include_str!("../assets/js/puzzles.js");
        assert!(js.contains("load(KEY.rating, '1500')"));
        assert!(js
            .contains("new URLSearchParams({ rating: String(rating()), seen: seen().join(',') })"));
        assert_eq!(
            super::FIRST_ASKED,
            format!("/api/puzzles/next?rating={}&seen=", super::START_RATING)
        );
    }
}
