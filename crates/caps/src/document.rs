//! The capability document a sandbox is created with, checked and compiled: the tools it
//! grants (with argument schemas, constraints, call limits), its network policy, and the
//! filesystem and limits sections, which the runtime applies (they are kept as given).

use crate::builtin::Builtins;
use crate::constraint::Constraint;
use crate::error::CapsError;
use crate::mcp::{McpDoc, McpServer};
use crate::network::{NetworkDoc, NetworkPolicy};
use crate::schema::ArgumentSchema;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;

/// The document format this crate reads.
pub const DOCUMENT_VERSION: u32 = 1;
/// The most tools one document may grant.
pub const MAX_TOOLS: usize = 256;
/// The longest tool name.
pub const MAX_TOOL_NAME: usize = 64;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocumentDoc {
    version: Option<u32>,
    #[serde(default)]
    tools: Vec<ToolDoc>,
    #[serde(default)]
    network: NetworkDoc,
    filesystem: Option<serde_json::Map<String, Value>>,
    limits: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    ui: bool,
    #[serde(default)]
    mcp: Vec<McpDoc>,
    builtins: Option<serde_json::Map<String, Value>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolDoc {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) description: String,
    pub(crate) parameters: Option<Value>,
    pub(crate) constraints: Option<Value>,
    pub(crate) max_calls: Option<u64>,
    pub(crate) rate_limit: Option<RateLimit>,
    #[serde(default)]
    pub(crate) redact: Vec<String>,
}

/// Who answers a tool's calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSource {
    /// The page's handler (through [`crate::Doors::call_tool`]).
    Host,
    /// A remote MCP server: the index of the server in [`Capabilities::mcp`] and the
    /// tool's name there.
    Mcp {
        /// Which server.
        server: usize,
        /// The tool's name on the server.
        remote: String,
    },
}

/// At most `calls` calls in any window of `per_seconds` seconds.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimit {
    /// Calls allowed in a window.
    pub calls: u32,
    /// The window, in seconds.
    pub per_seconds: f64,
}

/// A granted tool.
pub struct Tool {
    /// Its name (also a shell command, unless a command of that name exists).
    pub name: String,
    /// What it does, for the agent.
    pub description: String,
    /// The JSON Schema of its arguments (an object).
    pub parameters: Value,
    pub(crate) schema: ArgumentSchema,
    /// What must hold of the arguments, beyond the schema.
    pub constraints: Option<Constraint>,
    /// How many calls the sandbox may make in all.
    pub max_calls: Option<u64>,
    /// How fast.
    pub rate_limit: Option<RateLimit>,
    /// Arguments (JSON Pointers) shown as `[redacted]` in the audit log.
    pub redact: Vec<String>,
    /// Who answers its calls.
    pub source: ToolSource,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("max_calls", &self.max_calls)
            .field("rate_limit", &self.rate_limit)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// A checked capability document.
#[derive(Debug)]
pub struct Capabilities {
    /// The granted tools, in document order.
    pub tools: Vec<Tool>,
    /// Where the sandbox may connect.
    pub network: NetworkPolicy,
    /// The `filesystem` section (mounts and quotas), for the runtime to apply.
    pub filesystem: Option<serde_json::Map<String, Value>>,
    /// The `limits` section (the shell's and the guests'), for the runtime to apply.
    pub limits: Option<serde_json::Map<String, Value>>,
    /// Whether the sandbox may show HTML to the user (`ui`) and read its events.
    pub ui: bool,
    /// Remote MCP servers whose tools become the sandbox's tools once connected
    /// ([`crate::Gate::connect_mcp`]).
    pub mcp: Vec<McpServer>,
    /// sandtab's own tools (`bash` and the file tools): granted unless the document's
    /// `builtins` denies them, with their limits and allowed paths.
    pub builtins: Builtins,
}

impl Default for Capabilities {
    /// Nothing granted: no tools, no network.
    fn default() -> Self {
        Self {
            tools: Vec::new(),
            network: NetworkPolicy::default(),
            filesystem: None,
            limits: None,
            ui: false,
            mcp: Vec::new(),
            builtins: Builtins::default(),
        }
    }
}

impl Capabilities {
    /// Reads a capability document from JSON text.
    pub fn from_json(text: &str) -> Result<Self, CapsError> {
        let deserializer = &mut serde_json::Deserializer::from_str(text);
        let doc: DocumentDoc = serde_path_to_error::deserialize(deserializer).map_err(|err| {
            let mut path = err.path().to_string();
            let inner = err.into_inner();
            // For an unknown field the path ends at the field itself: name its parent.
            if inner.to_string().starts_with("unknown field") {
                path = path
                    .rsplit_once('.')
                    .map_or(String::new(), |(parent, _)| parent.to_owned());
            }
            match path.as_str() {
                "." | "" => CapsError::Malformed(inner.to_string()),
                _ => CapsError::Malformed(format!("{path}: {inner}")),
            }
        })?;
        Self::compile(doc)
    }

    /// Reads a capability document from a JSON value.
    pub fn from_value(value: &Value) -> Result<Self, CapsError> {
        Self::from_json(&value.to_string())
    }

    fn compile(doc: DocumentDoc) -> Result<Self, CapsError> {
        if let Some(version) = doc.version
            && version != DOCUMENT_VERSION
        {
            return Err(CapsError::invalid(
                "version",
                format!(
                    "version {version} is not known (this sandtab reads version {DOCUMENT_VERSION})"
                ),
            ));
        }
        if doc.tools.len() > MAX_TOOLS {
            return Err(CapsError::invalid(
                "tools",
                format!("more than {MAX_TOOLS} tools"),
            ));
        }
        let mut names = BTreeSet::new();
        let mut tools = Vec::new();
        for (i, tool) in doc.tools.into_iter().enumerate() {
            let place = format!("tools[{i}]");
            if !names.insert(tool.name.clone()) {
                return Err(CapsError::invalid(
                    format!("{place}.name"),
                    format!("`{}` is granted twice", tool.name),
                ));
            }
            tools.push(compile_tool(tool, &place, ToolSource::Host)?);
        }
        let network = NetworkPolicy::compile(doc.network)?;
        let mcp = crate::mcp::compile_servers(doc.mcp, &network, &names)?;
        let builtins = Builtins::compile(doc.builtins)?;
        Ok(Self {
            tools,
            network,
            filesystem: doc.filesystem,
            limits: doc.limits,
            ui: doc.ui,
            mcp,
            builtins,
        })
    }

    /// The granted tool `name`.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|tool| tool.name == name)
    }
}

/// Whether `name` can be a tool's name (and so a shell command's).
pub fn valid_tool_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= MAX_TOOL_NAME
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

pub(crate) fn compile_tool(
    doc: ToolDoc,
    place: &str,
    source: ToolSource,
) -> Result<Tool, CapsError> {
    if !valid_tool_name(&doc.name) {
        return Err(CapsError::invalid(
            format!("{place}.name"),
            format!(
                "`{}` is not a tool name (a letter or `_`, then letters, digits, `_`, `-` or `.`; at most {MAX_TOOL_NAME})",
                doc.name
            ),
        ));
    }
    if crate::definitions::BUILTIN_TOOLS.contains(&doc.name.as_str()) {
        return Err(CapsError::invalid(
            format!("{place}.name"),
            format!(
                "`{}` is one of sandtab's own tools; give the tool another name",
                doc.name
            ),
        ));
    }
    compile_tool_body(doc, place, source)
}

/// A tool's schema, constraints and limits compiled (its name already checked).
pub(crate) fn compile_tool_body(
    doc: ToolDoc,
    place: &str,
    source: ToolSource,
) -> Result<Tool, CapsError> {
    let parameters = doc
        .parameters
        .unwrap_or_else(|| serde_json::json!({"type": "object"}));
    if parameters.get("type").and_then(Value::as_str) != Some("object") {
        return Err(CapsError::invalid(
            format!("{place}.parameters"),
            "must be a JSON Schema with \"type\": \"object\" (a tool takes named arguments)",
        ));
    }
    let schema = ArgumentSchema::compile(&parameters).map_err(|why| {
        CapsError::invalid(
            format!("{place}.parameters"),
            format!("not a usable JSON Schema: {why}"),
        )
    })?;
    let constraints = doc
        .constraints
        .as_ref()
        .map(|c| Constraint::compile(c, &format!("{place}.constraints")))
        .transpose()?;
    if let Some(rate) = doc.rate_limit
        && (rate.calls == 0 || !(rate.per_seconds > 0.0 && rate.per_seconds.is_finite()))
    {
        return Err(CapsError::invalid(
            format!("{place}.rate_limit"),
            "needs `calls` of at least 1 and `per_seconds` above 0",
        ));
    }
    for (i, pointer) in doc.redact.iter().enumerate() {
        if !pointer.starts_with('/') {
            return Err(CapsError::invalid(
                format!("{place}.redact[{i}]"),
                "must be a JSON Pointer (`/name`)",
            ));
        }
    }
    Ok(Tool {
        name: doc.name,
        description: doc.description,
        parameters,
        schema,
        constraints,
        max_calls: doc.max_calls,
        rate_limit: doc.rate_limit,
        redact: doc.redact,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Capabilities::from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn an_empty_document_grants_nothing() {
        let caps = Capabilities::from_json("{}").unwrap();
        assert!(caps.tools.is_empty() && caps.network.grants.is_empty());
    }

    #[test]
    fn a_full_document_compiles() {
        let caps = Capabilities::from_json(
            r#"{"version": 1,
                "tools": [{"name": "weather", "description": "Forecast",
                           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                           "constraints": {"arg": "city", "in": ["Oslo"]},
                           "max_calls": 3, "rate_limit": {"calls": 2, "per_seconds": 1}, "redact": ["/token"]}],
                "network": {"allow": [{"origin": "https://api.example.com"}], "max_response_bytes": 1000},
                "filesystem": {"quota": {"bytes": 1000}}, "limits": {"max_commands": 10}}"#,
        )
        .unwrap();
        let tool = caps.tool("weather").unwrap();
        assert_eq!(tool.max_calls, Some(3));
        assert_eq!(caps.network.max_response_bytes, 1000);
        assert!(caps.filesystem.is_some() && caps.limits.is_some());
    }

    #[test]
    fn bad_documents_are_clear_errors() {
        assert!(err("not json").starts_with("capability document: expected ident"));
        assert_eq!(
            err(r#"{"tool": []}"#).split(", expected").next().unwrap(),
            "capability document: unknown field `tool`"
        );
        assert!(
            err(r#"{"tools": [{"name": "a", "max_calls": "3"}]}"#)
                .starts_with("capability document: tools[0].max_calls: invalid type: string \"3\"")
        );
        assert!(
            err(r#"{"tools": [{"name": "a"}, {"name": "a"}]}"#)
                .contains("tools[1].name: `a` is granted twice")
        );
        assert!(
            err(r#"{"tools": [{"name": "rm -rf"}]}"#)
                .contains("tools[0].name: `rm -rf` is not a tool name")
        );
        assert!(
            err(r#"{"tools": [{"name": "a", "parameters": {"type": "string"}}]}"#)
                .contains("\"type\": \"object\"")
        );
        assert!(err(r#"{"tools": [{"name": "a", "parameters": {"type": "object", "properties": {"x": {"type": 12}}}}]}"#).contains("tools[0].parameters: not a usable JSON Schema"));
        assert!(err(r#"{"tools": [{"name": "a", "parameters": {"type": "object", "$ref": "https://example.com/s.json"}}]}"#).contains("not a usable JSON Schema"));
        assert!(
            err(r#"{"tools": [{"name": "a", "rate_limit": {"calls": 0, "per_seconds": 1}}]}"#)
                .contains("rate_limit")
        );
        assert!(err(r#"{"tools": [{"name": "a", "redact": ["token"]}]}"#).contains("redact[0]"));
        assert!(err(r#"{"version": 2}"#).contains("version 2 is not known"));
        assert!(
            err(r#"{"network": {"allow": [{"origin": "https://x.example", "path": ["/"]}]}}"#)
                .contains("network.allow[0]: unknown field `path`")
        );
    }
}
