//! The sandbox's tools as an agent's model sees them: sandtab's own (`bash`,
//! `read_file`, `write_file`, `edit_file` unless the document denies them, and `fetch`
//! when an origin is granted) and
//! the granted tools, as JSON Schema in the OpenAI and Anthropic function-calling
//! formats and as MCP tool definitions.

use crate::document::Capabilities;
use serde_json::{Value, json};

/// The names of sandtab's own tools, which a granted tool may not take.
pub const BUILTIN_TOOLS: [&str; 6] = [
    "bash",
    "read_file",
    "write_file",
    "edit_file",
    "fetch",
    "ui",
];

/// Which function-calling format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OpenAI chat completions `tools`: `{"type": "function", "function": {...}}`.
    OpenAi,
    /// Anthropic messages `tools`: `{"name", "description", "input_schema"}`.
    Anthropic,
    /// MCP `tools/list` entries: `{"name", "description", "inputSchema"}`.
    Mcp,
}

impl Format {
    /// `openai`, `anthropic` or `mcp`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "openai" => Some(Format::OpenAi),
            "anthropic" => Some(Format::Anthropic),
            "mcp" => Some(Format::Mcp),
            _ => None,
        }
    }
}

/// One tool's definition, format-neutral.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its arguments.
    pub parameters: Value,
}

impl Definition {
    /// The definition in `format`.
    pub fn to_format(&self, format: Format) -> Value {
        match format {
            Format::OpenAi => json!({"type": "function", "function": {
                "name": self.name, "description": self.description, "parameters": self.parameters}}),
            Format::Anthropic => json!({
                "name": self.name, "description": self.description, "input_schema": self.parameters}),
            Format::Mcp => json!({
                "name": self.name, "description": self.description, "inputSchema": self.parameters}),
        }
    }
}

/// The JSON Schema of the arguments of sandtab's own tool `name` (`bash` and the file
/// tools), which the gate checks its calls against.
pub(crate) fn builtin_parameters(name: &str) -> Option<Value> {
    Some(match name {
        "bash" => json!({"type": "object", "properties": {
            "command": {"type": "string", "description": "The script to run"},
            "session": {"type": "string", "description": "Shell session name (default \"main\")"}},
            "required": ["command"], "additionalProperties": false}),
        "read_file" => json!({"type": "object", "properties": {
            "path": {"type": "string", "description": "Absolute path, or relative to /home/agent"},
            "offset": {"type": "integer", "minimum": 1, "description": "First line to return"},
            "limit": {"type": "integer", "minimum": 1, "description": "How many lines"}},
            "required": ["path"], "additionalProperties": false}),
        "write_file" => json!({"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"], "additionalProperties": false}),
        "edit_file" => json!({"type": "object", "properties": {
            "path": {"type": "string"},
            "old_string": {"type": "string", "description": "The exact text to replace"},
            "new_string": {"type": "string", "description": "The text to put instead"},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)"}},
            "required": ["path", "old_string", "new_string"], "additionalProperties": false}),
        _ => return None,
    })
}

/// sandtab's own tools available under `caps`: those its `builtins` does not deny,
/// `fetch` only with a granted origin, `ui` only when granted.
pub fn builtin_definitions(caps: &Capabilities) -> Vec<Definition> {
    let def = |name: &str, description: &str, parameters: Value| Definition {
        name: name.into(),
        description: description.into(),
        parameters,
    };
    let mut defs = Vec::new();
    for (name, description) in [
        (
            "bash",
            "Run a bash script in the sandbox's shell (GNU-like coreutils, grep, sed, awk, jq, find, diff, patch, tar, curl, python3 when installed). The session keeps cd, variables and functions between calls. Returns stdout, stderr and the exit code; long output is cut with a note.",
        ),
        (
            "read_file",
            "Read a text file of the sandbox. Returns its contents (optionally only lines offset.. offset+limit-1, counted from 1).",
        ),
        (
            "write_file",
            "Create or replace a file of the sandbox with the given text (its directories are created).",
        ),
        (
            "edit_file",
            "Replace an exact string in a file. old_string must occur exactly once unless replace_all is true; the edit fails otherwise and changes nothing.",
        ),
    ] {
        let Some(builtin) = caps.builtins.get(name).filter(|b| b.granted) else {
            continue;
        };
        let description = match &builtin.paths {
            Some(dirs) => format!("{description} Only paths under: {}.", dirs.join(", ")),
            None => description.to_owned(),
        };
        defs.push(def(name, &description, builtin.tool.parameters.clone()));
    }
    if !caps.network.grants.is_empty() {
        let origins: Vec<String> = caps.network.grants.iter().map(|g| g.origin()).collect();
        defs.push(def(
            "fetch",
            &format!(
                "Make an HTTP request. Only these origins are reachable: {}. Returns status, headers and the body as text.",
                origins.join(", ")
            ),
            json!({"type": "object", "properties": {
                "url": {"type": "string"},
                "method": {"type": "string", "description": "Default GET"},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "body": {"type": "string"}},
                "required": ["url"], "additionalProperties": false}),
        ));
    }
    if caps.ui {
        defs.push(def(
            "ui",
            "Show HTML to the user in a sandboxed frame on the page (no network, no navigation, no access to the page; its scripts run only where the page allows them), then optionally wait for the person's next click or form submission, or a sandtab.send(data) message from a script, returned as JSON.",
            json!({"type": "object", "properties": {
                "html": {"type": "string", "description": "The HTML to show (omit to only wait)"},
                "path": {"type": "string", "description": "Or: a sandbox file holding the HTML"},
                "wait": {"type": "boolean", "description": "Wait for the user's next event (default true)"},
                "timeout_seconds": {"type": "number", "description": "How long to wait (default 300)"}},
                "additionalProperties": false}),
        ));
    }
    defs
}

/// Every tool of a sandbox under `caps`: sandtab's own, then the granted ones.
pub fn definitions(caps: &Capabilities) -> Vec<Definition> {
    let mut defs = builtin_definitions(caps);
    defs.extend(caps.tools.iter().map(|tool| Definition {
        name: tool.name.clone(),
        description: tool.description.clone(),
        parameters: tool.parameters.clone(),
    }));
    defs
}

/// [`definitions`] in `format`, as a JSON array.
pub fn definitions_json(caps: &Capabilities, format: Format) -> Value {
    Value::Array(
        definitions(caps)
            .iter()
            .map(|d| d.to_format(format))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_carries_the_same_schema() {
        let caps = Capabilities::from_json(
            r#"{"tools": [{"name": "weather", "description": "Forecast",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}],
            "network": {"allow": [{"origin": "https://api.example.com"}]}}"#,
        )
        .unwrap();
        let names: Vec<String> = definitions(&caps).into_iter().map(|d| d.name).collect();
        assert_eq!(
            names,
            [
                "bash",
                "read_file",
                "write_file",
                "edit_file",
                "fetch",
                "weather"
            ]
        );
        let openai = definitions_json(&caps, Format::OpenAi);
        assert_eq!(openai[5]["type"], "function");
        assert_eq!(
            openai[5]["function"]["parameters"]["properties"]["city"]["type"],
            "string"
        );
        let anthropic = definitions_json(&caps, Format::Anthropic);
        assert_eq!(
            anthropic[5]["input_schema"],
            openai[5]["function"]["parameters"]
        );
        let mcp = definitions_json(&caps, Format::Mcp);
        assert_eq!(mcp[0]["inputSchema"]["required"], json!(["command"]));
        assert!(
            mcp[4]["description"]
                .as_str()
                .unwrap()
                .contains("https://api.example.com")
        );
        assert!(!names.contains(&"ui".to_owned()), "ui only when granted");
        let with_ui = Capabilities::from_json(r#"{"ui": true}"#).unwrap();
        assert_eq!(definitions(&with_ui).last().unwrap().name, "ui");
        // Without a granted origin there is no fetch tool to offer.
        let bare = definitions(&Capabilities::default());
        assert!(!bare.iter().any(|d| d.name == "fetch"));
        // Each built-in schema is itself a usable JSON Schema.
        for def in definitions(&caps) {
            assert!(
                crate::schema::ArgumentSchema::compile(&def.parameters).is_ok(),
                "{}",
                def.name
            );
        }
    }

    #[test]
    fn a_granted_tool_cannot_take_a_builtin_name() {
        let err = Capabilities::from_json(r#"{"tools": [{"name": "bash"}]}"#).unwrap_err();
        assert!(
            err.to_string()
                .contains("`bash` is one of sandtab's own tools"),
            "{err}"
        );
    }
}
