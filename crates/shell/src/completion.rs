//! Tab completion for a terminal's line, as bash completes by default: in a command's
//! place, the names of builtins, sandtab's commands, installed programs, functions,
//! aliases, keywords and executables on `PATH`; after `$`, variable names; elsewhere,
//! paths from the session's directory (directories end with `/`).

use crate::Shell;
use sandtab_vfs::{FileKind, VfsPath};
use std::collections::BTreeSet;

/// What may complete the word before the cursor.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    /// The word being completed, as typed (the candidates replace it).
    pub word: String,
    /// What may take its place, sorted; a directory ends with `/`.
    pub candidates: Vec<String>,
}

/// Reserved words a command may start with.
const KEYWORDS: &[&str] = &[
    "case", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in", "select",
    "then", "time", "until", "while",
];

/// Words after which the next word is a command again.
const COMMAND_BEFORE: &[&str] = &[
    "then", "do", "else", "elif", "if", "while", "until", "time", "!", "{", "exec", "command",
    "sudo", "xargs",
];

/// Where the word before the cursor starts: after the last unescaped blank or operator.
fn word_start(before: &str) -> usize {
    let bytes = before.as_bytes();
    let mut start = 0;
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\\' => i += 1,
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b.is_ascii_whitespace() || b"|&;()<>".contains(&b) => start = i + 1,
            None => {}
        }
        i += 1;
    }
    start.min(before.len())
}

/// Whether a word starting after `head` stands where a command does.
fn in_command_place(head: &str) -> bool {
    let head = head.trim_end();
    if head.is_empty() || head.ends_with(['|', '&', ';', '(', '`', '{']) || head.ends_with("$(") {
        return true;
    }
    let last = head
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("");
    COMMAND_BEFORE.contains(&last)
}

/// The word's text as the shell would read it: backslashes and quotes taken out.
fn unquote(word: &str) -> String {
    let mut out = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '\'' | '"' => {}
            c => out.push(c),
        }
    }
    out
}

/// A name as typed back into the line: blanks and shell characters escaped.
fn quote(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_whitespace() || "|&;()<>'\"\\$`*?[]#~!{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Shell {
    /// What may complete `before` (the line up to the cursor).
    pub fn complete(&self, before: &str) -> Completion {
        let start = word_start(before);
        let word = before[start..].to_owned();
        let state = self.bash.shell_state_view();
        let candidates: BTreeSet<String> = if let Some(name) = word.strip_prefix("${") {
            variables(&state, name)
                .map(|v| format!("${{{v}}}"))
                .collect()
        } else if let Some(name) = word.strip_prefix('$') {
            variables(&state, name).map(|v| format!("${v}")).collect()
        } else if in_command_place(&before[..start]) && !word.contains('/') {
            self.commands(&state, &word)
        } else {
            let executables_only = in_command_place(&before[..start]);
            self.paths(&state, &word, executables_only)
        };
        Completion {
            word,
            candidates: candidates.into_iter().collect(),
        }
    }

    /// Command names starting with `prefix`.
    fn commands(&self, state: &bashkit::ShellStateView, prefix: &str) -> BTreeSet<String> {
        let mut names: BTreeSet<String> = self.bash.builtin_names().into_iter().collect();
        names.extend(KEYWORDS.iter().map(|k| (*k).to_owned()));
        names.extend(state.aliases.keys().cloned());
        names.extend(self.bash.shell_state().functions.keys().cloned());
        let path = state
            .env
            .get("PATH")
            .or_else(|| state.variables.get("PATH"));
        for dir in path.map(String::as_str).unwrap_or("").split(':') {
            let Ok(dir) = VfsPath::parse(dir) else {
                continue;
            };
            let Ok(entries) = self.fs.mem().read_dir(&dir) else {
                continue;
            };
            names.extend(
                entries
                    .into_iter()
                    .filter(|e| {
                        e.metadata.kind != FileKind::Directory && e.metadata.mode & 0o111 != 0
                    })
                    .map(|e| e.name),
            );
        }
        names.retain(|name| name.starts_with(prefix) && !name.starts_with('_'));
        names
    }

    /// Paths completing `word` (relative to the session's directory, `~` for home).
    fn paths(
        &self,
        state: &bashkit::ShellStateView,
        word: &str,
        executables_only: bool,
    ) -> BTreeSet<String> {
        let (dir_part, prefix) = match word.rfind('/') {
            Some(slash) => word.split_at(slash + 1),
            None => ("", word),
        };
        let prefix = unquote(prefix);
        let dir_text = unquote(dir_part);
        let home = state
            .env
            .get("HOME")
            .cloned()
            .unwrap_or_else(|| crate::HOME.to_owned());
        let dir_text = match dir_text.strip_prefix('~') {
            Some(rest) => format!("{home}{rest}"),
            None => dir_text,
        };
        let cwd = VfsPath::parse(&state.cwd.to_string_lossy()).unwrap_or_else(|_| VfsPath::root());
        let Ok(dir) = cwd.join(if dir_text.is_empty() { "." } else { &dir_text }) else {
            return BTreeSet::new();
        };
        let Ok(entries) = self.fs.mem().read_dir(&dir) else {
            return BTreeSet::new();
        };
        entries
            .into_iter()
            .filter(|e| {
                e.name.starts_with(&prefix) && (prefix.starts_with('.') || !e.name.starts_with('.'))
            })
            .filter_map(|e| {
                // A symlink counts as what it points to.
                let kind = match e.metadata.kind {
                    FileKind::Symlink => dir
                        .join(&e.name)
                        .ok()
                        .and_then(|p| self.fs.mem().stat(&p).ok())
                        .map(|m| (m.kind, m.mode)),
                    kind => Some((kind, e.metadata.mode)),
                };
                let (kind, mode) = kind.unwrap_or((FileKind::File, 0));
                match kind {
                    FileKind::Directory => Some(format!("{dir_part}{}/", quote(&e.name))),
                    _ if executables_only && mode & 0o111 == 0 => None,
                    _ => Some(format!("{dir_part}{}", quote(&e.name))),
                }
            })
            .collect()
    }
}

/// Variable names starting with `prefix`.
fn variables<'a>(
    state: &'a bashkit::ShellStateView,
    prefix: &'a str,
) -> impl Iterator<Item = String> + 'a {
    let names: BTreeSet<&String> = state
        .env
        .keys()
        .chain(state.variables.keys())
        .chain(state.arrays.keys())
        .chain(state.assoc_arrays.keys())
        .collect();
    names
        .into_iter()
        .filter(move |name| name.starts_with(prefix) && !name.starts_with('_'))
        .cloned()
}

/// Whether `script` is a whole command: false while more lines could complete it (an
/// open quote, a compound command without its closing word, a line
/// ending in `|`, `&&` or `\`), as bash shows its `> ` prompt for.
pub fn is_complete(script: &str) -> bool {
    // bashkit's parser ends a list at the end of its input: bash reads on.
    let end = script.trim_end_matches([' ', '\t']);
    if end.ends_with("&&") || end.ends_with("||") || (end.ends_with('\\') && !end.ends_with("\\\\"))
    {
        return false;
    }
    let Err(err) = bashkit::parser::Parser::new(script).parse() else {
        return true;
    };
    let message = err.to_string().to_lowercase();
    const GOES_ON: &[&str] = &[
        "unterminated",
        "unexpected end of input",
        "unexpected eof",
        "unexpected end of file",
        "syntax error: empty",
        "expected 'fi'",
        "expected 'done'",
        "expected 'esac'",
        "expected '}'",
        "expected ')'",
    ];
    !GOES_ON.iter().any(|sign| message.contains(sign))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_starts_after_blanks_and_operators_not_escaped_ones() {
        assert_eq!(word_start("ls -l fo"), 6);
        assert_eq!(word_start("cat a|gr"), 6);
        assert_eq!(word_start("cat my\\ fi"), 4);
        assert_eq!(word_start("echo 'a b"), 5);
        assert_eq!(word_start(""), 0);
    }

    #[test]
    fn commands_stand_first_and_after_operators_and_keywords() {
        assert!(in_command_place(""));
        assert!(in_command_place("ls | "));
        assert!(in_command_place("true && "));
        assert!(in_command_place("if true; then "));
        assert!(!in_command_place("ls "));
        assert!(!in_command_place("echo then x "));
    }

    #[test]
    fn a_command_that_goes_on_is_not_complete() {
        assert!(is_complete("echo hi"));
        assert!(is_complete("for x in a b; do echo $x; done"));
        assert!(is_complete("echo 'a\nb'"));
        assert!(is_complete(""));
        // A mistake more lines cannot fix runs, and says so.
        assert!(is_complete("echo )"));
        for goes_on in [
            "for x in a b",
            "for x in a b\ndo",
            "if true; then",
            "echo 'open",
            "echo \"open",
            "f() {",
            "ls |",
            "true &&",
            "case x in",
            "(echo",
            "while true; do echo",
            "echo a \\",
        ] {
            assert!(!is_complete(goes_on), "{goes_on:?} should go on");
        }
    }

    #[test]
    fn names_are_quoted_as_typed_back() {
        assert_eq!(quote("my file (1).txt"), "my\\ file\\ \\(1\\).txt");
        assert_eq!(unquote("my\\ fi"), "my fi");
    }
}
