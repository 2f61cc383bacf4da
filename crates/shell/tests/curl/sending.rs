//! What reaches the doors: methods, headers, bodies (`-d` and friends, `--json`), and
//! the `-v` trace of it.

use super::net::*;
use sandtab_vfs::VfsPath;

#[tokio::test]
async fn methods_headers_agent_referer_and_credentials() {
    let (mut shell, net) = shell();
    let script = "curl -X DELETE -H 'X-One: 1' -H 'X-Two:  two words ' -H 'Accept:' -H 'X-Empty;' \
                  -A 'agent/1' -e http://ref.test/ -u alice:s3cret http://api.test/hello";
    ok(&shell.exec(script).await);
    let sent = net.only_request();
    assert_eq!(sent.method, "DELETE");
    assert_eq!(header(&sent, "x-one"), Some("1"));
    assert_eq!(header(&sent, "x-two"), Some("two words"));
    assert_eq!(
        header(&sent, "accept"),
        None,
        "`Accept:` removes curl's own"
    );
    assert_eq!(header(&sent, "x-empty"), Some(""));
    assert_eq!(header(&sent, "user-agent"), Some("agent/1"));
    assert_eq!(header(&sent, "referer"), Some("http://ref.test/"));
    assert_eq!(
        header(&sent, "authorization"),
        Some("Basic YWxpY2U6czNjcmV0")
    );
    // A header given with -H wins over -A; credentials in the URL become a header (the
    // gate refuses URLs that carry them).
    ok(&shell
        .exec(
            "curl --header 'User-Agent: mine' -A other --request PUT http://bob:pw@api.test/hello",
        )
        .await);
    let sent = net.only_request();
    assert_eq!(
        (sent.method.as_str(), sent.url.as_str()),
        ("PUT", "http://api.test/hello")
    );
    assert_eq!(header(&sent, "user-agent"), Some("mine"));
    assert_eq!(header(&sent, "authorization"), Some("Basic Ym9iOnB3"));
    assert_eq!(
        sent.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("user-agent"))
            .count(),
        1
    );
    // Headers from a file, one a line.
    ok(&shell
        .exec("printf 'X-A: 1\\nX-B: 2\\n' > h.txt; curl -H @h.txt http://api.test/hello")
        .await);
    let sent = net.only_request();
    assert_eq!(
        (header(&sent, "x-a"), header(&sent, "x-b")),
        (Some("1"), Some("2"))
    );
}

#[tokio::test]
async fn data_options_build_the_body() {
    let (mut shell, net) = shell();
    ok(&shell
        .exec("curl -d a=1 --data 'b=2 3' http://api.test/echo")
        .await);
    let sent = net.only_request();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.body.as_deref(), Some(&b"a=1&b=2 3"[..]));
    assert_eq!(
        header(&sent, "content-type"),
        Some("application/x-www-form-urlencoded")
    );
    // -d @file drops line breaks; --data-raw keeps the @; -H sets the type.
    let script = "printf 'x=1\\r\\ny=2\\n' > form.txt; \
                  curl -d @form.txt --data-raw @literal -H 'Content-Type: text/plain' http://api.test/echo";
    ok(&shell.exec(script).await);
    let sent = net.only_request();
    assert_eq!(sent.body.as_deref(), Some(&b"x=1y=2&@literal"[..]));
    assert_eq!(header(&sent, "content-type"), Some("text/plain"));
    ok(&shell.exec("curl --data-urlencode 'q=a b&c' --data-urlencode '=x/y' --data-urlencode plain~. http://api.test/echo").await);
    assert_eq!(
        net.only_request().body.as_deref(),
        Some(&b"q=a+b%26c&x%2Fy&plain~."[..])
    );
    // -G puts the data in the query string.
    ok(&shell
        .exec("curl -G -d a=1 -d b=2 'http://api.test/hello?z=0'")
        .await);
    let sent = net.only_request();
    assert_eq!(
        (
            sent.method.as_str(),
            sent.url.as_str(),
            sent.body.as_deref()
        ),
        ("GET", "http://api.test/hello?z=0&a=1&b=2", None)
    );
    // A file that cannot be read makes an empty POST, with curl's warning.
    let out = shell.exec("curl -d @nope.txt http://api.test/echo").await;
    ok(&out);
    assert_eq!(
        out.stderr_text(),
        "Warning: Couldn't read data from file \"nope.txt\", this makes an empty POST.\n"
    );
    assert_eq!(net.only_request().body.as_deref(), Some(&b""[..]));
}

#[tokio::test]
async fn data_binary_sends_files_and_stdin_byte_for_byte() {
    let (mut shell, net) = shell();
    let bytes = binary(5000);
    shell
        .fs()
        .mem()
        .write(&VfsPath::parse("/home/agent/blob.bin").unwrap(), &bytes)
        .unwrap();
    ok(&shell
        .exec("curl -s --data-binary @blob.bin http://api.test/echo")
        .await);
    let sent = net.only_request();
    assert_eq!(sent.body.as_deref(), Some(&bytes[..]));
    assert_eq!(sent.method, "POST");
    ok(&shell
        .exec("printf 'line1\\r\\nline2\\n' | curl --data-binary @- http://api.test/echo")
        .await);
    assert_eq!(
        net.only_request().body.as_deref(),
        Some(&b"line1\r\nline2\n"[..])
    );
    ok(&shell
        .exec("curl --data-binary '@blob.bin' --data-binary tail http://api.test/echo")
        .await);
    let mut joined = bytes.clone();
    joined.extend_from_slice(b"&tail");
    assert_eq!(net.only_request().body, Some(joined));
}

#[tokio::test]
async fn json_sets_the_content_type_and_accept() {
    let (mut shell, net) = shell();
    let out = shell
        .exec(r#"curl --json '{"a":1}' http://api.test/echo"#)
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "posted\n");
    let sent = net.only_request();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.body.as_deref(), Some(&br#"{"a":1}"#[..]));
    assert_eq!(header(&sent, "content-type"), Some("application/json"));
    assert_eq!(header(&sent, "accept"), Some("application/json"));
    ok(&shell.exec(r#"echo '{"b":2}' > j.json; curl -X PUT --json @j.json --json ' ' http://api.test/echo"#).await);
    let sent = net.only_request();
    assert_eq!(sent.method, "PUT");
    assert_eq!(sent.body.as_deref(), Some(&b"{\"b\":2}\n "[..]));
}

#[tokio::test]
async fn verbose_traces_the_request_and_response_on_stderr() {
    let (mut shell, _net) = shell();
    let out = shell
        .exec("curl -v -H 'X-A: 1' -d k=v http://api.test/echo")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "posted\n");
    let trace = out.stderr_text();
    assert!(
        trace.starts_with("> POST /echo HTTP/1.1\r\n> Host: api.test\r\n> User-Agent: curl/"),
        "{trace}"
    );
    for line in [
        "> X-A: 1\r\n",
        "> Content-Type: application/x-www-form-urlencoded\r\n",
        "> Content-Length: 3\r\n> \r\n",
        "< HTTP/1.1 201 Created\r\n< content-type: text/plain\r\n< \r\n",
    ] {
        assert!(trace.contains(line), "{line:?} in {trace}");
    }
}
