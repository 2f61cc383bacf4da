//! Rejected hunks, written to `FILE.rej` in the patch's own format.

use crate::text::patch::{FilePatch, Hunk, HunkLine};

/// A unified range as GNU writes one in a `.rej` (`start-1,0` when empty).
pub(super) fn reject_range(first: isize, count: usize) -> String {
    match count {
        0 => format!("{},0", first - 1),
        1 => first.to_string(),
        _ => format!("{first},{count}"),
    }
}

/// How a `.rej` file is written: in the form of the patch (GNU writes a normal diff's
/// rejects as an old-style context diff).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum RejectStyle {
    Unified,
    Context,
    Normal,
}

impl FilePatch {
    pub(super) fn reject_style(&self) -> RejectStyle {
        match self.kind {
            "new-style context" => RejectStyle::Context,
            "normal" => RejectStyle::Normal,
            _ => RejectStyle::Unified,
        }
    }
}

/// A rejected hunk, numbered as if the earlier hunks had applied.
pub(super) fn reject_hunk(hunk: &Hunk, out_offset: isize, style: RejectStyle) -> Vec<u8> {
    let old_first = hunk.old_first as isize + out_offset;
    let new_first = hunk.new_first as isize + out_offset;
    if style != RejectStyle::Unified {
        return context_reject(hunk, old_first, new_first, style == RejectStyle::Normal);
    }
    let mut text = format!(
        "@@ -{} +{} @@{}\n",
        reject_range(old_first, hunk.old_len),
        reject_range(new_first, hunk.new_len),
        hunk.suffix
    )
    .into_bytes();
    for line in &hunk.lines {
        let mark = match line {
            HunkLine::Context(_) => b' ',
            HunkLine::Delete(_) => b'-',
            HunkLine::Insert(_) => b'+',
        };
        put_reject_line(&mut text, &[mark], line.text());
    }
    text
}

/// A line of a `.rej`, with GNU's marker when it has no newline.
pub(super) fn put_reject_line(text: &mut Vec<u8>, mark: &[u8], body: &[u8]) {
    text.extend_from_slice(mark);
    text.extend_from_slice(body);
    if !body.ends_with(b"\n") {
        text.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

/// A rejected hunk in context form: each side in full, a
/// changed line marked `!` (`-`/`+` in an old-style one, from a normal diff).
pub(super) fn context_reject(
    hunk: &Hunk,
    old_first: isize,
    new_first: isize,
    old_style: bool,
) -> Vec<u8> {
    let (stars, minuses) = if old_style {
        ("", " -----")
    } else {
        (" ****", " ----")
    };
    let range = |first: isize, len: usize| {
        let last = first + len as isize - 1;
        match last.cmp(&first) {
            std::cmp::Ordering::Less => "0".to_owned(),
            std::cmp::Ordering::Equal => first.to_string(),
            std::cmp::Ordering::Greater => format!("{first},{last}"),
        }
    };
    let mut text = format!("***************{}\n", hunk.suffix).into_bytes();
    let marks = context_marks(&hunk.lines, old_style);
    text.extend_from_slice(format!("*** {}{stars}\n", range(old_first, hunk.old_len)).as_bytes());
    for (line, mark) in hunk.lines.iter().zip(&marks).filter(|(l, _)| l.in_old()) {
        put_reject_line(&mut text, mark, line.text());
    }
    text.extend_from_slice(format!("--- {}{minuses}\n", range(new_first, hunk.new_len)).as_bytes());
    for (line, mark) in hunk.lines.iter().zip(&marks).filter(|(l, _)| l.in_new()) {
        put_reject_line(&mut text, mark, line.text());
    }
    text
}

/// Each line's mark in a context diff: `! ` for the lines of a run of changes that both
/// deletes and inserts.
pub(super) fn context_marks(lines: &[HunkLine], old_style: bool) -> Vec<&'static [u8]> {
    let mut marks = Vec::with_capacity(lines.len());
    let mut at = 0;
    while at < lines.len() {
        if let HunkLine::Context(_) = lines[at] {
            marks.push(&b"  "[..]);
            at += 1;
            continue;
        }
        let end = lines[at..]
            .iter()
            .position(|l| matches!(l, HunkLine::Context(_)))
            .map_or(lines.len(), |n| at + n);
        let run = &lines[at..end];
        let changes = !old_style
            && run.iter().any(|l| matches!(l, HunkLine::Delete(_)))
            && run.iter().any(|l| matches!(l, HunkLine::Insert(_)));
        for line in run {
            marks.push(match (changes, line) {
                (true, _) => &b"! "[..],
                (false, HunkLine::Delete(_)) => &b"- "[..],
                _ => &b"+ "[..],
            });
        }
        at = end;
    }
    marks
}
