//! The structural splitter: a FeatureCollection held in memory cut into its features' texts
//! by its brackets and quotes alone, without parsing the features on the one core that
//! scans. serde_json's scan parsed every number of every feature there, and was the single
//! core's share of a load; here the converters' own parse of each feature is what checks it
//! is JSON, on every core.
//!
//! Only the plain case is split: one top-level object whose keys have no escapes, with one
//! `features` array. Anything else (and any text that is not JSON, wherever it lies) makes
//! the splitter give up, and the serde scan reads the document and names what is wrong.

use super::scan::start_crs;
use super::{Batch, BATCH_BYTES, BATCH_FEATURES};
use crate::config::LayerConfig;
use serde_json::{Map, Value};
use std::sync::mpsc::SyncSender;

/// What the split found: the top-level members but `features`, and the CRS the features
/// were sent to the converters with.
pub(super) struct Split {
    pub(super) top: Map<String, Value>,
    pub(super) features_crs: Option<String>,
}

/// Splits `b` and sends its features to `tx` in batches, as the serde scan does; `None` when
/// the document is not the plain case or not JSON (what was sent must then be discarded).
pub(super) fn split<'a>(
    b: &'a [u8],
    tx: &SyncSender<Batch<&'a [u8]>>,
    cfg: &LayerConfig,
    upload: bool,
    forced: &Option<Option<String>>,
) -> Option<Split> {
    let mut s = Scanner { b, i: 0 };
    let mut top = Map::new();
    let mut features_crs = None;
    s.ws();
    s.eat(b'{')?;
    s.ws();
    if s.peek()? == b'}' {
        return None;
    }
    loop {
        s.ws();
        let key = s.key()?;
        s.ws();
        s.eat(b':')?;
        s.ws();
        if key == "features" {
            if features_crs.is_some() || s.peek()? != b'[' {
                return None;
            }
            let crs = start_crs(forced, &top, cfg, upload);
            // The converter only stops early when the process is going down.
            let _ = tx.send(Batch::Start(crs.clone()));
            s.features(tx)?;
            features_crs = Some(crs);
        } else {
            let v: Value = serde_json::from_slice(s.value()?).ok()?;
            top.insert(key.to_string(), v);
        }
        s.ws();
        match s.next()? {
            b',' => continue,
            b'}' => break,
            _ => return None,
        }
    }
    s.ws();
    if s.i != b.len() {
        return None;
    }
    Some(Split {
        top,
        features_crs: features_crs?,
    })
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    /// A member's key: a string without escapes.
    fn key(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        let len = memchr::memchr2(b'"', b'\\', &self.b[start..])?;
        if self.b[start + len] != b'"' {
            return None;
        }
        self.i = start + len + 1;
        std::str::from_utf8(&self.b[start..start + len]).ok()
    }

    /// The text of one value, found by its brackets and quotes; whether it is JSON is for
    /// its reader to find (a text that is not may be cut anywhere).
    fn value(&mut self) -> Option<&'a [u8]> {
        let start = self.i;
        match self.peek()? {
            b'"' => {
                self.i += 1;
                self.string_end()?;
            }
            open @ (b'{' | b'[') => {
                // In JSON that is valid, brackets of the other kind nest inside a value, so
                // only its own kind and quotes are looked for, which memchr finds a vector at
                // a time: the coordinates between them hold none.
                let close = if open == b'{' { b'}' } else { b']' };
                let mut depth = 0usize;
                loop {
                    self.i += memchr::memchr3(b'"', open, close, &self.b[self.i..])?;
                    let c = self.b[self.i];
                    self.i += 1;
                    if c == b'"' {
                        self.string_end()?;
                    } else if c == open {
                        depth += 1;
                    } else {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                }
            }
            _ => {
                let rest = &self.b[self.i..];
                let len = rest
                    .iter()
                    .position(|&c| matches!(c, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t'))
                    .unwrap_or(rest.len());
                if len == 0 {
                    return None;
                }
                self.i += len;
            }
        }
        Some(&self.b[start..self.i])
    }

    /// Past the closing quote of a string whose opening quote is behind.
    fn string_end(&mut self) -> Option<()> {
        loop {
            let at = self.i + memchr::memchr2(b'"', b'\\', &self.b[self.i..])?;
            if self.b[at] == b'"' {
                self.i = at + 1;
                return Some(());
            }
            // Past the escaped character (a backslash ending the text ends the search).
            self.i = (at + 2).min(self.b.len());
        }
    }

    /// The `features` array, its elements sent in batches.
    fn features(&mut self, tx: &SyncSender<Batch<&'a [u8]>>) -> Option<()> {
        self.eat(b'[')?;
        let mut batch = Vec::new();
        let (mut bytes, mut first) = (0, 0);
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            self.ws();
            let v = self.value()?;
            bytes += v.len();
            batch.push(v);
            if batch.len() >= BATCH_FEATURES || bytes >= BATCH_BYTES {
                let n = batch.len();
                let _ = tx.send(Batch::Features(first, std::mem::take(&mut batch)));
                first += n;
                bytes = 0;
            }
            self.ws();
            match self.next()? {
                b',' => continue,
                b']' => break,
                _ => return None,
            }
        }
        if !batch.is_empty() {
            let _ = tx.send(Batch::Features(first, batch));
        }
        Some(())
    }
}
