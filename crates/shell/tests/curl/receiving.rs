//! What comes back: output files, large bodies, `-f`, `-w`, redirects, refusals and
//! network failures.

use super::net::*;

#[tokio::test]
async fn output_files_go_to_the_sandbox() {
    let (mut shell, _net) = shell();
    let out = shell
        .exec("(cd /tmp && curl -o out.txt http://api.test/hello && cat out.txt)")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "hello\n");
    assert_eq!(read(&shell, "/tmp/out.txt"), b"hello\n");
    let out = shell
        .exec("curl -sO https://files.test/docs/report.pdf")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "");
    assert_eq!(read(&shell, "/home/agent/report.pdf"), binary(3000));
    ok(&shell
        .exec("curl -s --create-dirs --output-dir dl/a -O https://files.test/docs/report.pdf")
        .await);
    assert_eq!(read(&shell, "/home/agent/dl/a/report.pdf"), binary(3000));
    // One -o/-O per URL, in order; -o - is stdout; -o /dev/null discards.
    let out = shell.exec("curl -o one -o - -o /dev/null http://api.test/hello http://api.test/h2 http://api.test/json").await;
    ok(&out);
    assert_eq!(out.stdout_text(), "two\n");
    assert_eq!(read(&shell, "/home/agent/one"), b"hello\n");
    assert!(!exists(&shell, "/dev/null") || read(&shell, "/dev/null").is_empty());
    // -O on a URL that names no file; -o into a missing directory.
    let out = shell.exec("curl -O http://api.test/").await;
    assert_eq!(out.exit_code, 23);
    assert_eq!(
        out.stderr_text(),
        "curl: Remote file name has no length!\ncurl: (23) Failed writing received data to disk/application\n"
    );
    let out = shell
        .exec("curl -sS -o /nowhere/x http://api.test/hello")
        .await;
    assert_eq!(out.exit_code, 23);
    assert_eq!(
        out.stderr_text(),
        "curl: (23) Failure writing output to destination\n"
    );
    let out = shell.exec("curl -o /nowhere/x http://api.test/hello").await;
    assert!(
        out.stderr_text().starts_with(
            "Warning: Failed to open the file /nowhere/x: No such file or directory\n"
        )
    );
}

#[tokio::test]
async fn a_large_body_arrives_whole_and_too_large_is_refused() {
    let (mut shell, _net) = shell();
    let out = shell
        .exec("curl -s -o big.bin -w '%{size_download} %{content_type}' http://api.test/big.bin")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), format!("{BIG} application/octet-stream"));
    assert_eq!(read(&shell, "/home/agent/big.bin"), binary(BIG));
    let out = shell.exec("curl -s http://api.test/big.bin | wc -c").await;
    assert_eq!(out.stdout_text().trim(), BIG.to_string());
    let out = shell.exec("curl -s http://api.test/huge").await;
    assert_eq!(out.exit_code, 126);
    assert_eq!(out.stdout_text(), "");
    assert!(
        out.stderr_text().starts_with("curl: CAP_NET_TOO_LARGE: "),
        "{}",
        out.stderr_text()
    );
}

#[tokio::test]
async fn fail_turns_http_errors_into_exit_22() {
    let (mut shell, _net) = shell();
    let out = shell.exec("curl http://api.test/missing").await;
    ok(&out);
    assert_eq!(
        out.stdout_text(),
        "not here\n",
        "without -f an error page is a page"
    );
    let out = shell.exec("curl -f http://api.test/missing").await;
    assert_eq!((out.exit_code, out.stdout_text().as_str()), (22, ""));
    assert_eq!(
        out.stderr_text(),
        "curl: (22) The requested URL returned error: 404\n"
    );
    let out = shell.exec("curl -sf http://api.test/missing").await;
    assert_eq!((out.exit_code, out.stderr_text().as_str()), (22, ""));
    let out = shell
        .exec("curl -fsS -o page http://api.test/missing")
        .await;
    assert_eq!(out.exit_code, 22);
    assert_eq!(
        out.stderr_text(),
        "curl: (22) The requested URL returned error: 404\n"
    );
    assert!(
        !exists(&shell, "/home/agent/page"),
        "a failed transfer writes no file"
    );
    let out = shell
        .exec("curl -s --fail-with-body http://api.test/missing")
        .await;
    assert_eq!(
        (out.exit_code, out.stdout_text().as_str()),
        (22, "not here\n")
    );
    let out = shell.exec("curl -fsSL http://api.test/redirect").await;
    ok(&out);
    assert_eq!(out.stdout_text(), "hello\n");
}

#[tokio::test]
async fn write_out_reports_the_transfer() {
    let (mut shell, _net) = shell();
    let out = shell
        .exec(r"curl -s -o /dev/null -w '%{http_code}\n' http://api.test/missing")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "404\n");
    let format = r"%{http_code} %{url_effective} %{content_type} %{size_download} %{method} %{num_redirects}\n";
    let out = shell
        .exec(&format!(
            "curl -sL -o /dev/null -w '{format}' http://api.test/redirect"
        ))
        .await;
    ok(&out);
    assert_eq!(
        out.stdout_text(),
        "200 http://api.test/hello text/plain 6 GET 1\n"
    );
    let out = shell.exec(r"curl -s -w '\n%{http_code} %{redirect_url} %header{location}' http://api.test/redirect").await;
    assert_eq!(
        out.stdout_text(),
        "moved\n\n302 http://api.test/hello /hello"
    );
    let out = shell
        .exec(r"curl -s -w '%{http_code} %{exitcode} %{errormsg}' http://api.test/down")
        .await;
    assert_eq!(out.exit_code, 7);
    assert_eq!(
        out.stdout_text(),
        "000 7 Failed to connect to api.test port 80: connection refused"
    );
    let out = shell
        .exec(r"curl -s -f -w '%{http_code}' http://api.test/missing")
        .await;
    assert_eq!((out.exit_code, out.stdout_text().as_str()), (22, "404"));
    let out = shell
        .exec(r"curl -s -o /dev/null -w '%{bogus}%{stderr}to-err' http://api.test/hello")
        .await;
    assert_eq!(
        out.stderr_text(),
        "curl: unknown --write-out variable: 'bogus'\nto-err"
    );
    let out = shell
        .exec(r"printf '%%{http_code}' > fmt; curl -s -o /dev/null -w @fmt http://api.test/hello")
        .await;
    assert_eq!(out.stdout_text(), "200");
}

#[tokio::test]
async fn location_follows_redirects_through_the_gate() {
    let (mut shell, net) = shell();
    let out = shell.exec("curl http://api.test/redirect").await;
    ok(&out);
    assert_eq!(
        out.stdout_text(),
        "moved\n",
        "without -L the redirect is the answer"
    );
    net.requests();
    let out = shell.exec("curl -L http://api.test/chain").await;
    ok(&out);
    assert_eq!(out.stdout_text(), "hello\n");
    let urls: Vec<String> = net.requests().into_iter().map(|r| r.url).collect();
    assert_eq!(
        urls,
        [
            "http://api.test/chain",
            "http://api.test/redirect",
            "http://api.test/hello"
        ]
    );
    // --max-redirs counts hops exactly.
    let out = shell
        .exec("curl -L --max-redirs 1 http://api.test/chain")
        .await;
    assert_eq!(out.exit_code, 47);
    assert_eq!(
        out.stderr_text(),
        "curl: (47) Maximum (1) redirects followed\n"
    );
    let out = shell
        .exec("curl -sL --max-redirs 0 http://api.test/redirect")
        .await;
    assert_eq!((out.exit_code, out.stderr_text().as_str()), (47, ""));
    let out = shell
        .exec("curl -sL --max-redirs 2 -w ' %{num_redirects}' http://api.test/chain")
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "hello\n 2");
}

#[tokio::test]
async fn refusals_exit_126_and_are_shown_even_when_silent() {
    let (mut shell, net) = shell();
    let out = shell.exec("curl -s http://evil.test/").await;
    assert_eq!(out.exit_code, 126);
    assert_eq!(
        out.stderr_text(),
        "curl: CAP_NET_DENIED: http://evil.test is not a granted origin\n"
    );
    let out = shell.exec("curl -s file:///etc/passwd").await;
    assert_eq!(out.exit_code, 126);
    assert!(
        out.stderr_text()
            .starts_with("curl: CAP_NET_SCHEME: `file:` URLs are not allowed"),
        "{}",
        out.stderr_text()
    );
    let out = shell
        .exec("curl -s -X POST https://files.test/docs/report.pdf")
        .await;
    assert_eq!(out.exit_code, 126);
    assert!(
        out.stderr_text()
            .starts_with("curl: CAP_NET_METHOD: POST is not granted"),
        "{}",
        out.stderr_text()
    );
    let out = shell.exec("curl -s http://127.0.0.1:8080/").await;
    assert!(
        out.stderr_text().starts_with("curl: CAP_NET_PRIVATE: "),
        "{}",
        out.stderr_text()
    );
    assert!(
        net.requests().is_empty(),
        "nothing refused reached the doors"
    );
    for script in [
        "curl -sL http://api.test/away",
        "curl -sL --max-redirs 3 http://api.test/away",
    ] {
        let out = shell.exec(script).await;
        assert_eq!(out.exit_code, 126, "{script}");
        assert!(
            out.stderr_text().starts_with(
                "curl: CAP_NET_REDIRECT: a redirect to http://evil.test/steal was refused"
            ),
            "{script}: {}",
            out.stderr_text()
        );
    }
    assert!(!net.requests().iter().any(|r| r.url.contains("evil")));
    // Without -L the redirect is just a response.
    let out = shell
        .exec("curl -s -w '%{http_code}' http://api.test/away")
        .await;
    assert_eq!((out.exit_code, out.stdout_text().as_str()), (0, "302"));
}

#[tokio::test]
async fn network_failures_are_curls_exit_7() {
    let (mut shell, _net) = shell();
    let out = shell.exec("curl http://api.test/down").await;
    assert_eq!(out.exit_code, 7);
    assert_eq!(
        out.stderr_text(),
        "curl: (7) Failed to connect to api.test port 80: connection refused\n"
    );
    let out = shell.exec("curl -s http://api.test/down").await;
    assert_eq!((out.exit_code, out.stderr_text().as_str()), (7, ""));
    let out = shell.exec("curl -sS http://api.test/down").await;
    assert_eq!(
        out.stderr_text(),
        "curl: (7) Failed to connect to api.test port 80: connection refused\n"
    );
    // The last URL's status is curl's.
    let out = shell
        .exec("curl -s http://api.test/down http://api.test/hello")
        .await;
    assert_eq!((out.exit_code, out.stdout_text().as_str()), (0, "hello\n"));
}

#[tokio::test]
async fn remote_name_all_names_every_file() {
    let (mut shell, _net) = shell();
    let out = shell
        .exec("curl -s --remote-name-all http://api.test/hello https://files.test/docs/report.pdf")
        .await;
    ok(&out);
    assert_eq!(read(&shell, "/home/agent/hello"), b"hello\n");
    assert_eq!(read(&shell, "/home/agent/report.pdf"), binary(3000));
    let out = shell.exec("curl -V").await;
    ok(&out);
    assert!(
        out.stdout_text().starts_with("curl 8."),
        "{}",
        out.stdout_text()
    );
}
