//! From curl's arguments to the request the gate is asked for: the body assembled from
//! `-d`-like pieces (files read from the sandbox, stdin read once), the method, and
//! the headers (curl's defaults, replaced or removed by `-H`).

use super::args::{CurlArgs, Data};
use super::url;
use crate::Context;
use crate::util::{Files, read_stdin};
use sandtab_caps::HttpRequest;

/// The user agent sent unless `-A` or `-H` says otherwise.
pub(crate) const USER_AGENT: &str = concat!("curl/8.5.0 sandtab/", env!("CARGO_PKG_VERSION"));

/// Where `@file` and `@-` are read from: the sandbox's files and stdin (read at most
/// once, since a second read would find it empty anyway).
pub(crate) struct Sources<'f, 'c, 'a> {
    pub files: &'f Files<'f>,
    pub ctx: &'c Context<'a>,
    stdin: Option<Vec<u8>>,
    /// Warnings for files that could not be read (curl goes on without them).
    pub warnings: Vec<String>,
}

impl<'f, 'c, 'a> Sources<'f, 'c, 'a> {
    pub fn new(files: &'f Files<'f>, ctx: &'c Context<'a>) -> Self {
        Self {
            files,
            ctx,
            stdin: None,
            warnings: Vec::new(),
        }
    }

    /// The contents of `name` (`-` for stdin), or `None` with a warning noted.
    pub async fn read(&mut self, name: &str) -> crate::Result<Option<Vec<u8>>> {
        if name == "-" {
            if self.stdin.is_none() {
                self.stdin = Some(read_stdin(self.ctx).await?);
            }
            return Ok(self.stdin.clone());
        }
        match self.files.read(name).await {
            Ok(data) => Ok(Some(data)),
            Err(_) => Ok(None),
        }
    }
}

/// The body the `-d`-like pieces make: `-d` pieces joined with `&`, `--json` pieces
/// appended as they are. `None` when there were none.
pub(crate) async fn body(
    data: &[Data],
    sources: &mut Sources<'_, '_, '_>,
) -> crate::Result<Option<Vec<u8>>> {
    if data.is_empty() {
        return Ok(None);
    }
    let mut body = Vec::new();
    for (i, piece) in data.iter().enumerate() {
        let bytes = match piece {
            Data::Ascii(text) => match text.strip_prefix('@') {
                Some(name) => {
                    let mut bytes = read_or_warn(sources, name).await?;
                    bytes.retain(|b| *b != b'\r' && *b != b'\n');
                    bytes
                }
                None => text.as_bytes().to_vec(),
            },
            Data::Binary(text) | Data::Json(text) => match text.strip_prefix('@') {
                Some(name) => read_or_warn(sources, name).await?,
                None => text.as_bytes().to_vec(),
            },
            Data::Raw(text) => text.as_bytes().to_vec(),
            Data::UrlEncode(text) => url_encoded(text, sources).await?.into_bytes(),
        };
        if i > 0 && !matches!(piece, Data::Json(_)) {
            body.push(b'&');
        }
        body.extend_from_slice(&bytes);
    }
    Ok(Some(body))
}

async fn read_or_warn(sources: &mut Sources<'_, '_, '_>, name: &str) -> crate::Result<Vec<u8>> {
    match sources.read(name).await? {
        Some(bytes) => Ok(bytes),
        None => {
            sources.warnings.push(format!(
                "Warning: Couldn't read data from file \"{name}\", this makes an empty POST.\n"
            ));
            Ok(Vec::new())
        }
    }
}

/// One `--data-urlencode` piece: `name=` and `name@` keep the name as it is and
/// encode the content.
async fn url_encoded(text: &str, sources: &mut Sources<'_, '_, '_>) -> crate::Result<String> {
    let eq = text.find('=');
    let at = text.find('@');
    Ok(match (eq, at) {
        (Some(eq), at) if at.is_none_or(|at| eq < at) => {
            let (name, content) = (&text[..eq], &text[eq + 1..]);
            match name.is_empty() {
                true => url::form_encode(content.as_bytes()),
                false => format!("{name}={}", url::form_encode(content.as_bytes())),
            }
        }
        (_, Some(at)) => {
            let (name, file) = (&text[..at], &text[at + 1..]);
            let content = read_or_warn(sources, file).await?;
            match name.is_empty() {
                true => url::form_encode(&content),
                false => format!("{name}={}", url::form_encode(&content)),
            }
        }
        _ => url::form_encode(text.as_bytes()),
    })
}

/// `-H` values with `@file` ones expanded into their lines.
pub(crate) async fn header_lines(
    args: &CurlArgs,
    sources: &mut Sources<'_, '_, '_>,
) -> crate::Result<Vec<String>> {
    let mut lines = Vec::new();
    for header in &args.headers {
        match header.strip_prefix('@') {
            Some(name) => {
                if let Some(bytes) = sources.read(name).await? {
                    let text = String::from_utf8_lossy(&bytes);
                    lines.extend(
                        text.lines()
                            .map(str::to_owned)
                            .filter(|l| !l.trim().is_empty()),
                    );
                }
            }
            None => lines.push(header.clone()),
        }
    }
    Ok(lines)
}

/// The request for `raw_url`; `body` from [`body`], `headers` from [`header_lines`].
pub(crate) fn build(
    args: &CurlArgs,
    raw_url: &str,
    body: Option<&[u8]>,
    headers: &[String],
) -> HttpRequest {
    let (mut url, credentials) = url::take_userinfo(&url::with_scheme(raw_url));
    let mut body = body.map(<[u8]>::to_vec);
    if args.get
        && let Some(query) = body.take()
    {
        url = url::append_query(&url, &String::from_utf8_lossy(&query));
    }
    let method = match (&args.method, args.head, &body) {
        (Some(method), _, _) => method.clone(),
        (None, true, _) => "HEAD".into(),
        (None, false, Some(_)) => "POST".into(),
        (None, false, None) => "GET".into(),
    };
    let json = args.data.iter().any(|d| matches!(d, Data::Json(_)));
    // curl's own headers, in the order it sends them; `-H` replaces or removes them.
    let mut own: Vec<(String, String)> = Vec::new();
    if let Some(credentials) = args.user.clone().or(credentials) {
        let credentials = match credentials.contains(':') {
            true => credentials,
            false => format!("{credentials}:"),
        };
        own.push((
            "Authorization".into(),
            format!("Basic {}", url::base64(credentials.as_bytes())),
        ));
    }
    own.push((
        "User-Agent".into(),
        args.user_agent.clone().unwrap_or_else(|| USER_AGENT.into()),
    ));
    own.push((
        "Accept".into(),
        if json { "application/json" } else { "*/*" }.into(),
    ));
    if let Some(referer) = &args.referer {
        own.push(("Referer".into(), referer.clone()));
    }
    if body.is_some() {
        let kind = if json {
            "application/json"
        } else {
            "application/x-www-form-urlencoded"
        };
        own.push(("Content-Type".into(), kind.into()));
    }
    let mut custom = Vec::new();
    for line in headers {
        match parse_header(line) {
            Some(Header::Set(name, value)) => custom.push((name, value)),
            Some(Header::Remove(name)) => own.retain(|(n, _)| !n.eq_ignore_ascii_case(&name)),
            None => {}
        }
    }
    own.retain(|(n, _)| !custom.iter().any(|(c, _)| c.eq_ignore_ascii_case(n)));
    own.extend(custom);
    HttpRequest {
        method,
        url,
        headers: own,
        body,
        follow_redirects: args.location,
    }
}

enum Header {
    Set(String, String),
    /// `Name:` with nothing after it: do not send curl's own `Name`.
    Remove(String),
}

/// One `-H` value: `Name: value`, `Name:` (remove), `Name;` (send it empty). Anything
/// else is ignored, as curl does.
fn parse_header(line: &str) -> Option<Header> {
    let line = line.trim_end_matches(['\r', '\n']);
    let colon = line.find(':');
    let semi = line.find(';');
    match (colon, semi) {
        (Some(c), s) if s.is_none_or(|s| c < s) => {
            let name = line[..c].trim();
            let value = line[c + 1..].trim();
            if name.is_empty() {
                return None;
            }
            Some(match value.is_empty() {
                true => Header::Remove(name.to_owned()),
                false => Header::Set(name.to_owned(), value.to_owned()),
            })
        }
        (_, Some(s)) if line[s + 1..].trim().is_empty() && !line[..s].trim().is_empty() => {
            Some(Header::Set(line[..s].trim().to_owned(), String::new()))
        }
        _ => None,
    }
}
