//! Why a request gets no analysis, and how that is answered: JSON with the field at fault; 503
//! with the solve command for a missing table.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

/// Why a request gets no analysis.
#[derive(Debug)]
pub enum ApiError {
    /// Bad input (400): the field and what is wrong with it.
    Bad { field: String, message: String },
    /// No such route or game (404).
    NotFound(String),
    /// A table is missing (503): the message and the command that builds it.
    Missing { message: String, solve: String },
    /// The server is too busy or the request took too long (503 / 408).
    Status(StatusCode, String),
    /// A table could not be read (500).
    Internal(String),
}

impl ApiError {
    /// A 400 naming the field.
    pub fn bad(field: &str, message: impl Into<String>) -> ApiError {
        ApiError::Bad {
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// The status and the JSON body.
    pub fn reply(&self) -> (StatusCode, Value) {
        match self {
            ApiError::Bad { field, message } => (
                StatusCode::BAD_REQUEST,
                json!({"error": format!("{field}: {message}"), "field": field}),
            ),
            ApiError::NotFound(m) => (StatusCode::NOT_FOUND, json!({"error": m})),
            ApiError::Missing { message, solve } => (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"error": message, "solve": solve}),
            ),
            ApiError::Status(s, m) => (*s, json!({"error": m})),
            ApiError::Internal(m) => (StatusCode::INTERNAL_SERVER_ERROR, json!({"error": m})),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, body) = self.reply();
        (status, Json(body)).into_response()
    }
}
