//! sandtab's own tools as capabilities. `bash`, `read_file`, `write_file` and
//! `edit_file` (what an agent's model calls through `Sandbox.callTool`) are granted by
//! default, and the document's `builtins` section can deny or restrict each:
//!
//! ```json
//! {"builtins": {"write_file": false,
//!               "edit_file": {"paths": ["src", "/tmp"], "max_calls": 100,
//!                             "rate_limit": {"calls": 10, "per_seconds": 60}},
//!               "bash": {"constraints": {"arg": "command", "max_length": 2000}}}}
//! ```
//!
//! Every call goes through [`Gate::begin_builtin`]: granted, JSON and the tool's schema,
//! the constraints, the `paths` (the path the call would really touch, symlinks
//! followed, must lie under one of them), `max_calls`, the rate limit, in that order,
//! with the `CAP_...` codes of granted tools; the call is in the audit log with its
//! arguments summarised (a file's contents as their size). `fetch` and `ui` are doors of
//! their own: `network` and `ui` grant them, and [`Gate::fetch`] and [`Gate::ui`] check
//! and log them.

use crate::audit::Via;
use crate::document::{RateLimit, Tool, ToolDoc, ToolSource, compile_tool_body};
use crate::error::{CapsError, Code, Denial};
use crate::gate::{AuditHandle, Gate};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// sandtab's own tools the `builtins` section governs, in definition order.
pub const GATED_BUILTINS: [&str; 4] = ["bash", "read_file", "write_file", "edit_file"];
/// The file tools, whose `path` argument `paths` restricts.
const FILE_TOOLS: [&str; 3] = ["read_file", "write_file", "edit_file"];
/// Where relative paths of the file tools start (the shell's `HOME`).
pub const HOME: &str = "/home/agent";
/// The longest string argument kept in the audit log as it is.
const AUDIT_TEXT: usize = 256;
/// Arguments whose text is summarised by its size in the audit log.
const SIZED: [&str; 4] = ["content", "old_string", "new_string", "html"];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BuiltinDoc {
    paths: Option<Vec<String>>,
    constraints: Option<Value>,
    max_calls: Option<u64>,
    rate_limit: Option<RateLimit>,
}

/// One of sandtab's own tools under the document.
#[derive(Debug)]
pub struct Builtin {
    /// Whether the document grants it (the default).
    pub granted: bool,
    /// For the file tools: the directories (absolute, normalised) their paths must lie
    /// in; `None` for anywhere.
    pub paths: Option<Vec<String>>,
    /// Its schema, constraints and limits, checked as a granted tool's.
    pub tool: Tool,
}

/// The `builtins` section, compiled: one entry per tool of [`GATED_BUILTINS`].
#[derive(Debug)]
pub struct Builtins {
    entries: Vec<Builtin>,
}

impl Default for Builtins {
    /// Every built-in granted, unrestricted (a document without `builtins`).
    fn default() -> Self {
        Self::compile(None).expect("the built-in tools' own schemas compile")
    }
}

impl Builtins {
    /// The entry for `name`, if it is one of [`GATED_BUILTINS`].
    pub fn get(&self, name: &str) -> Option<&Builtin> {
        self.entries.iter().find(|b| b.tool.name == name)
    }

    /// Whether `name` is a built-in the document lets the model call (`fetch` and `ui`
    /// are not governed here: true).
    pub fn granted(&self, name: &str) -> bool {
        self.get(name).is_none_or(|b| b.granted)
    }

    pub(crate) fn compile(section: Option<Map<String, Value>>) -> Result<Self, CapsError> {
        let section = section.unwrap_or_default();
        for name in section.keys() {
            if !GATED_BUILTINS.contains(&name.as_str()) {
                let reason = match name.as_str() {
                    "fetch" => {
                        "`fetch` is granted by `network` (no origin granted: no fetch)".to_owned()
                    }
                    "ui" => "`ui` is granted by the document's `ui`".to_owned(),
                    other => format!(
                        "`{other}` is not one of sandtab's own tools ({})",
                        GATED_BUILTINS.join(", ")
                    ),
                };
                return Err(CapsError::invalid("builtins", reason));
            }
        }
        let mut entries = Vec::new();
        for name in GATED_BUILTINS {
            let place = format!("builtins.{name}");
            let (granted, doc) = match section.get(name) {
                None | Some(Value::Bool(true)) => (true, None),
                Some(Value::Bool(false)) => (false, None),
                Some(value @ Value::Object(_)) => {
                    let doc: BuiltinDoc =
                        serde_path_to_error::deserialize(value).map_err(|err| {
                            let at = err.path().to_string();
                            let inner = err.into_inner().to_string();
                            match at.as_str() {
                                "." | "" => CapsError::invalid(place.clone(), inner),
                                _ if inner.starts_with("unknown field") => {
                                    CapsError::invalid(place.clone(), inner)
                                }
                                _ => CapsError::invalid(format!("{place}.{at}"), inner),
                            }
                        })?;
                    (true, Some(doc))
                }
                Some(_) => {
                    return Err(CapsError::invalid(
                        place,
                        "must be true, false or { paths, constraints, max_calls, rate_limit }",
                    ));
                }
            };
            let doc = doc.unwrap_or(BuiltinDoc {
                paths: None,
                constraints: None,
                max_calls: None,
                rate_limit: None,
            });
            let paths = match doc.paths {
                None => None,
                Some(_) if !FILE_TOOLS.contains(&name) => {
                    return Err(CapsError::invalid(
                        format!("{place}.paths"),
                        "only the file tools (read_file, write_file, edit_file) take `paths`",
                    ));
                }
                Some(paths) if paths.is_empty() => {
                    return Err(CapsError::invalid(
                        format!("{place}.paths"),
                        "is empty; to deny the tool, give `false`",
                    ));
                }
                Some(paths) => {
                    let mut normal = Vec::new();
                    for (i, path) in paths.iter().enumerate() {
                        if path.is_empty() || path.contains('\0') {
                            return Err(CapsError::invalid(
                                format!("{place}.paths[{i}]"),
                                "is not a path",
                            ));
                        }
                        normal.push(home_path(path));
                    }
                    Some(normal)
                }
            };
            let parameters = crate::definitions::builtin_parameters(name)
                .ok_or_else(|| CapsError::invalid(place.clone(), "has no schema"))?;
            let tool = compile_tool_body(
                ToolDoc {
                    name: name.to_owned(),
                    description: String::new(),
                    parameters: Some(parameters),
                    constraints: doc.constraints,
                    max_calls: doc.max_calls,
                    rate_limit: doc.rate_limit,
                    redact: Vec::new(),
                },
                &place,
                ToolSource::Host,
            )?;
            entries.push(Builtin {
                granted,
                paths,
                tool,
            });
        }
        Ok(Self { entries })
    }
}

/// `path` made absolute (relative to [`HOME`]) and normalised as the sandbox's
/// filesystem does: `.` dropped, `..` never above `/`.
pub fn home_path(path: &str) -> String {
    let mut parts: Vec<&str> = match path.starts_with('/') {
        true => Vec::new(),
        false => HOME.split('/').filter(|p| !p.is_empty()).collect(),
    };
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            name => parts.push(name),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Whether the absolute, normalised `path` is `dir` or lies below it.
fn within(path: &str, dir: &str) -> bool {
    dir == "/"
        || path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// `text` cut to `max` bytes, with a note of what was cut.
fn cut(text: &str, max: usize) -> Value {
    if text.len() <= max {
        return json!(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    json!(format!(
        "{}… [{} more bytes]",
        &text[..end],
        text.len() - end
    ))
}

/// A built-in call's arguments for the audit log: small values as they are, texts a
/// model writes (`content`, `old_string`, ...) as their size, long strings cut.
fn summary(args: &str) -> Value {
    let Ok(value) = serde_json::from_str::<Value>(args) else {
        return json!({"unparsed": cut(args, AUDIT_TEXT)});
    };
    let Value::Object(map) = value else {
        return json!({"unparsed": cut(args, AUDIT_TEXT)});
    };
    let mut shown = Map::new();
    for (key, value) in map.into_iter().take(8) {
        let key = cut(&key, 64).as_str().unwrap_or_default().to_owned();
        match value {
            Value::String(text) if SIZED.contains(&key.as_str()) => {
                shown.insert(format!("{key}_bytes"), json!(text.len()));
            }
            Value::String(text) => {
                shown.insert(key, cut(&text, AUDIT_TEXT));
            }
            Value::Array(_) => {
                shown.insert(key, json!("[array]"));
            }
            Value::Object(_) => {
                shown.insert(key, json!("[object]"));
            }
            other => {
                shown.insert(key, other);
            }
        }
    }
    Value::Object(shown)
}

/// A built-in tool call the gate allowed: carry it out, then [`BuiltinCall::finish`] it
/// to log how it went.
pub struct BuiltinCall {
    args: Value,
    started: f64,
    fields: Map<String, Value>,
    audit: AuditHandle,
}

impl std::fmt::Debug for BuiltinCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltinCall")
            .field("fields", &self.fields)
            .finish_non_exhaustive()
    }
}

impl BuiltinCall {
    /// The checked arguments.
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// Logs the call's end: `Ok` with the size of its answer, or `Err` with why it
    /// failed (a file that is not there, an edit that does not match, ...; logged as
    /// `CAP_TOOL_FAILED`).
    pub fn finish(self, outcome: Result<usize, &str>) {
        let failure = outcome
            .as_ref()
            .err()
            .map(|why| Denial::new(Code::ToolFailed, *why));
        let outcome = match &failure {
            Some(denial) => Err(denial),
            None => Ok(outcome.unwrap_or(0)),
        };
        self.audit
            .finish("tool", self.started, self.fields, &outcome);
    }
}

impl Gate {
    /// Checks a call of sandtab's own tool `name` (`bash`, `read_file`, `write_file`,
    /// `edit_file`) with JSON `args` against the document's `builtins`, and counts it.
    /// `real_path` gives the absolute path a file tool's `path` would really touch
    /// (symlinks followed), for the `paths` check; an error there denies. A refusal is
    /// logged here and returned; an allowed call is logged by [`BuiltinCall::finish`].
    pub fn begin_builtin(
        &self,
        name: &str,
        args: &str,
        via: Via,
        real_path: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<BuiltinCall, Denial> {
        let started = self.now_ms();
        let mut fields = Map::new();
        fields.insert("via".into(), json!(via.as_str()));
        fields.insert("tool".into(), json!(name));
        fields.insert("args".into(), summary(args));
        let audit = self.audit_handle();
        match self.check_builtin(name, args, real_path) {
            Ok(args) => Ok(BuiltinCall {
                args,
                started,
                fields,
                audit,
            }),
            Err(denial) => {
                audit.finish("tool", started, fields, &Err(&denial));
                Err(denial)
            }
        }
    }

    fn check_builtin(
        &self,
        name: &str,
        args: &str,
        real_path: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<Value, Denial> {
        let Some(builtin) = self.capabilities().builtins.get(name) else {
            return Err(Denial::new(
                Code::Denied,
                format!("`{name}` is not one of sandtab's own tools"),
            ));
        };
        if !builtin.granted {
            return Err(Denial::new(
                Code::Denied,
                format!(
                    "the built-in tool `{name}` is denied by the capability document (`builtins.{name}`)"
                ),
            ));
        }
        let parsed = self.check_args(&builtin.tool, args)?;
        if let Some(dirs) = &builtin.paths {
            let path = parsed.get("path").and_then(Value::as_str).unwrap_or("");
            let real = real_path(path).map_err(|why| {
                Denial::new(
                    Code::Constraint,
                    format!("`{name}`: {path} cannot be resolved ({why})"),
                )
            })?;
            if !dirs.iter().any(|dir| within(&real, dir)) {
                let shown = match real == home_path(path) {
                    true => real.clone(),
                    false => format!("{path} (which is {real})"),
                };
                return Err(Denial::new(
                    Code::Constraint,
                    format!(
                        "`{name}`: {shown} is outside the paths it may use: {}",
                        dirs.join(", ")
                    ),
                ));
            }
        }
        self.count_call(&builtin.tool)?;
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_normalise_like_the_filesystem() {
        assert_eq!(home_path("a/./b/../c"), "/home/agent/a/c");
        assert_eq!(home_path("../../../../etc"), "/etc");
        assert_eq!(home_path("/x//y/"), "/x/y");
        assert_eq!(home_path("/.."), "/");
        assert!(within("/home/agent/src/a", "/home/agent/src"));
        assert!(within("/home/agent/src", "/home/agent/src"));
        assert!(!within("/home/agent/srcx", "/home/agent/src"));
        assert!(within("/etc", "/"));
    }

    #[test]
    fn summaries_keep_lines_small() {
        let long = "x".repeat(10_000);
        let shown = summary(&json!({"path": "a", "content": long, "command": long}).to_string());
        assert_eq!(shown["content_bytes"], 10_000);
        assert!(shown["command"].as_str().unwrap_or("").len() < 300);
        assert!(summary("{oops").to_string().len() < 300);
    }
}
