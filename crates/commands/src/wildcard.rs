//! Shell wildcards as `fnmatch` matches them without flags, for `tar --exclude`,
//! `diff -x` and `ls -I`/`--hide`: `*` and `?` match any character (a `/` or a leading
//! `.` too), `[...]` a set (`!` or `^` negates it), `\` quotes the next character, and a
//! `[` that never closes is itself. The matching is the `glob` crate's; ours is only the
//! translation of fnmatch's notation into its own.

use glob::{MatchOptions, Pattern};

const OPTIONS: MatchOptions = MatchOptions {
    case_sensitive: true,
    require_literal_separator: false,
    require_literal_leading_dot: false,
};

/// Whether `pattern` matches all of `text`.
pub(crate) fn matches(pattern: &str, text: &str) -> bool {
    match Pattern::new(&translate(pattern)) {
        Ok(compiled) => compiled.matches_with(text, OPTIONS),
        Err(_) => pattern == text,
    }
}

/// Whether `text` has characters that make it a pattern.
pub(crate) fn has_wildcards(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// `pattern` in the glob crate's notation: `\x` and a lone `[` or `]` become sets of
/// one character, and `[^...]` becomes `[!...]`.
fn translate(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                out.push_str(&literal(chars[i + 1]));
                i += 2;
            }
            '[' => match set_end(&chars, i) {
                Some(end) => {
                    out.push('[');
                    let mut body = i + 1;
                    if matches!(chars[body], '!' | '^') {
                        out.push('!');
                        body += 1;
                    }
                    out.extend(&chars[body..end]);
                    out.push(']');
                    i = end + 1;
                }
                None => {
                    out.push_str("[[]");
                    i += 1;
                }
            },
            ']' => {
                out.push_str("[]]");
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// One character matched as itself.
fn literal(c: char) -> String {
    if matches!(c, '*' | '?' | '[' | ']') {
        format!("[{c}]")
    } else {
        c.to_string()
    }
}

/// Where the set opened at `chars[open]` closes: a `]` right after `[`, `[!` or `[^` is
/// a member, not the end.
fn set_end(chars: &[char], open: usize) -> Option<usize> {
    let mut at = open + 1;
    if matches!(chars.get(at), Some('!' | '^')) {
        at += 1;
    }
    if chars.get(at) == Some(&']') {
        at += 1;
    }
    chars[at.min(chars.len())..]
        .iter()
        .position(|&c| c == ']')
        .map(|offset| at + offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnmatch_without_flags() {
        for (pattern, text, want) in [
            ("*.txt", "a.txt", true),
            ("*.txt", "a.log", false),
            ("d/s*", "d/sub/y", true),
            ("*", ".hidden", true),
            ("[ab]?", "bz", true),
            ("[!ab]?", "bz", false),
            ("[^ab]?", "cz", true),
            ("[a-c]x", "bx", true),
            ("[]]", "]", true),
            ("[!]]", "a", true),
            ("a[", "a[", true),
            ("a[b", "a[b", true),
            ("x]", "x]", true),
            ("\\*", "*", true),
            ("\\*", "a", false),
            ("a\\b", "ab", true),
            ("y", "y", true),
            ("", "", true),
            ("", "a", false),
        ] {
            assert_eq!(matches(pattern, text), want, "{pattern:?} {text:?}");
        }
    }
}
