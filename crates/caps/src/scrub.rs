//! Scrubbing injected secrets from what comes back. A server may echo a secret it was
//! sent, and not only as it was sent: base64 (a `Basic` header, a token in a JSON
//! document), hex, percent-encoded in a URL, escaped in a JSON string or an HTML page.
//! [`Scrubber`] replaces each of those forms with [`REDACTED`] wherever it appears: in
//! bodies, header values, status texts, URLs and messages. A header whose *name*
//! contains a form (in any ASCII case: names arrive lower-cased, which loses nothing of
//! hex) is renamed [`REDACTED_HEADER`].
//!
//! Each secret's forms (its *needles*) are worked out once; a response is then scanned
//! in one pass per automaton (Aho-Corasick, overlapping matches), and every byte any
//! needle covers is replaced, a run of overlapping matches by one [`REDACTED`].
//!
//! Which forms (kept in step with `scrub` in `web/src/net-broker.ts`, which does the
//! same on the page for the secrets the runtime never holds):
//! - *parts* of a value: the whole value; for `Scheme credentials` (`Bearer sk-...`) the
//!   credentials alone; for `Basic base64(user:password)` the decoded `user:password`
//!   and the password. A part other than the whole value counts if it has at least
//!   [`MIN_PART`] bytes.
//! - per part: raw (ASCII case ignored); hex (any case); base64, standard and URL-safe,
//!   padded and not, and, for a part inside a larger base64 text, the characters that
//!   depend on the part alone at each of the three byte alignments, also with `+ / =`
//!   percent-encoded or `/` as `\/`; percent-encoding (every byte, or all but the
//!   unreserved characters of RFC 3986, `encodeURIComponent`, `encodeURI`, forms,
//!   Python's `quote`; space as `%20` or `+`; hex in any case); JSON string escapes
//!   (the usual ones, with `\/`, with `<>&'` as `\u00XX`, with non-ASCII as `\uXXXX`, or
//!   every character as `\uXXXX`; hex in any case); HTML (every character as `&#NN;` or
//!   `&#xHH;`, or `& < > " '` as named or numeric references). An encoded form shorter
//!   than [`MIN_NEEDLE`] is not looked for (it would match by chance).
//!
//! Not covered (see docs/security-network.md): forms mixing these styles character by
//! character, nested encodings, and any other transformation a hostile server chooses.

use crate::audit::REDACTED;
use crate::doors::HttpResponse;
use crate::error::Denial;
use aho_corasick::AhoCorasick;
use std::borrow::Cow;

/// The shortest part of a value (other than the whole value) scrubbed on its own.
pub const MIN_PART: usize = 6;
/// The shortest encoded form looked for.
pub const MIN_NEEDLE: usize = 8;
/// The name a response header is given when its own name holds a secret.
pub const REDACTED_HEADER: &str = "x-sandtab-redacted";

const B64_STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Characters left as they are by the percent-encoding styles looked for: none (every
/// byte encoded, `None`), or ASCII letters and digits and: nothing else, RFC 3986's
/// unreserved, `encodeURIComponent`, forms (`application/x-www-form-urlencoded`),
/// `encodeURI`, Python's `quote`.
const PERCENT_KEPT: [Option<&str>; 7] = [
    None,
    Some(""),
    Some("-._~"),
    Some("-_.!~*'()"),
    Some("*-._"),
    Some(";,/?:@&=+$-_.!~*'()#"),
    Some("_.-~/"),
];

/// The forms of some secrets to look for, split by whether ASCII case matters.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Needles {
    /// Matched exactly (base64).
    pub exact: Vec<Vec<u8>>,
    /// Matched ignoring ASCII case (raw, hex, percent, JSON, HTML).
    pub any_case: Vec<Vec<u8>>,
}

impl Needles {
    /// The forms of each of `secrets` (empty ones are skipped).
    pub fn of<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) -> Self {
        let mut needles = Needles::default();
        for secret in secrets {
            for part in parts(secret.as_ref()) {
                needles.add_part(&part);
            }
        }
        needles.exact.sort();
        needles.exact.dedup();
        needles.any_case.sort();
        needles.any_case.dedup();
        needles
    }

    fn add_part(&mut self, part: &[u8]) {
        let mut any_case = |needle: Vec<u8>| {
            if needle.len() >= MIN_NEEDLE || needle == part {
                self.any_case.push(needle);
            }
        };
        any_case(part.to_vec());
        any_case(part.iter().flat_map(|b| hex_byte(*b)).collect());
        for kept in PERCENT_KEPT {
            for plus in [false, true] {
                any_case(percent(part, kept, plus));
            }
        }
        if let Ok(text) = std::str::from_utf8(part) {
            for style in 0..8 {
                any_case(json(text, style & 1 != 0, style & 2 != 0, style & 4 != 0).into());
            }
            any_case(json_all(text).into());
            any_case(html_numeric(text, false).into());
            any_case(html_numeric(text, true).into());
            for quote in ["&quot;", "&#34;", "&#x22;"] {
                for apos in ["&#39;", "&#x27;", "&apos;"] {
                    any_case(html_special(text, quote, apos).into());
                }
            }
        }
        for alphabet in [B64_STD, B64_URL] {
            let full = base64(part, alphabet, false);
            let mut forms = vec![base64(part, alphabet, true), full];
            for align in 0..3 {
                forms.push(base64_core(part, align, alphabet));
            }
            for form in forms {
                if form.len() < MIN_NEEDLE {
                    continue;
                }
                // As it would stand in a URL's query, or in JSON written by PHP.
                if form.bytes().any(|b| b"+/=".contains(&b)) {
                    self.any_case
                        .push(percent(form.as_bytes(), Some("-_.!~*'()"), false));
                    self.exact.push(form.replace('/', "\\/").into_bytes());
                }
                self.exact.push(form.into_bytes());
            }
        }
    }
}

/// The parts of a secret value scrubbed on their own (see the module's comment).
fn parts(value: &str) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    if value.is_empty() {
        return parts;
    }
    parts.push(value.as_bytes().to_vec());
    let trimmed = value.trim();
    if let Some((scheme, rest)) = trimmed.split_once(|c: char| c.is_ascii_whitespace()) {
        let credentials = rest.trim();
        let is_scheme = !scheme.is_empty()
            && scheme.len() <= 32
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if is_scheme && credentials.len() >= MIN_PART {
            parts.push(credentials.as_bytes().to_vec());
            if scheme.eq_ignore_ascii_case("basic")
                && let Some(decoded) = base64_decode(credentials)
                && let Some(colon) = decoded.iter().position(|&b| b == b':')
            {
                let password = decoded[colon + 1..].to_vec();
                if password.len() >= MIN_PART {
                    parts.push(password);
                }
                parts.push(decoded);
            }
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.dedup();
    parts
}

/// Replaces every form of some secrets with [`REDACTED`].
#[derive(Debug, Clone, Default)]
pub struct Scrubber {
    exact: Option<AhoCorasick>,
    any_case: Option<AhoCorasick>,
    /// Every needle, ASCII case ignored (for header names).
    names: Option<AhoCorasick>,
}

impl Scrubber {
    /// A scrubber for `secrets` (empty ones are ignored).
    pub fn new<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) -> Self {
        let needles = Needles::of(secrets);
        let build = |needles: &[Vec<u8>], any_case: bool| {
            (!needles.is_empty()).then(|| {
                AhoCorasick::builder()
                    .ascii_case_insensitive(any_case)
                    .build(needles)
                    .unwrap_or_else(|err| panic!("the secrets' needles: {err}"))
            })
        };
        let all: Vec<&[u8]> = needles
            .exact
            .iter()
            .chain(&needles.any_case)
            .map(Vec::as_slice)
            .collect();
        Self {
            exact: build(&needles.exact, false),
            any_case: build(&needles.any_case, true),
            names: (!all.is_empty()).then(|| {
                AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .build(&all)
                    .unwrap_or_else(|err| panic!("the secrets' needles: {err}"))
            }),
        }
    }

    /// Whether a header name holds a form of a secret, in any ASCII case.
    pub fn in_name(&self, name: &str) -> bool {
        self.names
            .as_ref()
            .is_some_and(|names| names.is_match(name))
    }

    /// Whether there is nothing to scrub.
    pub fn is_empty(&self) -> bool {
        self.exact.is_none() && self.any_case.is_none()
    }

    /// `bytes` with every form of every secret replaced.
    pub fn bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for automaton in [&self.exact, &self.any_case].into_iter().flatten() {
            spans.extend(
                automaton
                    .find_overlapping_iter(bytes)
                    .map(|m| (m.start(), m.end())),
            );
        }
        if spans.is_empty() {
            return Cow::Borrowed(bytes);
        }
        spans.sort_unstable();
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        let mut i = 0;
        while i < spans.len() {
            let (start, mut end) = spans[i];
            i += 1;
            while i < spans.len() && spans[i].0 < end {
                end = end.max(spans[i].1);
                i += 1;
            }
            out.extend_from_slice(&bytes[at..start]);
            out.extend_from_slice(REDACTED.as_bytes());
            at = end;
        }
        out.extend_from_slice(&bytes[at..]);
        Cow::Owned(out)
    }

    /// `text` with every form of every secret replaced.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self.bytes(text.as_bytes()) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            Cow::Owned(bytes) => Cow::Owned(match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
            }),
        }
    }

    /// `text` scrubbed in place.
    pub fn in_place(&self, text: &mut String) {
        if let Cow::Owned(scrubbed) = self.text(text) {
            *text = scrubbed;
        }
    }

    /// The response with its body, header values, status text and URL scrubbed, and a
    /// header whose name holds a secret renamed [`REDACTED_HEADER`].
    pub fn response(&self, response: &mut HttpResponse) {
        if self.is_empty() {
            return;
        }
        if let Cow::Owned(body) = self.bytes(&response.body) {
            response.body = body;
        }
        for (name, value) in &mut response.headers {
            if self.in_name(name) {
                *name = REDACTED_HEADER.into();
            }
            self.in_place(value);
        }
        self.in_place(&mut response.status_text);
        self.in_place(&mut response.url);
    }

    /// The denial with its message scrubbed (it may quote a URL a server chose).
    pub fn denial(&self, mut denial: Denial) -> Denial {
        self.in_place(&mut denial.message);
        denial
    }
}

/// The fewest bytes `body` can have had before doors holding secrets of their own (the
/// page) replaced some with [`REDACTED`]: each of those stood for at least one byte. (A
/// server's own `[redacted]` text is counted the same way: this only bounds what the
/// doors, which enforce the size limit on the body as they receive it, let through.)
pub(crate) fn least_len_before_scrubbing(body: &[u8]) -> usize {
    if body.len() < REDACTED.len() {
        return body.len();
    }
    let count = AhoCorasick::new([REDACTED])
        .map(|redacted| redacted.find_iter(body).count())
        .unwrap_or(0);
    body.len() - count * (REDACTED.len() - 1)
}

fn hex_byte(b: u8) -> [u8; 2] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    [HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]
}

/// `bytes` percent-encoded but for ASCII letters, digits and `kept` (`None`: every
/// byte), a space as `+` if `plus`.
fn percent(bytes: &[u8], kept: Option<&str>, plus: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() * 3);
    for &b in bytes {
        let keep = kept.is_some_and(|k| b.is_ascii_alphanumeric() || k.as_bytes().contains(&b));
        if b == b' ' && plus {
            out.push(b'+');
        } else if keep {
            out.push(b);
        } else {
            out.push(b'%');
            out.extend_from_slice(&hex_byte(b));
        }
    }
    out
}

fn push_u(out: &mut String, c: char) {
    let mut units = [0u16; 2];
    for unit in c.encode_utf16(&mut units) {
        out.push_str(&format!("\\u{unit:04x}"));
    }
}

/// `text` as a JSON string's contents: the usual escapes, optionally `/` as `\/`,
/// `<>&'` as `\u00XX` (as Go and others do for HTML), non-ASCII as `\uXXXX`.
fn json(text: &str, slash: bool, html: bool, ascii: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if slash => out.push_str("\\/"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\'' if html => push_u(&mut out, c),
            c if c < ' ' || (ascii && !c.is_ascii()) => push_u(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// Every character of `text` as `\uXXXX`.
fn json_all(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 6);
    for c in text.chars() {
        push_u(&mut out, c);
    }
    out
}

/// Every character of `text` as `&#NN;` or `&#xHH;`.
fn html_numeric(text: &str, hex: bool) -> String {
    text.chars()
        .map(|c| match hex {
            true => format!("&#x{:x};", c as u32),
            false => format!("&#{};", c as u32),
        })
        .collect()
}

/// `text` with `& < > " '` as character references.
fn html_special(text: &str, quote: &str, apos: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str(quote),
            '\'' => out.push_str(apos),
            c => out.push(c),
        }
    }
    out
}

fn base64(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let v = (u32::from(chunk[0]) << 16)
            | (u32::from(chunk.get(1).copied().unwrap_or(0)) << 8)
            | u32::from(chunk.get(2).copied().unwrap_or(0));
        for i in 0..=chunk.len() {
            out.push(char::from(alphabet[((v >> (18 - 6 * i)) & 63) as usize]));
        }
        if pad {
            for _ in chunk.len()..3 {
                out.push('=');
            }
        }
    }
    out
}

/// The base64 characters that depend on `bytes` alone when they stand `align` bytes
/// after a multiple of three in a larger text.
fn base64_core(bytes: &[u8], align: usize, alphabet: &[u8; 64]) -> String {
    let mut padded = vec![0u8; align];
    padded.extend_from_slice(bytes);
    let encoded = base64(&padded, alphabet, false);
    let start = (align * 8).div_ceil(6);
    let end = ((align + bytes.len()) * 8 / 6).max(start);
    encoded[start..end].to_owned()
}

/// Standard or URL-safe base64, padded or not; `None` if it is not base64.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for b in text.trim_end_matches('=').bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "sk-Live_9f8e7d/6c+5b=4a&\"<q>'~(x) é😀";

    fn scrub(secrets: &[&str], text: &str) -> String {
        Scrubber::new(secrets).text(text).into_owned()
    }

    /// `encoded`, put in the middle of some text, is scrubbed and nothing else is.
    fn gone(name: &str, encoded: &str) {
        let text = format!("before {encoded} after");
        assert_eq!(
            scrub(&[SECRET], &text),
            "before [redacted] after",
            "{name}: {encoded}"
        );
    }

    #[test]
    fn raw_and_any_ascii_case() {
        gone("raw", SECRET);
        gone("upper", &SECRET.to_ascii_uppercase());
        assert_eq!(scrub(&[SECRET], "nothing to see"), "nothing to see");
        assert_eq!(
            scrub(&["abc"], "abcabc xabcx"),
            "[redacted][redacted] x[redacted]x",
            "touching matches are each redacted, short secrets too"
        );
        assert_eq!(scrub(&[""], "anything"), "anything");
    }

    #[test]
    fn base64_every_alphabet_padding_and_alignment() {
        let bytes = SECRET.as_bytes();
        gone("standard", &base64(bytes, B64_STD, true));
        gone("standard, no padding", &base64(bytes, B64_STD, false));
        gone("url-safe", &base64(bytes, B64_URL, true));
        gone("url-safe, no padding", &base64(bytes, B64_URL, false));
        gone(
            "percent-encoded",
            &String::from_utf8(percent(
                base64(bytes, B64_STD, true).as_bytes(),
                Some(""),
                false,
            ))
            .unwrap(),
        );
        gone(
            "in PHP's JSON",
            &base64(bytes, B64_STD, true).replace('/', "\\/"),
        );
        for prefix in ["", "u:", "us:", "use:", "user:", "admin:"] {
            for alphabet in [B64_STD, B64_URL] {
                let blob = format!("{prefix}{SECRET}:then the rest");
                let encoded = base64(blob.as_bytes(), alphabet, true);
                let scrubbed = scrub(&[SECRET], &encoded);
                assert!(scrubbed.contains("[redacted]"), "{prefix}: {scrubbed}");
                // At most the two characters around it that also depend on its
                // neighbours are left, on each side.
                let start = (prefix.len() * 8).div_ceil(6);
                let end = (prefix.len() + SECRET.len()) * 8 / 6;
                assert!(
                    !scrubbed.contains(&encoded[start + 1..end - 1]),
                    "{prefix}: {scrubbed}"
                );
                assert!(
                    scrubbed.len() < encoded.len() - (end - start) + 12,
                    "{prefix}: {scrubbed}"
                );
            }
        }
    }

    #[test]
    fn a_basic_header_and_a_bearer_token() {
        let basic = format!("Basic {}", base64(b"alice:correct-horse", B64_STD, true));
        assert_eq!(scrub(&[&basic], "pw=correct-horse"), "pw=[redacted]");
        assert_eq!(
            scrub(&[&basic], "who=alice:correct-horse"),
            "who=[redacted]"
        );
        assert_eq!(
            scrub(&[&basic], &base64(b"alice:correct-horse", B64_STD, true)),
            "[redacted]"
        );
        assert_eq!(
            scrub(&["Bearer tok-123456"], "{\"token\":\"tok-123456\"}"),
            "{\"token\":\"[redacted]\"}"
        );
        // A short credential is only scrubbed with its scheme.
        assert_eq!(scrub(&["Bearer abc"], "abc Bearer abc"), "abc [redacted]");
    }

    #[test]
    fn hex_in_any_case() {
        let lower: String = SECRET.bytes().map(|b| format!("{b:02x}")).collect();
        gone("lower", &lower);
        gone("upper", &lower.to_uppercase());
        let mixed: String = lower
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 3 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect();
        gone("mixed", &mixed);
    }

    #[test]
    fn percent_encoding_every_style() {
        let every: String = SECRET.bytes().map(|b| format!("%{b:02X}")).collect();
        gone("every byte", &every);
        gone("every byte, lower", &every.to_lowercase());
        for kept in PERCENT_KEPT {
            for plus in [false, true] {
                let encoded = String::from_utf8(percent(SECRET.as_bytes(), kept, plus)).unwrap();
                gone(kept.unwrap_or("every byte"), &encoded);
            }
        }
        // A space as `+` (forms) or `%20`.
        let spaced = "open sesame 123";
        assert_eq!(scrub(&[spaced], "q=open+sesame+123&x"), "q=[redacted]&x");
        assert_eq!(
            scrub(&[spaced], "q=open%20sesame%20123&x"),
            "q=[redacted]&x"
        );
    }

    #[test]
    fn json_escapes() {
        gone("standard", &json(SECRET, false, false, false));
        gone("slash", &json(SECRET, true, false, false));
        gone("html-safe", &json(SECRET, false, true, false));
        gone("ascii", &json(SECRET, true, true, true));
        gone("every character", &json_all(SECRET));
        gone(
            "every character, upper",
            &json_all(SECRET).to_uppercase().replace("\\U", "\\u"),
        );
        // What serde_json writes, read back by a JSON parser, is the secret.
        let written = serde_json::to_string(SECRET).unwrap();
        assert_eq!(scrub(&[SECRET], &written), "\"[redacted]\"");
        assert!(json_all("😀").eq_ignore_ascii_case("\\ud83d\\ude00"));
    }

    #[test]
    fn html_references() {
        gone("decimal", &html_numeric(SECRET, false));
        gone("hex", &html_numeric(SECRET, true));
        gone("hex, upper", &html_numeric(SECRET, true).to_uppercase());
        for quote in ["&quot;", "&#34;", "&#x22;"] {
            for apos in ["&#39;", "&#x27;", "&apos;"] {
                gone("named", &html_special(SECRET, quote, apos));
            }
        }
    }

    #[test]
    fn responses_and_denials_are_scrubbed_everywhere() {
        let scrubber = Scrubber::new(["Bearer tok-123456"]);
        let mut response = HttpResponse {
            status: 200,
            status_text: "OK tok-123456".into(),
            headers: vec![
                ("x-echo".into(), "dG9rLTEyMzQ1Ng==".into()),
                ("x-746f6b2d313233343536".into(), "v".into()),
                ("x-dg9rlteymzq1ng".into(), "w".into()),
            ],
            url: "http://a.test/?t=746f6b2d313233343536".into(),
            redirected: true,
            body: format!("<p>{}</p>", html_numeric("tok-123456", false)).into_bytes(),
        };
        scrubber.response(&mut response);
        assert_eq!(response.status_text, "OK [redacted]");
        assert_eq!(response.headers[0], ("x-echo".into(), "[redacted]".into()));
        assert_eq!(response.headers[1], (REDACTED_HEADER.into(), "v".into()));
        assert_eq!(response.headers[2], (REDACTED_HEADER.into(), "w".into()));
        assert_eq!(response.url, "http://a.test/?t=[redacted]");
        assert_eq!(response.body, b"<p>[redacted]</p>");
        let denial = scrubber.denial(Denial::new(
            crate::Code::NetRedirect,
            "a redirect to http://a.test/?t=tok%2D123456 was refused",
        ));
        assert_eq!(
            denial.message,
            "a redirect to http://a.test/?t=[redacted] was refused"
        );
    }

    #[test]
    fn the_size_before_scrubbing_is_bounded() {
        assert_eq!(least_len_before_scrubbing(b"short"), 5);
        assert_eq!(least_len_before_scrubbing(b"a [redacted] b"), 5);
        assert_eq!(least_len_before_scrubbing(b"[redacted][redacted]"), 2);
    }

    #[test]
    fn binary_bodies_stay_bytes() {
        let scrubber = Scrubber::new(["s3cret-value"]);
        let mut body = vec![0xff, 0x00, 0xfe];
        body.extend_from_slice(b"s3cret-value");
        body.push(0x80);
        assert_eq!(
            scrubber.bytes(&body).as_ref(),
            [&[0xff, 0x00, 0xfe][..], b"[redacted]", &[0x80]].concat()
        );
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // A native test: `Instant` works here.
    fn a_large_body_is_scanned_in_one_pass() {
        let scrubber = Scrubber::new([SECRET, "Bearer another-secret-0123456789"]);
        let mut body = "lorem ipsum %41 &amp; \\u0041 dolor sit amet "
            .repeat(25_000)
            .into_bytes();
        body.extend_from_slice(SECRET.as_bytes());
        let started = std::time::Instant::now();
        let scrubbed = scrubber.bytes(&body);
        assert!(scrubbed.ends_with(b"[redacted]"));
        assert_eq!(scrubbed.len(), body.len() - SECRET.len() + REDACTED.len());
        // Only a guard against something quadratic: timings of a debug build on a
        // shared machine say little more.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{:?} for {} bytes",
            started.elapsed(),
            body.len()
        );
    }
}
