//! Content negotiation and query-string checks shared by the OGC API resources: JSON for
//! every client that does not ask for HTML first, and a 400 naming any query parameter a
//! resource does not know (OGC API – Features Part 1, /req/core/query-param-unknown).

use crate::error::ApiError;
use axum::http::{header, HeaderMap};
use std::collections::HashMap;

/// Whether to answer HTML: `?f=html`, or an Accept header that prefers `text/html` to every
/// JSON type (a q-value tie goes to the type listed first). `*/*` alone, as OWSLib and curl
/// send, is JSON; so is no Accept header.
pub fn wants_html(headers: &HeaderMap, q: &HashMap<String, String>) -> bool {
    if let Some(f) = q.get("f") {
        return f.eq_ignore_ascii_case("html");
    }
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|a| a.to_str().ok())
        .unwrap_or("");
    // (q, position) of the best explicit HTML entry and the best entry JSON satisfies.
    let mut html: Option<(f32, usize)> = None;
    let mut json: Option<(f32, usize)> = None;
    for (pos, entry) in accept.split(',').enumerate() {
        let mut parts = entry.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let qv = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|v| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let better = |cur: Option<(f32, usize)>| cur.is_none_or(|(bq, _)| qv > bq);
        if media == "text/html" && better(html) {
            html = Some((qv, pos));
        }
        let is_json = media == "*/*" || media == "application/*" || media.contains("json");
        if is_json && better(json) {
            json = Some((qv, pos));
        }
    }
    match (html, json) {
        (Some((hq, _)), None) => hq > 0.0,
        (Some((hq, hp)), Some((jq, jp))) => hq > 0.0 && (hq > jq || (hq == jq && hp < jp)),
        _ => false,
    }
}

/// A 400 naming the first query parameter not in `known` (`f` is always known), or a bad
/// `f` value.
pub fn check_query(
    q: &HashMap<String, String>,
    known: &[&str],
    formats: &[&str],
) -> Result<(), ApiError> {
    let mut names: Vec<&String> = q.keys().collect();
    names.sort();
    if let Some(unknown) = names
        .into_iter()
        .find(|k| k.as_str() != "f" && !known.contains(&k.as_str()))
    {
        let mut allowed: Vec<&str> = known.to_vec();
        allowed.push("f");
        return Err(ApiError::BadRequest(format!(
            "unknown query parameter '{unknown}'; this resource takes {}",
            allowed.join(", ")
        )));
    }
    if let Some(f) = q.get("f") {
        if !formats.iter().any(|x| x.eq_ignore_ascii_case(f)) {
            return Err(ApiError::BadRequest(format!(
                "f '{f}' is not offered here; use {}",
                formats.join(" or ")
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(accept: &str) -> bool {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, accept.parse().unwrap());
        wants_html(&h, &HashMap::new())
    }

    #[test]
    fn json_unless_html_comes_first() {
        assert!(html(
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        ));
        assert!(!html("*/*"));
        assert!(!html("application/json"));
        assert!(!html("application/json,text/html"));
        assert!(html("text/html,application/json"));
        assert!(!html("text/html;q=0.5,application/json"));
        assert!(!html("text/html;q=0"));
        assert!(!wants_html(&HeaderMap::new(), &HashMap::new()));
        let f = HashMap::from([("f".to_string(), "html".to_string())]);
        assert!(wants_html(&HeaderMap::new(), &f));
    }

    #[test]
    fn unknown_parameters_are_named() {
        let q = HashMap::from([("limt".to_string(), "5".to_string())]);
        let e = check_query(&q, &["limit"], &["json"]).unwrap_err();
        assert!(format!("{e:?}").contains("'limt'"));
        let q = HashMap::from([("f".to_string(), "xml".to_string())]);
        assert!(check_query(&q, &[], &["json"]).is_err());
        let q = HashMap::from([("f".to_string(), "JSON".to_string())]);
        assert!(check_query(&q, &[], &["json"]).is_ok());
    }
}
