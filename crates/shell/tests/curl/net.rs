//! The scripted doors behind the gate, the shell on them, and small helpers.

use sandtab_caps::{BoxFuture, Capabilities, Code, Denial, DoorRequest, Doors, HttpResponse};
use sandtab_shell::{ExecOutcome, Gate, GuestEngine, Shell, ShellLimits, WallClock};
use sandtab_vfs::{Quota, SandboxFs, VfsPath};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub const BIG: usize = 1024 * 1024;
pub const MAX_RESPONSE: usize = 2 * BIG;

/// Doors that answer from a script and remember every request.
#[derive(Default)]
pub struct Net {
    requests: Mutex<Vec<DoorRequest>>,
    answers: Mutex<HashMap<String, Result<HttpResponse, Denial>>>,
}

impl Net {
    pub fn answer(
        &self,
        url: &str,
        status: u16,
        text: &str,
        headers: &[(&str, &str)],
        body: impl Into<Vec<u8>>,
    ) {
        let response = HttpResponse {
            status,
            status_text: text.into(),
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).into(), (*v).into()))
                .collect(),
            url: url.into(),
            redirected: false,
            body: body.into(),
        };
        self.answers
            .lock()
            .unwrap()
            .insert(url.into(), Ok(response));
    }

    pub fn requests(&self) -> Vec<DoorRequest> {
        std::mem::take(&mut *self.requests.lock().unwrap())
    }

    /// The one request sent since the last look.
    pub fn only_request(&self) -> DoorRequest {
        let mut sent = self.requests();
        assert_eq!(sent.len(), 1, "{sent:#?}");
        sent.remove(0)
    }
}

impl Doors for Net {
    fn call_tool(&self, _: &str, _: &str) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async { Err("no tools here".to_owned()) })
    }

    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        // A query string does not change the answer.
        let answers = self.answers.lock().unwrap();
        let without_query = request.url.split('?').next().unwrap_or_default();
        let answer = answers
            .get(&request.url)
            .or_else(|| answers.get(without_query))
            .cloned()
            .unwrap_or_else(|| {
                Err(Denial::new(
                    Code::NetFailed,
                    format!("no answer for {}", request.url),
                ))
            });
        drop(answers);
        self.requests.lock().unwrap().push(request);
        Box::pin(async move { answer })
    }

    fn now_ms(&self) -> f64 {
        // 2024-05-06 07:08:09 UTC.
        1_714_979_289_000.0
    }
}

/// Bytes that are not text: every byte value, CR LF pairs and zeros.
pub fn binary(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

pub fn shell() -> (Shell, Arc<Net>) {
    let net = Arc::new(Net::default());
    let text = [("content-type", "text/plain")];
    net.answer(
        "http://api.test/hello",
        200,
        "OK",
        &[("content-type", "text/plain"), ("x-served-by", "fake")],
        "hello\n",
    );
    net.answer(
        "http://api.test/",
        200,
        "OK",
        &[("content-type", "text/html")],
        "<p>index</p>",
    );
    net.answer("http://api.test/echo", 201, "Created", &text, "posted\n");
    net.answer(
        "http://api.test/json",
        200,
        "OK",
        &[("content-type", "application/json")],
        r#"{"name":"sandtab"}"#,
    );
    net.answer(
        "http://api.test/redirect",
        302,
        "Found",
        &[("location", "/hello")],
        "moved\n",
    );
    net.answer(
        "http://api.test/chain",
        301,
        "Moved Permanently",
        &[("location", "http://api.test/redirect")],
        "",
    );
    net.answer(
        "http://api.test/away",
        302,
        "Found",
        &[("location", "http://evil.test/steal")],
        "",
    );
    net.answer(
        "http://api.test/missing",
        404,
        "Not Found",
        &text,
        "not here\n",
    );
    net.answer("http://api.test/h2", 200, "", &text, "two\n");
    net.answer(
        "http://api.test/big.bin",
        200,
        "OK",
        &[("content-type", "application/octet-stream")],
        binary(BIG),
    );
    net.answer(
        "http://api.test/huge",
        200,
        "OK",
        &[],
        vec![b'x'; MAX_RESPONSE + 1],
    );
    net.answer(
        "https://files.test/docs/report.pdf",
        200,
        "OK",
        &[("content-type", "application/pdf")],
        binary(3000),
    );
    net.answers.lock().unwrap().insert(
        "http://api.test/down".into(),
        Err(Denial::new(Code::NetFailed, "connection refused")),
    );
    let doc = json!({"network": {
        "allow": [
            {"origin": "http://api.test", "methods": ["GET", "HEAD", "POST", "PUT", "DELETE"]},
            {"origin": "https://files.test"},
        ],
        "max_response_bytes": MAX_RESPONSE,
    }});
    let (shell, _) = shell_with(&doc, net.clone());
    (shell, net)
}

/// A shell whose gate enforces `doc` in front of `net`.
pub fn shell_with(doc: &Value, net: Arc<Net>) -> (Shell, Arc<Gate>) {
    let gate = Arc::new(Gate::new(Capabilities::from_value(doc).unwrap(), net));
    let fs =
        Arc::new(SandboxFs::in_memory(Arc::new(WallClock), Quota::UNLIMITED, Vec::new()).unwrap());
    let limits = ShellLimits::default();
    let engine = GuestEngine::new(limits.guest.call_depth);
    let host = Arc::new(sandtab_wasi::NativeHost::default());
    let shell = Shell::with_gate(fs, limits, engine, host, gate.clone()).unwrap();
    (shell, gate)
}

pub fn read(shell: &Shell, path: &str) -> Vec<u8> {
    shell
        .fs()
        .mem()
        .read(&VfsPath::parse(path).unwrap())
        .unwrap()
}

pub fn exists(shell: &Shell, path: &str) -> bool {
    shell.fs().mem().exists(&VfsPath::parse(path).unwrap())
}

pub fn header<'r>(request: &'r DoorRequest, name: &str) -> Option<&'r str> {
    request
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[track_caller]
pub fn ok(out: &ExecOutcome) {
    assert_eq!(out.exit_code, 0, "stderr: {}", out.stderr_text());
}
