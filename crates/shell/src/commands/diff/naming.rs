//! How diff names things in its output: file times as GNU prints them, C-style
//! quoting of file names, the locale's UTF-8 choice, binary detection and the glob
//! patterns of `-x`.

use super::*;

pub(super) fn system_time(time: bashkit::time::SystemTime) -> Timestamp {
    let since = time
        .duration_since(bashkit::time::UNIX_EPOCH)
        .unwrap_or_default();
    Timestamp(u64::try_from(since.as_nanos()).unwrap_or(u64::MAX))
}

/// `2024-01-01 00:00:00.000000000 +0000`, as GNU diff dates its headers (in UTC).
pub(super) fn format_time(time: Timestamp) -> String {
    let secs = time.0 / 1_000_000_000;
    let nanos = time.0 % 1_000_000_000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{nanos:09} +0000",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// `Tue Dec  1 18:59:31 2026`, as GNU diff dates context-format headers (in UTC).
pub(super) fn format_ctime(time: Timestamp) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = time.0 / 1_000_000_000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    // 1970-01-01 was a Thursday.
    let weekday = DAYS[(days + 4).rem_euclid(7) as usize];
    let month = MONTHS[(month - 1).clamp(0, 11) as usize];
    format!(
        "{weekday} {month} {day:>2} {:02}:{:02}:{:02} {year}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
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

/// The calendar date `days` after 1970-01-01 (Howard Hinnant's algorithm).
pub(super) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Whether GNU diff would take `data` for binary: a NUL byte near the start.
pub(super) fn is_binary(data: &[u8]) -> bool {
    const SNIFF: usize = 128 * 1024;
    data[..data.len().min(SNIFF)].contains(&0)
}

/// A shell glob (`*`, `?`, `[...]`) matched against a whole file name.
pub(super) fn glob_match(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    glob_from(&pattern, &name)
}

pub(super) fn glob_from(pattern: &[char], name: &[char]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|skip| glob_from(rest, &name[skip..])),
        Some(('?', rest)) => !name.is_empty() && glob_from(rest, &name[1..]),
        Some(('[', rest)) => match (name.split_first(), bracket(rest)) {
            (Some((c, name_rest)), Some((matches, after))) => {
                matches(*c) && glob_from(after, name_rest)
            }
            (Some((c, name_rest)), None) => *c == '[' && glob_from(rest, name_rest),
            (None, _) => false,
        },
        Some(('\\', [escaped, rest @ ..])) => {
            name.first() == Some(escaped) && glob_from(rest, &name[1..])
        }
        Some((c, rest)) => name.first() == Some(c) && glob_from(rest, &name[1..]),
    }
}

/// A bracket expression after its `[`: what it matches, and the pattern after its `]`.
pub(super) fn bracket(pattern: &[char]) -> Option<(impl Fn(char) -> bool, &[char])> {
    let (negate, body) = match pattern.first() {
        Some('!' | '^') => (true, &pattern[1..]),
        _ => (false, pattern),
    };
    // A `]` first in the set is a member, not the end.
    let end = body.iter().skip(1).position(|&c| c == ']')? + 1;
    let set: Vec<char> = body[..end].to_vec();
    let matches = move |c: char| {
        let mut found = false;
        let mut i = 0;
        while i < set.len() {
            if i + 2 < set.len() && set[i + 1] == '-' {
                found |= set[i] <= c && c <= set[i + 2];
                i += 3;
            } else {
                found |= set[i] == c;
                i += 1;
            }
        }
        found != negate
    };
    Some((matches, &body[end + 1..]))
}
