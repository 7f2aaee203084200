//! Access tokens: `ofl_<id>_<secret>`. The id finds the record; the secret is checked
//! against an argon2 hash (the only thing stored), whose comparison is constant-time. An
//! unknown id costs the same argon2 work as a wrong secret, so timing tells nothing
//! (`check` reports that work, so tests assert it without timing anything).

use super::Registry;
use crate::error::{Error, Result};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use serde::Serialize;
use std::str::FromStr;

/// What a caller may do. `Public` is everyone without a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessRole {
    /// Read, and `POST /check`.
    Public,
    /// Submit applications and read their own submissions.
    Applicant,
    /// Record inspections.
    Inspector,
    /// Everything.
    Officer,
}

impl AccessRole {
    pub fn as_str(self) -> &'static str {
        match self {
            AccessRole::Public => "public",
            AccessRole::Applicant => "applicant",
            AccessRole::Inspector => "inspector",
            AccessRole::Officer => "officer",
        }
    }
}

impl FromStr for AccessRole {
    type Err = Error;
    fn from_str(s: &str) -> Result<AccessRole> {
        match s.trim().to_ascii_lowercase().as_str() {
            "public" => Ok(AccessRole::Public),
            "applicant" => Ok(AccessRole::Applicant),
            "inspector" => Ok(AccessRole::Inspector),
            "officer" => Ok(AccessRole::Officer),
            other => Err(Error::Input(format!(
                "role '{other}' is not one of public, applicant, inspector, officer"
            ))),
        }
    }
}

/// A stored token: never the secret, only its argon2 hash.
#[derive(Debug, Clone)]
pub struct TokenRecord {
    pub token_id: String,
    pub name: String,
    pub role: AccessRole,
    pub hash: String,
    pub created_at: String,
}

/// Who is asking: the token's name and role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Caller {
    pub name: String,
    pub role: AccessRole,
}

const PREFIX: &str = "ofl_";

fn random_hex(bytes: usize) -> Result<String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf)
        .map_err(|e| Error::Input(format!("no randomness from the system: {e}")))?;
    Ok(hex::encode(buf))
}

fn hash_secret(secret: &str) -> Result<String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt)
        .map_err(|e| Error::Input(format!("no randomness from the system: {e}")))?;
    let salt =
        SaltString::encode_b64(&salt).map_err(|e| Error::Input(format!("token salt: {e}")))?;
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::Input(format!("token hash: {e}")))
}

/// Issues a token: stores its hash and returns the token itself, which is shown once.
pub fn create(registry: &dyn Registry, name: &str, role: AccessRole) -> Result<String> {
    let name = name.trim();
    if name.is_empty() || name.len() > 100 || name.chars().any(char::is_control) {
        return Err(Error::Input(
            "the token's name must be 1 to 100 printable characters (who holds it)".into(),
        ));
    }
    let id = random_hex(6)?;
    let secret = random_hex(32)?;
    registry.add_token(&TokenRecord {
        token_id: id.clone(),
        name: name.to_string(),
        role,
        hash: hash_secret(&secret)?,
        created_at: super::now_utc(),
    })?;
    Ok(format!("{PREFIX}{id}_{secret}"))
}

/// The caller a bearer token names, or `None` when the token is malformed, unknown, revoked
/// or wrong. Every path that reaches a stored-or-dummy hash runs the full argon2 check.
pub fn verify(registry: &dyn Registry, token: &str) -> Result<Option<Caller>> {
    Ok(check(registry, token)?.caller)
}

/// What one token check did, besides its answer: how many argon2 verifications it ran and
/// at what cost. Every refusal (malformed, unknown id, wrong secret) runs exactly one, at
/// the cost of a real token's hash, so that no early exit tells which part was wrong; the
/// tests assert that from these figures rather than from timings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub caller: Option<Caller>,
    /// argon2 verifications run (1 on every path that parses a stored-or-dummy hash).
    pub verifications: u32,
    /// The checked hash's algorithm, version and parameters, e.g.
    /// `argon2id v=19 m=19456,t=2,p=1` (never its salt or output).
    pub cost: String,
}

/// `verify`, reporting the argon2 work done (see `Checked`).
pub fn check(registry: &dyn Registry, token: &str) -> Result<Checked> {
    let (id, secret) = token
        .strip_prefix(PREFIX)
        .and_then(|rest| rest.split_once('_'))
        .unwrap_or(("", token));
    let record = if id.is_empty() {
        None
    } else {
        registry.token(id)?
    };
    let hash = match &record {
        Some(r) => r.hash.clone(),
        None => dummy_hash().to_string(),
    };
    let parsed = PasswordHash::new(&hash)
        .map_err(|e| Error::Input(format!("stored token hash of '{id}': {e}")))?;
    let cost = format!(
        "{} v={} {}",
        parsed.algorithm,
        parsed.version.unwrap_or_default(),
        parsed.params
    );
    // argon2 compares the computed hash with the stored one in constant time.
    let mut verifications = 0;
    let ok = {
        verifications += 1;
        Argon2::default()
            .verify_password(secret.as_bytes(), &parsed)
            .is_ok()
    };
    let caller = match (ok, record) {
        (true, Some(r)) => Some(Caller {
            name: r.name,
            role: r.role,
        }),
        _ => None,
    };
    Ok(Checked {
        caller,
        verifications,
        cost,
    })
}

/// A hash no secret matches, checked for unknown ids so they take as long as known ones.
fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| {
        hash_secret("outfall: no token has this secret").unwrap_or_else(|_| {
            // Fixed parameters and salt: the same work as a real hash, if randomness failed.
            "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$4Ra2P0vbKbXDpHq7SjvQ2j2dc7c8Vd0b0mN2cB0Jf8Q".to_string()
        })
    })
}
