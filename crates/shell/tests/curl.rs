//! `curl` and `wget` natively, through the capability gate in front of scripted doors:
//! what reaches the doors for each flag, what the commands print and write, and every
//! refusal (exit 126, the code on stderr even with `-s`).
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

// One test binary; its modules live in `tests/curl/`.

#[path = "curl/net.rs"]
mod net;
#[path = "curl/receiving.rs"]
mod receiving;
#[path = "curl/sending.rs"]
mod sending;
#[path = "curl/wget.rs"]
mod wget;

use net::*;
use serde_json::json;
use std::sync::Arc;

#[tokio::test]
async fn a_get_prints_the_body_and_sends_curls_headers() {
    let (mut shell, net) = shell();
    let out = shell.exec("curl http://api.test/hello").await;
    ok(&out);
    assert_eq!(out.stdout_text(), "hello\n");
    assert_eq!(out.stderr_text(), "", "no progress meter");
    let sent = net.only_request();
    assert_eq!(
        (sent.method.as_str(), sent.url.as_str()),
        ("GET", "http://api.test/hello")
    );
    assert!(header(&sent, "user-agent").unwrap().starts_with("curl/"));
    assert_eq!(header(&sent, "accept"), Some("*/*"));
    assert_eq!(sent.body, None);
    assert_eq!(
        sent.follow_within, None,
        "no -L: redirects are not followed"
    );
    // Without a scheme, http:// is assumed; the output pipes like any command's.
    let out = shell.exec("curl -s api.test/json | jq -r .name").await;
    ok(&out);
    assert_eq!(out.stdout_text(), "sandtab\n");
    assert_eq!(net.only_request().url, "http://api.test/json");
    // Several URLs, one after the other.
    let out = shell
        .exec("curl http://api.test/hello --url http://api.test/h2")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "hello\ntwo\n");
}

#[tokio::test]
async fn include_head_and_dump_header_show_the_header_block() {
    let (mut shell, net) = shell();
    let out = shell.exec("curl -i http://api.test/hello").await;
    ok(&out);
    assert_eq!(
        out.stdout_text(),
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nx-served-by: fake\r\n\r\nhello\n"
    );
    let out = shell.exec("curl --include http://api.test/h2").await;
    assert_eq!(
        out.stdout_text(),
        "HTTP/2 200 \r\ncontent-type: text/plain\r\n\r\ntwo\n"
    );
    net.requests();
    let out = shell.exec("curl -I http://api.test/hello").await;
    ok(&out);
    assert_eq!(
        out.stdout_text(),
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nx-served-by: fake\r\n\r\n"
    );
    assert_eq!(net.only_request().method, "HEAD");
    let out = shell
        .exec("curl -s -D headers.txt http://api.test/hello; cat headers.txt")
        .await;
    ok(&out);
    assert_eq!(
        out.stdout_text(),
        "hello\nHTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nx-served-by: fake\r\n\r\n"
    );
    // -I with data asks for two methods.
    let out = shell.exec("curl -I -d x http://api.test/hello").await;
    assert_eq!(out.exit_code, 2);
    assert!(
        out.stderr_text()
            .contains("You can only select one HTTP request method!")
    );
}

#[tokio::test]
async fn accepted_options_and_command_line_mistakes() {
    let (mut shell, _net) = shell();
    let out = shell
        .exec("curl --compressed -k --insecure -m 5 --max-time 2.5 --connect-timeout 3 -g http://api.test/hello")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "hello\n");
    for (script, stderr) in [
        (
            "curl",
            "curl: try 'curl --help' or 'curl --manual' for more information\n",
        ),
        (
            "curl -s",
            "curl: no URL specified!\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
        ),
        (
            "curl --bogus x",
            "curl: option --bogus: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
        ),
        (
            "curl x -o",
            "curl: option -o: requires parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
        ),
        (
            "curl -m soon x",
            "curl: option -m: expected a proper numerical parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
        ),
        (
            "curl --max-redirs lots x",
            "curl: option --max-redirs: expected a proper numerical parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
        ),
    ] {
        let out = shell.exec(script).await;
        assert_eq!(
            (out.exit_code, out.stderr_text().as_str()),
            (2, stderr),
            "{script}"
        );
    }
    let out = shell.exec("curl --help").await;
    ok(&out);
    assert!(
        out.stdout_text()
            .starts_with("Usage: curl [options...] <url>")
    );
}

#[tokio::test]
async fn requests_are_in_the_audit_log_as_the_shells() {
    let net = Arc::new(Net::default());
    net.answer("http://api.test/hello", 200, "OK", &[], "hi");
    let doc = json!({"network": {"allow": [{"origin": "http://api.test"}]}});
    let (mut shell, gate) = shell_with(&doc, net);
    ok(&shell
        .exec("curl -s http://api.test/hello; wget -q -O - http://other.test/ || true")
        .await);
    let log = gate.audit().to_jsonl();
    assert!(log.contains(r#""via":"shell""#), "{log}");
    assert!(
        log.contains("other.test") && log.contains("CAP_NET_DENIED"),
        "{log}"
    );
}

#[tokio::test]
async fn odd_input_gets_an_answer_not_a_panic() {
    let (mut shell, _net) = shell();
    for script in [
        "curl -H ':' -H ';' -H 'x' -H ': v' http://api.test/hello",
        "curl -w '%{' -w '%header{' -w '\\' http://api.test/hello",
        "curl -",
        "curl -u '' http://api.test/hello",
        "curl 'http://[::1'",
        "curl 'http://é.test/ü'",
        "curl ''",
        "curl -o '' http://api.test/hello",
        "curl -O 'http://api.test/a/..'",
        "curl -d @ -d '' --data-urlencode @ --data-urlencode = http://api.test/echo",
        "curl -G -d 'a#b' 'http://api.test/hello#frag'",
        "curl -L --max-redirs -1 http://api.test/redirect",
        "curl -sS http://api.test:99999/",
        "wget -O '' http://api.test/hello",
        "wget --header 'bad' http://api.test/hello",
        "wget --max-redirect x http://api.test/hello",
        "wget 'http://api.test/%zz%'",
        "wget -P '' http://api.test/",
    ] {
        let out = shell.exec(script).await;
        assert!(out.exit_code >= 0, "{script}");
    }
    // An empty prefix is the working directory, not the root.
    ok(&shell
        .exec("wget -q -P '' http://api.test/ && curl -s --output-dir '' -O http://api.test/hello")
        .await);
    assert!(exists(&shell, "/home/agent/index.html") && exists(&shell, "/home/agent/hello"));
    assert!(!exists(&shell, "/index.html") && !exists(&shell, "/hello"));
}
