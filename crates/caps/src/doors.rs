//! What the host provides behind the gate: the page's tool handlers, its `fetch`, and a
//! clock. The gate decides; the doors only carry out what it allowed.

use crate::error::Denial;
use std::future::Future;
use std::pin::Pin;

/// A boxed future, `Send` so that calls can live inside the shell's futures.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// An HTTP request as the sandbox asks for it (`curl`, `fetch`, a guest).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// An absolute URL.
    pub url: String,
    /// Headers in order (names as given).
    pub headers: Vec<(String, String)>,
    /// The body, if any.
    pub body: Option<Vec<u8>>,
    /// Whether to follow redirects (each hop is checked).
    pub follow_redirects: bool,
}

/// An HTTP response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The reason phrase (`OK`; may be empty over HTTP/2).
    pub status_text: String,
    /// Headers in order, names lower-case.
    pub headers: Vec<(String, String)>,
    /// The URL the response came from (after redirects).
    pub url: String,
    /// Whether redirects were followed to get it.
    pub redirected: bool,
    /// The body.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A request the gate allowed, as the doors must send it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoorRequest {
    /// The upper-case method.
    pub method: String,
    /// The checked URL.
    pub url: String,
    /// Headers, with the grant's known injected values already in place.
    pub headers: Vec<(String, String)>,
    /// The body, if any.
    pub body: Option<Vec<u8>>,
    /// The grant that allowed it (its index in the policy), whose headers given as
    /// `null` the doors inject themselves.
    pub grant: usize,
    /// Header names the doors inject from outside the runtime (secrets the runtime
    /// never holds); the doors also scrub their values from the response.
    pub inject: Vec<String>,
    /// When redirects are to be followed by the doors: the origins every hop must stay
    /// within (a browser enforces them with a Content Security Policy). `None`: do not
    /// follow; return a redirect as it is (the gate follows it after checking it).
    pub follow_within: Option<Vec<String>>,
    /// How many redirects may be followed.
    pub max_redirects: u32,
    /// The largest body to read; a larger one is a [`crate::Code::NetTooLarge`] denial.
    pub max_response_bytes: u64,
}

/// What the `ui` door is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiAction {
    /// Show this HTML (a whole document or a fragment) in the page's sandboxed frame,
    /// replacing what was there.
    Show {
        /// The HTML.
        html: String,
        /// A title for the frame (its accessible name).
        title: String,
    },
    /// Wait up to `timeout_ms` for the next event (a click, a form submission, or a
    /// message the frame's script sends); `Ok(None)` when none came in time.
    Wait {
        /// How long to wait.
        timeout_ms: u64,
    },
    /// Remove the frame.
    Close,
}

/// The host's side of the doors.
pub trait Doors: Send + Sync {
    /// Calls the host's handler for the granted tool `name` with JSON `args`; the answer
    /// is JSON text, an error is a message.
    fn call_tool(&self, name: &str, args: &str) -> BoxFuture<'static, Result<String, String>>;

    /// Sends a request the gate allowed. Doors that cannot return a redirect as it is
    /// (the browser hides where a redirect points) follow it themselves within
    /// `follow_within`, and the gate checks the final URL.
    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>>;

    /// Milliseconds since the Unix epoch (for rate limits and the audit log).
    fn now_ms(&self) -> f64;

    /// Carries out a `ui` action; for `Wait`, the event as JSON text, or `None`.
    fn ui(&self, action: UiAction) -> BoxFuture<'static, Result<Option<String>, Denial>> {
        let _ = action;
        Box::pin(async {
            Err(Denial::new(
                crate::Code::Denied,
                "this host has no place to show a user interface",
            ))
        })
    }
}

/// Doors that grant nothing: tool calls fail, requests fail. For a sandbox with no
/// host (the CLI, tests) or before a page attaches one.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoDoors;

impl Doors for NoDoors {
    fn call_tool(&self, name: &str, _args: &str) -> BoxFuture<'static, Result<String, String>> {
        let message = format!("the host has no handler for `{name}`");
        Box::pin(async move { Err(message) })
    }

    fn fetch(&self, _request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        Box::pin(async {
            Err(Denial::new(
                crate::Code::NetFailed,
                "this host cannot make network requests",
            ))
        })
    }

    fn now_ms(&self) -> f64 {
        0.0
    }
}
