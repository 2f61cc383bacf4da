//! A package index's simple API, read through the capability gate: the JSON form
//! (PEP 691, asked for first) or the HTML one (PEP 503), and downloads checked
//! against the hashes the index gives.

use sandtab_caps::{Denial, Gate, HttpRequest, Via};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The index used when neither `--index-url` nor `PIP_INDEX_URL` names one.
pub(crate) const DEFAULT_INDEX: &str = "https://pypi.org/simple";

const ACCEPT: &str = "application/vnd.pypi.simple.v1+json, text/html;q=0.1";

/// One file a project page lists.
#[derive(Debug, Clone)]
pub(crate) struct IndexFile {
    pub filename: String,
    pub url: String,
    pub sha256: Option<String>,
    pub requires_python: Option<String>,
    pub yanked: bool,
}

/// Why the index could not be read.
#[derive(Debug)]
pub(crate) enum IndexError {
    /// The gate refused the request (or it failed on the way).
    Gate(Denial),
    /// The project is not on the index (404).
    NotFound,
    /// Anything else: a status, an answer that is neither JSON nor HTML, a bad hash.
    Other(String),
}

#[derive(Deserialize)]
struct JsonPage {
    files: Vec<JsonFile>,
}

#[derive(Deserialize)]
struct JsonFile {
    filename: String,
    url: String,
    #[serde(default)]
    hashes: std::collections::BTreeMap<String, String>,
    #[serde(rename = "requires-python", default)]
    requires_python: Option<String>,
    #[serde(default)]
    yanked: serde_json::Value,
}

/// The files of project `name` (normalized) on the index at `index`.
pub(crate) async fn project_files(
    gate: &Gate,
    index: &str,
    name: &str,
) -> Result<Vec<IndexFile>, IndexError> {
    let page = format!("{}/{name}/", index.trim_end_matches('/'));
    let response = gate
        .fetch(
            HttpRequest {
                method: "GET".into(),
                url: page.clone(),
                headers: vec![("Accept".into(), ACCEPT.into())],
                body: None,
                follow_redirects: true,
            },
            Via::Shell,
        )
        .await
        .map_err(IndexError::Gate)?;
    match response.status {
        200 => {}
        404 => return Err(IndexError::NotFound),
        status => {
            return Err(IndexError::Other(format!(
                "{page} answered HTTP {status} {}",
                response.status_text
            )));
        }
    }
    let base = if response.url.is_empty() {
        page.clone()
    } else {
        response.url.clone()
    };
    let kind = response
        .header("content-type")
        .unwrap_or_default()
        .to_owned();
    if kind.contains("json") {
        let parsed: JsonPage = serde_json::from_slice(&response.body).map_err(|err| {
            IndexError::Other(format!("{page}: not the simple API's JSON ({err})"))
        })?;
        return Ok(parsed
            .files
            .into_iter()
            .map(|file| IndexFile {
                url: join(&base, &file.url),
                filename: file.filename,
                sha256: file.hashes.get("sha256").cloned(),
                requires_python: file.requires_python.filter(|s| !s.is_empty()),
                yanked: !matches!(
                    file.yanked,
                    serde_json::Value::Bool(false) | serde_json::Value::Null
                ),
            })
            .collect());
    }
    Ok(parse_html(&base, &String::from_utf8_lossy(&response.body)))
}

/// The anchors of a PEP 503 page: `<a href="URL#sha256=HEX" data-requires-python="...">NAME</a>`.
fn parse_html(base: &str, html: &str) -> Vec<IndexFile> {
    let anchor =
        regex::Regex::new(r#"(?is)<a\s([^>]*)>\s*([^<]*?)\s*</a>"#).expect("a valid pattern");
    let attribute =
        regex::Regex::new(r#"(?is)([a-z-]+)\s*=\s*"([^"]*)""#).expect("a valid pattern");
    let mut files = Vec::new();
    for found in anchor.captures_iter(html) {
        let mut href = None;
        let mut requires_python = None;
        let mut yanked = false;
        for attr in attribute.captures_iter(&found[1]) {
            let value = unescape(&attr[2]);
            match attr[1].to_ascii_lowercase().as_str() {
                "href" => href = Some(value),
                "data-requires-python" => requires_python = Some(value),
                "data-yanked" => yanked = true,
                _ => {}
            }
        }
        let Some(href) = href else { continue };
        let (url, fragment) = href.split_once('#').unwrap_or((&href, ""));
        let sha256 = fragment.strip_prefix("sha256=").map(str::to_owned);
        files.push(IndexFile {
            filename: unescape(&found[2]),
            url: join(base, url),
            sha256,
            requires_python: requires_python.filter(|s| !s.is_empty()),
            yanked,
        });
    }
    files
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn join(base: &str, url: &str) -> String {
    url::Url::parse(base)
        .and_then(|base| base.join(url))
        .map(|url| url.to_string())
        .unwrap_or_else(|_| url.to_owned())
}

/// Downloads `file` and checks it against the index's SHA-256.
pub(crate) async fn download(gate: &Gate, file: &IndexFile) -> Result<Vec<u8>, IndexError> {
    let response = gate
        .fetch(
            HttpRequest {
                method: "GET".into(),
                url: file.url.clone(),
                headers: Vec::new(),
                body: None,
                follow_redirects: true,
            },
            Via::Shell,
        )
        .await
        .map_err(IndexError::Gate)?;
    if response.status != 200 {
        return Err(IndexError::Other(format!(
            "{} answered HTTP {} {}",
            file.url, response.status, response.status_text
        )));
    }
    if let Some(expected) = &file.sha256 {
        let got: String = Sha256::digest(&response.body)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if !got.eq_ignore_ascii_case(expected) {
            return Err(IndexError::Other(format!(
                "THESE PACKAGES DO NOT MATCH THE HASHES FROM THE INDEX:\n    {}:\n        Expected sha256 {expected}\n             Got        {got}",
                file.filename
            )));
        }
    }
    Ok(response.body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_pages_give_files_hashes_and_yanks() {
        let files = parse_html(
            "https://idx.test/simple/six/",
            r#"<html><body><a href="../../files/six-1.16.0-py2.py3-none-any.whl#sha256=AB12" data-requires-python="&gt;=2.7">six-1.16.0-py2.py3-none-any.whl</a>
            <a href="six-1.0.tar.gz" data-yanked="">six-1.0.tar.gz</a></body></html>"#,
        );
        assert_eq!(files.len(), 2);
        assert_eq!(
            files[0].url,
            "https://idx.test/files/six-1.16.0-py2.py3-none-any.whl"
        );
        assert_eq!(files[0].sha256.as_deref(), Some("AB12"));
        assert_eq!(files[0].requires_python.as_deref(), Some(">=2.7"));
        assert!(!files[0].yanked && files[1].yanked);
        assert_eq!(files[1].url, "https://idx.test/simple/six/six-1.0.tar.gz");
    }
}
