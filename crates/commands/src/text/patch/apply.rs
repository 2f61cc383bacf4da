//! Putting a located hunk into a file: line endings (CRLF patches and files), the
//! copy of the hunk's new lines, and the messages GNU prints for each hunk.

use crate::text::patch::{Hunk, HunkLine, lines_of};

/// Whether the patch's file headers end in CRLF (a patch saved on Windows).
pub(super) fn crlf_headers(data: &[u8]) -> bool {
    lines_of(data)
        .iter()
        .find(|line| line.starts_with(b"--- ") || line.starts_with(b"*** "))
        .is_some_and(|line| line.ends_with(b"\r\n"))
}

/// `data` with the CR of every CRLF taken out.
pub(super) fn strip_crs(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    for line in lines_of(data) {
        match line.strip_suffix(b"\r\n") {
            Some(text) => {
                out.extend_from_slice(text);
                out.push(b'\n');
            }
            None => out.extend_from_slice(line),
        }
    }
    out
}

/// Whether the file's line where a hunk failed ends in CRLF
/// and the hunk's first line does not, or the other way round.
pub(super) fn endings_differ(file: &[&[u8]], hunk: &Hunk, line: isize) -> bool {
    let crlf = |text: &[u8]| text.ends_with(b"\r\n");
    // GNU looks at the hunk's first old line; a hunk without one shows its separator.
    let first = hunk
        .lines
        .iter()
        .find(|l| l.in_old())
        .map_or(&b"---\n"[..], HunkLine::text);
    if first.is_empty() {
        return false;
    }
    let at = usize::try_from(line)
        .unwrap_or(1)
        .clamp(1, file.len().max(1));
    file.get(at - 1)
        .is_some_and(|input| !input.is_empty() && crlf(input) != crlf(first))
}

/// Applies `hunk` at line `at` (1-based) of `file`: input
/// lines are copied up to each deletion or insertion, so the hunk's context comes from
/// the file and its trailing context stays free for the next hunk. `copied` input lines
/// are in `out` already; returns how many are now.
pub(super) fn apply_at(
    file: &[&[u8]],
    hunk: &Hunk,
    at: usize,
    mut copied: usize,
    out: &mut Vec<u8>,
) -> usize {
    let copy_till = |end: usize, copied: &mut usize, out: &mut Vec<u8>| {
        while *copied < end.min(file.len()) {
            out.extend_from_slice(file[*copied]);
            *copied += 1;
        }
    };
    let mut old_line = at.saturating_sub(1);
    for line in &hunk.lines {
        match line {
            HunkLine::Context(_) => old_line += 1,
            HunkLine::Delete(_) => {
                copy_till(old_line, &mut copied, out);
                copied = copied.max(old_line + 1);
                old_line += 1;
            }
            HunkLine::Insert(text) => {
                copy_till(old_line, &mut copied, out);
                out.extend_from_slice(text);
            }
        }
    }
    copied
}

/// GNU's quote of the patch text before a file's hunks (nothing if there is none).
pub(super) fn leading_text_block(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut text = String::from("The text leading up to this was:\n--------------------------\n");
    for line in lines {
        text.push_str(&format!("|{line}\n"));
    }
    text.push_str("--------------------------\n");
    text
}

pub(super) fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// `Hunk #2 succeeded at 10 with fuzz 1 (offset 3 lines).`
pub(super) fn success_message(number: usize, line: isize, fuzz: usize, offset: isize) -> String {
    let mut text = format!("Hunk #{number} succeeded at {line}");
    if fuzz > 0 {
        text.push_str(&format!(" with fuzz {fuzz}"));
    }
    if offset != 0 {
        // GNU says "-1 lines".
        let lines = if offset == 1 { "line" } else { "lines" };
        text.push_str(&format!(" (offset {offset} {lines})"));
    }
    text.push_str(".\n");
    text
}
