//! The lines around hunks: hunk headers and their ranges, normal-diff commands, git's
//! `diff --git` and extended header lines, and the file names headers give (C-quoted,
//! with timestamps, `-p` stripped, `/dev/null`).

use crate::text::patch::{GitHeader, Hunk, text};

/// A range of lines: where it starts and how many.
pub(super) type Span = (usize, usize);

/// `@@ -a,b +c,d @@ suffix` as ((a, b), (c, d), suffix).
pub(super) fn parse_unified_header(line: &str) -> Option<(Span, Span, String)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, suffix) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    Some((parse_range(old)?, parse_range(new)?, suffix.to_owned()))
}

/// A line number or count in a hunk header. Absurd ones are cut down (no file has
/// that many lines) so that the arithmetic on them cannot overflow.
pub(super) fn line_number(text: &str) -> Option<usize> {
    const MAX: usize = 1 << 30;
    crate::options::count(text).map(|n| n.min(MAX))
}

/// `a,b` (or `a`, one line) as (a, b).
pub(super) fn parse_range(text: &str) -> Option<(usize, usize)> {
    match text.split_once(',') {
        Some((start, len)) => Some((line_number(start)?, line_number(len)?)),
        None => Some((line_number(text)?, 1)),
    }
}

/// `*** a,b ****` as (first, count); `*** 0 ****` is empty.
pub(super) fn parse_context_range(
    line: &str,
    prefix: &str,
    suffix: &str,
) -> Option<(usize, usize)> {
    let range = line.strip_prefix(prefix)?.trim_end().strip_suffix(suffix)?;
    let (first, last) = match range.split_once(',') {
        Some((a, b)) => (line_number(a)?, line_number(b)?),
        None => {
            let n = line_number(range)?;
            (n, n)
        }
    };
    if first == 0 || last < first {
        // An empty range names the line before it.
        return Some((first.max(last) + 1, 0));
    }
    Some((first, last - first + 1))
}

/// A normal diff's command line (`2c2`, `3a4,5`, `1,2d0`) as an empty hunk.
pub(super) fn normal_command(line: &[u8]) -> Option<Hunk> {
    let line = text(line);
    let at = line.find(['a', 'c', 'd'])?;
    let (old, rest) = line.split_at(at);
    let (letter, new) = rest.split_at(1);
    let old = parse_normal_range(old)?;
    let new = parse_normal_range(new)?;
    let (old_len, new_len) = match letter {
        "a" => (0, new.1 - new.0 + 1),
        "d" => (old.1 - old.0 + 1, 0),
        _ => (old.1 - old.0 + 1, new.1 - new.0 + 1),
    };
    Some(Hunk {
        old_first: if old_len == 0 { old.0 + 1 } else { old.0 },
        old_len,
        new_first: if new_len == 0 { new.0 + 1 } else { new.0 },
        new_len,
        suffix: String::new(),
        lines: Vec::new(),
    })
}

pub(super) fn parse_normal_range(text: &str) -> Option<(usize, usize)> {
    let (first, last) = match text.split_once(',') {
        Some((a, b)) => (line_number(a)?, line_number(b)?),
        None => (line_number(text)?, line_number(text)?),
    };
    (last >= first).then_some((first, last))
}

/// `a/x b/y` of a `diff --git` line.
pub(super) fn parse_git_line(names: &str) -> GitHeader {
    let (old, new) = if names.starts_with('"') {
        let (old, rest) = unquote_c(names);
        (old, unquote_c(rest.trim_start()).0)
    } else {
        // Without quotes the two names are the same length when nothing was renamed.
        match names.split_once(" b/") {
            Some((old, new)) => (old.to_owned(), format!("b/{new}")),
            None => match names.split_once(' ') {
                Some((old, new)) => (old.to_owned(), new.to_owned()),
                None => (names.to_owned(), names.to_owned()),
            },
        }
    };
    GitHeader {
        old,
        new,
        ..GitHeader::default()
    }
}

/// Records a git extended header line; false if `line` is not one.
pub(super) fn git_extended_line(git: &mut GitHeader, line: &str) -> bool {
    let value = |prefix: &str| line.strip_prefix(prefix).map(str::to_owned);
    let mode = |text: &str| u32::from_str_radix(text.trim(), 8).ok();
    if let Some(m) = value("new file mode ") {
        git.new_file = true;
        git.new_mode = mode(&m);
    } else if let Some(m) = value("deleted file mode ").or_else(|| value("old mode ")) {
        git.deleted |= line.starts_with("deleted");
        git.old_mode = mode(&m);
    } else if let Some(m) = value("new mode ") {
        git.new_mode = mode(&m);
    } else if let Some(name) = value("rename from ").or_else(|| value("copy from ")) {
        git.rename |= line.starts_with("rename");
        git.copy |= line.starts_with("copy");
        git.old = format!("a/{}", unquote_c(&name).0);
    } else if let Some(name) = value("rename to ").or_else(|| value("copy to ")) {
        git.new = format!("b/{}", unquote_c(&name).0);
    } else if line.starts_with("GIT binary patch") || line.starts_with("Binary files ") {
        git.binary = true;
    } else {
        return ["similarity index ", "dissimilarity index ", "index "]
            .iter()
            .any(|p| line.starts_with(p));
    }
    true
}

/// A C-quoted name (`"a\tb"`) and what follows it; a name without quotes as is.
pub(super) fn unquote_c(text: &str) -> (String, &str) {
    let Some(body) = text.strip_prefix('"') else {
        return (text.to_owned(), "");
    };
    let mut out = Vec::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return (String::from_utf8_lossy(&out).into_owned(), &body[at + 1..]),
            '\\' => {
                let Some((_, escaped)) = chars.next() else {
                    break;
                };
                match escaped {
                    'n' => out.push(b'\n'),
                    't' => out.push(b'\t'),
                    '0'..='7' => {
                        let mut value = escaped.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            let next = chars.clone().next().and_then(|(_, d)| d.to_digit(8));
                            if let Some(d) = next {
                                value = value * 8 + d;
                                chars.next();
                            }
                        }
                        out.push(u8::try_from(value & 0xff).unwrap_or(0));
                    }
                    other => out.extend_from_slice(other.to_string().as_bytes()),
                }
            }
            c => out.extend_from_slice(c.to_string().as_bytes()),
        }
    }
    (String::from_utf8_lossy(&out).into_owned(), "")
}

/// The name on a `---` line and what follows it (a tab and a time).
pub(super) fn split_header_name(rest: &str) -> (String, String) {
    if rest.starts_with('"') {
        let (name, after) = unquote_c(rest);
        return (name, after.to_owned());
    }
    if let Some(tab) = rest.find('\t') {
        return (rest[..tab].to_owned(), rest[tab..].to_owned());
    }
    // Without a tab, a time after spaces (`name  2024-01-01 ...`) is cut off too.
    let bytes = rest.as_bytes();
    for (at, _) in rest.match_indices(' ') {
        let after = rest[at..].trim_start();
        let date = after.as_bytes();
        if date.len() >= 10
            && date[..4].iter().all(u8::is_ascii_digit)
            && date[4] == b'-'
            && date[7] == b'-'
            && at > 0
            && bytes[at - 1] != b' '
        {
            return (rest[..at].to_owned(), rest[at..].to_owned());
        }
    }
    (rest.trim_end().to_owned(), String::new())
}

/// `name` without its first `strip` components; all of its directories when no `-p`
/// was given. `None` when it has fewer components than that.
pub(super) fn strip_name(name: &str, strip: Option<usize>) -> Option<String> {
    let Some(strip) = strip else {
        return name.rsplit('/').next().map(str::to_owned);
    };
    let mut rest = name;
    for _ in 0..strip {
        let slash = rest.find('/')?;
        rest = rest[slash + 1..].trim_start_matches('/');
    }
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// Whether a header's time is the epoch in UTC (`1970-01-01 00:00:00.000000000 +0000`).
pub(super) fn is_epoch(rest: &str) -> bool {
    let Some(after) = rest.trim_start().strip_prefix("1970-01-01 00:00:00") else {
        return false;
    };
    let after = after
        .strip_prefix('.')
        .map_or(after, |f| f.trim_start_matches('0'));
    matches!(after.trim(), "" | "+0000" | "-0000")
}

pub(super) fn is_dev_null(name: &Option<String>) -> bool {
    name.as_deref() == Some("/dev/null")
}

/// GNU's pick among existing candidates: fewest components, then shortest base name,
/// then shortest name, then the first.
pub(super) fn best_name(names: &[String]) -> Option<&String> {
    names.iter().min_by_key(|name| {
        let components = name.split('/').filter(|c| !c.is_empty()).count();
        let base = name.rsplit('/').next().map_or(0, str::len);
        (components, base, name.len())
    })
}
