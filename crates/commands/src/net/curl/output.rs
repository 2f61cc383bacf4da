//! What curl prints about a transfer besides the body: the header block (`-i`, `-I`,
//! `-D`), the `-v` trace, and the `-w` report.

use sandtab_caps::{HttpRequest, HttpResponse};

use super::url;

/// The status line. Over HTTP/2 a browser's fetch gives no reason phrase, so an empty
/// one is shown as curl shows HTTP/2 (`HTTP/2 200 `).
pub(crate) fn status_line(response: &HttpResponse) -> String {
    match response.status_text.is_empty() {
        true => format!("HTTP/2 {} ", response.status),
        false => format!("HTTP/1.1 {} {}", response.status, response.status_text),
    }
}

/// The status line and headers as `-i` prints them, CRLF-terminated, with the blank
/// line after them.
pub(crate) fn header_block(response: &HttpResponse) -> String {
    let mut block = format!("{}\r\n", status_line(response));
    for (name, value) in &response.headers {
        block.push_str(&format!("{name}: {value}\r\n"));
    }
    block.push_str("\r\n");
    block
}

/// The `> ` lines of `-v`: the request as sent (the `Host` header is the browser's to
/// send, shown as curl would).
pub(crate) fn verbose_request(request: &HttpRequest) -> String {
    let mut trace = format!(
        "> {} {} HTTP/1.1\r\n> Host: {}\r\n",
        request.method,
        url::path_and_query(&request.url),
        url::host_header(&request.url)
    );
    for (name, value) in &request.headers {
        trace.push_str(&format!("> {name}: {value}\r\n"));
    }
    if let Some(body) = &request.body {
        trace.push_str(&format!("> Content-Length: {}\r\n", body.len()));
    }
    trace.push_str("> \r\n");
    trace
}

/// The `< ` lines of `-v`: the response's status line and headers.
pub(crate) fn verbose_response(response: &HttpResponse) -> String {
    header_block(response)
        .split_inclusive("\r\n")
        .map(|line| format!("< {line}"))
        .collect()
}

/// What `-w` can report about one transfer.
#[derive(Debug, Default)]
pub(crate) struct Report<'a> {
    /// The URL as requested.
    pub url: &'a str,
    pub response: Option<&'a HttpResponse>,
    pub method: &'a str,
    pub size_header: usize,
    pub size_upload: usize,
    pub filename: &'a str,
    pub exit_code: i32,
    pub error: &'a str,
    pub seconds: f64,
    /// Redirects followed; `None` when the gate followed an unknown number (at least
    /// one).
    pub redirects: Option<u32>,
}

/// Which stream a piece of the `-w` report goes to (`%{stderr}` switches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Out,
    Err,
}

/// The `-w` report: pieces in order, and warnings for unknown variables.
#[derive(Debug, Default)]
pub(crate) struct WriteOut {
    pub pieces: Vec<(Stream, String)>,
    pub warnings: Vec<String>,
}

/// Expands a `-w` format: `%{name}`, `%header{name}`, `%%`, and `\n`, `\r`, `\t`
/// (any other backslash is kept, as curl keeps it).
pub(crate) fn write_out(format: &str, report: &Report<'_>) -> WriteOut {
    let mut result = WriteOut::default();
    let mut stream = Stream::Out;
    let mut text = String::new();
    let mut rest = format;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '\\' => match rest.chars().next() {
                Some(e @ ('n' | 'r' | 't')) => {
                    text.push(match e {
                        'n' => '\n',
                        'r' => '\r',
                        _ => '\t',
                    });
                    rest = &rest[1..];
                }
                _ => text.push('\\'),
            },
            '%' if rest.starts_with('%') => {
                text.push('%');
                rest = &rest[1..];
            }
            '%' if rest.starts_with("header{") && rest.contains('}') => {
                let end = rest.find('}').unwrap_or(rest.len());
                let name = &rest["header{".len()..end];
                rest = &rest[end + 1..];
                if let Some(response) = report.response {
                    let values: Vec<&str> = response
                        .headers
                        .iter()
                        .filter(|(n, _)| n.eq_ignore_ascii_case(name))
                        .map(|(_, v)| v.as_str())
                        .collect();
                    text.push_str(&values.join(", "));
                }
            }
            '%' if rest.starts_with('{') && rest.contains('}') => {
                let end = rest.find('}').unwrap_or(rest.len());
                let name = &rest[1..end];
                rest = &rest[end + 1..];
                match name {
                    "stdout" | "stderr" => {
                        if !text.is_empty() {
                            result.pieces.push((stream, std::mem::take(&mut text)));
                        }
                        stream = if name == "stdout" {
                            Stream::Out
                        } else {
                            Stream::Err
                        };
                    }
                    _ => match variable(name, report) {
                        Some(value) => text.push_str(&value),
                        None => result
                            .warnings
                            .push(format!("curl: unknown --write-out variable: '{name}'\n")),
                    },
                }
            }
            other => text.push(other),
        }
    }
    if !text.is_empty() {
        result.pieces.push((stream, text));
    }
    result
}

/// The value of one `-w` variable, or `None` for a name curl does not know (or this
/// curl cannot know, such as connection timings).
fn variable(name: &str, report: &Report<'_>) -> Option<String> {
    let response = report.response;
    let header = |h: &str| response.and_then(|r| r.header(h)).unwrap_or("").to_owned();
    Some(match name {
        "http_code" | "response_code" => format!("{:03}", response.map_or(0, |r| r.status)),
        "url_effective" => match response {
            Some(r) if !r.url.is_empty() => r.url.clone(),
            _ => report.url.to_owned(),
        },
        "url" => report.url.to_owned(),
        "content_type" => header("content-type"),
        "size_download" => response.map_or(0, |r| r.body.len()).to_string(),
        "size_header" => report.size_header.to_string(),
        "size_upload" => report.size_upload.to_string(),
        "redirect_url" => match response {
            Some(r) if super::fetch::is_redirect(r.status) => r
                .header("location")
                .map(|location| {
                    url::join(if r.url.is_empty() { report.url } else { &r.url }, location)
                })
                .unwrap_or_default(),
            _ => String::new(),
        },
        "num_redirects" => report.redirects.unwrap_or(1).to_string(),
        "method" => report.method.to_owned(),
        "exitcode" => report.exit_code.to_string(),
        "errormsg" => report.error.to_owned(),
        "filename_effective" => report.filename.to_owned(),
        "time_total" => format!("{:.6}", report.seconds),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_expand_like_curls() {
        let response = HttpResponse {
            status: 302,
            headers: vec![
                ("location".into(), "/next".into()),
                ("x-a".into(), "1".into()),
            ],
            url: "http://h/a".into(),
            ..HttpResponse::default()
        };
        let report = Report {
            url: "http://h/a",
            response: Some(&response),
            method: "GET",
            ..Report::default()
        };
        let out = write_out(
            r"%{http_code} %{redirect_url} %header{X-A} 100%% %z \q\t%{nope}%{stderr}e\n%{",
            &report,
        );
        assert_eq!(
            out.pieces,
            [
                (Stream::Out, "302 http://h/next 1 100% %z \\q\t".to_owned()),
                (Stream::Err, "e\n%{".to_owned())
            ]
        );
        assert_eq!(
            out.warnings,
            ["curl: unknown --write-out variable: 'nope'\n"]
        );
        let none = write_out("%{http_code}", &Report::default());
        assert_eq!(none.pieces, [(Stream::Out, "000".to_owned())]);
    }
}
