//! One error type for the HTTP layer: every core error maps to a status in one match, and
//! answers `application/problem+json`. A 5xx is logged and never echoed to the client.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug)]
pub enum ApiError {
    NotFound(String),
    BadRequest(String),
    TooLarge(String),
    Unprocessable(String),
    Internal(String),
}

impl From<crate::Error> for ApiError {
    fn from(e: crate::Error) -> Self {
        use crate::Error as E;
        match e {
            E::NotFound { .. } => ApiError::NotFound(e.to_string()),
            E::Input(_)
            | E::Feature { .. }
            | E::Format { .. }
            | E::MissingCrs { .. }
            | E::Projection { .. } => ApiError::Unprocessable(e.to_string()),
            E::Io { .. } | E::Manifest { .. } | E::MissingField { .. } => {
                ApiError::Internal(e.to_string())
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, title, detail) = match self {
            ApiError::NotFound(d) => (StatusCode::NOT_FOUND, "Not Found", d),
            ApiError::BadRequest(d) => (StatusCode::BAD_REQUEST, "Bad Request", d),
            ApiError::TooLarge(d) => (StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large", d),
            ApiError::Unprocessable(d) => {
                (StatusCode::UNPROCESSABLE_ENTITY, "Unprocessable Content", d)
            }
            ApiError::Internal(d) => {
                tracing::error!(detail = %d, "internal error");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Internal Server Error",
                    "The server could not complete the request; the error is logged.".to_string(),
                )
            }
        };
        let body = json!({
            "type": "about:blank",
            "title": title,
            "status": status.as_u16(),
            "detail": detail,
        });
        (
            status,
            [(header::CONTENT_TYPE, "application/problem+json")],
            body.to_string(),
        )
            .into_response()
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
