//! The little URL handling `curl` and `wget` need before the gate parses a URL for
//! real: a default scheme, credentials taken out (the gate refuses them in a URL),
//! file names, relative redirects, query strings. Everything here works on text and
//! accepts anything; what is not a URL is the gate's to refuse.

/// `raw` with `http://` in front when it names no scheme, as curl guesses.
pub(crate) fn with_scheme(raw: &str) -> String {
    let trimmed = raw.trim();
    match scheme_end(trimmed).is_some() || has_opaque_scheme(trimmed) {
        true => trimmed.to_owned(),
        false => format!("http://{trimmed}"),
    }
}

/// Whether `url` starts with a scheme that takes no `//` (`data:`, `blob:`, `file:`,
/// `javascript:`, ...), so that the policy sees and refuses it as such. `host:8080`
/// (a port) is not one.
fn has_opaque_scheme(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once(':') else {
        return false;
    };
    let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid && !scheme.contains('.') && !rest.starts_with(|c: char| c.is_ascii_digit())
}

/// Where `scheme://` ends (the index after `//`), if `url` starts with one.
fn scheme_end(url: &str) -> Option<usize> {
    let colon = url.find("://")?;
    let scheme = &url[..colon];
    let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid.then_some(colon + 3)
}

/// The byte range of the authority (`user@host:port`) in `url`.
fn authority(url: &str) -> (usize, usize) {
    let start = scheme_end(url).unwrap_or(0);
    let len = url[start..]
        .find(['/', '?', '#'])
        .unwrap_or(url.len() - start);
    (start, start + len)
}

/// `url` without `user:password@`, and the credentials (percent-decoded) if it had them.
pub(crate) fn take_userinfo(url: &str) -> (String, Option<String>) {
    let (start, end) = authority(url);
    match url[start..end].rfind('@') {
        Some(at) => {
            let userinfo = percent_decode(&url[start..start + at]);
            let rest = format!("{}{}", &url[..start], &url[start + at + 1..]);
            (rest, Some(userinfo))
        }
        None => (url.to_owned(), None),
    }
}

/// The host and port of `url` (the scheme's default port when it names none).
pub(crate) fn host_port(url: &str) -> (String, u16) {
    let (start, end) = authority(url);
    let hostport = &url[start..end];
    let hostport = hostport.rsplit_once('@').map_or(hostport, |(_, h)| h);
    let default = if url.to_ascii_lowercase().starts_with("https:") {
        443
    } else {
        80
    };
    // An IPv6 literal keeps its colons inside brackets.
    let port_at = match hostport.rfind(']') {
        Some(bracket) => hostport[bracket..].find(':').map(|c| bracket + c),
        None => hostport.rfind(':'),
    };
    match port_at {
        Some(colon) => {
            let port = hostport[colon + 1..].parse().unwrap_or(default);
            (hostport[..colon].to_owned(), port)
        }
        None => (hostport.to_owned(), default),
    }
}

/// The `Host` header curl would send: the host, and the port if it is not the default.
pub(crate) fn host_header(url: &str) -> String {
    let (start, end) = authority(url);
    let hostport = &url[start..end];
    hostport
        .rsplit_once('@')
        .map_or(hostport, |(_, h)| h)
        .to_owned()
}

/// The path and query of `url`, as a request line carries it (`/` when empty).
pub(crate) fn path_and_query(url: &str) -> String {
    let (_, end) = authority(url);
    let rest = &url[end..];
    let rest = rest.split('#').next().unwrap_or("");
    match rest.starts_with('/') {
        true => rest.to_owned(),
        false => format!("/{rest}"),
    }
}

/// The last segment of `url`'s path (query and fragment left out), possibly empty.
pub(crate) fn last_segment(url: &str) -> String {
    let (_, end) = authority(url);
    let path = url[end..].split(['?', '#']).next().unwrap_or("");
    path.rsplit('/').next().unwrap_or("").to_owned()
}

/// `url` with `query` added to its query string (`?` or `&`), before any fragment.
pub(crate) fn append_query(url: &str, query: &str) -> String {
    let (base, fragment) = match url.find('#') {
        Some(hash) => (&url[..hash], &url[hash..]),
        None => (url, ""),
    };
    let joiner = if base.contains('?') { '&' } else { '?' };
    format!("{base}{joiner}{query}{fragment}")
}

/// `location` (a redirect's target, possibly relative) resolved against `base`.
pub(crate) fn join(base: &str, location: &str) -> String {
    let location = location.trim();
    if scheme_end(location).is_some() {
        return location.to_owned();
    }
    let (start, end) = authority(base);
    let scheme = &base[..start.saturating_sub(2)];
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{scheme}//{rest}");
    }
    let origin = &base[..end];
    let rest = &base[end..];
    let path = rest.split(['?', '#']).next().unwrap_or("");
    if location.starts_with('/') {
        return format!("{origin}{location}");
    }
    if location.starts_with('?') {
        return format!("{origin}{path}{location}");
    }
    if location.starts_with('#') || location.is_empty() {
        let without_fragment = base.split('#').next().unwrap_or(base);
        return format!("{without_fragment}{location}");
    }
    // Relative to the base's directory; the gate's URL parser resolves `..`.
    let dir = match path.rfind('/') {
        Some(slash) => &path[..=slash],
        None => "/",
    };
    format!("{origin}{dir}{location}")
}

/// `%XX` sequences decoded (invalid ones kept as they are; bytes that are not UTF-8
/// replaced).
pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).and_then(|&b| hex(b)),
                bytes.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Form encoding as `--data-urlencode` does it: unreserved bytes kept, space as `+`,
/// everything else `%XX`.
pub(crate) fn form_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len());
    for &b in data {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Standard base64 with padding (for `Authorization: Basic`).
pub(crate) fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_credentials_and_parts() {
        assert_eq!(with_scheme("example.com/a"), "http://example.com/a");
        assert_eq!(with_scheme("localhost:8080/a"), "http://localhost:8080/a");
        assert_eq!(with_scheme("data:text/plain,hi"), "data:text/plain,hi");
        assert_eq!(with_scheme("blob:http://h/1"), "blob:http://h/1");
        assert_eq!(with_scheme("https://x/"), "https://x/");
        assert_eq!(with_scheme("file:///etc/passwd"), "file:///etc/passwd");
        assert_eq!(
            take_userinfo("http://u%40x:p@h:8/p@q"),
            ("http://h:8/p@q".to_owned(), Some("u@x:p".to_owned()))
        );
        assert_eq!(host_port("https://h/x"), ("h".to_owned(), 443));
        assert_eq!(host_port("http://[::1]:9/x"), ("[::1]".to_owned(), 9));
        assert_eq!(host_port("http://h:bad/"), ("h".to_owned(), 80));
        assert_eq!(path_and_query("http://h"), "/");
        assert_eq!(path_and_query("http://h/a?b#c"), "/a?b");
        assert_eq!(last_segment("http://h/a/b.txt?x=/y"), "b.txt");
        assert_eq!(last_segment("http://h/a/"), "");
        assert_eq!(
            append_query("http://h/a?x=1#f", "y=2"),
            "http://h/a?x=1&y=2#f"
        );
    }

    #[test]
    fn redirects_resolve_like_a_browser() {
        let base = "http://h:1/a/b?q";
        assert_eq!(join(base, "https://o/x"), "https://o/x");
        assert_eq!(join(base, "//o/x"), "http://o/x");
        assert_eq!(join(base, "/x"), "http://h:1/x");
        assert_eq!(join(base, "c"), "http://h:1/a/c");
        assert_eq!(join(base, "?z"), "http://h:1/a/b?z");
        assert_eq!(join("http://h", "c"), "http://h/c");
    }

    #[test]
    fn encodings() {
        assert_eq!(form_encode(b"a b&c/~"), "a+b%26c%2F~");
        assert_eq!(base64(b"user:pw"), "dXNlcjpwdw==");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b""), "");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
    }
}
