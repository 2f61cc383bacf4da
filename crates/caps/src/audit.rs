//! The audit log: every exec, tool call, network request and denial, with its time,
//! its arguments (secrets redacted) and the size of its result. Exported as JSONL.

use crate::scrub::Scrubber;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// How many entries the log keeps; older ones are dropped (their sequence numbers show
/// the gap).
pub const MAX_ENTRIES: usize = 10_000;
/// The longest text (a script, an argument string) kept in an entry.
pub const MAX_TEXT: usize = 4096;
/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// What made an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A shell command (`tool`, a tool's own command name, `curl`, `wget`).
    Shell,
    /// A guest program's `sandtab.tool_call`.
    Guest,
    /// The page's JS API.
    Api,
    /// The sandbox talking to a granted MCP server.
    Mcp,
}

impl Via {
    /// `shell`, `guest`, `api`, `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Shell => "shell",
            Via::Guest => "guest",
            Via::Api => "api",
            Via::Mcp => "mcp",
        }
    }
}

#[derive(Debug, Default)]
struct Entries {
    next_seq: u64,
    entries: VecDeque<Value>,
}

/// The log.
#[derive(Debug, Default)]
pub struct AuditLog {
    inner: Mutex<Entries>,
    scrubber: Arc<Scrubber>,
}

impl AuditLog {
    /// A log that redacts `secrets` wherever they appear, in any of the encodings
    /// [`Scrubber`] knows (a `final_url` a server chose, a message quoting it).
    pub fn new(secrets: Vec<String>) -> Self {
        Self::with_scrubber(Arc::new(Scrubber::new(secrets)))
    }

    /// A log that redacts what `scrubber` does.
    pub(crate) fn with_scrubber(scrubber: Arc<Scrubber>) -> Self {
        Self {
            inner: Mutex::default(),
            scrubber,
        }
    }

    /// What the log redacts.
    pub(crate) fn scrubber(&self) -> Arc<Scrubber> {
        self.scrubber.clone()
    }

    /// Appends an entry of `kind` at `time_ms` with `fields`.
    pub fn record(&self, time_ms: f64, kind: &str, fields: Map<String, Value>) {
        let mut entry = Map::new();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.next_seq += 1;
        entry.insert("seq".into(), json!(inner.next_seq));
        entry.insert("time_ms".into(), json!(time_ms));
        entry.insert("kind".into(), json!(kind));
        for (key, value) in fields {
            entry.insert(key, self.redact_value(value));
        }
        inner.entries.push_back(Value::Object(entry));
        while inner.entries.len() > MAX_ENTRIES {
            inner.entries.pop_front();
        }
    }

    /// The entries as JSON Lines, oldest first.
    pub fn to_jsonl(&self) -> String {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::new();
        for entry in &inner.entries {
            out.push_str(&entry.to_string());
            out.push('\n');
        }
        out
    }

    /// How many entries are kept.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entries
            .len()
    }

    /// Whether the log is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `text` shortened to [`MAX_TEXT`] and with secrets redacted.
    pub fn text(&self, text: &str) -> Value {
        // Scrubbed before it is cut, so that no part of a secret is left at the cut.
        let text = self.scrubber.text(text);
        let text = text.as_ref();
        let mut cut = text.len().min(MAX_TEXT);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut kept = text[..cut].to_owned();
        if cut < text.len() {
            kept.push_str(&format!("… [{} more bytes]", text.len() - cut));
        }
        Value::String(kept)
    }

    fn redact_value(&self, value: Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.redact_str(&text)),
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| self.redact_value(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, self.redact_value(v)))
                    .collect(),
            ),
            other => other,
        }
    }

    fn redact_str(&self, text: &str) -> String {
        self.scrubber.text(text).into_owned()
    }
}

/// `args` with the values at `pointers` replaced by [`REDACTED`].
pub fn redact_pointers(mut args: Value, pointers: &[String]) -> Value {
    for pointer in pointers {
        if let Some(slot) = args.pointer_mut(pointer) {
            *slot = Value::String(REDACTED.into());
        }
    }
    args
}
