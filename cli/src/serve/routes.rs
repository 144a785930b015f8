//! The router: the API's routes, the page's, and how errors are answered (JSON, with the field
//! at fault; 503 with the solve command for a missing table).

use super::answer::{Game, State};
use super::api_error::ApiError;
use super::page;
use super::params::Params;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, Request, State as AxState};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::sync::Arc;

/// Largest request body (`POST /api/batch`).
pub const MAX_BODY: usize = 1 << 20;
/// Largest request head the router takes (header names and values).
pub const MAX_HEAD: usize = 16 * 1024;
/// Most positions in one batch.
pub const MAX_BATCH: usize = 1000;

type Shared = Arc<State>;

/// Runs `f` on one of the state's analysis threads once a slot is free (a panic in it is a
/// 500, never a dead server).
async fn blocking<T: Send + 'static>(
    state: &Shared,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let _permit =
        state.workers.clone().acquire_owned().await.map_err(|_| {
            ApiError::Status(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into())
        })?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    state.pool.spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(r);
    });
    match rx.await {
        Ok(Ok(r)) => r,
        Ok(Err(_)) | Err(_) => Err(ApiError::Internal("the analysis failed".into())),
    }
}

fn game_of(name: &str) -> Result<Game, ApiError> {
    Game::parse(name).ok_or_else(|| {
        ApiError::NotFound(format!(
            "no game '{}' (the games: mill, dara, oaq)",
            name.chars().take(40).collect::<String>()
        ))
    })
}

/// Answers one position of the query on an analysis thread with `f` (the analysis, or the
/// page's board view).
async fn one_position(
    state: Shared,
    game: &str,
    query: Option<String>,
    f: fn(&State, Game, &Params) -> Result<Value, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let game = game_of(game)?;
    let params = Params::from_query(query.as_deref())?;
    let s = state.clone();
    blocking(&state, move || f(&s, game, &params))
        .await
        .map(Json)
}

async fn analyse(
    AxState(state): AxState<Shared>,
    Path(game): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    one_position(state, &game, query, State::analyse).await
}

async fn board(
    AxState(state): AxState<Shared>,
    Path(game): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    one_position(state, &game, query, State::board).await
}

/// The body of `POST /api/batch`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Batch {
    game: String,
    #[serde(default)]
    variant: Option<String>,
    #[serde(default, alias = "rules")]
    rule: Vec<String>,
    #[serde(default)]
    pv: bool,
    fens: Vec<String>,
}

async fn batch(AxState(state): AxState<Shared>, body: Bytes) -> Result<Json<Value>, ApiError> {
    let b: Batch = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad("body", format!("not a batch request: {e}")))?;
    let game = game_of(&b.game).map_err(|_| {
        ApiError::bad(
            "game",
            format!(
                "no game '{}' (mill, dara, oaq)",
                b.game.chars().take(40).collect::<String>()
            ),
        )
    })?;
    if b.fens.len() > MAX_BATCH {
        return Err(ApiError::bad(
            "fens",
            format!("{} positions, at most {MAX_BATCH} a request", b.fens.len()),
        ));
    }
    let base = Params {
        variant: b.variant,
        rule: b.rule,
        pv: b.pv,
        // Mill answers from the tables alone (a missing table is an error line); Dara and
        // Ô Ăn Quan search positions outside their tables for 50 ms each.
        time: Some(0.05),
        ..Params::default()
    };
    base.check()?;
    for f in &b.fens {
        if f.len() > super::params::MAX_FEN {
            return Err(ApiError::bad("fens", "a position longer than 512 bytes"));
        }
    }
    let s = state.clone();
    blocking(&state, move || {
        use rayon::prelude::*;
        let results: Vec<Value> = b
            .fens
            .par_iter()
            .enumerate()
            .map(|(i, fen)| {
                let p = Params {
                    fen: Some(fen.clone()),
                    ..base.clone()
                };
                match s.analyse(game, &p) {
                    Ok(v) => v,
                    Err(e) => {
                        let (_, body) = e.reply();
                        let mut v = crate::output::line_error(
                            i + 1,
                            fen,
                            body["error"].as_str().unwrap_or(""),
                        );
                        if let Some(solve) = body.get("solve") {
                            v["solve"] = solve.clone();
                        }
                        v
                    }
                }
            })
            .collect();
        Ok(json!({ "results": results }))
    })
    .await
    .map(Json)
}

/// The presets; it takes no parameter (an unknown one is an error, as on every route).
async fn variants(RawQuery(query): RawQuery) -> Result<Json<Value>, ApiError> {
    if let Some(q) = query.as_deref().filter(|q| !q.is_empty()) {
        let name: String = q
            .split(['=', '&'])
            .next()
            .unwrap_or("")
            .chars()
            .take(40)
            .collect();
        return Err(ApiError::bad(
            &name,
            "unknown parameter (/api/variants takes none)",
        ));
    }
    Ok(Json(crate::variants::json()))
}

/// A method a route does not take (POST to an analysis, GET to the batch): 405 in JSON, as
/// every other error.
async fn wrong_method(method: Method) -> ApiError {
    ApiError::Status(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("method {method} not allowed here (the API: GET /api/GAME, GET /api/board/GAME, GET /api/variants, POST /api/batch)"),
    )
}

async fn not_found(method: Method) -> ApiError {
    if method != Method::GET && method != Method::HEAD && method != Method::POST {
        return ApiError::Status(StatusCode::METHOD_NOT_ALLOWED, "method not allowed".into());
    }
    ApiError::NotFound("no such page (the API: /api/mill, /api/dara, /api/oaq, /api/board/GAME, /api/batch, /api/variants)".into())
}

/// Every reply: a time limit, CORS headers, answers to CORS preflight requests.
async fn guard(state: AxState<Shared>, req: Request, next: Next) -> Response {
    let preflight = req.method() == Method::OPTIONS;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let head: usize = req
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum::<usize>()
        + req.uri().to_string().len();
    let mut res = if head > MAX_HEAD {
        ApiError::Status(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("the request head is larger than {MAX_HEAD} bytes"),
        )
        .into_response()
    } else if preflight {
        StatusCode::NO_CONTENT.into_response()
    } else if declared.is_some_and(|n| n > MAX_BODY as u64) {
        // Refused before a byte of it is read.
        ApiError::Status(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the body is larger than {MAX_BODY} bytes"),
        )
        .into_response()
    } else {
        match tokio::time::timeout(state.limits.timeout, next.run(req)).await {
            Ok(r) => r,
            Err(_) => ApiError::Status(
                StatusCode::REQUEST_TIMEOUT,
                "the request took too long".into(),
            )
            .into_response(),
        }
    };
    let mut headers = vec![
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    if preflight {
        headers.extend([
            (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, OPTIONS"),
            (header::ACCESS_CONTROL_ALLOW_HEADERS, "Content-Type"),
            (header::ACCESS_CONTROL_MAX_AGE, "86400"),
        ]);
    }
    for (name, value) in headers {
        res.headers_mut()
            .insert(name, HeaderValue::from_static(value));
    }
    res
}

/// The whole router.
pub fn router(state: Shared) -> Router {
    Router::new()
        .route("/", get(page::index))
        .route("/app.js", get(page::script))
        .route("/style.css", get(page::style))
        .route("/api/variants", get(variants))
        .route("/api/batch", post(batch))
        .route("/api/board/{game}", get(board))
        .route("/api/{game}", get(analyse))
        .method_not_allowed_fallback(wrong_method)
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}
