//! The crate's errors: a capability document that cannot be used ([`CapsError`]), and a
//! call the policy refused or that failed ([`Denial`], with a stable [`Code`]).

use std::fmt;

/// A capability document that is malformed or asks for something impossible. The
/// message names the place in the document (`tools[2].constraints.all[0]`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CapsError {
    /// The document is not valid JSON or does not have the document's shape.
    #[error("capability document: {0}")]
    Malformed(String),
    /// A field has the right shape but a value that cannot be used.
    #[error("capability document: {place}: {reason}")]
    Invalid {
        /// Where in the document.
        place: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A granted MCP server could not be connected to, or listed tools that do not fit
    /// the document.
    #[error("MCP server `{server}` ({url}): {reason}")]
    Mcp {
        /// The server's name in the document.
        server: String,
        /// Its URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
}

impl CapsError {
    pub(crate) fn invalid(place: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Invalid {
            place: place.into(),
            reason: reason.into(),
        }
    }
}

/// A stable, machine-readable reason for a refused or failed call. The text form
/// ([`Code::as_str`]) is part of sandtab's API: agents and pages match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// The tool (or the door) is not granted.
    Denied,
    /// The arguments are not JSON or do not match the tool's JSON Schema.
    BadArgs,
    /// The arguments break one of the tool's constraints (or a constraint could not be
    /// evaluated on them: constraints fail closed).
    Constraint,
    /// The tool's `max_calls` is used up.
    MaxCalls,
    /// The tool's rate limit is reached for now.
    RateLimit,
    /// The URL's origin (or path, at a granted origin) is not granted.
    NetDenied,
    /// The URL is not `http:` or `https:` (`data:`, `blob:`, `file:`, ...).
    NetScheme,
    /// The URL names a private, loopback or link-local address that is not granted.
    NetPrivate,
    /// The method is not granted at that origin.
    NetMethod,
    /// A redirect led somewhere the policy does not allow (checked at every hop).
    NetRedirect,
    /// The response is larger than the policy's cap.
    NetTooLarge,
    /// The request was allowed but failed (unreachable, refused by the browser, ...).
    NetFailed,
    /// The tool was called and its handler failed.
    ToolFailed,
}

impl Code {
    /// Every code, for documentation and tests.
    pub const ALL: [Code; 13] = [
        Code::Denied,
        Code::BadArgs,
        Code::Constraint,
        Code::MaxCalls,
        Code::RateLimit,
        Code::NetDenied,
        Code::NetScheme,
        Code::NetPrivate,
        Code::NetMethod,
        Code::NetRedirect,
        Code::NetTooLarge,
        Code::NetFailed,
        Code::ToolFailed,
    ];

    /// The stable text form, for example `CAP_DENIED`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Denied => "CAP_DENIED",
            Code::BadArgs => "CAP_BAD_ARGS",
            Code::Constraint => "CAP_CONSTRAINT",
            Code::MaxCalls => "CAP_MAX_CALLS",
            Code::RateLimit => "CAP_RATE_LIMIT",
            Code::NetDenied => "CAP_NET_DENIED",
            Code::NetScheme => "CAP_NET_SCHEME",
            Code::NetPrivate => "CAP_NET_PRIVATE",
            Code::NetMethod => "CAP_NET_METHOD",
            Code::NetRedirect => "CAP_NET_REDIRECT",
            Code::NetTooLarge => "CAP_NET_TOO_LARGE",
            Code::NetFailed => "CAP_NET_FAILED",
            Code::ToolFailed => "CAP_TOOL_FAILED",
        }
    }

    /// The code whose text form is `text`.
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|code| code.as_str() == text)
    }

    /// Whether the policy refused the call (as opposed to a call that was allowed and
    /// then failed). Refusals are logged as denials.
    pub fn is_refusal(self) -> bool {
        !matches!(self, Code::NetFailed | Code::ToolFailed)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A call that did not happen, or did not succeed: a code and a message for a person.
/// Displayed as `CAP_CONSTRAINT: ...`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Denial {
    /// Why, for machines.
    pub code: Code,
    /// Why, for people.
    pub message: String,
}

impl Denial {
    /// A denial with `code` and `message`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}
