//! One error type for the HTTP layer: every core error maps to a status in one match, and
//! answers `application/problem+json`. A 5xx is logged and never echoed to the client (a 503
//! says only what the server decided: the deadline or the concurrency limit it enforced).

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug)]
pub enum ApiError {
    NotFound(String),
    BadRequest(String),
    MethodNotAllowed(String),
    /// The client did not send its upload in time (408); the connection is closed.
    RequestTimeout(String),
    /// The upload is over the size limit (413); the connection is closed.
    TooLarge(String),
    UnsupportedMediaType(String),
    Unprocessable(String),
    /// An upload whose coordinate system is missing or looks wrong (422, with
    /// `"crs_required": true` so the viewer offers its CRS picker).
    CrsRequired(String),
    /// The server is at a limit it enforces: a deadline it cut, or a concurrency limit (503);
    /// `retry_after_secs` sets `Retry-After`.
    Unavailable {
        detail: String,
        retry_after_secs: Option<u64>,
    },
    Internal(String),
    /// A client over a limit of its own, such as failed token checks (429).
    TooManyRequests {
        detail: String,
        retry_after_secs: u64,
    },
    /// No valid bearer token on a write (401, with `WWW-Authenticate`).
    Unauthorized(String),
    /// A valid token whose role may not do this (403).
    Forbidden(String),
    /// The write would clash with the current state (409): a site id already taken.
    Conflict(String),
    /// `If-Match` names an older version (412).
    PreconditionFailed(String),
    /// An edit without `If-Match` (428).
    PreconditionRequired(String),
}

impl From<outfall_core::Error> for ApiError {
    fn from(e: outfall_core::Error) -> Self {
        use outfall_core::Error as E;
        match e {
            E::NotFound { .. } => ApiError::NotFound(e.to_string()),
            E::Input(_) | E::Feature { .. } | E::Format { .. } | E::Projection { .. } => {
                ApiError::Unprocessable(e.to_string())
            }
            E::MissingCrs { .. } => ApiError::CrsRequired(e.to_string()),
            E::Io { .. } | E::Manifest { .. } | E::MissingField { .. } => {
                ApiError::Internal(e.to_string())
            }
            // The database restarting or out of reach: the client should come back, and a
            // balancer should try another replica. What failed is logged, never echoed.
            E::Registry { .. } => {
                tracing::error!(error = %e, "the site registry failed");
                ApiError::Unavailable {
                    detail: "the site registry is not answering; try again shortly".into(),
                    retry_after_secs: Some(5),
                }
            }
            E::Conflict { .. } => ApiError::PreconditionFailed(e.to_string()),
            E::Exists { .. } => ApiError::Conflict(e.to_string()),
            E::Deadline { .. } => ApiError::Unavailable {
                detail: e.to_string(),
                retry_after_secs: None,
            },
        }
    }
}

/// A path that does not fit its route's parameters (`/tiles/.../99999/...`) is the client's
/// mistake; a route whose parameters do not match its handler is ours.
impl From<PathRejection> for ApiError {
    fn from(e: PathRejection) -> Self {
        if e.status().is_client_error() {
            ApiError::BadRequest(format!("path: {}", e.body_text()))
        } else {
            ApiError::Internal(e.body_text())
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> Self {
        if e.status().is_client_error() {
            ApiError::BadRequest(format!("query string: {}", e.body_text()))
        } else {
            ApiError::Internal(e.body_text())
        }
    }
}

/// What an error answers: its status and title, and the members and headers it adds.
struct Problem {
    status: StatusCode,
    title: &'static str,
    detail: String,
    retry_after_secs: Option<u64>,
    /// Close the connection: the client may still be sending a body nobody reads.
    close: bool,
    crs_required: bool,
    /// Send `WWW-Authenticate`.
    challenge: bool,
}

impl Problem {
    fn new(status: StatusCode, title: &'static str, detail: String) -> Problem {
        Problem {
            status,
            title,
            detail,
            retry_after_secs: None,
            close: false,
            crs_required: false,
            challenge: false,
        }
    }
}

impl ApiError {
    fn problem(self) -> Problem {
        use StatusCode as S;
        match self {
            ApiError::NotFound(d) => Problem::new(S::NOT_FOUND, "Not Found", d),
            ApiError::BadRequest(d) => Problem::new(S::BAD_REQUEST, "Bad Request", d),
            ApiError::MethodNotAllowed(d) => {
                Problem::new(S::METHOD_NOT_ALLOWED, "Method Not Allowed", d)
            }
            ApiError::RequestTimeout(d) => Problem {
                close: true,
                ..Problem::new(S::REQUEST_TIMEOUT, "Request Timeout", d)
            },
            ApiError::TooLarge(d) => Problem {
                close: true,
                ..Problem::new(S::PAYLOAD_TOO_LARGE, "Payload Too Large", d)
            },
            ApiError::UnsupportedMediaType(d) => {
                Problem::new(S::UNSUPPORTED_MEDIA_TYPE, "Unsupported Media Type", d)
            }
            ApiError::Unprocessable(d) => {
                Problem::new(S::UNPROCESSABLE_ENTITY, "Unprocessable Content", d)
            }
            ApiError::CrsRequired(d) => Problem {
                crs_required: true,
                ..Problem::new(S::UNPROCESSABLE_ENTITY, "Unprocessable Content", d)
            },
            ApiError::Unavailable {
                detail,
                retry_after_secs,
            } => {
                tracing::warn!(detail = %detail, "service unavailable");
                Problem {
                    retry_after_secs,
                    ..Problem::new(S::SERVICE_UNAVAILABLE, "Service Unavailable", detail)
                }
            }
            ApiError::TooManyRequests {
                detail,
                retry_after_secs,
            } => Problem {
                retry_after_secs: Some(retry_after_secs),
                ..Problem::new(S::TOO_MANY_REQUESTS, "Too Many Requests", detail)
            },
            ApiError::Unauthorized(d) => Problem {
                challenge: true,
                ..Problem::new(S::UNAUTHORIZED, "Unauthorized", d)
            },
            ApiError::Forbidden(d) => Problem::new(S::FORBIDDEN, "Forbidden", d),
            ApiError::Conflict(d) => Problem::new(S::CONFLICT, "Conflict", d),
            ApiError::PreconditionFailed(d) => {
                Problem::new(S::PRECONDITION_FAILED, "Precondition Failed", d)
            }
            ApiError::PreconditionRequired(d) => {
                Problem::new(S::PRECONDITION_REQUIRED, "Precondition Required", d)
            }
            ApiError::Internal(d) => {
                tracing::error!(detail = %d, "internal error");
                Problem::new(
                    S::INTERNAL_SERVER_ERROR,
                    "Internal Server Error",
                    "The server could not complete the request; the error is logged.".into(),
                )
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let p = self.problem();
        let mut body = json!({
            "type": "about:blank",
            "title": p.title,
            "status": p.status.as_u16(),
            "detail": p.detail,
        });
        if p.crs_required {
            body["crs_required"] = json!(true);
        }
        let mut res = (
            p.status,
            [(header::CONTENT_TYPE, "application/problem+json")],
            body.to_string(),
        )
            .into_response();
        if let Some(s) = p.retry_after_secs {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        if p.challenge {
            res.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"outfall\""),
            );
        }
        if p.close {
            res.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        res
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
