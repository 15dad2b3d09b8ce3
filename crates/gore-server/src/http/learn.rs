//! The learning routes: the solver's rule sets, the lessons, the analysis
//! board's positions, and the reviews of games and uploaded records.

use axum::extract::{Extension, Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::error::{ApiError, ErrorCode};
use crate::extract::JsonBody;
use crate::net::ClientIp;
use crate::state::AppState;

/// `GET /api/solver`: the rule sets the perfect player plays here.
pub(crate) async fn solver(State(state): State<AppState>) -> Response {
    Json(crate::api::Solver {
        perfect: state
            .games()
            .perfect_rules()
            .into_iter()
            .map(String::from)
            .collect(),
    })
    .into_response()
}

/// `GET /api/lessons`: the lessons of the guided first game.
pub(crate) async fn lessons() -> Response {
    Json(crate::api::LessonList::all()).into_response()
}

/// `POST /api/lessons/{id}/check`: the learner's actions, judged by the
/// rules library (gore-learn); an illegal one is `illegal_action` naming
/// its index and the rule.
pub(crate) async fn check_lesson(
    Path(id): Path<String>,
    body: Result<JsonBody<crate::api::LessonActions>, ApiError>,
) -> Result<Response, ApiError> {
    use gore_learn::lessons::{check, find, Outcome};
    let lesson = find(&id).ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such lesson"))?;
    let JsonBody(body) = body?;
    let too_many = |n: usize| {
        ApiError::bad_request(format!(
            "actions: this lesson is decided after {n} action(s); send at most {n}"
        ))
    };
    if body.actions.len() > lesson.goal.moves() {
        return Err(too_many(lesson.goal.moves()));
    }
    let actions = body
        .actions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            a.parse::<gore_core::Action>()
                .map_err(|e| ApiError::bad_request(format!("actions[{i}]: `{a}`: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let answer = match check(lesson, &actions) {
        Outcome::Met(step) => crate::api::LessonCheck::new("met", &step, None),
        Outcome::Continue(step) => crate::api::LessonCheck::new("continue", &step, None),
        Outcome::Missed(step, miss) => crate::api::LessonCheck::new("missed", &step, Some(miss)),
        Outcome::Illegal {
            index,
            action,
            rule,
        } => {
            return Err(ApiError::new(
                ErrorCode::IllegalAction,
                format!("actions[{index}]: `{action}`: {rule}"),
            ))
        }
        Outcome::TooMany { decided } => return Err(too_many(decided)),
    };
    Ok(Json(answer).into_response())
}

/// `POST /api/analysis/position`: a setup (rules, GPN, line) judged by the
/// rules library: the position it leads to with its legal actions, or the
/// error naming the field or the rule. Applying an action is sending the
/// line with it added.
pub(crate) async fn analysis_position(
    JsonBody(setup): JsonBody<crate::api::AnalysisSetup>,
) -> Result<Json<crate::api::AnalysisPosition>, ApiError> {
    let game = setup.read()?;
    Ok(Json(crate::api::AnalysisPosition::from(&game)))
}

/// The analysis pool's key of a client: its address, or one key for
/// clients whose address is unknown.
fn analysis_client(addr: Option<Extension<ClientIp>>) -> crate::ai::ClientKey {
    match addr {
        Some(Extension(ClientIp(ip))) => crate::ai::ClientKey::ip(ip),
        None => crate::ai::ClientKey::named("unknown"),
    }
}

/// A review's wire text (kept in the store) as the answer.
fn review_answer(text: String) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        text,
    )
        .into_response()
}

/// `GET /api/games/{id}/review`: the finished game's review.
pub(crate) async fn game_review(
    State(state): State<AppState>,
    Path(id): Path<String>,
    addr: Option<Extension<ClientIp>>,
) -> Result<Response, ApiError> {
    let text = state.games().record(&id).await?;
    let r = state
        .reviews()
        .of_game(&id, &text, analysis_client(addr))
        .await?;
    Ok(review_answer(r))
}

/// `GET /api/games/{id}/review/status`: where the game's review is (a
/// waiting request is told its place in the queue).
pub(crate) async fn game_review_status(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Json<crate::api::ReviewStatus> {
    Json(state.reviews().state(&id).await.into())
}

/// `GET /api/review/status`: where the caller's review of an uploaded
/// record is.
pub(crate) async fn upload_review_status(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
) -> Json<crate::api::ReviewStatus> {
    let client = analysis_client(addr);
    Json(state.reviews().upload_state(&client).await.into())
}

/// `POST /api/review`: the review of an uploaded record.
pub(crate) async fn upload_review(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    body: Result<JsonBody<crate::api::ReviewUpload>, ApiError>,
) -> Result<Response, ApiError> {
    let JsonBody(body) = body?;
    let r = state
        .reviews()
        .of_upload(&body.record, analysis_client(addr))
        .await?;
    Ok(review_answer(r))
}
