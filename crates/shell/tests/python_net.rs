//! CPython's own HTTP clients (`urllib.request`, `http.client`) through the capability
//! gate: `/dev/sandtab/http` and the sockets of `_sandtab_net`, against scripted
//! doors. Uses the CPython built by `./dev setup` (target/guests).
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

#[path = "curl/net.rs"]
#[allow(dead_code)]
mod net;

use net::*;
use sandtab_shell::{Capabilities, Gate, GuestEngine, Shell, ShellLimits, WallClock};
use sandtab_vfs::{Quota, SandboxFs};
use std::sync::Arc;

fn python() -> Vec<u8> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/guests/python.wasm");
    std::fs::read(&path)
        .unwrap_or_else(|err| panic!("{}: {err}. Built by `./dev setup`.", path.display()))
}

/// A shell with CPython installed and sandtab's Python support mounted, whose gate
/// grants `http://api.test` in front of the scripted doors.
fn python_shell() -> (Shell, Arc<Net>, Arc<Gate>) {
    let (_, net) = shell();
    let doc = serde_json::json!({"network": {"allow": [
        {"origin": "http://api.test", "methods": ["GET", "HEAD", "POST"]},
        {"origin": "https://files.test"},
    ]}});
    let gate = Arc::new(Gate::new(
        Capabilities::from_value(&doc).unwrap(),
        net.clone(),
    ));
    let fs = Arc::new(
        SandboxFs::in_memory(
            Arc::new(WallClock),
            Quota::UNLIMITED,
            vec![sandtab_shell::python_support::mount()],
        )
        .unwrap(),
    );
    let limits = ShellLimits::default();
    let engine = GuestEngine::new(limits.guest.call_depth);
    let host = Arc::new(sandtab_wasi::NativeHost::default());
    let mut shell = Shell::with_gate(fs, limits, engine, host, gate.clone()).unwrap();
    shell.install_program(&["python3"], Arc::new(python()), None);
    net.requests();
    (shell, net, gate)
}

#[tokio::test]
async fn urllib_gets_a_granted_url_through_the_gate() {
    let (mut shell, net, _) = python_shell();
    let out = shell
        .exec(
            "python3 -c 'import urllib.request as u\n\
             r = u.urlopen(\"http://api.test/hello\")\n\
             print(r.status, r.reason, r.headers[\"x-served-by\"], repr(r.read()))'",
        )
        .await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr_text());
    assert_eq!(out.stdout_text(), "200 OK fake b'hello\\n'\n");
    let sent = net.only_request();
    assert_eq!(
        (sent.method.as_str(), sent.url.as_str()),
        ("GET", "http://api.test/hello")
    );
    assert!(
        header(&sent, "user-agent").is_some_and(|ua| ua.starts_with("Python-urllib/3.12")),
        "{sent:?}"
    );
    assert_eq!(header(&sent, "host"), None, "the browser sets Host itself");
}

#[tokio::test]
async fn http_client_posts_a_body_and_reads_binary_answers_whole() {
    let (mut shell, net, _) = python_shell();
    let out = shell
        .exec(
            "python3 -c 'import http.client, hashlib\n\
             c = http.client.HTTPConnection(\"api.test\")\n\
             c.request(\"POST\", \"/echo\", body=b\"a=1&b=\\x00\", headers={\"Content-Type\": \"x/y\"})\n\
             r = c.getresponse(); print(r.status, r.read())\n\
             c = http.client.HTTPConnection(\"api.test\", 80)\n\
             c.request(\"GET\", \"/big.bin\"); r = c.getresponse(); b = r.read()\n\
             print(len(b), hashlib.sha256(b).hexdigest())'",
        )
        .await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr_text());
    let big = binary(BIG);
    let digest = {
        use sha2::Digest;
        sha2::Sha256::digest(&big)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    assert_eq!(
        out.stdout_text(),
        format!("201 b'posted\\n'\n{} {digest}\n", big.len())
    );
    let sent = net.requests();
    assert_eq!(sent[0].method, "POST");
    assert_eq!(sent[0].body.as_deref(), Some(&b"a=1&b=\x00"[..]));
    assert_eq!(header(&sent[0], "content-type"), Some("x/y"));
    assert_eq!(sent[1].url, "http://api.test/big.bin");
}

#[tokio::test]
async fn a_refused_request_raises_with_the_gates_code_and_is_audited() {
    let (mut shell, net, gate) = python_shell();
    let out = shell
        .exec(
            "python3 -c 'import urllib.request as u, urllib.error as e\n\
             for url in (\"http://evil.test/x\", \"http://127.0.0.1:8080/\", \"http://api.test/down\"):\n\
             \x20   try:\n\
             \x20       u.urlopen(url)\n\
             \x20   except e.URLError as err:\n\
             \x20       print(type(err.reason).__name__, err.reason.code, err.reason.strerror.split(\":\")[0])'",
        )
        .await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr_text());
    assert_eq!(
        out.stdout_text(),
        "GateRefused CAP_NET_DENIED CAP_NET_DENIED\n\
         GateRefused CAP_NET_PRIVATE CAP_NET_PRIVATE\n\
         GateRefused CAP_NET_FAILED CAP_NET_FAILED\n"
    );
    let sent = net.requests();
    assert_eq!(
        sent.len(),
        1,
        "only the granted one reached the doors: {sent:?}"
    );
    let audit = gate.audit().to_jsonl();
    assert!(audit.contains("\"via\":\"guest\""), "{audit}");
    assert!(audit.contains("CAP_NET_DENIED"), "{audit}");
}

#[tokio::test]
async fn https_goes_through_the_gate_with_sandtabs_ssl_module() {
    let (mut shell, net, _) = python_shell();
    let out = shell
        .exec(
            "python3 -c 'import ssl, urllib.request as u, http.client\n\
             print(ssl.OPENSSL_VERSION.startswith(\"OpenSSL \"), ssl.HAS_SNI)\n\
             r = u.urlopen(\"https://files.test/docs/report.pdf\")\n\
             print(r.status, r.headers[\"content-type\"], len(r.read()))\n\
             c = http.client.HTTPSConnection(\"files.test\", context=ssl._create_unverified_context())\n\
             c.request(\"HEAD\", \"/docs/report.pdf\"); r = c.getresponse(); print(r.status, r.read())\n\
             try:\n\
             \x20   ssl.create_default_context().load_cert_chain(\"c.pem\")\n\
             except ssl.SSLError as err:\n\
             \x20   print(err)'",
        )
        .await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr_text());
    assert_eq!(
        out.stdout_text(),
        "True True\n200 application/pdf 3000\n200 b''\n\
         sandtab: TLS is made by the browser; a client certificate is not possible in the sandbox\n"
    );
    let sent = net.requests();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(
        sent.iter()
            .all(|r| r.url == "https://files.test/docs/report.pdf")
    );
    assert_eq!(sent[1].method, "HEAD");
}
