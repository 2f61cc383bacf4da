//! Two attacks on the network door, natively, through the gate in front of scripted
//! doors:
//! 1. A redirect inside a granted origin to a path or with a method the grant does not
//!    allow: never sent, whether the gate follows the hops itself (it checks each) or
//!    doors that cannot show the hops (a browser) would follow them.
//! 2. A server echoing an injected secret encoded (base64, hex, percent, JSON, HTML):
//!    scrubbed from the body, header values and names, status text, final URL, denial
//!    messages and the audit log; and the size limit holds for the body as received.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use futures::executor::block_on;
use sandtab_caps::{
    BoxFuture, Capabilities, Code, Denial, DoorRequest, Doors, Gate, HttpRequest, HttpResponse, Via,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Doors answering from a script. `Browserlike` doors follow redirects themselves when
/// the gate lets them (`follow_within`), checking only each hop's origin, as a frame's
/// Content Security Policy does; without `follow_within` they cannot show a redirect
/// (an opaque redirect). Other doors return a redirect as it is.
/// A request that left: method, URL, body.
type Sent = (String, String, Option<Vec<u8>>);

#[derive(Default)]
struct Scripted {
    browserlike: bool,
    /// (method, url, body) of every request that left.
    sent: Mutex<Vec<Sent>>,
    door_requests: Mutex<Vec<DoorRequest>>,
    responses: Mutex<HashMap<String, HttpResponse>>,
}

impl Scripted {
    fn respond(&self, url: &str, status: u16, headers: &[(&str, &str)], body: &str) {
        self.responses.lock().unwrap().insert(
            url.into(),
            HttpResponse {
                status,
                status_text: "X".into(),
                headers: headers
                    .iter()
                    .map(|(n, v)| ((*n).into(), (*v).into()))
                    .collect(),
                url: url.into(),
                redirected: false,
                body: body.as_bytes().to_vec(),
            },
        );
    }

    fn sent_urls(&self) -> Vec<String> {
        self.sent
            .lock()
            .unwrap()
            .iter()
            .map(|(m, u, _)| format!("{m} {u}"))
            .collect()
    }

    fn answer(&self, method: &str, url: &str, body: Option<Vec<u8>>) -> Option<HttpResponse> {
        self.sent
            .lock()
            .unwrap()
            .push((method.into(), url.into(), body));
        self.responses.lock().unwrap().get(url).cloned()
    }
}

fn origin_of(url: &str) -> String {
    url::Url::parse(url).unwrap().origin().ascii_serialization()
}

impl Doors for Scripted {
    fn call_tool(&self, _: &str, _: &str) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async { Err("no tools".to_owned()) })
    }

    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        self.door_requests.lock().unwrap().push(request.clone());
        let failed = || Denial::new(Code::NetFailed, "connection refused");
        if !self.browserlike {
            let answer = self
                .answer(&request.method, &request.url, request.body.clone())
                .ok_or_else(failed);
            return Box::pin(async move { answer });
        }
        let mut method = request.method.clone();
        let mut url = request.url.clone();
        let mut body = request.body.clone();
        let mut redirected = false;
        let answer = loop {
            let Some(mut response) = self.answer(&method, &url, body.clone()) else {
                break Err(failed());
            };
            let location = response.header("location").map(str::to_owned);
            match (location, &request.follow_within) {
                (Some(location), Some(within)) if (300..400).contains(&response.status) => {
                    let next = url::Url::parse(&url)
                        .unwrap()
                        .join(&location)
                        .unwrap()
                        .to_string();
                    if !within.contains(&origin_of(&next)) {
                        break Err(Denial::new(Code::NetRedirect, "blocked by the frame's CSP"));
                    }
                    // Fetch's rules for the method after a redirect.
                    if response.status == 303 && method != "GET" && method != "HEAD"
                        || matches!(response.status, 301 | 302) && method == "POST"
                    {
                        method = "GET".into();
                        body = None;
                    }
                    url = next;
                    redirected = true;
                }
                (Some(_), None) if (300..400).contains(&response.status) => {
                    break Err(Denial::new(
                        Code::NetRedirect,
                        "answered with a redirect (opaque)",
                    ));
                }
                _ => {
                    response.url = url;
                    response.redirected = redirected;
                    break Ok(response);
                }
            }
        };
        Box::pin(async move { answer })
    }

    fn now_ms(&self) -> f64 {
        0.0
    }
}

fn gate(doc: Value, browserlike: bool) -> (Gate, Arc<Scripted>) {
    let doors = Arc::new(Scripted {
        browserlike,
        ..Scripted::default()
    });
    let caps = Capabilities::from_value(&doc).unwrap();
    (Gate::new(caps, doors.clone()), doors)
}

fn send(gate: &Gate, method: &str, url: &str, body: Option<&str>) -> Result<HttpResponse, Denial> {
    block_on(gate.fetch(
        HttpRequest {
            method: method.into(),
            url: url.into(),
            headers: Vec::new(),
            body: body.map(|b| b.as_bytes().to_vec()),
            follow_redirects: true,
        },
        Via::Shell,
    ))
}

const API: &str = "http://127.0.0.1:9000";

fn restricted() -> Value {
    json!({"network": {"allow": [
        {"origin": API, "paths": ["/api/"], "methods": ["GET", "POST"]},
    ]}})
}

fn script_redirects(doors: &Scripted) {
    doors.respond(
        &format!("{API}/api/found"),
        302,
        &[("location", "/admin/delete")],
        "",
    );
    doors.respond(
        &format!("{API}/api/temporary"),
        307,
        &[("location", "/admin/delete")],
        "",
    );
    doors.respond(
        &format!("{API}/admin/delete"),
        200,
        &[],
        "deleted everything",
    );
}

#[test]
fn a_redirect_to_an_ungranted_path_is_never_sent_by_doors_that_follow_themselves() {
    let (gate, doors) = gate(restricted(), true);
    script_redirects(&doors);
    let found = send(&gate, "GET", &format!("{API}/api/found"), None).unwrap_err();
    assert_eq!(found.code, Code::NetRedirect, "{found}");
    assert!(found.message.contains("could not be checked"), "{found}");
    let temporary = send(
        &gate,
        "POST",
        &format!("{API}/api/temporary"),
        Some("drop=all"),
    )
    .unwrap_err();
    assert_eq!(temporary.code, Code::NetRedirect, "{temporary}");
    let sent = doors.sent_urls();
    assert!(!sent.iter().any(|u| u.contains("/admin")), "{sent:?}");
    assert_eq!(sent.len(), 2, "only the granted first requests: {sent:?}");
    // The grant limits paths, so the doors were told not to follow blindly.
    assert!(
        doors
            .door_requests
            .lock()
            .unwrap()
            .iter()
            .all(|r| r.follow_within.is_none())
    );
    let log = gate.audit().to_jsonl();
    assert_eq!(log.matches("CAP_NET_REDIRECT").count(), 2, "{log}");
}

#[test]
fn a_grant_limiting_methods_is_not_followed_blindly_either() {
    // Every path, but only PUT: a 303 after a PUT turns it into a GET, which is not
    // granted, so the doors may not follow it where nobody sees the hop.
    let (gate, doors) = gate(
        json!({"network": {"allow": [{"origin": API, "methods": ["PUT"]}]}}),
        true,
    );
    doors.respond(&format!("{API}/x"), 303, &[("location", "/y")], "");
    doors.respond(&format!("{API}/y"), 200, &[], "y");
    let denial = send(&gate, "PUT", &format!("{API}/x"), Some("1")).unwrap_err();
    assert_eq!(denial.code, Code::NetRedirect);
    assert_eq!(doors.sent_urls(), [format!("PUT {API}/x")]);
    // A grant of every path with the methods a redirect may turn into is followed by
    // the doors, within the origins allowed.
    let (gate, doors) = self::gate(
        json!({"network": {"allow": [{"origin": API, "methods": ["GET", "POST"]}]}}),
        true,
    );
    doors.respond(&format!("{API}/x"), 302, &[("location", "/y")], "");
    doors.respond(&format!("{API}/y"), 200, &[], "y");
    let response = send(&gate, "POST", &format!("{API}/x"), Some("1")).unwrap();
    assert_eq!(response.body, b"y");
    assert_eq!(
        doors.sent_urls(),
        [format!("POST {API}/x"), format!("GET {API}/y")]
    );
    assert_eq!(
        doors.door_requests.lock().unwrap()[0].follow_within,
        Some(vec![API.to_owned()])
    );
}

#[test]
fn the_gate_checks_the_path_and_method_of_every_hop_it_follows() {
    let (gate, doors) = gate(restricted(), false);
    script_redirects(&doors);
    doors.respond(
        &format!("{API}/api/post-307"),
        307,
        &[("location", "/api/next")],
        "",
    );
    doors.respond(
        &format!("{API}/api/post-302"),
        302,
        &[("location", "/api/next")],
        "",
    );
    doors.respond(&format!("{API}/api/next"), 200, &[], "next");
    let found = send(&gate, "GET", &format!("{API}/api/found"), None).unwrap_err();
    assert_eq!(found.code, Code::NetRedirect);
    let temporary = send(
        &gate,
        "POST",
        &format!("{API}/api/temporary"),
        Some("drop=all"),
    )
    .unwrap_err();
    assert_eq!(temporary.code, Code::NetRedirect);
    // 307 keeps the method and the body; 302 turns a POST into a GET without it.
    assert_eq!(
        send(&gate, "POST", &format!("{API}/api/post-307"), Some("a=1"))
            .unwrap()
            .body,
        b"next"
    );
    assert_eq!(
        send(&gate, "POST", &format!("{API}/api/post-302"), Some("a=1"))
            .unwrap()
            .body,
        b"next"
    );
    let sent = doors.sent.lock().unwrap().clone();
    assert!(
        !sent.iter().any(|(_, u, _)| u.contains("/admin")),
        "{sent:?}"
    );
    let hops: Vec<(String, Option<Vec<u8>>)> = sent
        .iter()
        .filter(|(_, u, _)| u.ends_with("/api/next"))
        .map(|(m, _, b)| (m.clone(), b.clone()))
        .collect();
    assert_eq!(
        hops,
        [("POST".into(), Some(b"a=1".to_vec())), ("GET".into(), None)]
    );
}

#[test]
fn the_method_a_redirect_turns_into_must_be_granted_at_the_hop() {
    // POST only: a 302 after a POST is a GET, which is not granted; HEAD stays HEAD
    // after a 303.
    let (gate, doors) = gate(
        json!({"network": {"allow": [
            {"origin": API, "paths": ["/api/"], "methods": ["POST"]},
            {"origin": "http://127.0.0.1:9100", "paths": ["/h/"], "methods": ["HEAD"]},
        ]}}),
        false,
    );
    doors.respond(&format!("{API}/api/a"), 302, &[("location", "/api/b")], "");
    doors.respond(&format!("{API}/api/b"), 200, &[], "b");
    let denial = send(&gate, "POST", &format!("{API}/api/a"), Some("x")).unwrap_err();
    assert_eq!(denial.code, Code::NetRedirect, "{denial}");
    assert!(denial.message.contains("GET"), "{denial}");
    assert_eq!(doors.sent_urls(), [format!("POST {API}/api/a")]);
    doors.respond(
        "http://127.0.0.1:9100/h/a",
        303,
        &[("location", "/h/b")],
        "",
    );
    doors.respond("http://127.0.0.1:9100/h/b", 200, &[], "");
    assert!(send(&gate, "HEAD", "http://127.0.0.1:9100/h/a", None).is_ok());
    assert_eq!(
        doors.sent_urls()[1..],
        [
            "HEAD http://127.0.0.1:9100/h/a",
            "HEAD http://127.0.0.1:9100/h/b"
        ]
    );
}

#[test]
fn a_request_carrying_injected_headers_is_not_followed_to_another_origin() {
    let (gate, doors) = gate(
        json!({"network": {"allow": [
            {"origin": API, "headers": {"X-Key": "k-123456789"}},
            {"origin": "http://127.0.0.1:9100"},
        ]}}),
        false,
    );
    doors.respond(
        &format!("{API}/bounce"),
        302,
        &[("location", "http://127.0.0.1:9100/collect")],
        "",
    );
    doors.respond("http://127.0.0.1:9100/collect", 200, &[], "got it");
    let denial = send(&gate, "GET", &format!("{API}/bounce"), None).unwrap_err();
    assert_eq!(denial.code, Code::NetRedirect, "{denial}");
    assert_eq!(doors.sent_urls(), [format!("GET {API}/bounce")]);
}

// ---- Scrubbing -------------------------------------------------------------------

const TOKEN: &str = "sk-Live_9f8e7d/6c+5b=4a&\"<q>'~(x)";
const SECRET: &str = "Bearer sk-Live_9f8e7d/6c+5b=4a&\"<q>'~(x)";

fn b64(bytes: &[u8], url_safe: bool, pad: bool) -> String {
    let alphabet: &[u8] = match url_safe {
        false => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        true => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
    };
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.len();
        let v = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..=n {
            out.push(alphabet[(v >> (18 - 6 * i) & 63) as usize] as char);
        }
        if pad {
            out.push_str(&"=".repeat(3 - n));
        }
    }
    out
}

fn percent(text: &str, keep: &str, plus: bool) -> String {
    text.bytes()
        .map(|b| match b {
            b' ' if plus => "+".to_owned(),
            b if b.is_ascii_alphanumeric() || keep.as_bytes().contains(&b) => {
                (b as char).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// The secret (or its token) as a hostile echo server might send it back.
fn encodings() -> Vec<(&'static str, String)> {
    let hex: String = SECRET.bytes().map(|b| format!("{b:02x}")).collect();
    let mut out = vec![
        ("raw", SECRET.to_owned()),
        ("raw token", TOKEN.to_owned()),
        ("base64", b64(SECRET.as_bytes(), false, true)),
        (
            "base64 url, no padding",
            b64(SECRET.as_bytes(), true, false),
        ),
        ("base64 token", b64(TOKEN.as_bytes(), false, true)),
        ("hex lower", hex.clone()),
        ("hex upper", hex.to_uppercase()),
        ("percent, every byte, lower", {
            SECRET.bytes().map(|b| format!("%{b:02x}")).collect()
        }),
        (
            "percent, encodeURIComponent",
            percent(SECRET, "-_.!~*'()", false),
        ),
        ("percent, form", percent(SECRET, "*-._", true)),
        ("percent, token", percent(TOKEN, "-._~", false)),
        ("json \\u, any case", {
            SECRET
                .chars()
                .enumerate()
                .map(|(i, c)| match i % 2 {
                    0 => format!("\\u{:04x}", c as u32),
                    _ => format!("\\u{:04X}", c as u32),
                })
                .collect()
        }),
        ("json with \\/", {
            SECRET
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('/', "\\/")
        }),
        ("html decimal", {
            SECRET.chars().map(|c| format!("&#{};", c as u32)).collect()
        }),
        ("html hex", {
            SECRET
                .chars()
                .map(|c| format!("&#X{:x};", c as u32))
                .collect()
        }),
        ("html named", {
            SECRET
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;")
        }),
    ];
    // Inside a larger base64 blob, at each of the three byte alignments.
    for (name, prefix) in [
        ("base64 blob, alignment 0", "abc:"),
        ("base64 blob, alignment 1", "user:"),
        ("base64 blob, alignment 2", "admin:"),
    ] {
        let blob = format!("{prefix}{TOKEN}:and more after it");
        let encoded = b64(blob.as_bytes(), false, true);
        // Only the characters that depend on the token alone are expected to go.
        let start = (prefix.len() * 8).div_ceil(6);
        let end = (prefix.len() + TOKEN.len()) * 8 / 6;
        out.push((name, encoded[start..end].to_owned()));
    }
    out
}

fn secret_gate(browserlike: bool) -> (Gate, Arc<Scripted>) {
    gate(
        json!({"network": {"allow": [
            {"origin": API, "paths": ["/api/"], "headers": {"Authorization": SECRET}},
        ]}}),
        browserlike,
    )
}

/// Every string in the audit log, and the log's text.
fn audit_strings(gate: &Gate) -> Vec<String> {
    fn walk(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => map.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let text = gate.audit().to_jsonl();
    let mut out = vec![text.clone()];
    for line in text.lines() {
        walk(&serde_json::from_str(line).unwrap(), &mut out);
    }
    out
}

fn assert_clean(place: &str, texts: &[String]) {
    for (name, encoded) in encodings() {
        for text in texts {
            assert!(
                !text.contains(&encoded),
                "{place}: the secret's {name} form ({encoded}) came through in {text}"
            );
        }
    }
}

#[test]
fn every_common_encoding_of_a_secret_is_scrubbed_from_the_response() {
    let (gate, doors) = secret_gate(false);
    for (i, (name, encoded)) in encodings().iter().enumerate() {
        let url = format!("{API}/api/echo{i}");
        let body = format!("{{\"echo\": \"{encoded}\", \"around\": \"it\"}}");
        doors.respond(
            &url,
            200,
            &[("x-echo", encoded), ("x-other", "kept")],
            &body,
        );
        doors
            .responses
            .lock()
            .unwrap()
            .get_mut(&url)
            .unwrap()
            .status_text = encoded.clone();
        let response = send(&gate, "GET", &url, None).unwrap();
        let body = String::from_utf8(response.body.clone()).unwrap();
        assert!(body.contains("[redacted]"), "{name}: {body}");
        assert!(body.ends_with("\"around\": \"it\"}"), "{name}: {body}");
        let texts = vec![
            body,
            response.header("x-echo").unwrap().to_owned(),
            response.status_text.clone(),
        ];
        assert_clean(name, &texts);
        assert_eq!(response.header("x-other"), Some("kept"));
    }
    assert_clean("the audit log", &audit_strings(&gate));
}

#[test]
fn a_secret_in_a_redirect_is_scrubbed_from_the_final_url_errors_and_the_audit_log() {
    for browserlike in [false, true] {
        let (gate, doors) = secret_gate(browserlike);
        for (i, (name, encoded)) in encodings().iter().enumerate() {
            // Only the forms that can stand in a URL's query as they are.
            if encoded.contains(|c: char| "\"<>' #&\\".contains(c)) {
                continue;
            }
            let landing = format!("{API}/api/landing{i}?k={encoded}");
            doors.respond(
                &format!("{API}/api/to{i}"),
                302,
                &[("location", &landing)],
                "",
            );
            doors.respond(&landing, 200, &[], "landed");
            let response = send(&gate, "GET", &format!("{API}/api/to{i}"), None);
            let shown = match &response {
                Ok(response) => response.url.clone(),
                Err(denial) => denial.to_string(),
            };
            if !browserlike {
                assert_eq!(response.unwrap().body, b"landed", "{name}");
                assert!(shown.contains("[redacted]"), "{name}: {shown}");
            }
            assert_clean(name, &[shown]);
            // A redirect refused with the secret in its URL.
            let refused = format!("{API}/elsewhere{i}?k={encoded}");
            doors.respond(
                &format!("{API}/api/out{i}"),
                302,
                &[("location", &refused)],
                "",
            );
            let denial = send(&gate, "GET", &format!("{API}/api/out{i}"), None).unwrap_err();
            assert_eq!(denial.code, Code::NetRedirect);
            assert_clean(name, &[denial.to_string()]);
        }
        let log = audit_strings(&gate);
        assert!(log[0].contains("final_url") || browserlike, "{}", log[0]);
        assert_clean("the audit log", &log);
    }
}

#[test]
fn doors_that_followed_a_redirect_have_the_final_url_scrubbed() {
    let (gate, doors) = gate(
        json!({"network": {"allow": [{"origin": API, "headers": {"X-Key": SECRET}}]}}),
        true,
    );
    let hex: String = SECRET.bytes().map(|b| format!("{b:02X}")).collect();
    let landing = format!("{API}/landing?k={hex}");
    doors.respond(&format!("{API}/to"), 302, &[("location", &landing)], "");
    doors.respond(&landing, 200, &[("content-location", &landing)], "landed");
    let response = send(&gate, "GET", &format!("{API}/to"), None).unwrap();
    assert!(response.redirected);
    assert_eq!(response.url, format!("{API}/landing?k=[redacted]"));
    assert_eq!(
        response.header("content-location"),
        Some(response.url.as_str())
    );
    let log = gate.audit().to_jsonl();
    assert!(
        log.contains("\"final_url\":\"http://127.0.0.1:9000/landing?k=[redacted]\""),
        "{log}"
    );
    assert!(!log.contains(&hex), "{log}");
}

#[test]
fn a_header_named_after_a_secret_is_renamed() {
    // Names arrive lower-cased (a browser's `Headers`): lower-case hex loses nothing,
    // and even lower-cased base64 gives most of a secret away.
    for browserlike in [false, true] {
        let (gate, doors) = secret_gate(browserlike);
        let forms = encodings();
        let mut headers: Vec<(String, String)> = forms
            .iter()
            .map(|(_, encoded)| (encoded.to_ascii_lowercase(), "v".to_owned()))
            .collect();
        headers.push((format!("x-{}-x", forms[5].1), "inside".into()));
        headers.push(("x-other".into(), "kept".into()));
        let named: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let url = format!("{API}/api/names");
        doors.respond(&url, 200, &named, "ok");
        let response = send(&gate, "GET", &url, None).unwrap();
        assert_eq!(response.headers.len(), headers.len());
        for (name, _) in &response.headers {
            for (form, encoded) in &forms {
                assert!(
                    !name
                        .to_ascii_lowercase()
                        .contains(&encoded.to_ascii_lowercase()),
                    "{form} came through in the header name {name}"
                );
            }
        }
        let redacted = response
            .headers
            .iter()
            .filter(|(n, _)| n == "x-sandtab-redacted")
            .count();
        assert_eq!(redacted, headers.len() - 1, "{:?}", response.headers);
        assert_eq!(response.header("x-other"), Some("kept"));
    }
}

/// Doors holding a secret the runtime never sees, as the page does: they inject it and
/// scrub its raw form from every body before the gate sees the response.
struct PageDoors {
    inner: Arc<Scripted>,
    secret: Option<String>,
}

impl Doors for PageDoors {
    fn call_tool(&self, _: &str, _: &str) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async { Err("no tools".to_owned()) })
    }

    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        let max = request.max_response_bytes;
        let answer = self.inner.fetch(request);
        let secret = self.secret.clone();
        Box::pin(async move {
            let mut response = answer.await?;
            // The limit holds for the body as received, before scrubbing.
            if response.body.len() as u64 > max {
                return Err(Denial::new(Code::NetTooLarge, "too large"));
            }
            if let Some(secret) = secret {
                let body = String::from_utf8(response.body).unwrap();
                response.body = body.replace(&secret, "[redacted]").into_bytes();
            }
            Ok(response)
        })
    }

    fn now_ms(&self) -> f64 {
        0.0
    }
}

#[test]
fn the_size_limit_holds_for_the_response_as_received_not_as_scrubbed() {
    // Short secrets: each `[redacted]` is longer than what it replaces.
    for (secret, known) in [("k9", false), ("k9", true)] {
        let value = match known {
            true => Value::from(secret),
            false => Value::Null,
        };
        let inner = Arc::new(Scripted::default());
        let doors = Arc::new(PageDoors {
            inner: inner.clone(),
            // A secret the runtime knows, it scrubs itself.
            secret: (!known).then(|| secret.into()),
        });
        let caps = Capabilities::from_value(&json!({"network": {
            "allow": [{"origin": API, "headers": {"X-Key": value}}],
            "max_response_bytes": 40,
        }}))
        .unwrap();
        let gate = Gate::new(caps, doors);
        let body = "k9 k9 k9 k9 k9 k9 k9 k9 k9 k9 k9 k9 k9";
        assert!(body.len() <= 40);
        inner.respond(&format!("{API}/short"), 200, &[], body);
        let response = send(&gate, "GET", &format!("{API}/short"), None)
            .unwrap_or_else(|denial| panic!("known: {known}: {denial}"));
        assert_eq!(
            response.body,
            vec!["[redacted]"; 13].join(" ").into_bytes(),
            "known: {known}"
        );
        // Over the limit as received: still refused.
        inner.respond(&format!("{API}/long"), 200, &[], &"k9 ".repeat(14));
        let denial = send(&gate, "GET", &format!("{API}/long"), None).unwrap_err();
        assert_eq!(denial.code, Code::NetTooLarge, "known: {known}");
    }
}
