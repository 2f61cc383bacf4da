//! How diff names things in its output: file times as GNU prints them, C-style
//! quoting of file names, the locale's UTF-8 choice, binary detection and the glob
//! patterns of `-x`.

use crate::calendar;
use sandtab_vfs::Timestamp;
use std::collections::HashMap;

/// `2024-01-01 00:00:00.000000000 +0000`, as GNU diff dates its headers (in UTC).
pub(super) fn format_time(time: Timestamp) -> String {
    calendar::format("%Y-%m-%d %H:%M:%S.%N %z", time.into())
}

/// `Tue Dec  1 18:59:31 2026`, as GNU diff dates context-format headers (in UTC).
pub(super) fn format_ctime(time: Timestamp) -> String {
    calendar::format("%a %b %e %H:%M:%S %Y", time.into())
}

/// A file name as GNU diff writes it in headers: in C quotes with escapes when it has
/// white space, quotes, backslashes, control bytes or (unless the locale is UTF-8)
/// non-ASCII bytes; as is otherwise.
pub(super) fn c_quote(name: &str, utf8: bool) -> String {
    let plain = |c: char| {
        (c.is_ascii_graphic() && c != '"' && c != '\\')
            || (utf8 && !c.is_ascii() && !c.is_control())
    };
    if name.chars().all(plain) {
        return name.to_owned();
    }
    let mut out = String::from("\"");
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            c if plain(c) => out.push(c),
            c => {
                let mut bytes = [0; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// Whether the locale of `category` (`LC_TIME`, `LC_CTYPE`) is other than C/POSIX,
/// by the usual precedence of `LC_ALL`, the category, and `LANG`.
pub(super) fn hard_locale(env: &HashMap<String, String>, category: &str) -> bool {
    let locale = ["LC_ALL", category, "LANG"]
        .iter()
        .filter_map(|name| env.get(*name))
        .find(|value| !value.is_empty());
    locale.is_some_and(|l| l != "C" && l != "POSIX")
}

/// Whether `LC_CTYPE`'s locale is a UTF-8 one.
pub(super) fn utf8_locale(env: &HashMap<String, String>) -> bool {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|name| env.get(*name))
        .find(|value| !value.is_empty());
    locale.is_some_and(|l| {
        let l = l.to_ascii_lowercase();
        l.contains("utf-8") || l.contains("utf8")
    })
}

/// Whether GNU diff would take `data` for binary: a NUL byte near the start.
pub(super) fn is_binary(data: &[u8]) -> bool {
    const SNIFF: usize = 128 * 1024;
    data[..data.len().min(SNIFF)].contains(&0)
}

/// A shell glob (`*`, `?`, `[...]`) matched against a whole file name.
pub(super) fn glob_match(pattern: &str, name: &str) -> bool {
    crate::wildcard::matches(pattern, name)
}
