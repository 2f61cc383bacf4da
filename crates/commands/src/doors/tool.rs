//! `tool`: calls a tool the page granted, through the capability gate. Every granted
//! tool is also a command of its own name (unless a command of that name exists).
//!
//! ```text
//! tool                         list the granted tools
//! tool NAME --help             the tool's description and arguments
//! tool NAME --key value ...    call it; a value is JSON when the schema says the
//!                              argument is a number, boolean, array or object
//! tool NAME --json '{...}'     call it with these arguments (`--json -`: from stdin)
//! ```
//!
//! The answer (JSON) goes to stdout. A call the policy refuses prints `CODE: message`
//! and exits 126; a handler that fails exits 1.

use crate::util::{Output, read_stdin};
use crate::{Context, Registry, Status};
use sandtab_caps::{Code, Gate, Via};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Exit status of a refused call (bash's "cannot execute", as for limits).
const EXIT_DENIED: i32 = 126;

pub(crate) fn register(builder: Registry, gate: &Arc<Gate>) -> Registry {
    builder.command(
        "tool",
        ToolCommand {
            gate: gate.clone(),
            fixed: None,
        },
    )
}

pub(crate) struct ToolCommand {
    gate: Arc<Gate>,
    /// The tool this command is (when run by the tool's own name), else `tool`.
    fixed: Option<String>,
}

impl ToolCommand {
    /// The granted tool `name`, run by its own name.
    pub(crate) fn by_name(gate: &Arc<Gate>, name: &str) -> Self {
        Self {
            gate: gate.clone(),
            fixed: Some(name.to_owned()),
        }
    }
}

#[async_trait::async_trait]
impl crate::Command for ToolCommand {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let mut out = Output::new(&ctx);
        let (name, rest) = match &self.fixed {
            Some(name) => (name.clone(), ctx.args),
            None => match ctx.args.split_first() {
                None => {
                    out.out(self.listing()).await?;
                    return out.finish(0).await;
                }
                Some((first, _)) if first == "--help" || first == "-h" => {
                    out.out(USAGE).await?;
                    out.out(self.listing()).await?;
                    return out.finish(0).await;
                }
                Some((first, _)) if first == "--list" || first == "-l" => {
                    out.out(self.listing()).await?;
                    return out.finish(0).await;
                }
                Some((first, rest)) => (first.clone(), rest),
            },
        };
        let prefix = match &self.fixed {
            Some(name) => name.clone(),
            None => format!("tool: {name}"),
        };
        if rest.iter().any(|arg| arg == "--help") {
            return match self.help(&name) {
                Some(help) => {
                    out.out(help).await?;
                    out.finish(0).await
                }
                None => self.refuse(&mut out, &prefix, &name).await,
            };
        }
        let Some(tool) = self.gate.capabilities().tool(&name) else {
            return self.refuse(&mut out, &prefix, &name).await;
        };
        let args = match parse_args(rest, &tool.parameters) {
            Ok(ArgsSource::Built(map)) => Value::Object(map).to_string(),
            Ok(ArgsSource::Json(text)) => text,
            Ok(ArgsSource::Stdin) => String::from_utf8_lossy(&read_stdin(&ctx).await?).into_owned(),
            Err(message) => {
                out.err(format!(
                    "{prefix}: {message}\nTry '{prefix} --help' for its arguments.\n"
                ))
                .await?;
                return out.finish(2).await;
            }
        };
        match self.gate.call_tool(&name, &args, Via::Shell).await {
            Ok(answer) => {
                out.out(printable(answer)).await?;
                out.finish(0).await
            }
            Err(denial) => {
                out.err(format!("{prefix}: {denial}\n")).await?;
                let code = if denial.code.is_refusal() {
                    EXIT_DENIED
                } else {
                    1
                };
                out.finish(code).await
            }
        }
    }
}

const USAGE: &str = "Usage: tool NAME [--ARG VALUE]... | tool NAME --json JSON | tool NAME --help\n\
Calls a tool granted to this sandbox. A text answer is printed as it is, any other\n\
answer as JSON. Granted tools:\n";

/// A tool's answer (JSON text) as the command prints it: a string as its text (ended by
/// a newline), anything else as the JSON.
fn printable(answer: String) -> String {
    let mut text = match serde_json::from_str::<Value>(&answer) {
        Ok(Value::String(text)) => text,
        _ => answer,
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

impl ToolCommand {
    fn listing(&self) -> String {
        let tools = &self.gate.capabilities().tools;
        if tools.is_empty() {
            return "(no tools are granted to this sandbox)\n".into();
        }
        let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
        tools
            .iter()
            .map(|t| format!("{:width$}  {}\n", t.name, first_line(&t.description)))
            .collect()
    }

    fn help(&self, name: &str) -> Option<String> {
        let tool = self.gate.capabilities().tool(name)?;
        let mut text = format!("{name}: {}\n", tool.description);
        let required: Vec<&str> = tool.parameters["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(props) = tool.parameters["properties"].as_object() {
            text.push_str("Arguments:\n");
            for (arg, schema) in props {
                let kind = schema["type"].as_str().unwrap_or("any");
                let need = if required.contains(&arg.as_str()) {
                    " (required)"
                } else {
                    ""
                };
                let about = schema["description"].as_str().unwrap_or("");
                text.push_str(&format!("  --{arg} <{kind}>{need}  {about}\n"));
            }
        }
        text.push_str(&format!("Schema: {}\n", tool.parameters));
        Some(text)
    }

    async fn refuse(
        &self,
        out: &mut Output<'_, '_>,
        prefix: &str,
        name: &str,
    ) -> crate::Result<Status> {
        // Through the gate, so the refusal is logged like any other.
        let denial = match self.gate.call_tool(name, "{}", Via::Shell).await {
            Err(denial) => denial,
            Ok(_) => {
                sandtab_caps::Denial::new(Code::Denied, format!("the tool `{name}` is not granted"))
            }
        };
        out.err(format!("{prefix}: {denial}\n")).await?;
        Ok(Status::with_code(EXIT_DENIED))
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

enum ArgsSource {
    Built(Map<String, Value>),
    Json(String),
    Stdin,
}

/// `--key value`, `--key=value` and `--json JSON` into the call's arguments.
fn parse_args(args: &[String], schema: &Value) -> Result<ArgsSource, String> {
    let mut map = Map::new();
    let mut json = None;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let Some(long) = arg.strip_prefix("--").filter(|l| !l.is_empty()) else {
            return Err(format!(
                "unexpected argument '{arg}': give arguments as --NAME VALUE"
            ));
        };
        let (key, value) = match long.split_once('=') {
            Some((key, value)) => (key.to_owned(), value.to_owned()),
            None => {
                i += 1;
                let value = args
                    .get(i)
                    .ok_or_else(|| format!("option '--{long}' needs a value"))?;
                (long.to_owned(), value.clone())
            }
        };
        i += 1;
        if key == "json" {
            json = Some(value);
            continue;
        }
        let kind = schema["properties"][&key]["type"]
            .as_str()
            .unwrap_or("string");
        let parsed = match kind {
            "string" => Value::String(value),
            "array" if !value.trim_start().starts_with('[') => Value::String(value),
            _ => serde_json::from_str(&value).map_err(|_| {
                format!(
                    "--{key} must be {} JSON value, got '{value}'",
                    article(kind)
                )
            })?,
        };
        match map.get_mut(&key) {
            None if kind == "array" && !parsed.is_array() => {
                map.insert(key, Value::Array(vec![parsed]));
            }
            None => {
                map.insert(key, parsed);
            }
            Some(Value::Array(items)) if kind == "array" => items.push(parsed),
            Some(_) => return Err(format!("--{key} is given twice")),
        }
    }
    match json {
        Some(_) if !map.is_empty() => {
            Err("give either --json or --NAME VALUE arguments, not both".into())
        }
        Some(text) if text == "-" => Ok(ArgsSource::Stdin),
        Some(text) => Ok(ArgsSource::Json(text)),
        None => Ok(ArgsSource::Built(map)),
    }
}

fn article(kind: &str) -> String {
    match kind {
        "integer" | "object" | "array" => format!("an {kind}"),
        other => format!("a {other}"),
    }
}
