//! Access tokens: `ofl_<id>_<secret>`. The id finds the record; the secret is checked
//! against an argon2 hash (the only thing stored), whose comparison is constant-time. An
//! unknown id costs the same argon2 work as a wrong secret, so timing tells nothing
//! (`check` reports that work, so tests assert it without timing anything).

use super::Registry;
use crate::error::{Error, Result};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use chrono::{DateTime, Utc};
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TokenRecord {
    pub token_id: String,
    /// Who holds it; unique among all tokens, revoked ones included, so the audit's `who`
    /// names one token.
    pub name: String,
    pub role: AccessRole,
    #[serde(skip)]
    pub hash: String,
    pub created_at: String,
    /// When it stops being accepted (`now_utc`'s format). A token without one, or with one
    /// that does not read as a time (`read_time`), is expired: no value means "never".
    pub expires_at: Option<String>,
    /// When it was revoked.
    pub revoked: Option<String>,
}

impl TokenRecord {
    /// Its expiry as a time, or `None` when it has none or it does not read as one.
    pub fn expiry(&self) -> Option<DateTime<Utc>> {
        read_time(self.expires_at.as_deref()?)
    }

    /// Whether it is expired at `now`: at or past its expiry, or without a readable one.
    pub fn expired_at(&self, now: DateTime<Utc>) -> bool {
        self.expiry().is_none_or(|e| e <= now)
    }
}

/// A stored time: RFC 3339 (what `now_utc` writes, or with an offset), or a bare date
/// `YYYY-MM-DD`, taken as the start of that day in UTC. Anything else (`garbage`,
/// `9999-99-99`, an empty text) is no time.
pub fn read_time(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&Utc));
    }
    let day = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some(day.and_hms_opt(0, 0, 0)?.and_utc())
}

/// Who is asking: the token's id (what their submissions belong to), name and role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Caller {
    pub token_id: String,
    pub name: String,
    pub role: AccessRole,
}

/// How long a new or rotated token is accepted unless `--expires-days` says otherwise.
pub const DEFAULT_EXPIRES_DAYS: u32 = 90;
/// The longest expiry a token may be given (ten years).
pub const MAX_EXPIRES_DAYS: u32 = 3650;

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

/// The time `days` from now, as `now_utc` writes it; refused past `MAX_EXPIRES_DAYS`.
fn expiry_in(days: u32) -> Result<String> {
    if days == 0 || days > MAX_EXPIRES_DAYS {
        return Err(Error::Input(format!(
            "a token expires in 1 to {MAX_EXPIRES_DAYS} days, not {days}"
        )));
    }
    let at = chrono::Utc::now() + chrono::Days::new(u64::from(days));
    Ok(at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
}

/// A new secret and its hash: the token text (shown once) and what is stored.
fn new_secret(id: &str) -> Result<(String, String)> {
    let secret = random_hex(32)?;
    Ok((format!("{PREFIX}{id}_{secret}"), hash_secret(&secret)?))
}

/// Issues a token valid for `expires_days`: stores its hash and returns the token itself,
/// which is shown once. A name already given to a token (even a revoked one) is refused
/// (`Error::Exists`), so the audit's `who` always names one token.
pub fn create(
    registry: &dyn Registry,
    name: &str,
    role: AccessRole,
    expires_days: u32,
) -> Result<String> {
    let name = name.trim();
    if name.is_empty() || name.len() > 100 || name.chars().any(char::is_control) {
        return Err(Error::Input(
            "the token's name must be 1 to 100 printable characters (who holds it)".into(),
        ));
    }
    let id = random_hex(6)?;
    let (token, hash) = new_secret(&id)?;
    registry.add_token(&TokenRecord {
        token_id: id,
        name: name.to_string(),
        role,
        hash,
        created_at: super::now_utc(),
        expires_at: Some(expiry_in(expires_days)?),
        revoked: None,
    })?;
    Ok(token)
}

/// Every token, oldest first, revoked and expired ones included (never a secret).
pub fn list(registry: &dyn Registry) -> Result<Vec<TokenRecord>> {
    registry.tokens()
}

/// Revokes the token named by `name_or_id` (its name or its id); it is refused from then
/// on, and its name stays taken. Revoking a revoked token changes nothing.
pub fn revoke(registry: &dyn Registry, name_or_id: &str) -> Result<TokenRecord> {
    registry.change_token(name_or_id, "revoke", &mut |t| {
        if t.revoked.is_none() {
            t.revoked = Some(super::now_utc());
        }
        Ok(())
    })
}

/// Gives the token named by `name_or_id` a new secret valid for `expires_days`, under the
/// same id and name (so its submissions stay its own); the old secret is refused at once.
/// Returns the record and the new token text, shown once. A revoked token is not revived.
pub fn rotate(
    registry: &dyn Registry,
    name_or_id: &str,
    expires_days: u32,
) -> Result<(TokenRecord, String)> {
    let expires_at = expiry_in(expires_days)?;
    let mut text = None;
    let record = registry.change_token(name_or_id, "rotate", &mut |t| {
        if let Some(at) = &t.revoked {
            return Err(Error::Input(format!(
                "token '{}' ({}) was revoked at {at}; create a new one",
                t.name, t.token_id
            )));
        }
        let (token, hash) = new_secret(&t.token_id)?;
        t.hash = hash;
        t.expires_at = Some(expires_at.clone());
        text = Some(token);
        Ok(())
    })?;
    let text = text.ok_or_else(|| Error::Input("the token was not rotated".into()))?;
    Ok((record, text))
}

/// The caller a bearer token names, or `None` when the token is malformed, unknown, revoked,
/// expired or wrong. Every path that reaches a stored-or-dummy hash runs the full argon2
/// check.
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
    /// Why a token whose secret was right is refused all the same: said only to the holder
    /// of the right secret, so it tells a guesser nothing.
    pub lapsed: Option<Lapsed>,
    /// The stored hash the secret matched, when it was accepted: what `recheck` compares so
    /// that a cached check of a since-rotated token is not reused.
    pub matched_hash: Option<String>,
}

/// A right secret that is no longer accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lapsed {
    /// Past its expiry, at this time.
    Expired(String),
    /// Its stored expiry is missing or does not read as a time (the text, if any).
    NoExpiry(Option<String>),
    /// Revoked at this time.
    Revoked(String),
}

impl std::fmt::Display for Lapsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lapsed::Expired(at) => write!(
                f,
                "the access token expired at {at}; ask the officer to rotate it (outfall token rotate)"
            ),
            Lapsed::NoExpiry(text) => write!(
                f,
                "the access token has no readable expiry ({}), so it is refused; ask the officer to rotate it (outfall token rotate)",
                text.as_deref().map_or("none".to_string(), |t| format!("'{}'", t.chars().take(40).collect::<String>()))
            ),
            Lapsed::Revoked(at) => write!(f, "the access token was revoked at {at}"),
        }
    }
}

/// The id a token names (`ofl_<id>_<secret>`), when it has the form of one: what failed
/// checks are counted by, besides the client's address.
pub fn id_of(token: &str) -> Option<&str> {
    let (id, _) = token.strip_prefix(PREFIX)?.split_once('_')?;
    let plausible = (1..=32).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric());
    plausible.then_some(id)
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
    let (caller, lapsed) = match (ok, record) {
        (true, Some(r)) => judge(r, Utc::now()),
        _ => (None, None),
    };
    Ok(Checked {
        matched_hash: caller.as_ref().map(|_| hash),
        caller,
        verifications,
        cost,
        lapsed,
    })
}

/// The caller of a token whose secret matched, unless it was revoked or has expired.
fn judge(r: TokenRecord, now: DateTime<Utc>) -> (Option<Caller>, Option<Lapsed>) {
    if let Some(at) = r.revoked {
        return (None, Some(Lapsed::Revoked(at)));
    }
    if r.expiry().is_none() {
        return (None, Some(Lapsed::NoExpiry(r.expires_at)));
    }
    if r.expired_at(now) {
        return (None, r.expires_at.map(Lapsed::Expired));
    }
    let caller = Caller {
        token_id: r.token_id,
        name: r.name,
        role: r.role,
    };
    (Some(caller), None)
}

/// The caller of `record` now, without argon2: for a token whose secret was verified a
/// moment ago (the server's cache), so that a revocation or expiry since is seen at once.
/// `hash` is the hash the secret was verified against: a rotated token no longer has it.
pub fn recheck(
    record: Option<TokenRecord>,
    hash: &str,
) -> Option<std::result::Result<Caller, Lapsed>> {
    let record = record.filter(|r| r.hash == hash)?;
    match judge(record, Utc::now()) {
        (Some(c), _) => Some(Ok(c)),
        (None, Some(l)) => Some(Err(l)),
        (None, None) => None,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn with_expiry(expires_at: Option<&str>) -> TokenRecord {
        TokenRecord {
            token_id: "0123456789ab".into(),
            name: "Pat".into(),
            role: AccessRole::Officer,
            hash: String::new(),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            expires_at: expires_at.map(String::from),
            revoked: None,
        }
    }

    /// Issue 40, item 9: an expiry that is missing or unreadable refuses the token, however
    /// far in the future it would sort as text.
    #[test]
    fn an_unreadable_expiry_is_expired() {
        let now = read_time("2026-06-01T12:00:00.000Z").expect("now");
        for text in [
            None,
            Some("garbage"),
            Some("9999-99-99"),
            Some(""),
            Some("2026-13-01"),
        ] {
            let t = with_expiry(text);
            assert!(t.expired_at(now), "{text:?}");
            assert_eq!(
                judge(t, now).1,
                Some(Lapsed::NoExpiry(text.map(String::from)))
            );
        }
        for (text, expired) in [
            ("2026-06-01T11:59:59.999Z", true),
            ("2026-06-01T12:00:00.000Z", true),
            ("2026-06-01T12:00:00.001Z", false),
            ("2026-06-01T14:00:00+03:00", true),
            ("2026-06-02", false),
            ("9999-12-31", false),
        ] {
            assert_eq!(with_expiry(Some(text)).expired_at(now), expired, "{text}");
        }
    }
}
