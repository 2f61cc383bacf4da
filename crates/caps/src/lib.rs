//! sandtab's capabilities: the only doors out of a sandbox. A capability document
//! grants tools (with argument schemas, constraints, call and rate limits) and network
//! origins (with paths, methods and injected headers); the [`Gate`] checks every tool
//! call and request against it, whichever way it comes (shell, guest, page), and keeps
//! the audit log, and describes the tools to a model ([`definitions`]). Tools of remote
//! MCP servers the document grants join the granted tools ([`Gate::connect_mcp`]). The
//! host's side ([`Doors`]) only carries out what the gate allowed.
//! Platform-free: the browser binding implements [`Doors`] with the page's handlers and
//! `fetch`.

mod audit;
mod builtin;
mod constraint;
mod definitions;
mod document;
mod doors;
mod error;
mod gate;
mod mcp;
mod network;
mod schema;
mod scrub;

pub use audit::{AuditLog, REDACTED, Via, redact_pointers};
pub use builtin::{Builtin, BuiltinCall, Builtins, GATED_BUILTINS, HOME, home_path};
pub use constraint::{Constraint, Test};
pub use definitions::{
    BUILTIN_TOOLS, Definition, Format, builtin_definitions, definitions, definitions_json,
};
pub use document::{Capabilities, DOCUMENT_VERSION, RateLimit, Tool, ToolSource, valid_tool_name};
pub use doors::{BoxFuture, DoorRequest, Doors, HttpRequest, HttpResponse, NoDoors, UiAction};
pub use error::{CapsError, Code, Denial};
pub use gate::{Gate, MAX_TOOL_RESULT};
pub use mcp::{KNOWN_VERSIONS, MAX_MCP_SERVERS, McpServer, PROTOCOL_VERSION};
pub use network::{Allowed, Grant, NetworkPolicy, is_private, is_private_ip};
