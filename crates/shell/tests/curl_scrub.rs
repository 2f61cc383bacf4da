//! `curl` natively, through the gate: an injected secret that a granted server puts,
//! encoded, in a redirect's `Location` or echoes in its body reaches neither stdout nor
//! `%{url_effective}` / `%{redirect_url}` (the gate scrubs the response, its URL
//! included).
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

#[allow(dead_code)] // Shared with tests/curl.rs; not every helper is used here.
#[path = "curl/net.rs"]
mod net;

use net::*;
use serde_json::json;
use std::sync::Arc;

const SECRET: &str = "Bearer sk-curl-8d7c6b5a4f3e";

#[tokio::test]
async fn a_secret_in_a_redirect_or_a_body_never_reaches_curls_output() {
    let net = Arc::new(Net::default());
    let hex: String = SECRET.bytes().map(|b| format!("{b:02X}")).collect();
    let landing = format!("http://api.test/land?k={hex}");
    net.answer(
        "http://api.test/to",
        302,
        "Found",
        &[("location", &landing)],
        "",
    );
    net.answer(
        &landing,
        200,
        "OK",
        &[],
        "echo: c2stY3VybC04ZDdjNmI1YTRmM2U=\n",
    );
    let doc = json!({"network": {"allow": [
        {"origin": "http://api.test", "headers": {"Authorization": SECRET}},
    ]}});
    let (mut shell, gate) = shell_with(&doc, net.clone());
    let out = shell
        .exec("curl -sL -w '%{url_effective}\\n' http://api.test/to; curl -s -o /dev/null -w '%{redirect_url}\\n' http://api.test/to")
        .await;
    ok(&out);
    assert_eq!(
        out.stdout_text(),
        "echo: [redacted]\nhttp://api.test/land?k=[redacted]\nhttp://api.test/land?k=[redacted]\n"
    );
    let log = gate.audit().to_jsonl();
    assert!(
        log.contains("\"final_url\":\"http://api.test/land?k=[redacted]\""),
        "{log}"
    );
    assert!(
        !log.contains(&hex) && !log.contains(&hex.to_lowercase()),
        "{log}"
    );
}
