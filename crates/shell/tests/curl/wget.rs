//! `wget`: file names, `-O`, headers and POST data, and its exit statuses.

use super::net::*;

#[tokio::test]
async fn wget_saves_files_named_after_the_url() {
    let (mut shell, net) = shell();
    let out = shell.exec("(cd /tmp && wget http://api.test/hello)").await;
    ok(&out);
    assert_eq!(out.stdout_text(), "");
    assert_eq!(
        out.stderr_text(),
        "--2024-05-06 07:08:09--  http://api.test/hello\n\
         HTTP request sent, awaiting response... 200 OK\n\
         Length: 6 [text/plain]\n\
         Saving to: 'hello'\n\n\
         2024-05-06 07:08:09 (5.86 KB/s) - 'hello' saved [6/6]\n\n"
    );
    assert_eq!(read(&shell, "/tmp/hello"), b"hello\n");
    let sent = net.only_request();
    assert!(header(&sent, "user-agent").unwrap().starts_with("Wget/"));
    assert!(sent.follow_within.is_some(), "wget follows redirects");
    // A taken name gets a number; a directory URL is index.html; redirects are followed.
    ok(&shell
        .exec("(cd /tmp && wget -q http://api.test/redirect)")
        .await);
    assert_eq!(read(&shell, "/tmp/redirect"), b"hello\n");
    ok(&shell
        .exec("(cd /tmp && wget -q http://api.test/hello && wget -q api.test)")
        .await);
    assert_eq!(read(&shell, "/tmp/hello.1"), b"hello\n");
    assert_eq!(read(&shell, "/tmp/index.html"), b"<p>index</p>");
    ok(&shell
        .exec("wget -q -P dl https://files.test/docs/report.pdf")
        .await);
    assert_eq!(read(&shell, "/home/agent/dl/report.pdf"), binary(3000));
    let out = shell.exec("wget -nv http://api.test/hello").await;
    assert_eq!(
        out.stderr_text(),
        "2024-05-06 07:08:09 URL:http://api.test/hello [6/6] -> \"hello\" [1]\n"
    );
}

#[tokio::test]
async fn wget_output_document_headers_and_post_data() {
    let (mut shell, net) = shell();
    let out = shell
        .exec("wget -q -O saved.txt http://api.test/hello; cat saved.txt")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "hello\n");
    let out = shell
        .exec("wget -O - http://api.test/big.bin | wc -c")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text().trim(), BIG.to_string());
    assert!(out.stderr_text().contains("Saving to: 'STDOUT'"));
    assert!(
        out.stderr_text()
            .contains("Length: 1048576 (1.0M) [application/octet-stream]")
    );
    assert!(
        out.stderr_text()
            .contains(" - written to stdout [1048576/1048576]")
    );
    net.requests();
    let out = shell.exec("wget -qO- --header 'X-Key: k1' --header='Accept: text/plain' --post-data 'a=1&b=2' http://api.test/echo").await;
    ok(&out);
    assert_eq!(out.stdout_text(), "posted\n");
    let sent = net.only_request();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.body.as_deref(), Some(&b"a=1&b=2"[..]));
    assert_eq!(
        header(&sent, "content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(header(&sent, "x-key"), Some("k1"));
    assert_eq!(header(&sent, "accept"), Some("text/plain"));
    let out = shell.exec("printf 'raw\\0bytes' > p.bin; wget -q -O /dev/null --post-file p.bin http://api.test/echo").await;
    ok(&out);
    assert_eq!(net.only_request().body.as_deref(), Some(&b"raw\0bytes"[..]));
}

#[tokio::test]
async fn wget_errors_have_wgets_exit_statuses() {
    let (mut shell, _net) = shell();
    let out = shell
        .exec("wget -O page.html http://api.test/missing")
        .await;
    assert_eq!(out.exit_code, 8);
    assert!(out.stderr_text().ends_with("HTTP request sent, awaiting response... 404 Not Found\n2024-05-06 07:08:09 ERROR 404: Not Found.\n\n"), "{}", out.stderr_text());
    assert_eq!(
        read(&shell, "/home/agent/page.html"),
        b"",
        "-O FILE is emptied first, as wget does"
    );
    let out = shell.exec("wget -q http://api.test/down").await;
    assert_eq!((out.exit_code, out.stderr_text().as_str()), (4, ""));
    let out = shell.exec("wget http://api.test/down").await;
    assert!(
        out.stderr_text()
            .ends_with("Connecting to api.test:80... failed: connection refused.\n")
    );
    let out = shell.exec("wget -q http://evil.test/x").await;
    assert_eq!(out.exit_code, 126);
    assert_eq!(
        out.stderr_text(),
        "wget: CAP_NET_DENIED: http://evil.test is not a granted origin\n"
    );
    let out = shell.exec("wget -q http://api.test/away").await;
    assert_eq!(out.exit_code, 126);
    assert!(out.stderr_text().starts_with("wget: CAP_NET_REDIRECT: "));
    assert!(!exists(&shell, "/home/agent/away"));
    let out = shell.exec("wget").await;
    assert_eq!(out.exit_code, 1);
    assert_eq!(
        out.stderr_text(),
        "wget: missing URL\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n"
    );
    let out = shell.exec("wget --bogus x").await;
    assert_eq!(out.exit_code, 2);
    assert!(
        out.stderr_text()
            .starts_with("wget: unrecognized option '--bogus'\n")
    );
}

#[tokio::test]
async fn wget_server_response_agent_method_and_redirect_limit() {
    let (mut shell, net) = shell();
    let script =
        "wget -S -U robot/2 --method put --body-data 'v=1' -O /dev/null http://api.test/echo";
    let out = shell.exec(script).await;
    ok(&out);
    assert!(
        out.stderr_text().contains(
            "HTTP request sent, awaiting response... \n  HTTP/1.1 201 Created\n  content-type: text/plain\n"
        ),
        "{}",
        out.stderr_text()
    );
    let sent = net.only_request();
    assert_eq!(sent.method, "PUT");
    assert_eq!(sent.body.as_deref(), Some(&b"v=1"[..]));
    assert_eq!(header(&sent, "user-agent"), Some("robot/2"));
    let out = shell
        .exec("wget --max-redirect 0 http://api.test/redirect")
        .await;
    assert_eq!(out.exit_code, 8);
    assert!(out.stderr_text().ends_with("0 redirections exceeded.\n"));
    let out = shell.exec("wget -nv http://api.test/missing").await;
    assert_eq!(out.exit_code, 8);
    assert_eq!(
        out.stderr_text(),
        "http://api.test/missing:\n2024-05-06 07:08:09 ERROR 404: Not Found.\n"
    );
}
