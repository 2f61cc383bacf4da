//! How `diff` writes its changes: normal, unified, context, ed, RCS and side-by-side
//! output.

use crate::text::diff::{Change, Options, content, is_space};
use std::borrow::Cow;
use std::ops::Range;

#[derive(Clone, Copy)]
pub(super) struct Texts<'t> {
    pub(super) old: &'t [&'t [u8]],
    pub(super) new: &'t [&'t [u8]],
}

/// Writes changes in the chosen format.
pub(super) struct Printer<'p> {
    pub(super) opts: &'p Options,
    pub(super) texts: Texts<'p>,
}

pub(super) const NO_NEWLINE: &[u8] = b"\\ No newline at end of file\n";

/// `line` after `prefix`, with GNU's marker if it lacks a newline.
pub(super) fn put_line(out: &mut Vec<u8>, prefix: &[u8], line: &[u8]) {
    out.extend_from_slice(prefix);
    out.extend_from_slice(line);
    if !line.ends_with(b"\n") {
        out.push(b'\n');
        out.extend_from_slice(NO_NEWLINE);
    }
}

/// A range in normal and context format: `a,b`, or the one number for a single line or
/// (the line before) an empty range.
pub(super) fn span(range: &Range<usize>) -> String {
    let (first, last) = (range.start + 1, range.end);
    if last > first {
        format!("{first},{last}")
    } else {
        last.to_string()
    }
}

/// A range in a unified hunk header: `start,count`, `start` for one line.
pub(super) fn unified_span(range: &Range<usize>) -> String {
    match range.len() {
        0 => format!("{},0", range.start),
        1 => (range.start + 1).to_string(),
        len => format!("{},{len}", range.start + 1),
    }
}

impl Printer<'_> {
    /// The prefix of a line in normal and context output (`-T` puts a tab after it).
    fn flag(&self, flag: &str) -> Vec<u8> {
        let mut prefix = flag.as_bytes().to_vec();
        if self.opts.initial_tab {
            if prefix.last() == Some(&b' ') {
                prefix.pop();
            }
            prefix.push(b'\t');
        }
        prefix
    }

    fn put(&self, out: &mut Vec<u8>, flag: &str, line: &[u8]) {
        let line = self.expand(line);
        put_line(out, &self.flag(flag), &line);
    }

    /// The line with tabs expanded to spaces under `-t`.
    fn expand<'l>(&self, line: &'l [u8]) -> Cow<'l, [u8]> {
        if !self.opts.expand_tabs || !line.contains(&b'\t') {
            return Cow::Borrowed(line);
        }
        let mut out = Vec::with_capacity(line.len() + 8);
        for &b in line {
            if b == b'\t' {
                let spaces = self.opts.tab_size - out.len() % self.opts.tab_size;
                out.resize(out.len() + spaces, b' ');
            } else {
                out.push(b);
            }
        }
        Cow::Owned(out)
    }

    pub(super) fn normal(&self, hunks: &[&[Change]], out: &mut Vec<u8>) {
        for change in hunks.iter().flat_map(|hunk| hunk.iter()) {
            let (old, new) = (&change.old, &change.new);
            let letter = match (old.is_empty(), new.is_empty()) {
                (true, _) => 'a',
                (_, true) => 'd',
                _ => 'c',
            };
            out.extend_from_slice(format!("{}{letter}{}\n", span(old), span(new)).as_bytes());
            for line in &self.texts.old[old.clone()] {
                self.put(out, "< ", line);
            }
            if letter == 'c' {
                out.extend_from_slice(b"---\n");
            }
            for line in &self.texts.new[new.clone()] {
                self.put(out, "> ", line);
            }
        }
    }

    /// The lines a hunk covers in each file, context included.
    fn hunk_ranges(&self, hunk: &[Change]) -> (Range<usize>, Range<usize>) {
        let (Some(first), Some(last)) = (hunk.first(), hunk.last()) else {
            return (0..0, 0..0);
        };
        let context = self.opts.context;
        let before = context.min(first.old.start).min(first.new.start);
        let after = context
            .min(self.texts.old.len() - last.old.end)
            .min(self.texts.new.len() - last.new.end);
        (
            first.old.start - before..last.old.end + after,
            first.new.start - before..last.new.end + after,
        )
    }

    /// ` function-line` for a hunk starting at old line `start` (`-p`, `-F`).
    fn function_line(&self, start: usize) -> String {
        let Some(re) = &self.opts.function_line else {
            return String::new();
        };
        let found = self.texts.old[..start]
            .iter()
            .rev()
            .find(|line| re.is_match(content(line)));
        let Some(line) = found else {
            return String::new();
        };
        let text = content(line);
        let mut end = text.len().min(40);
        while end > 0 && is_space(text[end - 1]) {
            end -= 1;
        }
        format!(" {}", String::from_utf8_lossy(&text[..end]))
    }

    pub(super) fn unified(
        &self,
        hunks: &[&[Change]],
        stamp_a: &str,
        stamp_b: &str,
        out: &mut Vec<u8>,
    ) {
        out.extend_from_slice(format!("--- {stamp_a}\n+++ {stamp_b}\n").as_bytes());
        for hunk in hunks {
            let (old, new) = self.hunk_ranges(hunk);
            let header = format!(
                "@@ -{} +{} @@{}\n",
                unified_span(&old),
                unified_span(&new),
                self.function_line(old.start)
            );
            out.extend_from_slice(header.as_bytes());
            let mut at = old.start;
            for change in hunk.iter() {
                for line in &self.texts.old[at..change.old.start] {
                    self.put(out, " ", line);
                }
                for line in &self.texts.old[change.old.clone()] {
                    self.put(out, "-", line);
                }
                for line in &self.texts.new[change.new.clone()] {
                    self.put(out, "+", line);
                }
                at = change.old.end;
            }
            for line in &self.texts.old[at..old.end] {
                self.put(out, " ", line);
            }
        }
    }

    pub(super) fn context(
        &self,
        hunks: &[&[Change]],
        stamp_a: &str,
        stamp_b: &str,
        out: &mut Vec<u8>,
    ) {
        out.extend_from_slice(format!("*** {stamp_a}\n--- {stamp_b}\n").as_bytes());
        for hunk in hunks {
            let (old, new) = self.hunk_ranges(hunk);
            let header = format!("***************{}\n", self.function_line(old.start));
            out.extend_from_slice(header.as_bytes());
            out.extend_from_slice(format!("*** {} ****\n", span(&old)).as_bytes());
            if hunk.iter().any(|c| !c.old.is_empty()) {
                self.context_side(hunk, &old, true, out);
            }
            out.extend_from_slice(format!("--- {} ----\n", span(&new)).as_bytes());
            if hunk.iter().any(|c| !c.new.is_empty()) {
                self.context_side(hunk, &new, false, out);
            }
        }
    }

    /// One file's half of a context hunk.
    fn context_side(
        &self,
        hunk: &[Change],
        range: &Range<usize>,
        old_side: bool,
        out: &mut Vec<u8>,
    ) {
        let lines = if old_side {
            self.texts.old
        } else {
            self.texts.new
        };
        let mut at = range.start;
        for change in hunk {
            let (mine, theirs) = if old_side {
                (&change.old, &change.new)
            } else {
                (&change.new, &change.old)
            };
            for line in &lines[at..mine.start] {
                self.put(out, "  ", line);
            }
            let flag = match (theirs.is_empty(), old_side) {
                (false, _) => "! ",
                (true, true) => "- ",
                (true, false) => "+ ",
            };
            for line in &lines[mine.clone()] {
                self.put(out, flag, line);
            }
            at = mine.end;
        }
        for line in &lines[at..range.end] {
            self.put(out, "  ", line);
        }
    }

    pub(super) fn ed(&self, hunks: &[&[Change]], out: &mut Vec<u8>) {
        let changes: Vec<&Change> = hunks.iter().flat_map(|hunk| hunk.iter()).collect();
        for change in changes.into_iter().rev() {
            let (old, new) = (&change.old, &change.new);
            let command = match (old.is_empty(), new.is_empty()) {
                (true, _) => format!("{}a\n", old.start),
                (_, true) => format!("{}d\n", span(old)),
                _ => format!("{}c\n", span(old)),
            };
            out.extend_from_slice(command.as_bytes());
            if !new.is_empty() {
                for line in &self.texts.new[new.clone()] {
                    out.extend_from_slice(content(line));
                    out.push(b'\n');
                }
                out.extend_from_slice(b".\n");
            }
        }
    }

    pub(super) fn rcs(&self, hunks: &[&[Change]], out: &mut Vec<u8>) {
        for change in hunks.iter().flat_map(|hunk| hunk.iter()) {
            let (old, new) = (&change.old, &change.new);
            if !old.is_empty() {
                out.extend_from_slice(format!("d{} {}\n", old.start + 1, old.len()).as_bytes());
            }
            if !new.is_empty() {
                out.extend_from_slice(format!("a{} {}\n", old.end, new.len()).as_bytes());
                for line in &self.texts.new[new.clone()] {
                    out.extend_from_slice(line);
                }
            }
        }
    }

    /// Two columns, as `diff -y` prints them.
    pub(super) fn side_by_side(&self, changes: &[Change], out: &mut Vec<u8>) {
        let columns = SideColumns::new(self.opts);
        let mut at_old = 0;
        let mut at_new = 0;
        let common = |out: &mut Vec<u8>, old: usize, new: usize| {
            if !self.opts.suppress_common {
                let sep = if self.opts.left_column { '(' } else { ' ' };
                let right = if self.opts.left_column {
                    None
                } else {
                    Some(self.texts.new[new])
                };
                columns.line(out, Some(self.texts.old[old]), sep, right);
            }
        };
        for change in changes {
            while at_old < change.old.start {
                common(out, at_old, at_new);
                at_old += 1;
                at_new += 1;
            }
            let (old, new) = (
                &self.texts.old[change.old.clone()],
                &self.texts.new[change.new.clone()],
            );
            for i in 0..old.len().max(new.len()) {
                match (old.get(i), new.get(i)) {
                    (Some(l), Some(r)) => columns.line(out, Some(l), '|', Some(r)),
                    (Some(l), None) => columns.line(out, Some(l), '<', None),
                    (None, Some(r)) => columns.line(out, None, '>', Some(r)),
                    (None, None) => {}
                }
            }
            at_old = change.old.end;
            at_new = change.new.end;
        }
        while at_old < self.texts.old.len() && at_new < self.texts.new.len() {
            common(out, at_old, at_new);
            at_old += 1;
            at_new += 1;
        }
    }
}

/// The geometry of `diff -y` output (as wide as GNU's).
pub(super) struct SideColumns {
    pub(super) half: usize,
    pub(super) right_at: usize,
    pub(super) tab_size: usize,
    pub(super) expand_tabs: bool,
}

impl SideColumns {
    const GUTTER: usize = 3;

    fn new(opts: &Options) -> Self {
        let tab = if opts.expand_tabs { 1 } else { opts.tab_size };
        let off = opts.width.saturating_add(tab + Self::GUTTER) / (2 * tab) * tab;
        let half = off
            .saturating_sub(Self::GUTTER)
            .min(opts.width.saturating_sub(off));
        Self {
            half,
            right_at: if half > 0 { off } else { opts.width },
            tab_size: opts.tab_size,
            expand_tabs: opts.expand_tabs,
        }
    }

    fn line(&self, out: &mut Vec<u8>, left: Option<&[u8]>, sep: char, right: Option<&[u8]>) {
        let mut newline = false;
        let mut col = 0;
        if let Some(left) = left {
            newline |= left.ends_with(b"\n");
            col = self.half_line(out, left, 0, self.half);
        }
        if sep != ' ' {
            col = self.pad(out, col, (self.half + self.right_at).saturating_sub(1) / 2) + 1;
            // A changed line where only one side ends in a newline.
            let sep = match right {
                Some(right) if sep == '|' && newline != right.ends_with(b"\n") => {
                    if newline {
                        '/'
                    } else {
                        '\\'
                    }
                }
                _ => sep,
            };
            out.push(sep as u8);
        }
        if let Some(right) = right {
            newline |= right.ends_with(b"\n");
            if content(right).is_empty() {
                // Nothing to show: no padding either.
            } else {
                self.pad(out, col, self.right_at);
                self.half_line(out, right, self.right_at, self.half);
            }
        }
        if newline {
            out.push(b'\n');
        }
    }

    /// Pads from column `from` to `to` with tabs (or spaces under `-t`).
    fn pad(&self, out: &mut Vec<u8>, mut from: usize, to: usize) -> usize {
        if !self.expand_tabs {
            let mut tab = from + self.tab_size - from % self.tab_size;
            while tab <= to {
                out.push(b'\t');
                from = tab;
                tab += self.tab_size;
            }
        }
        while from < to {
            out.push(b' ');
            from += 1;
        }
        to
    }

    /// Prints `line` in at most `width` columns, as GNU does in the C locale: tab stops
    /// count from the start of the column, a carriage return pads back out to the
    /// column (`indent`), other control and non-ASCII bytes take no column, a backspace
    /// takes one back. Returns the columns used.
    fn half_line(&self, out: &mut Vec<u8>, line: &[u8], indent: usize, width: usize) -> usize {
        let tab = self.tab_size;
        let (mut in_pos, mut out_pos) = (0, 0);
        for &b in content(line) {
            match b {
                b'\t' => {
                    let spaces = tab - in_pos % tab;
                    if in_pos == out_pos {
                        let stop = out_pos + spaces;
                        if self.expand_tabs {
                            while out_pos < stop.min(width) {
                                out.push(b' ');
                                out_pos += 1;
                            }
                        } else if stop < width {
                            out_pos = stop;
                            out.push(b'\t');
                        }
                    }
                    in_pos += spaces;
                }
                b'\r' => {
                    out.push(b);
                    self.pad(out, 0, indent);
                    in_pos = 0;
                    out_pos = 0;
                }
                0x08 => {
                    if in_pos != 0 {
                        in_pos -= 1;
                        if in_pos < width && out_pos <= in_pos {
                            // Spaces make up for a tab suppressed past the edge.
                            while out_pos < in_pos {
                                out.push(b' ');
                                out_pos += 1;
                            }
                        } else if in_pos < width {
                            out_pos = in_pos;
                            out.push(b);
                        }
                    }
                }
                b' '..=b'~' => {
                    if in_pos < width {
                        out_pos = in_pos + 1;
                        out.push(b);
                    }
                    in_pos += 1;
                }
                0x00 | 0x0b | 0x0c => {
                    if in_pos < width {
                        out.push(b);
                    }
                }
                // Other control characters and the bytes above ASCII: no width,
                // shown up to the edge.
                _ => {
                    if in_pos <= width {
                        out_pos = in_pos;
                        out.push(b);
                    }
                }
            }
        }
        out_pos
    }
}
